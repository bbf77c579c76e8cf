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
	tool    string
	text    string
	isError bool
}

// unwrap reads a tool result: the agent's envelope (tools.Wrap) taken off when there is one,
// the text tidied, and an error told by the envelope or by the text's first word.
func unwrap(content string) toolOutput {
	tool, body, isError, ok := tools.Unwrap(content)
	if ok {
		body = html.UnescapeString(body)
	}
	out := toolOutput{tool: tool, isError: isError}
	body = tidyLines(dropStructured(body))
	if !out.isError {
		low := strings.ToLower(body)
		for _, p := range []string{"error", "tool error", "invalid arguments", "invalid argument", "failed"} {
			if strings.HasPrefix(low, p) {
				out.isError = true
				break
			}
		}
	}
	out.text = body // whole: a long list is cut by humanize, which counts what it leaves out
	return out
}

// tidyLines collapses the spaces within each line of s and drops its empty lines: a result
// written as lines ("Price: … | …", "Year: …") keeps them, and the widget shows each on its own.
func tidyLines(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(spaceRe.ReplaceAllString(l, " "))
		if l == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l)
	}
	return b.String()
}

// dropStructured removes "structuredContent: {…}" lines when the result also has other text,
// which says the same in words.
func dropStructured(body string) string {
	lines := strings.Split(body, "\n")
	kept := lines[:0:0]
	for _, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), "structuredContent:") {
			kept = append(kept, l)
		}
	}
	if strings.TrimSpace(strings.Join(kept, "")) == "" {
		return body
	}
	return strings.Join(kept, "\n")
}

// clip shortens s to at most n runes, at a line's end or else a word boundary when there is
// one, adding "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut := 0
	for i := range s {
		if n == 0 {
			cut = i
			break
		}
		n--
	}
	s = s[:cut]
	if i := strings.LastIndexByte(s, '\n'); i > 0 {
		return s[:i] + "\n…" // whole lines
	}
	if i := strings.LastIndexByte(s, ' '); i > len(s)/2 {
		s = s[:i]
	}
	return strings.TrimRight(s, " ,;:") + "…"
}
