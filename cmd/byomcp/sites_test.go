package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// siteOf asks GET /v1/site as a page of origin would.
func siteOf(t *testing.T, serverURL, origin string) map[string]any {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, serverURL+"/v1/site", nil)
	req.Header.Set("Origin", origin)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func greetingOf(v map[string]any) string {
	s, _ := v["strings"].(map[string]any)
	g, _ := s["greeting"].(string)
	return g
}

// systemOf is the system message of a recorded model request.
func systemOf(req llmtest.RecordedRequest) string {
	for _, m := range req.Messages {
		if m.Role == "system" {
			return m.Content
		}
	}
	return ""
}

func writeSites(t *testing.T, path, prompt, greeting string) {
	t.Helper()
	body := `{"sites": [{"name": "shop", "origins": ["` + pageOrigin + `"], "systemPrompt": "` + prompt + `", "greeting": "` + greeting + `", "suggestions": ["Show me SUVs"]}]}`
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSitesReloadOnSIGHUP: serve --sites applies the site's prompt and serves its greeting;
// after the file changes and SIGHUP, the same open socket's next turn has the new prompt and
// /v1/site the new greeting.
func TestSitesReloadOnSIGHUP(t *testing.T) {
	fake := llmtest.New(llmtest.WithResponder(func(req llmtest.RecordedRequest) llmtest.Step {
		return llmtest.Step{Text: "Fine."}
	}))
	t.Cleanup(fake.Close)
	path := filepath.Join(t.TempDir(), "sites.json")
	writeSites(t, path, "Prompt one.", "Hello one")
	p := startServe(t, fake.URL, "--store", "memory", "--sites", path)
	if got := greetingOf(siteOf(t, p.url, pageOrigin)); got != "Hello one" {
		t.Fatalf("greeting %q, want Hello one", got)
	}
	if got := siteOf(t, p.url, "http://elsewhere.example"); len(got) != 0 {
		t.Errorf("another origin got %v, want {}", got)
	}
	page := dialPage(t, p.url)
	page.session(wire.SessionParams{})
	page.chat("one")
	writeSites(t, path, "Prompt two.", "Hello two")
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(procWait)
	for greetingOf(siteOf(t, p.url, pageOrigin)) != "Hello two" {
		if time.Now().After(deadline) {
			t.Fatalf("the greeting did not change after SIGHUP; logs:\n%s", p.logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	page.chat("two") // the same socket: it was not dropped
	reqs := fake.Requests()
	if len(reqs) != 2 {
		t.Fatalf("got %d model requests, want 2", len(reqs))
	}
	if got := systemOf(reqs[0]); got != "Prompt one." {
		t.Errorf("first turn's system prompt %q, want Prompt one.", got)
	}
	if got := systemOf(reqs[1]); got != "Prompt two." {
		t.Errorf("turn after SIGHUP has system prompt %q, want Prompt two.", got)
	}
	// An invalid file at the next SIGHUP is logged and changes nothing.
	if err := os.WriteFile(path, []byte(`{"sites": [{"name": "shop", "origins": ["`+pageOrigin+`"], "greting": "x"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	for !strings.Contains(p.logs.String(), "reload failed") {
		if time.Now().After(deadline) {
			t.Fatalf("no reload failure logged; logs:\n%s", p.logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(p.logs.String(), "sites[0].greting: unknown key") {
		t.Errorf("the log does not name the bad key; logs:\n%s", p.logs.String())
	}
	if got := greetingOf(siteOf(t, p.url, pageOrigin)); got != "Hello two" {
		t.Errorf("greeting %q after an invalid file, want Hello two", got)
	}
}

// TestSystemPromptFlag: without --sites, --system-prompt is the instructions of every turn.
func TestSystemPromptFlag(t *testing.T) {
	fake := llmtest.New(llmtest.WithResponder(func(req llmtest.RecordedRequest) llmtest.Step { return llmtest.Step{Text: "Ok."} }))
	t.Cleanup(fake.Close)
	p := startServe(t, fake.URL, "--store", "memory", "--system-prompt", "Answer like a pirate.")
	page := dialPage(t, p.url)
	page.session(wire.SessionParams{})
	page.chat("hi")
	if reqs := fake.Requests(); len(reqs) != 1 || systemOf(reqs[0]) != "Answer like a pirate." {
		t.Errorf("got requests %+v, want one with the flag's system prompt", reqs)
	}
}

// TestInvalidSitesExit2: serve refuses an invalid sites.json with exit status 2 and one line
// per problem naming its key.
func TestInvalidSitesExit2(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sites.json")
	if err := os.WriteFile(path, []byte(`{"sites": [
		{"name": "a", "origins": ["https://a.example"], "greting": "Hi"},
		{"name": "b", "origins": ["https://a.example"], "budget": {"siteTokensPerDay": "many"}, "systemPromptFile": "missing.txt"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "serve", "--addr", "127.0.0.1:0", "--store", "memory", "--sites", path)
	cmd.Env = []string{"BYOMCP_TEST_MAIN=1", "PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("got %v, want exit status 2; output:\n%s", err, out)
	}
	for _, want := range []string{"sites[0].greting: unknown key", "sites[1].budget.siteTokensPerDay: got string, want integer"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output does not contain %q:\n%s", want, out)
		}
	}
	// Schema problems come first; with those fixed, the checks the schema cannot make.
	if err := os.WriteFile(path, []byte(`{"sites": [
		{"name": "a", "origins": ["https://a.example"]},
		{"name": "b", "origins": ["https://a.example"], "systemPromptFile": "missing.txt"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(exe, "serve", "--addr", "127.0.0.1:0", "--store", "memory", "--sites", path)
	cmd.Env = []string{"BYOMCP_TEST_MAIN=1", "PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	out, err = cmd.CombinedOutput()
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("got %v, want exit status 2; output:\n%s", err, out)
	}
	for _, want := range []string{`sites[1].origins[0]: "https://a.example" overlaps sites[0].origins[0]`, "sites[1].systemPromptFile: ", "missing.txt does not exist"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output does not contain %q:\n%s", want, out)
		}
	}
}

// A terminal audit: a site's mcpServers naming a server that does not exist was accepted
// without a word, the site left without the tools its owner meant it to have.
func TestSitesWarnOfUnknownServers(t *testing.T) {
	dir := t.TempDir()
	sitesPath := filepath.Join(dir, "sites.json")
	if err := os.WriteFile(sitesPath, []byte(`{"sites": [{"name": "shop", "origins": ["`+pageOrigin+`"], "mcpServers": ["known", "nonexistent", "cliOnly"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	mcpPath := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(mcpPath, []byte(`{"mcpServers": {"known": {"url": "http://127.0.0.1:1/mcp", "expose": ["web"]}, "cliOnly": {"url": "http://127.0.0.1:1/mcp"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startServe(t, "http://127.0.0.1:1", "--store", "memory", "--sites", sitesPath, "--mcp-config", mcpPath)
	logs := p.startLogs(t)
	for server, want := range map[string]bool{"known": false, "nonexistent": true, "cliOnly": true} {
		if got := strings.Contains(logs, `"server":"`+server+`"`); got != want {
			t.Errorf("a warning for %q: %v, want %v; logs:\n%s", server, got, want, logs)
		}
	}
}

// TestSitesLogEachSiteModel: with a site that has its own model, the start-up log names
// each site's model, not only the server's (which serves pages of no site).
func TestSitesLogEachSiteModel(t *testing.T) {
	sitesPath := filepath.Join(t.TempDir(), "sites.json")
	if err := os.WriteFile(sitesPath, []byte(`{"sites": [
		{"name": "shop", "origins": ["`+pageOrigin+`"], "model": {"name": "site-model-7", "baseURL": "http://127.0.0.1:1/v1"}},
		{"name": "blog", "origins": ["https://blog.example"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startServe(t, "http://127.0.0.1:1", "--store", "memory", "--sites", sitesPath)
	logs := p.startLogs(t)
	for _, want := range []string{
		`"site":"shop","origins":["` + pageOrigin + `"],"model":"site-model-7 at http://127.0.0.1:1/v1"`,
		`"site":"blog","origins":["https://blog.example"],"model":"`,
	} {
		if !strings.Contains(logs, want) {
			t.Errorf("the start-up log has no %s; logs:\n%s", want, logs)
		}
	}
	if strings.Contains(logs, `"site":"blog","origins":["https://blog.example"],"model":"site-model-7`) {
		t.Errorf("blog is logged with shop's model; logs:\n%s", logs)
	}
}

// TestServeSitesSchema: the agent serves sites.json's schema at /byomcp/sites.schema.json, as
// JSON Schema, the same as docs/sites.schema.json, whose $id is a raw URL (not a GitHub page).
func TestServeSitesSchema(t *testing.T) {
	p := startServe(t, "http://127.0.0.1:1", "--store", "memory")
	resp, err := http.Get(p.url + "/byomcp/sites.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/schema+json" {
		t.Fatalf("got %d %q, want 200 application/schema+json", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var schema struct {
		ID         string         `json:"$id"`
		Properties map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(body, &schema); err != nil {
		t.Fatalf("the schema does not parse: %v", err)
	}
	if schema.Properties["sites"] == nil || !strings.HasPrefix(schema.ID, "https://raw.githubusercontent.com/") {
		t.Errorf("got $id %q and properties %v, want a raw URL and the sites property", schema.ID, schema.Properties)
	}
	doc, err := os.ReadFile("../../docs/sites.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(body, doc) {
		t.Error("the served schema differs from docs/sites.schema.json")
	}
}
