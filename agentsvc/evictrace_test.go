package agentsvc

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/session"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// A page sends agent/chat and goes at once (a reload, a dropped phone): the socket's end
// evicts the idle session, and lets its claim go, before the chat's handler starts the turn
// (the page fuzzer found this with two replicas: the turn wrote next to the other replica's
// copy, and the store refused its events). These tests set that order up by hand: they evict
// the session first, then start the turn as the handler would.

// evictedAfterChat opens a page on a, runs one turn (so the session is stored), closes the
// page and waits until a has evicted the session. It returns the session and the server's
// side of the gone socket, the caller of the turn the test starts.
func evictedAfterChat(t *testing.T, a *testServer) (*liveSession, *pageConn) {
	t.Helper()
	p, ls, c := chattedOnce(t, a)
	p.peer.Close(nil)
	waitFor(t, "the session to be evicted", func() bool { return isEvicted(ls) })
	return ls, c
}

// chattedOnce opens a page on a and runs one turn (so the session is stored). It returns the
// page, its session and the server's side of its socket.
func chattedOnce(t *testing.T, a *testServer) (*fakePage, *liveSession, *pageConn) {
	t.Helper()
	p := openPage(t, a, testOrigin, echoTool())
	sess := p.session(wire.SessionParams{})
	if _, err := p.chat("first"); err != nil {
		t.Fatal(err)
	}
	c := a.connFor(t)
	ls := c.boundSession()
	if ls == nil || ls.id != sess.SessionID {
		t.Fatalf("socket bound to %v, want session %s", ls, sess.SessionID)
	}
	return p, ls, c
}

// modelAfterFirst answers the first request at once and the later ones with rest once gate
// is closed.
func modelAfterFirst(rest string) (gate chan struct{}, model *scriptModel) {
	gate = make(chan struct{})
	return gate, &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
		if n > 0 {
			<-gate
			return &llm.Response{Text: rest}, nil
		}
		return &llm.Response{Text: "first answer"}, nil
	}}
}

// TestTurnTakesBackASessionEvictLetGo: nobody else took the session: the turn claims it
// again and is live in the hub while it runs (so its claim is renewed and another replica
// cannot start a second copy), and its events follow the stored log.
func TestTurnTakesBackASessionEvictLetGo(t *testing.T) {
	gate, model := modelAfterFirst("second answer")
	shared, a, _ := twoReplicas(t, model, noPageWait)
	ls, c := evictedAfterChat(t, a)
	before := loadStored(t, shared, ls.id)

	rt, err := startTurnIn(a.Server, ls, c, "second")
	if err != nil {
		t.Fatalf("startTurn: %v", err)
	}
	if live := heldByA(t, shared, a, ls.id); live != ls {
		t.Fatal("another copy of the running turn's session is live in its hub")
	}
	close(gate)
	<-rt.done
	if rt.result.StopReason != wire.StopEnd || rt.result.Text != "second answer" {
		t.Fatalf("turn ended with %+v", rt.result)
	}
	after := loadStored(t, shared, ls.id)
	if after.Seq <= before.Seq || after.ActiveTurn != "" {
		t.Fatalf("store after the turn: seq %d (before %d), active turn %q", after.Seq, before.Seq, after.ActiveTurn)
	}
	checkLog(t, shared, ls.id, after.Seq)
}

// TestTurnAfterEvictReadsWhatAnotherReplicaWrote: another replica resumed the session, ran a
// turn in it and let it go, all between the evict and the turn's start: the turn reads the
// store's state first and goes on from the other replica's last event.
func TestTurnAfterEvictReadsWhatAnotherReplicaWrote(t *testing.T) {
	shared, a, b, logs := watchedReplicas(t, "later answer")
	ls, c := evictedAfterChat(t, a)

	resumeChatLeave(t, b, shared, ls.id, "written on b")
	onB := loadStored(t, shared, ls.id)

	rt, err := startTurnIn(a.Server, ls, c, "after b")
	if err != nil {
		t.Fatalf("startTurn: %v", err)
	}
	<-rt.done
	if rt.result.StopReason != wire.StopEnd {
		t.Fatalf("turn ended with %+v (the store refused its events?)", rt.result)
	}
	after := loadStored(t, shared, ls.id)
	if after.Seq <= onB.Seq {
		t.Fatalf("store seq %d after the turn, %d after b's", after.Seq, onB.Seq)
	}
	if users := userTexts(after.Messages); fmt.Sprint(users) != "[first written on b after b]" {
		t.Fatalf("user messages in the store: %q", users)
	}
	checkLog(t, shared, ls.id, after.Seq)
	noWarnings(t, logs) // what b wrote is expected, not an error of the store
}

// TestTurnAfterEvictRefusedWhileAnotherReplicaHoldsIt: another replica resumed the session
// and holds it: the turn is refused, writes nothing, and the caller's socket is sent back to
// resume (where the session is now).
func TestTurnAfterEvictRefusedWhileAnotherReplicaHoldsIt(t *testing.T) {
	gate, model := modelAfterFirst("written next to b")
	close(gate)
	shared, a, b := twoReplicas(t, model, noPageWait)
	ls, c := evictedAfterChat(t, a)
	other := openPage(t, b, testOrigin, echoTool())
	if res := other.session(wire.SessionParams{SessionID: ls.id}); !res.Resumed || res.Forked {
		t.Fatalf("resume on b: %+v", res)
	}
	before := loadStored(t, shared, ls.id)

	if rt, err := startTurnIn(a.Server, ls, c, "on a"); err == nil {
		<-rt.done
		t.Fatalf("a started a turn in a session b holds; it ended with %+v", rt.result)
	}
	after := loadStored(t, shared, ls.id)
	if after.Seq != before.Seq || after.ActiveTurn != "" {
		t.Fatalf("store seq %d (was %d), active turn %q: a wrote in b's session", after.Seq, before.Seq, after.ActiveTurn)
	}
	if isLive(a, ls.id) {
		t.Fatal("a holds a second live copy of b's session")
	}
}

// TestTakenBackWhileEvictEnds: the agent/chat reaches the session just as evict lets it go
// (evictHook: right after evict's critical section). The turn takes the session back, and
// nothing of evict undoes that afterwards: while the turn runs, the session is live in the
// hub and its claim is a's (the page fuzzer found evict releasing the claim of a session a
// turn had just taken back, and another replica writing next to it).
func TestTakenBackWhileEvictEnds(t *testing.T) {
	gate, model := modelAfterFirst("second answer")
	shared, a, _ := twoReplicas(t, model, noPageWait)
	var caller atomic.Pointer[pageConn]
	started := make(chan *runningTurn, 1)
	a.evictHook = func(ls *liveSession) {
		c := caller.Swap(nil)
		if c == nil {
			return
		}
		rt, err := startTurnIn(a.Server, ls, c, "second")
		if err != nil {
			t.Errorf("startTurn: %v", err)
			close(started)
			return
		}
		started <- rt
	}
	p := openPage(t, a, testOrigin, echoTool())
	sess := p.session(wire.SessionParams{})
	if _, err := p.chat("first"); err != nil {
		t.Fatal(err)
	}
	caller.Store(a.connFor(t))
	p.peer.Close(nil)
	var rt *runningTurn
	select {
	case rt = <-started:
	case <-time.After(waitLimit):
		t.Fatal("evict did not run")
	}
	if rt == nil {
		return
	}
	defer func() { close(gate); <-rt.done }()
	// Whatever evict still does after its hook is over once the socket's end is served.
	waitFor(t, "the socket's end (and its evict) to be served", func() bool { return a.ConnCount() == 0 })
	heldByA(t, shared, a, sess.SessionID)
}

// TestParkedThenTakenBackIsNotParkedAgain: a session nobody chatted in yet is parked when its
// socket goes; a request that was on its way takes it back (reviveLocked, as attach does when
// a resume found it just before evict), and a turn stores it. Once another replica has
// written to it, a resume on a must read the store, not unpark the copy of the first park (the
// page fuzzer found a stale copy coming back from the parked map).
func TestParkedThenTakenBackIsNotParkedAgain(t *testing.T) {
	shared, a, b, logs := watchedReplicas(t, "answer")
	first := openPage(t, a, testOrigin, echoTool())
	sess := first.session(wire.SessionParams{})
	c := a.connFor(t)
	ls := c.boundSession()
	first.peer.Close(nil)
	waitFor(t, "the unused session to be parked", func() bool { return isParked(a.Server, sess.SessionID) })
	if why := revive(ls); why != "" {
		t.Fatalf("revive: %s", why)
	}

	resumeChatLeave(t, a, shared, sess.SessionID, "stored on a")
	resumeChatLeave(t, b, shared, sess.SessionID, "written on b")

	last := openPage(t, a, testOrigin, echoTool())
	res := last.session(wire.SessionParams{SessionID: sess.SessionID})
	if users := userTexts(res.Messages); fmt.Sprint(users) != "[stored on a written on b]" {
		t.Fatalf("resumed on a with user messages %q", users)
	}
	noWarnings(t, logs)
}

// resumeChatLeave resumes session id on ts from a new page, runs a turn with text, closes the
// page and waits until ts has let the session go (its claim is free).
func resumeChatLeave(t *testing.T, ts *testServer, shared store.Store, id, text string) {
	t.Helper()
	p := openPage(t, ts, testOrigin, echoTool())
	if res := p.session(wire.SessionParams{SessionID: id}); !res.Resumed || res.Forked {
		t.Fatalf("resume: %+v", res)
	}
	if _, err := p.chat(text); err != nil {
		t.Fatal(err)
	}
	p.peer.Close(nil)
	waitFor(t, "the session to be let go", func() bool {
		ok, _, err := shared.Claim(context.Background(), id, "probe", 1)
		if ok {
			_ = shared.Release(context.Background(), id, "probe")
		}
		return err == nil && ok
	})
}

// noPageWait: a turn whose page went waits 100 ms for it to come back, not 30 s.
func noPageWait(c *Config) { c.ReconnectWait = 100 * time.Millisecond }

// watchedReplicas is twoReplicas with a model that answers at once (first answer, then
// rest), turns that wait 100 ms for a page gone, and the replicas' warnings and errors kept
// in logs.
func watchedReplicas(t *testing.T, rest string) (shared store.Store, a, b *testServer, logs *observer.ObservedLogs) {
	gate, model := modelAfterFirst(rest)
	close(gate)
	core, logs := observer.New(zapcore.WarnLevel)
	shared, a, b = twoReplicas(t, model, func(c *Config) {
		noPageWait(c)
		c.Logger = zap.New(core)
	})
	return shared, a, b, logs
}

// noWarnings fails the test for each entry in logs.
func noWarnings(t *testing.T, logs *observer.ObservedLogs) {
	t.Helper()
	for _, e := range logs.All() {
		t.Errorf("logged at %v: %s %v", e.Level, e.Message, e.ContextMap())
	}
}

// heldByA checks, while a turn of session id runs on replica a, that another replica cannot
// claim it and that it is live in a's hub; it returns a's live copy.
func heldByA(t *testing.T, shared store.Store, a *testServer, id string) *liveSession {
	t.Helper()
	ok, holder, err := shared.Claim(context.Background(), id, "replica-b", a.cfg.ClaimTTL)
	if err != nil || ok || holder != "replica-a" {
		t.Fatalf("another replica's claim while the turn runs: ok=%v holder=%q err=%v; want held by replica-a", ok, holder, err)
	}
	live := liveOf(a.Server, id)
	if live == nil {
		t.Fatal("the running turn's session is not live in its hub")
	}
	return live
}

// loadStored loads session id from st, failing the test when it cannot.
func loadStored(t *testing.T, st store.Store, id string) *store.Session {
	t.Helper()
	s, err := st.Load(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// userTexts is the text of each user message in msgs.
func userTexts(msgs []chat.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role == chat.RoleUser {
			out = append(out, m.Content)
		}
	}
	return out
}

// checkLog fails unless the stored log of session id is numbered 1…seq.
func checkLog(t *testing.T, st store.Store, id string, seq int64) {
	t.Helper()
	evs, err := st.EventsAfter(context.Background(), id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range evs {
		if e.Seq != int64(i+1) {
			t.Fatalf("stored log: event %d has seq %d", i, e.Seq)
		}
	}
	if int64(len(evs)) != seq {
		t.Fatalf("stored log has %d events, the session says %d", len(evs), seq)
	}
}

// heldAppends is a store whose Appends wait until held is closed; waiting is closed when
// the first one does.
type heldAppends struct {
	store.Store
	held, waiting chan struct{}
	once          sync.Once
}

func (h *heldAppends) Unwrap() store.Store { return h.Store }

func (h *heldAppends) Append(ctx context.Context, id string, b store.Batch) error {
	h.once.Do(func() { close(h.waiting) })
	<-h.held
	return h.Store.Append(ctx, id, b)
}

// TestNewSessionIsClaimedAsItIsCreated: a twin tab that resumes a new session on another
// replica while the session's first write is on its way (created, its first events not yet
// appended) finds it held by the replica whose turn writes it: it never takes it (which
// would close the first turn as interrupted under it and make its writes conflict).
func TestNewSessionIsClaimedAsItIsCreated(t *testing.T) {
	core, logs := observer.New(zapcore.WarnLevel)
	shared := store.NewMemoryWithBus()
	held := &heldAppends{Store: shared, held: make(chan struct{}), waiting: make(chan struct{})}
	model := echoUserText()
	a := newQuietServer(t, model, func(c *Config) { c.Store, c.OwnerID, c.Logger = held, "replica-a", zap.New(core) })
	b := newQuietServer(t, model, func(c *Config) { c.Store, c.OwnerID = shared, "replica-b" })
	first := openPage(t, a, testOrigin, echoTool())
	sess := first.session(wire.SessionParams{})
	chat := make(chan wire.ChatResult, 1)
	go func() {
		r, err := first.chat("hello")
		if err != nil {
			t.Errorf("the first tab's turn: %v", err)
		}
		chat <- r
	}()
	<-held.waiting // created in the store, its first events not appended yet

	twin := openPage(t, b, testOrigin, echoTool())
	zero := int64(0)
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	var res wire.SessionResult
	err := twin.peer.Call(ctx, wire.MethodAgentSession, wire.SessionParams{SessionID: sess.SessionID, LastSeq: &zero}, &res)
	if err != nil {
		t.Fatalf("the twin's agent/session: %v", err)
	}
	heldByA(t, shared, a, sess.SessionID)

	close(held.held)
	if r := <-chat; r.StopReason != wire.StopEnd {
		t.Errorf("the first tab's turn ended %q, want %q", r.StopReason, wire.StopEnd)
	}
	s := loadStored(t, shared, sess.SessionID)
	checkLog(t, shared, sess.SessionID, s.Seq)
	noWarnings(t, logs)
}

// heldReads is a store whose next Load or EventsAfter, once armed (loads, events), waits
// until held is closed; waiting is closed when it does.
type heldReads struct {
	store.Store
	loads, events atomic.Bool
	held, waiting chan struct{}
}

func newHeldReads(st store.Store) *heldReads {
	return &heldReads{Store: st, held: make(chan struct{}), waiting: make(chan struct{})}
}

func (h *heldReads) Unwrap() store.Store { return h.Store }

func (h *heldReads) hold(armed *atomic.Bool) {
	if armed.CompareAndSwap(true, false) {
		close(h.waiting)
		<-h.held
	}
}

func (h *heldReads) Load(ctx context.Context, id string) (*store.Session, error) {
	h.hold(&h.loads)
	return h.Store.Load(ctx, id)
}

func (h *heldReads) EventsAfter(ctx context.Context, id string, after int64, limit int) ([]store.Event, error) {
	h.hold(&h.events)
	return h.Store.EventsAfter(ctx, id, after, limit)
}

// TestEvictedWhileATurnReadsItsHistory: a turn's start reads an idle session's history
// back from the store (warm) while the socket goes, evict lets the session go and another
// replica takes it. The turn must not then start on the copy let go (the page fuzzer found a
// turn running on a next to b's copy, the page on b never seeing its events): it looks
// again once the read is done, and is refused because b holds the session.
func TestEvictedWhileATurnReadsItsHistory(t *testing.T) {
	gate, model := modelAfterFirst("written next to b")
	close(gate)
	var held *heldReads
	shared, a, b := twoReplicasVia(t, model, noPageWait, func(replica string, shared store.Store) store.Store {
		if replica != "replica-a" {
			return nil
		}
		held = newHeldReads(shared)
		return held
	})
	p, ls, c := chattedOnce(t, a)

	held.loads.Store(true)
	type started struct {
		rt  *runningTurn
		err error
	}
	turn := make(chan started, 1)
	go func() {
		rt, err := startTurnIn(a.Server, ls, c, "on a")
		turn <- started{rt, err}
	}()
	<-held.waiting // the turn's start reads the history back
	p.peer.Close(nil)
	waitFor(t, "the session to be evicted", func() bool { return isEvicted(ls) })
	other := openPage(t, b, testOrigin, echoTool())
	if res := other.session(wire.SessionParams{SessionID: ls.id}); !res.Resumed || res.Forked {
		t.Fatalf("resume on b: %+v", res)
	}
	before := loadStored(t, shared, ls.id)
	close(held.held)

	if s := <-turn; s.err == nil {
		<-s.rt.done
		t.Fatalf("a started a turn in a session b holds; it ended with %+v", s.rt.result)
	}
	after := loadStored(t, shared, ls.id)
	if after.Seq != before.Seq || after.ActiveTurn != "" {
		t.Fatalf("store seq %d (was %d), active turn %q: a wrote in b's session", after.Seq, before.Seq, after.ActiveTurn)
	}
}

// TestResumeReadsTheTailBeforeOthersSeeTheSession: a socket resumes a session that is not in
// memory; while its request reads the session's recent events, its socket goes and another
// socket resumes the same session. The session a resume puts in the hub is complete by then:
// the first request wrote its tail after the second one's attach had used the session
// (without its lock), which the page fuzzer's -race run reported. Under -race, this test
// fails on that order.
func TestResumeReadsTheTailBeforeOthersSeeTheSession(t *testing.T) {
	held := newHeldReads(store.NewMemory())
	ts := newQuietServer(t, echoUserText(), func(c *Config) { c.Store = held })
	p := openPage(t, ts, testOrigin, echoTool())
	sess := p.session(wire.SessionParams{})
	if _, err := p.chat("first"); err != nil {
		t.Fatal(err)
	}
	p.eventsUntil(wire.EventTurnEnd)
	dropSocket(p, true)
	waitFor(t, "the session to leave memory", func() bool {
		live, _, _, _ := liveState(ts, sess.SessionID)
		return !live
	})

	held.events.Store(true)
	first := openPage(t, ts, testOrigin, echoTool())
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
		defer cancel()
		_ = first.peer.Call(ctx, wire.MethodAgentSession, wire.SessionParams{SessionID: sess.SessionID}, nil)
	}()
	<-held.waiting // the first resume reads the session's recent events
	dropSocket(first, false)
	<-answered

	second := openPage(t, ts, testOrigin, echoTool())
	if res := second.session(wire.SessionParams{SessionID: sess.SessionID}); !res.Resumed || res.Forked {
		t.Fatalf("the second socket's resume: got %+v, want the session resumed", res)
	}
	close(held.held)
	if _, err := second.chat("second"); err != nil {
		t.Fatal(err)
	}
	second.eventsUntil(wire.EventTurnEnd)
	s := loadStored(t, held, sess.SessionID)
	checkLog(t, held, sess.SessionID, s.Seq)
	if got := strings.Join(userTexts(s.Messages), ","); got != "first,second" {
		t.Errorf("stored user messages %q, want first,second", got)
	}
}

// heldRenewals is a store whose next RenewClaims, once armed, waits until held is closed;
// waiting is closed when it does, and renewals counts the calls.
type heldRenewals struct {
	store.Store
	armed         atomic.Bool
	held, waiting chan struct{}
	renewals      atomic.Int32
	// renewed, when set, is closed once the held renewal has written; a release done before
	// that returns only then (its caller slow to step Released), as when the renewal's write
	// comes between evict's release and its end.
	renewed chan struct{}
}

func (h *heldRenewals) RenewClaims(ctx context.Context, ids []string, owner string, ttl time.Duration) error {
	h.renewals.Add(1)
	if !h.armed.CompareAndSwap(true, false) {
		return h.Store.(store.ClaimRenewer).RenewClaims(ctx, ids, owner, ttl)
	}
	close(h.waiting)
	<-h.held
	err := h.Store.(store.ClaimRenewer).RenewClaims(ctx, ids, owner, ttl)
	if h.renewed != nil {
		close(h.renewed)
	}
	return err
}

func (h *heldRenewals) Release(ctx context.Context, id, owner string) error {
	err := h.Store.Release(ctx, id, owner)
	if h.renewed != nil {
		select {
		case <-h.renewed:
		case <-ctx.Done():
		}
	}
	return err
}

// TestEvictedWhileItsClaimIsRenewed: evict lets a session go (its socket went) while the
// replica's claim renewal, which listed it as live, is on its way to the store. The renewal
// takes the claim again after evict released it; the replica then releases it once more, so
// the session's next replica does not wait for the claim to lapse (the page fuzzer on
// redis-server: a resume on the other replica answered after 10 s).
//
// And when the renewal writes between evict's release and the end of that release (Renewed
// then comes while the session is still Releasing): the renewal waits for that release to
// end, then releases again.
func TestEvictedWhileItsClaimIsRenewed(t *testing.T) {
	for _, midRelease := range []bool{false, true} {
		t.Run(fmt.Sprintf("during the release %v", midRelease), func(t *testing.T) {
			st := &heldRenewals{Store: store.NewMemory(), held: make(chan struct{}), waiting: make(chan struct{})}
			if midRelease {
				st.renewed = make(chan struct{})
			}
			ts := newQuietServer(t, echoUserText(), func(c *Config) { c.Store, c.OwnerID, c.ClaimTTL = st, "replica-a", 1500*time.Millisecond })
			p, ls, _ := chattedOnce(t, ts)
			p.eventsUntil(wire.EventTurnEnd)
			st.armed.Store(true)
			<-st.waiting // the renewal listed the session as live
			dropSocket(p, true)
			waitFor(t, "the session to be let go", func() bool { return isEvicted(ls) })
			close(st.held)
			n := st.renewals.Load()
			waitFor(t, "the next renewal (the one held has ended)", func() bool { return st.renewals.Load() > n })
			if ok, holder, err := st.Claim(context.Background(), ls.id, "replica-b", time.Minute); err != nil || !ok {
				t.Fatalf("another replica's claim after the session was let go: ok=%v holder=%q err=%v; want it free", ok, holder, err)
			}
		})
	}
}

// TestResumeAsItsTurnEndsGetsTheTurnsLastEvents: a socket asks agent/session again for its
// own session while a turn runs (a page that lost track of where it was). From the answer
// until attach the socket is detached; the turn's last events are stored meanwhile, unsent,
// and the turn's end cools the session, which drops its tail. attach, before the turn's end
// lets the session go, found the events in neither the tail nor what the resume had read, and
// the page missed the turn's end for good ("seq 11 came after seq 8", found by the page
// fuzzer). attach now reads them from the store; when the store does not answer, the page is
// sent back to resume (4000) rather than attached over the gap.
func TestResumeAsItsTurnEndsGetsTheTurnsLastEvents(t *testing.T) {
	for _, storeDown := range []bool{false, true} {
		t.Run(fmt.Sprintf("store down %v", storeDown), func(t *testing.T) {
			flaky := &flakyStore{Store: store.NewMemory()}
			gate, model := modelAfterFirst("the second answer")
			ts := newQuietServer(t, model, func(c *Config) { c.Store = flaky })
			p, ls, c := chattedOnce(t, ts)
			first := p.eventsUntil(wire.EventTurnEnd)

			// Started as agent/chat starts it, without the answer that would let the turn's
			// end evict the session.
			rt, err := startTurnIn(ts.Server, ls, c, "second")
			if err != nil {
				t.Fatal(err)
			}
			if e := p.nextEvent(); e.Type != wire.EventTurnStart || e.Seq != lastSeqOf(first)+1 {
				t.Fatalf("got %+v, want the second turn's turn_start", e)
			}
			// What agent/session does for the socket's own session: the answer's seq, then
			// detached.
			from := detachForResume(ls)

			close(gate) // the turn ends, its last events stored while no socket is attached
			<-rt.done   // and the session cooled
			cold, evicted := coldAndEvicted(ls)
			if !cold || evicted {
				t.Fatalf("after the turn: cold %v, evicted %v; want cold, still live", cold, evicted)
			}
			flaky.eventsDown.Store(storeDown)
			ls.attach(c, from, nil)

			if storeDown {
				p.waitSentBack()
				return
			}
			got := p.eventsUntil(wire.EventTurnEnd)
			// A replay merges a run of text_delta into one event with the run's last seq
			// (coalesceDeltas): what shows that none was lost is the text they carry.
			var streamed string
			for _, e := range got {
				if e.Type == wire.EventTextDelta {
					streamed += e.Delta
				}
			}
			if got[0].Seq <= from || got[len(got)-1].Text != "the second answer" || streamed != "the second answer" {
				t.Fatalf("after attach the page got %+v (text %q), want the events after seq %d up to the turn's end", got, streamed, from)
			}
			if live := ls.persistedSeq(); lastSeqOf(got) != live {
				t.Errorf("the page is at seq %d, the session at %d", lastSeqOf(got), live)
			}
		})
	}
}

// TestResumeTakenBackFromEvictLeavesItsHistoryToTheStore: a socket's agent/session was
// answered, and before attach another replica asked for the session and evict let it go.
// attach takes it back and reads the store again for the page (resync); once that read is
// done the idle tab holds no copy of the history again. Before, the read kept its messages
// and events in memory for as long as the tab stayed open (seen once as a CI failure of
// TestIdleSessionLeavesItsHistoryToTheStore).
func TestResumeTakenBackFromEvictLeavesItsHistoryToTheStore(t *testing.T) {
	ts := newQuietServer(t, echoUserText(), nil)
	p, ls, c := chattedOnce(t, ts)
	p.eventsUntil(wire.EventTurnEnd)
	from := detachForResume(ls) // the agent/session answer went out
	if got := yieldSession(ts.Server, ls.id); got.Status != stReleased {
		t.Fatalf("another replica's yield: status %v, want the session released", got.Status)
	}
	ls.attach(c, from, nil) // takes it back, and reads the store for the page
	// The read runs on its own (a goroutine): wait for its end, then for the cooling after it.
	waitFor(t, "the store's state to be read back", func() bool {
		ls.mu.Lock()
		defer ls.mu.Unlock()
		return ls.st.Stale != session.TakenBack && !ls.st.Reading
	})
	waitFor(t, "the idle session to hold no history in memory", func() bool {
		ok, cold, msgs, tail := liveState(ts, ls.id)
		return ok && cold && msgs == 0 && tail == 0
	})
	// The page still gets the next turn, and the history comes from the store.
	if _, err := p.chat("second"); err != nil {
		t.Fatal(err)
	}
	if got := p.eventsUntil(wire.EventTurnEnd); got[len(got)-1].Type != wire.EventTurnEnd {
		t.Fatalf("the next turn's events: %+v", got)
	}
}
