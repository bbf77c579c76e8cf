package mcpservers

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest"
	"go.uber.org/zap/zaptest/observer"
)

// noisyServerEnv makes the test binary a stdio MCP server (the Go SDK's) that writes
// lines that are not JSON-RPC on its stdout: see runNoisyServer.
const noisyServerEnv = "BYOMCP_TEST_NOISY_MCP_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(noisyServerEnv) == "1" {
		runNoisyServer()
		return
	}
	os.Exit(m.Run())
}

// noisyBanner is what the noisy server prints before it speaks MCP, and noisyCallLines what
// its tool prints before answering: a stray print, a cut-off object, a JSON number.
const (
	noisyBanner    = "Starting server... (not JSON)"
	noisyCallLines = "this is not json\n{\"broken\":\n42\n"
)

func runNoisyServer() {
	fmt.Print(noisyBanner + "\n\n")
	srv := mcp.NewServer(&mcp.Implementation{Name: "noisy", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "noisy", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Print(noisyCallLines)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "noisy ok"}}}, nil
		})
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// A stdio server that prints a banner and stray lines on stdout connects, answers its
// calls and keeps its process; each skipped line is logged once at Warn with the server's
// name.
func TestStdioSkipsNonJSONLines(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skipf("skipping: cannot find the test binary to run as a server: %v", err)
	}
	core, logs := observer.New(zapcore.WarnLevel)
	o := realOptions(t)
	o.Logger = zaptest.NewLogger(t, zaptest.WrapOptions(zap.WrapCore(func(c zapcore.Core) zapcore.Core { return zapcore.NewTee(c, core) })))
	cfg := writeConfig(t, map[string]any{
		"noisy": map[string]any{"command": exe, "env": map[string]string{noisyServerEnv: "1"}},
	})
	m := Start(t.Context(), cfg, o)
	defer m.Close()
	if err := m.WaitReady(t.Context()); err != nil {
		t.Fatalf("WaitReady: %v", err)
	}
	if st := statusOf(t, m, "noisy"); st.State != StateReady || st.Attempts != 1 {
		t.Fatalf("status = %+v, want ready after 1 attempt despite the banner", st)
	}
	for i := range 2 {
		if got := textOf(mustCall(t, m, t.Context(), AudienceCLI, "noisy__noisy", `{}`)); got != "noisy ok" {
			t.Errorf("call %d: text = %q, want %q", i, got, "noisy ok")
		}
	}
	if st := statusOf(t, m, "noisy"); st.State != StateReady || st.Attempts != 1 {
		t.Errorf("after the calls: status = %+v, want still ready after 1 attempt (no restart)", st)
	}

	var got []string
	for _, e := range logs.FilterMessageSnippet("not JSON-RPC").All() {
		if e.Level != zapcore.WarnLevel || e.ContextMap()["mcpServer"] != "noisy" {
			t.Errorf("log %v %q %v, want Warn with mcpServer=noisy", e.Level, e.Message, e.ContextMap())
		}
		got = append(got, fmt.Sprint(e.ContextMap()["line"]))
	}
	call := strings.Split(strings.TrimSuffix(noisyCallLines, "\n"), "\n")
	want := slices.Concat([]string{noisyBanner}, call, call)
	if !slices.Equal(got, want) {
		t.Errorf("logged skipped lines %q, want %q", got, want)
	}
}

func TestJSONLines(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		max     int
		want    string
		skipped []string
		err     string // part of the error after want, or "" for io.EOF
	}{
		{name: "messages", in: "{\"jsonrpc\":\"2.0\",\"id\":1}\n[{\"a\":1},{\"b\":2}]\n",
			want: "{\"jsonrpc\":\"2.0\",\"id\":1}\n[{\"a\":1},{\"b\":2}]\n"},
		{name: "banner blank lines and CRLF", in: "Starting...\n\n  \r\n {\"a\":1} \r\n",
			want: "{\"a\":1}\n", skipped: []string{"Starting..."}},
		{name: "cut-off object", in: "{\"broken\":\n{\"a\":1}\n",
			want: "{\"a\":1}\n", skipped: []string{`{"broken":`}},
		{name: "JSON that is not a message", in: "42\n\"str\"\nnull\n{\"a\":1}\n",
			want: "{\"a\":1}\n", skipped: []string{"42", `"str"`, "null"}},
		{name: "last line without newline", in: "log\n{\"a\":1}",
			want: "{\"a\":1}\n", skipped: []string{"log"}},
		{name: "message longer than the read buffer", in: "{\"text\":\"" + strings.Repeat("x", 100) + "\"}\n",
			want: "{\"text\":\"" + strings.Repeat("x", 100) + "\"}\n"},
		{name: "line too long", in: "{\"a\":1}\n{\"text\":\"" + strings.Repeat("x", 40) + "\"}\n", max: 32,
			want: "{\"a\":1}\n", err: "longer than 32 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var skipped []string
			max := tt.max
			if max == 0 {
				max = 1 << 20
			}
			j := &jsonLines{r: bufio.NewReaderSize(strings.NewReader(tt.in), 16), max: max,
				skip: func(line []byte) { skipped = append(skipped, string(line)) }}
			got, err := io.ReadAll(iotest.OneByteReader(j))
			if string(got) != tt.want {
				t.Errorf("read %q, want %q", got, tt.want)
			}
			if !slices.Equal(skipped, tt.skipped) {
				t.Errorf("skipped %q, want %q", skipped, tt.skipped)
			}
			switch {
			case tt.err == "" && err != nil:
				t.Errorf("err = %v, want EOF", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
				t.Errorf("err = %v, want one containing %q", err, tt.err)
			}
		})
	}
}

func TestSkipLoggerCutsLongLines(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	skip := skipLogger(zap.New(core))
	skip([]byte(strings.Repeat("€", 100))) // 300 bytes; byte 200 is inside the 67th € (3 bytes)
	skip([]byte(strings.Repeat("x", 300)))
	all := logs.All()
	if len(all) != 2 {
		t.Fatalf("%d log entries, want 2", len(all))
	}
	for i, want := range []string{strings.Repeat("€", 66) + "…", strings.Repeat("x", 200) + "…"} {
		if got := fmt.Sprint(all[i].ContextMap()["line"]); got != want || all[i].Level != zapcore.WarnLevel {
			t.Errorf("entry %d: %v line %q, want Warn %q", i, all[i].Level, got, want)
		}
	}
}
