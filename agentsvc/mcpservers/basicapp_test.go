package mcpservers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/mcpservers/mcpserverstest"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// maxBasicAppEvent bounds the tool_result of the basic app's call as the agent stores it.
const maxBasicAppEvent = 8 << 10

// TestBasicAppEvent runs the MCP organisation's basic app server
// (@modelcontextprotocol/server-basic-vanillajs, over stdio) and calls its get-time tool: the
// tool_result names its ~218 KB document by SHA-256 and stays under maxBasicAppEvent, and
// AppDocument returns the document of that hash.
func TestBasicAppEvent(t *testing.T) {
	const pkg = "@modelcontextprotocol/server-basic-vanillajs"
	node := mcpserverstest.RequireNode(t, pkg)
	dir := filepath.Join(mcpserverstest.Root(), "node_modules", pkg, "dist")
	html, err := os.ReadFile(filepath.Join(dir, "mcp-app.html"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cfg := writeConfig(t, map[string]any{
		"basic": map[string]any{"command": node, "args": []string{filepath.Join(dir, "index.js"), "--stdio"}, "expose": []string{"web"}},
	})
	m := Start(ctx, cfg, realOptions(t))
	defer m.Close()
	if err := m.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	out := CallToolWithApp(ctx, m, AudienceWeb, "basic__get-time", json.RawMessage(`{}`), 0, nil)
	if out.App == nil {
		t.Fatalf("outcome %+v, want an app", out)
	}
	sum := sha256.Sum256(html)
	if out.App.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("app.sha256 = %q, want the SHA-256 of dist/mcp-app.html", out.App.SHA256)
	}
	// As the agent stores it, with a token the size of appToken's.
	out.App.Token = "basic." + strings.Repeat("x", 43)
	ev, err := json.Marshal(wire.ToolResultEvent{EventHeader: wire.EventHeader{SessionID: strings.Repeat("s", 22), TurnID: strings.Repeat("t", 22),
		Seq: 3, Type: wire.EventToolResult, Time: time.Now().UnixMilli()}, CallID: "call_0123456789", Name: "basic__get-time", Text: out.Text, App: out.App})
	if err != nil {
		t.Fatal(err)
	}
	if len(ev) > maxBasicAppEvent || strings.Contains(string(ev), `"html"`) {
		t.Errorf("the tool_result is %d bytes, want at most %d and no html: %s", len(ev), maxBasicAppEvent, ev[:min(len(ev), 300)])
	}
	t.Logf("the basic app's document: %d bytes; its tool_result event: %d bytes", len(html), len(ev))
	doc, err := m.AppDocument(ctx, AudienceWeb, "basic", out.App.URI, out.App.SHA256)
	if err != nil || doc.HTML != string(html) {
		t.Errorf("AppDocument: %v, want the document", err)
	}
}
