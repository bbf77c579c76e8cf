package planner

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// schema is the part of a JSON Schema the planner reads to fill and check arguments.
type schema struct {
	types       []string
	props       []*property
	enum        []enumValue
	items       *schema
	format      string
	pattern     *regexp.Regexp // nil when absent or not compilable
	minimum     *float64
	maximum     *float64
	exclMin     *float64
	exclMax     *float64
	multipleOf  *float64
	minLength   *int
	maxLength   *int
	minItems    *int
	maxItems    *int
	uniqueItems bool
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
}

type rawSchema struct {
	Ref              string                     `json:"$ref"`
	Type             json.RawMessage            `json:"type"`
	Properties       json.RawMessage            `json:"properties"`
	Required         []string                   `json:"required"`
	Enum             []json.RawMessage          `json:"enum"`
	Const            json.RawMessage            `json:"const"`
	Items            json.RawMessage            `json:"items"`
	AnyOf            []json.RawMessage          `json:"anyOf"`
	OneOf            []json.RawMessage          `json:"oneOf"`
	Format           string                     `json:"format"`
	Pattern          string                     `json:"pattern"`
	Minimum          *float64                   `json:"minimum"`
	Maximum          *float64                   `json:"maximum"`
	ExclusiveMinimum json.RawMessage            `json:"exclusiveMinimum"`
	ExclusiveMaximum json.RawMessage            `json:"exclusiveMaximum"`
	MultipleOf       *float64                   `json:"multipleOf"`
	MinLength        *int                       `json:"minLength"`
	MaxLength        *int                       `json:"maxLength"`
	MinItems         *int                       `json:"minItems"`
	MaxItems         *int                       `json:"maxItems"`
	UniqueItems      bool                       `json:"uniqueItems"`
	Default          json.RawMessage            `json:"default"`
	Description      string                     `json:"description"`
	Title            string                     `json:"title"`
	EnumNames        []string                   `json:"enumNames"`
	Defs             map[string]json.RawMessage `json:"$defs"`
	Definitions      map[string]json.RawMessage `json:"definitions"`
}

// maxDepth bounds $ref chains and nesting.
const maxDepth = 8

// parseSchema reads a tool's parameter schema. A schema it cannot read has no properties.
func parseSchema(raw json.RawMessage) *schema {
	var root rawSchema
	if err := json.Unmarshal(raw, &root); err != nil {
		return &schema{types: []string{"object"}}
	}
	defs := map[string]json.RawMessage{}
	for k, v := range root.Definitions {
		defs["#/definitions/"+k] = v
	}
	for k, v := range root.Defs {
		defs["#/$defs/"+k] = v
	}
	return convert(raw, defs, 0)
}

func convert(raw json.RawMessage, defs map[string]json.RawMessage, depth int) *schema {
	s := &schema{}
	if depth > maxDepth {
		return s
	}
	var r rawSchema
	if err := json.Unmarshal(raw, &r); err != nil {
		return s
	}
	if r.Ref != "" {
		if d, ok := defs[r.Ref]; ok {
			s = convert(d, defs, depth+1)
			if r.Description != "" {
				s.description = r.Description
			}
			return s
		}
		return s
	}
	var titles []string
	if len(r.Enum) == 0 && len(r.Const) == 0 {
		// A labelled enum: "oneOf": [{"const": "c01", "title": "2023 Toyota RAV4"}, …].
		r.Enum, titles = labelledEnum(append(slices.Clip(r.OneOf), r.AnyOf...))
	} else if len(r.EnumNames) == len(r.Enum) {
		titles = r.EnumNames // the older "enumNames" beside "enum"
	}
	if len(r.Type) == 0 && len(r.Enum) == 0 && len(r.Const) == 0 {
		for _, alt := range append(r.AnyOf, r.OneOf...) {
			a := convert(alt, defs, depth+1)
			if len(a.types) == 1 && a.types[0] == "null" {
				continue
			}
			if a.description == "" {
				a.description = r.Description
			}
			return a
		}
	}
	s.types = typeList(r.Type)
	if len(r.Const) > 0 {
		r.Enum = []json.RawMessage{r.Const}
	}
	for i, e := range r.Enum {
		v := readEnum(e)
		if i < len(titles) && titles[i] != v.str {
			v.title = titles[i]
		}
		s.enum = append(s.enum, v)
	}
	if len(s.types) == 0 && len(titles) > 0 && len(s.enum) > 0 && s.enum[0].isStr {
		s.types = []string{"string"}
	}
	s.format = r.Format
	if r.Pattern != "" {
		s.pattern, _ = regexp.Compile(r.Pattern)
	}
	s.minimum, s.maximum, s.multipleOf = r.Minimum, r.Maximum, r.MultipleOf
	s.exclMin = exclusive(r.ExclusiveMinimum, r.Minimum)
	s.exclMax = exclusive(r.ExclusiveMaximum, r.Maximum)
	if isTrue(r.ExclusiveMinimum) {
		s.minimum = nil
	}
	if isTrue(r.ExclusiveMaximum) {
		s.maximum = nil
	}
	s.minLength, s.maxLength = r.MinLength, r.MaxLength
	s.minItems, s.maxItems, s.uniqueItems = r.MinItems, r.MaxItems, r.UniqueItems
	s.def, s.description = r.Default, r.Description
	if len(r.Items) > 0 && r.Items[0] == '{' {
		s.items = convert(r.Items, defs, depth+1)
	}
	if len(r.Properties) > 0 {
		names, values := orderedObject(r.Properties)
		for _, n := range names {
			s.props = append(s.props, &property{
				name:     n,
				words:    identWords(n),
				schema:   convert(values[n], defs, depth+1),
				required: slices.Contains(r.Required, n),
			})
		}
	}
	return s
}

// labelledEnum reads alternatives that are each one constant, with or without a title: the
// values and their titles; nil when an alternative is anything else.
func labelledEnum(alts []json.RawMessage) (values []json.RawMessage, titles []string) {
	for _, a := range alts {
		var r rawSchema
		if json.Unmarshal(a, &r) != nil || len(r.Const) == 0 {
			return nil, nil
		}
		values = append(values, r.Const)
		titles = append(titles, r.Title)
	}
	return values, titles
}

func typeList(raw json.RawMessage) []string {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(raw, &many)
	return many
}

// exclusive reads exclusiveMinimum/Maximum: a number (2019-09 and later) or true (draft 4,
// meaning the plain bound is exclusive).
func exclusive(raw json.RawMessage, bound *float64) *float64 {
	var f float64
	if json.Unmarshal(raw, &f) == nil && len(raw) > 0 {
		return &f
	}
	if isTrue(raw) {
		return bound
	}
	return nil
}

func isTrue(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "true" }

func readEnum(raw json.RawMessage) enumValue {
	e := enumValue{raw: raw}
	if json.Unmarshal(raw, &e.str) == nil {
		e.isStr = true
		e.words = identWords(e.str)
		return e
	}
	if json.Unmarshal(raw, &e.num) == nil {
		e.isNum = true
	}
	return e
}

// orderedObject returns the keys of a JSON object in document order, with their values.
func orderedObject(raw json.RawMessage) ([]string, map[string]json.RawMessage) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil
	}
	var names []string
	values := map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return names, values
		}
		key, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return names, values
		}
		if _, dup := values[key]; !dup {
			names = append(names, key)
		}
		values[key] = v
	}
	return names, values
}

func (s *schema) allows(t string) bool {
	if len(s.types) == 0 {
		return true
	}
	return slices.Contains(s.types, t) || (t == "integer" && slices.Contains(s.types, "number"))
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

// integer reports a parameter that takes only whole numbers.
func (s *schema) integer() bool {
	return slices.Contains(s.types, "integer") && !slices.Contains(s.types, "number")
}

// stringEnum reports whether the schema is an enum of strings, and the enum itself.
func (s *schema) stringEnum() bool {
	return len(s.enum) > 0 && slices.ContainsFunc(s.enum, func(e enumValue) bool { return e.isStr })
}

// acceptsString checks a string value against the schema.
func (s *schema) acceptsString(v string) bool {
	if !s.allows("string") {
		return false
	}
	if len(s.enum) > 0 && !slices.ContainsFunc(s.enum, func(e enumValue) bool { return e.isStr && e.str == v }) {
		return false
	}
	n := utf8.RuneCountInString(v)
	if (s.minLength != nil && n < *s.minLength) || (s.maxLength != nil && n > *s.maxLength) {
		return false
	}
	if s.pattern != nil && !s.pattern.MatchString(v) {
		return false
	}
	switch s.format {
	case "email", "idn-email":
		return emailRe.FindString(v) == v
	case "date":
		_, err := time.Parse("2006-01-02", v)
		return err == nil
	case "time", "date-time", "uri", "url", "uuid", "ipv4", "ipv6", "hostname", "duration":
		return false
	}
	return true
}

// acceptsNumber checks a number against the schema.
func (s *schema) acceptsNumber(v float64) bool {
	whole := v == math.Trunc(v)
	if !s.allows("number") && !(whole && s.allows("integer")) {
		return false
	}
	if s.integer() && !whole {
		return false
	}
	if len(s.enum) > 0 && !slices.ContainsFunc(s.enum, func(e enumValue) bool { return e.isNum && e.num == v }) {
		return false
	}
	switch {
	case s.minimum != nil && v < *s.minimum, s.maximum != nil && v > *s.maximum,
		s.exclMin != nil && v <= *s.exclMin, s.exclMax != nil && v >= *s.exclMax:
		return false
	}
	if s.multipleOf != nil && *s.multipleOf > 0 {
		q := v / *s.multipleOf
		if math.Abs(q-math.Round(q)) > 1e-9 {
			return false
		}
	}
	return true
}

// acceptsStrings checks an array of strings against the schema.
func (s *schema) acceptsStrings(v []string) bool {
	if !s.isArray() {
		return false
	}
	if (s.minItems != nil && len(v) < *s.minItems) || (s.maxItems != nil && len(v) > *s.maxItems) {
		return false
	}
	for i, x := range v {
		if s.uniqueItems && slices.Contains(v[:i], x) {
			return false
		}
		if s.items != nil && !s.items.acceptsString(x) {
			return false
		}
	}
	return true
}

func (s *schema) kindHint() string {
	values := func(en []enumValue) string {
		parts := make([]string, 0, len(en))
		for _, e := range en {
			if e.isStr {
				parts = append(parts, e.str)
			} else {
				parts = append(parts, string(e.raw))
			}
		}
		return strings.Join(parts, ", ")
	}
	switch {
	case len(s.enum) > 0:
		return "one of: " + values(s.enum)
	case s.isArray():
		h := "a list"
		switch {
		case s.minItems != nil && s.maxItems != nil:
			h += " of " + strconv.Itoa(*s.minItems) + " to " + strconv.Itoa(*s.maxItems) + " values"
		case s.minItems != nil:
			h += " of at least " + strconv.Itoa(*s.minItems) + " values"
		}
		if s.items != nil && len(s.items.enum) > 0 {
			return h + " from: " + values(s.items.enum)
		}
		return h
	case s.format == "email":
		return "an email address"
	case s.format == "date":
		return "a date like 2026-12-03"
	case s.isNumber():
		return "a number"
	}
	return ""
}
