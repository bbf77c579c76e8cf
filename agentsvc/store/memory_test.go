package store_test

import (
	"bytes"
	"context"
	"encoding/json"
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
// under a third (0.31× with S2; 0.24× with DEFLATE, which cost a third of a saturation
// turn's store work, see memlog.go). Measured as the heap
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
	runtime.GC() // twice: what earlier tests left in the store's pools is gone
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
				if i%80 == 1 { // a turn starts (turn_start marks the session as running one)
					running := fmt.Sprintf("t-%016x", i/80)
					b.ActiveTurn = &running
				}
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
	if ratio := float64(held) / float64(payload); ratio > 0.33 {
		t.Errorf("the store holds %d bytes for %d bytes of events (%.2f×), want under a third", held, payload, ratio)
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

// saturationTurn is a turn as a flusher writes it at saturation: a user message, twenty tool
// calls with their results, then a streamed answer, in batches of one to three events, and
// the turn's end (which seals its events and messages). Its seqs start at 1.
func saturationTurn() []store.Batch {
	running, none := "t-1", ""
	result := strings.Repeat(`{\"id\":\"c07\",\"make\":\"Kia\",\"model\":\"Sportage\",\"price\":27990},`, 6)
	seq := int64(0)
	ev := func(data string) store.Event {
		seq++
		return store.Event{Seq: seq, Data: fmt.Appendf(nil, `{"seq":%d,"turnId":"t-1",%s}`, seq, data)}
	}
	batches := []store.Batch{{
		Events:     []store.Event{ev(`"type":"turn_start"`), ev(`"type":"user_message","text":"SUVs under 40k, cheapest first"`)},
		Messages:   []chat.Message{{Role: chat.RoleUser, Content: "SUVs under 40k, cheapest first"}},
		ActiveTurn: &running,
	}}
	for i := range 20 {
		call := fmt.Sprintf(`"callId":"call-%d","name":"filter_inventory","arguments":"{\"bodyType\":\"suv\",\"maxPrice\":40000}"`, i)
		batches = append(batches,
			store.Batch{Events: []store.Event{ev(`"type":"tool_call",` + call)},
				Messages: []chat.Message{{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: fmt.Sprint("call-", i), Name: "filter_inventory", Arguments: `{"bodyType":"suv"}`}}}}},
			store.Batch{Events: []store.Event{ev(`"type":"tool_result","callId":"c","result":"[` + result + `]"`)},
				Messages: []chat.Message{{Role: chat.RoleTool, ToolCallID: fmt.Sprint("call-", i), Content: "[" + result + "]"}}})
	}
	for range 10 {
		batches = append(batches, store.Batch{Events: []store.Event{
			ev(`"type":"text_delta","delta":"The 2023 Kia Sportage LX in Gravity Gray has 18,400 miles and "`),
			ev(`"type":"text_delta","delta":"a clean history; it is the cheapest of the six at $27,990. "`)}})
	}
	batches = append(batches, store.Batch{Events: []store.Event{ev(`"type":"turn_end","stopReason":"done"`)},
		Messages: []chat.Message{{Role: chat.RoleAssistant, Content: "The 2023 Kia Sportage LX is the cheapest."}}, ActiveTurn: &none})
	return batches
}

// BenchmarkMemoryAppendTurn writes saturationTurn to a new session each time (deleted after).
// Its allocations are the memory store's share of a turn's garbage.
func BenchmarkMemoryAppendTurn(b *testing.B) {
	ctx := context.Background()
	st := store.NewMemory()
	batches := saturationTurn()
	b.ReportAllocs()
	for b.Loop() {
		if err := st.Create(ctx, &store.Session{ID: "s", Origin: "http://localhost:3000"}); err != nil {
			b.Fatal(err)
		}
		for _, bt := range batches {
			if err := st.Append(ctx, "s", bt); err != nil {
				b.Fatal(err)
			}
		}
		if err := st.Delete(ctx, "s"); err != nil {
			b.Fatal(err)
		}
	}
}

// A block's buffer, reused for the next block of any session once its block is sealed, never
// changes what was read from it before.
func TestMemoryStoreReusedBlocksKeepWhatWasRead(t *testing.T) {
	ctx := context.Background()
	st := store.NewMemory()
	batches := saturationTurn()
	for _, id := range []string{"a", "b"} {
		if err := st.Create(ctx, &store.Session{ID: id, Origin: "http://localhost:3000"}); err != nil {
			t.Fatal(err)
		}
	}
	// Session a reads its open block mid-turn, then ends the turn (its blocks are sealed and
	// their buffers go back); b then writes other bytes through them.
	last := len(batches) - 1
	for _, b := range batches[:last] {
		if err := st.Append(ctx, "a", b); err != nil {
			t.Fatal(err)
		}
	}
	read, err := st.EventsAfter(ctx, "a", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	loaded, err := st.Load(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	want := make([]string, len(read))
	for i, e := range read {
		want[i] = string(e.Data)
	}
	wantMsgs, err := json.Marshal(loaded.Messages)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Append(ctx, "a", batches[last]); err != nil {
		t.Fatal(err)
	}
	for _, b := range batches {
		other := store.Batch{Messages: b.Messages, ActiveTurn: b.ActiveTurn}
		for _, e := range b.Events {
			other.Events = append(other.Events, store.Event{Seq: e.Seq, Data: fmt.Appendf(nil, "%q", bytes.Repeat([]byte("x"), len(e.Data)-2))})
		}
		if err := st.Append(ctx, "b", other); err != nil {
			t.Fatal(err)
		}
	}
	for i, e := range read {
		if string(e.Data) != want[i] {
			t.Fatalf("event %d read before its block was sealed changed to %s", e.Seq, e.Data)
		}
	}
	if got, _ := json.Marshal(loaded.Messages); string(got) != string(wantMsgs) {
		t.Errorf("messages loaded before their block was sealed changed")
	}
	again, err := st.EventsAfter(ctx, "a", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != len(read)+1 {
		t.Fatalf("got %d events of a, want %d", len(again), len(read)+1)
	}
	for i, e := range read {
		if string(again[i].Data) != string(e.Data) {
			t.Fatalf("event %d of a: got %s after b wrote, want %s", e.Seq, again[i].Data, e.Data)
		}
	}
}
