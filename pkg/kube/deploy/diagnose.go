package deploy

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/authbench/authbench/internal/kubeapi"
)

// podState is what a pod's status says about why it is not ready.
type podState struct {
	Metadata struct{ Name string }
	Status   struct {
		Phase      string
		Conditions []struct {
			Type, Status, Reason, Message string
		}
		ContainerStatuses []struct {
			Name         string
			Ready        bool
			RestartCount int32
			State        struct {
				Waiting    *struct{ Reason, Message string }
				Terminated *struct {
					Reason   string
					ExitCode int32
				}
			}
		}
	}
}

// whyNotReady says why a Deployment's pods are not ready, from the pods
// whose names start with its own: phase, unmet conditions and container
// states. Asked after the wait has given up, it has a few seconds of its
// own; "" when the pods cannot be read.
func whyNotReady(ctx context.Context, c *Client, namespace, name string) string {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	code, b, err := c.Do(ctx, http.MethodGet, kubeapi.Path("api", "v1", "namespaces", namespace, "pods"), "", nil)
	if err != nil || code != http.StatusOK {
		return ""
	}
	var list struct{ Items []podState }
	if json.Unmarshal(b, &list) != nil {
		return ""
	}
	var parts []string
	for _, p := range list.Items {
		if strings.HasPrefix(p.Metadata.Name, name+"-") {
			parts = append(parts, p.describe())
		}
	}
	if len(parts) == 0 {
		return "no pod was created"
	}
	return strings.Join(parts, "; ")
}

// describe is one pod's state in a line.
func (p podState) describe() string {
	s := []string{"pod " + p.Metadata.Name + " " + p.Status.Phase}
	for _, c := range p.Status.Conditions {
		if c.Status != "True" && (c.Reason != "" || c.Message != "") {
			s = append(s, fmt.Sprintf("%s: %s %s", c.Type, c.Reason, c.Message))
		}
	}
	for _, cs := range p.Status.ContainerStatuses {
		switch st := cs.State; {
		case st.Waiting != nil:
			s = append(s, fmt.Sprintf("container %s waiting: %s %s", cs.Name, st.Waiting.Reason, st.Waiting.Message))
		case st.Terminated != nil:
			s = append(s, fmt.Sprintf("container %s terminated: %s (exit %d)", cs.Name, st.Terminated.Reason, st.Terminated.ExitCode))
		case !cs.Ready:
			s = append(s, fmt.Sprintf("container %s running, not ready", cs.Name))
		}
		if cs.RestartCount > 0 {
			s = append(s, fmt.Sprintf("%d restarts", cs.RestartCount))
		}
	}
	return strings.TrimSpace(strings.Join(s, ", "))
}
