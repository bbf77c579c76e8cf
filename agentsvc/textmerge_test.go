package agentsvc

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// heldStore holds the Appends that carry events while it is armed: a store whose commits
// are slow, at a moment the test chooses.
type heldStore struct {
	store.Store
	armed   atomic.Bool
	held    chan struct{} // an Append is being held
	release chan struct{} // closed: the held Appends go on
}

func (h *heldStore) Append(ctx context.Context, id string, b store.Batch) error {
	if h.armed.Load() && len(b.Events) > 0 {
		select {
		case h.held <- struct{}{}:
		default:
		}
		<-h.release
	}
	return h.Store.Append(ctx, id, b)
}

// gatedModel starts answering once gate is closed.
type gatedModel struct {
	llm.Model
	gate chan struct{}
}

func (m *gatedModel) Stream(ctx context.Context, req llm.Request, onDelta func(string)) (*llm.Response, error) {
	<-m.gate
	return m.Model.Stream(ctx, req, onDelta)
}

// streamBehindWrite runs one turn whose answer is n streamed words, all of which come while
// the write of the turn's turn_start is in flight; it returns the events the page got, and
// the session.
func streamBehindWrite(t *testing.T, words int, mod func(*Config)) ([]event, *testServer, string) {
	t.Helper()
	hs := &heldStore{Store: newTestStore(), held: make(chan struct{}, 1), release: make(chan struct{})}
	model := &gatedModel{Model: echoOnceOr(), gate: make(chan struct{})}
	ts := newTestServer(t, model, func(c *Config) {
		c.Store = hs
		if mod != nil {
			mod(c)
		}
	})
	page := newFakePage(t, ts, testOrigin, echoTool())
	sess := page.session(wire.SessionParams{})

	hs.armed.Store(true)
	done := make(chan error, 1)
	go func() {
		_, err := page.chat(fmt.Sprintf("stream %d", words))
		done <- err
	}()
	<-hs.held // the turn_start's write is in flight, and stays so
	close(model.gate)
	ls := liveOf(ts.Server, sess.SessionID)
	waitFor(t, "the whole answer and the turn_end to be queued", func() bool {
		return strings.Contains(string(lastPendingEvent(ls)), `"type":"turn_end"`)
	})
	hs.armed.Store(false)
	close(hs.release)
	if err := <-done; err != nil {
		t.Fatalf("%d words: agent/chat: %v", words, err)
	}
	return page.eventsUntil(wire.EventTurnEnd), ts, sess.SessionID
}

// The chunks a model streams while the session's previous write is in flight join one
// text_delta (at most maxMergedDelta bytes each): the page and the store get the same
// text, in fewer events, with no gap in the seqs; a replay from the store is what the page
// got.
func TestTextDeltasJoinWhileTheStoreWrites(t *testing.T) {
	for _, tc := range []struct {
		words      int
		wantDeltas int
	}{
		{words: 50, wantDeltas: 1},   // 250 bytes: one event
		{words: 4000, wantDeltas: 3}, // 20,000 bytes: 8 KiB at most each
	} {
		evs, ts, id := streamBehindWrite(t, tc.words, nil)
		var deltas []event
		var text strings.Builder
		for i, e := range evs {
			if i > 0 && e.Seq != evs[i-1].Seq+1 {
				t.Errorf("%d words: seq %d follows %d", tc.words, e.Seq, evs[i-1].Seq)
			}
			if e.Type == wire.EventTextDelta {
				deltas = append(deltas, e)
				text.WriteString(e.Delta)
				if len(e.Delta) > maxMergedDelta {
					t.Errorf("%d words: a text_delta of %d bytes, want at most %d", tc.words, len(e.Delta), maxMergedDelta)
				}
			}
		}
		if want := strings.Repeat("word ", tc.words); text.String() != want {
			t.Errorf("%d words: the page got %d bytes of text, want %d", tc.words, text.Len(), len(want))
		}
		if len(deltas) != tc.wantDeltas {
			t.Errorf("%d words: got %d text_delta events, want %d (the chunks queued behind one write joined)", tc.words, len(deltas), tc.wantDeltas)
		}

		stored, err := ts.store.EventsAfter(context.Background(), id, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(stored) != len(evs) {
			t.Fatalf("%d words: the store holds %d events, the page got %d", tc.words, len(stored), len(evs))
		}
		for i, se := range stored {
			var e event
			if err := json.Unmarshal(se.Data, &e); err != nil {
				t.Fatal(err)
			}
			if se.Seq != evs[i].Seq || e.Type != evs[i].Type || e.Delta != evs[i].Delta {
				t.Errorf("%d words: stored event %d is %d %s %q, the page got %d %s %q", tc.words, i, se.Seq, e.Type, e.Delta, evs[i].Seq, evs[i].Type, evs[i].Delta)
			}
		}
	}
}

// With Config.TextDeltaPerChunk, every chunk stays an event of its own, however slow the
// store.
func TestTextDeltaPerChunk(t *testing.T) {
	evs, _, _ := streamBehindWrite(t, 50, func(c *Config) { c.TextDeltaPerChunk = true })
	n := 0
	for _, e := range evs {
		if e.Type == wire.EventTextDelta {
			n++
		}
	}
	if n != 50 {
		t.Errorf("got %d text_delta events, want 50", n)
	}
}
