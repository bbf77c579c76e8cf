package llm_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/byomcp/byomcp/agentsvc/llm"
)

// TestLimiterFIFO: once the slots are taken, waiters get them in the order they arrived,
// and a newcomer never overtakes a waiter.
func TestLimiterFIFO(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := llm.NewLimiter(2)
		ctx := t.Context()
		for range 2 {
			if err := l.Acquire(ctx); err != nil {
				t.Fatal(err)
			}
		}
		var mu sync.Mutex
		var order []int
		var wg sync.WaitGroup
		for i := range 5 {
			wg.Go(func() {
				if err := l.Acquire(ctx); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				order = append(order, i)
				mu.Unlock()
			})
			synctest.Wait() // waiter i is queued before i+1 starts
		}
		if got := l.Waiting(); got != 5 {
			t.Fatalf("waiting: got %d, want 5", got)
		}
		for range 5 {
			l.Release()
			synctest.Wait()
		}
		wg.Wait()
		for i, v := range order {
			if v != i {
				t.Fatalf("got order %v, want 0 1 2 3 4", order)
			}
		}
		if got := l.InUse(); got != 2 {
			t.Errorf("in use: got %d, want 2 (the slots were handed over)", got)
		}
		// A freed slot goes to the pool when nobody waits.
		l.Release()
		l.Release()
		if got := l.InUse(); got != 0 {
			t.Errorf("in use after releasing all: got %d, want 0", got)
		}
	})
}

// TestLimiterCancel: a waiter whose context ends leaves the queue without a slot, and the
// ones behind it still get theirs in order.
func TestLimiterCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := llm.NewLimiter(1)
		if err := l.Acquire(t.Context()); err != nil {
			t.Fatal(err)
		}
		cause := errors.New("tab closed")
		cctx, cancel := context.WithCancelCause(t.Context())
		errc := make(chan error, 1)
		go func() { errc <- l.Acquire(cctx) }()
		synctest.Wait()
		got := make(chan struct{})
		go func() {
			if err := l.Acquire(t.Context()); err != nil {
				t.Error(err)
			}
			close(got)
		}()
		synctest.Wait()
		cancel(cause)
		if err := <-errc; !errors.Is(err, cause) {
			t.Errorf("cancelled waiter: got %v, want its context's cause", err)
		}
		if w := l.Waiting(); w != 1 {
			t.Errorf("waiting after cancel: got %d, want 1", w)
		}
		l.Release()
		<-got
		if u := l.InUse(); u != 1 {
			t.Errorf("in use: got %d, want 1", u)
		}
		// An ended context still takes a free slot, but never waits for one.
		l.Release()
		done, stop := context.WithCancel(t.Context())
		stop()
		if err := l.Acquire(done); err != nil {
			t.Errorf("free slot with an ended context: got %v, want the slot", err)
		}
		if err := l.Acquire(done); !errors.Is(err, context.Canceled) {
			t.Errorf("full limiter with an ended context: got %v, want context.Canceled", err)
		}
	})
}

// TestLimiterRandom: many goroutines acquiring, releasing and cancelling at random never
// hold more than the bound at once, and every slot comes back.
func TestLimiterRandom(t *testing.T) {
	const size = 3
	l := llm.NewLimiter(size)
	var held, peak atomic.Int64
	var wg sync.WaitGroup
	for g := range 32 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 1))
			for range 200 {
				ctx, cancel := context.WithCancel(context.Background())
				if r.IntN(4) == 0 {
					cancel() // sometimes the waiter gives up at once
				}
				if err := l.Acquire(ctx); err == nil {
					n := held.Add(1)
					for {
						p := peak.Load()
						if n <= p || peak.CompareAndSwap(p, n) {
							break
						}
					}
					if n > size {
						t.Errorf("%d slots held, bound %d", n, size)
					}
					held.Add(-1)
					l.Release()
				}
				cancel()
			}
		})
	}
	wg.Wait()
	if u, w := l.InUse(), l.Waiting(); u != 0 || w != 0 {
		t.Errorf("at the end: %d in use, %d waiting, want 0 and 0", u, w)
	}
	if peak.Load() == 0 {
		t.Error("no goroutine ever held a slot")
	}
}
