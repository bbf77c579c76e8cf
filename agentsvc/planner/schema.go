package planner

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"math/big"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/byomcp/byomcp/agentsvc/tools"
)

// schema is the planner's view of a tool's parameter schema, read from the schema that
// agentsvc/tools compiles for the agent (one JSON Schema reader for both): the keywords the
// planner fills arguments from, and the compiled schema that checks a value.
type schema struct {
	js          *jsonschema.Schema // nil: any value
	types       []string
	props       []*property
	enum        []enumValue
	items       *schema
	format      string
	pattern     jsonschema.Regexp
	minimum     *float64
	maximum     *float64
	minItems    *int
	maxItems    *int
	def         json.RawMessage
	description string
}

// property is one parameter of a tool, in the order of the schema.
type property struct {
	name     string
	words    []string // normalised words of the name
	schema   *schema
	required bool
}

// enumValue is one allowed value of an enum (or a const).
type enumValue struct {
	raw   json.RawMessage
	str   string
	isStr bool
	num   float64
	isNum bool
	words []string // normalised words of a string value
	title string   // what the schema calls it, when it says ("2023 Toyota RAV4" of "c01")
	named []string // the title's normalised words, when it is another name of the value ("driver assistance" of "safety"; not an id's)
}

// allEnums are the schema's enum values and its items' (a list's choices).
func (s *schema) allEnums() []enumValue {
	if s.items == nil {
		return s.enum
	}
	return append(slices.Clip(s.enum), s.items.enum...)
}

// text is the value as the visitor reads it: a string as it is, anything else as JSON.
func (e enumValue) text() string {
	if e.isStr {
		return e.str
	}
	return string(e.raw)
}

// label is the value as a reply names it: its title when the schema gives it another name
// ("Home charger" of "charge"), else its text.
func (e enumValue) label() string {
	if e.named != nil {
		return e.title
	}
	return e.text()
}

// enumLabels are the values' labels.
func enumLabels(en []enumValue) []string {
	out := make([]string, len(en))
	for i, e := range en {
		out[i] = e.label()
	}
	return out
}

// texts are the values' texts.
func texts(en []enumValue) []string {
	out := make([]string, len(en))
	for i, e := range en {
		out[i] = e.text()
	}
	return out
}

// maxDepth bounds $ref chains and nesting.
const maxDepth = 8

// schemas caches parseSchema by the schema's text: the planner reads a page's schemas on
// every model call. It is cleared when full.
var schemas = struct {
	sync.Mutex
	m map[string]*schema
}{m: map[string]*schema{}}

// parseSchema reads a tool's parameter schema. A schema tools.CompileSchema refuses has no
// properties (the agent does not offer such a tool to a model either). The result is shared:
// it must not be changed.
func parseSchema(raw json.RawMessage) *schema {
	schemas.Lock()
	defer schemas.Unlock()
	if s, ok := schemas.m[string(raw)]; ok {
		return s
	}
	s := &schema{types: []string{"object"}}
	if cs, err := tools.CompileSchema(raw); err == nil {
		s = convert(cs.Root(), raw, 0)
	}
	if len(schemas.m) >= 512 {
		clear(schemas.m)
	}
	schemas.m[string(raw)] = s
	return s
}

// convert reads the compiled schema js; raw is the document, for what compiling drops (the
// order of properties, enumNames).
func convert(js *jsonschema.Schema, raw json.RawMessage, depth int) *schema {
	if js == nil || depth > maxDepth {
		return &schema{}
	}
	if js.Ref != nil {
		s := convert(js.Ref, raw, depth+1)
		s.description = cmp.Or(js.Description, s.description)
		return s
	}
	node := at(raw, js.Location)
	// A labelled enum: "oneOf": [{"const": "c01", "title": "2023 Toyota RAV4"}, …], or an enum
	// with the older "enumNames" beside it.
	enum, titles := labelledEnum(append(slices.Clip(js.OneOf), js.AnyOf...))
	switch {
	case js.Const != nil:
		enum, titles = []any{*js.Const}, nil
	case js.Enum != nil:
		enum, titles = js.Enum.Values, nil
		if json.Unmarshal(member(node, "enumNames"), &titles) != nil || len(titles) != len(enum) {
			titles = nil
		}
	}
	if js.Types == nil && len(enum) == 0 {
		for _, alt := range append(slices.Clip(js.AnyOf), js.OneOf...) {
			if a := convert(alt, raw, depth+1); !slices.Equal(a.types, []string{"null"}) {
				a.description = cmp.Or(a.description, js.Description)
				return a
			}
		}
	}
	s := &schema{js: js, pattern: js.Pattern, minimum: float(js.Minimum), maximum: float(js.Maximum),
		minItems: js.MinItems, maxItems: js.MaxItems, description: js.Description}
	if js.Types != nil {
		s.types = js.Types.ToStrings()
	}
	for i, e := range enum {
		v := readEnum(e)
		if i < len(titles) && titles[i] != v.str {
			v.title = titles[i]
			if !idRe.MatchString(v.str) { // (an item's title is its name, not another name of the value)
				v.named = identWords(v.title)
			}
		}
		s.enum = append(s.enum, v)
	}
	if js.Format != nil {
		s.format = js.Format.Name
	}
	if js.Default != nil {
		s.def, _ = json.Marshal(*js.Default)
	}
	items := js.Items2020
	if it, ok := js.Items.(*jsonschema.Schema); ok {
		items = it
	}
	if items != nil {
		s.items = convert(items, raw, depth+1)
	}
	names := keys(member(node, "properties"))
	if len(names) != len(js.Properties) {
		names = slices.Sorted(maps.Keys(js.Properties)) // not seen: the order is the document's
	}
	for _, n := range names {
		words := identWords(n)
		if len(words) == 0 {
			words = []string{n} // "_", "$": the name as it is, for labels and questions
		}
		s.props = append(s.props, &property{name: n, words: words,
			schema: convert(js.Properties[n], raw, depth+1), required: slices.Contains(js.Required, n)})
	}
	return s
}

// labelledEnum reads alternatives that are each one constant, with or without a title: the
// values and their titles; nil when an alternative is anything else.
func labelledEnum(alts []*jsonschema.Schema) (values []any, titles []string) {
	for _, a := range alts {
		if a.Const == nil {
			return nil, nil
		}
		values = append(values, *a.Const)
		titles = append(titles, a.Title)
	}
	return values, titles
}

func float(r *big.Rat) *float64 {
	if r == nil {
		return nil
	}
	f, _ := r.Float64()
	return &f
}

func readEnum(v any) enumValue {
	e := enumValue{}
	e.raw, _ = json.Marshal(v)
	switch x := v.(type) {
	case string:
		e.str, e.isStr, e.words = x, true, identWords(x)
		if x != "" && !strings.ContainsAny(x, " -_") {
			e.words = []string{normWord(strings.ToLower(x))} // one word as written: "EcoBoost" is no "eco boost"
		}
	case json.Number: // the schema was read with UseNumber (jsonschema.UnmarshalJSON)
		e.num, _ = x.Float64()
		e.isNum = true
	}
	return e
}

// at is the part of the JSON document raw at location, a compiled schema's
// "urn:…#/json/pointer"; nil when it is not there.
func at(raw json.RawMessage, location string) json.RawMessage {
	_, ptr, _ := strings.Cut(location, "#")
	for _, tok := range strings.Split(ptr, "/")[1:] {
		if t, err := url.PathUnescape(tok); err == nil {
			tok = t
		}
		raw = member(raw, strings.NewReplacer("~1", "/", "~0", "~").Replace(tok))
	}
	return raw
}

// member is the value of key in a JSON object, or of the index key in an array; nil when absent.
func member(raw json.RawMessage, key string) json.RawMessage {
	var obj map[string]json.RawMessage
	var list []json.RawMessage
	if json.Unmarshal(raw, &obj) == nil {
		return obj[key]
	}
	if i, err := strconv.Atoi(key); err == nil && json.Unmarshal(raw, &list) == nil && i >= 0 && i < len(list) {
		return list[i]
	}
	return nil
}

// keys are the keys of a JSON object in document order.
func keys(raw json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var names []string
	for dec.More() {
		t, err := dec.Token()
		var skip json.RawMessage
		if err != nil || dec.Decode(&skip) != nil {
			return names
		}
		if key, _ := t.(string); !slices.Contains(names, key) {
			names = append(names, key)
		}
	}
	return names
}

// isString reports a parameter that takes a string.
func (s *schema) isString() bool {
	if len(s.types) == 0 {
		return len(s.enum) == 0 || s.enum[0].isStr
	}
	return slices.Contains(s.types, "string")
}

// isNumber reports a parameter that takes a number or an integer.
func (s *schema) isNumber() bool {
	if len(s.types) == 0 {
		return len(s.enum) > 0 && s.enum[0].isNum
	}
	return slices.Contains(s.types, "number") || slices.Contains(s.types, "integer")
}

func (s *schema) isArray() bool { return slices.Contains(s.types, "array") }

// stringEnum reports whether the schema is an enum of strings.
func (s *schema) stringEnum() bool {
	return slices.ContainsFunc(s.enum, func(e enumValue) bool { return e.isStr })
}

// valid checks a value against the compiled schema.
func (s *schema) valid(v any) bool { return s.js == nil || s.js.Validate(v) == nil }

// acceptsString checks a string value against the schema. The planner fills no value of a
// format it cannot write from words (a time, a URI) and only an address its own pattern
// reads in full as an email.
func (s *schema) acceptsString(v string) bool {
	switch s.format {
	case "email", "idn-email":
		return emailRe.FindString(v) == v && s.valid(v)
	case "time", "date-time", "uri", "url", "uuid", "ipv4", "ipv6", "hostname", "duration":
		return false
	}
	return s.valid(v) // the compiled schema checks the type
}

// acceptsStrings checks an array of strings against the schema.
func (s *schema) acceptsStrings(v []string) bool {
	list := make([]any, len(v))
	for i, x := range v {
		list[i] = x
	}
	return s.isArray() && s.valid(list)
}
