package store_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/store"
)

// The memory store holds a session's log compactly: a realistic conversation is hundreds of
// text deltas of ~110 bytes each that differ by a word and a seq; held one allocation each
// they took 1.55× their bytes; sealed in compressed blocks (64 events, or a turn's end)
// under a third. Measured as the heap
// 200 such sessions keep, against the bytes of their events; every event still reads back
// as written, across block boundaries.
func TestMemoryStoreHoldsEventsPacked(t *testing.T) {
	const sessions, events = 200, 250
	ctx := context.Background()
	st := store.NewMemory()
	words := strings.Fields("The 2022 Tesla Model 3 is the best match: it is electric, seats five, and " +
		"costs $35,990 with 18,000 miles. The Toyota RAV4 Hybrid is $2,000 more, gets 40 mpg, and has " +
		"all-wheel drive and more room for luggage; the Honda CR-V is the cheapest of the three at $29,500.")
	data := func(seq int) []byte {
		return fmt.Appendf(nil, `{"turnId":"t-%016x","seq":%d,"type":"text_delta","time":%d,"delta":%q}`,
			seq/80, seq, 1764590000000+int64(seq)*37, words[(seq*7)%len(words)]+" ")
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
				if i%80 == 0 || i == events { // a turn of 80 events ends, with its messages
					none := ""
					b.ActiveTurn = &none
					b.Messages = append(b.Messages,
						chat.Message{Role: chat.RoleUser, Content: fmt.Sprintf("question %d", i)},
						chat.Message{Role: chat.RoleAssistant, Content: strings.Join(words, " ")})
				}
			}
			if err := st.Append(ctx, id, b); err != nil {
				t.Fatal(err)
			}
		}
	}
	runtime.GC()
	runtime.GC() // twice: the compressor sync.Pool keeps is dropped, only the sessions are left
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("%d sessions of %d events: %d bytes of events, the store holds %d", sessions, events, payload, held)
	if ratio := float64(held) / float64(payload); ratio > 0.3 {
		t.Errorf("the store holds %d bytes for %d bytes of events (%.2f×), want at most 0.3×", held, payload, ratio)
	}
	// The messages too, sealed at each turn's end.
	got, err := st.Load(ctx, "s0007")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Messages) != 8 || got.Messages[4].Content != "question 240" || got.Messages[6].Content != "question 250" || got.Messages[7].Content != strings.Join(words, " ") || got.Messages[2].Content != "question 160" {
		t.Errorf("got %d messages, want the 8 of the four turns in order", len(got.Messages))
	}
	// Still every event, in order, as written: all of them, and ranges across the blocks
	// (64 events each) and into the events not sealed yet.
	for _, r := range []struct{ after, limit int }{{0, 0}, {60, 10}, {120, 80}, {240, 0}, {250, 0}, {63, 1}, {64, 64}} {
		evs, err := st.EventsAfter(ctx, "s0007", int64(r.after), r.limit)
		if err != nil {
			t.Fatal(err)
		}
		want := events - r.after
		if r.limit > 0 {
			want = min(want, r.limit)
		}
		if len(evs) != want {
			t.Errorf("after %d limit %d: got %d events, want %d", r.after, r.limit, len(evs), want)
			continue
		}
		for i, e := range evs {
			if seq := r.after + i + 1; e.Seq != int64(seq) || string(e.Data) != string(data(seq)) {
				t.Errorf("after %d: event %d is seq %d %s, want seq %d %s", r.after, i, e.Seq, e.Data, seq, data(seq))
				break
			}
		}
	}
	runtime.KeepAlive(st)
}
