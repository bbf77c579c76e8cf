// Package toolserver is `byomcp tools`: an MCP server (normally on stdio) with a few
// built-in tools — a calculator, a clock and notes kept in SQLite — to try an agent with.
package toolserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
	_ "time/tzdata" // IANA zones even on machines without /usr/share/zoneinfo
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// DefaultNotesPath is the SQLite file used for notes when Options.NotesPath is empty.
const DefaultNotesPath = "byomcp-notes.db"

// Tool names, as the MCP client sees them.
const (
	ToolCalculate      = "calculate"
	ToolGetCurrentTime = "get_current_time"
	ToolAddNote        = "add_note"
	ToolListNotes      = "list_notes"
)

// Limits on note sizes, so a looping model cannot fill the disk with one call.
const (
	maxNoteText  = 64 << 10
	maxNoteTitle = 200
)

// Options configures the tool server.
type Options struct {
	// NotesPath is the SQLite file holding the `notes` table (created if missing).
	// Empty means DefaultNotesPath; the service's own SQLite file may be shared.
	NotesPath string
	// Logger receives one Debug line per call; nil means no logging. On stdio it must not
	// write to standard output, which carries the protocol.
	Logger *zap.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Version is reported as serverInfo.version; empty means "dev".
	Version string
}

// Run serves the tools over t until the client disconnects or ctx ends. `byomcp tools`
// calls it with &mcp.StdioTransport{}, which Run replaces by its own on the same stdin and
// stdout: that one answers a malformed input line with a JSON-RPC error and reads on.
func Run(ctx context.Context, t mcp.Transport, o Options) error {
	s, err := New(o)
	if err != nil {
		return err
	}
	if _, ok := t.(*mcp.StdioTransport); ok {
		log := o.Logger
		if log == nil {
			log = zap.NewNop()
		}
		t = newStdioTransport(os.Stdin, os.Stdout, log)
	}
	if err := s.Run(ctx, t); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("toolserver: %w", err)
	}
	return nil
}

// New builds the MCP server with its four tools. It opens the notes file once, so an
// unusable path is an error here rather than on the first note.
func New(o Options) (*mcp.Server, error) {
	if o.NotesPath == "" {
		o.NotesPath = DefaultNotesPath
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	nb := &notebook{path: o.NotesPath, now: o.Now}
	if err := nb.check(context.Background()); err != nil {
		return nil, fmt.Errorf("toolserver: %w", err)
	}
	h := &handlers{log: o.Logger, now: o.Now, notes: nb}

	s := mcp.NewServer(&mcp.Implementation{Name: "byomcp-tools", Title: "byomcp built-in tools", Version: o.Version},
		&mcp.ServerOptions{Instructions: "Built-in byomcp tools: a calculator, the current time in any IANA time zone, and notes that persist."})
	mcp.AddTool(s, &mcp.Tool{
		Name:        ToolCalculate,
		Title:       "Calculator",
		Description: "Evaluates an arithmetic expression exactly as written: numbers, + - * / % ^ and parentheses, e.g. (17 * 23) + 4. Use it instead of doing arithmetic yourself.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)},
	}, h.calculate)
	mcp.AddTool(s, &mcp.Tool{
		Name:        ToolGetCurrentTime,
		Title:       "Current time",
		Description: "Returns the current date and time in an IANA time zone such as Europe/Berlin or America/New_York (default UTC).",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)},
	}, h.currentTime)
	mcp.AddTool(s, &mcp.Tool{
		Name:        ToolAddNote,
		Title:       "Add note",
		Description: "Saves a note (text and an optional title) that is kept across restarts.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(false), OpenWorldHint: new(false)},
	}, h.addNote)
	mcp.AddTool(s, &mcp.Tool{
		Name:        ToolListNotes,
		Title:       "List notes",
		Description: "Lists every saved note, oldest first.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)},
	}, h.listNotes)
	return s, nil
}

type handlers struct {
	log   *zap.Logger
	now   func() time.Time
	notes *notebook
}

// CalculateArgs are the arguments of the calculate tool.
type CalculateArgs struct {
	Expression string `json:"expression" jsonschema:"arithmetic expression, e.g. (17 * 23) + 4; numbers, + - * / % ^ and parentheses only"`
}

// CalculateResult is the structured result of the calculate tool.
type CalculateResult struct {
	Expression string  `json:"expression"`
	Result     float64 `json:"result"`
}

func (h *handlers) calculate(_ context.Context, _ *mcp.CallToolRequest, in CalculateArgs) (*mcp.CallToolResult, CalculateResult, error) {
	v, err := evaluate(in.Expression)
	h.log.Debug("tool call", zap.String("tool", ToolCalculate), zap.Error(err))
	if err != nil {
		return nil, CalculateResult{}, fmt.Errorf("cannot calculate %q: %w", in.Expression, err)
	}
	text := strings.TrimSpace(in.Expression) + " = " + formatNumber(v)
	return textResult(text), CalculateResult{Expression: in.Expression, Result: v}, nil
}

// TimeArgs are the arguments of the get_current_time tool.
type TimeArgs struct {
	Timezone string `json:"timezone,omitempty" jsonschema:"IANA time zone name such as Europe/Berlin; default UTC"`
}

// TimeResult is the structured result of the get_current_time tool.
type TimeResult struct {
	Timezone string `json:"timezone"`
	Time     string `json:"time" jsonschema:"RFC 3339 with the zone's offset"`
	Weekday  string `json:"weekday"`
}

func (h *handlers) currentTime(_ context.Context, _ *mcp.CallToolRequest, in TimeArgs) (*mcp.CallToolResult, TimeResult, error) {
	name := strings.TrimSpace(in.Timezone)
	if name == "" {
		name = "UTC"
	}
	h.log.Debug("tool call", zap.String("tool", ToolGetCurrentTime), zap.String("timezone", name))
	loc, err := loadZone(name)
	if err != nil {
		return nil, TimeResult{}, err
	}
	now := h.now().In(loc)
	res := TimeResult{Timezone: loc.String(), Time: now.Format(time.RFC3339), Weekday: now.Weekday().String()}
	text := fmt.Sprintf("%s, %s %s (%s)", res.Weekday, now.Format("2006-01-02 15:04:05"), now.Format("MST -07:00"), res.Timezone)
	return textResult(text), res, nil
}

// loadZone accepts IANA names only: "Local" (the server's zone) and file paths are refused.
func loadZone(name string) (*time.Location, error) {
	if name == "Local" || strings.Contains(name, "..") || strings.HasPrefix(name, "/") {
		return nil, fmt.Errorf("unknown time zone %q: use an IANA name such as Europe/Berlin", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("unknown time zone %q: use an IANA name such as Europe/Berlin", name)
	}
	return loc, nil
}

// AddNoteArgs are the arguments of the add_note tool.
type AddNoteArgs struct {
	Text  string `json:"text" jsonschema:"the note's text"`
	Title string `json:"title,omitempty" jsonschema:"optional short title"`
}

func (h *handlers) addNote(ctx context.Context, _ *mcp.CallToolRequest, in AddNoteArgs) (*mcp.CallToolResult, Note, error) {
	h.log.Debug("tool call", zap.String("tool", ToolAddNote))
	text, title := strings.TrimSpace(in.Text), strings.TrimSpace(in.Title)
	switch {
	case text == "":
		return nil, Note{}, errors.New("the note's text is empty")
	case len(text) > maxNoteText:
		return nil, Note{}, fmt.Errorf("the note's text is too long (%d bytes, at most %d)", len(text), maxNoteText)
	case utf8.RuneCountInString(title) > maxNoteTitle:
		return nil, Note{}, fmt.Errorf("the title is too long (at most %d characters)", maxNoteTitle)
	}
	note, err := h.notes.add(ctx, title, text)
	if err != nil {
		h.log.Warn("saving note", zap.Error(err))
		return nil, Note{}, errors.New("the note could not be saved")
	}
	msg := fmt.Sprintf("Saved note #%d", note.ID)
	if note.Title != "" {
		msg += fmt.Sprintf(" %q", note.Title)
	}
	return textResult(msg + "."), note, nil
}

// ListNotesArgs are the (no) arguments of the list_notes tool.
type ListNotesArgs struct{}

// ListNotesResult is the structured result of the list_notes tool.
type ListNotesResult struct {
	Notes []Note `json:"notes"`
}

func (h *handlers) listNotes(ctx context.Context, _ *mcp.CallToolRequest, _ ListNotesArgs) (*mcp.CallToolResult, ListNotesResult, error) {
	h.log.Debug("tool call", zap.String("tool", ToolListNotes))
	notes, err := h.notes.list(ctx)
	if err != nil {
		h.log.Warn("listing notes", zap.Error(err))
		return nil, ListNotesResult{}, errors.New("the notes could not be read")
	}
	if len(notes) == 0 {
		return textResult("No notes yet."), ListNotesResult{Notes: notes}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d note(s):", len(notes))
	for _, n := range notes {
		fmt.Fprintf(&b, "\n#%d", n.ID)
		if n.Title != "" {
			fmt.Fprintf(&b, " %s", n.Title)
		}
		fmt.Fprintf(&b, " (%s): %s", n.Created, n.Text)
	}
	return textResult(b.String()), ListNotesResult{Notes: notes}, nil
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}
