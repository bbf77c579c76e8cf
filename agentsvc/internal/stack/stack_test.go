package stack

import (
	"sync"
	"testing"
)

// deep uses about depth × 256 bytes of stack, in depth frames, as a tool call's path does.
//
//go:noinline
func deep(depth int) int {
	var pad [200]byte
	pad[depth%200] = byte(depth)
	if depth == 0 {
		return int(pad[0])
	}
	return deep(depth-1) + int(pad[depth%200])
}

// run starts n goroutines that each go 40 frames (about 10 KiB) deep, growing their stack
// first or not.
func run(n int, grow bool) {
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if grow {
				Grow()
			}
			deep(40)
		})
	}
	wg.Wait()
}

// The two benchmarks compare a new goroutine whose stack doubles as the deep work needs
// it with one that grows it first (go test -bench . ./agentsvc/internal/stack/).
func BenchmarkDeepGoroutine(b *testing.B) {
	for b.Loop() {
		run(100, false)
	}
}

func BenchmarkDeepGoroutineGrown(b *testing.B) {
	for b.Loop() {
		run(100, true)
	}
}

func TestGrowLeavesTheGoroutineUsable(t *testing.T) {
	done := make(chan int)
	go func() {
		Grow()
		done <- deep(100)
	}()
	if got, want := <-done, deep(100); got != want {
		t.Fatalf("deep(100) after Grow: got %d, want %d", got, want)
	}
}
