package loadgen

import (
	"strings"
	"syscall"
	"testing"
)

// A scenario with more pages than the open-file limit allows sockets runs with as many as
// fit, and says so; the others are left alone.
func TestFitFileLimit(t *testing.T) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		t.Fatal(err)
	}
	if l.Cur <= filesReserve || l.Cur > 1<<30 {
		t.Skipf("open-file limit %d: nothing to fit", l.Cur)
	}
	most := int(l.Cur - filesReserve)
	var progress strings.Builder
	got := fitFileLimit([]Scenario{{Name: "idle", Sessions: most + 5000}, {Name: "one", Sessions: 1}}, &progress)
	if got[0].Sessions != most || got[1].Sessions != 1 {
		t.Errorf("sessions: got %d and %d, want %d and 1", got[0].Sessions, got[1].Sessions, most)
	}
	if !strings.Contains(progress.String(), "idle:") || strings.Contains(progress.String(), "one:") {
		t.Errorf("progress: got %q, want a line for idle only", progress.String())
	}
}
