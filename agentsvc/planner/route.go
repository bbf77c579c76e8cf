package planner

import (
	"cmp"
	"encoding/json"
	"math"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/byomcp/byomcp/agentsvc/chat"
)

// Weights of a query word found in a tool's name, enum values, parameter names and descriptions.
const (
	weightName  = 3
	weightEnum  = 3
	weightParam = 2
	weightDesc  = 1
	// hintWeight scales words a word only suggests ("cheapest" suggests "price").
	hintWeight = 0.5
	// bonusTyped is added per parameter filled from an id, email, date, time, quote or number;
	// bonusEnum per enum parameter (its words already counted); bonusGuess for a lone number.
	bonusTyped = 1.5
	bonusEnum  = 0.5
	bonusGuess = 0.5
	// bonusID is added for an id parameter filled from an id in the text: naming one item
	// ("c07") says more than any other word.
	bonusID = 3
)

// plan is a tool with the arguments the planner found for it in the user's text.
type plan struct {
	def     chat.ToolDef
	schema  *schema
	score   float64
	values  map[string]any // string, float64, []string or json.RawMessage
	missing []*property
	vocab   map[string]float64
	hints   [][]hint
	used    []bool // tokens the arguments came from
	// edits are list parameters the text changes rather than sets: "add the tech package",
	// "remove the roof". understand applies them to the list of the tool's last call.
	edits map[string]*listEdit
	opens bool // opens an item's page for a request this page cannot do (openFor)
}

// listEdit is what a text adds to and removes from a list parameter.
type listEdit struct {
	add, drop []string
}

type queryWord struct {
	word   string
	weight float64
	hint   bool
}

// route picks the tool that best matches text and fills its arguments; nil when no tool
// scores at least threshold. Ties go to the tool listed first.
func route(text string, tools []chat.ToolDef) *plan {
	ps := rankPlans(text, tools)
	if len(ps) == 0 || ps[0].score < threshold {
		return nil
	}
	return ps[0]
}

// rankPlans fills every tool's arguments from text and returns the plans, best first.
func rankPlans(text string, tools []chat.ToolDef) []*plan {
	toks := tokenize(text)
	hs := hintsOf(toks)
	ps := make([]*plan, len(tools))
	for i, t := range tools {
		s := parseSchema(t.Parameters)
		ps[i] = &plan{def: t, schema: s, vocab: vocabulary(t, s), hints: hs, used: make([]bool, len(toks)),
			values: map[string]any{}, edits: map[string]*listEdit{}}
	}
	for _, q := range queryWords(toks, hs) {
		matches := make([]float64, len(tools))
		df := 0
		for i, p := range ps {
			if matches[i] = bestMatch(q, p.vocab); matches[i] > 0 {
				df++
			}
		}
		for i, p := range ps {
			p.score += q.weight * matches[i] / math.Sqrt(float64(max(df, 1)))
		}
	}
	lead := leadVerb(toks)
	for _, p := range ps {
		// A request that opens by writing is not for a tool that reads, nor the other way
		// round: "create a file … with the text hi" is for write_file ("Create a new file…"),
		// not for read_text_file, whose name has "text".
		if w := toolVerb(p.def); readVerbs[lead] && writeVerbs[w] || writeVerbs[lead] && readVerbs[w] {
			p.score *= 0.6
		}
		if strings.Contains(strings.ToLower(p.def.Description), "deprecated") {
			p.score /= 2 // "DEPRECATED: Use read_text_file instead": the other wins a tie
		}
		(&filler{plan: p, text: text, toks: toks}).fill() // adds what it fills to the score
		if lead != "" && undoes(p.def, toks) {
			// "book it", "sign me up, M55555" are never for cancel_booking ("the first one" of
			// tasks, which says no verb, still asks whether to mark it done or delete it)
			p.score = 0
		}
	}
	// Best first: a higher score, or the same score and a plan that can be called before one
	// that would have to ask for a value.
	sort.SliceStable(ps, func(a, b int) bool {
		if math.Abs(ps[a].score-ps[b].score) < 1e-9 {
			return len(ps[a].missing) == 0 && len(ps[b].missing) > 0
		}
		return ps[a].score > ps[b].score
	})
	return ps
}

// leadVerb is the verb a request opens with, after its polite preamble ("please", "can you",
// "I want to"): "create" of "create a file…"; "" when it opens otherwise.
func leadVerb(toks []token) string {
	i := slices.IndexFunc(toks, func(t token) bool { return t.kind != kindWord || !preambleWords[t.norm] })
	if i < 0 || toks[i].kind != kindWord || !toolVerbs[toks[i].norm] {
		return ""
	}
	return toks[i].norm
}

// readVerbs and writeVerbs are verbs that only read, and verbs that change something.
var (
	readVerbs  = wordSet(`read get list show view display find search fetch retrieve look browse check`)
	writeVerbs = wordSet(`create write add edit update delete remove move rename save set make append overwrite`)
)

// prepositionNames are parameter names that are prepositions: they label what follows them.
var prepositionNames = map[string]bool{"from": true, "to": true, "until": true, "since": true, "after": true, "before": true}

// undoes reports a tool that takes something back (cancel_booking) for words that never ask
// to ("book it", "the second one please").
func undoes(t chat.ToolDef, toks []token) bool {
	return slices.Contains(undoWords, toolVerb(t)) && !anyNorm(toks, undoWords...)
}

// toolVerb is a tool's own verb: the first word of its description ("Create a new file…")
// when it is a verb, else of its name (a server's prefix left out).
func toolVerb(t chat.ToolDef) string {
	first, _, _ := strings.Cut(strings.TrimSpace(baseVerb(t.Description)), " ")
	if w := normWord(first); toolVerbs[w] {
		return w
	}
	if ws := identWords(ownName(t.Name)); len(ws) > 0 && toolVerbs[ws[0]] {
		return ws[0]
	}
	return ""
}

// queryWords are the content words of the text, then the words they suggest at lower weight.
func queryWords(toks []token, hs [][]hint) []queryWord {
	var out []queryWord
	seen := map[string]bool{}
	for _, t := range toks {
		if t.kind == kindWord && len(t.norm) > 1 && !stopWords[t.norm] && !seen[t.norm] {
			seen[t.norm] = true
			out = append(out, queryWord{word: t.norm, weight: 1})
		}
	}
	for _, weight := range []float64{1, hintWeight} { // the strong hints first
		for _, h := range hs {
			for _, w := range h {
				if w.strong == (weight == 1) && !seen[w.word] {
					seen[w.word] = true
					out = append(out, queryWord{word: w.word, weight: weight, hint: true})
				}
			}
		}
	}
	return out
}

// vocabulary maps each word of a tool's name, description, parameters and enum values to the
// weight of the strongest place it appears in.
func vocabulary(t chat.ToolDef, s *schema) map[string]float64 {
	v := map[string]float64{}
	add := func(text string, w float64) {
		for _, word := range contentWords(text) {
			v[word] = max(v[word], w)
		}
	}
	add(t.Name, weightName)
	add(t.Description, weightDesc)
	for _, p := range s.props {
		add(p.name, weightParam)
		add(p.schema.description, weightDesc)
		for _, e := range p.schema.allEnums() {
			add(e.str, weightEnum) // "" for a number's
			add(strings.Join(e.named, " "), weightEnum)
			for _, w := range e.words {
				v[w] = max(v[w], weightEnum) // "ecoboost" of "EcoBoost"
			}
		}
	}
	return v
}

// bestMatch is the weight of the strongest vocabulary word that matches q. Suggested words
// must match exactly; the user's own words may match a longer or shorter form.
func bestMatch(q queryWord, vocab map[string]float64) float64 {
	if q.hint {
		return vocab[q.word]
	}
	best := 0.0
	for w, weight := range vocab {
		if weight > best && wordsMatch(q.word, w) {
			best = weight
		}
	}
	return best
}

// unset are the required parameters the plan has no value for.
func (p *plan) unset() []*property {
	return slices.DeleteFunc(slices.Clone(p.schema.props), func(q *property) bool { return !q.required || p.values[q.name] != nil })
}

// arguments encodes the filled values as a JSON object in the schema's property order.
func (p *plan) arguments() string {
	var members []string
	for _, prop := range p.schema.props {
		if v, ok := p.values[prop.name]; ok {
			members = append(members, jsonValue(prop.name)+":"+jsonValue(v))
		}
	}
	return "{" + strings.Join(members, ",") + "}"
}

// jsonValue is v as compact JSON, "<" and "&" as written; null when v is not valid JSON (a
// json.RawMessage from a broken default).
func jsonValue(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return "null"
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// filler finds the arguments of one tool in the tokens of the user's text, into its plan.
type filler struct {
	*plan
	text string
	toks []token
}

func (f *filler) free(p *property) bool {
	_, ok := f.values[p.name]
	return !ok
}

func (f *filler) set(p *property, v any, bonus float64) {
	f.values[p.name] = v
	f.score += bonus
}

// claim sets p to v from the tokens from up to to (none when from is -1), which no other
// parameter may take then.
func (f *filler) claim(p *property, v any, bonus float64, from, to int) {
	for i := max(from, 0); i < to; i++ {
		f.used[i] = true
	}
	f.set(p, v, bonus)
}

// fill fills what the text supports, each kind of value in the order they take words, then
// the required parameters that have a const or a default, and records those still missing.
func (f *filler) fill() {
	for _, step := range []func(*filler){(*filler).enums, (*filler).ids, (*filler).note, (*filler).typed,
		(*filler).quotes, (*filler).numbers, (*filler).booleans, (*filler).freeText, (*filler).withText} {
		step(f)
	}
	for _, p := range f.schema.props {
		switch ps := p.schema; {
		case !p.required || !f.free(p):
		case len(ps.enum) == 1:
			f.set(p, ps.enum[0].raw, 0)
		case len(ps.def) > 0:
			f.set(p, ps.def, 0)
		default:
			f.missing = append(f.missing, p)
		}
	}
}

// enumCandidate is one enum value mentioned in the text. Its bonus is what filling a parameter
// with it adds to the tool's score: a quoted value, a time or a number is as telling as any
// typed value; a named word already counted among the query words; a suggested one adds nothing.
type enumCandidate struct {
	value    string
	priority int // 0 quoted, 1 named, 2 suggested
	pos      int
	start    int // its first token: "ex-l" is EX-L, not EX
	tok      int // token to mark used, or -1
	bonus    float64
}

// enumMentions lists the enum values the text mentions, best first.
func (f *filler) enumMentions(en []enumValue, withHints bool) []enumCandidate {
	var out []enumCandidate
	for _, e := range en { // a number's value has no str nor words: no case below takes it
		content := slices.ContainsFunc(e.words, func(w string) bool { return !stopWords[w] })
		for i, t := range f.toks {
			end := spelledAt(f.toks, i, e.str)
			switch {
			case f.used[i]:
			case t.kind == kindQuote && strings.EqualFold(t.raw, e.str):
				out = append(out, enumCandidate{e.str, 0, i, i, i, bonusTyped})
			case (t.kind == kindTime || t.kind == kindNumber) && t.raw == e.str:
				out = append(out, enumCandidate{e.str, 1, i, i, i, bonusTyped})
			case t.kind == kindWord && content && f.wordsAt(i, e.words) && !(len(e.words) == 1 && gluedOn(f.toks, i)): // ("EX-L" is no "EX")
				out = append(out, enumCandidate{e.str, 1, i, i, -1, bonusEnum})
			case t.kind == kindWord && content && end > i:
				// at its last word, for the word after it: "TRD Off-Road trim" is no package
				out = append(out, enumCandidate{e.str, 1, end - 1, i, -1, bonusEnum})
			case t.kind == kindWord && len(e.named) > 0 && f.wordsAt(i, e.named) && slices.ContainsFunc(e.named, func(w string) bool { return !stopWords[w] }):
				out = append(out, enumCandidate{e.str, 1, i + len(e.named) - 1, i, -1, bonusEnum}) // its title: "Driver assistance" of "safety"
			case t.kind == kindWord && t.norm == abbreviation(e, en):
				out = append(out, enumCandidate{e.str, 1, i, i, -1, bonusEnum})
			case withHints && t.kind == kindWord && len(e.words) == 1 && !boundTail(f.toks, i) &&
				slices.ContainsFunc(f.hints[i], func(h hint) bool { return h.word == e.words[0] }):
				out = append(out, enumCandidate{e.str, 2, i, i, -1, 0})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b enumCandidate) int {
		longer := 0 // "Premium Plus", not "Premium"; a hint ("sporty": coupe or convertible) keeps its order
		if a.priority < 2 {
			longer = len(b.value) - len(a.value)
		}
		return cmp.Or(a.priority-b.priority, a.start-b.start, longer, a.pos-b.pos)
	})
	return out
}

// boundTail reports the word of a bound said after its figure: "newer" of "2022 or newer", no
// ranking (nor a sort by year of "2022 or newer, cheapest first").
func boundTail(toks []token, i int) bool {
	return wordAt(toks, i-1, "or", "and") && i >= 2 && toks[i-2].kind == kindNumber
}

// gluedOn reports a word that goes on after a hyphen, with no space: "EX-L", "F-150".
func gluedOn(toks []token, i int) bool {
	return i+2 < len(toks) && toks[i+1].raw == "-" && toks[i+1].start == toks[i].end && toks[i+2].start == toks[i+1].end
}

// abbreviation is the first word of a value of several, lower case, when it is an
// abbreviation no other value of en has: "trd" says "TRD Off-Road"; "" when there is none.
func abbreviation(e enumValue, en []enumValue) string {
	first, _, more := strings.Cut(strings.ReplaceAll(e.str, "-", " "), " ")
	if !more || len(first) < 3 || strings.ToUpper(first) != first || strings.ToLower(first) == first {
		return ""
	}
	w := strings.ToLower(first)
	if slices.ContainsFunc(en, func(o enumValue) bool { return o.str != e.str && slices.Contains(o.words, w) }) {
		return ""
	}
	return w
}

// extremeAt finds "earliest" or "latest", or "first" or "last" before "slot" or "available": the
// first or the last of a parameter's times ("the earliest slot on friday"); -1 when none.
func extremeAt(toks []token) (i int, last bool) {
	for i, t := range toks {
		// not "last time I …"; "first one", "whatever is first" where a time is asked
		slot := wordAt(toks, i+1, "slot", "available", "one", "opening", "possible") || i == len(toks)-1 ||
			i+2 == len(toks) && toks[i+1].kind == kindPunct
		switch {
		case t.kind != kindWord:
		case t.norm == "earliest" || t.norm == "first" && slot:
			return i, false
		case t.norm == "latest" || t.norm == "last" && slot:
			return i, true
		}
	}
	return -1, false
}

// spelledAt is the end of the words from i on that spell a value but for spaces, hyphens and
// a verb's ending: "off-road" or "off road" for "offroad", "trd off road" for "TRD Off-Road",
// "towing" for "tow"; -1 when they do not.
func spelledAt(toks []token, i int, value string) (end int) {
	// Most words do not start the value, and each word is tried for each value of each tool:
	// the first letter tells before anything is built.
	if len(value) < 3 || toks[i].kind != kindWord || toks[i].raw == "" ||
		unicode.ToLower(rune(toks[i].raw[0])) != unicode.ToLower(rune(value[0])) {
		return -1
	}
	want, got, k := compact(value), "", i
	for ; k < len(toks) && k < i+6 && (toks[k].kind == kindWord || toks[k].raw == "-") && len(got) < len(want); k++ {
		got += compact(toks[k].raw)
	}
	if len(want) >= 3 && (got == want || got == want+"ing" && !strings.ContainsAny(value, " -")) {
		return k
	}
	return -1
}

// spelledIn reports words of toks that spell value (spelledAt).
func spelledIn(toks []token, value string) bool {
	for i := range toks {
		if spelledAt(toks, i, value) > i {
			return true
		}
	}
	return false
}

// wordsAt reports whether the word tokens from i on spell words. A verb the visitor wrote is
// that verb, not a typo of a value ("write me a poem" is not "white").
func (f *filler) wordsAt(i int, words []string) bool {
	if len(words) == 0 || i+len(words) > len(f.toks) {
		return false
	}
	for k, w := range words {
		t := f.toks[i+k] // the word, a slip of it, or it written longer
		if t.kind != kindWord || t.norm != w && (toolVerbs[t.norm] || !typoMatch(t.norm, w) && !longerForm(t.norm, w) && !letterDropped(t.norm, w)) {
			return false
		}
	}
	return true
}

// letterDropped reports a value's word of five letters or more written with one letter
// missing, when what was written is no word of its own: "wite" of "white", "blak" of "black".
func letterDropped(word, value string) bool {
	if len(word) < 4 || len(value) != len(word)+1 || ordinary(word) || goingWords[word] { // ("back" is no "black")
		return false
	}
	i := 0
	for i < len(word) && word[i] == value[i] {
		i++
	}
	return word[i:] == value[i+1:]
}

// longerForm reports a value's word written longer: "technology" of "tech", "charging" of
// "charge", "audis" of "audi" (wordsMatch, one way: "mile" is no "mileage").
func longerForm(word, value string) bool {
	return len(word) > len(value) && wordsMatch(word, value)
}

// enums fills an enum parameter with the first value the text mentions, and a list of enum
// values with all it names; a list the text adds to or removes from is also an edit.
func (f *filler) enums() {
	// one choice first, then lists: a value said once that one choice took is not also a
	// list's ("I want red and Sport": the Sport trim, not the Sport package too)
	props := slices.Clone(f.schema.props)
	slices.SortStableFunc(props, func(a, b *property) int {
		switch x, y := a.schema.isArray(), b.schema.isArray(); {
		case x == y:
			return 0
		case x:
			return 1
		}
		return -1
	})
	for _, p := range props {
		ps := p.schema
		switch {
		case ps.stringEnum() && !ps.isArray():
			for i := range f.toks {
				f.used[i] = f.used[i] || boundAt(f.toks, i) && clockParam(p) // "after 3" names no time of the choices
			}
			var cands []enumCandidate
			for _, c := range f.enumMentions(ps.enum, true) {
				if ps.acceptsString(c.value) && !f.negatedAt(c.pos, exclusions) && !f.namedForOther(c.pos, p) { // "not a hatchback"
					cands = append(cands, c)
				}
			}
			if len(cands) > 0 {
				c := cands[0]
				if !clockParam(p) { // (a time said again is read by the rule "another time")
					c = f.corrected(cands)
				}
				f.claim(p, c.value, c.bonus, c.tok, c.tok+1) // tok -1 marks none
			}
			if i, last := extremeAt(f.toks); f.free(p) && i >= 0 && !f.used[i] && clockParam(p) {
				in := partOfDay(p, f.toks) // "saturday afternoon", then "earliest": 13:00
				e := in[0]
				if last {
					e = in[len(in)-1]
				}
				f.claim(p, e, bonusTyped, i, i+1)
			} else if _, said := timeSpan(f.toks); said && f.free(p) && clockParam(p) {
				if in := partOfDay(p, f.toks); len(in) == 1 {
					f.claim(p, in[0], bonusTyped, -1, -1) // "after 4": the one time there is
				}
			}
		case ps.isArray() && ps.items != nil && ps.items.stringEnum():
			e, adding := &listEdit{add: []string{}}, false
			var toks []int
			for _, c := range f.enumMentions(ps.items.enum, false) {
				if slices.Contains(e.add, c.value) || slices.Contains(e.drop, c.value) || f.namedForOther(c.pos, p) || f.insideOther(c.pos, p) || f.takenOnce(c.value) {
					continue
				}
				if c.tok >= 0 {
					toks = append(toks, c.tok)
				}
				if cue := f.listCue(c.pos); cue == "drop" {
					e.drop = append(e.drop, c.value)
				} else {
					adding = adding || cue == "add"
					e.add = append(e.add, c.value)
				}
			}
			if len(e.add)+len(e.drop) == 0 {
				// "remove the packages", "take all the packages off": none of them
				if i := slices.IndexFunc(f.toks, func(t token) bool { return nounOf(t, p) && strings.HasSuffix(strings.ToLower(t.raw), "s") }); i >= 0 && f.listCue(i) == "drop" {
					f.claim(p, []string{}, bonusEnum, i, i+1)
				}
				continue
			}
			if len(e.add) > 0 && !ps.acceptsStrings(e.add) {
				continue
			}
			for _, t := range toks {
				f.used[t] = true
			}
			f.set(p, e.add, bonusEnum)
			if adding || len(e.drop) > 0 {
				f.edits[p.name] = e
			}
		}
	}
}

// corrected is the value of one choice the words settle on among several said: not one taken
// back ("no GT after all, EcoBoost please", "drop the elite go w/ ex-l"), else the last said
// after a correction ("red. no wait, gray"); else the first found.
func (f *filler) corrected(cands []enumCandidate) enumCandidate {
	kept := slices.DeleteFunc(slices.Clone(cands), func(c enumCandidate) bool {
		return f.listCue(c.pos) == "drop" && slices.ContainsFunc(cands, func(o enumCandidate) bool { return o.value != c.value })
	})
	if len(kept) == 0 {
		return cands[0]
	}
	last := slices.MaxFunc(kept, func(a, b enumCandidate) int { return a.pos - b.pos })
	first := slices.MinFunc(kept, func(a, b enumCandidate) int { return a.pos - b.pos })
	if last.value != first.value && slices.ContainsFunc(f.toks[first.pos:last.pos], func(t token) bool { return correctionWords[t.norm] }) {
		return last
	}
	return kept[0]
}

// takenOnce reports a value said once that a parameter of one choice took already.
func (f *filler) takenOnce(v string) bool {
	said := 0
	for _, t := range f.toks {
		if strings.EqualFold(t.raw, v) {
			said++
		}
	}
	return said == 1 && slices.ContainsFunc(f.schema.props, func(q *property) bool {
		s, ok := f.values[q.name].(string)
		return ok && q.schema.stringEnum() && !q.schema.isArray() && strings.EqualFold(s, v)
	})
}

// namedForOther reports a value followed by the name of another parameter: "sport" in "the
// sport trim" is the trim, not the Sport package.
func (f *filler) namedForOther(i int, p *property) bool {
	if i+1 >= len(f.toks) || f.toks[i+1].kind != kindWord {
		return false
	}
	// (a figure is no name nor e-mail: "friday at 10 name alex park", the label of what follows)
	figure := f.toks[i].kind == kindNumber || f.toks[i].kind == kindTime
	return slices.ContainsFunc(f.schema.props, func(q *property) bool {
		// (a parameter named by a preposition labels what follows it: "comedy from friday")
		return q != p && nounOf(f.toks[i+1], q) && !(figure && q.schema.isString() && !q.schema.stringEnum()) && !prepositionNames[q.name]
	})
}

// insideOther reports token i inside a longer value of another parameter: "Sport" of the trim
// "M Sport" is no sport package.
func (f *filler) insideOther(i int, p *property) bool {
	return slices.ContainsFunc(f.schema.props, func(q *property) bool {
		return q != p && slices.ContainsFunc(q.schema.allEnums(), func(e enumValue) bool {
			return e.isStr && strings.Contains(e.str, " ") && slices.ContainsFunc([]int{i - 4, i - 3, i - 2, i - 1}, func(k int) bool {
				return k >= 0 && spelledAt(f.toks, k, e.str) > i // ("TRD Off-Road": no off-road package)
			})
		})
	})
}

// nounOf reports a word that is a word of the parameter's name, in the singular or the
// plural ("package" of packages, "trims" of trim; "dolor" is no typo of color here).
func nounOf(t token, p *property) bool {
	return slices.ContainsFunc(p.words, func(w string) bool { return t.norm == w || t.norm == w+"s" || t.norm+"s" == w })
}

// negatedAt reports a value one of the two words before token i negates: "not a hatchback"
// (exclusions), "no breakfast" (negations).
func (f *filler) negatedAt(i int, negs map[string]bool) bool {
	return slices.ContainsFunc(f.toks[max(0, i-2):i], func(t token) bool { return negs[t.norm] })
}

// listCue says whether the words before token i remove a value from a list ("remove the
// roof", "without the tech package", "take off the roof") or add one to it ("add the winter
// package", "plus the roof"): "drop", "add" or "".
func (f *filler) listCue(i int) string {
	for k := i - 1; k >= 0 && k >= i-5 && (f.toks[k].kind == kindWord || f.toks[k].raw == "-"); k-- { // "add that and the safety one", "add driver assistance and the sound package", "remove the off-road package"
		switch strings.ToLower(f.toks[k].raw) {
		case "remove", "without", "no", "drop", "minus", "delete", "exclude", "skip", "lose", "undo", "forget", "ditch", "scrap":
			return "drop"
		case "not":
			if k+1 == i || wordAt(f.toks, k+1, "the", "a", "any") {
				return "drop" // "the Sport trim, but not the sport package"
			}
		case "want", "need":
			if wordAt(f.toks, k-1, "dont", "don't", "not") {
				return "drop" // "I don't want the winter package after all"
			}
		case "off", "out":
			if k > 0 && (strings.EqualFold(f.toks[k-1].raw, "take") || strings.EqualFold(f.toks[k-1].raw, "leave")) {
				return "drop"
			}
		case "add", "plus", "also", "include":
			return "add"
		case "and":
			if k == 0 && !anyNorm(f.toks, "instead") {
				return "add" // "And the Home charger." after the towing package (not "and in Limited with the winter pkg instead?")
			}
		}
	}
	for k := i + 1; k < len(f.toks) && k <= i+4; k++ { // "the family package as well", "… too"
		if wordAt(f.toks, k, "too", "also") || wordAt(f.toks, k, "as") && wordAt(f.toks, k+1, "well") {
			return "add"
		}
		if wordAt(f.toks, k, "off", "out") && slices.ContainsFunc(f.toks[max(0, i-4):i], func(t token) bool { return t.norm == "take" || t.norm == "leave" }) {
			return "drop" // "take the cargo off", "leave the roof out"
		}
	}
	return ""
}

var idRe = regexp.MustCompile(`^[A-Za-z]{1,4}(?:[_-][A-Za-z]{1,10}){0,3}[_-]?[0-9]{1,8}$`)

// takesIDs reports a parameter for one item's id or a list of them.
func takesIDs(p *property) bool {
	single, list := idParam(p)
	return single || list
}

// idParam reports a parameter named like carId ("id": single) or carIds ("ids": list).
func idParam(p *property) (single, list bool) {
	s, last := p.schema, lastWord(p)
	single = last == "id" && s.isString() && !s.stringEnum()
	list = !single && (last == "ids" || last == "id") && s.isArray() &&
		(s.items == nil || s.items.isString() && !s.items.stringEnum())
	return single, list
}

// lastWord is the last word of a parameter's name: "id" of carId (convert gives every name one).
func lastWord(p *property) string { return p.words[len(p.words)-1] }

// refParam reports a string parameter named like a reference that an id-like value fits
// (bookingReference, orderNumber, promoCode): "HV-1234" goes into it whole. Unlike an id
// parameter it still takes free text when the text has no such value.
func refParam(p *property) bool {
	return slices.Contains([]string{"ref", "reference", "code", "number"}, lastWord(p)) &&
		plainString(p) && !phoneKind.wants(p)
}

// ids fills carId-like parameters with the first id in the text and carIds-like lists with
// all; reference-like parameters (refParam) with the first id in the text.
func (f *filler) ids() {
	// A parameter with its own pattern picks first: "M00001" is the memberNumber its pattern
	// fits, not the classId any id fits.
	props := slices.Clone(f.schema.props)
	free := func(p *property) int { return map[bool]int{true: 1}[p.schema.pattern == nil] }
	slices.SortStableFunc(props, func(a, b *property) int { return free(a) - free(b) })
	for _, p := range props {
		single, list := idParam(p)
		single = single || !list && refParam(p)
		if !single && !list {
			continue
		}
		check := p.schema
		if list && p.schema.items != nil {
			check = p.schema.items
		}
		var vs []string
		var at []int
		for i := 0; i < len(f.toks) && (!single || len(vs) == 0); i++ {
			t := f.toks[i]
			if f.used[i] || (t.kind != kindWord && t.kind != kindNumber) {
				continue
			}
			// An id may span tokens written together: "bk-202", "c-spin-tue-18"; the longest
			// that is one wins.
			j := i
			for j < i+8 && j+1 < len(f.toks) && f.toks[j+1].start == f.toks[j].end && !f.used[j+1] {
				j++
			}
			for ; j >= i; j-- {
				raw := f.text[t.start:f.toks[j].end]
				if t.kind == kindNumber && j == i {
					raw = t.raw
				}
				// A parameter's own pattern (which acceptsString checks) replaces idRe.
				if (check.pattern != nil || idRe.MatchString(raw)) && check.acceptsString(raw) && !slices.Contains(vs, raw) {
					vs = append(vs, raw)
					for k := i; k <= j; k++ {
						at = append(at, k)
					}
					i = j
					break
				}
			}
		}
		switch {
		case len(vs) == 0:
			continue
		case single:
			f.set(p, vs[0], bonusID)
		case p.schema.acceptsStrings(vs):
			f.set(p, vs, bonusID)
		default:
			// Too few or too many ids ("compare c03") still point at this tool, which
			// will ask for a valid list.
			f.score += bonusTyped
			continue
		}
		for _, i := range at {
			f.used[i] = true
		}
	}
}

func hasWord(p *property, words ...string) bool {
	return slices.ContainsFunc(p.words, func(w string) bool { return slices.Contains(words, w) })
}

// plainString reports a string parameter without enum or format.
func plainString(p *property) bool {
	return p.schema.isString() && !p.schema.stringEnum() && p.schema.format == "" && !p.schema.isArray()
}

// valueKind is a kind of value a parameter wants: the parameter says it by its format or by
// a word of its name, and find reads one such value in the text (the value and the tokens from
// up to to it takes). One function fills every kind (typed).
type valueKind struct {
	formats []string
	words   []string
	find    func(f *filler, p *property) (v string, from, to int)
	bonus   float64
}

func (k valueKind) wants(p *property) bool {
	return p.schema.isString() &&
		(slices.Contains(k.formats, p.schema.format) || plainString(p) && hasWord(p, k.words...))
}

var (
	emailKind = valueKind{[]string{"email", "idn-email"}, []string{"email"},
		tokenOf(kindEmail, func(s string) bool { return emailRe.FindString(s) == s }), bonusTyped}
	dateKind  = valueKind{[]string{"date"}, []string{"date", "day", "birthday", "dob"}, tokenOf(kindDate, nil), bonusTyped}
	timeKind  = valueKind{nil, []string{"time", "hour", "slot"}, tokenOf(kindTime, nil), bonusTyped}
	phoneKind = valueKind{nil, []string{"phone"},
		tokenOf(kindPhone, func(s string) bool { return phoneLike(s, true) }), bonusTyped}
	// A file path written whole ("move /a.txt to /b.txt": source, then destination).
	pathKind = valueKind{nil,
		strings.Fields(`path file filename filepath dir directory folder source destination src dest`),
		(*filler).path, bonusEnum}
	// "books by Frank Herbert", "songs by Nina Simone": the capitalised words after "by".
	creatorKind = valueKind{nil, strings.Fields(`author writer artist creator director composer painter band`),
		func(f *filler, p *property) (string, int, int) { return f.capsAfter(p, "by", false) }, bonusEnum}
	// "from LHR to BER", "flights to Berlin": the capitalised words after the preposition a
	// parameter is named by (from, to) or means (origin, destination).
	placeKind = valueKind{nil, strings.Fields(`from to origin destination departure arrival`),
		func(f *filler, p *property) (string, int, int) {
			cue, from := "to", hasWord(p, "from", "origin", "departure")
			if from {
				cue = "from"
			}
			if v, i, k := f.capsAfter(p, cue, false); v != "" || !from {
				return v, i, k
			}
			// "LHR to CDG": the capitalised word before "to" the place after it
			for i := 1; i+1 < len(f.toks); i++ {
				if t := f.toks[i-1]; f.toks[i].norm == "to" && !f.used[i-1] && t.kind == kindWord && unicode.IsUpper([]rune(t.raw)[0]) &&
					unicode.IsUpper([]rune(f.toks[i+1].raw)[0]) && p.schema.acceptsString(t.raw) {
					return t.raw, i - 1, i
				}
			}
			return "", 0, 0
		}, bonusEnum}
	// "name Ada Lovelace", "name is Ada Lovelace", or a name written bare ("Jane Doe, jane@…").
	nameKind = valueKind{nil, []string{"name"}, func(f *filler, p *property) (string, int, int) {
		if v, from, to := f.capsAfter(p, "name", true); v != "" {
			return v, from, to
		}
		if v, from, to := f.introName(p); v != "" {
			return v, from, to
		}
		return f.bareName(p)
	}, bonusTyped}
	// typedKinds are the kinds of value a token is (never free text); valueKinds are filled in
	// this order, each parameter with the values of its kind.
	typedKinds = []valueKind{emailKind, dateKind, timeKind, phoneKind}
	valueKinds = append(slices.Clip(typedKinds), pathKind, creatorKind, placeKind, nameKind)
)

// typed fills the parameters that want a kind of value (emails, dates, paths, names…) with
// the values of that kind, in the order of both.
func (f *filler) typed() {
	for _, k := range valueKinds {
		for _, p := range f.schema.props {
			if !f.free(p) || !k.wants(p) {
				continue
			}
			if v, from, to := k.find(f, p); v != "" {
				f.claim(p, v, k.bonus, from, to)
			}
		}
	}
}

// tokenOf finds the first unused token of kind k, or quote that reads as one (when quoted is
// given), that the parameter accepts.
func tokenOf(k kind, quoted func(string) bool) func(*filler, *property) (string, int, int) {
	return func(f *filler, p *property) (string, int, int) {
		for i, t := range f.toks {
			if !f.used[i] && (t.kind == k || t.kind == kindQuote && quoted != nil && quoted(t.raw)) &&
				p.schema.acceptsString(t.raw) {
				return t.raw, i, i + 1
			}
		}
		return "", 0, 0
	}
}

// path finds the first path written in the text; a file's ("new.txt") is not for a tool
// about directories.
func (f *filler) path(p *property) (string, int, int) {
	dir := slices.ContainsFunc(identWords(f.def.Name), func(w string) bool {
		return w == "directory" || w == "dir" || w == "folder"
	})
	for i, t := range f.toks {
		if f.used[i] || t.kind != kindPath {
			continue
		}
		if path.Ext(t.raw) != "" && dir || !p.schema.acceptsString(t.raw) {
			break
		}
		return t.raw, i, i + 1
	}
	return "", 0, 0
}

// capsAfter finds the capitalised words (at most four) after the word cue: "by Frank Herbert",
// "name is Ada Lovelace" (with is, "is" or "=" may stand between).
func (f *filler) capsAfter(p *property, cue string, is bool) (string, int, int) {
	for i, t := range f.toks {
		if f.used[i] || t.kind != kindWord || t.norm != cue {
			continue
		}
		j := i + 1
		if is && j < len(f.toks) && (f.toks[j].norm == "is" || f.toks[j].raw == "=") {
			j++
		}
		if wordAt(f.toks, j, "spelled", "spelt") { // "my name is spelled Markus, with a k"
			j++
		}
		// "name is ali ray", "name kim lee" to begin with: said so, lower case is a name too
		// ("my name's nia lo": "'s" is "is")
		k, said := j, j > i+1 || i == 0 || f.toks[i-1].raw == "," || is && strings.HasSuffix(strings.ToLower(strings.ReplaceAll(t.raw, "’", "'")), "'s")
		for k < len(f.toks) && k < j+5 && (f.joined(k, j) || f.toks[k].kind == kindWord && !f.used[k] &&
			(unicode.IsUpper([]rune(f.toks[k].raw)[0]) || said && !ordinary(f.toks[k].norm) && f.vocab[f.toks[k].norm] == 0)) {
			k++ // ("Rosa Delgado-Finch": a hyphen joins two words of a name)
		}
		if k > j && f.toks[k-1].raw == "-" {
			k--
		}
		if k == j {
			continue
		}
		if v := f.text[f.toks[j].start:f.toks[k-1].end]; p.schema.acceptsString(v) {
			return v, i, k
		}
	}
	return "", 0, 0
}

// introName finds the capitalised words after "I'm" or "I am": "im Sam", "I am Jo Lee".
func (f *filler) introName(p *property) (string, int, int) {
	for i := range f.toks {
		j := i + 1
		if wordAt(f.toks, i, "i") && wordAt(f.toks, j, "am") {
			j++
		} else if !wordAt(f.toks, i, "i'm", "im", "i’m") {
			continue
		}
		k := j
		for k < len(f.toks) && k < j+4 && (f.joined(k, j) || f.toks[k].kind == kindWord && !f.used[k] && unicode.IsUpper([]rune(f.toks[k].raw)[0]) && f.vocab[f.toks[k].norm] == 0) {
			k++ // ("I'm Mary-Kate Olsen")
		}
		if k > j && f.toks[k-1].raw == "-" {
			k--
		}
		// (or a clause of its own: "im mike" when the form asks for the name)
		clause := i == 0 || f.toks[i-1].kind == kindPunct
		if k == j && (clause || slices.ContainsFunc(f.toks, contactToken)) {
			// "apply. im chris p. email chris.p@gmail.com": in lower case, words of no request
			// ending the clause, beside an e-mail or phone
			// ("im jess k": an initial after the name)
			initial := func(k int) bool {
				return k > j && f.toks[k].kind == kindWord && utf8.RuneCountInString(f.toks[k].raw) == 1
			}
			for k < len(f.toks) && k < j+3 && f.toks[k].kind == kindWord && !f.used[k] && (f.vocab[f.toks[k].norm] == 0 &&
				!stopWords[f.toks[k].norm] && !lexicon[f.toks[k].norm] && !replyWords[f.toks[k].norm] || initial(k)) {
				k++
			}
			if k < len(f.toks) && f.toks[k].kind != kindPunct {
				k = j
			}
		}
		if k == j {
			continue // "I am" ending the message: no name
		}
		if v := f.text[f.toks[j].start:f.toks[k-1].end]; p.schema.acceptsString(v) {
			return v, i, k
		}
	}
	return "", 0, 0
}

// howIAm reports a word that says how the visitor is, not who: "im ready, dana@…",
// "i'm thinking", "i'm interested".
func howIAm(w string) bool {
	return stateWords[w] || len(w) > 5 && strings.HasSuffix(w, "ing")
}

// stateWords are short words for how the visitor is.
var stateWords = wordSet(`happy ready good fine great ok okay done sure set keen glad new back
	here there just still also so very really sorry afraid busy free open unsure curious excited
	tired confused pleased satisfied settled retired single married interested`)

// bareName finds a name written without "my name is": two or three words no tool knows,
// capitalised ("Jane Doe, jane@…") or next to an e-mail address.
func (f *filler) bareName(p *property) (string, int, int) {
	contact := slices.IndexFunc(f.toks, contactToken) // an e-mail or a phone: "jo kim 555 222 1111"
	var v string
	var from, to int
	for i := 0; i < len(f.toks); {
		j, n := i, 0 // n counts the run's words
		for j < len(f.toks) && n < 4 && (f.nameWord(j) || f.initial(j) || f.joined(j, i)) {
			if f.toks[j].kind == kindWord {
				n++
			}
			j++
		}
		if j > i && f.toks[j-1].raw == "-" {
			j-- // ("Jo-" of "Jo-2")
		}
		caps := !slices.ContainsFunc(f.toks[i:j], func(t token) bool {
			r, _ := utf8.DecodeRuneInString(t.raw)
			return t.kind == kindWord && !unicode.IsUpper(r)
		})
		// a first name alone right before the e-mail or phone: "…, jo, jo@x.io" (not "my number 07700 …")
		alone := j-i == 1 && contact >= j && !slices.ContainsFunc(f.toks[j:contact], func(t token) bool { return t.raw != "," }) &&
			!wordAt(f.toks, i-1, "my", "our", "the", "a")
		if (n >= 2 || alone) && n <= 3 && (caps || contact >= 0) { // the run stopped at a word of no name
			if s := f.text[f.toks[i].start:f.toks[j-1].end]; p.schema.acceptsString(s) {
				v, from, to = s, i, j
				if contact < 0 || f.toks[j-1].end > f.toks[contact].start {
					break // in capitals: the first; with an e-mail: the last before it ("… at 4pm, max lee max@lee.de")
				}
			}
		}
		i = max(j, i+1)
	}
	if v == "" {
		return f.nameAnswer(p)
	}
	return v, from, to
}

// nameAnswer is a name in lower case that is all of an answer, the words after the last
// comma ("saturday 11am , kevin m", "… , j smith"): one to three words of no request, one
// of them perhaps an initial.
func (f *filler) nameAnswer(p *property) (string, int, int) {
	i := len(f.toks)
	for i > 0 && f.toks[i-1].raw != "," {
		i--
	}
	n, long := len(f.toks)-i, 0
	for k := i; k < len(f.toks); k++ {
		switch {
		case f.toks[k].kind == kindWord && utf8.RuneCountInString(f.toks[k].raw) == 1 && !stopWords[f.toks[k].norm]:
		case f.toks[k].raw == "." && f.initial(k): // "sofia m."
			n--
		case replyWords[f.toks[k].norm]: // "nah", "sounds good": a reply, no name
			return "", 0, 0
		case f.nameWord(k):
			long++
		default:
			return "", 0, 0
		}
	}
	if i == 0 || n == 0 || n > 3 || long == 0 {
		return "", 0, 0
	}
	if v := f.text[f.toks[i].start:f.toks[len(f.toks)-1].end]; p.schema.acceptsString(v) {
		return v, i, len(f.toks)
	}
	return "", 0, 0
}

// replyWords answer or put off a question without naming anything.
var replyWords = wordSet(`nah yeah yep yup yes nope no ok okay sure fine good great cool thanks thank
	sounds later maybe perfect awesome nice alright right wait hold hmm sorry whatever`)

// initial reports a letter and its full stop, as a name writes an initial: the "C." of
// "Laura C.", the "T." of "T. Nguyen", "J.R." of "J.R. Hartley".
func (f *filler) initial(i int) bool {
	t := f.toks[i]
	if t.raw == "." {
		return i > 0 && f.toks[i-1].end == t.start && f.toks[i-1].kind == kindWord && utf8.RuneCountInString(f.toks[i-1].raw) == 1
	}
	r, _ := utf8.DecodeRuneInString(t.raw)
	// (in lower case only right before the e-mail or phone: "sofia m. sofia@m.io")
	return t.kind == kindWord && utf8.RuneCountInString(t.raw) == 1 && !f.used[i] && i+1 < len(f.toks) &&
		f.toks[i+1].raw == "." && f.toks[i+1].start == t.end && (unicode.IsUpper(r) || i+2 < len(f.toks) && contactToken(f.toks[i+2]))
}

// joined reports the hyphen of a double name in a run that started at from: "Jo-Ann".
func (f *filler) joined(i, from int) bool {
	t := f.toks[i]
	return t.raw == "-" && i > from && i+1 < len(f.toks) && f.toks[i-1].end == t.start && f.toks[i+1].start == t.end &&
		f.toks[i+1].kind == kindWord
}

// nameWord reports a word of a name: not a word of the tool nor an ordinary one, unless it is
// capitalised right before an e-mail or a phone ("Max Mustermann max@muster.de": "max" is
// otherwise a bound's word).
func (f *filler) nameWord(i int) bool {
	t, next := f.toks[i], i+1
	if strings.HasPrefix(f.text[t.end:], ":") {
		return false // a label: "apply: jan ito, …"
	}
	if next < len(f.toks) && f.toks[next].raw == "," {
		next++
	}
	letter := t.kind == kindWord && len(t.raw) == 1 && !stopWords[t.norm] && !f.used[i] // an initial, as typed
	if letter && i > 0 && next < len(f.toks) && contactToken(f.toks[next]) && f.nameWord(i-1) {
		return true // an initial before the e-mail: "ron j ron@j.co", "Chris P, chris@p.com"
	}
	if letter && i+1 < len(f.toks) && len(f.toks[i+1].raw) >= 2 && f.nameWord(i+1) && slices.ContainsFunc(f.toks, contactToken) {
		return true // a first initial with an e-mail in the text: "j smith , jsmith@gmail.com"
	}
	r, _ := utf8.DecodeRuneInString(t.raw)
	person := unicode.IsUpper(r) && !stopWords[t.norm] && personName(f.toks, i) ||
		slices.ContainsFunc(f.toks, func(e token) bool { // "max" of "max lee max@lee.de"
			local, _, _ := strings.Cut(strings.ToLower(e.raw), "@")
			return e.kind == kindEmail && len(t.raw) >= 3 && strings.Contains(local, strings.ToLower(t.raw))
		})
	// "An" of "Pham Van An pham.an@gmail.com": a capitalised word that ends a name, right
	// before the e-mail or phone
	last := unicode.IsUpper(r) && i > 0 && next < len(f.toks) && contactToken(f.toks[next]) && f.nameWord(i-1)
	return t.kind == kindWord && !f.used[i] && len(t.raw) >= 2 && (!ordinary(t.norm) && !askingWord(t.norm) && !howIAm(t.norm) || person || last) &&
		f.vocab[t.norm] == 0 && !correctionWords[t.norm] && !idRe.MatchString(t.raw) // "c09 instead" is no name
}

// askingWord is a word of asking or of a kind of value, no part of a name: "wanna", "slot"
// (left over from "i wanna tets drive …", "… the first slot on monday").
func askingWord(w string) bool { return preambleWords[w] || kindWords[w] }

// kindWords are the words that name a typed kind of value: "email", "time", "slot".
var kindWords = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range typedKinds {
		for _, w := range k.words {
			m[normWord(w)] = true
		}
	}
	return m
}()

// quotes gives each quoted text to the string parameter named just before it (name "Ada"),
// or else, when no word names one, to the next free plain string parameter.
func (f *filler) quotes() {
	for i, t := range f.toks {
		if f.used[i] || t.kind != kindQuote {
			continue
		}
		var cands []*property
		for _, l := range f.wordsNear(i, -1, -1, 3) {
			for _, p := range f.schema.props {
				if f.free(p) && plainString(p) && matchesParam(l.word, p) {
					cands = append(cands, p)
				}
			}
		}
		if len(cands) == 0 {
			for _, p := range f.schema.props {
				if single, _ := idParam(p); f.free(p) && plainString(p) && !single {
					cands = append(cands, p)
				}
			}
		}
		if k := slices.IndexFunc(cands, func(p *property) bool { return p.schema.acceptsString(t.raw) }); k >= 0 {
			f.claim(cands[k], t.raw, bonusTyped, i, i+1)
		}
	}
}

// label is a word near a number or quote, at a distance counted in content words.
type label struct {
	word string
	dist float64
	at   int
}

// beforeDistance makes a word before a number count less than the same word after it: the
// word after is usually its unit ("60 months", "5000 down").
const beforeDistance = 4.0 / 3

// wordsNear returns up to n content words from token i on in the direction step (-1 before,
// 1 after), nearest first, stopping at anything that is not a word and at token stop.
func (f *filler) wordsNear(i, step, stop, n int) []label {
	var out []label
	for j := i + step; j != stop && j >= 0 && j < len(f.toks) && len(out) < n; j += step {
		switch t := f.toks[j]; {
		case step < 0 && t.kind == kindSym && t.raw == "=": // "price = 30000"
		case t.kind != kindWord || t.norm == "but": // ("back to 24 but keep the down payment")
			return out
		case step > 0 && (t.norm == "with" || qualityWords[t.norm]): // ("an SUV under 35000 with low mileage": no mileage of 35000)
			return out
		case step < 0 && j > 0 && qualityWords[f.toks[j-1].norm]: // ("low mileage suv under 40000": a wish, no label)
		case !stopWords[t.norm] && !cueWordSet[t.norm]:
			d := float64(len(out) + 1)
			if step < 0 {
				d *= beforeDistance
			}
			out = append(out, label{t.norm, d, j})
		}
	}
	return out
}

// qualityWords wish for a quality of a field without a figure: "low mileage", "high mpg".
var qualityWords = wordSet(`low lower lowest high higher highest little less good`)

// units name the parameters a unit or label word usually belongs to.
var units = map[string][]string{
	"mile": {"mileage", "odometer", "distance"}, "km": {"mileage", "odometer", "distance"},
	"kilometer": {"mileage", "odometer", "distance"}, "kilometre": {"mileage", "odometer", "distance"},
	"month": {"term"}, "year": {"term"}, "percent": {"apr", "rate", "interest"},
	"apr": {"rate", "interest"}, "interest": {"apr", "rate"}, "rate": {"apr", "interest"},
	"dollar": {"price", "cost", "amount", "budget"}, "budget": {"price", "amount"},
	"cost": {"price"}, "deposit": {"down"}, "down": {"deposit"}, "salary": {"income"},
	"earn": {"income", "salary"}, "pay": {"payment"}, "bed": {"bedroom", "bedrooms"}, "br": {"bedroom", "bedrooms"},
}

var (
	maxWords   = []string{"max", "maximum", "upper"}
	minWords   = []string{"min", "minimum", "lower"}
	moneyWords = strings.Fields("price cost amount budget payment income salary fee deposit total")
	rateWords  = strings.Fields("apr rate interest percent percentage")
	// negations turn "with breakfast" into "without breakfast"; exclusions leave out an enum's value.
	negations  = wordSet(`no not without don't dont never skip`)
	exclusions = wordSet(`not except non`)
)

// booleans sets a yes/no parameter the text names: "with breakfast" gives breakfast true,
// "no breakfast" or "without breakfast" false. A word only counts when it names one
// parameter of the tool, so "breakfast" does not also set breakfastTime's neighbours.
func (f *filler) booleans() {
	for _, p := range f.schema.props {
		if !f.free(p) || !slices.Equal(p.schema.types, []string{"boolean"}) {
			continue
		}
		for i, t := range f.toks {
			if f.used[i] || t.kind != kindWord || stopWords[t.norm] || !matchesParam(t.norm, p) ||
				slices.ContainsFunc(f.schema.props, func(q *property) bool { return q != p && matchesParam(t.norm, q) }) {
				continue
			}
			f.claim(p, json.RawMessage(strconv.FormatBool(!f.negatedAt(i, negations))), bonusEnum, i, i+1)
			break
		}
	}
}

// wordsFrom is the index of the first token from i on that is none of the words.
func wordsFrom(toks []token, i int, words ...string) int {
	for i < len(toks) && slices.Contains(words, toks[i].norm) {
		i++
	}
	return i
}

// matchesParam reports whether a word of the text names parameter p (a bound's word never does).
func matchesParam(word string, p *property) bool {
	return slices.ContainsFunc(p.words, func(pw string) bool {
		return !slices.Contains(maxWords, pw) && !slices.Contains(minWords, pw) &&
			(wordsMatch(word, pw) || slices.Contains(units[word], pw))
	})
}

// bound says whether a parameter is a lower ("min") or upper ("max") limit.
func bound(p *property) string {
	switch {
	case hasWord(p, maxWords...):
		return "max"
	case hasWord(p, minWords...):
		return "min"
	}
	return ""
}

// boundCue says whether the words put the number at token i as an upper ("max") or lower
// ("min") limit: "under 40k", "at least 2020", "40k or less".
func boundCue(toks []token, i int) string {
	for j := i; j >= max(i-3, 0) && (j == i || toks[j].kind == kindWord); j-- { // back over words
		switch {
		case endsWith(toks, j, notMaxCues):
			return "min"
		case endsWith(toks, j, maxCues):
			return "max"
		case endsWith(toks, j, minCues):
			return "min"
		}
	}
	switch {
	case startsWith(toks, i+1, maxCuesAfter):
		return "max"
	case startsWith(toks, i+1, minCuesAfter):
		return "min"
	}
	return ""
}

// numbers gives each number to the numeric parameter its neighbouring words and cue point to:
// "60 months" → termMonths, "5000 down" → downPayment, "under 40k" → maxPrice.
func (f *filler) numbers() {
	numeric := slices.DeleteFunc(slices.Clone(f.schema.props), func(p *property) bool {
		return !p.schema.isNumber() || p.schema.isArray() || !f.free(p)
	})
	var nums []int
	cues := map[int]string{}
	for i, t := range f.toks {
		if t.kind != kindNumber || f.used[i] {
			continue
		}
		cues[i] = boundCue(f.toks, i)
		// "between 20000 and 30000", "20000 to 30000", "2018-2020": a range.
		joint := f.toks[max(i-1, 0)]
		if prev, ok := cues[i-2]; ok && (joint.norm == "and" || joint.norm == "to" || joint.raw == "-") &&
			(prev == "min" || prev == "" && joint.raw == "-") {
			cues[i-2], cues[i] = "min", "max"
		}
		if slices.ContainsFunc(nums, func(j int) bool { // "a budget of $25,000 … under 25k": one amount said twice
			return t.money && f.toks[j].money && f.toks[j].value == t.value && cues[j] == cues[i]
		}) {
			continue
		}
		nums = append(nums, i)
	}
	type candidate struct {
		tok, prop           int
		value, score, bonus float64
	}
	var cands []candidate
	floor := -1
	for _, i := range nums {
		t := f.toks[i]
		if cues[i] == "" && wordAt(f.toks, i-1, "than") {
			continue // "is 5k down better than 2k?": a figure compared with, no value
		}
		after := f.wordsNear(i, 1, len(f.toks), 2)
		labels := append(after, f.wordsNear(i, -1, floor, 3)...)
		floor = i
		unit := "" // the unit or label word right after the number ("60 months", "6,000 down")
		if len(after) > 0 && after[0].at == i+1 {
			floor = i + 1
			if units[after[0].word] != nil && after[0].word != "dollar" {
				unit = after[0].word
			}
		}
		// "trade in my old car worth $3,000": the visitor's car, no value of this one
		trade := slices.ContainsFunc(f.toks[max(i-6, 0):i], func(t token) bool { return t.norm == "trade" || t.norm == "tradein" })
		for k, p := range numeric {
			v := t.value
			if trade && !hasWord(p, "trade") {
				continue
			}
			if len(after) > 0 && after[0].word == "year" && hasWord(p, "month") && !hasWord(p, "year") {
				v *= 12
			}
			if per := wordsFrom(f.toks, i+1, "a", "per", "each", "every"); per > i+1 && per < len(f.toks) && f.toks[per].norm == "month" {
				if !hasWord(p, "annual", "yearly", "month", "monthly", "payment", "rent") {
					continue // "under 300 a month" is no price under 300 (a rent is)
				}
				if hasWord(p, "annual", "yearly") {
					v *= 12 // "i earn 5,500 a month" of an annual income
				}
			}
			b := bound(p)
			if !p.schema.valid(v) || b != cues[i] && (b != "" || t.money) || t.percent && hasWord(p, moneyWords...) { // ("under 35k" is no price)
				continue // "20% down" is a share of the price, no amount (rewriteShares)
			}
			if b != "" && unit != "" && unit != "year" && !matchesParam(unit, p) {
				continue // "over 60 months" is no price over 60
			}
			score := 0.0
			for _, l := range labels {
				// (a word of the tool's own name labels none of its parameters: "the payment at
				// 48" of calculate_payment is no down payment of 48)
				if matchesParam(l.word, p) && !slices.Contains(identWords(f.def.Name), l.word) {
					score += 1 / l.dist
				}
			}
			if score == 0 && unit != "" && (unit != "year" || !hasWord(p, "annual", "yearly")) {
				continue // "$6,000 down" is no income: its unit names another parameter ("60k/yr" is one)
			}
			if t.money && hasWord(p, moneyWords...) {
				score += 0.5
			}
			if t.percent && hasWord(p, rateWords...) {
				score += 0.5
			}
			if (t.money || t.value >= 1000) && unit == "year" && hasWord(p, "annual", "yearly") {
				score++ // "85000 a year" is an annual income; "5 years" a term
			}
			if t.yearLike() && hasWord(p, "year") {
				score += 0.75
			}
			if score == 0 && !t.money && t.value < 1000 && hasWord(p, "annual", "yearly", "income", "salary") {
				continue // "make it 3 instead" (a time) is no income of $3, guessed or not
			}
			bonus := bonusTyped
			switch {
			case t.yearLike() && score == 0:
				continue // "from 2020 to 2022" is not a price nor a mileage
			case b != "":
				score++
			case score > 0:
			case len(numeric) == 1:
				score, bonus = 0.1, bonusGuess
			case len(p.schema.enum) > 1 && !t.money && !t.percent: // (one with a unit and no label went above)
				score, bonus = 0.1, bonusGuess // "and 48 with 3000 down": one of the terms
			default:
				continue
			}
			cands = append(cands, candidate{i, k, v, score, bonus})
		}
	}
	slices.SortStableFunc(cands, func(x, y candidate) int {
		return cmp.Or(cmp.Compare(y.score, x.score), x.tok-y.tok, x.prop-y.prop)
	})
	for _, c := range cands {
		if p := numeric[c.prop]; !f.used[c.tok] && f.free(p) {
			f.claim(p, c.value, c.bonus, c.tok, c.tok+1)
		}
	}
	// Required numbers that no word names ("a" and "b" of get-sum), as many as the numbers
	// no word claimed: in order ("add 3 and 4" gives a 3, b 4).
	req := slices.DeleteFunc(numeric, func(p *property) bool { return !p.required || !f.free(p) })
	left := slices.DeleteFunc(nums, func(i int) bool { return f.used[i] })
	if len(req) < 2 || len(req) != len(left) {
		return
	}
	for j, p := range req {
		if !p.schema.valid(f.toks[left[j]].value) {
			return
		}
	}
	for j, p := range req {
		f.claim(p, f.toks[left[j]].value, bonusGuess, left[j], left[j]+1)
	}
}
