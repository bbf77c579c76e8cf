package memrelease

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// The runtime's unused memory is given back once per quiet period: after the last turn's
// end, not while turns keep ending, and never after shutdown.
func TestIdleReleaseOncePerQuietPeriod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var released atomic.Int32
		r := New(10 * time.Second)
		r.release = func() { released.Add(1) }
		for range 5 { // a burst of turns, each ending 4 s after the one before
			r.TurnEnded()
			time.Sleep(4 * time.Second)
		}
		synctest.Wait()
		if n := released.Load(); n != 0 {
			t.Fatalf("released %d times while turns kept ending, want 0", n)
		}
		time.Sleep(7 * time.Second) // 11 s after the last turn's end
		synctest.Wait()
		if n := released.Load(); n != 1 {
			t.Fatalf("released %d times after a quiet period, want 1", n)
		}
		time.Sleep(time.Minute) // still quiet: nothing more
		synctest.Wait()
		if n := released.Load(); n != 1 {
			t.Fatalf("released %d times, want once per quiet period", n)
		}
		r.TurnEnded()
		r.Stop()
		r.TurnEnded() // a turn ending during shutdown
		time.Sleep(time.Minute)
		synctest.Wait()
		if n := released.Load(); n != 1 {
			t.Errorf("released %d times after stop, want no more", n)
		}
		off := New(-1)
		off.release = func() { released.Add(1) }
		off.TurnEnded()
		time.Sleep(time.Minute)
		if n := released.Load(); n != 1 {
			t.Errorf("released with IdleRelease negative, want never")
		}
	})
}
