package agui

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/sites"
)

// TestBudgetCountsClientsThatLeave: AG-UI clients that close the connection in the middle
// of the answer's stream (at its first TEXT_MESSAGE_CONTENT) are charged what the provider
// billed for the cut model call, and the site's budget refuses the next runs with RUN_ERROR
// token_budget once the day's tokens are used; byomcp_site_model_tokens_total counts the
// same. Before, nothing was counted and runs were never refused (issue 36, item 1).
func TestBudgetCountsClientsThatLeave(t *testing.T) {
	const limit = 6000
	path := filepath.Join(t.TempDir(), "sites.json")
	body := fmt.Sprintf(`{"sites": [{"name": "shop", "origins": [%q], "systemPrompt": %q, "budget": {"siteTokensPerDay": %d}}]}`,
		site, strings.Repeat("You are the assistant of a car shop: answer about its cars, their prices and their stock. ", 12), limit)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	reg, err := sites.Open(path, sites.Options{})
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("Here is a long answer about the cars. ", 200)
	f := newFixtureWith(t, nil, nil, func(o *Options) {
		o.Site = func(origin string) Site { return reg.Lookup(origin) }
	}, llmtest.Repeat(llmtest.Step{Text: long, ChunkDelay: 5 * time.Millisecond}))

	const maxRuns = 15
	served := 0 // runs answered before the refusal
	refused := false
	for runs := 0; runs < maxRuns && !refused; runs++ {
		ctx, cancel := context.WithCancel(t.Context())
		in, _ := json.Marshal(RunAgentInput{ThreadID: fmt.Sprintf("th-leave-%d", runs), RunID: "r1", Messages: []Message{user("u1", "tell me about the cars")}})
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.srv.URL, bytes.NewReader(in))
		req.Header.Set("Origin", site)
		req.Header.Set("Content-Type", "application/json")
		resp, err := f.srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("run %d: status %d", runs+1, resp.StatusCode)
		}
		r := bufio.NewReader(resp.Body)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("run %d: the stream ended before any text: %v", runs+1, err)
			}
			data, ok := strings.CutPrefix(strings.TrimSpace(line), "data: ")
			if !ok {
				continue
			}
			var e event
			if err := json.Unmarshal([]byte(data), &e); err != nil {
				t.Fatalf("event %q: %v", data, err)
			}
			if e.typ() == EventRunError {
				if e.str("code") != "token_budget" {
					t.Fatalf("run %d: RUN_ERROR %v, want code token_budget", runs+1, e)
				}
				refused = true
				break
			}
			if e.typ() == EventTextMessageContent {
				served++
				break
			}
		}
		// The client goes away mid-stream.
		cancel()
		resp.Body.Close()
		waitRunsEnded(t, f)
	}
	if !refused {
		t.Fatalf("%d runs whose client left mid-stream were all served: the budget of %d tokens never refused", maxRuns, limit)
	}
	if served == 0 {
		t.Fatalf("the first run was refused")
	}
	f.fake.Settle()
	billed := f.fake.Billed().Total()
	day, _ := reg.Used("shop", "")
	if day < billed || day < limit {
		t.Errorf("the budget counted %d tokens; the provider billed %d, the limit is %d: want at least both", day, billed, limit)
	}
	if m := siteTokens(t, reg); int64(m) != day {
		t.Errorf("byomcp_site_model_tokens_total{site=shop} = %v, the budget counted %d", m, day)
	}
	t.Logf("%d runs served, then refused; billed %d, counted %d, limit %d", served, billed, day, limit)
}

// waitRunsEnded waits until no run is left in the handler.
func waitRunsEnded(t *testing.T, f *fixture) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		f.h.mu.Lock()
		busy := len(f.h.threads)
		f.h.mu.Unlock()
		if busy == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d runs still going after their clients left", busy)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// siteTokens is byomcp_site_model_tokens_total{site="shop"}.
func siteTokens(t *testing.T, reg *sites.Registry) float64 {
	t.Helper()
	mfs, err := reg.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "byomcp_site_model_tokens_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "site" && l.GetValue() == "shop" {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}
