// Package memrelease gives back to the OS the memory the runtime holds but no longer uses,
// once the agent is quiet.
package memrelease

import (
	"runtime/debug"
	"sync"
	"time"
)

// Releaser gives the OS back the memory the Go runtime keeps after a burst of turns, once
// no turn has ended for a while. Turns allocate (model streams, tool results, events); the
// tabs then idle with a fraction of it live, but the runtime keeps the freed pages and the
// goroutine stacks the turns grew, and its background scavenger returns them slowly: an
// agent whose traffic came in a burst kept about twice what its idle tabs need (measured in
// bench/PERFORMANCE.md). debug.FreeOSMemory collects, shrinks the stacks and returns the
// free pages at once; it costs one garbage collection, at most once per quiet period.
//
// The timer is owned by the releaser: each turn's end pushes it back; it fires in a
// goroutine of its own (time.AfterFunc). Lock order: mu is a leaf.
type Releaser struct {
	after   time.Duration
	release func() // debug.FreeOSMemory; tests count calls

	mu      sync.Mutex
	timer   *time.Timer
	stopped bool
}

// New returns a Releaser that releases after no turn ended for after (never when after <= 0).
func New(after time.Duration) *Releaser {
	return &Releaser{after: after, release: debug.FreeOSMemory}
}

// TurnEnded arms (or pushes back) the release: it happens after no turn ended for r.after.
func (r *Releaser) TurnEnded() {
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

// Stop cancels a pending release (shutdown).
func (r *Releaser) Stop() {
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
