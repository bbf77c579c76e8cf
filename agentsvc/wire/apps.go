package wire

import (
	"encoding/json"
	"net/url"
)

// MethodAgentAppCall (page → agent) is an MCP App's tools/call, relayed by the widget: the
// agent calls a tool of the app's own server (AppCallParams → the tool's CallToolResult).
const MethodAgentAppCall = "agent/appCall"

// App is the MCP App (the io.modelcontextprotocol/ui extension) a server tool's result is
// shown with: a tool_result event carries it when the tool declares _meta.ui.resourceUri.
type App struct {
	// Server is the MCP server (mcp.json) whose tool was called and whose resource this is.
	Server string `json:"server"`
	// Tool is the tool's own name on that server.
	Tool string `json:"tool"`
	// URI is the ui:// resource.
	URI string `json:"uri"`
	// SHA256 names the resource's document (text/html;profile=mcp-app) by its content: the
	// lower-case hex SHA-256 of its bytes. The event carries this reference, not the document
	// (which may be hundreds of KiB): the widget loads it from the agent at
	// AppDocumentPath(Server, SHA256)?uri=URI.
	SHA256 string `json:"sha256"`
	// CSP is the resource's _meta.ui.csp, origins only (checked by the agent).
	CSP *AppCSP `json:"csp,omitempty"`
	// PrefersBorder is the resource's _meta.ui.prefersBorder.
	PrefersBorder *bool `json:"prefersBorder,omitempty"`
	// Input is the tool call's arguments; Result its CallToolResult as the server sent it
	// (replaced by its text when larger than the agent's cap).
	Input  json.RawMessage `json:"input,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	// Token names this app in agent/appCall: it binds the app's calls to its session and
	// server.
	Token string `json:"token"`
}

// AppDocumentPath is where the agent serves an app's document, by its server and content hash
// (GET, with ?uri=<the ui:// resource>): /byomcp/apps/{server}/{sha256}.
func AppDocumentPath(server, sha256 string) string {
	return "/byomcp/apps/" + url.PathEscape(server) + "/" + sha256
}

// AppCSP is an MCP App resource's network allowances (McpUiResourceCsp); each entry is an
// origin such as "https://api.example.com" or "https://*.example.com".
type AppCSP struct {
	ConnectDomains  []string `json:"connectDomains,omitempty"`
	ResourceDomains []string `json:"resourceDomains,omitempty"`
	FrameDomains    []string `json:"frameDomains,omitempty"`
	BaseURIDomains  []string `json:"baseUriDomains,omitempty"`
}

// AppCallParams is agent/appCall's params: the app (its Token) and the call it asks for.
type AppCallParams struct {
	Token     string          `json:"token"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}
