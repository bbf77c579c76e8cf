package jsclient

import "bytes"

// stripJS removes what a browser does not need from a module's text: comments, the indentation
// at the start of lines, blank lines, and the line breaks after `{`, `;` and `,`. It is a lexer,
// not a minifier: strings, template literals (with nested `${…}`) and regular expression literals
// are copied byte for byte, every other line break that separated code is kept (automatic
// semicolon insertion depends on them), and nothing is renamed. The documentation stays in the files of this directory; the served
// modules are about a third smaller once compressed.
func stripJS(src []byte) []byte {
	out := make([]byte, 0, len(src))
	// braces holds, for each open `{` or `${`, whether it was a template substitution.
	var braces []bool
	lineStart := true   // nothing but whitespace written since the last newline
	prevRegexOK := true // a `/` here starts a regular expression, not a division
	i := 0
	n := len(src)
	newline := func() {
		if len(out) > 0 && out[len(out)-1] == ' ' {
			out = out[:len(out)-1]
		}
		// After `{`, `;` or `,` (a punctuator, or a template's `${`) a line break means nothing: no
		// semicolon is ever inserted there (one after `{` or `;` would be an empty statement, one
		// after `,` would leave a syntax error), and no restricted production (`return`, `++`,
		// `=>`…) has its line break after one of them.
		if k := len(out); k > 0 && (out[k-1] == '{' || out[k-1] == ';' || out[k-1] == ',') {
			lineStart = true
			return
		}
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		lineStart = true
	}
	for i < n {
		c := src[i]
		switch {
		case c == '\n':
			newline()
			i++
		case c == ' ' || c == '\t' || c == '\r':
			if !lineStart && len(out) > 0 && out[len(out)-1] != ' ' {
				// One space keeps tokens apart (`return x`, `a - -b`).
				out = append(out, ' ')
			}
			i++
		case c == '/' && i+1 < n && src[i+1] == '/':
			for i < n && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < n && src[i+1] == '*':
			end := bytes.Index(src[i+2:], []byte("*/"))
			if end < 0 {
				return src // unterminated: serve the text as it is
			}
			body := src[i+2 : i+2+end]
			i += end + 4
			if bytes.IndexByte(body, '\n') >= 0 {
				newline()
			} else if !lineStart && len(out) > 0 && out[len(out)-1] != ' ' {
				out = append(out, ' ')
			}
		case c == '\'' || c == '"':
			j, ok := skipString(src, i)
			if !ok {
				return src
			}
			out = append(out, src[i:j]...)
			i = j
			lineStart, prevRegexOK = false, false
		case c == '`':
			j, ok := skipTemplate(src, i+1)
			if !ok {
				return src
			}
			out = append(out, src[i:j]...)
			i = j
			if j > 0 && src[j-1] == '{' { // stopped at a `${`
				braces = append(braces, true)
				prevRegexOK = true
			} else {
				prevRegexOK = false
			}
			lineStart = false
		case c == '/' && prevRegexOK:
			j, ok := skipRegex(src, i)
			if !ok {
				return src
			}
			out = append(out, src[i:j]...)
			i = j
			lineStart, prevRegexOK = false, false
		case c == '{':
			braces = append(braces, false)
			out = append(out, c)
			i++
			lineStart, prevRegexOK = false, true
		case c == '}':
			if len(braces) > 0 && braces[len(braces)-1] {
				// The end of a `${…}`: the template literal goes on.
				braces = braces[:len(braces)-1]
				j, ok := skipTemplate(src, i+1)
				if !ok {
					return src
				}
				out = append(out, src[i:j]...)
				i = j
				if src[j-1] == '{' {
					braces = append(braces, true)
					prevRegexOK = true
				} else {
					prevRegexOK = false
				}
				lineStart = false
				continue
			}
			if len(braces) > 0 {
				braces = braces[:len(braces)-1]
			}
			out = append(out, c)
			i++
			// After an object literal a `/` divides; after a block it could start a regular
			// expression statement, which no module here has (TestStripEmbedded would catch one:
			// node --check fails on the result).
			lineStart, prevRegexOK = false, false
		case isIdentByte(c):
			j := i
			for j < n && isIdentByte(src[j]) {
				j++
			}
			out = append(out, src[i:j]...)
			lineStart = false
			prevRegexOK = regexKeywords[string(src[i:j])]
			i = j
		default:
			out = append(out, c)
			i++
			lineStart = false
			// After `)` or `]` a `/` divides; after any other punctuator it starts a regex.
			prevRegexOK = c != ')' && c != ']'
		}
	}
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return out
}

// regexKeywords are the words after which a `/` starts a regular expression.
var regexKeywords = map[string]bool{
	"return": true, "typeof": true, "instanceof": true, "in": true, "of": true, "new": true,
	"delete": true, "void": true, "throw": true, "case": true, "do": true, "else": true,
	"yield": true, "await": true,
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// skipString returns the index after the string literal starting at src[i].
func skipString(src []byte, i int) (int, bool) {
	q := src[i]
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case q:
			return j + 1, true
		case '\n':
			return 0, false
		}
	}
	return 0, false
}

// skipTemplate scans template text from src[i] (just after "`" or the "}" of a substitution)
// and returns the index after the closing "`" or after the "${" that opens a substitution.
func skipTemplate(src []byte, i int) (int, bool) {
	for j := i; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '`':
			return j + 1, true
		case '$':
			if j+1 < len(src) && src[j+1] == '{' {
				return j + 2, true
			}
		}
	}
	return 0, false
}

// skipRegex returns the index after the regular expression literal (and its flags) starting
// at src[i].
func skipRegex(src []byte, i int) (int, bool) {
	inClass := false
	for j := i + 1; j < len(src); j++ {
		switch c := src[j]; {
		case c == '\\':
			j++
		case c == '\n':
			return 0, false
		case c == '[':
			inClass = true
		case c == ']':
			inClass = false
		case c == '/' && !inClass:
			j++
			for j < len(src) && isIdentByte(src[j]) {
				j++
			}
			return j, true
		}
	}
	return 0, false
}
