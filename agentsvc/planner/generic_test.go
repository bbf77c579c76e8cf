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

// Pages the planner was never tuned on: a library catalogue and a restaurant's bookings.
// Nothing in the planner knows these names; it must still resolve titles to ids, compose
// and ask, from the schemas and the results alone.

var libraryTools = []chat.ToolDef{
	tool("find_books", "Search the library catalogue.", `{"type":"object","properties":{
		"genre":{"type":"string","enum":["fiction","history","science","poetry"]},
		"author":{"type":"string"},
		"publishedAfter":{"type":"integer","minimum":1500,"maximum":2100}},"additionalProperties":false}`),
	tool("reserve_book", "Reserve a book for pick-up at the front desk.", `{"type":"object","properties":{
		"bookId":{"type":"string","pattern":"^bk-[0-9]{3}$"}},"required":["bookId"],"additionalProperties":false}`),
	tool("list_loans", "List the books you have borrowed.", noParams),
}

type book struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Author string `json:"author"`
	Genre  string `json:"genre"`
	Year   int    `json:"year"`
	Pages  int    `json:"pages"`
}

var catalogue = []book{
	{"bk-101", "Dune", "Frank Herbert", "fiction", 1965, 412},
	{"bk-102", "The Left Hand of Darkness", "Ursula K. Le Guin", "fiction", 1969, 304},
	{"bk-201", "The Guns of August", "Barbara Tuchman", "history", 1962, 511},
	{"bk-202", "SPQR", "Mary Beard", "history", 2015, 608},
	{"bk-301", "A Brief History of Time", "Stephen Hawking", "science", 1988, 256},
	{"bk-302", "The Selfish Gene", "Richard Dawkins", "science", 1976, 360},
}

func libraryCall(name, args string) (string, bool) {
	var a map[string]any
	_ = json.Unmarshal([]byte(args), &a)
	switch name {
	case "find_books":
		var hits []book
		for _, b := range catalogue {
			if g, ok := a["genre"].(string); ok && b.Genre != g {
				continue
			}
			if au, ok := a["author"].(string); ok && !strings.EqualFold(b.Author, au) {
				continue
			}
			hits = append(hits, b)
		}
		var parts []string
		for _, b := range hits {
			parts = append(parts, fmt.Sprintf("%s %s", b.ID, b.Title))
		}
		sc, _ := json.Marshal(map[string]any{"books": hits})
		return fmt.Sprintf("%d books: %s", len(hits), strings.Join(parts, "; ")) + "\nstructuredContent: " + string(sc), false
	case "reserve_book":
		for _, b := range catalogue {
			if b.ID == a["bookId"] {
				return fmt.Sprintf("Reserved %s (%s); pick it up at the front desk within 3 days.", b.Title, b.ID), false
			}
		}
		return "no such book", true
	case "list_loans":
		return "You have no books on loan.", false
	}
	return "unknown tool", true
}

var restaurantTools = []chat.ToolDef{
	tool("book_table", "Book a table at the restaurant.", `{"type":"object","properties":{
		"date":{"type":"string","format":"date"},
		"time":{"type":"string","enum":["18:00","18:30","19:00","19:30","20:00","20:30"]},
		"guests":{"type":"integer","minimum":1,"maximum":12},
		"name":{"type":"string","minLength":2},
		"phone":{"type":"string"}},"required":["date","time","guests"],"additionalProperties":false}`),
	tool("show_menu", "Show one course of the menu.", `{"type":"object","properties":{
		"course":{"type":"string","enum":["starters","mains","desserts","drinks"]}},"required":["course"]}`),
}

func restaurantCall(name, args string) (string, bool) {
	switch name {
	case "book_table":
		return "Table booked: " + args, false
	case "show_menu":
		return "Desserts: tiramisu €7.50, panna cotta €6.90.", false
	}
	return "unknown tool", true
}

// A hotel's booking page (from an outside audit: a site the planner was never tuned on).
var hotelTools = []chat.ToolDef{
	tool("confirm_reservation", "Confirm and pay the pending booking request (charges the card on file).", `{"type":"object","properties":{}}`),
	tool("cancel_reservation", "Cancel an existing reservation by its reference.", `{"type":"object","properties":{
		"reference":{"type":"string","description":"reservation reference like HV-1234"}},"required":["reference"]}`),
	tool("list_rooms", "List the hotel's rooms with their nightly price.", noParams),
	tool("spa_opening_hours", "Spa opening hours today (looked up from the spa system, slow).", noParams),
	tool("subscribe_newsletter", "Subscribe an e-mail address to the spa newsletter.", `{"type":"object","properties":{
		"email":{"type":"string","format":"email","description":"the subscriber's e-mail"}},"required":["email"]}`),
}

func hotelCall(name, args string) (string, bool) {
	var a map[string]any
	_ = json.Unmarshal([]byte(args), &a)
	switch name {
	case "confirm_reservation":
		return "Reservation HV-6159 is confirmed for Jane Doe.", false
	case "cancel_reservation":
		if a["reference"] == "HV-0000" { // the visitor declines the confirmation (jsclient/tools.js)
			return "The user declined to run cancel_reservation.", true
		}
		return fmt.Sprintf("Reservation %v is cancelled.", a["reference"]), false
	case "spa_opening_hours":
		return "The spa is open 9:00-21:00 today.", false
	case "list_rooms":
		return "r01 Sea View Double $180; r02 Garden Suite $240", false
	case "subscribe_newsletter":
		return fmt.Sprintf("Subscribed %v to the newsletter.", a["email"]), false
	}
	return "unknown tool", true
}

// The same hotel's rooms page.
var roomTools = []chat.ToolDef{
	tool("search_rooms", "Filter the hotel rooms shown on the page by room type, view, number of guests and maximum nightly price.", `{"type":"object","properties":{
		"roomType":{"type":"string","enum":["single","double","suite","family"]},
		"view":{"type":"string","enum":["sea","garden","city"]},
		"guests":{"type":"integer","minimum":1,"maximum":6,"description":"number of guests"},
		"maxPrice":{"type":"number","minimum":0,"description":"maximum price per night in dollars"}},"additionalProperties":false}`),
	tool("room_details", "Show the details of one room, by its id.", `{"type":"object","properties":{
		"roomId":{"type":"string","pattern":"^r[0-9]{2}$"}},"required":["roomId"]}`),
	tool("open_booking", "Open the booking page for a room.", `{"type":"object","properties":{
		"roomId":{"type":"string","pattern":"^r[0-9]{2}$"}},"required":["roomId"]}`),
	tool("fill_booking", "Fill the booking form.", `{"type":"object","properties":{
		"guestName":{"type":"string"},"check_in":{"type":"string","format":"date"}},"required":["guestName"]}`),
	tool("book_room", "Book a room.", `{"type":"object","properties":{
		"roomId":{"type":"string","pattern":"^r[0-9]{2}$"},
		"checkIn":{"type":"string","format":"date"},
		"nights":{"type":"integer","minimum":1,"maximum":14},
		"breakfast":{"type":"boolean","description":"Breakfast included"}},"required":["roomId","checkIn"]}`),
}

type room struct {
	ID    string  `json:"id"`
	Name  string  `json:"name"`
	Price float64 `json:"price"`
	Type  string  `json:"roomType"`
	View  string  `json:"view"`
}

var rooms = []room{
	{"r01", "Harbour Single", 99, "single", "city"}, {"r02", "Garden Double", 149, "double", "garden"},
	{"r03", "Sea View Double", 189, "double", "sea"}, {"r04", "Lighthouse Suite", 349, "suite", "sea"},
	{"r05", "Family Loft", 259, "family", "garden"}, {"r06", "Captain Suite", 299, "suite", "city"},
}

func roomCall(name, args string) (string, bool) {
	var a map[string]any
	_ = json.Unmarshal([]byte(args), &a)
	switch name {
	case "search_rooms":
		var shown []room
		var parts []string
		for _, r := range rooms {
			if v, ok := a["view"].(string); ok && r.View != v {
				continue
			}
			if v, ok := a["roomType"].(string); ok && r.Type != v {
				continue
			}
			shown = append(shown, r)
			parts = append(parts, fmt.Sprintf("%s %s $%g", r.ID, r.Name, r.Price))
		}
		sc, _ := json.Marshal(map[string]any{"count": len(shown), "rooms": shown})
		return fmt.Sprintf("Showing %d rooms: %s", len(shown), strings.Join(parts, "; ")) + "\nstructuredContent: " + string(sc), false
	case "open_booking":
		return "Opening the booking page for " + fmt.Sprint(a["roomId"]), false
	case "fill_booking":
		return `Filled guestName, check_in in the form "fill_booking". The form was not submitted: it waits for you to check it and press "Send booking request" yourself.`, false
	case "book_room":
		return "Booked: " + args, false
	case "room_details":
		for _, r := range rooms {
			if r.ID == a["roomId"] {
				return fmt.Sprintf("%s: %s room with a %s view, $%g per night.", r.Name, r.Type, r.View, r.Price), false
			}
		}
		return "No room with id " + fmt.Sprint(a["roomId"]), true
	}
	return "unknown tool", true
}

// everythingTools and filesystemTools are the tools of two reference MCP servers as
// capture-server-tools.mjs recorded them (testdata/server-*-tools.json), named as a terminal
// sees them through --mcp-config: prefixed with the server's name.
var (
	everythingTools = serverTools("server-everything-tools.json", "everything")
	filesystemTools = serverTools("server-filesystem-tools.json", "fs")
)

func serverTools(file, server string) []chat.ToolDef {
	b, err := os.ReadFile("testdata/" + file)
	if err != nil {
		panic(err)
	}
	var captured struct {
		Tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(b, &captured); err != nil {
		panic(err)
	}
	var out []chat.ToolDef
	for _, t := range captured.Tools {
		out = append(out, tool(server+"__"+t.Name, t.Description, string(t.InputSchema)))
	}
	return out
}

// filesystemCall answers like server-filesystem over a small tree: /tmp/ev holds hello.txt.
func filesystemCall(name, args string) (string, bool) {
	var a map[string]any
	_ = json.Unmarshal([]byte(args), &a)
	switch name {
	case "fs__list_directory":
		return "[FILE] hello.txt\n[DIR] notes", false
	case "fs__read_text_file", "fs__read_file":
		if a["path"] == "/tmp/ev/hello.txt" {
			return "hello from a file", false
		}
		return fmt.Sprintf("Error: ENOENT: no such file or directory, open '%v'", a["path"]), true
	case "fs__write_file":
		return fmt.Sprintf("Successfully wrote to %v", a["path"]), false
	}
	return "ok", false
}

func everythingCall(name, args string) (string, bool) {
	var a map[string]any
	_ = json.Unmarshal([]byte(args), &a)
	switch name {
	case "everything__echo":
		return fmt.Sprintf("Echo: %v", a["message"]), false
	case "everything__get-sum":
		x, _ := a["a"].(float64)
		y, _ := a["b"].(float64)
		return fmt.Sprintf("The sum of %v and %v is %v.", x, y, x+y), false
	}
	return "ok", false
}

// A shop whose list sorts by the customers' rating but never shows it: the first after the
// sort is the best rated.
var shopTools = []chat.ToolDef{
	tool("list_products", "List the shop's kettles.", noParams),
	tool("sort_products", "Sort the kettles.", `{"type":"object","properties":{
		"by":{"type":"string","enum":["price","rating"]},
		"order":{"type":"string","enum":["asc","desc"]}},"required":["by"],"additionalProperties":false}`),
}

func shopCall(name, args string) (string, bool) {
	type kettle struct {
		ID    string  `json:"id"`
		Name  string  `json:"name"`
		Price float64 `json:"price"`
	}
	ks := []kettle{{"k1", "Steel Kettle", 40}, {"k2", "Glass Kettle", 55}, {"k3", "Travel Kettle", 25}}
	switch name {
	case "list_products":
	case "sort_products":
		ks = []kettle{ks[1], ks[0], ks[2]} // by the ratings the shop keeps to itself: 4.8, 4.5, 3.9
		if strings.Contains(args, `"price"`) {
			ks = []kettle{ks[2], ks[1], ks[0]}
		}
		if strings.Contains(args, `"asc"`) == strings.Contains(args, `"rating"`) {
			slices.Reverse(ks)
		}
	default:
		return "unknown tool", true
	}
	sc, _ := json.Marshal(map[string]any{"kettles": ks})
	return "Kettles listed.\nstructuredContent: " + string(sc), false
}

// A city's events guide: one event shown is the one a purchase is for.
var tixTools = []chat.ToolDef{
	tool("search_events", "Find events in the city guide.", `{"type":"object","properties":{
		"category":{"type":"string","enum":["concert","theatre","comedy","sport"]},
		"city":{"type":"string","enum":["Berlin","Hamburg","Munich"]},
		"from":{"type":"string","format":"date"}},"additionalProperties":false}`),
	tool("buy_tickets", "Buy tickets for one event.", `{"type":"object","properties":{
		"eventId":{"type":"string","pattern":"^ev[0-9]{3}$"},
		"quantity":{"type":"integer","minimum":1,"maximum":8},
		"email":{"type":"string","format":"email"}},"required":["eventId","quantity","email"],"additionalProperties":false}`),
}

func tixCall(name, args string) (string, bool) {
	switch name {
	case "search_events":
		all := []map[string]any{{"id": "ev101", "name": "Jazz Night", "category": "concert", "city": "Berlin", "date": "2026-12-11", "price": 35}, {"id": "ev102", "name": "Hamlet", "category": "theatre", "city": "Berlin", "date": "2026-12-12", "price": 48}, {"id": "ev201", "name": "Stand-up Showcase", "category": "comedy", "city": "Hamburg", "date": "2026-12-10", "price": 22}}
		var a map[string]any
		_ = json.Unmarshal([]byte(args), &a)
		var out []map[string]any
		for _, e := range all {
			if (a["category"] == nil || a["category"] == e["category"]) && (a["city"] == nil || a["city"] == e["city"]) {
				out = append(out, e)
			}
		}
		sc, _ := json.Marshal(map[string]any{"events": out})
		return fmt.Sprintf("Found %d events.", len(out)) + "\nstructuredContent: " + string(sc), false
	case "buy_tickets":
		return "Bought: " + args, false
	}
	return "unknown tool", true
}

// A clinic's appointments: its list's text names nobody; its results' structured content does.
var docTools = []chat.ToolDef{
	tool("list_doctors", "List the clinic's doctors.", `{"type":"object","properties":{
		"specialty":{"type":"string","enum":["general","dermatology","pediatrics","cardiology"]}},"additionalProperties":false}`),
	tool("book_appointment", "Book an appointment with a doctor.", `{"type":"object","properties":{
		"doctorId":{"type":"string","pattern":"^d[0-9]{2}$"},
		"date":{"type":"string","format":"date"},
		"time":{"type":"string","enum":["08:30","09:30","10:30","14:00","15:00"]},
		"patientName":{"type":"string","minLength":2},
		"phone":{"type":"string"}},"required":["doctorId","date","time","patientName"],"additionalProperties":false}`),
	tool("cancel_appointment", "Cancel an appointment by its reference.", `{"type":"object","properties":{
		"reference":{"type":"string"}},"required":["reference"]}`),
}

func docCall(name, args string) (string, bool) {
	switch name {
	case "list_doctors":
		all := `[{"id":"d01","name":"Dr. Ana Silva","specialty":"general"},{"id":"d02","name":"Dr. Ben Okafor","specialty":"dermatology"},{"id":"d03","name":"Dr. Chen Wei","specialty":"pediatrics"}]`
		if strings.Contains(args, "dermatology") {
			all = `[{"id":"d02","name":"Dr. Ben Okafor","specialty":"dermatology"}]`
		}
		return "Doctors listed.\nstructuredContent: {\"doctors\":" + all + "}", false
	case "book_appointment":
		return "Booked appointment AP-7731: " + args, false
	case "cancel_appointment":
		return "Cancelled " + args, false
	}
	return "unknown tool", true
}

// A to-do list: a question in the words of adding a task asks about the tasks.
var todoTools = []chat.ToolDef{
	tool("add_task", "Add a task to the list.", `{"type":"object","properties":{
		"title":{"type":"string","minLength":1},
		"due":{"type":"string","format":"date"},
		"priority":{"type":"string","enum":["low","normal","high"]}},"required":["title"],"additionalProperties":false}`),
	tool("list_tasks", "List the tasks.", `{"type":"object","properties":{
		"status":{"type":"string","enum":["open","done"]}},"additionalProperties":false}`),
	tool("complete_task", "Mark a task as done.", `{"type":"object","properties":{
		"taskId":{"type":"string","pattern":"^t[0-9]+$"}},"required":["taskId"],"additionalProperties":false}`),
	tool("delete_task", "Delete a task.", `{"type":"object","properties":{
		"taskId":{"type":"string","pattern":"^t[0-9]+$"}},"required":["taskId"],"additionalProperties":false}`),
}

func todoCall(name, args string) (string, bool) {
	switch name {
	case "add_task":
		return "Added task t4: " + args, false
	case "list_tasks":
		return "3 tasks.\nstructuredContent: {\"tasks\":[{\"id\":\"t1\",\"title\":\"Buy milk\",\"status\":\"open\",\"priority\":\"normal\"},{\"id\":\"t2\",\"title\":\"Call the bank\",\"status\":\"open\",\"priority\":\"high\"},{\"id\":\"t3\",\"title\":\"Pay rent\",\"status\":\"done\",\"priority\":\"high\"}]}", false
	case "complete_task", "delete_task":
		return "OK " + args, false
	}
	return "unknown tool", true
}

// Flats to let: a rent (not a price) in a currency only the schema names, and a details tool
// that reads one flat on the same page.
var flatTools = []chat.ToolDef{
	tool("search_apartments", "Search apartments for rent.", `{"type":"object","properties":{
		"bedrooms":{"type":"integer","minimum":0,"maximum":5,"description":"Minimum bedrooms"},
		"maxRent":{"type":"number","description":"Highest monthly rent in EUR"},
		"district":{"type":"string","enum":["Mitte","Kreuzberg","Prenzlauer Berg","Neukölln"]},
		"petsAllowed":{"type":"boolean"}},"additionalProperties":false}`),
	tool("apartment_details", "Show one apartment.", `{"type":"object","properties":{
		"apartmentId":{"type":"string","pattern":"^a[0-9]+$"}},"required":["apartmentId"],"additionalProperties":false}`),
	tool("schedule_viewing", "Schedule a viewing of an apartment.", `{"type":"object","properties":{
		"apartmentId":{"type":"string","pattern":"^a[0-9]+$"},
		"date":{"type":"string","format":"date"},
		"time":{"type":"string","pattern":"^[0-2][0-9]:[0-5][0-9]$"},
		"name":{"type":"string","minLength":2},
		"email":{"type":"string","format":"email"}},"required":["apartmentId","date","time","name","email"],"additionalProperties":false}`),
}

func flatCall(name, args string) (string, bool) {
	type flat struct {
		ID       string `json:"id"`
		Title    string `json:"title"`
		District string `json:"district"`
		Bedrooms int    `json:"bedrooms"`
		Rent     int    `json:"rent"`
	}
	all := []flat{{"a1", "Sunny loft on Torstraße", "Mitte", 1, 1450}, {"a2", "Family flat by the canal", "Kreuzberg", 3, 2100},
		{"a3", "Quiet studio near Tempelhof", "Neukölln", 0, 780}, {"a4", "Altbau with balcony", "Prenzlauer Berg", 2, 1650}}
	var a struct {
		Bedrooms    int
		MaxRent     float64
		District    string
		ApartmentID string
	}
	_ = json.Unmarshal([]byte(args), &a)
	switch name {
	case "search_apartments":
		out := slices.DeleteFunc(all, func(f flat) bool {
			return f.Bedrooms < a.Bedrooms || a.MaxRent > 0 && float64(f.Rent) > a.MaxRent || a.District != "" && a.District != f.District
		})
		sc, _ := json.Marshal(map[string]any{"apartments": out})
		return fmt.Sprintf("%d apartments found.\nstructuredContent: %s", len(out), sc), false
	case "apartment_details":
		if i := slices.IndexFunc(all, func(f flat) bool { return f.ID == a.ApartmentID }); i >= 0 {
			f := all[i]
			return fmt.Sprintf("%s, %s: %d bedrooms, €%d a month.", f.Title, f.District, f.Bedrooms, f.Rent), false
		}
		return "no such apartment", true
	case "schedule_viewing":
		return "Viewing scheduled: " + args, false
	}
	return "unknown tool", true
}

// A gym's classes: ids of several words, a member number only its pattern tells from them, and
// a tool that cancels whose name says "booking".
var gymTools = []chat.ToolDef{
	tool("list_classes", "List this week's classes.", `{"type":"object","properties":{
		"day":{"type":"string","enum":["monday","tuesday","wednesday","thursday","friday","saturday","sunday"]},
		"type":{"type":"string","enum":["yoga","spin","pilates","boxing"]}},"additionalProperties":false}`),
	tool("book_class", "Book a place in a class.", `{"type":"object","properties":{
		"classId":{"type":"string"},
		"memberNumber":{"type":"string","pattern":"^M[0-9]{5}$","description":"The member's number, like M12345"}},"required":["classId","memberNumber"],"additionalProperties":false}`),
	tool("cancel_booking", "Cancel a class booking.", `{"type":"object","properties":{
		"bookingRef":{"type":"string"}},"required":["bookingRef"],"additionalProperties":false}`),
}

func gymCall(name, args string) (string, bool) {
	var a map[string]string
	_ = json.Unmarshal([]byte(args), &a)
	switch name {
	case "list_classes":
		all := []map[string]string{{"id": "c-yoga-mon-7", "name": "Morning Yoga", "type": "yoga", "day": "monday", "time": "07:00"},
			{"id": "c-spin-tue-18", "name": "Spin Blast", "type": "spin", "day": "tuesday", "time": "18:00"},
			{"id": "c-yoga-sat-10", "name": "Weekend Flow", "type": "yoga", "day": "saturday", "time": "10:00"}}
		out := slices.DeleteFunc(all, func(c map[string]string) bool {
			return a["day"] != "" && a["day"] != c["day"] || a["type"] != "" && a["type"] != c["type"]
		})
		sc, _ := json.Marshal(map[string]any{"classes": out})
		return fmt.Sprintf("%d classes.\nstructuredContent: %s", len(out), sc), false
	case "book_class":
		return "Booked, reference BK-551.", false
	case "cancel_booking":
		return "Cancelled.", false
	}
	return "unknown tool", true
}

// Flights: parameters named by prepositions (from, to), described only in words.
var flyTools = []chat.ToolDef{
	tool("search_flights", "Search flights.", `{"type":"object","properties":{
		"from":{"type":"string","description":"Departure airport code, like LHR"},
		"to":{"type":"string","description":"Arrival airport code"},
		"date":{"type":"string","format":"date"},
		"passengers":{"type":"integer","minimum":1,"maximum":9,"default":1},
		"cabin":{"type":"string","enum":["economy","premium","business"]}},"required":["from","to","date"],"additionalProperties":false}`),
	tool("book_flight", "Book a flight for the passengers.", `{"type":"object","properties":{
		"flightId":{"type":"string","pattern":"^[A-Z]{2}[0-9]{2,4}-[0-9]{4}$"},
		"passengerName":{"type":"string"},
		"email":{"type":"string","format":"email"}},"required":["flightId","passengerName","email"],"additionalProperties":false}`),
	tool("add_to_shopping_list", "Add things to the trip's shopping list.", `{"type":"object","properties":{
		"items":{"type":"array","items":{"type":"string"},"minItems":1}},"required":["items"],"additionalProperties":false}`),
}

func flyCall(name, args string) (string, bool) {
	switch name {
	case "search_flights":
		return `3 flights found.
structuredContent: {"flights":[{"id":"LH123-0705","name":"LH123 07:05","price":189},{"id":"BA456-1230","name":"BA456 12:30","price":142},{"id":"EW789-1915","name":"EW789 19:15","price":99}]}`, false
	case "book_flight":
		return "Booked, PNR XK7Q2L.", false
	case "add_to_shopping_list":
		return "Added: " + args, false
	}
	return "unknown tool", true
}

var recipeTools = []chat.ToolDef{
	tool("find_recipes", "Find recipes.", `{"type":"object","properties":{
		"ingredient":{"type":"string"},
		"maxMinutes":{"type":"integer","minimum":5},
		"diet":{"type":"string","enum":["vegetarian","vegan","gluten-free"]}},"additionalProperties":false}`),
	tool("get_recipe", "Show a recipe with its ingredients and steps.", `{"type":"object","properties":{
		"recipeId":{"type":"string"}},"required":["recipeId"],"additionalProperties":false}`),
}

func recipeCall(name, args string) (string, bool) {
	switch name {
	case "find_recipes":
		return `2 recipes.
structuredContent: {"recipes":[{"id":"r1","name":"Chicken curry","minutes":50},{"id":"r2","name":"Lemon chicken","minutes":30}]}`, false
	case "get_recipe":
		return "Chicken curry (50 min): chicken, onion, curry paste.", false
	}
	return "unknown tool", true
}

func TestGenericPages(t *testing.T) {
	type gstep struct {
		say   string
		calls []string
		reply []string
	}
	tests := []struct {
		name  string
		tools []chat.ToolDef
		call  func(name, args string) (string, bool)
		steps []gstep
	}{
		{"library: a genre", libraryTools, libraryCall, []gstep{{"any science books?", []string{`find_books {"genre":"science"}`}, []string{"A Brief History of Time"}}}},
		{"library: a title never seen", libraryTools, libraryCall, []gstep{{"reserve Dune", []string{`find_books {}`, `reserve_book {"bookId":"bk-101"}`}, []string{"Reserved Dune"}}}},
		{"library: the second one", libraryTools, libraryCall, []gstep{
			{"history books", []string{`find_books {"genre":"history"}`}, []string{"The Guns of August", "SPQR"}},
			{"reserve the second one", []string{`reserve_book {"bookId":"bk-202"}`}, []string{"Reserved SPQR"}},
		}},
		{"library: a title by name after a list", libraryTools, libraryCall, []gstep{
			{"fiction", []string{`find_books {"genre":"fiction"}`}, nil},
			{"i'd like to reserve the left hand of darkness", []string{`reserve_book {"bookId":"bk-102"}`}, nil},
		}},
		{"library: by an author", libraryTools, libraryCall, []gstep{{"books by Frank Herbert", []string{`find_books {"author":"Frank Herbert"}`}, []string{"Dune"}}}},
		{"library: a title with its article", libraryTools, libraryCall, []gstep{
			{"fiction", []string{`find_books {"genre":"fiction"}`}, nil},
			{"reserve one", nil, []string{"For example the Dune or The Left Hand of Darkness."}},
		}},
		{"library: newest", libraryTools, libraryCall, []gstep{{"what's the newest history book", []string{`find_books {"genre":"history"}`}, []string{"The newest history book is the SPQR."}}}},
		{"library: the whole list", libraryTools, libraryCall, []gstep{{"what books do you have?", []string{`find_books {}`}, []string{"Dune"}}}},
		{"rooms: a choice names the room", roomTools, roomCall, []gstep{
			{"show all rooms", []string{`search_rooms {}`}, nil},
			{"the sea view double", nil, []string{"Which do you mean", "(Sea View Double)"}},
		}},
		{"rooms: a filled form names its fields in words", roomTools, roomCall, []gstep{{"fill the booking form for Jane Doe, check in 2026-12-12", []string{`fill_booking {"guestName":"Jane Doe","check_in":"2026-12-12"}`}, []string{"Filled guest name, check in in the form."}}}},
		{"rooms: with breakfast", roomTools, roomCall, []gstep{{"book r03 on 2026-12-12 for 2 nights with breakfast", []string{`book_room {"roomId":"r03","checkIn":"2026-12-12","nights":2,"breakfast":true}`}, nil}}},
		{"rooms: without breakfast", roomTools, roomCall, []gstep{{"book r03 on 2026-12-12, no breakfast", []string{`book_room {"roomId":"r03","checkIn":"2026-12-12","breakfast":false}`}, nil}}},
		{"rooms: the whole list", roomTools, roomCall, []gstep{{"list the rooms", []string{`search_rooms {}`}, []string{"Harbour Single"}}}},
		{"library: hello", libraryTools, libraryCall, []gstep{{"hello", nil, []string{"“find books fiction”"}}}},
		{"library: unrelated", libraryTools, libraryCall, []gstep{{"what's the wifi password", nil, []string{"can't help"}}}},
		{"restaurant: a booking in words", restaurantTools, restaurantCall, []gstep{{"table for 4 on friday at 7", []string{`book_table {"date":"2026-12-04","time":"19:00","guests":4}`}, nil}}},
		{"restaurant: a party in words", restaurantTools, restaurantCall, []gstep{{"a table for two on friday at 7", []string{`book_table {"date":"2026-12-04","time":"19:00","guests":2}`}, nil}}},
		{"rooms: nights in words", roomTools, roomCall, []gstep{{"book r03 on 2026-12-12 for three nights", []string{`book_room {"roomId":"r03","checkIn":"2026-12-12","nights":3}`}, nil}}},
		{"restaurant: a party too large", restaurantTools, restaurantCall, []gstep{{"table for 20 tomorrow at 7", nil, []string{"I need the number of guests (1 to 12)."}}}},
		{"restaurant: the menu", restaurantTools, restaurantCall, []gstep{{"what desserts do you have", []string{`show_menu {"course":"desserts"}`}, []string{"€7.50"}}}},
		{"restaurant: missing values", restaurantTools, restaurantCall, []gstep{{"book a table", nil, []string{"date", "time", "guests"}}}},
		{"hotel: a result's reference is in the reply", hotelTools, hotelCall, []gstep{{"Confirm my reservation", []string{`confirm_reservation {}`}, []string{"HV-6159", "Jane Doe"}}}},
		{"hotel: an email is passed as typed", hotelTools, hotelCall, []gstep{
			{"Confirm my reservation", []string{`confirm_reservation {}`}, nil},
			{"subscribe jane@example.com to the newsletter", []string{`subscribe_newsletter {"email":"jane@example.com"}`}, []string{"jane@example.com"}},
		}},
		{"hotel: a room's name inside an email is not the room", hotelTools, hotelCall, []gstep{
			{"list the rooms", []string{`list_rooms {}`}, []string{"Garden Suite"}},
			{"subscribe garden.suite@example.com to the newsletter", []string{`subscribe_newsletter {"email":"garden.suite@example.com"}`}, nil},
		}},
		{"rooms: a room by its name, never seen", roomTools, roomCall, []gstep{{"tell me about the Sea View Double", []string{`search_rooms {"roomType":"double","view":"sea"}`}, []string{"Sea View Double", "189"}}}},
		{"rooms: a room by its name, seen", roomTools, roomCall, []gstep{
			{"show all rooms", []string{`search_rooms {}`}, []string{"Harbour Single"}},
			{"tell me about the Sea View Double", []string{`room_details {"roomId":"r03"}`}, []string{"189"}},
		}},
		{"rooms: a room by its name, among some seen", roomTools, roomCall, []gstep{
			{"rooms with a sea view", []string{`search_rooms {"view":"sea"}`}, []string{"Lighthouse Suite"}},
			{"tell me about the lighthouse suite", []string{`room_details {"roomId":"r04"}`}, []string{"349"}},
		}},
		{"hotel: a tool described by what it shows", hotelTools, hotelCall, []gstep{{"spa hours?", nil, []string{"Should I show spa opening hours today?"}}}},
		{"hotel: a declined call is no failure", hotelTools, hotelCall, []gstep{{"cancel reservation HV-0000", []string{`cancel_reservation {"reference":"HV-0000"}`}, []string{"OK, I won't cancel an existing reservation"}}}},
		{"hotel: a word of the request is no reference", hotelTools, hotelCall, []gstep{
			{"cancel my booking", nil, []string{"I need your reference"}},
			{"HV-1234", []string{`cancel_reservation {"reference":"HV-1234"}`}, []string{"HV-1234"}},
		}},
		{"hotel: a request not to act", hotelTools, hotelCall, []gstep{
			{"don't cancel my reservation HV-1234", nil, []string{"OK, I won't cancel an existing reservation"}},
			{"please do not confirm the reservation", nil, []string{"OK, I won't confirm and pay"}},
			{"never mind", nil, []string{"OK, I won't."}},
		}},
		{"rooms: no breakfast is a value, not a refusal", roomTools, roomCall, []gstep{{"no breakfast, book r03 on 2026-12-12", []string{`book_room {"roomId":"r03","checkIn":"2026-12-12","breakfast":false}`}, nil}}},
		{"rooms: the cheapest, booked once the date is known", roomTools, roomCall, []gstep{
			{"book the cheapest room", []string{`search_rooms {}`}, []string{"The cheapest room is the Harbour Single, at $99. To book a room I need your check in."}},
			{"book it for 2026-12-20", []string{`book_room {"roomId":"r01","checkIn":"2026-12-20"}`}, nil},
		}},
		{"everything: a sum of two unnamed numbers", everythingTools, everythingCall, []gstep{{"add 3 and 4", []string{`everything__get-sum {"a":3,"b":4}`}, []string{"The sum of 3 and 4 is 7."}}}},
		{"everything: small words are a message too", everythingTools, everythingCall, []gstep{{"echo hi there", []string{`everything__echo {"message":"hi there"}`}, []string{"Echo: hi there"}}}},
		{"everything: a message asked for", everythingTools, everythingCall, []gstep{{"echo", nil, []string{"To echo back the input string I need your message."}}}},
		{"filesystem: a listing", filesystemTools, filesystemCall, []gstep{{"list the files in /tmp/ev", []string{`fs__list_directory {"path":"/tmp/ev"}`}, []string{"hello.txt"}}}},
		{"filesystem: read, not the deprecated tool nor the media one", filesystemTools, filesystemCall, []gstep{{"read /tmp/ev/hello.txt", []string{`fs__read_text_file {"path":"/tmp/ev/hello.txt"}`}, []string{"hello from a file"}}}},
		{"filesystem: a path is a path", filesystemTools, filesystemCall, []gstep{{"create a file /tmp/ev/new.txt with the text hi", []string{`fs__write_file {"path":"/tmp/ev/new.txt","content":"hi"}`}, nil}}},
		{"ag-ui tools: a suggestion says a name once", []chat.ToolDef{tool("set_theme", "Switch the page theme.", `{"type":"object","properties":{"theme":{"type":"string","enum":["light","dark"]}},"required":["theme"]}`)}, everythingCall, []gstep{{"hello", nil, []string{"“set theme light”"}}}},
		{"everything: what tools", everythingTools, everythingCall, []gstep{{"what tools do you have?", nil, []string{"try: “get env”, "}}}},
		{"shop: the best rated, which the results do not show", shopTools, shopCall, []gstep{
			{"list the kettles", []string{`list_products {}`}, nil},
			{"which one is the highest rated?", []string{`sort_products {"by":"rating","order":"desc"}`}, []string{"The best-rated", "Glass Kettle"}},
		}},
		{"shop: the whole list, by the noun its description says", shopTools, shopCall, []gstep{
			{"show me the kettles", []string{`list_products {}`}, nil},
		}},
		{"shop: the best rated, asked first", shopTools, shopCall, []gstep{
			{"which kettle has the best rating?", []string{`sort_products {"by":"rating","order":"desc"}`}, []string{"Glass Kettle"}},
		}},
		{"shop: the best rated under a price, which no filter takes", shopTools, shopCall, []gstep{
			{"the best rated kettle under 50", []string{`sort_products {"by":"rating","order":"desc"}`}, []string{"The best-rated kettle is the Steel Kettle."}},
		}},
		{"events: the one event shown, bought without its name", tixTools, tixCall, []gstep{
			{"concerts", []string{`search_events {"category":"concert"}`}, []string{"Found 1 events"}},
			{"how much is it?", nil, []string{"The Jazz Night is $35."}},
			{"book 2 for me, x@y.de", []string{`buy_tickets {"eventId":"ev101","quantity":2,"email":"x@y.de"}`}, nil},
		}},
		{"events: a count in words no tool has, for the one shown, then for one of two", tixTools, tixCall, []gstep{
			{"any comedy in hamburg", []string{`search_events {"category":"comedy","city":"Hamburg"}`}, nil},
			{"get me 3", nil, []string{"I need your email"}},
			{"kai@web.de", []string{`buy_tickets {"eventId":"ev201","quantity":3,"email":"kai@web.de"}`}, nil},
			{"whats on in berlin", []string{`search_events {"city":"Berlin"}`}, nil},
			{"i'll take 2", nil, []string{"Jazz Night or the Hamlet"}},
		}},
		{"events: the cheapest of a city, among all shown", tixTools, tixCall, []gstep{
			{"show me everything", []string{`search_events {}`}, []string{"Found 3 events"}},
			{"which is the cheapest in berlin?", nil, []string{"The Jazz Night is the cheapest, at $35"}},
		}},
		{"events: a date the search starts from, said back", tixTools, tixCall, []gstep{
			{"events from friday", []string{`search_events {"from":"2026-12-04"}`}, []string{"From Friday, December 4."}},
		}},
		{"events: of two shown, which is asked", tixTools, tixCall, []gstep{
			{"events in berlin", []string{`search_events {"city":"Berlin"}`}, []string{"Found 2 events"}},
			{"book 2 for me, x@y.de", nil, []string{"Which one", "Jazz Night", "Hamlet"}},
		}},
		{"clinic: a list whose text names nobody", docTools, docCall, []gstep{
			{"who are your doctors?", []string{`list_doctors {}`}, []string{"Doctors listed: Dr. Ana Silva, Dr. Ben Okafor and Dr. Chen Wei."}},
			{"book me with dr silva tomorrow at 9:30", nil, []string{"I need your patient name"}},
			{"Maria Lopez", []string{`book_appointment {"doctorId":"d01","date":"2026-12-03","time":"09:30","patientName":"Maria Lopez"}`}, nil},
		}},
		{"clinic: a doctor by kind before any was listed, and the time asked", docTools, docCall, []gstep{
			{"i'd like an appointment with a dermatologist on friday morning, my name is Tom Reed", []string{`list_doctors {"specialty":"dermatology"}`}, []string{"08:30"}},
			{"8:30", []string{`book_appointment {"doctorId":"d02","date":"2026-12-04","time":"08:30","patientName":"Tom Reed"}`}, nil},
		}},
		{"clinic: which doctor, asked by their names", docTools, docCall, []gstep{
			{"book an appointment tomorrow at 10:30 for Ann Bell", []string{`list_doctors {}`}, []string{"For example Dr. Ana Silva, Dr. Ben Okafor or Dr. Chen Wei."}},
		}},
		{"clinic: a reference is no doctor's name", docTools, docCall, []gstep{
			{"cancel my appointment AP-7731", []string{`cancel_appointment {"reference":"AP-7731"}`}, nil},
		}},
		{"to-do: a reminder's words are no part of its title", todoTools, todoCall, []gstep{
			{"remind me to water the plants tomorrow", []string{`add_task {"title":"water the plants","due":"2026-12-03"}`}, nil},
		}},
		{"to-do: a question in a form's words adds nothing", todoTools, todoCall, []gstep{
			{"what are my high priority tasks?", []string{`list_tasks {}`}, []string{"2 of those 3 are high: “Call the bank” and “Pay rent”."}},
			{"which ones are high priority?", nil, []string{"are high"}},
		}},
		{"events: a kind before a from-date", tixTools, tixCall, []gstep{
			{"comedy from friday", []string{`search_events {"category":"comedy","from":"2026-12-04"}`}, []string{"Stand-up Showcase"}},
		}},
		{"events: this weekend is from its saturday", tixTools, tixCall, []gstep{
			{"anything on in Berlin this weekend?", []string{`search_events {"city":"Berlin","from":"2026-12-05"}`}, []string{"From Saturday, December 5."}},
		}},
		{"to-do: a task alone changes nothing unasked", todoTools, todoCall, []gstep{
			{"show my tasks", []string{`list_tasks {}`}, nil},
			{"the first one", nil, []string{"Which do you mean: mark a task as done (Buy milk) or delete a task (Buy milk)?"}},
			{"I finished the bank one", []string{`complete_task {"taskId":"t2"}`}, nil},
		}},
		{"to-do: the first one done is the first", todoTools, todoCall, []gstep{
			{"show my tasks", []string{`list_tasks {}`}, nil},
			{"mark the first one done", []string{`complete_task {"taskId":"t1"}`}, nil},
		}},
		{"shop: the worst rated", shopTools, shopCall, []gstep{
			{"the lowest rated kettle", []string{`sort_products {"by":"rating","order":"asc"}`}, []string{"The lowest-rated kettle is the Travel Kettle."}},
		}},
		{"flats: the rent asked of the one shown, in the schema's currency", flatTools, flatCall, []gstep{
			{"show me apartments in Kreuzberg", []string{`search_apartments {"district":"Kreuzberg"}`}, nil},
			{"what's the rent?", nil, []string{"The Family flat by the canal is €2,100."}},
		}},
		{"flats: the cheapest by its rent", flatTools, flatCall, []gstep{
			{"what's the cheapest one", []string{`search_apartments {}`}, []string{"The cheapest one is the Quiet studio near Tempelhof, at €780."}},
		}},
		{"flats: a count of bedrooms in words is no price", flatTools, flatCall, []gstep{
			{"I need at least three bedrooms", []string{`search_apartments {"bedrooms":3}`}, []string{"Family flat by the canal"}},
		}},
		{"flats: the one in a district", flatTools, flatCall, []gstep{
			{"show me all apartments", []string{`search_apartments {}`}, nil},
			{"the one in Kreuzberg", []string{`apartment_details {"apartmentId":"a2"}`}, []string{"€2,100 a month"}},
		}},
		{"flats: a viewing of the flat just read", flatTools, flatCall, []gstep{
			{"show me all apartments", []string{`search_apartments {}`}, nil},
			{"tell me about the studio", []string{`apartment_details {"apartmentId":"a3"}`}, nil},
			{"book a viewing tomorrow 10am", nil, []string{"I need your name and email."}},
			{"Jane Doe, jane@example.com", []string{`schedule_viewing {"apartmentId":"a3","date":"2026-12-03","time":"10:00","name":"Jane Doe","email":"jane@example.com"}`}, nil},
		}},
		{"flats: a viewing in a visitor's words", flatTools, flatCall, []gstep{
			{"hi! looking for a 2-bedroom place, max 1700 a month", []string{`search_apartments {"bedrooms":2,"maxRent":1700}`}, []string{"Altbau with balcony"}},
			{"can I see it this saturday at 2pm?", nil, []string{"I need your name and email."}},
			{"my name is Lea Wolf and my email is lea@wolf.de", []string{`schedule_viewing {"apartmentId":"a4","date":"2026-12-05","time":"14:00","name":"Lea Wolf","email":"lea@wolf.de"}`}, nil},
		}},
		{"flats: a count the list gave", flatTools, flatCall, []gstep{
			{"cheapest flat in Mitte", []string{`search_apartments {"district":"Mitte"}`}, []string{"Sunny loft on Torstraße"}},
			{"how many bedrooms?", nil, []string{"The Sunny loft on Torstraße has 1 bedroom."}},
		}},
		{"gym: tomorrow is a day of the week; a place past the list", gymTools, gymCall, []gstep{
			{"what classes are there tomorrow", []string{`list_classes {"day":"thursday"}`}, nil},
			{"any on saturday?", []string{`list_classes {"day":"saturday"}`}, []string{"Weekend Flow"}},
			{"book the second one", nil, []string{"Only 1 class is shown: the Weekend Flow."}},
		}},
		{"flats: a place past the list, a pick, a quality no tool names", flatTools, flatCall, []gstep{
			{"show me all apartments", []string{`search_apartments {}`}, nil},
			{"open the 9th one", nil, []string{"Only 4 apartments are shown"}},
			{"which one should i pick", nil, []string{"That choice is yours", "which is cheapest?"}},
			{"do they have parking", nil, []string{"I can't tell"}},
		}},
		{"gym: a place in the list offers no cancelling", gymTools, gymCall, []gstep{
			{"list classes", []string{`list_classes {}`}, nil},
			{"the second one please", nil, []string{"Sorry, I can't help with that on this page."}},
		}},
		{"flights: from and to", flyTools, flyCall, []gstep{
			{"flights from LHR to BER on friday", []string{`search_flights {"from":"LHR","to":"BER","date":"2026-12-04"}`}, nil},
			{"the cheapest one", nil, []string{"The EW789 19:15 is the cheapest"}},
			{"book it for Anna Berg, anna@berg.se", []string{`book_flight {"flightId":"EW789-1915","passengerName":"Anna Berg","email":"anna@berg.se"}`}, []string{"XK7Q2L"}},
		}},
		{"flights: a route said without from", flyTools, flyCall, []gstep{
			{"LHR to CDG dec 20, 2 passengers, business", []string{`search_flights {"from":"LHR","to":"CDG","date":"2026-12-20","passengers":2,"cabin":"business"}`}, nil},
			{"what time does the first one leave?", nil, []string{"Sorry, I can't help with that on this page."}},
			{"mark the first one done", nil, []string{"Sorry, I can't help with that on this page."}},
		}},
		{"flights: the airport asked by its description, a question no airport", flyTools, flyCall, []gstep{
			{"flights to JFK", nil, []string{"I need your departure airport code and date."}},
			{"from LHR, next monday", []string{`search_flights {"from":"LHR","to":"JFK","date":"2026-12-07"}`}, nil},
		}},
		{"flights: a question is no airport", flyTools, flyCall, []gstep{
			{"flights to JFK on dec 20", nil, []string{"I need your departure airport code."}},
			{"what time do they leave?", nil, []string{"Sorry, I can't help with that on this page."}},
		}},
		{"flights: a list of things in words", flyTools, flyCall, []gstep{
			{"add sunscreen, a towel and euros to my shopping list", []string{`add_to_shopping_list {"items":["sunscreen","a towel","euros"]}`}, nil},
			{"add its ingredients to my shopping list", nil, []string{"I need your items"}},
			{"add everything to my list", nil, []string{"I need your items"}},
			{"add all of it to my shopping list", nil, []string{"I need your items"}},
		}},
		{"recipes: what they have, after \"with\", is the one filter of what a recipe has", recipeTools, recipeCall, []gstep{
			{"something with chicken under 45 min", []string{`find_recipes {"ingredient":"chicken","maxMinutes":45}`}, nil},
			{"vegan recipes with lentils", []string{`find_recipes {"ingredient":"lentils","diet":"vegan"}`}, nil},
		}},
		{"library: \"with\" names no author", libraryTools, libraryCall, []gstep{
			{"any books with dragons?", nil, nil},
		}},
		{"flats: \"2 bed\" is two bedrooms", flatTools, flatCall, []gstep{
			{"2 bed in prenzlauer berg", []string{`search_apartments {"bedrooms":2,"district":"Prenzlauer Berg"}`}, []string{"Altbau with balcony"}},
		}},
		{"gym: a question of its own while the class to book is asked books nothing", gymTools, gymCall, []gstep{
			{"show me all classes", []string{`list_classes {}`}, nil},
			{"book spin for M22222", nil, []string{"Which one should I use"}},
			{"how many bedrooms?", nil, nil},
			{"the spin one", []string{`book_class {"classId":"c-spin-tue-18","memberNumber":"M22222"}`}, nil},
		}},
		{"clinic: a time asked back as a question answers the time asked", docTools, docCall, []gstep{
			{"show me the doctors", []string{`list_doctors {}`}, nil},
			{"book dr silva on monday", nil, []string{"I need your time"}},
			{"is 9:30 free?", nil, []string{"I need your patient name."}},
		}},
		{"flats and flights: the cheapest place, flat or ticket is of those listed, not a kind nothing tells", flatTools, flatCall, []gstep{
			{"whats the cheapest place", []string{`search_apartments {}`}, []string{"The cheapest place is the Quiet studio near Tempelhof"}},
			{"cheapest flat", nil, []string{"The cheapest flat is the Quiet studio near Tempelhof"}},
		}},
		{"flights: the cheapest ticket of those found", flyTools, flyCall, []gstep{
			{"flights from LHR to JFK on dec 20", []string{`search_flights {"from":"LHR","to":"JFK","date":"2026-12-20"}`}, nil},
			{"cheapest ticket", nil, []string{"The cheapest ticket is the EW789 19:15"}},
		}},
		{"to-do: a priority said after the title is no part of it", todoTools, todoCall, []gstep{
			{"add call dentist high priority", []string{`add_task {"title":"call dentist","priority":"high"}`}, nil},
			{"add water plants, low priority", []string{`add_task {"title":"water plants","priority":"low"}`}, nil},
		}},
		{"flights: \"fly\" is a flight, and no airport code", flyTools, flyCall, []gstep{
			{"fly to CDG on friday", nil, []string{"I need your departure airport code."}},
			{"from TXL", []string{`search_flights {"from":"TXL","to":"CDG","date":"2026-12-04"}`}, nil},
		}},
		{"flights: a city for an airport code asks the codes, not \"Sorry\"", flyTools, flyCall, []gstep{
			{"i need to fly to paris next friday", nil, []string{"To search flights I need your departure airport code"}},
		}},
		{"gym: a field of the one class listed, which no parameter names", gymTools, gymCall, []gstep{
			{"what classes are on saturday", []string{`list_classes {"day":"saturday"}`}, nil},
			{"whats the time", nil, []string{"10:00"}},
		}},
		{"to-do: what is left, in words no choice has", todoTools, todoCall, []gstep{
			{"what do i still have to do", []string{`list_tasks {"status":"open"}`}, nil},
			{"show pending tasks", []string{`list_tasks {"status":"open"}`}, nil},
			{"which ones are finished", []string{`list_tasks {"status":"done"}`}, nil},
		}},
		{"to-do: a task added is no value of the next; one more, unsaid, is asked for", todoTools, todoCall, []gstep{
			{"add buy bread, due tomorrow", []string{`add_task {"title":"buy bread","due":"2026-12-03"}`}, nil},
			{"add call mom", []string{`add_task {"title":"call mom"}`}, nil},
			{"add another one", nil, []string{"I need your title"}},
		}},
		{"gym: sign me up is no cancel", gymTools, gymCall, []gstep{
			{"what spin classes are on?", []string{`list_classes {"type":"spin"}`}, []string{"Spin Blast"}},
			{"sign me up, M55555", []string{`book_class {"classId":"c-spin-tue-18","memberNumber":"M55555"}`}, nil},
		}},
		{"gym: book it is no cancel", gymTools, gymCall, []gstep{
			{"any spin classes on tuesday?", []string{`list_classes {"day":"tuesday","type":"spin"}`}, []string{"Spin Blast"}},
			{"book it", nil, []string{"I need your member number."}},
		}},
		{"gym: a member number by its pattern, a class id of several words", gymTools, gymCall, []gstep{
			{"any spin classes on tuesday?", []string{`list_classes {"day":"tuesday","type":"spin"}`}, nil},
			{"book it, M00001", []string{`book_class {"classId":"c-spin-tue-18","memberNumber":"M00001"}`}, []string{"BK-551"}},
		}},
		{"gym: the one on a day", gymTools, gymCall, []gstep{
			{"what yoga classes are there?", []string{`list_classes {"type":"yoga"}`}, []string{"Morning Yoga", "Weekend Flow"}},
			{"book the one on saturday for M12345", []string{`book_class {"classId":"c-yoga-sat-10","memberNumber":"M12345"}`}, nil},
		}},
		{"gym: the member number first", gymTools, gymCall, []gstep{
			{"what yoga classes are there?", []string{`list_classes {"type":"yoga"}`}, nil},
			{"my member number is M12345, book the saturday one", []string{`book_class {"classId":"c-yoga-sat-10","memberNumber":"M12345"}`}, nil},
		}},
		{"hotel: a reference with its prefix", hotelTools, hotelCall, []gstep{{"cancel reservation HV-1234", []string{`cancel_reservation {"reference":"HV-1234"}`}, []string{"HV-1234"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var msgs []chat.Message
			p := &Planner{now: func() time.Time { return fixedDay }}
			for _, st := range tt.steps {
				msgs = append(msgs, chat.Message{Role: chat.RoleUser, Content: st.say})
				var calls []string
				var text string
				for i := 0; ; i++ {
					if i == 6 {
						t.Fatalf("%q: no reply after 6 model calls", st.say)
					}
					resp, err := p.Stream(context.Background(), llm.Request{Messages: slices.Clone(msgs), Tools: tt.tools}, nil)
					if err != nil {
						t.Fatal(err)
					}
					if len(resp.ToolCalls) == 0 {
						text = resp.Text
						msgs = append(msgs, chat.Message{Role: chat.RoleAssistant, Content: text})
						break
					}
					msgs = append(msgs, chat.Message{Role: chat.RoleAssistant, ToolCalls: resp.ToolCalls})
					c := resp.ToolCalls[0]
					validate(t, findTool(t, tt.tools, c.Name), c.Arguments)
					calls = append(calls, c.Name+" "+c.Arguments)
					res, isErr := tt.call(c.Name, c.Arguments)
					msgs = append(msgs, chat.Message{Role: chat.RoleTool, ToolCallID: c.ID, Name: c.Name, Content: tools.Wrap(c.Name, res, isErr)})
				}
				if len(calls) != len(st.calls) {
					t.Fatalf("%q: calls %v, want %v (reply %q)", st.say, calls, st.calls, text)
				}
				for i := range calls {
					if !sameCall(calls[i], st.calls[i]) {
						t.Fatalf("%q: call %s, want %s", st.say, calls[i], st.calls[i])
					}
				}
				for _, w := range st.reply {
					if !strings.Contains(text, w) {
						t.Errorf("%q: reply %q lacks %q", st.say, text, w)
					}
				}
			}
		})
	}
}
