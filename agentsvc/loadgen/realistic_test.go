package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/byomcp/byomcp/agentsvc/llm"
)

// TestConversationsFitDemoTools: every call of the realistic conversations names a tool
// of its page, as captured from the demo, with arguments its schema accepts; answers are
// of a realistic length.
func TestConversationsFitDemoTools(t *testing.T) {
	d, err := loadDemo()
	if err != nil {
		t.Fatal(err)
	}
	if len(d.pages) != 4 {
		t.Fatalf("got %d captured pages, want the demo's 4", len(d.pages))
	}
	for _, p := range d.pages {
		schemas := map[string]*jsonschema.Schema{}
		for i, raw := range p.Tools {
			var tool struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			}
			if err := json.Unmarshal(raw, &tool); err != nil {
				t.Fatal(err)
			}
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(tool.InputSchema))
			if err != nil {
				t.Fatal(err)
			}
			c := jsonschema.NewCompiler()
			url := "mem:///" + p.Kind + "/" + strings.Repeat("x", i) + tool.Name
			if err := c.AddResource(url, doc); err != nil {
				t.Fatal(err)
			}
			if schemas[tool.Name], err = c.Compile(url); err != nil {
				t.Fatalf("%s %s: %v", p.Kind, tool.Name, err)
			}
		}
		turns := d.convs[p.Kind]
		if len(turns) != 3 {
			t.Errorf("%s: got %d turns, want 3", p.Kind, len(turns))
		}
		for i, turn := range turns {
			if n := turn.calls(); n < 1 || n > 2 {
				t.Errorf("%s turn %d: %d tool calls, want 1 or 2", p.Kind, i, n)
			}
			if n := len(turn.Answer); n < 300 || n > 600 {
				t.Errorf("%s turn %d: answer of %d characters, want 300-600", p.Kind, i, n)
			}
			for _, r := range turn.Rounds {
				for _, c := range r {
					s := schemas[c.Name]
					if s == nil {
						t.Errorf("%s turn %d: %s is not a tool of the page", p.Kind, i, c.Name)
						continue
					}
					args, err := jsonschema.UnmarshalJSON(bytes.NewReader(c.Arguments))
					if err != nil {
						t.Fatal(err)
					}
					if err := s.Validate(args); err != nil {
						t.Errorf("%s turn %d: arguments of %s: %v", p.Kind, i, c.Name, err)
					}
				}
			}
		}
	}
}

// expectedCalls is how many model calls and tool calls the realistic conversations make
// for sessions pages of turns turns each.
func expectedCalls(t *testing.T, sessions, turns int) (model, tools int64) {
	t.Helper()
	d, err := loadDemo()
	if err != nil {
		t.Fatal(err)
	}
	for id := range sessions {
		conv := d.convs[kindOf(d, id).Kind]
		for i := range turns {
			turn := conv[i%len(conv)]
			model += int64(len(turn.Rounds) + 1)
			tools += int64(turn.calls())
		}
	}
	return model, tools
}

// TestRealisticScenario runs the realistic pages at a tiny scale against byomcp: every page
// gets its captured tools, every scripted call validates and reaches the page, and the
// latencies come from the three turns.
func TestRealisticScenario(t *testing.T) {
	m := startModel(t)
	target := startAgent(t, m)
	sc := Scenario{Name: "realistic", Sessions: 8, Pages: PagesDemo, Turns: 3}
	res, err := Run(context.Background(), target, m, sc, Options{Settle: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) != 0 {
		t.Errorf("got errors %v, want none", res.Errors)
	}
	wantModel, _ := expectedCalls(t, 8, 3)
	if res.Turns != 24 || res.TurnLatency.Count != 24 || res.Overhead.Count != 24 {
		t.Errorf("got %d turns, %d latencies, %d overheads, want 24 each", res.Turns, res.TurnLatency.Count, res.Overhead.Count)
	}
	if res.ModelCalls != wantModel {
		t.Errorf("got %d model calls, want %d", res.ModelCalls, wantModel)
	}
	if res.FailedConnects != -1 {
		t.Errorf("failed connects of an attached target: got %d, want -1 (unknown)", res.FailedConnects)
	}
}

// TestRealisticScenarioPaced: with Spread, the turns come as visitors send them: all of
// them happen, and a session's three turns are at least two reading pauses (Think/2 and
// more each) apart, so the run cannot be shorter than that.
func TestRealisticScenarioPaced(t *testing.T) {
	m := startModel(t)
	target := startAgent(t, m)
	sc := Scenario{Name: "realistic", Sessions: 8, Pages: PagesDemo, Turns: 3, Spread: 200 * time.Millisecond, Think: 400 * time.Millisecond}
	start := time.Now()
	res, err := Run(context.Background(), target, m, sc, Options{Settle: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) != 0 {
		t.Errorf("got errors %v, want none", res.Errors)
	}
	if res.Turns != 24 || res.TurnLatency.Count != 24 || res.Overhead.Count != 24 {
		t.Errorf("got %d turns, %d latencies, %d overheads, want 24 each", res.Turns, res.TurnLatency.Count, res.Overhead.Count)
	}
	if took := time.Since(start); took < 2*sc.Think/2 {
		t.Errorf("the paced turns took %s, less than two pauses of at least %s", took, sc.Think/2)
	}
	if res.Scenario.Concurrency != 0 {
		t.Errorf("a paced scenario got a concurrency bound of %d", res.Scenario.Concurrency)
	}
}

// TestProviderScenarioReusesConnections: sessions turning at once against the fake model
// behind HTTPS open at most the pool's connections and TLS handshakes, counted on the
// model's side.
func TestProviderScenarioReusesConnections(t *testing.T) {
	m, err := StartModelKind(context.Background(), ModelTLS, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	if !slices.ContainsFunc(m.Env(), func(kv string) bool { return kv == "SSL_CERT_FILE="+m.CAFile }) {
		t.Errorf("env %v lacks the CA file for a spawned agent", m.Env())
	}
	const maxConns = 4
	client := &http.Client{Transport: llm.NewTransport(llm.TransportOptions{MaxConns: maxConns, TLS: m.ClientTLS()})}
	target := startAgentWith(t, llm.Options{BaseURL: m.URL, HTTPClient: client})
	sc := Scenario{Name: "provider", Sessions: 20, Pages: PagesDemo, Turns: 3, Concurrency: 20, Model: ModelTLS}
	res, err := Run(context.Background(), target, m, sc, Options{Settle: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) != 0 {
		t.Errorf("got errors %v, want none", res.Errors)
	}
	wantModel, _ := expectedCalls(t, 20, 3)
	if res.ModelCalls != wantModel {
		t.Errorf("got %d model calls, want %d", res.ModelCalls, wantModel)
	}
	if res.ModelConns < 1 || res.ModelConns > maxConns || res.TLSHandshakes < 1 || res.TLSHandshakes > maxConns {
		t.Errorf("got %d connections and %d TLS handshakes for %d model calls, want 1 to %d each",
			res.ModelConns, res.TLSHandshakes, res.ModelCalls, maxConns)
	}
}

// TestBurstScenarioPythonModel: realistic pages starting at once against the Python
// http.server model (HTTP/1.0, a connection per request), which answers the scripts as the
// Go model does.
func TestBurstScenarioPythonModel(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed: the burst scenario's model is a Python http.server")
	}
	m, err := StartModelKind(context.Background(), ModelPython, []string{python, filepath.Join("..", "..", "bench", "slow-model.py")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Close)
	target := startAgentWith(t, llm.Options{BaseURL: m.URL})
	sc := Scenario{Name: "burst", Sessions: 12, Pages: PagesDemo, Turns: 3, Concurrency: 12, Model: ModelPython}
	res, err := Run(context.Background(), target, m, sc, Options{Settle: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Errors) != 0 {
		t.Errorf("got errors %v, want none", res.Errors)
	}
	wantModel, _ := expectedCalls(t, 12, 3)
	if res.ModelCalls != wantModel {
		t.Errorf("got %d model calls served by the Python model, want %d", res.ModelCalls, wantModel)
	}
	if res.Turns != 36 || res.TurnLatency.Count != 36 || res.Overhead.Count != 0 {
		t.Errorf("got %d turns, %d latencies, %d overheads, want 36, 36 and 0 (the Python model does not time turns)",
			res.Turns, res.TurnLatency.Count, res.Overhead.Count)
	}
}

func TestWithStore(t *testing.T) {
	argv, cleanup, err := withStore([]string{"byomcp", "serve", "--store", "{store}"}, "sqlite")
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	if !strings.HasPrefix(argv[3], "sqlite:") || !strings.HasSuffix(argv[3], "bench.db") {
		t.Errorf("sqlite: got %q", argv[3])
	}
	argv, _, _ = withStore([]string{"--store", "{store}"}, "")
	if argv[1] != "memory" {
		t.Errorf("default: got %q, want memory", argv[1])
	}
	if _, _, err := withStore(nil, "postgres"); err == nil {
		t.Error("unknown store: got no error")
	}
}
