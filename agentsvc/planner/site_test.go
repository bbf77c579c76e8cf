package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/tools"
)

// The whole demo site as a visitor moves through it: every page's tools as demo-site/js/*.js
// registers them (testdata/demo-tools.json; the car page's configurator enums are those of the
// car on screen, as car.js builds them from cars.json), and the page a navigating tool opens is
// the page the rest of the turn, and the next turns, see.

// siteCar is a car of testdata/cars.json with what car.js reads of it.
type siteCar struct {
	ID     string   `json:"id"`
	Make   string   `json:"make"`
	Model  string   `json:"model"`
	Year   int      `json:"year"`
	Price  float64  `json:"price"`
	Colors []string `json:"colors"`
	Trims  []struct {
		Name  string  `json:"name"`
		Price float64 `json:"price"`
	} `json:"trims"`
	Packages []struct {
		ID    string  `json:"id"`
		Name  string  `json:"name"`
		Price float64 `json:"price"`
	} `json:"packages"`
}

func (c siteCar) title() string { return fmt.Sprintf("%d %s %s", c.Year, c.Make, c.Model) }

var siteCars = func() map[string]siteCar {
	b, err := os.ReadFile("testdata/cars.json")
	if err != nil {
		panic(err)
	}
	var cs []siteCar
	if err := json.Unmarshal(b, &cs); err != nil {
		panic(err)
	}
	out := map[string]siteCar{}
	for _, c := range cs {
		out[c.ID] = c
	}
	return out
}()

// carPageTools are the car page's tools for car c: demo-tools.json's (recorded on c01's page)
// with configure_car's choices those of c, as car.js registers them (each package by its id,
// titled with its name).
func carPageTools(t *testing.T, c siteCar) []chat.ToolDef {
	t.Helper()
	defs := slices.Clone(demoPages["car"])
	for i, d := range defs {
		if d.Name != "configure_car" {
			continue
		}
		var s map[string]any
		if err := json.Unmarshal(d.Parameters, &s); err != nil {
			t.Fatal(err)
		}
		props := s["properties"].(map[string]any)
		var trims []string
		var packs []any
		for _, x := range c.Trims {
			trims = append(trims, x.Name)
		}
		for _, x := range c.Packages {
			packs = append(packs, map[string]any{"const": x.ID, "title": x.Name})
		}
		props["trim"].(map[string]any)["enum"] = trims
		props["color"].(map[string]any)["enum"] = c.Colors
		props["packages"].(map[string]any)["items"].(map[string]any)["anyOf"] = packs
		b, _ := json.Marshal(s)
		defs[i].Parameters = b
	}
	return defs
}

type carConfig struct {
	trim     string
	color    string
	packages []string
}

// site is the demo in a browser tab: the page on screen and what each page keeps.
type site struct {
	t        *testing.T
	page     string // inventory, drawer, car, test-drive, financing
	car      string // the car of the car, test-drive and financing pages
	list     demoPage
	configs  map[string]*carConfig
	form     map[string]any // the test-drive form's fields
	booked   bool
	finance  map[string]float64
	navigate string // the page a call of this model step opened
	compared string // the arguments of the drawer's compare_cars
}

func newSite(t *testing.T, page, car string) *site {
	s := &site{t: t, configs: map[string]*carConfig{}}
	s.open(page, car)
	return s
}

func (s *site) open(page, car string) {
	s.page, s.car = page, car
	switch page {
	case "test-drive":
		s.form, s.booked = map[string]any{}, false
	case "financing":
		price := 30000.0
		if c, ok := siteCars[car]; ok {
			price = s.total(c)
		}
		s.finance = map[string]float64{"price": price, "downPayment": 0, "termMonths": 60, "apr": 6.9}
	}
}

func (s *site) tools() []chat.ToolDef {
	switch s.page {
	case "car":
		return carPageTools(s.t, siteCars[s.car])
	case "drawer":
		return demoPages["drawer"]
	}
	return demoPages[s.page]
}

// instructions are the agent's default instructions on the page (agentsvc's systemPrompt):
// they name it by the title and address the demo gives it.
func (s *site) instructions() string {
	c, ok := siteCars[s.car]
	title, path := "Northwind Motors — Used cars in Seaview", "/"
	switch {
	case s.page == "car" && ok:
		title, path = c.title()+" — Northwind Motors", "/car.html?id="+c.ID
	case s.page == "test-drive" && ok:
		title, path = "Test drive: "+c.title()+" — Northwind Motors", "/test-drive.html?id="+c.ID
	case s.page == "test-drive":
		title, path = "Book a test drive — Northwind Motors", "/test-drive.html"
	case s.page == "financing" && ok:
		title, path = "Financing: "+c.title()+" — Northwind Motors", fmt.Sprintf("/financing.html?id=%s&price=%g", c.ID, s.total(c))
	case s.page == "financing":
		title, path = "Financing — Northwind Motors", "/financing.html"
	}
	return fmt.Sprintf("You are a helpful assistant embedded in the web page %q (%s). The page offers tools that act on it.", title, "http://localhost:8080"+path)
}

func (s *site) config(c siteCar) *carConfig {
	if s.configs[c.ID] == nil {
		s.configs[c.ID] = &carConfig{trim: c.Trims[0].Name, color: c.Colors[0]}
	}
	return s.configs[c.ID]
}

func (s *site) total(c siteCar) float64 {
	cf := s.config(c)
	total := c.Price
	for _, x := range c.Trims {
		if x.Name == cf.trim {
			total += x.Price
		}
	}
	for _, p := range c.Packages {
		if slices.Contains(cf.packages, p.ID) {
			total += p.Price
		}
	}
	return total
}

// breakdown is common.js's breakdownText.
func (s *site) breakdown(c siteCar) string {
	cf := s.config(c)
	trimPrice := 0.0
	for _, x := range c.Trims {
		if x.Name == cf.trim {
			trimPrice = x.Price
		}
	}
	var pk []string
	for _, p := range c.Packages {
		if slices.Contains(cf.packages, p.ID) {
			pk = append(pk, p.Name+" "+money(p.Price))
		}
	}
	pks := "no packages"
	if len(pk) > 0 {
		pks = strings.Join(pk, ", ")
	}
	return fmt.Sprintf("%s (%s), %s trim (+%s), %s, %s. Base %s, total %s.", c.title(), c.ID, cf.trim, money(trimPrice), cf.color, pks, money(c.Price), money(s.total(c)))
}

// call runs a tool of the page on screen the way its script does.
func (s *site) call(name, args string) (string, bool) {
	var a map[string]any
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		return "invalid arguments: " + err.Error(), true
	}
	c := siteCars[s.car]
	switch name {
	case "search_cars", "sort_cars", "clear_filters", "compare_cars", "get_comparison", "close_comparison":
		if name == "compare_cars" {
			s.compared = args
		} else if name == "get_comparison" {
			args = s.compared
		}
		out, isErr := s.list.call(name, args)
		switch name {
		case "compare_cars":
			s.page = "drawer"
		case "close_comparison":
			s.page = "inventory"
		}
		return out, isErr
	case "select_car":
		out, isErr := s.list.call(name, args)
		if !isErr {
			s.list.navigated = ""
			s.go_("car", a["carId"].(string))
		}
		return out, isErr
	case "configure_car":
		cf := s.config(c)
		if v, ok := a["trim"].(string); ok {
			cf.trim = v
		}
		if v, ok := a["color"].(string); ok {
			if !slices.Contains(c.Colors, v) {
				return fmt.Sprintf("This car does not come in %s; choose %s.", v, strings.Join(c.Colors, ", ")), true
			}
			cf.color = v
		}
		if v, ok := a["packages"].([]any); ok {
			cf.packages = nil
			for _, x := range v {
				cf.packages = append(cf.packages, x.(string))
			}
		}
		return "Configured: " + s.breakdown(c), false
	case "get_price_summary":
		return s.breakdown(c), false
	case "go_to_test_drive":
		s.go_("test-drive", s.car)
		return fmt.Sprintf("Opening the test-drive booking page for the %s; its form tools will be available once it has loaded.", c.title()), false
	case "go_to_financing":
		total := s.total(c)
		s.go_("financing", s.car)
		return fmt.Sprintf("Opening the financing calculator for the %s at %s; its tools will be available once it has loaded.", c.title(), money(total)), false
	case "back_to_inventory":
		s.go_("inventory", "")
		return "Going back to the inventory page; its search tools will be available once it has loaded.", false
	case "fill_form_data":
		var ks []string
		for k, v := range a {
			s.form[k] = v
			ks = append(ks, k)
		}
		slices.Sort(ks)
		return "Filled " + strings.Join(ks, ", ") + ` in the form "fill_form_data". The form was not submitted: it waits for the visitor to check it and press "Book test drive" themselves. Ask them to do so.`, false
	case "book_test_drive":
		var missing []string
		for _, k := range []string{"name", "email", "date", "time"} {
			if s.form[k] == nil {
				missing = append(missing, k)
			}
		}
		if len(missing) > 0 {
			return "Cannot book yet. Missing or invalid: " + strings.Join(missing, ", ") + ". Use fill_form_data first.", true
		}
		s.booked = true
		return fmt.Sprintf("Booked test drive TD-4821: %s on %s at %s for %s (%s).", c.title(), s.form["date"], s.form["time"], s.form["name"], s.form["email"]), false
	case "calculate_payment":
		for k, v := range a {
			s.finance[k] = v.(float64)
		}
		f := s.finance
		loan := max(f["price"]-f["downPayment"], 0)
		r := f["apr"] / 100 / 12
		n := f["termMonths"]
		monthly := loan / n
		if r > 0 {
			monthly = loan * r / (1 - pow(1+r, -n))
		}
		return fmt.Sprintf("Monthly payment $%.2f for %.0f months at %g%% APR on a loan of %s (price %s, down %s). Total interest %s.",
			monthly, n, f["apr"], money(loan), money(f["price"]), money(f["downPayment"]), money(monthly*n-loan)), false
	case "apply_for_financing":
		return fmt.Sprintf("Application FN-12345 submitted for %s: %s over %.0f months. We reply within one business day.", a["fullName"], money(s.finance["price"]-s.finance["downPayment"]), s.finance["termMonths"]), false
	}
	return "unknown tool " + name, true
}

func pow(x, n float64) float64 {
	out := 1.0
	neg := n < 0
	if neg {
		n = -n
	}
	for i := 0; i < int(n); i++ {
		out *= x
	}
	if neg {
		return 1 / out
	}
	return out
}

// go_ opens another page: the call's page is gone, the next model step sees the new one.
func (s *site) go_(page, car string) {
	s.open(page, car)
	s.navigate = page
}

// visit is one visitor in one tab: the messages the agent keeps for the session.
type visit struct {
	t    *testing.T
	site *site
	msgs []chat.Message
}

// say runs one turn like the agent loop (agentsvc/loop: at most 10 model calls): the model
// sees the tools of the page on screen at each step, the tools run on that page.
func (v *visit) say(text string) turnOut {
	t := v.t
	t.Helper()
	v.msgs = append(v.msgs, chat.Message{Role: chat.RoleUser, Content: text})
	p := &Planner{now: func() time.Time { return fixedDay }}
	system := chat.Message{Role: chat.RoleSystem, Content: v.site.instructions()} // the page the turn starts on
	var out turnOut
	for i := 0; i < 10; i++ {
		toolset := v.site.tools()
		var deltas strings.Builder
		resp, err := p.Stream(context.Background(), llm.Request{Messages: append([]chat.Message{system}, v.msgs...), Tools: toolset}, func(d string) { deltas.WriteString(d) })
		if err != nil {
			t.Fatalf("Stream: %v", err)
		}
		if len(resp.ToolCalls) == 0 {
			v.msgs = append(v.msgs, chat.Message{Role: chat.RoleAssistant, Content: resp.Text})
			out.text = resp.Text
			return out
		}
		v.msgs = append(v.msgs, chat.Message{Role: chat.RoleAssistant, ToolCalls: resp.ToolCalls})
		for _, call := range resp.ToolCalls {
			validate(t, findTool(t, toolset, call.Name), call.Arguments)
			out.calls = append(out.calls, call.Name+" "+call.Arguments)
			res, isErr := v.site.call(call.Name, call.Arguments)
			v.msgs = append(v.msgs, chat.Message{Role: chat.RoleTool, ToolCallID: call.ID, Name: call.Name, Content: tools.Wrap(call.Name, res, isErr)})
		}
		if v.site.navigate != "" {
			out.landed = v.site.navigate
			v.site.navigate = ""
		}
	}
	t.Fatalf("%q: no reply after 10 model calls; calls %v", text, out.calls)
	return out
}
