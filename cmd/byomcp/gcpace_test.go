package main

import (
	"context"
	"errors"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestGCPacePercent(t *testing.T) {
	const mib = 1 << 20
	p := newGCPace(32*mib, nil, nil)
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, 100},          // nothing measured yet
		{1 << 10, 10_000}, // tiny heap: capped
		{8 * mib, 400},    // 8 MiB live may grow by 32 MiB
		{10 * mib, 320},   // rounded up
		{24 * mib, 134},   // 32/24 = 1.33…, rounded up
		{32*mib - 1, 101}, // just under the headroom
		{32 * mib, 100},   // the default from here on
		{1 << 30, 100},    // a big heap
	} {
		if got := p.percentFor(c.live); got != c.want {
			t.Errorf("percentFor(%d) = %d, want %d", c.live, got, c.want)
		}
	}
}

// The pace runs on the real collector: after each collection GOGC is set for the heap it
// left live.
func TestGCPaceFollowsCollections(t *testing.T) {
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)
	const mib = 1 << 20
	var live atomic.Uint64 // read by the cleanups' goroutine
	live.Store(4 * mib)
	set := make(chan int, 100)
	// GOGC is set before the test hears of it: it reads GOGC back at once.
	p := newGCPace(32*mib, func(pct int) int { old := debug.SetGCPercent(pct); set <- pct; return old }, live.Load)
	p.arm()
	wait := func(want int) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			runtime.GC()
			select {
			case got := <-set:
				if got == want {
					return
				}
			case <-deadline:
				t.Fatalf("GOGC was not set to %d after collections", want)
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	wait(800)
	if got := debug.SetGCPercent(800); got != 800 {
		t.Fatalf("GOGC is %d, want 800", got)
	}
	live.Store(64 * mib)
	wait(100)
}

// bench refuses a negative --generator-procs before it starts anything.
func TestBenchRefusesNegativeGeneratorProcs(t *testing.T) {
	var out, errOut strings.Builder
	err := runBench(context.Background(), []string{"--generator-procs", "-1"}, &out, &errOut)
	if !errors.Is(err, errUsage) || !strings.Contains(errOut.String(), "--generator-procs -1") {
		t.Fatalf("runBench --generator-procs -1: %v, %q; want the usage error naming the flag", err, errOut.String())
	}
}
