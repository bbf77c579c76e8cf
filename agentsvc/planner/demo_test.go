package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/tools"
)

// The demo as the planner meets it: the tools demo-site/js/*.js registers (testdata/
// demo-tools.json) and a page that answers their calls the way those scripts do, from the
// demo's own inventory (testdata/cars.json, a copy of demo-site/data/cars.json).

type demoCar struct {
	ID       string   `json:"id"`
	Make     string   `json:"make"`
	Model    string   `json:"model"`
	Year     int      `json:"year"`
	BodyType string   `json:"bodyType"`
	Price    float64  `json:"price"`
	Mileage  float64  `json:"mileage"`
	Fuel     string   `json:"fuel"`
	Colors   []string `json:"colors"`
	Trims    []struct {
		Name string `json:"name"`
	} `json:"trims"`
	Packages []struct {
		Name string `json:"name"`
	} `json:"packages"`
}

func (c demoCar) title() string { return fmt.Sprintf("%d %s %s", c.Year, c.Make, c.Model) }

var (
	demoCars  []demoCar
	demoPages map[string][]chat.ToolDef
)

func init() {
	b, err := os.ReadFile("testdata/cars.json")
	if err != nil {
		panic(err)
	}
	if err := json.Unmarshal(b, &demoCars); err != nil {
		panic(err)
	}
	b, err = os.ReadFile("testdata/demo-tools.json")
	if err != nil {
		panic(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		panic(err)
	}
	demoPages = map[string][]chat.ToolDef{}
	for k, v := range raw {
		if strings.HasPrefix(k, "_") {
			continue
		}
		var defs []chat.ToolDef
		if err := json.Unmarshal(v, &defs); err != nil {
			panic(err)
		}
		demoPages[k] = defs
	}
	demoPages["drawer"] = append(slices.Clip(demoPages["inventory"]), demoPages["drawer"]...)
}

// demoPage answers tool calls like the demo's scripts: the same texts and structuredContent.
type demoPage struct {
	filters map[string]any
	sortBy  string
	desc    bool
	// navigated names the page a tool just opened (as byomcp/navigating does in the demo):
	// the rest of the turn sees that page's tools, as the agent waits for them.
	navigated string
}

func money(v float64) string {
	return moneyStyle{sign: "$", group: ","}.format(v)
}

func (p *demoPage) shown() []demoCar {
	var out []demoCar
	for _, c := range demoCars {
		f := p.filters
		if s, ok := f["bodyType"].(string); ok && c.BodyType != s {
			continue
		}
		if s, ok := f["make"].(string); ok && c.Make != s {
			continue
		}
		if s, ok := f["fuel"].(string); ok && c.Fuel != s {
			continue
		}
		if s, ok := f["color"].(string); ok && !slices.Contains(c.Colors, s) {
			continue
		}
		if v, ok := f["minPrice"].(float64); ok && c.Price < v {
			continue
		}
		if v, ok := f["maxPrice"].(float64); ok && c.Price > v {
			continue
		}
		if v, ok := f["maxMileage"].(float64); ok && c.Mileage > v {
			continue
		}
		if v, ok := f["minYear"].(float64); ok && float64(c.Year) < v {
			continue
		}
		out = append(out, c)
	}
	if p.sortBy != "" {
		key := func(c demoCar) float64 {
			switch p.sortBy {
			case "year":
				return float64(c.Year)
			case "mileage":
				return c.Mileage
			}
			return c.Price
		}
		sort.SliceStable(out, func(i, j int) bool {
			if p.desc {
				return key(out[i]) > key(out[j])
			}
			return key(out[i]) < key(out[j])
		})
	}
	return out
}

func listResult(shown []demoCar) string {
	var parts []string
	type row struct {
		ID       string  `json:"id"`
		Make     string  `json:"make"`
		Model    string  `json:"model"`
		Year     int     `json:"year"`
		Price    float64 `json:"price"`
		Mileage  float64 `json:"mileage"`
		BodyType string  `json:"bodyType"`
		Fuel     string  `json:"fuel"`
	}
	var rows []row
	for _, c := range shown {
		parts = append(parts, fmt.Sprintf("%s %s $%.0f", c.ID, c.title(), c.Price))
		rows = append(rows, row{c.ID, c.Make, c.Model, c.Year, c.Price, c.Mileage, c.BodyType, c.Fuel})
	}
	text := "Showing 0 cars: no car matches these filters."
	if len(shown) > 0 {
		noun := "cars"
		if len(shown) == 1 {
			noun = "car"
		}
		text = fmt.Sprintf("Showing %d %s: %s", len(shown), noun, strings.Join(parts, "; "))
	}
	sc, _ := json.Marshal(map[string]any{"count": len(shown), "cars": rows})
	return text + "\nstructuredContent: " + string(sc)
}

func carByID(id string) (demoCar, bool) {
	for _, c := range demoCars {
		if c.ID == id {
			return c, true
		}
	}
	return demoCar{}, false
}

// call runs one tool call and returns the result as the agent gives it to the model.
func (p *demoPage) call(name, args string) (string, bool) {
	var a map[string]any
	_ = json.Unmarshal([]byte(args), &a)
	switch name {
	case "search_cars":
		p.filters = a
		return listResult(p.shown()), false
	case "sort_cars":
		p.sortBy, _ = a["by"].(string)
		p.desc = a["order"] == "desc"
		order := "asc"
		if p.desc {
			order = "desc"
		}
		return fmt.Sprintf("Sorted by %s %s. ", p.sortBy, order) + listResult(p.shown()), false
	case "clear_filters":
		p.filters = nil
		return "Filters cleared. " + listResult(p.shown()), false
	case "select_car":
		c, ok := carByID(a["carId"].(string))
		if !ok {
			return fmt.Sprintf("There is no car with id %s. Use search_cars to see the ids.", a["carId"]), true
		}
		p.navigated = "car"
		return fmt.Sprintf("Opening the page of the %s (%s, %s). Its configurator tools will be available once it has loaded.", c.title(), c.ID, money(c.Price)), false
	case "compare_cars", "get_comparison":
		var ids []string
		for _, x := range a["carIds"].([]any) {
			ids = append(ids, x.(string))
		}
		var names, prices, years, trims, packs []string
		type row struct {
			ID      string   `json:"id"`
			Make    string   `json:"make"`
			Model   string   `json:"model"`
			Year    int      `json:"year"`
			Price   float64  `json:"price"`
			Mileage float64  `json:"mileage"`
			Fuel    string   `json:"fuel"`
			Colors  []string `json:"colors"`
		}
		var rows []row
		for _, id := range ids {
			c, _ := carByID(id)
			names = append(names, c.ID+" "+c.title())
			prices = append(prices, c.ID+" "+money(c.Price))
			years = append(years, fmt.Sprintf("%s %d", c.ID, c.Year))
			var tn, pn []string
			for _, x := range c.Trims {
				tn = append(tn, x.Name)
			}
			for _, x := range c.Packages {
				pn = append(pn, x.Name)
			}
			trims = append(trims, c.ID+" "+strings.Join(tn, "/"))
			packs = append(packs, c.ID+" "+strings.Join(pn, "/"))
			rows = append(rows, row{c.ID, c.Make, c.Model, c.Year, c.Price, c.Mileage, c.Fuel, c.Colors})
		}
		sc, _ := json.Marshal(map[string]any{"cars": rows})
		return fmt.Sprintf("Comparing %s.\nPrice: %s\nYear: %s\nTrims: %s\nPackages: %s", strings.Join(names, ", "), strings.Join(prices, " | "),
			strings.Join(years, " | "), strings.Join(trims, " | "), strings.Join(packs, " | ")) + "\nstructuredContent: " + string(sc), false
	case "close_comparison":
		return "The comparison drawer is closed.", false
	case "configure_car":
		return "Configured: 2023 Toyota RAV4 (c01), XLE trim (+$2,500), blue, Winter package $900. Base $31,990, total $35,390.", false
	case "get_price_summary":
		return "2023 Toyota RAV4 (c01), LE trim (+$0), white, no packages. Base $31,990, total $31,990.", false
	case "go_to_test_drive":
		p.navigated = "test-drive"
		return "Opening the test-drive booking page for the 2023 Toyota RAV4; its form tools will be available once it has loaded.", false
	case "go_to_financing":
		p.navigated = "financing"
		return "Opening the financing calculator for the 2023 Toyota RAV4 at $31,990; its tools will be available once it has loaded.", false
	case "back_to_inventory":
		p.navigated = "inventory"
		return "Going back to the inventory page; its search tools will be available once it has loaded.", false
	case "fill_form_data":
		var ks []string
		for k := range a {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		// As jsclient/declarative.js answers for a form without toolautosubmit.
		return "Filled " + strings.Join(ks, ", ") + ` in the form "fill_form_data". The form was not submitted: it waits for the visitor to check it and press "Book test drive" themselves. Ask them to do so.`, false
	case "book_test_drive":
		return "Cannot book yet. Missing or invalid: name, a valid email. Use fill_form_data first.", true
	case "calculate_payment":
		return "Monthly payment $597.50 for 60 months at 6.9% APR on a loan of $26,990 (price $31990, down $5000). Total interest $5,000.", false
	case "apply_for_financing":
		return "Application FN-12345 submitted for Jane Doe: $26,990 over 60 months, about $597.50 per month. We reply within one business day.", false
	}
	return "unknown tool " + name, true
}

// fixedDay is the planner's today in the tests: Wednesday 2 December 2026.
var fixedDay = time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)

type turnOut struct {
	calls  []string // "name {args}"
	text   string
	landed string // the page a navigating tool opened during the turn ("" = none)
}

// converse runs turns like the agent loop: each user message, then the planner's calls
// answered by the page, until it replies.
type conversation struct {
	t    *testing.T
	msgs []chat.Message
	page *demoPage
}

func (cv *conversation) say(toolset []chat.ToolDef, text string) turnOut {
	t := cv.t
	t.Helper()
	cv.msgs = append(cv.msgs, chat.Message{Role: chat.RoleUser, Content: text})
	p := &Planner{now: func() time.Time { return fixedDay }}
	var out turnOut
	for i := 0; i < 8; i++ {
		var deltas strings.Builder
		resp, err := p.Stream(context.Background(), llm.Request{Messages: slices.Clone(cv.msgs), Tools: toolset}, func(d string) { deltas.WriteString(d) })
		if err != nil {
			t.Fatalf("Stream: %v", err)
		}
		if len(resp.ToolCalls) == 0 {
			if deltas.String() != resp.Text {
				t.Errorf("deltas %q do not join to the text %q", deltas.String(), resp.Text)
			}
			cv.msgs = append(cv.msgs, chat.Message{Role: chat.RoleAssistant, Content: resp.Text})
			out.text = resp.Text
			return out
		}
		cv.msgs = append(cv.msgs, chat.Message{Role: chat.RoleAssistant, ToolCalls: resp.ToolCalls})
		for _, call := range resp.ToolCalls {
			validate(t, findTool(t, toolset, call.Name), call.Arguments)
			out.calls = append(out.calls, call.Name+" "+call.Arguments)
			res, isErr := cv.page.call(call.Name, call.Arguments)
			cv.msgs = append(cv.msgs, chat.Message{Role: chat.RoleTool, ToolCallID: call.ID, Name: call.Name, Content: tools.Wrap(call.Name, res, isErr)})
			if to := cv.page.navigated; to != "" {
				cv.page.navigated = ""
				toolset = demoPages[to]
				out.landed = to
			}
		}
	}
	t.Fatalf("no reply after 8 model calls; calls %v", out.calls)
	return out
}

// sameCall compares "name {json}" ignoring key order.
func sameCall(got, want string) bool {
	gn, ga, _ := strings.Cut(got, " ")
	wn, wa, _ := strings.Cut(want, " ")
	if gn != wn {
		return false
	}
	var g, w any
	if json.Unmarshal([]byte(ga), &g) != nil || json.Unmarshal([]byte(wa), &w) != nil {
		return ga == wa
	}
	return reflect.DeepEqual(g, w)
}
