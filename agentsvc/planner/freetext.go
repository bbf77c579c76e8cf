package planner

import (
	"regexp"
	"slices"
	"strings"
)

// bonusExpr is added for an expression parameter filled with arithmetic: enough on its own
// to call a calculator ("what is (17 * 23) + 4?").
const bonusExpr = 2

// Words around the request that are not part of a free-text value (normalised words).
var (
	// preambleWords may open a request before the tool's own words: "can you", "what is".
	preambleWords = wordSet(`please pls kindly can could would will you u i i'd i'll i'm want
		wanna like need to let me us what is are how much many tell do does just go ahead and ok
		okay hey hi hello so now quickly quick help try a an the for remind`)
	// connectorWords join the tool's words to each other and to the value: "add a note for me
	// saying …", "search for …".
	connectorWords = wordSet(`a an the my our your this that new some for me us to as with of
		about called named titled saying says which is are on in into please`)
	// politeWords may close a request after the value.
	politeWords = wordSet(`please pls thanks thx`)
	// prepositions open a trailing phrase that names the tool again: "… as a note".
	prepositions = wordSet(`to in into on as with for`)
	// determiners may stand between such a preposition and the tool's word.
	determiners = wordSet(`a an the my our your this that new`)
	// labelWords may stand between a free-text value and another value after it:
	// "red bikes under $500", "buy milk and title it 'shopping'".
	labelWords = wordSet(`and with at by as to for`)
)

// wordSet is the set of the normalised words of words; rawSet of the words as written.
func wordSet(words string) map[string]bool { return setOf(words, normWord) }

func rawSet(words string) map[string]bool { return setOf(words, func(w string) string { return w }) }

// setOf also adds the words to lexicon, the words the planner itself reads.
func setOf(words string, norm func(string) string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[norm(w)], lexicon[w] = true, true
	}
	return m
}

// freeText fills the tool's one free-text parameter (freeTextParam) with the rest of the text:
// "search for red bikes" gives query "red bikes"; an expression parameter the arithmetic.
func (f *filler) freeText() {
	p := f.freeTextParam()
	if p == nil {
		return
	}
	if wordAt(f.toks, 0, questionOpeners...) && writeVerbs[toolVerb(f.def)] {
		return // "which ones are high priority?" asks; it names no task to add
	}
	v, bonus := "", 0.0
	if expressionParam(p) {
		v = expression(f.text)
		if arithmetic(v) {
			bonus = bonusExpr
		}
	} else {
		// A message, a note's text: the visitor's words as they are.
		v = f.rest(hasWord(p, "message", "text", "note", "comment", "body", "content"))
	}
	// "cancel my booking": "booking" is no reference; a code is typed with a digit or a capital
	// ("HV-1234", "SUMMER25"), or quoted. Ask for it instead.
	code := strings.ContainsAny(v, "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ\"“'")
	// "book a drive of c09 …": an item's id is nobody's name; nor are words of asking or of
	// the tools ("wanna", "slot" left over from "i wanna tets drive …", "… the first slot")
	// ("come" of "I'd like to come in saturday", "change" of "change the time to 4")
	asking := func(w string) bool {
		n := normWord(w)
		return askingWord(n) || ordinary(n) || f.vocab[n] > 0 || correctionWords[n] || comingWords[n] || detailWords[n] || // ("my phone number is …")
			units[n] != nil // ("year" of "…, 72000 a year")
	}
	// "what time does the first one leave?" while the airport to fly from is asked: a question,
	// no airport (a search's query may be one)
	asks := wordAt(tokenize(v), 0, append(questionOpeners, "when")...) &&
		!hasWord(p, "query", "q", "search", "question", "text", "message", "prompt", "keywords", "term", "topic")
	var list []string // "add milk and eggs to my shopping list": each of them
	if freeList(p) {
		list = slices.DeleteFunc(listSep.Split(v, -1), func(s string) bool { return s == "" })
	}
	// "add its ingredients to my shopping list": words that point at a value give none (nor
	// does a thing of a list: "its ingredients to my list, add everything" of the answer)
	pointing := func(v string) bool {
		return wordAt(tokenize(v), 0, "its", "their", "his", "her", "them", "those", "these", "that", "this", "it") && (len(strings.Fields(v)) <= 3 || list != nil) &&
			!hasWord(p, "message", "text", "note", "comment", "body", "content", "query", "q", "search", "title") ||
			anotherOne.MatchString(v) || allOfIt.MatchString(v) // "add another one", "add everything"
	}
	points := pointing(v) || slices.ContainsFunc(list, pointing)
	switch {
	// ("fly" of "fly to CDG on friday" is no departure airport code)
	case v == "" || asks || points || (refParam(p) || codeDescribed.MatchString(p.schema.description)) && !code ||
		nameKind.wants(p) && (idRe.MatchString(v) || slices.ContainsFunc(strings.Fields(v), asking)):
		return
	case list != nil && p.schema.acceptsStrings(list):
		f.set(p, list, bonus)
	case !p.schema.acceptsString(v):
		return
	default:
		f.set(p, v, bonus)
	}
	// The value's words are the visitor's, not unknown requests.
	at := strings.Index(f.text, v)
	for i, t := range f.toks {
		if at >= 0 && t.start >= at && t.end <= at+len(v) {
			f.used[i] = true
		}
	}
}

// codeDescribed is a description of a parameter that takes a code: "Departure airport code,
// like LHR".
var codeDescribed = regexp.MustCompile(`(?i)\bcodes?\b`)

// allOfIt points at every value without saying one: "everything", "all of it", "all of them"
// (and "add everything", a part of an answer read with its question).
var allOfIt = regexp.MustCompile(`(?i)^\s*(?:add\s+)?(?:everything|all(?:\s+of)?(?:\s+(?:it|them|those|these))?|the\s+lot)\s*$`)

// anotherOne asks for one more without saying what: "another one", "one more".
var anotherOne = regexp.MustCompile(`(?i)^\s*(?:another|one\s+more)(?:\s+one)?\s*$`)

// questionOpeners open a question that asks rather than gives a value.
var questionOpeners = []string{"what", "what's", "whats", "which", "who", "how"}

// comingWords say coming by, never a name.
var comingWords = wordSet(`come coming visit drop stop pop swing`)

// noteRe is a note said after its cue: "add a note: …", "note that …", "a comment saying …".
var noteRe = regexp.MustCompile(
	`(?i)\b(notes?|comments?|message)\b\s*(?::|\bsaying\b|\bthat says\b|\bthat\b)\s*(.+)$`)

// noteAfterRe is a note said right after asking for one: "add a note im bringing my dad",
// "please note i'll bring my wife", "please also note …".
var noteAfterRe = regexp.MustCompile(`(?i)(?:\b(?:add|leave|put)\s+(?:a\s+|the\s+)?|\bplease\s+(?:also\s+)?)(notes?|comments?|message)[\s?.!,]+(.+)$`)

// tellThem asks to pass words on to the people behind a form, which its note does: "tell the
// salesperson that …", "let them know …", "please mention that …" (not "tell me …").
var tellThem = regexp.MustCompile(`(?i)\b(?:(?:tell|inform)\s+(?:the\s+[\w-]+(?:\s+[\w-]+)?|them|him|her|your\s+[\w-]+|someone)(?:\s+that)?|let\s+(?:the\s+[\w-]+(?:\s+[\w-]+)?|them|him|her|your\s+[\w-]+|someone)\s+know(?:\s+that)?|mention(?:\s+to\s+(?:the\s+[\w-]+|them|him|her))?(?:\s+that)?)[\s:,]+`)

// addColonRe is a note said after "add:" without its word: "could you add: i need a car seat".
var addColonRe = regexp.MustCompile(`(?i)\b(add|include|mention)\s*:\s*(.+)$`)

// noteAskRe asks to add a note and ends there: "add a note please", "can I leave a comment?".
// The note's text is asked for (the answer reads after the cue: "add a note please , …").
var noteAskRe = regexp.MustCompile(`(?i)\b(?:add|leave|put|write|include)\s+(?:a\s+|the\s+|some\s+)?(notes?|comments?|message)\b[\s,]*(?:please|pls|plz)?[\s.!?]*$`)

// pleaseEnd is a "please" that ends a note: "…: no pets, please", "…: I need a child seat Please".
// pleaseStart begins one: "please , ask for a quiet route" (the answer after "add a note please").
var pleaseEnd, pleaseStart = regexp.MustCompile(`(?i)[\s,]*\b(?:please|pls|plz)$`), regexp.MustCompile(`(?i)^(?:please|pls|plz)\b[\s,.:;!?]*`)

// noteAt is where the text of a note said after its cue starts ("add a note that …"), when a
// tool here takes a note; -1 when there is none.
func (c *conv) noteAt(text string) int {
	if !c.hasParam(noteParam) {
		return -1
	}
	for _, re := range []*regexp.Regexp{noteRe, noteAfterRe, addColonRe} {
		if m := re.FindStringSubmatchIndex(text); m != nil {
			return m[4]
		}
	}
	return -1
}

// sendAfterNote ends a note with the request to send the form: "…, and send it", "…. Then
// please book it."
var sendAfterNote = regexp.MustCompile(`(?i)[\s,.;]+(?:and\s+|then\s+)+(?:please\s+)?(?:send|book|submit|confirm)\b[^.!?]*[.!?]*\s*$`)

// noteParam is a free-text parameter named like a note: notes, comment, message.
func noteParam(p *property) bool {
	return hasWord(p, "note", "notes", "comment", "comments", "message") && freeTextable(p)
}

// note fills a free-text parameter named like a note (notes, comment, message), required or
// not, with the words after its cue: "add a note: I need a child seat" gives notes "I need a
// child seat"; the other values of the form stay to be found or asked for.
func (f *filler) note() {
	i := slices.IndexFunc(f.schema.props, noteParam)
	if i < 0 {
		return // no parameter for a note: the text is not searched
	}
	if m := noteAskRe.FindStringIndex(f.text); m != nil && f.free(f.schema.props[i]) {
		f.missing = append(f.missing, f.schema.props[i]) // what it should say is asked
		f.score += bonusTyped                            // the cue is as telling as the note
		for k, t := range f.toks {
			f.used[k] = f.used[k] || t.start >= m[0]
		}
		return
	}
	var m []int // the cue and the note: after "note:", after "add a note", after "add:"
	for _, re := range []*regexp.Regexp{noteRe, noteAfterRe, addColonRe} {
		if m == nil {
			m = re.FindStringSubmatchIndex(f.text)
		}
	}
	if m == nil {
		return
	}
	from := slices.IndexFunc(f.toks, func(t token) bool { return t.start >= m[2] })
	// It ends where the details of the rest of the form start: "…: I need a child seat, Tom
	// Baker, tom@baker.co.uk, Friday at 1pm" (a punctuation mark with an e-mail, a phone, a
	// date or a time after it).
	to, end := len(f.toks), m[5]
	at := from + 1 // after a "please ," that opens it (the answer to "what should the note say?")
	for wordAt(f.toks, at, "please", "pls", "plz") || at < len(f.toks) && f.toks[at].kind == kindPunct {
		at++
	}
	for k := at + 1; k < len(f.toks) && to == len(f.toks); k++ {
		if f.toks[k].kind == kindPunct && slices.ContainsFunc(f.toks[k:], func(t token) bool {
			return t.kind == kindEmail || t.kind == kindPhone || t.kind == kindDate || t.kind == kindTime
		}) {
			to, end = k, f.toks[k].start
		}
	}
	cue := normWord(f.text[m[2]:m[3]])
	if c := sendAfterNote.FindStringIndex(f.text[:end]); c != nil && c[0] > m[4] {
		end = c[0] // "…, and send it": the request after the note, no part of it
		to = slices.IndexFunc(f.toks, func(t token) bool { return t.start >= end })
	}
	v := strings.TrimSpace(strings.TrimRight(f.text[m[4]:max(end, m[4])], ".!?, "))
	v = strings.TrimSpace(pleaseStart.ReplaceAllString(pleaseEnd.ReplaceAllString(v, ""), ""))
	// The parameter the cue names, else the note's ("leave a comment" for the form's notes).
	k := slices.IndexFunc(f.schema.props, func(p *property) bool { return slices.Contains(p.words, cue) && freeTextable(p) })
	p := f.schema.props[i]
	if k >= 0 {
		p = f.schema.props[k]
	}
	if v != "" && f.free(p) && p.schema.acceptsString(v) {
		f.claim(p, v, bonusTyped, from, to)
	}
}

// withText fills a search's one optional free-text filter of what a thing has (withWords)
// with the words after "with" that nothing else took and no tool here knows: ingredient
// "chicken" of "something with chicken under 45 min". Only a tool that reads takes such a
// guess (not a form's notes), and no other filter ("books with dragons" names no author).
func (f *filler) withText() {
	if !readsFirst[toolVerb(f.def)] {
		return
	}
	var pick *property
	for _, p := range f.schema.props {
		if !p.required && freeTextable(p) && !freeList(p) && f.free(p) && slices.ContainsFunc(p.words, func(w string) bool { return withWords[w] }) {
			if pick != nil {
				return
			}
			pick = p
		}
	}
	for i := 0; pick != nil && i < len(f.toks); i++ {
		if !wordAt(f.toks, i, "with") {
			continue
		}
		from := i + 1
		for from < len(f.toks) && isWord(f.toks[from], determiners) {
			from++
		}
		to := from
		for to < len(f.toks) && f.toks[to].kind == kindWord && !f.used[to] && !f.toolWord(f.toks[to]) && !ordinary(f.toks[to].norm) {
			to++
		}
		if to > from {
			f.claim(pick, f.text[f.toks[from].start:f.toks[to-1].end], 0, from, to)
			return
		}
	}
}

// withWords name a filter of what a thing has or is about.
var withWords = wordSet(`ingredient feature amenity keyword query term tag topic contain include`)

// freeTextParam returns the tool's only required free-text parameter when it is still free
// and every other required parameter has a value, a const or a default; nil otherwise.
func (f *filler) freeTextParam() *property {
	var pick *property
	for _, p := range f.schema.props {
		switch {
		case !p.required || freeTextable(p) && !f.free(p): // filled already (a path, a name)
		case freeTextable(p) && pick != nil:
			return nil
		case freeTextable(p):
			pick = p
		case f.free(p) && needsValue(p):
			return nil
		}
	}
	if pick == nil || len(pick.schema.def) > 0 {
		return nil
	}
	return pick
}

// freeTextable reports a plain string parameter that wants no kind of value (an id, a date…),
// or a list of them (freeList).
func freeTextable(p *property) bool {
	single, _ := idParam(p)
	return plainString(p) && p.schema.pattern == nil && len(p.schema.enum) == 0 && !single &&
		!slices.ContainsFunc(typedKinds, func(k valueKind) bool { return k.wants(p) }) || freeList(p)
}

// freeList reports a list of plain strings that are no ids: a shopping list's items.
func freeList(p *property) bool {
	_, ids := idParam(p)
	return p.schema.isArray() && !ids && p.schema.items != nil && plainString(&property{schema: p.schema.items}) && p.schema.items.pattern == nil
}

// listSep parts the things of a list said in words: "flour, sugar and butter".
var listSep = regexp.MustCompile(`\s*(?:,|\band\b|&)\s*`)

// expressionParam reports a parameter that takes an arithmetic expression.
func expressionParam(p *property) bool {
	return exprNameRe.MatchString(strings.Join(p.words, " ")) ||
		strings.Contains(strings.ToLower(p.schema.description), "arithmetic")
}

// exprNameRe finds the words of a parameter's name that mention an expression or a calculation.
var exprNameRe = regexp.MustCompile(`expr|formula|calc`)

// exprRe is a run of the characters of an arithmetic expression.
var exprRe = regexp.MustCompile(`[-0-9+*/%^(). ]+`)

// wordOps are operators said in words between numbers ("3 plus 4", "12 divided by 4").
var wordOps = regexp.MustCompile(`(?i)([0-9)])\s+(plus|minus|times|multiplied by|divided by)\s+([-(.0-9])`)

var spokenOps = map[string]string{"plus": "+", "minus": "-", "times": "*", "multiplied by": "*",
	"divided by": "/"}

// percentOf is a percentage of a number: "15% of 80", "15 percent of 80".
var percentOf = regexp.MustCompile(`(?i)([0-9]+(?:\.[0-9]+)?)\s*(?:%|percent|per cent)\s+of\s+([0-9]+(?:\.[0-9]+)?)`)

// spokenArithmetic writes operators said in words between numbers as their signs, so that
// "what is 7 times 6" reads as arithmetic (and "times" not as a word about time).
func spokenArithmetic(text string) string {
	// "1 plus 2 plus 3": a match consumes its right operand's first character, so an operator
	// right after a one-character operand is missed; never two in a row, so twice reads them all.
	for range 2 {
		text = wordOps.ReplaceAllStringFunc(text, func(m string) string {
			g := wordOps.FindStringSubmatch(m)
			return g[1] + " " + spokenOps[strings.ToLower(g[2])] + " " + g[3]
		})
	}
	return text
}

// expression returns the longest run of exprRe with a digit, trimmed, "15% of 80" written as
// 15 / 100 * 80; "" when there is none.
func expression(text string) string {
	best := ""
	for _, run := range exprRe.FindAllString(percentOf.ReplaceAllString(text, "$1 / 100 * $2"), -1) {
		if run = trimExpression(run); strings.ContainsAny(run, "0123456789") && len(run) > len(best) {
			best = run
		}
	}
	return best
}

// trimExpression trims spaces, full stops and unmatched outer brackets off an expression.
func trimExpression(s string) string {
	for {
		t := strings.TrimSpace(strings.TrimRight(s, ". "))
		opens, closes := strings.Count(t, "("), strings.Count(t, ")")
		switch {
		case closes > opens && strings.HasSuffix(t, ")"):
			t = t[:len(t)-1]
		case opens > closes && strings.HasPrefix(t, "("):
			t = t[1:]
		}
		if t == s {
			return t
		}
		s = t
	}
}

// binaryOpRe finds an operator between two operands.
var binaryOpRe = regexp.MustCompile(`[0-9)]\s*[-+*/%^]\s*[-(.0-9]`)

// arithmetic reports an operator between operands, not a date or phone number's dashes (no
// phone number or date is written with "*", "^", "%" or " / ").
func arithmetic(v string) bool {
	return binaryOpRe.MatchString(v) && (strings.ContainsAny(v, "*^%") || strings.Contains(v, " / ") ||
		dateRe.FindString(v) != v && !phoneLike(v, false))
}

// toolWord reports a word of the text that names the tool, one of its parameters or values.
func (f *filler) toolWord(t token) bool {
	return t.kind == kindWord && len(t.norm) > 1 && !stopWords[t.norm] &&
		bestMatch(queryWord{word: t.norm, weight: 1}, f.vocab) > 0
}

func isWord(t token, set map[string]bool) bool { return t.kind == kindWord && set[t.norm] }

func isMark(t token) bool { return t.kind == kindPunct || t.kind == kindSym }

// rest is the text without the request around the value: a preamble ("can you"), the tool's
// words and connectors ("add a note saying"), and after it a phrase naming the tool ("as a
// note"), a label of another value ("under $500") or a polite word; "" when no content word
// is left. With verbatim, small words are content too ("echo hi there").
func (f *filler) rest(verbatim bool) string {
	toks, n := f.toks, len(f.toks)
	i := 0
	for i < n && (isMark(toks[i]) || isWord(toks[i], preambleWords)) && !f.toolWord(toks[i]) {
		i++
	}
	cut, k := i, i // after the tool's words, and the connectors between and after them
	for ; k < n && (f.toolWord(toks[k]) || f.used[k] || isMark(toks[k]) || isWord(toks[k], connectorWords)); k++ {
		if f.toolWord(toks[k]) || f.used[k] {
			cut = k + 1
		}
	}
	if cut > i {
		cut = k
	}
	var end int // before the next value, or the tail's words
	if k = slices.Index(f.used[cut:], true); k >= 0 {
		end = cut + k
		for end > cut && (isMark(toks[end-1]) || isWord(toks[end-1], labelWords) ||
			isWord(toks[end-1], connectorWords) || isWord(toks[end-1], cueWordSet) || f.toolWord(toks[end-1])) {
			end--
		}
	} else {
		end = f.trimTail(cut)
	}
	if !slices.ContainsFunc(toks[cut:end], func(t token) bool {
		return !isMark(t) && (verbatim || !(t.kind == kindWord && stopWords[t.norm]))
	}) {
		return ""
	}
	from, to := 0, len(f.text)
	if cut > 0 {
		from = toks[cut-1].end
	}
	if end < n {
		to = toks[end].start
	}
	v := strings.TrimLeft(f.text[from:to], " \t\r\n:,;-–—")
	return strings.TrimRight(v, " \t\r\n?!.,;:-–—")
}

// trimTail is where a value that ends the text ends: before marks, thanks, and "as a note".
func (f *filler) trimTail(cut int) int {
	toks, end := f.toks, len(f.toks)
	for {
		k := end // before the tool's words at the end, then j before their determiners
		for k > cut && f.toolWord(toks[k-1]) {
			k--
		}
		j := k
		for j > cut && isWord(toks[j-1], determiners) {
			j--
		}
		switch {
		case end > cut && (isMark(toks[end-1]) || isWord(toks[end-1], politeWords)):
			end--
		case k < end && j > cut && isWord(toks[j-1], prepositions): // "as a note"
			end = j - 1
		case end > cut && f.filledWith(toks[end-1]): // "call mom high", "… high priority"
			end--
		default:
			return end
		}
	}
}

// filledWith reports a word of an enum value another parameter was set to, or of that
// parameter's name: "high priority" of "add call the dentist high priority" is the priority,
// not the title's.
func (f *filler) filledWith(t token) bool {
	return t.kind == kindWord && slices.ContainsFunc(f.schema.props, func(p *property) bool {
		v, ok := f.values[p.name].(string)
		return ok && len(p.schema.enum) > 0 && (slices.Contains(p.words, t.norm) ||
			slices.ContainsFunc(p.schema.enum, func(e enumValue) bool { return e.str == v && slices.Equal(e.words, []string{t.norm}) }))
	})
}
