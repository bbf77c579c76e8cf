package elicit

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// everySchema has a field of each kind MCP's forms allow, as @modelcontextprotocol/server-everything's
// trigger-elicitation-request asks them.
const everySchema = `{"type":"object","required":["name"],"properties":{
 "name":{"type":"string","title":"Name","description":"Your full name","minLength":2,"maxLength":40},
 "check":{"type":"boolean","title":"Agree"},
 "email":{"type":"string","format":"email"},
 "homepage":{"type":"string","format":"uri"},
 "birthdate":{"type":"string","format":"date"},
 "meeting":{"type":"string","format":"date-time"},
 "integer":{"type":"integer","minimum":1,"maximum":100,"default":42},
 "number":{"type":"number","minimum":0,"maximum":1000},
 "friend":{"type":"string","enum":["Monica","Rachel","Joey"],"default":"Monica"},
 "hero":{"type":"string","oneOf":[{"const":"hero-1","title":"Superman"},{"const":"hero-2","title":"Green Lantern"}]},
 "pet":{"type":"string","enum":["pet-1","pet-2"],"enumNames":["Cats","Dogs"]},
 "instruments":{"type":"array","minItems":1,"maxItems":2,"items":{"type":"string","enum":["Guitar","Piano","Drums"]}},
 "fish":{"type":"array","items":{"anyOf":[{"const":"fish-1","title":"Tuna"},{"const":"fish-2","title":"Salmon"}]},"default":["fish-1"]}
}}`

func parseEvery(t *testing.T) map[string]Field {
	t.Helper()
	var schema any
	if err := json.Unmarshal([]byte(everySchema), &schema); err != nil {
		t.Fatal(err)
	}
	fields, err := Parse(schema)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if fields[0].Name != "name" || !fields[0].Required {
		t.Errorf("the required field comes first: got %+v", fields[0])
	}
	for i := 2; i < len(fields); i++ {
		if fields[i-1].Name > fields[i].Name {
			t.Errorf("the other fields are in the order of their names: %q before %q", fields[i-1].Name, fields[i].Name)
		}
	}
	byName := map[string]Field{}
	for _, f := range fields {
		byName[f.Name] = f
	}
	return byName
}

func TestParseReadsEveryKindMCPAllows(t *testing.T) {
	f := parseEvery(t)
	want := map[string]Kind{"name": Text, "check": Boolean, "email": Text, "integer": Integer, "number": Number,
		"friend": Choice, "hero": Choice, "pet": Choice, "instruments": Choices, "fish": Choices}
	for name, kind := range want {
		if f[name].Kind != kind {
			t.Errorf("%s: kind %v, want %v", name, f[name].Kind, kind)
		}
	}
	if got := f["hero"].Options; !reflect.DeepEqual(got, []Option{{"hero-1", "Superman"}, {"hero-2", "Green Lantern"}}) {
		t.Errorf("titled options: %+v", got)
	}
	if got := f["pet"].Options[1]; got != (Option{"pet-2", "Dogs"}) {
		t.Errorf("legacy enumNames: %+v", got)
	}
	if f["name"].Label != "Name" || f["name"].Hint != "Your full name" || f["email"].Label != "email" {
		t.Errorf("labels: %+v %+v", f["name"], f["email"])
	}
}

func TestReadChecksWhatThePersonTyped(t *testing.T) {
	f := parseEvery(t)
	for _, c := range []struct {
		field, typed string
		want         any
		wantErr      string // "" = accepted
	}{
		{"name", "Jane Doe", "Jane Doe", ""},
		{"name", "J", nil, "at least 2"},
		{"name", "", nil, "required"},
		{"check", "y", true, ""},
		{"check", "No", false, ""},
		{"check", "maybe", nil, "yes or no"},
		{"email", "jane@example.com", "jane@example.com", ""},
		{"email", "jane at example", nil, "e-mail"},
		{"homepage", "https://example.com/me", "https://example.com/me", ""},
		{"homepage", "example.com", nil, "scheme"},
		{"birthdate", "1990-02-28", "1990-02-28", ""},
		{"birthdate", "28/02/1990", nil, "YYYY-MM-DD"},
		{"meeting", "2026-12-12T11:00:00Z", "2026-12-12T11:00:00Z", ""},
		{"integer", "", float64(42), ""}, // the default, as JSON gives it
		{"integer", "7", int64(7), ""},
		{"integer", "7.5", nil, "whole number"},
		{"integer", "101", nil, "at most 100"},
		{"number", "3.14", 3.14, ""},
		{"number", "-1", nil, "at least 0"},
		{"number", "NaN", nil, "a number"},
		{"friend", "2", "Rachel", ""},
		{"friend", "joey", "Joey", ""},
		{"friend", "Ross", nil, "1 to 3"},
		{"hero", "Green Lantern", "hero-2", ""},
		{"hero", "1", "hero-1", ""},
		{"pet", "Dogs", "pet-2", ""},
		{"instruments", "1, 3", []string{"Guitar", "Drums"}, ""},
		{"instruments", "1,2,3", nil, "at most 2"},
		{"fish", "", []any{"fish-1"}, ""},
		{"fish", "2", []string{"fish-2"}, ""},
	} {
		got, _, err := f[c.field].Read(c.typed)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("%s %q: %v", c.field, c.typed, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("%s %q: error %v, want one saying %q", c.field, c.typed, err, c.wantErr)
		case c.wantErr == "" && !reflect.DeepEqual(got, c.want):
			t.Errorf("%s %q: got %#v, want %#v", c.field, c.typed, got, c.want)
		}
	}
	if _, ok, err := f["email"].Read(""); ok || err != nil {
		t.Errorf("an optional field left empty is left out: ok %v err %v", ok, err)
	}
	if _, _, err := f["name"].Read(" "); !errors.Is(err, ErrMissing) {
		t.Errorf("a required field left empty: %v, want ErrMissing", err)
	}
}

func TestParseRefusesWhatIsNotAForm(t *testing.T) {
	for _, schema := range []string{
		`{"type":"array"}`,
		`{"type":"object","properties":{"a":{"type":"object"}}}`,
		`{"type":"object","properties":{"a":{"type":"string","format":"hostname"}}}`,
		`{"type":"object","properties":{"a":{"type":"array","items":{"type":"number"}}}}`,
	} {
		var v any
		_ = json.Unmarshal([]byte(schema), &v)
		if _, err := Parse(v); err == nil {
			t.Errorf("Parse(%s) accepted it", schema)
		}
	}
	props := map[string]any{}
	for i := range maxFields + 1 {
		props[strings.Repeat("f", i+1)] = map[string]any{"type": "string"}
	}
	if _, err := Parse(map[string]any{"type": "object", "properties": props}); err == nil {
		t.Errorf("Parse accepted %d fields", maxFields+1)
	}
}
