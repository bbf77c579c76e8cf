// Package storetest is the conformance suite every store.Store must pass (Run), and a
// helper that starts a real redis-server for tests (RedisServer).
package storetest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/store"
)

// Harness is one fresh, empty store under test.
type Harness struct {
	// Store is the store under test; Run closes it at the end of the subtest.
	Store store.Store
	// Reopen opens another handle on the same data (a second connection, a restarted
	// process). nil for a store that lives in one handle: the tests that need it skip.
	Reopen func(t *testing.T) store.Store
	// Advance lets d pass on the clock that expires claims. nil sleeps for d.
	Advance func(d time.Duration)
}

// Run runs the conformance suite, one subtest per behaviour; open returns a fresh, empty
// store for each subtest.
func Run(t *testing.T, open func(t *testing.T) Harness) {
	tests := []struct {
		name string
		run  func(t *testing.T, h Harness)
	}{
		{"CreateLoad", testCreateLoad},
		{"CreateInvalid", testCreateInvalid},
		{"NotFound", testNotFound},
		{"Exists", testExists},
		{"AppendAtomic", testAppendAtomic},
		{"SeqExactlyNext", testSeqExactlyNext},
		{"ConcurrentAppenders", testConcurrentAppenders},
		{"EventsAfter", testEventsAfter},
		{"PageAndActiveTurn", testPageAndActiveTurn},
		{"List", testList},
		{"ListDefaultLimit", testListDefaultLimit},
		{"Delete", testDelete},
		{"ExpireIdle", testExpireIdle},
		{"Claim", testClaim},
		{"CreateClaimed", testCreateClaimed},
		{"ClaimExpiry", testClaimExpiry},
		{"RenewClaims", testRenewClaims},
		{"Close", testClose},
		{"SharedHandles", testSharedHandles},
		{"Restart", testRestart},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := open(t)
			t.Cleanup(func() { h.Store.Close() })
			tc.run(t, h)
		})
	}
}

// advance lets d pass for h's claims.
func (h Harness) advance(d time.Duration) {
	if h.Advance != nil {
		h.Advance(d)
		return
	}
	time.Sleep(d)
}

// create stores a session created at created (zero: now) and fails the test on error.
func create(t *testing.T, s store.Store, id, origin string, created time.Time) *store.Session {
	t.Helper()
	sess := &store.Session{ID: id, Origin: origin, Page: store.Page{URL: origin + "/cars", Title: "Cars"}, CreatedAt: created}
	if err := s.Create(t.Context(), sess); err != nil {
		t.Fatalf("Create(%s): %v", id, err)
	}
	return sess
}

// event is an agent/event params object with seq and a writer tag.
func event(seq int64, tag string) store.Event {
	return store.Event{Seq: seq, Data: json.RawMessage(fmt.Sprintf(`{"seq":%d,"type":"text_delta","delta":%q}`, seq, tag))}
}

// events are the events from..to (inclusive), each tagged tag.
func events(from, to int64, tag string) []store.Event {
	var out []store.Event
	for seq := from; seq <= to; seq++ {
		out = append(out, event(seq, tag))
	}
	return out
}

// conversation is a turn with a tool call that carries provider fields the client does not
// know (Gemini's thought signature), whitespace, HTML-like characters, a number too big
// for a float64 and non-ASCII text.
func conversation() []chat.Message {
	return []chat.Message{
		{Role: chat.RoleUser, Content: "Find me a red car <under> 20k & cheap", TurnID: "t1"},
		{Role: chat.RoleAssistant, TurnID: "t1", ToolCalls: []chat.ToolCall{{
			ID:        "call_1",
			Name:      "filter_cars",
			Arguments: `{"color": "red",  "maxPrice":20000}`,
			Extra: map[string]json.RawMessage{
				"extra_content": json.RawMessage(`{ "google": { "thought_signature": "c2ln<&>==" } }`),
				"index":         json.RawMessage(`12345678901234567890`),
				"list":          json.RawMessage(`[1, "two", null, true, {"a": []}]`),
			},
		}, {ID: "call_2", Name: "page.scroll", Arguments: `{}`}}},
		{Role: chat.RoleTool, ToolCallID: "call_1", Name: "filter_cars", Content: "3 cars match", TurnID: "t1"},
		{Role: chat.RoleTool, ToolCallID: "call_2", Name: "page.scroll", Content: "", TurnID: "t1"},
		{Role: chat.RoleAssistant, Content: "Here are 3 red cars: «Fiat 500», “Mini” ✓\nMore?", TurnID: "t1"},
	}
}

// sameJSON reports whether two JSON texts have the same meaning (numbers compared as text).
func sameJSON(a, b []byte) bool {
	va, errA := decodeJSON(a)
	vb, errB := decodeJSON(b)
	return errA == nil && errB == nil && reflect.DeepEqual(va, vb)
}

func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, errors.New("trailing data")
	}
	return v, nil
}

// checkMessages fails the test unless got has want's messages, with raw Extra values of the
// same meaning.
func checkMessages(t *testing.T, got, want []chat.Message) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d messages, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		gc, wc := g.ToolCalls, w.ToolCalls
		g.ToolCalls, w.ToolCalls = nil, nil
		if !reflect.DeepEqual(g, w) {
			t.Errorf("message %d: got %+v, want %+v", i, g, w)
		}
		if len(gc) != len(wc) {
			t.Errorf("message %d: got %d tool calls, want %d", i, len(gc), len(wc))
			continue
		}
		for j := range wc {
			gcall, wcall := gc[j], wc[j] // copies: the callers' slices stay as they are
			ge, we := gcall.Extra, wcall.Extra
			gcall.Extra, wcall.Extra = nil, nil
			if !reflect.DeepEqual(gcall, wcall) {
				t.Errorf("message %d, call %d: got %+v, want %+v", i, j, gcall, wcall)
			}
			if len(ge) != len(we) {
				t.Errorf("message %d, call %d: got extra %s, want %s", i, j, ge, we)
			}
			for k, wv := range we {
				if gv, ok := ge[k]; !ok || !sameJSON(gv, wv) {
					t.Errorf("message %d, call %d, extra %q: got %s, want %s", i, j, k, gv, wv)
				}
			}
		}
	}
}

// checkEvents fails the test unless got are events with seqs from..to and the data of want.
func checkEvents(t *testing.T, got, want []store.Event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d events %v, want %d", len(got), seqs(got), len(want))
	}
	for i := range want {
		if got[i].Seq != want[i].Seq || !sameJSON(got[i].Data, want[i].Data) {
			t.Errorf("event %d: got %d %s, want %d %s", i, got[i].Seq, got[i].Data, want[i].Seq, want[i].Data)
		}
	}
}

func seqs(evs []store.Event) []int64 {
	out := make([]int64, len(evs))
	for i, ev := range evs {
		out[i] = ev.Seq
	}
	return out
}

func ids(ss []*store.Session) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.ID
	}
	return out
}

func load(t *testing.T, s store.Store, id string) *store.Session {
	t.Helper()
	sess, err := s.Load(t.Context(), id)
	if err != nil {
		t.Fatalf("Load(%s): %v", id, err)
	}
	return sess
}

func appendOK(t *testing.T, s store.Store, id string, b store.Batch) {
	t.Helper()
	if err := s.Append(t.Context(), id, b); err != nil {
		t.Fatalf("Append(%s): %v", id, err)
	}
}

func ptr[T any](v T) *T { return &v }

func testCreateLoad(t *testing.T, h Harness) {
	ctx := t.Context()
	created := time.Date(2025, 3, 4, 5, 6, 7, 891011, time.FixedZone("CET", 3600))
	in := &store.Session{ID: "sess-1_A.b", Origin: "https://shop.example", Page: store.Page{URL: "https://shop.example/cars", Title: "Cars"}, CreatedAt: created}
	if err := h.Store.Create(ctx, in); err != nil {
		t.Fatalf("Create: %v", err)
	}
	got := load(t, h.Store, in.ID)
	if got.ID != in.ID || got.Origin != in.Origin || got.Page != in.Page {
		t.Errorf("got %s %s %+v, want %s %s %+v", got.ID, got.Origin, got.Page, in.ID, in.Origin, in.Page)
	}
	if !got.CreatedAt.Equal(created) || !got.UpdatedAt.Equal(created) {
		t.Errorf("got created %v updated %v, want both %v", got.CreatedAt, got.UpdatedAt, created)
	}
	if got.Seq != 0 || len(got.Messages) != 0 || got.ActiveTurn != "" {
		t.Errorf("got seq %d, %d messages, turn %q; want 0, 0, \"\"", got.Seq, len(got.Messages), got.ActiveTurn)
	}

	msgs := conversation()
	appendOK(t, h.Store, in.ID, store.Batch{Messages: msgs[:2], Events: events(1, 2, "a")})
	appendOK(t, h.Store, in.ID, store.Batch{Messages: msgs[2:], Events: events(3, 3, "b")})
	got = load(t, h.Store, in.ID)
	if got.Seq != 3 {
		t.Errorf("got seq %d, want 3", got.Seq)
	}
	checkMessages(t, got.Messages, conversation())

	// What Load returns is the caller's: changing it changes nothing stored.
	got.Messages[1].ToolCalls[0].Extra["index"][0] = '9'
	got.Messages[1].ToolCalls[0].Extra["list"] = json.RawMessage(`[]`)
	got.Messages[0].Content = "changed"
	checkMessages(t, load(t, h.Store, in.ID).Messages, conversation())

	// A zero creation time means now.
	now := create(t, h.Store, "sess-2", "https://shop.example", time.Time{})
	if got := load(t, h.Store, now.ID); got.CreatedAt.IsZero() || !got.UpdatedAt.Equal(got.CreatedAt) {
		t.Errorf("zero CreatedAt: got created %v updated %v, want now for both", got.CreatedAt, got.UpdatedAt)
	}
}

func testCreateInvalid(t *testing.T, h Harness) {
	tests := []struct {
		name string
		sess *store.Session
	}{
		{"nil", nil},
		{"empty id", &store.Session{}},
		{"colon", &store.Session{ID: "a:b"}},
		{"space", &store.Session{ID: "a b"}},
		{"slash", &store.Session{ID: "a/b"}},
		{"too long", &store.Session{ID: strings.Repeat("x", 129)}},
		{"seq", &store.Session{ID: "with-seq", Seq: 1}},
		{"messages", &store.Session{ID: "with-messages", Messages: conversation()}},
		{"before 1970", &store.Session{ID: "old", CreatedAt: time.Date(1969, 1, 1, 0, 0, 0, 0, time.UTC)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := h.Store.Create(t.Context(), tc.sess)
			if err == nil || errors.Is(err, store.ErrExists) {
				t.Errorf("Create: got %v, want a validation error", err)
			}
		})
	}
	list, err := h.Store.List(t.Context(), store.ListOptions{})
	if err != nil || len(list) != 0 {
		t.Errorf("List after refused creates: got %v, %v; want none", ids(list), err)
	}
	if sess := create(t, h.Store, strings.Repeat("x", 128), "o", time.Time{}); len(sess.ID) != 128 {
		t.Errorf("got id length %d, want 128", len(sess.ID))
	}
}

func testNotFound(t *testing.T, h Harness) {
	ctx := t.Context()
	for _, id := range []string{"missing", "a:b", ""} {
		if _, err := h.Store.Load(ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Load(%q): got %v, want ErrNotFound", id, err)
		}
		if err := h.Store.Append(ctx, id, store.Batch{Events: events(1, 1, "x")}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Append(%q): got %v, want ErrNotFound", id, err)
		}
		if _, err := h.Store.EventsAfter(ctx, id, 0, 0); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("EventsAfter(%q): got %v, want ErrNotFound", id, err)
		}
		if _, _, err := h.Store.Claim(ctx, id, "owner", time.Minute); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Claim(%q): got %v, want ErrNotFound", id, err)
		}
		if err := h.Store.Delete(ctx, id); err != nil {
			t.Errorf("Delete(%q): got %v, want nil", id, err)
		}
		if err := h.Store.Release(ctx, id, "owner"); err != nil {
			t.Errorf("Release(%q): got %v, want nil", id, err)
		}
	}
	// The failed Append created nothing.
	if list, err := h.Store.List(ctx, store.ListOptions{}); err != nil || len(list) != 0 {
		t.Errorf("List: got %v, %v; want none", ids(list), err)
	}
}

func testExists(t *testing.T, h Harness) {
	create(t, h.Store, "s1", "https://a.example", time.Time{})
	appendOK(t, h.Store, "s1", store.Batch{Messages: conversation()[:1], Events: events(1, 1, "a")})
	err := h.Store.Create(t.Context(), &store.Session{ID: "s1", Origin: "https://b.example"})
	if !errors.Is(err, store.ErrExists) {
		t.Fatalf("second Create: got %v, want ErrExists", err)
	}
	got := load(t, h.Store, "s1")
	if got.Origin != "https://a.example" || got.Seq != 1 || len(got.Messages) != 1 {
		t.Errorf("after refused Create: got origin %s seq %d %d messages, want the first session unchanged", got.Origin, got.Seq, len(got.Messages))
	}
}

func testAppendAtomic(t *testing.T, h Harness) {
	ctx := t.Context()
	sess := create(t, h.Store, "s1", "https://a.example", time.Now().Add(-time.Hour))
	msgs := conversation()
	appendOK(t, h.Store, sess.ID, store.Batch{Messages: msgs[:2], Events: events(1, 2, "ok")})
	before := load(t, h.Store, sess.ID)

	bad := []struct {
		name   string
		events []store.Event
		want   error
	}{
		{"gap", events(4, 5, "bad"), store.ErrSeqConflict},
		{"duplicate", events(2, 3, "bad"), store.ErrSeqConflict},
		{"stale", events(1, 1, "bad"), store.ErrSeqConflict},
		{"hole inside", []store.Event{event(3, "bad"), event(5, "bad")}, store.ErrSeqConflict},
		{"backwards inside", []store.Event{event(3, "bad"), event(3, "bad")}, store.ErrSeqConflict},
		{"bad json second", []store.Event{event(3, "bad"), {Seq: 4, Data: json.RawMessage(`{"seq":4,`)}}, nil},
		{"empty data", []store.Event{{Seq: 3}}, nil},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			err := h.Store.Append(ctx, sess.ID, store.Batch{
				Messages:   msgs[2:],
				Events:     tc.events,
				Page:       &store.Page{URL: "https://a.example/other", Title: "Other"},
				ActiveTurn: ptr("t9"),
			})
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Errorf("Append: got %v, want %v", err, tc.want)
			}
			got := load(t, h.Store, sess.ID)
			if got.Seq != 2 || len(got.Messages) != 2 || got.Page != before.Page || got.ActiveTurn != "" || !got.UpdatedAt.Equal(before.UpdatedAt) {
				t.Errorf("after refused Append: got seq %d, %d messages, page %+v, turn %q, updated %v; want it unchanged (2, 2, %+v, \"\", %v)",
					got.Seq, len(got.Messages), got.Page, got.ActiveTurn, got.UpdatedAt, before.Page, before.UpdatedAt)
			}
			evs, err := h.Store.EventsAfter(ctx, sess.ID, 0, 0)
			if err != nil {
				t.Fatalf("EventsAfter: %v", err)
			}
			checkEvents(t, evs, events(1, 2, "ok"))
		})
	}
	// The session still takes the right next batch.
	appendOK(t, h.Store, sess.ID, store.Batch{Messages: msgs[2:], Events: events(3, 4, "ok")})
	got := load(t, h.Store, sess.ID)
	if got.Seq != 4 {
		t.Errorf("got seq %d, want 4", got.Seq)
	}
	checkMessages(t, got.Messages, msgs)
}

func testSeqExactlyNext(t *testing.T, h Harness) {
	ctx := t.Context()
	create(t, h.Store, "s1", "o", time.Time{})
	steps := []struct {
		name   string
		events []store.Event
		want   error
		seq    int64
	}{
		{"zero first", events(0, 0, "x"), store.ErrSeqConflict, 0},
		{"two first", events(2, 2, "x"), store.ErrSeqConflict, 0},
		{"one first", events(1, 1, "x"), nil, 1},
		{"messages only", nil, nil, 1},
		{"two and three", events(2, 3, "x"), nil, 3},
		{"three again", events(3, 3, "x"), store.ErrSeqConflict, 3},
		{"five", events(5, 5, "x"), store.ErrSeqConflict, 3},
		{"four", events(4, 4, "x"), nil, 4},
	}
	for _, st := range steps {
		err := h.Store.Append(ctx, "s1", store.Batch{Messages: conversation()[:1], Events: st.events})
		if !errors.Is(err, st.want) || (st.want == nil && err != nil) {
			t.Errorf("%s: got %v, want %v", st.name, err, st.want)
		}
		if got := load(t, h.Store, "s1"); got.Seq != st.seq {
			t.Errorf("%s: got seq %d, want %d", st.name, got.Seq, st.seq)
		}
	}
	if got := load(t, h.Store, "s1"); len(got.Messages) != 4 {
		t.Errorf("got %d messages, want 4 (one per accepted batch)", len(got.Messages))
	}
}

// race has writers append seq 1..rounds to session id at the same moment, one round after
// the other, each batch holding a message and an event tagged with its writer; exactly one
// writer must win each round and the log must hold each winner's message and event.
func race(t *testing.T, writers []store.Store, id string, rounds int) {
	t.Helper()
	ctx := t.Context()
	for seq := int64(1); seq <= int64(rounds); seq++ {
		start := make(chan struct{})
		var wg sync.WaitGroup
		var mu sync.Mutex
		won, lost := 0, 0
		for w, s := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				tag := fmt.Sprintf("writer-%d", w)
				<-start
				err := s.Append(ctx, id, store.Batch{
					Messages: []chat.Message{{Role: chat.RoleAssistant, Content: tag}},
					Events:   []store.Event{event(seq, tag)},
				})
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					won++
				case errors.Is(err, store.ErrSeqConflict):
					lost++
				default:
					t.Errorf("seq %d, %s: %v", seq, tag, err)
				}
			}()
		}
		close(start)
		wg.Wait()
		if won != 1 || lost != len(writers)-1 {
			t.Fatalf("seq %d: got %d winners and %d conflicts, want 1 and %d", seq, won, lost, len(writers)-1)
		}
	}
	got := load(t, writers[0], id)
	evs, err := writers[0].EventsAfter(ctx, id, 0, 0)
	if err != nil {
		t.Fatalf("EventsAfter: %v", err)
	}
	if got.Seq != int64(rounds) || len(got.Messages) != rounds || len(evs) != rounds {
		t.Fatalf("got seq %d, %d messages, %d events; want %d of each", got.Seq, len(got.Messages), len(evs), rounds)
	}
	for i, ev := range evs {
		var data struct {
			Seq   int64  `json:"seq"`
			Delta string `json:"delta"`
		}
		if err := json.Unmarshal(ev.Data, &data); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if ev.Seq != int64(i+1) || data.Seq != ev.Seq {
			t.Errorf("event %d: got seq %d (data %d), want %d", i, ev.Seq, data.Seq, i+1)
		}
		if got.Messages[i].Content != data.Delta {
			t.Errorf("seq %d: event from %s but message from %s; want one writer's whole batch", ev.Seq, data.Delta, got.Messages[i].Content)
		}
	}
}

func testConcurrentAppenders(t *testing.T, h Harness) {
	create(t, h.Store, "s1", "o", time.Time{})
	writers := make([]store.Store, 6)
	for i := range writers {
		writers[i] = h.Store
	}
	race(t, writers, "s1", 12)
}

func testEventsAfter(t *testing.T, h Harness) {
	ctx := t.Context()
	create(t, h.Store, "s1", "o", time.Time{})
	create(t, h.Store, "s2", "o", time.Time{})
	for _, b := range [][2]int64{{1, 1}, {2, 3}, {4, 6}, {7, 10}} {
		appendOK(t, h.Store, "s1", store.Batch{Events: events(b[0], b[1], "s1")})
	}
	appendOK(t, h.Store, "s2", store.Batch{Events: events(1, 3, "s2")})
	tests := []struct {
		after    int64
		limit    int
		from, to int64
	}{
		{0, 0, 1, 10},
		{3, 4, 4, 7},
		{8, 0, 9, 10},
		{8, 5, 9, 10},
		{9, 1, 10, 10},
		{10, 0, 1, 0},
		{12, 3, 1, 0},
		{-1, 2, 1, 2},
		{0, -1, 1, 10},
	}
	for _, tc := range tests {
		got, err := h.Store.EventsAfter(ctx, "s1", tc.after, tc.limit)
		if err != nil {
			t.Fatalf("EventsAfter(%d, %d): %v", tc.after, tc.limit, err)
		}
		t.Run(fmt.Sprintf("after%d_limit%d", tc.after, tc.limit), func(t *testing.T) {
			checkEvents(t, got, events(tc.from, tc.to, "s1"))
		})
	}
	got, err := h.Store.EventsAfter(ctx, "s2", 0, 0)
	if err != nil {
		t.Fatalf("EventsAfter(s2): %v", err)
	}
	checkEvents(t, got, events(1, 3, "s2"))
}

func testPageAndActiveTurn(t *testing.T, h Harness) {
	created := time.Now().Add(-time.Hour)
	sess := create(t, h.Store, "s1", "https://a.example", created)
	next := store.Page{URL: "https://a.example/cars/42?x=1#y", Title: "Fiat 500 «rouge»"}
	steps := []struct {
		name string
		b    store.Batch
		page store.Page
		turn string
	}{
		{"set both", store.Batch{Page: &next, ActiveTurn: ptr("turn-1")}, next, "turn-1"},
		{"neither", store.Batch{Events: events(1, 1, "x")}, next, "turn-1"},
		{"clear turn", store.Batch{ActiveTurn: ptr("")}, next, ""},
		{"empty page", store.Batch{Page: &store.Page{}}, store.Page{}, ""},
		{"page back", store.Batch{Page: &sess.Page, ActiveTurn: ptr("turn-2")}, sess.Page, "turn-2"},
	}
	for _, st := range steps {
		appendOK(t, h.Store, sess.ID, st.b)
		got := load(t, h.Store, sess.ID)
		if got.Page != st.page || got.ActiveTurn != st.turn {
			t.Errorf("%s: got page %+v turn %q, want %+v %q", st.name, got.Page, got.ActiveTurn, st.page, st.turn)
		}
		if !got.UpdatedAt.After(created) || !got.CreatedAt.Equal(created) {
			t.Errorf("%s: got created %v updated %v, want created %v and updated after it", st.name, got.CreatedAt, got.UpdatedAt, created)
		}
	}
}

func testList(t *testing.T, h Harness) {
	ctx := t.Context()
	now := time.Now()
	const a, b = "https://a.example", "https://b.example"
	create(t, h.Store, "old", a, now.Add(-3*time.Hour))
	create(t, h.Store, "mid", b, now.Add(-2*time.Hour))
	create(t, h.Store, "new", a, now.Add(-1*time.Hour))
	list := func(o store.ListOptions) []*store.Session {
		t.Helper()
		got, err := h.Store.List(ctx, o)
		if err != nil {
			t.Fatalf("List(%+v): %v", o, err)
		}
		return got
	}
	if got := ids(list(store.ListOptions{})); !reflect.DeepEqual(got, []string{"new", "mid", "old"}) {
		t.Errorf("List: got %v, want [new mid old]", got)
	}
	appendOK(t, h.Store, "old", store.Batch{Messages: conversation(), Events: events(1, 2, "x"), ActiveTurn: ptr("t1")})
	tests := []struct {
		o    store.ListOptions
		want []string
	}{
		{store.ListOptions{}, []string{"old", "new", "mid"}},
		{store.ListOptions{Origin: a}, []string{"old", "new"}},
		{store.ListOptions{Origin: b}, []string{"mid"}},
		{store.ListOptions{Origin: "https://c.example"}, []string{}},
		{store.ListOptions{Limit: 2}, []string{"old", "new"}},
		{store.ListOptions{Origin: a, Limit: 1}, []string{"old"}},
		{store.ListOptions{Limit: -1}, []string{"old", "new", "mid"}},
	}
	for _, tc := range tests {
		if got := ids(list(tc.o)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("List(%+v): got %v, want %v", tc.o, got, tc.want)
		}
	}
	got := list(store.ListOptions{Limit: 1})[0]
	want := load(t, h.Store, "old")
	if got.Messages != nil {
		t.Errorf("List: got %d messages, want none (List leaves them out)", len(got.Messages))
	}
	if got.ID != want.ID || got.Origin != want.Origin || got.Page != want.Page || !got.CreatedAt.Equal(want.CreatedAt) ||
		!got.UpdatedAt.Equal(want.UpdatedAt) || got.Seq != 2 || got.ActiveTurn != "t1" {
		t.Errorf("List: got %+v, want the fields of %+v", got, want)
	}
}

func testListDefaultLimit(t *testing.T, h Harness) {
	base := time.Now().Add(-time.Hour)
	for i := range store.DefaultListLimit + 1 {
		create(t, h.Store, fmt.Sprintf("s%03d", i), "o", base.Add(time.Duration(i)*time.Second))
	}
	got, err := h.Store.List(t.Context(), store.ListOptions{})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if len(got) != store.DefaultListLimit || got[0].ID != fmt.Sprintf("s%03d", store.DefaultListLimit) || got[len(got)-1].ID != "s001" {
		t.Errorf("List: got %d sessions from %s to %s, want %d from s%03d to s001",
			len(got), got[0].ID, got[len(got)-1].ID, store.DefaultListLimit, store.DefaultListLimit)
	}
}

func testDelete(t *testing.T, h Harness) {
	ctx := t.Context()
	create(t, h.Store, "s1", "o", time.Time{})
	create(t, h.Store, "s2", "o", time.Time{})
	appendOK(t, h.Store, "s1", store.Batch{Messages: conversation(), Events: events(1, 5, "x"), ActiveTurn: ptr("t1")})
	if ok, _, err := h.Store.Claim(ctx, "s1", "replica-a", time.Hour); !ok || err != nil {
		t.Fatalf("Claim: got %v, %v; want ok", ok, err)
	}
	if err := h.Store.Delete(ctx, "s1"); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := h.Store.Load(ctx, "s1"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Load after Delete: got %v, want ErrNotFound", err)
	}
	if _, err := h.Store.EventsAfter(ctx, "s1", 0, 0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("EventsAfter after Delete: got %v, want ErrNotFound", err)
	}
	if list, err := h.Store.List(ctx, store.ListOptions{Origin: "o"}); err != nil || !reflect.DeepEqual(ids(list), []string{"s2"}) {
		t.Errorf("List after Delete: got %v, %v; want [s2]", ids(list), err)
	}
	if err := h.Store.Delete(ctx, "s1"); err != nil {
		t.Errorf("second Delete: got %v, want nil", err)
	}
	// The same id starts afresh: no old messages, events or claim.
	create(t, h.Store, "s1", "o", time.Time{})
	if got := load(t, h.Store, "s1"); got.Seq != 0 || len(got.Messages) != 0 || got.ActiveTurn != "" {
		t.Errorf("re-created session: got seq %d, %d messages, turn %q; want empty", got.Seq, len(got.Messages), got.ActiveTurn)
	}
	if evs, err := h.Store.EventsAfter(ctx, "s1", 0, 0); err != nil || len(evs) != 0 {
		t.Errorf("re-created session: got events %v, %v; want none", seqs(evs), err)
	}
	if ok, cur, err := h.Store.Claim(ctx, "s1", "replica-b", time.Hour); !ok || cur != "replica-b" || err != nil {
		t.Errorf("Claim of re-created session: got %v %q %v, want true replica-b", ok, cur, err)
	}
	appendOK(t, h.Store, "s1", store.Batch{Events: events(1, 1, "y")})
}

func testExpireIdle(t *testing.T, h Harness) {
	ctx := t.Context()
	before := time.Now().Add(-time.Hour).Truncate(time.Microsecond).Add(500 * time.Nanosecond)
	create(t, h.Store, "long-idle", "o", before.Add(-time.Hour))
	create(t, h.Store, "just-idle", "o", before.Add(-time.Nanosecond))
	create(t, h.Store, "edge", "o", before)
	create(t, h.Store, "touched", "o", before.Add(-2*time.Hour))
	create(t, h.Store, "fresh", "p", time.Time{})
	create(t, h.Store, "kept-alive", "o", before.Add(-2*time.Hour))
	// An Append makes a session fresh, however old it is; an empty one too (the agent keeps
	// the sessions of open tabs alive that way).
	appendOK(t, h.Store, "touched", store.Batch{Messages: conversation(), Events: events(1, 1, "x")})
	appendOK(t, h.Store, "kept-alive", store.Batch{})

	n, err := h.Store.ExpireIdle(ctx, before)
	if err != nil || n != 2 {
		t.Fatalf("ExpireIdle: got %d, %v; want 2", n, err)
	}
	list, err := h.Store.List(ctx, store.ListOptions{})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	got := ids(list)
	want := map[string]bool{"edge": true, "touched": true, "kept-alive": true, "fresh": true}
	if len(got) != len(want) {
		t.Errorf("after ExpireIdle: got %v, want edge, touched, kept-alive and fresh", got)
	}
	for _, id := range got {
		if !want[id] {
			t.Errorf("after ExpireIdle: %s is still there", id)
		}
	}
	for _, id := range []string{"long-idle", "just-idle"} {
		if _, err := h.Store.Load(ctx, id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Load(%s) after ExpireIdle: got %v, want ErrNotFound", id, err)
		}
	}
	if n, err := h.Store.ExpireIdle(ctx, before); err != nil || n != 0 {
		t.Errorf("second ExpireIdle: got %d, %v; want 0", n, err)
	}
}

func testClaim(t *testing.T, h Harness) {
	ctx := t.Context()
	create(t, h.Store, "s1", "o", time.Time{})
	create(t, h.Store, "s2", "o", time.Time{})
	type step struct {
		name    string
		op      string // claim or release
		owner   string
		ok      bool
		current string
	}
	steps := []step{
		{"a claims", "claim", "a", true, "a"},
		{"b conflicts", "claim", "b", false, "a"},
		{"a renews", "claim", "a", true, "a"},
		{"b cannot release a's claim", "release", "b", false, ""},
		{"b still conflicts", "claim", "b", false, "a"},
		{"a releases", "release", "a", false, ""},
		{"b claims", "claim", "b", true, "b"},
		{"a conflicts", "claim", "a", false, "b"},
	}
	for _, st := range steps {
		switch st.op {
		case "claim":
			ok, cur, err := h.Store.Claim(ctx, "s1", st.owner, time.Hour)
			if err != nil || ok != st.ok || cur != st.current {
				t.Fatalf("%s: got %v %q %v, want %v %q", st.name, ok, cur, err, st.ok, st.current)
			}
		case "release":
			if err := h.Store.Release(ctx, "s1", st.owner); err != nil {
				t.Fatalf("%s: %v", st.name, err)
			}
		}
	}
	// Claims are per session.
	if ok, cur, err := h.Store.Claim(ctx, "s2", "a", time.Hour); !ok || cur != "a" || err != nil {
		t.Errorf("claim of another session: got %v %q %v, want true a", ok, cur, err)
	}
	for _, bad := range []struct {
		owner string
		ttl   time.Duration
	}{{"", time.Hour}, {"a", 0}, {"a", -time.Second}} {
		if _, _, err := h.Store.Claim(ctx, "s1", bad.owner, bad.ttl); err == nil {
			t.Errorf("Claim(owner %q, ttl %v): got nil error, want one", bad.owner, bad.ttl)
		}
	}
	// A refused claim changed nothing.
	if ok, cur, _ := h.Store.Claim(ctx, "s1", "a", time.Hour); ok || cur != "b" {
		t.Errorf("after refused claims: got %v %q, want false b", ok, cur)
	}
}

// testCreateClaimed: a session created claimed is held by its creator from the start (as
// after a Claim: another owner is refused, the claim expires), an existing id keeps its
// session and claim, and a bad owner or ttl creates nothing.
func testCreateClaimed(t *testing.T, h Harness) {
	ctx := t.Context()
	const short = 100 * time.Millisecond
	if err := h.Store.CreateClaimed(ctx, &store.Session{ID: "s1", Origin: "o", ActiveTurn: "t1"}, "a", short); err != nil {
		t.Fatalf("CreateClaimed: %v", err)
	}
	if got := load(t, h.Store, "s1"); got.Origin != "o" || got.Seq != 0 || got.ActiveTurn != "t1" {
		t.Errorf("loaded %+v, want origin o, seq 0, active turn t1", got)
	}
	if ok, cur, err := h.Store.Claim(ctx, "s1", "b", time.Hour); ok || cur != "a" || err != nil {
		t.Errorf("another owner's claim of a session created claimed: got %v %q %v, want false a", ok, cur, err)
	}
	if err := h.Store.CreateClaimed(ctx, &store.Session{ID: "s1", Origin: "o"}, "b", time.Hour); !errors.Is(err, store.ErrExists) {
		t.Errorf("CreateClaimed of an existing id: got %v, want ErrExists", err)
	}
	if ok, cur, _ := h.Store.Claim(ctx, "s1", "b", time.Hour); ok || cur != "a" {
		t.Errorf("after ErrExists: got %v %q, want the claim still a's", ok, cur)
	}
	if ok, cur, err := h.Store.Claim(ctx, "s1", "a", short); !ok || cur != "a" || err != nil {
		t.Errorf("the creator renews: got %v %q %v, want true a", ok, cur, err)
	}
	h.advance(2 * short)
	if ok, cur, err := h.Store.Claim(ctx, "s1", "b", time.Hour); !ok || cur != "b" || err != nil {
		t.Errorf("claim after the creator's expired: got %v %q %v, want true b", ok, cur, err)
	}
	for _, bad := range []struct {
		owner string
		ttl   time.Duration
	}{{"", time.Hour}, {"a", 0}, {"a", -time.Second}} {
		if err := h.Store.CreateClaimed(ctx, &store.Session{ID: "s2", Origin: "o"}, bad.owner, bad.ttl); err == nil {
			t.Errorf("CreateClaimed(owner %q, ttl %v): got nil error, want one", bad.owner, bad.ttl)
		}
	}
	if _, err := h.Store.Load(ctx, "s2"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Load after refused CreateClaimed calls: got %v, want ErrNotFound", err)
	}
}

// testRenewClaims: a store.ClaimRenewer's RenewClaims is Claim for each id: it renews the
// owner's claims, takes expired and missing ones, leaves another owner's unexpired claim
// alone and skips ids of no session, across more ids than one step takes.
func testRenewClaims(t *testing.T, h Harness) {
	r, ok := h.Store.(store.ClaimRenewer)
	if !ok {
		t.Skip("not a store.ClaimRenewer")
	}
	ctx := t.Context()
	var ids []string
	for i := range 300 {
		id := fmt.Sprintf("s%03d", i)
		ids = append(ids, id)
		create(t, h.Store, id, "o", time.Time{})
	}
	claim := func(id, owner string, ttl time.Duration) (bool, string) {
		t.Helper()
		ok, cur, err := h.Store.Claim(ctx, id, owner, ttl)
		if err != nil {
			t.Fatalf("Claim(%s, %s): %v", id, owner, err)
		}
		return ok, cur
	}
	const unit = 200 * time.Millisecond
	claim("s000", "me", 5*unit)       // mine: renewed
	claim("s001", "other", time.Hour) // another's, unexpired: kept
	claim("s002", "other", 2*unit)    // another's, expired by the renewal: taken
	h.advance(3 * unit)
	// The renewal's ttl is long enough for the 300 checks below to finish inside it on a
	// store with a real clock (Redis) on a loaded machine: with 5 units, a check 400 ms
	// after the renewal found it lapsed.
	if err := r.RenewClaims(ctx, append(ids, "missing", "not a valid id!"), "me", 50*unit); err != nil {
		t.Fatalf("RenewClaims: %v", err)
	}
	h.advance(3 * unit) // s000's first claim has lapsed: only the renewal holds it
	for _, id := range ids {
		want := "me"
		if id == "s001" {
			want = "other"
		}
		if ok, cur := claim(id, "third", time.Hour); ok || cur != want {
			t.Fatalf("%s after the renewal: a third owner got ok=%v, current %q; want the claim of %q", id, ok, cur, want)
		}
	}
	if _, err := h.Store.Load(ctx, "missing"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("RenewClaims made a session of a missing id: %v", err)
	}
	for _, bad := range []struct {
		owner string
		ttl   time.Duration
	}{{"", time.Hour}, {"me", 0}} {
		if err := r.RenewClaims(ctx, ids, bad.owner, bad.ttl); err == nil {
			t.Errorf("RenewClaims(owner %q, ttl %v): got nil error, want one", bad.owner, bad.ttl)
		}
	}
}

func testClaimExpiry(t *testing.T, h Harness) {
	ctx := t.Context()
	create(t, h.Store, "s1", "o", time.Time{})
	const short = 100 * time.Millisecond
	if ok, _, err := h.Store.Claim(ctx, "s1", "a", short); !ok || err != nil {
		t.Fatalf("claim: got %v, %v; want ok", ok, err)
	}
	h.advance(2 * short)
	if ok, cur, err := h.Store.Claim(ctx, "s1", "b", short); !ok || cur != "b" || err != nil {
		t.Fatalf("claim after a's expired: got %v %q %v, want true b", ok, cur, err)
	}
	// b renews with a long ttl: the short one no longer counts.
	if ok, _, err := h.Store.Claim(ctx, "s1", "b", time.Hour); !ok || err != nil {
		t.Fatalf("renew: got %v, %v; want ok", ok, err)
	}
	h.advance(2 * short)
	if ok, cur, err := h.Store.Claim(ctx, "s1", "a", short); ok || cur != "b" || err != nil {
		t.Errorf("claim against a renewed claim: got %v %q %v, want false b", ok, cur, err)
	}
	// An expired claim cannot be released by a stale owner once someone else holds it.
	if err := h.Store.Release(ctx, "s1", "a"); err != nil {
		t.Fatalf("Release: %v", err)
	}
	if ok, cur, _ := h.Store.Claim(ctx, "s1", "c", short); ok || cur != "b" {
		t.Errorf("after a stale Release: got %v %q, want false b", ok, cur)
	}
}

func testClose(t *testing.T, h Harness) {
	ctx := t.Context()
	create(t, h.Store, "s1", "o", time.Time{})
	if err := h.Store.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	calls := map[string]error{
		"Create":        h.Store.Create(ctx, &store.Session{ID: "s2"}),
		"CreateClaimed": h.Store.CreateClaimed(ctx, &store.Session{ID: "s3", Origin: "o"}, "a", time.Hour),
		"Append":        h.Store.Append(ctx, "s1", store.Batch{Events: events(1, 1, "x")}),
		"Delete":        h.Store.Delete(ctx, "s1"),
	}
	_, calls["Load"] = h.Store.Load(ctx, "s1")
	_, calls["EventsAfter"] = h.Store.EventsAfter(ctx, "s1", 0, 0)
	_, calls["List"] = h.Store.List(ctx, store.ListOptions{})
	_, calls["ExpireIdle"] = h.Store.ExpireIdle(ctx, time.Now())
	_, _, calls["Claim"] = h.Store.Claim(ctx, "s1", "a", time.Hour)
	calls["Release"] = h.Store.Release(ctx, "s1", "a")
	for name, err := range calls {
		if !errors.Is(err, store.ErrClosed) {
			t.Errorf("%s after Close: got %v, want ErrClosed", name, err)
		}
	}
	if err := h.Store.Close(); err != nil {
		t.Errorf("second Close: got %v, want nil", err)
	}
}

func testSharedHandles(t *testing.T, h Harness) {
	if h.Reopen == nil {
		t.Skip("the store lives in one handle: there is no second one to share it with")
	}
	ctx := t.Context()
	other := h.Reopen(t)
	create(t, h.Store, "s1", "o", time.Time{})
	appendOK(t, other, "s1", store.Batch{Messages: conversation()[:2], Events: events(1, 2, "other")})
	got := load(t, h.Store, "s1")
	if got.Seq != 2 || len(got.Messages) != 2 {
		t.Errorf("first handle after second's Append: got seq %d, %d messages; want 2, 2", got.Seq, len(got.Messages))
	}
	if err := h.Store.Append(ctx, "s1", store.Batch{Events: events(2, 2, "stale")}); !errors.Is(err, store.ErrSeqConflict) {
		t.Errorf("stale Append on the first handle: got %v, want ErrSeqConflict", err)
	}
	if ok, _, err := h.Store.Claim(ctx, "s1", "replica-a", time.Hour); !ok || err != nil {
		t.Fatalf("Claim: got %v, %v", ok, err)
	}
	if ok, cur, err := other.Claim(ctx, "s1", "replica-b", time.Hour); ok || cur != "replica-a" || err != nil {
		t.Errorf("Claim on the second handle: got %v %q %v, want false replica-a", ok, cur, err)
	}
	create(t, other, "s2", "o", time.Time{})
	race(t, []store.Store{h.Store, other, h.Store, other}, "s2", 10)
}

func testRestart(t *testing.T, h Harness) {
	if h.Reopen == nil {
		t.Skip("the store lives in one handle: nothing outlives Close")
	}
	ctx := t.Context()
	created := time.Now().Add(-time.Minute)
	create(t, h.Store, "s1", "https://a.example", created)
	page := store.Page{URL: "https://a.example/cars/7", Title: "Car 7"}
	appendOK(t, h.Store, "s1", store.Batch{Messages: conversation(), Events: events(1, 4, "x"), Page: &page, ActiveTurn: ptr("t1")})
	if ok, _, err := h.Store.Claim(ctx, "s1", "replica-a", time.Hour); !ok || err != nil {
		t.Fatalf("Claim: got %v, %v", ok, err)
	}
	want := load(t, h.Store, "s1")
	if err := h.Store.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	again := h.Reopen(t)
	got := load(t, again, "s1")
	if got.Origin != want.Origin || got.Page != page || got.Seq != 4 || got.ActiveTurn != "t1" ||
		!got.CreatedAt.Equal(created) || !got.UpdatedAt.Equal(want.UpdatedAt) {
		t.Errorf("after restart: got %+v, want %+v", got, want)
	}
	checkMessages(t, got.Messages, conversation())
	evs, err := again.EventsAfter(ctx, "s1", 2, 0)
	if err != nil {
		t.Fatalf("EventsAfter: %v", err)
	}
	checkEvents(t, evs, events(3, 4, "x"))
	if ok, cur, err := again.Claim(ctx, "s1", "replica-b", time.Hour); ok || cur != "replica-a" || err != nil {
		t.Errorf("claim after restart: got %v %q %v, want false replica-a", ok, cur, err)
	}
	appendOK(t, again, "s1", store.Batch{Events: events(5, 5, "y")})
}
