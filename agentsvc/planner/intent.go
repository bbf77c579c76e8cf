package planner

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/byomcp/byomcp/agentsvc/chat"
)

// intent is what the planner understood of a user message: tool calls to make in order
// (some known only after the earlier ones returned), then a reply; or just a reply.
type intent struct {
	reply string
	// steps returns the calls of the plan given what the turn has seen so far; the calls
	// already made are its first entries.
	steps func(c *conv) []*plan
	// final is the reply once every step ran; nil means the summary of the last result.
	final func(c *conv) string
	// asked marks a reply that asked for values of this tool (a missing parameter); choices
	// a reply that offered these plans.
	asked   *plan
	choices []choice
}

// choice is one concrete option of a clarifying question.
type choice struct {
	label string
	plan  *plan
}

func (in intent) step(c *conv) action {
	if in.steps == nil {
		return action{text: in.reply}
	}
	steps := in.steps(c)
	if i := len(c.done); i < len(steps) && steps[i] != nil {
		return action{call: steps[i]}
	}
	if in.final != nil {
		return action{text: in.final(c)}
	}
	return action{text: c.summary()}
}

// first is the intent's first call; nil when it only replies.
func (in intent) first(c *conv) *plan {
	if in.steps == nil {
		return nil
	}
	if steps := in.steps(c); len(steps) > 0 {
		return steps[0]
	}
	return nil
}

func callIntent(p *plan) intent {
	return intent{steps: func(*conv) []*plan { return []*plan{p} }}
}

// intent is the plan for the turn's user message.
func (c *conv) intent() intent {
	if c.named {
		return c.understand(c.text, true)
	}
	if prev, ok := c.pending(chainLimit); ok {
		if in, ok := c.answers(prev); ok {
			return in
		}
		if said, ok := takesOffered(c.text, prev); ok {
			return c.understand(said, true) // "add it along with the winter one, in green" after a yes
		}
		if prev.asked != nil && (acknowledges(c.text) || len(prev.asked.missing) > 0 && sendsAlone(c.text)) {
			// ("book it pls" while the form's time is asked: not an empty form sent)
			// "Perfect, that works for me." after "The earliest time is 13:00. … I need your
			// name and email": what is still needed
			return c.askMissing(prev.asked, prev.reply)
		}
		c.unanswered = prev.asked
		choices := func(m *property) bool { return len(m.schema.allEnums()) > 0 }
		if availableRe.MatchString(c.text) && prev.asked != nil && slices.ContainsFunc(prev.asked.missing, choices) {
			return c.askMissing(prev.asked, prev.reply) // "whats available" while a time is asked: its choices
		}
	}
	return c.understand(c.text, true)
}

// sendsAlone reports a message that only asks to send a form: "book", "book it pls", "submit".
func sendsAlone(text string) bool {
	toks := tokenize(text)
	return slices.ContainsFunc(toks, func(t token) bool { return t.norm == "book" || sendWords[strings.ToLower(t.raw)] }) &&
		!slices.ContainsFunc(toks, func(t token) bool {
			return t.kind != kindPunct && !sendFillers[strings.ToLower(t.raw)] && !sendWords[strings.ToLower(t.raw)]
		})
}

var sendFillers = rawSet(`book it that this now please pls ok okay go ahead do the test drive booking form`)

// acknowledges reports a message that only agrees: "perfect, that works for me", "sounds
// good", "great, thanks".
func acknowledges(text string) bool {
	toks := tokenize(text)
	agrees := slices.ContainsFunc(toks, func(t token) bool { return agreeWords[strings.ToLower(t.raw)] })
	return agrees && !slices.ContainsFunc(toks, func(t token) bool {
		return t.kind != kindPunct && !agreeWords[strings.ToLower(t.raw)] && !ackFillers[strings.ToLower(t.raw)]
	})
}

var (
	agreeWords = rawSet(`perfect great good fine works cool lovely excellent awesome alright`)
	ackFillers = rawSet(`ok okay that that's it sounds is for me us thanks thank you then sure`)
)

// availableRe asks what one may choose, and nothing else: "whats available", "what are my
// options?", "what do you have?".
var availableRe = regexp.MustCompile(`(?i)^\s*(?:what(?:'?s|’s| is| are)?\s+(?:available|free|open|left)|what\s+(?:do|can)\s+(?:you|i)\s+(?:have|offer|pick|choose)|(?:what\s+are\s+)?(?:my|the)\s+(?:options|choices))\s*\??\s*$`)

// forItem is the request to read in place of the visitor's words when they only name an
// item. The request the planner could not do on this page, its last turn, when the page opens
// items (or this turn opened one): "can I book a drive", then "the RAV4" reads both, and the
// item's page may do it. The last request, when it named another item: "book a test drive of
// the Ioniq 5", then "nvm, the Civic" is "book a test drive of the Civic".
func (c *conv) forItem() (string, bool) {
	// "go back to the car and pick the Limited trim" on its calculator: the trim, which its page
	// sets (read there again: the trim)
	if m := backToItemThen.FindStringSubmatch(c.text); m != nil && normWord(m[1]) == c.openedNoun() && len(contentWords(m[2])) > 0 {
		return m[2], true
	}
	// "close the comparison and open the cheaper of the two": the opening, which leaves it
	if m := closeThen.FindStringSubmatch(c.text); m != nil && len(contentWords(m[1])) > 0 && openRest.MatchString(m[1]) {
		return m[1], true
	}
	prevUser := c.prevUser()
	if prevUser < 0 {
		return "", false
	}
	prev := strings.TrimSpace(c.msgs[prevUser].Content)
	// (or its turn opened one: "the civic" after "book a test drive saturday 10am" on the list,
	// read again as the question its page asked)
	opens := slices.ContainsFunc(c.tools, opener) || slices.ContainsFunc(c.done, func(d call) bool { return d.opened }) ||
		slices.ContainsFunc(c.calls, func(k call) bool { return k.opened && k.at > c.lastUser })
	// (not a suggestion of the dead end clicked: "open the 2023 Toyota RAV4")
	toks := tokenize(c.text)
	asked := c.msgs[prevUser+1].Content
	if c.lastUser-prevUser == 2 && opens && (strings.HasPrefix(asked, deadEndStart) || strings.Contains(asked, whichFor)) && c.nameAlone(c.text) &&
		!(len(toks) > 0 && opensFirst[toks[0].norm]) {
		return prev + " , " + c.text, true
	}
	// "swap to the model y" on the test drive's page, details given: "Test drive the model y
	// instead", which takes them again ("switch to the civic" on the calculator redoes its
	// figures: sameFor below)
	if m := switchTo.FindStringSubmatch(c.text); m != nil && slices.ContainsFunc(c.msgs[:prevUser+1], func(m chat.Message) bool {
		return m.Role == chat.RoleUser && (slices.ContainsFunc(tokenize(m.Content), contactToken) || namesDay(m.Content) && sameWhen.MatchString(c.text)) // (or a day kept: "…, same day and time")
	}) {
		if kind := c.pageKind(); kind != "" {
			return kind + " " + m[1] + " instead", true
		}
	}
	// "48 months", then "same for the model 3?": the request before, for the car named now
	if sameFor.MatchString(c.text) && !restSame.MatchString(c.text) { // ("48 months, keeping the rest the same" is all said)
		for i := prevUser - 1; i >= 0 && sameFor.MatchString(prev); i-- {
			if c.msgs[i].Role == chat.RoleUser {
				prev = strings.TrimSpace(c.msgs[i].Content) // "and the f-150 same deal" after "the civic on the same terms"
			}
		}
		// the values the last calculation had, said over several messages ("60", "with 4k down",
		// "what if 2.9%", then "now the camry same terms"); one of a tool here first ("60", "can
		// i see it in blue", "back to the payment calc", then "same as before?")
		// (said on this page, not read again on the page it went to, and asking nothing else;
		// "same terms" are the terms of a calculation, wherever it was)
		said := !slices.ContainsFunc(c.calls, func(k call) bool { return k.at > c.lastUser }) && len(contentWords(sameFor.ReplaceAllString(c.text, ""))) == 0 &&
			sameAgain.MatchString(c.text)
		here := said && slices.ContainsFunc(slices.Collect(c.earlierCalls), func(k call) bool { return c.offers(k.name) && !noArguments(k.args) })
		for k := range c.earlierCalls {
			if t := c.toolDef(k.name); !k.done || navTool(t) || named(k.name, commitFirst) || noArguments(k.args) || openedID(k) != "" ||
				wantsIDs(&plan{def: t, schema: parseSchema(t.Parameters)}) || here && !c.offers(k.name) ||
				sameTerms.MatchString(c.text) && !figureArgs(k.args) { // ("same terms" are figures, not the package added since)
				continue
			}
			// (not when the message before said them all, a car's name with them: "what would the
			// golf be w 2k down", then "and the civic same terms")
			if first, last := c.firstAsked(k.name, prevUser); last != prevUser || first != prev && len(nameMentions(prev, c.now.known(), nil)) == 0 {
				prev = c.describeTool(k.name) + " , " + argsSaid(k.args, "") // (not the figures of the run's first: "60 months", then "and 48")
			}
			break
		}
		at, now := ordinalOne.FindStringIndex(prev), ordinalOne.FindString(c.text)
		if at != nil && now != "" { // "monthly on the cheaper one …", then "now the other one same terms"
			return prev[:at[0]] + now + prev[at[1]:], true
		}
		was, is := nameMentions(prev, c.now.known(), nil), nameMentions(c.text, c.now.known(), nil)
		if len(was) == 1 && len(is) == 1 { // "… is the golf w 2k down …", then "what about the civic on the same terms"
			return prev[:was[0].start] + c.text[is[0].start:is[0].end] + prev[was[0].end:], true
		}
		// ("how does the Civic compare on the same terms?": the terms again, for it; no drawer)
		return prev + " , " + compareSame.ReplaceAllString(c.text, "what about $1$2 on"), true
	}
	// "What is the mileage of the Kia?", then "and of the Volvo?": the question again, of it
	if m := andOfThe.FindStringSubmatch(c.text); m != nil && asksField(tokenize(prev)) && isQuestion(prev, tokenize(prev)) {
		if was := nameMentions(prev, c.now.known(), nil); len(was) == 1 {
			return prev[:was[0].start] + m[1] + prev[was[0].end:], true
		}
	}
	// "compare civic n golf", then "and mileage?": that of the two
	if m := fieldAlone.FindStringSubmatch(c.text); m != nil && len(c.lastNamed()) >= 2 {
		if f, _ := questionField(tokenize(m[1])); f != nil {
			return "what's their " + m[1] + "?", true
		}
	}
	// "what colours does the first one come in?", then "and the second one?"
	if m := ordinalAlone.FindStringSubmatch(c.text); m != nil {
		if at := ordinalOne.FindStringIndex(c.msgs[prevUser].Content); at != nil {
			return prev[:at[0]] + m[1] + prev[at[1]:], true
		}
	}
	// "does it come in blue?", then "what about green?": that question, of the other value
	if m := valueAlone.FindStringSubmatch(c.text); m != nil && isQuestion(prev, tokenize(prev)) {
		if said, ok := c.askedOf(prev, m[1]); ok {
			return said, true
		}
	}
	// "which has the lowest mileage", then "and the highest?": that question, the other end
	if m := extremeAlone.FindStringSubmatch(c.text); m != nil {
		for _, t := range tokenize(prev) {
			if _, rank := rankWords[t.norm]; rank || extremeWords[t.norm] {
				return prev[:t.start] + m[1] + prev[t.end:], true
			}
		}
	}
	now, ok := c.swapsIn(c.text)
	if !ok {
		return "", false
	}
	// The request the name is for: the last that was not itself only a name ("how much is the
	// RAV4?", "what about the Camry?", "and the Civic").
	for i := prevUser; i >= 0; i-- {
		if m := c.msgs[i]; m.Role != chat.RoleUser {
			continue
		} else if _, also := c.swapsIn(m.Content); !also {
			was := nameMentions(m.Content, c.now.known(), nil)
			if cur := cmp.Or(c.openedLast(), c.repliedOf(i)); len(was) == 0 && cur != nil && c.onItemAt(cur, i) && len(now.items) <= 1 && !slices.Contains(now.items, cur) {
				// "book a test drive saturday at 11" of the car on screen, then "how about the
				// corolla hatchback instead": that request, of the car named now; the page's
				// own, after details it took ("sat 10am, kat, kat@mail.com", then "swap to the
				// model y": "Test drive the model y instead", whose form takes them again)
				if kind := c.pageKind(); kind != "" && slices.ContainsFunc(tokenize(m.Content), contactToken) {
					return kind + " the " + c.text[now.start:now.end] + " instead", true
				}
				name := "the " + c.text[now.start:now.end]
				if at := thisItem.FindStringIndex(m.Content); at != nil { // ("… of this car on friday": of the civic)
					return m.Content[:at[0]] + name + m.Content[at[1]:], true
				}
				return m.Content + " , for " + name, true
			}
			if len(was) != 1 || len(was[0].items) != 1 || slices.Contains(now.items, was[0].items[0]) {
				return "", false
			}
			said := m.Content[:was[0].start] + c.text[now.start:now.end] + m.Content[was[0].end:]
			at := *c
			if at.text = said; sameFor.MatchString(said) { // "the civic same terms", then "and the golf?"
				return at.forItem()
			}
			return said, true
		}
	}
	return "", false
}

// repliedOf is the one item the reply to user message i named ("Opening the test-drive
// booking page for the 2023 Toyota RAV4"): the one on screen then, on a page come to by a
// link that no call opened; nil when it names none or several.
func (c *conv) repliedOf(i int) *item {
	for _, m := range c.msgs[i+1:] {
		if m.Role == chat.RoleUser {
			break
		}
		if m.Role == chat.RoleAssistant && strings.TrimSpace(m.Content) != "" {
			return c.namedOne(m.Content)
		}
	}
	return nil
}

// thisItem points at the item on screen: "this car", "that one".
var thisItem = regexp.MustCompile(`(?i)\b(?:this|that)\s+(?:car|one|vehicle)\b`)

// onItemAt reports that the visitor was still on the pages of item it when they wrote message
// i: no call went back to the list between its opening and then ("open the civic", "back",
// "trucks", then "ok taco then" asks no trucks of the Tacoma).
func (c *conv) onItemAt(it *item, i int) bool {
	opened := -1
	for _, k := range c.calls {
		if openedID(k) == it.id {
			opened = max(opened, k.at)
		}
	}
	return !slices.ContainsFunc(c.calls, func(k call) bool {
		return k.at > opened && k.at < i && slices.ContainsFunc(identWords(k.name), func(w string) bool { return hubWords[w] })
	})
}

// closeThen closes a drawer, then asks more: "Please close the comparison and open the
// cheaper of the two" (openRest: the opening leaves it), "close it and show me all the cars".
var (
	closeThen = regexp.MustCompile(`(?i)^\s*(?:(?:ok|okay|please|now)[\s,]+)*close\s+(?:the\s+|this\s+|that\s+)?(?:comparison|drawer|it)(?:\s+drawer)?\s*(?:,|and\b|then\b|&)\s*(?:then\s+)?(.+)$`)
	openRest  = regexp.MustCompile(`(?i)^(?:open|see|view|look\s+at|pick|select)\b`)
)

// closes reports a tool that closes something and needs nothing: close_comparison.
func closes(t chat.ToolDef) bool {
	return strings.HasPrefix(identPhrase(t.Name), "close") && len(parseSchema(t.Parameters).props) == 0
}

// closeFirst is the call that closes a drawer before the rest of "close the comparison and show
// me all the cars" is read on the page it leaves (newConv); nil for any other request.
func (c *conv) closeFirst(said string) *plan {
	m := closeThen.FindStringSubmatch(said)
	i := slices.IndexFunc(c.tools, closes)
	if m == nil || openRest.MatchString(m[1]) || i < 0 || c.calledThisTurn(c.tools[i].Name, false) {
		return nil
	}
	return &plan{def: c.tools[i], schema: parseSchema(c.tools[i].Parameters), values: map[string]any{}, opens: true}
}

// fieldAlone asks only for a field, after the items were named: "and mileage?", "what about the year?".
var fieldAlone = regexp.MustCompile(`(?i)^\s*(?:and|what\s+about|how\s+about|n)\s+(?:the\s+)?([a-z]+)\s*\??\s*$`)

// sameFor asks for the request before again, for something else: "same for the model 3?",
// "and on the model 3, same terms?", "with those numbers for the civic?"; or after a detour,
// "same as before?".
var sameFor = regexp.MustCompile(`(?i)\bsame\s+(?:for|on|with|again|as\s+(?:before|earlier|last\s+time))\b|\b(?:same|those|these|that)\s+(?:terms|numbers|figures|deal)\b|\bsame\s*[?.!]*\s*$`)

// compareSame asks how an item compares on the terms before: "how does the Civic compare on",
// "how does that compare to the Civic on".
var compareSame = regexp.MustCompile(`(?i)\bhow\s+(?:does|would)\s+(?:(the\s+[\w-]+(?:\s+[\w-]+)?)\s+compare\s+(?:on|with)|(?:that|it|this)\s+compare\s+(?:to|with)\s+(the\s+[\w-]+(?:\s+[\w-]+)?)\s+on)\b`)

// sameTerms asks for the figures of a calculation again: "same terms", "those numbers".
var sameTerms = regexp.MustCompile(`(?i)\b(?:same|those|these|that)\s+(?:terms|numbers|figures)\b`)

// figureArgs reports a call with a number among its arguments.
func figureArgs(args string) bool {
	var m map[string]any
	_ = json.Unmarshal([]byte(args), &m)
	return slices.ContainsFunc(slices.Collect(maps.Values(m)), func(v any) bool { _, ok := v.(float64); return ok })
}

// andOfThe asks the question before of another item: "and of the Volvo?", "what about for the
// Golf?".
var andOfThe = regexp.MustCompile(`(?i)^\s*(?:and|what\s+about|how\s+about)\s+(?:of|for)\s+the\s+([\w-]+(?:\s+[\w-]+)?)\s*\??\s*$`)

// sameAgain asks for the last request again: "same as before?", "same again".
var sameAgain = regexp.MustCompile(`(?i)\bsame\s+(?:again|as\s+(?:before|earlier|last\s+time))\b`)

// firstAsked is the visitor's message that began the last run of turns, at from or before
// it, that each called the tool named ("how much per month", which went to the calculator,
// then "60", "with 4k down"), and the index of the run's last message.
func (c *conv) firstAsked(name string, from int) (string, int) {
	first, next, last := "", len(c.msgs), -1
	if c.lastUser > from {
		next = c.lastUser // (not this turn's calls)
	}
	for i := from; i >= 0; i-- {
		if c.msgs[i].Role != chat.RoleUser {
			continue
		}
		turn := slices.DeleteFunc(slices.Clone(c.calls), func(k call) bool { return k.at <= i || k.at >= next })
		next = i
		switch calls := slices.ContainsFunc(turn, func(k call) bool { return k.name == name }); {
		case calls:
			first, last = c.msgs[i].Content, max(last, i)
		case last >= 0 && len(turn) > 0 && navTool(c.toolDef(turn[len(turn)-1].name)):
			return c.msgs[i].Content, last // the request that went to its page and asked ("open the m240i" did not)
		case last >= 0:
			return first, last
		}
	}
	return first, last
}

// swapsIn reports words that only name an item seen, for the request before: "nvm, the
// Civic", "what about the Camry?", "and the Civic".
func (c *conv) swapsIn(text string) (mention, bool) {
	ms := nameMentions(text, c.now.known(), nil)
	if len(ms) != 1 {
		return mention{}, false
	}
	for _, t := range append(tokenize(text[:ms[0].start]), tokenize(text[ms[0].end:])...) {
		if t.kind == kindWord && !correctionWords[t.norm] && !swapWords[strings.ToLower(t.raw)] {
			return mention{}, false // "open the Civic", "what colours does the Civic come in": a request of its own
		}
	}
	return ms[0], true
}

// valueAlone is a follow-up that only names a value.
var valueAlone = regexp.MustCompile(`(?i)^\s*(?:and|what about|how about)\s+([\w-]+)\s*\?*\s*$`)

// askedOf is the question with the value of one of the page's parameters it names replaced by
// another value w of that parameter; ok false when it names none, or w is none.
func (c *conv) askedOf(question, w string) (string, bool) {
	toks := tokenize(question)
	for _, t := range c.tools {
		for _, p := range parseSchema(t.Parameters).props {
			values := p.schema.allEnums()
			if !slices.ContainsFunc(values, func(e enumValue) bool { return e.isStr && strings.EqualFold(e.str, w) }) {
				continue
			}
			for _, tk := range toks {
				// (a value of it, or a colour it does not offer: "does it come in blue?")
				if colourWords[tk.norm] && slices.Contains(p.words, "color") && !strings.EqualFold(tk.raw, w) ||
					slices.ContainsFunc(values, func(e enumValue) bool {
						return e.isStr && strings.EqualFold(e.str, tk.raw) && !strings.EqualFold(e.str, w)
					}) {
					return question[:tk.start] + w + question[tk.end:], true
				}
			}
		}
	}
	return "", false
}

// extremeAlone is a follow-up that only asks for another end; extremeWords say an end of no
// one field ("the highest mileage", "the lowest price").
var (
	extremeAlone = regexp.MustCompile(`(?i)^\s*(?:and|what about|how about)\s+(?:the\s+)?(highest|lowest|most|least|fewest|biggest|smallest|largest)\s*\??\s*$`)
	extremeWords = rawSet(`highest lowest most least fewest biggest smallest largest`)
)

// ordinalAlone is a follow-up that only points at another item by its place; ordinalOne is
// such a pointer in a request, or one by a rank ("the cheaper one").
var (
	ordinalAlone = regexp.MustCompile(`(?i)^\s*(?:and|what about|how about)\s+(the\s+(?:first|second|third|last|other)(?:\s+one)?)\s*\??\s*$`)
	ordinalOne   = regexp.MustCompile(`(?i)\bthe\s+(?:(?:first|second|third|last|other)(?:\s+one)?|\w+(?:er|est)\s+one)\b`)
)

// swapWords say that another item is meant for the same request: "nvm, the Civic", "try the
// Camry".
var swapWords = rawSet(`nvm never mind no nope ok okay so then and the a about how what try let's lets go with for please maybe
	can could i we do switch swap to rather`)

// nameAlone reports words that only name something: "the civic", "the Honda Civic please".
// Each word is an item's, a word no tool knows (unlike onlyNames, a name not seen yet), or one
// of asking.
func (c *conv) nameAlone(text string) bool {
	toks := tokenize(text)
	if wordAt(toks, 0, "how", "hw") {
		return false // "how many are there" asks of the list shown: no name
	}
	names := nameMentions(text, c.now.known(), nil)
	n := 0
	for _, t := range toks {
		named := slices.ContainsFunc(names, func(m mention) bool { return t.start >= m.start && t.start < m.end })
		switch {
		case t.kind == kindPunct || stopWords[t.norm] || requestWords[t.norm]:
		case named || t.kind == kindWord && !c.vocab[t.norm] && !ordinary(t.norm):
			n++
		default:
			return false
		}
	}
	return n > 0 && n <= 3
}

// personName reports a message that is only a person's name, as a visitor types it when asked
// for it or before: two or three words, each with a capital, none a tool's word or an item's
// name ("Kenji Tanaka"; not "Honda Civic" once the list has shown Hondas).
func (c *conv) personName(text string) bool {
	var words []token
	for _, t := range tokenize(text) {
		if t.kind == kindWord {
			words = append(words, t)
		} else if t.kind != kindPunct {
			return false
		}
	}
	return len(words) >= 2 && len(words) <= 3 && len(nameMentions(text, c.now.known(), nil)) == 0 && !slices.ContainsFunc(words, func(t token) bool {
		return !unicode.IsUpper([]rune(t.raw)[0]) || c.vocab[t.norm] || stopWords[t.norm] || requestWords[t.norm]
	})
}

// prevUser is the index of the visitor's message before the last one; -1 when there is none.
func (c *conv) prevUser() int {
	i := c.lastUser - 1
	for i >= 0 && c.msgs[i].Role != chat.RoleUser {
		i--
	}
	return i
}

// chainLimit is how many questions in a row a request is completed across ("I'm free next
// Wednesday afternoon", "2pm", then the name and e-mail).
const chainLimit = 8

// pending returns the clarifying question the planner's last reply asked, when the last turn
// was only that question. When that turn's message itself answered a question before it, the
// request is the chain of them, up to chain questions back.
func (c *conv) pending(chain int) (intent, bool) {
	prevUser := c.prevUser()
	if prevUser < 0 {
		return intent{}, false
	}
	// The reply to the message before, with words besides the notice, is the question; its
	// turn called nothing, or opened an item's page for the request and asked there (goOn): the
	// question is about the page the visitor is on now, with the names that turn looked up.
	last, opened := c.msgs[c.lastUser-1], c.lastUser-prevUser > 2
	if last.Role != chat.RoleAssistant || len(last.ToolCalls) > 0 ||
		strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(last.Content), c.place.notice)) == "" ||
		opened && !slices.ContainsFunc(c.calls, func(k call) bool {
			// (or listed first to learn the names: "an appointment with a dermatologist on friday
			// morning", the doctors listed, then the time asked)
			return (k.opened || c.lister() != nil && k.name == c.lister().def.Name) && k.at > prevUser && k.at < c.lastUser
		}) {
		return intent{}, false
	}
	prevText := strings.TrimSpace(c.msgs[prevUser].Content)
	at := *c
	at.text, at.lastUser = prevText, prevUser
	if said, ok := at.forItem(); ok {
		prevText = said // "how about the corolla hatchback instead" was the drive asked before, of it
	}
	if k := slices.IndexFunc(c.calls, func(k call) bool { return k.opened && k.at > prevUser && openedID(k) != "" }); opened && k >= 0 {
		prevText = c.pointedText(prevText, c.calls[k]) // as the opened page read it (goOn)
	}
	pc := *c
	// (pc.before stays: a turn that only asked called nothing, and an opened page's names are kept)
	pc.text, pc.lastUser, pc.done = prevText, prevUser, nil
	// ("whats the weather" got a dead end: the question before still waits)
	if (availableRe.MatchString(prevText) || acknowledges(prevText) || sendsAlone(prevText) || declineRe.MatchString(prevText) ||
		strings.HasPrefix(last.Content, deadEndStart)) && chain > 1 {
		return pc.pending(chain - 1) // "whats available", "perfect, that works", "no phone" had the question asked again
	}

	var before intent // the question before, read once (each read reads those before it)
	var asked bool
	if chain > 1 {
		if before, asked = pc.pending(chain - 1); asked {
			earlier := before
			if _, ok := pc.answers(earlier); ok {
				// read as that answer was ("whats the latest" while a time was asked; a choice
				// picked answers no form)
				prevText = pc.asAnswer(earlier, prevText)
				if i := pickChoice(prevText, earlier.choices); i >= 0 && earlier.asked == nil {
					prevText = earlier.choices[i].label // "the first" of the times offered: 09:00
				}
				if earlier.asked != nil {
					pc.answering = earlier.asked.def.Name
				}
			} else if pc.unanswered = earlier.asked; earlier.asked != nil { // as intent reads it
				// "no wait, 5pm" or "actually the afternoon" asked for the form's time again:
				// the request is still the one before, without its time
				if in := pc.understand(prevText, false); in.asked != nil && in.asked.def.Name == earlier.asked.def.Name &&
					slices.ContainsFunc(in.asked.missing, clockParam) {
					earlier.reply = withoutTimes(earlier.reply)
					prevText = pc.asAnswer(earlier, prevText)
				}
			}
		}
	}
	in := pc.understand(prevText, false)
	if m := thenNext.FindStringSubmatch(prevText); m != nil && opened && in.asked != nil {
		// the second of two requests asked for there ("make it white …, and then book a test
		// drive for Sunday at 1pm" on the booking page): read with an answer, the first
		// request's words are none of the form's
		if then := pc.understand(m[2], false); then.asked != nil && then.asked.def.Name == in.asked.def.Name {
			prevText, in = m[2], then
		}
	}
	// A turn that only answered ("what times do you have?") or could not do what was said
	// leaves open the form's question before it, asked by a turn that called nothing:
	// "next tues", "1pm", "my name's nia lo", then the e-mail books Tuesday at 1pm.
	if in.asked == nil && chain > 1 && in.first(&pc) == nil && pc.prevUser() >= 0 && pc.lastUser-pc.prevUser() == 2 &&
		asked && before.asked != nil && len(before.asked.missing) > 0 {
		return before, true
	}
	if in.asked == nil && len(in.choices) == 0 {
		return intent{}, false
	}
	if opened && in.reply != "" && !strings.Contains(last.Content, in.reply) {
		return intent{}, false // the page opened was all the reply said ("the second car"): no question waits
	}
	in.reply = prevText // the question's request, for completing it
	return in, true
}

// answers reads the user message as the answer to the pending question: a pick among its
// choices, or the missing value. It reports false when the message is about something else,
// which abandons the question.
func (c *conv) answers(prev intent) (intent, bool) {
	if i := pickChoice(c.text, prev.choices); i >= 0 {
		// ("Open the Civic, please." picks no comparison of the Golf, the Corolla and the Civic)
		one := len(nameMentions(c.text, c.now.known(), nil)) == 1 && len(nameMentions(prev.choices[i].label, c.now.known(), nil)) > 1
		return c.picked(prev.choices, i), !one
	}
	if prev.asked == nil {
		return intent{}, false
	}
	// ("how many bedrooms?" while the class to book is asked: a question of its own, which
	// books nothing; "what about the spin one?" and "is 9:30 free?" answer)
	if toks := tokenize(rewriteTimes(rewriteDates(c.text, c.today))); named(prev.asked.def.Name, commitFirst) && isQuestion(c.text, toks) &&
		wordAt(toks, 0, askWords...) && !wordAt(toks, 1, "about") && len(nameMentions(c.text, c.now.known(), nil)) == 0 &&
		!slices.ContainsFunc(toks, func(t token) bool { return t.kind != kindWord && !isMark(t) }) {
		return intent{}, false
	}
	// The question and the answer read together: the call made now sets a value that was
	// missing, or the question comes back asking for fewer.
	c.answering = prev.asked.def.Name
	in := c.understand(c.asAnswer(prev, c.text), true)
	c.answering = ""
	first := in.first(c)
	set := func(m *property) bool { _, ok := first.values[m.name]; return ok }
	fills := first != nil && first.def.Name == prev.asked.def.Name &&
		slices.ContainsFunc(prev.asked.missing, set)
	// (or as many, with a value more: "notes: need a child seat" while the name is asked; or
	// changed: "actually make it 1pm")
	fewer := in.asked != nil && in.asked.def.Name == prev.asked.def.Name &&
		(len(in.asked.missing) < len(prev.asked.missing) ||
			len(in.asked.missing) == len(prev.asked.missing) && (in.asked.arguments() != prev.asked.arguments() && len(in.asked.values) >= len(prev.asked.values) ||
				saysDay(c.text) && slices.ContainsFunc(prev.asked.schema.props, dateKind.wants))) // "actually make it thursday" of tomorrow, a Thursday; "next wednesday i mean" of wednesday
	return in, fills || fewer
}

// namesDay reports a text that names a day: "monday", "tomorrow", "dec 3", "the 12th", "12/12".
func namesDay(text string) bool {
	return rewriteDates(text, time.Now()) != text || dateRe.MatchString(text)
}

// withoutDays is the text without the days it names, and the parts of those days.
func withoutDays(text string) string {
	return dayPartRe.ReplaceAllString(dateRe.ReplaceAllString(rewriteDates(text, time.Now()), " "), " ")
}

// dayPartRe is a part of a day: "afternoon", "after lunch", "before 3pm".
var dayPartRe = regexp.MustCompile(`(?i)\b(?:` + strings.Join(slices.Sorted(maps.Keys(partsOfDay)), "|") +
	`)\b|\b(?:after|before)\s+(?:lunch|noon|\d{1,2}(?::\d\d)?(?:\s*[ap]\.?m\b)?)`)

// saysDay reports a day said: "actually make it thursday", "next wednesday i mean".
func saysDay(text string) bool {
	return slices.ContainsFunc(tokenize(text), func(t token) bool { return t.kind == kindDate || calendarWords[t.norm] })
}

// withoutTimes is the text without the times it names.
func withoutTimes(text string) string {
	text = rewriteTimes(text)
	for _, t := range slices.Backward(tokenize(text)) {
		if t.kind == kindTime {
			text = text[:t.start] + text[t.end:]
		}
	}
	return text
}

// asAnswer is the question's request and the answer read together; an answer with one small
// number when a time was asked ("3", "11 would be great") is at that hour, and a change of mind
// ("actually make it 1pm") comes first, so that its values win; a move of the day or time
// ("the day after instead") is of the one the question holds.
func (c *conv) asAnswer(prev intent, text string) string {
	text = c.rewriteRelative(text, prev.asked) // "the day after instead": of the day asked with
	if prev.asked != nil && slices.ContainsFunc(prev.asked.missing, clockParam) {
		// "3", "11 would be great", "is 10 available?", "ten works": the one number is the hour
		// (not the day of "dec 10 at 1pm")
		toks := tokenize(text)
		nums := slices.DeleteFunc(slices.Clone(toks), func(t token) bool { return t.kind != kindNumber })
		// "ten works", "how about eleven" (not "one more thing", "two of us")
		at := slices.IndexFunc(toks, func(t token) bool { return hourOf(t.norm) > 1 })
		if len(nums) == 0 && at >= 0 && (at == 0 || anyNorm(toks[at-1:at], "about", "say", "maybe", "do")) &&
			(at+1 == len(toks) || toks[at+1].kind != kindWord || anyNorm(toks[at+1:at+2], "works", "work", "is", "would", "sounds", "please", "pls", "then", "ok", "okay")) {
			text = text[:toks[at].start] + "at " + text[toks[at].start:]
		}
		if len(nums) == 1 && !nums[0].money && !nums[0].percent && nums[0].value >= 1 && nums[0].value <= 23 &&
			nums[0].value == float64(int(nums[0].value)) && !slices.ContainsFunc(toks, func(t token) bool { return monthNames[t.norm] }) {
			text = text[:nums[0].start] + "at " + text[nums[0].start:] // "at at 11" reads as "at 11"
		}
	}
	// An amount for a share of an unknown price ("10% down", then "$3,600") takes its place.
	amounts := slices.DeleteFunc(tokenize(text), func(t token) bool {
		return t.kind != kindNumber || t.percent || !t.money && !t.grouped && t.value < 100 // "and at 72?" is no amount
	})
	if prev.asked != nil && len(prev.asked.missing) == 1 && moneyParam(prev.asked.missing[0]) && len(amounts) == 1 {
		toks := tokenize(prev.reply)
		for i := 0; i+1 < len(toks); i++ {
			if toks[i].percent && matchesParam(toks[i+1].norm, prev.asked.missing[0]) {
				return prev.reply[:toks[i].start] + amounts[0].raw + prev.reply[toks[i].end:]
			}
		}
	}
	if slices.ContainsFunc(tokenize(text), func(t token) bool { return correctionWords[t.norm] }) {
		// a change of mind ("actually make it 1pm", "… make it 11") wins: the first value is taken,
		// and a value written out is taken out of the request ("sorry, it should be Anna Baker")
		rest := prev.reply
		if alone := c.understand(text, false); prev.asked != nil && alone.asked != nil && alone.asked.def.Name == prev.asked.def.Name {
			for k := range alone.asked.values {
				if s, ok := prev.asked.values[k].(string); ok {
					rest = strings.Replace(rest, s, "", 1)
				}
			}
		}
		return bareHourChange(text) + " , " + rest
	}
	if namesDay(text) { // "monday at 4" of a time asked for friday: the day said last
		return withoutDays(prev.reply) + " , " + text
	}
	return prev.reply + " , " + text
}

// takesOffered is the text with the value a yes offered in place of "it" or "that" after a word
// of taking, when the text says more than the pick: "do you have an offroad package" → "Yes: …",
// then "add it along with the winter one" adds both.
func takesOffered(text string, prev intent) (string, bool) {
	if len(prev.choices) != 1 || prev.asked != nil {
		return "", false
	}
	toks := tokenize(text)
	for i, t := range toks {
		if (t.norm == "it" || t.norm == "that") && i > 0 && (takeWords[toks[i-1].norm] || toks[i-1].norm == "do") {
			what := prev.choices[0].label
			for name := range prev.choices[0].plan.values { // "the TRD Off-Road trim", no package
				what += " " + stem(identPhrase(name))
			}
			return text[:t.start] + what + text[t.end:], true
		}
	}
	return "", false
}

// picked is the call of choice i, with what else the words set: "the top one in green" of
// the trims offered is the top trim, in green. Among the values of a parameter (no items),
// "the top one" is the last, as "the top trim" is (endWords), not the first on screen.
func (c *conv) picked(choices []choice, i int) intent {
	toks := tokenize(c.text)
	values := !slices.ContainsFunc(choices, func(ch choice) bool { return slices.ContainsFunc(ch.plan.schema.props, takesIDs) })
	start, end, ok := pointerSpan(toks)
	if k := slices.IndexFunc(toks, func(t token) bool { return t.start == start }) + 1; ok && values && k < len(toks) {
		if end, isEnd := endWords[toks[k].norm]; isEnd && end == 1 {
			i = len(choices) - 1
			if l := choices[i].label; l == "both" || l == "all" {
				i--
			}
		}
	}
	ch := choices[i]
	if ok {
		rest := c.text[:start] + ch.label + c.text[end:]
		more := c.understand(rest, false).first(c)
		if more != nil && more.def.Name == ch.plan.def.Name && len(more.values) > len(ch.plan.values) &&
			!slices.ContainsFunc(slices.Collect(maps.Keys(ch.plan.values)), func(k string) bool {
				return fmt.Sprint(more.values[k]) != fmt.Sprint(ch.plan.values[k])
			}) {
			return callIntent(more)
		}
	}
	if l := c.lister(); l != nil && ch.plan.def.Name == l.def.Name {
		// "grey" of the colours offered narrows the list shown, unless it changes a choice
		prev := c.lastArgs(l.def.Name, "")
		if !slices.ContainsFunc(ch.plan.schema.props, func(q *property) bool {
			return ch.plan.values[q.name] != nil && prev[q.name] != nil && !q.schema.isNumber()
		}) {
			c.carryOver(ch.plan, false)
		}
	}
	// "the first" of the times offered, the form's other required details not given: asked
	// for, with what the visitor said before (not a form sent without them)
	p := ch.plan
	p.missing = p.unset()
	if len(p.missing) > 0 {
		c.contactsSaid(p, maps.Clone(p.values))
		if len(p.missing) > 0 {
			return c.askMissing(p, ch.label)
		}
	}
	return callIntent(p)
}

// takeWords take what was offered: "add it", "yes get that one".
var takeWords = rawSet(`add get take include want yes yeah yep sure`)

// pickChoice finds the choice the text picks: "the first", "2", "yes" when there is one
// choice, or words that only one choice's label has.
func pickChoice(text string, choices []choice) int {
	toks := tokenize(text)
	if backToOne.MatchString(text) {
		return -1 // "go back to the first one" goes back to a car, whatever was asked
	}
	if i := ordinalAt(toks, len(choices)); i >= 0 {
		return i
	}
	if len(toks) == 1 && toks[0].kind == kindNumber && toks[0].value == float64(int(toks[0].value)) &&
		toks[0].value >= 1 && int(toks[0].value) <= len(choices) {
		return int(toks[0].value) - 1
	}
	yes := []string{"ok", "okay", "please do", "do it", "go ahead", "y"} // "yes please", "sure": takeWords
	if len(choices) == 1 && slices.Contains(yes, strings.ToLower(strings.Trim(text, " .!"))) {
		return 0
	}
	// "add it pls", "ok then get that one": taking the one offered
	takes := slices.ContainsFunc(toks, func(t token) bool { return takeWords[t.norm] })
	if len(choices) == 1 && takes && !slices.ContainsFunc(toks, func(t token) bool {
		return t.kind != kindPunct && !takeWords[t.norm] && !stopWords[t.norm]
	}) {
		return 0
	}
	if wordAt(toks, 0, "what", "what's", "whats", "which", "how", "who", "where", "why", "when") {
		return -1 // "which car is this for?" asks back: it picks no choice by sharing a word
	}
	// "add both", "all of them": the choice of every value, when one was offered
	if i := slices.IndexFunc(choices, func(ch choice) bool { return ch.label == "both" || ch.label == "all" }); i >= 0 &&
		anyNorm(toks, "both", "all", "everything") && !slices.ContainsFunc(toks, func(t token) bool {
		return t.kind != kindPunct && !takeWords[t.norm] && !stopWords[t.norm] && !anyNorm([]token{t}, "add", "both", "everything", "them", "please", "pls")
	}) {
		return i
	}
	// Every word given must belong to the one choice: "price" picks "by price", "price please
	// and something else" does not.
	words := contentWords(text)
	all := func(ch choice) bool {
		label := contentWords(ch.label)
		return !slices.ContainsFunc(words, func(w string) bool {
			return !slices.ContainsFunc(label, func(l string) bool { return wordsMatch(w, l) })
		})
	}
	if i := slices.IndexFunc(choices, all); len(words) > 0 && i >= 0 && !slices.ContainsFunc(choices[i+1:], all) {
		return i
	}
	return -1
}

// ordinalAt is the index among n things of the one the words name by its place ("the
// second", "the last"); -1 when they name none.
func ordinalAt(toks []token, n int) int {
	k, ok := ordinalRef(toks)
	switch {
	case n == 3 && anyNorm(toks, "middle"): // "the middle one"
		return 1
	case ok && k == -1:
		return n - 1
	case ok && k >= 1 && k <= n:
		return k - 1
	}
	return -1
}
