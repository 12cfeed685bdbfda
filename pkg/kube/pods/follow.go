package pods

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// event is one thing a pod's log said.
type event struct {
	idx  int
	line Line
	text string // a line that is not the agent's JSON
	gone bool   // the log ended: the container stopped
}

// podState is what the coordinator knows of one pod index.
type podState struct {
	index      int
	name, node string
	following  bool
	ready      bool
	gone       bool
	reason     string
}

func (p *podState) live() bool { return p.ready && !p.gone }

// waitReady follows each index's first pod until every pod said ready
// or failed, or the ready timeout passed.
func (e *Executor) waitReady(ctx, bg context.Context) error {
	e.pods = make([]*podState, e.o.Pods)
	deadline := time.Now().Add(e.o.ReadyTimeout)
	for {
		e.scanPods(ctx, bg)
		e.drain()
		ready, settled := 0, 0
		for _, p := range e.pods {
			if p != nil && p.live() {
				ready++
			}
			if p != nil && (p.ready || p.gone) {
				settled++
			}
		}
		switch {
		case settled == e.o.Pods && ready > 0, ready > 0 && time.Now().After(deadline):
			e.markNotReady(fmt.Sprintf("not ready after %s", e.o.ReadyTimeout))
			fmt.Fprintf(e.o.Log, "pods: %d of %d ready\n", ready, e.o.Pods)
			return nil
		case settled == e.o.Pods, time.Now().After(deadline):
			return fmt.Errorf("waiting for the load generator pods: none became ready (%s)", e.reasons())
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the load generator pods: %w", ctx.Err())
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// scanPods takes each index's first pod and follows its log once its
// container has started; a pod that failed before is marked gone.
func (e *Executor) scanPods(ctx, bg context.Context) {
	list, err := e.listPods(ctx)
	if err != nil {
		return
	}
	for _, p := range list {
		idx, err := strconv.Atoi(p.Metadata.Annotations[indexAnnotation])
		if err != nil || idx < 0 || idx >= len(e.pods) {
			continue
		}
		if e.pods[idx] == nil {
			e.pods[idx] = &podState{index: idx, name: p.Metadata.Name}
		}
		st := e.pods[idx]
		if st.name != p.Metadata.Name {
			continue // a replacement: its index's share is already lost
		}
		st.node = p.Spec.NodeName
		started := p.Status.Phase == "Running" || p.Status.Phase == "Succeeded" || p.Status.Phase == "Failed"
		if started && !st.following {
			st.following = true
			go e.follow(bg, idx, p.Metadata.Name)
		}
		if st.reason == "" {
			st.reason = podReason(p)
		}
	}
}

// podReason says why a pod is not running, from its status.
func podReason(p pod) string {
	for _, c := range p.Status.ContainerStatuses {
		if w := c.State.Waiting; w != nil && w.Reason != "" && w.Reason != "ContainerCreating" {
			return strings.TrimSpace(w.Reason + " " + w.Message)
		}
		if t := c.State.Terminated; t != nil {
			return fmt.Sprintf("%s (exit %d)", t.Reason, t.ExitCode)
		}
	}
	if p.Status.Reason != "" {
		return p.Status.Reason + " " + p.Status.Message
	}
	return ""
}

// drain applies the events waiting, outside a phase.
func (e *Executor) drain() {
	for {
		select {
		case ev := <-e.events:
			e.apply(ev)
		default:
			return
		}
	}
}

// apply records what an event says about its pod's state.
func (e *Executor) apply(ev event) {
	p := e.pods[ev.idx]
	switch {
	case ev.gone:
		p.gone = true
		if p.reason == "" {
			p.reason = "its log ended"
		}
	case ev.text != "":
		p.reason = ev.text
	case ev.line.Kind == KindReady:
		p.ready = true
	case ev.line.Kind == KindError:
		p.reason = ev.line.Message
	}
}

func (e *Executor) markNotReady(reason string) {
	for i, p := range e.pods {
		if p == nil {
			e.pods[i] = &podState{index: i, gone: true, reason: reason}
		} else if !p.ready {
			p.gone = true
			if p.reason == "" {
				p.reason = reason
			}
		}
	}
}

func (e *Executor) reasons() string {
	var r []string
	for i, p := range e.pods {
		switch {
		case p == nil:
			r = append(r, fmt.Sprintf("pod %d: not created", i))
		case p.reason != "":
			r = append(r, fmt.Sprintf("pod %d: %s", i, p.reason))
		}
	}
	if len(r) == 0 {
		return "no reason given"
	}
	return strings.Join(r, "; ")
}
