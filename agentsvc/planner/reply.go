package planner

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/byomcp/byomcp/agentsvc/chat"
)

// cantTell answers a question about the item that nothing on the page answers.
const cantTell = "I can't tell: what this page's tools tell me does not say."

// smallTalk answers greetings, thanks and "what can you do" with what the page offers.
func (c *conv) smallTalk(text string) (string, bool) {
	low := strings.ToLower(strings.Trim(strings.TrimSpace(text), ".!?, "))
	low = strings.Join(strings.Fields(strings.NewReplacer(",", " ", "!", " ", "'", "").Replace(low)), " ")
	low = strings.TrimSuffix(strings.TrimSuffix(low, " on this page"), " on this site") // "what can i do on this page?"
	words := strings.Fields(low)
	for i, w := range words {
		if long, ok := chatShort[w]; ok {
			words[i] = long // "k thx", "wat can u do"
		}
	}
	low = strings.Join(words, " ")
	switch low {
	case "hi", "hello", "hey", "hey there", "hi there", "hello there", "hiya", "howdy", "yo", "good morning",
		"good afternoon", "good evening", "hi how are you", "hello how are you", "how are you", "whats up", "sup", "greetings":
		return c.greeting("Hi!"), true
	case "thanks", "thank you", "ty", "thanks a lot", "thank you very much", "great thanks", "perfect thanks", "cheers", "great", "perfect", "cool", "nice":
		return "You're welcome! Anything else I can do " + c.place.here + "?", true
	case "ok", "okay", "kk", "alright", "got it", "sounds good", "fine", "ok cool", "ok great", "ok thanks", "ok thank you", "hmm", "hmmm", "i see":
		return "OK. Anything else I can do " + c.place.here + "?", true
	case "lol", "haha", "hahaha", "ha", "lmao", "heh", "hehe":
		return "Anything else I can do " + c.place.here + "?", true
	case "are you sure", "really", "seriously", "is that right", "is that correct":
		return "That is what the page told me. Anything else I can do " + c.place.here + "?", true
	case "bye", "goodbye", "see you", "see ya", "ok bye", "thanks bye", "thats all", "thanks thats all", "thats it thanks", "im done":
		return c.place.bye, true
	case "help", "what can you do", "what can i do", "what can you do here", "what can i do here", "what can i ask", "who are you", "what are you", "options", "menu",
		"what can you help with", "what can you help me with", "how can you help", "how can you help me", "how does this work",
		"can you help", "can you help me", "could you help me", "i need help", "what tools do you have", "what tools are there", "what tools",
		"list tools", "list your tools", "show tools", "tools":
		return c.greeting(c.place.self), true
	}
	if rest := talkFillers.ReplaceAllString(low, ""); rest != low && rest != "" {
		return c.smallTalk(rest) // "hmm ok, what can you do then"
	}
	// "Thank you, I will think about it. Goodbye.": courtesies only, each part
	parts := strings.FieldsFunc(strings.ToLower(strings.ReplaceAll(text, "'", "")), func(r rune) bool { return strings.ContainsRune(".,;!?", r) })
	bye := false
	for _, p := range parts {
		p = strings.Join(strings.Fields(p), " ")
		if !courtesy.MatchString(p) {
			return "", false
		}
		bye = bye || farewell.MatchString(p)
	}
	switch {
	case len(parts) == 0:
	case bye:
		return c.place.bye, true
	default:
		return "You're welcome! Anything else I can do " + c.place.here + "?", true
	}
	return "", false
}

// courtesy is one part of a message of courtesies, lower case without apostrophes: one or
// more goodbyes, thanks and praise ("bye thanks", "thats all thanks", "perfect"); farewell
// finds a goodbye in one.
var (
	courtesy = regexp.MustCompile(`^(?:(?:` + courtesyLead + `)\s+)*(?:` + courtesyWords + `)(?:\s+(?:(?:` + courtesyLead + `)\s+)*(?:` + courtesyWords + `))*$`)
	farewell = regexp.MustCompile(`(?:^|\s)(?:` + byeWords + `)(?:\s|$)`)
)

const (
	courtesyLead  = `ok|okay|well|oh|ah|many|and|so`
	praiseWords   = `great|perfect|lovely|wonderful|awesome|cool|nice|excellent|brilliant|fantastic|super|amazing|splendid|marvell?ous`
	byeWords      = `good ?bye|bye(?: bye)?|see you(?: later| soon)?|have a (?:nice|good|great|lovely) (?:day|evening|afternoon|weekend)|i(?:ll| will) (?:think about it|think it over|come back(?: later)?)|thats (?:all|everything|it)(?: for (?:now|today))?|nothing else|im done|good (?:day|night|evening)(?: to you)?`
	courtesyWords = byeWords + `|` + praiseWords + `|(?:i am|im|were|we are) (?:very |so |really |quite )?(?:happy|pleased|satisfied|fine|good|content) with (?:that|this|it|everything)|thank(?:s| you)(?: (?:very|so) much| a (?:lot|bunch|ton|million)| kindly)?(?: for (?:your|the|all the) help| for everything)?|cheers|(?:i am|im) (?:most |very |so )?grateful|you(?:re| are) (?:very |so )?(?:kind|helpful)|(?:very|most) kind`
)

// chatShort are the short forms of chat that smallTalk reads as their words.
var chatShort = map[string]string{"k": "ok", "thx": "thanks", "thanx": "thanks", "tnx": "thanks", "u": "you", "r": "are",
	"wat": "what", "wut": "what", "pls": "please", "plz": "please", "ur": "your"}

// talkFillers are words around small talk that change nothing of it.
var talkFillers = regexp.MustCompile(`^(?:(?:hmm+|ok|okay|so|well|alright|and)\s+)+|\s+(?:then|exactly|please|pls)$`)

// greeting presents what the planner can do here, as requests the visitor can type.
func (c *conv) greeting(open string) string {
	sug := c.suggestions(3)
	here := slices.ContainsFunc(c.tools, func(t chat.ToolDef) bool {
		return !navTool(t) && slices.Contains(sug, c.example(t))
	})
	if can := c.abilities(3); !here && len(can) > 0 {
		// Nothing here to suggest but going elsewhere (a form needs the visitor's own words):
		// what the page does, then where else to go.
		out := open + " " + c.place.canDo + ": " + joinList(can, "and") + "."
		if len(sug) > 0 {
			out += " Or try: " + c.offer(sug, "or", false) + "."
		}
		return out
	}
	if len(sug) == 0 {
		return open + " " + c.place.noTools
	}
	return open + " " + c.place.canDo + " — try: " + c.offer(sug, "or", false) + "."
}

// abilities says what the first n tools do, from their descriptions or names ("fill in the
// test-drive form", "book test drive"): for a page whose every tool needs words of the
// visitor's own (a name, a date), which no suggestion can give.
func (c *conv) abilities(n int) []string {
	return c.firstOf(n, func(t chat.ToolDef) string { return c.describeTool(t.Name) })
}

func (c *conv) noTools() string {
	return "Sorry, I can't do that here: " + lowerFirst(c.place.noTools)
}

// suggestions are requests that route back to their tool, one per tool, at most n, leaving
// out tools that submit or buy something.
func (c *conv) suggestions(n int) []string {
	return c.examples(n, func(t chat.ToolDef) bool { return !named(t.Name, commitFirst) })
}

// examples are the requests of the tools that keep (example) that route back to their tool,
// one per tool, at most n.
func (c *conv) examples(n int, keep func(chat.ToolDef) bool) []string {
	return c.firstOf(n, func(t chat.ToolDef) string {
		ex := c.example(t)
		if !keep(t) || ex == "" || len(strings.Fields(ex)) > 5 {
			return "" // "get annotated message message type error" helps nobody
		}
		if p := route(ex, c.tools); p == nil || p.def.Name != t.Name || len(p.missing) > 0 {
			return ""
		}
		return ex
	})
}

// firstOf is what say says of the tools, one each, not "" nor twice, at most n.
func (c *conv) firstOf(n int, say func(chat.ToolDef) string) []string {
	var out []string
	for _, t := range c.tools {
		if len(out) == n {
			break
		}
		if s := say(t); s != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// example is a request for tool t made of its name and the first value of its enums:
// "sort cars by price", "search cars suv". "" when it needs a value with no enum.
func (c *conv) example(t chat.ToolDef) string {
	parts := []string{identPhrase(ownName(t.Name))}
	words := strings.Fields(parts[0])
	for _, p := range parseSchema(t.Parameters).props {
		switch {
		case len(p.schema.enum) > 0 && (p.required || len(parts) == 1):
			v := p.schema.enum[0].text()
			// "set theme light", not "set theme theme light"
			if p.required && slices.ContainsFunc(p.words, func(w string) bool { return !slices.Contains(words, w) }) {
				v = paramLabel(p, v)
			}
			parts = append(parts, v)
		case p.required:
			return ""
		}
	}
	return strings.Join(parts, " ")
}

// SayLink is the target of a Markdown link that is a suggestion, not a place: the widget
// (jsclient/markdown.js) shows [“label”](byomcp:say) as a button that sends the label, without
// its quotation marks, as the visitor's message. Other Markdown readers show the label.
const SayLink = "byomcp:say"

// offer writes requests the visitor can make, “a”, “b” or “c”: clickable suggestions
// (SayLink) on a page when links, else quoted text.
func (c *conv) offer(xs []string, conj string, links bool) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = "“" + x + "”"
		if links && c.place.say {
			q[i] = "[" + q[i] + "](" + SayLink + ")"
		}
	}
	return joinList(q, conj)
}

func joinList(xs []string, conj string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " " + conj + " " + xs[len(xs)-1]
}

// title is an item as the visitor knows it: its name, never its id.
func title(it *item) string {
	if it.name != "" && it.name != it.id {
		return it.name
	}
	return it.id
}

// theTitle is "the" and the item's name, once: "the 2023 Toyota RAV4", "The Left Hand of
// Darkness" (not "the The Left Hand of Darkness").
func theTitle(it *item) string {
	t := title(it)
	if len(t) > 4 && strings.EqualFold(t[:4], "the ") || personTitle.MatchString(t) {
		return t // ("Dr. Ana Silva", not "the Dr. Ana Silva")
	}
	if first, _, _ := strings.Cut(t, " "); toolVerbs[strings.ToLower(first)] {
		return "“" + t + "”" // a task: "“Call the bank”", not "the Call the bank"
	}
	return "the " + t
}

// personTitle starts a person's name: "Dr. Ana Silva", "Mrs Bell".
var personTitle = regexp.MustCompile(`^(?:Dr|Mr|Mrs|Ms|Miss|Mx|Prof|Sir|Dame)\b\.?\s`)

// answerAbout answers a question about items already seen: which is cheaper, how much is
// the RAV4, what year is the second one.
func (c *conv) answerAbout(text string, toks []token, refs []*item, o order, hasRank bool, ranking []*item) (string, bool) {
	money := c.before.money
	// is says one field of an item: "the RAV4 is $31,500", "the Sportage has 14,000 miles".
	is := func(it *item, f *field, v float64) string { return theTitle(it) + f.verb + f.value(v, money) }
	// ranking is what a ranking of the items on screen ranked ("which Toyota is the newest?":
	// the Toyotas shown)
	memRank, among := ranking != nil, ranking
	if !memRank {
		among = c.before.last
	}
	if hasRank && !memRank && len(refs) > 1 {
		if w := ranked(refs, o); len(w) > 0 {
			among, refs, memRank = refs, w[:1], true // "which is cheaper, this or the F-150?"
		}
	}
	if memRank && hasRank && len(refs) > 1 {
		var parts []string
		for _, x := range refs {
			w, _ := x.num(o.field.keys...)
			parts = append(parts, theTitle(x)+" ("+o.field.value(w, money)+")")
		}
		return "The " + strconv.Itoa(len(refs)) + " " + o.what + " are " + joinList(parts, "and") + ".", true
	}
	if memRank && hasRank && len(refs) == 1 {
		it, year := refs[0], o.field == yearField
		// "which of them is newer" of two 2023 cars: no winner
		if v, ok := it.num(o.field.keys...); ok && slices.Contains(among, it) {
			tied := slices.DeleteFunc(slices.Clone(among), func(x *item) bool { w, ok := x.num(o.field.keys...); return !ok || w != v })
			switch all := map[bool]string{true: "both", false: "all"}[len(tied) == 2]; {
			case len(tied) == 2 && len(among) == 2:
				return "Neither: " + theTitle(among[0]) + " and " + theTitle(among[1]) + " are the same, " + o.field.value(v, money) + ".", true
			case len(tied) > 1: // "which of them is the newest?" of two 2023 cars and a 2022 one
				return upperFirst(joinList(titles(tied), "and")) + " are the " + o.what + ", " + all + " " + o.field.value(v, money) + ".", true
			}
		}
		var others []string
		for _, x := range among {
			if w, ok := x.num(o.field.keys...); ok && x != it && year {
				others = append(others, theTitle(x))
			} else if ok && x != it {
				others = append(others, is(x, o.field, w))
			}
		}
		s := upperFirst(theTitle(it)) + " is the " + o.what + rankDetail(o, it, money)
		// One or two others: "(the other is the 2019 Civic)", "(the Civic is $24,000)".
		if n := len(others); n == 1 || n == 2 {
			lead := ""
			switch {
			case year && n == 1:
				lead = "the other is "
			case year:
				lead = "the others are "
			}
			s += " (" + lead + joinList(others, "and") + ")"
		}
		if len(among) == 2 && asksDifference(toks) { // "how much cheaper is the golf"
			other := among[0]
			if other == it {
				other = among[1]
			}
			s = strings.TrimSuffix(s, ".") + difference(o.field, it, other, money)
		}
		return strings.TrimSuffix(s, ".") + ".", true
	}
	f, adjective := questionField(toks)
	if f == nil && len(refs) == 2 && asksDifference(toks) {
		f = priceField // "whats the difference" between two cars: in price
	}
	if f == nil || (!isQuestion(text, toks) && adjective) {
		return "", false // "trade in my old car for the RAV4" asks no year
	}
	var parts []string
	for _, it := range refs {
		if v, ok := it.num(f.keys...); ok {
			parts = append(parts, is(it, f, v))
		}
	}
	if len(parts) == 0 {
		return "", false
	}
	if len(refs) == 1 { // "the price and mileage of the Kia Sportage": each field named
		for _, g := range fields {
			v, ok := refs[0].num(g.keys...)
			if g != f && ok && slices.ContainsFunc(toks, func(t token) bool { return slices.Contains(g.words, t.norm) }) {
				parts[0] += " and" + g.verb + g.value(v, money)
			}
		}
	}
	diff := "" // "whats the difference in price between them": the difference too
	if len(refs) == 2 && asksDifference(toks) {
		diff = difference(f, refs[0], refs[1], money)
	}
	return upperFirst(joinList(parts, "and") + diff + "."), true
}

// difference says how far apart the two items are in f: ": a difference of $1,500"; "" when
// one of them has no value of f.
func difference(f *field, a, b *item, money moneyStyle) string {
	v, okA := a.num(f.keys...)
	w, okB := b.num(f.keys...)
	if !okA || !okB {
		return ""
	}
	return ": a difference of " + f.value(math.Abs(v-w), money)
}

// beating answers which of the items seen beat it in o ("is there one thats cheaper than
// it"): those of the last list that do, the best first.
func (c *conv) beating(it *item, o order, list []*item) (string, bool) {
	v, ok := it.num(o.field.keys...)
	if !ok {
		return "", false
	}
	than := " " + o.what + " than " + theTitle(it) + " (" + o.field.value(v, c.before.money) + ")"
	var parts []string
	for _, x := range ranked(list, o) {
		if w, _ := x.num(o.field.keys...); x != it && (o.desc && w > v || !o.desc && w < v) {
			parts = append(parts, theTitle(x)+" ("+o.field.value(w, c.before.money)+")")
		}
	}
	n := len(parts)
	switch {
	case n == 0:
		return "None of those listed is" + than + ".", true
	case n == 1:
		return "Of those listed, only " + parts[0] + " is" + than + ".", true
	case n > 5:
		parts = append(parts[:5], strconv.Itoa(n-5)+" more") // (the count is of them all)
	}
	return "Of those listed, " + strconv.Itoa(n) + " are" + than + ": " + joinList(parts, "and") + ".", true
}

// includesRe asks whether a figure includes a choice: "does that include the roof?", "is that
// with the tech package", "does that price include the towing package?".
var includesRe = regexp.MustCompile(`(?i)^\s*(?:(?:and|so|ok|okay)\s+)?(?:does|did|is|was)\s+(?:that|it|this|the)\b.*\b(?:include|includes|including|with)\b`)

// includes answers whether the figure on this page (the item's calculator) includes a choice
// named in toks, from what the conversation set on the item's own page: the values its calls
// there gave, the last call of each tool first.
func (c *conv) includes(toks []token) (string, bool) {
	at := slices.IndexFunc(toks, func(t token) bool {
		return t.norm == "include" || t.norm == "includes" || t.norm == "including" || t.norm == "with"
	})
	asked := toks[at+1:]
	if slices.ContainsFunc(asked, func(t token) bool { return c.vocab[t.norm] }) {
		return "", false // "is that with money down?": a value of this page's
	}
	page := cmp.Or(c.openedNoun(), "item") + "'s page"
	var set []string // the values given elsewhere, as the last call of each tool gave them
	seen := map[string]bool{}
	for k := range c.earlierCalls {
		if !c.offers(k.name) && !seen[k.name] {
			seen[k.name] = true
			set = append(set, slices.DeleteFunc(stringArgs(k.args), idRe.MatchString)...)
		}
	}
	for _, v := range set {
		if slices.ContainsFunc(asked, func(t token) bool {
			return strings.EqualFold(t.raw, v) || wordsMatch(t.norm, normWord(strings.ToLower(v)))
		}) {
			return "Yes: " + v + " was chosen on the " + page + " before, so it is in the price here.", true
		}
	}
	named := slices.ContainsFunc(asked, func(t token) bool { return t.kind == kindWord && !ordinary(t.norm) && !c.vocab[t.norm] })
	switch {
	case !named:
		return "", false
	case !choiceNoun(asked): // "does that monthly payment include taxes?"
		var words []string
		for _, t := range asked {
			if t.kind == kindWord {
				words = append(words, t.raw) // "the roof", "taxes"
			}
		}
		return "Nothing here says whether it includes " + strings.Join(words, " ") + ".", true
	case len(set) == 0:
		return "No: nothing was chosen on the " + page + " in this conversation, so the price here is its own.", true
	}
	return "No: on the " + page + ", " + joinList(set, "and") + " was chosen; the price here has only that.", true
}

// differenceKnown reports a question of how much two items differ in a field that both
// have, which is answered from what was said of them ("how much more is the 330i" on the
// Civic's page, both seen on the list), wherever the visitor is.
func (c *conv) differenceKnown(r *reading) bool {
	f, _ := questionField(r.toks)
	f = cmp.Or(f, priceField) // "whats the difference": in price
	return r.question && len(r.refs) == 2 && asksDifference(r.toks) &&
		!slices.ContainsFunc(r.refs, func(it *item) bool { _, ok := it.num(f.keys...); return !ok })
}

// itemIs answers a yes-or-no question about an item ("is it a hybrid?", "is the RAV4
// electric?") from what a list said of it: a value of one of its fields that an item seen
// has, or that a parameter of the same name here allows.
func (c *conv) itemIs(it *item, toks []token) (string, bool) {
	// "what fuel does the Explorer use?", "and fuel?": a text field the list gave, by its name
	words := len(slices.DeleteFunc(slices.Clone(toks), func(t token) bool { return t.kind != kindWord }))
	for _, t := range toks {
		if vs := it.attrs[t.norm]; t.kind == kindWord && len(vs) > 0 && !slices.Contains(it.words, compact(t.norm)) && // ("model" of the Model Y)
			(wordAt(toks, 0, "what", "which", "whats", "what's") || words <= 3) {
			return "The " + t.norm + " of " + theTitle(it) + ": " + joinList(vs, "and") + ".", true
		}
	}
	// "how many bedrooms?": a count the list gave, by its name
	for k, v := range it.nums {
		if !wordAt(toks, 0, "how") || !wordAt(toks, 1, "many") || len(toks) < 3 {
			break
		}
		if unit := toks[2].raw; normWord(k) == toks[2].norm {
			if v == 1 {
				unit = strings.TrimSuffix(unit, "s")
			}
			return upperFirst(theTitle(it)) + " has " + strconv.FormatFloat(v, 'f', -1, 64) + " " + unit + ".", true
		}
	}
	if !wordAt(toks, 0, "is", "does", "has", "can") || anyNorm(toks, "than") {
		return "", false // "does it cost more than the Civic?" compares
	}
	// the question's own sentence: "Is it reliable? I've heard mixed things about Kia." asks no make
	if end := slices.IndexFunc(toks, func(t token) bool { return t.kind == kindPunct && strings.ContainsAny(t.raw, "?.!") }); end > 0 {
		toks = toks[:end]
	}
	// "is the Camry one of them?": of the last list
	oneOf := false
	for i := range toks {
		oneOf = oneOf || wordAt(toks, i, "one") && wordAt(toks, i+1, "of") && wordAt(toks, i+2, "them", "those", "these")
	}
	if oneOf && len(c.before.last) > 1 {
		is := map[bool]string{true: "Yes", false: "No"}[slices.Contains(c.before.last, it)]
		return is + ": " + theTitle(it) + map[bool]string{true: " is", false: " is not"}[is == "Yes"] + " one of them.", true
	}
	// "is it a 2023?": a year
	if y, ok := it.num("year"); ok && slices.ContainsFunc(toks, func(t token) bool { return t.kind == kindNumber && t.value >= 1900 && t.value <= 2100 }) {
		is := map[bool]string{true: "Yes", false: "No"}[slices.ContainsFunc(toks, func(t token) bool { return t.kind == kindNumber && t.value == y })]
		return is + ": " + theTitle(it) + " is a " + strconv.Itoa(int(y)) + " model.", true
	}
	// The words that name it are no value asked: "is the rav4 awd" asks nothing of the model
	// RAV4 (its subject, after "is the"); "is the rav4 a toyota" asks its make.
	subject := 1
	if wordAt(toks, subject, "the", "this", "that") {
		subject++
	}
	end := subject
	for end < len(toks) && toks[end].kind != kindPunct && slices.Contains(it.words, compact(toks[end].norm)) {
		end++
	}
	toks = slices.Concat(toks[:subject], toks[end:])
	// as the page writes it: "SUV", "Tesla"
	shown := func(v string) string {
		if i := strings.Index(strings.ToLower(it.name), v); i >= 0 {
			return it.name[i : i+len(v)]
		} else if len(v) <= 3 {
			return strings.ToUpper(v)
		}
		return v
	}
	for _, key := range slices.Sorted(maps.Keys(it.attrs)) {
		var values []string
		for _, o := range c.before.known() {
			values = append(values, o.attrs[key]...)
		}
		for _, t := range c.tools {
			for _, p := range parseSchema(t.Parameters).props {
				if strings.ToLower(p.name) == key && p.schema.stringEnum() {
					for _, e := range p.schema.enum {
						values = append(values, strings.ToLower(e.str)) // attrs are lower case
					}
				}
			}
		}
		i := slices.IndexFunc(values, func(v string) bool { return spelledIn(toks, v) })
		if has := it.attrs[key]; i >= 0 && slices.Contains(has, values[i]) {
			return "Yes: " + theTitle(it) + " is " + shown(values[i]) + ".", true
		} else if i >= 0 {
			var shownHas []string
			for _, h := range has {
				shownHas = append(shownHas, shown(h))
			}
			return "No: " + theTitle(it) + " is " + joinList(shownHas, "and") + ".", true // not the kind asked: another name may hold it
		}
	}
	return "", false
}

// ofThose answers which items of the group have the text values a filter of the list names
// ("which of them are hybrids?"), from what the list said of them; where it said nothing of
// that field (their colours), their pages do.
func (c *conv) ofThose(filter *plan) (string, bool) {
	group := c.group()
	var says []string
	for _, p := range filter.schema.props {
		v, ok := filter.values[p.name].(string)
		key := strings.ToLower(p.name)
		if !ok {
			continue
		}
		var titles, others []string
		for _, it := range group {
			have, known := it.attrs[key]
			if !known {
				var opens []string
				for _, g := range group {
					opens = append(opens, "open "+theTitle(g))
				}
				noun := listNoun(filter.def.Name, 1)
				return "The list doesn't show their " + identPhrase(p.name) + "; each " + noun + "'s page does: " + c.offer(opens, "or", true) + ".", true
			}
			if slices.Contains(have, strings.ToLower(v)) {
				titles = append(titles, theTitle(it))
			} else {
				others = append(others, theTitle(it)+" is "+joinList(have, "and"))
			}
		}
		switch n := len(titles); {
		case n == 0:
			says = append(says, fmt.Sprintf("None of those %d is %s: %s.", len(group), v, joinList(others, "and")))
		case n == len(group):
			says = append(says, fmt.Sprintf("%s are %s: %s.", map[bool]string{true: "Both", false: fmt.Sprint("All ", n)}[n == 2], v, joinList(titles, "and")))
		default:
			says = append(says, fmt.Sprintf("%d of those %d %s %s: %s.", n, len(group), map[bool]string{true: "is", false: "are"}[n == 1], v, joinList(titles, "and")))
		}
	}
	return strings.Join(says, " "), len(says) > 0
}

// whichOne asks which of several items the words name.
func (c *conv) whichOne(text string, m mention) intent {
	var chs []choice
	for _, it := range m.items[:min(3, len(m.items))] {
		p := route(text[:m.start]+it.id+text[m.end:], c.tools)
		if p != nil && len(p.missing) > 0 {
			p = nil
		}
		chs = append(chs, choice{theTitle(it), p})
	}
	in := intent{reply: "Which one do you mean: " + joinList(labels(chs), "or") + "?"}
	if !slices.ContainsFunc(chs, func(ch choice) bool { return ch.plan == nil }) {
		in.choices = chs
	}
	return in
}

// describe writes what a plan would do, for a choice: "sort the inventory by price,
// ascending"; the items the conversation has seen are named, not given by their ids: "(Sea
// View Double)", not "(room id r03)".
func (c *conv) describe(p *plan) string {
	d := strings.TrimSpace(p.def.Description)
	if i := strings.IndexAny(d, ".;:("); i > 0 {
		d = strings.TrimSpace(d[:i])
	}
	if d == "" || len(d) > 80 {
		d = identPhrase(ownName(p.def.Name))
	}
	d = lowerFirst(baseVerb(toVisitor(d)))
	if first, _, _ := strings.Cut(d, " "); !toolVerbs[normWord(first)] {
		d = "show " + d // a description that names a thing: "Spa opening hours today"
	}
	var vals []string
	for _, prop := range p.schema.props {
		var v string
		switch x := p.values[prop.name].(type) {
		case string, []string:
			ids := stringsOf(x)
			v = paramLabel(prop, strings.Join(ids, " and "))
			if single, list := idParam(prop); single || list { // the cars by their names, not "car ids c20 and c19"
				var names []string
				for _, id := range ids {
					if it := cmp.Or(c.now.items[id], c.before.items[id]); it != nil && title(it) != id {
						names = append(names, title(it))
					}
				}
				if len(names) == len(ids) {
					v = strings.Join(names, " and ")
				}
			}
		case float64:
			v = paramLabel(prop, strconv.FormatFloat(x, 'f', -1, 64))
		default:
			continue
		}
		vals = append(vals, v)
	}
	if len(vals) > 0 {
		d += " (" + strings.Join(vals, ", ") + ")"
	}
	return d
}

// toolVerbs are the verbs tool descriptions commonly open with ("Filter the cars", "Book a
// table"); a description that opens with another word names what the tool shows.
var toolVerbs = wordSet(`add apply approve ask assign book browse buy calculate call cancel
	change check choose clear close compare compute configure confirm contact convert copy
	create customize decline delete describe display download echo edit email empty enable disable
	estimate explain export fetch fill filter find finish follow generate get give go hide
	import invite join leave list load locate log look lookup mark move navigate notify open
	order pay pick place play post predict preview print publish purchase put query rate read
	record refresh register reject reload remove rename reorder replace reply report request
	reschedule reserve reset resume retrieve return review run save schedule scroll search
	select send set share show sign skip sort start stop submit subscribe suggest summarize
	switch take tell toggle track translate unsubscribe update upload use validate verify view
	visit vote watch write zoom accept analyze analyse answer archive attach borrow build
	collapse compose count decrease draw enroll evaluate expand extract format highlight
	identify increase insert keep lend lock make manage match measure merge parse perform plan
	prepare process provide recommend redo redeem render renew rent resize rotate scan simulate
	solve split sum transfer trigger turn undo unlock upgrade wait`)

func paramLabel(p *property, v string) string {
	if dir, ok := map[string]string{"asc": "lowest first", "desc": "highest first"}[v]; ok {
		return dir
	}
	if len(p.words) == 1 && (p.words[0] == "by" || p.words[0] == "sort") {
		return "by " + v
	}
	if u := p.words[len(p.words)-1]; slices.Contains([]string{"month", "year", "day", "week", "hour", "minute", "night", "person", "guest", "seat", "people"}, u) {
		if v != "1" {
			u += "s"
		}
		return v + " " + u
	}
	return strings.Join(p.words, " ") + " " + v
}

// baseVerb turns a description's "Saves a note" into "Save a note".
func baseVerb(d string) string {
	first, rest, _ := strings.Cut(d, " ")
	if strings.HasSuffix(first, "oes") {
		first = first[:len(first)-2] // "goes", "does"
	} else {
		first = stem(first)
	}
	return strings.TrimSpace(first + " " + rest)
}

func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if next, _ := utf8.DecodeRuneInString(s[n:]); n == 0 || unicode.IsUpper(next) {
		return s // empty, or an acronym
	}
	return string(unicode.ToLower(r)) + s[n:]
}

func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// choose asks the visitor to pick one of a few concrete plans.
func (c *conv) choose(intro string, ps []*plan) intent {
	var chs []choice
	for _, p := range ps {
		if len(chs) == 3 {
			break
		}
		if label := c.describe(p); !slices.ContainsFunc(chs, func(ch choice) bool { return ch.label == label }) {
			chs = append(chs, choice{label, p})
		}
	}
	return intent{reply: intro + " " + joinList(labels(chs), "or") + "?", choices: chs}
}

func labels(chs []choice) []string {
	out := make([]string, len(chs))
	for i, ch := range chs {
		out[i] = ch.label
	}
	return out
}

// options answers a question about the choices a parameter of the page's tools allows
// ("what colors does it come in?", "which trims are there?") from its enum, when the
// question names the parameter and none of its values.
func (c *conv) options(toks []token) (intent, bool) {
	// p: the parameter the question names most words of; valued: the last whose choices have
	// a value the text names ("does it come in blue?"); tool: the tool of each.
	var p, valued *property
	best, tool := 0, map[*property]chat.ToolDef{}
	for _, t := range c.tools {
		for _, q := range parseSchema(t.Parameters).props {
			tool[q] = t
			if sch := q.schema; len(sch.enum) < 2 && (sch.items == nil || len(sch.items.enum) < 2) {
				continue
			}
			if n := namesParam(toks, q); n > best {
				p, best = q, n
			}
			if en := q.schema.allEnums(); len(en) >= 2 && en[0].isStr &&
				slices.ContainsFunc(en, func(e enumValue) bool { return sayValue(toks, e) }) &&
				(valued == nil || !slices.ContainsFunc(toks, func(t token) bool { return nounOf(t, valued) })) {
				valued = q // "does it have a tow package?", "… come with the towing package?" (a sport package, no Sport trim)
			}
		}
	}
	// A question whether: "does it come in blue?", "can I get it in green?", and on an item's
	// own page (no list) "is the Camry available in red?".
	// ("have tow package?": a question of whether, said short)
	ask := (wordAt(toks, 0, "does", "do", "is", "are", "can", "could", "will") || wordAt(toks, 0, "have", "has") && toks[len(toks)-1].raw == "?") &&
		(pronounIn(toks) || !c.listsItems())
	if p == nil && ask {
		p = valued
	}
	if no := c.notOffered(toks); p == nil && ask && no != "" {
		return intent{reply: "No, " + no}, true // "is it available in green?" where green is no choice
	}
	if p == nil {
		return intent{}, false
	}
	sch, many := p.schema, false
	if len(sch.enum) == 0 {
		sch, many = sch.items, true
	}
	var named *enumValue // "does it come in red?": a value, not the choices
	for _, e := range sch.enum {
		if sayValue(toks, e) {
			named = &e
		}
	}
	vals, name := enumLabels(sch.enum), identPhrase(p.name)
	// The values offered: "add it" after a yes sets the one named, "the middle one" after the
	// list picks one of them.
	offer := func(e enumValue) choice {
		t := tool[p]
		var v any = e.raw
		if e.isStr {
			v = e.str
		}
		if many {
			v = []any{v}
		}
		pl := &plan{def: t, schema: parseSchema(t.Parameters), values: map[string]any{p.name: v}}
		return choice{e.text(), pl} // picked by its value's words, not the tool's
	}
	if i := slices.IndexFunc(toks, func(t token) bool { return rankWords[t.norm].field != nil }); i >= 0 && named == nil && !many {
		// "which trim is cheapest?" where no choice has a price
		return intent{reply: "Nothing here says which " + name + " is " + rankWords[toks[i].norm].what + ": the " + name + " can be " + joinList(vals, "or") + "."}, true
	}
	yes := func(text string) (intent, bool) {
		if anyNorm(toks, "worth", "recommend", "recommended") {
			// "is the gt worth it": no advice, what it can do
			return intent{reply: "That is for you to judge. The " + name + " can be " + joinList(vals, "or") + "; I can set " + named.label() +
				" and show you the price.", choices: []choice{offer(*named)}}, true
		}
		if no := c.notOffered(toks); no != "" {
			// "is the m sport available in red?" where it is not in red: no, whatever the trim
			return intent{reply: "No, " + no + " " + upperFirst(strings.TrimPrefix(text, "Yes: "))}, true
		}
		return intent{reply: text, choices: []choice{offer(*named)}}, true
	}
	switch {
	case named != nil && !ask:
		return intent{}, false
	case named != nil && c.listsItems():
		// "is it a hybrid?" on the list: the item's own value, never the filter's choices.
		it := c.pronounRef(toks)
		if it == nil || len(it.attrs[strings.ToLower(p.name)]) == 0 {
			return intent{}, false
		}
		has := it.attrs[strings.ToLower(p.name)]
		if slices.ContainsFunc(has, func(v string) bool { return strings.EqualFold(v, named.text()) }) {
			return intent{reply: "Yes: " + theTitle(it) + "'s " + name + " is " + named.text() + "."}, true
		}
		return intent{reply: "No: " + theTitle(it) + "'s " + name + " is " + joinList(has, "and") + "."}, true
	case named != nil && many:
		return yes("Yes: " + named.label() + " is one of the " + name + " (the choices: " + joinList(vals, "and") + ").")
	case named != nil:
		return yes("Yes: the " + name + " can be " + named.label() + " (the choices: " + joinList(vals, "or") + ").")
	case many:
		// each one, and all of them: "add both"
		var chs []choice
		every := &plan{def: tool[p], schema: parseSchema(tool[p].Parameters), values: map[string]any{}}
		var all []any
		for _, e := range sch.enum {
			chs = append(chs, offer(e))
			all = append(all, chs[len(chs)-1].plan.values[p.name].([]any)...)
		}
		every.values[p.name] = all
		chs = append(chs, choice{map[bool]string{true: "both", false: "all"}[len(all) == 2], every})
		return intent{reply: "The " + name + " to choose from: " + joinList(vals, "and") + " (one or more).", choices: chs}, true
	}
	en := sch.enum
	if in := partOfDay(p, toks); len(in) < len(vals) { // "what times are there in the morning?": those
		en = slices.DeleteFunc(slices.Clone(en), func(e enumValue) bool { return !slices.Contains(in, e.text()) })
		vals = enumLabels(en)
	}
	var chs []choice
	for _, e := range en[:min(6, len(en))] {
		chs = append(chs, offer(e))
	}
	return intent{reply: "The " + name + " can be " + joinList(vals, "or") + ".", choices: chs}, true
}

// numberNotOffered is a figure said with the unit of q, a number of choices, that is none of
// them: "84 months" or "7 years" where the terms are 24 to 72 months, or the figure alone in a
// short follow-up ("and 84?") near their range; "" when there is none.
func numberNotOffered(toks []token, q *property) string {
	en := q.schema.enum
	if !q.schema.isNumber() || len(en) == 0 || !en[0].isNum {
		return ""
	}
	lo, hi := en[0].num, en[0].num
	for _, e := range en {
		lo, hi = min(lo, e.num), max(hi, e.num)
	}
	for i, t := range toks {
		if t.kind != kindNumber || t.money || t.percent {
			continue
		}
		v, said := t.value, ""
		if i+1 < len(toks) && toks[i+1].kind == kindWord {
			said = t.raw + " " + toks[i+1].raw
		}
		switch unit := strings.TrimPrefix(said, t.raw+" "); {
		case said != "" && normWord(unit) == "year" && hasWord(q, "month") && !hasWord(q, "year"):
			v *= 12 // "7 years" of a term in months
		case said != "" && slices.ContainsFunc(q.words, func(w string) bool { return wordsMatch(normWord(unit), w) }):
		case said == "" && v >= lo/2 && v <= hi*2 && !slices.ContainsFunc(toks, func(w token) bool {
			return w.kind == kindWord && !stopWords[w.norm] && !followUpWords[w.norm]
		}): // "and 84?", "what about 84"
			said = t.raw + " " + strings.TrimSuffix(q.words[len(q.words)-1], "s") + "s"
		default:
			continue
		}
		if !slices.ContainsFunc(en, func(e enumValue) bool { return e.num == v }) {
			return said
		}
	}
	return ""
}

// followUpWords ask again with another figure: "and 84?", "what about 84", "how about 84 then".
var followUpWords = rawSet(`and what about how or try then instead`)

// notOffered answers a choice asked for that the page's choices lack with the choices there
// are: a colour ("red one please" where the colours are silver, gray, white or green), or a
// value named by its parameter ("the winter package" where the packages are Home charger,
// Panoramic roof or Driver assistance: their titles). It reads "not in red: …" or "there is no winter package: …"; "" when there is none.
func (c *conv) notOffered(toks []token) string {
	var whole []token // without the words of a name written with a hyphen: "EX-L" names no "EX"
	for i, t := range toks {
		if !gluedOn(toks, i) && !(i >= 2 && gluedOn(toks, i-2)) {
			whole = append(whole, t)
		}
	}
	for _, tool := range c.tools {
		for _, q := range parseSchema(tool.Parameters).props {
			// a value named, or spelled out ("the towing package" is "tow")
			en := q.schema.allEnums()
			if no := numberNotOffered(toks, q); no != "" {
				return "there is no " + no + " option: the " + identPhrase(q.name) + " can be " + joinList(enumLabels(en), "or") + "."
			}
			if len(en) < 2 || !en[0].isStr {
				continue
			}
			choices := ": the " + identPhrase(q.name) + " can be " + joinList(enumLabels(en), "or") + "."
			if slices.ContainsFunc(en, func(e enumValue) bool { return namedValue(whole, e) || spelledIn(toks, e.str) }) {
				if w := c.listedBeside(toks, q, en); w != "" {
					return "there is no " + w + " " + stem(identPhrase(q.name)) + choices // "add winter and safety" of a car without winter
				}
				continue
			}
			for i, t := range toks {
				// normWord writes "colour" as "color" and "grey" as "gray"
				if colourWords[t.norm] && slices.Contains(q.words, "color") {
					return "not in " + t.raw + choices
				}
				if i+1 < len(toks) && nounOf(toks[i+1], q) && c.noValue(t) { // "family package"
					name := t.raw
					if i >= 2 && gluedOn(toks, i-2) {
						name = toks[i-2].raw + "-" + t.raw // "EX-L trim"
					}
					return "there is no " + name + " " + toks[i+1].raw + choices
				}
				if q.schema.isArray() && anyNorm(toks, "add") && wordAt(toks, i-1, "the") && wordAt(toks, i+2, "one") && c.noValue(t) && c.noValue(toks[i+1]) {
					return "there is no " + t.raw + " " + toks[i+1].raw + " " + stem(identPhrase(q.name)) + choices // "add the driver assistance one"
				}
			}
		}
	}
	return ""
}

// listedBeside is a word listed with a value of the list parameter q ("winter" of "add winter
// and safety") that is none of its values nor a word the page knows; "" when there is none.
func (c *conv) listedBeside(toks []token, q *property, en []enumValue) string {
	if !q.schema.isArray() {
		return ""
	}
	value := func(i int) bool {
		return i >= 0 && i < len(toks) && slices.ContainsFunc(en, func(e enumValue) bool {
			return namedValue(toks[i:i+1], e) || spelledIn(toks[i:i+1], e.str) // "towing" is "tow"
		})
	}
	for i, t := range toks {
		joined := wordAt(toks, i+1, "and") && value(i+2) || wordAt(toks, i-1, "and") && value(i-2) ||
			i+1 < len(toks) && toks[i+1].raw == "," && value(i+2) ||
			i+1 < len(toks) && (nounOf(toks[i+1], q) || wordAt(toks, i+1, "one")) && wordAt(toks, i-1, "the") // "… along with the family one"
		if joined && !value(i) && !value(i+1) && c.noValue(t) && !stopWords[t.norm] { // ("the family and premium sound packages")
			return t.norm
		}
	}
	return ""
}

// noValue reports a word that may name a value the page does not have: no word of the page's
// tools, of asking or of setting apart ("another package"), though a word a hint reads is one
// ("family").
func (c *conv) noValue(t token) bool {
	return t.kind == kindWord && (!ordinary(t.norm) || hints[t.norm] != nil) && !otherWords[t.norm] && !c.vocab[t.norm]
}

// otherWords set a value apart without naming one: "a different trim", "another package",
// "change time to 2".
var otherWords = rawSet(`other another different same new any every each which what change move switch swap`)

// colourWords are colours a visitor may ask for of anything with a colour parameter.
var colourWords = rawSet(`black white silver gray red blue green yellow orange purple pink brown beige
	gold`)

// choicePrice answers what one choice of a list the page's tools take costs (a package): the
// price a result gave of it ("Technology package $1,800"), else how to see it; it declines
// when the words name no such choice.
func (c *conv) choicePrice(r *reading) (intent, bool) {
	p, e := c.choiceNamed(func(p *property, e enumValue) bool {
		return p.schema.isArray() && len(p.words) > 0 &&
			(namedValue(r.toks, e) || len(e.str) >= 4 && strings.Contains(compact(r.text), compact(e.str))) && // "off-road"
			!c.valueOfOther(r.text, e.str, p) // ("the Sport trim … what would the price be?": the trim's)
	})
	if p == nil {
		return intent{}, false
	}
	noun := stem(p.words[len(p.words)-1])
	var letters []string // "offroad" of "Off-road package"; each quoted alone ("x(" is a value too)
	for _, r := range e.str {
		letters = append(letters, regexp.QuoteMeta(string(r)))
	}
	spelled := strings.Join(letters, "-?")
	re := regexp.MustCompile(`(?i)\b(` + spelled + `[\w-]*(?:\s+` + regexp.QuoteMeta(noun) + `)?)\s+(\$\d{1,3}(?:,\d{3})*(?:\.\d\d)?)`)
	for k := range c.earlierCalls {
		if m := re.FindStringSubmatch(unwrap(k.result).text); m != nil {
			return intent{reply: "The " + m[1] + " is " + m[2] + "."}, true
		}
	}
	return c.offerOne("This page shows what the "+choiceName(e, noun)+" costs once it is added: ", "add the "+e.str+" "+noun, e.str), true
}

// valueOfOther reports a value said with the noun of another parameter after it: "Sport trim"
// where the packages have a Sport package too.
func (c *conv) valueOfOther(text, value string, p *property) bool {
	m := regexp.MustCompile(`(?i)\b` + regexp.QuoteMeta(value) + `\s+(\w+)`).FindStringSubmatch(text)
	return m != nil && c.hasParam(func(q *property) bool { return q.name != p.name && nounOf(token{norm: normWord(m[1])}, q) })
}

// choiceNamed is the first parameter of the page's tools, and its string value, that named
// accepts; nil when there is none.
func (c *conv) choiceNamed(named func(*property, enumValue) bool) (*property, enumValue) {
	for _, t := range c.tools {
		for _, p := range parseSchema(t.Parameters).props {
			for _, e := range p.schema.allEnums() {
				if e.isStr && named(p, e) {
					return p, e
				}
			}
		}
	}
	return nil, enumValue{}
}

// choiceName is what a reply calls a choice: by its title when the schema names it ("the
// Driver assistance package" of "safety"), else by its value ("the tech package").
func choiceName(e enumValue, noun string) string {
	name := e.str
	if len(e.named) > 0 && len(e.named) < 5 {
		name = e.title
	}
	if strings.Contains(strings.ToLower(name), noun) {
		return name // "Towing package"
	}
	return name + " " + noun
}

// offerOne is a reply that ends with the one request req it offers, clickable, and the choice
// of that request, labelled label, for "add it", "ok do that".
func (c *conv) offerOne(reply, req, label string) intent {
	in := intent{reply: reply + c.offer([]string{req}, "", true) + "."}
	if p := c.understand(req, false).first(c); p != nil {
		in.choices = []choice{{label: label, plan: p}}
	}
	return in
}

// recalls reports words that ask for what was said before: "what was my payment again?",
// "remind me of the price", "what did you say the interest was?" ("monthly again?" asks anew).
func recalls(toks []token) bool {
	if wordAt(toks, 0, "what") && wordAt(toks, 1, "was") {
		return true // "what was my monthly payment"
	}
	past := anyNorm(toks, "was", "were", "did") ||
		wordAt(toks, 0, "whats", "what's", "wats") || // "whats the interest rate again"
		slices.ContainsFunc(toks, func(t token) bool { return kindWords[t.norm] }) // "what time again?": a value given, not one to work out
	for i := range toks {
		// "which day did I pick?", "which term did I choose", "the date you've put down"
		// ("wait what time did i say", "whats the email i gave")
		asks := slices.ContainsFunc(toks[:i], func(t token) bool { return isWord(t, whWords) })
		// ("what date did you put in?")
		chose := wordAt(toks, i, "did") && wordAt(toks, i+1, "i", "we", "you", "u") && wordAt(toks, i+2, "pick", "choose", "select", "go", "end", "set", "put", "give", "enter", "say", "fill", "use") && asks ||
			wordAt(toks, i, "i", "we") && wordAt(toks, i+1, "gave", "entered", "picked", "chose", "typed", "wrote") && asks
		// "what's my name on the form": what it was filled with
		filled := past && wordAt(toks, i, "on", "in") && wordAt(toks, i+1, "the") && wordAt(toks, i+2, "form")
		if chose || filled || wordAt(toks, i, "you've", "you") && wordAt(toks, i+1, "put") && wordAt(toks, i+2, "down") ||
			wordAt(toks, i, "remind") || past && wordAt(toks, i, "again") ||
			wordAt(toks, i, "you") && wordAt(toks, i+1, "said", "say", "told", "mentioned") {
			return true
		}
	}
	return false
}

// filledAsked asks what a form was filled with: "what have you filled in so far?".
var filledAsked = regexp.MustCompile(`(?i)\b(?:what|wat|wut)\s+(?:have|hv|did)\s+(?:you|u|ya)\s+(?:filled|fill|put|entered|enter|written|write)\b(?:\s+(?:in|on|down))?(?:\s+(?:so\s+far|the\s+form))?\s*\??\s*$`)

var (
	whWords     = rawSet(`which what whats what's wats when`)
	recallWords = rawSet(`again remind said say told mentioned earlier before pick choose select end last put give enter gave entered picked chose typed wrote`)
	sentenceEnd = regexp.MustCompile(`[.!?]\s+`)
)

const recalled = "Earlier I said: "

// recall answers what was said again: the value of a field the question names in full from
// the newest call that took it ("what was the time again?": "The time was 10:00."), else the
// sentence of the planner's replies, newest first, with the most words and figures of the
// question and a figure of its own ("Monthly payment $662.03 for 48 months …" for "what was
// the payment at 48 months again?"), else a value of a field it names in part; it declines
// when none has.
func (c *conv) recall(r *reading) (intent, bool) {
	// "what have you filled in so far?": every value of the form filled and not sent
	if p := c.refill(); p != nil && filledAsked.MatchString(r.said) {
		var args map[string]any
		_ = json.Unmarshal([]byte(p.arguments()), &args)
		return intent{reply: "So far: " + lowerFirst(recallValues(args, slices.Collect(maps.Keys(args)), false, p.schema))}, true
	} else if filledAsked.MatchString(r.said) {
		// the same once it went in ("What have you filled in?" after the application): what was sent
		for k := range c.earlierCalls {
			var args map[string]any
			if _, ok := c.sent(k); ok && json.Unmarshal([]byte(k.args), &args) == nil && len(args) > 0 {
				return intent{reply: "Sent: " + lowerFirst(recallValues(args, slices.Collect(maps.Keys(args)), false, parseSchema(c.toolDef(k.name).Parameters)))}, true
			}
		}
	}
	asked := slices.DeleteFunc(contentWords(r.said), func(w string) bool { return recallWords[w] })
	if slices.Contains(asked, "day") || slices.Contains(asked, "when") {
		asked = append(asked, "date", "time") // "what day did I pick again?"
	}
	if len(asked) == 0 {
		return intent{}, false
	}
	// a figure said picks the sentence that has it ("what was the monthly at 5k": the one with
	// "down $5,000"), and is no value asked
	var figures []string
	for _, t := range r.toks {
		if t.kind == kindNumber && t.value >= 1 {
			figures = append(figures, priceField.value(t.value, c.now.money))
		}
	}
	if said := c.recallArgs(asked, true); said != "" && len(figures) == 0 {
		return intent{reply: said}, true
	}
	// "what was the price again?" on a car's page: the price a result stated last, or the list's
	if f, _ := questionField(r.toks); f == priceField && len(figures) == 0 && len(r.mentions) == 0 {
		if v := c.statedPrice(); v > 0 {
			return intent{reply: "The price was " + f.value(v, c.before.money) + "."}, true
		}
		if it := c.screenItem(); it != nil {
			if v, ok := it.num(priceField.keys...); ok {
				return intent{reply: upperFirst(theTitle(it)) + " is " + f.value(v, c.before.money) + "."}, true
			}
		}
	}
	// "which day did I choose?" while the form waits for a name: what was said for it, and
	// what it still needs (the question stays open: pending)
	if q := c.unanswered; q != nil && len(figures) == 0 {
		said := recallValues(q.values, asked, true, q.schema)
		if said == "" && ownValues(r.toks) {
			said = notGiven(fieldsNamed([]*schema{q.schema}, asked))
		}
		if said != "" {
			return intent{reply: said + " " + c.askMissing(q, "").reply}, true
		}
	}
	// "what was the monthly for the Civic?": no sentence of another car's
	// (nor, for "the mazda3" not seen yet, one of a car known)
	var of []*item
	other := c.otherItem(r.text, r.toks, r.mentions, r.pronoun) || c.lister() != nil && len(r.mentions) == 0 && slices.ContainsFunc(asked, c.unseen)
	if len(r.mentions) == 1 {
		of = r.mentions[0].items
	}
	best, most, first := "", 0, anyNorm(r.toks, "first")
	for i := c.lastUser - 1; i >= 0; i-- {
		m := c.msgs[i]
		if m.Role != chat.RoleAssistant || m.Content == "" {
			continue
		}
		for _, sent := range sentenceEnd.Split(strings.TrimSuffix(strings.TrimSpace(m.Content), c.place.notice), -1) {
			if strings.HasPrefix(strings.TrimSpace(sent), recalled) || strings.Contains(sent, "“") || !strings.ContainsAny(sent, "0123456789") {
				continue // said again, a suggestion ("calculate payment 24 months"), or no figure to say again
			}
			if id := c.saidOf(i, sent); id != "" && (of != nil && !slices.ContainsFunc(of, func(it *item) bool { return it.id == id }) || of == nil && other) {
				continue
			}
			words := contentWords(sent)
			n := 0
			for _, w := range asked {
				switch {
				case slices.Contains(words, w): // "monthly" is the monthly payment's, more than "60 months"
					n += 2
				case slices.ContainsFunc(words, func(x string) bool { return wordsMatch(w, x) }):
					n++
				}
				if w == "rate" && strings.Contains(sent, "%") {
					n += 3 // "the interest rate" is the percentage, not the interest
				}
			}
			for _, f := range figures {
				if strings.Contains(sent, f) {
					n += 3
				}
			}
			if n > most || first && n == most && n > 0 { // ("… on the first one again?": the earliest that says it)
				best, most = sent, n
			}
		}
	}
	// (a figure asked that the sentence lacks was never worked out: "what was the payment over
	// 72 months with 10k down?" after 60 months with none, asked anew)
	bestToks := tokenize(best)
	for _, t := range r.toks {
		if t.kind == kindNumber && t.value >= 1 && most > 0 && !slices.ContainsFunc(bestToks, func(b token) bool { return b.kind == kindNumber && b.value == t.value }) {
			return intent{}, false
		}
	}
	if most > 0 {
		return intent{reply: recalled + strings.TrimRight(best, ".") + "."}, true
	}
	if of != nil || other {
		return intent{}, false // nothing was said of that one: asked anew
	}
	var forms []*schema
	for _, t := range c.tools {
		if !navTool(t) {
			forms = append(forms, parseSchema(t.Parameters))
		}
	}
	fields := fieldsNamed(forms, asked)
	if p := c.reader(); len(fields) > 0 && p != nil && c.onItsPage() && ownValues(r.toks) {
		return callIntent(p), true // "what trim is it set to now?", "which packages are selected?": what the page shows
	}
	if said := c.recallArgs(asked, false); said != "" {
		return intent{reply: said}, true
	}
	// "which day did I choose?" before any was said: none yet
	if !ownValues(r.toks) {
		return intent{}, false
	}
	said := notGiven(fields)
	return intent{reply: said}, said != ""
}

// notGiven says that none of fields was given yet; "" when there are none.
func notGiven(fields []string) string {
	if len(fields) == 0 {
		return ""
	}
	return "You haven't given the " + joinList(fields, "or") + " yet."
}

// ownValues reports a question about what the visitor gave ("which day did I choose?", "what
// was my email?"), not about the item ("remind me of the price").
func ownValues(toks []token) bool { return anyNorm(toks, "i", "my", "we", "our") }

// fieldsNamed are the parameters of the schemas all of whose words are asked ("date" and
// "time" of "which day did I choose": recall), as the visitor reads them.
func fieldsNamed(schemas []*schema, asked []string) []string {
	var fields []string
	for _, s := range schemas {
		for _, p := range s.props {
			if !slices.ContainsFunc(p.words, func(w string) bool { return !slices.Contains(asked, w) }) && !slices.Contains(fields, identPhrase(p.name)) {
				fields = append(fields, identPhrase(p.name))
			}
		}
	}
	return fields
}

// unseen reports a word no tool, item or reply has had: maybe the name of an item not
// looked up yet ("the mazda3" before the list was read).
func (c *conv) unseen(w string) bool {
	if ordinary(w) || c.vocab[w] || slices.ContainsFunc(c.now.known(), func(it *item) bool { return slices.Contains(it.words, compact(w)) }) {
		return false
	}
	return !slices.ContainsFunc(c.msgs[:max(c.lastUser, 0)], func(m chat.Message) bool {
		return m.Role == chat.RoleAssistant && strings.Contains(strings.ToLower(m.Content), w)
	})
}

// saidOf is the id of the item a sentence of the message at i is about: the one it names,
// else the one a result or call before it named or opened last, else the page's; "" when
// none.
func (c *conv) saidOf(i int, sent string) string {
	names := func(text string) []string {
		var ids []string
		for _, it := range c.now.known() {
			if strings.Contains(text, title(it)) {
				ids = append(ids, it.id)
			}
		}
		return ids
	}
	if ids := names(sent); len(ids) > 0 {
		return ids[0]
	}
	for j := i - 1; j >= 0; j-- {
		m := c.msgs[j]
		for _, tc := range m.ToolCalls {
			if id := openedID(call{name: tc.Name, args: tc.Arguments}); id != "" {
				return id
			}
		}
		// "Opening the financing calculator for the 2023 Honda Civic"
		if ids := names(m.Content); m.Role == chat.RoleTool && len(ids) == 1 {
			return ids[0]
		}
	}
	if c.page != nil {
		return c.page.id
	}
	return ""
}

// recallArgs says the values of the newest call with parameters whose words the question has
// (all of them, or one when whole is false): "The date was 2026-12-05 and the time was 10:00."
func (c *conv) recallArgs(asked []string, whole bool) string {
	for k := range c.earlierCalls {
		var args map[string]any
		_ = json.Unmarshal([]byte(k.args), &args)
		if said := recallValues(args, asked, whole, parseSchema(c.toolDef(k.name).Parameters)); said != "" {
			return said
		}
	}
	return ""
}

// recallValues says the values of args whose names the words asked name, in full (whole)
// or in part: "The date was 2026-12-05 and the time was 10:00."; "" when it names none. A
// value of the tool's schema s (nil: none known) is said by its label ("Home charger" of "charge").
func recallValues(args map[string]any, asked []string, whole bool, s *schema) string {
	var props []*property
	if s != nil {
		props = s.props
	}
	has := func(w string) bool {
		return slices.ContainsFunc(asked, func(a string) bool { return wordsMatch(a, w) })
	}
	var said []string
	for _, name := range slices.Sorted(maps.Keys(args)) {
		ws := identWords(name)
		if len(ws) > 1 && (ws[len(ws)-1] == "id" || ws[len(ws)-1] == "ids") {
			continue // an item's id (carId of the page's opening) is nothing the visitor said
		}
		if whole && !slices.ContainsFunc(ws, func(w string) bool { return !has(w) }) || !whole && slices.ContainsFunc(ws, has) {
			list, ok := args[name].([]any) // "packages": ["winter", "tech"]
			if !ok {
				list = []any{args[name]}
			}
			var en []enumValue
			if j := slices.IndexFunc(props, func(q *property) bool { return q.name == name }); j >= 0 {
				en = props[j].schema.allEnums()
			}
			vs := make([]string, len(list))
			for i, x := range list {
				vs[i] = fmt.Sprint(x)
				if k := slices.IndexFunc(en, func(e enumValue) bool { return e.text() == vs[i] }); k >= 0 {
					vs[i] = en[k].label()
				}
			}
			verb := " was "
			if len(vs) > 1 || strings.HasSuffix(name, "s") {
				verb = " were " // "the term months were 72"
			}
			said = append(said, "the "+identPhrase(name)+verb+joinList(vs, "and"))
		}
	}
	if len(said) == 0 {
		return ""
	}
	return upperFirst(joinList(said, "and")) + "."
}

// asksContents reports a question what something holds: "what's included in", "what does
// it come with", "whats in the tech package" ("include the tech package" asks for it).
func asksContents(toks []token, question bool) bool {
	for i, t := range toks {
		// "what does it come with?", not "does it come with a panoramic roof?" (whether it has one)
		ends := i+2 >= len(toks) || toks[i+2].kind == kindPunct
		if contentsWords[t.norm] && question || t.norm == "explain" || wordAt(toks, i, "come", "comes") && wordAt(toks, i+1, "with") && ends ||
			t.norm == "in" && (i == 1 || i == 2 && wordAt(toks, 1, "is")) && wordAt(toks, 0, "what", "what's", "whats") {
			return true
		}
	}
	// "what is the off-road package?" (not "what is the price of the tech package?")
	words := slices.DeleteFunc(slices.Clone(toks), func(t token) bool { return t.kind == kindPunct })
	return question && wordAt(words, 0, "what", "what's", "whats") && len(words) > 2 && choiceWords[words[len(words)-1].norm] && !asksField(toks) &&
		!anyNorm(words, "with", "for", "of", "on")
}

var contentsWords = wordSet(`include includes included including contain contains contained inside`)

// contents answers what a choice of the page's tools holds ("the tech package") from what the
// schema says of it (a value's title of a sentence's length), or says the page does not tell,
// with the request that chooses it; it declines when the words name no choice.
func (c *conv) contents(r *reading) (intent, bool) {
	p, e := c.choiceNamed(func(_ *property, e enumValue) bool { return sayValue(r.toks, e) })
	if p == nil {
		return intent{}, false
	}
	noun := stem(p.words[len(p.words)-1])
	if len(e.named) >= 5 { // a title that describes it; a shorter one names it ("Driver assistance")
		return intent{reply: "The " + e.str + " " + noun + ": " + e.title + "."}, true
	}
	verb := "choose the "
	if p.schema.isArray() {
		verb = "add the "
	}
	req := verb + e.str + " " + noun
	return c.offerOne("This page doesn't say what the "+choiceName(e, noun)+" includes. I can "+req+" and show what changes: ", req, e.str), true
}

// namedValue reports a token of the text that is the enum value e.
// sayValue reports a value named, or spelled out ("towing" of "tow").
func sayValue(toks []token, e enumValue) bool {
	// "a home charger" is the "charge" package
	near := len(e.words) == 1 && len(e.words[0]) >= 5 && slices.ContainsFunc(toks, func(t token) bool {
		return t.kind == kindWord && strings.HasPrefix(t.norm, e.words[0]) && len(t.norm) <= len(e.words[0])+2
	})
	return namedValue(toks, e) || e.isStr && spelledIn(toks, e.str) || near
}

func namedValue(toks []token, e enumValue) bool {
	v := e.text()
	for i, tk := range toks {
		if (tk.kind == kindWord || tk.kind == kindNumber) && (strings.EqualFold(tk.raw, v) || (len(e.words) == 1 && (tk.norm == e.words[0] || longerForm(tk.norm, e.words[0])))) ||
			len(e.named) > 0 && phraseAt(toks, i, e.named) { // by its title: "the Driver assistance"
			return true
		}
	}
	return false
}

// namesParam counts the words of the parameter p that the text asks about: words of four
// letters or more, as they are or in the plural ("colors" for color, "trims" for trim), at
// most two words after "what" or "which" ("what fuel types", not "what's the price with all
// packages"), but not the words that name no parameter alone ("type" of bodyType: "fuel
// types" is about fuel).
func namesParam(toks []token, p *property) int {
	// "what colors", "which interior colors", "what fuel types"
	asks := func(t token) bool {
		return slices.Contains([]string{"what", "what's", "whats", "wat", "wut", "which", "about"}, strings.ToLower(t.raw))
	}
	n := 0
	for _, w := range p.words {
		if len(w) < 4 || stopWords[w] || genericNameWords[w] || vagueParamWords[w] {
			continue
		}
		for i, tk := range toks {
			// "which colours", or the noun alone: "colors?"
			// ("whats the monthly" asks a payment, not the months of the term)
			if tk.kind == kindWord && wordsMatch(tk.norm, w) && tk.norm != "monthly" && (slices.ContainsFunc(toks[max(0, i-4):i], asks) || i == 0 && nounAlone(toks[1:])) {
				n++
				break
			}
		}
	}
	return n
}

// nounAlone reports the words after a noun that ask for its choices on their own: "?",
// "options?", "choices pls", "levels?" (of "trim levels?").
func nounAlone(rest []token) bool {
	return len(rest) <= 3 && !slices.ContainsFunc(rest, func(t token) bool {
		return t.kind != kindPunct && !optionWords[t.norm]
	}) && (len(rest) <= 1 || slices.ContainsFunc(rest, func(t token) bool { return optionWords[t.norm] }))
}

// undoWords ask to take back what was done.
var undoWords = []string{"cancel", "scrap", "undo", "revoke", "withdraw", "delete", "remove", "clear", "unsubscribe", "rid", "erase", "discard", "trash"}

var optionWords = rawSet(`option options choice choices level levels available offered pls please`)

// vagueParamWords are words of parameter names that say what kind of value, not which.
var vagueParamWords = rawSet(`type kind name value option mode`)

// clarify answers a message that does not clearly fit one action: a question with the
// closest concrete actions, or what the page offers.
func (c *conv) clarify(text string, ps []*plan, toks []token, question bool) intent {
	var cands []*plan
	var rest []token // the words without the item's noun ("this car"): what a candidate must match
	for i, t := range toks {
		if !wordAt(toks, i-1, "this", "that") {
			rest = append(rest, t)
		}
	}
	for _, p := range ps {
		if len(cands) == 3 {
			break
		}
		// a question is never answered with an offer to commit ("how much is it?" to "book it?"),
		// nor a wish to undo ("cancel that booking" to "submit the booking?"), nor anything with
		// an offer to undo ("the second one please" to "cancel a class booking?")
		if p.score <= 0 || len(p.missing) > 0 || (len(p.schema.props) > 0 && len(p.values) == 0) || undoes(p.def, toks) ||
			(question || anyNorm(toks, undoWords...)) && named(p.def.Name, commitFirst) ||
			slices.ContainsFunc(cands, func(q *plan) bool { return q.def.Name == p.def.Name }) {
			continue
		}
		// a navigation only when words name where it goes ("for this car" names nothing)
		// (not for the item's noun alone: "Is this car electric?" offers no price breakdown)
		own, _ := c.coverage(p, rest)
		if m, u := c.coverage(p, toks); m > 0 && own > 0 && u <= m && (!navTool(p.def) || c.navMatch(toks, []*plan{p}) != nil) {
			cands = append(cands, p)
		}
	}
	if said, ok := c.stated(text); len(cands) == 0 && question && ok {
		return intent{reply: said}
	}
	if in, ok := c.figureLater(toks); len(cands) == 0 && question && ok {
		return in
	}
	if len(cands) == 0 {
		return intent{reply: c.deadEnd()}
	}
	if _, unmatched := c.coverage(cands[0], toks); question && reads(cands[0].def) && unmatched == 0 {
		return callIntent(cands[0]) // "what's the total now?": reading is asked, and harmless
	}
	if slices.ContainsFunc(cands, func(p *plan) bool {
		return slices.ContainsFunc(c.done, func(d call) bool { return d.name == p.def.Name && d.args == p.arguments() })
	}) {
		return intent{reply: c.summary()} // what it would offer, this turn did: "the second and the fourth" of "which?"
	}
	return c.choose(clarifyStart+" Should I", cands)
}

// figureLater answers a question about a rate a tool here takes and no reply stated yet
// ("whats the apr" on the calculator before any payment): its result will say it, and what
// the tool still needs is asked. (Not a figure the visitor chooses: "how much down?")
func (c *conv) figureLater(toks []token) (intent, bool) {
	for _, t := range c.tools {
		s := parseSchema(t.Parameters)
		if navTool(t) || named(t.Name, commitFirst) {
			continue
		}
		for _, p := range s.props {
			number := slices.Contains(p.schema.types, "number") || slices.Contains(p.schema.types, "integer")
			if !number || p.required || !slices.ContainsFunc(toks, func(w token) bool {
				return w.kind == kindWord && slices.Contains(rateWords, w.norm) && matchesParam(w.norm, p)
			}) {
				continue
			}
			pl := &plan{def: t, schema: s, values: map[string]any{}}
			if q := c.unanswered; q != nil && q.def.Name == t.Name {
				pl.values = maps.Clone(q.values) // ("whats the interest total" while a term is asked, $0 down said)
			}
			pl.missing = pl.unset()
			if len(pl.missing) == 0 {
				return intent{}, false
			}
			in := c.askMissing(pl, c.text)
			in.reply = "That comes with the result. " + in.reply
			return in, true
		}
	}
	return intent{}, false
}

// stated answers a question about a figure the newest reply stated, when nothing here does it
// ("what's the total interest on that?": "Total interest $5,184.96."): the part of a reply,
// the newest first, that has a figure and every word asked.
func (c *conv) stated(text string) (string, bool) {
	asked := slices.DeleteFunc(contentWords(text), func(w string) bool { return requestWords[w] || usingWords[w] || auxWords[w] || caseWords[w] })
	if i := slices.Index(asked, "rate"); i >= 0 {
		asked[i] = "apr" // "the rate you're using", "what interest rate is that at?": 6.9% APR
		asked = slices.DeleteFunc(asked, func(w string) bool { return w == "interest" })
	}
	if len(asked) == 0 || len(asked) > 3 {
		return "", false
	}
	for i := c.lastUser - 1; i >= 0; i-- {
		if m := c.msgs[i]; m.Role == chat.RoleAssistant && m.Content != "" {
			for _, part := range statedPartRe.Split(m.Content, -1) {
				words := contentWords(part)
				if strings.ContainsAny(part, "0123456789") && !strings.Contains(part, "“") && !slices.ContainsFunc(asked, func(w string) bool {
					return !slices.ContainsFunc(words, func(x string) bool { return wordsMatch(w, x) })
				}) {
					return upperFirst(strings.TrimSpace(part)) + ".", true
				}
			}
		}
	}
	return "", false
}

var (
	statedPartRe = regexp.MustCompile(`[.!?]\s+|\.$|\s*\(|\)|,\s+`)
	usingWords   = rawSet(`using use used charge charging pay paying getting come comes money`)
	auxWords     = rawSet(`was were did has have had been`) // "was it booked?"
	caseWords    = rawSet(`case scenario situation`)        // "… I would pay in that case?"
)

// deadEnd says that the request cannot be done here: what the page can do, and where else on
// the site the visitor can go, as requests to click or type.
func (c *conv) deadEnd() string {
	// a yes-or-no question that nothing here answers ("does it have a heated steering wheel?",
	// "does it come with a warranty?"): not knowing is the answer, not a refusal
	// ("Good morning. Is this car a convertible?"; "What is the mileage of this car?": a figure
	// of the one on screen that nothing here shows)
	text := greeting.ReplaceAllString(c.text, "")
	if toks := tokenize(text); isQuestion(text, toks) && (wordAt(toks, 0, "does", "do", "is", "has", "can", "will") &&
		wordAt(toks, 1, "it", "this", "the") || wordAt(toks, 0, "what", "what's", "whats", "how") && asksField(toks) && anyNorm(toks, "this", "it", "its")) {
		// ("is this a convertible?" of the 2021 BMW 430i Convertible: its name says so)
		if it := c.openedLast(); it != nil && wordAt(toks, 0, "is") {
			name := contentWords(it.name)
			if asked := contentWords(text); len(asked) > 0 && !slices.ContainsFunc(asked, func(w string) bool {
				return !slices.ContainsFunc(name, func(x string) bool { return wordsMatch(w, x) })
			}) {
				return "Yes: it is the " + it.name + "."
			}
		}
		return cantTell + c.wayOut()
	}
	out := deadEndStart + c.place.here + "."
	if noun := c.opensWhat(); noun != "" && len(nameMentions(c.text, c.now.known(), nil)) == 0 {
		out += " If it is for a particular " + noun + ", tell me which." // forItem reads the request again with it
	}
	return out + c.wayOut()
}

// opensWhat is what this page's tool that opens items calls one ("car" of select_car's
// carId), or "".
func (c *conv) opensWhat() string {
	for _, t := range c.tools {
		for _, p := range parseSchema(t.Parameters).props {
			if single, _ := idParam(p); single && opener(t) {
				return cmp.Or(idNoun(p.name), "one")
			}
		}
	}
	return ""
}

// idNoun is what an id parameter calls one: "car" of carId.
func idNoun(name string) string {
	return strings.TrimSpace(strings.TrimSuffix(identPhrase(name), " id"))
}

// deadEndStart starts every dead end, clarifyStart the question of a request not understood,
// and whichFor is in a question of which item a request
// is for (forItem reads the request before either again with the item named).
const (
	deadEndStart = "Sorry, I can't help with that "
	clarifyStart = "I'm not sure I got that."
	whichFor     = " is it for: "
)

// wayOut is what can be done here and where else, each a suggestion: the way out of a dead
// end, and what follows "Noted: …" or "You're already there."
func (c *conv) wayOut() string {
	out := ""
	here := c.examples(3, func(t chat.ToolDef) bool { return !navTool(t) && !named(t.Name, commitFirst) })
	away := c.examples(len(c.tools), navTool)
	if it := c.itemToOpen(); len(away) == 0 && it != nil {
		away = append(away, "open "+theTitle(it)) // its page has what this list does not
	}
	if n := c.openedNoun(); n != "" && c.onScreen() != "" && !c.onItsPage() && slices.ContainsFunc(c.tools, hubTool) {
		away = append([]string{"back to the " + n}, away...) // its page, from its calculator
	}
	if len(here) > 0 {
		out += " I can do things like " + c.offer(here, "or", true) + "."
	} else if can := c.abilities(3); len(can) > 0 {
		out += " I can " + joinList(can, "and") + "."
	}
	if len(away) > 0 {
		out += " Elsewhere on the site: " + c.offer(away, "or", true) + "."
	}
	return out
}

// itemToOpen is, on a page with a tool that opens items, the item the conversation opened
// last, or else the first the last reply named or its last list showed; nil when there is none.
func (c *conv) itemToOpen() *item {
	if !slices.ContainsFunc(c.tools, opener) {
		return nil
	}
	for _, k := range slices.Backward(c.calls) {
		if it := c.now.items[openedID(k)]; it != nil && it.name != "" {
			return it
		}
	}
	if named := c.lastNamed(); len(named) > 0 && named[0].name != "" {
		return named[0] // "The 2021 Toyota Tacoma is the cheapest …"
	}
	if len(c.now.last) > 0 && c.now.last[0].name != "" {
		return c.now.last[0]
	}
	return nil
}

// itemInView is the item figures said on the list are for: the one the conversation opened
// last, unless a list came since, or the only one of the last list, or the one the last answer
// named; nil when the words may be for any of several ("per month over 4 years" after three
// BMWs were listed: which?).
func (c *conv) itemInView() *item {
	l := c.lister()
	if l == nil || !slices.ContainsFunc(c.tools, opener) {
		return nil
	}
	for _, k := range slices.Backward(c.calls) {
		if it := c.now.items[openedID(k)]; it != nil && it.name != "" {
			return it
		}
		if k.name == l.def.Name {
			break
		}
	}
	if len(c.now.last) == 1 && c.now.last[0].name != "" {
		return c.now.last[0]
	}
	if named := c.lastNamed(); len(named) == 1 {
		return named[0] // "monthly payment 60 mo 2k down" after "The cheapest suv is the 2023 Kia Sportage"
	}
	return nil
}

// askMissing asks for the required values a plan lacks, with concrete choices when the
// values are few.
func (c *conv) askMissing(p *plan, said string) intent {
	in := c.askFor(p, said)
	// "tomorrow at 10:30" where the times are on the hour: why the time is asked
	if i := slices.IndexFunc(p.missing, func(q *property) bool { return clockParam(q) && len(q.schema.enum) > 0 }); i >= 0 {
		toks := tokenize(rewriteTimes(said))
		at := -1 // the last time said: "is 12:30 possible?", then "thursday at 12"
		for k, t := range toks {
			if t.kind == kindTime {
				at = k
			}
		}
		if at >= 0 && !boundAt(toks, at) && !slices.Contains(texts(p.missing[i].schema.enum), toks[at].raw) {
			in.reply = toks[at].raw + " is not one of the times. " + in.reply
		}
	}
	return in
}

// askFor asks for what p still lacks (askMissing).
func (c *conv) askFor(p *plan, said string) intent {
	// A note asked for comes last: "… your name and email, and what the note should say".
	notes := slices.DeleteFunc(slices.Clone(p.missing), func(m *property) bool { return !asksNote(m) })
	p.missing = append(slices.DeleteFunc(p.missing, asksNote), notes...)
	m := p.missing[0]
	what := c.describe(&plan{def: p.def, schema: p.schema})
	// One enum value to pick: offer each as a choice.
	if len(p.missing) == 1 && len(m.schema.enum) > 0 && len(m.schema.enum) <= 6 {
		var chs []choice
		for _, e := range m.schema.enum {
			q := &plan{def: p.def, schema: p.schema, values: maps.Clone(p.values), score: p.score}
			q.values[m.name] = e.raw
			if e.isStr {
				q.values[m.name] = e.str
			}
			chs = append(chs, choice{paramLabel(m, e.text()), q})
		}
		// "can you do 84 months?": that figure is none of the choices, said
		not := ""
		if no := numberNotOffered(tokenize(said), m); no != "" {
			not = "There is no " + no + " option. "
		}
		return intent{reply: not + upperFirst(what) + ": " + joinList(labels(chs), "or") + "?", asked: p, choices: chs}
	}
	// An enum of ids the conversation knows by name (the form's Car field): ask by name; ids
	// of items: name those the visitor saw last.
	noun, names, total := c.itemChoices(m)
	// "compare them" with one car shown: too few, said, not asked which
	if _, list := idParam(m); list && m.schema.minItems != nil && len(c.before.last) > 0 && len(c.before.last) < *m.schema.minItems &&
		pluralPronoun(tokenize(c.text)) {
		n := len(c.before.last)
		noun := map[bool]string{true: "item", false: "items"}[n == 1]
		if l := c.lister(); l != nil {
			noun = listNoun(l.def.Name, n)
		}
		shown := "Only one " + noun + " is shown: " + theTitle(c.before.last[0])
		if n > 1 {
			shown = "Only " + strconv.Itoa(n) + " " + noun + " are shown: " + joinList(titles(c.before.last), "and")
		}
		return intent{reply: shown + ". That is too few to " + what + " (it takes " + strconv.Itoa(*m.schema.minItems) + ")."}
	}
	if takesIDs(m) && (len(p.missing) > 1 || len(names) == 0) {
		src := c.before.last
		if len(src) == 0 {
			src = c.before.known()
		}
		noun, names, total = "one", titles(src[:min(3, len(src))]), 0
		if _, list := idParam(m); list && m.schema.minItems != nil && m.schema.maxItems != nil {
			noun = strconv.Itoa(*m.schema.minItems) + " to " + strconv.Itoa(*m.schema.maxItems)
		} else if list {
			noun = "ones"
		}
		if len(names) == 0 {
			return intent{reply: "Which " + noun + " should I use to " + what + "? Tell me their names.", asked: p}
		}
	}
	if len(names) > 0 && (len(p.missing) == 1 || takesIDs(m)) {
		q := "Which " + noun + " should I use to " + what + "? For example " + joinList(names, "or")
		if total > len(names) {
			q += " (" + strconv.Itoa(total) + " to choose from)"
		}
		return intent{reply: q + ".", asked: p}
	}
	// "the earliest slot on friday": which time that is comes first
	toks, which := tokenize(rewriteTimes(greeting.ReplaceAllString(said, ""))), "" // ("good morning, …" names no part of the day)
	if i, _ := extremeAt(toks); i >= 0 {
		for _, q := range p.schema.props {
			if v, ok := p.values[q.name].(string); ok && clockParam(q) {
				which = "The " + toks[i].norm + " " + identPhrase(q.name) + " is " + v + ". "
			}
		}
	}
	var need []string
	your := "your "
	for i, mp := range p.missing {
		h := identPhrase(mp.name)
		if d, _, _ := strings.Cut(mp.schema.description, ","); len(mp.words) == 1 && placeKind.wants(mp) && d != "" && len(strings.Fields(d)) <= 5 {
			h = strings.ToLower(d[:1]) + d[1:] // "from": the "departure airport code" its description says
		}
		if asksNote(mp) && len(p.missing) == 1 {
			return intent{reply: "What should the " + stem(h) + " say?", asked: p}
		}
		if asksNote(mp) {
			h = "what the " + stem(h) + " should say"
		} else if noun, names, _ := c.itemChoices(mp); len(names) > 0 {
			h = noun + " (for example " + joinList(names[:min(2, len(names))], "or") + ")"
		} else if len(mp.schema.enum) > 0 {
			h += " (one of: " + strings.Join(partOfDay(mp, toks), ", ") + ")"
		} else if dateKind.wants(mp) && nextWeekRe.MatchString(said) { // "book a drive next week": which day
			monday := c.today.AddDate(0, 0, 7-(int(c.today.Weekday())+6)%7)
			h += " (which day next week: " + monday.Format("Monday, January 2") + " to " + monday.AddDate(0, 0, 6).Format("Sunday, January 2") + "?)"
		} else if dateKind.wants(mp) && weekendRe.MatchString(said) { // "this weekend": which of its two days
			// (the coming one, "next" or not, as "next Sunday" is the coming Sunday)
			sat := c.today.AddDate(0, 0, (6-int(c.today.Weekday())+7)%7)
			h += " (" + sat.Format("Saturday, January 2") + " or " + sat.AddDate(0, 0, 1).Format("Sunday, January 2") + "?)"
		} else if s := mp.schema; s.minimum != nil && s.maximum != nil &&
			slices.Equal(s.types, []string{"integer"}) {
			// "table for 20" where 12 is the most: say the bounds, not just the name.
			h += " (" + strconv.FormatFloat(*s.minimum, 'f', -1, 64) + " to " +
				strconv.FormatFloat(*s.maximum, 'f', -1, 64) + ")"
			if strings.HasSuffix(mp.name, "s") {
				h = "the number of " + h // "guests" is a count
				if i == 0 {
					your = ""
				}
			}
		}
		need = append(need, h)
	}
	return intent{reply: which + "To " + what + " I need " + your + joinList(need, "and") + ".", asked: p}
}

var (
	nextWeekRe = regexp.MustCompile(`(?i)\bnext\s+week\b`)
	weekendRe  = regexp.MustCompile(`(?i)\bweekend\b`)
)

// partOfDay is a parameter's choices; of a clock's, only those of the part of the day the
// visitor said ("saturday morning if possible", "after 3", "before lunch") when there are some.
func partOfDay(p *property, toks []token) []string {
	vals := texts(p.schema.enum)
	span, ok := timeSpan(toks)
	in := slices.DeleteFunc(slices.Clone(vals), func(v string) bool { return v < span[0] || v >= span[1] })
	if !ok || !clockParam(p) || len(in) == 0 {
		return vals
	}
	return in
}

// partsOfDay are the parts of the day and their times, from and before.
var partsOfDay = map[string][2]string{
	"morning": {"00:00", "12:00"}, "afternoon": {"12:00", "17:00"},
	"evening": {"17:00", "24:00"}, "night": {"17:00", "24:00"},
}

// timeSpan is the part of the day the text names, from and before: "afternoon", "after 3"
// (from 15:00), "before 11:00", "after lunch".
func timeSpan(toks []token) (span [2]string, ok bool) {
	for i, t := range toks {
		if s, part := partsOfDay[t.norm]; part {
			span, ok = s, true
		}
		if !boundAt(toks, i+1) {
			continue
		}
		at := toks[i+1].raw
		if toks[i+1].norm == "lunch" {
			at = map[string]string{"after": "13:00", "before": "12:00"}[t.norm]
		}
		span, ok = [2]string{at, "24:00"}, true
		if t.norm == "before" {
			span = [2]string{"00:00", at}
		}
	}
	return span, ok
}

// boundAt reports a time that bounds the time asked rather than names it: "after 3", "before
// lunch".
func boundAt(toks []token, i int) bool {
	return i > 0 && i < len(toks) && wordAt(toks, i-1, "after", "before") &&
		(toks[i].kind == kindTime || toks[i].norm == "lunch")
}

// otherTime asks which time of the part of the day the visitor named, or says that the time
// named is none of the choices, for the tool with a clock's choices that this conversation
// called or asked for last: the question keeps the tool's other values.
func (c *conv) otherTime(r *reading) (intent, bool) {
	at := -1
	for i, t := range r.toks {
		if t.kind == kindTime && !boundAt(r.toks, i) && at < 0 {
			at = i
		}
	}
	_, part := timeSpan(r.toks)
	for _, t := range c.tools {
		p := &plan{def: t, schema: parseSchema(t.Parameters), values: map[string]any{}}
		i := slices.IndexFunc(p.schema.props, func(q *property) bool { return clockParam(q) && len(q.schema.enum) > 0 })
		if i < 0 || c.lastArgs(t.Name, "") == nil && (c.unanswered == nil || c.unanswered.def.Name != t.Name) {
			continue
		}
		clock := p.schema.props[i]
		if at >= 0 && slices.Contains(texts(clock.schema.enum), r.toks[at].raw) || at < 0 && !part {
			return intent{}, false
		}
		c.carryOver(p, false)
		delete(p.values, clock.name)
		p.missing = slices.DeleteFunc(slices.Clone(p.schema.props), func(q *property) bool {
			return p.values[q.name] != nil || !q.required && q != clock
		})
		return c.askMissing(p, r.text), true // (which says a time that is none of the choices)
	}
	return intent{}, false
}

// asksNote reports a note's parameter that is missing because the visitor asked to add one
// (it is not required).
func asksNote(m *property) bool {
	return !m.required && freeTextable(m)
}

// itemChoices are the names of the items an enum parameter's values are the ids of, as far
// as the conversation knows them (a result listed them, or the schema titles them): at most
// three, those the last list showed first; noun is what the parameter calls one ("car" of
// carId); total counts the values.
func (c *conv) itemChoices(p *property) (noun string, names []string, total int) {
	var known []*item
	for _, e := range p.schema.enum {
		if !e.isStr {
			continue
		}
		total++
		if it := c.before.items[e.str]; it != nil && it.name != "" && it.name != it.id {
			known = append(known, it)
		}
	}
	if len(known) == 0 {
		return "", nil, 0
	}
	last := func(it *item) int {
		if i := slices.Index(c.before.last, it); i >= 0 {
			return i
		}
		return len(c.before.last)
	}
	slices.SortStableFunc(known, func(a, b *item) int { return last(a) - last(b) })
	noun = idNoun(p.name)
	if noun == "" || noun == "id" {
		noun = "one"
	}
	return noun, titles(known[:min(3, len(known))]), total
}

func titles(its []*item) []string {
	out := make([]string, len(its))
	for i, it := range its {
		out[i] = theTitle(it)
	}
	return out
}

var (
	idParenRe = regexp.MustCompile(`\s*\(\s*([A-Za-z]{1,4}[_-]?[0-9]{1,8})\s*(?:,\s*|\))`)
	bareMoney = regexp.MustCompile(`([$£€])\s?([0-9]{4,})(\.[0-9]+)?\b`)
	snakeRe   = regexp.MustCompile(`\b[a-z]+_[a-z_]+\b`)
	// clauseRe matches a clause: up to a . ! ? or ; that ends it (not "597.50"), or the rest.
	clauseRe = regexp.MustCompile(`.*?[.!?;](?: |$)|.+$`)
	// quotedIdentRe matches a quoted snake_case name (a tool's or a form's) with the space before it.
	quotedIdentRe = regexp.MustCompile(`\s*"[A-Za-z0-9]+(?:_[A-Za-z0-9]+)+"`)
	// toModelRe matches a sentence of a tool result that tells the model what to do next.
	toModelRe = regexp.MustCompile(`(?i)^(ask|tell|remind|let) (them|the (visitor|user|customer))\b`)
	// visitorRe matches the words by which a tool result speaks of the visitor to the model.
	visitorRe = regexp.MustCompile(`\b(the (visitor|user|customer)(?:'s|’s)?|themselves)\b`)
	// declinedRe is the result the widget gives a call the visitor declined to confirm
	// (jsclient/tools.js declinedText).
	declinedRe = regexp.MustCompile(`^The user declined to run \S+\.(\nThe user's reason: [^\n]*)?$`)
)

// maxLines caps the lines quoted from one tool result.
const maxLines = 8

// humanize rewrites a tool result for the visitor: no ids before names, amounts with
// separators, no sentences meant for the model, at most a few entries of a list.
func (c *conv) humanize(text string) string {
	for id, it := range c.now.items {
		if it.name == "" || it.name == id {
			continue
		}
		text = strings.ReplaceAll(text, id+" "+it.name, it.name)
		// "the 2022 Tesla Model 3 (c12, $35,990)": the name is there already.
		text = strings.ReplaceAll(text, it.name+" ("+id+", ", it.name+" (")
		text = strings.ReplaceAll(text, it.name+" ("+id+")", it.name)
		text = regexp.MustCompile(`\b`+regexp.QuoteMeta(id)+`\b`).ReplaceAllString(text, it.name)
	}
	text = idParenRe.ReplaceAllStringFunc(text, func(s string) string {
		if strings.HasSuffix(s, ")") {
			return "" // "the RAV4 (c01), XLE trim" → "the RAV4, XLE trim"
		}
		if s[0] == '(' {
			return "("
		}
		return " (" // "the RAV4 (c01, $31,990)" → "the RAV4 ($31,990)"
	})
	text = bareMoney.ReplaceAllStringFunc(text, func(s string) string {
		if v, ok := parseMoney(s); ok {
			return c.now.money.format(v)
		}
		return s
	})
	text = regexp.MustCompile(`\b(asc|desc)\b`).ReplaceAllString(text, "${1}ending")
	text = quotedIdentRe.ReplaceAllString(text, "") // `in the form "fill_form_data"` → `in the form`
	// Line by line: a result written as lines is shown as lines (the widget breaks them).
	var lines []string
	for _, line := range strings.Split(text, "\n") {
		var kept []string
		for _, s := range clauseRe.FindAllString(line, -1) {
			s = strings.TrimSpace(s)
			low := strings.ToLower(s)
			if s == "" || strings.Contains(low, "tool") || strings.Contains(low, "structuredcontent") ||
				snakeRe.MatchString(s) || toModelRe.MatchString(s) {
				continue
			}
			kept = append(kept, toVisitor(s))
		}
		out := strings.Join(kept, " ")
		if out == "" {
			continue
		}
		if strings.HasSuffix(out, ";") {
			out = strings.TrimSuffix(out, ";") + "."
		}
		// A long list: the first five entries.
		if parts := strings.Split(out, "; "); len(parts) > 5 {
			out = strings.Join(parts[:5], "; ") + "; and " + strconv.Itoa(len(parts)-5) + " more."
		}
		lines = append(lines, out)
	}
	// A list written one entry a line: the first eight lines.
	if len(lines) > maxLines {
		lines = append(lines[:maxLines], "… and "+strconv.Itoa(len(lines)-maxLines)+" more lines.")
	}
	return clip(strings.TrimSpace(strings.Join(lines, "\n")), maxSummary)
}

// toVisitor turns a result's words about the visitor into words to the visitor.
func toVisitor(s string) string {
	return visitorRe.ReplaceAllStringFunc(s, func(w string) string {
		switch {
		case w == "themselves":
			return "yourself"
		case strings.HasSuffix(w, "s"):
			return "your" // "the visitor's details"
		}
		return "you"
	})
}

// summary tells the visitor what the turn's last call did.
func (c *conv) summary() string {
	if len(c.done) == 0 {
		return "Done."
	}
	// What this turn committed before it went on ("book it and take me to financing"): said
	// first, or the booking goes unmentioned.
	committed := ""
	for _, k := range c.done[:len(c.done)-1] {
		if out, ok := c.sent(k); ok && out.text != "" {
			committed += strings.TrimSuffix(strings.SplitN(out.text, "\n", 2)[0], ".") + ". "
		}
	}
	d := c.done[len(c.done)-1]
	text := strings.TrimSpace(structuredRe.ReplaceAllString(unwrap(d.result).text, ""))
	// The tool's parameter names that are identifiers ("guestName", "check_in") as words ("guest
	// name", "check in"): a form that was filled says which fields by their names.
	for _, p := range parseSchema(c.toolDef(d.name).Parameters).props {
		if strings.ContainsAny(p.name, "_ABCDEFGHIJKLMNOPQRSTUVWXYZ") && strings.Contains(text, p.name) {
			text = regexp.MustCompile(`\b`+regexp.QuoteMeta(p.name)+`\b`).ReplaceAllString(text, identPhrase(p.name))
		}
	}
	text = c.humanize(text)
	if l := c.lister(); l != nil && d.name == l.def.Name && text != "" && len(c.now.last) > 0 && !slices.ContainsFunc(c.now.last, func(it *item) bool { return strings.Contains(text, it.name) }) {
		// "Doctors listed." whose structured content has them: named ("…: Dr. Ana Silva, …")
		var names []string
		for _, it := range c.now.last[:min(5, len(c.now.last))] {
			names = append(names, it.name)
		}
		if n := len(c.now.last) - len(names); n > 0 {
			names = append(names, strconv.Itoa(n)+" more")
		}
		text = strings.TrimRight(text, ".") + ": " + joinList(names, "and") + "."
	}
	if l := c.lister(); l != nil && d.name == l.def.Name && len(c.now.last) > 0 && countAsked(tokenize(c.text)) > len(c.now.last) {
		text = c.onlyMatch(len(c.now.last)) + " " + text // "show me 4 electric cars" of three
	}
	if text == "" || text == "(the tool returned no content)" {
		return committed + "Done: " + c.describeTool(d.name) + "."
	}
	// A date the planner wrote from words ("next thursday"), said back as a day the visitor
	// can check: "The date is Thursday, December 3."
	var args map[string]any
	_ = json.Unmarshal([]byte(d.args), &args)
	for _, p := range parseSchema(c.toolDef(d.name).Parameters).props {
		if v, _ := args[p.name].(string); dateKind.wants(p) && !strings.Contains(text, v) {
			if day, err := time.Parse("2006-01-02", v); err == nil {
				if n := identPhrase(p.name); slices.Contains(strings.Fields("from to until till since after before"), n) {
					text += " " + upperFirst(n) + " " + day.Format("Monday, January 2") + "." // "From Friday, December 4.", not "The from is …"
				} else {
					text += " The " + n + " is " + day.Format("Monday, January 2") + "."
				}
			}
		}
	}
	if len(c.now.items) == 0 && len(c.done) == 1 && !strings.HasSuffix(text, "…") && !strings.ContainsAny(text[len(text)-1:], ".!?") {
		return "Result: " + text
	}
	return committed + text
}

// describeTool is what the tool named does, without arguments ("cancel an existing
// reservation by its reference").
func (c *conv) describeTool(name string) string {
	def := c.toolDef(name)
	return c.describe(&plan{def: def, schema: parseSchema(def.Parameters)})
}

func (c *conv) toolDef(name string) chat.ToolDef {
	if i := slices.IndexFunc(c.tools, func(t chat.ToolDef) bool { return t.Name == name }); i >= 0 {
		return c.tools[i]
	}
	return chat.ToolDef{Name: name, Parameters: []byte(`{}`)}
}

// failure tells the visitor that a call failed, in the page's words; a call they declined
// did not fail: it is acknowledged.
func (c *conv) failure(d call, out toolOutput) string {
	if declinedRe.MatchString(strings.TrimSpace(out.text)) {
		return "OK, I won't " + c.describeTool(d.name) + "."
	}
	msg := c.humanize(out.text)
	if msg == "" {
		msg = "it reported an error without details"
	}
	return "That didn't work: " + lowerFirst(strings.TrimSuffix(msg, ".")) + "." + c.formAsks(out.text)
}

// formAsks asks for what a failed call says is missing when a form of the page takes it
// ("cannot book yet. Missing or invalid: name, email, date, time": the booking form's fields,
// with their choices); "" when no form does.
func (c *conv) formAsks(failed string) string {
	said := contentWords(failed)
	for _, t := range c.tools {
		if navTool(t) || named(t.Name, commitFirst) {
			continue
		}
		p := &plan{def: t, schema: parseSchema(t.Parameters), values: map[string]any{}}
		p.missing = slices.DeleteFunc(slices.Clone(p.schema.props), func(q *property) bool {
			return !q.required || !slices.Contains(said, strings.ToLower(q.name))
		})
		if len(p.missing) >= 2 {
			// (the contact details given before are not asked again: "book it" on an empty form
			// after "my name is …")
			if c.contactsSaid(p, p.values); len(p.missing) > 0 {
				return " " + c.askFilling(p, "")
			}
		}
	}
	return ""
}
