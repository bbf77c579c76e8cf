package planner

import (
	"html"
	"regexp"
	"strings"
	"unicode/utf8"
)

// maxSummary caps the text quoted from one tool result, in runes.
const maxSummary = 600

var (
	openTagRe = regexp.MustCompile(`<([A-Za-z][A-Za-z0-9_:-]*)((?:\s[^<>]*)?)>`)
	attrRe    = regexp.MustCompile(`([A-Za-z_][A-Za-z0-9_:-]*)\s*=\s*"([^"]*)"`)
	spaceRe   = regexp.MustCompile(`\s+`)
)

// toolOutput is a tool result as the planner reads it.
type toolOutput struct {
	tool    string
	text    string
	isError bool
}

// unwrap strips an untrusted-data envelope such as <tool_output tool="x" status="error">…
// </tool_output> when there is one, and trims the text to a readable length.
func unwrap(content string) toolOutput {
	var out toolOutput
	body := content
	for _, m := range openTagRe.FindAllStringSubmatchIndex(content, -1) {
		tag := content[m[2]:m[3]]
		if !envelopeTag(tag) {
			continue
		}
		attrs := map[string]string{}
		if m[4] >= 0 {
			for _, a := range attrRe.FindAllStringSubmatch(content[m[4]:m[5]], -1) {
				attrs[strings.ToLower(a[1])] = a[2]
			}
		}
		out.tool = attrs["tool"]
		if out.tool == "" {
			out.tool = attrs["name"]
		}
		for _, k := range []string{"status", "result"} {
			switch strings.ToLower(attrs[k]) {
			case "error", "failed", "failure":
				out.isError = true
			}
		}
		for _, k := range []string{"iserror", "is_error", "error"} {
			switch strings.ToLower(attrs[k]) {
			case "true", "1", "yes":
				out.isError = true
			}
		}
		body = content[m[1]:]
		if end := strings.LastIndex(body, "</"+tag+">"); end >= 0 {
			body = body[:end]
		}
		body = html.UnescapeString(body)
		break
	}
	body = dropStructured(body)
	body = tidyLines(body)
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

func envelopeTag(tag string) bool {
	t := strings.ToLower(tag)
	for _, w := range []string{"tool", "output", "result", "untrusted", "data"} {
		if strings.Contains(t, w) {
			return true
		}
	}
	return false
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
