package planner

import (
	"cmp"
	"encoding/json"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/byomcp/byomcp/agentsvc/chat"
)

// navTool reports a tool that goes to another page and needs nothing: go_to_…, back_to_….
func navTool(t chat.ToolDef) bool {
	return named(t.Name, goesFirst) && !slices.ContainsFunc(parseSchema(t.Parameters).props, func(p *property) bool {
		return p.required
	})
}

// The kinds of tools, as the first words of their own names (named).
var (
	goesFirst  = rawSet(`go back return visit goto`)    // to another page
	opensFirst = rawSet(`open select view show see go`) // an item's page, or something
	readsFirst = rawSet(`get list read fetch show view find search lookup describe check calculate compute
		estimate preview quote`)
	commitFirst = rawSet(`book apply submit delete remove buy purchase pay send checkout cancel close back
		clear reset`)
)

// named reports a tool name whose first word is of the kind first.
func named(name string, first map[string]bool) bool {
	ws := identWords(ownName(name))
	return len(ws) > 0 && first[ws[0]]
}

// hubTool reports a navigation tool to the site's list of items: back_to_inventory, go_home.
func hubTool(t chat.ToolDef) bool {
	return navTool(t) && slices.ContainsFunc(identWords(t.Name), func(w string) bool { return hubWords[w] })
}

// hubWords name the site's list of items.
var hubWords = rawSet(`inventory home list catalog catalogue shop store start main browse index listing search result results`)

// calledThisTurn reports a call of the tool since the visitor's message (without arguments, bare).
func (c *conv) calledThisTurn(name string, bare bool) bool {
	return c.lastUser >= 0 && slices.ContainsFunc(c.calls, func(k call) bool {
		return k.at > c.lastUser && k.name == name && (!bare || noArguments(k.args))
	})
}

// earlierCalls yields the tool calls made before the visitor's message, the last first.
func (c *conv) earlierCalls(yield func(call) bool) {
	for _, k := range slices.Backward(c.calls) {
		if k.at < c.lastUser && !yield(k) {
			return
		}
	}
}

// goTo is the call of navigation tool t for the request: the page it opens reads it again.
func (c *conv) goTo(t chat.ToolDef) intent {
	return callIntent(&plan{def: t, schema: parseSchema(t.Parameters), values: map[string]any{}, opens: true})
}

// hub is the call that goes to the site's list of items, unless this turn went there already.
func (c *conv) hub() (intent, bool) { return c.firstNav(hubTool) }

// firstNav is the call of the first navigation tool that test accepts and this turn has not called.
func (c *conv) firstNav(test func(chat.ToolDef) bool) (intent, bool) {
	i := slices.IndexFunc(c.tools, func(t chat.ToolDef) bool {
		return navTool(t) && test(t) && !c.calledThisTurn(t.Name, false)
	})
	if i < 0 {
		return intent{}, false
	}
	return c.goTo(c.tools[i]), true
}

// onScreen is the item the last item-opening call opened: the visitor is on its page.
func (c *conv) onScreen() string {
	for _, k := range slices.Backward(c.calls) {
		if id := openedID(k); id != "" && !c.offers(k.name) { // a tool of this page did not open it
			return id
		}
	}
	return ""
}

// onItsPage reports that the visitor is on the page the last item-opening call opened: no
// call went elsewhere since.
func (c *conv) onItsPage() bool {
	for _, k := range slices.Backward(c.calls) {
		switch {
		case k.page: // its page tells of it and needs nothing (get_price_summary), not its calculator
			return slices.ContainsFunc(c.tools, func(t chat.ToolDef) bool { return reads(t) && len(parseSchema(t.Parameters).props) == 0 })
		case openedID(k) != "":
			return true
		case named(k.name, goesFirst):
			return false
		}
	}
	return false
}

// openedLast is the item the conversation's latest call opened, or nil.
func (c *conv) openedLast() *item {
	for k := range c.earlierCalls {
		if k.left {
			continue // (the page of a link, left: leftID)
		}
		if k.page {
			return c.page
		}
		if id := openedID(k); id != "" {
			return cmp.Or(c.before.items[id], c.now.items[id]) // (named by a list this turn: "the item left, learned")
		}
	}
	return nil
}

// goesBack reports words that go back to the item opened last: "go back", "back to the car i
// was looking at".
func (c *conv) goesBack(toks []token) bool {
	return onlyGoing(toks, func(w string) bool { return w == "back" }) || anyNorm(toks, "back", "return") && c.backToItem(toks, false)
}

// leftID is the id of the item of a page the visitor came to by a link and left, when no
// call opened an item since (pagesLeft), or "".
func (c *conv) leftID() string {
	for k := range c.earlierCalls {
		if id := openedID(k); id != "" && k.left {
			return id
		} else if id != "" {
			return ""
		}
	}
	return ""
}

// openedItems are the items earlier calls opened, the last opened first, each once.
func (c *conv) openedItems() []*item {
	var out []*item
	for k := range c.earlierCalls {
		if it := c.before.items[openedID(k)]; it != nil && !slices.Contains(out, it) {
			out = append(out, it)
		}
	}
	return out
}

// openedOf is the one item of items that an earlier call opened, or nil (none, or several).
func (c *conv) openedOf(items []*item) *item {
	opened := c.openedItems()
	if i := slices.IndexFunc(c.calls, func(k call) bool { return k.opened && k.at > c.lastUser && openedID(k) != "" }); c.reread && i >= 0 {
		// read again on the page this turn opened for it: "the bmw" there is that BMW
		opened = []*item{c.before.items[openedID(c.calls[i])]}
	}
	opened = slices.DeleteFunc(opened, func(it *item) bool { return !slices.Contains(items, it) })
	if len(opened) != 1 {
		return nil
	}
	return opened[0]
}

// openedID is the id an item-opening call (select_car {"carId":"c15"}) opened, or "".
func openedID(k call) string {
	if !named(k.name, opensFirst) {
		return ""
	}
	return onlyArg(k)
}

// onlyArg is the string a call was given as its one argument, or "".
func onlyArg(k call) string {
	var args map[string]any
	if json.Unmarshal([]byte(k.args), &args) != nil || len(args) != 1 {
		return ""
	}
	id, _ := slices.Collect(maps.Values(args))[0].(string)
	return id
}

// backToItem reports words that ask to go back to the item opened last ("go back to the
// car"): the noun of its id ("car" of carId), and no word of the list.
func (c *conv) backToItem(toks []token, byName bool) bool {
	noun := c.openedNoun()
	// "the car" as typed: "back to the cars", "any electric cars" are of the list; or, byName,
	// its name: "back to the tacoma" on its calculator
	goes := byName && slices.ContainsFunc(toks, func(t token) bool { return isWord(t, goVerbs) })
	said := false
	for i, t := range toks {
		// ("the first car" is of the list)
		said = said || strings.EqualFold(possessed(t.raw), noun) && (i == 0 || ordinals[strings.ToLower(toks[i-1].raw)] == 0) || goes && c.namesOnScreen(t) // "the car's page"
	}
	// (not "change the car to the rav4": another car)
	return noun != "" && (said || byName && c.backAlone(toks)) && !slices.ContainsFunc(toks, func(t token) bool { return hubWords[t.norm] }) &&
		!anyNorm(toks, "change", "switch", "swap")
}

// backAlone reports "back" said alone ("back", "go back pls") on a page the visitor came to from
// the item's own page (its calculator opened there): back is that page, as a browser's is.
func (c *conv) backAlone(toks []token) bool {
	if !anyNorm(toks, "back") || slices.ContainsFunc(toks, func(t token) bool {
		return t.kind != kindPunct && !slices.Contains([]string{"back", "go", "take", "me", "us", "please", "pls", "now", "ok", "okay"}, strings.ToLower(t.raw))
	}) {
		return false
	}
	for k := range c.earlierCalls {
		if k.page || !named(k.name, goesFirst) {
			continue
		}
		i := slices.IndexFunc(c.tools, func(t chat.ToolDef) bool { return t.Name == k.name })
		return i < 0 || !hubTool(c.tools[i]) // (a tool of the item's page is not here)
	}
	return false
}

// namesOnScreen reports a word of the name of the item on screen.
func (c *conv) namesOnScreen(t token) bool {
	it := cmp.Or(c.now.items[c.onScreen()], c.before.items[c.onScreen()])
	if it == nil && c.page != nil && c.page.id == c.onScreen() {
		it = c.page // (reached by a link: its page's title names it)
	}
	return it != nil && t.kind == kindWord && len(t.norm) > 2 && slices.Contains(it.words, compact(t.norm))
}

// openedNoun is what the call that opened the last item calls one ("car" of select_car's
// carId), or "".
func (c *conv) openedNoun() string {
	for k := range c.earlierCalls {
		var args map[string]any
		if openedID(k) == "" || json.Unmarshal([]byte(k.args), &args) != nil {
			continue
		}
		for key := range args {
			return idNoun(key)
		}
	}
	return ""
}

// otherItem reports a request, on one item's page with no list here, about another item: a
// known one not on screen, or an unseen name written like a model's ("the Civic", "Mazda3").
// "It" does not stop a name that can only be another item's ("compare it with the A4").
func (c *conv) otherItem(text string, toks []token, mentions []mention, pronoun bool) bool {
	if c.listsItems() || c.lister() != nil {
		return false
	}
	if wordAt(toks, 0, "is", "does") && wordAt(toks, 1, "it", "this") {
		return false // "is it a Toyota?", "is it cheaper than the Mustang?": about the one on screen
	}
	// The car of a page opened by its link, named only by the page's title, is the one on
	// screen: its words are no other's ("tell me more about the Camry" there), and another
	// name beside it is looked for ("compare the camry with the civic").
	mentions = slices.DeleteFunc(slices.Clone(mentions), func(m mention) bool { return len(m.items) == 1 && m.items[0] == c.page })
	if len(mentions) > 0 {
		cur := c.onScreen()
		return cur != "" && slices.ContainsFunc(mentions, func(m mention) bool {
			// ("the bmw" on the 330i's page, of three BMWs, is the 330i; "the other bmw" is not)
			isCur := func(it *item) bool { return it.id == cur }
			other := slices.ContainsFunc(m.items, func(it *item) bool { return it.id != cur }) &&
				(!slices.ContainsFunc(m.items, isCur) || manyOrOther(toks))
			// "let's look at the A4" on the A4's calculator: its own page is elsewhere
			// (not "open the Miata and book a test drive for Saturday at 11" read again on its booking page)
			again := len(m.items) == 1 && m.items[0].id == cur && !c.onItsPage() &&
				slices.ContainsFunc(toks, func(t token) bool { return opensFirst[t.norm] || t.norm == "look" }) &&
				!slices.ContainsFunc(toks, func(t token) bool { return t.kind != kindWord && t.kind != kindPunct || c.vocab[t.norm] })
			return (other || again) && strings.IndexFunc(text[m.start:m.end], unicode.IsLetter) >= 0
		})
	}
	if c.opensOnOther(text, toks) && !pronoun {
		return true // "hmm and the ioniq with the limited trim?"
	}
	if !pronoun && c.bareOther(text, toks) != "" {
		return true // "open camry", "camry blue how much"
	}
	// "add the family package and the driver assistance one" on its page: its choices
	if c.onItsPage() && slices.ContainsFunc(toks, func(t token) bool {
		return choiceWords[t.norm] && c.hasParam(func(p *property) bool { return nounOf(t, p) })
	}) {
		return false
	}
	question, given := isQuestion(text, toks), c.valuesGiven()
	pronoun = pronoun && !notThis.MatchString(text) // "i want the golf not this one"
	for i, t := range toks {
		if hyphenModel(toks, i) != "" && !question {
			return true // "drive the f-150" on the Tacoma's page, no list seen
		}
		if t.kind == kindNumber && (wordAt(toks, i-1, "the") || wordAt(toks, i-2, "the") && toks[i-1].kind == kindWord) && i+1 < len(toks) && toks[i+1].start == t.end && toks[i+1].kind == kindWord &&
			!unitWords[toks[i+1].norm] && !(c.page != nil && slices.Contains(c.page.words, compact(t.raw+toks[i+1].raw))) {
			return true // "compare it with the 330i", "the bmw 330i" ("what colours does the 330i come in" on its page is its own)
		}
		if t.kind != kindWord || len(t.norm) < 2 || ordinary(t.norm) || c.nearToolWord(t.norm) || given[t.norm] ||
			t.norm == "earliest" || t.norm == "day" || // "the earliest on monday", "the day after tomorrow": a time ("latest" is ordinary)
			c.page != nil && slices.Contains(c.page.words, compact(t.norm)) {
			continue
		}
		model := strings.ContainsAny(t.raw, "0123456789") && !strings.ContainsAny(t.raw[:1], "0123456789")
		_, ordinal := ordinals[t.norm]
		ordinal = ordinal || ordinalDigits.MatchString(t.raw) // "the 12th" is a day
		// "the driver assistance one" of the packages is no item
		// ("the ioniq in white": a name, then a value; not the words of one choice)
		joined := i+1 < len(toks) && toks[i+1].kind == kindWord && !stopWords[toks[i+1].norm]
		choiceNamed := c.onItsPage() && (joined && c.paramNoun(toks, i+2) || wordAt(toks, i+1, "one") || wordAt(toks, i+2, "one"))
		// ("We're the Kowalski family, Anna Kowalski, anna.k@…": details, the name a person's)
		// ("the camry cost a month": a price is said of an item, not of a package)
		afterThe := i > 0 && toks[i-1].norm == "the" && !ordinal && (!c.paramNoun(toks, i+1) || toks[i+1].norm == "price") && !choiceNamed && !slices.ContainsFunc(toks, contactToken)
		// "the Honda CR-V" on the Honda Odyssey's calculator: its make, then another model
		afterThe = afterThe || i > 1 && toks[i-2].norm == "the" && c.page != nil && slices.Contains(c.page.words, compact(toks[i-1].norm)) && t.raw != strings.ToLower(t.raw)
		if model || !pronoun && afterThe && (t.raw != strings.ToLower(t.raw) || itemSlot(toks, i)) || afterThe && (asksOf(toks) || anyNorm(toks, "about", "same") || sameFor.MatchString(text)) { // "what about the tesla model y at 48 months"
			return true
		}
	}
	return false
}

// otherOpening are the words a follow-up opens with before "the" and a name: "hmm and", "ok so".
var otherOpening = regexp.MustCompile(`(?i)^[\s,]*(?:(?:hmm+|ok|okay|so|oh|well|and|or)[\s,]+)*`)

// opensOnOther reports a follow-up that opens on "the" and a word no tool here knows, after
// the words of a follow-up: "hmm and the ioniq with the limited trim?", "the ioniq in the
// limited trim" ("the top trim", "the red one" are this page's).
func (c *conv) opensOnOther(text string, toks []token) bool {
	skip := len(otherOpening.FindString(text))
	j := slices.IndexFunc(toks, func(t token) bool { return t.start >= skip })
	if j < 0 || !wordAt(toks, j, "the") || j+1 >= len(toks) {
		return false
	}
	t := toks[j+1]
	_, ordinal := ordinals[t.norm]
	return t.kind == kindWord && len(t.norm) > 2 && !ordinal && !ordinary(t.norm) && !c.nearToolWord(t.norm) && !c.valuesGiven()[t.norm] &&
		!(c.page != nil && slices.Contains(c.page.words, compact(t.norm))) && !c.paramNoun(toks, j+2) && !wordAt(toks, j+2, "one") &&
		!(j+2 < len(toks) && choiceWords[toks[j+2].norm]) // ("and the winter package?")
}

// bareOther is a word no tool here knows said first, as people type on a phone, after a verb
// of opening ("open camry") or first in a short price question ("camry blue how much",
// "camry price"): another item's name; "" when there is none.
func (c *conv) bareOther(text string, toks []token) string {
	skip := len(otherOpening.FindString(text))
	j := slices.IndexFunc(toks, func(t token) bool { return t.start >= skip })
	opener := j >= 0 && j < len(toks) && opensFirst[toks[j].norm] && toks[j].norm != "go"
	if opener {
		j++
	}
	if j < 0 || j >= len(toks) {
		return ""
	}
	t := toks[j]
	// (not a person's name with details, "Lee Wong, lee@wong.io, …"; nor a verb, "remind me …")
	if t.kind != kindWord || len(t.norm) < 3 || c.looksLikeID(t.raw) || ordinary(t.norm) || replyWords[t.norm] || correctionWords[t.norm] || askingWord(t.norm) ||
		c.nearToolWord(t.norm) || c.valuesGiven()[t.norm] || c.page != nil && slices.Contains(c.page.words, compact(t.norm)) || c.paramNoun(toks, j) ||
		wordAt(toks, j+1, "me", "us", "i", "we", "you", "it") || slices.ContainsFunc(toks, contactToken) || personName(toks, j) {
		return ""
	}
	rest := toks[j+1:]
	price := j == 0 && len(toks) <= 5 && slices.ContainsFunc(rest, func(r token) bool { return r.norm == "price" || r.norm == "cost" || r.norm == "much" })
	if opener && len(rest) == 0 || price {
		return t.raw
	}
	return ""
}

// notThis turns away from the item on screen: "not this one", "not that".
var notThis = regexp.MustCompile(`(?i)\bnot\s+(?:this|that|it)\b`)

// itemSlot reports that the word at i, after "the", stands where an item is named, whatever
// its case: after a preposition ("the payment on the civic", "48 months for the golf"), before
// what an item does ("what would the civic cost", "what colours does the civic come in"), or
// as what "how much is" asks of. ("What's the weather", "the mileage" name none.)
func itemSlot(toks []token, i int) bool {
	return wordAt(toks, i-2, "on", "for", "of", "than", "vs", "versus", "want", "prefer") || // "i want the golf not this one"
		wordAt(toks, i+1, "cost", "costs", "come", "comes", "be", "run", "runs") ||
		wordAt(toks, 0, "how") && wordAt(toks, 1, "much") && !slices.ContainsFunc(toks[i+1:], func(t token) bool { return t.kind == kindWord })
}

// unitWords are written right after a number without being a name's: "the 12th", "the 5k".
var unitWords = rawSet(`st nd rd th k m mo mos am pm h hr hrs min mi km g`)

// valuesGiven are the text values the calls of the conversation gave, lower case: "the turbo"
// of "… with the turbo trim", read again on the calculator, is the trim set on the car's page;
// so is the start of a hyphenated one (the "EX" of the EX-L trim).
func (c *conv) valuesGiven() map[string]bool {
	out := map[string]bool{}
	for _, d := range c.calls {
		for _, s := range stringArgs(d.args) {
			s = strings.ToLower(s)
			out[s] = true
			if first, _, ok := strings.Cut(s, "-"); ok {
				out[first] = true
			}
		}
	}
	return out
}

// stringArgs are the text values of a call's arguments, those of lists too ("tech" of
// {"packages":["tech"]}), by the arguments' names.
func stringArgs(args string) []string {
	var m map[string]any
	_ = json.Unmarshal([]byte(args), &m)
	var out []string
	for _, name := range slices.Sorted(maps.Keys(m)) {
		out = append(out, stringsOf(m[name])...)
	}
	return out
}

// stringsOf is a value's strings: the value itself, or those of a list.
func stringsOf(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []string:
		return v
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// choiceWords name a kind of choice of an item's page ("the tech package", "the xle trim"),
// never an item; choiceNoun reports one among toks.
var choiceWords = rawSet(`package packages trim trims`)

func choiceNoun(toks []token) bool {
	return slices.ContainsFunc(toks, func(t token) bool { return choiceWords[t.norm] })
}

// choiceAway reports a request that names a kind of choice ("add the winter package") on a
// page of the item on screen whose tools have no such choice (its calculator): the item's
// own page has it.
func (c *conv) choiceAway(r *reading) bool {
	named := func(t token) bool {
		return choiceWords[t.norm] && !c.hasParam(func(p *property) bool { return nounOf(t, p) })
	}
	return len(r.refs) == 0 && slices.ContainsFunc(r.toks, named) && c.onScreen() != "" && !c.onItsPage() && !c.reread && c.refill() == nil
}

// addsOrDrops starts a request to change a list: "add the roof", "could you take off the
// home charger" (on a car's calculator, read again on the list: a choice of its page).
var addsOrDrops = regexp.MustCompile(`(?i)^\W*(?:(?:and|also|ok|okay|now|please|(?:can|could|would)\s+(?:you|we|i))[\s,]+)*(?:add|include|throw\s+in|remove|drop|take\s+(?:off|out))\s+(?:the\s+|a\s+|an\s+)?[a-z]`)

// nearToolWord reports a word of this page's tools, or near one ("calculator" of calculate_payment).
func (c *conv) nearToolWord(w string) bool {
	for v := range c.vocab {
		if wordsMatch(w, v) {
			return true
		}
	}
	return false
}

// asksOf reports words that ask to do something with an item: "could i test drive the camry
// instead", "i'd like to see the ford mustang" (a lower-case name is then a name).
func asksOf(toks []token) bool {
	return slices.ContainsFunc(toks, func(t token) bool {
		return actionVerbs[t.norm] || t.norm == "drive" || t.norm == "finance" || t.norm == "instead"
	})
}

// paramNoun reports a word at i that names a parameter of the page's tools, or is one of its
// values: "the winter package", "the sport trim", "the panoramic roof" name values, not items.
func (c *conv) paramNoun(toks []token, i int) bool {
	return i < len(toks) && c.hasParam(func(p *property) bool {
		return nounOf(toks[i], p) || slices.ContainsFunc(p.schema.allEnums(), func(e enumValue) bool {
			// "the panoramic roof", "the home charger" (the "charge" package)
			return e.isStr && (strings.EqualFold(e.str, toks[i].raw) || sayValue(toks[i:i+1], e))
		})
	})
}

// dayWords are words of dates and times, never an item's name.
var dayWords = wordSet(calendarList + " am pm week weekend next summer spring autumn holidays vacation")

// ordinary reports a word of requests, bounds, rankings or dates: no item's or person's name.
func ordinary(w string) bool {
	return stopWords[w] || cueWordSet[w] || requestWords[w] || hints[w] != nil || rankWords[w].field != nil ||
		dayWords[w] || peopleWords[w]
}

// peopleWords are the people a visitor brings along, and the bringing: "a test drive with the
// kids", "the whole family is coming" name no item and ask nothing of a tool.
var peopleWords = wordSet(`whole kid kids child children family wife husband partner son daughter friend mom mum dad parent baby spouse grandson granddaughter grandchild grandchildren grandma grandpa grandmother grandfather grandparent coming bringing along`)

// elsewhere takes a request nothing here clearly does to the page that may: the navigation
// tool whose words it has ("per month": financing), else, when no tool here has any of its
// words, the site's list of items. A question about the item on screen stays here.
func (c *conv) elsewhere(toks []token, ps []*plan, pronoun bool) (intent, bool) {
	// "im free tmrw afternoon" where no tool takes a day: the page that books; "what's the
	// weather like tomorrow" asks of a thing the site never named: its day books nothing.
	isDay := func(t token) bool { return t.kind == kindDate || calendarWords[t.norm] || relDayRe.MatchString(t.raw) }
	day := slices.ContainsFunc(toks, isDay)
	if day && wordAt(toks, 0, "what", "what's", "whats", "how", "how's", "hows") && slices.ContainsFunc(toks, func(t token) bool {
		return t.kind == kindWord && !isDay(t) && t.raw == t.norm && c.unseen(t.norm)
	}) {
		toks, day = slices.DeleteFunc(slices.Clone(toks), isDay), false
	}
	if p := c.navMatch(toks, ps); p != nil {
		return c.goTo(p.def), true
	}
	if i := slices.IndexFunc(c.tools, func(t chat.ToolDef) bool {
		return navTool(t) && !c.calledThisTurn(t.Name, false) && slices.ContainsFunc(whereWords(t), func(w string) bool { return normWord(w) == "book" || w == "booking" })
	}); day && !c.hasParam(dateKind.wants) && i >= 0 {
		return c.goTo(c.tools[i]), true
	}
	// "the cheapest suv you have", "any electric cars under 45k" on a page that lists nothing
	_, _, at, ranks := rankOf(toks)
	// ("whats the cheapest sedan" on a car's page, not "… trim": a kind of thing no tool here takes)
	kind := ranks && c.lister() == nil && at+1 < len(toks) && toks[at+1].kind == kindWord && !wordAt(toks, at+1, "one", "ones") && !stopWords[toks[at+1].norm] &&
		!c.hasParam(func(p *property) bool { return nounOf(toks[at+1], p) })
	ranks = ranks || slices.ContainsFunc(toks, func(t token) bool { return t.kind == kindNumber && t.money })
	if pronoun || c.reread || !seeksThings(toks) && !(ranks && (ofAll(toks) || kind)) || slices.ContainsFunc(ps, func(p *plan) bool {
		m, _ := c.coverage(p, toks)
		return p.score > 0 && m > 0 && !navTool(p.def) && !(ranks && c.lister() == nil)
	}) {
		return intent{}, false
	}
	return c.hub()
}

// navMatch is the best navigation tool (not the hub) with words of the request not yet called.
func (c *conv) navMatch(toks []token, ps []*plan) *plan {
	for _, p := range ps {
		if p.score <= 0 || !navTool(p.def) || hubTool(p.def) || c.calledThisTurn(p.def.Name, false) {
			continue
		}
		// A word of the request names where it goes, or suggests it ("monthly": financing).
		if m, _ := c.coverage(p, toks); m > 0 && hitsWord(toks, whereWords(p.def), len(toks)) {
			return p
		}
	}
	return nil
}

// whereWords name where navigation tool t goes: its name's and description's words before
// "for" ("Go to the test-drive booking page for this car"), without words of going.
func whereWords(t chat.ToolDef) []string {
	where, _, _ := strings.Cut(strings.ToLower(t.Description), " for ")
	return slices.DeleteFunc(append(identWords(t.Name), identWords(where)...), func(w string) bool {
		return len(w) < 3 || stopWords[w] || goingWords[w]
	})
}

// goingWords ask to go somewhere.
var goingWords = rawSet(`go back return head take bring get me us please now again visit open page car`)

// goingTo is the call of the navigation tool a request names in words of going only ("take me
// back to the list"): it goes without a question.
// A page is also named by the tools used there: "back to the form" is where the form was
// filled (fill_form_data, after go_to_test_drive).
func (c *conv) goingTo(toks []token) (intent, bool) {
	return c.firstNav(func(t chat.ToolDef) bool {
		if goesTo(t, toks) || hubTool(t) && c.anotherItem(toks) {
			return true
		}
		used := c.usedAfter(t.Name)
		return onlyGoing(toks, func(w string) bool { return len(w) > 2 && used[w] })
	})
}

// anotherItem reports a request for another item than the one on screen, in words of going,
// changing and the item's noun only: "i want a different car", "can i change the car?".
func (c *conv) anotherItem(toks []token) bool {
	noun := c.openedNoun()
	has := func(set func(w string) bool) bool {
		return slices.ContainsFunc(toks, func(t token) bool { return set(t.norm) })
	}
	isNoun := func(w string) bool { return noun != "" && (w == noun || w == noun+"s") }
	return has(isNoun) && has(func(w string) bool { return changeWords[w] }) && onlyGoing(toks, func(w string) bool {
		return changeWords[w] || isNoun(w) || w == "show"
	})
}

// changeWords ask for another item than this one.
var changeWords = rawSet(`another other different change switch swap`)

// usedAfter are the words of the tools called on the pages navigation tool nav went to.
func (c *conv) usedAfter(nav string) map[string]bool {
	out, there := map[string]bool{}, false
	for _, k := range c.calls {
		if navTool(c.toolDef(k.name)) {
			there = k.name == nav
		} else if there {
			for _, w := range identWords(k.name) {
				out[w] = true
			}
		}
	}
	return out
}

// goesTo reports a request made only of words of going and of where t goes, with one of
// those: "back to the list" for back_to_inventory.
func goesTo(t chat.ToolDef, toks []token) bool {
	where := whereWords(t)
	return onlyGoing(toks, func(w string) bool { return slices.Contains(where, w) || hubTool(t) && hubWords[w] })
}

// onlyGoing reports words of going and of a place (where), with one of the place's.
func onlyGoing(toks []token, where func(w string) bool) bool {
	named := false
	for _, tk := range toks {
		switch {
		case tk.kind == kindWord && where(tk.norm): // (before the words of going: "car" of "back to the car page" on it)
			named = true
		case tk.kind == kindPunct || tk.kind == kindWord && (stopWords[tk.norm] || goingWords[tk.norm] || correctionWords[tk.norm]): // ("no wait, …")
		default:
			return false
		}
	}
	return named
}

// goVerbs ask to go: the words of going that are no place.
var goVerbs = rawSet(`go back return head take bring visit`)

// goesHere reports a request to go to the page the visitor is on: words of going and words of
// this page's own tools only ("back to the calculator" on the financing calculator, "take me
// to the test drive page" on the booking form), where no navigation tool here goes.
func (c *conv) goesHere(toks []token) bool {
	if c.reread || !slices.ContainsFunc(toks, func(t token) bool { return isWord(t, goVerbs) }) || anyNorm(toks, "take") && anyNorm(toks, "off", "out") {
		return false // (not "take the packages off")
	}
	var own []string
	for _, t := range c.tools {
		if navTool(t) && goesTo(t, toks) {
			return false
		} else if !navTool(t) {
			own = append(own, whereWords(t)...)
		}
	}
	list := c.lister() != nil                                                         // "back to the list" on the list
	item := c.onItsPage() && c.lister() == nil && slices.ContainsFunc(c.tools, reads) // "back to the car page" on it
	noun := c.thisNoun()
	item = item && !slices.ContainsFunc(toks, func(t token) bool { return t.norm == noun && strings.ToLower(t.raw) != noun }) // not "back to all the cars"
	return onlyGoing(toks, func(w string) bool {
		return list && hubWords[w] || item && (w == noun || w == "its") || slices.ContainsFunc(own, func(o string) bool { return wordsMatch(w, o) }) // ("take me to its page" there)
	})
}

// seekWords ask to see or find things: the site's list is where they are.
var seekWords = wordSet(listVerbText + " any find looking search compare got") // ("what other trucks u got")

// seeksThings reports a word of seeking and things in the plural ("any pickups?", "what other
// suvs do you have?") or a ranking ("the cheapest suv you have"), not a service ("do you offer
// home delivery?").
func seeksThings(toks []token) bool {
	some := anyNorm(toks, "something", "anything") // "anything cheaper?", "something more practical, like an SUV"
	seek := some || slices.ContainsFunc(toks, func(t token) bool { return isWord(t, seekWords) })
	plural := slices.ContainsFunc(toks, func(t token) bool {
		w := strings.ToLower(t.raw)
		return t.kind == kindWord && !stopWords[w] && !seekWords[t.norm] && len(w) > 3 && stem(w) != w
	})
	// "what's the cheapest suv you have": a ranking of things
	rank := slices.ContainsFunc(toks, func(t token) bool { return rankWords[t.norm].field != nil })
	return seek && (plural || rank || some)
}

// pronounIn reports "it", "this one", "that car": the item on screen.
func pronounIn(toks []token) bool {
	for i, t := range toks {
		w := strings.ToLower(t.raw)
		demonstrative := (w == "this" || w == "that") &&
			(i+1 == len(toks) || toks[i+1].kind == kindWord && !dayWords[toks[i+1].norm]) // not "this Sunday"
		if w == "it" || w == "its" || demonstrative {
			return true
		}
	}
	return false
}

// pageRe finds the page the agent's instructions say the visitor is on: the web page
// "Title" (URL) (agentsvc's systemPrompt and pageNote write it, the title Go-quoted).
var pageRe = regexp.MustCompile(`web page ("(?:[^"\\]|\\.)*") \((\S+)\)`)

// pageOf is the page the instructions (the first system message) name last; nil when none.
func pageOf(msgs []chat.Message) (title string, u *url.URL) {
	i := slices.IndexFunc(msgs, func(m chat.Message) bool { return m.Role == chat.RoleSystem })
	if i < 0 {
		return "", nil
	}
	found := pageRe.FindAllStringSubmatch(msgs[i].Content, -1)
	if len(found) == 0 {
		return "", nil
	}
	title, err := strconv.Unquote(found[len(found)-1][1])
	u, err2 := url.Parse(found[len(found)-1][2])
	if err != nil || err2 != nil {
		return "", nil
	}
	return title, u
}

// openPage makes the item the page's address names ("test-drive.html?id=c01") the item on
// screen when the conversation's calls opened another or none: the visitor came by a link. It
// is recorded as an opening call (page) before the calls made on this page since.
func (c *conv) openPage(msgs []chat.Message) {
	title, u := pageOf(msgs)
	if u == nil || c.lastUser < 0 {
		return
	}
	var last call // the conversation's last opening call
	for k := range c.earlierCalls {
		if openedID(k) != "" {
			last = k
			break
		}
	}
	q := u.Query()
	for _, key := range slices.Sorted(maps.Keys(q)) {
		// An id-like key ("id", "carId", "sku"; not a campaign's utm_id, a referrer's ref or a
		// sign-in's code) whose value is an item seen or written like an id ("c01").
		id := q.Get(key)
		itemKey := idKeyLike.MatchString(key) && !notItemKey.MatchString(key)
		if itemKey && id != "" && (c.now.items[id] != nil || idRe.MatchString(id)) {
			if id != openedID(last) {
				c.insertPageCall(c.pageCall(last, key, id))
			} else if c.now.items[id] != nil {
				return
			}
			// Named by the page's title until a result names it: "Test drive: 2023 Toyota RAV4 — Shop"
			name := strings.TrimSpace(titleSepRe.Split(title, 2)[0])
			if _, after, ok := strings.Cut(name, ": "); ok {
				name = after
			}
			c.page = cmp.Or(c.now.items[id], newItem(id, cmp.Or(name, id)))
			if t := tokenize(c.page.name); len(c.page.nums) == 0 && len(t) > 1 && t[0].yearLike() {
				c.page.nums["year"] = t[0].value // "2022 Toyota Camry": a model's year leads its name
			}
			return
		}
	}
}

// addressPrice is the price the page's address gives a price parameter of a tool here
// ("financing.html?id=c01&price=31990" of calculate_payment's price), or 0.
func (c *conv) addressPrice() float64 {
	_, u := pageOf(c.msgs)
	if u == nil {
		return 0
	}
	q := u.Query()
	for _, key := range slices.Sorted(maps.Keys(q)) {
		v, err := strconv.ParseFloat(q.Get(key), 64)
		if err != nil || v <= 0 || !slices.ContainsFunc(c.tools, func(t chat.ToolDef) bool {
			return slices.ContainsFunc(parseSchema(t.Parameters).props, func(p *property) bool {
				return strings.EqualFold(p.name, key) && moneyParam(p) && hasWord(p, "price")
			})
		}) {
			continue
		}
		return v
	}
	return 0
}

// screenItem is the item on screen as the results know it: the one opened last, or the
// page's own; nil when neither is known.
func (c *conv) screenItem() *item { return cmp.Or(c.now.items[c.onScreen()], c.pageItem()) }

// pageItem is the item of the page the visitor came to by a link, as the results know it, or
// nil.
func (c *conv) pageItem() *item {
	if c.page == nil {
		return nil
	}
	return cmp.Or(c.before.items[c.page.id], c.now.items[c.page.id], c.page)
}

// pageCall is the opening call of item id, named as the conversation's last opening call
// was, or as this page's opener (select_car {carId}), or as its tools call the item ("for this
// car": open_car {carId}), or by the address's key.
func (c *conv) pageCall(last call, key, id string) call {
	name, arg := "open", key
	var args map[string]any
	if json.Unmarshal([]byte(last.args), &args) == nil && len(args) == 1 {
		name, arg = last.name, slices.Collect(maps.Keys(args))[0]
	} else if i := slices.IndexFunc(c.tools, opener); i >= 0 {
		name = c.tools[i].Name
		for _, p := range parseSchema(c.tools[i].Parameters).props {
			if single, _ := idParam(p); single {
				arg = p.name
			}
		}
	} else if n := c.thisNoun(); n != "" {
		name, arg = "open_"+n, n+"Id"
	}
	b, _ := json.Marshal(map[string]string{arg: id})
	return call{name: name, args: string(b), done: true, page: true}
}

// insertPageCall puts the page's opening call k before this turn's calls and the earlier
// calls of this page's tools (the form filled there).
func (c *conv) insertPageCall(k call) {
	at := slices.IndexFunc(c.calls, func(k call) bool { return k.at > c.lastUser })
	if at < 0 {
		at = len(c.calls)
	}
	for at > 0 && c.offers(c.calls[at-1].name) {
		at--
	}
	if at > 0 {
		k.at = c.calls[at-1].at
	}
	c.calls = slices.Insert(c.calls, at, k)
}

// thisNoun is what the page's tools call the item the page is about: "car" of "Go to the
// financing calculator for this car."; "" when they say no "this".
func (c *conv) thisNoun() string {
	for _, t := range c.tools {
		if m := thisNounRe.FindStringSubmatch(strings.ToLower(t.Description)); m != nil {
			return m[1]
		}
	}
	return ""
}

// notItemKey is an id-like address key that names no item of the page.
var notItemKey = regexp.MustCompile(`(?i)^(utm.*|ref|reference|code)$`)

// titleSepRe separates a page's own title from the site's name.
var titleSepRe = regexp.MustCompile(` [—–|-] `)

// thisNounRe finds the noun after "this" in a tool's description.
var thisNounRe = regexp.MustCompile(`\bthis ([a-z]{3,})\b`)
