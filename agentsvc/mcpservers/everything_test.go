package mcpservers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/mcpservers/mcpserverstest"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap/zaptest"
)

// These tests run the reference server @modelcontextprotocol/server-everything (a real
// third-party MCP server, in node_modules) over stdio, Streamable HTTP and the old SSE
// transport.

func writeConfig(t *testing.T, servers map[string]any) *Config {
	t.Helper()
	data, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatalf("LoadConfig: %v", err)
	}
	return cfg
}

// realOptions are short backoffs so a broken server is retried quickly in real time.
func realOptions(t *testing.T) Options {
	return Options{Logger: zaptest.NewLogger(t), InitialBackoff: 50 * time.Millisecond, MaxBackoff: 200 * time.Millisecond, ConnectTimeout: 30 * time.Second}
}

func mustCall(t *testing.T, m *Manager, ctx context.Context, audience, tool, args string) *mcp.CallToolResult {
	t.Helper()
	res, err := m.Call(ctx, audience, tool, json.RawMessage(args))
	if err != nil {
		t.Fatalf("Call(%s, %s): %v", tool, args, err)
	}
	if res.IsError {
		t.Fatalf("Call(%s, %s): tool error %q", tool, args, textOf(res))
	}
	return res
}

// checkTinyImage asserts that get-tiny-image's PNG arrives whole.
func checkTinyImage(t *testing.T, m *Manager, ctx context.Context, audience string) {
	t.Helper()
	res := mustCall(t, m, ctx, audience, "everything__get-tiny-image", `{}`)
	for _, c := range res.Content {
		if img, ok := c.(*mcp.ImageContent); ok {
			if img.MIMEType != "image/png" || !bytes.HasPrefix(img.Data, []byte("\x89PNG\r\n\x1a\n")) || !bytes.HasSuffix(img.Data, []byte("IEND\xaeB`\x82")) {
				t.Errorf("image: mime %q, %d bytes, want a whole PNG", img.MIMEType, len(img.Data))
			}
			return
		}
	}
	t.Errorf("get-tiny-image content has no image: %v", res.Content)
}

func TestEverythingStdio(t *testing.T) {
	node, entry := mcpserverstest.Everything(t)
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("skipping: no sh to record the server's input")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()

	// tee records every message the server receives, to prove what never reached it.
	inputLog := filepath.Join(t.TempDir(), "server-input.jsonl")
	cfg := writeConfig(t, map[string]any{
		"everything": map[string]any{
			"command": sh,
			"args":    []string{"-c", `tee -a "$INPUT_LOG" | exec "$NODE" "$ENTRY" stdio`},
			"env":     map[string]string{"INPUT_LOG": inputLog, "NODE": node, "ENTRY": entry},
			"expose":  []string{"web", "cli"},
		},
		"broken": map[string]any{"command": "/nonexistent/byomcp-test-server", "expose": []string{"web"}},
	})
	m := Start(ctx, cfg, realOptions(t))
	defer m.Close()
	if err := m.WaitReady(ctx); err != nil {
		t.Fatalf("WaitReady: %v", err)
	}

	if st := statusOf(t, m, "everything"); st.State != StateReady || st.Transport != TransportStdio || st.Tools < 5 {
		t.Fatalf("everything status = %+v, want ready over stdio with its tools", st)
	}
	names := modelNames(m.Tools(AudienceWeb))
	for _, want := range []string{"everything__echo", "everything__get-sum", "everything__get-tiny-image"} {
		if !slices.Contains(names, want) {
			t.Errorf("Tools(web) = %v, missing %s", names, want)
		}
	}

	if got := textOf(mustCall(t, m, ctx, AudienceWeb, "everything__echo", `{"message":"hello"}`)); got != "Echo: hello" {
		t.Errorf("echo text = %q, want %q", got, "Echo: hello")
	}
	if got := textOf(mustCall(t, m, ctx, AudienceCLI, "everything__get-sum", `{"a":2,"b":3}`)); !strings.Contains(got, "5") {
		t.Errorf("get-sum text = %q, want the sum 5", got)
	}
	checkTinyImage(t, m, ctx, AudienceCLI)

	// A call that fails validation never reaches the server; the next one does.
	_, err = m.Call(ctx, AudienceWeb, "everything__echo", json.RawMessage(`{"message":424242}`))
	if !errors.Is(err, ErrInvalidArguments) || !strings.Contains(err.Error(), "/message") {
		t.Errorf("invalid arguments: err = %v, want ErrInvalidArguments naming /message", err)
	}
	mustCall(t, m, ctx, AudienceWeb, "everything__echo", `{"message":"after-invalid"}`)
	// tee may write its file a moment after passing the line on: wait for the last call.
	var input []byte
	for !bytes.Contains(input, []byte("after-invalid")) {
		if input, err = os.ReadFile(inputLog); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the server's input log never showed the last call:\n%s", input)
		case <-time.After(10 * time.Millisecond):
		}
	}
	var calls []string
	for line := range strings.SplitSeq(string(input), "\n") {
		if strings.Contains(line, `"tools/call"`) {
			calls = append(calls, line)
		}
	}
	if len(calls) != 4 || !strings.Contains(calls[3], "after-invalid") || strings.Contains(string(input), "424242") {
		t.Errorf("server received %d tools/call (want 4, the last after-invalid, none with 424242):\n%s", len(calls), strings.Join(calls, "\n"))
	}

	// The broken server is retried and reported while everything works.
	for st := statusOf(t, m, "broken"); st.Attempts < 3; st = statusOf(t, m, "broken") {
		select {
		case <-ctx.Done():
			t.Fatalf("broken server: status %+v, want 3 attempts", st)
		case <-time.After(20 * time.Millisecond):
		}
	}
	st := statusOf(t, m, "broken")
	if st.State != StateRetrying || !strings.Contains(st.Error, "/nonexistent/byomcp-test-server") {
		t.Errorf("broken status = %+v, want retrying with an error naming the command", st)
	}
	if _, err := m.Call(ctx, AudienceWeb, "broken__anything", nil); !errors.Is(err, ErrUnknownTool) {
		t.Errorf("tool of a server that never started: err = %v, want ErrUnknownTool", err)
	}
}

// startHTTPEverything runs the server in an HTTP mode on a free loopback port and returns
// its base URL once it listens.
func startHTTPEverything(t *testing.T, ctx context.Context, mode string) string {
	t.Helper()
	node, entry := mcpserverstest.Everything(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()

	cmd := exec.Command(node, entry, mode)
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting the %s server: %v", mode, err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	listening := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), fmt.Sprint(port)) {
				listening <- nil
				break
			}
		}
		listening <- fmt.Errorf("the %s server ended before listening", mode)
		for sc.Scan() { // keep draining so the server never blocks on stderr
		}
	}()
	select {
	case err := <-listening:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatalf("the %s server did not start listening", mode)
	}
	return fmt.Sprintf("http://127.0.0.1:%d", port)
}

func TestEverythingStreamableHTTP(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	base := startHTTPEverything(t, ctx, "streamableHttp")
	cfg := writeConfig(t, map[string]any{
		"everything": map[string]any{"url": base + "/mcp", "headers": map[string]string{"X-Test": "1"}, "expose": []string{"web"}},
	})
	m := Start(ctx, cfg, realOptions(t))
	defer m.Close()
	if err := m.WaitReady(ctx); err != nil {
		t.Fatalf("WaitReady: %v", err)
	}
	if st := statusOf(t, m, "everything"); st.State != StateReady || st.Transport != TransportStreamable {
		t.Fatalf("status = %+v, want ready over streamable HTTP", st)
	}
	if got := textOf(mustCall(t, m, ctx, AudienceWeb, "everything__echo", `{"message":"over http"}`)); got != "Echo: over http" {
		t.Errorf("echo text = %q", got)
	}
	checkTinyImage(t, m, ctx, AudienceWeb)
	if len(m.Tools(AudienceCLI)) != 0 {
		t.Errorf("a web-only server's tools reach the CLI: %v", modelNames(m.Tools(AudienceCLI)))
	}
}

func TestEverythingSSEFallback(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	base := startHTTPEverything(t, ctx, "sse")
	// No "type": Streamable HTTP is tried first, the old server answers 404, SSE follows.
	cfg := writeConfig(t, map[string]any{"everything": map[string]any{"url": base + "/sse"}})
	m := Start(ctx, cfg, realOptions(t))
	defer m.Close()
	if err := m.WaitReady(ctx); err != nil {
		t.Fatalf("WaitReady: %v", err)
	}
	if st := statusOf(t, m, "everything"); st.State != StateReady || st.Transport != TransportSSE {
		t.Fatalf("status = %+v, want ready over SSE after the fallback", st)
	}
	if got := textOf(mustCall(t, m, ctx, AudienceCLI, "everything__echo", `{"message":"old transport"}`)); got != "Echo: old transport" {
		t.Errorf("echo text = %q", got)
	}
	checkTinyImage(t, m, ctx, AudienceCLI)
}
