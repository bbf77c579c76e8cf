package agentsvc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// These tests are about the store being the truth: a write that fails or conflicts is never
// dropped silently, the visitor is told, and the session reads the store again before it
// writes; and sessions nobody chats in are not stored. The same with a real redis-server
// killed and restarted under two replicas is in storefail_redis_test.go.

// errStoreDown is what flakyStore answers while it plays a store that does not answer.
var errStoreDown = errors.New("flaky store: connection refused")

// flakyStore is a Store whose writes fail on demand: a store that is down, one that refuses
// a batch (a seq conflict), or one that makes a write and loses its answer (a timeout after
// the write landed).
type flakyStore struct {
	store.Store
	down       atomic.Bool // Create, Load, Append and EventsAfter fail with errStoreDown
	eventsDown atomic.Bool // EventsAfter fails with errStoreDown (a blip between two reads)

	lock     sync.Mutex
	failNext int   // the next failNext Appends of events fail with failErr
	failErr  error // errStoreDown, store.ErrSeqConflict…
	apply    bool  // the failing Appends are made all the same (their answer is lost)
	failed   int   // Appends that failed because of failNext
}

// failAppends makes the next n Appends that carry events fail with err, made or not.
func (f *flakyStore) failAppends(n int, err error, apply bool) {
	f.lock.Lock()
	defer f.lock.Unlock()
	f.failNext, f.failErr, f.apply, f.failed = n, err, apply, 0
}

// Unwrap gives the wrapped store (its bus among others: store.BusOf).
func (f *flakyStore) Unwrap() store.Store { return f.Store }

func (f *flakyStore) failures() int {
	f.lock.Lock()
	defer f.lock.Unlock()
	return f.failed
}

func (f *flakyStore) Create(ctx context.Context, s *store.Session) error {
	if f.down.Load() {
		return errStoreDown
	}
	return f.Store.Create(ctx, s)
}

func (f *flakyStore) CreateClaimed(ctx context.Context, s *store.Session, owner string, ttl time.Duration) error {
	if f.down.Load() {
		return errStoreDown
	}
	return f.Store.CreateClaimed(ctx, s, owner, ttl)
}

func (f *flakyStore) Load(ctx context.Context, id string) (*store.Session, error) {
	if f.down.Load() {
		return nil, errStoreDown
	}
	return f.Store.Load(ctx, id)
}

func (f *flakyStore) EventsAfter(ctx context.Context, id string, after int64, limit int) ([]store.Event, error) {
	if f.down.Load() || f.eventsDown.Load() {
		return nil, errStoreDown
	}
	return f.Store.EventsAfter(ctx, id, after, limit)
}

func (f *flakyStore) Append(ctx context.Context, id string, b store.Batch) error {
	if f.down.Load() {
		return errStoreDown
	}
	f.lock.Lock()
	fail := f.failNext > 0 && len(b.Events) > 0
	err, apply := f.failErr, f.apply
	if fail {
		f.failNext--
		f.failed++
	}
	f.lock.Unlock()
	if !fail {
		return f.Store.Append(ctx, id, b)
	}
	if apply {
		if err := f.Store.Append(ctx, id, b); err != nil {
			return err
		}
	}
	return err
}

// stepModel answers call n with "reply " and then "n" in two deltas; before the second it
// waits for a token on hold, so a test decides when the rest of an answer comes.
type stepModel struct {
	hold  chan struct{}
	calls atomic.Int32
}

func newStepModel() *stepModel { return &stepModel{hold: make(chan struct{}, 16)} }

func (m *stepModel) Name() string { return "steps" }

func (m *stepModel) Stream(ctx context.Context, req llm.Request, onDelta func(string)) (*llm.Response, error) {
	n := m.calls.Add(1)
	onDelta("reply ")
	select {
	case <-m.hold:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	onDelta(fmt.Sprint(n))
	return &llm.Response{Text: fmt.Sprintf("reply %d", n), FinishReason: "stop"}, nil
}

// turnLog is what a page saw of its turns: the events with a seq (the log), and the ones
// without (the unsaved-turn errors).
type turnLog struct {
	seen     []event
	unlogged []event
}

// add sorts events into the log and the rest.
func (l *turnLog) add(evs ...event) {
	for _, e := range evs {
		if e.Seq == 0 {
			l.unlogged = append(l.unlogged, e)
			continue
		}
		l.seen = append(l.seen, e)
	}
}

// drain takes every event the page has received so far.
func (l *turnLog) drain(p *fakePage) {
	for {
		select {
		case raw := <-p.events:
			var e event
			if err := json.Unmarshal(raw, &e); err != nil {
				p.t.Fatalf("event %s: %v", raw, err)
			}
			l.add(e)
		default:
			return
		}
	}
}

// checkStoredTurns checks, in the store, that every turn the visitor saw as done (its
// agent/chat answered stopReason end) is there with its answer, and that no other
// assistant answer claims to be complete.
func checkStoredTurns(t *testing.T, st store.Store, id string, done map[string]string) {
	t.Helper()
	s, err := st.Load(context.Background(), id)
	if err != nil {
		t.Fatalf("loading the session: %v", err)
	}
	answers := map[string]string{}
	for _, m := range s.Messages {
		if m.Role == chat.RoleAssistant {
			answers[m.TurnID] = m.Content
		}
	}
	for turn, text := range done {
		if answers[turn] != text {
			t.Errorf("turn %s, answered %q to the visitor, is stored as %q", turn, text, answers[turn])
		}
	}
	if s.ActiveTurn != "" {
		t.Errorf("the store still has turn %s running", s.ActiveTurn)
	}
}

func TestFailedWritesAreNeverDroppedSilently(t *testing.T) {
	tests := []struct {
		name string
		// fail makes the store fail while turn 2 runs, after its start is stored.
		fail func(f *flakyStore)
		// ambiguous: the failed write may have landed whole (with turn 2's end); then turn 3
		// finds turn 2 ended in the store instead of closing it as interrupted.
		ambiguous bool
	}{
		{"store down", func(f *flakyStore) { f.down.Store(true) }, false},
		{"every retry fails", func(f *flakyStore) { f.failAppends(writeAttempts, errStoreDown, false) }, false},
		{"seq conflict", func(f *flakyStore) { f.failAppends(1, store.ErrSeqConflict, false) }, false},
		{"write landed, answer lost", func(f *flakyStore) { f.failAppends(1, errStoreDown, true) }, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			flaky := &flakyStore{Store: store.NewMemory()}
			model := newStepModel()
			ts := newQuietServer(t, model, func(c *Config) { c.Store = flaky })
			page := openPage(t, ts, testOrigin)
			sess := page.session(wire.SessionParams{})
			var log turnLog
			done := map[string]string{}

			model.hold <- struct{}{}
			r1, err := page.chat("one")
			if err != nil || r1.StopReason != wire.StopEnd {
				t.Fatalf("turn 1: got %+v, %v; want it to end", r1, err)
			}
			done[r1.TurnID] = r1.Text
			log.add(page.eventsUntil(wire.EventTurnEnd)...)

			// Turn 2: its start and first delta are stored and seen; then the store fails.
			res2 := make(chan wire.ChatResult, 1)
			go func() {
				r, err := page.chat("two")
				if err != nil {
					t.Errorf("turn 2: %v", err)
				}
				res2 <- r
			}()
			log.add(page.eventsUntil(wire.EventTextDelta)...)
			tc.fail(flaky)
			model.hold <- struct{}{}
			r2 := <-res2
			if r2.StopReason != wire.StopError || r2.Text != unsavedText {
				t.Errorf("turn 2: got stopReason %q text %q, want error and %q", r2.StopReason, r2.Text, unsavedText)
			}
			log.drain(page)
			if len(log.unlogged) != 1 || log.unlogged[0].Type != wire.EventError || log.unlogged[0].Message != unsavedText ||
				log.unlogged[0].TurnID != r2.TurnID || !log.unlogged[0].Retryable {
				t.Errorf("got events without seq %+v, want one retryable error of turn 2 saying %q", log.unlogged, unsavedText)
			}
			for _, e := range log.seen {
				if e.TurnID == r2.TurnID && e.Type == wire.EventTurnEnd {
					t.Errorf("the page saw turn 2 end (%+v) though its end was not stored", e)
				}
			}

			// While the store does not answer, a new turn is refused with a clear error.
			if flaky.down.Load() {
				_, err := page.chat("while down")
				if !errors.Is(err, wsrpc.NewError(wire.CodeStoreDown, "")) || !strings.Contains(err.Error(), "could not be saved") {
					t.Errorf("a turn while the store is down: got %v, want error %d saying the conversation could not be saved", err, wire.CodeStoreDown)
				}
				flaky.down.Store(false)
			}

			// Turn 3: the session reads the store again, closes turn 2, and goes on.
			model.hold <- struct{}{}
			r3, err := page.chat("three")
			if err != nil || r3.StopReason != wire.StopEnd {
				t.Fatalf("turn 3: got %+v, %v; want it to end", r3, err)
			}
			done[r3.TurnID] = r3.Text
			log.add(page.eventsUntil(wire.EventTurnEnd)...)
			log.drain(page)
			ends := map[string]int{}
			var marked bool
			for _, e := range log.seen {
				switch e.Type {
				case wire.EventTurnStart:
					ends[e.TurnID] += 0
				case wire.EventTurnEnd:
					ends[e.TurnID]++
					marked = marked || (e.TurnID == r2.TurnID && e.Interrupted && e.StopReason == wire.StopError)
				}
			}
			if len(ends) != 3 || ends[r1.TurnID] != 1 || ends[r2.TurnID] != 1 || ends[r3.TurnID] != 1 {
				t.Errorf("got turn ends per turn %v, want exactly one for each of the 3 turns", ends)
			}
			if !marked && !tc.ambiguous {
				t.Errorf("turn 2 was not closed as interrupted (events %+v)", log.seen)
			}
			// Each turn counted once, by how it ended: turn 2 as the error its page was told,
			// not again when turn 3's resync closes it in the store.
			m := scrape(t, ts.Server)
			counted := m[`byomcp_turns_total{stop_reason="end"}`] + m[`byomcp_turns_total{stop_reason="error"}`] + m[`byomcp_turns_total{stop_reason="interrupted"}`]
			if counted != 3 || m[`byomcp_turns_total{stop_reason="error"}`] != 1 {
				t.Errorf("turns counted: end %v, error %v, interrupted %v; want each of the 3 once, turn 2 as the error its page was answered",
					m[`byomcp_turns_total{stop_reason="end"}`], m[`byomcp_turns_total{stop_reason="error"}`], m[`byomcp_turns_total{stop_reason="interrupted"}`])
			}
			checkNothingLostOrDoubled(t, log.seen, storedEvents(t, flaky, sess.SessionID))
			checkStoredTurns(t, flaky, sess.SessionID, done)
		})
	}
}

// TestShortStoreBlipCostsNothing: a failure shorter than the flusher's retries is invisible.
func TestShortStoreBlipCostsNothing(t *testing.T) {
	flaky := &flakyStore{Store: store.NewMemory()}
	model := newStepModel()
	ts := newQuietServer(t, model, func(c *Config) { c.Store = flaky })
	page := openPage(t, ts, testOrigin)
	sess := page.session(wire.SessionParams{})
	model.hold <- struct{}{}
	if _, err := page.chat("one"); err != nil {
		t.Fatal(err)
	}
	seen := page.eventsUntil(wire.EventTurnEnd)
	flaky.failAppends(3, errStoreDown, false)
	model.hold <- struct{}{}
	r, err := page.chat("two")
	if err != nil || r.StopReason != wire.StopEnd {
		t.Fatalf("got %+v, %v; want the turn to end normally", r, err)
	}
	seen = append(seen, page.eventsUntil(wire.EventTurnEnd)...)
	if got := flaky.failures(); got != 3 {
		t.Errorf("the store failed %d times, want 3", got)
	}
	checkNothingLostOrDoubled(t, seen, storedEvents(t, flaky, sess.SessionID))
}

// TestUnusedSessionsAreParkedBriefly: a session nobody chatted in is kept in memory for
// parkFor after its socket goes, at most parkMax of them, and never stored.
func TestUnusedSessionsAreParkedBriefly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		st := store.NewMemory()
		srv := fakeTimeServer(t, Config{Store: st, Model: textModel("ok")})
		setParkMax(srv, 3)
		p := connectFakeTimePage(t, srv, nil)
		var ids []string
		for range 5 {
			ids = append(ids, p.session(t, wire.SessionParams{}).SessionID)
		}
		p.peer.Close(nil)
		synctest.Wait() // all 5 left their socket; the 3 last are parked
		resumes := func(id string) bool {
			q := connectFakeTimePage(t, srv, nil)
			defer func() {
				q.peer.Close(nil)
				synctest.Wait()
			}()
			var res wire.SessionResult
			err := q.peer.Call(context.Background(), wire.MethodAgentSession, wire.SessionParams{SessionID: id}, &res)
			if err != nil && !errors.Is(err, wsrpc.NewError(wire.CodeSessionNotFound, "")) {
				t.Fatalf("agent/session: %v", err)
			}
			return err == nil && res.Resumed && res.SessionID == id
		}
		for i, want := range []bool{false, false, true, true, true} {
			if got := resumes(ids[i]); got != want {
				t.Errorf("session %d of 5 resumes: %v, want %v (3 parked at most, oldest out first)", i+1, got, want)
			}
		}
		advance(parkFor - time.Minute)
		if !resumes(ids[4]) {
			t.Error("an unused session did not resume within parkFor of its socket's end")
		}
		advance(parkFor + time.Second)
		for i := range ids {
			if resumes(ids[i]) {
				t.Errorf("session %d resumes after parkFor", i+1)
			}
		}
		if n := storedSessions(t, st); n != 0 {
			t.Errorf("%d sessions stored, want none", n)
		}
	})
}

// storedSessions counts the sessions in a store.
func storedSessions(t *testing.T, st store.Store) int {
	t.Helper()
	list, err := st.List(context.Background(), store.ListOptions{Limit: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	return len(list)
}

func TestEmptySessionsAreNotStored(t *testing.T) {
	shared := store.NewMemory()
	ts := newQuietServer(t, echoUserText(), func(c *Config) { c.Store = shared })
	long := wire.Page{URL: "http://localhost:3000/cars?" + strings.Repeat("q", 4000), Title: strings.Repeat("T", 2000)}
	var pages []*fakePage
	var ids []string
	for range 4 {
		p := openPage(t, ts, testOrigin, echoTool())
		pages = append(pages, p)
		for range 12 { // under the new-session budget of one client address
			ids = append(ids, p.session(wire.SessionParams{Page: &long}).SessionID)
		}
	}
	if n := storedSessions(t, shared); n != 0 {
		t.Fatalf("48 agent/session calls without a chat stored %d sessions, want none", n)
	}

	// A reload before the first message: the session left its socket, and is resumed from
	// memory, still not stored; another origin does not see it.
	reload := openPage(t, ts, testOrigin, echoTool())
	if res := reload.session(wire.SessionParams{SessionID: ids[0]}); !res.Resumed || res.SessionID != ids[0] {
		t.Errorf("resuming a session that was never used after its socket moved on: got %+v, want it resumed", res)
	}
	stranger := openPage(t, ts, "http://127.0.0.1:4000", echoTool())
	err := stranger.peer.Call(context.Background(), wire.MethodAgentSession, wire.SessionParams{SessionID: ids[1]}, nil)
	if !errors.Is(err, wsrpc.NewError(wire.CodeSessionNotFound, "")) {
		t.Errorf("another origin resuming an unused session: got %v, want %d", err, wire.CodeSessionNotFound)
	}
	if n := storedSessions(t, shared); n != 0 {
		t.Fatalf("resumes of unused sessions stored %d sessions, want none", n)
	}

	// The id a socket holds works: its first turn stores it, with the capped page.
	a := pages[0]
	id := ids[11]
	if r, err := a.chat("hello"); err != nil || r.StopReason != wire.StopEnd {
		t.Fatalf("first turn: got %+v, %v", r, err)
	}
	if n := storedSessions(t, shared); n != 1 {
		t.Fatalf("after the first turn: %d sessions stored, want 1", n)
	}
	s, err := shared.Load(context.Background(), id)
	if err != nil {
		t.Fatalf("the session of the first turn: %v", err)
	}
	if len(s.Page.URL) > 2048 || len(s.Page.Title) > 512 || !strings.HasPrefix(s.Page.URL, "http://localhost:3000/cars?") {
		t.Errorf("stored page URL of %d bytes and title of %d, want them capped at 2048 and 512", len(s.Page.URL), len(s.Page.Title))
	}
	if got := roleList(s.Messages); got != "user,assistant,tool,assistant" {
		t.Errorf("stored messages %s, want the first turn", got)
	}

	// Duplicated tabs of a live session get forks; a fork is stored at its first turn only.
	var forks []wire.SessionResult
	for i := range 20 {
		p := pages[1+i%3]
		res := p.session(wire.SessionParams{SessionID: id})
		if !res.Forked || roleList(res.Messages) != "user,assistant,tool,assistant" {
			t.Fatalf("got %+v, want a fork with the history", res)
		}
		forks = append(forks, res)
	}
	if n := storedSessions(t, shared); n != 1 {
		t.Errorf("20 forks nobody chatted in stored %d sessions in all, want 1", n)
	}
	b := pages[1+19%3] // holds the last fork
	if r, err := b.chat("in the fork"); err != nil || r.StopReason != wire.StopEnd {
		t.Fatalf("turn in the fork: got %+v, %v", r, err)
	}
	fork := forks[len(forks)-1].SessionID
	fs, err := shared.Load(context.Background(), fork)
	if err != nil {
		t.Fatalf("the fork after its first turn: %v", err)
	}
	if got := roleList(fs.Messages); got != "user,assistant,tool,assistant,user,assistant,tool,assistant" || fs.Messages[4].Content != "in the fork" {
		t.Errorf("the fork stored %s, want the copied history and its own turn", got)
	}
	if fs.Seq == 0 || fs.Origin != testOrigin {
		t.Errorf("the fork stored seq %d origin %q", fs.Seq, fs.Origin)
	}
	if n := storedSessions(t, shared); n != 2 {
		t.Errorf("%d sessions stored, want 2 (the used session and the used fork)", n)
	}

	// After its first turn a session resumes anywhere, here on a new server on the store
	// once the first one let it go.
	dropSocket(b, true)
	waitFor(t, "the fork to leave the first server", func() bool { return !isLive(ts, fork) })
	other := newQuietServer(t, textModel("again"), func(c *Config) { c.Store = shared; c.OwnerID = "another-server" })
	p := openPage(t, other, testOrigin)
	last := fs.Seq
	res := p.session(wire.SessionParams{SessionID: fork, LastSeq: &last})
	if !res.Resumed || res.Seq != fs.Seq || len(res.Messages) != 8 {
		t.Errorf("resume on another server: got resumed %v seq %d %d messages, want %d and 8", res.Resumed, res.Seq, len(res.Messages), fs.Seq)
	}
	if r, err := p.chat("next"); err != nil || r.Text != "again" {
		t.Errorf("a turn after the resume: got %+v, %v", r, err)
	}
}

// flakyAfterATurn is a server on a flakyStore with a page that had one turn: the store, the
// server, the page, its session and the events it saw.
func flakyAfterATurn(t *testing.T) (*flakyStore, *testServer, *fakePage, wire.SessionResult, []event) {
	t.Helper()
	flaky := &flakyStore{Store: store.NewMemory()}
	ts := newQuietServer(t, echoUserText(), func(c *Config) { c.Store = flaky })
	p := openPage(t, ts, testOrigin, echoTool())
	sess := p.session(wire.SessionParams{})
	if _, err := p.chat("first"); err != nil {
		t.Fatal(err)
	}
	return flaky, ts, p, sess, p.eventsUntil(wire.EventTurnEnd)
}

// refusedStoreDown asks for agent/session with params on p and fails the test unless the
// answer is -32010 (the store does not answer).
func refusedStoreDown(t *testing.T, p *fakePage, params wire.SessionParams, what string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	var res wire.SessionResult
	err := p.peer.Call(ctx, wire.MethodAgentSession, params, &res)
	if !errors.Is(err, wsrpc.NewError(wire.CodeStoreDown, "")) {
		t.Fatalf("%s: got %+v, %v; want error %d", what, res, err, wire.CodeStoreDown)
	}
}

// A duplicated tab that asks for a session while the store does not answer is told the store
// is down (retryable), not that the session is gone: a page told "not found" forgets its
// session and starts a new one. Once the store is back, the same request gets its fork.
func TestForkWhileTheStoreIsDownSaysSo(t *testing.T) {
	flaky, ts, _, sess, _ := flakyAfterATurn(t)
	waitFor(t, "the session to leave its history to the store", func() bool {
		_, cold, _, _ := liveState(ts, sess.SessionID)
		return cold
	})

	dup := openPage(t, ts, testOrigin, echoTool())
	flaky.down.Store(true)
	refusedStoreDown(t, dup, wire.SessionParams{SessionID: sess.SessionID}, "a duplicated tab while the store is down")

	flaky.down.Store(false)
	fork := dup.session(wire.SessionParams{SessionID: sess.SessionID})
	if !fork.Forked || fork.SessionID == sess.SessionID || roleList(fork.Messages) != "user,assistant,tool,assistant" {
		t.Errorf("the same request once the store is back: got forked %v, history %s; want a fork with the turn", fork.Forked, roleList(fork.Messages))
	}
}

// A page that resumes with lastSeq while the store answers Load but not the read of the
// events to replay is told the store is down, not answered "resumed" without the events it
// missed (it would take itself to be up to date over a gap). Once the store answers, the
// same request replays them.
func TestResumeWhoseReplayCannotBeReadSaysSo(t *testing.T) {
	flaky, ts, a, sess, seen := flakyAfterATurn(t)
	dropSocket(a, true)

	b := openPage(t, ts, testOrigin, echoTool())
	flaky.eventsDown.Store(true)
	zero := int64(0)
	refusedStoreDown(t, b, wire.SessionParams{SessionID: sess.SessionID, LastSeq: &zero}, "a resume whose replay cannot be read")

	flaky.eventsDown.Store(false)
	res := b.session(wire.SessionParams{SessionID: sess.SessionID, LastSeq: &zero})
	if !res.Resumed || res.Seq != lastSeqOf(seen) {
		t.Fatalf("the same request once the store answers: got resumed %v at seq %d, want resumed at %d", res.Resumed, res.Seq, lastSeqOf(seen))
	}
	replayed := b.eventsUntil(wire.EventTurnEnd)
	if replayed[0].Seq != 1 || lastSeqOf(replayed) != res.Seq {
		t.Errorf("replayed seqs %d..%d, want 1..%d", replayed[0].Seq, lastSeqOf(replayed), res.Seq)
	}
}

// ctxReads is a store whose next Load or EventsAfter, once armed (loads, events), waits for
// its ctx to end and fails with its error, as a network store's reads do when the request
// that asked goes; entered is closed then.
type ctxReads struct {
	store.Store
	loads, events atomic.Bool
	skipEvents    atomic.Int32 // EventsAfter calls let through before the armed one
	entered       chan struct{}
}

func (c *ctxReads) wait(ctx context.Context, armed *atomic.Bool) error {
	if !armed.CompareAndSwap(true, false) {
		return nil
	}
	close(c.entered)
	<-ctx.Done()
	return fmt.Errorf("store: redis: read: %w", ctx.Err())
}

func (c *ctxReads) Load(ctx context.Context, id string) (*store.Session, error) {
	if err := c.wait(ctx, &c.loads); err != nil {
		return nil, err
	}
	return c.Store.Load(ctx, id)
}

func (c *ctxReads) EventsAfter(ctx context.Context, id string, after int64, limit int) ([]store.Event, error) {
	if c.events.Load() && c.skipEvents.Add(-1) >= 0 {
		return c.Store.EventsAfter(ctx, id, after, limit)
	}
	if err := c.wait(ctx, &c.events); err != nil {
		return nil, err
	}
	return c.Store.EventsAfter(ctx, id, after, limit)
}

// A page that cancels its agent/session (or goes) while the store reads the session is no
// store failure: nothing is logged at error level (the page fuzzer on redis-server found
// "loading session: context canceled" logged as an error), and the socket's next request is
// answered.
func TestCancelledResumeIsNoStoreFailure(t *testing.T) {
	st := &ctxReads{Store: store.NewMemory(), entered: make(chan struct{})}
	core, logs := observer.New(zapcore.ErrorLevel)
	ts := newQuietServer(t, echoUserText(), func(c *Config) { c.Store, c.Logger = st, zap.New(core) })
	id, q := storedAndLeft(t, ts)
	st.loads.Store(true)
	cancelledSession(t, q, st, wire.SessionParams{SessionID: id})
	if res := q.session(wire.SessionParams{SessionID: id}); !res.Resumed {
		t.Fatalf("the next agent/session: got %+v, want the session resumed", res)
	}
	noWarnings(t, logs)
}

// A resume cancelled while the events to replay are read, after the session was loaded into
// memory for it, does not leave the session in memory with nobody to let it go (the page
// fuzzer on redis-server: "1 live sessions left after every socket closed").
func TestCancelledResumeLeavesNothingLive(t *testing.T) {
	st := &ctxReads{Store: store.NewMemory(), entered: make(chan struct{})}
	ts := newQuietServer(t, echoUserText(), func(c *Config) { c.Store = st })
	id, q := storedAndLeft(t, ts)
	st.skipEvents.Store(1) // the session's tail, read as it is loaded into memory
	st.events.Store(true)  // then the events to replay
	zero := int64(0)
	cancelledSession(t, q, st, wire.SessionParams{SessionID: id, LastSeq: &zero})
	waitFor(t, "the session loaded for the cancelled request to leave memory", func() bool {
		live, _, _, _ := liveState(ts, id)
		return !live
	})
}

// storedAndLeft runs one turn on a page of ts, closes it and waits until its session has
// left memory; it returns the session's id and another open page.
func storedAndLeft(t *testing.T, ts *testServer) (string, *fakePage) {
	t.Helper()
	p, ls, _ := chattedOnce(t, ts)
	p.eventsUntil(wire.EventTurnEnd)
	dropSocket(p, true)
	waitFor(t, "the session to leave memory", func() bool {
		live, _, _, _ := liveState(ts, ls.id)
		return !live
	})
	return ls.id, openPage(t, ts, testOrigin, echoTool())
}

// cancelledSession sends agent/session with params on p and cancels it once st's armed read
// waits; the request must not be answered with a result.
func cancelledSession(t *testing.T, p *fakePage, st *ctxReads, params wire.SessionParams) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.peer.Call(ctx, wire.MethodAgentSession, params, nil) }()
	<-st.entered
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the cancelled agent/session answered")
	}
}

// The first turn of a session that is not in the store yet (a new session, or the fork a
// duplicated tab gets) is refused with -32010 while the store does not take it, as a turn of
// a stored session is: the model is never called, nothing is spent on an answer that could
// not be kept, and the page sees no turn start. Once the store is back, the same request
// runs and stores the session, with its history. The audit found the model called and the
// answer then thrown away (stopReason error, usage reported).
func TestFirstTurnIsRefusedWhileTheStoreIsDown(t *testing.T) {
	tests := []struct {
		name string
		// open gives page a session that is not stored yet, on ts; want is the history the
		// store must have once the refused request runs.
		open func(t *testing.T, ts *testServer, page *fakePage) (id, want string)
	}{
		{"new session", func(t *testing.T, ts *testServer, page *fakePage) (string, string) {
			return page.session(wire.SessionParams{}).SessionID, "user,assistant"
		}},
		{"fork", func(t *testing.T, ts *testServer, page *fakePage) (string, string) {
			first := openPage(t, ts, testOrigin, echoTool())
			sess := first.session(wire.SessionParams{})
			if r, err := first.chat("first tab"); err != nil || r.StopReason != wire.StopEnd {
				t.Fatalf("the first tab's turn: got %+v, %v", r, err)
			}
			fork := page.session(wire.SessionParams{SessionID: sess.SessionID})
			if !fork.Forked {
				t.Fatalf("the duplicated tab: got %+v, want a fork", fork)
			}
			return fork.SessionID, "user,assistant,user,assistant"
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			flaky := &flakyStore{Store: store.NewMemory()}
			model := textModel("kept")
			ts := newQuietServer(t, model, func(c *Config) { c.Store, c.OwnerID = flaky, "replica-a" })
			page := openPage(t, ts, testOrigin, echoTool())
			id, want := tc.open(t, ts, page)
			calls := len(model.requests())

			flaky.down.Store(true)
			r, err := page.chat("while down")
			if !errors.Is(err, wsrpc.NewError(wire.CodeStoreDown, "")) || !strings.Contains(err.Error(), "could not be saved") {
				t.Errorf("the first turn while the store is down: got %+v, %v; want error %d saying the conversation could not be saved", r, err, wire.CodeStoreDown)
			}
			if n := len(model.requests()) - calls; n != 0 {
				t.Errorf("the model was called %d times for the refused turn, want never", n)
			}
			var log turnLog
			log.drain(page)
			if len(log.seen)+len(log.unlogged) != 0 {
				t.Errorf("the page got events %+v %+v for the refused turn, want none", log.seen, log.unlogged)
			}
			if got := metric(t, ts.Server, `byomcp_turns_total{stop_reason="error"}`); got != 0 {
				t.Errorf("byomcp_turns_total{stop_reason=\"error\"} = %v, want 0: the turn never ran", got)
			}
			// An operator audit: the outage showed in no metric.
			if got := metric(t, ts.Server, `byomcp_refused_total{reason="store_down"}`); got != 1 {
				t.Errorf("byomcp_refused_total{reason=\"store_down\"} = %v, want 1", got)
			}

			flaky.down.Store(false)
			if _, err := flaky.Load(context.Background(), id); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("the session in the store after the refused turn: %v, want %v", err, store.ErrNotFound)
			}
			r, err = page.chat("once it is back")
			if err != nil || r.StopReason != wire.StopEnd || r.Text != "kept" {
				t.Fatalf("the same request once the store is back: got %+v, %v; want it answered", r, err)
			}
			seen := page.eventsUntil(wire.EventTurnEnd)
			s := loadStored(t, flaky, id)
			if got := roleList(s.Messages); got != want || s.Messages[len(s.Messages)-2].Content != "once it is back" {
				t.Errorf("stored messages %s, want %s ending with the turn that ran", got, want)
			}
			checkNothingLostOrDoubled(t, seen, storedEvents(t, flaky, id))
			heldByA(t, flaky, ts, id) // created claimed by the replica whose socket has it
		})
	}
}
