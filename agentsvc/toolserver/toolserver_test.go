package toolserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/toolserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connect serves a new tool server on one end of an in-memory pipe and returns an SDK
// client session on the other; both are closed when the test ends.
func connect(t *testing.T, o toolserver.Options) *mcp.ClientSession {
	t.Helper()
	ctx := t.Context()
	s, err := toolserver.New(o)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server Connect: %v", err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatalf("client Connect: %v", err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool(%s): %v", name, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func structured[T any](t *testing.T, res *mcp.CallToolResult) T {
	t.Helper()
	var v T
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatalf("marshal structuredContent: %v", err)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("structuredContent %s: %v", b, err)
	}
	return v
}

func notesPath(t *testing.T) string { return filepath.Join(t.TempDir(), "notes.db") }

func TestListTools(t *testing.T) {
	cs := connect(t, toolserver.Options{NotesPath: notesPath(t)})
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	var names []string
	schemas := map[string]map[string]any{}
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		schemas[tool.Name], _ = tool.InputSchema.(map[string]any)
	}
	slices.Sort(names)
	want := []string{"add_note", "calculate", "get_current_time", "list_notes"}
	if !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}
	required := func(tool string) []any { r, _ := schemas[tool]["required"].([]any); return r }
	if got := required("calculate"); len(got) != 1 || got[0] != "expression" {
		t.Errorf("calculate required = %v, want [expression]", got)
	}
	if got := required("add_note"); len(got) != 1 || got[0] != "text" {
		t.Errorf("add_note required = %v, want [text]", got)
	}
	if got := required("get_current_time"); len(got) != 0 {
		t.Errorf("get_current_time required = %v, want none", got)
	}
}

func TestCalculate(t *testing.T) {
	cs := connect(t, toolserver.Options{NotesPath: notesPath(t)})
	res := call(t, cs, "calculate", map[string]any{"expression": "(17 * 23) + 4"})
	if res.IsError {
		t.Fatalf("isError, text %q", text(res))
	}
	if got, want := text(res), "(17 * 23) + 4 = 395"; got != want {
		t.Errorf("text = %q, want %q", got, want)
	}
	if got := structured[toolserver.CalculateResult](t, res); got.Result != 395 {
		t.Errorf("structured result = %v, want 395", got.Result)
	}
}

func TestCalculateErrors(t *testing.T) {
	cs := connect(t, toolserver.Options{NotesPath: notesPath(t)})
	tests := []struct {
		name string
		args any
		want string
	}{
		{"division by zero", map[string]any{"expression": "1 / 0"}, "division by zero"},
		{"code", map[string]any{"expression": "os.system('rm -rf /')"}, "unexpected 'o'"},
		{"unbalanced", map[string]any{"expression": "(1 + 2"}, "never closed"},
		{"missing argument", map[string]any{}, "expression"},
		{"wrong type", map[string]any{"expression": 42}, "expression"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, cs, "calculate", tt.args)
			if !res.IsError {
				t.Fatalf("isError = false, text %q; want a tool error", text(res))
			}
			if !strings.Contains(text(res), tt.want) {
				t.Errorf("text = %q, want it to contain %q", text(res), tt.want)
			}
		})
	}
}

func TestGetCurrentTime(t *testing.T) {
	fixed := time.Date(2026, 1, 15, 12, 30, 0, 0, time.UTC) // a Thursday, CET in Berlin
	cs := connect(t, toolserver.Options{NotesPath: notesPath(t), Now: func() time.Time { return fixed }})
	tests := []struct {
		name     string
		args     map[string]any
		wantZone string
		wantTime string
	}{
		{"default UTC", map[string]any{}, "UTC", "2026-01-15T12:30:00Z"},
		{"Berlin", map[string]any{"timezone": "Europe/Berlin"}, "Europe/Berlin", "2026-01-15T13:30:00+01:00"},
		{"Kolkata", map[string]any{"timezone": "Asia/Kolkata"}, "Asia/Kolkata", "2026-01-15T18:00:00+05:30"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, cs, "get_current_time", tt.args)
			if res.IsError {
				t.Fatalf("isError, text %q", text(res))
			}
			got := structured[toolserver.TimeResult](t, res)
			if got.Timezone != tt.wantZone || got.Time != tt.wantTime || got.Weekday != "Thursday" {
				t.Errorf("got %+v, want zone %s time %s Thursday", got, tt.wantZone, tt.wantTime)
			}
			if !strings.Contains(text(res), tt.wantZone) {
				t.Errorf("text %q does not name the zone %s", text(res), tt.wantZone)
			}
		})
	}
	for _, zone := range []string{"Mars/Olympus_Mons", "Local", "../../etc/passwd", "/etc/localtime"} {
		t.Run("unknown "+zone, func(t *testing.T) {
			res := call(t, cs, "get_current_time", map[string]any{"timezone": zone})
			if !res.IsError || !strings.Contains(text(res), "unknown time zone") {
				t.Errorf("isError %v text %q; want an unknown time zone error", res.IsError, text(res))
			}
		})
	}
}

func TestNotesSurviveReopen(t *testing.T) {
	path := notesPath(t)
	cs := connect(t, toolserver.Options{NotesPath: path})

	res := call(t, cs, "list_notes", map[string]any{})
	if res.IsError || text(res) != "No notes yet." {
		t.Fatalf("empty list: isError %v text %q", res.IsError, text(res))
	}
	res = call(t, cs, "add_note", map[string]any{"text": "buy milk"})
	if res.IsError || text(res) != "Saved note #1." {
		t.Fatalf("add_note: isError %v text %q", res.IsError, text(res))
	}
	res = call(t, cs, "add_note", map[string]any{"text": "call Alice", "title": "todo"})
	if res.IsError || text(res) != `Saved note #2 "todo".` {
		t.Fatalf("add_note: isError %v text %q", res.IsError, text(res))
	}
	for _, bad := range []map[string]any{{"text": "   "}, {"title": "no text"}, {"text": strings.Repeat("x", 70000)}} {
		if res := call(t, cs, "add_note", bad); !res.IsError {
			t.Errorf("add_note(%.40v) isError = false, text %q", bad, text(res))
		}
	}
	cs.Close()

	// A new server on the same file: a restart.
	cs2 := connect(t, toolserver.Options{NotesPath: path})
	res = call(t, cs2, "list_notes", map[string]any{})
	got := structured[toolserver.ListNotesResult](t, res)
	if len(got.Notes) != 2 {
		t.Fatalf("after reopen: %d notes (%q), want 2", len(got.Notes), text(res))
	}
	if got.Notes[0].Text != "buy milk" || got.Notes[1].Title != "todo" || got.Notes[1].Text != "call Alice" {
		t.Errorf("after reopen: notes = %+v", got.Notes)
	}
	if !strings.Contains(text(res), "#2 todo") || !strings.Contains(text(res), "buy milk") {
		t.Errorf("list text = %q", text(res))
	}
}

func TestNewBadNotesPath(t *testing.T) {
	_, err := toolserver.New(toolserver.Options{NotesPath: filepath.Join(t.TempDir(), "missing-dir", "notes.db")})
	if err == nil {
		t.Fatal("New with a path in a missing directory: err = nil, want an error")
	}
}

func TestRunEndsWhenClientLeaves(t *testing.T) {
	st, ct := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- toolserver.Run(t.Context(), st, toolserver.Options{NotesPath: notesPath(t)}) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	if res := call(t, cs, "calculate", map[string]any{"expression": "2^10"}); text(res) != "2^10 = 1024" {
		t.Errorf("text = %q, want %q", text(res), "2^10 = 1024")
	}
	cs.Close()
	if err := <-done; err != nil {
		t.Errorf("Run = %v, want nil after the client closed", err)
	}
}

func ExampleNew() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "toolserver-example")
	defer os.RemoveAll(dir)
	s, err := toolserver.New(toolserver.Options{NotesPath: filepath.Join(dir, "notes.db")})
	if err != nil {
		fmt.Println(err)
		return
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, _ := s.Connect(ctx, st, nil)
	defer ss.Wait()
	cs, _ := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, ct, nil)
	defer cs.Close()
	res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "calculate", Arguments: map[string]any{"expression": "(17 * 23) + 4"}})
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output: (17 * 23) + 4 = 395
}
