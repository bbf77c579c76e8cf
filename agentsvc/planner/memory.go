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

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/tools"
)

// item is one thing the conversation has seen in a tool result: a row with an id ("c01") and
// a name ("2023 Toyota RAV4"), and the fields the result gave for it.
type item struct {
	id    string
	name  string
	words []string            // compact lower-case words of the name ("crv" for "CR-V")
	attrs map[string][]string // string fields and lists of strings, lower case
	nums  map[string]float64  // numeric fields
}

// itemIDs are the ids of items, in order.
func itemIDs(items []*item) []string {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.id
	}
	return ids
}

// memory is what the planner knows from the tool results of the conversation.
type memory struct {
	items map[string]*item // by id, the latest version
	order []string         // ids in the order first seen
	last  []*item          // the most recent result that listed items, in its order
	money moneyStyle
	kinds map[string]bool // kind's words, made at its first use
}

// kind reports a value of a field of an item seen that is no part of that item's name
// ("convertible" of the Miata, "hybrid"): a kind of item, though another name may hold it
// ("BMW 430i Convertible"); a make or a model is in the names of its items.
func (m *memory) kind(said string) bool {
	if m.kinds == nil {
		m.kinds = map[string]bool{}
		for _, it := range m.items {
			for _, vs := range it.attrs {
				for _, v := range vs {
					if !strings.Contains(strings.ToLower(it.name), v) {
						m.kinds[v] = true
					}
				}
			}
		}
	}
	return m.kinds[strings.ToLower(said)]
}

// moneyStyle is how the page writes amounts: its currency sign and where it goes.
type moneyStyle struct {
	sign   string
	after  bool   // "31.990 €"
	group  string // thousands separator
	marked bool   // a sign was seen in a result
}

var (
	structuredRe = regexp.MustCompile(`(?m)^\s*structuredContent:\s*(.+)$`)
	// rowRe finds "c01 2023 Toyota RAV4 $31990" in a result's text.
	rowRe = regexp.MustCompile(`(?:^|[:;|\n,]\s*|\s)([A-Za-z]{1,4}[_-]?[0-9]{1,8})\s+([^;|\n$€£(),]+?)(?:\s+([$€£]\s?[0-9][0-9,]*(?:\.[0-9]+)?))?\.?\s*(?:[;|\n),]|$)`)
	// nameBefore ends with a capitalised word: what follows is more of a name.
	nameBefore = regexp.MustCompile(`\b[A-Z][\w-]*\s+$`)
	moneyRe    = regexp.MustCompile(`([$£])\s?([0-9]+(?:,[0-9]{3})*(?:\.[0-9]+)?)|€\s?([0-9]+(?:[.,][0-9]{3})*(?:,[0-9]+)?)|([0-9]+(?:[.\s][0-9]{3})*(?:,[0-9]+)?)\s?€`)
	nameKeys   = []string{"name", "title", "label", "fullname", "displayname"}
	partKeys   = []string{"year", "make", "brand", "manufacturer", "model", "author", "variant"}
	letterRe   = regexp.MustCompile(`[A-Za-z]`)
	idKeyLike  = regexp.MustCompile(`(?i)^(id|.*[_-]id|.*[a-z]Id|sku|code|slug|ref|reference)$`)
)

// remember reads every tool result of msgs.
func remember(msgs []chat.Message) *memory {
	m := &memory{items: map[string]*item{}, money: moneyStyle{sign: "$", group: ","}}
	for _, msg := range msgs {
		if msg.Role == chat.RoleTool && !unwrap(msg.Content).isError {
			m.read(msg.Content)
		}
	}
	return m
}

// newItem is an item with no fields yet.
func newItem(id, name string) *item {
	it := &item{id: id, name: name, words: compactWords(name)}
	it.attrs, it.nums = map[string][]string{}, map[string]float64{}
	return it
}

// read learns the items of one result: its structured content's rows, else its text's rows.
func (m *memory) read(content string) {
	_, body, _, _ := tools.Unwrap(content) // the text without the agent's envelope
	m.learnMoney(body)
	var list []*item
	var v any // the structured content
	if sm := structuredRe.FindStringSubmatch(body); sm != nil {
		dec := json.NewDecoder(strings.NewReader(sm[1]))
		dec.UseNumber()
		if dec.Decode(&v) == nil {
			list = collectItems(v)
		}
	}
	labels := map[string]string{}
	var textList []*item
	text := structuredRe.ReplaceAllString(body, "")
	var rows [][]string
	for _, at := range rowRe.FindAllStringSubmatchIndex(text, -1) {
		// ("for the 2020 Audi A6 Avant at $38,900": A6 is no id); the last 64 bytes hold a word
		// before it, and reading only them keeps a long result's rows linear.
		if !nameBefore.MatchString(text[max(0, at[2]-64):at[2]]) {
			rows = append(rows, rowRe.FindStringSubmatch(text[at[0]:at[1]]))
		}
	}
	for _, r := range rows {
		label := strings.TrimSpace(r[2])
		first, _, _ := strings.Cut(label, " ")
		if !letterRe.MatchString(label) || clauseWords[normWord(first)] {
			continue
		}
		labels[r[1]] = cmp.Or(labels[r[1]], label) // the first mention names it
		it := newItem(r[1], label)
		if v, ok := parseMoney(r[3]); ok {
			it.nums["price"] = v
		}
		textList = append(textList, it)
	}
	if len(list) == 0 {
		list = textList
	}
	for _, it := range list {
		it.name = cmp.Or(it.name, labels[it.id], it.id)
		it.words = compactWords(it.name)
		if old, ok := m.items[it.id]; ok {
			// The new fields over the old: an earlier result's fields stay known.
			maps.Copy(old.attrs, it.attrs)
			maps.Copy(old.nums, it.nums)
			it.attrs, it.nums = old.attrs, old.nums
		} else {
			m.order = append(m.order, it.id)
		}
		m.items[it.id] = it
	}
	if len(list) > 0 || listsNothing(v, body) {
		m.last = list // a list that came back empty is the list now: nothing is on screen
	}
	// an item opened by its id, named beside it: "Opening the page of the 2022 Toyota Camry
	// (c09, $26,500)" when no list named it
	for _, n := range idNamed.FindAllStringSubmatch(text, -1) {
		if name := n[1][strings.LastIndex(n[1], "the ")+4:]; m.items[n[2]] == nil && letterRe.MatchString(name) {
			m.items[n[2]] = newItem(n[2], name)
			m.order = append(m.order, n[2])
		}
	}
}

// idNamed is an item's name with its id after it in parentheses.
var idNamed = regexp.MustCompile(`\bthe ([^()\n]+?) \(([A-Za-z]{1,4}[_-]?[0-9]{1,8})[,)]`)

// noneRe is a result's text saying that nothing matched: "Showing 0 cars", "no room matches".
var noneRe = regexp.MustCompile(`(?i)\bshowing\s+0\b|\b(?:0|no|zero)\s+\w+\s+(?:match|found)`)

// listsNothing reports a result that lists no items: its structured content counts 0 ("count",
// "total") or holds only empty lists, or its text says that nothing matched.
func listsNothing(v any, text string) bool {
	obj, _ := v.(map[string]any)
	for _, k := range []string{"count", "total"} { // "count" first when a result has both
		if x, ok := obj[k].(json.Number); ok {
			return x.String() == "0"
		}
	}
	lists, full := 0, 0
	for _, x := range obj {
		if x, ok := x.([]any); ok {
			lists++
			if len(x) > 0 {
				full++
			}
		}
	}
	return lists > 0 && full == 0 || noneRe.MatchString(text)
}

// learnTitles adds the items the tools' schemas offer before any result names them: enum
// values written like ids, with a title ("c01" titled "2023 Toyota RAV4").
func (m *memory) learnTitles(tools []chat.ToolDef) *memory {
	for _, t := range tools {
		for _, p := range parseSchema(t.Parameters).props {
			for _, e := range p.schema.allEnums() {
				if _, ok := m.items[e.str]; !ok && e.isStr && e.title != "" && idRe.MatchString(e.str) {
					m.items[e.str] = newItem(e.str, e.title)
					m.order = append(m.order, e.str)
				}
			}
		}
		// No result wrote an amount yet: a tool that says its currency ("Highest monthly rent
		// in EUR") tells the sign.
		if sm := currencyRe.FindStringSubmatch(t.Description + string(t.Parameters)); sm != nil && !m.money.marked {
			m.money.sign = cmp.Or(map[string]string{"EUR": "€", "GBP": "£"}[sm[1]], sm[2])
		}
	}
	return m
}

var currencyRe = regexp.MustCompile(`\b(EUR|GBP)\b|([€£])`)

// clauseWords open the rest of a sentence, not a name: "HV-6159 is confirmed for Jane Doe",
// "the 2023 Toyota RAV4 at $37,990" name no item.
var clauseWords = wordSet(`is are was were has have had will would can could cannot can't
	does did do not been be being has at in on for to from with by of as
	submitted booked sent received created confirmed cancelled canceled scheduled saved added`)

// learnMoney reads the page's way of writing amounts from the first result that has one.
func (m *memory) learnMoney(text string) {
	if m.money.marked {
		return
	}
	switch sm := moneyRe.FindStringSubmatch(text); {
	case sm == nil:
	case sm[1] != "":
		m.money = moneyStyle{sign: sm[1], group: ",", marked: true}
	case sm[3] != "":
		m.money = moneyStyle{sign: "€", group: groupOf(sm[3], ","), marked: true}
	default:
		m.money = moneyStyle{sign: "€", after: true, group: groupOf(sm[4], "."), marked: true}
	}
}

// groupRe finds a thousands separator: the first mark followed by three digits.
var groupRe = regexp.MustCompile(`[0-9]([. ,])[0-9]{3}(?:[^0-9]|$)`)

// groupOf is the thousands separator num is written with, def when it has none.
func groupOf(num, def string) string {
	if sm := groupRe.FindStringSubmatch(num); sm != nil {
		return sm[1]
	}
	return def
}

// parseMoney reads an amount as written in a result: "$31,990" is 31990.
func parseMoney(s string) (float64, bool) {
	s = strings.ReplaceAll(strings.TrimLeft(s, "$€£ "), ",", "")
	v, err := strconv.ParseFloat(strings.TrimRight(s, "."), 64)
	return v, err == nil
}

// format writes an amount the page's way: "$31,990", "$597.50", "31.990 €".
func (s moneyStyle) format(v float64) string {
	whole, cents, _ := strings.Cut(strconv.FormatFloat(math.Abs(v), 'f', 2, 64), ".")
	var b strings.Builder
	if v < 0 {
		b.WriteString("-")
	}
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteString(s.group)
		}
		b.WriteRune(r)
	}
	if v != math.Trunc(v) {
		b.WriteString(map[bool]string{false: ".", true: ","}[s.group == "."] + cents)
	}
	if s.after {
		return b.String() + " " + s.sign
	}
	return s.sign + b.String()
}

// collectItems finds the rows of a structured result: objects with an id, in arrays at any depth.
func collectItems(v any) []*item {
	var out []*item
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		if depth > 6 {
			return
		}
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				obj, _ := e.(map[string]any)
				if it := itemOf(obj); it != nil {
					out = append(out, it)
				} else {
					walk(e, depth+1)
				}
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(x[k], depth+1)
			}
		}
	}
	walk(v, 0)
	return out
}

// itemOf reads one row; nil when it has no id.
func itemOf(obj map[string]any) *item {
	id := ""
	for _, k := range []string{"id", "ID", "Id"} {
		switch x := obj[k].(type) {
		case string, json.Number:
			id = cmp.Or(id, fmt.Sprint(x))
		}
	}
	if id == "" {
		return nil
	}
	it := newItem(id, "")
	lower := map[string]any{}
	for k, v := range obj {
		lk := strings.ToLower(k)
		lower[lk] = v
		if idKeyLike.MatchString(k) {
			continue
		}
		switch x := v.(type) {
		case string:
			it.attrs[lk] = []string{strings.ToLower(x)}
		case json.Number:
			if f, err := x.Float64(); err == nil {
				it.nums[lk] = f
			}
		case []any:
			for _, e := range x {
				if s, ok := e.(string); ok {
					it.attrs[lk] = append(it.attrs[lk], strings.ToLower(s))
				}
			}
		}
	}
	for _, k := range nameKeys {
		if s, ok := lower[k].(string); ok && s != "" {
			it.name = s
			return it
		}
	}
	var parts []string
	for _, k := range partKeys {
		switch x := lower[k].(type) {
		case string, json.Number:
			parts = append(parts, fmt.Sprint(x))
		}
	}
	it.name = strings.Join(parts, " ")
	return it
}

// compactWords splits a name into compact words: "Honda CR-V" gives honda, crv.
func compactWords(s string) []string {
	words := strings.Fields(s)
	for i, f := range words {
		words[i] = compact(f)
	}
	return slices.DeleteFunc(words, func(w string) bool { return w == "" })
}

// compact lower-cases s and drops its ASCII marks and spaces: "CR-V" is "crv".
func compact(s string) string {
	return strings.Map(func(r rune) rune {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r > 127 {
			return r
		}
		return -1
	}, strings.ToLower(s))
}

// known returns the items in the order first seen.
func (m *memory) known() []*item {
	out := make([]*item, 0, len(m.order))
	for _, id := range m.order {
		out = append(out, m.items[id])
	}
	return out
}

// num returns an item's numeric field named, else whose name contains, one of keys.
func (it *item) num(keys ...string) (float64, bool) {
	for _, k := range keys {
		if v, ok := it.nums[k]; ok {
			return v, true
		}
	}
	for _, k := range keys {
		for _, f := range slices.Sorted(maps.Keys(it.nums)) { // price_max before price_min, every time
			if strings.Contains(f, k) {
				return it.nums[f], true
			}
		}
	}
	return 0, false
}
