package lock

import (
	"sync"
	"sync/atomic"
	"testing"
)

// Many processes probing one lab at once (parallel `authbench run`s, each
// asking whether a lab is up) must not see each other's probes as a
// running supervisor, and must all see a real one.
func TestSupervisorAliveConcurrentProbes(t *testing.T) {
	dir := t.TempDir()
	probe := func() int64 {
		var alive atomic.Int64
		var wg sync.WaitGroup
		for g := 0; g < 16; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < 200; i++ {
					if Alive(dir) {
						alive.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		return alive.Load()
	}
	lock, err := Acquire(dir)
	if err != nil {
		t.Fatal(err)
	}
	if n := probe(); n != 16*200 {
		t.Fatalf("with the supervisor's lock held, %d of %d probes saw it", n, 16*200)
	}
	lock.Close()
	if n := probe(); n != 0 {
		t.Fatalf("with no supervisor, %d probes saw one", n)
	}
	// A supervisor starting while probes run still gets its lock.
	done := make(chan int64)
	go func() { done <- probe() }()
	lock, err = Acquire(dir)
	if err != nil {
		t.Fatalf("supervisor could not lock beside probes: %v", err)
	}
	lock.Close()
	<-done
}
