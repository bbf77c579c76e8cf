package planner

import (
	"cmp"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// userWord is one word of the user's text for matching names: "CR-V" stays one word.
type userWord struct {
	c          string // compact lower case
	start, end int
}

var (
	nameWordRe = regexp.MustCompile(`[\p{L}\p{N}]+(?:[-'][\p{L}\p{N}]+)*`)
	webAddrRe  = regexp.MustCompile(`(?i)\bhttps?://\S+|\bwww\.\S+`)
)

// userWords are the words of the text that may name items. Words inside an e-mail or web
// address are the visitor's values: "jane" of jane@example.com does not name "Jane Doe".
func userWords(text string) []userWord {
	var out []userWord
	values := append(emailRe.FindAllStringIndex(text, -1), webAddrRe.FindAllStringIndex(text, -1)...)
	for _, m := range nameWordRe.FindAllStringIndex(text, -1) {
		if !slices.ContainsFunc(values, func(v []int) bool { return m[0] < v[1] && v[0] < m[1] }) {
			out = append(out, userWord{compact(text[m[0]:m[1]]), m[0], m[1]})
		}
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
	type hit struct {
		it  *item
		pos []int
	}
	var hits []hit
	for _, it := range items {
		var all []int
		weak, word := map[int]bool{}, map[int]string{}
		for i, w := range ws {
			for _, lw := range it.words {
				if lw == w.c || len(lw) > 2 && lw+"s" == w.c || // "the audis"
					(i+1 < len(ws) && lw == w.c+ws[i+1].c && !slices.Contains(it.words, w.c)) ||
					typoMatch(lw, w.c) ||
					len(w.c) >= 4 && len(lw) <= len(w.c)+2 && strings.HasPrefix(lw, w.c) && !vocab[w.c] && !ordinary(w.c) { // "taco" of the Tacoma
					all = append(all, i)
					weak[i] = len(lw) <= 1 || digitsOf(lw) == lw || vocab[lw] || stopWords[lw] || nameFillers[lw]
					word[i] = lw
					break
				}
			}
		}
		// A weak word (a letter, a number, "model", a filter value) counts next to another match:
		// "Model 3".
		pos := slices.DeleteFunc(slices.Clone(all), func(i int) bool {
			return weak[i] && !slices.Contains(all, i-1) && !slices.Contains(all, i+1)
		})
		// The name said again is another mention: "book spin for M22222, the spin one" names
		// the class twice, not once across the words between.
		for len(pos) > 0 {
			k := 1
			for k < len(pos) && !slices.ContainsFunc(pos[:k], func(i int) bool { return word[i] == word[pos[k]] }) {
				k++
			}
			hits = append(hits, hit{it, pos[:k]})
			pos = pos[k:]
		}
	}
	// Drop an item whose matched words are a strict part of another's ("Model" of the Model Y
	// inside "Model 3"), then group items matched by the same words.
	var out []mention
	for _, h := range hits {
		inside := func(o hit) bool {
			return len(h.pos) < len(o.pos) && !slices.ContainsFunc(h.pos, func(i int) bool { return !slices.Contains(o.pos, i) })
		}
		if slices.ContainsFunc(hits, inside) {
			continue
		}
		start, end := ws[h.pos[0]].start, ws[h.pos[len(h.pos)-1]].end
		if k := slices.IndexFunc(out, func(m mention) bool { return m.start == start && m.end == end }); k >= 0 {
			out[k].items = append(out[k].items, h.it)
		} else {
			out = append(out, mention{[]*item{h.it}, start, end})
		}
	}
	slices.SortStableFunc(out, func(a, b mention) int { return a.start - b.start })
	return out
}

// namedOne is the one item known that text names; nil when it names none or several.
func (c *conv) namedOne(text string) *item {
	if ms := nameMentions(text, c.now.known(), nil); len(ms) == 1 && len(ms[0].items) == 1 {
		return ms[0].items[0]
	}
	return nil
}

// nameFillers are words of names that do not tell items apart on their own.
var nameFillers = map[string]bool{"model": true, "new": true, "edition": true, "plus": true}

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
	"latest": {yearField, true, "newest"}, "recent": {yearField, true, "newest"}, // ("the most recent model year")
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
	priceField = &field{keys: []string{"price", "cost", "amount", "total", "rent", "fee", "fare"}, words: []string{"price", "cost", "rent", "fee", "fare"},
		adjective: []string{"expensive", "cheap"}, verb: " is ", money: true, detail: ", at "}
	yearField = &field{keys: []string{"year", "date", "released"}, words: []string{"year"},
		adjective: []string{"old", "new"}, verb: " is from "}
	mileageField = &field{keys: []string{"mileage", "miles", "odometer", "km"},
		words: []string{"mileage", "mile", "km", "odometer"}, verb: " has ", unit: " miles", detail: ", with "}
	// ratingField is what customers thought of an item, which a list may sort by without
	// showing it ("best rated": the first after the sort).
	ratingField = &field{keys: []string{"rating", "ratings", "stars", "score", "reviews"}, words: []string{"rating", "star"},
		verb: " is rated ", detail: ", rated "}
	// fields are what a question asks about, in this order.
	fields = []*field{priceField, yearField, mileageField, ratingField,
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

// asksField reports a question about a field of an item ("whats the price", "price?").
func asksField(toks []token) bool {
	f, _ := questionField(toks)
	return f != nil
}

// rankPairs are the rankings said in two words: one of first, then a word of the field.
type rankPair struct {
	first, next []string
	o           order
}

var rankPairs = []rankPair{
	{strings.Fields("least less"), []string{"expensive"}, order{priceField, false, "least expensive"}},
	{strings.Fields("lowest fewest least lower fewer better best less"), mileWords, order{mileageField, false, "lowest-mileage"}},
	{strings.Fields("highest most more higher"), mileWords, order{mileageField, true, "highest-mileage"}},
	{strings.Fields("more"), []string{"expensive"}, order{priceField, true, "more expensive"}},  // of two
	{strings.Fields("cost costs"), []string{"more"}, order{priceField, true, "more expensive"}}, // "which costs more"
	{strings.Fields("cost costs"), []string{"less"}, order{priceField, false, "cheaper"}},
	{strings.Fields("lowest lower"), []string{"price"}, order{priceField, false, "cheapest"}},
	{strings.Fields("highest higher"), []string{"price"}, order{priceField, true, "most expensive"}},
	{strings.Fields("most"), []string{"new", "recent"}, order{yearField, true, "newest"}}, // "which Toyota is most new?"
	{strings.Fields("highest best top higher better"), []string{"rating", "star"}, order{ratingField, true, "best-rated"}},
	{strings.Fields("lowest worst lower worse"), []string{"rating", "star"}, order{ratingField, false, "lowest-rated"}},
}

// rankOf finds a ranking in the text: "cheapest", "most expensive", "lowest mileage",
// "fewest miles"; n is a count before it ("the two cheapest") or after it ("the cheapest
// three"), 0 when none.
func rankOf(toks []token) (o order, n int, at int, ok bool) {
	for i, t := range toks {
		if t.kind != kindWord {
			continue
		}
		w := strings.ToLower(t.raw)
		k := slices.IndexFunc(rankPairs, func(r rankPair) bool {
			return slices.Contains(r.first, w) && i+1 < len(toks) && slices.Contains(r.next, toks[i+1].norm)
		})
		if k >= 0 {
			// "less expensive than $30,000" is a bound, as "cheaper than" is
			o, ok = rankPairs[k].o, !wordAt(toks, i+2, "than")
		} else {
			// "expensive" ranks only after "most" or "more".
			o, ok = rankWords[w]
			ok = ok && (w != "expensive" || wordAt(toks, i-1, "most", "more"))
		}
		if !ok || wordAt(toks, i-1, "or") || wordAt(toks, i+1, "than") || boundTail(toks, i) { // "2021 and newer"
			continue
		}
		j := i - 1
		if wordAt(toks, j, "most", "more") {
			j--
		}
		if j >= 0 {
			n, _ = countWord(toks[j])
		}
		are := j
		if wordAt(toks, are, "the") {
			are--
		}
		if n == 0 && wordAt(toks, are, "are") && are > 0 {
			n, _ = countWord(toks[are-1]) // "which two are the cheapest"
		}
		if end := i + 1 + min(k+1, 1); n == 0 && end < len(toks) {
			n, _ = countWord(toks[end]) // "the cheapest three", "lowest mileage 3 suvs"
		}
		for b := j - 1; n == 0 && b >= max(j-3, 0) && wordAt(toks, j, "the") && wordAt(toks, j-1, "with", "that", "having"); b-- {
			n, _ = countWord(toks[b]) // "the three with the lowest mileage"
		}
		return o, n, i, true
	}
	return order{}, 0, -1, false
}

// mileWords are the words of mileage in a ranking ("fewest miles").
var mileWords = []string{"mileage", "mile", "km", "kilometer"}

var countWords = map[string]int{"two": 2, "three": 3, "four": 4, "five": 5, "both": 2}

// countWord is the count a token says: 2 to 10 as a number, or "two" to "five" and "both".
func countWord(t token) (int, bool) {
	if t.kind == kindNumber && !t.money && !t.percent && t.value >= 2 && t.value <= 10 &&
		t.value == float64(int(t.value)) {
		return int(t.value), true
	}
	v, ok := countWords[strings.ToLower(t.raw)]
	return v, ok
}

// ranked returns the items sorted by the order; items without the field are left out.
func ranked(items []*item, o order) []*item {
	out := slices.DeleteFunc(slices.Clone(items), func(it *item) bool {
		_, ok := it.num(o.field.keys...)
		return !ok
	})
	slices.SortStableFunc(out, func(a, b *item) int {
		x, _ := a.num(o.field.keys...)
		y, _ := b.num(o.field.keys...)
		if o.desc {
			return cmp.Compare(y, x)
		}
		return cmp.Compare(x, y)
	})
	return out
}

var ordinals = map[string]int{
	"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4,
	"fifth": 5, "5th": 5, "sixth": 6, "6th": 6, "seventh": 7, "7th": 7, "eighth": 8, "8th": 8,
	"ninth": 9, "9th": 9, "tenth": 10, "10th": 10, "last": -1,
}

// pointer finds the words that point at an item of the last list by its place ("the second",
// "the last one", "number 2": n, -1 the last) or, with byValue, by a value ("the red one": n
// 0); first and last are the tokens of the place or value, first -1 when there are none. It
// is not "cheapest first" (a sort), which has no article before it.
func pointer(toks []token, byValue bool) (n, first, last int) {
	article := func(i int) bool { return i >= 0 && (toks[i].norm == "the" || toks[i].norm == "that") }
	for i, t := range toks {
		v, isOrd := ordinals[strings.ToLower(t.raw)]
		switch {
		case t.kind != kindWord && t.kind != kindNumber:
		case isOrd && (article(i-1) || oneAt(toks, i+1)):
			return v, i, i
		case isOrd && i > 0 && opensFirst[toks[i-1].norm] && (i+1 == len(toks) || toks[i+1].kind == kindPunct): // "open first", as typed on a phone
			return v, i, i
		case t.norm == "top" && article(i-1) && i+1 < len(toks) && toks[i+1].norm == "one": // the first on screen
			return 1, i, i
		case t.kind == kindNumber && i > 0 && (toks[i-1].norm == "number" || toks[i-1].norm == "no"):
			return int(t.value), i - 1, i
		case byValue && t.kind == kindWord && article(i-1) && i+1 < len(toks) && toks[i+1].norm == "one":
			return 0, i, i
		}
	}
	return 0, -1, -1
}

// oneAt reports "one", "option" or "choice" at token i: "the second one".
func oneAt(toks []token, i int) bool {
	return i < len(toks) && slices.Contains([]string{"one", "option", "choice"}, toks[i].norm)
}

// ordinalRef finds a place in the last list: "the second", "the 2nd one", "number 2".
func ordinalRef(toks []token) (n int, ok bool) {
	n, first, _ := pointer(toks, false)
	return n, first >= 0
}

// pointerSpan finds where in the text the words are that point at an item of the last list
// ("the second one", "the last", "number 2", "the red one"); ok false when there are none.
func pointerSpan(toks []token) (start, end int, ok bool) {
	_, first, last := pointer(toks, true)
	if first < 0 {
		return 0, 0, false
	}
	if first > 0 && (toks[first-1].norm == "the" || toks[first-1].norm == "that") {
		first--
	}
	if oneAt(toks, last+1) {
		last++
	}
	return toks[first].start, toks[last].end, true
}

// withValue are the items of list that a string field of says the word t: "red", "wagon".
func withValue(list []*item, t token) []*item {
	has := func(vals []string) bool {
		return slices.ContainsFunc(vals, func(s string) bool { return s == t.norm || normWord(s) == t.norm })
	}
	return slices.DeleteFunc(slices.Clone(list), func(it *item) bool { return !slices.ContainsFunc(slices.Collect(maps.Values(it.attrs)), has) })
}

// oneWith reports a value at token i said after "the one" and a preposition: "the one on
// saturday", "the one in Kreuzberg", "the one with a balcony".
func oneWith(toks []token, i int) bool {
	j := i - 1
	if j > 0 && (toks[j].norm == "a" || toks[j].norm == "the") {
		j--
	}
	return j > 1 && slices.Contains([]string{"on", "in", "at", "with", "from", "by"}, toks[j].norm) && toks[j-1].norm == "one" && toks[j-2].norm == "the"
}

// attributeRef finds "the red one", "the electric ones", "the hybrid": the items of the list
// that have the value.
func attributeRef(toks []token, list []*item) ([]*item, int) {
	for i, t := range toks {
		// "the red one"; "the bmw" last, of one BMW shown ("the bmws" search)
		last := i == len(toks)-1 || toks[i+1].kind == kindPunct
		the := i > 0 && toks[i-1].norm == "the" && last && !strings.HasSuffix(strings.ToLower(t.raw), "s")
		if t.kind != kindWord || !the && (i+1 >= len(toks) || toks[i+1].norm != "one") && !oneWith(toks, i) {
			continue
		}
		if out := withValue(list, t); len(out) > 0 && (!the || len(out) == 1) {
			return out, i
		}
	}
	return nil, -1
}
