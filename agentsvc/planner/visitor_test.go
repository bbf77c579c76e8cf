package planner

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/chat"
)

// visitorStep is one message of a visitor's conversation, as an outside tester typed it in the
// demo: the calls the planner must make, in order, and words its reply must and must not have.
type visitorStep struct {
	page  string
	say   string
	calls []string
	reply []string
	not   []string
}

func runVisitor(t *testing.T, steps []visitorStep) *demoPage {
	t.Helper()
	cv := &conversation{t: t, page: &demoPage{}}
	for _, st := range steps {
		out := cv.say(pageTools(st.page), st.say)
		if len(out.calls) != len(st.calls) {
			t.Fatalf("%q on %s: got calls %v, want %v (reply %q)", st.say, st.page, out.calls, st.calls, out.text)
		}
		for i := range st.calls {
			if !sameCall(out.calls[i], st.calls[i]) {
				t.Fatalf("%q on %s: got call %d %s, want %s", st.say, st.page, i, out.calls[i], st.calls[i])
			}
		}
		for _, w := range st.reply {
			if !strings.Contains(out.text, w) {
				t.Errorf("%q on %s: got reply %q, want it to contain %q", st.say, st.page, out.text, w)
			}
		}
		for _, w := range st.not {
			if strings.Contains(out.text, w) {
				t.Errorf("%q on %s: got reply %q, want it without %q", st.say, st.page, out.text, w)
			}
		}
	}
	return cv.page
}

const suvsUnder40k = `search_cars {"bodyType":"suv","maxPrice":40000}`

// A name the inventory does not have gets an honest answer, and the visitor's filters stay:
// when the conversation already listed everything, no call at all; else the lookup's unfiltered
// listing is followed by the filters the visitor had. Pasted prose is looked up not at all.
func TestNameNotInTheInventory(t *testing.T) {
	filtered := visitorStep{"inventory", "show me SUVs under 40k", []string{suvsUnder40k}, []string{"Showing 4 cars"}, nil}
	for _, tc := range []struct {
		name  string
		steps []visitorStep
	}{
		{"a make", []visitorStep{filtered, {"inventory", "do you have a Porsche?", []string{`search_cars {}`, suvsUnder40k},
			[]string{"There is no Porsche among the 24 cars"}, []string{"Sorry", "can't help"}}}},
		{"a model", []visitorStep{filtered, {"inventory", "tell me about the Cybertruck", []string{`search_cars {}`, suvsUnder40k},
			[]string{"There is no Cybertruck among the 24 cars"}, []string{"Sorry"}}}},
		{"a word", []visitorStep{filtered, {"inventory", "is the Lorem any good?", []string{`search_cars {}`, suvsUnder40k},
			[]string{"There is no Lorem"}, []string{"Sorry"}}}},
		{"pasted text", []visitorStep{filtered, {"inventory", "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt.", nil,
			[]string{"Sorry"}, nil}}},
		{"everything listed before", []visitorStep{
			{"inventory", "show all cars", []string{`search_cars {}`}, nil, nil},
			filtered,
			{"inventory", "do you have a Porsche?", nil, []string{"There is no Porsche among the 24 cars"}, nil},
		}},
		{"no filters to give back", []visitorStep{{"inventory", "tell me about the Cybertruck", []string{`search_cars {}`}, []string{"There is no Cybertruck"}, nil}}},
		{"filters cleared since", []visitorStep{filtered, {"inventory", "reset filters", []string{`clear_filters {}`}, nil, nil},
			{"inventory", "tell me about the Cybertruck", []string{`search_cars {}`}, []string{"There is no Cybertruck"}, nil}}},
		{"a name it has, on the same page", []visitorStep{
			{"inventory", "show me SUVs", []string{`search_cars {"bodyType":"suv"}`}, nil, nil},
			{"inventory", "compare the civic and the camry", []string{`search_cars {}`, `search_cars {"bodyType":"suv"}`, `compare_cars {"carIds":["c10","c09"]}`},
				[]string{"Comparing 2023 Honda Civic, 2022 Toyota Camry"}, nil},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page := runVisitor(t, tc.steps)
			if tc.steps[0].say == filtered.say && tc.steps[len(tc.steps)-1].say != "tell me about the Cybertruck" {
				if got := len(page.shown()); got != 4 {
					t.Errorf("got %d cars shown at the end, want the visitor's 4", got)
				}
			}
		})
	}
}

// On the test-drive page opened from the menu the form asks for the car (carId, an enum of
// ids): the planner asks for it by name and understands the name, from what the conversation
// listed or from the titles the schema gives the ids.
func TestCarNamedOnTheTestDriveForm(t *testing.T) {
	const filled = `fill_form_data {"carId":"c01","name":"Jane Doe","email":"jane@example.com","date":"2026-12-03","time":"14:00"}`
	listed := visitorStep{"inventory", "show all cars", []string{`search_cars {}`}, nil, nil}
	for _, tc := range []struct {
		name  string
		steps []visitorStep
	}{
		{"answered by name", []visitorStep{listed,
			{"test-drive-menu", "Jane Doe, jane@example.com, tomorrow at 2pm", nil,
				[]string{"Which car", "the 2023 Toyota RAV4", "24 to choose from"}, []string{"c01", "c24", "car id"}},
			{"test-drive-menu", "the RAV4", []string{filled}, nil, nil},
		}},
		{"named in the request", []visitorStep{listed,
			{"test-drive-menu", "Jane Doe, jane@example.com, tomorrow at 2pm for the Toyota RAV4", []string{filled}, nil, nil},
		}},
		{"titled by the schema", []visitorStep{
			{"test-drive-titled", "Jane Doe, jane@example.com, tomorrow at 2pm", nil, []string{"Which car", "2023 Toyota RAV4"}, []string{"c01"}},
			{"test-drive-titled", "for the 2023 Toyota RAV4", []string{filled}, nil, nil},
		}},
		{"with other values missing", []visitorStep{listed,
			{"test-drive-menu", "Jane Doe, jane@example.com", nil, []string{"car (for example the 2023 Toyota RAV4", "date"}, []string{"c01", "c24"}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { runVisitor(t, tc.steps) })
	}
}

// "The second one" takes a request for that car's own page there, as a name does.
func TestOrdinalCarriesTheRequestToTheItemsPage(t *testing.T) {
	for _, tc := range []struct{ say, id, page string }{
		{"book a test drive for the second one", "c08", "test-drive"},
		{"book a test drive for the first one", "c01", "test-drive"},
		{"book a test drive for the last one", "c08", "test-drive"},
		{"finance the second one", "c08", "financing"},
	} {
		t.Run(tc.say, func(t *testing.T) {
			go_ := "go_to_test_drive {}"
			if tc.page == "financing" {
				go_ = "go_to_financing {}"
			}
			runVisitor(t, []visitorStep{
				{"inventory", "show me SUVs under 40k", []string{suvsUnder40k}, nil, nil},
				{"inventory", "only red ones", []string{`search_cars {"bodyType":"suv","maxPrice":40000,"color":"red"}`}, nil, nil},
				{"inventory", tc.say, []string{`select_car {"carId":"` + tc.id + `"}`, go_}, nil, []string{"not sure", "?"}},
			})
		})
	}
}

// A follow-up on the calculator that gives one value keeps the values given before.
func TestCalculatorFollowUpsKeepEarlierValues(t *testing.T) {
	runVisitor(t, []visitorStep{
		{"financing", "48 months", []string{`calculate_payment {"termMonths":48}`}, nil, nil},
		{"financing", "at 3.9%", []string{`calculate_payment {"termMonths":48,"apr":3.9}`}, nil, nil},
		{"financing", "with 5000 down", []string{`calculate_payment {"termMonths":48,"apr":3.9,"downPayment":5000}`}, nil, nil},
		{"financing", "72 months", []string{`calculate_payment {"termMonths":72,"apr":3.9,"downPayment":5000}`}, nil, nil},
	})
}

// pageTools are the demo's tools of a page; "test-drive-menu" is the test-drive page opened
// from the site menu, without ?id=: its form has a Car field (carId, an enum of the ids).
func pageTools(page string) []chat.ToolDef {
	if page != "test-drive-menu" && page != "test-drive-titled" {
		return demoPages[page]
	}
	var out []chat.ToolDef
	for _, t := range demoPages["test-drive"] {
		if t.Name == "fill_form_data" {
			var s map[string]any
			_ = json.Unmarshal(t.Parameters, &s)
			ids := []string{}
			var titled []any
			for _, c := range demoCars {
				ids = append(ids, c.ID)
				titled = append(titled, map[string]any{"const": c.ID, "title": c.title() + " — " + money(c.Price)})
			}
			car := map[string]any{"type": "string", "enum": ids, "description": "The car to drive (its id)"}
			if page == "test-drive-titled" {
				car = map[string]any{"type": "string", "oneOf": titled, "description": "The car to drive (its id)"}
			}
			s["properties"].(map[string]any)["carId"] = car
			s["required"] = append(s["required"].([]any), "carId")
			b, _ := json.Marshal(s)
			t.Parameters = b
		}
		out = append(out, t)
	}
	return out
}

// A new sort keeps no order the visitor did not ask for again: the order has a default.
func TestSortAgainUsesTheDefaultOrder(t *testing.T) {
	runVisitor(t, []visitorStep{
		{"inventory", "sort by price high to low", []string{`sort_cars {"by":"price","order":"desc"}`}, nil, nil},
		{"inventory", "sort by mileage", []string{`sort_cars {"by":"mileage"}`}, nil, nil},
	})
}
