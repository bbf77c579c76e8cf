package store_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/store"
)

// The memory store holds a session's log back to back, not one allocation per event: a
// realistic conversation is hundreds of text deltas of ~100 bytes each, and the per-event
// header and size-class rounding were a third of what an idle session cost it. Measured as
// the heap 200 such sessions keep, against the bytes of their events (1.55× before).
func TestMemoryStoreHoldsEventsPacked(t *testing.T) {
	const sessions, events = 200, 250
	ctx := context.Background()
	st := store.NewMemory()
	data := func(seq int) []byte {
		return fmt.Appendf(nil, `{"turnId":"t-0123456789abcdef","seq":%d,"type":"text_delta","time":1764590000000,"delta":"word "}`, seq)
	}
	payload := 0
	for i := range events {
		payload += len(data(i + 1))
	}
	payload *= sessions

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for s := range sessions {
		id := fmt.Sprintf("s%04d", s)
		if err := st.Create(ctx, &store.Session{ID: id, Origin: "http://localhost:3000"}); err != nil {
			t.Fatal(err)
		}
		for seq := 1; seq <= events; seq += 10 { // batches of ten, as a flusher writes them
			var b store.Batch
			for i := seq; i < seq+10 && i <= events; i++ {
				b.Events = append(b.Events, store.Event{Seq: int64(i), Data: data(i)})
			}
			if err := st.Append(ctx, id, b); err != nil {
				t.Fatal(err)
			}
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	if ratio := float64(held) / float64(payload); ratio > 1.25 {
		t.Errorf("the store holds %d bytes for %d bytes of events (%.2f×), want at most 1.25×", held, payload, ratio)
	}
	// Still every event, in order, as written.
	evs, err := st.EventsAfter(ctx, "s0007", 240, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 10 || evs[0].Seq != 241 || string(evs[9].Data) != string(data(250)) {
		t.Errorf("got %d events from seq %d, want 10 from 241 ending with event 250", len(evs), evs[0].Seq)
	}
	runtime.KeepAlive(st)
}
