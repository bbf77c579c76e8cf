package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
)

// The demo site's real tool schemas (demo-site/js), with their enums filled in as the pages do.
var demoSchemas = map[string]string{
	"search_cars": `{"type":"object","properties":{
		"bodyType":{"type":"string","enum":["suv","sedan","hatchback","pickup","wagon","coupe"]},
		"make":{"type":"string","enum":["Aurora","Borealis","Cirrus","Dune","Ember","Fjord"]},
		"fuel":{"type":"string","enum":["petrol","diesel","hybrid","electric"]},
		"color":{"type":"string","enum":["black","white","silver","red","blue","green"]},
		"minPrice":{"type":"number","minimum":0},"maxPrice":{"type":"number","minimum":0},
		"maxMileage":{"type":"number","minimum":0},
		"minYear":{"type":"integer","minimum":1990,"maximum":2030}},
		"additionalProperties":false}`,
	"configure_car": `{"type":"object","properties":{
		"trim":{"type":"string","enum":["Base","Sport","Touring"]},
		"color":{"type":"string","enum":["black","white","red"]},
		"packages":{"type":"array","items":{"enum":["tech","winter","tow","sound"]},"uniqueItems":true}},
		"additionalProperties":false}`,
	"fill_form_data": `{"type":"object","properties":{
		"name":{"type":"string","minLength":2,"maxLength":80},
		"email":{"type":"string","format":"email"},
		"phone":{"type":"string","pattern":"^[+0-9 ()-]{6,20}$"},
		"date":{"type":"string","format":"date"},
		"time":{"enum":["09:00","10:00","11:00","14:00","15:00","16:00"]},
		"notes":{"type":"string","maxLength":500}},
		"additionalProperties":false}`,
	"calculate_payment": `{"type":"object","properties":{
		"price":{"type":"number","minimum":0},"downPayment":{"type":"number","minimum":0},
		"termMonths":{"type":"integer","enum":[24,36,48,60,72]},
		"apr":{"type":"number","minimum":0,"maximum":30}},
		"required":["termMonths"],"additionalProperties":false}`,
}

var demoArgs = map[string]string{
	"search_cars":       `{"bodyType":"suv","fuel":"hybrid","maxPrice":40000,"minYear":2020}`,
	"configure_car":     `{"trim":"Sport","color":"red","packages":["tech","winter"]}`,
	"fill_form_data":    `{"name":"Ada Lovelace","email":"ada@example.com","phone":"+44 20 7946 0000","date":"2030-05-01","time":"10:00"}`,
	"calculate_payment": `{"price":32000,"downPayment":5000,"termMonths":60,"apr":4.9}`,
}

// filterSchema is a legitimately recursive schema: a boolean filter expression.
const filterSchema = `{"type":"object","properties":{"filter":{"$ref":"#/$defs/f"}},"required":["filter"],
	"$defs":{"f":{"type":"object","properties":{
		"and":{"type":"array","items":{"$ref":"#/$defs/f"}},
		"or":{"type":"array","items":{"$ref":"#/$defs/f"}},
		"not":{"$ref":"#/$defs/f"},
		"field":{"type":"string","enum":["make","price","year","fuel"]},
		"eq":{"type":["string","number"]}},
		"additionalProperties":false}}}`

// filterArgs is a filter of the given depth, each and/or with width terms.
func filterArgs(depth, width int) string {
	var f func(d int) string
	f = func(d int) string {
		if d == 0 {
			return `{"field":"price","eq":30000}`
		}
		terms := make([]string, width)
		for i := range terms {
			terms[i] = f(d - 1)
		}
		op := "and"
		if d%2 == 0 {
			op = "or"
		}
		return fmt.Sprintf(`{%q:[%s],"not":{"field":"fuel","eq":"diesel"}}`, op, strings.Join(terms, ","))
	}
	return `{"filter":` + f(depth) + `}`
}

// Hostile schemas of issue 11.

// deepItems nests {"items":…} n deep under a property (#2: 1,500 deep took seconds to compile).
func deepItems(n int) string {
	return `{"type":"object","properties":{"a":` + strings.Repeat(`{"items":`, n) + `{}` + strings.Repeat(`}`, n) + `}}`
}

// refChain is $defs where each level is allOf of two $refs to the next, levels deep (#3:
// 21 levels, 1.3 KB, took seconds per validation).
func refChain(levels int) string {
	var defs []string
	for i := range levels {
		defs = append(defs, fmt.Sprintf(`"l%d":{"allOf":[{"$ref":"#/$defs/l%d"},{"$ref":"#/$defs/l%d"}]}`, i, i+1, i+1))
	}
	defs = append(defs, fmt.Sprintf(`"l%d":{"type":"string"}`, levels))
	return `{"type":"object","properties":{"x":{"$ref":"#/$defs/l0"}},"$defs":{` + strings.Join(defs, ",") + `}}`
}

// doubling applies itself twice to every item of an array: no fan-out at one value, but the
// work doubles with each level of nesting of the arguments.
const doubling = `{"type":"object","properties":{"x":{"$ref":"#/$defs/n"}},
	"$defs":{"n":{"allOf":[{"items":{"$ref":"#/$defs/n"}},{"items":{"$ref":"#/$defs/n"}}]}}}`

func nestedArrays(depth int) string {
	return `{"x":` + strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}`
}

func manyProperties(n int) string {
	props := make([]string, n)
	for i := range props {
		props[i] = fmt.Sprintf(`"p%d":{"type":"string"}`, i)
	}
	return `{"type":"object","properties":{` + strings.Join(props, ",") + `}}`
}

func TestCompileSchemaAcceptsRealSchemas(t *testing.T) {
	ctx := context.Background()
	for name, raw := range demoSchemas {
		s, err := CompileSchema(json.RawMessage(raw))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if err := s.Validate(ctx, json.RawMessage(demoArgs[name])); err != nil {
			t.Errorf("%s: Validate(%s): %v", name, demoArgs[name], err)
		}
	}
	for name, raw := range map[string]string{
		"recursive filter":         filterSchema,
		"500 properties":           manyProperties(500),
		"items 30 deep":            deepItems(30),
		"meta-schema by $ref":      `{"type":"object","properties":{"schema":{"$ref":"https://json-schema.org/draft/2020-12/schema"}}}`,
		"draft-07 dependencies":    `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","dependencies":{"a":{"required":["b"]},"c":["d"]}}`,
		"anyOf of 100 refs":        `{"type":"object","properties":{"v":{"anyOf":[` + strings.TrimSuffix(strings.Repeat(`{"$ref":"#/$defs/s"},`, 100), ",") + `]}},"$defs":{"s":{"type":"string"}}}`,
		"ref chain of 7 (fan 383)": refChain(7),
	} {
		if _, err := CompileSchema(json.RawMessage(raw)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestCompileSchemaRefusesHostileSchemas: each is refused before or right after compiling,
// with a reason that says which limit (issue 11, defects #2 and #3).
func TestCompileSchemaRefusesHostileSchemas(t *testing.T) {
	for _, tc := range []struct {
		name, raw, want string
	}{
		{"items 1,500 deep (15 KB)", deepItems(1500), "nested more than 64 levels"},
		{"items 10,000 deep", deepItems(10000), "more than the 65536 allowed"},
		{"items 65 deep", deepItems(65), "nested more than 64 levels"},
		{"over 64 KiB", `{"type":"object","description":"` + strings.Repeat("x", MaxSchemaBytes) + `"}`, "more than the 65536 allowed"},
		{"1,500 subschemas", manyProperties(1500), "more than 1000 objects"},
		{"allOf of two $refs, 21 levels", refChain(21), "applies more than 1000 subschemas to one value"},
		{"allOf of two $refs, 10 levels", refChain(10), "applies more than 1000 subschemas to one value"},
		{"$ref cycle at one value", `{"type":"object","properties":{"x":{"$ref":"#/$defs/a"}},"$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"}]},"b":{"anyOf":[{"$ref":"#/$defs/a"}]}}}`, "applies itself to the same value again"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := CompileSchema(json.RawMessage(tc.raw))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestCheckShapeIgnoresBracketsInStrings: braces inside strings (escaped quotes too) are not
// nesting.
func TestCheckShapeIgnoresBracketsInStrings(t *testing.T) {
	raw := `{"description":"` + strings.Repeat(`{[\"`, 100) + `","type":"object"}`
	if err := checkShape([]byte(raw), 1<<20, 2, 1); err != nil {
		t.Errorf("got %v, want nil", err)
	}
	if err := checkShape([]byte(`{"a":{"b":{}}}`), 1<<20, 2, 0); err == nil {
		t.Error("3 levels with a limit of 2: got nil, want an error")
	}
}

// TestValidateBudget: a call whose validation would exceed the budget is refused before the
// validator runs; a recursive schema used as intended is not.
func TestValidateBudget(t *testing.T) {
	ctx := context.Background()
	s, err := CompileSchema(json.RawMessage(doubling))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(ctx, json.RawMessage(nestedArrays(6))); err != nil {
		t.Errorf("6 levels (64 visits): %v", err)
	}
	// 2^19 visits: a second of work for the validator, over the budget.
	if err := s.Validate(ctx, json.RawMessage(nestedArrays(19))); !errors.Is(err, errTooMuchWork) {
		t.Errorf("19 levels: got %v, want %v", err, errTooMuchWork)
	}
	if err := s.Validate(ctx, json.RawMessage(nestedArrays(MaxArgumentDepth))); err == nil || !strings.Contains(err.Error(), "nested more than 64 levels") {
		t.Errorf("%d levels: got %v, want the depth limit", MaxArgumentDepth, err)
	}

	f, err := CompileSchema(json.RawMessage(filterSchema))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Validate(ctx, json.RawMessage(filterArgs(6, 3))); err != nil {
		t.Errorf("filter 6 deep, 3 wide: %v", err)
	}
	bad := strings.Replace(filterArgs(4, 2), `"eq":30000`, `"eq":true`, 1)
	if err := f.Validate(ctx, json.RawMessage(bad)); err == nil || !strings.Contains(err.Error(), "/eq") {
		t.Errorf("filter with a bad leaf: got %v, want a schema error at .../eq", err)
	}

	// Many items against a realistic item schema: within the budget.
	c, err := CompileSchema(json.RawMessage(`{"type":"object","properties":{"rows":{"type":"array","items":` + demoSchemas["search_cars"] + `}}}`))
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.TrimSuffix(strings.Repeat(demoArgs["search_cars"]+",", 500), ",")
	if err := c.Validate(ctx, json.RawMessage(`{"rows":[`+rows+`]}`)); err != nil {
		t.Errorf("500 rows: %v", err)
	}
}

// TestValidateEstimateCoversValidator: on schemas without cycles the estimate (forced by a
// budget of 0 for the shortcut) is never below the visits the shortcut bound allows, and it
// refuses exactly when the work is large.
func TestValidateEstimateScales(t *testing.T) {
	ctx := context.Background()
	s, err := CompileSchema(json.RawMessage(doubling))
	if err != nil {
		t.Fatal(err)
	}
	steps := func(depth int) uint64 {
		var inst any
		if err := json.Unmarshal([]byte(nestedArrays(depth)), &inst); err != nil {
			t.Fatal(err)
		}
		e := estimate{cm: s.cost, ctx: ctx, budget: ^uint64(0)}
		if err := e.visit(map[int32]uint64{s.cost.root: 1}, inst); err != nil {
			t.Fatal(err)
		}
		return e.steps
	}
	// Each level of nesting doubles the subschemas applied: the estimate must see it.
	if a, b := steps(8), steps(9); b < 2*a-4 {
		t.Errorf("estimate at depth 8: %d, at 9: %d; want about twice", a, b)
	}
}

// doneFirst is a context that is already done but reports it only once Done has been asked:
// Validate's checks of Err before and during the estimate pass, and only a Validate that
// waits on Done while the validator runs returns early.
type doneFirst struct {
	context.Context
	asked atomic.Bool
}

func (c *doneFirst) Done() <-chan struct{} {
	c.asked.Store(true)
	ch := make(chan struct{})
	close(ch)
	return ch
}

func (c *doneFirst) Err() error {
	if c.asked.Load() {
		return context.Canceled
	}
	return nil
}

// TestValidateReturnsWhenCancelledMidway: a long validation (within the budget) does not
// hold a cancelled turn (issue 11, #3: agent/cancel was answered only after it ended).
func TestValidateReturnsWhenCancelledMidway(t *testing.T) {
	s, err := CompileSchema(json.RawMessage(doubling))
	if err != nil {
		t.Fatal(err)
	}
	args := json.RawMessage(nestedArrays(12))
	if err := s.Validate(context.Background(), args); err != nil {
		t.Fatalf("12 levels: %v, want valid (within the budget)", err)
	}
	ctx := &doneFirst{Context: context.Background()}
	if err := s.Validate(ctx, args); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled during validation: got %v, want %v", err, context.Canceled)
	}
}

func TestValidateCancelled(t *testing.T) {
	s, err := CompileSchema(json.RawMessage(demoSchemas["search_cars"]))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Validate(ctx, json.RawMessage(demoArgs["search_cars"])); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want %v", err, context.Canceled)
	}
}

// Benchmarks: the demo's schemas, a recursive one used as intended, and the hostile ones
// (refused: what a refusal costs).
func BenchmarkCompileSchema(b *testing.B) {
	cases := []struct{ name, raw string }{
		{"search_cars", demoSchemas["search_cars"]},
		{"configure_car", demoSchemas["configure_car"]},
		{"fill_form_data", demoSchemas["fill_form_data"]},
		{"filter", filterSchema},
		{"500_properties", manyProperties(500)},
		{"hostile_items_1500_deep", deepItems(1500)},
		{"hostile_ref_chain_21", refChain(21)},
		{"hostile_2500_properties", manyProperties(2500)},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = CompileSchema(json.RawMessage(tc.raw))
			}
		})
	}
}

func BenchmarkValidate(b *testing.B) {
	ctx := context.Background()
	cases := []struct{ name, schema, args string }{
		{"search_cars", demoSchemas["search_cars"], demoArgs["search_cars"]},
		{"configure_car", demoSchemas["configure_car"], demoArgs["configure_car"]},
		{"fill_form_data", demoSchemas["fill_form_data"], demoArgs["fill_form_data"]},
		{"filter_4x3", filterSchema, filterArgs(4, 3)},
		{"hostile_doubling_19", doubling, nestedArrays(19)},
		{"ref_chain_7", refChain(7), `{"x":"s"}`},
	}
	for _, tc := range cases {
		s, err := CompileSchema(json.RawMessage(tc.schema))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = s.Validate(ctx, json.RawMessage(tc.args))
			}
		})
	}
}
