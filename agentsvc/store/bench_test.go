package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/store/storetest"
)

// The resume fixture: a session of 5 turns, 20 messages and 200 events in all.
const (
	resumeTurns    = 5
	eventsPerTurn  = 40
	resumeID       = "resume-bench"
	resumeBackward = 5 // a reconnecting page missed the last 5 events
)

// fillResume writes the resume fixture to s as the agent would, one batch per step of each
// turn, and returns the last seq.
func fillResume(tb testing.TB, s store.Store) int64 {
	tb.Helper()
	ctx := context.Background()
	if err := s.Create(ctx, &store.Session{ID: resumeID, Origin: "https://shop.example",
		Page: store.Page{URL: "https://shop.example/cars", Title: "Cars"}}); err != nil {
		tb.Fatalf("Create: %v", err)
	}
	seq := int64(0)
	next := func(tid, typ, body string) store.Event {
		seq++
		return store.Event{Seq: seq, Data: []byte(fmt.Sprintf(`{"seq":%d,"turnId":%q,"type":%q,%s}`, seq, tid, typ, body))}
	}
	for turn := range resumeTurns {
		tid := fmt.Sprintf("turn-%d", turn)
		call := chat.ToolCall{ID: "call_" + tid, Name: "filter_cars", Arguments: `{"color":"red","maxPrice":20000,"body":"hatchback"}`,
			Extra: map[string]json.RawMessage{"extra_content": json.RawMessage(`{"google":{"thought_signature":"c2lnbmF0dXJlLW9mLXRoZS1tb2RlbA=="}}`)}}
		steps := []store.Batch{
			{Messages: []chat.Message{{Role: chat.RoleUser, Content: "Show me red hatchbacks under 20k, please.", TurnID: tid}}, ActiveTurn: &tid},
			{Messages: []chat.Message{{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{call}, TurnID: tid}}},
			{Messages: []chat.Message{{Role: chat.RoleTool, ToolCallID: call.ID, Name: call.Name, Content: `[{"id":7,"model":"Fiat 500","price":15900},{"id":9,"model":"Mini Cooper","price":19500}]`, TurnID: tid}}},
			{Messages: []chat.Message{{Role: chat.RoleAssistant, Content: "I found two red hatchbacks under 20k: the Fiat 500 at 15,900 and the Mini Cooper at 19,500.", TurnID: tid}}, ActiveTurn: new(string)},
		}
		// 40 events: a tool call and its result, 37 text deltas, the end of the turn.
		steps[1].Events = []store.Event{next(tid, "tool_call", `"callId":"call_1","name":"filter_cars","arguments":"{\"color\":\"red\"}"`)}
		steps[2].Events = []store.Event{next(tid, "tool_result", `"callId":"call_1","name":"filter_cars","isError":false,"text":"[{\"id\":7,\"model\":\"Fiat 500\"}]"`)}
		for range eventsPerTurn - 3 {
			steps[3].Events = append(steps[3].Events, next(tid, "text_delta", `"delta":"the Fiat 500 at "`))
		}
		steps[3].Events = append(steps[3].Events, next(tid, "turn_end", `"stopReason":"end","text":"I found two red hatchbacks."`))
		for _, b := range steps {
			if err := s.Append(ctx, resumeID, b); err != nil {
				tb.Fatalf("Append: %v", err)
			}
		}
	}
	return seq
}

// resume is what a reconnecting page costs the store: the session with its messages, and
// the events the page missed.
func resume(ctx context.Context, s store.Store, lastSeq int64) error {
	sess, err := s.Load(ctx, resumeID)
	if err != nil {
		return err
	}
	evs, err := s.EventsAfter(ctx, resumeID, lastSeq-resumeBackward, 0)
	if err != nil {
		return err
	}
	if len(sess.Messages) != 4*resumeTurns || len(evs) != resumeBackward {
		return fmt.Errorf("got %d messages and %d events, want %d and %d", len(sess.Messages), len(evs), 4*resumeTurns, resumeBackward)
	}
	return nil
}

// resumeStores are the stores the resume cost is measured on.
var resumeStores = []struct {
	name string
	open func(tb testing.TB) store.Store
}{
	{"memory", func(tb testing.TB) store.Store { return store.NewMemory() }},
	{"sqlite", func(tb testing.TB) store.Store {
		s, err := store.OpenSQLite(context.Background(), filepath.Join(tb.TempDir(), "byomcp.db"))
		if err != nil {
			tb.Fatalf("OpenSQLite: %v", err)
		}
		tb.Cleanup(func() { s.Close() })
		return s
	}},
	{"redis", func(tb testing.TB) store.Store { return openRedis(tb, storetest.RedisServer(tb), store.RedisOptions{}) }},
}

func benchmarkResume(b *testing.B, name string) {
	for _, st := range resumeStores {
		if st.name != name {
			continue
		}
		s := st.open(b)
		last := fillResume(b, s)
		ctx := context.Background()
		for b.Loop() {
			if err := resume(ctx, s, last); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkResumeMemory(b *testing.B) { benchmarkResume(b, "memory") }
func BenchmarkResumeSQLite(b *testing.B) { benchmarkResume(b, "sqlite") }
func BenchmarkResumeRedis(b *testing.B)  { benchmarkResume(b, "redis") }

// TestResumeLatencyReport logs the p50 and p99 of 1,000 resumes per store. It is a report,
// not a check: it runs only with BYOMCP_RESUME_REPORT=1.
func TestResumeLatencyReport(t *testing.T) {
	if os.Getenv("BYOMCP_RESUME_REPORT") != "1" {
		t.Skip("a latency report, not a test: set BYOMCP_RESUME_REPORT=1 to run it")
	}
	const runs, warmup = 1000, 50
	for _, st := range resumeStores {
		t.Run(st.name, func(t *testing.T) {
			s := st.open(t)
			last := fillResume(t, s)
			ctx := t.Context()
			took := make([]time.Duration, 0, runs)
			for i := range warmup + runs {
				start := time.Now()
				if err := resume(ctx, s, last); err != nil {
					t.Fatal(err)
				}
				if i >= warmup {
					took = append(took, time.Since(start))
				}
			}
			slices.Sort(took)
			t.Logf("%s: %d resumes (Load of 20 messages + EventsAfter of the last 5 of 200 events): p50 %v, p99 %v, max %v",
				st.name, runs, took[runs*50/100-1], took[runs*99/100-1], took[runs-1])
		})
	}
}
