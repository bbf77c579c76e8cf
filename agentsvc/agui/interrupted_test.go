package agui

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/store"
)

// dyingStore is the store of a replica that can die: once dead it answers nothing (no claim
// renewed, nothing written), as a process killed (-9) writes nothing more.
type dyingStore struct {
	store.Store
	dead atomic.Bool
}

var errDead = errors.New("test: the replica is dead")

func (d *dyingStore) Append(ctx context.Context, id string, b store.Batch) error {
	if d.dead.Load() {
		return errDead
	}
	return d.Store.Append(ctx, id, b)
}

func (d *dyingStore) Claim(ctx context.Context, id, owner string, ttl time.Duration) (bool, string, error) {
	if d.dead.Load() {
		return false, "", errDead
	}
	return d.Store.Claim(ctx, id, owner, ttl)
}

func (d *dyingStore) Release(ctx context.Context, id, owner string) error {
	if d.dead.Load() {
		return errDead
	}
	return d.Store.Release(ctx, id, owner)
}

// countingMeter counts the turns by how they ended.
type countingMeter struct {
	failOnPanic
	mu    chan struct{}
	turns map[string]int
}

func newCountingMeter(t *testing.T) *countingMeter {
	return &countingMeter{failOnPanic: failOnPanic{t}, mu: make(chan struct{}, 1), turns: map[string]int{}}
}

func (m *countingMeter) CountTurn(r string) {
	m.mu <- struct{}{}
	m.turns[r]++
	<-m.mu
}

func (m *countingMeter) count(r string) int {
	m.mu <- struct{}{}
	defer func() { <-m.mu }()
	return m.turns[r]
}

// TestRunCutByACrashKeepsItsCalls: a run's model asks for three server calls at once; two
// answer (they pair up), the third waits, and the replica dies then (its store answers
// nothing more: no claim renewed, nothing written; its client is cut). Another replica on
// the same store runs the thread's next run once the claim lapsed: its MESSAGES_SNAPSHOT
// holds the calls that ran with their results, the third call answered as of unknown
// outcome, and the interrupted answer; every call is answered; what the model is sent
// carries the calls, never two user messages in a row; the run is counted as interrupted
// once. Before, a run stored its messages only when it ended: the calls were lost and the
// model got two user messages in a row.
func TestRunCutByACrashKeepsItsCalls(t *testing.T) {
	shared := store.NewMemory()
	t.Cleanup(func() { _ = shared.Close() })
	dying := &dyingStore{Store: shared}
	mgr := meetServer(t)
	short := func(o *Options) { o.ClaimTTL = 300 * time.Millisecond }
	first := newFixtureWith(t, dying, mgr, short, llmtest.Script(
		llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "c1", Name: "meet__wait", Args: `{}`}, {ID: "c2", Name: "meet__wait", Args: `{}`}, {ID: "c3", Name: "meet__wait", Args: `{}`}}},
		llmtest.Step{Stall: true},
	))

	ctx, cut := context.WithCancel(t.Context())
	defer cut()
	body, _ := json.Marshal(RunAgentInput{ThreadID: "th-crash", RunID: "r1", Messages: []Message{user("u1", "book the table and pay")}})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, first.srv.URL, bytes.NewReader(body))
	req.Header.Set("Origin", site)
	resp, err := first.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	twoResults := make(chan struct{})
	go func() {
		n := 0
		readEvents(t, bufio.NewReader(resp.Body), func(e event) {
			if e.typ() == EventToolCallResult {
				if n++; n == 2 {
					close(twoResults)
				}
			}
		})
	}()
	select {
	case <-twoResults:
	case <-time.After(waitLimit):
		t.Fatal("the two calls that pair up did not answer")
	}
	dying.dead.Store(true) // kill -9: nothing more is written, the claim is not renewed
	cut()

	meter := newCountingMeter(t)
	second := newFixtureWith(t, shared, mgr, func(o *Options) { short(o); o.Meter = meter }, llmtest.Script(llmtest.Step{Text: "I will check the booking first."}))
	in := RunAgentInput{ThreadID: "th-crash", RunID: "r2", Messages: []Message{user("u1", "book the table and pay"), user("u2", "did it work?")}}
	var evs []event
	deadline := time.Now().Add(waitLimit)
	for {
		status, got := second.run(t, t.Context(), site, in)
		if status == http.StatusOK {
			evs = got
			break
		}
		if status != http.StatusConflict || time.Now().After(deadline) {
			t.Fatalf("the next run: status %d, want 200 once the dead replica's claim lapsed", status)
		}
		time.Sleep(20 * time.Millisecond)
	}

	if len(evs) < 2 || evs[1].typ() != EventMessagesSnapshot {
		t.Fatalf("events %v, want a MESSAGES_SNAPSHOT after RUN_STARTED", types(evs))
	}
	raw, _ := json.Marshal(evs[1]["messages"])
	var snap []Message
	if err := json.Unmarshal(raw, &snap); err != nil {
		t.Fatal(err)
	}
	var shape []string
	calls := map[string]bool{}
	results := map[string]string{}
	for _, m := range snap {
		s := m.Role
		for _, tc := range m.ToolCalls {
			calls[tc.ID] = true
			s += "+" + tc.ID
		}
		if m.Role == RoleTool {
			results[m.ToolCallID] = text(m.Content)
			s += ":" + m.ToolCallID
		}
		shape = append(shape, s)
	}
	if len(snap) != 7 || snap[0].ID != "u1" || snap[1].Role != RoleAssistant || len(snap[1].ToolCalls) != 3 ||
		snap[5].Role != RoleAssistant || !strings.Contains(text(snap[5].Content), "interrupted") || snap[6].ID != "u2" {
		t.Fatalf("snapshot %v, want u1, the three calls, their three answers, the interrupted answer, u2", shape)
	}
	met, unknown := 0, 0
	for id := range calls {
		switch r := results[id]; {
		case r == "met":
			met++
		case strings.Contains(r, "outcome of this call is unknown"):
			unknown++
		default:
			t.Errorf("call %s answered %q, want met or its outcome unknown", id, r)
		}
	}
	if met != 2 || unknown != 1 {
		t.Errorf("answers %v, want two calls that ran (met) and one of unknown outcome", results)
	}
	if got := meter.count(turnInterrupted); got != 1 {
		t.Errorf("counted %d interrupted runs, want 1", got)
	}

	// What the model read: the calls and their answers (the fake refuses a call left
	// unanswered), and never two user messages in a row.
	reqs := second.fake.Requests()
	if len(reqs) != 1 {
		t.Fatalf("got %d model requests, want 1", len(reqs))
	}
	var roles []string
	for i, m := range reqs[0].Messages {
		roles = append(roles, m.Role)
		if i > 0 && m.Role == chat.RoleUser && reqs[0].Messages[i-1].Role == chat.RoleUser {
			t.Errorf("the model got two user messages in a row: %v", roles)
		}
	}
	if got := strings.Join(roles, " "); got != "system user assistant tool tool tool user" {
		t.Errorf("the model got %q, want the calls and their answers between the two user messages", got)
	}

	// The client, now in step, gets no snapshot, and the interrupted run is not closed twice.
	_, evs = second.run(t, t.Context(), site, RunAgentInput{ThreadID: "th-crash", RunID: "r3", Messages: snapshotMessages(t, second, "th-crash")})
	if got := types(evs); len(got) == 0 || got[1] == EventMessagesSnapshot {
		t.Errorf("a client in step: %v, want no snapshot", got)
	}
	if got := meter.count(turnInterrupted); got != 1 {
		t.Errorf("counted %d interrupted runs after the next, want 1", got)
	}
}
