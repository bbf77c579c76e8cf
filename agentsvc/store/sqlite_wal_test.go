package store

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/chat"
)

// walFileSize is the size of the store's write-ahead log file (0 when there is none).
func walFileSize(t testing.TB, s *sqliteStore) int64 {
	t.Helper()
	fi, err := os.Stat(s.path + "-wal")
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// oneTurn writes and reads what one conversation of one turn costs the store, the way the
// agent does: a claimed creation, the user's message, a tool call and its result, streamed
// text deltas, the answer, the claim released; and a page that reads it back (a reload that
// resumes it).
func oneTurn(ctx context.Context, s Store, id string) error {
	if err := s.CreateClaimed(ctx, &Session{ID: id, Origin: "https://shop.example",
		Page: Page{URL: "https://shop.example/cars", Title: "Cars"}}, "owner", time.Minute); err != nil {
		return fmt.Errorf("CreateClaimed: %w", err)
	}
	tid := "turn-" + id
	seq := int64(0)
	next := func(typ, body string) Event {
		seq++
		return Event{Seq: seq, Data: fmt.Appendf(nil, `{"sessionId":%q,"seq":%d,"turnId":%q,"type":%q,%s}`, id, seq, tid, typ, body)}
	}
	delta, _ := json.Marshal(strings.Repeat("the Fiat 500 at 15,900 ", 4))
	steps := []Batch{
		{Messages: []chat.Message{{Role: chat.RoleUser, Content: "Show me red hatchbacks under 20k, please.", TurnID: tid}}, ActiveTurn: &tid},
		{Messages: []chat.Message{{Role: chat.RoleAssistant, TurnID: tid, ToolCalls: []chat.ToolCall{{ID: "call_1", Name: "filter_cars", Arguments: `{"color":"red","maxPrice":20000}`}}}},
			Events: []Event{next("tool_call", `"callId":"call_1","name":"filter_cars","arguments":"{\"color\":\"red\"}"`)}},
		{Messages: []chat.Message{{Role: chat.RoleTool, ToolCallID: "call_1", Name: "filter_cars", TurnID: tid,
			Content: `[{"id":7,"model":"Fiat 500","price":15900},{"id":9,"model":"Mini Cooper","price":19500}]`}},
			Events: []Event{next("tool_result", `"callId":"call_1","name":"filter_cars","isError":false,"text":"[{\"id\":7}]"`)}},
		{},
		{Messages: []chat.Message{{Role: chat.RoleAssistant, Content: "I found two red hatchbacks under 20k.", TurnID: tid}}, ActiveTurn: new(string)},
	}
	for range 8 {
		steps[3].Events = append(steps[3].Events, next("text_delta", `"delta":`+string(delta)))
	}
	steps[4].Events = []Event{next("turn_end", `"stopReason":"end","text":"I found two red hatchbacks under 20k."`)}
	for _, b := range steps {
		if err := s.Append(ctx, id, b); err != nil {
			return fmt.Errorf("Append: %w", err)
		}
	}
	if err := s.Release(ctx, id, "owner"); err != nil {
		return fmt.Errorf("Release: %w", err)
	}
	if _, err := s.Load(ctx, id); err != nil {
		return fmt.Errorf("Load: %w", err)
	}
	if _, err := s.EventsAfter(ctx, id, 0, 0); err != nil {
		return fmt.Errorf("EventsAfter: %w", err)
	}
	return nil
}

// walLoad runs conversations of one turn from writers goroutines, while readers goroutines
// read sessions back without a pause (resumes, the console's list), until n conversations
// are done; it reports the largest log file seen.
func walLoad(t testing.TB, s *sqliteStore, n, writers, readers int) (largest int64) {
	t.Helper()
	ctx := context.Background()
	var started, done atomic.Int64
	var peak atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, writers+readers)
	for w := range writers {
		wg.Go(func() {
			for {
				i := started.Add(1)
				if i > int64(n) {
					return
				}
				if err := oneTurn(ctx, s, fmt.Sprintf("w%d-%d", w, i)); err != nil {
					errs <- err
					return
				}
				done.Add(1)
			}
		})
	}
	var rg sync.WaitGroup
	for r := range readers {
		rg.Go(func() {
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				default:
				}
				d := done.Load()
				if d == 0 {
					if _, err := s.List(ctx, ListOptions{Limit: 20}); err != nil {
						errs <- err
						return
					}
					continue
				}
				// Some conversation already written, picked across the whole run.
				list, err := s.List(ctx, ListOptions{Limit: 10})
				if err != nil {
					errs <- err
					return
				}
				for _, sess := range list {
					if _, err := s.Load(ctx, sess.ID); err != nil {
						errs <- fmt.Errorf("reader %d: Load: %w", r, err)
						return
					}
					if _, err := s.EventsAfter(ctx, sess.ID, int64(k%5), 0); err != nil {
						errs <- fmt.Errorf("reader %d: EventsAfter: %w", r, err)
						return
					}
				}
			}
		})
	}
	sample := make(chan struct{})
	go func() {
		defer close(sample)
		tk := time.NewTicker(20 * time.Millisecond)
		defer tk.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tk.C:
				if fi, err := os.Stat(s.path + "-wal"); err == nil && fi.Size() > peak.Load() {
					peak.Store(fi.Size())
				}
			}
		}
	}()
	wg.Wait()
	close(stop)
	rg.Wait()
	<-sample
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := done.Load(); got != int64(n) {
		t.Fatalf("%d conversations done, want %d", got, n)
	}
	return max(peak.Load(), walFileSize(t, s))
}

// TestSQLiteWALBounded: under continuous appends and reads the write-ahead log file is
// emptied once it passes walLimit, and once writes pause it comes back under walLimit.
// Without the bound, 600 conversations of one turn grew it to ~60 MiB against a ~2 MiB
// database (the PASSIVE checkpoints never complete while commits keep coming), and it
// stayed so.
//
// BYOMCP_WAL_CONVERSATIONS=10000 runs the load of the report (10,019 conversations) instead.
func TestSQLiteWALBounded(t *testing.T) {
	n := 600
	if v := os.Getenv("BYOMCP_WAL_CONVERSATIONS"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 1 {
			t.Fatalf("BYOMCP_WAL_CONVERSATIONS=%q: want a whole number above 0", v)
		}
	}
	s := openSQLiteForTest(t)
	peak := walLoad(t, s, n, 16, 2)
	s.ck.mu.Lock()
	underLoad := s.ck.truncates
	s.ck.mu.Unlock()
	db, err := os.Stat(s.path)
	if err != nil {
		t.Fatal(err)
	}
	// The peak depends on how fast the machine writes (walLimit plus what checkpointEvery
	// of writes adds): logged, not asserted.
	t.Logf("%d conversations: log file at most %d KiB under load, emptied %d times; database %d KiB", n, peak>>10, underLoad, db.Size()>>10)
	// The checkpointer looks every checkpointEvery, so a load that ends just after the file
	// passed walLimit may end before it is emptied (16,604 KiB, emptied 0 times, in one CI run):
	// only a file well past the bound and never emptied is the unbounded log (~60 MiB).
	if peak > walLimit+walLimit/2 && underLoad == 0 {
		t.Errorf("the log file passed walLimit (%d KiB) by half under load and was never emptied meanwhile", peak>>10)
	}
	// The quiet period: no writes, no reads; the log comes back under the bound.
	size := walFileSize(t, s)
	for deadline := time.Now().Add(30 * time.Second); size > walLimit && time.Now().Before(deadline); size = walFileSize(t, s) {
		time.Sleep(50 * time.Millisecond)
	}
	if size > walLimit {
		t.Errorf("the log file holds %d KiB 30 s after the writes stopped, want at most %d KiB", size>>10, walLimit>>10)
	}
	// Nothing was lost on the way: 11 events a conversation.
	var events int64
	if err := s.r.QueryRowContext(context.Background(), `SELECT count(*) FROM events`).Scan(&events); err != nil || events != int64(n)*11 {
		t.Errorf("events stored: %d, %v; want %d", events, err, n*11)
	}
}
