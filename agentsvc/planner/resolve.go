package planner

import (
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// userWord is one word of the user's text for matching names: "CR-V" stays one word.
type userWord struct {
	raw, c     string // as written; compact lower case
	start, end int
}

var (
	nameWordRe = regexp.MustCompile(`[\p{L}\p{N}]+(?:[-'][\p{L}\p{N}]+)*`)
	webAddrRe  = regexp.MustCompile(`(?i)\bhttps?://\S+|\bwww\.\S+`)
)

// Words inside an e-mail address or a web address are the visitor's values, never names:
// "jane" of jane@example.com does not name the reservation "for Jane Doe".
func userWords(text string) []userWord {
	var out []userWord
	values := append(emailRe.FindAllStringIndex(text, -1), webAddrRe.FindAllStringIndex(text, -1)...)
	for _, m := range nameWordRe.FindAllStringIndex(text, -1) {
		if slices.ContainsFunc(values, func(v []int) bool { return m[0] < v[1] && v[0] < m[1] }) {
			continue
		}
		raw := text[m[0]:m[1]]
		out = append(out, userWord{raw, compact(raw), m[0], m[1]})
	}
	return out
}

// mention is a part of the user's text that names items: one item, or several when the
// words fit more than one ("the Tesla" with two Teslas seen).
type mention struct {
	items      []*item
	start, end int
}

// nameMentions finds the items the text names by their names, in the order of the text.
// Words that are values or words of the page's tools ("Toyota" when make is a filter) do not
// name items: they are the tools' to fill.
func nameMentions(text string, items []*item, vocab map[string]bool) []mention {
	ws := userWords(text)
	if len(ws) == 0 || len(items) == 0 {
		return nil
	}
	type hit struct {
		it  *item
		pos []int
	}
	var hits []hit
	for _, it := range items {
		var all []int
		weakAt := map[int]bool{}
		for i, w := range ws {
			for _, lw := range it.words {
				if lw == w.c || (i+1 < len(ws) && lw == w.c+ws[i+1].c && !slices.Contains(it.words, w.c)) || typoMatch(lw, w.c) {
					all = append(all, i)
					weakAt[i] = weakWord(lw) || vocab[lw] || stopWords[lw] || nameFillers[lw]
					break
				}
			}
		}
		// A weak word (a number, "model", a filter value) counts next to another match:
		// "Model 3".
		var pos []int
		strong := false
		for k, i := range all {
			next := k+1 < len(all) && all[k+1] == i+1
			prev := k > 0 && all[k-1] == i-1
			if weakAt[i] && !next && !prev {
				continue
			}
			pos = append(pos, i)
			if !weakAt[i] || next || prev {
				strong = strong || !weakAt[i] || (next && prev) || next || prev
			}
		}
		if strong {
			hits = append(hits, hit{it, pos})
		}
	}
	// Drop an item whose matched words are a strict part of another's ("Model" of the Model Y
	// inside "Model 3"), then group items matched by the same words.
	var kept []hit
	for i, h := range hits {
		dominated := false
		for j, o := range hits {
			if i != j && len(h.pos) < len(o.pos) && subset(h.pos, o.pos) {
				dominated = true
				break
			}
		}
		if !dominated {
			kept = append(kept, h)
		}
	}
	var out []mention
	for _, h := range kept {
		merged := false
		for k := range out {
			if out[k].start == ws[h.pos[0]].start && out[k].end == ws[h.pos[len(h.pos)-1]].end {
				out[k].items = append(out[k].items, h.it)
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, mention{[]*item{h.it}, ws[h.pos[0]].start, ws[h.pos[len(h.pos)-1]].end})
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].start < out[b].start })
	return out
}

// nameFillers are words of names that do not tell items apart on their own.
var nameFillers = map[string]bool{"model": true, "new": true, "edition": true, "plus": true}

func weakWord(w string) bool {
	if len(w) <= 1 {
		return true
	}
	_, err := strconv.Atoi(w)
	return err == nil
}

func subset(a, b []int) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// editDistance1 reports words at most one edit apart ("camery" and "camry").
func editDistance1(a, b string) bool {
	if a == b {
		return true
	}
	if d := len(a) - len(b); d > 1 || d < -1 {
		return false
	}
	if len(a) < len(b) {
		a, b = b, a
	}
	i := 0
	for i < len(b) && a[i] == b[i] {
		i++
	}
	if len(a) == len(b) {
		return a[i+1:] == b[i+1:]
	}
	return a[i+1:] == b[i:]
}

// order is a way to rank items: by a field, lowest or highest first.
type order struct {
	field *field
	desc  bool
	what  string // how the visitor says it: "cheapest"
}

// rankWords are the comparatives and superlatives shoppers use, with the fields they rank.
var rankWords = map[string]order{
	"cheap": {priceField, false, "cheapest"}, "cheaper": {priceField, false, "cheaper"},
	"cheapest":   {priceField, false, "cheapest"},
	"affordable": {priceField, false, "most affordable"}, "inexpensive": {priceField, false, "cheapest"},
	"expensive": {priceField, true, "most expensive"}, "pricier": {priceField, true, "pricier"},
	"priciest": {priceField, true, "priciest"}, "costliest": {priceField, true, "most expensive"},
	"newest": {yearField, true, "newest"}, "newer": {yearField, true, "newer"},
	"latest": {yearField, true, "newest"},
	"oldest": {yearField, false, "oldest"}, "older": {yearField, false, "older"},
}

// field is a value the items have that the visitor asks about and ranks by.
type field struct {
	keys      []string // the names results give it, best first
	words     []string // words that ask about it: "price", "mileage"
	adjective []string // words that ask about it in a question only: "old" ("my old car" asks nothing)
	verb      string   // "the RAV4 is $31,500", "the Sportage has 14,000 miles"
	money     bool     // written as the page writes amounts
	unit      string   // " miles"
	detail    string   // before its value in a ranking: "the cheapest is the RAV4, at $31,500"
}

var (
	priceField = &field{keys: []string{"price", "cost", "amount", "total"}, words: []string{"price", "cost"},
		adjective: []string{"expensive", "cheap"}, verb: " is ", money: true, detail: ", at "}
	yearField = &field{keys: []string{"year", "date", "released"}, words: []string{"year"},
		adjective: []string{"old", "new"}, verb: " is "}
	mileageField = &field{keys: []string{"mileage", "miles", "odometer", "km"},
		words: []string{"mileage", "mile", "km", "odometer"}, verb: " has ", unit: " miles", detail: ", with "}
	// fields are what a question asks about, in this order.
	fields = []*field{priceField, yearField, mileageField,
		{keys: []string{"colors", "color", "colours"}, words: []string{"color", "colour"}},
		{keys: []string{"fuel", "engine"}, words: []string{"fuel", "engine"}}}
)

// value writes a value of the field: money for prices, miles for mileage, plain years.
func (f *field) value(v float64, money moneyStyle) string {
	switch {
	case f.money:
		return money.format(v)
	case f.unit != "":
		return moneyStyle{group: money.group}.format(v) + f.unit
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// questionField is the field a question asks about ("how much", "price", "year", "mileage",
// "colors"), and whether it asks through an adjective ("how old is it?"; elsewhere an
// adjective describes something: "my old car"); nil when it names none.
func questionField(toks []token) (*field, bool) {
	for i, t := range toks {
		if t.kind != kindWord {
			continue
		}
		if t.norm == "much" && i > 0 && toks[i-1].norm == "how" {
			return priceField, false
		}
		for _, f := range fields {
			if slices.Contains(f.words, t.norm) || slices.Contains(f.adjective, t.norm) {
				return f, slices.Contains(f.adjective, t.norm)
			}
		}
	}
	return nil, false
}

// rankOf finds a ranking in the text: "cheapest", "most expensive", "lowest mileage",
// "fewest miles"; n is a count before it ("the two cheapest"), 0 when none.
func rankOf(toks []token) (o order, n int, at int, ok bool) {
	for i, t := range toks {
		if t.kind != kindWord {
			continue
		}
		w := strings.ToLower(t.raw)
		var found bool
		switch {
		case (w == "least" || w == "less") && i+1 < len(toks) && strings.HasPrefix(strings.ToLower(toks[i+1].raw), "expensive"):
			o, found = order{priceField, false, "least expensive"}, true
		case (w == "lowest" || w == "fewest" || w == "least" || w == "lower" || w == "fewer") && i+1 < len(toks) && mileageWord(toks[i+1]):
			o, found = order{mileageField, false, "lowest-mileage"}, true
		case (w == "highest" || w == "most") && i+1 < len(toks) && mileageWord(toks[i+1]):
			o, found = order{mileageField, true, "highest-mileage"}, true
		case (w == "lowest" || w == "lower") && i+1 < len(toks) && toks[i+1].norm == "price":
			o, found = order{priceField, false, "cheapest"}, true
		case (w == "highest" || w == "higher") && i+1 < len(toks) && toks[i+1].norm == "price":
			o, found = order{priceField, true, "most expensive"}, true
		default:
			o, found = rankWords[w]
			if found && w == "expensive" && !(i > 0 && (strings.EqualFold(toks[i-1].raw, "most") || strings.EqualFold(toks[i-1].raw, "more"))) {
				found = false
			}
		}
		if !found {
			continue
		}
		if (i > 0 && strings.EqualFold(toks[i-1].raw, "or")) || (i+1 < len(toks) && strings.EqualFold(toks[i+1].raw, "than")) {
			continue
		}
		n = 0
		j := i - 1
		if j >= 0 && (strings.EqualFold(toks[j].raw, "most") || strings.EqualFold(toks[j].raw, "more")) {
			j--
		}
		if j >= 0 {
			if v, isNum := countWord(toks[j]); isNum {
				n = v
			}
		}
		return o, n, i, true
	}
	return order{}, 0, -1, false
}

func mileageWord(t token) bool {
	return t.kind == kindWord && (t.norm == "mileage" || t.norm == "mile" || t.norm == "km" || t.norm == "kilometer")
}

var countWords = map[string]int{"two": 2, "three": 3, "four": 4, "five": 5, "both": 2}

func countWord(t token) (int, bool) {
	if t.kind == kindNumber && !t.money && !t.percent && t.value >= 2 && t.value <= 10 && t.value == float64(int(t.value)) {
		return int(t.value), true
	}
	v, ok := countWords[strings.ToLower(t.raw)]
	return v, ok
}

// ranked returns the items sorted by the order; items without the field are left out.
func ranked(items []*item, o order) []*item {
	var out []*item
	for _, it := range items {
		if _, ok := it.num(o.field.keys...); ok {
			out = append(out, it)
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		x, _ := out[a].num(o.field.keys...)
		y, _ := out[b].num(o.field.keys...)
		if o.desc {
			return x > y
		}
		return x < y
	})
	return out
}

var ordinals = map[string]int{
	"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4,
	"fifth": 5, "5th": 5, "last": -1,
}

// ordinalRef finds "the second", "the 2nd one", "the last one", "number 2": a position in the
// last list. It is not "cheapest first" (a sort), which has no article before it.
func ordinalRef(toks []token) (n int, ok bool) {
	for i, t := range toks {
		if t.kind != kindWord && t.kind != kindNumber {
			continue
		}
		v, isOrd := ordinals[strings.ToLower(t.raw)]
		if !isOrd {
			if t.kind == kindNumber && i > 0 && (strings.EqualFold(toks[i-1].raw, "number") || strings.EqualFold(toks[i-1].raw, "no")) {
				return int(t.value), true
			}
			continue
		}
		before := i > 0 && (strings.EqualFold(toks[i-1].raw, "the") || strings.EqualFold(toks[i-1].raw, "that"))
		after := i+1 < len(toks) && toks[i+1].kind == kindWord && (toks[i+1].norm == "one" || toks[i+1].norm == "option" || toks[i+1].norm == "choice")
		if before || after {
			return v, true
		}
	}
	return 0, false
}

// pointerSpan finds the words that point at an item of the last list by its place or by a
// value ("the second one", "the last", "number 2", "the red one", "the cheapest one") and
// returns where they are in the text; ok false when there are none.
func pointerSpan(toks []token) (start, end int, ok bool) {
	first, last := -1, -1
	for i, t := range toks {
		if t.kind != kindWord && t.kind != kindNumber {
			continue
		}
		if _, isOrd := ordinals[strings.ToLower(t.raw)]; isOrd {
			if n, found := ordinalRef(toks[max(0, i-1):min(len(toks), i+2)]); found && n != 0 {
				first, last = i, i
				break
			}
		}
		if t.kind == kindNumber && i > 0 && (strings.EqualFold(toks[i-1].raw, "number") || strings.EqualFold(toks[i-1].raw, "no")) {
			first, last = i-1, i
			break
		}
		if t.kind == kindWord && i+1 < len(toks) && toks[i+1].kind == kindWord && (toks[i+1].norm == "one") && i > 0 &&
			(toks[i-1].norm == "the" || toks[i-1].norm == "that") {
			first, last = i, i
			break
		}
	}
	if first < 0 {
		return 0, 0, false
	}
	if first > 0 && (toks[first-1].norm == "the" || toks[first-1].norm == "that") {
		first--
	}
	if last+1 < len(toks) && toks[last+1].kind == kindWord {
		switch toks[last+1].norm {
		case "one", "option", "choice":
			last++
		}
	}
	return toks[first].start, toks[last].end, true
}

// attributeRef finds "the red one", "the electric ones", "the hybrid": the items of the list
// that have the value.
func attributeRef(toks []token, list []*item) ([]*item, int) {
	for i, t := range toks {
		if t.kind != kindWord || i+1 >= len(toks) || toks[i+1].kind != kindWord || toks[i+1].norm != "one" {
			continue
		}
		v := t.norm
		var out []*item
		for _, it := range list {
			for _, vals := range it.attrs {
				if slices.ContainsFunc(vals, func(s string) bool { return s == v || normWord(s) == v }) {
					out = append(out, it)
					break
				}
			}
		}
		if len(out) > 0 {
			return out, i
		}
	}
	return nil, -1
}
