package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/byomcp/byomcp/agentsvc/elicit"
)

// asker asks the person at the terminal of `byomcp chat` what an MCP server requests
// (elicitation/create): a form, field by field, or an address to open. It reads the chat's
// own input, which nothing else reads while a turn runs, and asks one request at a time.
type asker struct {
	mu  sync.Mutex
	in  *bufio.Reader
	out io.Writer
}

// maxTries bounds the answers to one field that do not fit it: then the request is left
// unanswered (cancel) rather than asked for ever.
const maxTries = 5

// Commands a person types instead of an answer.
const (
	declineWord = "/decline" // refuse: the server is told the user declined
	cancelWord  = "/cancel"  // leave it: the server is told the user dismissed it
)

var errCancelled = errors.New("cancelled")

// elicit answers one elicitation/create of server (mcpservers.Options.Elicit).
func (a *asker) elicit(ctx context.Context, server string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if p.Mode == "url" {
		return a.openURL(ctx, server, p)
	}
	fields, err := elicit.Parse(p.RequestedSchema)
	if err != nil {
		fmt.Fprintf(a.out, "[mcp] %s asked for input the terminal cannot show (%s); it was told no\n", safeText(server), safeText(err.Error()))
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	fmt.Fprintf(a.out, "[mcp] %s asks: %s\n", safeText(server), oneLine(safeText(p.Message), 500))
	fmt.Fprintf(a.out, "      (Enter keeps what is in brackets; %s refuses; %s leaves it unanswered)\n", declineWord, cancelWord)
	content := map[string]any{}
	for _, f := range fields {
		v, ok, err := a.field(ctx, f)
		switch {
		case errors.Is(err, errDeclined):
			fmt.Fprintf(a.out, "[mcp] %s was told you declined\n", safeText(server))
			return &mcp.ElicitResult{Action: "decline"}, nil
		case err != nil:
			fmt.Fprintf(a.out, "[mcp] %s was told you left it unanswered\n", safeText(server))
			return &mcp.ElicitResult{Action: "cancel"}, nil
		case ok:
			content[f.Name] = v
		}
	}
	fmt.Fprintf(a.out, "[mcp] your answers went to %s\n", safeText(server))
	return &mcp.ElicitResult{Action: "accept", Content: content}, nil
}

var errDeclined = errors.New("declined")

// field asks for one field until the answer fits it (at most maxTries times).
func (a *asker) field(ctx context.Context, f elicit.Field) (any, bool, error) {
	prompt := "  " + safeText(f.Label)
	if f.Hint != "" && f.Hint != f.Label {
		prompt += ": " + oneLine(safeText(f.Hint), 200)
	}
	switch f.Kind {
	case elicit.Boolean:
		prompt += " (yes/no)"
	case elicit.Choice, elicit.Choices:
		var opts []string
		for i, o := range f.Options {
			opts = append(opts, fmt.Sprintf("%d %s", i+1, oneLine(safeText(o.Label), 80)))
		}
		prompt += "\n    " + strings.Join(opts, "   ")
		if f.Kind == elicit.Choices {
			prompt += "\n    (numbers separated by commas)"
		}
	}
	if f.Default != nil {
		prompt += fmt.Sprintf(" [%s]", oneLine(safeText(shownDefault(f)), 80))
	} else if !f.Required {
		prompt += " (optional)"
	}
	fmt.Fprintln(a.out, prompt)
	for range maxTries {
		if ctx.Err() != nil {
			return nil, false, errCancelled
		}
		fmt.Fprint(a.out, "  > ")
		line, tooLong, err := readQuestion(a.in, 64<<10)
		if err != nil && line == "" && !tooLong {
			fmt.Fprintln(a.out)
			return nil, false, errCancelled // end of input
		}
		switch strings.TrimSpace(line) {
		case declineWord:
			return nil, false, errDeclined
		case cancelWord:
			return nil, false, errCancelled
		}
		if tooLong {
			fmt.Fprintln(a.out, "  ! that answer is too long")
			continue
		}
		v, ok, err := f.Read(line)
		if err == nil {
			return v, ok, nil
		}
		fmt.Fprintf(a.out, "  ! %s\n", err)
	}
	return nil, false, errCancelled
}

// shownDefault is a field's default as a person reads it: an option's label, yes or no.
func shownDefault(f elicit.Field) string {
	label := func(v any) string {
		for _, o := range f.Options {
			if o.Value == v {
				return o.Label
			}
		}
		return fmt.Sprint(v)
	}
	switch d := f.Default.(type) {
	case bool:
		if d {
			return "yes"
		}
		return "no"
	case []any:
		parts := make([]string, len(d))
		for i, v := range d {
			parts[i] = label(v)
		}
		return strings.Join(parts, ", ")
	default:
		return label(d)
	}
}

// openURL asks the person to open an address the server gave (URL mode): accepting says
// they will, the server learns of the rest from the page it serves.
func (a *asker) openURL(ctx context.Context, server string, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
	fmt.Fprintf(a.out, "[mcp] %s asks you to open this address in your browser:\n      %s\n", safeText(server), oneLine(safeText(p.URL), 2000))
	if p.Message != "" {
		fmt.Fprintf(a.out, "      %s\n", oneLine(safeText(p.Message), 500))
	}
	fmt.Fprintln(a.out, "      Will you? (yes/no; "+cancelWord+" leaves it unanswered)")
	for range maxTries {
		if ctx.Err() != nil {
			break
		}
		fmt.Fprint(a.out, "  > ")
		line, _, err := readQuestion(a.in, 64<<10)
		if err != nil && line == "" {
			fmt.Fprintln(a.out)
			break
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return &mcp.ElicitResult{Action: "accept"}, nil
		case "n", "no", declineWord:
			return &mcp.ElicitResult{Action: "decline"}, nil
		case cancelWord:
			return &mcp.ElicitResult{Action: "cancel"}, nil
		}
		fmt.Fprintln(a.out, "  ! answer yes or no")
	}
	return &mcp.ElicitResult{Action: "cancel"}, nil
}
