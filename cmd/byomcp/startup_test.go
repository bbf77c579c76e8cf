package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/store/storetest"
)

// TestServeChecksConfigurationFirst: a configuration that cannot be used exits 2 with one
// line naming the key, before the store, the model or the network is touched: no database
// and no lock file are created, and an unreachable store is not what is reported. (Budgets
// of 1e30 or 2^63 and a --sites naming a directory came out as a raw "cannot unmarshal" or
// "is a directory" with status 1, after the database and its lock file were created; a
// store that could not be reached was reported instead of the file's problem.)
func TestServeChecksConfigurationFirst(t *testing.T) {
	site := func(budget string) string {
		return `{"sites": [{"name": "shop", "origins": ["https://shop.example"], "budget": ` + budget + `}]}`
	}
	for _, tt := range []struct {
		name  string
		files map[string]string // written in the test's directory
		args  []string          // DIR in them is the test's directory
		want  string
	}{
		{"budget 1e30", map[string]string{"sites.json": site(`{"siteTokensPerDay": 1e30}`)},
			[]string{"--sites", "DIR/sites.json"}, "sites.json: sites[0].budget.siteTokensPerDay: maximum"},
		{"budget 2^63", map[string]string{"sites.json": site(`{"sessionTokensPerHour": 9223372036854775808}`)},
			[]string{"--sites", "DIR/sites.json"}, "sites.json: sites[0].budget.sessionTokensPerHour: maximum"},
		{"sites names a directory", nil, []string{"--sites", "DIR"}, "DIR: is a directory"},
		{"sites missing", nil, []string{"--sites", "DIR/nope.json"}, "nope.json: the file does not exist"},
		{"an unreachable store is not reported first", map[string]string{"sites.json": site(`{"siteTokensPerDay": 1e30}`)},
			[]string{"--sites", "DIR/sites.json", "--store", "redis://127.0.0.1:1/0"}, "sites[0].budget.siteTokensPerDay: maximum"},
		{"mcp.json", map[string]string{"mcp.json": `{"mcpServers": {"a": {"command": 5}}}`},
			[]string{"--mcp-config", "DIR/mcp.json"}, "mcp.json"},
		{"allowed origin", nil, []string{"--allowed-origins", "https://*.shop.example"}, "only the port may be *"},
		{"store form", nil, []string{"--store", "mysql://127.0.0.1/db"}, `--store: store: unknown store "mysql://127.0.0.1/db"`},
		{"redis URL parameter", nil, []string{"--store", "redis://127.0.0.1:1/0?ttl=soon"}, "--store: store: redis: ttl parameter"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, body := range tt.files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			db := filepath.Join(dir, "byomcp.db")
			args := []string{"serve", "--addr", "127.0.0.1:0", "--store", "sqlite:" + db}
			for _, a := range tt.args {
				args = append(args, strings.ReplaceAll(a, "DIR", dir))
			}
			var stdout, stderr bytes.Buffer
			// No model configured and Ollama's address unreachable: a model that were looked
			// for would not be found.
			getenv := func(k string) string { return map[string]string{"OLLAMA_HOST": "127.0.0.1:1"}[k] }
			err := run(t.Context(), args, strings.NewReader(""), &stdout, &stderr, getenv)
			want := strings.ReplaceAll(tt.want, "DIR", dir)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("got %v, want an error with %q", err, want)
			}
			if code := exitCode(err); code != 2 {
				t.Errorf("exit status %d, want 2 (the configuration cannot be used)", code)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("got several lines, want one:\n%v", err)
			}
			for _, f := range []string{db, db + ".lock", db + "-wal"} {
				if _, err := os.Stat(f); !os.IsNotExist(err) {
					t.Errorf("%s exists (%v): the store was touched before the configuration was checked", filepath.Base(f), err)
				}
			}
			if stdout.Len() != 0 {
				t.Errorf("printed %q before failing", stdout.String())
			}
		})
	}
}

// TestServeRedisEvictionPolicy: on a real redis-server whose maxmemory-policy evicts (a
// manual run lost 93 keys: resumes answered "session not found", turns were cancelled),
// serve refuses to start (status 1) and names the fix and the override; with
// --redis-allow-eviction (or its variable) it starts with a warning; on noeviction it
// starts without one.
func TestServeRedisEvictionPolicy(t *testing.T) {
	lru := storetest.RedisServerWith(t, "--maxmemory-policy", "allkeys-lru", "--maxmemory", "64mb")
	var stdout, stderr bytes.Buffer
	getenv := func(k string) string { return map[string]string{"OLLAMA_HOST": "127.0.0.1:1"}[k] }
	// Bounded: an agent that started serves until ctx ends, then returns nil.
	ctx, cancel := context.WithTimeout(t.Context(), procWait)
	defer cancel()
	err := run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--store", lru}, strings.NewReader(""), &stdout, &stderr, getenv)
	if err == nil || !strings.Contains(err.Error(), "maxmemory-policy is allkeys-lru") || !strings.Contains(err.Error(), "--redis-allow-eviction") {
		t.Fatalf("got %v, want a refusal naming the policy and --redis-allow-eviction", err)
	}
	if code := exitCode(err); code != 1 {
		t.Errorf("exit status %d, want 1 (the store cannot be used as it is)", code)
	}
	if stdout.Len() != 0 {
		t.Errorf("printed %q before failing", stdout.String())
	}

	err = run(t.Context(), []string{"serve", "--store", "memory"}, strings.NewReader(""), &stdout, &stderr,
		func(k string) string { return map[string]string{"BYOMCP_REDIS_ALLOW_EVICTION": "maybe"}[k] })
	if err == nil || !strings.Contains(err.Error(), "BYOMCP_REDIS_ALLOW_EVICTION") || exitCode(err) != 2 {
		t.Errorf("BYOMCP_REDIS_ALLOW_EVICTION=maybe: got %v (status %d), want status 2 naming it", err, exitCode(err))
	}

	served := func(p *serveProc) string {
		t.Helper()
		for deadline := time.Now().Add(procWait); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if logs := p.logs.String(); strings.Contains(logs, `"serving"`) {
				return logs
			}
		}
		t.Fatalf("no \"serving\" line in the logs:\n%s", p.logs.String())
		return ""
	}
	for _, tt := range []struct {
		name, store string
		env         []string
		args        []string
	}{
		{"flag", lru, nil, []string{"--redis-allow-eviction"}},
		{"variable", lru, []string{"BYOMCP_REDIS_ALLOW_EVICTION=true"}, nil},
	} {
		p := spawnServe(t, "127.0.0.1:0", tt.env, append([]string{"--store", tt.store}, tt.args...)...)
		if logs := served(p); !strings.Contains(logs, "may lose conversations") || !strings.Contains(logs, "allkeys-lru") {
			t.Errorf("%s: no warning of the eviction policy in the logs:\n%s", tt.name, logs)
		}
	}
	p := spawnServe(t, "127.0.0.1:0", nil, "--store", storetest.RedisServerWith(t, "--maxmemory-policy", "noeviction", "--maxmemory", "64mb"))
	if logs := served(p); strings.Contains(logs, "maxmemory") {
		t.Errorf("noeviction: a warning of the policy:\n%s", logs)
	}
}
