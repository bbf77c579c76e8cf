package planner

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// ranking plans "cheapest electric car", "the two newest SUVs", "compare the two cheapest",
// "open the cheapest hybrid": filter with the rest of the words, sort by the ranked field,
// then name the winners or hand them to the tool that wants ids.
func (c *conv) ranking(text string, toks []token, o order, n, at int) (intent, bool) {
	sorter := c.sortPlan(o)
	// The words without the ranking: "electric car" of "cheapest electric car".
	from, to := at, at+1
	for from > 0 && toks[from-1].kind == kindWord && (toks[from-1].norm == "most" || toks[from-1].norm == "least" || toks[from-1].norm == "the") {
		from--
	}
	if from > 0 {
		if _, isCount := countWord(toks[from-1]); isCount {
			from--
		}
	}
	if to < len(toks) && mileageWord(toks[to]) {
		to++
	}
	rest := text[:toks[from].start] + " " + text[toks[to-1].end:]
	var filter, target *plan
	if ps := rankPlans(rest, c.tools); len(ps) > 0 {
		p := ps[0]
		rtoks := tokenize(rest)
		if p.score >= threshold && len(p.missing) == 0 && len(p.values) > 0 && !isOrdering(p) && !wantsIDs(p) && c.clearMatch(p, rtoks, false) {
			filter = p
		}
		for _, q := range ps {
			if q.score >= threshold && wantsIDs(q) && c.nameHit(q, rtoks) {
				target = q
				break
			}
		}
	}
	count := max(n, 1)
	least := 1 // the fewest ids the target takes
	if target != nil {
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
	// only says how many match when fewer than asked do ("compare the two cheapest" when
	// one car matches): honest about the set.
	only := func(w []*item) string {
		if len(w) >= count {
			return ""
		}
		noun := "items"
		if l := c.lister(); l != nil {
			noun = listNoun(l.def.Name, len(w))
		}
		if len(w) == 1 {
			return "Only one " + noun + " matches: " + theTitle(w[0]) + rankDetail(o, w[0], c.now.money) + "."
		}
		return "Only " + strconv.Itoa(len(w)) + " " + noun + " match."
	}
	var static []*plan
	if filter != nil {
		static = append(static, filter)
	}
	if sorter != nil {
		static = append(static, sorter)
	}
	if len(static) == 0 {
		if len(c.before.last) == 0 {
			l := c.lister()
			if l == nil {
				return intent{}, false
			}
			static = append(static, l)
		}
	}
	winners := func(c *conv) []*item {
		list := c.now.last
		if len(c.done) == 0 {
			list = c.before.last
		}
		r := ranked(list, o)
		if len(r) == 0 && sorter != nil && len(c.done) > 0 {
			// The results do not carry the field, but the page sorted by it.
			r = list
		}
		return r[:min(count, len(r))]
	}
	noun := nounAfter(toks, to)
	if noun == "one" {
		var ws []string
		for i := 0; i < from; i++ {
			if t := toks[i]; t.kind == kindWord && !stopWords[t.norm] && !requestWords[t.norm] && !cueWordSet[t.norm] && c.vocab[t.norm] {
				ws = append(ws, strings.ToLower(t.raw))
			}
		}
		if len(ws) > 0 && len(ws) <= 3 {
			noun = strings.Join(ws, " ")
		}
	}
	ask := "" // the question for what the target still needs ("book the cheapest room": a date)
	in := intent{
		steps: func(c *conv) []*plan {
			if len(c.done) < len(static) || target == nil {
				return static
			}
			w := winners(c)
			if len(w) < least {
				return static
			}
			if p := withIDs(target, w); p != nil {
				for _, prop := range p.schema.props {
					if _, set := p.values[prop.name]; !set && prop.required && len(prop.schema.enum) != 1 && len(prop.schema.def) == 0 {
						p.missing = append(p.missing, prop)
					}
				}
				if len(p.missing) > 0 {
					ask = c.askMissing(p).reply
					return static
				}
				return append(slices.Clip(static), p)
			}
			return static
		},
		final: func(c *conv) string {
			if target != nil && len(c.done) > len(static) {
				return strings.TrimSpace(only(winners(c)) + " " + c.summary())
			}
			w := winners(c)
			if target != nil && len(w) > 0 && len(w) < least {
				return only(w) + " " + upperFirst(c.describe(target)) + " needs " + strconv.Itoa(least) + "."
			}
			if len(w) == 0 {
				if noun == "one" {
					return "Nothing matches right now."
				}
				return "No " + noun + " matches right now."
			}
			money := c.now.money
			if len(w) == 1 {
				return strings.TrimSpace("The " + o.what + " " + noun + " is " + theTitle(w[0]) + rankDetail(o, w[0], money) + ". " + ask)
			}
			var parts []string
			for _, it := range w {
				parts = append(parts, theTitle(it)+rankDetail(o, it, money))
			}
			return strings.TrimSpace("The " + strconv.Itoa(len(w)) + " " + o.what + " are " + joinList(parts, "and") + ". " + ask)
		},
	}
	return in, true
}

func rankDetail(o order, it *item, money moneyStyle) string {
	if v, ok := it.num(o.field.keys...); ok && o.field.detail != "" {
		return o.field.detail + o.field.value(v, money)
	}
	return ""
}

// nounAfter is what the ranking is about, as the visitor wrote it: "electric car".
func nounAfter(toks []token, i int) string {
	var ws []string
	for ; i < len(toks) && toks[i].kind == kindWord && !stopWords[toks[i].norm] && !cueWordSet[toks[i].norm]; i++ {
		ws = append(ws, strings.ToLower(toks[i].raw))
	}
	if len(ws) == 0 {
		return "one"
	}
	return strings.Join(ws, " ")
}

// withIDs is target with its id parameter set to the items' ids; nil when they do not fit.
func withIDs(target *plan, items []*item) *plan {
	if len(items) == 0 {
		return nil
	}
	p := &plan{def: target.def, schema: target.schema, values: maps.Clone(target.values), score: target.score}
	for _, prop := range target.schema.props {
		single, list := idParam(prop)
		switch {
		case single:
			if !prop.schema.acceptsString(items[0].id) {
				return nil
			}
			p.values[prop.name] = items[0].id
			return p
		case list:
			ids := make([]string, len(items))
			for i, it := range items {
				ids[i] = it.id
			}
			if !prop.schema.acceptsStrings(ids) {
				return nil
			}
			p.values[prop.name] = ids
			return p
		}
	}
	return nil
}

// sortPlan is a call of the page's ordering tool that sorts by the ranked field in its
// direction; nil when the page has none.
func (c *conv) sortPlan(o order) *plan {
	for _, t := range c.tools {
		s := parseSchema(t.Parameters)
		var byProp, dirProp *property
		var byVal string
		for _, p := range s.props {
			if !p.schema.stringEnum() {
				continue
			}
			vals := texts(p.schema.enum)
			if slices.ContainsFunc(vals, func(v string) bool { return dirValue(v, true) != "" }) && dirProp == nil {
				if dirValue(vals[0], true) != "" || dirValue(vals[0], false) != "" {
					dirProp = p
					continue
				}
			}
			for _, k := range o.field.keys {
				for _, v := range vals {
					if byProp == nil && compact(v) == k {
						byProp, byVal = p, v
					}
				}
			}
		}
		if byProp == nil {
			continue
		}
		pl := &plan{def: t, schema: s, values: map[string]any{byProp.name: byVal}, score: threshold}
		if dirProp != nil {
			for _, v := range texts(dirProp.schema.enum) {
				if dirValue(v, o.desc) != "" {
					pl.values[dirProp.name] = v
					break
				}
			}
		}
		return pl
	}
	return nil
}

// dirValue reports v when it names the direction (desc or asc).
func dirValue(v string, desc bool) string {
	l := strings.ToLower(v)
	if desc {
		if l == "desc" || l == "descending" || l == "high_to_low" || l == "dsc" {
			return v
		}
		return ""
	}
	if l == "asc" || l == "ascending" || l == "low_to_high" {
		return v
	}
	return ""
}

// isOrdering reports a tool that reorders a list: named sort/order, or a parameter "by".
func isOrdering(p *plan) bool {
	for _, w := range identWords(p.def.Name) {
		if w == "sort" || w == "order" || w == "rank" {
			return true
		}
	}
	for _, prop := range p.schema.props {
		if len(prop.words) > 0 && (prop.words[0] == "by" || prop.words[0] == "sort" || prop.words[len(prop.words)-1] == "by") {
			return true
		}
	}
	return false
}

// readOnly reports a tool whose name says it only reads or computes.
func readOnly(p *plan) bool { return named(p.def.Name, readsFirst) }

// nameHit reports a word of the tool's name in the text ("compare", "sort", "book").
func (c *conv) nameHit(p *plan, toks []token) bool {
	var hs [][]hint // once, not per word: hintsOf is linear in the text
	for _, w := range identWords(p.def.Name) {
		if len(w) < 3 || stopWords[w] || genericNameWords[w] || c.sharedNameWord(w) {
			continue
		}
		for i, t := range toks {
			if t.kind != kindWord {
				continue
			}
			if wordsMatch(t.norm, w) {
				return true
			}
			if i < len(p.hints) {
				if hs == nil {
					hs = hintsOf(toks)
				}
				for _, h := range hs[i] {
					if h.word == w {
						return true
					}
				}
			}
		}
	}
	return false
}

// sharedNameWord reports a word in the names of several tools: the page's noun ("car" of
// search_cars and sort_cars), not an action.
func (c *conv) sharedNameWord(w string) bool {
	n := 0
	for _, t := range c.tools {
		if slices.Contains(identWords(t.Name), w) {
			n++
		}
	}
	return n >= 2
}

// orderCue reports words that ask for an order: "sort", "order by", "first", "low to high".
func orderCue(toks []token) bool {
	for i, t := range toks {
		if t.kind != kindWord {
			continue
		}
		switch t.norm {
		case "sort", "sorted", "order", "ordered", "arrange", "rank", "ascending", "descending", "first", "last", "asc", "desc", "reverse":
			return true
		case "by":
			return i > 0
		case "low", "high", "lowest", "highest", "least", "most":
			if i+1 < len(toks) && toks[i+1].norm == "to" {
				return true
			}
		}
	}
	return false
}

// clearMatch reports whether the words clearly ask for this plan. A tool that changes the
// page runs only when they do; otherwise the planner asks.
func (c *conv) clearMatch(p *plan, toks []token, question bool) bool {
	if isOrdering(p) && !orderCue(toks) {
		return false
	}
	matched, unmatched := c.coverage(p, toks)
	if unmatched >= 2 && unmatched > matched {
		return false
	}
	if len(p.schema.props) == 0 {
		return matched > 0 && unmatched == 0 && (!question || readOnly(p))
	}
	hit := c.nameHit(p, toks)
	if len(p.values) == 0 && !hit {
		return false
	}
	if question && !readOnly(p) && len(p.values) == 0 {
		return false
	}
	return true
}

// coverage counts the content words of the text the plan's tool knows, and those it does not.
func (c *conv) coverage(p *plan, toks []token) (matched, unmatched int) {
	hs := hintsOf(toks)
	for i, t := range toks {
		if i < len(p.used) && p.used[i] {
			matched++
			continue
		}
		if t.kind != kindWord || len(t.norm) < 2 || stopWords[t.norm] || cueWordSet[t.norm] {
			// A phrase of small words can still say what it is about: "how much" is a price.
			if t.kind == kindWord && slices.ContainsFunc(hs[i], func(h hint) bool { return h.strong && p.vocab[h.word] > 0 }) {
				matched++
			}
			continue
		}
		known := bestMatch(queryWord{word: t.norm, weight: 1}, p.vocab) > 0
		for _, h := range hs[i] {
			if p.vocab[h.word] > 0 {
				known = true
			}
		}
		for _, u := range units[t.norm] {
			if p.vocab[u] > 0 {
				known = true
			}
		}
		switch {
		case known:
			matched++
		case requestWords[t.norm] || rankWords[t.norm].field != nil || idRe.MatchString(t.raw):
		default:
			unmatched++
		}
	}
	return matched, unmatched
}
