package agentsvc

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/mcpservers/mcpserverstest"
)

// TestInteropOfficialTypeScriptSDK: a page built with the official MCP TypeScript SDK
// (McpServer over a WebSocket transport) is initialized by the agent, has its tools listed,
// and has them called with validated arguments.
func TestInteropOfficialTypeScriptSDK(t *testing.T) {
	node := mcpserverstest.RequireNode(t, "@modelcontextprotocol/sdk")
	ts := newTestServer(t, textModel("hi"), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("..", "e2e", "interop", "sdk-page.mjs"), ts.wsURL, testOrigin)
	cmd.Stderr = testWriter{t}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if sc.Text() == "ready" {
				ready <- true
				return
			}
		}
		ready <- false
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatal("the SDK page ended before it was ready")
		}
	case <-ctx.Done():
		t.Fatal("the SDK page never got its tools listed")
	}

	c := ts.waitTools(t, 2)
	var names []string
	for _, tool := range c.mcp.Tools() {
		names = append(names, tool.Name)
	}
	if strings.Join(names, ",") != "add,echo" {
		t.Errorf("got tools %v, want add,echo", names)
	}
	tests := []struct {
		tool, args string
		want       string
		isErr      bool
	}{
		{"add", `{"a":2,"b":3}`, "2 + 3 = 5", false},
		{"add", `{"a":2,"b":3}`, `structuredContent: {"sum":5}`, false},
		{"echo", `{"text":"hi"}`, "echo: hi", false},
		{"add", `{"a":"two","b":3}`, "invalid arguments:", true},
		{"add", `{"a":2}`, "invalid arguments:", true},
		{"echo", `{"text":""}`, "invalid arguments:", true},
	}
	for _, tt := range tests {
		out := c.mcp.Call(ctx, tt.tool, json.RawMessage(tt.args))
		if text, isErr := out.Text, out.IsError(); !answered(out) || isErr != tt.isErr || !strings.Contains(text, tt.want) {
			t.Errorf("%s %s: got %q isError=%v kind=%v, want %q isError=%v", tt.tool, tt.args, text, isErr, out.Kind, tt.want, tt.isErr)
		}
	}
}

// testWriter sends a child's stderr to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
