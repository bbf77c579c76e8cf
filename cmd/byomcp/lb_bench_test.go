package main

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// Measurements of several replicas behind HAProxy (lb_harness_test.go). Run them with
//
//	go test -run '^$' -bench 'Routed|Throughput' -benchtime 400x ./cmd/byomcp

// percentile returns the q-quantile (0..1) of ds, which it sorts.
func percentile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	i := int(q * float64(len(ds)-1))
	return ds[i]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// callsPerTurn is the page tool calls of one benchmark turn, one after the other (the model
// makes at most 10 calls a turn: 8 tool steps and the answer).
const callsPerTurn = 8

// BenchmarkRoutedToolCall measures a page tool call of a turn that runs on replica A when the
// page's socket is on A (local) and when it is on B (routed through Redis): the gap the page
// sees between two tools/call of the turn is the agent's round trip of a result and the next
// call, plus one model call to the fake model; routed minus local is what the routing adds to
// one tools/call round trip. The agent's own byomcp_tool_call_seconds on A gives the mean.
// An op is one tool call.
func BenchmarkRoutedToolCall(b *testing.B) {
	gate := make(chan struct{})
	fake := llmtest.New(llmtest.NoRecording(), llmtest.WithResponder(func(req llmtest.RecordedRequest) llmtest.Step {
		if req.LastMessage().Role == "user" {
			select { // each turn's first model call waits until the page is where the benchmark wants it
			case <-gate:
			case <-time.After(procWait):
			}
		}
		calls := 0
		for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role != "user"; i-- {
			if req.Messages[i].Role == "tool" {
				calls++
			}
		}
		if calls < callsPerTurn {
			return llmtest.Step{ToolCalls: []llmtest.FakeCall{{Name: "read_cart", Args: `{}`}}}
		}
		return llmtest.Step{Text: "Your cart has 3 items."}
	}))
	b.Cleanup(fake.Close)
	c := startCluster(b, fake.URL, lbOptions{replicas: 2})
	a, other := c.replicas[0], c.replicas[1]

	for _, routed := range []bool{false, true} {
		name := "local"
		if routed {
			name = "routed"
		}
		b.Run(name, func(b *testing.B) {
			var mu sync.Mutex
			var arrivals []time.Time
			tool := lbTool{name: "read_cart", call: func(context.Context) map[string]any {
				mu.Lock()
				arrivals = append(arrivals, time.Now())
				mu.Unlock()
				return textResult(`{"items":[{"sku":"LAMP-1","qty":1},{"sku":"SHADE-2","qty":2}],"total":"129.00 EUR"}`)
			}}
			log := newEventLog()
			var sessionID string
			var gaps []time.Duration
			missed := 0
			sum0, n0 := a.metric(b, "byomcp_tool_call_seconds_sum"), a.metric(b, "byomcp_tool_call_seconds_count")
			b.ResetTimer()
			for len(gaps) < b.N {
				b.StopTimer()
				// The turn starts on A: its page is there when it asks.
				page, err := dialVia(b, a.url(), log.add, tool)
				if err != nil {
					b.Fatal(err)
				}
				params := wire.SessionParams{SessionID: sessionID}
				if sessionID != "" {
					last := log.lastSeq()
					params.LastSeq = &last
				}
				res := mustSession(b, page, params)
				sessionID = res.SessionID
				before := log.lastSeq()
				chatAsync(page, fmt.Sprintf("what is in my cart (%d)?", len(gaps)))
				if !log.waitFor(func(evs []lbEvent) bool { return lastSeen2(evs) > before }, nil) {
					b.Fatal("no turn_start")
				}
				if routed { // the tab moves to B while the turn runs on A
					page.close()
					page, err = dialVia(b, other.url(), log.add, tool)
					if err != nil {
						b.Fatal(err)
					}
					last := log.lastSeq()
					if r := mustSession(b, page, wire.SessionParams{SessionID: sessionID, LastSeq: &last}); r.Forked || r.SessionID != sessionID {
						b.Fatalf("the page on B got %+v, want the session resumed", r)
					}
				}
				mu.Lock()
				arrivals = arrivals[:0]
				mu.Unlock()
				b.StartTimer()
				gate <- struct{}{}
				ok := log.waitFor(func(evs []lbEvent) bool {
					for _, e := range evs {
						if e.Type == wire.EventTurnEnd && e.Seq > before {
							return true
						}
					}
					return false
				}, nil)
				b.StopTimer()
				if !ok {
					b.Fatal("the turn did not end")
				}
				mu.Lock()
				if len(arrivals) != callsPerTurn {
					// A call that never reached the page: counted and shown, not measured.
					missed += callsPerTurn - len(arrivals)
					for _, e := range log.all() {
						if e.Seq > before && e.Type == wire.EventToolResult && e.IsError {
							b.Logf("a tool call failed instead of reaching the page on %s: %s", page.replica, e.Text)
						}
					}
				}
				for i := 1; i < len(arrivals); i++ {
					gaps = append(gaps, arrivals[i].Sub(arrivals[i-1]))
				}
				mu.Unlock()
				page.close()
				b.StartTimer()
			}
			b.StopTimer()
			sum, n := a.metric(b, "byomcp_tool_call_seconds_sum")-sum0, a.metric(b, "byomcp_tool_call_seconds_count")-n0
			b.ReportMetric(float64(missed), "missed-calls")
			b.ReportMetric(ms(percentile(gaps, 0.5)), "gap-p50-ms")
			b.ReportMetric(ms(percentile(gaps, 0.99)), "gap-p99-ms")
			if n > 0 {
				b.ReportMetric(sum/n*1000, "agent-call-mean-ms")
			}
		})
	}
}

// BenchmarkTurnThroughput measures whole turns (a model call that calls a page tool, the
// tool call, a streamed answer) of many tabs at once through HAProxy, with one replica and
// with three, all on this machine's cores with redis-server, HAProxy and the fake model. An op
// is one turn.
func BenchmarkTurnThroughput(b *testing.B) {
	const tabs = 40
	for _, replicas := range []int{1, 3} {
		b.Run(fmt.Sprintf("replicas=%d", replicas), func(b *testing.B) {
			fake := llmtest.New(llmtest.NoRecording(), llmtest.WithResponder(func(req llmtest.RecordedRequest) llmtest.Step {
				if req.LastMessage().Role == "user" {
					return llmtest.Step{ToolCalls: []llmtest.FakeCall{{Name: "search_lamps", Args: `{}`}}}
				}
				return llmtest.Step{Text: "The brass desk lamp at 89 EUR is the cheapest one with a warm light; the shade comes in three colours."}
			}))
			b.Cleanup(fake.Close)
			c := startCluster(b, fake.URL, lbOptions{replicas: replicas})
			tool := lbTool{name: "search_lamps", call: func(context.Context) map[string]any {
				return textResult(`[{"id":"L1","name":"Brass desk lamp","price":89},{"id":"L2","name":"Arc floor lamp","price":149}]`)
			}}
			pages := make([]*lbPage, tabs)
			for i := range pages {
				pages[i] = dialLB(b, c, func(lbEvent) {}, tool)
				mustSession(b, pages[i], wire.SessionParams{})
			}
			var left atomic.Int64
			left.Store(int64(b.N))
			var mu sync.Mutex
			var lat []time.Duration
			var wg sync.WaitGroup
			b.ResetTimer()
			start := time.Now()
			for _, p := range pages {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for k := 0; left.Add(-1) >= 0; k++ {
						t0 := time.Now()
						ctx, cancel := context.WithTimeout(context.Background(), procWait)
						var res wire.ChatResult
						err := p.peer.Call(ctx, wire.MethodAgentChat, wire.ChatParams{Text: fmt.Sprintf("cheapest lamp? (%d)", k)}, &res)
						cancel()
						if err != nil || res.StopReason != wire.StopEnd {
							b.Errorf("turn: %v %+v", err, res)
							return
						}
						mu.Lock()
						lat = append(lat, time.Since(t0))
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			elapsed := time.Since(start)
			b.StopTimer()
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "turns/s")
			b.ReportMetric(ms(percentile(lat, 0.5)), "turn-p50-ms")
			b.ReportMetric(ms(percentile(lat, 0.99)), "turn-p99-ms")
		})
	}
}
