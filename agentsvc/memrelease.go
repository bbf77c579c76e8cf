package agentsvc

// Memory the runtime holds but no longer uses is given back to the OS once the agent is quiet.

import (
	"runtime/debug"
	"time"
)

// idleRelease gives the OS back the memory the Go runtime keeps after a burst of turns, once
// no turn has ended for a while. Turns allocate (model streams, tool results, events); the
// tabs then idle with a fraction of it live, but the runtime keeps the freed pages and the
// goroutine stacks the turns grew, and its background scavenger returns them slowly: an
// agent whose traffic came in a burst kept about twice what its idle tabs need (measured in
// bench/PERFORMANCE.md). debug.FreeOSMemory collects, shrinks the stacks and returns the
// free pages at once; it costs one garbage collection, at most once per quiet period.
//
// The timer is owned by the releaser: each turn's end pushes it back; it fires in a
// goroutine of its own (time.AfterFunc). Lock order: mu is a leaf.
type idleRelease struct {
	after   time.Duration
	release func() // debug.FreeOSMemory; tests count calls

	mu      mutex
	timer   *time.Timer
	stopped bool
}

func newIdleRelease(after time.Duration) *idleRelease {
	return &idleRelease{after: after, release: debug.FreeOSMemory}
}

// turnEnded arms (or pushes back) the release: it happens after no turn ended for r.after.
func (r *idleRelease) turnEnded() {
	if r == nil || r.after <= 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped {
		return
	}
	if r.timer == nil {
		r.timer = time.AfterFunc(r.after, r.release)
		return
	}
	r.timer.Reset(r.after)
}

// stop cancels a pending release (shutdown).
func (r *idleRelease) stop() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stopped = true
	if r.timer != nil {
		r.timer.Stop()
	}
}
