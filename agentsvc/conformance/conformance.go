// Package conformance is byomcp's client for the official MCP conformance suite
// (@modelcontextprotocol/conformance): it acts out each client scenario with the Go SDK.
package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// ProtocolVersion is the MCP revision the client speaks to the suite's servers.
const ProtocolVersion = "2025-11-25"

// Environment variables set by the suite for each run of the client.
const (
	EnvScenario = "MCP_CONFORMANCE_SCENARIO" // the scenario's name
	EnvContext  = "MCP_CONFORMANCE_CONTEXT"  // scenario data as JSON, e.g. pre-registered credentials
)

// Values the OAuth scenarios use: the suite's authorization server redirects at once to
// the redirect URL, and a client ID metadata document is identified by its URL.
const (
	redirectURL         = "http://localhost:3000/callback"
	clientMetadataDocID = "https://conformance-test.local/client-metadata.json"
)

// Params are one run of the client.
type Params struct {
	URL      string          // the scenario server's MCP endpoint
	Scenario string          // e.g. "initialize", "tools_call", "auth/metadata-default"
	Context  json.RawMessage // MCP_CONFORMANCE_CONTEXT, or empty
	Stdout   io.Writer       // progress lines; nil discards
	Stderr   io.Writer       // diagnostics; nil discards
	// HTTPClient carries every request, MCP and OAuth alike; nil means a plain client.
	HTTPClient *http.Client
}

type scenario func(ctx context.Context, r *run) error

// scenarios are the client scenarios of the suite's "core" set for 2025-11-25.
var scenarios = map[string]scenario{
	"initialize":                          initializeScenario,
	"tools_call":                          toolsCallScenario,
	"elicitation-sep1034-client-defaults": elicitationDefaultsScenario,
	"sse-retry":                           sseRetryScenario,
}

// authScenarios all run the same well-behaved OAuth client: discovery from the
// WWW-Authenticate header or well-known URLs, scopes, registration by client ID metadata
// document, pre-registration or dynamic registration, PKCE, token endpoint auth methods
// and step-up are the SDK's authorization code handler's job.
var authScenarios = []string{
	"auth/metadata-default",
	"auth/metadata-var1",
	"auth/metadata-var2",
	"auth/metadata-var3",
	"auth/basic-cimd",
	"auth/scope-from-www-authenticate",
	"auth/scope-from-scopes-supported",
	"auth/scope-omitted-when-undefined",
	"auth/scope-step-up",
	"auth/scope-retry-limit",
	"auth/token-endpoint-auth-basic",
	"auth/token-endpoint-auth-post",
	"auth/token-endpoint-auth-none",
	"auth/pre-registration",
	"auth/2025-03-26-oauth-metadata-backcompat",
	"auth/2025-03-26-oauth-endpoint-fallback",
}

func init() {
	for _, name := range authScenarios {
		scenarios[name] = authScenario
	}
}

// Scenarios returns the names of the scenarios the client knows, sorted.
func Scenarios() []string {
	names := make([]string, 0, len(scenarios))
	for name := range scenarios {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// RunClient runs one scenario against the suite's server at url, as the suite invokes a
// client: scenario usually comes from MCP_CONFORMANCE_SCENARIO, and the scenario data is
// read from MCP_CONFORMANCE_CONTEXT. `byomcp conformance-client URL` calls it.
func RunClient(ctx context.Context, url string, scenario string, stdout, stderr io.Writer) error {
	return Run(ctx, Params{URL: url, Scenario: scenario, Context: json.RawMessage(os.Getenv(EnvContext)), Stdout: stdout, Stderr: stderr})
}

// Run runs one scenario. An unknown scenario is an error that lists the known ones.
func Run(ctx context.Context, p Params) error {
	fn, ok := scenarios[p.Scenario]
	if !ok {
		return fmt.Errorf("conformance: unknown scenario %q (known: %s)", p.Scenario, strings.Join(Scenarios(), ", "))
	}
	if p.URL == "" {
		return errors.New("conformance: no server URL")
	}
	r := &run{p: p, out: p.Stdout, errOut: p.Stderr}
	if r.out == nil {
		r.out = io.Discard
	}
	if r.errOut == nil {
		r.errOut = io.Discard
	}
	if len(strings.TrimSpace(string(p.Context))) > 0 {
		if err := json.Unmarshal(p.Context, &r.data); err != nil {
			return fmt.Errorf("conformance: %s is not a JSON object: %w", EnvContext, err)
		}
	}
	r.logf("scenario %s against %s", p.Scenario, p.URL)
	if err := fn(ctx, r); err != nil {
		return fmt.Errorf("conformance: scenario %s: %w", p.Scenario, err)
	}
	r.logf("scenario %s done", p.Scenario)
	return nil
}

// run is the state of one scenario run.
type run struct {
	p      Params
	out    io.Writer
	errOut io.Writer
	data   map[string]any
}

func (r *run) logf(format string, args ...any) { fmt.Fprintf(r.out, format+"\n", args...) }

// connect opens a Streamable HTTP session with the given client options and OAuth handler.
func (r *run) connect(ctx context.Context, opts *mcp.ClientOptions, oauth auth.OAuthHandler) (*mcp.ClientSession, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "byomcp-conformance-client", Version: "1.0.0"}, opts)
	transport := &mcp.StreamableClientTransport{Endpoint: r.p.URL, HTTPClient: r.p.HTTPClient, OAuthHandler: oauth}
	cs, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	if err != nil {
		return nil, fmt.Errorf("connecting: %w", err)
	}
	res := cs.InitializeResult()
	name := "?"
	if res.ServerInfo != nil {
		name = res.ServerInfo.Name
	}
	r.logf("connected to %s, protocol %s", name, res.ProtocolVersion)
	return cs, nil
}

// listTools lists every page of tools and fails unless want (when non-empty) is among them.
func (r *run) listTools(ctx context.Context, cs *mcp.ClientSession, want string) ([]*mcp.Tool, error) {
	var list []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("listing tools: %w", err)
		}
		list = append(list, t)
	}
	r.logf("listed %d tools", len(list))
	if want != "" && !slices.ContainsFunc(list, func(t *mcp.Tool) bool { return t.Name == want }) {
		return nil, fmt.Errorf("the server does not list the tool %q", want)
	}
	return list, nil
}

// callTool calls a tool; a result with isError is reported but is not a failure.
func (r *run) callTool(ctx context.Context, cs *mcp.ClientSession, name string, args map[string]any) (*mcp.CallToolResult, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("calling %s: %w", name, err)
	}
	r.logf("called %s: isError=%v, %d content block(s)", name, res.IsError, len(res.Content))
	return res, nil
}

func initializeScenario(ctx context.Context, r *run) error {
	cs, err := r.connect(ctx, nil, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	_, err = r.listTools(ctx, cs, "")
	return err
}

func toolsCallScenario(ctx context.Context, r *run) error {
	cs, err := r.connect(ctx, nil, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	if _, err := r.listTools(ctx, cs, "add_numbers"); err != nil {
		return err
	}
	_, err = r.callTool(ctx, cs, "add_numbers", map[string]any{"a": 5, "b": 3})
	return err
}

// elicitationDefaultsScenario accepts a form elicitation without filling any field: the
// SDK must complete the content with the schema's defaults (SEP-1034).
func elicitationDefaultsScenario(ctx context.Context, r *run) error {
	opts := &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			r.logf("elicitation: %q; accepting with defaults", req.Params.Message)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
		},
	}
	cs, err := r.connect(ctx, opts, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	const tool = "test_client_elicitation_defaults"
	if _, err := r.listTools(ctx, cs, tool); err != nil {
		return err
	}
	_, err = r.callTool(ctx, cs, tool, map[string]any{})
	return err
}

// sseRetryScenario calls a tool whose SSE response stream the server closes early: the
// SDK must reconnect after the server's retry delay and resume with Last-Event-ID.
func sseRetryScenario(ctx context.Context, r *run) error {
	cs, err := r.connect(ctx, nil, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	const tool = "test_reconnection"
	if _, err := r.listTools(ctx, cs, tool); err != nil {
		return err
	}
	_, err = r.callTool(ctx, cs, tool, map[string]any{})
	return err
}

func authScenario(ctx context.Context, r *run) error {
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              redirectURL,
		AuthorizationCodeFetcher: r.fetchAuthorizationCode,
		ClientIDMetadataDocumentConfig: &auth.ClientIDMetadataDocumentConfig{
			URL: clientMetadataDocID,
		},
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{
			Metadata: &oauthex.ClientRegistrationMetadata{
				ClientName:   "byomcp conformance client",
				RedirectURIs: []string{redirectURL},
			},
		},
		Client: r.p.HTTPClient,
	}
	id, _ := r.data["client_id"].(string)
	secret, _ := r.data["client_secret"].(string)
	if id != "" {
		cred := &oauthex.ClientCredentials{ClientID: id}
		if secret != "" {
			cred.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: secret}
		}
		cfg.PreregisteredClient = cred
		r.logf("using the pre-registered client %q", id)
	}
	handler, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		return fmt.Errorf("OAuth handler: %w", err)
	}
	cs, err := r.connect(ctx, nil, handler)
	if err != nil {
		return err
	}
	defer cs.Close()
	if _, err := r.listTools(ctx, cs, ""); err != nil {
		return err
	}
	_, err = r.callTool(ctx, cs, "test-tool", map[string]any{})
	return err
}

// fetchAuthorizationCode plays the user in the browser: the suite's authorization
// endpoint answers with a redirect to the callback, whose query carries the code.
func (r *run) fetchAuthorizationCode(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	base := r.p.HTTPClient
	if base == nil {
		base = http.DefaultClient
	}
	client := *base
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, args.URL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("authorization request: %w", err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	loc := resp.Header.Get("Location")
	if loc == "" {
		return nil, fmt.Errorf("authorization endpoint answered %s without a redirect", resp.Status)
	}
	u, err := url.Parse(loc)
	if err != nil {
		return nil, fmt.Errorf("authorization redirect %q: %w", loc, err)
	}
	q := u.Query()
	if e := q.Get("error"); e != "" {
		return nil, fmt.Errorf("authorization refused: %s %s", e, q.Get("error_description"))
	}
	r.logf("authorized: redirected to %s", u.Host+u.Path)
	return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
}
