package recent

import (
	"fmt"
	"testing"
	"time"
)

// An id is remembered for Keep, and at most Max ids are, the oldest going first.
func TestIDsExpireAndAreBounded(t *testing.T) {
	var d IDs
	now := time.Unix(1_000_000, 0)
	d.Add("a", now)
	if !d.Has("a", now.Add(Keep)) || d.Has("a", now.Add(Keep+time.Second)) || d.Has("b", now) {
		t.Fatal("an id is remembered for Keep, and no longer")
	}
	for i := range Max + 10 {
		d.Add(fmt.Sprint(i), now)
	}
	if d.Has("0", now) || !d.Has(fmt.Sprint(Max+9), now) || len(d.order) != Max {
		t.Fatalf("kept %d ids, want the latest %d", len(d.order), Max)
	}
	d.Add("late", now.Add(2*Keep)) // every other one expired
	if len(d.order) != 1 || len(d.at) != 1 {
		t.Fatalf("kept %d ids after they expired", len(d.order))
	}
}
