package planner

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/byomcp/byomcp/agentsvc/chat"
)

// monthWords say a monthly payment: "per month", "monthly payment".
var monthWords = rawSet(`per monthly payment payments month`)

// ranking plans "cheapest electric car", "the two newest SUVs", "compare the two cheapest",
// "open the cheapest hybrid": filter with the rest of the words, sort by the ranked field,
// then name the winners or hand them to the tool that wants ids.
func (c *conv) ranking(text string, toks []token, o order, n, at int) (intent, bool) {
	sorter := c.sortPlan(o)
	// The words without the ranking: "electric car" of "cheapest electric car".
	from, to := at, at+1
	for wordAt(toks, from-1, "most", "least", "the") { // "the most expensive"
		from--
	}
	if from > 0 {
		if _, isCount := countWord(toks[from-1]); isCount {
			from--
		}
	}
	if to < len(toks) && (slices.Contains(mileWords, toks[to].norm) || o.field != nil && slices.Contains(o.field.words, toks[to].norm)) {
		to++ // "fewest miles", "best rated"
	}
	rest := text[:toks[from].start] + " " + text[toks[to-1].end:]
	rtoks := tokenize(rest)
	var filter, target *plan
	opens := anyNorm(rtoks, "open")
	plans := rankPlans(rest, c.tools)
	for _, p := range plans {
		if target == nil && wantsIDs(p) && (p.score >= threshold && c.nameHit(p, rtoks) || opens && opener(p.def)) {
			target = p // "open the cheapest": the words left may be too few to score
		}
	}
	// "what would the cheapest suv be a month": its page, then its calculator (goOn)
	monthly := target == nil && perMonth(toks)
	if i := slices.IndexFunc(plans, func(p *plan) bool { return opener(p.def) }); monthly && i >= 0 {
		target = plans[i]
	}
	// The filter is read without the target's words: "suvs" of "the two cheapest suvs side by side".
	ftoks := slices.Clone(rtoks)
	count, least := max(n, 1), 1 // least: the fewest ids the target takes
	if target != nil {
		hs := hintsOf(rtoks)
		for i, t := range ftoks {
			if target.vocab[t.norm] > 0 || slices.ContainsFunc(hs[i], func(h hint) bool { return target.vocab[h.word] > 0 }) {
				ftoks[i].kind = kindPunct
			}
		}
		for _, prop := range target.schema.props {
			if _, list := idParam(prop); list {
				least = 2
				if prop.schema.minItems != nil {
					least = max(*prop.schema.minItems, 1)
				}
				if n == 0 {
					count = least
				}
			}
		}
	}
	// "compare it with the cheapest electric" after the cheapest hybrid: "it", and the one ranked
	var with *item
	if least >= 2 && n == 0 {
		with = c.pronounRef(toks)
	}
	if monthly { // "the cheapest tesla per month over 60 months": the filter is "tesla"
		for i, t := range ftoks {
			figure := t.kind == kindNumber && (t.percent || wordAt(ftoks, i+1, "month", "year", "down", "apr"))
			if figure || monthWords[t.norm] || t.kind == kindWord && wordAt(ftoks, i+1, "month") || i > 0 && ftoks[i-1].kind == kindNumber && wordAt(ftoks, i, "month", "year", "down", "apr") {
				ftoks[i].kind = kindPunct
			}
		}
	}
	// The best plan, or the list's when the target's words outrank it ("side by side"), when
	// it filters clearly.
	i, lister := 0, c.lister()
	if lister != nil && target != nil && len(plans) > 0 && plans[0].def.Name == target.def.Name {
		i = slices.IndexFunc(plans, func(p *plan) bool { return p.def.Name == lister.def.Name })
	}
	if i >= 0 && i < len(plans) {
		if p := plans[i]; p.score >= threshold && len(p.missing) == 0 && len(p.values) > 0 && !isOrdering(p) &&
			!wantsIDs(p) && c.clearMatch(p, ftoks, false) {
			filter = p
		}
	}
	// static are the calls before the winners are known.
	static := slices.DeleteFunc([]*plan{filter, sorter}, func(p *plan) bool { return p == nil })
	// A word the items seen last have no value of: "suvs" of "the two cheapest suvs" after a
	// list of electric cars is for the site's list, where it can filter.
	seen := func(w string) bool {
		return genericNameWords[w] || itemNouns[w] || slices.ContainsFunc(c.before.last, func(it *item) bool {
			for _, vs := range it.attrs {
				if slices.ContainsFunc(vs, func(v string) bool { return slices.Contains(identWords(v), w) }) {
					return true
				}
			}
			return false
		})
	}
	// Nothing to call and nothing seen to rank, or words the items seen do not have, and no
	// list to ask.
	if len(static) == 0 && lister == nil && (len(c.before.last) == 0 || slices.ContainsFunc(contentWords(rest), func(w string) bool { return !seen(w) })) {
		return intent{}, false
	}
	if len(static) == 0 && len(c.before.last) == 0 {
		static = append(static, lister)
	}
	listed := func(c *conv) []*item {
		if len(c.done) == 0 {
			return c.before.last
		}
		return c.now.last
	}
	winners := func(c *conv) []*item {
		list := listed(c)
		if filter == nil { // "the best rated kettle under 50" where no filter takes a price: of those it fits
			lo, hi := priceBounds(rtoks)
			list = slices.DeleteFunc(slices.Clone(list), func(it *item) bool {
				v, ok := it.num(priceField.keys...)
				return ok && (v < lo || v > hi)
			})
		}
		r := ranked(list, o)
		if len(r) == 0 && sorter != nil && len(c.done) > 0 {
			// The results do not carry the field, but the page sorted by it.
			r = list
		}
		return r[:min(count, len(r))]
	}
	noun := c.rankNoun(toks, from, to)
	// "cheapest awd" where no filter knows "awd": of all of them, and said so (not "The cheapest
	// awd is …")
	unknown := ""
	if filter == nil && target == nil && lister != nil && noun != "one" {
		for _, w := range strings.Fields(noun) {
			if nw := normWord(w); !c.vocab[nw] && !genericNameWords[nw] && !itemNouns[nw] && !ordinary(nw) && nw != stem(listNoun(lister.def.Name, 2)) {
				unknown = w
				break
			}
		}
	}
	if unknown != "" {
		noun = listNoun(lister.def.Name, 1)
	}
	ask := "" // the question for what the target still needs ("book the cheapest room": a date)
	in := intent{
		steps: func(c *conv) []*plan {
			var p *plan
			if w := winners(c); target != nil && len(c.done) >= len(static) && len(w) >= least {
				if with != nil {
					w = append([]*item{with}, slices.DeleteFunc(slices.Clone(w), func(it *item) bool { return it == with })[:least-1]...)
				}
				p = withIDs(target, w)
			}
			if p == nil {
				return static
			}
			p.opens = p.opens || monthly
			for _, prop := range p.schema.props {
				if _, set := p.values[prop.name]; !set && needsValue(prop) {
					p.missing = append(p.missing, prop)
				}
			}
			if len(p.missing) > 0 {
				ask = c.askMissing(p, c.text).reply
				return static
			}
			return append(slices.Clip(static), p)
		},
		final: func(c *conv) string {
			w := winners(c)
			var parts []string
			asked, _ := questionField(toks) // "whats the mileage on the cheapest": its mileage too
			for _, it := range w {
				part := theTitle(it) + rankDetail(o, it, c.now.money)
				if asked != nil && asked != o.field {
					part += rankDetail(order{field: asked}, it, c.now.money)
				}
				parts = append(parts, part)
			}
			only := "" // how many match when fewer than asked do ("compare the two cheapest": one)
			if only = c.onlyMatch(len(w)); len(w) >= count {
				only = ""
			} else if len(w) == 1 {
				only = strings.TrimSuffix(only, ".") + ": " + parts[0] + "."
			}
			plural := n == 0 && strings.HasSuffix(noun, "s") && !strings.HasSuffix(noun, "ss")
			other := "" // the other end asked too: "the cheapest and the most expensive"
			if len(w) == 1 && target == nil {
				other = bothEnds(c, toks, at, o, w[0], listed(c))
			}
			switch {
			case target != nil && len(c.done) > len(static):
				return strings.TrimSpace(only + " " + c.summary())
			case target != nil && len(w) > 0 && len(w) < least:
				return only + " That is too few to " + c.describe(target) + " (it takes " + strconv.Itoa(least) + ")."
			case len(w) == 0 && noun == "one":
				return "Nothing matches right now."
			case len(w) == 0:
				return "No " + noun + map[bool]string{true: " match", false: " matches"}[plural] + " right now."
			case only != "" && len(w) == 1:
				return only // "the 5 cheapest minivans" where there is one
			case len(w) == 1 && plural && target == nil && len(c.done) > 0:
				// "show me cheaper cars": the list in that order, not one car named as "the cars"
				return c.summary()
			case other != "":
				return "The " + o.what + " " + noun + " is " + parts[0] + "; " + other
			case len(w) == 1 && target == nil && count == 1 && len(tiedWith(listed(c), o, w[0])) > 1:
				// "the newest car" where six are 2023: all of them, not the first listed
				tied := tiedWith(listed(c), o, w[0])
				v, _ := w[0].num(o.field.keys...)
				named := titles(tied[:min(4, len(tied))])
				if len(tied) > 4 {
					named = named[:3]
					named = append(named, strconv.Itoa(len(tied)-3)+" more")
				}
				return fmt.Sprintf("%d are the %s, all %s: %s.", len(tied), o.what, o.field.value(v, c.now.money), joinList(named, "and"))
			case len(w) == 1:
				return strings.TrimSpace("The " + o.what + " " + noun + " is " + parts[0] + ". " + ask)
			}
			// "the 4 cheapest hybrids" of three: "Only 3 cars match. The 3 cheapest are …"
			return strings.TrimSpace(only + " The " + strconv.Itoa(len(w)) + " " + o.what + " are " + joinList(parts, "and") + ". " + ask)
		},
	}
	if say := in.final; unknown != "" {
		in.final = func(c *conv) string {
			if len(winners(c)) == 0 {
				return say(c)
			}
			return "Nothing here tells which " + listNoun(lister.def.Name, 2) + " are " + unknown + "; of all of them: " + lowerFirst(say(c))
		}
	}
	return in, true
}

// itemNouns name any item of a list, whatever it lists: "the cheapest place", "the cheapest
// model", "the cheapest ticket" (no kind of item that nothing here tells).
var itemNouns = wordSet(`place flat home unit model vehicle ride thing option pick spot listing property ticket fare deal offer`)

// tiedWith are the items of list whose field of the ranking o is the same as first's.
func tiedWith(list []*item, o order, first *item) []*item {
	v, ok := first.num(o.field.keys...)
	return slices.DeleteFunc(ranked(list, o), func(x *item) bool { w, has := x.num(o.field.keys...); return !ok || !has || w != v })
}

// bothEnds says the other end of the ranking that the words also ask for ("the cheapest and
// the most expensive"), first being the one end, and the difference when they ask it: "the most
// expensive is the …, at $46,990: a difference of $25,090."; "" when they ask for none.
func bothEnds(c *conv, toks []token, at int, o order, first *item, list []*item) string {
	o2 := otherEnd(toks, at, o)
	if o2 == nil {
		return ""
	}
	e := ranked(list, *o2)
	if len(e) == 0 || e[0] == first {
		return ""
	}
	s := "the " + o2.what + " is " + theTitle(e[0]) + rankDetail(*o2, e[0], c.now.money)
	if asksDifference(toks) {
		s += difference(o.field, first, e[0], c.now.money)
	}
	return s + "."
}

// otherEnd is the ranking of the same field the other way that the words say besides the one
// at at ("the cheapest and the most expensive"); nil when they say none.
func otherEnd(toks []token, at int, o order) *order {
	for i, t := range toks {
		if e, ok := rankWords[t.norm]; ok && i != at && t.kind == kindWord && e.field == o.field && e.desc != o.desc {
			return &e
		}
	}
	return nil
}

// needsValue reports a required parameter that has no single value nor a default to take.
func needsValue(p *property) bool {
	return p.required && len(p.schema.enum) != 1 && len(p.schema.def) == 0
}

func rankDetail(o order, it *item, money moneyStyle) string {
	if v, ok := it.num(o.field.keys...); ok && o.field.detail != "" {
		return o.field.detail + o.field.value(v, money)
	}
	return ""
}

// rankNoun is what the ranking of toks[from:to] is about, as the visitor wrote it: the words
// after it ("electric car"), else up to three of the tools' words before it, else "one".
func (c *conv) rankNoun(toks []token, from, to int) string {
	var after, before []string
	for _, t := range toks[to:] {
		if t.kind != kindWord || stopWords[t.norm] || cueWordSet[t.norm] || len(t.norm) < 3 { // "suv u have"
			break
		}
		after = append(after, strings.ToLower(t.raw))
	}
	for _, t := range toks[:from] {
		if f, _ := questionField([]token{t}); t.kind == kindWord && c.vocab[t.norm] && !stopWords[t.norm] && !requestWords[t.norm] && f == nil && // ("the mileage on the cheapest")
			!cueWordSet[t.norm] && !listVerbs[t.norm] && !toolVerbs[t.norm] { // ("I search electric car")
			before = append(before, strings.ToLower(t.raw))
		}
	}
	switch {
	case len(after) > 0:
		return strings.Join(after, " ")
	case len(before) > 0 && len(before) <= 3:
		return strings.Join(before, " ")
	}
	return "one"
}

// withIDs is target with its id parameter set to the items' ids; nil when they do not fit.
func withIDs(target *plan, items []*item) *plan {
	if len(items) == 0 {
		return nil
	}
	p := &plan{def: target.def, schema: target.schema, values: maps.Clone(target.values), score: target.score}
	ids := itemIDs(items)
	for _, prop := range target.schema.props {
		switch single, list := idParam(prop); {
		case single && prop.schema.acceptsString(ids[0]):
			p.values[prop.name] = ids[0]
			return p
		case list && prop.schema.acceptsStrings(ids):
			p.values[prop.name] = ids
			return p
		case single || list:
			return nil
		}
	}
	return nil
}

// sortPlan is a call of the page's ordering tool by the ranked field in its direction, or nil.
func (c *conv) sortPlan(o order) *plan {
	for _, t := range c.tools {
		s := parseSchema(t.Parameters)
		pl := &plan{def: t, schema: s, values: map[string]any{}, score: threshold}
		by := false
		for _, p := range s.props {
			if !p.schema.stringEnum() {
				continue
			}
			vals := texts(p.schema.enum)
			if _, isDir := directions[strings.ToLower(vals[0])]; isDir {
				if i := slices.IndexFunc(vals, func(v string) bool { desc, ok := directions[strings.ToLower(v)]; return ok && desc == o.desc }); i >= 0 {
					pl.values[p.name] = vals[i]
				}
				continue
			}
			for _, k := range o.field.keys {
				if i := slices.IndexFunc(vals, func(v string) bool { return compact(v) == k }); i >= 0 && !by {
					pl.values[p.name], by = vals[i], true
				}
			}
		}
		if by {
			return pl
		}
	}
	return nil
}

// priceBounds are the bounds words put on a price, by their cues (boundCue): 50 of "under 50",
// "less than $50" (hi), 20 of "over 20", "at least 20" (lo); none is 0 and +Inf.
func priceBounds(toks []token) (lo, hi float64) {
	hi = math.Inf(1)
	for i, t := range toks {
		// (not "under 5 years old", "under 30000 miles")
		unit := i+1 < len(toks) && (timeUnits[toks[i+1].norm] || slices.Contains(units[toks[i+1].norm], "mileage") || toks[i+1].norm == "percent")
		if t.kind != kindNumber || t.percent || t.yearLike() || unit {
			continue
		}
		switch boundCue(toks, i) {
		case "max":
			hi = t.value
		case "min":
			lo = t.value
		}
	}
	return lo, hi
}

// directions are the values of an ordering tool's direction parameter: true for descending.
var directions = map[string]bool{"desc": true, "descending": true, "high_to_low": true, "dsc": true,
	"asc": false, "ascending": false, "low_to_high": false}

// isOrdering reports a tool that reorders a list: named sort/order, or a parameter "by".
func isOrdering(p *plan) bool {
	sorts := func(w string) bool { return w == "sort" || w == "order" || w == "rank" }
	return slices.ContainsFunc(identWords(p.def.Name), sorts) ||
		slices.ContainsFunc(p.schema.props, func(q *property) bool {
			return len(q.words) > 0 && (q.words[0] == "by" || q.words[0] == "sort" || q.words[len(q.words)-1] == "by")
		})
}

// nameHit reports a word of the tool's name in the text ("compare", "sort", "book").
func (c *conv) nameHit(p *plan, toks []token) bool {
	words := slices.DeleteFunc(identWords(p.def.Name), func(w string) bool {
		return len(w) < 3 || stopWords[w] || genericNameWords[w] || c.sharedNameWord(w)
	})
	return len(words) > 0 && hitsWord(toks, words, len(p.hints))
}

// hitsWord reports a word of toks that is one of words or, among the first hinted, hints at
// one ("monthly" at financing).
func hitsWord(toks []token, words []string, hinted int) bool {
	hs := hintsOf(toks)
	for i, t := range toks {
		if t.kind == kindWord && slices.ContainsFunc(words, func(w string) bool {
			viaHint := i < hinted && slices.ContainsFunc(hs[i], func(h hint) bool { return h.word == w })
			return viaHint || wordsMatch(t.norm, w)
		}) {
			return true
		}
	}
	return false
}

// sharedNameWord reports a word in several tools' names: the page's noun ("car"), no action.
func (c *conv) sharedNameWord(w string) bool {
	has := func(t chat.ToolDef) bool { return slices.Contains(identWords(t.Name), w) }
	i := slices.IndexFunc(c.tools, has)
	return i >= 0 && slices.ContainsFunc(c.tools[i+1:], has)
}

// orderWords ask for an order; towardWords do before "to" ("low to high").
var (
	orderWords = rawSet(`sort sorted order ordered arrange rank ascending descending first last asc desc
		reverse`)
	towardWords = rawSet(`low high lowest highest least most`)
)

// orderCue reports words that ask for an order: "sort", "order by", "first", "low to high".
func orderCue(toks []token) bool {
	for i, t := range toks {
		toward := towardWords[t.norm] && i+1 < len(toks) && toks[i+1].norm == "to"
		if t.kind == kindWord && (orderWords[t.norm] || t.norm == "by" && i > 0 || toward) {
			return true
		}
	}
	return false
}

// clearMatch reports words that clearly ask for this plan; otherwise the planner asks.
func (c *conv) clearMatch(p *plan, toks []token, question bool) bool {
	if isOrdering(p) && !orderCue(toks) {
		return false
	}
	matched, unmatched := c.coverage(p, toks)
	readOnly := named(p.def.Name, readsFirst)
	switch {
	case unmatched >= 2 && unmatched > matched:
		return false
	case len(p.schema.props) == 0:
		return matched > 0 && unmatched == 0 && (!question || readOnly)
	}
	// A value asked for though not required is asked for by name ("add a note please").
	asked := slices.ContainsFunc(p.missing, func(m *property) bool { return !m.required })
	return len(p.values) > 0 || asked || c.nameHit(p, toks) && (!question || readOnly)
}

// coverage counts the content words of the text the plan's tool knows, and those it does not.
func (c *conv) coverage(p *plan, toks []token) (matched, unmatched int) {
	matched, at := c.unknownTo(p, toks)
	return matched, len(at)
}

// unknownTo counts the content words of the text the plan's tool knows, and gives the places
// of those it does not.
func (c *conv) unknownTo(p *plan, toks []token) (matched int, unmatched []int) {
	hs := hintsOf(toks)
	inVocab := func(w string) bool { return p.vocab[w] > 0 }
	for i, t := range toks {
		if i < len(p.used) && p.used[i] {
			matched++
			continue
		}
		if t.kind != kindWord || len(t.norm) < 2 || stopWords[t.norm] || cueWordSet[t.norm] || correctionWords[t.norm] {
			// A phrase of small words can still say what it is about: "how much" is a price.
			if t.kind == kindWord && slices.ContainsFunc(hs[i], func(h hint) bool { return h.strong && inVocab(h.word) }) {
				matched++
			}
			continue
		}
		hinted := slices.ContainsFunc(hs[i], func(h hint) bool { return inVocab(h.word) })
		if hinted || slices.ContainsFunc(units[t.norm], inVocab) || bestMatch(queryWord{word: t.norm, weight: 1}, p.vocab) > 0 {
			matched++
		} else if !requestWords[t.norm] && !peopleWords[t.norm] && rankWords[t.norm].field == nil && !idRe.MatchString(t.raw) && !(i > 0 && toks[i-1].norm == "this") && !placeWords(toks, i) {
			unmatched = append(unmatched, i) // request, people and ranking words, ids, what "this" names ("this Tesla") and a place among choices ("the top trim") count neither way
		}
	}
	return matched, unmatched
}

// onlyMatch says how many items match, when fewer than asked do: "Only 3 cars match.", "Only
// one car matches."
func (c *conv) onlyMatch(n int) string {
	noun := "items"
	if l := c.lister(); l != nil {
		noun = listNoun(l.def.Name, n)
	}
	if n == 1 {
		return "Only one " + noun + " matches."
	}
	return "Only " + strconv.Itoa(n) + " " + noun + " match."
}

// countAsked is how many items the words ask a list for: 4 of "show me 4 electric cars"; 0
// when they give no such count.
func countAsked(toks []token) int {
	plural := func(t token) bool { // "4 electric cars", "5 suvs", not "a family of 6 under 40k"
		return t.kind == kindWord && units[t.norm] == nil && strings.HasSuffix(strings.ToLower(t.raw), "s")
	}
	for i, t := range toks {
		if t.kind == kindNumber && !t.money && !t.percent && !t.grouped && t.value >= 2 && t.value <= 20 && t.value == float64(int(t.value)) &&
			!wordAt(toks, i-1, "of") && slices.ContainsFunc(toks[i+1:min(i+3, len(toks))], plural) {
			return int(t.value)
		}
		// "five red coupes" in words
		if n, ok := countWord(t); ok && t.kind == kindWord && !wordAt(toks, i-1, "of", "the") && slices.ContainsFunc(toks[i+1:min(i+3, len(toks))], plural) {
			return n
		}
	}
	return 0
}
