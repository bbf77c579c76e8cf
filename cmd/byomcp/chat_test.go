package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/mcpservers/mcpserverstest"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/mcpservers"
	"github.com/byomcp/byomcp/agentsvc/tools"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

func init() {
	// `byomcp chat` starts os.Executable() as `byomcp tools`: under test that is this test
	// binary, whose TestMain runs main when it sees this variable.
	toolsEnv = map[string]string{"BYOMCP_TEST_MAIN": "1"}
}

// chatWait bounds one `byomcp chat` run in these tests; hitting it is a failure.
const chatWait = 2 * time.Minute

// syncBuffer is a bytes.Buffer safe for concurrent writes (a logger and a turn, a child
// process's output) while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// chatEnv is the environment of a test run: no Ollama (OLLAMA_HOST is a closed port),
// notes in a temporary file, plus vars.
func chatEnv(t *testing.T, vars map[string]string) map[string]string {
	t.Helper()
	env := map[string]string{
		"OLLAMA_HOST":  deadAddr(t),
		"BYOMCP_NOTES": filepath.Join(t.TempDir(), "notes.db"),
	}
	for k, v := range vars {
		env[k] = v
	}
	return env
}

// deadAddr returns a loopback address nothing listens on.
func deadAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// noServers writes an mcp.json without servers, for tests about the model only.
func noServers(t *testing.T) string {
	t.Helper()
	return writeMCPConfig(t, map[string]any{})
}

func writeMCPConfig(t *testing.T, servers map[string]any) string {
	t.Helper()
	data, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// runChatCmd runs `byomcp chat args...` in-process with env as its whole environment.
func runChatCmd(t *testing.T, stdin string, env map[string]string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), chatWait)
	defer cancel()
	var out, errOut syncBuffer
	err = run(ctx, append([]string{"chat"}, args...), strings.NewReader(stdin), &out, &errOut, func(k string) string { return env[k] })
	if ctx.Err() != nil {
		t.Fatalf("byomcp chat did not finish within %v; stdout:\n%s\nstderr:\n%s", chatWait, out.String(), errOut.String())
	}
	return out.String(), errOut.String(), err
}

// fakeModelEnv points the CLI at a fake OpenAI-compatible server.
func fakeModelEnv(t *testing.T, fake *llmtest.Server) map[string]string {
	return chatEnv(t, map[string]string{"OPENAI_BASE_URL": fake.URL, "OPENAI_API_KEY": "test-key", "BYOMCP_MODEL": "fake-model"})
}

func TestChatOneShotCallsBuiltInTool(t *testing.T) {
	fake := llmtest.NewServer(t,
		llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "call_1", Name: "byomcp__calculate", Args: `{"expression":"(17 * 23) + 4"}`}}},
		llmtest.Step{Text: "(17 * 23) + 4 is 395."},
	)
	stdout, stderr, err := runChatCmd(t, "", fakeModelEnv(t, fake), "what is", "(17 * 23) + 4?")
	if err != nil {
		t.Fatalf("chat: %v\nstderr:\n%s", err, stderr)
	}
	want := `[tool] byomcp__calculate({"expression":"(17 * 23) + 4"})` + "\n" +
		"[tool] byomcp__calculate -> (17 * 23) + 4 = 395\n" +
		"(17 * 23) + 4 is 395.\n"
	if stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
	}
	if !strings.Contains(stderr, "[model] custom fake-model at "+fake.URL) {
		t.Errorf("stderr %q does not name the model", stderr)
	}

	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("got %d model requests, want 2", len(reqs))
	}
	var offered []string
	for _, tool := range reqs[0].Tools {
		offered = append(offered, tool.Name)
	}
	slices.Sort(offered)
	if want := []string{"byomcp__add_note", "byomcp__calculate", "byomcp__get_current_time", "byomcp__list_notes"}; !slices.Equal(offered, want) {
		t.Errorf("tools offered: got %v, want %v", offered, want)
	}
	if got := reqs[0].Header.Get("Authorization"); got != "Bearer test-key" {
		t.Errorf("Authorization: got %q, want the configured key", got)
	}
	if first := reqs[0].Messages; len(first) != 2 || first[0].Role != "system" || first[1].Content != "what is (17 * 23) + 4?" {
		t.Errorf("first request messages: got %+v, want the system prompt and the question", first)
	}
	last := reqs[1].LastMessage()
	if last.Role != "tool" || last.ToolCallID != "call_1" || !strings.Contains(last.Content, "= 395") || !strings.Contains(last.Content, `"result":395`) {
		t.Errorf("second request's last message: got %+v, want call_1's result with its text and structured content", last)
	}
}

func TestChatInteractiveKeepsHistory(t *testing.T) {
	fake := llmtest.NewServer(t, llmtest.Step{Text: "Paris."}, llmtest.Step{Text: "Rome."})
	stdin := "What is the capital of France?\n\n  And of Italy?  \nexit\nnever asked\n"
	stdout, stderr, err := runChatCmd(t, stdin, fakeModelEnv(t, fake), "--mcp-config", noServers(t))
	if err != nil {
		t.Fatalf("chat: %v\nstderr:\n%s", err, stderr)
	}
	if want := "> Paris.\n> > Rome.\n> "; stdout != want {
		t.Errorf("stdout: got %q, want %q", stdout, want)
	}
	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("got %d model requests, want 2 (exit ends the session)", len(reqs))
	}
	var got []string
	for _, m := range reqs[1].Messages {
		got = append(got, m.Role+": "+m.Content)
	}
	want := []string{"system: " + chatSystemPrompt, "user: What is the capital of France?", "assistant: Paris.", "user: And of Italy?"}
	if !slices.Equal(got, want) {
		t.Errorf("second request:\n got %q\nwant %q", got, want)
	}
	if len(reqs[0].Tools) != 0 {
		t.Errorf("got %d tools with an mcp.json without servers, want none", len(reqs[0].Tools))
	}
}

func TestChatEndOfInputEndsSession(t *testing.T) {
	fake := llmtest.NewServer(t, llmtest.Step{Text: "Hello."})
	stdout, _, err := runChatCmd(t, "hi", fakeModelEnv(t, fake), "--mcp-config", noServers(t))
	if err != nil {
		t.Fatalf("chat: %v", err)
	}
	if want := "> Hello.\n> \n"; stdout != want {
		t.Errorf("stdout: got %q, want %q", stdout, want)
	}
}

func TestChatModelErrorsAreOneSentence(t *testing.T) {
	failing := func(status int) llmtest.Option {
		// 1 try + 3 retries; Retry-After 0 keeps the retries immediate.
		s := llmtest.Step{Status: status, RetryAfter: "0"}
		return llmtest.Script(s, s, s, s)
	}
	tests := []struct {
		name     string
		opts     []llmtest.Option
		key      string
		want     []string // parts of the sentence
		requests int
	}{
		{
			name: "401 wrong key", opts: []llmtest.Option{llmtest.WithAPIKey("right-key")}, key: "sk-wrong-401",
			want: []string{"the model API rejected the key (HTTP 401)", "check OPENAI_API_KEY"}, requests: 1,
		},
		{
			name: "429 after retries", opts: []llmtest.Option{failing(429)}, key: "sk-test-429",
			want: []string{"the model API is rate limiting requests", "(HTTP 429)", "wait a moment and ask again"}, requests: 4,
		},
		{
			name: "404 unknown model", opts: []llmtest.Option{llmtest.Script(llmtest.Step{Status: 404, Message: "The model `fake-model` does not exist"})}, key: "sk-test-404",
			want: []string{`model not found: "fake-model" at 127.0.0.1:`, "(HTTP 404)", "--model or BYOMCP_MODEL"}, requests: 1,
		},
		{
			name: "500 after retries", opts: []llmtest.Option{failing(500)}, key: "sk-test-500",
			want: []string{"the model API is unavailable", "(HTTP 500)", "try again later"}, requests: 4,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fake := llmtest.New(tt.opts...)
			t.Cleanup(fake.Close)
			env := chatEnv(t, map[string]string{"OPENAI_BASE_URL": fake.URL, "OPENAI_API_KEY": tt.key, "BYOMCP_MODEL": "fake-model"})
			stdout, stderr, err := runChatCmd(t, "", env, "--mcp-config", noServers(t), "hello")
			if err == nil {
				t.Fatalf("chat succeeded, want an error; stdout %q", stdout)
			}
			msg := err.Error()
			for _, part := range tt.want {
				if !strings.Contains(msg, part) {
					t.Errorf("error %q does not contain %q", msg, part)
				}
			}
			if strings.Contains(msg, "\n") || strings.Contains(msg, tt.key) {
				t.Errorf("error %q: want one line without the key", msg)
			}
			if stdout != "" {
				t.Errorf("stdout: got %q, want nothing (the error is returned once)", stdout)
			}
			if strings.Contains(stderr, tt.key) {
				t.Errorf("stderr shows the key:\n%s", stderr)
			}
			if got := len(fake.Requests()); got != tt.requests {
				t.Errorf("got %d model requests, want %d", got, tt.requests)
			}
		})
	}
}

func TestChatInteractiveReportsErrorAndGoesOn(t *testing.T) {
	fake := llmtest.NewServer(t, llmtest.Step{Status: 404}, llmtest.Step{Text: "Fine."})
	stdout, _, err := runChatCmd(t, "first\nsecond\n", fakeModelEnv(t, fake), "--mcp-config", noServers(t))
	if err != nil {
		t.Fatalf("chat: %v", err)
	}
	first, rest, _ := strings.Cut(stdout, "\n")
	if !strings.HasPrefix(first, `> [error] model not found: "fake-model"`) || rest != "> Fine.\n> \n" {
		t.Errorf("stdout: got %q, want an [error] line for the first question and the answer to the second", stdout)
	}
}

func TestChatWithoutModelUsesOfflinePlanner(t *testing.T) {
	env := chatEnv(t, nil)
	stdout, stderr, err := runChatCmd(t, "", env, `calculate "(17 * 23) + 4"`)
	if err != nil {
		t.Fatalf("chat: %v\nstderr:\n%s", err, stderr)
	}
	for _, want := range []string{
		`[tool] byomcp__calculate({"expression":"(17 * 23) + 4"})` + "\n[tool] byomcp__calculate -> (17 * 23) + 4 = 395\n",
		"Result: (17 * 23) + 4 = 395",
		"Offline planner",
		"OPENAI_API_KEY",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout:\n%s\nwant it to contain %q", stdout, want)
		}
	}
	if want := "[model] offline planner: no model configured"; !strings.Contains(stderr, want) || !strings.Contains(stderr, env["OLLAMA_HOST"]) {
		t.Errorf("stderr:\n%s\nwant %q naming the Ollama address tried (%s)", stderr, want, env["OLLAMA_HOST"])
	}

	// A model asked for by name with neither a key nor an Ollama is an error, not the planner.
	_, _, err = runChatCmd(t, "", env, "--mcp-config", noServers(t), "--model", "llama3.2", "hi")
	if err == nil || !strings.Contains(err.Error(), `model "llama3.2" was asked for, but no API key is set`) {
		t.Errorf("--model without a provider: err = %v, want it to say no API key is set", err)
	}
}

func TestOllamaURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"  ", ""},
		{"127.0.0.1:1234", "http://127.0.0.1:1234"},
		{"gpu-box", "http://gpu-box:11434"},
		{":8080", "http://127.0.0.1:8080"},
		{"0.0.0.0", "http://0.0.0.0:11434"},
		{"http://ollama.lan:11434/", "http://ollama.lan:11434"},
		{"https://ollama.example.com", "https://ollama.example.com:11434"},
		{"[::1]:5000", "http://[::1]:5000"},
		{"ftp://x", ""},
	}
	for _, tt := range tests {
		if got := ollamaURL(tt.in); got != tt.want {
			t.Errorf("ollamaURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestModelErrorSentenceWithoutStatus(t *testing.T) {
	if got, want := modelErrorSentence(context.DeadlineExceeded, "openai x"), "the model did not answer in time"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := modelErrorSentence(errors.New("boom"), "openai x"), "the model call failed: boom"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestModelErrorSentenceUnreachable(t *testing.T) {
	err := &llm.Error{Message: "cannot reach the model API at 127.0.0.1:1", Retryable: true}
	want := "cannot reach the model API at 127.0.0.1:1; check the network (and OPENAI_BASE_URL if it is set), then ask again"
	if got := modelErrorSentence(err, "custom m"); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestChatReportsServerProblems(t *testing.T) {
	cfg := writeMCPConfig(t, map[string]any{"broken": map[string]any{"command": "/nonexistent/byomcp-test-server", "autoApprove": []string{}}})
	fake := llmtest.NewServer(t, llmtest.Step{Text: "Still here."})
	stdout, stderr, err := runChatCmd(t, "", fakeModelEnv(t, fake), "--mcp-config", cfg, "hello")
	if err != nil {
		t.Fatalf("chat: %v\nstderr:\n%s", err, stderr)
	}
	if stdout != "Still here.\n" {
		t.Errorf("stdout: got %q, want the answer", stdout)
	}
	for _, want := range []string{
		"[mcp] " + cfg + `: server "broken": field "autoApprove" ignored` + "\n",
		"[mcp] broken: ",
		"/nonexistent/byomcp-test-server",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr:\n%s\nwant it to contain %q", stderr, want)
		}
	}
	if strings.Contains(stderr, `"level"`) {
		t.Errorf("stderr has log lines at the default level:\n%s", stderr)
	}
}

func TestKeyVariableFollowsProvider(t *testing.T) {
	for provider, want := range map[string]string{"openai": "OPENAI_API_KEY", "custom": "OPENAI_API_KEY", "openrouter": "OPENROUTER_API_KEY", "gemini": "GEMINI_API_KEY"} {
		if got := keyVariable(provider); got != want {
			t.Errorf("keyVariable(%q) = %q, want %q", provider, got, want)
		}
	}
}

func TestChatWithThirdPartyServer(t *testing.T) {
	node, entry := mcpserverstest.Everything(t)
	cfg := writeMCPConfig(t, map[string]any{"everything": map[string]any{"command": node, "args": []string{entry, "stdio"}}})
	fake := llmtest.NewServer(t,
		llmtest.Step{Text: "Let me echo that.", ToolCalls: []llmtest.FakeCall{{ID: "call_e", Name: "everything__echo", Args: `{"message":"hello from the terminal"}`}}},
		llmtest.Step{Text: "It echoed."},
	)
	stdout, stderr, err := runChatCmd(t, "", fakeModelEnv(t, fake), "--mcp-config", cfg, "echo something")
	if err != nil {
		t.Fatalf("chat: %v\nstderr:\n%s", err, stderr)
	}
	want := "Let me echo that.\n" +
		`[tool] everything__echo({"message":"hello from the terminal"})` + "\n" +
		"[tool] everything__echo -> Echo: hello from the terminal\n" +
		"It echoed.\n"
	if stdout != want {
		t.Errorf("stdout:\n%q\nwant:\n%q", stdout, want)
	}
	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("got %d model requests, want 2", len(reqs))
	}
	if !slices.ContainsFunc(reqs[0].Tools, func(tool llmtest.RecordedTool) bool { return tool.Name == "everything__get-sum" }) {
		t.Errorf("the server's tools were not offered: %+v", reqs[0].Tools)
	}
	if last := reqs[1].LastMessage(); last.ToolCallID != "call_e" || !strings.Contains(last.Content, "Echo: hello from the terminal") {
		t.Errorf("second request's last message: got %+v, want the echo result", last)
	}
}

// TestAdaptersKeepAudiences checks the two toolboxes built on the Manager: the terminal's
// (mcpservers.Toolbox) and the page conversations' (the Manager as mcpservers.ServerTools). Both servers are this binary's
// `byomcp tools`, one exposed to the web only and one to the terminal only.
func TestAdaptersKeepAudiences(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	server := func(expose string) map[string]any {
		return map[string]any{
			"command": self, "args": []string{"tools", "--notes", filepath.Join(t.TempDir(), "notes.db")},
			"env": map[string]string{"BYOMCP_TEST_MAIN": "1"}, "expose": []string{expose},
		}
	}
	cfg, err := mcpservers.LoadConfig(writeMCPConfig(t, map[string]any{"pagetools": server("web"), "termtools": server("cli")}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), chatWait)
	defer cancel()
	mgr := mcpservers.Start(ctx, cfg, mcpservers.Options{})
	defer mgr.Close()
	if err := mgr.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	for _, st := range mgr.Status() {
		if st.State != mcpservers.StateReady {
			t.Fatalf("server %s: %+v, want ready", st.Name, st)
		}
	}

	var webNames []string
	for _, def := range mgr.ToolDefs("web") {
		webNames = append(webNames, def.Name)
	}
	cli := mcpservers.Toolbox{Tools: mgr, Audience: mcpservers.AudienceCLI}
	var cliNames []string
	for _, def := range cli.Defs(ctx) {
		cliNames = append(cliNames, def.Name)
	}
	if len(webNames) != 4 || len(cliNames) != 4 {
		t.Fatalf("got web tools %v and terminal tools %v, want 4 each", webNames, cliNames)
	}
	for _, n := range webNames {
		if !strings.HasPrefix(n, "pagetools__") {
			t.Errorf("web tools include %q, want only pagetools__*", n)
		}
	}
	for _, n := range cliNames {
		if !strings.HasPrefix(n, "termtools__") {
			t.Errorf("terminal tools include %q, want only termtools__*", n)
		}
	}

	args := json.RawMessage(`{"expression":"6 * 7"}`)
	res, err := mgr.Call(ctx, "web", "pagetools__calculate", args)
	if err != nil {
		t.Fatalf("web call: %v", err)
	}
	if text, isErr := tools.Render(res, 0); isErr || !strings.Contains(text, "42") {
		t.Errorf("web call: got %q (isError %v), want 42", text, isErr)
	}
	if _, err := mgr.Call(ctx, "web", "termtools__calculate", args); !errors.Is(err, mcpservers.ErrNotExposed) {
		t.Errorf("web call of a terminal-only tool: err = %v, want ErrNotExposed", err)
	}
	out := cli.Call(ctx, chat.ToolCall{ID: "c1", Name: "pagetools__calculate", Arguments: string(args)})
	if !out.IsError() || !strings.Contains(out.Text, "not available to cli") {
		t.Errorf("terminal call of a web-only tool: got %+v, want a tool error", out)
	}
	out = cli.Call(ctx, chat.ToolCall{ID: "c2", Name: "termtools__calculate", Arguments: `{"expression":"6 *"}`})
	if !out.IsError() || out.Name != "termtools__calculate" {
		t.Errorf("terminal call with a bad expression: got %+v, want a tool error", out)
	}
	out = cli.Call(ctx, chat.ToolCall{ID: "c3", Name: "termtools__calculate", Arguments: string(args)})
	if out.IsError() || !strings.Contains(out.Text, "42") {
		t.Errorf("terminal call: got %+v, want 42", out)
	}
}

func TestServeRejectsBadDurations(t *testing.T) {
	env := map[string]string{"BYOMCP_SESSION_TTL": "a week"}
	var out, errOut strings.Builder
	err := run(t.Context(), []string{"serve", "--store", "memory", "--addr", "127.0.0.1:0"}, strings.NewReader(""), &out, &errOut, func(k string) string { return env[k] })
	if err == nil || !strings.Contains(err.Error(), "BYOMCP_SESSION_TTL") {
		t.Errorf("got %v, want an error naming BYOMCP_SESSION_TTL", err)
	}
	if out.Len() != 0 {
		t.Errorf("serve printed %q before refusing its configuration", out.String())
	}
}

// A terminal audit: a server's tool output (and so the model's text) reached the terminal
// with its escape sequences, able to clear the screen, set the window title or write the
// clipboard (OSC 52). Whole sequences are dropped; text, newlines and tabs stay.
func TestSafeText(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, é 漢字 🚗":                              "plain text, é 漢字 🚗",
		"two\nlines\tand a tab":                           "two\nlines\tand a tab",
		"A\x1b[2J\x1b[31mRED\x1b[0m":                      "ARED",
		"title\x1b]0;pwned-title\x07 after":               "title after",
		"clip\x1b]52;c;ZXZpbA==\x1b\\ board":              "clip board",
		"link \x1b]8;;https://evil.example\x1b\\here":     "link here",
		"bell\x07 nul\x00 del\x7f c1\u009b2J cr\rend\x1b": "bell nul del c12J crend",
		"esc then x: \x1bx done":                          "esc then x:  done",
	} {
		if got := safeText(in); got != want {
			t.Errorf("safeText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestChatTerminalShowsNoEscapes(t *testing.T) {
	var out strings.Builder
	term := &terminal{w: &out}
	term.event(&wire.ToolCallEvent{Name: "ev\x1b[2Jil", Arguments: json.RawMessage(`{"q":"\u001b]0;t\u0007x"}`)})
	term.event(&wire.ToolResultEvent{Name: "ev\x1b[2Jil", Text: "A\x1b[2J\x1b]0;pwned\x07B"})
	term.event(&wire.TextDeltaEvent{Delta: "answer\x1b[31m red\n"})
	if strings.ContainsAny(out.String(), "\x1b\x07") {
		t.Fatalf("the terminal got control characters: %q", out.String())
	}
	if want := "[tool] evil({\"q\":\"\\u001b]0;t\\u0007x\"})\n[tool] evil -> AB\nanswer red\n"; out.String() != want { // JSON escapes are text
		t.Errorf("got %q, want %q", out.String(), want)
	}
}

// A terminal audit: a pasted line over 1 MiB ended the session with "token too long",
// history and all. It is refused, and the session goes on.
func TestChatInteractiveLongLineGoesOn(t *testing.T) {
	fake := llmtest.NewServer(t, llmtest.Step{Text: "Paris."})
	stdin := strings.Repeat("x", 2<<20) + "\nWhat is the capital of France?\nexit\n"
	stdout, stderr, err := runChatCmd(t, stdin, fakeModelEnv(t, fake), "--mcp-config", noServers(t))
	if err != nil {
		t.Fatalf("chat: %v\nstderr:\n%s", err, stderr)
	}
	if want := "> [error] that question is over 1024 KiB; it was not sent\n> Paris.\n> "; stdout != want {
		t.Errorf("stdout: got %q, want %q", stdout, want)
	}
	if n := len(fake.Requests()); n != 1 {
		t.Errorf("got %d model requests, want 1 (the long line is not sent)", n)
	}
}

// docs/mcp-servers.md: "[model] and [mcp] lines on stderr say which model and which servers it
// uses": a server that is ready says so too, with its tools, not only one that failed.
func TestChatSaysWhichServersItUses(t *testing.T) {
	fake := llmtest.NewServer(t, llmtest.Step{Text: "Hi."})
	_, stderr, err := runChatCmd(t, "", fakeModelEnv(t, fake), "hello")
	if err != nil {
		t.Fatalf("chat: %v\nstderr:\n%s", err, stderr)
	}
	if !regexp.MustCompile(`(?m)^\[mcp\] byomcp: \d+ tools$`).MatchString(stderr) {
		t.Errorf("stderr:\n%s\nwant an [mcp] line for the built-in tools", stderr)
	}
}

// A terminal audit: flags after the question became words of the question, and the
// defaults were used instead.
func TestChatFlagsAfterTheQuestionAreRefused(t *testing.T) {
	fake := llmtest.NewServer(t)
	_, _, err := runChatCmd(t, "", fakeModelEnv(t, fake), "hello there", "--mcp-config", noServers(t))
	if err == nil || !strings.Contains(err.Error(), "comes after the question") {
		t.Fatalf("got %v, want the flag after the question refused", err)
	}
	if n := len(fake.Requests()); n != 0 {
		t.Errorf("the model got %d requests", n)
	}
}

// A terminal audit: Ctrl-C in the middle of a one-shot question exited 0, as if answered.
func TestChatInterruptedQuestionFails(t *testing.T) {
	fake := llmtest.New(llmtest.Repeat(llmtest.Step{Stall: true}))
	t.Cleanup(fake.Close)
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		for len(fake.Requests()) == 0 && ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond)
		}
		cancel() // Ctrl-C while the model is answering
	}()
	var out, errOut syncBuffer
	env := fakeModelEnv(t, fake)
	err := run(ctx, []string{"chat", "--mcp-config", noServers(t), "hello"}, strings.NewReader(""), &out, &errOut, func(k string) string { return env[k] })
	if err == nil {
		t.Fatalf("an interrupted question ended without an error; stdout %q", out.String())
	}
}

// TestChatAsksForAServersInput: server-everything's trigger-elicitation-request asks the
// person at the terminal for a form of every kind of field MCP allows; the terminal asks
// field by field, asks again after an answer that does not fit, and the answers reach the
// server and, in its result, the model. /decline refuses the next one.
func TestChatAsksForAServersInput(t *testing.T) {
	node, entry := mcpserverstest.Everything(t)
	cfg := writeMCPConfig(t, map[string]any{"everything": map[string]any{"command": node, "args": []string{entry, "stdio"}}})
	fake := llmtest.NewServer(t,
		llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "call_f", Name: "everything__trigger-elicitation-request", Args: `{}`}}},
		llmtest.Step{Text: "Thanks, noted."},
		llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "call_g", Name: "everything__trigger-elicitation-request", Args: `{}`}}},
		llmtest.Step{Text: "Understood."},
	)
	// The question first, then the form's answers: name (required), then the others in the
	// order of their names: birthdate, check, email (one wrong first), firstLine, homepage,
	// integer, legacyTitledEnum, number, titledMultipleSelectEnum, titledSingleSelectEnum,
	// untitledMultipleSelectEnum, untitledSingleSelectEnum. Then a second question, declined.
	stdin := strings.Join([]string{
		"fill in the form",
		"Jane Doe", "", "y", "jane at example", "jane@example.com", "", "", "7", "Dogs", "", "", "2", "", "",
		"and again", "/decline", "",
	}, "\n")
	stdout, stderr, err := runChatCmd(t, stdin, fakeModelEnv(t, fake), "--mcp-config", cfg)
	if err != nil {
		t.Fatalf("chat: %v\nstderr:\n%s", err, stderr)
	}
	for _, want := range []string{
		"[mcp] everything asks: Please provide inputs for the following fields:",
		"  String: Your full, legal name\n",
		"  ! an e-mail address",
		"    1 Superman   2 Green Lantern   3 Wonder Woman [Superman]",
		"[mcp] your answers went to everything",
		"[mcp] everything was told you declined",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the terminal did not show %q:\n%s", want, stdout)
		}
	}
	reqs := fake.Requests()
	if len(reqs) != 4 {
		t.Fatalf("got %d model requests, want 4\n%s", len(reqs), stdout)
	}
	result := reqs[1].LastMessage().Content
	for _, want := range []string{"- Name: Jane Doe", "- Agreed to terms: true", "- Email: jane@example.com", "- Favorite Integer: 7", `"titledSingleSelectEnum": "hero-2"`, `"legacyTitledEnum": "pet-2"`} {
		if !strings.Contains(result, want) {
			t.Errorf("the tool's result, as the model read it, lacks %q:\n%s", want, result)
		}
	}
	if declined := reqs[3].LastMessage().Content; !strings.Contains(declined, "declined") {
		t.Errorf("the declined form's result: %q", declined)
	}
}

// TestChatSaysAToolHasAUI runs the MCP organisation's basic MCP App server
// (@modelcontextprotocol/server-basic-vanillajs, over stdio): its get-time tool declares a
// ui:// resource, and `byomcp chat` prints the tool's text result and that it has a UI.
func TestChatSaysAToolHasAUI(t *testing.T) {
	server, err := filepath.Abs("../../node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js")
	if err != nil {
		t.Fatal(err)
	}
	node, lookErr := exec.LookPath("node")
	if _, err := os.Stat(server); err != nil || lookErr != nil {
		t.Skipf("needs node and `npm ci` (server-basic-vanillajs): %v %v", err, lookErr)
	}
	fake := llmtest.NewServer(t,
		llmtest.Step{ToolCalls: []llmtest.FakeCall{{ID: "call_1", Name: "basic__get-time", Args: `{}`}}},
		llmtest.Step{Text: "It is now."},
	)
	cfg := writeMCPConfig(t, map[string]any{"basic": map[string]any{"command": node, "args": []string{server, "--stdio"}}})
	stdout, stderr, err := runChatCmd(t, "", fakeModelEnv(t, fake), "--mcp-config", cfg, "what time is it?")
	if err != nil {
		t.Fatalf("chat: %v\nstderr:\n%s", err, stderr)
	}
	lines := strings.Split(stdout, "\n")
	if len(lines) < 4 || !regexp.MustCompile(`^\[tool\] basic__get-time -> \d{4}-\d\d-\d\dT`).MatchString(lines[1]) ||
		lines[2] != "[app] basic__get-time has a UI (ui://get-time/mcp-app.html): shown in the web widget, not here" {
		t.Errorf("stdout:\n%s\nwant the time, then the [app] line", stdout)
	}
}
