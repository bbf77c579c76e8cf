package planner

import (
	"html"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/byomcp/byomcp/agentsvc/tools"
)

// maxSummary caps the text quoted from one tool result, in runes.
const maxSummary = 600

var spaceRe = regexp.MustCompile(`\s+`)

// toolOutput is a tool result as the planner reads it.
type toolOutput struct {
	text    string
	isError bool
}

// unwrap reads a tool result: the agent's envelope (tools.Wrap) taken off when there is one,
// the text tidied, and an error told by the envelope or by the text's first word. The text
// stays whole: a long list is cut by humanize, which counts what it leaves out.
func unwrap(content string) toolOutput {
	_, body, isError, ok := tools.Unwrap(content)
	if ok {
		body = html.UnescapeString(body)
	}
	// Each line's spaces collapsed, empty lines dropped: a result written as lines ("Price: …
	// | …", "Year: …") keeps them. "structuredContent: {…}" lines go when other text says
	// the same in words.
	var lines, structured []string
	for _, l := range strings.Split(body, "\n") {
		l = strings.TrimSpace(spaceRe.ReplaceAllString(l, " "))
		switch {
		case strings.HasPrefix(l, "structuredContent:"):
			structured = append(structured, l)
		case l != "":
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		lines = structured
	}
	out := toolOutput{isError: isError, text: strings.Join(lines, "\n")}
	low := strings.ToLower(out.text)
	for _, p := range []string{"error", "tool error", "invalid argument", "failed"} {
		out.isError = out.isError || strings.HasPrefix(low, p)
	}
	return out
}

// clip shortens s to at most n runes, at a line's end or else a word boundary when there is
// one, adding "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	s = string([]rune(s)[:n])
	if i := strings.LastIndexByte(s, '\n'); i > 0 {
		return s[:i] + "\n…" // whole lines
	}
	if i := strings.LastIndexByte(s, ' '); i > len(s)/2 {
		s = s[:i]
	}
	return strings.TrimRight(s, " ,;:") + "…"
}
