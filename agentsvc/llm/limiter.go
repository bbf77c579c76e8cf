package llm

import (
	"container/list"
	"context"
	"sync"
)

// Limiter bounds how many model requests run at once against one provider. Callers past the
// bound wait in arrival order (FIFO), so that no session's turn is overtaken by later ones
// while the provider is saturated; a waiter whose context ends leaves the queue.
//
// One mutex guards the count and the queue. A slot freed while waiters queue is handed to
// the first of them directly (the count does not change), so a late arrival can never take
// it first.
type Limiter struct {
	mu      sync.Mutex
	size    int
	used    int
	waiters list.List // of chan struct{}, closed when the slot is handed over
}

// NewLimiter returns a Limiter of n slots (at least 1).
func NewLimiter(n int) *Limiter {
	return &Limiter{size: max(n, 1)}
}

// Size is the number of slots.
func (l *Limiter) Size() int { return l.size }

// Acquire takes a slot, waiting in line for one; it returns ctx's cause if ctx ends first
// (then no slot is held). Every successful Acquire is matched by one Release.
func (l *Limiter) Acquire(ctx context.Context) error {
	l.mu.Lock()
	if l.used < l.size && l.waiters.Len() == 0 {
		l.used++
		l.mu.Unlock()
		return nil
	}
	if err := ctx.Err(); err != nil {
		l.mu.Unlock()
		return context.Cause(ctx)
	}
	ready := make(chan struct{})
	el := l.waiters.PushBack(ready)
	l.mu.Unlock()

	select {
	case <-ready:
		return nil
	case <-ctx.Done():
		l.mu.Lock()
		select {
		case <-ready:
			// Handed a slot just as ctx ended: pass it on to the next in line.
			l.releaseLocked()
		default:
			l.waiters.Remove(el)
		}
		l.mu.Unlock()
		return context.Cause(ctx)
	}
}

// Release gives a slot back: to the first waiter, else to the pool.
func (l *Limiter) Release() {
	l.mu.Lock()
	l.releaseLocked()
	l.mu.Unlock()
}

func (l *Limiter) releaseLocked() {
	if front := l.waiters.Front(); front != nil {
		l.waiters.Remove(front)
		close(front.Value.(chan struct{}))
		return
	}
	if l.used == 0 {
		panic("llm: Limiter.Release without Acquire")
	}
	l.used--
}

// Waiting reports how many callers are queued (for tests and metrics).
func (l *Limiter) Waiting() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.waiters.Len()
}

// InUse reports how many slots are held.
func (l *Limiter) InUse() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.used
}
