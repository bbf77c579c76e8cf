package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// An operator audit: SIGHUP to an agent without --sites ended it on the spot (the signal's
// default action), every socket dropped. It is taken, logged, and the agent carries on.
func TestServeSurvivesSIGHUPWithoutSites(t *testing.T) {
	p := startServe(t, "http://127.0.0.1:1", "--store", "memory")
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(procWait)
	for !strings.Contains(p.logs.String(), "no --sites file to reload") {
		select {
		case <-p.exited:
			t.Fatalf("the agent ended on SIGHUP; logs:\n%s", p.logs.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no log line for the SIGHUP; logs:\n%s", p.logs.String())
		}
	}
	resp, err := http.Get(p.url + "/healthz")
	if err != nil {
		t.Fatalf("after SIGHUP: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("after SIGHUP: /healthz %d", resp.StatusCode)
	}
}

// A second SIGTERM while the agent waits for a running turn to finish ends it at once.
func TestServeSecondSignalStopsAtOnce(t *testing.T) {
	fake := llmtest.New(llmtest.Repeat(llmtest.Step{Stall: true}))
	defer fake.Close()
	p := startServe(t, fake.URL, "--store", "memory")
	page := dialPage(t, p.url)
	page.session(wire.SessionParams{})
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), procWait)
		defer cancel()
		_ = page.peer.Call(ctx, wire.MethodAgentChat, wire.ChatParams{Text: "wait"}, nil)
	}()
	page.until(func(e procEvent) bool { return e.Type == "turn_start" })
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for !strings.Contains(p.logs.String(), "shutting down") {
		select {
		case <-p.exited:
			t.Fatalf("the agent ended before the drain; logs:\n%s", p.logs.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	select {
	case <-p.exited:
		t.Fatal("the agent did not wait for its running turn")
	default:
	}
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.exited:
	case <-time.After(procWait):
		t.Fatal("a second SIGTERM did not end the agent")
	}
	// Ended by the signal itself, not by the end of the drain (which exits 0 by itself).
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("the agent exited by itself (%v), not by the second SIGTERM", p.cmd.ProcessState)
	}
}

// Flag mistakes an operator makes are refused before the agent listens, with one line.
func TestServeRefusesBadCommandLines(t *testing.T) {
	badMCP := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(badMCP, []byte(`{"mcpServers": {"s": {"url": "http://127.0.0.1:1/${NOPE_NOT_SET}"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"serve", "extra", "--store", "memory"}, nil, `unexpected argument "extra"`},
		{[]string{"tools", "extra", "--notes", "x.db"}, nil, `unexpected argument "extra"`},
		{[]string{"serve", "--store", "memory"}, map[string]string{"BYOMCP_CLAIM_TTL": "abc"}, "BYOMCP_CLAIM_TTL"},
		{[]string{"serve", "--store", "memory"}, map[string]string{"BYOMCP_DRAIN_DELAY": "-5s"}, "--drain-delay -5s: want a duration of 0 or more"},
		{[]string{"serve", "--store", "memory", "--reconnect-wait", "-1s"}, nil, "--reconnect-wait -1s: want a duration of 0 or more"},
		{[]string{"serve", "--store", "memory", "--addr", "127.0.0.1:0", "--console-token", "short"}, nil, "at least 16 characters"},
		{[]string{"serve", "--store", "memory", "--addr", "127.0.0.1:0", "--allowed-origins", "https://*.shop.example"}, nil, "only the port may be *"},
		{[]string{"serve", "--store", "memory", "--addr", "127.0.0.1:0", "--allowed-origins", "https://shop.example:abc"}, nil, "only the port may be *"},
		{[]string{"serve", "--no-such-flag"}, nil, "usage"},
		{[]string{"serve", "--store", "memory", "--log-level", "loud"}, nil, "loud"},
		{[]string{"serve", "--store", "memory", "--addr", "127.0.0.1:0", "--mcp-config", badMCP}, nil, "environment variable NOPE_NOT_SET is not set"},
		{[]string{"chat", "--mcp-config", badMCP, "hello"}, nil, "environment variable NOPE_NOT_SET is not set"},
		{[]string{"chat", "hello", "--store", "memory"}, nil, "comes after the question"},
		{[]string{"bench", "--generator-procs", "-1"}, nil, "usage"},
	} {
		var stdout, stderr bytes.Buffer
		getenv := func(k string) string { return tt.env[k] }
		err := run(t.Context(), tt.args, strings.NewReader(""), &stdout, &stderr, getenv)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v %v: got %v, want an error with %q", tt.args, tt.env, err, tt.want)
		}
		// A supervisor or a deploy script tells a configuration to fix (2) from a failure to
		// retry (1).
		if code := exitCode(err); err != nil && code != 2 {
			t.Errorf("%v %v: exit status %d, want 2 (the command line or configuration is invalid)", tt.args, tt.env, code)
		}
		if stdout.Len() != 0 {
			t.Errorf("%v: printed %q before failing: a supervisor would take it for started", tt.args, stdout.String())
		}
	}
	for _, args := range [][]string{{"--help"}, {"-h"}, {"serve", "--help"}, {"chat", "-h"}, {"tools", "--help"}} {
		var stdout, stderr bytes.Buffer
		if err := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" }); err != nil {
			t.Errorf("%v: got %v, want no error (asking for help is not a failure)", args, err)
		}
	}
}

// A failure while starting that is not the configuration's (here the address is taken) exits
// with status 1, not 2.
func TestServeFailureToStartExitsWith1(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var stdout, stderr bytes.Buffer
	err = run(t.Context(), []string{"serve", "--store", "memory", "--addr", ln.Addr().String()}, strings.NewReader(""), &stdout, &stderr,
		func(k string) string {
			return map[string]string{"OPENAI_BASE_URL": "http://127.0.0.1:1", "BYOMCP_MODEL": "m"}[k]
		})
	if err == nil || !strings.Contains(err.Error(), "address already in use") {
		t.Fatalf("got %v, want the address in use", err)
	}
	if code := exitCode(err); code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
}

// An operator audit: two agents on one SQLite file both took a tab's session as their own
// and their turns collided. The second is refused at start, naming the first.
func TestServeRefusesASQLiteFileInUse(t *testing.T) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "byomcp.db")
	first := startServe(t, "http://127.0.0.1:1", "--store", db)
	var stdout, stderr bytes.Buffer
	err := run(t.Context(), []string{"serve", "--addr", "127.0.0.1:0", "--store", db}, strings.NewReader(""), &stdout, &stderr, func(string) string { return "" })
	want := fmt.Sprintf("in use by another byomcp (pid %d)", first.cmd.Process.Pid)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("second agent on %s: got %v, want an error with %q", db, err, want)
	}
	if stdout.Len() != 0 {
		t.Errorf("the second agent printed %q", stdout.String())
	}
}

// An operator audit: a variable that does not parse stopped the agent even where its flag
// was given, though "the flag wins".
func TestServeFlagWinsOverABadVariable(t *testing.T) {
	p := spawnServe(t, "127.0.0.1:0", []string{"OPENAI_BASE_URL=http://127.0.0.1:1", "BYOMCP_MAX_TURNS=ten", "BYOMCP_CLAIM_TTL=soon"},
		"--store", "memory", "--max-turns", "5", "--claim-ttl", "5s")
	resp, err := http.Get(p.url + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

// With --drain-delay, a stop signal first turns /readyz to 503 (a balancer takes the replica
// out of rotation) while everything is still served: the open tab's turns, /healthz, new
// sockets and their turns. Then the usual shutdown: every socket closed with 1001, exit 0.
func TestServeDrainDelay(t *testing.T) {
	fake := llmtest.New(llmtest.Repeat(llmtest.Step{Text: "Still here."}))
	defer fake.Close()
	p := startServe(t, fake.URL, "--store", "memory", "--drain-delay", "8s")
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(p.url + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if code, body := get("/readyz"); code != http.StatusOK || body != "ready\n" {
		t.Fatalf("/readyz before the signal: %d %q, want 200 \"ready\"", code, body)
	}
	tab := dialPage(t, p.url)
	tab.session(wire.SessionParams{})
	ended := make(chan error, 1)
	go func() { ended <- tab.peer.Wait() }()

	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(procWait)
	for {
		code, body := get("/readyz")
		if code == http.StatusServiceUnavailable && body == "draining\n" {
			break
		}
		if code != http.StatusOK || time.Now().After(deadline) {
			t.Fatalf("/readyz after SIGTERM: %d %q, want 503 \"draining\"", code, body)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Served as before while draining.
	if code, _ := get("/healthz"); code != http.StatusOK {
		t.Errorf("/healthz while draining: %d", code)
	}
	if res := tab.chat("are you there?"); res.TurnID == "" {
		t.Errorf("agent/chat of the open tab while draining: %+v", res)
	}
	tab.until(func(e procEvent) bool { return e.Type == "turn_end" })
	late := dialPage(t, p.url)
	late.session(wire.SessionParams{})
	late.chat("hello")
	if evs := late.until(func(e procEvent) bool { return e.Type == "turn_end" }); evs[len(evs)-1].Text != "Still here." {
		t.Errorf("a new tab's turn while draining ended with %+v", evs[len(evs)-1])
	}
	select {
	case <-p.exited:
		t.Fatal("the agent exited while draining")
	default:
	}

	// Then the shutdown.
	select {
	case err := <-ended:
		var ce *websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != websocket.CloseGoingAway {
			t.Errorf("the tab ended with %v, want 1001", err)
		}
	case <-time.After(procWait):
		t.Fatal("the tab was not closed after the drain")
	}
	select {
	case <-p.exited:
	case <-time.After(procWait):
		t.Fatal("the agent did not exit after the drain")
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	if logs := p.logs.String(); !strings.Contains(logs, "draining:") || strings.Index(logs, "draining:") > strings.Index(logs, "shutting down") {
		t.Errorf("the logs do not say draining before shutting down:\n%s", logs)
	}
}

// An operator audit: the console names replicas by an id found nowhere in their logs, and
// durations were logged as bare numbers ("drain_delay":4). The startup line names the replica,
// and durations say their unit.
func TestLogsNameTheReplicaAndDurationUnits(t *testing.T) {
	p := startServe(t, "http://127.0.0.1:1", "--store", "memory")
	if !strings.Contains(p.startLogs(t), `"replica":"`) {
		t.Errorf("the startup line names no replica:\n%s", p.logs.String())
	}
	var buf bytes.Buffer
	log, err := newLogger("info", &buf)
	if err != nil {
		t.Fatal(err)
	}
	log.Info("draining", zap.Duration("drain_delay", 4*time.Second))
	if !strings.Contains(buf.String(), `"drain_delay":"4s"`) {
		t.Errorf("got %s, want the duration as \"4s\"", buf.String())
	}
}
