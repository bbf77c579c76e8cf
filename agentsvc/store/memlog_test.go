package store

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/chat"
)

// An open block grows by doubling: a turn's events were copied to a buffer an eighth larger
// each time they outgrew it, ~40 copies of the block for 64 events of ~110 bytes (the
// memory store then made a quarter of the agent's garbage at saturation). And a sealed
// block's buffer is handed to the next open block.
func TestOpenBlockGrowsByDoublingAndIsReused(t *testing.T) {
	var l eventLog
	grew := 0
	for i := range blockEvents - 1 {
		before := cap(l.open.data)
		l.add(fmt.Appendf(nil, `{"seq":%d,"type":"text_delta","turnId":"t-1","delta":"The 2023 Kia Sportage LX in Gravity Gray "}`, i+1))
		if cap(l.open.data) != before {
			grew++
		}
	}
	if grew > 8 {
		t.Errorf("the open block's buffer was replaced %d times for %d events, want at most 8", grew, blockEvents-1)
	}
	buf := l.open.data[:1]
	l.seal()
	if l.open.data != nil || l.open.ends != nil {
		t.Fatalf("a sealed log keeps its open block's buffers (%d bytes): an idle session would hold them", cap(l.open.data))
	}
	// The next block, of this log or another's, starts in the buffer just given back
	// (sync.Pool: on the same P, unless a collection came between; tried until that happens).
	for range 10 {
		var other eventLog
		other.add([]byte(`{"seq":1}`))
		if &other.open.data[:1][0] == &buf[0] {
			if items, err := l.sealed[0].items(); err != nil || !bytes.HasPrefix(items[0], []byte(`{"seq":1,`)) {
				t.Fatalf("the sealed block reads %q, %v after its buffer was reused", items[0], err)
			}
			return
		}
		l.add([]byte(`{"seq":64}`))
		buf = l.open.data[:1]
		l.seal()
	}
	t.Error("no new block started in a buffer a sealed block gave back")
}

// A write outside a turn (a duplicated tab's copy starts with the history it was forked
// from) is sealed at once, as a turn's writes are at its end: an idle session keeps no open
// block, whose buffer may be a reused one of up to maxPooledBlock bytes.
func TestWriteOutsideATurnIsSealed(t *testing.T) {
	ctx := context.Background()
	m := NewMemory().(*memory)
	if err := m.Create(ctx, &Session{ID: "fork", Origin: "http://localhost:3000"}); err != nil {
		t.Fatal(err)
	}
	history := Batch{Messages: []chat.Message{
		{Role: chat.RoleUser, Content: "SUVs under 40k"},
		{Role: chat.RoleAssistant, Content: "Here are six SUVs under $40,000, cheapest first."},
	}}
	if err := m.Append(ctx, "fork", history); err != nil {
		t.Fatal(err)
	}
	ms := m.sessions["fork"]
	if ms.messages.open.data != nil || len(ms.messages.sealed) != 1 {
		t.Errorf("the history written outside a turn is left open (%d bytes of buffer), want it sealed", cap(ms.messages.open.data))
	}
	got, err := m.Load(ctx, "fork")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Messages) != 2 || got.Messages[1].Content != history.Messages[1].Content {
		t.Errorf("got messages %+v, want the history back", got.Messages)
	}
}
