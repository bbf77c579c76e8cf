// Package elicit reads what an MCP server asks a person for (elicitation/create, form mode)
// as a form: the requested schema, a flat object of strings, numbers, integers, booleans and
// single or multiple choices as MCP restricts it, becomes a list of fields, and what a person
// typed for a field becomes the value the server asked for, checked as the schema says. The
// terminal of `byomcp chat` asks with it; the go-sdk client checks the answers once more
// against the schema before they are sent.
package elicit

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Kind is what a field takes.
type Kind int

const (
	Text    Kind = iota // a string (Format may narrow it)
	Number              // a number
	Integer             // a whole number
	Boolean             // yes or no
	Choice              // one of Options
	Choices             // some of Options
)

// Option is one choice: the value sent and the label a person reads.
type Option struct {
	Value string
	Label string
}

// Field is one property of the requested schema.
type Field struct {
	Name     string
	Label    string // the schema's title, else the name
	Hint     string // the schema's description
	Kind     Kind
	Required bool
	Format   string   // Text: email, uri, date or date-time ("" = any text)
	Options  []Option // Choice, Choices
	Default  any      // nil: none

	MinLength, MaxLength int      // Text; MaxLength 0 = no bound
	Min, Max             *float64 // Number, Integer
	MinItems, MaxItems   int      // Choices; MaxItems 0 = no bound
}

// maxFields bounds the fields of one form: MCP's forms are short, and a schema of thousands
// of properties is a server's mistake (or worse), not a question for a person.
const maxFields = 64

// Parse reads a requested schema (any JSON-marshalable value, as go-sdk gives it) as fields:
// the required ones first, then the others, each in the order of their names (the schema
// reaches the client as a JSON object, whose order is not kept).
func Parse(schema any) ([]Field, error) {
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("elicit: the requested schema is not JSON: %w", err)
	}
	var s struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("elicit: the requested schema is not an object schema: %w", err)
	}
	if s.Type != "" && s.Type != "object" {
		return nil, fmt.Errorf("elicit: the requested schema is of type %q, not an object", s.Type)
	}
	if len(s.Properties) > maxFields {
		return nil, fmt.Errorf("elicit: the requested schema has %d fields, more than %d", len(s.Properties), maxFields)
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int {
		ra, rb := slices.Contains(s.Required, a), slices.Contains(s.Required, b)
		if ra != rb {
			if ra {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	fields := make([]Field, 0, len(names))
	for _, name := range names {
		f, err := parseField(name, s.Properties[name])
		if err != nil {
			return nil, err
		}
		f.Required = slices.Contains(s.Required, name)
		fields = append(fields, f)
	}
	return fields, nil
}

// property is one property's schema, as MCP's primitive schema definitions have it.
type property struct {
	Type        string          `json:"type"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Format      string          `json:"format"`
	MinLength   int             `json:"minLength"`
	MaxLength   int             `json:"maxLength"`
	Minimum     *float64        `json:"minimum"`
	Maximum     *float64        `json:"maximum"`
	Enum        []string        `json:"enum"`
	EnumNames   []string        `json:"enumNames"` // the legacy titled enum
	OneOf       []titled        `json:"oneOf"`
	MinItems    int             `json:"minItems"`
	MaxItems    int             `json:"maxItems"`
	Items       *property       `json:"items"`
	AnyOf       []titled        `json:"anyOf"` // in items: the titled multiple choice
	Default     json.RawMessage `json:"default"`
}

type titled struct {
	Const string `json:"const"`
	Title string `json:"title"`
}

func parseField(name string, raw json.RawMessage) (Field, error) {
	var p property
	if err := json.Unmarshal(raw, &p); err != nil {
		return Field{}, fmt.Errorf("elicit: field %q: %w", name, err)
	}
	f := Field{Name: name, Label: p.Title, Hint: p.Description}
	if f.Label == "" {
		f.Label = name
	}
	switch {
	case p.Type == "string" && len(p.OneOf) > 0:
		f.Kind, f.Options = Choice, titledOptions(p.OneOf)
	case p.Type == "string" && len(p.Enum) > 0:
		f.Kind, f.Options = Choice, enumOptions(p.Enum, p.EnumNames)
	case p.Type == "string":
		f.Kind, f.Format, f.MinLength, f.MaxLength = Text, p.Format, p.MinLength, p.MaxLength
		switch p.Format {
		case "", "email", "uri", "date", "date-time":
		default:
			return Field{}, fmt.Errorf("elicit: field %q: format %q is not one MCP allows", name, p.Format)
		}
	case p.Type == "number" || p.Type == "integer":
		f.Kind, f.Min, f.Max = Number, p.Minimum, p.Maximum
		if p.Type == "integer" {
			f.Kind = Integer
		}
	case p.Type == "boolean":
		f.Kind = Boolean
	case p.Type == "array" && p.Items != nil && len(p.Items.AnyOf) > 0:
		f.Kind, f.Options = Choices, titledOptions(p.Items.AnyOf)
	case p.Type == "array" && p.Items != nil && len(p.Items.Enum) > 0:
		f.Kind, f.Options = Choices, enumOptions(p.Items.Enum, nil)
	default:
		return Field{}, fmt.Errorf("elicit: field %q: a %q field is not one MCP's forms have", name, p.Type)
	}
	if f.Kind == Choices {
		f.MinItems, f.MaxItems = p.MinItems, p.MaxItems
	}
	if len(p.Default) > 0 && string(p.Default) != "null" {
		if err := json.Unmarshal(p.Default, &f.Default); err != nil {
			return Field{}, fmt.Errorf("elicit: field %q: default: %w", name, err)
		}
	}
	return f, nil
}

func titledOptions(ts []titled) []Option {
	out := make([]Option, len(ts))
	for i, t := range ts {
		out[i] = Option{Value: t.Const, Label: cmpOr(t.Title, t.Const)}
	}
	return out
}

func enumOptions(values, names []string) []Option {
	out := make([]Option, len(values))
	for i, v := range values {
		label := v
		if i < len(names) && names[i] != "" {
			label = names[i]
		}
		out[i] = Option{Value: v, Label: label}
	}
	return out
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// ErrMissing is a required field left empty with no default.
var ErrMissing = errors.New("this field is required")

// Read turns what a person typed for f into its value. Empty text gives the default, or
// nothing (ok false) for a field that is not required. Choices are typed as the options'
// numbers (1-based) or values, or labels, separated by commas for Choices; a boolean as
// y/yes/true or n/no/false.
func (f Field) Read(text string) (v any, ok bool, err error) {
	text = strings.TrimSpace(text)
	if text == "" {
		if f.Default != nil {
			return f.Default, true, nil
		}
		if f.Required {
			return nil, false, ErrMissing
		}
		return nil, false, nil
	}
	switch f.Kind {
	case Text:
		return f.readText(text)
	case Number, Integer:
		return f.readNumber(text)
	case Boolean:
		switch strings.ToLower(text) {
		case "y", "yes", "true":
			return true, true, nil
		case "n", "no", "false":
			return false, true, nil
		}
		return nil, false, errors.New("answer yes or no")
	case Choice:
		o, err := f.option(text)
		if err != nil {
			return nil, false, err
		}
		return o.Value, true, nil
	default: // Choices
		var picked []string
		for part := range strings.SplitSeq(text, ",") {
			if part = strings.TrimSpace(part); part == "" {
				continue
			}
			o, err := f.option(part)
			if err != nil {
				return nil, false, err
			}
			if !slices.Contains(picked, o.Value) {
				picked = append(picked, o.Value)
			}
		}
		if len(picked) < f.MinItems {
			return nil, false, fmt.Errorf("choose at least %d", f.MinItems)
		}
		if f.MaxItems > 0 && len(picked) > f.MaxItems {
			return nil, false, fmt.Errorf("choose at most %d", f.MaxItems)
		}
		return picked, true, nil
	}
}

func (f Field) readText(text string) (any, bool, error) {
	if n := len([]rune(text)); n < f.MinLength {
		return nil, false, fmt.Errorf("at least %d characters", f.MinLength)
	} else if f.MaxLength > 0 && n > f.MaxLength {
		return nil, false, fmt.Errorf("at most %d characters", f.MaxLength)
	}
	switch f.Format {
	case "email":
		if a, err := mail.ParseAddress(text); err != nil || a.Address != text {
			return nil, false, errors.New("an e-mail address, like name@example.com")
		}
	case "uri":
		if u, err := url.Parse(text); err != nil || u.Scheme == "" {
			return nil, false, errors.New("an address with its scheme, like https://example.com")
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, text); err != nil {
			return nil, false, errors.New("a date as YYYY-MM-DD")
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, text); err != nil {
			return nil, false, errors.New("a date and time as YYYY-MM-DDTHH:MM:SSZ (RFC 3339)")
		}
	}
	return text, true, nil
}

func (f Field) readNumber(text string) (any, bool, error) {
	n, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
		return nil, false, errors.New("a number")
	}
	if f.Kind == Integer && n != math.Trunc(n) {
		return nil, false, errors.New("a whole number")
	}
	if f.Min != nil && n < *f.Min {
		return nil, false, fmt.Errorf("at least %v", *f.Min)
	}
	if f.Max != nil && n > *f.Max {
		return nil, false, fmt.Errorf("at most %v", *f.Max)
	}
	if f.Kind == Integer {
		return int64(n), true, nil
	}
	return n, true, nil
}

// option finds the option a person named: by its number, its value or its label.
func (f Field) option(text string) (Option, error) {
	if i, err := strconv.Atoi(text); err == nil && i >= 1 && i <= len(f.Options) {
		return f.Options[i-1], nil
	}
	for _, o := range f.Options {
		if o.Value == text || strings.EqualFold(o.Label, text) {
			return o, nil
		}
	}
	return Option{}, fmt.Errorf("one of the numbers 1 to %d", len(f.Options))
}
