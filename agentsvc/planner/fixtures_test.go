package planner

import (
	"encoding/json"

	"github.com/byomcp/byomcp/agentsvc/chat"
)

// The demo site's tools, page by page, exactly as the shared demo spec defines them.

func tool(name, desc, params string) chat.ToolDef {
	return chat.ToolDef{Name: name, Description: desc, Parameters: json.RawMessage(params)}
}

const noParams = `{"type":"object","properties":{}}`

var inventoryTools = []chat.ToolDef{
	tool("search_cars", "Filter the car inventory shown on the page.", `{
		"type":"object",
		"properties":{
			"bodyType":{"type":"string","enum":["suv","sedan","hatchback","pickup","coupe","wagon","minivan","convertible"]},
			"make":{"type":"string","enum":["Toyota","Honda","Ford","Tesla","BMW","Volkswagen","Hyundai","Kia","Mazda","Subaru","Volvo","Audi"]},
			"fuel":{"type":"string","enum":["gasoline","diesel","hybrid","electric"]},
			"color":{"type":"string","enum":["black","white","silver","gray","red","blue","green"]},
			"minPrice":{"type":"number","minimum":0},
			"maxPrice":{"type":"number","minimum":0},
			"maxMileage":{"type":"number","minimum":0},
			"minYear":{"type":"integer","minimum":1990,"maximum":2030}
		},
		"additionalProperties":false}`),
	tool("sort_cars", "Sort the inventory.", `{
		"type":"object",
		"properties":{
			"by":{"enum":["price","year","mileage"]},
			"order":{"enum":["asc","desc"],"default":"asc"}
		},
		"required":["by"]}`),
	tool("select_car", "Open the detail and configurator page of one car.", `{
		"type":"object",
		"properties":{"carId":{"type":"string","pattern":"^c[0-9]{2}$"}},
		"required":["carId"]}`),
	tool("compare_cars", "Open the comparison drawer for two or three cars.", `{
		"type":"object",
		"properties":{"carIds":{"type":"array","items":{"type":"string"},"minItems":2,"maxItems":3,"uniqueItems":true}},
		"required":["carIds"]}`),
	tool("clear_filters", "Reset all inventory filters.", noParams),
}

// drawerTools are registered while the comparison drawer is open.
var drawerTools = append(append([]chat.ToolDef(nil), inventoryTools...),
	tool("get_comparison", "Return the side-by-side comparison of the cars in the open drawer", noParams),
	tool("close_comparison", "", noParams),
)

// carTools are the tools of car.html?id=c01.
var carTools = []chat.ToolDef{
	tool("configure_car", "Choose trim, color and packages for this car; updates the live price.", `{
		"type":"object",
		"properties":{
			"trim":{"type":"string","enum":["LE","XLE","Limited"]},
			"color":{"type":"string","enum":["white","black","red","blue","silver","gray","green"]},
			"packages":{"type":"array","items":{"enum":["winter","tech","tow"]},"uniqueItems":true}
		}}`),
	tool("get_price_summary", "Return the configured car's price breakdown.", noParams),
	tool("go_to_test_drive", "Go to the test-drive booking page for this car.", noParams),
	tool("go_to_financing", "Go to the financing calculator for this configuration.", noParams),
	tool("back_to_inventory", "", noParams),
}

var testDriveTools = []chat.ToolDef{
	tool("fill_form_data", "Fill the test-drive form fields.", `{
		"type":"object",
		"properties":{
			"name":{"type":"string","minLength":2,"maxLength":80},
			"email":{"type":"string","format":"email"},
			"phone":{"type":"string","pattern":"^[+0-9 ()-]{6,20}$"},
			"date":{"type":"string","format":"date"},
			"time":{"enum":["09:00","10:00","11:00","13:00","14:00","15:00","16:00"]},
			"notes":{"type":"string","maxLength":500}
		},
		"additionalProperties":false}`),
	tool("book_test_drive", "Submit the test-drive booking.", noParams),
}

var financingTools = []chat.ToolDef{
	tool("calculate_payment", "Compute the monthly loan payment.", `{
		"type":"object",
		"properties":{
			"price":{"type":"number","minimum":0},
			"downPayment":{"type":"number","minimum":0},
			"termMonths":{"type":"integer","enum":[24,36,48,60,72]},
			"apr":{"type":"number","minimum":0,"maximum":30}
		},
		"required":["termMonths"]}`),
	tool("apply_for_financing", "Submit a financing application.", `{
		"type":"object",
		"properties":{
			"fullName":{"type":"string","minLength":2},
			"email":{"type":"string","format":"email"},
			"annualIncome":{"type":"number","minimum":0}
		},
		"required":["fullName","email","annualIncome"]}`),
}

// byomcpTools are the tools of `byomcp tools` (agentsvc/toolserver) as they reach the page's
// model: named <server>__<tool>, with the input schemas the server lists.
var byomcpTools = []chat.ToolDef{
	tool("byomcp__add_note", "Saves a note (text and an optional title) that is kept across restarts.", `{
		"type":"object",
		"properties":{
			"text":{"type":"string","description":"the note's text"},
			"title":{"type":"string","description":"optional short title"}
		},
		"required":["text"],"additionalProperties":false}`),
	tool("byomcp__calculate", "Evaluates an arithmetic expression exactly as written: numbers, + - * / % ^ and parentheses, e.g. (17 * 23) + 4. Use it instead of doing arithmetic yourself.", `{
		"type":"object",
		"properties":{"expression":{"type":"string","description":"arithmetic expression, e.g. (17 * 23) + 4; numbers, + - * / % ^ and parentheses only"}},
		"required":["expression"],"additionalProperties":false}`),
	tool("byomcp__get_current_time", "Returns the current date and time in an IANA time zone such as Europe/Berlin or America/New_York (default UTC).", `{
		"type":"object",
		"properties":{"timezone":{"type":"string","description":"IANA time zone name such as Europe/Berlin; default UTC"}},
		"additionalProperties":false}`),
	tool("byomcp__list_notes", "Lists every saved note, oldest first.", `{"type":"object","additionalProperties":false}`),
}

// searchTools are a site search with one free-text query and an optional price bound.
var searchTools = []chat.ToolDef{
	tool("search", "Search the shop's catalogue.", `{
		"type":"object",
		"properties":{
			"query":{"type":"string","minLength":1,"maxLength":200},
			"maxPrice":{"type":"number","minimum":0}
		},
		"required":["query"]}`),
	tool("open_cart", "Show the shopping cart.", noParams),
}
