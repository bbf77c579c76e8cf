package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/chat"
)

// openSQLiteForTest opens a fresh SQLite store in the test's directory.
func openSQLiteForTest(t *testing.T) *sqliteStore {
	t.Helper()
	st, err := OpenSQLite(context.Background(), filepath.Join(t.TempDir(), "group.db"))
	if err != nil {
		t.Fatalf("OpenSQLite: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st.(*sqliteStore)
}

// event is the batch of one event seq (and one message) for session n.
func event(n int, seq int64) Batch {
	return Batch{
		Events:   []Event{{Seq: seq, Data: []byte(fmt.Sprintf(`{"seq":%d,"session":%d}`, seq, n))}},
		Messages: []chat.Message{{Role: chat.RoleUser, Content: fmt.Sprintf("message %d of %d", seq, n)}},
	}
}

// queued reports how many appends wait for a group.
func (g *groupCommitter) queued() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.queue)
}

// The appends queued while the write connection is busy are written in one transaction,
// and each one's result is its own: a seq conflict, an unknown session, a batch whose write
// fails (an event already there), an append whose caller gave up while it was queued. The
// others are committed.
func TestSQLiteGroupCommit(t *testing.T) {
	ctx := context.Background()
	s := openSQLiteForTest(t)
	const n = 40
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("s%02d", i)
		if err := s.Create(ctx, &Session{ID: ids[i], Origin: "https://shop.example"}); err != nil {
			t.Fatalf("Create: %v", err)
		}
	}
	// Session 7 already holds event 1 in the events table (written behind the store's
	// back), so inserting it fails on the primary key although its seq check passes.
	if _, err := s.w.Exec(`INSERT INTO events (session_id, seq, data) VALUES ('s07', 1, '{}')`); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var groups []int // appends queued when each group was taken
	release := make(chan struct{})
	first := true
	s.commits.linger = 0            // the goroutine ends as it finds the queue empty (TestCommitGoroutineLingers)
	s.commits.beforeHook = func() { // in the commit goroutine
		if first {
			first = false
			<-release
		}
		mu.Lock()
		groups = append(groups, s.commits.queued())
		mu.Unlock()
	}

	abandonCtx, abandon := context.WithCancel(ctx)
	errs := make([]error, n+2)
	abandoned := make(chan struct{})
	go func() { // given up while queued
		defer close(abandoned)
		errs[n+1] = s.Append(abandonCtx, ids[3], event(3, 2))
	}()
	var wg sync.WaitGroup
	for i := range n + 1 {
		wg.Go(func() {
			switch {
			case i == n: // an unknown session
				errs[i] = s.Append(ctx, "missing", event(i, 1))
			case i == 5: // a seq that does not follow the session's
				errs[i] = s.Append(ctx, ids[i], event(i, 2))
			default:
				errs[i] = s.Append(ctx, ids[i], event(i, 1))
			}
		})
	}
	for s.commits.queued() < n+2 {
		runtime.Gosched()
	}
	abandon()
	<-abandoned // it stays queued until a group skips it
	close(release)
	wg.Wait()
	for { // the commit goroutine ends once it finds the queue empty
		s.commits.mu.Lock()
		running := s.commits.committing
		s.commits.mu.Unlock()
		if !running {
			break
		}
		runtime.Gosched()
	}

	mu.Lock()
	defer mu.Unlock()
	if len(groups) != 2 || groups[0] != n+2 || groups[1] != 0 {
		t.Errorf("appends queued at each group: got %v, want [%d 0] (one group for all)", groups, n+2)
	}
	for i, err := range errs {
		var want error
		switch i {
		case n:
			want = ErrNotFound
		case n + 1:
			want = context.Canceled
		case 5:
			want = ErrSeqConflict
		}
		switch {
		case i == 7:
			if err == nil || errors.Is(err, ErrSeqConflict) || errors.Is(err, ErrNotFound) {
				t.Errorf("append %d (its event already stored): got %v, want a write error", i, err)
			}
		case want == nil && err != nil, want != nil && !errors.Is(err, want):
			t.Errorf("append %d: got %v, want %v", i, err, want)
		}
	}
	for i, id := range ids {
		sess, err := s.Load(ctx, id)
		if err != nil {
			t.Fatalf("Load %s: %v", id, err)
		}
		wantSeq, wantMsgs := int64(1), 1
		if i == 5 || i == 7 {
			wantSeq, wantMsgs = 0, 0
		}
		if sess.Seq != wantSeq || len(sess.Messages) != wantMsgs {
			t.Errorf("session %s: got seq %d and %d messages, want %d and %d", id, sess.Seq, len(sess.Messages), wantSeq, wantMsgs)
		}
	}
	if evs, err := s.EventsAfter(ctx, ids[3], 1, 0); err != nil || len(evs) != 0 {
		t.Errorf("the abandoned append's event: got %v, %v; want none written", evs, err)
	}
}

// Appends from many goroutines, some cancelled at random, under -race: every append that
// returned nil is stored, in order, and none that returned an error is.
func TestSQLiteGroupCommitConcurrent(t *testing.T) {
	ctx := context.Background()
	s := openSQLiteForTest(t)
	const sessions, perSession = 16, 25
	var wg sync.WaitGroup
	stored := make([][]int64, sessions) // seqs acknowledged per session
	for n := range sessions {
		id := fmt.Sprintf("c%02d", n)
		if err := s.Create(ctx, &Session{ID: id, Origin: "https://shop.example"}); err != nil {
			t.Fatalf("Create: %v", err)
		}
		wg.Go(func() {
			seq := int64(1)
			for range perSession {
				actx, cancel := context.WithCancel(ctx)
				if rand.IntN(4) == 0 {
					go cancel()
				}
				err := s.Append(actx, id, event(n, seq))
				cancel()
				switch {
				case err == nil:
					stored[n] = append(stored[n], seq)
					seq++
				case errors.Is(err, context.Canceled):
				default:
					t.Errorf("append to %s: %v", id, err)
					return
				}
			}
		})
	}
	wg.Wait()
	for n := range sessions {
		id := fmt.Sprintf("c%02d", n)
		evs, err := s.EventsAfter(ctx, id, 0, 0)
		if err != nil {
			t.Fatalf("EventsAfter: %v", err)
		}
		if len(evs) != len(stored[n]) {
			t.Fatalf("session %s: got %d events, want the %d acknowledged", id, len(evs), len(stored[n]))
		}
		for i, ev := range evs {
			if ev.Seq != stored[n][i] {
				t.Errorf("session %s event %d: got seq %d, want %d", id, i, ev.Seq, stored[n][i])
			}
		}
		sess, err := s.Load(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(sess.Messages) != len(stored[n]) {
			t.Errorf("session %s: got %d messages, want %d", id, len(sess.Messages), len(stored[n]))
		}
	}
}

// BenchmarkSQLiteAppendConcurrent appends from 256 goroutines at once, each to a session of
// its own, in batches of 3 realistic events (streamed text deltas of ~110 bytes), as a
// turn's flusher does under 256 tabs turning at once.
func BenchmarkSQLiteAppendConcurrent(b *testing.B) {
	ctx := context.Background()
	st, err := OpenSQLite(ctx, filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	var next sync.Mutex
	n := 0
	delta := `{"type":"text.delta","turnId":"t-0123456789","delta":"The 2023 Kia Sportage LX in Gravity Gray has 18,400 miles and "}`
	b.SetParallelism(128) // × GOMAXPROCS goroutines
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		next.Lock()
		n++
		id := fmt.Sprintf("bench-%04d", n)
		next.Unlock()
		if err := st.Create(ctx, &Session{ID: id, Origin: "https://shop.example"}); err != nil {
			b.Error(err)
			return
		}
		seq := int64(0)
		for pb.Next() {
			batch := Batch{Events: make([]Event, 3)}
			for i := range batch.Events {
				seq++
				batch.Events[i] = Event{Seq: seq, Data: []byte(delta)}
			}
			if err := st.Append(ctx, id, batch); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// The read connections keep a small page cache (SQLite's default is 2 MB each, outside Go's
// heap: ~7 MB of an idle agent's memory with four readers), and the writer writerCacheKiB.
func TestSQLiteReaderCache(t *testing.T) {
	s := openSQLiteForTest(t)
	var got int
	if err := s.r.QueryRow("PRAGMA cache_size").Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != -readerCacheKiB {
		t.Errorf("reader cache_size: got %d, want %d (KiB)", got, -readerCacheKiB)
	}
	if err := s.w.QueryRow("PRAGMA cache_size").Scan(&got); err != nil {
		t.Fatal(err)
	}
	if got != -writerCacheKiB {
		t.Errorf("writer cache_size: got %d, want %d (KiB)", got, -writerCacheKiB)
	}
}

// A batch of more events than one insert statement writes (a long streamed answer) is
// written whole and in order, in statements of up to maxEventRows rows.
func TestSQLiteAppendManyEvents(t *testing.T) {
	ctx := context.Background()
	s := openSQLiteForTest(t)
	if err := s.Create(ctx, &Session{ID: "long", Origin: "https://shop.example"}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 2, maxEventRows, maxEventRows + 1, 3*maxEventRows + 5} {
		sess, err := s.Load(ctx, "long")
		if err != nil {
			t.Fatal(err)
		}
		var b Batch
		for i := range n {
			seq := sess.Seq + int64(i) + 1
			b.Events = append(b.Events, Event{Seq: seq, Data: []byte(fmt.Sprintf(`{"seq":%d}`, seq))})
		}
		if err := s.Append(ctx, "long", b); err != nil {
			t.Fatalf("append of %d events: %v", n, err)
		}
		evs, err := s.EventsAfter(ctx, "long", sess.Seq, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != n {
			t.Fatalf("append of %d events: got %d back", n, len(evs))
		}
		for i, ev := range evs {
			if want := fmt.Sprintf(`{"seq":%d}`, sess.Seq+int64(i)+1); ev.Seq != sess.Seq+int64(i)+1 || string(ev.Data) != want {
				t.Errorf("append of %d, event %d: got %d %s, want %s", n, i, ev.Seq, ev.Data, want)
			}
		}
	}
}

// Load reads a session's row and its messages in one statement, with no transaction around
// it: they must still come from one snapshot while appends commit. Every append here adds
// one event and one message, so a loaded session has as many messages as its seq.
func TestSQLiteLoadIsOneSnapshot(t *testing.T) {
	ctx := context.Background()
	s := openSQLiteForTest(t)
	if err := s.Create(ctx, &Session{ID: "snap", Origin: "https://shop.example"}); err != nil {
		t.Fatal(err)
	}
	const appends = 300
	done := make(chan struct{})
	go func() {
		defer close(done)
		for seq := int64(1); seq <= appends; seq++ {
			if err := s.Append(ctx, "snap", event(0, seq)); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	loads := 0
	for running := true; running; loads++ {
		select {
		case <-done:
			running = false
		default:
		}
		sess, err := s.Load(ctx, "snap")
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(sess.Messages)) != sess.Seq {
			t.Fatalf("load %d: seq %d with %d messages: not one snapshot", loads, sess.Seq, len(sess.Messages))
		}
		for i, m := range sess.Messages {
			if want := fmt.Sprintf("message %d of 0", i+1); m.Content != want {
				t.Fatalf("load %d: message %d is %q, want %q (in order)", loads, i, m.Content, want)
			}
		}
	}
	if _, err := s.Load(ctx, "missing"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Load of a missing session: got %v, want ErrNotFound", err)
	}
	t.Logf("%d loads while %d appends committed", loads, appends)
}

// TestCommitGoroutineLingers: the commit goroutine serves the appends that come within its
// linger (rather than a new goroutine growing its stack again for each group), ends once none
// came for that long, and ends at once when the store closes.
func TestCommitGoroutineLingers(t *testing.T) {
	ctx := context.Background()
	s := openSQLiteForTest(t)
	s.commits.linger = 2 * time.Second
	if err := s.Create(ctx, &Session{ID: "s1", Origin: "https://a.example"}); err != nil {
		t.Fatal(err)
	}
	state := func() (running bool, started int) {
		s.commits.mu.Lock()
		defer s.commits.mu.Unlock()
		return s.commits.committing, s.commits.started
	}
	for seq := int64(1); seq <= 5; seq++ {
		if err := s.Append(ctx, "s1", event(1, seq)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond) // the queue is empty in between
	}
	if running, started := state(); !running || started != 1 {
		t.Fatalf("after five appends 20 ms apart: goroutine running %v, %d started; want one, still running", running, started)
	}
	deadline := time.Now().Add(10 * time.Second)
	for running, _ := state(); running; running, _ = state() {
		if time.Now().After(deadline) {
			t.Fatal("the commit goroutine still runs 10 s after the last append")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := s.Append(ctx, "s1", event(1, 6)); err != nil {
		t.Fatal(err)
	}
	if _, started := state(); started != 2 {
		t.Errorf("an append after the goroutine ended: %d started, want a second one", started)
	}

	s.commits.mu.Lock()
	s.commits.linger = time.Hour // Close must not wait for it
	s.commits.mu.Unlock()
	if err := s.Append(ctx, "s1", event(1, 7)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(10 * time.Second)
	for running, _ := state(); running; running, _ = state() {
		if time.Now().After(deadline) {
			t.Fatal("a lingering commit goroutine outlived Close by 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
