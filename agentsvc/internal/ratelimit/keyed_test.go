package ratelimit

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

func TestKeyed(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	l := NewKeyed(2, 3, 100) // 2 per second, 3 at once
	for i := range 3 {
		if !l.Allow("a", t0) {
			t.Fatalf("take %d of the burst refused", i+1)
		}
	}
	if l.Allow("a", t0) {
		t.Errorf("a 4th take at once allowed, want refused")
	}
	if !l.Allow("b", t0) {
		t.Errorf("another key refused, want its own bucket")
	}
	if !l.Allow("a", t0.Add(500*time.Millisecond)) {
		t.Errorf("after 0.5 s (one token back) refused, want allowed")
	}
	if l.Allow("a", t0.Add(500*time.Millisecond)) {
		t.Errorf("a second take after 0.5 s allowed, want refused")
	}
	if got := l.Len(); got != 2 {
		t.Errorf("Len = %d, want 2", got)
	}
}

func TestKeyedBounded(t *testing.T) {
	t0 := time.Unix(1_000_000, 0)
	l := NewKeyed(1, 1, 10)
	for i := range 25 {
		l.Allow(fmt.Sprint("k", i), t0) // each bucket is empty: none can be forgotten for free
		if n := l.Len(); n > 10 {
			t.Fatalf("remembers %d keys, want at most 10", n)
		}
	}
	// Ten seconds later every bucket is full again: forgetting them loses nothing, and the
	// key that was over its rate before is allowed.
	l.Allow("k24", t0)
	if !l.Allow("new", t0.Add(10*time.Second)) || !l.Allow("k24", t0.Add(10*time.Second)) {
		t.Errorf("refused after the buckets refilled, want allowed")
	}
}

func TestKeyedConcurrent(t *testing.T) {
	l := NewKeyed(0, 50, 1000) // no refill: exactly the burst is allowed
	now := time.Unix(1_000_000, 0)
	var wg sync.WaitGroup
	var mu sync.Mutex
	allowed := 0
	for range 8 {
		wg.Go(func() {
			for range 20 {
				if l.Allow("k", now) {
					mu.Lock()
					allowed++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if allowed != 50 {
		t.Errorf("allowed %d of 160 takes, want the burst of 50", allowed)
	}
}
