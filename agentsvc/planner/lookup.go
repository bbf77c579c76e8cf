package planner

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/byomcp/byomcp/agentsvc/chat"
)

// lookup is what the planner knows of a request that names items it has not seen ("open the
// RAV4" before any list), decided once (lookupOf): the reply that the names are not listed,
// or the plan that lists the items to learn their names first, read it.
type lookup struct {
	said    string   // the request, read again once the names are known
	id      string   // an item's id said writes in place of its name, not known before (the item left)
	unknown []string // its words that no tool knows: the names
	l       *plan    // the page's listing tool
	seen    int      // how many items l's whole list (no arguments) had, 0 when not seen
	verb    bool     // the request says the verb of the tool that takes the names ("compare …")
	// back gives l's list the filters the visitor had before this turn on this page; nil
	// when none, when a later tool cleared or reset them, or another page's tool ran since.
	back *plan
}

// unknownNames handles names the conversation has not seen yet: it lists the page's items
// first, then resolves; or says the name is not on the page's whole list.
func (c *conv) unknownNames(r *reading) (intent, bool) {
	switch lk := c.lookupOf(r); {
	case lk != nil && lk.seen > 0: // every name of the page's list is known
		return c.notListed(lk), true
	case lk != nil && r.lookup && !c.prose(r.toks2):
		return lk.intent(), true
	}
	return intent{}, false
}

// haveAsk asks whether the site has something: "do you have a civic", "got any civics?",
// "any civics?".
var haveAsk = regexp.MustCompile(`(?i)^\s*(?:(?:(?:do|does)\s+)?(?:you|u|they)\s+(?:have|hv|got|carry|sell|stock)|(?:you\s+)?got|any)\b`)

// lookupOf is the lookup of a request for a tool that takes item ids with words no tool
// knows, when the page has a listing tool; nil for any other request.
func (c *conv) lookupOf(r *reading) *lookup {
	if r.best != nil && !wantsIDs(r.best) && slices.ContainsFunc(r.best.schema.props, func(p *property) bool { return refParam(p) && r.best.values[p.name] != nil }) {
		return nil // "cancel my appointment AP-7731": a reference the best tool takes, no item's name
	}
	i := slices.IndexFunc(r.ps, wantsIDs)
	if i < 0 {
		i = slices.IndexFunc(r.ps, c.nameForID)
	}
	modelName := func(w string) bool { return strings.ContainsAny(w, "0123456789 ") } // "CX-5", "the Model Y"
	if l := c.lister(); i < 0 && r.question && l != nil {
		// "how much more is the Model Y than the Ioniq 5?": a model's name in a question of
		// the list's items
		if k := slices.IndexFunc(r.ps, func(p *plan) bool { return p.def.Name == l.def.Name }); k >= 0 && slices.ContainsFunc(c.unknownWords(r.toks2, r.ps[k]), modelName) {
			i = k
		}
	}
	// "camry blue how much", "camry price": a name typed first, lower case, before values
	bareName := ""
	if c.lister() != nil {
		bareName = c.bareOther(r.said, r.toks)
	}
	bare := bareName != ""
	if bare && i < 0 {
		i = slices.IndexFunc(r.ps, func(p *plan) bool { return p.def.Name == c.lister().def.Name })
	}
	if i < 0 {
		return nil
	}
	p := r.ps[i]
	lk := &lookup{said: r.said, unknown: c.unknownWords(r.toks2, p), l: c.lister(), verb: saysVerb(r.toks, p.def)}
	if bare && !slices.Contains(lk.unknown, bareName) {
		lk.unknown = append(lk.unknown, bareName) // (a word a tool's is near: "camry" of "car")
	}
	if haveAsk.MatchString(r.said) { // "do you have a civic": the word after "a" or "any" is a name
		for k, t := range r.toks2 {
			if t.kind == kindWord && k > 0 && wordAt(r.toks2, k-1, "a", "an", "any") && len(t.norm) > 2 && !ordinary(t.norm) && !c.vocab[t.norm] &&
				!slices.Contains(lk.unknown, t.raw) {
				lk.unknown = append(lk.unknown, t.raw)
			}
		}
	}
	// "open the BMW 330i": the filter for BMWs matches clearly, but a model's name is more.
	model := bare || slices.ContainsFunc(lk.unknown, modelName) ||
		slices.ContainsFunc(r.toks, func(t token) bool { return opensFirst[t.norm] }) || // "see the ford mustang"
		len(lk.unknown) > 1 && lk.verb || // "compare the Toyota Camry and the Honda Civic": models, not a make
		choiceOfTwo(r) || // "which is cheaper, the civic or the corolla": a choice of two, not a sort
		c.reread && len(lk.unknown) > 0 || // "what about the ioniq in white?" brought here from a car's page for another car
		slices.ContainsFunc(lk.unknown, func(w string) bool { return theName(r.toks2, w) }) || // "I want the Odyssey in blue"
		slices.ContainsFunc(r.toks2, func(t token) bool { // "honda civic": a model after its make
			return t.kind == kindWord && slices.Contains(lk.unknown, t.raw) && wordAt(r.toks2, 1, t.raw) && r.best != nil && len(r.best.values) == 1 &&
				slices.ContainsFunc(slices.Collect(maps.Values(r.best.values)), func(v any) bool { return strings.EqualFold(fmt.Sprint(v), r.toks2[0].raw) })
		})
	if !wantsIDs(r.best) && c.clearMatch(r.best, r.toks2, r.question) && !model {
		return nil
	}
	// A name is looked up when the request asks something of it: an action ("book a test drive
	// of the camry"), words of a tool here ("how much is the civic"), values, or a model's
	// spelling; "what's the weather?" is no request about an item.
	asks := p.score > 0 || len(r.plain) > 0 && r.plain[0].score > 0 || r.numbers || perMonth(r.toks) ||
		slices.ContainsFunc(lk.unknown, nameLike) || asksOf(r.toks) || !r.question && c.nameAlone(r.text) ||
		haveAsk.MatchString(r.said) || // "do you have any civics", "any civics?"
		c.reread && c.opensOnOther(r.text, r.toks) // "and the ioniq with the limited trim?" brought here from a car's page
	if len(lk.unknown) == 0 || lk.l == nil || !asks {
		return nil
	}
	name := lk.l.def.Name
	for _, k := range c.calls {
		// Before the lookup, an unfiltered listing of an earlier turn; after it (r.lookup
		// false), this turn's too.
		earlier := c.lastUser < 0 || k.at < c.lastUser
		if k.done && k.name == name && noArguments(k.args) && (earlier || !r.lookup) {
			if n := len(remember([]chat.Message{{Role: chat.RoleTool, Content: k.result}}).last); n > 0 {
				lk.seen = n
			}
		}
	}
	for k := range c.earlierCalls {
		if k.name == name {
			lk.back = argsPlan(lk.l.def, lk.l.schema, k.args)
			break
		}
		ws := identWords(k.name)
		if !c.offers(k.name) || slices.Contains(ws, "clear") || slices.Contains(ws, "reset") {
			break
		}
	}
	return lk
}

// theName reports a word written with a capital after "the", inside the sentence: a name ("I
// want the Odyssey in blue").
func theName(toks []token, w string) bool {
	for i, t := range toks {
		if i > 0 && t.kind == kindWord && t.raw == w && unicode.IsUpper([]rune(w)[0]) && wordAt(toks, i-1, "the") {
			return true
		}
	}
	return false
}

// notListed says that the page's whole list does not have the names. When this turn listed
// everything to look them up, it first gives the list back its filters (the visitor's search
// stays).
func (c *conv) notListed(lk *lookup) intent {
	name := strings.Join(lk.unknown, " ")
	low := strings.ToLower(lk.said) // the name as written: "mercedes c-class"
	if i, j := strings.Index(low, lk.unknown[0]), strings.LastIndex(low, lk.unknown[len(lk.unknown)-1]); i >= 0 && j >= i && j-i < 40 {
		name = lk.said[i : j+len(lk.unknown[len(lk.unknown)-1])]
	}
	there := "There is no "
	if last := strings.ToLower(lk.unknown[len(lk.unknown)-1]); stem(last) != last {
		there = "There are no " // "do you have any porsches"
	}
	reply := there + name + " among the " + strconv.Itoa(lk.seen) + " " + listNoun(lk.l.def.Name, lk.seen) + " here."
	if !slices.ContainsFunc(lk.unknown, nameLike) && !lk.verb && !haveAsk.MatchString(lk.said) { // ("compare it with the mercedes", "do you have a porsche" name one)
		reply = c.deadEnd() // "what's the warranty?": no name, only a word it does not know
	}
	if c.personName(lk.said) {
		reply += " If that is your name, I'll fill it in when a form asks for it." // contactsSaid
	}
	if lk.back == nil || !c.calledThisTurn(lk.l.def.Name, true) {
		return intent{reply: reply}
	}
	return intent{
		steps: func(*conv) []*plan { return []*plan{lk.back} },
		final: func(*conv) string { return reply + " Your search is as it was." },
	}
}

// intent calls the listing tool, then understands the request again with the names it
// returned, without another lookup. When the plan then acts on the same page (it opens no
// other page and lists nothing itself), the list first gets back its filters (lk.back): the
// visitor's search stays as it was.
func (lk *lookup) intent() intent {
	after := func(c *conv) (in intent, sub *conv, back []*plan) {
		// What the lookup showed, not what later steps returned: the plan must not change
		// under its own feet.
		mem := c.now
		if end := c.start + 2; c.lastUser >= 0 && end <= len(c.msgs) {
			mem = remember(c.msgs[:end])
		}
		s := *c
		s.before = mem
		said := lk.said
		if it := mem.items[lk.id]; lk.id != "" && it != nil && it.name != "" {
			said = strings.Replace(said, lk.id, theTitle(it), 1)
		}
		in = s.understand(said, false)
		s.done = nil
		first := in.first(&s)
		if lk.back != nil && first != nil && first.def.Name != lk.l.def.Name && !opener(first.def) &&
			!first.opens {
			back = []*plan{lk.back}
		}
		s.done = c.done[min(1+len(back), len(c.done)):]
		return in, &s, back
	}
	return intent{
		steps: func(c *conv) []*plan {
			if len(c.done) > 0 {
				if in, sub, back := after(c); in.steps != nil {
					return append(append([]*plan{lk.l}, back...), in.steps(sub)...)
				} else if lk.back != nil {
					return []*plan{lk.l, lk.back} // answered from the whole list: the visitor's search stays
				}
			}
			return []*plan{lk.l}
		},
		final: func(c *conv) string {
			in, sub, _ := after(c)
			switch {
			case in.steps == nil:
				return in.reply
			case in.final != nil:
				return in.final(sub)
			}
			return c.summary()
		},
	}
}

// saysVerb reports a request that says the first word of the tool's name: "compare …" of
// compare_cars. Narrower than nameHit, which also counts any word of the name and the words
// that hint at one ("side by side" at compare, "booking" at fill_booking).
func saysVerb(toks []token, t chat.ToolDef) bool {
	ws := identWords(ownName(t.Name))
	return len(ws) > 0 && anyNorm(toks, normWord(ws[0]))
}
