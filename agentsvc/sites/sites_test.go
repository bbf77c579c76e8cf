package sites

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
)

var update = flag.Bool("update", false, "rewrite docs/sites.schema.json")

const goldenSchema = "../../docs/sites.schema.json"

// TestSchemaGolden keeps the published schema equal to the one generated from File
// (go test ./agentsvc/sites -run TestSchemaGolden -update refreshes it).
func TestSchemaGolden(t *testing.T) {
	got := Schema()
	if *update {
		if err := os.WriteFile(goldenSchema, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(goldenSchema)
	if err != nil {
		t.Fatalf("%v (run the test with -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("docs/sites.schema.json is not the schema generated from File: run go test ./agentsvc/sites -run TestSchemaGolden -update")
	}
}

const good = `{
  "$schema": "../docs/sites.schema.json",
  "sites": [
    {
      "name": "shop",
      "origins": ["https://shop.example", "http://localhost:*"],
      "systemPrompt": "You are the shop's assistant.",
      "greeting": "Hi! Looking for a car?",
      "suggestions": ["Show me SUVs"],
      "strings": {"title": "Shop assistant"},
      "locale": "en-GB",
      "model": {"name": "gpt-4o", "baseURL": "https://llm.example/v1", "apiKeyEnv": "SHOP_KEY"},
      "mcpServers": ["weather"],
      "confirmTools": ["place_order"],
      "guards": {"maxModelCalls": 4, "maxToolCalls": 8},
      "budget": {"sessionTokensPerHour": 1000, "siteTokensPerDay": 5000}
    },
    {
      "name": "blog",
      "origins": ["https://blog.example:8443"],
      "systemPromptFile": "blog-prompt.txt"
    }
  ]
}`

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func env(vars map[string]string) Env { return func(k string) string { return vars[k] } }

func TestParseGood(t *testing.T) {
	dir := writeFiles(t, map[string]string{"sites.json": good, "blog-prompt.txt": "  You answer questions about the blog.\n"})
	cfg, err := Load(filepath.Join(dir, "sites.json"), env(map[string]string{"SHOP_KEY": "k"}))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ origin, want string }{
		{"https://shop.example", "shop"},
		{"https://shop.example:443", "shop"},
		{"https://SHOP.example", "shop"},
		{"http://localhost:3000", "shop"},
		{"https://blog.example:8443", "blog"},
		{"https://blog.example", ""},
		{"http://shop.example", ""},
		{"https://evil.example", ""},
		{"null", ""},
		{"", ""},
	} {
		if got := cfg.Lookup(c.origin).Label(); got != c.want {
			t.Errorf("Lookup(%q) = %q, want %q", c.origin, got, c.want)
		}
	}
	shop, blog := cfg.Sites[0], cfg.Sites[1]
	if got := blog.SystemPrompt("default"); got != "You answer questions about the blog." {
		t.Errorf("blog prompt = %q, want the file's text", got)
	}
	if got := shop.SystemPrompt("default"); !strings.HasPrefix(got, "You are the shop's assistant.") || !strings.Contains(got, "en-GB") {
		t.Errorf("shop prompt = %q, want its prompt and its locale", got)
	}
	if got := (*Site)(nil).SystemPrompt("default"); got != "default" {
		t.Errorf("nil site prompt = %q, want the default", got)
	}
	if !shop.Confirms("place_order") || shop.Confirms("filter_cars") || (*Site)(nil).Confirms("place_order") {
		t.Error("Confirms: want place_order only, on the shop only")
	}
	if mm, mt := shop.Guards(); mm != 4 || mt != 8 {
		t.Errorf("Guards = %d, %d, want 4, 8", mm, mt)
	}
	if !shop.AllowsServer("weather__forecast") || shop.AllowsServer("files__read") || !blog.AllowsServer("files__read") {
		t.Error("AllowsServer: the shop has weather only, the blog every server")
	}
	pub := shop.Public()
	if pub.Strings["greeting"] != "Hi! Looking for a car?" || pub.Strings["title"] != "Shop assistant" || len(pub.Suggestions) != 1 || pub.Locale != "en-GB" {
		t.Errorf("Public = %+v", pub)
	}
	if b, _ := json.Marshal(pub); strings.Contains(string(b), "SHOP_KEY") || strings.Contains(string(b), "assistant.") {
		t.Errorf("Public tells the page more than its strings: %s", b)
	}
}

// TestValidationErrors: each problem gives one line naming its key.
func TestValidationErrors(t *testing.T) {
	site := func(extra string) string {
		return `{"sites": [{"name": "shop", "origins": ["https://shop.example"]` + extra + `}]}`
	}
	cases := []struct {
		name, file string
		env        map[string]string
		want       []string
	}{
		{"not JSON", `{"sites": [}`, nil, []string{"not JSON: line 1"}},
		{"unknown key", site(`, "greting": "Hi"`), nil, []string{`sites[0].greting: unknown key`}},
		{"unknown top-level key", `{"sites": [{"name": "a", "origins": ["https://a.example"]}], "site": []}`, nil, []string{`site: unknown key`}},
		{"unknown nested key", site(`, "budget": {"tokensPerDay": 5}`), nil, []string{`sites[0].budget.tokensPerDay: unknown key`}},
		{"wrong type", site(`, "greeting": 5`), nil, []string{`sites[0].greeting: got number, want string`}},
		{"wrong type in a list", site(`, "suggestions": ["a", 2]`), nil, []string{`sites[0].suggestions[1]: got number, want string`}},
		{"wrong type of budget", site(`, "budget": {"siteTokensPerDay": "lots"}`), nil, []string{`sites[0].budget.siteTokensPerDay: got string, want integer`}},
		{"missing name", `{"sites": [{"origins": ["https://a.example"]}]}`, nil, []string{`sites[0].name: missing (required)`}},
		{"missing sites", `{}`, nil, []string{`sites: missing (required)`}},
		{"no origins", `{"sites": [{"name": "a", "origins": []}]}`, nil, []string{`sites[0].origins: minItems`}},
		{"budget below 1", site(`, "budget": {"sessionTokensPerHour": 0}`), nil, []string{`sites[0].budget.sessionTokensPerHour: minimum`}},
		// Numbers an int64 cannot hold: the schema's maximum names the key (before, the
		// decoder's "cannot unmarshal" came out raw, and serve exited 1).
		{"budget 1e30", site(`, "budget": {"siteTokensPerDay": 1e30}`), nil, []string{`sites[0].budget.siteTokensPerDay: maximum`}},
		{"budget 2^63", site(`, "budget": {"sessionTokensPerHour": 9223372036854775808}`), nil, []string{`sites[0].budget.sessionTokensPerHour: maximum`}},
		{"budget past 10^15", site(`, "budget": {"siteTokensPerDay": 1000000000000001}`), nil, []string{`sites[0].budget.siteTokensPerDay: maximum`}},
		{"bad origin", site(`, "name": "x"`)[:0] + `{"sites": [{"name": "a", "origins": ["shop.example"]}]}`, nil, []string{`sites[0].origins[0]: want an origin such as https://shop.example`}},
		{"origin with a path", `{"sites": [{"name": "a", "origins": ["https://a.example/"]}]}`, nil, []string{`sites[0].origins[0]: an origin has no path`}},
		{"wildcard host", `{"sites": [{"name": "a", "origins": ["https://*.example"]}]}`, nil, []string{`sites[0].origins[0]: want an origin`}},
		{"overlapping origins", `{"sites": [{"name": "a", "origins": ["https://a.example"]}, {"name": "b", "origins": ["https://a.example:443"]}]}`, nil,
			[]string{`sites[1].origins[0]: "https://a.example:443" overlaps sites[0].origins[0] "https://a.example"`}},
		{"overlapping wildcard port", `{"sites": [{"name": "a", "origins": ["http://localhost:*"]}, {"name": "b", "origins": ["http://localhost:3000"]}]}`, nil,
			[]string{`sites[1].origins[0]: "http://localhost:3000" overlaps sites[0].origins[0]`}},
		{"duplicate name", `{"sites": [{"name": "a", "origins": ["https://a.example"]}, {"name": "a", "origins": ["https://b.example"]}]}`, nil,
			[]string{`sites[1].name: "a" is already the name of sites[0]`}},
		{"missing prompt file", site(`, "systemPromptFile": "nope.txt"`), nil, []string{`sites[0].systemPromptFile: `, `nope.txt does not exist`}},
		{"prompt and prompt file", site(`, "systemPrompt": "x", "systemPromptFile": "p.txt"`), nil, []string{`sites[0].systemPromptFile: give systemPrompt or systemPromptFile, not both`}},
		{"key variable not set", site(`, "model": {"name": "m", "baseURL": "https://llm.example/v1", "apiKeyEnv": "SHOP_KEY"}`), nil,
			[]string{`sites[0].model.apiKeyEnv: the environment variable SHOP_KEY is not set`}},
		{"key variable without base URL", site(`, "model": {"name": "m", "apiKeyEnv": "SHOP_KEY"}`), map[string]string{"SHOP_KEY": "k"},
			[]string{`sites[0].model.apiKeyEnv: needs model.baseURL`}},
		{"base URL not http", site(`, "model": {"name": "m", "baseURL": "ftp://llm.example"}`), nil, []string{`sites[0].model.baseURL: `}},
		{"empty suggestion", site(`, "suggestions": [" "]`), nil, []string{`sites[0].suggestions[0]: empty`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeFiles(t, map[string]string{"sites.json": c.file})
			_, err := Load(filepath.Join(dir, "sites.json"), env(c.env))
			var e *Errors
			if !errors.As(err, &e) {
				t.Fatalf("got %v, want *Errors", err)
			}
			if !IsInvalid(err) {
				t.Error("IsInvalid = false")
			}
			if len(e.List) != 1 {
				t.Errorf("got %d problems, want 1:\n%v", len(e.List), err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("got\n%v\nwant it to contain %q", err, w)
				}
			}
			if !strings.HasPrefix(err.Error(), filepath.Join(dir, "sites.json")+": ") {
				t.Errorf("got %q, want it to start with the file's path", err)
			}
		})
	}
}

func TestMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "sites.json"), nil)
	if !IsInvalid(err) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("got %v, want the file does not exist", err)
	}
}

// TestDirectory: a path that names a directory is a problem of the configuration, one line
// naming the path.
func TestDirectory(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(dir, nil)
	if !IsInvalid(err) || err.Error() != dir+": is a directory; want the sites.json file" {
		t.Errorf("got %v, want %s: is a directory", err, dir)
	}
}

// TestWholeNumbers: the largest budget the schema allows is read as it is, and whole
// numbers written as 1e6 or 4.0 (JSON Schema's integers) are read as the numbers they are
// (encoding/json alone refuses them for an int64 with "cannot unmarshal").
func TestWholeNumbers(t *testing.T) {
	cfg, err := Parse("sites.json", []byte(`{"sites": [{"name": "a", "origins": ["https://a.example"],
		"budget": {"siteTokensPerDay": 1000000000000000, "sessionTokensPerHour": 2.5e5}, "guards": {"maxModelCalls": 4.0}}]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	site := cfg.Sites[0]
	if b := site.Budget; b.SiteTokensPerDay != 1e15 || b.SessionTokensPerHour != 250000 {
		t.Errorf("budget %+v, want 10^15 a day and 250,000 an hour", *b)
	}
	if mm, _ := site.Guards(); mm != 4 {
		t.Errorf("maxModelCalls %d, want 4", mm)
	}
}

// fakeModel answers every call with a fixed usage.
type fakeModel struct{ tokens int64 }

func (f fakeModel) Name() string { return "fake" }
func (f fakeModel) Stream(ctx context.Context, req llm.Request, onDelta func(string)) (*llm.Response, error) {
	return &llm.Response{Usage: chat.Usage{PromptTokens: f.tokens - 1, CompletionTokens: 1, TotalTokens: f.tokens}}, nil
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestBudget(t *testing.T) {
	dir := writeFiles(t, map[string]string{"sites.json": `{"sites": [
		{"name": "shop", "origins": ["https://shop.example"], "budget": {"sessionTokensPerHour": 100, "siteTokensPerDay": 250}},
		{"name": "free", "origins": ["https://free.example"]}]}`})
	clk := &clock{t: time.Date(2026, 12, 1, 10, 30, 0, 0, time.UTC)}
	refusals := 0
	reg, err := Open(filepath.Join(dir, "sites.json"), Options{Now: clk.now, OnRefuse: func() { refusals++ }})
	if err != nil {
		t.Fatal(err)
	}
	shop := reg.Lookup("https://shop.example")
	ctx := context.Background()
	m := shop.Meter(fakeModel{tokens: 60}, "s1")
	call := func(m llm.Model) error { _, err := m.Stream(ctx, llm.Request{}, nil); return err }

	if err := shop.Admit("s1"); err != nil {
		t.Fatalf("first turn refused: %v", err)
	}
	for i := range 2 { // 120 tokens: the second call was admitted at 60
		if err := call(m); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	var be *BudgetError
	if err := shop.Admit("s1"); !errors.As(err, &be) || be.Scope != "session" {
		t.Fatalf("turn over the session budget: got %v, want a session BudgetError", err)
	}
	if !strings.Contains(be.Error(), "11:00 UTC") {
		t.Errorf("message %q should say when the conversation can go on (11:00 UTC)", be.Error())
	}
	if err := call(m); !errors.As(err, &be) {
		t.Errorf("model call over the session budget: got %v, want BudgetError", err)
	}
	// Other conversations of the same site still have room, until the site's day is used up.
	for i, session := range []string{"s2", "s2", "s3"} { // site: 120 + 180 = 300 >= 250 after these
		if err := call(shop.Meter(fakeModel{tokens: 60}, session)); err != nil {
			t.Fatalf("call %d of %s: %v", i, session, err)
		}
	}
	if err := shop.Admit("s4"); !errors.As(err, &be) || be.Scope != "site" {
		t.Fatalf("turn over the site budget: got %v, want a site BudgetError", err)
	}
	if got := counterValue(t, reg.acct.refused.WithLabelValues("shop", "site")); got != 1 {
		t.Errorf("refused{site} = %v, want 1", got)
	}
	if got := counterValue(t, reg.acct.refused.WithLabelValues("shop", "session")); got != 2 {
		t.Errorf("refused{session} = %v, want 2", got)
	}
	if refusals != 3 { // s1 twice, s4
		t.Errorf("OnRefuse called %d times, want 3", refusals)
	}
	if got := counterValue(t, reg.acct.tokens.WithLabelValues("shop")); got != 300 {
		t.Errorf("site tokens = %v, want 300", got)
	}
	// A site without a budget is never refused; nil sites neither.
	if err := reg.Lookup("https://free.example").Admit("x"); err != nil {
		t.Errorf("free site: %v", err)
	}
	if err := (*Site)(nil).Admit("x"); err != nil {
		t.Errorf("nil site: %v", err)
	}
	// A reload keeps the accounting; the next day the site has its budget again.
	if err := reg.Reload(); err != nil {
		t.Fatal(err)
	}
	if err := reg.Lookup("https://shop.example").Admit("s3"); err == nil {
		t.Error("a reload reset the site's budget")
	}
	clk.add(14 * time.Hour)
	if err := reg.Lookup("https://shop.example").Admit("s1"); err != nil {
		t.Errorf("next day: %v", err)
	}
	if day, hour := reg.Used("shop", "s1"); day != 0 || hour != 0 {
		t.Errorf("next day: used %d today, %d this hour; want 0, 0", day, hour)
	}
}

// TestReload: a reload swaps the configuration while lookups go on; an invalid file keeps
// the one in force.
func TestReload(t *testing.T) {
	dir := writeFiles(t, map[string]string{"sites.json": `{"sites": [{"name": "a", "origins": ["https://a.example"], "greeting": "one"}]}`})
	path := filepath.Join(dir, "sites.json")
	reg, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if g := reg.Lookup("https://a.example").Public().Strings["greeting"]; g != "one" && g != "two" {
					t.Errorf("greeting %q during reload", g)
					return
				}
			}
		})
	}
	if err := os.WriteFile(path, []byte(`{"sites": [{"name": "a", "origins": ["https://a.example"], "greeting": "two"}, {"name": "b", "origins": ["https://b.example"]}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := reg.Reload(); err != nil {
		t.Fatal(err)
	}
	close(stop)
	wg.Wait()
	if g := reg.Lookup("https://a.example").Public().Strings["greeting"]; g != "two" {
		t.Errorf("greeting after reload = %q, want two", g)
	}
	if reg.Lookup("https://b.example") == nil {
		t.Error("site b not there after reload")
	}
	if err := os.WriteFile(path, []byte(`{"sites": [{"name": "a", "origins": ["https://a.example"], "greting": "three"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := reg.Reload(); !IsInvalid(err) {
		t.Fatalf("reload of an invalid file: got %v, want *Errors", err)
	}
	if g := reg.Lookup("https://a.example").Public().Strings["greeting"]; g != "two" || reg.Lookup("https://b.example") == nil {
		t.Errorf("an invalid file replaced the configuration in force (greeting %q)", g)
	}
}

func TestModelPerSite(t *testing.T) {
	dir := writeFiles(t, map[string]string{"sites.json": `{"sites": [{"name": "a", "origins": ["https://a.example"], "model": {"name": "big"}}, {"name": "b", "origins": ["https://b.example"]}]}`})
	var asked []Model
	reg, err := Open(filepath.Join(dir, "sites.json"), Options{NewModel: func(m Model) (llm.Model, error) {
		asked = append(asked, m)
		return fakeModel{tokens: 1}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	def := fakeModel{tokens: 2}
	if got := reg.Lookup("https://a.example").Model(def); got != (fakeModel{tokens: 1}) {
		t.Errorf("site a's model = %v, want its own", got)
	}
	if got := reg.Lookup("https://b.example").Model(def); got != def {
		t.Errorf("site b's model = %v, want the server's", got)
	}
	if len(asked) != 1 || asked[0].Name != "big" {
		t.Errorf("NewModel asked for %+v, want big once", asked)
	}
	_, err = Open(filepath.Join(dir, "sites.json"), Options{NewModel: func(Model) (llm.Model, error) { return nil, errors.New("no such model") }})
	if err == nil || !strings.Contains(err.Error(), "sites[0].model: no such model") {
		t.Errorf("got %v, want the model's error naming sites[0].model", err)
	}
}

func TestHandler(t *testing.T) {
	dir := writeFiles(t, map[string]string{"sites.json": `{"sites": [{"name": "a", "origins": ["https://a.example"], "greeting": "Hello", "suggestions": ["Hi"], "systemPrompt": "secret instructions"}]}`})
	reg, err := Open(filepath.Join(dir, "sites.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := Handler(reg.Lookup)
	for _, c := range []struct{ origin, want string }{
		{"https://a.example", `{"site":"a","strings":{"greeting":"Hello"},"suggestions":["Hi"]}`},
		{"https://other.example", `{}`},
		{"", `{}`},
	} {
		req := httptest.NewRequest(http.MethodGet, "/v1/site", nil)
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if got := strings.TrimSpace(rec.Body.String()); got != c.want {
			t.Errorf("origin %q: got %s, want %s", c.origin, got, c.want)
		}
		if rec.Header().Get("Access-Control-Allow-Origin") != "*" {
			t.Error("not readable from other origins")
		}
	}
}

func counterValue(t *testing.T, c prometheus.Counter) float64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetCounter().GetValue()
}

// TestGuideExample: the sites.json of docs/sites.md ("Run it for your site", the guide the
// README sends a site's operator to) is valid.
func TestGuideExample(t *testing.T) {
	guide, err := os.ReadFile("../../docs/sites.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(guide), "# Run it for your site")
	if !ok {
		t.Fatal("docs/sites.md has no Run it for your site heading")
	}
	_, block, ok := strings.Cut(after, "```json\n")
	if !ok {
		t.Fatal("no json block in the section")
	}
	block, _, _ = strings.Cut(block, "```")
	dir := writeFiles(t, map[string]string{"sites.json": block})
	if err := os.MkdirAll(filepath.Join(dir, "prompts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "prompts", "docs.txt"), []byte("You answer questions about the docs."), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(filepath.Join(dir, "sites.json"), env(map[string]string{"NORTHWIND_OPENAI_KEY": "sk-test"}))
	if err != nil {
		t.Fatalf("the sites.json of docs/sites.md: %v", err)
	}
	if cfg.Lookup("https://www.northwind-motors.example").Label() != "northwind" || cfg.Lookup("http://localhost:5173").Label() != "docs" {
		t.Error("the origins of docs/sites.md do not find their sites")
	}
}
