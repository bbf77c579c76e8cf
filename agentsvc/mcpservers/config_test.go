package mcpservers

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func fakeEnv(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

func TestParseConfig(t *testing.T) {
	env := fakeEnv(map[string]string{"TOKEN": "s3cret", "ROOT": "/srv", "EMPTY": ""})
	tests := []struct {
		name     string
		json     string
		want     []ServerConfig
		warnings []string
	}{
		{
			name: "claude desktop stdio",
			json: `{"mcpServers": {"files": {"command": "npx", "args": ["-y", "server-fs", "${ROOT}/data"], "env": {"DEBUG": "1", "KEY": "${TOKEN}"}}}}`,
			want: []ServerConfig{{
				Name: "files", Transport: TransportStdio, Command: "npx",
				Args: []string{"-y", "server-fs", "/srv/data"}, Env: map[string]string{"DEBUG": "1", "KEY": "s3cret"},
				Expose: []string{"cli"},
			}},
		},
		{
			name: "url with headers, expose both, timeout",
			json: `{"mcpServers": {"remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}, "expose": ["web", "cli", "web"], "timeout": 1.5}}}`,
			want: []ServerConfig{{
				Name: "remote", Transport: TransportStreamable, URL: "https://example.com/mcp",
				Headers: map[string]string{"Authorization": "Bearer s3cret"}, Expose: []string{"cli", "web"},
				Timeout: 1500 * time.Millisecond,
			}},
		},
		{
			name: "type sse and http",
			json: `{"mcpServers": {"old": {"type": "sse", "url": "http://127.0.0.1:1/sse"}, "new": {"type": "http", "url": "http://127.0.0.1:1/mcp", "expose": ["WEB"]}}}`,
			want: []ServerConfig{
				{Name: "new", Transport: TransportStreamable, URL: "http://127.0.0.1:1/mcp", Expose: []string{"web"}},
				{Name: "old", Transport: TransportSSE, URL: "http://127.0.0.1:1/sse", Expose: []string{"cli"}},
			},
		},
		{
			name: "sorted by name, cwd relative to the file, disabled skipped",
			json: `{"mcpServers": {"b": {"command": "b", "cwd": "sub"}, "a": {"command": "a", "type": "stdio", "cwd": "/abs"}, "c": {"command": "c", "disabled": true}}}`,
			want: []ServerConfig{
				{Name: "a", Transport: TransportStdio, Command: "a", Dir: "/abs", Expose: []string{"cli"}},
				{Name: "b", Transport: TransportStdio, Command: "b", Dir: "/etc/byomcp/sub", Expose: []string{"cli"}},
			},
		},
		{
			name:     "unknown fields are warnings",
			json:     `{"globalShortcut": "x", "mcpServers": {"s": {"command": "s", "autoApprove": ["t"]}}}`,
			want:     []ServerConfig{{Name: "s", Transport: TransportStdio, Command: "s", Expose: []string{"cli"}}},
			warnings: []string{`server "s": field "autoApprove" ignored`, `top-level field "globalShortcut" ignored`},
		},
		{
			name: "empty variable is allowed",
			json: `{"mcpServers": {"s": {"command": "s", "args": ["${EMPTY}"]}}}`,
			want: []ServerConfig{{Name: "s", Transport: TransportStdio, Command: "s", Args: []string{""}, Expose: []string{"cli"}}},
		},
		{
			name: "defaults, as the shell gives them: for a variable unset or empty",
			json: `{"mcpServers": {"s": {"command": "${BIN:-npx}", "args": ["${ROOT:-/tmp}/a", "${NOPE:-}", "${EMPTY:-x y}", "${NOPE:-a:-b}"], "env": {"K": "${TOKEN:-none}"}}}}`,
			want: []ServerConfig{{Name: "s", Transport: TransportStdio, Command: "npx", Args: []string{"/srv/a", "", "x y", "a:-b"}, Env: map[string]string{"K": "s3cret"}, Expose: []string{"cli"}}},
		},
		{
			name: "a default in url and headers; the command expanded",
			json: `{"mcpServers": {"r": {"url": "https://${HOST:-example.com}/mcp", "headers": {"Authorization": "Bearer ${NOPE:-anonymous}"}}, "c": {"command": "${ROOT}/bin/server"}}}`,
			want: []ServerConfig{
				{Name: "c", Transport: TransportStdio, Command: "/srv/bin/server", Expose: []string{"cli"}},
				{Name: "r", Transport: TransportStreamable, URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer anonymous"}, Expose: []string{"cli"}},
			},
		},
		{
			name: "no servers",
			json: `{"mcpServers": {}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseConfig([]byte(tt.json), "/etc/byomcp", env)
			if err != nil {
				t.Fatalf("parseConfig: %v", err)
			}
			if !reflect.DeepEqual(cfg.Servers, tt.want) {
				t.Errorf("servers:\n got %+v\nwant %+v", cfg.Servers, tt.want)
			}
			if !reflect.DeepEqual(cfg.Warnings, tt.warnings) {
				t.Errorf("warnings: got %q, want %q", cfg.Warnings, tt.warnings)
			}
		})
	}
}

func TestParseConfigErrors(t *testing.T) {
	env := fakeEnv(map[string]string{"TOKEN": "x"})
	tests := []struct {
		name string
		json string
		want string // part of the error
	}{
		{"not json", `{"mcpServers": `, "not a JSON object"},
		{"trailing data", `{"mcpServers": {}} {}`, "not a JSON object"},
		{"array", `[]`, "not a JSON object"},
		{"array, said plainly", `[1,2]`, "found array where an object was expected"},
		{"syntax error, where", "{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"x\",}\n  }\n}", "line 3, column 26: invalid character '}'"},
		{"cut short", `{"mcpServers": {"a": {"command": "x"}`, "the JSON ends before its value does"},
		{"no mcpServers", `{"servers": {}}`, `missing "mcpServers"`},
		{"mcpServers not object", `{"mcpServers": []}`, `"mcpServers" must be an object`},
		{"server not object", `{"mcpServers": {"s": "npx"}}`, `server "s": must be an object`},
		{"neither command nor url", `{"mcpServers": {"s": {"args": []}}}`, `server "s": needs "command"`},
		{"both command and url", `{"mcpServers": {"s": {"command": "x", "url": "http://a"}}}`, `server "s": has both "command" and "url"`},
		{"empty command", `{"mcpServers": {"s": {"command": " "}}}`, `server "s": field "command" is empty`},
		{"command not string", `{"mcpServers": {"s": {"command": 5}}}`, `server "s": field "command": must be a string, not number`},
		{"args not array", `{"mcpServers": {"s": {"command": "x", "args": "-y"}}}`, `field "args": must be an array of strings`},
		{"env not strings", `{"mcpServers": {"s": {"command": "x", "env": {"A": 1}}}}`, `field "env": must be an object of strings`},
		{"bad env name", `{"mcpServers": {"s": {"command": "x", "env": {"A=B": "1"}}}}`, `field "env": invalid variable name`},
		{"headers on command", `{"mcpServers": {"s": {"command": "x", "headers": {"A": "b"}}}}`, `field "headers" is for URL servers`},
		{"env on url", `{"mcpServers": {"s": {"url": "http://a", "env": {"A": "b"}}}}`, `are for command servers`},
		{"bad url", `{"mcpServers": {"s": {"url": "ftp://a"}}}`, `field "url": "ftp://a" is not an http(s) URL`},
		{"url without host", `{"mcpServers": {"s": {"url": "http://"}}}`, `field "url"`},
		{"bad type for url", `{"mcpServers": {"s": {"type": "websocket", "url": "http://a"}}}`, `field "type": unknown transport "websocket"`},
		{"bad type for command", `{"mcpServers": {"s": {"type": "sse", "command": "x"}}}`, `field "type": "sse" does not go with "command"`},
		{"bad header name", `{"mcpServers": {"s": {"url": "http://a", "headers": {"Bad Name": "x"}}}}`, `invalid header name "Bad Name"`},
		{"header with newline", `{"mcpServers": {"s": {"url": "http://a", "headers": {"X": "a\r\nB: c"}}}}`, `contains a line break`},
		{"unset variable", `{"mcpServers": {"s": {"url": "http://a", "headers": {"Authorization": "Bearer ${NOPE}"}}}}`, `server "s": field "headers.Authorization": environment variable NOPE is not set`},
		{"unset variable in the command", `{"mcpServers": {"s": {"command": "${NOPE}/x"}}}`, `field "command": environment variable NOPE is not set (${NOPE:-default} gives a default)`},
		{"command empty once expanded", `{"mcpServers": {"s": {"command": "${NOPE:-}"}}}`, `field "command": "${NOPE:-}" is empty once expanded`},
		{"a form not expanded", `{"mcpServers": {"s": {"command": "x", "args": ["${ROOT-/tmp}"]}}}`, `field "args[0]": "${ROOT-/tmp}" is not expanded: write ${NAME} or ${NAME:-default}`},
		{"VS Code's input form", `{"mcpServers": {"s": {"url": "http://a", "headers": {"Authorization": "Bearer ${input:token}"}}}}`, `field "headers.Authorization": "${input:token}" is not expanded`},
		{"an unclosed reference", `{"mcpServers": {"s": {"command": "x", "env": {"A": "${TOKEN"}}}}`, `field "env.A": "${TOKEN" is not expanded`},
		{"unset variable in args", `{"mcpServers": {"s": {"command": "x", "args": ["a", "${NOPE}"]}}}`, `field "args[1]": environment variable NOPE`},
		{"unknown audience", `{"mcpServers": {"s": {"command": "x", "expose": ["web", "mobile"]}}}`, `field "expose": unknown audience "mobile"`},
		{"empty expose", `{"mcpServers": {"s": {"command": "x", "expose": []}}}`, `field "expose" is empty`},
		{"expose not array", `{"mcpServers": {"s": {"command": "x", "expose": "web"}}}`, `field "expose": must be an array`},
		{"zero timeout", `{"mcpServers": {"s": {"command": "x", "timeout": 0}}}`, `field "timeout": 0 is not a number of seconds`},
		{"negative timeout", `{"mcpServers": {"s": {"command": "x", "timeout": -3}}}`, `field "timeout"`},
		{"huge timeout", `{"mcpServers": {"s": {"command": "x", "timeout": 1e9}}}`, `field "timeout"`},
		{"timeout string", `{"mcpServers": {"s": {"command": "x", "timeout": "30s"}}}`, `field "timeout": must be a number of seconds, not string`},
		{"disabled not bool", `{"mcpServers": {"s": {"command": "x", "disabled": "yes"}}}`, `field "disabled": must be true or false`},
		{"empty name", `{"mcpServers": {"": {"command": "x"}}}`, `server name is empty`},
		{"control char in name", `{"mcpServers": {"a\nb": {"command": "x"}}}`, `use letters, digits, - and _`},
		{"dunder in name", `{"mcpServers": {"a__b": {"command": "x"}}}`, `server "a__b": server name contains "__", which separates server and tool`},
		{"underscore at end of name", `{"mcpServers": {"a_": {"command": "x"}}}`, `server "a_": server name ends with "_"`},
		{"dot in name", `{"mcpServers": {"a.b": {"command": "x"}}}`, `server "a.b": server name has '.': use letters, digits, - and _`},
		{"space in name", `{"mcpServers": {"my server": {"command": "x"}}}`, `server "my server": server name has ' '`},
		{"long name", `{"mcpServers": {"` + strings.Repeat("n", 65) + `": {"command": "x"}}}`, `longer than 64`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseConfig([]byte(tt.json), "/etc", env)
			if err == nil {
				t.Fatalf("parseConfig = %+v, want an error containing %q", cfg, tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(path, []byte(`{"mcpServers": {"tools": {"command": "byomcp", "args": ["tools"], "cwd": "work", "expose": ["web", "cli"]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(path)
	if err != nil {
		t.Fatalf("LoadConfig: %v", err)
	}
	want := []ServerConfig{{Name: "tools", Transport: TransportStdio, Command: "byomcp", Args: []string{"tools"},
		Dir: filepath.Join(dir, "work"), Expose: []string{"cli", "web"}}}
	if !reflect.DeepEqual(cfg.Servers, want) {
		t.Errorf("got %+v, want %+v", cfg.Servers, want)
	}
	if !cfg.Servers[0].Exposed(AudienceWeb) || !cfg.Servers[0].Exposed(AudienceCLI) || cfg.Servers[0].Exposed("other") {
		t.Errorf("Exposed: got web %v cli %v other %v, want true true false",
			cfg.Servers[0].Exposed(AudienceWeb), cfg.Servers[0].Exposed(AudienceCLI), cfg.Servers[0].Exposed("other"))
	}

	// Warnings name the file as it was given (serve logs them; it said "mcp.json" for any).
	servers := filepath.Join(dir, "servers.json")
	if err := os.WriteFile(servers, []byte(`{"mcpServers": {"t1": {"command": "x", "timout": 5}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if cfg, err := LoadConfig(servers); err != nil {
		t.Errorf("LoadConfig(%s): %v", servers, err)
	} else if len(cfg.Warnings) != 1 || cfg.Warnings[0] != servers+`: server "t1": field "timout" ignored` {
		t.Errorf("warnings %v, want the typo named with %s", cfg.Warnings, servers)
	}

	_, err = LoadConfig(filepath.Join(dir, "missing.json"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: err = %v, want fs.ErrNotExist", err)
	}

	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"mcpServers": {"x": {"url": 1}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = LoadConfig(bad)
	if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), `server "x": field "url"`) {
		t.Errorf("bad file: err = %v, want it to name the file, the server and the field", err)
	}
}

func ExampleLoadConfig() {
	dir, _ := os.MkdirTemp("", "mcpservers-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "mcp.json")
	os.WriteFile(path, []byte(`{"mcpServers": {
		"tools": {"command": "byomcp", "args": ["tools"], "expose": ["web", "cli"]},
		"remote": {"url": "https://mcp.example.com/mcp", "timeout": 60}
	}}`), 0o600)
	cfg, err := LoadConfig(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range cfg.Servers {
		fmt.Println(s.Name, s.Transport, s.Expose, s.Timeout)
	}
	// Output:
	// remote streamable-http [cli] 1m0s
	// tools stdio [cli web] 0s
}
