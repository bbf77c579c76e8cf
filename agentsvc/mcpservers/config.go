package mcpservers

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Audiences a server's tools can be exposed to.
const (
	AudienceWeb = "web" // the page's chat, over the WebSocket
	AudienceCLI = "cli" // `byomcp chat` in a terminal
)

// Transport kinds of a server.
const (
	TransportStdio      = "stdio"           // a child process on stdin/stdout
	TransportStreamable = "streamable-http" // Streamable HTTP, falling back to SSE for old servers
	TransportSSE        = "sse"             // the 2024-11-05 HTTP+SSE transport only
)

// Config is a parsed mcp.json.
type Config struct {
	// Servers are sorted by name.
	Servers []ServerConfig
	// Warnings name fields that were ignored (other clients' extensions, typos); from
	// LoadConfig, each begins with the file's path.
	Warnings []string
}

// ServerConfig is one entry of "mcpServers".
type ServerConfig struct {
	Name string
	// Transport is TransportStdio (Command set), TransportStreamable or TransportSSE (URL set).
	Transport string

	Command string
	Args    []string
	Env     map[string]string // the child's variables, besides PATH, HOME, USER, LANG and a few like them
	Dir     string            // working directory ("cwd"), relative to the config file

	URL     string
	Headers map[string]string

	// Expose lists the audiences that see this server's tools; default [cli].
	Expose []string
	// Timeout is the per-call timeout ("timeout", seconds); 0 means the Manager's default.
	Timeout time.Duration

	// transport replaces the real transport in tests.
	transport func() (mcp.Transport, error)
}

// Exposed reports whether audience sees the server's tools.
func (s *ServerConfig) Exposed(audience string) bool { return slices.Contains(s.Expose, audience) }

// rawServer is one entry as written: Claude Desktop's fields plus ours.
type rawServer struct {
	Type     *string
	Command  *string
	Args     []string
	Env      map[string]string
	Cwd      *string
	URL      *string
	Headers  map[string]string
	Expose   *[]string
	Timeout  *float64
	Disabled bool
}

var knownFields = []string{"type", "command", "args", "env", "cwd", "url", "headers", "expose", "timeout", "disabled"}

// varRef matches ${NAME} and ${NAME:-default} in string values (the default up to the
// first "}"); anyRef matches the start of any ${...}, to refuse the forms not expanded.
var (
	varRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-[^}]*)?\}`)
	anyRef = regexp.MustCompile(`\$\{[^}]*\}?`)
)

// LoadConfig reads an mcp.json in Claude Desktop's format:
//
//	{"mcpServers": {
//	  "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
//	            "env": {"DEBUG": "1"}, "expose": ["cli"]},
//	  "remote": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"},
//	             "expose": ["web", "cli"], "timeout": 60}}}
//
// Besides Claude Desktop's fields it accepts "expose" (audiences: "web", "cli"; default
// ["cli"], the terminal only), "timeout" (seconds per call), "cwd", "disabled" and "type"
// ("stdio", "http"/"streamable-http", "sse"). ${VAR} in args, env, cwd, url and headers is
// replaced by the environment variable VAR; an unset one is an error. Errors name the
// server and the field.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("mcpservers: reading config: %w", err)
	}
	cfg, err := parseConfig(data, filepath.Dir(path), os.LookupEnv)
	if err != nil {
		return nil, fmt.Errorf("mcpservers: %s: %w", path, err)
	}
	for i, w := range cfg.Warnings {
		cfg.Warnings[i] = path + ": " + w // the file as the operator named it
	}
	return cfg, nil
}

// parseConfig parses an mcp.json; baseDir resolves relative "cwd" values and lookup
// resolves ${VAR}.
func parseConfig(data []byte, baseDir string, lookup func(string) (string, bool)) (*Config, error) {
	var top map[string]json.RawMessage
	if err := decodeStrict(data, &top); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	rawServers, ok := top["mcpServers"]
	if !ok {
		return nil, errors.New(`missing "mcpServers" object`)
	}
	var entries map[string]json.RawMessage
	if err := decodeStrict(rawServers, &entries); err != nil || entries == nil {
		return nil, errors.New(`"mcpServers" must be an object of servers by name`)
	}
	cfg := &Config{}
	for k := range top {
		if k != "mcpServers" {
			cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("top-level field %q ignored", k))
		}
	}
	names := make([]string, 0, len(entries))
	for name := range entries {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		sc, warnings, err := parseServer(name, entries[name], baseDir, lookup)
		if err != nil {
			return nil, fmt.Errorf("server %q: %w", name, err)
		}
		cfg.Warnings = append(cfg.Warnings, warnings...)
		if sc != nil {
			cfg.Servers = append(cfg.Servers, *sc)
		}
	}
	sort.Strings(cfg.Warnings)
	return cfg, nil
}

func parseServer(name string, data json.RawMessage, baseDir string, lookup func(string) (string, bool)) (*ServerConfig, []string, error) {
	if err := checkName(name); err != nil {
		return nil, nil, err
	}
	var fields map[string]json.RawMessage
	if err := decodeStrict(data, &fields); err != nil || fields == nil {
		return nil, nil, errors.New("must be an object")
	}
	var warnings []string
	for k := range fields {
		if !slices.Contains(knownFields, k) {
			warnings = append(warnings, fmt.Sprintf("server %q: field %q ignored", name, k))
		}
	}
	var raw rawServer
	for _, f := range knownFields {
		v, ok := fields[f]
		if !ok {
			continue
		}
		var dst any
		switch f {
		case "type":
			dst = &raw.Type
		case "command":
			dst = &raw.Command
		case "args":
			dst = &raw.Args
		case "env":
			dst = &raw.Env
		case "cwd":
			dst = &raw.Cwd
		case "url":
			dst = &raw.URL
		case "headers":
			dst = &raw.Headers
		case "expose":
			dst = &raw.Expose
		case "timeout":
			dst = &raw.Timeout
		case "disabled":
			dst = &raw.Disabled
		}
		if err := json.Unmarshal(v, dst); err != nil {
			return nil, nil, fmt.Errorf("field %q: %s", f, typeError(f, err))
		}
	}
	if raw.Disabled {
		return nil, warnings, nil
	}

	sc := &ServerConfig{Name: name}
	expand := func(field, s string) (string, error) {
		if !strings.Contains(s, "${") {
			return s, nil
		}
		for _, ref := range anyRef.FindAllString(s, -1) {
			if varRef.FindString(ref) != ref {
				return "", fmt.Errorf("field %q: %q is not expanded: write ${NAME} or ${NAME:-default}", field, ref)
			}
		}
		var missing []string
		out := varRef.ReplaceAllStringFunc(s, func(m string) string {
			sub := varRef.FindStringSubmatch(m)
			v, ok := lookup(sub[1])
			switch {
			case sub[2] != "" && v == "":
				// As in the shell: the default stands for a variable unset or empty.
				return sub[2][len(":-"):]
			case !ok:
				missing = append(missing, sub[1])
			}
			return v
		})
		if len(missing) > 0 {
			return "", fmt.Errorf("field %q: environment variable %s is not set (${%s:-default} gives a default)", field, missing[0], missing[0])
		}
		return out, nil
	}

	typ := ""
	if raw.Type != nil {
		typ = strings.ToLower(strings.TrimSpace(*raw.Type))
	}
	switch {
	case raw.Command != nil && raw.URL != nil:
		return nil, nil, errors.New(`has both "command" and "url"; a server is either a command (stdio) or a URL`)
	case raw.Command != nil:
		if typ != "" && typ != TransportStdio {
			return nil, nil, fmt.Errorf(`field "type": %q does not go with "command" (use "stdio" or leave it out)`, *raw.Type)
		}
		if strings.TrimSpace(*raw.Command) == "" {
			return nil, nil, errors.New(`field "command" is empty`)
		}
		if raw.Headers != nil {
			return nil, nil, errors.New(`field "headers" is for URL servers; a command server takes "env"`)
		}
		sc.Transport = TransportStdio
		cmd, err := expand("command", *raw.Command)
		if err != nil {
			return nil, nil, err
		}
		if strings.TrimSpace(cmd) == "" {
			return nil, nil, fmt.Errorf(`field "command": %q is empty once expanded`, *raw.Command)
		}
		sc.Command = cmd
		for i, a := range raw.Args {
			v, err := expand(fmt.Sprintf("args[%d]", i), a)
			if err != nil {
				return nil, nil, err
			}
			sc.Args = append(sc.Args, v)
		}
		if len(raw.Env) > 0 {
			sc.Env = map[string]string{}
			for k, v := range raw.Env {
				if k == "" || strings.ContainsAny(k, "=\x00") {
					return nil, nil, fmt.Errorf(`field "env": invalid variable name %q`, k)
				}
				ev, err := expand("env."+k, v)
				if err != nil {
					return nil, nil, err
				}
				sc.Env[k] = ev
			}
		}
		if raw.Cwd != nil && *raw.Cwd != "" {
			dir, err := expand("cwd", *raw.Cwd)
			if err != nil {
				return nil, nil, err
			}
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(baseDir, dir)
			}
			sc.Dir = dir
		}
	case raw.URL != nil:
		switch typ {
		case "", "http", "streamable-http", "streamablehttp", "streamable_http":
			sc.Transport = TransportStreamable
		case "sse":
			sc.Transport = TransportSSE
		default:
			return nil, nil, fmt.Errorf(`field "type": unknown transport %q for a URL (use "http" or "sse")`, *raw.Type)
		}
		if raw.Args != nil || raw.Env != nil || raw.Cwd != nil {
			return nil, nil, errors.New(`fields "args", "env" and "cwd" are for command servers; a URL server takes "headers"`)
		}
		u, err := expand("url", *raw.URL)
		if err != nil {
			return nil, nil, err
		}
		pu, err := url.Parse(u)
		if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
			return nil, nil, fmt.Errorf(`field "url": %q is not an http(s) URL`, *raw.URL)
		}
		sc.URL = u
		if len(raw.Headers) > 0 {
			sc.Headers = map[string]string{}
			for k, v := range raw.Headers {
				if !validHeaderName(k) {
					return nil, nil, fmt.Errorf(`field "headers": invalid header name %q`, k)
				}
				hv, err := expand("headers."+k, v)
				if err != nil {
					return nil, nil, err
				}
				if strings.ContainsAny(hv, "\r\n\x00") {
					return nil, nil, fmt.Errorf(`field "headers": value of %q contains a line break`, k)
				}
				sc.Headers[k] = hv
			}
		}
	default:
		return nil, nil, errors.New(`needs "command" (a stdio server) or "url" (an HTTP server)`)
	}

	sc.Expose = []string{AudienceCLI}
	if raw.Expose != nil {
		if len(*raw.Expose) == 0 {
			return nil, nil, errors.New(`field "expose" is empty; list "web" and/or "cli", or set "disabled": true`)
		}
		sc.Expose = nil
		for _, a := range *raw.Expose {
			a = strings.ToLower(strings.TrimSpace(a))
			if a != AudienceWeb && a != AudienceCLI {
				return nil, nil, fmt.Errorf(`field "expose": unknown audience %q (use "web" and/or "cli")`, a)
			}
			if !slices.Contains(sc.Expose, a) {
				sc.Expose = append(sc.Expose, a)
			}
		}
		slices.Sort(sc.Expose)
	}
	if raw.Timeout != nil {
		secs := *raw.Timeout
		if !(secs > 0) || math.IsInf(secs, 0) || secs > 24*3600 {
			return nil, nil, fmt.Errorf(`field "timeout": %v is not a number of seconds between 0 and 86400`, secs)
		}
		sc.Timeout = time.Duration(secs * float64(time.Second))
	}
	return sc, warnings, nil
}

// checkName accepts any printable name up to 64 characters in which "__" cannot appear
// where the server ends: tools are shown to the model as <server>__<tool>, mapped to the
// model's name rules, and the first "__" of such a name must be the separator (sites.json
// picks servers by it). Without this rule server "a" with tool "b__echo" and server "a__b"
// with tool "echo" would both read "a__b__echo".
func checkName(name string) error {
	if name == "" {
		return errors.New("server name is empty")
	}
	if len(name) > 64 {
		return errors.New("server name is longer than 64 bytes")
	}
	if strings.Contains(name, "__") {
		return errors.New(`server name contains "__", which separates server and tool in tool names (<server>__<tool>); rename the server`)
	}
	if strings.HasSuffix(name, "_") {
		return errors.New(`server name ends with "_", which would run into the "__" that separates server and tool in tool names (<server>__<tool>); rename the server`)
	}
	for _, r := range name {
		if !(r == '-' || r == '_' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			// The server's name starts its tools' names, which a model accepts only in these
			// characters: a name that had to be changed there could pass for another
			// server's (sites.json mcpServers allows a site's servers by that name).
			return fmt.Errorf("server name has %q: use letters, digits, - and _", r)
		}
	}
	return nil
}

func validHeaderName(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// decodeStrict decodes one JSON value and rejects trailing data.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return plainJSONError(data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

// plainJSONError says where and what a JSON error is, without Go's type names.
func plainJSONError(data []byte, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		line, col := lineCol(data, se.Offset)
		return fmt.Errorf("line %d, column %d: %s", line, col, se.Error())
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return errors.New("the JSON ends before its value does")
	case errors.As(err, &te):
		return fmt.Errorf("found %s where an object was expected", te.Value)
	}
	return err
}

// lineCol is the line and column (from 1) of byte offset in data.
func lineCol(data []byte, offset int64) (line, col int) {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(offset) - (bytes.LastIndexByte(before, '\n') + 1)
	return line, max(col, 1)
}

// typeError rewrites json's type errors in the config's own words.
func typeError(field string, err error) string {
	want := map[string]string{
		"type": "a string", "command": "a string", "cwd": "a string", "url": "a string",
		"args": "an array of strings", "expose": `an array of "web"/"cli"`,
		"env": "an object of strings", "headers": "an object of strings",
		"timeout": "a number of seconds", "disabled": "true or false",
	}[field]
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("must be %s, not %s", want, te.Value)
	}
	return fmt.Sprintf("must be %s (%v)", want, err)
}
