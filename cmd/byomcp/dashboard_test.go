package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// The shipped monitoring files: docs/deploy/grafana-dashboard.json is a Grafana dashboard
// whose every query reads series that a real `byomcp serve` exposes on /metrics, and
// docs/deploy/prometheus.yml scrapes the replicas' /metrics.

const (
	dashboardFile  = "../../docs/deploy/grafana-dashboard.json"
	prometheusFile = "../../docs/deploy/prometheus.yml"
)

type grafanaDashboard struct {
	Title         string         `json:"title"`
	UID           string         `json:"uid"`
	SchemaVersion int            `json:"schemaVersion"`
	Panels        []grafanaPanel `json:"panels"`
	Templating    struct {
		List []struct {
			Name  string `json:"name"`
			Type  string `json:"type"`
			Query string `json:"query"`
		} `json:"list"`
	} `json:"templating"`
}

type grafanaPanel struct {
	Type       string `json:"type"`
	Title      string `json:"title"`
	Datasource *struct {
		Type string `json:"type"`
		UID  string `json:"uid"`
	} `json:"datasource"`
	GridPos *struct{ H, W, X, Y int } `json:"gridPos"`
	Targets []struct {
		Expr  string `json:"expr"`
		RefID string `json:"refId"`
	} `json:"targets"`
}

var (
	metricName = regexp.MustCompile(`\bbyomcp_[a-zA-Z0-9_]+`)
	byLabels   = regexp.MustCompile(`\bby\s*\(([^)]*)\)`)
	matchers   = regexp.MustCompile(`(byomcp_[a-zA-Z0-9_]+)\{([^}]*)\}`)
	matcher    = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!=|!~|=)\s*"([^"]*)"`)
	sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})? `)
	labelPair  = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)
)

// exposition is what /metrics shows: each series name with its label names and values.
type exposition map[string]map[string]map[string]bool

func readExposition(t *testing.T, url string) exposition {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := exposition{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := sampleLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		if out[m[1]] == nil {
			out[m[1]] = map[string]map[string]bool{}
		}
		for _, lp := range labelPair.FindAllStringSubmatch(m[3], -1) {
			if out[m[1]][lp[1]] == nil {
				out[m[1]][lp[1]] = map[string]bool{}
			}
			out[m[1]][lp[1]][lp[2]] = true
		}
	}
	return out
}

// TestGrafanaDashboardQueriesExist: the shipped dashboard parses, is a Grafana dashboard
// (panels with a Prometheus datasource and queries), and every series each query reads, with
// the labels it groups by and matches on, is on the /metrics of a real server that ran a turn
// with a tool call, refused one over its site's budget and refused a socket of a foreign
// origin.
func TestGrafanaDashboardQueriesExist(t *testing.T) {
	b, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d grafanaDashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s does not parse: %v", dashboardFile, err)
	}
	if d.Title == "" || d.UID == "" || d.SchemaVersion == 0 || len(d.Panels) == 0 {
		t.Fatalf("%s is not a Grafana dashboard: title %q, uid %q, schemaVersion %d, %d panels", dashboardFile, d.Title, d.UID, d.SchemaVersion, len(d.Panels))
	}
	if len(d.Templating.List) == 0 || d.Templating.List[0].Type != "datasource" || d.Templating.List[0].Query != "prometheus" {
		t.Errorf("the dashboard has no Prometheus datasource variable: %+v", d.Templating.List)
	}

	// A real server: one turn with a page tool call and a failed one on site shop, whose tokens spend the
	// site's day, so the next turn is refused; a socket of a foreign origin is refused.
	fake := llmtest.New(llmtest.WithResponder(func(req llmtest.RecordedRequest) llmtest.Step {
		if req.LastMessage().Role == "tool" {
			return llmtest.Step{Text: "Two red cars."}
		}
		return llmtest.Step{ToolCalls: []llmtest.FakeCall{{Name: "filter_cars", Args: `{"color":"red"}`}, {Name: "no_such_tool", Args: `{}`}}} // the second one fails
	}))
	t.Cleanup(fake.Close)
	sites := filepath.Join(t.TempDir(), "sites.json")
	if err := os.WriteFile(sites, []byte(`{"sites": [{"name": "shop", "origins": ["`+pageOrigin+`"], "budget": {"siteTokensPerDay": 10}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startServe(t, fake.URL, "--store", "memory", "--sites", sites, "--console-token", "a-console-token-for-the-dashboard")
	page := dialPage(t, p.url, procTool{name: "filter_cars", fn: func(context.Context) string { return "2 cars" }})
	page.session(wire.SessionParams{})
	page.chat("red cars?")
	page.until(isTurnEnd)
	var res wire.ChatResult
	ctx, cancel := context.WithTimeout(t.Context(), procWait)
	defer cancel()
	if err := page.peer.Call(ctx, wire.MethodAgentChat, wire.ChatParams{Text: "and blue?"}, &res); err == nil || !strings.Contains(err.Error(), "usage limit") {
		t.Fatalf("a turn over the site's budget: %v, want refused with the usage limit", err)
	}
	req, _ := http.NewRequest("GET", p.url+"/v1/ws", nil)
	req.Header.Set("Origin", "https://not-allowed.example")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
	exp := readExposition(t, p.url)

	queries := 0
	for _, panel := range d.Panels {
		if panel.Type == "row" {
			continue
		}
		if panel.Title == "" || panel.GridPos == nil || panel.GridPos.W == 0 || panel.GridPos.H == 0 {
			t.Errorf("panel %q has no title or place: %+v", panel.Title, panel.GridPos)
		}
		if panel.Datasource == nil || panel.Datasource.Type != "prometheus" || len(panel.Targets) == 0 {
			t.Errorf("panel %q has no Prometheus datasource or no query", panel.Title)
			continue
		}
		for _, target := range panel.Targets {
			queries++
			names := metricName.FindAllString(target.Expr, -1)
			if target.RefID == "" || len(names) == 0 {
				t.Errorf("panel %q: query %q has no refId or reads no byomcp series", panel.Title, target.Expr)
				continue
			}
			labels := map[string]map[string]bool{}
			for _, name := range names {
				series, ok := exp[name]
				if !ok {
					t.Errorf("panel %q: %s is not on /metrics (query %s)", panel.Title, name, target.Expr)
				}
				for l, vs := range series {
					if labels[l] == nil {
						labels[l] = map[string]bool{}
					}
					for v := range vs {
						labels[l][v] = true
					}
				}
			}
			for _, by := range byLabels.FindAllStringSubmatch(target.Expr, -1) {
				for _, l := range strings.Split(by[1], ",") {
					l = strings.TrimSpace(l)
					if l == "instance" || l == "job" { // Prometheus adds them at the scrape
						continue
					}
					if labels[l] == nil {
						t.Errorf("panel %q: grouped by %q, which %v do not have (query %s)", panel.Title, l, names, target.Expr)
					}
				}
			}
			for _, m := range matchers.FindAllStringSubmatch(target.Expr, -1) {
				for _, lm := range matcher.FindAllStringSubmatch(m[2], -1) {
					if lm[2] == "=" && !exp[m[1]][lm[1]][lm[3]] {
						t.Errorf("panel %q: %s has no series with %s=%q (query %s)", panel.Title, m[1], lm[1], lm[3], target.Expr)
					}
				}
			}
		}
	}
	t.Logf("%d panels, %d queries checked against /metrics", len(d.Panels), queries)
	for _, want := range []string{"byomcp_turns_total", "byomcp_site_model_call_seconds_bucket", "byomcp_site_model_tokens_total", "byomcp_tool_calls_by_tool_total", "byomcp_refused_total", "byomcp_open_sockets"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the dashboard does not show %s", want)
		}
	}
}

// TestPrometheusScrapeExample: the shipped scrape example reads /metrics of several
// replicas, each on its own address.
func TestPrometheusScrapeExample(t *testing.T) {
	b, err := os.ReadFile(prometheusFile)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{"scrape_configs:", "job_name: byomcp", "metrics_path: /metrics", "static_configs:", "targets:"} {
		if !strings.Contains(s, want) {
			t.Errorf("%s has no %q", prometheusFile, want)
		}
	}
	targets := regexp.MustCompile(`(?m)^\s+- (\d+\.\d+\.\d+\.\d+:\d+)\s*$`).FindAllStringSubmatch(s, -1)
	var addrs []string
	for _, m := range targets {
		addrs = append(addrs, m[1])
	}
	if addrs = slices.Compact(slices.Sorted(slices.Values(addrs))); len(addrs) < 2 {
		t.Errorf("%s scrapes %v, want every replica (two or more addresses)", prometheusFile, addrs)
	}
}
