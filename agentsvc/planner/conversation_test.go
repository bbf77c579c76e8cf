package planner

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// siteTurn is one visitor message in a conversation across the demo site: the calls the
// planner must make, in order (none: it must answer without acting), words its reply must and
// must not contain, and the page the visitor is on after the turn ("" = the page does not
// change). click, instead of say, sends the click-th suggestion (1-based) of the previous reply,
// as the visitor clicking it: it must do something.
type siteTurn struct {
	say   string
	click int
	calls []string
	reply []string
	not   []string
	on    string
}

// siteConversations are whole conversations across the demo's pages, written from new
// wordings of the classes of issue 41: the site, not the page; values said once are kept; "it"
// is the car in front of the visitor; details without the missing part; honest about the set;
// never a dead end.
var siteConversations = []struct {
	name      string
	page, car string // where the visitor starts
	turns     []siteTurn
}{
	{"a drive of another car, from a car page", "car", "c01", []siteTurn{
		{say: "I'd like to drive the Mazda3 on Friday at 2pm",
			calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c15"}`, `go_to_test_drive {}`},
			reply: []string{"name", "email"}, not: []string{"Sorry", "can't"}, on: "test-drive"},
		{say: "Sam Ortiz, sam.ortiz@example.org",
			calls: []string{`fill_form_data {"name":"Sam Ortiz","email":"sam.ortiz@example.org","date":"2026-12-04","time":"14:00"}`},
			reply: []string{"Filled"}},
		{say: "please go ahead and book it", calls: []string{`book_test_drive {}`}, reply: []string{"Booked test drive", "Mazda3"}},
		{say: "what would the Mazda3 cost a month over 36 months?",
			calls: []string{`go_to_financing {}`, `calculate_payment {"termMonths":36}`},
			reply: []string{"36 months"}, not: []string{"Sorry"}, on: "financing"},
	}},
	{"a monthly figure from a car page, values kept", "inventory", "", []siteTurn{
		{say: "pull up the Outback", calls: []string{`search_cars {}`, `select_car {"carId":"c06"}`}, reply: []string{"2022 Subaru Outback"}, on: "car"},
		{say: "what's that per month if I put $4,000 down over 48 months?",
			calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":4000,"termMonths":48}`},
			reply: []string{"48 months", "down $4,000"}, not: []string{"Sorry"}, on: "financing"},
		{say: "how about 72 months then", calls: []string{`calculate_payment {"downPayment":4000,"termMonths":72}`}, reply: []string{"72 months", "down $4,000"}},
		{say: "and if the rate were 5.5%", calls: []string{`calculate_payment {"downPayment":4000,"termMonths":72,"apr":5.5}`}, reply: []string{"5.5% APR"}},
		{say: "with 8k down instead", calls: []string{`calculate_payment {"downPayment":8000,"termMonths":72,"apr":5.5}`}, reply: []string{"down $8,000", "72 months"}},
		{say: "I'd like to apply", reply: []string{"full name", "email", "annual income"}, not: []string{"Sorry"}},
		{say: "Ravi Shah, ravi@shah.net, I earn 92k",
			calls: []string{`apply_for_financing {"fullName":"Ravi Shah","email":"ravi@shah.net","annualIncome":92000}`}, reply: []string{"Application"}},
		{say: "and over 60 months?", calls: []string{`calculate_payment {"downPayment":8000,"termMonths":60,"apr":5.5}`}, reply: []string{"60 months", "down $8,000"}},
	}},
	{"it is the car on screen", "inventory", "", []siteTurn{
		{say: "tell me more about the Ioniq 5", calls: []string{`search_cars {}`, `select_car {"carId":"c05"}`}, reply: []string{"2023 Hyundai Ioniq 5"}, on: "car"},
		{say: "which colors can I get it in?", reply: []string{"silver, gray, white or green"}, not: []string{"black", "red"}},
		{say: "what trim levels does it have", reply: []string{"SE, SEL or Limited"}},
		{say: "how much is it?", calls: []string{`get_price_summary {}`}, reply: []string{"$41,200"}},
		{say: "green with the top trim", calls: []string{`configure_car {"color":"green","trim":"Limited"}`}, reply: []string{"Limited trim", "green"}},
		{say: "what does it come to now", calls: []string{`get_price_summary {}`}, reply: []string{"Limited trim"}},
		{say: "take me back to the list", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "tell me about the Camry", calls: []string{`select_car {"carId":"c09"}`}, reply: []string{"2022 Toyota Camry"}, not: []string{"Showing"}, on: "car"},
		{say: "does it come in blue?", reply: []string{"blue"}, not: []string{"green", "red"}},
	}},
	{"details first, the date after", "car", "c10", []siteTurn{
		{say: "I want to test drive this one", calls: []string{`go_to_test_drive {}`}, reply: []string{"test-drive booking page"}, on: "test-drive"},
		{say: "I'm Priya Nair, priya@nair.dev, 555 201 3344", reply: []string{"date", "time"}, not: []string{"There is no", "among", "Sorry"}},
		{say: "Saturday at 9",
			calls: []string{`fill_form_data {"name":"Priya Nair","email":"priya@nair.dev","phone":"555 201 3344","date":"2026-12-05","time":"09:00"}`},
			reply: []string{"Filled"}, not: []string{"There is no"}},
		{say: "confirm the booking", calls: []string{`book_test_drive {}`}, reply: []string{"Booked test drive", "2023 Honda Civic"}},
	}},
	{"details with a car named, from the inventory", "inventory", "", []siteTurn{
		{say: "book the Tacoma for me, Jo Kim jo@kim.io", calls: []string{`search_cars {}`, `select_car {"carId":"c18"}`, `go_to_test_drive {}`},
			reply: []string{"date", "time"}, not: []string{"There is no", "among"}, on: "test-drive"},
		{say: "next Tuesday, 3pm", calls: []string{`fill_form_data {"name":"Jo Kim","email":"jo@kim.io","date":"2026-12-08","time":"15:00"}`}, reply: []string{"Filled"}},
	}},
	{"honest about the set", "inventory", "", []siteTurn{
		{say: "convertibles under 30k please", calls: []string{`search_cars {"bodyType":"convertible","maxPrice":30000}`}, reply: []string{"Mazda MX-5 Miata"}},
		{say: "put the two cheapest side by side", calls: []string{`sort_cars {"by":"price","order":"asc"}`}, reply: []string{"Only one car matches", "2022 Mazda MX-5 Miata"}, not: []string{"Comparing"}},
		{say: "ok show all wagons", calls: []string{`search_cars {"bodyType":"wagon"}`}, reply: []string{"2 cars"}},
		{say: "compare the three cheapest", calls: []string{`sort_cars {"by":"price","order":"asc"}`, `compare_cars {"carIds":["c06","c21"]}`}, reply: []string{"Only 2 cars match", "Comparing"}, on: "drawer"},
		{say: "which has fewer miles?", reply: []string{"2022 Subaru Outback"}},
	}},
	{"never a dead end", "test-drive", "c01", []siteTurn{
		{say: "actually, do you have any pickups?", calls: []string{`back_to_inventory {}`, `search_cars {"bodyType":"pickup"}`}, reply: []string{"Ford F-150", "Toyota Tacoma"}, on: "inventory"},
		{say: "can I trade in my old car?", reply: []string{"“"}},
		{click: 1, reply: nil},
		{say: "open the F-150", calls: []string{`select_car {"carId":"c17"}`}, on: "car"},
		{say: "what is the warranty like?", reply: []string{"“"}},
		{click: 1},
		{say: "I'd rather see diesel wagons", calls: []string{`back_to_inventory {}`, `search_cars {"fuel":"diesel","bodyType":"wagon"}`}, reply: []string{"Audi A6 Avant"}, on: "inventory"},
	}},
	{"a page reached with nothing to carry", "car", "c19", []siteTurn{
		{say: "something fun to drive", calls: []string{`go_to_test_drive {}`}, reply: []string{"test-drive booking page for the 2020 Ford Mustang"}, not: []string{"Should I", "submit"}, on: "test-drive"},
		{say: "Lee Wong, lee@wong.io, Monday at 11", calls: []string{`fill_form_data {"name":"Lee Wong","email":"lee@wong.io","date":"2026-12-07","time":"11:00"}`}, reply: []string{"Filled"}},
		{say: "back to the cars please", calls: []string{`back_to_inventory {}`}, on: "inventory"},
	}},
	{"phone-sized requests, from the financing page", "financing", "c12", []siteTurn{
		{say: "48 mo, 3k down", calls: []string{`calculate_payment {"termMonths":48,"downPayment":3000}`}, reply: []string{"48 months"}},
		{say: "test drive it sat 10am", calls: []string{`go_to_test_drive {}`}, reply: []string{"name", "email"}, not: []string{"Sorry"}, on: "test-drive"},
		{say: "Ana Ruiz ana@ruiz.es", calls: []string{`fill_form_data {"name":"Ana Ruiz","email":"ana@ruiz.es","date":"2026-12-05","time":"10:00"}`}, reply: []string{"Filled"}},
		{say: "monthly again?", calls: []string{`go_to_financing {}`, `calculate_payment {"termMonths":48,"downPayment":3000}`}, reply: []string{"48 months", "down $3,000"}, on: "financing"},
	}},
	{"a dead end's way out, clicked, and a bare figure kept", "car", "c07", []siteTurn{
		{say: "do you buy cars for cash?", reply: []string{"Elsewhere on the site", "“go to test drive”", "“back to inventory”"}, not: []string{"Should I"}},
		{click: 3, on: "test-drive"},
		{say: "Mia Chen, mia@chen.org, Friday at 1pm",
			calls: []string{`fill_form_data {"name":"Mia Chen","email":"mia@chen.org","date":"2026-12-04","time":"13:00"}`}, reply: []string{"Filled"}},
		{say: "book it", calls: []string{`book_test_drive {}`}, reply: []string{"Booked test drive", "2022 Volvo XC60"}},
		{say: "sell me an extended warranty", reply: []string{"I can fill in the test-drive booking form", "Elsewhere on the site", "“back to the car”", "“go to financing”"}},
		{click: 2, on: "financing"},
		{say: "60 months with 2,500 down", calls: []string{`calculate_payment {"termMonths":60,"downPayment":2500}`}, reply: []string{"60 months", "down $2,500"}},
		{say: "and at 72?", calls: []string{`calculate_payment {"termMonths":72,"downPayment":2500}`}, reply: []string{"72 months", "down $2,500"}, not: []string{"Sorry"}},
		{say: "what about 48", calls: []string{`calculate_payment {"termMonths":48,"downPayment":2500}`}, reply: []string{"48 months", "down $2,500"}},
	}},
	{"the list's dead end opens the car it showed", "inventory", "", []siteTurn{
		{say: "hybrids under 45k", calls: []string{`search_cars {"fuel":"hybrid","maxPrice":45000}`}, reply: []string{"3 cars", "2022 Volvo XC60"}},
		{say: "can I get an extended warranty", reply: []string{"Elsewhere on the site", "“open the 2023 Toyota RAV4”"}},
		{click: 3, on: "car"},
		{say: "how much is it?", calls: []string{`get_price_summary {}`}, reply: []string{"2023 Toyota RAV4", "$31,990"}},
		{say: "does it come in black", reply: []string{"black"}, not: []string{"Sorry"}},
		{say: "what's the monthly over 48 months", calls: []string{`go_to_financing {}`, `calculate_payment {"termMonths":48}`}, reply: []string{"48 months"}, on: "financing"},
	}},
	{"figures said on the list are for the car seen before", "inventory", "", []siteTurn{
		{say: "show me hybrids below $50,000", calls: []string{`search_cars {"fuel":"hybrid","maxPrice":50000}`}, reply: []string{"3 cars"}},
		{say: "tell me more about the XC60", calls: []string{`select_car {"carId":"c07"}`}, reply: []string{"2022 Volvo XC60"}, on: "car"},
		{say: "back to the list", calls: []string{`back_to_inventory {}`}, reply: []string{"inventory"}, not: []string{"can't"}, on: "inventory"},
		{say: "60 months with 2,500 down", calls: []string{`select_car {"carId":"c07"}`, `go_to_financing {}`, `calculate_payment {"termMonths":60,"downPayment":2500}`},
			reply: []string{"60 months", "down $2,500", "$44,900"}, not: []string{"Sorry"}, on: "financing"},
		{say: "and at 72?", calls: []string{`calculate_payment {"termMonths":72,"downPayment":2500}`}, reply: []string{"72 months", "down $2,500"}},
		{say: "go back to the inventory", calls: []string{`back_to_inventory {}`}, on: "inventory"},
	}},
	{"a service no page offers, and a way back said in plain words", "test-drive", "c03", []siteTurn{
		{say: "do you offer home delivery?", reply: []string{"Sorry", "Elsewhere on the site", "“back to inventory”"}, not: []string{"either"}},
		{say: "what would it cost a month over 60 months?", calls: []string{`go_to_financing {}`, `calculate_payment {"termMonths":60}`},
			reply: []string{"60 months"}, on: "financing"},
		{say: "return to the inventory", calls: []string{`back_to_inventory {}`}, not: []string{"Should I"}, on: "inventory"},
	}},
	{"a colour the car on screen does not come in", "car", "c03", []siteTurn{
		{say: "is it available in green?", reply: []string{"No, not in green", "black, silver or blue"}, not: []string{"Sorry"}},
		{say: "do you have it in blue", reply: []string{"Yes", "blue"}, not: []string{"Sorry"}},
		{say: "ok, blue then", calls: []string{`configure_car {"color":"blue"}`}, reply: []string{"blue"}},
	}},
	{"a note for the booking, before and after the details", "test-drive", "c01", []siteTurn{
		{say: "add a note saying I need a child seat", reply: []string{"name", "email"}, not: []string{"Sorry"}},
		{say: "Tom Baker, tom@baker.co.uk, Friday at 1pm",
			calls: []string{`fill_form_data {"name":"Tom Baker","email":"tom@baker.co.uk","date":"2026-12-04","time":"13:00","notes":"I need a child seat"}`},
			reply: []string{"Filled"}},
		{say: "please note that I'll come with my partner",
			calls: []string{`fill_form_data {"name":"Tom Baker","email":"tom@baker.co.uk","date":"2026-12-04","time":"13:00","notes":"I'll come with my partner"}`},
			reply: []string{"Filled"}},
	}},
	{"a drive said in other words, with its day", "car", "c01", []siteTurn{
		{say: "I want to take it for a spin next tuesday at 3pm", calls: []string{`go_to_test_drive {}`},
			reply: []string{"name and email"}, not: []string{"Sorry"}, on: "test-drive"},
		{say: "Priya Nair, priya@nair.io",
			calls: []string{`fill_form_data {"name":"Priya Nair","email":"priya@nair.io","date":"2026-12-08","time":"15:00"}`},
			reply: []string{"Filled"}},
	}},
	{"a question back is no answer to a question", "test-drive", "c01", []siteTurn{
		{say: "what about the car", not: []string{"Opening"}},
		{say: "which car is this for?", not: []string{"Opening"}}, // stays on the form: no choice picked
	}},
	{"it and its name are the car in front of the visitor", "inventory", "", []siteTurn{
		{say: "open the Camry", calls: []string{`search_cars {}`, `select_car {"carId":"c09"}`}, on: "car"},
		{say: "tell me more about it", calls: []string{`get_price_summary {}`}, reply: []string{"2022 Toyota Camry"}, not: []string{"Sorry"}},
		{say: "is the Camry available in red?", reply: []string{"No, not in red", "silver, white, black or blue"}, not: []string{"Sorry"}},
		{say: "tell me more about the Camry", calls: []string{`get_price_summary {}`}, not: []string{"Sorry"}},
	}},
	{"a monthly figure for a car named on the list", "inventory", "", []siteTurn{
		{say: "what would the RAV4 cost per month?",
			calls: []string{`search_cars {}`, `select_car {"carId":"c01"}`, `go_to_financing {}`},
			reply: []string{"60 months"}, not: []string{"is $31,990."}, on: "financing"},
		{say: "60", calls: []string{`calculate_payment {"termMonths":60}`}, reply: []string{"60 months"}},
	}},
	{"details given one at a time, across three questions", "test-drive", "c03", []siteTurn{
		{say: "I'm free next Wednesday afternoon", reply: []string{"name, email and time"}, not: []string{"Sorry"}},
		{say: "2pm", reply: []string{"name and email"}, not: []string{"date"}},
		{say: "Max Mustermann max@muster.de", // "Max" is a name here, not a bound
			calls: []string{`fill_form_data {"name":"Max Mustermann","email":"max@muster.de","date":"2026-12-09","time":"14:00"}`},
			reply: []string{"Filled"}},
	}},
	{"a change of mind around a bare figure", "financing", "c01", []siteTurn{
		{say: "72 months", calls: []string{`calculate_payment {"termMonths":72}`}},
		{say: "no wait, 60", calls: []string{`calculate_payment {"termMonths":60}`}, reply: []string{"60 months"}, not: []string{"Sorry"}},
		{say: "actually make it 48", calls: []string{`calculate_payment {"termMonths":48}`}, reply: []string{"48 months"}},
	}},
	{"a booking asked for with its day: the form first, then the booking", "inventory", "", []siteTurn{
		{say: "book a test drive of the Camry on Saturday at 11",
			calls: []string{`search_cars {}`, `select_car {"carId":"c09"}`, `go_to_test_drive {}`},
			reply: []string{"name and email"}, not: []string{"didn't work"}, on: "test-drive"},
		{say: "Ana Ruiz, ana@ruiz.es",
			calls: []string{`fill_form_data {"name":"Ana Ruiz","email":"ana@ruiz.es","date":"2026-12-05","time":"11:00"}`},
			reply: []string{"Filled"}},
		{say: "book it", calls: []string{`book_test_drive {}`}, reply: []string{"Booked test drive", "Camry", "11:00"}},
		{say: "book another one on Monday at 9", // the name and e-mail said before are kept
			calls: []string{`fill_form_data {"name":"Ana Ruiz","email":"ana@ruiz.es","date":"2026-12-07","time":"09:00"}`},
			reply: []string{"Filled"}, not: []string{"didn't work"}},
	}},
	{"a polite question is a request, and its values go where they are taken", "car", "c03", []siteTurn{
		{say: "can I take the Civic out for a drive this Sunday around 10am?", // "this Sunday" is no "this car"
			calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c10"}`, `go_to_test_drive {}`},
			reply: []string{"name and email"}, not: []string{"Sorry", "not sure"}, on: "test-drive"},
		{say: "my name is Lena Fischer and my email is lena.f@example.com",
			calls: []string{`fill_form_data {"name":"Lena Fischer","email":"lena.f@example.com","date":"2026-12-06","time":"10:00"}`},
			reply: []string{"Filled"}},
		{say: "confirm it", calls: []string{`book_test_drive {}`}, reply: []string{"Booked test drive", "Civic", "10:00"}},
		{say: "I'd like to finance it over 5 years with $6,000 down", // "6,000 down" is no income
			calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":6000,"termMonths":60}`},
			reply: []string{"60 months", "down $6,000"}, not: []string{"income"}, on: "financing"},
		{say: "what about at 4.9% APR", calls: []string{`calculate_payment {"downPayment":6000,"termMonths":60,"apr":4.9}`},
			reply: []string{"4.9% APR", "down $6,000"}},
	}},
	{"a ranking of the list on screen, then the car it picked", "inventory", "", []siteTurn{
		{say: "any hybrids under 35 grand?", calls: []string{`search_cars {"fuel":"hybrid","maxPrice":35000}`}, reply: []string{"RAV4", "Camry"}},
		{say: "sort them by year, newest first", calls: []string{`sort_cars {"by":"year","order":"desc"}`}, reply: []string{"descending"}},
		{say: "open the second one", calls: []string{`select_car {"carId":"c09"}`}, reply: []string{"2022 Toyota Camry"},
			not: []string{"can't"}, on: "car"},
		{say: "what's the total now?", calls: []string{`get_price_summary {}`}, reply: []string{"total $26,500"}},
	}},
	{"it is the car the last answer named, not a search", "inventory", "", []siteTurn{
		{say: "could you show me the cheapest pickup?",
			calls: []string{`search_cars {"bodyType":"pickup"}`, `sort_cars {"by":"price","order":"asc"}`}, reply: []string{"Tacoma"}},
		{say: "can I see it in red?", calls: []string{`select_car {"carId":"c18"}`, `configure_car {"color":"red"}`},
			reply: []string{"Tacoma", "red"}, on: "car"},
		{say: "how much is it per month over 48 months?", calls: []string{`go_to_financing {}`, `calculate_payment {"termMonths":48}`},
			reply: []string{"48 months", "$34,500"}, on: "financing"},
	}},
	{"a colour the car lacks, and an income said with the request", "car", "c05", []siteTurn{
		{say: "red one please", reply: []string{"Not in red", "silver, gray, white or green"}, not: []string{"Sorry"}},
		{say: "ok the green one then", calls: []string{`configure_car {"color":"green"}`}, reply: []string{"green"}},
		{say: "go to financing", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "i make 85000 a year, sign me up", reply: []string{"full name and email"}, not: []string{"income", "Sorry"}},
		{say: "Dana Wu, dana@wu.org",
			calls: []string{`apply_for_financing {"fullName":"Dana Wu","email":"dana@wu.org","annualIncome":85000}`}, reply: []string{"Application FN-12345 submitted"}},
	}},
	{"a time the form lacks, and a booking asked for before the form", "inventory", "", []siteTurn{
		{say: "show me cars under 25000", calls: []string{`search_cars {"maxPrice":25000}`}, reply: []string{"Golf"}},
		{say: "the cheapest one", reply: []string{"2021 Volkswagen Golf is the cheapest"}},
		{say: "test drive it on saturday", calls: []string{`select_car {"carId":"c14"}`, `go_to_test_drive {}`},
			reply: []string{"name, email and time"}, on: "test-drive"},
		{say: "at noon", reply: []string{"12:00 is not one of the times", "13:00"}, not: []string{"Sorry"}},
		{say: "ok 1pm", reply: []string{"name and email"}},
		{say: "Mia Chen mia@chen.dev",
			calls: []string{`fill_form_data {"name":"Mia Chen","email":"mia@chen.dev","date":"2026-12-05","time":"13:00"}`}, reply: []string{"Filled"}},
	}},
	{"book before the form is filled: what it lacks is asked, the answers fill it", "test-drive", "", []siteTurn{
		{say: "book a drive", reply: []string{"I need your name, email, date and time"}}, // a drive asked: its form, not a booking that fails
		{say: "tomorrow 3pm", reply: []string{"name and email"}},
		{say: "mike ross mike@pearson.com",
			calls: []string{`fill_form_data {"name":"mike ross","email":"mike@pearson.com","date":"2026-12-03","time":"15:00"}`}, reply: []string{"Filled"}},
		{say: "book it now", calls: []string{`book_test_drive {}`}, reply: []string{"Booked test drive"}},
	}},
	{"a package the car lacks, and a term in short words", "car", "c05", []siteTurn{
		{say: "whats it cost with the roof package", calls: []string{`configure_car {"packages":["roof"]}`}, reply: []string{"Panoramic roof", "total $42,600"}},
		{say: "whats it cost with the winter package", reply: []string{"no winter package", "Home charger, Panoramic roof or Driver assistance"}, not: []string{"Sorry"}},
		{say: "how much is that a month over 5 yrs", calls: []string{`go_to_financing {}`, `calculate_payment {"termMonths":60}`},
			reply: []string{"60 months", "$42,600"}, on: "financing"},
	}},
	{"a car named by a model number, compared from its own page", "inventory", "", []siteTurn{
		{say: "open the BMW 330i", calls: []string{`search_cars {}`, `select_car {"carId":"c11"}`}, reply: []string{"2021 BMW 330i"}, on: "car"},
		{say: "compare this with the Audi A4", calls: []string{`back_to_inventory {}`, `compare_cars {"carIds":["c13","c11"]}`},
			reply: []string{"Comparing 2020 Audi A4, 2021 BMW 330i"}, on: "drawer"},
		{say: "how about the Mustang, what's it cost?", reply: []string{"2020 Ford Mustang is $29,900"}},
		{say: "open the 330i", calls: []string{`select_car {"carId":"c11"}`}, on: "car"},
		{say: "compare it with the CR-V", calls: []string{`back_to_inventory {}`, `compare_cars {"carIds":["c02","c11"]}`},
			reply: []string{"Comparing 2022 Honda CR-V, 2021 BMW 330i"}, on: "drawer"},
	}},
	{"those are the ones the answer named, and the car open is open", "inventory", "", []siteTurn{
		{say: "show me the 3 newest cars", calls: []string{`sort_cars {"by":"year","order":"desc"}`}, reply: []string{"The 3 newest"}},
		{say: "what's the cheapest of those", reply: []string{"2023 Toyota RAV4 is the cheapest"}, not: []string{"Golf"}},
		{say: "open the model 3", calls: []string{`select_car {"carId":"c12"}`}, on: "car"},
		{say: "ok open the model 3", reply: []string{"This is the page of the 2022 Tesla Model 3", "configure car"}, not: []string{"Sorry"}},
	}},
	{"a down payment as a share of the price", "inventory", "", []siteTurn{
		{say: "show me cars under 25000", calls: []string{`search_cars {"maxPrice":25000}`}},
		{say: "the cheapest one", reply: []string{"Golf"}},
		{say: "take me to its page", calls: []string{`select_car {"carId":"c14"}`}, on: "car"},
		{say: "finance it, 20% down, 60 months", calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":4380,"termMonths":60}`},
			reply: []string{"down $4,380"}, on: "financing"},
		{say: "what about 10% down", calls: []string{`calculate_payment {"downPayment":2190,"termMonths":60}`}, reply: []string{"down $2,190", "60 months"}},
	}},
	{"a package this car does not have, as \"the … one\"", "car", "c19", []siteTurn{
		{say: "Could you add the driver assistance one as well?", calls: []string{}, reply: []string{"There is no driver assistance package: the packages can be Sport package or Premium sound."}},
	}},
	{"an undo after another car was configured", "inventory", "", []siteTurn{
		{say: "open the Odyssey", calls: []string{`search_cars {}`, `select_car {"carId":"c22"}`}, on: "car"},
		{say: "silver with the Elite trim", calls: []string{`configure_car {"color":"silver","trim":"Elite"}`}},
		{say: "and the ioniq with the limited trim?", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c05"}`, `configure_car {"color":"silver","trim":"Limited"}`}},
		// (not the Odyssey's Elite trim, which the Ioniq 5 does not have)
		{say: "undo that", calls: []string{}, reply: []string{"I can't undo that"}},
	}},
	{"the one car named with a value, on the list", "inventory", "", []siteTurn{
		{say: "show all cars", calls: []string{`search_cars {}`}},
		{say: "Show me Hondas in silver", calls: []string{`search_cars {"make":"Honda","color":"silver"}`}}, // a make: the list's filter
		{say: "I want the Odyssey in silver", calls: []string{`select_car {"carId":"c22"}`, `configure_car {"color":"silver"}`},
			reply: []string{"2022 Honda Odyssey", "silver"}, on: "car"},
	}},
	{"a request asked as \"can we get …?\"", "car", "c22", []siteTurn{
		{say: "can we get the Elite trim?", calls: []string{`configure_car {"trim":"Elite"}`}, not: []string{"Yes: the trim can be"}},
		{say: "could I have the family package?", calls: []string{`configure_car {"packages":["family"]}`}},
		{say: "Could we get the Odyssey in silver with the Elite trim?", calls: []string{`configure_car {"color":"silver","trim":"Elite"}`}, reply: []string{"Family package"}},
	}},
	{"a request asked as \"could we get …?\" from the list", "inventory", "", []siteTurn{
		{say: "Could we get the Odyssey in silver with the Elite trim?", calls: []string{`search_cars {}`, `select_car {"carId":"c22"}`, `configure_car {"color":"silver","trim":"Elite"}`}, on: "car"},
	}},
	{"the difference of two cars, no field named", "inventory", "", []siteTurn{
		{say: "show all cars", calls: []string{`search_cars {}`}},
		// (a comparison: what differs is more than the price, and the comparison says the prices)
		{say: "what is the difference between the RAV4 and the CR-V?", calls: []string{`compare_cars {"carIds":["c01","c02"]}`}, reply: []string{"Comparing 2023 Toyota RAV4, 2022 Honda CR-V", "Price:"}, not: []string{"Which do you mean"}, on: "drawer"},
		{say: "what's the difference between the two?", calls: []string{}, reply: []string{"a difference of $2,540"}},
		{say: "what's the price difference between the camry and the cr-v?", calls: []string{}, reply: []string{"a difference of $2,950"}},
	}},
	{"the difference of this car and another", "car", "c05", []siteTurn{
		{say: "what's the difference between this one and the cr-v", calls: []string{`back_to_inventory {}`, `search_cars {}`, `compare_cars {"carIds":["c02","c05"]}`}, reply: []string{"Comparing"}, on: "drawer"},
		{say: "close it", calls: []string{`close_comparison {}`}, on: "inventory"},
		{say: "open the camry", calls: []string{`select_car {"carId":"c09"}`}, on: "car"},
		{say: "how is it different from the rav4?", calls: []string{`back_to_inventory {}`, `compare_cars {"carIds":["c01","c09"]}`}, reply: []string{"Comparing"}, on: "drawer"},
	}},
	{"\"I am\" and nothing after it, where a form takes a name", "financing", "c01", []siteTurn{
		{say: "I am", calls: []string{}}, // (it indexed past the end of the words)
	}},
	{"a share of another car's price, and a price not the visitor's", "financing", "c01", []siteTurn{
		{say: "finance the 330i, 20% down, 60 months", calls: []string{}, not: []string{"Going back", "$6,398"}}, // (not the RAV4's payment first)
		{say: "remind me of the price", not: []string{"You haven't given"}},
	}},
	{"the one car named with a value, before the list was seen", "inventory", "", []siteTurn{
		{say: "I would like the Camry in white please", calls: []string{`search_cars {}`, `select_car {"carId":"c09"}`, `configure_car {"color":"white"}`},
			reply: []string{"2022 Toyota Camry", "white"}, on: "car"},
	}},
	{"a car named to compare with, before the list was seen", "inventory", "", []siteTurn{
		{say: "which SUVs are cheaper than the Odyssey?", calls: []string{`search_cars {}`, `search_cars {"bodyType":"suv"}`},
			reply: []string{"3 are cheaper than the 2022 Honda Odyssey ($34,900)"}},
	}},
	{"a share of a price no result stated", "financing", "", []siteTurn{
		// worked out without the share first: its result states the price the share is of
		{say: "20% down over 48 months", calls: []string{`calculate_payment {"termMonths":48}`, `calculate_payment {"downPayment":6000,"termMonths":48}`},
			reply: []string{"down $6,000"}, not: []string{"don't know the price", "down $20", "down $0"}},
		{say: "48 months with 5000 down", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":48}`}, reply: []string{"down $5,000"}},
	}},
	{"a phone visitor's short words", "inventory", "", []siteTurn{
		{say: "suv", calls: []string{`search_cars {"bodyType":"suv"}`}},
		{say: "under 30k", calls: []string{`search_cars {"bodyType":"suv","maxPrice":30000}`}, reply: []string{"Showing 2 cars"}}, // values alone narrow
		{say: "cheapest", calls: []string{`sort_cars {"by":"price","order":"asc"}`}, reply: []string{"2023 Kia Sportage"}},
		{say: "open", calls: []string{`select_car {"carId":"c08"}`}, on: "car"}, // the car the answer named
		{say: "book test drive", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "sat 9am", reply: []string{"name and email"}},
		{say: "Ann Lee ann@lee.me", calls: []string{`fill_form_data {"name":"Ann Lee","email":"ann@lee.me","date":"2026-12-05","time":"09:00"}`}},
	}},
	{"details first, the day and the time after, one at a time", "car", "c09", []siteTurn{
		{say: "I'm Tom Baker, tom@baker.co.uk, I want to drive it", calls: []string{`go_to_test_drive {}`},
			reply: []string{"date and time"}, not: []string{"name"}, on: "test-drive"},
		{say: "next monday", reply: []string{"time"}, not: []string{"name", "date"}},
		{say: "2 pm", calls: []string{`fill_form_data {"name":"Tom Baker","email":"tom@baker.co.uk","date":"2026-12-07","time":"14:00"}`}},
		{say: "back to the inventory", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "show me the red ones", calls: []string{`search_cars {"color":"red"}`}},
		{say: "the second one in the list, please open it", calls: []string{`select_car {"carId":"c04"}`},
			reply: []string{"2023 Tesla Model Y"}, not: []string{"can't", "This is the page"}, on: "car"},
		{say: "what packages can I get?", reply: []string{"Home charger, Towing package and Comfort seats"}},
	}},
	{"a phone number said on the way, a day changed, a figure after an application", "car", "c06", []siteTurn{
		{say: "put me down for a test drive, my number is 555-867-5309", calls: []string{`go_to_test_drive {}`},
			reply: []string{"name, email, date and time"}, on: "test-drive"},
		{say: "Friday 11am, Pat Doe, pat@doe.com",
			calls: []string{`fill_form_data {"name":"Pat Doe","email":"pat@doe.com","phone":"555-867-5309","date":"2026-12-04","time":"11:00"}`}},
		{say: "actually Saturday instead",
			calls: []string{`fill_form_data {"name":"Pat Doe","email":"pat@doe.com","phone":"555-867-5309","date":"2026-12-05","time":"11:00"}`}},
		{say: "book it", calls: []string{`book_test_drive {}`}, reply: []string{"Subaru Outback", "2026-12-05"}},
		{say: "go to financing", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "60 months, $5,000 down, 5.9% apr", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":60,"apr":5.9}`}},
		{say: "apply for me", reply: []string{"annual income"}},
		{say: "Pat Doe pat@doe.com 120000", calls: []string{`apply_for_financing {"fullName":"Pat Doe","email":"pat@doe.com","annualIncome":120000}`}},
		{say: "and at 72?", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":72,"apr":5.9}`}, reply: []string{"72 months", "5.9% APR"}},
	}},
	{"a lower-case name, the car's own answers, and which of two is cheaper", "inventory", "", []siteTurn{
		{say: "i'm interested in the outback", calls: []string{`search_cars {}`, `select_car {"carId":"c06"}`}, on: "car"},
		{say: "how much is it", calls: []string{`get_price_summary {}`}, reply: []string{"Subaru Outback", "total $30,200"}},
		{say: "what trims does it come in", reply: []string{"Premium, Onyx XT or Wilderness"}},
		{say: "is the roof package worth it", reply: []string{"no roof package", "Winter package, Off-road package or Cargo organiser"}},
		{say: "back to the list", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "tell me more about the tacoma", calls: []string{`select_car {"carId":"c18"}`}, on: "car"},
		{say: "which is cheaper, this or the f-150?", calls: []string{`back_to_inventory {}`},
			reply: []string{"2021 Toyota Tacoma is the cheaper", "F-150 is $41,900"}, not: []string{"Golf"}, on: "inventory"},
	}},
	{"fewer than asked for, a new search, a type left out", "inventory", "", []siteTurn{
		{say: "show me the 5 cheapest minivans", calls: []string{`search_cars {"bodyType":"minivan"}`, `sort_cars {"by":"price","order":"asc"}`},
			reply: []string{"Only one car matches: the 2022 Honda Odyssey"}},
		{say: "what's the newest convertible under 30000",
			calls: []string{`search_cars {"bodyType":"convertible","maxPrice":30000}`, `sort_cars {"by":"year","order":"desc"}`}, reply: []string{"Miata"}},
		{say: "any diesel sedans?", calls: []string{`search_cars {"bodyType":"sedan","fuel":"diesel"}`}}, // no bound kept: a new search
		{say: "i want a red car under 25k thats not a hatchback", calls: []string{`search_cars {"color":"red","maxPrice":25000}`}},
		{say: "just sedans", calls: []string{`search_cars {"bodyType":"sedan","color":"red","maxPrice":25000}`}, reply: []string{"Civic"}},
	}},
	{"something sporty, its financing, and a booking said in pieces", "inventory", "", []siteTurn{
		{say: "hey, looking for something sporty", calls: []string{`search_cars {"bodyType":"coupe"}`}, reply: []string{"Mustang"}},
		{say: "which one has the lowest mileage", reply: []string{"2022 BMW M240i Coupe is the lowest-mileage"}},
		{say: "i like the mustang, can i configure it?", calls: []string{`select_car {"carId":"c19"}`}, on: "car"},
		{say: "make it a GT in red", calls: []string{`configure_car {"color":"red","trim":"GT"}`}},
		{say: "ok and what about financing that", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "36 months", calls: []string{`calculate_payment {"termMonths":36}`}, reply: []string{"$37,700"}},
		{say: "what if i put 7500 down", calls: []string{`calculate_payment {"downPayment":7500,"termMonths":36}`}},
		{say: "go to test drive", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "wednesday", reply: []string{"name, email and time"}},
		{say: "3", reply: []string{"name and email"}}, // an hour alone answers the time asked
		{say: "Kim Park, kim@park.kr", calls: []string{`fill_form_data {"name":"Kim Park","email":"kim@park.kr","date":"2026-12-09","time":"15:00"}`}},
	}},
	{"a down payment said on a car's page, a term after a configuration, a colour asked of a listed car", "inventory", "", []siteTurn{
		{say: "open the camry", calls: []string{`search_cars {}`, `select_car {"carId":"c09"}`}, on: "car"},
		{say: "I have 5000 to put down", calls: []string{`go_to_financing {}`}, reply: []string{"24 months"}, on: "financing"},
		{say: "what would the monthly be over 48 months", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":48}`},
			reply: []string{"down $5,000", "48 months"}},
		{say: "back to the inventory", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "does the civic come in red?", calls: []string{`select_car {"carId":"c10"}`}, reply: []string{"Yes: the color can be red"}, on: "car"},
		{say: "black with the Touring trim", calls: []string{`configure_car {"color":"black","trim":"Touring"}`}},
		{say: "72 months", calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":5000,"termMonths":72}`}, // the visitor's down payment stays
			reply: []string{"72 months", "down $5,000", "price $28,200"}, on: "financing"},
	}},
	{"two things in one request: here, then another page", "car", "c02", []siteTurn{
		{say: "black with the Touring trim and take me to financing",
			calls: []string{`configure_car {"color":"black","trim":"Touring"}`, `go_to_financing {}`}, reply: []string{"$34,250"}, on: "financing"},
		{say: "72 months", calls: []string{`calculate_payment {"termMonths":72}`}, reply: []string{"price $34,250"}},
		{say: "go to the test drive page", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "back to the inventory", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "open the rav4", calls: []string{`search_cars {}`, `select_car {"carId":"c01"}`}, on: "car"},
		{say: "make it red and then go to the test drive page", calls: []string{`configure_car {"color":"red"}`, `go_to_test_drive {}`}, on: "test-drive"},
	}},
	{"lower-case names of cars never listed, from the list", "inventory", "", []siteTurn{
		{say: "book a test drive of the camry on saturday at 11", calls: []string{`search_cars {}`, `select_car {"carId":"c09"}`, `go_to_test_drive {}`},
			reply: []string{"name and email"}, on: "test-drive"},
		{say: "it's Tom Baker, tom.baker@mail.com", calls: []string{`fill_form_data {"name":"Tom Baker","email":"tom.baker@mail.com","date":"2026-12-05","time":"11:00"}`}},
		{say: "back to the inventory", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "whats the warranty?", reply: []string{"Sorry"}, not: []string{"There is no"}}, // no name: no lookup
		{say: "what colours does the Civic come in?", calls: []string{`select_car {"carId":"c10"}`},
			reply: []string{"blue, white, black, gray or red"}, not: []string{"silver"}, on: "car"},
		{say: "how much is it with the sport trim", calls: []string{`configure_car {"trim":"Sport"}`}, reply: []string{"total $25,500"}}, // the trim, not the Sport package
	}},
	{"a change of time said many ways, a hello first, another car in lower case", "test-drive", "", []siteTurn{
		{say: "Kate Bell kate.bell@gmail.com saturday at 9", calls: []string{`fill_form_data {"name":"Kate Bell","email":"kate.bell@gmail.com","date":"2026-12-05","time":"09:00"}`}},
		{say: "change the time to 10 please", calls: []string{`fill_form_data {"name":"Kate Bell","email":"kate.bell@gmail.com","date":"2026-12-05","time":"10:00"}`}},
		{say: "make it 11 instead", calls: []string{`fill_form_data {"name":"Kate Bell","email":"kate.bell@gmail.com","date":"2026-12-05","time":"11:00"}`}},
		{say: "no wait, 9", calls: []string{`fill_form_data {"name":"Kate Bell","email":"kate.bell@gmail.com","date":"2026-12-05","time":"09:00"}`}},
		{say: "back to the inventory", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "open the subaru outback", calls: []string{`search_cars {}`, `select_car {"carId":"c06"}`}, on: "car"},
		{say: "hi, what colors does it come in", reply: []string{"green, blue, silver or white"}},
		{say: "could i test drive the camry instead, sunday at 10am?", // the details said before are kept
			calls: []string{`back_to_inventory {}`, `select_car {"carId":"c09"}`, `go_to_test_drive {}`,
				`fill_form_data {"name":"Kate Bell","email":"kate.bell@gmail.com","date":"2026-12-06","time":"10:00"}`}, on: "test-drive"},
		{say: "i'm Luis Ortega, luis@ortega.mx", calls: []string{`fill_form_data {"name":"Luis Ortega","email":"luis@ortega.mx","date":"2026-12-06","time":"10:00"}`}},
		{say: "go to financing", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "hi, im Grace Ho, grace@ho.org", reply: []string{"annual income"}},
		{say: "i make about 120k a year", calls: []string{`apply_for_financing {"fullName":"Grace Ho","email":"grace@ho.org","annualIncome":120000}`}},
	}},
	{"fewer than the top three, a colour the car lacks with a trim it has, site questions from other pages", "inventory", "", []siteTurn{
		{say: "compare the 3 cheapest electric sedans", calls: []string{`search_cars {"bodyType":"sedan","fuel":"electric"}`, `sort_cars {"by":"price","order":"asc"}`},
			reply: []string{"Only one car matches", "too few to open the comparison drawer"}, not: []string{"needs 2"}},
		{say: "wagons", calls: []string{`search_cars {"bodyType":"wagon"}`}},
		{say: "compare the top three", calls: []string{`compare_cars {"carIds":["c06","c21"]}`}, on: "drawer"}, // the two there are
		{say: "whats the cheapest convertible", calls: []string{`search_cars {"bodyType":"convertible"}`, `sort_cars {"by":"price","order":"asc"}`}},
		{say: "tell me more about it", calls: []string{`select_car {"carId":"c23"}`}, on: "car"}, // "convertible" names no car
		{say: "green with the best trim", calls: []string{`configure_car {"trim":"Grand Touring"}`}, reply: []string{"Grand Touring", "Not in green"}},
		{say: "go to the test drive page", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "what other suvs do you have under 35k?", calls: []string{`back_to_inventory {}`, `search_cars {"bodyType":"suv","maxPrice":35000}`}, on: "inventory"},
		{say: "open the rav4", calls: []string{`select_car {"carId":"c01"}`}, on: "car"},
		{say: "what's the cheapest suv you have", reply: []string{"2023 Kia Sportage"}}, // from the SUVs listed before
	}},
	{"the cheapest of a kind the car's page cannot list", "car", "c01", []siteTurn{
		{say: "what's the cheapest suv you have", calls: []string{`back_to_inventory {}`, `search_cars {"bodyType":"suv"}`, `sort_cars {"by":"price","order":"asc"}`},
			reply: []string{"2023 Kia Sportage"}, not: []string{"price breakdown"}, on: "inventory"},
	}},
	{"contact details said once serve every form", "financing", "c16", []siteTurn{
		{say: "Sam Kay, sam@kay.com", reply: []string{"annual income"}},
		{say: "go to test drive", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "saturday at 10", calls: []string{`fill_form_data {"name":"Sam Kay","email":"sam@kay.com","date":"2026-12-05","time":"10:00"}`}},
		{say: "back to the inventory", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "my name is Jo Lane, jo@lane.io, 555 300 4000", reply: []string{"Noted", "when a form asks for them"}, not: []string{"Sorry", "There is no"}},
		{say: "open the camry", calls: []string{`search_cars {}`, `select_car {"carId":"c09"}`}, on: "car"},
		{say: "test drive friday at 1pm", calls: []string{`go_to_test_drive {}`,
			`fill_form_data {"name":"Jo Lane","email":"jo@lane.io","phone":"555 300 4000","date":"2026-12-04","time":"13:00"}`}, on: "test-drive"},
		{say: "back to the inventory please", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		// the form left unsent is filled again on the Outback's (the visitor changes what differs)
		{say: "i want to test drive the outback", calls: []string{`select_car {"carId":"c06"}`, `go_to_test_drive {}`,
			`fill_form_data {"name":"Jo Lane","email":"jo@lane.io","phone":"555 300 4000","date":"2026-12-04","time":"13:00"}`}, on: "test-drive"},
		{say: "this saturday 2pm", calls: []string{`fill_form_data {"name":"Jo Lane","email":"jo@lane.io","phone":"555 300 4000","date":"2026-12-05","time":"14:00"}`}},
	}},
	{"comparisons said with more, and a tie", "inventory", "", []siteTurn{
		{say: "show me the wagons", calls: []string{`search_cars {"bodyType":"wagon"}`}},
		{say: "which one has more miles", reply: []string{"2020 Audi A6 Avant is the highest-mileage"}},
		{say: "and which costs more", reply: []string{"2020 Audi A6 Avant is the more expensive"}},
		{say: "show me electric suvs", calls: []string{`search_cars {"bodyType":"suv","fuel":"electric"}`}},
		{say: "which of them is newer", reply: []string{"Neither", "2023"}, not: []string{"is the newer"}},
	}},
	{"a test drive to try, a day of next week", "inventory", "", []siteTurn{
		{say: "convertibles", calls: []string{`search_cars {"bodyType":"convertible"}`}},
		{say: "I want to try the bmw one, my name's Kai Otto and my email is kai@otto.de",
			calls: []string{`select_car {"carId":"c24"}`, `go_to_test_drive {}`}, reply: []string{"date and time"}, on: "test-drive"},
		{say: "thursday next week at 4pm", calls: []string{`fill_form_data {"name":"Kai Otto","email":"kai@otto.de","date":"2026-12-10","time":"16:00"}`}},
	}},
	{"better mileage after an ok, the most expensive you've got, a day of the month", "inventory", "", []siteTurn{
		{say: "got any cheap hybrids?", calls: []string{`search_cars {"fuel":"hybrid"}`, `sort_cars {"by":"price","order":"asc"}`}},
		{say: "compare the cheapest 2", calls: []string{`sort_cars {"by":"price","order":"asc"}`, `compare_cars {"carIds":["c09","c01"]}`}, on: "drawer"},
		{say: "ok which has better mileage", reply: []string{"2023 Toyota RAV4 is the lowest-mileage"}, on: "drawer"}, // a question, not a request to open
		{say: "close it", calls: []string{`close_comparison {}`}, on: "inventory"},
		{say: "what's the most expensive car you've got", calls: []string{`sort_cars {"by":"price","order":"desc"}`}, // of the hybrids on screen
			reply: []string{"The most expensive car is the 2022 Volvo XC60"}},
		{say: "open it", calls: []string{`select_car {"carId":"c07"}`}, on: "car"},
		{say: "book it for saturday the 12th at 11", calls: []string{`go_to_test_drive {}`}, reply: []string{"name and email"}, on: "test-drive"},
		{say: "Ana Lima ana@lima.br", calls: []string{`fill_form_data {"name":"Ana Lima","email":"ana@lima.br","date":"2026-12-12","time":"11:00"}`}},
	}},
	{"a make that names one car on screen", "inventory", "", []siteTurn{
		{say: "hybrids", calls: []string{`search_cars {"fuel":"hybrid"}`}},
		{say: "whats the price of the volvo", reply: []string{"2022 Volvo XC60 is $44,900"}}, // no search for Volvos
	}},
	{"how two compared cars differ, and all of a kind compared", "inventory", "", []siteTurn{
		{say: "compare the rav4 and the camry", calls: []string{`search_cars {}`, `compare_cars {"carIds":["c01","c09"]}`}, on: "drawer"},
		{say: "whats the difference in price", reply: []string{"2023 Toyota RAV4 is $31,990 and the 2022 Toyota Camry is $26,500"}},
		{say: "how do they differ in mileage", reply: []string{"12,000 miles", "24,000 miles"}},
		{say: "close it", calls: []string{`close_comparison {}`}, on: "inventory"},
		{say: "compare all the minivans", calls: []string{`search_cars {"bodyType":"minivan"}`}, reply: []string{"Only one car matches: the 2022 Honda Odyssey", "too few"}},
		{say: "compare all the electric cars", calls: []string{`search_cars {"fuel":"electric"}`, `compare_cars {"carIds":["c04","c05","c12"]}`}, on: "drawer"},
		{say: "close it", calls: []string{`close_comparison {}`}, on: "inventory"},
		{say: "compare all the suvs", calls: []string{`search_cars {"bodyType":"suv"}`}, reply: []string{"too many", "which should I compare"}},
	}},
	{"what a package holds is asked, not added; what was said is asked again", "car", "c01", []siteTurn{
		{say: "whats included in the tech package", reply: []string{"This page doesn't say what the Technology package includes", "“add the tech package”"}},
		{click: 1, calls: []string{`configure_car {"packages":["tech"]}`}, reply: []string{"Technology package $1,800"}},
		{say: "what does the winter package come with?", reply: []string{"doesn't say what the Winter package includes"}},
		{say: "take me to financing", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "60 months 5000 down", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":60}`}},
		{say: "what was my monthly payment again?", reply: []string{"Earlier I said: Monthly payment $568.72 for 60 months"}},
		{say: "what did you say the interest was?", reply: []string{"Total interest $5,333.15"}, not: []string{"Monthly"}},
		{say: "and at 72?", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":72}`}},
		{say: "sorry, what was the payment at 60 months again?", reply: []string{"Monthly payment $568.72 for 60 months"}},
		{say: "What was my down payment again?", reply: []string{"The down payment was 5000."}},
		{say: "go to the test drive", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "Ana Ruiz ana@ruiz.io saturday at 10", calls: []string{`fill_form_data {"name":"Ana Ruiz","email":"ana@ruiz.io","date":"2026-12-05","time":"10:00"}`}},
		{say: "what was the date again?", reply: []string{"The date was 2026-12-05"}},
		{say: "What time did I book it for again?", reply: []string{"The time was 10:00."}}, // not "Opening the … booking page"
	}},
	{"musing, one-word questions, a bare term before any calculation, tmrw", "car", "c09", []siteTurn{
		{say: "I think I would prefer the blue one, please.", calls: []string{`configure_car {"color":"blue"}`}},
		{say: "Actually, on second thought, could you make it white instead?", calls: []string{`configure_car {"color":"white"}`}}, // "second" is no car of a list
		{say: "colors?", reply: []string{"The color can be silver, white, black or blue."}},
		{say: "trims?", reply: []string{"The trim can be LE, SE or XLE."}},
		{say: "Could you tell me which colours this car is available in?", reply: []string{"The color can be silver, white, black or blue."}},
		{say: "what can I do on this page?", reply: []string{"Here is what I can do on this page"}, not: []string{"Sorry"}},
		{say: "take me to financing", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "36", calls: []string{`calculate_payment {"termMonths":36}`}},
		{say: "Oh wait, I changed my mind, let's go back to 48 months.", calls: []string{`calculate_payment {"termMonths":48}`}},
		{say: "go to test drive", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "tmrw at 10", reply: []string{"I need your name and email."}},
		{say: "Lee Ann lee@ann.io", calls: []string{`fill_form_data {"name":"Lee Ann","email":"lee@ann.io","date":"2026-12-03","time":"10:00"}`}},
	}},
	{"a count after the ranking, and the cheapest opened", "inventory", "", []siteTurn{
		{say: "suvs", calls: []string{`search_cars {"bodyType":"suv"}`}},
		{say: "compare the cheapest three", calls: []string{`sort_cars {"by":"price","order":"asc"}`, `compare_cars {"carIds":["c08","c02","c01"]}`}, on: "drawer"},
		{say: "close it", calls: []string{`close_comparison {}`}, on: "inventory"},
		{say: "wagons", calls: []string{`search_cars {"bodyType":"wagon"}`}},
		{say: "ok open the cheapest", calls: []string{`sort_cars {"by":"price","order":"asc"}`, `select_car {"carId":"c06"}`}, on: "car"},
	}},
	{"from a car's page: a search with a bound, and the two cheapest of a kind side by side", "car", "c02", []siteTurn{
		{say: "do you have any electric cars under 45k?", calls: []string{`back_to_inventory {}`, `search_cars {"fuel":"electric","maxPrice":45000}`}, on: "inventory"},
		{say: "open the ioniq 5", calls: []string{`select_car {"carId":"c05"}`}, on: "car"},
		{say: "go to financing", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "Could you compare the two cheapest SUVs for me?", calls: []string{`back_to_inventory {}`, `search_cars {"bodyType":"suv"}`,
			`sort_cars {"by":"price","order":"asc"}`, `compare_cars {"carIds":["c08","c02"]}`}, reply: []string{"Kia Sportage", "Honda CR-V"}, on: "drawer"},
	}},
	{"a note while the name is asked, and a lower-case name that is also a word", "car", "c11", []siteTurn{
		{say: "take it for a test drive thursday at 4pm", calls: []string{`go_to_test_drive {}`}, reply: []string{"I need your name and email."}, on: "test-drive"},
		{say: "notes: need a child seat", reply: []string{"I need your name and email."}}, // Thursday at 4pm kept
		{say: "max lee max@lee.de", calls: []string{`fill_form_data {"name":"max lee","email":"max@lee.de","date":"2026-12-03","time":"16:00","notes":"need a child seat"}`},
			reply: []string{"The date is Thursday, December 3."}}, // said back: "thursday" was tomorrow
	}},
	{"what that would cost a month, asked of the car on screen", "car", "c06", []siteTurn{
		{say: "what would that cost a month?", calls: []string{`go_to_financing {}`}, reply: []string{"24 months, 36 months"}, on: "financing"},
		{say: "36", calls: []string{`calculate_payment {"termMonths":36}`}},
	}},
	{"values spelled as people say them, and a package as well", "car", "c18", []siteTurn{
		{say: "I'd like the TRD Off-Road trim with the towing package, please.", calls: []string{`configure_car {"packages":["tow"],"trim":"TRD Off-Road"}`},
			not: []string{"There is no"}},
		{say: "add the off-road package too", calls: []string{`configure_car {"packages":["tow","offroad"],"trim":"TRD Off-Road"}`}},
		{say: "back to the inventory", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "open the explorer", calls: []string{`search_cars {}`, `select_car {"carId":"c03"}`}, on: "car"},
		{say: "What's the price with the premium sound package?", calls: []string{`configure_car {"packages":["sound"]}`}},
		{say: "I'd like the family package as well please", calls: []string{`configure_car {"packages":["sound","family"]}`}},
	}},
	{"a name and a phone said on the list, without an e-mail", "inventory", "", []siteTurn{
		{say: "im jo kim 555 222 1111", reply: []string{"Noted"}, not: []string{"Sorry"}},
		{say: "any pickups under 40k", calls: []string{`search_cars {"bodyType":"pickup","maxPrice":40000}`}},
		{say: "ok book a test drive of it sat at 9", calls: []string{`select_car {"carId":"c18"}`, `go_to_test_drive {}`}, reply: []string{"I need your email."}, on: "test-drive"},
		{say: "jo@kim.io", calls: []string{`fill_form_data {"name":"jo kim","email":"jo@kim.io","phone":"555 222 1111","date":"2026-12-05","time":"09:00"}`}},
	}},
	{"monthly again, without a question mark", "financing", "c12", []siteTurn{
		{say: "60 months 3000 down", calls: []string{`calculate_payment {"downPayment":3000,"termMonths":60}`}},
		{say: "go to test drive", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "monthly again", calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":3000,"termMonths":60}`}, on: "financing"},
	}},
	{"a note asked for without a cue word", "inventory", "", []siteTurn{
		{say: "my name is lea ford lea@ford.io", reply: []string{"Noted"}},
		{say: "id like to test drive the golf", calls: []string{`search_cars {}`, `select_car {"carId":"c14"}`, `go_to_test_drive {}`}, on: "test-drive"},
		{say: "fri at 9", calls: []string{`fill_form_data {"name":"lea ford","email":"lea@ford.io","date":"2026-12-04","time":"09:00"}`}},
		{say: "add a note im bringing my dad", calls: []string{`fill_form_data {"name":"lea ford","email":"lea@ford.io","date":"2026-12-04","time":"09:00","notes":"im bringing my dad"}`}},
	}},
	{"is another car cheaper than the one opened", "inventory", "", []siteTurn{
		{say: "open the tacoma", calls: []string{`search_cars {}`, `select_car {"carId":"c18"}`}, on: "car"},
		{say: "is the f150 cheaper", calls: []string{`back_to_inventory {}`}, reply: []string{"The 2021 Toyota Tacoma is the cheaper, at $34,500 (the 2021 Ford F-150 is $41,900)."}, on: "inventory"},
	}},
	{"asked to go to the page the visitor is on", "financing", "c01", []siteTurn{
		{say: "60 months 3000 down", calls: []string{`calculate_payment {"downPayment":3000,"termMonths":60}`}},
		{say: "back to the calculator please", reply: []string{"You're already there.", "“calculate payment 24 months”", "“go to test drive”"}},
		{click: 1, calls: []string{`calculate_payment {"downPayment":3000,"termMonths":24}`}},
		{say: "go to test drive", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "take me to the test drive page", reply: []string{"You're already there.", "fill in the test-drive booking form"}}, // never books
		{say: "head back to financing", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "take me to the calculator", reply: []string{"You're already there."}},                               // not back to the list
		{say: "show me the calculator", calls: []string{`calculate_payment {"downPayment":3000,"termMonths":24}`}}, // no car of that name
		{say: "back to the inventory", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "open the ioniq 5", calls: []string{`search_cars {}`, `select_car {"carId":"c05"}`}, on: "car"}, // never listed: looked up
		{say: "take me to the configurator", reply: []string{"You're already there.", "“get price summary”"}},
		{say: "take me to the calculator", calls: []string{`go_to_financing {}`}, on: "financing"},
	}},
	{"a make said again is the car of it opened before; the other one; all of them", "inventory", "", []siteTurn{
		{say: "show me the audi a4", calls: []string{`search_cars {}`, `select_car {"carId":"c13"}`}, on: "car"},
		{say: "go back to the inventory", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "Could you open the Audi?", calls: []string{`select_car {"carId":"c13"}`}, reply: []string{"2020 Audi A4"}, not: []string{"Which one"}, on: "car"},
		{say: "back to the list", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "open the other audi", calls: []string{`select_car {"carId":"c21"}`}, reply: []string{"2020 Audi A6 Avant"}, not: []string{"can't"}, on: "car"},
		{say: "back to the list", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "open the audi", reply: []string{"Which one do you mean"}}, // both were opened
		{say: "back to the list", reply: []string{"You're already there."}, not: []string{"Sorry"}},
		{say: "compare the teslas", calls: []string{`compare_cars {"carIds":["c04","c12"]}`}, not: []string{"Which one"}, on: "drawer"},
	}},
	{"a note asked for, its text in the next message", "test-drive", "c01", []siteTurn{
		{say: "add a note please", reply: []string{"name, email, date, time", "and what the note should say."}, not: []string{"Sorry"}},
		{say: "ask for a quiet route", reply: []string{"name, email, date and time"}, not: []string{"Sorry", "note"}},
		{say: "Tom Baker, tom@baker.co.uk, Friday at 1pm",
			calls: []string{`fill_form_data {"name":"Tom Baker","email":"tom@baker.co.uk","date":"2026-12-04","time":"13:00","notes":"ask for a quiet route"}`}},
		{say: "can I leave a comment?", reply: []string{"What should the note say?"}},
		{say: "my son will come along",
			calls: []string{`fill_form_data {"name":"Tom Baker","email":"tom@baker.co.uk","date":"2026-12-04","time":"13:00","notes":"my son will come along"}`}},
	}},
	{"a share of a price no result stated, then its amount", "financing", "c12", []siteTurn{
		{say: "at 5% with 10% down", reply: []string{"can't work out 10% down", "How much would that be in money?"}}, // (no term: nothing to work out yet)
		{say: "it would be about 3600", reply: []string{"24 months, 36 months"}},
		{say: "60 months", calls: []string{`calculate_payment {"downPayment":3600,"termMonths":60,"apr":5}`}, reply: []string{"60 months", "down $3,600"}},
		{say: "and at 72?", calls: []string{`calculate_payment {"downPayment":3600,"termMonths":72,"apr":5}`}},
		{say: "what about 15% down", calls: []string{`calculate_payment {"downPayment":5399,"termMonths":72,"apr":5}`}}, // the result stated the price
	}},
	{"a form left unsent is filled again when the visitor comes back to it, for another car too", "car", "c03", []siteTurn{
		{say: "I want to test drive this on Saturday at 11", calls: []string{`go_to_test_drive {}`}, reply: []string{"name and email"}, on: "test-drive"},
		{say: "Jane Doe, jane@doe.com", calls: []string{`fill_form_data {"name":"Jane Doe","email":"jane@doe.com","date":"2026-12-05","time":"11:00"}`}},
		{say: "actually can i drive the mustang instead",
			calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c19"}`, `go_to_test_drive {}`,
				`fill_form_data {"name":"Jane Doe","email":"jane@doe.com","date":"2026-12-05","time":"11:00"}`},
			reply: []string{"Opening the test-drive booking page for the 2020 Ford Mustang. Filled", "Saturday, December 5"}, on: "test-drive"},
		{say: "go to the financing page", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "take me back to the booking page",
			calls: []string{`go_to_test_drive {}`, `fill_form_data {"name":"Jane Doe","email":"jane@doe.com","date":"2026-12-05","time":"11:00"}`}, on: "test-drive"},
		{say: "book it", calls: []string{`book_test_drive {}`}, reply: []string{"Booked test drive", "Mustang"}},
		{say: "go to financing", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "back to the booking page", calls: []string{`go_to_test_drive {}`}, reply: []string{"Opening the test-drive booking page"}, on: "test-drive"}, // sent: nothing to fill
	}},
	{"a kind asked for with a, where items of that name were seen", "inventory", "", []siteTurn{
		{say: "open the miata", calls: []string{`search_cars {}`, `select_car {"carId":"c23"}`}, on: "car"},
		{say: "what would it cost a month over 60 months?", calls: []string{`go_to_financing {}`, `calculate_payment {"termMonths":60}`}, on: "financing"},
		// "MX-5" in "for the 2022 Mazda MX-5 Miata at $27,900" is no item "Miata at"
		{say: "Is there anything cheaper on the site, maybe a hatchback?", calls: []string{`back_to_inventory {}`},
			reply: []string{"Volkswagen Golf", "$21,900"}, not: []string{"Which one", "Miata at"}, on: "inventory"},
	}},
	{"a booking changed, asked about and sent in a visitor's own words", "test-drive", "c10", []siteTurn{
		{say: "Hi, I'm Nina Patel, nina.patel@outlook.com, 07700 900123", reply: []string{"date and time"}},
		{say: "Would tomorrow at 3pm work?", calls: []string{`fill_form_data {"name":"Nina Patel","email":"nina.patel@outlook.com","phone":"07700 900123","date":"2026-12-03","time":"15:00"}`}},
		{say: "Hmm, on second thought, let's do Saturday at 11.", calls: []string{`fill_form_data {"name":"Nina Patel","email":"nina.patel@outlook.com","phone":"07700 900123","date":"2026-12-05","time":"11:00"}`}},
		{say: "Before I confirm, how much is this car again?", reply: []string{"“go to financing”"}, not: []string{"Should I submit"}}, // never an offer to book
		{say: "add a note pls", reply: []string{"What should the note say?"}},
		{say: "can u have it washed lol", calls: []string{`fill_form_data {"name":"Nina Patel","email":"nina.patel@outlook.com","phone":"07700 900123","date":"2026-12-05","time":"11:00","notes":"can u have it washed lol"}`}},
		{say: "Could you also add a note please?", reply: []string{"What should the note say?"}},
		{say: "I'll be bringing my wife along.", calls: []string{`fill_form_data {"name":"Nina Patel","email":"nina.patel@outlook.com","phone":"07700 900123","date":"2026-12-05","time":"11:00","notes":"I'll be bringing my wife along"}`}},
		{say: "thx, send it", calls: []string{`book_test_drive {}`}, reply: []string{"Booked test drive"}},
	}},
	{"a model written with a hyphen, short words, a word of delight first", "inventory", "", []siteTurn{
		{say: "open the F-150", calls: []string{`search_cars {}`, `select_car {"carId":"c17"}`}, on: "car"},
		{say: "Great. How much is it?", calls: []string{`get_price_summary {}`}, reply: []string{"total $41,900"}},
		{say: "cmp it with the tacoma", calls: []string{`back_to_inventory {}`, `compare_cars {"carIds":["c18","c17"]}`}, on: "drawer"},
	}},
	{"a drive of another car not seen yet, after the form was filled", "car", "c06", []siteTurn{
		{say: "I'd like to book a test drive for Sunday at 1pm.", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "I'm Tom Becker, tom.becker@web.de", calls: []string{`fill_form_data {"name":"Tom Becker","email":"tom.becker@web.de","date":"2026-12-06","time":"13:00"}`}},
		{say: "Could I drive the Mazda MX-5 instead?", calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c23"}`, `go_to_test_drive {}`, `fill_form_data {"name":"Tom Becker","email":"tom.becker@web.de","date":"2026-12-06","time":"13:00"}`},
			not: []string{"can't"}, on: "test-drive"},
	}},
	{"tell me more abt, the other audi", "inventory", "", []siteTurn{
		{say: "tell me more abt the odyssey", calls: []string{`search_cars {}`, `select_car {"carId":"c22"}`}, on: "car"},
		{say: "back", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "open the a4", calls: []string{`select_car {"carId":"c13"}`}, on: "car"},
		{say: "back", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "the other audi", calls: []string{`select_car {"carId":"c21"}`}, on: "car"},
	}},
	{"a limit then, and an amount put down said after its word", "inventory", "", []siteTurn{
		{say: "electric under 40k", calls: []string{`search_cars {"fuel":"electric","maxPrice":40000}`}},
		{say: "ok under 45k then", calls: []string{`search_cars {"fuel":"electric","maxPrice":45000}`}},
		{say: "open the tesla model 3", calls: []string{`select_car {"carId":"c12"}`}, on: "car"},
		{say: "go to financing", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "Could you work out 60 months with 1000 down?", calls: []string{`calculate_payment {"downPayment":1000,"termMonths":60}`}},
		{say: "And what if I put down $4,000?", calls: []string{`calculate_payment {"downPayment":4000,"termMonths":60}`}, reply: []string{"down $4,000"}},
	}},
	{"a form left unsent follows the visitor from car to car", "test-drive", "c10", []siteTurn{
		{say: "sam ng sam.ng@proton.me sunday 1pm", calls: []string{`fill_form_data {"name":"sam ng","email":"sam.ng@proton.me","date":"2026-12-06","time":"13:00"}`}},
		{say: "actually can i drive the corolla instead", calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c16"}`, `go_to_test_drive {}`, `fill_form_data {"name":"sam ng","email":"sam.ng@proton.me","date":"2026-12-06","time":"13:00"}`}, on: "test-drive"},
		{say: "take me back to the civic booking", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c10"}`, `go_to_test_drive {}`, `fill_form_data {"name":"sam ng","email":"sam.ng@proton.me","date":"2026-12-06","time":"13:00"}`}, on: "test-drive"},
		{say: "Could I drive the Mazda MX-5 instead?", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c23"}`, `go_to_test_drive {}`, `fill_form_data {"name":"sam ng","email":"sam.ng@proton.me","date":"2026-12-06","time":"13:00"}`},
			reply: []string{"2022 Mazda MX-5 Miata. Filled"}, on: "test-drive"},
	}},
	{"the two cars opened, and a kind said with cheaper", "inventory", "", []siteTurn{
		{say: "Could you open the Audi A4, please?", calls: []string{`search_cars {}`, `select_car {"carId":"c13"}`}, on: "car"},
		{say: "back to the list", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "open the A6 please", calls: []string{`select_car {"carId":"c21"}`}, on: "car"},
		{say: "Which of the two is cheaper?", reply: []string{"The 2020 Audi A4 is the cheaper, at $27,400"}, not: []string{"Golf"}},
		{say: "back to the list", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "anything cheaper, like a wagon?", reply: []string{"2022 Subaru Outback", "$30,200"}, not: []string{"Golf"}}, // the Golf is a hatchback
	}},
	{"another car of the make on screen: the other one, all of them, cheaper than this one", "inventory", "", []siteTurn{
		{say: "Could you tell me more about the Audi A4, please?", calls: []string{`search_cars {}`, `select_car {"carId":"c13"}`}, on: "car"},
		{say: "And what about the other Audi?", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c21"}`}, reply: []string{"2020 Audi A6 Avant"}, on: "car"},
		{say: "compare the audis", calls: []string{`back_to_inventory {}`, `compare_cars {"carIds":["c13","c21"]}`}, not: []string{"Which one"}, on: "drawer"},
		{say: "open the f-150", calls: []string{`select_car {"carId":"c17"}`}, on: "car"},
		{say: "Is the Tacoma cheaper than this one?", calls: []string{`back_to_inventory {}`},
			reply: []string{"The 2021 Toyota Tacoma is the cheaper, at $34,500 (the 2021 Ford F-150 is $41,900)."}, on: "inventory"},
	}},
	{"a package said by the name the page shows", "car", "c07", []siteTurn{
		{say: "Please add the panoramic roof.", calls: []string{`configure_car {"packages":["roof"]}`}, reply: []string{"total $46,300"}, on: "car"},
	}},
	{"details noted on the list, then a drive of a car named", "inventory", "", []siteTurn{
		{say: "Hi there, I'm Daniel Osei, daniel.osei@mail.com, and my phone number is 555 310 7788.", reply: []string{"Noted"}},
		{say: "I'd like to test drive the Subaru Outback, please.", calls: []string{`search_cars {}`, `select_car {"carId":"c06"}`, `go_to_test_drive {}`},
			reply: []string{"I need your date and time", "I'll fill in your name, email and phone."}, on: "test-drive"},
		{say: "How about next Thursday at 10 in the morning?",
			calls: []string{`fill_form_data {"name":"Daniel Osei","email":"daniel.osei@mail.com","phone":"555 310 7788","date":"2026-12-03","time":"10:00"}`}},
	}},
	{"another make side by side instead", "inventory", "", []siteTurn{
		{say: "Would you compare the BMWs for me?", calls: []string{`search_cars {"make":"BMW"}`, `compare_cars {"carIds":["c11","c20","c24"]}`}, on: "drawer"},
		{say: "Which of them is the newest?", reply: []string{"The 2022 BMW M240i Coupe is the newest"}},
		{say: "I'd like to see the hondas side by side instead.", calls: []string{`search_cars {"make":"Honda"}`, `compare_cars {"carIds":["c02","c10","c22"]}`}, not: []string{"BMW"}},
	}},
	{"fewer than the ones asked for, and a phone before the day", "inventory", "", []siteTurn{
		{say: "Could you show me the minivans under 40 thousand?", calls: []string{`search_cars {"bodyType":"minivan","maxPrice":40000}`}},
		{say: "Please compare the three cheapest ones.", calls: []string{`sort_cars {"by":"price","order":"asc"}`},
			reply: []string{"Only one car matches: the 2022 Honda Odyssey"}, not: []string{"Which 2 to 3"}},
		{say: "i'd like to test drive it", calls: []string{`select_car {"carId":"c22"}`, `go_to_test_drive {}`}, on: "test-drive"},
		{say: "li wei liwei@qq.com +44 7700 900123 fri 11am",
			calls: []string{`fill_form_data {"name":"li wei","email":"liwei@qq.com","phone":"+44 7700 900123","date":"2026-12-04","time":"11:00"}`}},
	}},
	{"a bare hour after a day", "car", "c11", []siteTurn{
		{say: "can i test drive it sat 9", calls: []string{`go_to_test_drive {}`}, reply: []string{"name and email"}, not: []string{"time"}, on: "test-drive"},
		{say: "im raj patel raj@patel.dev", calls: []string{`fill_form_data {"name":"raj patel","email":"raj@patel.dev","date":"2026-12-05","time":"09:00"}`}},
	}},
	{"a question not answered keeps the values of its request", "financing", "c12", []siteTurn{
		{say: "at 5% with 10% down", reply: []string{"How much would that be in money?"}},
		{say: "and at 72?", calls: []string{`calculate_payment {"termMonths":72,"apr":5}`}, reply: []string{"72 months at 5% APR"}},
	}},
	{"a request for a car not named yet, then its name", "inventory", "", []siteTurn{
		{say: "can I book a drive", reply: []string{"Sorry", "tell me which"}},
		{say: "the RAV4", calls: []string{`search_cars {}`, `select_car {"carId":"c01"}`, `go_to_test_drive {}`}, reply: []string{"2023 Toyota RAV4"}, on: "test-drive"},
		{say: "back to the list", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "i want to apply for financing", reply: []string{"tell me which"}},
		{say: "the civic", calls: []string{`select_car {"carId":"c10"}`, `go_to_financing {}`}, reply: []string{"2023 Honda Civic"}, on: "financing"},
	}},
	{"a package asked about is answered, not added", "car", "c03", []siteTurn{
		{say: "does it come with a towing package?", reply: []string{"Yes: Towing package is one of the packages"}, not: []string{"Sorry", "Configured"}},
		{say: "is the sound package available", reply: []string{"Yes: Premium sound"}, not: []string{"Configured"}},
		{say: "ok add the towing package", calls: []string{`configure_car {"packages":["tow"]}`}, reply: []string{"Towing package $1,200"}},
		{say: "open the RAV4", calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c01"}`}, on: "car"},
		{say: "does it have a tow package", reply: []string{"No, there is no tow package", "Winter package, Technology package or Panoramic roof"}},
	}},
	{"the earliest slot, and a morning", "test-drive", "c01", []siteTurn{
		{say: "whats the earliest slot on friday", reply: []string{"The earliest time is 09:00", "name and email"}, not: []string{"Sorry"}},
		{say: "Ann Lee ann@lee.io", calls: []string{`fill_form_data {"name":"Ann Lee","email":"ann@lee.io","date":"2026-12-04","time":"09:00"}`}},
		{say: "actually saturday if possible", calls: []string{`fill_form_data {"name":"Ann Lee","email":"ann@lee.io","date":"2026-12-05","time":"09:00"}`}},
		{say: "or the last slot that day", calls: []string{`fill_form_data {"name":"Ann Lee","email":"ann@lee.io","date":"2026-12-05","time":"16:00"}`}},
	}},
	{"a part of the day narrows the times asked for", "car", "c05", []siteTurn{
		{say: "test drive saturday morning if possible", calls: []string{`go_to_test_drive {}`}, reply: []string{"09:00, 10:00, 11:00)"}, not: []string{"13:00"}, on: "test-drive"},
		{say: "Ann Lee ann@lee.io", reply: []string{"time (one of: 09:00, 10:00, 11:00)"}},
		{say: "10", calls: []string{`fill_form_data {"name":"Ann Lee","email":"ann@lee.io","date":"2026-12-05","time":"10:00"}`}},
	}},
	{"here, then elsewhere, with figures for there", "car", "c05", []siteTurn{
		{say: "configure it in green and go to financing, 60 months", calls: []string{`configure_car {"color":"green"}`, `go_to_financing {}`, `calculate_payment {"termMonths":60}`},
			reply: []string{"60 months"}, not: []string{"Sorry", "either"}, on: "financing"},
		{say: "4000 down", calls: []string{`calculate_payment {"termMonths":60,"downPayment":4000}`}, reply: []string{"down $4,000"}},
		{say: "and at 72?", calls: []string{`calculate_payment {"termMonths":72,"downPayment":4000}`}, reply: []string{"72 months"}},
		{say: "go to test drive", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
	}},
	{"here, then elsewhere, with a day and an hour for there", "car", "c05", []siteTurn{
		{say: "make it green and go to the test drive page saturday at 10", calls: []string{`configure_car {"color":"green"}`, `go_to_test_drive {}`}, reply: []string{"name and email"}, on: "test-drive"},
		{say: "Ann Lee ann@lee.io", calls: []string{`fill_form_data {"name":"Ann Lee","email":"ann@lee.io","date":"2026-12-05","time":"10:00"}`}},
	}},
	{"a kind in the plural is a search, not the one car of that kind", "inventory", "", []siteTurn{
		{say: "open the civic", calls: []string{`search_cars {}`, `select_car {"carId":"c10"}`}, on: "car"},
		{say: "go back to the inventory", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "any convertibles cheaper than 30k?", calls: []string{`search_cars {"bodyType":"convertible","maxPrice":30000}`}, reply: []string{"Showing 1 car", "MX-5 Miata"}},
		{say: "compare the two cheapest", calls: []string{`sort_cars {"by":"price","order":"asc"}`}, reply: []string{"Only one car matches"}},
	}},
	{"a drive asked on the financing page applies for nothing", "financing", "c05", []siteTurn{
		{say: "what would it be w 5k down over 60 months", calls: []string{`calculate_payment {"termMonths":60,"downPayment":5000}`}},
		{say: "ok and test drive it sat at 9, name Ana Ruiz ana@ruiz.co",
			calls: []string{`go_to_test_drive {}`, `fill_form_data {"name":"Ana Ruiz","email":"ana@ruiz.co","date":"2026-12-05","time":"09:00"}`}, on: "test-drive"},
	}},
	{"an hour in a few words answers the time asked", "test-drive", "c06", []siteTurn{
		{say: "Can I come next Saturday?", reply: []string{"time (one of"}},
		{say: "Is 11 available?", reply: []string{"name and email"}, not: []string{"Sorry", "date", "time"}},
		{say: "Grace Kim grace.kim@example.org", calls: []string{`fill_form_data {"name":"Grace Kim","email":"grace.kim@example.org","date":"2026-12-05","time":"11:00"}`}},
	}},
	{"a note's words name no car", "test-drive", "c10", []siteTurn{
		{say: "I'd like to come on Friday at 11, I'm Omar Said, omar@said.com", calls: []string{`fill_form_data {"name":"Omar Said","email":"omar@said.com","date":"2026-12-04","time":"11:00"}`}},
		{say: "Please add a note that I'd like to try the manual if possible.",
			calls: []string{`fill_form_data {"name":"Omar Said","email":"omar@said.com","date":"2026-12-04","time":"11:00","notes":"I'd like to try the manual if possible"}`}, not: []string{"Sorry"}, on: "test-drive"},
		{say: "Go ahead and submit it.", calls: []string{`book_test_drive {}`}, reply: []string{"Booked test drive", "Civic"}},
	}},
	{"figures of the last answer, asked about", "financing", "c12", []siteTurn{
		{say: "what's the monthly over 60 months with 8000 down", calls: []string{`calculate_payment {"termMonths":60,"downPayment":8000}`}, reply: []string{"Total interest $5,184.96"}},
		{say: "What's the total interest on that?", reply: []string{"Total interest $5,184.96."}, not: []string{"Sorry"}},
		{say: "And what's the rate you're using?", reply: []string{"6.9% APR"}, not: []string{"Sorry"}},
	}},
	{"the one car of a make on screen, told about", "inventory", "", []siteTurn{
		{say: "Show me the hybrids please.", calls: []string{`search_cars {"fuel":"hybrid"}`}, reply: []string{"3 cars"}},
		{say: "Tell me more about the Volvo.", calls: []string{`select_car {"carId":"c07"}`}, reply: []string{"2022 Volvo XC60"}, on: "car"},
	}},
	{"a name and an e-mail said in sentences are noted", "inventory", "", []siteTurn{
		{say: "Hi, my name is Grace Kim and my email is grace.kim@example.org.", reply: []string{"Noted"}, not: []string{"There is no"}},
		{say: "I'd like to test drive the Outback next Saturday at 11.",
			calls: []string{`search_cars {}`, `select_car {"carId":"c06"}`, `go_to_test_drive {}`, `fill_form_data {"name":"Grace Kim","email":"grace.kim@example.org","date":"2026-12-05","time":"11:00"}`}, on: "test-drive"},
	}},
	{"a yes about a value, then taking it", "car", "c09", []siteTurn{
		{say: "does it have the tech package", reply: []string{"Yes: Technology package"}},
		{say: "add it pls", calls: []string{`configure_car {"packages":["tech"]}`}, reply: []string{"Technology package $1,800"}},
		{say: "does it come in blue?", reply: []string{"Yes: the color can be blue"}},
		{say: "ok get it", calls: []string{`configure_car {"color":"blue"}`}},
	}},
	{"a booking pressed before the form was filled asks for it", "test-drive", "c10", []siteTurn{
		{say: "pls book it", calls: []string{`book_test_drive {}`}, reply: []string{"I need your name, email, date and time (one of: 09:00"}},
		{say: "Jo Kim jo@kim.com sun 10am", calls: []string{`fill_form_data {"name":"Jo Kim","email":"jo@kim.com","date":"2026-12-06","time":"10:00"}`}},
		{say: "book it", calls: []string{`book_test_drive {}`}, reply: []string{"Booked test drive"}},
	}},
	{"the price of the car being booked, said before", "inventory", "", []siteTurn{
		{say: "open the mustang", calls: []string{`search_cars {}`, `select_car {"carId":"c19"}`}, on: "car"},
		{say: "book a test drive", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "how much is this car again?", reply: []string{"The 2020 Ford Mustang is $29,900."}},
		{say: "back to the list", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "show me everything", calls: []string{`search_cars {}`}, reply: []string{"Showing 24 cars"}},
	}},
	{"phone shorthand around the details", "car", "c10", []siteTurn{
		{say: "take me to the test drive page", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "ty. book me in for tmrw 9am pls, jo, jo@x.io", calls: []string{`fill_form_data {"name":"jo","email":"jo@x.io","date":"2026-12-03","time":"09:00"}`}},
	}},
	{"a first name alone, said before the drive", "inventory", "", []siteTurn{
		{say: "im lena, lena@park.io", reply: []string{"Noted"}},
		{say: "wanna test drive the outback tmrw at 3",
			calls: []string{`search_cars {}`, `select_car {"carId":"c06"}`, `go_to_test_drive {}`, `fill_form_data {"name":"lena","email":"lena@park.io","date":"2026-12-03","time":"15:00"}`}, on: "test-drive"},
	}},
	{"a trim of two words, one of them a package's", "car", "c11", []siteTurn{
		{say: "I'd like the M Sport in blue, please.", calls: []string{`configure_car {"color":"blue","trim":"M Sport"}`}, reply: []string{"total $37,900"}},
	}},
	{"a calculation asked as a question, and a figure replaced", "car", "c09", []siteTurn{
		{say: "What would the monthly payments be over four years with $3,000 down?", calls: []string{`go_to_financing {}`, `calculate_payment {"termMonths":48,"downPayment":3000}`},
			reply: []string{"48 months", "down $3,000"}, on: "financing"},
		{say: "Instead of 48, let's try 36.", calls: []string{`calculate_payment {"termMonths":36,"downPayment":3000}`}, reply: []string{"36 months"}},
		{say: "instead of 6.9% could we do 4.5%", calls: []string{`calculate_payment {"termMonths":36,"downPayment":3000,"apr":4.5}`}, reply: []string{"4.5% APR"}},
	}},
	{"a change of hour while the name is asked keeps the day", "car", "c10", []siteTurn{
		{say: "take me to the test drive page", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "sat at 11 pls", reply: []string{"name and email"}},
		{say: "actually make it 1pm", reply: []string{"name and email"}, not: []string{"date"}},
		{say: "Leo Park leo@park.kr", calls: []string{`fill_form_data {"name":"Leo Park","email":"leo@park.kr","date":"2026-12-05","time":"13:00"}`}},
	}},
	{"back to the car from the calculator", "inventory", "", []siteTurn{
		{say: "open the Model 3", calls: []string{`search_cars {}`, `select_car {"carId":"c12"}`}, on: "car"},
		{say: "go to financing", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "go back to the car pls", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c12"}`}, reply: []string{"2022 Tesla Model 3"}, on: "car"},
		{say: "what about blue w the family package", calls: []string{`configure_car {"color":"blue"}`}, reply: []string{"There is no family package"}},
		{say: "back to the list", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "Could you show me the SUVs under $35,000?", calls: []string{`search_cars {"bodyType":"suv","maxPrice":35000}`}, reply: []string{"3 cars"}},
		{say: "I'd rather look at electric cars instead", calls: []string{`search_cars {"fuel":"electric"}`}, reply: []string{"3 cars"}},
	}},
	{"differences and ties said as they are", "inventory", "", []siteTurn{
		{say: "pickups pls", calls: []string{`search_cars {"bodyType":"pickup"}`}},
		{say: "whats the difference in price between them", reply: []string{"a difference of $7,400"}},
		{say: "Could you show me the SUVs under $35,000?", calls: []string{`search_cars {"bodyType":"suv","maxPrice":35000}`}},
		{say: "Please compare the three cheapest ones for me.", calls: []string{`sort_cars {"by":"price","order":"asc"}`, `compare_cars {"carIds":["c08","c02","c01"]}`}, on: "drawer"},
		{say: "Which of them is the newest?", reply: []string{"The 2023 Kia Sportage and the 2023 Toyota RAV4 are the newest, both 2023."}},
	}},
	{"a shorthand after a ranking is no part of its noun", "car", "c17", []siteTurn{
		{say: "thx, whats the cheapest suv u have", calls: []string{`back_to_inventory {}`, `search_cars {"bodyType":"suv"}`, `sort_cars {"by":"price","order":"asc"}`},
			reply: []string{"The cheapest suv is the 2023 Kia Sportage"}, on: "inventory"},
	}},
	{"whether it comes with a value, and a choice from a list", "car", "c07", []siteTurn{
		{say: "Does this one come with a panoramic roof?", reply: []string{"Yes: Panoramic roof is one of the packages"}},
		{say: "can u tell me about the trims", reply: []string{"The trim can be"}, not: []string{"Sorry"}},
		{say: "what colours can i get", reply: []string{"The color can be white, gray, black or blue."}},
		{say: "the second one", calls: []string{`configure_car {"color":"gray"}`}},
	}},
	{"a trim picked by its place", "car", "c08", []siteTurn{
		{say: "what trims r there", reply: []string{"LX, EX or SX"}},
		{say: "the middle one pls", calls: []string{`configure_car {"trim":"EX"}`}, reply: []string{"EX trim"}},
	}},
	{"a car named with a colour, from the booking page", "test-drive", "c23", []siteTurn{
		{say: "i want to see the miata in red", calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c23"}`, `configure_car {"color":"red"}`},
			reply: []string{"Mazda MX-5 Miata", "red"}, on: "car"},
	}},
	{"a term said bare with other figures, and a share put down", "financing", "c10", []siteTurn{
		{say: "36 months", calls: []string{`calculate_payment {"termMonths":36}`}},
		{say: "what if i put down 20%", calls: []string{`calculate_payment {"termMonths":36,"downPayment":4780}`}, reply: []string{"down $4,780"}},
		{say: "and 48 with 3000 down", calls: []string{`calculate_payment {"termMonths":48,"downPayment":3000}`}, reply: []string{"48 months"}},
		{say: "how about 60 at 5%", calls: []string{`calculate_payment {"termMonths":60,"downPayment":3000,"apr":5}`}},
		{say: "What interest rate is that at?", reply: []string{"5% APR"}, not: []string{"Sorry"}},
	}},
	{"a longer trim's name, and questions typed short", "car", "c13", []siteTurn{
		{say: "hi there, what can you do", reply: []string{"I'm the page's assistant"}, not: []string{"Sorry"}},
		{say: "Premium Plus trim, gray", calls: []string{`configure_car {"trim":"Premium Plus","color":"gray"}`}, reply: []string{"Premium Plus trim"}},
		{say: "wat colours does it come in", reply: []string{"The color can be"}, not: []string{"There is no"}},
		{say: "can you help me?", reply: []string{"I'm the page's assistant"}},
	}},
	{"a possessive before what is asked", "car", "c23", []siteTurn{
		{say: "Could you tell me more about the Miata's colours?", reply: []string{"The color can be red, white, gray or blue."}, not: []string{"There is no"}},
	}},
	{"an hour changed while the name is asked, and a name in lower case", "test-drive", "c15", []siteTurn{
		{say: "fri at 10 pls", reply: []string{"name and email"}},
		{say: "actually make it 11", reply: []string{"name and email"}, not: []string{"date"}},
		{say: "my name is ali ray", reply: []string{"your email"}, not: []string{"Sorry", "date"}},
		{say: "ali@ray.io", calls: []string{`fill_form_data {"name":"ali ray","email":"ali@ray.io","date":"2026-12-04","time":"11:00"}`}},
	}},
	{"a term is no price bound", "inventory", "", []siteTurn{
		{say: "compare the camry and the civic", calls: []string{`search_cars {}`, `compare_cars {"carIds":["c09","c10"]}`}, on: "drawer"},
		{say: "whats it cost a month over 60 months", reply: []string{"Which car is it for", "Camry", "Civic"}}, // not the first of them
		{say: "the camry", calls: []string{`select_car {"carId":"c09"}`, `go_to_financing {}`, `calculate_payment {"termMonths":60}`}, on: "financing"},
	}},
	{"a part of the day as the answer, then the hour", "test-drive", "c04", []siteTurn{
		{say: "book for next wednesday", reply: []string{"time (one of: 09:00"}},
		{say: "how about the morning", reply: []string{"time (one of: 09:00, 10:00, 11:00)"}, not: []string{"Sorry", "date"}},
		{say: "9 then", reply: []string{"name and email"}},
		{say: "Ava Stone ava@stone.com", calls: []string{`fill_form_data {"name":"Ava Stone","email":"ava@stone.com","date":"2026-12-09","time":"09:00"}`}},
	}},
	{"can it, asked of the car on screen, and a make opened from a list not shown", "car", "c03", []siteTurn{
		{say: "can it tow", reply: []string{"Yes: Towing package is one of the packages"}, not: []string{"Configured"}},
		{say: "back to the list", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "open the volvo", calls: []string{`search_cars {"make":"Volvo"}`, `select_car {"carId":"c07"}`}, reply: []string{"2022 Volvo XC60"}, on: "car"},
		{say: "blue please", calls: []string{`configure_car {"color":"blue"}`}},
	}},
	{"what was said again, after an application", "financing", "c01", []siteTurn{
		{say: "60 months", calls: []string{`calculate_payment {"termMonths":60}`}},
		{say: "ok can i apply, my name is Eva Koch eva@koch.de", reply: []string{"annual income"}},
		{say: "i earn 72000 a year", calls: []string{`apply_for_financing {"fullName":"Eva Koch","email":"eva@koch.de","annualIncome":72000}`}},
		{say: "what was the monthly again", reply: []string{"Earlier I said: Monthly payment $631.93"}},
	}},
	{"a make in the plural with one car of it", "inventory", "", []siteTurn{
		{say: "show me the subarus", calls: []string{`search_cars {"make":"Subaru"}`}, reply: []string{"Showing 1 car: 2022 Subaru Outback"}},
	}},
	{"a name said alone, in lower case", "inventory", "", []siteTurn{
		{say: "the civic", calls: []string{`search_cars {}`, `select_car {"carId":"c10"}`}, reply: []string{"2023 Honda Civic"}, on: "car"},
	}},
	{"this Tesla is the one on screen, and what the list said of it", "inventory", "", []siteTurn{
		{say: "open the model y", calls: []string{`search_cars {}`, `select_car {"carId":"c04"}`}, on: "car"},
		{say: "what colors does this tesla come in", reply: []string{"white, black, blue, red or gray"}, not: []string{"green"}},
		{say: "is this tesla electric", reply: []string{"Yes: the 2023 Tesla Model Y is electric"}},
		{say: "does it run on diesel", reply: []string{"No: the 2023 Tesla Model Y is electric."}},
		{say: "is it an SUV", reply: []string{"Yes", "SUV"}},
	}},
	{"this Honda on a page opened outside the conversation", "car", "c02", []siteTurn{
		{say: "How much is this Honda?", calls: []string{`get_price_summary {}`}, reply: []string{"$29,450"}},
	}},
	{"never mind, and a new value: the new value, not a refusal", "financing", "c06", []siteTurn{
		{say: "60 months with 2000 down", calls: []string{`calculate_payment {"downPayment":2000,"termMonths":60}`}},
		{say: "never mind, go with 48 and put 4k down", calls: []string{`calculate_payment {"downPayment":4000,"termMonths":48}`}, not: []string{"won't"}},
	}},
	{"nevermind, red is fine after black", "car", "c19", []siteTurn{
		{say: "i'll take the gt in red", calls: []string{`configure_car {"color":"red","trim":"GT"}`}},
		{say: "actually make it black", calls: []string{`configure_car {"color":"black"}`}},
		{say: "nevermind, red is fine", calls: []string{`configure_car {"color":"red"}`}},
	}},
	{"never mind in a chain of answers keeps the time", "test-drive", "c09", []siteTurn{
		{say: "can i come in friday at 1pm", reply: []string{"name and email"}},
		{say: "never mind, thursday instead", reply: []string{"name and email"}, not: []string{"won't"}},
		{say: "oops i meant wednesday", reply: []string{"name and email"}, not: []string{"time"}},
		{say: "Lee Park lee@park.kr", calls: []string{`fill_form_data {"name":"Lee Park","email":"lee@park.kr","date":"2026-12-09","time":"13:00"}`}},
	}},
	{"a filled form's time moved: to 11, to the afternoon, to the morning", "test-drive", "c09", []siteTurn{
		{say: "saturday at 10 please, Mia Chen mia@chen.org", calls: []string{`fill_form_data {"name":"Mia Chen","email":"mia@chen.org","date":"2026-12-05","time":"10:00"}`}},
		{say: "can we push it to 11", calls: []string{`fill_form_data {"name":"Mia Chen","email":"mia@chen.org","date":"2026-12-05","time":"11:00"}`}},
		{say: "actually move it to the afternoon", reply: []string{"time (one of: 13:00, 14:00, 15:00, 16:00)"}, not: []string{"Sorry", "name"}},
		{say: "2pm", calls: []string{`fill_form_data {"name":"Mia Chen","email":"mia@chen.org","date":"2026-12-05","time":"14:00"}`}},
		{say: "wait, can we do the morning instead", reply: []string{"09:00, 10:00, 11:00"}, not: []string{"Sorry", "13:00"}},
	}},
	{"a time that is no slot, then another, before the name", "test-drive", "c11", []siteTurn{
		{say: "next wednesday 4pm", reply: []string{"name and email"}},
		{say: "no wait, 5pm", reply: []string{"17:00 is not one of the times", "16:00"}, not: []string{"Sorry", "date"}},
		{say: "make it 3pm then", reply: []string{"name and email"}, not: []string{"date"}},
		{say: "Ana Ruiz ana@ruiz.mx", calls: []string{`fill_form_data {"name":"Ana Ruiz","email":"ana@ruiz.mx","date":"2026-12-09","time":"15:00"}`}},
	}},
	{"morning please while the time is asked", "test-drive", "c09", []siteTurn{
		{say: "saturday please, Mia Chen mia@chen.org", reply: []string{"time (one of: 09:00"}},
		{say: "morning please", reply: []string{"time (one of: 09:00, 10:00, 11:00)"}, not: []string{"13:00"}},
		{say: "10", calls: []string{`fill_form_data {"name":"Mia Chen","email":"mia@chen.org","date":"2026-12-05","time":"10:00"}`}},
	}},
	{"the afternoon instead of the time said, before the name", "test-drive", "c11", []siteTurn{
		{say: "next wednesday 4pm", reply: []string{"name and email"}},
		{say: "actually the afternoon", reply: []string{"13:00, 14:00, 15:00, 16:00"}, not: []string{"09:00"}},
		{say: "2pm", reply: []string{"name and email"}, not: []string{"date"}},
		{say: "Ana Ruiz ana@ruiz.mx", calls: []string{`fill_form_data {"name":"Ana Ruiz","email":"ana@ruiz.mx","date":"2026-12-09","time":"14:00"}`}},
	}},
	{"the calculator's figures changed in words: instead of 4k, nothing down, back to 60", "financing", "c06", []siteTurn{
		{say: "60 months with 4000 down", calls: []string{`calculate_payment {"downPayment":4000,"termMonths":60}`}},
		{say: "instead of 4k let's do 6000", calls: []string{`calculate_payment {"downPayment":6000,"termMonths":60}`}},
		{say: "what about no money down", calls: []string{`calculate_payment {"downPayment":0,"termMonths":60}`}},
		{say: "actually, instead of 60 do 72", calls: []string{`calculate_payment {"downPayment":0,"termMonths":72}`}},
		{say: "hmm no go back to 60", calls: []string{`calculate_payment {"downPayment":0,"termMonths":60}`}, not: []string{"inventory"}},
		{say: "put 3k down", calls: []string{`calculate_payment {"downPayment":3000,"termMonths":60}`}},
		{say: "forget the down payment", calls: []string{`calculate_payment {"downPayment":0,"termMonths":60}`}},
	}},
	{"a term said again with a word of approval", "financing", "c12", []siteTurn{
		{say: "whats the monthly over 48", calls: []string{`calculate_payment {"termMonths":48}`}},
		{say: "actually i changed my mind, let's do 36", calls: []string{`calculate_payment {"termMonths":36}`}},
		{say: "no sorry, 48 was better", calls: []string{`calculate_payment {"termMonths":48}`}},
	}},
	{"is it a convertible? of the Miata, not the BMW 430i Convertible", "inventory", "", []siteTurn{
		{say: "i'd like to see the mazda mx-5", calls: []string{`search_cars {}`, `select_car {"carId":"c23"}`}, on: "car"},
		{say: "is it a convertible?", reply: []string{"Yes: the 2022 Mazda MX-5 Miata is convertible"}, not: []string{"BMW"}},
		{say: "is it a hatchback?", reply: []string{"No: the 2022 Mazda MX-5 Miata is convertible"}},
	}},
	{"a question of the second car compared, asked on the first one's page", "inventory", "", []siteTurn{
		{say: "show me suvs under 35k", calls: []string{`search_cars {"bodyType":"suv","maxPrice":35000}`}},
		{say: "compare the two cheapest", calls: []string{`sort_cars {"by":"price","order":"asc"}`, `compare_cars {"carIds":["c08","c02"]}`}, on: "drawer"},
		{say: "what colors does the first one come in", calls: []string{`select_car {"carId":"c08"}`}, reply: []string{"2023 Kia Sportage", "red, white, gray or black"}, on: "car"},
		{say: "and the second one?", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c02"}`}, reply: []string{"2022 Honda CR-V", "gray, white, blue or black"}, on: "car"},
	}},
	{"the other one of two compared, from the first one's calculator", "inventory", "", []siteTurn{
		{say: "compare the bmw 330i and the audi a4", calls: []string{`search_cars {}`, `compare_cars {"carIds":["c11","c13"]}`}, on: "drawer"},
		{say: "how much would the cheaper one be a month over 60 months", calls: []string{`select_car {"carId":"c13"}`, `go_to_financing {}`, `calculate_payment {"termMonths":60}`}, reply: []string{"$27,400"}, on: "financing"},
		{say: "and the other one?", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c11"}`, `go_to_financing {}`, `calculate_payment {"termMonths":60}`}, reply: []string{"$34,800"}, on: "financing"},
	}},
	{"and the first one? on the second one's calculator", "inventory", "", []siteTurn{
		{say: "compare the tacoma and the f-150", calls: []string{`search_cars {}`, `compare_cars {"carIds":["c18","c17"]}`}, on: "drawer"},
		{say: "what would the second one be per month over 72 months", calls: []string{`select_car {"carId":"c17"}`, `go_to_financing {}`, `calculate_payment {"termMonths":72}`}, on: "financing"},
		{say: "and the first one?", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c18"}`, `go_to_financing {}`, `calculate_payment {"termMonths":72}`}, reply: []string{"$34,500"}, on: "financing"},
	}},
	{"a test drive of the other one, with its day and time", "inventory", "", []siteTurn{
		{say: "compare the civic and the camry", calls: []string{`search_cars {}`, `compare_cars {"carIds":["c10","c09"]}`}, on: "drawer"},
		{say: "what would the first one cost per month", calls: []string{`select_car {"carId":"c10"}`, `go_to_financing {}`}, on: "financing"},
		{say: "book a test drive of the other one for friday at 10", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c09"}`, `go_to_test_drive {}`}, reply: []string{"2022 Toyota Camry", "name and email"}, on: "test-drive"},
		{say: "Jo Kim jo@kim.io", calls: []string{`fill_form_data {"name":"Jo Kim","email":"jo@kim.io","date":"2026-12-04","time":"10:00"}`}},
	}},
	{"is the golf cheaper than the corolla? answered, not a question back", "inventory", "", []siteTurn{
		{say: "show me the hatchbacks", calls: []string{`search_cars {"bodyType":"hatchback"}`}},
		{say: "is the golf cheaper than the corolla?", reply: []string{"2021 Volkswagen Golf is the cheaper, at $21,900"}, not: []string{"Which do you mean", "c14"}},
	}},
	{"is it a 2023? of the car on screen", "inventory", "", []siteTurn{
		{say: "open the audi a6", calls: []string{`search_cars {}`, `select_car {"carId":"c21"}`}, on: "car"},
		{say: "is it a 2023?", reply: []string{"No: the 2020 Audi A6 Avant is a 2020 model"}},
	}},
	{"let's look at the a4 from its calculator, and a note as 'please note'", "inventory", "", []siteTurn{
		{say: "compare the bmw 330i and the audi a4", calls: []string{`search_cars {}`, `compare_cars {"carIds":["c11","c13"]}`}, on: "drawer"},
		{say: "how much would the cheaper one be a month over 60 months", calls: []string{`select_car {"carId":"c13"}`, `go_to_financing {}`, `calculate_payment {"termMonths":60}`}, on: "financing"},
		{say: "actually lets look at the a4", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c13"}`}, reply: []string{"2020 Audi A4"}, on: "car"},
		{say: "book a test drive next friday at 10, Noor Ali noor@ali.ae", calls: []string{`go_to_test_drive {}`, `fill_form_data {"name":"Noor Ali","email":"noor@ali.ae","date":"2026-12-04","time":"10:00"}`}, on: "test-drive"},
		{say: "oh and please note i'll bring my wife", calls: []string{`fill_form_data {"name":"Noor Ali","email":"noor@ali.ae","date":"2026-12-04","time":"10:00","notes":"i'll bring my wife"}`}},
	}},
	{"a dead end's suggestion clicked opens that car, not the request before", "inventory", "", []siteTurn{
		{say: "suvs", calls: []string{`search_cars {"bodyType":"suv"}`}},
		{say: "do you offer extended warranty", reply: []string{"open the 2023 Toyota RAV4"}},
		{say: "open the 2023 Toyota RAV4", calls: []string{`select_car {"carId":"c01"}`}, not: []string{"Sorry", "not sure"}, on: "car"},
	}},
	{"what would the payments be, on a car's page", "inventory", "", []siteTurn{
		{say: "open the tacoma", calls: []string{`search_cars {}`, `select_car {"carId":"c18"}`}, on: "car"},
		{say: "what would the payments be", calls: []string{`go_to_financing {}`}, reply: []string{"2021 Toyota Tacoma", "60 months"}, on: "financing"},
		{say: "60", calls: []string{`calculate_payment {"termMonths":60}`}},
	}},
	{"is the camry one of them, and is it cheaper than the mustang", "inventory", "", []siteTurn{
		{say: "any hybrids?", calls: []string{`search_cars {"fuel":"hybrid"}`}},
		{say: "is the camry one of them", reply: []string{"Yes: the 2022 Toyota Camry is one of them"}, not: []string{"is Camry"}},
		{say: "open the miata", calls: []string{`search_cars {}`, `select_car {"carId":"c23"}`}, on: "car"},
		{say: "is it cheaper than the mustang", reply: []string{"2022 Mazda MX-5 Miata is the cheaper, at $27,900", "$29,900"}, not: []string{"is Mustang"}},
		{say: "is it a toyota", reply: []string{"No: the 2022 Mazda MX-5 Miata is Mazda."}},
		{say: "does it cost more than the civic", calls: []string{`get_price_summary {}`}, not: []string{"is Civic"}},
	}},
	{"a surname's initial with the e-mail, and weds", "test-drive", "c01", []siteTurn{
		{say: "weds at 4", reply: []string{"name and email"}, not: []string{"date"}},
		{say: "ron j ron@j.co", calls: []string{`fill_form_data {"name":"ron j","email":"ron@j.co","date":"2026-12-09","time":"16:00"}`}},
	}},
	{"a new search back on the list after a car's page, and ok", "inventory", "", []siteTurn{
		{say: "show me the teslas", calls: []string{`search_cars {"make":"Tesla"}`}},
		{say: "open the cheaper one", calls: []string{`select_car {"carId":"c12"}`}, on: "car"},
		{say: "back to the list", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "suvs under 30k", calls: []string{`search_cars {"bodyType":"suv","maxPrice":30000}`}, reply: []string{"2 cars"}},
		{say: "under 28k", calls: []string{`search_cars {"bodyType":"suv","maxPrice":28000}`}},
		{say: "ok", reply: []string{"OK. Anything else"}, not: []string{"Sorry"}},
	}},
	{"what's the rate again, and what was my monthly payment, from the booking page", "inventory", "", []siteTurn{
		{say: "open the explorer", calls: []string{`search_cars {}`, `select_car {"carId":"c03"}`}, on: "car"},
		{say: "whats the monthly with 3000 down", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "60", calls: []string{`calculate_payment {"downPayment":3000,"termMonths":60}`}},
		{say: "test drive sat 11", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "whats the interest rate again", reply: []string{"Earlier I said:", "6.9% APR"}, not: []string{"Total interest"}},
		{say: "what was my monthly payment", reply: []string{"Earlier I said: Monthly payment $669.66"}},
	}},
	{"does it come with a home charger: the charge package", "inventory", "", []siteTurn{
		{say: "open the model y", calls: []string{`search_cars {}`, `select_car {"carId":"c04"}`}, on: "car"},
		{say: "does it come with a home charger", reply: []string{"Yes: Home charger is one of the packages"}},
	}},
	{"I was wondering whether: a polite search and a polite new term", "inventory", "", []siteTurn{
		{say: "I was wondering whether you have any sedans under $30,000?", calls: []string{`search_cars {"bodyType":"sedan","maxPrice":30000}`}},
		{say: "open the camry", calls: []string{`select_car {"carId":"c09"}`}, on: "car"},
		{say: "Could you please calculate 48 months with $7,000 down at 5.9%?", calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":7000,"termMonths":48,"apr":5.9}`}, on: "financing"},
		{say: "I was wondering whether you could also show me 60 months?", calls: []string{`calculate_payment {"downPayment":7000,"termMonths":60,"apr":5.9}`}},
	}},
	{"compare them after a reply named three", "inventory", "", []siteTurn{
		{say: "Could you show me the three cheapest cars?", calls: []string{`sort_cars {"by":"price","order":"asc"}`}, reply: []string{"The 3 cheapest"}},
		{say: "Could you compare them please?", calls: []string{`compare_cars {"carIds":["c14","c16","c10"]}`}, on: "drawer"},
	}},
	{"a filter and its order in one polite sentence", "inventory", "", []siteTurn{
		{say: "Could you please show me the electric cars, sorted from cheapest to most expensive?", calls: []string{`search_cars {"fuel":"electric"}`, `sort_cars {"by":"price","order":"asc"}`}, reply: []string{"3 cars"}},
		{say: "electric cars sorted by price", calls: []string{`search_cars {"fuel":"electric"}`, `sort_cars {"by":"price"}`}, not: []string{"Which do you mean"}},
	}},
	{"the colours of the cheaper of two compared: its page", "inventory", "", []siteTurn{
		{say: "Compare the Mustang and the Miata.", calls: []string{`search_cars {}`, `compare_cars {"carIds":["c19","c23"]}`}, on: "drawer"},
		{say: "Could you tell me what colours the cheaper one comes in?", calls: []string{`select_car {"carId":"c23"}`}, reply: []string{"2022 Mazda MX-5 Miata", "red, white, gray or blue"}, on: "car"},
	}},
	{"open the cheaper one and book it for a day, then the details", "inventory", "", []siteTurn{
		{say: "Compare the Mustang and the Miata.", calls: []string{`search_cars {}`, `compare_cars {"carIds":["c19","c23"]}`}, on: "drawer"},
		{say: "Could you open the cheaper one and book a test drive for Saturday at 11?", calls: []string{`select_car {"carId":"c23"}`, `go_to_test_drive {}`}, reply: []string{"name and email"}, on: "test-drive"},
		{say: "Ahmed Karimi, ahmed.karimi@example.com", calls: []string{`fill_form_data {"name":"Ahmed Karimi","email":"ahmed.karimi@example.com","date":"2026-12-05","time":"11:00"}`}},
	}},
	{"a colour here, then the booking page for a day", "inventory", "", []siteTurn{
		{say: "Could you open the Model Y?", calls: []string{`search_cars {}`, `select_car {"carId":"c04"}`}, on: "car"},
		{say: "Could you make it blue and then take me to the test drive page for Sunday at 2pm?", calls: []string{`configure_car {"color":"blue"}`, `go_to_test_drive {}`}, reply: []string{"name and email"}, on: "test-drive"},
		{say: "Jo Kim jo@kim.io", calls: []string{`fill_form_data {"name":"Jo Kim","email":"jo@kim.io","date":"2026-12-06","time":"14:00"}`}},
	}},
	{"compare the first and the third one", "inventory", "", []siteTurn{
		{say: "Show me SUVs under $35,000 sorted by price.", calls: []string{`search_cars {"bodyType":"suv","maxPrice":35000}`, `sort_cars {"by":"price"}`}},
		{say: "Could you compare the first and the third one?", calls: []string{`compare_cars {"carIds":["c08","c01"]}`}, on: "drawer"},
	}},
	{"I think I'd prefer the Civic instead, could you open it: no 'can't do that' after opening it", "inventory", "", []siteTurn{
		{say: "Could you open the Camry?", calls: []string{`search_cars {}`, `select_car {"carId":"c09"}`}, on: "car"},
		{say: "Actually, I think I'd prefer the Civic instead. Could you open it for me?", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c10"}`}, reply: []string{"2023 Honda Civic"}, not: []string{"can't"}, on: "car"},
	}},
	{"compare all three on the list", "inventory", "", []siteTurn{
		{say: "what hybrids do you have", calls: []string{`search_cars {"fuel":"hybrid"}`}},
		{say: "compare all three", calls: []string{`compare_cars {"carIds":["c01","c07","c09"]}`}, on: "drawer"},
	}},
	{"another car for the same request: nvm, the civic", "inventory", "", []siteTurn{
		{say: "book a test drive of the ioniq 5", calls: []string{`search_cars {}`, `select_car {"carId":"c05"}`, `go_to_test_drive {}`}, on: "test-drive"},
		{say: "nvm, the civic", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c10"}`, `go_to_test_drive {}`}, reply: []string{"2023 Honda Civic"}, on: "test-drive"},
	}},
	{"what about the camry? and the civic: the same question of each", "inventory", "", []siteTurn{
		{say: "how much is the rav4", calls: []string{`search_cars {}`}, reply: []string{"$31,990"}},
		{say: "what about the camry?", reply: []string{"2022 Toyota Camry is $26,500"}},
		{say: "and the civic", reply: []string{"2023 Honda Civic is $23,900"}},
		{say: "what about the golf instead?", reply: []string{"2021 Volkswagen Golf is $21,900"}},
	}},
	{"is it a hybrid, asked of a car the list showed", "inventory", "", []siteTurn{
		{say: "show me hybrids", calls: []string{`search_cars {"fuel":"hybrid"}`}},
		{say: "is the rav4 electric", reply: []string{"No: the 2023 Toyota RAV4 is hybrid."}},
		{say: "is the camry a hybrid?", reply: []string{"Yes: the 2022 Toyota Camry is hybrid"}},
	}},
	{"two cars named with their makes, compared", "car", "c01", []siteTurn{
		{say: "compare the Toyota Camry and the Honda Civic",
			calls: []string{`back_to_inventory {}`, `search_cars {}`, `compare_cars {"carIds":["c09","c10"]}`}, reply: []string{"Comparing 2022 Toyota Camry, 2023 Honda Civic"}, on: "drawer"},
		{say: "which is cheaper?", reply: []string{"2023 Honda Civic is the cheaper"}},
		{say: "compare the Ford Mustang with the Mazda MX-5 Miata",
			calls: []string{`compare_cars {"carIds":["c19","c23"]}`}, reply: []string{"2020 Ford Mustang", "2022 Mazda MX-5 Miata"}},
	}},
	{"two cars compared in phone words: lower case, vs", "inventory", "", []siteTurn{
		{say: "compare camry and civic", calls: []string{`search_cars {}`, `compare_cars {"carIds":["c09","c10"]}`}, reply: []string{"Comparing 2022 Toyota Camry, 2023 Honda Civic"}, on: "drawer"},
		{say: "rav4 vs cr-v", calls: []string{`compare_cars {"carIds":["c01","c02"]}`}, reply: []string{"Comparing 2023 Toyota RAV4, 2022 Honda CR-V"}},
	}},
	{"the first two of the list, after the question named three for example", "inventory", "", []siteTurn{
		{say: "show me sedans", calls: []string{`search_cars {"bodyType":"sedan"}`}},
		{say: "compare them", reply: []string{"Which 2 to 3", "For example"}},
		{say: "the first two", calls: []string{`compare_cars {"carIds":["c09","c10"]}`}, reply: []string{"Comparing 2022 Toyota Camry, 2023 Honda Civic."}, on: "drawer"},
	}},
	{"a booking from the list: the car's id is nobody's name", "inventory", "", []siteTurn{
		{say: "book a test drive of the camry saturday 11",
			calls: []string{`search_cars {}`, `select_car {"carId":"c09"}`, `go_to_test_drive {}`}, reply: []string{"name", "email"}, on: "test-drive"},
		{say: "my email is ana@b.co", reply: []string{"name"}, not: []string{"c09", "Filled"}},
		{say: "name kim lee", calls: []string{`fill_form_data {"name":"kim lee","email":"ana@b.co","date":"2026-12-05","time":"11:00"}`}},
		{say: "sorry, Chris P, chris@p.com",
			calls: []string{`fill_form_data {"name":"Chris P","email":"chris@p.com","date":"2026-12-05","time":"11:00"}`}},
		{say: "name dana wu", calls: []string{`fill_form_data {"name":"dana wu","email":"chris@p.com","date":"2026-12-05","time":"11:00"}`}},
	}},
	{"money down said short, from the car's page", "car", "c02", []siteTurn{
		{say: "i'd like to put 3000 down", calls: []string{`go_to_financing {}`}, reply: []string{"48 months"}, on: "financing"},
		{say: "48", calls: []string{`calculate_payment {"downPayment":3000,"termMonths":48}`}, reply: []string{"down $3,000"}},
		{say: "5k dn", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":48}`}, reply: []string{"price $29,450, down $5,000"}},
	}},
	{"a share down after the price, from the car's page", "car", "c03", []siteTurn{
		{say: "whats the price now", calls: []string{`get_price_summary {}`}, reply: []string{"$36,900"}},
		{say: "can i put 20% down", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "over 48 months", calls: []string{`calculate_payment {"downPayment":7380,"termMonths":48}`}, reply: []string{"down $7,380"}},
	}},
	{"a package priced, then added with another", "car", "c05", []siteTurn{
		{say: "how much with the roof package", calls: []string{`configure_car {"packages":["roof"]}`}, reply: []string{"total $42,600"}},
		{say: "ok add that and the safety one", calls: []string{`configure_car {"packages":["roof","safety"]}`}, reply: []string{"total $44,100"}},
	}},
	{"hybrids compared in short words, then a drive of the cheaper one", "inventory", "", []siteTurn{
		{say: "hybrids", calls: []string{`search_cars {"fuel":"hybrid"}`}},
		{say: "compare em", calls: []string{`compare_cars {"carIds":["c01","c07","c09"]}`}, on: "drawer"},
		{say: "test drive the cheaper one fri 10", calls: []string{`select_car {"carId":"c09"}`, `go_to_test_drive {}`},
			reply: []string{"2022 Toyota Camry", "name and email"}, on: "test-drive"},
		{say: "Bo Li bo@li.cn", calls: []string{`fill_form_data {"name":"Bo Li","email":"bo@li.cn","date":"2026-12-04","time":"10:00"}`}},
	}},
	{"the diff in price of two cars named", "inventory", "", []siteTurn{
		{say: "whats the diff in price between the camry and the rav4", calls: []string{`search_cars {}`}, reply: []string{"a difference of $5,490"}},
	}},
	{"what is available, asked while the form asks for a time", "car", "c18", []siteTurn{
		{say: "i'd like to test drive it on dec 9 in the afternoon", calls: []string{`go_to_test_drive {}`}, reply: []string{"13:00, 14:00, 15:00, 16:00"}, on: "test-drive"},
		{say: "whats available", reply: []string{"13:00, 14:00, 15:00, 16:00"}, not: []string{"Opening", "inventory"}},
		{say: "2pm", reply: []string{"name and email"}},
		{say: "Rob Stone rob@stone.co", calls: []string{`fill_form_data {"name":"Rob Stone","email":"rob@stone.co","date":"2026-12-09","time":"14:00"}`}},
	}},
	{"more of the cheapest asked for than match", "inventory", "", []siteTurn{
		{say: "4 cheapest hybrids pls", calls: []string{`search_cars {"fuel":"hybrid"}`, `sort_cars {"by":"price","order":"asc"}`},
			reply: []string{"Only 3 cars match. The 3 cheapest are the 2022 Toyota Camry"}},
	}},
	{"goodbyes in other words", "test-drive", "c14", []siteTurn{
		{say: "ok bye", reply: []string{"Goodbye"}},
		{say: "thanks, bye", reply: []string{"Goodbye"}},
		{say: "that's all", reply: []string{"Goodbye"}},
		{say: "thanks, that's all", reply: []string{"Goodbye"}},
		{say: "that's it, thanks", reply: []string{"Goodbye"}},
		{say: "I'm done.", reply: []string{"Goodbye"}},
	}},
	{"a feature nothing on the page tells: not known, not refused", "car", "c05", []siteTurn{
		{say: "does it have a heated steering wheel", reply: []string{"I can't tell", "configure car"}, not: []string{"Sorry"}},
		{say: "does it come with a warranty?", reply: []string{"I can't tell"}, not: []string{"Sorry"}},
		{say: "can I pay in bitcoin?", reply: []string{"Sorry, I can't help with that"}},
	}},
	{"a change of day said with the day of the month, not an hour", "car", "c03", []siteTurn{
		{say: "book a test drive on friday at 10", calls: []string{`go_to_test_drive {}`}, reply: []string{"name", "email"}, on: "test-drive"},
		{say: "actually make it december 12 instead", reply: []string{"name", "email"}, not: []string{"12:00"}},
		{say: "Ann Lee, ann@lee.io",
			calls: []string{`fill_form_data {"name":"Ann Lee","email":"ann@lee.io","date":"2026-12-12","time":"10:00"}`}, reply: []string{"December 12"}},
		{say: "no wait, the 14th instead",
			calls: []string{`fill_form_data {"name":"Ann Lee","email":"ann@lee.io","date":"2026-12-14","time":"10:00"}`}, reply: []string{"December 14"}},
	}},
	{"a filter asked of the cars just named, not of the whole list", "inventory", "", []siteTurn{
		{say: "show me the 3 cheapest", calls: []string{`sort_cars {"by":"price","order":"asc"}`}, reply: []string{"Golf", "Civic"}},
		{say: "which of them are hybrids", reply: []string{"None of those 3 is hybrid", "Civic is gasoline"}, not: []string{"Camry", "Showing"}},
		{say: "are any of them hatchbacks?", reply: []string{"2 of those 3", "Golf", "Corolla Hatchback"}, not: []string{"Mazda3", "Showing"}},
		{say: "do they come in blue", reply: []string{"doesn't show their color", "open the 2021 Volkswagen Golf"}, not: []string{"Showing"}},
		{click: 1, calls: []string{`select_car {"carId":"c13"}`}, on: "car"},
	}},
	{"the cars to compare, asked for, then given by their places", "inventory", "", []siteTurn{
		{say: "show me suvs", calls: []string{`search_cars {"bodyType":"suv"}`}, reply: []string{"Showing 7 cars"}},
		{say: "compare them", reply: []string{"Which 2 to 3"}},
		{say: "the second and the fourth", calls: []string{`compare_cars {"carIds":["c02","c04"]}`},
			reply: []string{"Comparing 2022 Honda CR-V, 2023 Tesla Model Y"}, not: []string{"not sure", "Should I"}, on: "drawer"},
	}},
	{"two questions in one message, each answered", "car", "c01", []siteTurn{
		{say: "How much is this car, and does it come in red?", calls: []string{`get_price_summary {}`},
			reply: []string{"Base $31,990", "Yes: the color can be red"}, not: []string{"Configured"}},
	}},
	{"two short questions of a car's choices", "car", "c01", []siteTurn{
		{say: "which trims are there? what packages?", reply: []string{"LE, XLE or Limited", "Winter package, Technology package and Panoramic roof"}},
		{say: "the tech one", calls: []string{`configure_car {"packages":["tech"]}`}},
	}},
	{"its colour asked or chosen away from its page: its page", "inventory", "", []siteTurn{
		{say: "open the golf", calls: []string{`search_cars {}`, `select_car {"carId":"c14"}`}, on: "car"},
		{say: "book a test drive", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "is it available in red", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c14"}`},
			reply: []string{"Yes: the color can be red"}, not: []string{"I can't tell"}, on: "car"},
		{say: "go to financing", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "what's the APR on this", not: []string{"Opening"}},
		{say: "i want it in blue", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c14"}`, `configure_car {"color":"blue"}`},
			reply: []string{"Configured", "blue"}, on: "car"},
	}},
	{"a trim whose name has a place's word in it configures, and goes nowhere", "car", "c20", []siteTurn{
		{say: "ok blue then, with the xdrive trim", calls: []string{`configure_car {"color":"blue","trim":"xDrive"}`},
			reply: []string{"xDrive trim", "blue"}, not: []string{"test-drive booking"}},
	}},
	{"a drive of a car with a hyphen in its name, from another car's calculator", "financing", "c18", []siteTurn{
		{say: "i'd rather test drive the f-150 saturday at 10",
			calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c17"}`, `go_to_test_drive {}`},
			reply: []string{"Ford F-150", "name and email"}, not: []string{"Tacoma"}, on: "test-drive"},
		{say: "Al Ng, al@ng.io", calls: []string{`fill_form_data {"name":"Al Ng","email":"al@ng.io","date":"2026-12-05","time":"10:00"}`}},
	}},
	{"more cars asked for by count than match", "inventory", "", []siteTurn{
		{say: "show me 4 electric cars", calls: []string{`search_cars {"fuel":"electric"}`}, reply: []string{"Only 3 cars match.", "Tesla Model 3"}},
		{say: "show me 5 suvs under 30k", calls: []string{`search_cars {"bodyType":"suv","maxPrice":30000}`}, reply: []string{"Only 2 cars match.", "Sportage"}},
		{say: "2 hatchbacks please", calls: []string{`search_cars {"bodyType":"hatchback"}`}, not: []string{"Only"}},
	}},
	{"a trim that exists, asked in a colour that does not", "car", "c11", []siteTurn{
		{say: "is the m sport available in red", reply: []string{"No, not in red", "black, white, blue or gray"}, not: []string{"Yes"}},
		{say: "is the m sport available in blue", reply: []string{"Yes"}},
	}},
	{"a rate said as a bare figure after at, then asked back", "car", "c20", []siteTurn{
		{say: "what's the monthly on that over 60 months with 5k down, at 4.9",
			calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":5000,"termMonths":60,"apr":4.9}`}, reply: []string{"4.9% APR"}, on: "financing"},
		{say: "what's the rate you used", reply: []string{"4.9% APR"}, not: []string{"Sorry"}},
		{say: "and at 72?", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":72,"apr":4.9}`}},
	}},
	{"a payment asked with a trim, on the car's page: the trim, then its calculator", "car", "c15", []siteTurn{
		{say: "whats the payment with the turbo trim", calls: []string{`configure_car {"trim":"Turbo"}`, `go_to_financing {}`},
			reply: []string{"$29,100", "48 months"}, on: "financing"},
		{say: "48 months", calls: []string{`calculate_payment {"termMonths":48}`}, reply: []string{"price $29,100"}},
	}},
	{"a payment asked with a trim, in a long sentence", "car", "c15", []siteTurn{
		{say: "I'd like to see what the payment would be on this with the turbo trim", calls: []string{`configure_car {"trim":"Turbo"}`, `go_to_financing {}`},
			reply: []string{"48 months"}, not: []string{"Sorry"}, on: "financing"},
	}},
	{"a drive asked for after a greeting and what the visitor is looking at", "inventory", "", []siteTurn{
		{say: "hi! i'm looking at the kia sportage, could i book a test drive for next thursday around 10am?",
			calls: []string{`search_cars {}`, `select_car {"carId":"c08"}`, `go_to_test_drive {}`}, reply: []string{"Kia Sportage", "name and email"}, on: "test-drive"},
		{say: "Tess Ng, tess@ng.co", calls: []string{`fill_form_data {"name":"Tess Ng","email":"tess@ng.co","date":"2026-12-03","time":"10:00"}`}},
	}},
	{"a change of mind to the day the booking already has", "car", "c08", []siteTurn{
		{say: "book it for tomorrow at 3pm", calls: []string{`go_to_test_drive {}`}, reply: []string{"name and email"}, on: "test-drive"},
		{say: "actually make it thursday", reply: []string{"name and email"}, not: []string{"time"}},
		{say: "Tess Ng tess@ng.co", calls: []string{`fill_form_data {"name":"Tess Ng","email":"tess@ng.co","date":"2026-12-03","time":"15:00"}`}},
	}},
	{"the earliest of the afternoon, then the earliest of a day booked for", "financing", "c22", []siteTurn{
		{say: "book a test drive for the weekend", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "saturday afternoon", reply: []string{"13:00, 14:00, 15:00, 16:00"}},
		{say: "earliest", reply: []string{"The earliest time is 13:00", "name and email"}, not: []string{"09:00"}},
		{say: "whats the earliest on monday", reply: []string{"The earliest time is 09:00", "name and email"}},
		{say: "ok book that for Eli Roth eli@roth.com", calls: []string{`fill_form_data {"name":"Eli Roth","email":"eli@roth.com","date":"2026-12-07","time":"09:00"}`}},
	}},
	{"typing slips", "inventory", "", []siteTurn{
		{say: "hybird suvs", calls: []string{`search_cars {"bodyType":"suv","fuel":"hybrid"}`}},
		{say: "compair them", calls: []string{`compare_cars {"carIds":["c01","c07"]}`}, on: "drawer"},
		{say: "whats the diffrence in price", reply: []string{"a difference of $12,910"}, not: []string{"Sorry"}},
		{say: "open the cheapr one", calls: []string{`select_car {"carId":"c01"}`}, on: "car"},
		{say: "limted trim pls", calls: []string{`configure_car {"trim":"Limited"}`}, not: []string{"There is no"}},
	}},
	{"a long polite question with a trim, an amount in words and a term, then follow-ups", "car", "c09", []siteTurn{
		{say: "hello, I was wondering whether it would be possible to see the monthly payments on this Camry if I went for the XLE trim and put about three thousand dollars down over five years?",
			calls: []string{`configure_car {"trim":"XLE"}`, `go_to_financing {}`, `calculate_payment {"downPayment":3000,"termMonths":60}`},
			reply: []string{"price $30,700, down $3,000"}, on: "financing"},
		{say: "and what would that be over six years instead?", calls: []string{`calculate_payment {"downPayment":3000,"termMonths":72}`}},
		{say: "and what does the total interest come to?", reply: []string{"Total interest $6,206.85"}, not: []string{"Should I"}},
	}},
	{"an amount in dollars before down", "financing", "c09", []siteTurn{
		{say: "put about 3000 dollars down over five years", calls: []string{`calculate_payment {"downPayment":3000,"termMonths":60}`}},
	}},
	{"back to the car from its calculator", "inventory", "", []siteTurn{
		{say: "open the civic", calls: []string{`search_cars {}`, `select_car {"carId":"c10"}`}, on: "car"},
		{say: "go to financing", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "what trims are there", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c10"}`}, reply: []string{"LX, Sport or Touring"}, on: "car"},
		{say: "go to financing", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "do you take trade ins", reply: []string{"“back to the car”"}},
		{click: 2, calls: []string{`back_to_inventory {}`, `select_car {"carId":"c10"}`}, on: "car"},
		{say: "go to financing", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "let me see the car", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c10"}`}, on: "car"},
	}},
	{"the cheapest or dearest of choices that have no prices", "car", "c03", []siteTurn{
		{say: "whats the most expensive trim", reply: []string{"Nothing here says which trim is most expensive", "XLT, Limited or Platinum"}, not: []string{"There is no"}},
		{say: "which trim is cheapest", reply: []string{"Nothing here says which trim is cheapest"}},
	}},
	{"a package priced, then added", "car", "c04", []siteTurn{
		{say: "what does the towing package cost", reply: []string{"shows what the Towing package costs once it is added", "“add the tow package”"}},
		{say: "add it", calls: []string{`configure_car {"packages":["tow"]}`}, reply: []string{"Towing package $1,200"}},
		{say: "add it", reply: []string{"The tow package is already added."}, not: []string{"Sorry"}},
	}},
	{"a car the site does not have, named in lower case to compare", "car", "c11", []siteTurn{
		{say: "compare it with the mercedes c-class", calls: []string{`back_to_inventory {}`, `search_cars {}`},
			reply: []string{"There is no mercedes c-class among the 24 cars here."}, not: []string{"Sorry"}, on: "inventory"},
	}},
	{"a drive asked for on the calculator with the details: never an application", "financing", "c03", []siteTurn{
		{say: "60 months 5k down", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":60}`}},
		{say: "book it tomorrow at 11, i'm raj das raj@das.in",
			calls: []string{`go_to_test_drive {}`, `fill_form_data {"name":"raj das","email":"raj@das.in","date":"2026-12-03","time":"11:00"}`},
			not:   []string{"Application"}, on: "test-drive"},
	}},
	{"seeing the car in person, said with the details on the calculator", "financing", "c08", []siteTurn{
		{say: "im mia ko mia@ko.org and i want to see it in person saturday at 10",
			calls: []string{`go_to_test_drive {}`, `fill_form_data {"name":"mia ko","email":"mia@ko.org","date":"2026-12-05","time":"10:00"}`},
			not:   []string{"Application"}, on: "test-drive"},
	}},
	{"a count of people is no count of cars", "inventory", "", []siteTurn{
		{say: "i want something for a family of 6 under 40k", calls: []string{`search_cars {"bodyType":"suv","maxPrice":40000}`}, not: []string{"Only"}},
	}},
	{"more of them asked than there are", "inventory", "", []siteTurn{
		{say: "anything under 23k", calls: []string{`search_cars {"maxPrice":23000}`}},
		{say: "show me 4 of them", reply: []string{"Only 2 cars match: the 2021 Volkswagen Golf and the 2022 Toyota Corolla Hatchback."}},
	}},
	{"a day typed short", "car", "c06", []siteTurn{
		{say: "book a test drive for it thurs 3pm", calls: []string{`go_to_test_drive {}`}, reply: []string{"name and email"}, not: []string{"date"}, on: "test-drive"},
		{say: "Al Ng, al@ng.io", calls: []string{`fill_form_data {"name":"Al Ng","email":"al@ng.io","date":"2026-12-03","time":"15:00"}`}},
		{say: "actually tues at 11", calls: []string{`fill_form_data {"name":"Al Ng","email":"al@ng.io","date":"2026-12-08","time":"11:00"}`}},
	}},
	{"tomorrow typed with a 2", "car", "c01", []siteTurn{
		{say: "test drive 2moro at 9", calls: []string{`go_to_test_drive {}`}, reply: []string{"name and email"}, not: []string{"date"}, on: "test-drive"},
		{say: "Al Ng, al@ng.io", calls: []string{`fill_form_data {"name":"Al Ng","email":"al@ng.io","date":"2026-12-03","time":"09:00"}`}},
	}},
	{"a free afternoon said on the calculator", "financing", "c22", []siteTurn{
		{say: "im free tmrw afternoon", calls: []string{`go_to_test_drive {}`}, reply: []string{"13:00, 14:00, 15:00, 16:00"}, on: "test-drive"},
		{say: "1", reply: []string{"name and email"}, not: []string{"date", "time"}},
		{say: "Al Ng, al@ng.io", calls: []string{`fill_form_data {"name":"Al Ng","email":"al@ng.io","date":"2026-12-03","time":"13:00"}`}},
	}},
	{"short words for packages and miles", "inventory", "", []siteTurn{
		{say: "hybrids", calls: []string{`search_cars {"fuel":"hybrid"}`}},
		{say: "sort by miles", calls: []string{`sort_cars {"by":"mileage"}`}},
		{say: "open the camry", calls: []string{`select_car {"carId":"c09"}`}, on: "car"},
		{say: "pkgs?", reply: []string{"The packages to choose from"}},
	}},
	{"the cheapest of a kind under a price, and its monthly figure, in one message", "inventory", "", []siteTurn{
		{say: "cheapest suv under 35k, what would it be a month on 60 months with 3k down",
			calls: []string{`search_cars {"bodyType":"suv","maxPrice":35000}`, `sort_cars {"by":"price","order":"asc"}`, `select_car {"carId":"c08"}`,
				`go_to_financing {}`, `calculate_payment {"downPayment":3000,"termMonths":60}`},
			reply: []string{"price $27,800, down $3,000"}, not: []string{"Golf"}, on: "financing"},
	}},
	{"another car named on a calculator, with the term", "financing", "c05", []siteTurn{
		{say: "what about the tesla model y at 48 months",
			calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c04"}`, `go_to_financing {}`, `calculate_payment {"termMonths":48}`},
			reply: []string{"price $46,990"}, on: "financing"},
	}},
	{"the same terms for another car", "inventory", "", []siteTurn{
		{say: "electric cars", calls: []string{`search_cars {"fuel":"electric"}`}},
		{say: "open the ioniq", calls: []string{`select_car {"carId":"c05"}`}, on: "car"},
		{say: "go to financing", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "48 months", calls: []string{`calculate_payment {"termMonths":48}`}},
		{say: "and on the model 3, same terms?",
			calls: []string{`back_to_inventory {}`, `select_car {"carId":"c12"}`, `go_to_financing {}`, `calculate_payment {"termMonths":48}`},
			reply: []string{"price $35,990"}, on: "financing"},
	}},
	{"a price asked with a package, from the list", "inventory", "", []siteTurn{
		{say: "show me 5 convertibles", calls: []string{`search_cars {"bodyType":"convertible"}`}, reply: []string{"Only 2 cars match."}},
		{say: "the cheaper one", reply: []string{"Miata is the cheaper"}},
		{say: "whats its price with sound package", calls: []string{`select_car {"carId":"c23"}`, `configure_car {"packages":["sound"]}`},
			reply: []string{"total $29,000"}, on: "car"},
	}},
	{"every package offered, taken at once", "car", "c10", []siteTurn{
		{say: "pkgs?", reply: []string{"Technology package and Sport package"}},
		{say: "add both", calls: []string{`configure_car {"packages":["tech","sport"]}`}, reply: []string{"total $27,900"}},
	}},
	{"all of the packages offered", "car", "c01", []siteTurn{
		{say: "what packages are there", reply: []string{"Winter package, Technology package and Panoramic roof"}},
		{say: "all of them", calls: []string{`configure_car {"packages":["winter","tech","roof"]}`}},
	}},
	{"figures for one of several cars listed: which, then that one's", "inventory", "", []siteTurn{
		{say: "show me the bmws", calls: []string{`search_cars {"make":"BMW"}`}},
		{say: "ok and what would that be per month over 4 years", reply: []string{"Which car is it for", "430i", "330i"}, not: []string{"Monthly payment"}},
		{say: "the 430i", calls: []string{`select_car {"carId":"c24"}`, `go_to_financing {}`, `calculate_payment {"termMonths":48}`}, on: "financing"},
	}},
	{"a monthly figure of a car not listed yet", "inventory", "", []siteTurn{
		{say: "whats the monthly on the tacoma", calls: []string{`search_cars {}`, `select_car {"carId":"c18"}`, `go_to_financing {}`},
			reply: []string{"Compute the monthly loan payment: 24 months, 36 months, 48 months, 60 months or 72 months?"}, on: "financing"},
		{say: "60", calls: []string{`calculate_payment {"termMonths":60}`}},
		{say: "how about with 5k down", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":60}`}},
	}},
	{"a payment of a car not listed yet", "inventory", "", []siteTurn{
		{say: "payment on the tacoma", calls: []string{`search_cars {}`, `select_car {"carId":"c18"}`, `go_to_financing {}`},
			reply: []string{"48 months"}, on: "financing"},
	}},
	{"a drive with the day and the details said the long way", "inventory", "", []siteTurn{
		{say: "i want to test drive the mustang next saturday at 3pm, my name is rob fox and email rob@fox.com",
			calls: []string{`search_cars {}`, `select_car {"carId":"c19"}`, `go_to_test_drive {}`, `fill_form_data {"name":"rob fox","email":"rob@fox.com","date":"2026-12-05","time":"15:00"}`},
			on:    "test-drive"},
	}},
	{"a one-word question of the car's choices", "inventory", "", []siteTurn{
		{say: "open the tacoma", calls: []string{`search_cars {}`, `select_car {"carId":"c18"}`}, on: "car"},
		{say: "colours", reply: []string{"gray, white, red or green"}},
	}},
	{"a term said with the payment, back from the booking page", "inventory", "", []siteTurn{
		{say: "open the camry", calls: []string{`search_cars {}`, `select_car {"carId":"c09"}`}, on: "car"},
		{say: "financing", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "36", calls: []string{`calculate_payment {"termMonths":36}`}},
		{say: "ok book a test drive tmrw at 9", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "and whats the payment at 48 instead", calls: []string{`go_to_financing {}`, `calculate_payment {"termMonths":48}`}, on: "financing"},
	}},
	{"an application with a label, then a drive with the same details", "inventory", "", []siteTurn{
		{say: "open the volvo", calls: []string{`search_cars {"make":"Volvo"}`, `select_car {"carId":"c07"}`}, on: "car"},
		{say: "financing", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "apply: jan ito, jan@ito.jp, 90k a year", calls: []string{`apply_for_financing {"fullName":"jan ito","email":"jan@ito.jp","annualIncome":90000}`},
			reply: []string{"FN-12345"}},
		{say: "test drive it fri at noon", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "1pm", calls: []string{`fill_form_data {"name":"jan ito","email":"jan@ito.jp","date":"2026-12-04","time":"13:00"}`}},
		{say: "jan ito jan@ito.jp", calls: []string{`fill_form_data {"name":"jan ito","email":"jan@ito.jp","date":"2026-12-04","time":"13:00"}`}, on: "test-drive"},
	}},
	{"the one car of a make on screen", "inventory", "", []siteTurn{
		{say: "convertibles", calls: []string{`search_cars {"bodyType":"convertible"}`}},
		{say: "the bmw", calls: []string{`select_car {"carId":"c24"}`}, on: "car"},
	}},
	{"a ranking whose bound comes after a comma", "inventory", "", []siteTurn{
		{say: "cheapest suv, under 35k", calls: []string{`search_cars {"bodyType":"suv","maxPrice":35000}`, `sort_cars {"by":"price","order":"asc"}`},
			reply: []string{"Kia Sportage"}},
	}},
	// Pages the visitor reached by a link, not through the conversation: the page's address
	// (in the agent's instructions) names the car.
	{"a booking page reached by a link: it is that car", "test-drive", "c01", []siteTurn{
		{say: "which car is this for?", reply: []string{"It is the 2023 Toyota RAV4."}},
		{say: "what trims does it have", calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c01"}`},
			reply: []string{"LE, XLE or Limited"}, on: "car"},
	}},
	{"a booking page reached by a link: its price, and another car's", "test-drive", "c07", []siteTurn{
		{say: "how much is it", calls: []string{`back_to_inventory {}`, `search_cars {}`}, reply: []string{"The 2022 Volvo XC60 is $44,900."}, on: "inventory"},
		{say: "go to its test drive page", calls: []string{`select_car {"carId":"c07"}`, `go_to_test_drive {}`}, on: "test-drive"},
		{say: "is it cheaper than the civic", reply: []string{"The 2023 Honda Civic is the cheaper, at $23,900 (the 2022 Volvo XC60 is $44,900)."}, on: "test-drive"},
	}},
	{"a booking page reached by a link, asked of another car at once", "test-drive", "c07", []siteTurn{
		{say: "is it cheaper than the civic", calls: []string{`back_to_inventory {}`, `search_cars {}`},
			reply: []string{"The 2023 Honda Civic is the cheaper, at $23,900 (the 2022 Volvo XC60 is $44,900)."}, on: "inventory"},
	}},
	{"a calculator reached by a link: back to its car", "financing", "c05", []siteTurn{
		{say: "take me back to the car", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c05"}`}, reply: []string{"2023 Hyundai Ioniq 5"}, on: "car"},
	}},
	{"a calculator reached by a link: its colour chosen on its page", "financing", "c02", []siteTurn{
		{say: "i want it in blue", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c02"}`, `configure_car {"color":"blue"}`}, on: "car"},
	}},
	{"a car's page reached by a link, compared with another", "car", "c01", []siteTurn{
		{say: "compare it with the civic", calls: []string{`back_to_inventory {}`, `search_cars {}`, `compare_cars {"carIds":["c10","c01"]}`}, on: "drawer"},
	}},
	{"a calculator reached by a link: its car, figures, then its colours", "financing", "c11", []siteTurn{
		{say: "what car is this calculator for", reply: []string{"It is the 2021 BMW 330i."}},
		{say: "what would i pay monthly with 5k down over 5 years", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":60}`}},
		{say: "what colours does it come in", calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c11"}`},
			reply: []string{"black, white, blue or gray"}, on: "car"},
	}},
	{"a calculator reached by a link: its car named", "financing", "c23", []siteTurn{
		{say: "hows much per month for this over 3 yrs", calls: []string{`calculate_payment {"termMonths":36}`}},
		{say: "what colors does the miata come in", calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c23"}`},
			reply: []string{"red, white, gray or blue"}, on: "car"},
	}},
	{"a booking page reached by a link: which car, and its price", "test-drive", "c16", []siteTurn{
		{say: "which car am i booking", reply: []string{"It is the 2022 Toyota Corolla Hatchback."}},
		{say: "whats the price", calls: []string{`back_to_inventory {}`, `search_cars {}`}, reply: []string{"The 2022 Toyota Corolla Hatchback is $22,400."}, on: "inventory"},
	}},
	{"a car's page reached by a link, named", "car", "c09", []siteTurn{
		{say: "tell me more about the Camry", calls: []string{`get_price_summary {}`}, reply: []string{"2022 Toyota Camry"}},
		{say: "compare the camry with the civic", calls: []string{`back_to_inventory {}`, `search_cars {}`, `compare_cars {"carIds":["c09","c10"]}`}, on: "drawer"},
	}},
	{"an order said as what comes first, with filters", "inventory", "", []siteTurn{
		{say: "suvs, newest first", calls: []string{`search_cars {"bodyType":"suv"}`, `sort_cars {"by":"year","order":"desc"}`}},
		{say: "gas sedans under 30 grand, lowest miles first",
			calls: []string{`search_cars {"bodyType":"sedan","fuel":"gasoline","maxPrice":30000}`, `sort_cars {"by":"mileage","order":"asc"}`}},
		{say: "open the top one", calls: []string{`select_car {"carId":"c10"}`}, on: "car"},
	}},
	{"a car opened with other words", "inventory", "", []siteTurn{
		{say: "electric cars", calls: []string{`search_cars {"fuel":"electric"}`}},
		{say: "Thank you. I'd like to look at the Ioniq more closely.", calls: []string{`select_car {"carId":"c05"}`}, not: []string{"either"}, on: "car"},
	}},
	{"a car opened with a question asked with it", "inventory", "", []siteTurn{
		{say: "minivans", calls: []string{`search_cars {"bodyType":"minivan"}`}},
		{say: "ok lets go with the odyssey, what colours can i get it in", calls: []string{`select_car {"carId":"c22"}`},
			reply: []string{"The color can be silver, white, gray or blue."}, not: []string{"either"}, on: "car"},
	}},
	{"back to a car named, after comparing it", "car", "c03", []siteTurn{
		{say: "compare it with the odyssey", calls: []string{`back_to_inventory {}`, `search_cars {}`, `compare_cars {"carIds":["c22","c03"]}`}, on: "drawer"},
		{say: "which one is cheaper", reply: []string{"The 2022 Honda Odyssey is the cheaper"}},
		{say: "ok back to the explorer", calls: []string{`select_car {"carId":"c03"}`}, on: "car"},
	}},
	{"a note cued with also", "car", "c04", []siteTurn{
		{say: "please fill in Tia Ro tia@ro.io for saturday at 10",
			calls: []string{`go_to_test_drive {}`, `fill_form_data {"name":"Tia Ro","email":"tia@ro.io","date":"2026-12-05","time":"10:00"}`}, on: "test-drive"},
		{say: "please also note i want to try autopilot",
			calls: []string{`fill_form_data {"name":"Tia Ro","email":"tia@ro.io","date":"2026-12-05","time":"10:00","notes":"i want to try autopilot"}`}},
	}},
	{"a price asked in everyday words", "car", "c17", []siteTurn{
		{say: "whats this go for", calls: []string{`get_price_summary {}`}},
		{say: "whats the sticker price", calls: []string{`get_price_summary {}`}},
	}},
	{"a visit asked for with a part of a day, politely, from the car's page", "car", "c07", []siteTurn{
		{say: "I'd like to come Friday afternoon if possible.", calls: []string{`go_to_test_drive {}`}, reply: []string{"13:00, 14:00, 15:00, 16:00"}, on: "test-drive"},
		{say: "the earliest please, I'm Lou Bay, lou@bay.com",
			calls: []string{`fill_form_data {"name":"Lou Bay","email":"lou@bay.com","date":"2026-12-04","time":"13:00"}`}},
	}},
	{"the day after tomorrow, from the calculator", "financing", "c01", []siteTurn{
		{say: "book a test drive for the day after tomorrow at 4pm", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "Ann Ho ann@ho.io", calls: []string{`fill_form_data {"name":"Ann Ho","email":"ann@ho.io","date":"2026-12-04","time":"16:00"}`}},
	}},
	{"a trim written with a hyphen", "car", "c02", []siteTurn{
		{say: "the ex-l trim please", calls: []string{`configure_car {"trim":"EX-L"}`}},
	}},
	{"a need, then a question about the car", "car", "c17", []siteTurn{
		{say: "hi, i need something that can tow. does this come with a towing package?", reply: []string{"Yes: Towing package is one of the packages"}, not: []string{"Configured"}},
	}},
	{"a body type chosen by its word after a make's list", "inventory", "", []siteTurn{
		{say: "show me all bmws", calls: []string{`search_cars {"make":"BMW"}`}},
		{say: "the convertible, what colors", calls: []string{`select_car {"carId":"c24"}`}, reply: []string{"white, black, blue or silver"}, on: "car"},
		{say: "the coupe then, how much per month over 48 months",
			calls: []string{`back_to_inventory {}`, `select_car {"carId":"c20"}`, `go_to_financing {}`, `calculate_payment {"termMonths":48}`}, on: "financing"},
	}},
	{"a dead end's suggestion is no choice of car", "inventory", "", []siteTurn{
		{say: "show me suvs", calls: []string{`search_cars {"bodyType":"suv"}`}},
		{say: "can I pay in bitcoin?", reply: []string{"“open the 2023 Toyota RAV4”"}},
		{say: "book a drive fri", not: []string{"test-drive booking page"}, on: "inventory"},
	}},
	{"a car's page reached by a link: compared with a car named alone, then financed by its make", "car", "c11", []siteTurn{
		{say: "compare with the audi a4", calls: []string{`back_to_inventory {}`, `search_cars {}`, `compare_cars {"carIds":["c13","c11"]}`}, on: "drawer"},
		{say: "ok the bmw, finance it 20% down 60 months",
			calls: []string{`select_car {"carId":"c11"}`, `go_to_financing {}`, `calculate_payment {"downPayment":6960,"termMonths":60}`}, on: "financing"},
	}},
	{"details and a monthly question on the calculator: no application unasked", "financing", "c05", []siteTurn{
		{say: "60 months", calls: []string{`calculate_payment {"termMonths":60}`}},
		{say: "my name is ann lee ann@lee.io, i earn 80k, whats the monthly", reply: []string{"Should I submit a financing application"}, not: []string{"submitted"}},
	}},
	{"a choice of a comparison names its cars, not their ids", "car", "c19", []siteTurn{
		{say: "which is faster, this or the bmw m240i", calls: []string{`back_to_inventory {}`, `search_cars {}`},
			reply: []string{"(2022 BMW M240i Coupe and 2020 Ford Mustang)"}, not: []string{"car ids"}, on: "inventory"},
	}},
	{"a month written mo after a", "car", "c01", []siteTurn{
		{say: "whats it a mo", calls: []string{`go_to_financing {}`}, on: "financing"},
	}},
	{"a drive booked from the calculator by a visitor named mo: never an application", "car", "c10", []siteTurn{
		{say: "how much is the civic with the touring trim", calls: []string{`configure_car {"trim":"Touring"}`}},
		{say: "and per month over 60 months with 2k down", calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":2000,"termMonths":60}`}, on: "financing"},
		{say: "make it red and book me a drive monday at 9, mo li mo@li.com",
			calls: []string{`go_to_test_drive {}`, `fill_form_data {"name":"mo li","email":"mo@li.com","date":"2026-12-07","time":"09:00"}`}, on: "test-drive"},
	}},
	{"a form filled on a booking page reached by a link is not left for a question", "test-drive", "c04", []siteTurn{
		{say: "Sam Ode sam@ode.io saturday at 10", calls: []string{`fill_form_data {"name":"Sam Ode","email":"sam@ode.io","date":"2026-12-05","time":"10:00"}`}},
		{say: "does it come in red", reply: []string{"“back to the car”"}, not: []string{"Opening"}},
		{click: 1, calls: []string{`back_to_inventory {}`, `select_car {"carId":"c04"}`}, on: "car"},
	}},
	{"a package or a trim asked for on the calculator: the car's page, then the payment again", "inventory", "", []siteTurn{
		{say: "open the civic", calls: []string{`search_cars {}`, `select_car {"carId":"c10"}`}, on: "car"},
		{say: "finance it 48 months 5k down", calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":5000,"termMonths":48}`}, on: "financing"},
		{say: "add the tech package and show me the payment again",
			calls: []string{`back_to_inventory {}`, `select_car {"carId":"c10"}`, `configure_car {"packages":["tech"]}`, `go_to_financing {}`, `calculate_payment {"downPayment":5000,"termMonths":48}`},
			reply: []string{"price $25,700", "down $5,000"}, on: "financing"},
		{say: "i'd like the sport trim", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c10"}`, `configure_car {"trim":"Sport"}`},
			reply: []string{"Sport trim"}, on: "car"},
		{say: "add the winter package and show me the payment", reply: []string{"There is no winter package", "Technology package or Sport package"}, not: []string{"Opening"}},
		{say: "add the sport package and show me the payment again", calls: []string{`configure_car {"packages":["tech","sport"]}`, `go_to_financing {}`, `calculate_payment {"downPayment":5000,"termMonths":48}`},
			reply: []string{"down $5,000"}, on: "financing"},
		{say: "and the winter package?", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c10"}`}, reply: []string{"There is no winter package"}, on: "car"},
	}},
	{"how the car on screen differs from others seen, answered on its page", "inventory", "", []siteTurn{
		{say: "open the civic", calls: []string{`search_cars {}`, `select_car {"carId":"c10"}`}, on: "car"},
		{say: "how much more is the 330i", reply: []string{"$34,800", "a difference of $10,900"}, not: []string{"Going back"}},
		{say: "whats the difference in price with the 330i", reply: []string{"a difference of $10,900"}},
		{say: "how much cheaper is the golf", reply: []string{"Golf is the cheaper", "a difference of $2,000"}},
		{say: "is there one thats cheaper than it", reply: []string{"2 are cheaper than the 2023 Honda Civic ($23,900): the 2021 Volkswagen Golf ($21,900) and the 2022 Toyota Corolla Hatchback ($22,400)"}},
		{say: "any newer than this?", reply: []string{"None of those listed is newer than the 2023 Honda Civic"}},
	}},
	{"cheaper ones than the car on screen, of those listed", "inventory", "", []siteTurn{
		{say: "search suvs", calls: []string{`search_cars {"bodyType":"suv"}`}},
		{say: "open the rav4", calls: []string{`select_car {"carId":"c01"}`}, on: "car"},
		{say: "any cheaper ones than this?", reply: []string{"the 2023 Kia Sportage ($27,800) and the 2022 Honda CR-V ($29,450)"}},
		{say: "how much more expensive is the explorer", reply: []string{"Explorer is the more expensive", "a difference of $4,910"}},
	}},
	{"a time that is not offered, said on the way to the booking page", "car", "c10", []siteTurn{
		{say: "book a test drive tomorrow at 10:30", calls: []string{`go_to_test_drive {}`},
			reply: []string{"10:30 is not one of the times", "09:00, 10:00, 11:00"}, on: "test-drive"},
		{say: "Sam Lee sam@lee.io", reply: []string{"I need your time"}},
		{say: "11 then", calls: []string{`fill_form_data {"name":"Sam Lee","email":"sam@lee.io","date":"2026-12-03","time":"11:00"}`}},
		{say: "actually 12:30", reply: []string{"12:30 is not one of the times"}},
	}},
	{"the last time said that is not offered is the one named", "test-drive", "c24", []siteTurn{
		{say: "12/12 at 14:00", reply: []string{"I need your"}},
		{say: "Is 12:30 possible?", reply: []string{"12:30 is not one of the times"}},
		{say: "thursday at 12", reply: []string{"12:00 is not one of the times"}, not: []string{"12:30"}},
	}},
	{"another car instead, half way through a booking of the car on screen", "inventory", "", []siteTurn{
		{say: "open the civic", calls: []string{`search_cars {}`, `select_car {"carId":"c10"}`}, on: "car"},
		{say: "book a test drive saturday at 11", calls: []string{`go_to_test_drive {}`}, reply: []string{"name and email"}, on: "test-drive"},
		{say: "actually how about the corolla hatchback instead", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c16"}`, `go_to_test_drive {}`},
			reply: []string{"2022 Toyota Corolla Hatchback", "name and email"}, on: "test-drive"},
		{say: "Ana Ruiz, ana@ruiz.me", calls: []string{`fill_form_data {"name":"Ana Ruiz","email":"ana@ruiz.me","date":"2026-12-05","time":"11:00"}`}},
	}},
	{"a name given alone, in lower case, with an initial", "test-drive", "c09", []siteTurn{
		{say: "saturday 11am", reply: []string{"name and email"}},
		{say: "kevin m", reply: []string{"I need your email"}, not: []string{"Sorry"}},
		{say: "kevin.m@gmail.com", calls: []string{`fill_form_data {"name":"kevin m","email":"kevin.m@gmail.com","date":"2026-12-05","time":"11:00"}`}},
	}},
	{"a reply while the name is asked is no name", "test-drive", "c09", []siteTurn{
		{say: "saturday 11am", reply: []string{"name and email"}},
		{say: "nah", not: []string{"I need your email"}},
	}},
	{"a reply in two words while the name is asked is no name", "test-drive", "c09", []siteTurn{
		{say: "saturday 11am", reply: []string{"name and email"}},
		{say: "sounds good", not: []string{"I need your email"}},
	}},
	{"a first initial, then the e-mail", "test-drive", "c10", []siteTurn{
		{say: "book me for the 15th at 2", reply: []string{"name and email"}},
		{say: "j smith", reply: []string{"I need your email"}},
		{say: "jsmith@gmail.com", calls: []string{`fill_form_data {"name":"j smith","email":"jsmith@gmail.com","date":"2026-12-15","time":"14:00"}`}},
	}},
	{"a name is never a word left over from the request", "car", "c07", []siteTurn{
		{say: "book a test drive for the first slot on monday", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "laura@c.com", reply: []string{"I need your name"}},
		{say: "Laura C.", calls: []string{`fill_form_data {"name":"Laura C.","email":"laura@c.com","date":"2026-12-07","time":"09:00"}`}},
	}},
	{"a name is never the words of asking", "inventory", "", []siteTurn{
		{say: "i wanna tets drive the corolla saturdy", calls: []string{`search_cars {}`, `select_car {"carId":"c16"}`, `go_to_test_drive {}`}, on: "test-drive"},
		{say: "10am", reply: []string{"name and email"}},
		{say: "sofia.m@gmail.com", reply: []string{"I need your name"}},
		{say: "sofia m.", calls: []string{`fill_form_data {"name":"sofia m.","email":"sofia.m@gmail.com","date":"2026-12-05","time":"10:00"}`}},
	}},
	{"names with initials and hyphens, as written", "test-drive", "c10", []siteTurn{
		{say: "T. Nguyen, tnguyen@yahoo.com friday at 11", calls: []string{`fill_form_data {"name":"T. Nguyen","email":"tnguyen@yahoo.com","date":"2026-12-04","time":"11:00"}`}},
		{say: "J.R. Hartley j@r.com friday at 10", calls: []string{`fill_form_data {"name":"J.R. Hartley","email":"j@r.com","date":"2026-12-04","time":"10:00"}`}},
		{say: "Jo-Ann Perez jo@p.com friday at 10", calls: []string{`fill_form_data {"name":"Jo-Ann Perez","email":"jo@p.com","date":"2026-12-04","time":"10:00"}`}},
		{say: "Ravi S. ravi.s@outlook.com friday at 11", calls: []string{`fill_form_data {"name":"Ravi S.","email":"ravi.s@outlook.com","date":"2026-12-04","time":"11:00"}`}},
		{say: "sofia m. sofia.m@gmail.com friday at 11", calls: []string{`fill_form_data {"name":"sofia m.","email":"sofia.m@gmail.com","date":"2026-12-04","time":"11:00"}`}},
	}},
	{"a driver assistance package is no test drive, nor another car", "car", "c22", []siteTurn{
		{say: "Please add the family package and the driver assistance one.", calls: []string{`configure_car {"packages":["family","safety"]}`}, not: []string{"test-drive"}},
		{say: "add driver assistance and the sound package", calls: []string{`configure_car {"packages":["family","safety","sound"]}`}},
	}},
	{"this or a car not yet seen, on a page reached by its link: the list is read, both compared", "car", "c11", []siteTurn{
		{say: "which is newer, this or the audi a4?", calls: []string{`back_to_inventory {}`, `search_cars {}`},
			reply: []string{"The 2021 BMW 330i is the newer (the other is the 2020 Audi A4)"}, not: []string{"newer one is the 2020 Audi A4"}, on: "inventory"},
	}},
	{"those cheaper than a car named, of those listed", "inventory", "", []siteTurn{
		{say: "sedans pls", calls: []string{`search_cars {"bodyType":"sedan"}`}},
		{say: "which ones are cheaper than the bmw", reply: []string{"3 are cheaper than the 2021 BMW 330i ($34,800)", "the 2020 Audi A4 ($27,400)"}, not: []string{"Opening"}},
	}},
	{"differences asked on the list", "inventory", "", []siteTurn{
		{say: "hybrids", calls: []string{`search_cars {"fuel":"hybrid"}`}},
		{say: "how much more is the volvo than the camry", reply: []string{"a difference of $18,400"}},
		{say: "whats the difference in price between the volvo and the camry", reply: []string{"2022 Volvo XC60 is $44,900", "a difference of $18,400"}},
		{say: "cheapest electric car pls", calls: []string{`search_cars {"fuel":"electric"}`, `sort_cars {"by":"price","order":"asc"}`}},
		{say: "how much more is the tesla model y", reply: []string{"2022 Tesla Model 3 is $35,990", "a difference of $11,000"}},
	}},
	{"whether the calculator's price includes a choice made on the car's page", "inventory", "", []siteTurn{
		{say: "open the rav4", calls: []string{`search_cars {}`, `select_car {"carId":"c01"}`}, on: "car"},
		{say: "add the panoramic roof", calls: []string{`configure_car {"packages":["roof"]}`}},
		{say: "monthly for 48 months 3000 down", calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":3000,"termMonths":48}`}, on: "financing"},
		{say: "does that include the roof?", reply: []string{"Yes: roof was chosen on the car's page"}, not: []string{"Sorry"}},
		{say: "does that include the tech package?", reply: []string{"No: on the car's page, roof was chosen"}},
	}},
	{"whether the price includes a package, nothing chosen", "car", "c08", []siteTurn{
		{say: "what would it cost a month", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "does that price include the tech package?", reply: []string{"No: nothing was chosen on the car's page"}, not: []string{"Sorry"}},
	}},
	{"the first time, said in few words", "test-drive", "c11", []siteTurn{
		{say: "saturday morning", reply: []string{"09:00, 10:00, 11:00"}},
		{say: "first one", reply: []string{"The first time is 09:00", "name and email"}, not: []string{"Sorry"}},
		{say: "Al Bo al@bo.com", calls: []string{`fill_form_data {"name":"Al Bo","email":"al@bo.com","date":"2026-12-05","time":"09:00"}`}},
	}},
	{"the latest time while a time is asked, though cars were listed", "inventory", "", []siteTurn{
		{say: "show me suvs", calls: []string{`search_cars {"bodyType":"suv"}`}},
		{say: "book the rav4 on saturday", calls: []string{`select_car {"carId":"c01"}`, `go_to_test_drive {}`}, on: "test-drive"},
		{say: "whats the latest", reply: []string{"The latest time is 16:00", "name and email"}, not: []string{"newest"}},
		{say: "Bo Li bo@li.io", calls: []string{`fill_form_data {"name":"Bo Li","email":"bo@li.io","date":"2026-12-05","time":"16:00"}`}},
	}},
	{"book it, then financing, in one message", "inventory", "", []siteTurn{
		{say: "open the tacoma", calls: []string{`search_cars {}`, `select_car {"carId":"c18"}`}, on: "car"},
		{say: "book a test drive saturday at 10, Al Bo al@bo.com", calls: []string{`go_to_test_drive {}`, `fill_form_data {"name":"Al Bo","email":"al@bo.com","date":"2026-12-05","time":"10:00"}`}, on: "test-drive"},
		{say: "book it and take me to financing", calls: []string{`book_test_drive {}`, `go_to_financing {}`},
			reply: []string{"Booked test drive", "Opening the financing calculator"}, not: []string{"income"}, on: "financing"},
	}},
	{"taking it out is a test drive", "car", "c01", []siteTurn{
		{say: "we'd like to take it out on the 11th at 2pm", calls: []string{`go_to_test_drive {}`}, reply: []string{"name and email"}, on: "test-drive"},
		{say: "Mark Jones mark@jones.us", calls: []string{`fill_form_data {"name":"Mark Jones","email":"mark@jones.us","date":"2026-12-11","time":"14:00"}`}},
	}},
	{"the price asked before booking, on the booking page", "inventory", "", []siteTurn{
		{say: "open the audi a4", calls: []string{`search_cars {}`, `select_car {"carId":"c13"}`}, on: "car"},
		{say: "book a test drive", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "Before I book, could you tell me the price of this Audi?", reply: []string{"The 2020 Audi A4 is $27,400"}, not: []string{"Opening"}},
	}},
	{"switching to another car half way through a booking keeps what was given", "inventory", "", []siteTurn{
		{say: "open the miata", calls: []string{`search_cars {}`, `select_car {"carId":"c23"}`}, on: "car"},
		{say: "book a test drive saturday at 11, Al Bo al@bo.com", calls: []string{`go_to_test_drive {}`, `fill_form_data {"name":"Al Bo","email":"al@bo.com","date":"2026-12-05","time":"11:00"}`}, on: "test-drive"},
		{say: "actually can i switch to the mustang instead",
			calls: []string{`back_to_inventory {}`, `select_car {"carId":"c19"}`, `go_to_test_drive {}`, `fill_form_data {"name":"Al Bo","email":"al@bo.com","date":"2026-12-05","time":"11:00"}`},
			reply: []string{"2020 Ford Mustang"}, on: "test-drive"},
	}},
	{"whether a model is in stock, asked in lower case", "inventory", "", []siteTurn{
		{say: "do you have any civics", calls: []string{`search_cars {}`, `select_car {"carId":"c10"}`}, reply: []string{"2023 Honda Civic"}, on: "car"},
	}},
	{"whether a model is in stock, asked in two words", "inventory", "", []siteTurn{
		{say: "any civics?", calls: []string{`search_cars {}`, `select_car {"carId":"c10"}`}, on: "car"},
		{say: "testdrive it fri", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
	}},
	{"without a package, written w/o, on the calculator", "car", "c07", []siteTurn{
		{say: "add the sound package", calls: []string{`configure_car {"packages":["sound"]}`}},
		{say: "whats that per month, 60 months, 10k down", calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":10000,"termMonths":60}`}, on: "financing"},
		{say: "and w/o the sound package?", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c07"}`, `configure_car {"packages":[]}`}, reply: []string{"no packages"}, on: "car"},
	}},
	{"a price asked with typos", "inventory", "", []siteTurn{
		{say: "open the kia", calls: []string{`search_cars {"make":"Kia"}`, `select_car {"carId":"c08"}`}, on: "car"},
		{say: "hw much is teh kia", reply: []string{"The 2023 Kia Sportage is $27,800"}},
	}},
	{"\"do\" a trim and a colour, then the monthly, in one message", "inventory", "", []siteTurn{
		{say: "open the outback", calls: []string{`search_cars {}`, `select_car {"carId":"c06"}`}, on: "car"},
		{say: "ok do wilderness in silver and give me the monthly over 48 months with 4000 down",
			calls: []string{`configure_car {"color":"silver","trim":"Wilderness"}`, `go_to_financing {}`, `calculate_payment {"downPayment":4000,"termMonths":48}`},
			reply: []string{"48 months", "down $4,000"}, on: "financing"},
	}},
	{"the cheapest of those, and its monthly, in one question", "inventory", "", []siteTurn{
		{say: "hybrids please", calls: []string{`search_cars {"fuel":"hybrid"}`}},
		{say: "Which of those is the cheapest, and how much would it be per month over 60 months with $3,000 down?",
			calls: []string{`select_car {"carId":"c09"}`, `go_to_financing {}`, `calculate_payment {"downPayment":3000,"termMonths":60}`},
			reply: []string{"The 2022 Toyota Camry is the cheapest", "down $3,000"}, on: "financing"},
		{say: "Could you try that at 72 months instead?", calls: []string{`calculate_payment {"downPayment":3000,"termMonths":72}`}, reply: []string{"72 months", "down $3,000"}},
	}},
	{"its price now, after it was configured, asked on another of its pages", "inventory", "", []siteTurn{
		{say: "pickups", calls: []string{`search_cars {"bodyType":"pickup"}`}},
		{say: "open the f-150", calls: []string{`select_car {"carId":"c17"}`}, on: "car"},
		{say: "add the king ranch trim", calls: []string{`configure_car {"trim":"King Ranch"}`}},
		{say: "take me to the test drive page", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "how much is it now", reply: []string{"The 2021 Ford F-150 as configured: total $52,900"}, not: []string{"$41,900"}},
	}},
	{"after booking: cancelling is not done here, and whether it was booked", "test-drive", "c24", []siteTurn{
		{say: "Al Bo al@bo.com saturday at 10", calls: []string{`fill_form_data {"name":"Al Bo","email":"al@bo.com","date":"2026-12-05","time":"10:00"}`}},
		{say: "book it", calls: []string{`book_test_drive {}`}, reply: []string{"Booked test drive"}},
		{say: "never mind, cancel it", reply: []string{"can't"}, not: []string{"Opening"}},
		{say: "was it booked?", reply: []string{"Booked test drive TD-"}, not: []string{"Sorry"}},
	}},
	{"the time or the day moved from what the form has", "test-drive", "c05", []siteTurn{
		{say: "Al Bo al@bo.com saturday at 10", calls: []string{`fill_form_data {"name":"Al Bo","email":"al@bo.com","date":"2026-12-05","time":"10:00"}`}},
		{say: "push it an hour later", calls: []string{`fill_form_data {"name":"Al Bo","email":"al@bo.com","date":"2026-12-05","time":"11:00"}`}},
		{say: "can we do the day after instead", calls: []string{`fill_form_data {"name":"Al Bo","email":"al@bo.com","date":"2026-12-06","time":"11:00"}`}},
		{say: "two hours earlier", calls: []string{`fill_form_data {"name":"Al Bo","email":"al@bo.com","date":"2026-12-06","time":"09:00"}`}},
		{say: "actually the day after tomorrow", calls: []string{`fill_form_data {"name":"Al Bo","email":"al@bo.com","date":"2026-12-04","time":"09:00"}`}},
		{say: "could you add: i need a car seat for my toddler",
			calls: []string{`fill_form_data {"name":"Al Bo","email":"al@bo.com","date":"2026-12-04","time":"09:00","notes":"i need a car seat for my toddler"}`}},
	}},
	{"the other one of two, after one was named, and how much more it is", "inventory", "", []siteTurn{
		{say: "pickups", calls: []string{`search_cars {"bodyType":"pickup"}`}},
		{say: "which is cheapest", reply: []string{"Tacoma is the cheapest"}},
		{say: "and how much is the other one", reply: []string{"The 2021 Ford F-150 is $41,900"}, not: []string{"sort"}},
		{say: "how much more expensive is it", reply: []string{"a difference of $7,400"}},
	}},
	{"whether the payment includes what no page says", "car", "c09", []siteTurn{
		{say: "whats the monthly over 60 months", calls: []string{`go_to_financing {}`, `calculate_payment {"termMonths":60}`}, on: "financing"},
		{say: "And does that monthly payment include taxes?", reply: []string{"Nothing here says whether it includes taxes"}, not: []string{"Monthly payment", "chosen"}},
	}},
	{"whether a payment is with money down", "car", "c01", []siteTurn{
		{say: "what would it cost a month over 60 months", calls: []string{`go_to_financing {}`, `calculate_payment {"termMonths":60}`}, on: "financing"},
		{say: "is that with money down?", reply: []string{"Down $0"}, not: []string{"Sorry"}},
	}},
	{"a package added, then another on the way to the calculator", "car", "c01", []siteTurn{
		{say: "add the roof", calls: []string{`configure_car {"packages":["roof"]}`}},
		{say: "add the tech package and show me the payment", calls: []string{`configure_car {"packages":["roof","tech"]}`, `go_to_financing {}`},
			reply: []string{"$35,190"}, on: "financing"},
	}},
	{"a package added on the way to the payment keeps those added before", "inventory", "", []siteTurn{
		{say: "open the rav4", calls: []string{`search_cars {}`, `select_car {"carId":"c01"}`}, on: "car"},
		{say: "what would it cost a month over 60 months", calls: []string{`go_to_financing {}`, `calculate_payment {"termMonths":60}`}, on: "financing"},
		{say: "back to the car", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c01"}`}, on: "car"},
		{say: "add the roof and show me the payment again", calls: []string{`configure_car {"packages":["roof"]}`, `go_to_financing {}`, `calculate_payment {"termMonths":60}`},
			reply: []string{"price $33,390"}, on: "financing"},
		{say: "back to the car", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c01"}`}, on: "car"},
		{say: "add the tech package and show me the payment again", calls: []string{`configure_car {"packages":["roof","tech"]}`, `go_to_financing {}`, `calculate_payment {"termMonths":60}`},
			reply: []string{"price $35,190"}, on: "financing"},
	}},
	{"a time said as a bound: after 3, before noon, after lunch, then changed to after 2", "car", "c05", []siteTurn{
		{say: "book a test drive saturday after 3", calls: []string{`go_to_test_drive {}`}, reply: []string{"time (one of: 15:00, 16:00)"}, not: []string{"not one of"}, on: "test-drive"},
		{say: "the earliest", reply: []string{"The earliest time is 15:00", "name and email"}},
		{say: "Ann Lee ann@lee.com", calls: []string{`fill_form_data {"name":"Ann Lee","email":"ann@lee.com","date":"2026-12-05","time":"15:00"}`}},
		{say: "actually make it after 2", reply: []string{"time (one of: 14:00, 15:00, 16:00)"}, not: []string{"Sorry"}},
		{say: "before noon then", reply: []string{"time (one of: 09:00, 10:00, 11:00)"}, not: []string{"12:00 is not"}},
		{say: "11", calls: []string{`fill_form_data {"name":"Ann Lee","email":"ann@lee.com","date":"2026-12-05","time":"11:00"}`}},
	}},
	{"after lunch, after 4pm (the one time there is), a date written 12/12, next week", "car", "c05", []siteTurn{
		{say: "book a test drive friday after lunch, ann lee ann@lee.com", calls: []string{`go_to_test_drive {}`}, reply: []string{"time (one of: 13:00, 14:00, 15:00, 16:00)"}, on: "test-drive"},
		{say: "no, monday after 4pm", calls: []string{`fill_form_data {"name":"ann lee","email":"ann@lee.com","date":"2026-12-07","time":"16:00"}`}},
		{say: "can we do 12/12 instead", calls: []string{`fill_form_data {"name":"ann lee","email":"ann@lee.com","date":"2026-12-12","time":"16:00"}`}},
		{say: "hmm, 1/5/27 at 10am", calls: []string{`fill_form_data {"name":"ann lee","email":"ann@lee.com","date":"2027-01-05","time":"10:00"}`}},
	}},
	{"next week: which day of it", "car", "c05", []siteTurn{
		{say: "can i come in next week for a drive, ann lee ann@lee.com", calls: []string{`go_to_test_drive {}`},
			reply: []string{"date (which day next week: Monday, December 7 to Sunday, December 13?)"}, on: "test-drive"},
		{say: "wednesday at 10", calls: []string{`fill_form_data {"name":"ann lee","email":"ann@lee.com","date":"2026-12-09","time":"10:00"}`}},
	}},
	{"a budget said roughly", "inventory", "", []siteTurn{
		{say: "cars around 40k", calls: []string{`search_cars {"minPrice":36000,"maxPrice":44000}`}},
		{say: "any suvs for about $30,000?", calls: []string{`search_cars {"bodyType":"suv","minPrice":27000,"maxPrice":33000}`}, reply: []string{"Showing 3 cars"}},
		{say: "which is the cheapest", reply: []string{"2023 Kia Sportage is the cheapest"}},
	}},
	{"a budget said roughly is a ceiling", "inventory", "", []siteTurn{
		{say: "Hello, I'm shopping for a family minivan and a budget of roughly 40 thousand.", calls: []string{`search_cars {"bodyType":"minivan","maxPrice":40000}`},
			reply: []string{"2022 Honda Odyssey $34,900"}},
		{say: "suvs around 40k budget", calls: []string{`search_cars {"bodyType":"suv","maxPrice":40000}`}},
	}},
	{"which of two named before any list is cheaper, then the cheaper of the two", "inventory", "", []siteTurn{
		{say: "which is cheaper, the civic or the corolla", calls: []string{`search_cars {}`}, reply: []string{"The 2022 Toyota Corolla Hatchback is the cheaper, at $22,400 (the 2023 Honda Civic is $23,900)"}},
		{say: "Good afternoon! Could you tell me which is more expensive, the Honda Odyssey or the Ford Explorer?",
			reply: []string{"The 2021 Ford Explorer is the more expensive, at $36,900"}, not: []string{"Tesla"}},
		{say: "Please open the cheaper one of the two.", calls: []string{`select_car {"carId":"c22"}`}, on: "car"},
	}},
	{"which of two, one of them on the list shown", "inventory", "", []siteTurn{
		{say: "hondas", calls: []string{`search_cars {"make":"Honda"}`}},
		{say: "whats cheaper, the civic or the corolla?", calls: []string{`search_cars {}`, `search_cars {"make":"Honda"}`}, reply: []string{"The 2022 Toyota Corolla Hatchback is the cheaper"}},
		{say: "Which is more expensive: the Tesla Model 3 or the BMW 330i?", reply: []string{"The 2022 Tesla Model 3 is the more expensive, at $35,990 (the 2021 BMW 330i is $34,800)"}},
	}},
	{"percent said as a word, a monthly income", "inventory", "", []siteTurn{
		{say: "how much are the teslas", calls: []string{`search_cars {"make":"Tesla"}`}},
		{say: "how much would the model 3 be a month with 20 percent down over 5 years", calls: []string{`select_car {"carId":"c12"}`, `go_to_financing {}`, `calculate_payment {"downPayment":7198,"termMonths":60}`}, on: "financing"},
		{say: "i want to apply, im jo kim jo@kim.io, i earn 5,500 a month", calls: []string{`apply_for_financing {"fullName":"jo kim","email":"jo@kim.io","annualIncome":66000}`}},
	}},
	{"an income per year written short", "financing", "c20", []siteTurn{
		{say: "apply, tom wu tom@wu.org, 60k/yr", calls: []string{`apply_for_financing {"fullName":"tom wu","email":"tom@wu.org","annualIncome":60000}`}},
	}},
	{"the mileage and the choices of the car on screen, asked short", "inventory", "", []siteTurn{
		{say: "hatchbacks", calls: []string{`search_cars {"bodyType":"hatchback"}`}},
		{say: "open the golf", calls: []string{`select_car {"carId":"c14"}`}, on: "car"},
		{say: "whats the mileage", reply: []string{"The 2021 Volkswagen Golf has 26,000 miles."}},
		{say: "what year is it", reply: []string{"The 2021 Volkswagen Golf is from 2021."}},
		{say: "whats the price", calls: []string{`get_price_summary {}`}},
		{say: "colour options?", reply: []string{"The color can be white, blue, gray or red."}},
		{say: "trim options", reply: []string{"The trim can be S or SE."}},
		{say: "package choices pls", reply: []string{"Winter package and Technology package"}, not: []string{"Sorry"}},
		{say: "go to financing", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "how many miles", reply: []string{"26,000 miles"}},
	}},
	{"a package taken off as people say it", "inventory", "", []siteTurn{
		{say: "wagons", calls: []string{`search_cars {"bodyType":"wagon"}`}},
		{say: "open the outback", calls: []string{`select_car {"carId":"c06"}`}, on: "car"},
		{say: "add cargo", calls: []string{`configure_car {"packages":["cargo"]}`}},
		{say: "remove it", calls: []string{`configure_car {"packages":[]}`}},
		{say: "add cargo and winter", calls: []string{`configure_car {"packages":["cargo","winter"]}`}},
		{say: "take the cargo off", calls: []string{`configure_car {"packages":["winter"]}`}},
		{say: "take it off", calls: []string{`configure_car {"packages":[]}`}},
		{say: "add the cargo and winter packages", calls: []string{`configure_car {"packages":["cargo","winter"]}`}},
		{say: "leave the winter package out", calls: []string{`configure_car {"packages":["cargo"]}`}},
	}},
	{"filters let go of, bounds said after the number, a sort with a bound", "inventory", "", []siteTurn{
		{say: "toyotas under 35k", calls: []string{`search_cars {"make":"Toyota","maxPrice":35000}`}},
		{say: "forget the price limit", calls: []string{`search_cars {"make":"Toyota"}`}, not: []string{"Sorry"}},
		{say: "actually any make is fine, just suvs", calls: []string{`search_cars {"bodyType":"suv"}`}},
		{say: "make that 2022 or newer", calls: []string{`search_cars {"bodyType":"suv","minYear":2022}`}},
		{say: "just the red ones under 40k", calls: []string{`search_cars {"bodyType":"suv","color":"red","maxPrice":40000,"minYear":2022}`}},
		{say: "any colour is fine", calls: []string{`search_cars {"bodyType":"suv","maxPrice":40000,"minYear":2022}`}},
		{say: "2021 and newer under 35k", calls: []string{`search_cars {"maxPrice":35000,"minYear":2021}`}, not: []string{"The newer one"}},
		{say: "clear the filters", calls: []string{`clear_filters {}`}},
		{say: "under 30k", calls: []string{`search_cars {"maxPrice":30000}`}},
		{say: "only 2022 and up", calls: []string{`search_cars {"maxPrice":30000,"minYear":2022}`}, not: []string{"Which car"}},
		{say: "cars under 30k cheapest first", calls: []string{`search_cars {"maxPrice":30000}`, `sort_cars {"by":"price","order":"asc"}`}},
		{say: "do you have anything for under 300 a month", not: []string{"Showing 0"}},
	}},
	{"a make in the plural", "inventory", "", []siteTurn{
		{say: "bmws", calls: []string{`search_cars {"make":"BMW"}`}},
		{say: "any audis?", calls: []string{`search_cars {"make":"Audi"}`}, reply: []string{"Showing 2 cars"}},
	}},
	{"a make written short, slips of typing", "inventory", "", []siteTurn{
		{say: "suv undr 30k", calls: []string{`search_cars {"bodyType":"suv","maxPrice":30000}`}},
		{say: "cheepest first", calls: []string{`sort_cars {"by":"price","order":"asc"}`}},
		{say: "blue cars under 25k", calls: []string{`search_cars {"color":"blue","maxPrice":25000}`}},
		{say: "open the vw", calls: []string{`select_car {"carId":"c14"}`}, on: "car"},
		{say: "back to the results", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "opn the first", calls: []string{`select_car {"carId":"c14"}`}, not: []string{"can't"}, on: "car"},
		{say: "whats the totl", calls: []string{`get_price_summary {}`}},
	}},
	{"the oldest of a list cut short, which two are the cheapest", "inventory", "", []siteTurn{
		{say: "cars under 35k from 2021 or later", calls: []string{`search_cars {"maxPrice":35000,"minYear":2021}`}, reply: []string{"and 8 more"}},
		{say: "which of those is the oldest", reply: []string{"The 2021 BMW 330i, the 2021 Volkswagen Golf and the 2021 Toyota Tacoma are the oldest, all 2021."}},
		{say: "clear the filters", calls: []string{`clear_filters {}`}},
		{say: "which two are the cheapest?", reply: []string{"The 2 cheapest are the 2021 Volkswagen Golf ($21,900) and the 2022 Toyota Corolla Hatchback ($22,400)."}},
		{say: "compare them", calls: []string{`compare_cars {"carIds":["c14","c16"]}`}, on: "drawer"},
	}},
	{"the cheapest of a make per month, then the other one on the same terms", "inventory", "", []siteTurn{
		{say: "whats the cheapest tesla per month over 60 months", calls: []string{`search_cars {"make":"Tesla"}`, `sort_cars {"by":"price","order":"asc"}`,
			`select_car {"carId":"c12"}`, `go_to_financing {}`, `calculate_payment {"termMonths":60}`},
			reply: []string{"For the 2022 Tesla Model 3: monthly payment $710.95 for 60 months"}, not: []string{"Golf"}, on: "financing"},
		{say: "back to the list", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "cheapest electric car?", calls: []string{`search_cars {"fuel":"electric"}`, `sort_cars {"by":"price","order":"asc"}`}},
		{say: "monthly on the cheapest one, 60 mo 10% down", calls: []string{`select_car {"carId":"c12"}`, `go_to_financing {}`, `calculate_payment {"downPayment":3599,"termMonths":60}`}, on: "financing"},
		{say: "now the other one same terms", reply: []string{"Which one do you mean: the 2023 Hyundai Ioniq 5 or the 2023 Tesla Model Y?"}},
	}},
	{"the other one of two on a calculator", "inventory", "", []siteTurn{
		{say: "compare the civic and the corolla", calls: []string{`search_cars {}`, `compare_cars {"carIds":["c10","c16"]}`}, on: "drawer"},
		{say: "open the civic", calls: []string{`select_car {"carId":"c10"}`}, on: "car"},
		{say: "go to financing", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "and the other one?", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c16"}`}, on: "car"},
	}},
	{"a model with a hyphen compared before it was listed, from the other car's page", "inventory", "", []siteTurn{
		{say: "Could you show me every Toyota you have?", calls: []string{`search_cars {"make":"Toyota"}`}},
		{say: "open the tacoma", calls: []string{`select_car {"carId":"c18"}`}, on: "car"},
		{say: "Could you take me back so I can compare it to the Ford F-150?", calls: []string{`back_to_inventory {}`, `search_cars {}`, `search_cars {"make":"Toyota"}`,
			`compare_cars {"carIds":["c17","c18"]}`}, reply: []string{"Comparing 2021 Ford F-150, 2021 Toyota Tacoma"}, on: "drawer"},
	}},
	{"a value confirmed, then taken with others; a package the car lacks listed with one it has", "inventory", "", []siteTurn{
		{say: "pickups", calls: []string{`search_cars {"bodyType":"pickup"}`}},
		{say: "open the ford", calls: []string{`select_car {"carId":"c17"}`}, on: "car"},
		{say: "is there a king ranch trim", reply: []string{"Yes: the trim can be King Ranch"}},
		{say: "do it in white with the king ranch and tow pkg", calls: []string{`configure_car {"color":"white","packages":["tow"],"trim":"King Ranch"}`}},
		{say: "does it have an offroad package", reply: []string{"Yes"}},
		{say: "add it along with the family one", calls: []string{`configure_car {"color":"white","packages":["tow","offroad"],"trim":"King Ranch"}`},
			reply: []string{"There is no family package"}},
		{say: "back to the list", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "open the tacoma", calls: []string{`select_car {"carId":"c18"}`}, on: "car"},
		{say: "is there a trd off-road trim", reply: []string{"Yes: the trim can be TRD Off-Road"}},
		{say: "ok do that in red with the tow package", calls: []string{`configure_car {"color":"red","packages":["tow"],"trim":"TRD Off-Road"}`}},
	}},
	{"a package listed with one the car has", "car", "c09", []siteTurn{
		{say: "add winter and safety", calls: []string{`configure_car {"packages":["safety"]}`}, reply: []string{"There is no winter package: the packages can be Technology package, Premium sound or Driver assistance."}},
		{say: "do it in blue", calls: []string{`configure_car {"color":"blue"}`}, not: []string{"Yes"}},
	}},
	{"figures after an answer that named one car, then which payment is lower", "inventory", "", []siteTurn{
		{say: "cheapest suv", calls: []string{`search_cars {"bodyType":"suv"}`, `sort_cars {"by":"price","order":"asc"}`}},
		{say: "monthly payment 60 mo 2k down", calls: []string{`select_car {"carId":"c08"}`, `go_to_financing {}`, `calculate_payment {"downPayment":2000,"termMonths":60}`},
			reply: []string{"price $27,800, down $2,000"}, on: "financing"},
		{say: "and the cr-v?", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c02"}`, `go_to_financing {}`, `calculate_payment {"downPayment":2000,"termMonths":60}`}, on: "financing"},
		{say: "which is cheaper per month?", reply: []string{"The monthly payment of the 2023 Kia Sportage is lower: $509.65 against"}},
		{say: "which monthly is higher", reply: []string{"The monthly payment of the 2022 Honda CR-V is higher"}},
	}},
	{"by how much, after which of two is cheaper", "inventory", "", []siteTurn{
		{say: "open the bmw 330i", calls: []string{`search_cars {}`, `select_car {"carId":"c11"}`}, on: "car"},
		{say: "is this cheaper than the audi a4", reply: []string{"The 2020 Audi A4 is the cheaper, at $27,400"}},
		{say: "by how much", reply: []string{"a difference of $7,400"}},
		{say: "whats the difference", reply: []string{"a difference of $7,400"}},
	}},
	{"another car on the same terms, twice; a share in words; the payment again after configuring", "inventory", "", []siteTurn{
		{say: "compare the civic, the corolla and the golf by price", calls: []string{`search_cars {}`, `compare_cars {"carIds":["c10","c16","c14"]}`}, on: "drawer"},
		{say: "how much per month is the golf w 2k down for 36 months", calls: []string{`select_car {"carId":"c14"}`, `go_to_financing {}`, `calculate_payment {"downPayment":2000,"termMonths":36}`}, on: "financing"},
		{say: "what about the civic on the same terms", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c10"}`, `go_to_financing {}`, `calculate_payment {"downPayment":2000,"termMonths":36}`},
			reply: []string{"price $23,900, down $2,000"}, on: "financing"},
		{say: "and the f-150 same deal", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c17"}`, `go_to_financing {}`, `calculate_payment {"downPayment":2000,"termMonths":36}`},
			reply: []string{"price $41,900, down $2,000"}, on: "financing"},
		{say: "what about twenty percent down", calls: []string{`calculate_payment {"downPayment":8380,"termMonths":36}`}},
		{say: "take me to the car", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c17"}`}, on: "car"},
		{say: "add the winter package", calls: []string{`configure_car {"packages":["winter"]}`}},
		{say: "whats the monthly now", calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":8380,"termMonths":36}`}, reply: []string{"price $42,800"}, on: "financing"},
	}},
	{"finance the cheaper of two compared", "inventory", "", []siteTurn{
		{say: "compare the bmw 330i and the audi a4", calls: []string{`search_cars {}`, `compare_cars {"carIds":["c11","c13"]}`}, on: "drawer"},
		{say: "finance the cheaper one 60 months 5k down", calls: []string{`select_car {"carId":"c13"}`, `go_to_financing {}`, `calculate_payment {"downPayment":5000,"termMonths":60}`},
			reply: []string{"For the 2020 Audi A4: monthly payment"}, on: "financing"},
	}},
	{"a share in words of a price not known", "financing", "c09", []siteTurn{
		{say: "36 months, ten percent down", calls: []string{`calculate_payment {"termMonths":36}`, `calculate_payment {"downPayment":2650,"termMonths":36}`},
			reply: []string{"down $2,650"}, not: []string{"I don't know the price"}},
	}},
	{"the red one of those shown", "inventory", "", []siteTurn{
		{say: "suvs under 35k", calls: []string{`search_cars {"bodyType":"suv","maxPrice":35000}`}},
		{say: "open the red one", calls: []string{`search_cars {"bodyType":"suv","color":"red","maxPrice":35000}`}, reply: []string{"Showing 2 cars"}},
	}},
	{"a kind in the plural that is also a word of a car's name", "inventory", "", []siteTurn{
		{say: "convertibles", calls: []string{`search_cars {"bodyType":"convertible"}`}},
		{say: "open the mustang", calls: []string{`search_cars {}`, `select_car {"carId":"c19"}`}, on: "car"},
		{say: "go back and show me the convertibles", calls: []string{`back_to_inventory {}`, `search_cars {"bodyType":"convertible"}`}, on: "inventory"},
	}},
	{"what a kind costs", "inventory", "", []siteTurn{
		{say: "what do your sedans go for", calls: []string{`search_cars {"bodyType":"sedan"}`}, reply: []string{"Showing 5 cars"}},
		{say: "how much do suvs cost", calls: []string{`search_cars {"bodyType":"suv"}`}, reply: []string{"Showing 7 cars"}},
	}},
	{"a make the site does not sell, in lower case", "inventory", "", []siteTurn{
		{say: "do you have a porsche", calls: []string{`search_cars {}`}, reply: []string{"There is no porsche among the 24 cars here."}},
		{say: "any jeeps?", reply: []string{"There are no jeeps among the 24 cars here."}},
	}},
	{"maybe is no May, a package written out in full, a name before the noun asked", "car", "c02", []siteTurn{
		{say: "can i drive it sat at 1pm", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "and maybe 11 instead", not: []string{"May"}},
		{say: "Priya Shah priya.s@example.com", calls: []string{`fill_form_data {"name":"Priya Shah","email":"priya.s@example.com","date":"2026-12-05","time":"11:00"}`}},
	}},
	{"packages written out, colours asked with the car's name, a musing word in capitals", "inventory", "", []siteTurn{
		{say: "sedans", calls: []string{`search_cars {"bodyType":"sedan"}`}},
		{say: "civic colors", calls: []string{`select_car {"carId":"c10"}`}, reply: []string{"The color can be blue, white, black, gray or red."}, not: []string{"can't"}, on: "car"},
		{say: "add the technology package", calls: []string{`configure_car {"packages":["tech"]}`}, not: []string{"There is no"}},
		{say: "back to the list", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "Thanks. Actually, I would prefer to see hybrids instead.", calls: []string{`search_cars {"fuel":"hybrid"}`}, not: []string{"There is no"}},
	}},
	{"a package inflected", "car", "c05", []siteTurn{
		{say: "add the charging package pls", calls: []string{`configure_car {"packages":["charge"]}`}, not: []string{"There is no"}},
	}},
	{"back to a term keeping the down payment, the down payment dropped, nah make it", "financing", "c14", []siteTurn{
		{say: "24 months with 1500 down", calls: []string{`calculate_payment {"downPayment":1500,"termMonths":24}`}},
		{say: "36 months", calls: []string{`calculate_payment {"downPayment":1500,"termMonths":36}`}},
		{say: "Could we go back to 24 but keep the down payment?", calls: []string{`calculate_payment {"downPayment":1500,"termMonths":24}`}},
		{say: "nah make it 48", calls: []string{`calculate_payment {"downPayment":1500,"termMonths":48}`}},
		{say: "drop the down payment", calls: []string{`calculate_payment {"downPayment":0,"termMonths":48}`}},
	}},
	{"two fields, two choices asked at once", "inventory", "", []siteTurn{
		{say: "sedans", calls: []string{`search_cars {"bodyType":"sedan"}`}},
		{say: "what r the price and miles of the camry", reply: []string{"The 2022 Toyota Camry is $26,500 and has 24,000 miles."}},
		{say: "what year and mileage is the civic", reply: []string{"The 2023 Honda Civic is from 2023 and has 9,000 miles."}},
		{say: "open the civic", calls: []string{`select_car {"carId":"c10"}`}, on: "car"},
		{say: "What colours and trims does it come in?", reply: []string{"The color can be blue, white, black, gray or red. The trim can be LX, Sport or Touring."}},
	}},
	{"a question, then what to do if so", "car", "c08", []siteTurn{
		{say: "does it come in green? if so make it green", calls: nil, reply: []string{"No, not in green"}},
		{say: "Does it come in gray? If so, I would like it in gray with the EX trim and the tech package.", calls: []string{`configure_car {"color":"gray","packages":["tech"],"trim":"EX"}`},
			reply: []string{"Yes. Configured: 2023 Kia Sportage, EX trim"}},
	}},
	{"a price bound said without its thousands, a model's name with a number in it", "inventory", "", []siteTurn{
		{say: "suvs under 35", calls: []string{`search_cars {}`, `search_cars {"bodyType":"suv","maxPrice":35000}`}, reply: []string{"Showing 3 cars"}},
		{say: "anything between 20 and 25?", calls: []string{`search_cars {"maxPrice":25000,"minPrice":20000}`}, reply: []string{"Showing 4 cars"}},
		{say: "show me trucks under 40", calls: []string{`search_cars {"bodyType":"pickup","maxPrice":40000}`}, reply: []string{"Showing 1 car"}},
		{say: "price and mileage of the Kia Sportage", reply: []string{"The 2023 Kia Sportage is $27,800 and has 14,000 miles."}},
		{say: "the mileage of the tacoma", reply: []string{"The 2021 Toyota Tacoma has"}},
		{say: "the 3 series", reply: []string{"There are no 3 series among the 24 cars here."}, not: []string{"Kia"}},
	}},
	{"a make said as its one car in a comparison, a question only an item's page answers", "inventory", "", []siteTurn{
		{say: "kia vs crv", calls: []string{`search_cars {}`, `compare_cars {"carIds":["c08","c02"]}`}, on: "drawer"},
		{say: "close it", calls: []string{`close_comparison {}`}, on: "inventory"},
		{say: "compare the volvo and the rav4", calls: []string{`compare_cars {"carIds":["c07","c01"]}`}, on: "drawer"},
		{say: "close it", calls: []string{`close_comparison {}`}, on: "inventory"},
		{say: "what trims does the RAV4 come in", calls: []string{`select_car {"carId":"c01"}`}, reply: []string{"The trim can be LE, XLE or Limited."}, on: "car"},
	}},
	{"the two looked at, a name cut short, a trim whose name holds a package's, a colour missing a letter", "inventory", "", []siteTurn{
		{say: "open the civic", calls: []string{`search_cars {}`, `select_car {"carId":"c10"}`}, on: "car"},
		{say: "back", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "open the camry", calls: []string{`select_car {"carId":"c09"}`}, on: "car"},
		{say: "back", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "compare the two i looked at", calls: []string{`compare_cars {"carIds":["c09","c10"]}`}, not: []string{"looked"}, on: "drawer"},
		{say: "close it", calls: []string{`close_comparison {}`}, on: "inventory"},
		{say: "trucks", calls: []string{`search_cars {"bodyType":"pickup"}`}},
		{say: "ok taco then", calls: []string{`select_car {"carId":"c18"}`}, on: "car"},
		{say: "trd off-road", calls: []string{`configure_car {"trim":"TRD Off-Road"}`}, reply: []string{"no packages"}},
		{say: "limited in wite", calls: []string{`configure_car {"color":"white","trim":"Limited"}`}},
	}},
	{"the same figures for another car said as those numbers", "financing", "c09", []siteTurn{
		{say: "48 months with 2k down", calls: []string{`calculate_payment {"downPayment":2000,"termMonths":48}`}},
		{say: "and with those numbers for the civic?", calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c10"}`, `go_to_financing {}`, `calculate_payment {"downPayment":2000,"termMonths":48}`},
			reply: []string{"price $23,900"}, on: "financing"},
	}},
	{"a figure alone changes the nearest given, the old figure after not, the cheapest of all", "inventory", "", []siteTurn{
		{say: "cheapest suv", calls: []string{`search_cars {"bodyType":"suv"}`, `sort_cars {"by":"price","order":"asc"}`}},
		{say: "whats it like a month", calls: []string{`select_car {"carId":"c08"}`, `go_to_financing {}`}, on: "financing"},
		{say: "60 months 5k down", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":60}`}},
		{say: "nah do 4k", calls: []string{`calculate_payment {"downPayment":4000,"termMonths":60}`}, reply: []string{"price $27,800, down $4,000"}},
		{say: "60 months with 15% down", calls: []string{`calculate_payment {"downPayment":4170,"termMonths":60}`}},
		{say: "Sorry, I meant 20% down, not 15%.", calls: []string{`calculate_payment {"downPayment":5560,"termMonths":60}`}, reply: []string{"6.9% APR"}},
		{say: "ok whats the cheapest one overall", calls: []string{`back_to_inventory {}`, `search_cars {}`}, reply: []string{"2021 Volkswagen Golf"}, not: []string{"Sportage"}, on: "inventory"},
	}},
	{"book the cheaper of two whose payments were asked, on the other's calculator", "inventory", "", []siteTurn{
		{say: "open the tacoma", calls: []string{`search_cars {}`, `select_car {"carId":"c18"}`}, on: "car"},
		{say: "whats the monthly over 48 months with 4500 down", calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":4500,"termMonths":48}`}, on: "financing"},
		{say: "same for the f-150", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c17"}`, `go_to_financing {}`, `calculate_payment {"downPayment":4500,"termMonths":48}`}, on: "financing"},
		{say: "book a test drive of the cheaper one saturday morning", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c18"}`, `go_to_test_drive {}`},
			reply: []string{"2021 Toyota Tacoma"}, on: "test-drive"},
	}},
	{"a yes-or-no question whose subject is the value, and advice asked", "inventory", "", []siteTurn{
		{say: "hybrids pls", calls: []string{`search_cars {"fuel":"hybrid"}`}},
		{say: "is the rav4 awd", calls: []string{`select_car {"carId":"c01"}`}, reply: []string{"I can't tell"}, not: []string{"Yes"}, on: "car"},
		{say: "is the rav4 a toyota", reply: []string{"Yes: the 2023 Toyota RAV4 is Toyota."}},
		{say: "back to the list", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "open the mustang", calls: []string{`search_cars {}`, `select_car {"carId":"c19"}`}, on: "car"},
		{say: "is the gt worth it", reply: []string{"That is for you to judge."}, not: []string{"Yes"}},
	}},
	{"hours in words and with o'clock", "test-drive", "c05", []siteTurn{
		{say: "next Tuesday afternoon"},
		{say: "3 o'clock would suit me best.", reply: []string{"I need your name and email"}},
		{say: "Dana Lee dana@lee.io", calls: []string{`fill_form_data {"date":"2026-12-08","email":"dana@lee.io","name":"Dana Lee","time":"15:00"}`}},
		{say: "Could we make it friday, say ten o'clock?", calls: []string{`fill_form_data {"date":"2026-12-04","email":"dana@lee.io","name":"Dana Lee","time":"10:00"}`}},
		{say: "one pm then", calls: []string{`fill_form_data {"date":"2026-12-04","email":"dana@lee.io","name":"Dana Lee","time":"13:00"}`}},
	}},
	{"a side question or a request not understood while the form asks, a name with name's", "test-drive", "c06", []siteTurn{
		{say: "next tues"},
		{say: "1pm", reply: []string{"I need your name and email"}},
		{say: "do you sell motorcycles?", reply: []string{"Sorry"}},
		{say: "my name's nia lo", reply: []string{"I need your email"}},
		{say: "nia@lo.org", calls: []string{`fill_form_data {"date":"2026-12-08","email":"nia@lo.org","name":"nia lo","time":"13:00"}`}},
	}},
	{"what times there are, asked while the form asks; a greeting that names a part of the day", "test-drive", "c05", []siteTurn{
		{say: "Good morning, could I book a drive on friday?", reply: []string{"13:00"}},
		{say: "next Tuesday afternoon"},
		{say: "I'm not sure, what times do you have?", reply: []string{"The time can be"}},
		{say: "My name is Margaret Oyelaran and my email is m.oy@ex.com", reply: []string{"I need your time (one of: 13:00, 14:00, 15:00, 16:00)"}},
		{say: "2pm", calls: []string{`fill_form_data {"date":"2026-12-08","email":"m.oy@ex.com","name":"Margaret Oyelaran","time":"14:00"}`}},
	}},
	{"a drive asked on its empty form, a polite request worded as a question, what to do if so said last", "car", "c10", []siteTurn{
		{say: "Could I get it with the Touring trim and the tech package, please?", calls: []string{`configure_car {"packages":["tech"],"trim":"Touring"}`}},
		{say: "Does it have a sport package?", reply: []string{"Yes: Sport package is one of the packages"}},
		{say: "Does it have a sport package available, and could you add it if so?", calls: []string{`configure_car {"packages":["tech","sport"]}`}, reply: []string{"Yes.", "Touring trim"}},
		{say: "does it have a winter package, and could you add it if so?", reply: []string{"No, there is no winter package"}},
		{say: "go to test drive", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "Good morning, I'd like to book a test drive of this Civic please.", reply: []string{"I need your name, email, date and time"}},
	}},
	{"a package named by its name, removed by them; a budget with tops; a look in more detail", "inventory", "", []siteTurn{
		{say: "tops 35k, want a truck", calls: []string{`search_cars {"bodyType":"pickup","maxPrice":35000}`}, reply: []string{"Showing 1 car"}},
		{say: "want an suv, 40k tops", calls: []string{`search_cars {"bodyType":"suv","maxPrice":40000}`}},
		{say: "I'd like to look at the cheapest one in more detail, please.", calls: []string{`select_car {"carId":"c08"}`}, reply: []string{"2023 Kia Sportage"}, on: "car"},
		{say: "back", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "open the model y", calls: []string{`search_cars {}`, `select_car {"carId":"c04"}`}, on: "car"},
		{say: "add tow and comfort", calls: []string{`configure_car {"packages":["tow","comfort"]}`}},
		{say: "remove the comfort seats", calls: []string{`configure_car {"packages":["tow"]}`}},
		{say: "add comfort", calls: []string{`configure_car {"packages":["tow","comfort"]}`}},
		{say: "I've changed my mind about the comfort seats; please remove them.", calls: []string{`configure_car {"packages":["tow"]}`}},
	}},
	{"a rate tried bare, a term in years said short, a monthly figure of the car just named", "inventory", "", []siteTurn{
		{say: "suvs", calls: []string{`search_cars {"bodyType":"suv"}`}},
		{say: "cheapest 1?", calls: []string{`sort_cars {"by":"price","order":"asc"}`}, reply: []string{"2023 Kia Sportage"}},
		{say: "hw much a month", calls: []string{`select_car {"carId":"c08"}`, `go_to_financing {}`}, on: "financing"},
		{say: "finance it 5 yrs", calls: []string{`calculate_payment {"termMonths":60}`}},
		{say: "try 3.9", calls: []string{`calculate_payment {"apr":3.9,"termMonths":60}`}},
	}},
	{"a term in years is no income", "financing", "c08", []siteTurn{
		{say: "finance it over 5 years", calls: []string{`calculate_payment {"termMonths":60}`}, not: []string{"application"}},
	}},
	{"a count in words more than match, one of those shown that is", "inventory", "", []siteTurn{
		{say: "Do you have five red coupes?", calls: []string{`search_cars {"bodyType":"coupe","color":"red"}`}, reply: []string{"Only one car matches."}},
		{say: "wagons", calls: []string{`search_cars {"bodyType":"wagon"}`}},
		{say: "Is there one that's diesel?", calls: []string{`search_cars {"bodyType":"wagon","fuel":"diesel"}`}, reply: []string{"2020 Audi A6 Avant"}, not: []string{"F-150"}},
	}},
	{"this car compared with another, on a page reached by its link", "car", "c13", []siteTurn{
		{say: "Could you compare this car with the Hyundai Ioniq 5 for me?", calls: []string{`back_to_inventory {}`, `search_cars {}`, `compare_cars {"carIds":["c05","c13"]}`}, on: "drawer"},
	}},
	{"a day of the month is no name, a make said with this as its one car shown", "inventory", "", []siteTurn{
		{say: "show me diesel cars", calls: []string{`search_cars {"fuel":"diesel"}`}},
		{say: "I'd like to book a test drive of this Audi on Friday the 11th at 9 in the morning.", calls: []string{`select_car {"carId":"c21"}`, `go_to_test_drive {}`},
			reply: []string{"2020 Audi A6 Avant"}, not: []string{"11th among"}, on: "test-drive"},
		{say: "Ann Lee ann@lee.io", calls: []string{`fill_form_data {"date":"2026-12-11","email":"ann@lee.io","name":"Ann Lee","time":"09:00"}`}},
		{say: "back to the list", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "can i test drive one on the 11th", not: []string{"11th among"}},
	}},
	{"open that of several, the most recent", "inventory", "", []siteTurn{
		{say: "suvs", calls: []string{`search_cars {"bodyType":"suv"}`}},
		{say: "open that", reply: []string{"Which car is it for"}},
		{click: 2, on: "car"},
		{say: "back to the list", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "electric cars", calls: []string{`search_cars {"fuel":"electric"}`}},
		{say: "Which one is the most recent model year?", reply: []string{"are the newest, both 2023"}},
	}},
	{"colours asked after one car was named", "inventory", "", []siteTurn{
		{say: "suv under 30k", calls: []string{`search_cars {"bodyType":"suv","maxPrice":30000}`}},
		{say: "cheapest 1?", calls: []string{`sort_cars {"by":"price","order":"asc"}`}, reply: []string{"2023 Kia Sportage"}},
		{say: "wat colours", calls: []string{`select_car {"carId":"c08"}`}, reply: []string{"The color can be red, white, gray or black."}, on: "car"},
	}},
	{"seeing it in person is a test drive", "car", "c13", []siteTurn{
		{say: "i wanna see it in person saturday", calls: []string{`go_to_test_drive {}`}, reply: []string{"I need your name, email and time"}, not: []string{"either"}, on: "test-drive"},
		{say: "morning pls", reply: []string{"(one of: 09:00, 10:00, 11:00)"}},
		{say: "9"},
		{say: "mia r mia@r.io", calls: []string{`fill_form_data {"date":"2026-12-05","email":"mia@r.io","name":"mia r","time":"09:00"}`}},
	}},
	{"a question asked as could you tell me", "car", "c06", []siteTurn{
		{say: "Could you tell me what this Outback costs with the Wilderness trim and the off-road package?", calls: []string{`configure_car {"packages":["offroad"],"trim":"Wilderness"}`}, reply: []string{"total $39,000"}},
		{say: "Does it come in green?", reply: []string{"Yes: the color can be green"}},
	}},
	{"the total including everything", "car", "c16", []siteTurn{
		{say: "What would the total come to, including everything?", calls: []string{`get_price_summary {}`}, reply: []string{"total $22,400"}},
	}},
	{"a make of one of the cars compared, and a correction to it", "inventory", "", []siteTurn{
		{say: "compare the rav4, the sportage and the crv", calls: []string{`search_cars {}`, `compare_cars {"carIds":["c01","c08","c02"]}`}, on: "drawer"},
		{say: "open the hyundai", calls: []string{`select_car {"carId":"c05"}`}, on: "car"},
		{say: "Sorry, I meant the Toyota, not the Hyundai.", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c01"}`}, on: "car"},
	}},
	{"a figure of two calculations compared", "financing", "c01", []siteTurn{
		{say: "36 months with 3000 down", calls: []string{`calculate_payment {"downPayment":3000,"termMonths":36}`}},
		{say: "60 months with 6000 down", calls: []string{`calculate_payment {"downPayment":6000,"termMonths":60}`}},
		{say: "Which of the two has the lower total interest?", reply: []string{"The one with down payment 3000, 36 months has the lower total interest: $3,186.88 against $4,814.47 for the one with down payment 6000, 60 months."}},
	}},
	{"a payment, then a booking, asked in one message", "car", "c19", []siteTurn{
		{say: "Could you tell me the monthly payment over 72 months with $3,500 down and then book a test drive for Monday at 1pm?",
			calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":3500,"termMonths":72}`}, reply: []string{"Then, as you asked:", "book a test drive for Monday at 1pm"}, on: "financing"},
		{click: 1, on: "test-drive"},
		{say: "Sam Roe sam@roe.io", calls: []string{`fill_form_data {"date":"2026-12-07","email":"sam@roe.io","name":"Sam Roe","time":"13:00"}`}},
	}},
	{"a colour here, then a booking, said with then", "car", "c04", []siteTurn{
		{say: "make it blue and then book a test drive for Sunday at 2pm", calls: []string{`configure_car {"color":"blue"}`, `go_to_test_drive {}`}, not: []string{"Then, as you asked"}, on: "test-drive"},
		{say: "Sam Roe sam@roe.io", calls: []string{`fill_form_data {"date":"2026-12-06","email":"sam@roe.io","name":"Sam Roe","time":"14:00"}`}},
	}},
	{"which is best of those within the budget said", "inventory", "", []siteTurn{
		{say: "ok show cars no more than 28k", calls: []string{`search_cars {"maxPrice":28000}`}},
		{say: "which is best for a family", calls: []string{`search_cars {"bodyType":"suv","maxPrice":28000}`}, reply: []string{"2023 Kia Sportage"}},
	}},
	{"every choice of the car on screen, asked as options", "car", "c15", []siteTurn{
		{say: "could you please show me the options that are available?", reply: []string{"The color can be red, gray, white or black.", "The trim can be Select, Preferred or Turbo."}},
		{say: "financing options", calls: []string{`go_to_financing {}`}, on: "financing"},
	}},
	{"undo the last change", "car", "c18", []siteTurn{
		{say: "undo that", reply: []string{"There is nothing here to undo."}},
		{say: "make it red", calls: []string{`configure_car {"color":"red"}`}},
		{say: "undo", reply: []string{"I can't undo that: nothing here says what the color was before."}},
		{say: "add the tow package", calls: []string{`configure_car {"packages":["tow"]}`}},
		{say: "undo that", calls: []string{`configure_car {"packages":[]}`}, reply: []string{"no packages"}},
		{say: "add the tow package", calls: []string{`configure_car {"packages":["tow"]}`}},
		{say: "add the off-road package too", calls: []string{`configure_car {"packages":["tow","offroad"]}`}},
		{say: "undo that", calls: []string{`configure_car {"packages":["tow"]}`}},
		{say: "make it white", calls: []string{`configure_car {"color":"white"}`}},
		{say: "please undo it", calls: []string{`configure_car {"color":"red"}`}, reply: []string{"red"}},
	}},
	{"undo said again takes back the change before, not the undo", "car", "c18", []siteTurn{
		{say: "add the tow package", calls: []string{`configure_car {"packages":["tow"]}`}},
		{say: "add the off-road package too", calls: []string{`configure_car {"packages":["tow","offroad"]}`}},
		{say: "make it white", calls: []string{`configure_car {"color":"white"}`}},
		{say: "undo that", calls: []string{`configure_car {"color":"gray"}`}},
		{say: "undo that", calls: []string{`configure_car {"packages":["tow"]}`}},
		{say: "undo that", calls: []string{`configure_car {"packages":[]}`}},
		{say: "undo", reply: []string{"There is nothing here to undo."}},
	}},
	{"the home charger is the charge package, not the site's home page", "car", "c05", []siteTurn{
		{say: "Please add the home charger", calls: []string{`configure_car {"packages":["charge"]}`}, reply: []string{"Home charger $1,250"}},
	}},
	{"an abbreviation said alone is the trim it starts", "car", "c18", []siteTurn{
		{say: "make it trd", calls: []string{`configure_car {"trim":"TRD Off-Road"}`}},
		{say: "go with the limited", calls: []string{`configure_car {"trim":"Limited"}`}},
		{say: "no, go back to trd", calls: []string{`configure_car {"trim":"TRD Off-Road"}`}, reply: []string{"TRD Off-Road trim (+$3,600)"}},
	}},
	{"kids and a dog ask for a family car", "inventory", "", []siteTurn{
		{say: "something for the kids n dog under 35k", calls: []string{`search_cars {"bodyType":"suv","maxPrice":35000}`}, reply: []string{"Showing 3 cars"}},
	}},
	{"children and a dog ask for a family car", "inventory", "", []siteTurn{
		{say: "room for 3 children and a dog", calls: []string{`search_cars {"bodyType":"suv"}`}},
	}},
	{"the difference between the cheapest and the most expensive names both ends", "inventory", "", []siteTurn{
		{say: "difference between the cheapest and the most expensive", calls: []string{`sort_cars {"by":"price","order":"asc"}`},
			reply: []string{"2021 Volkswagen Golf, at $21,900; the most expensive is the 2023 Tesla Model Y, at $46,990: a difference of $25,090."}},
		{say: "show me suvs", calls: []string{`search_cars {"bodyType":"suv"}`}},
		{say: "whats the price difference between the cheapest and the priciest one?", calls: []string{`sort_cars {"by":"price","order":"asc"}`},
			reply: []string{"2023 Kia Sportage, at $27,800; the priciest is the 2023 Tesla Model Y, at $46,990: a difference of $19,190."}},
	}},
	{"another car for the booking asked, looked up on the way", "car", "c09", []siteTurn{
		{say: "book a test drive friday 2pm", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "what about the civic instead", calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c10"}`, `go_to_test_drive {}`},
			reply: []string{"test-drive booking page for the 2023 Honda Civic"}, not: []string{"Sorry"}, on: "test-drive"},
	}},
	{"going back first, then the details, which are no application's", "test-drive", "c10", []siteTurn{
		{say: "How much would it be per month over 48 months with 3,000 down?", calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":3000,"termMonths":48}`}, on: "financing"},
		{say: "Alright, let's go back to the booking. My name is Tomas Lindqvist, tomas.lindqvist@example.se.", calls: []string{`go_to_test_drive {}`},
			reply: []string{"I need your date and time"}, not: []string{"annual income"}, on: "test-drive"},
	}},
	{"a small figure is no annual income, guessed or not", "financing", "c10", []siteTurn{
		{say: "i want to apply, Tomas Lindqvist, tomas@example.se", reply: []string{"I need your annual income"}},
		{say: "make it 3 instead please", calls: []string{}, not: []string{"submitted"}},
		{say: "85k", calls: []string{`apply_for_financing {"fullName":"Tomas Lindqvist","email":"tomas@example.se","annualIncome":85000}`}},
	}},
	{"my name put down is no down payment; what I picked is said again", "test-drive", "c06", []siteTurn{
		{say: "Good morning, I'd like to come in and drive the Outback on the 12th if possible, around eleven.", reply: []string{"I need your name and email"}},
		{say: "Could you put my name down as Rosa Delgado, my email is rosa.d@example.org.",
			calls: []string{`fill_form_data {"name":"Rosa Delgado","email":"rosa.d@example.org","date":"2026-12-12","time":"11:00"}`}, on: "test-drive"},
		{say: "Can you tell me the date you've put down?", calls: []string{}, reply: []string{"The date was 2026-12-12."}, on: "test-drive"},
		{say: "Which day did I pick for the drive?", reply: []string{"The date was 2026-12-12 and the time was 11:00."}},
	}},
	{"the term picked is said again, not its choices", "financing", "c02", []siteTurn{
		{say: "36 months with 2000 down", calls: []string{`calculate_payment {"termMonths":36,"downPayment":2000}`}},
		{say: "now 60 months", calls: []string{`calculate_payment {"termMonths":60,"downPayment":2000}`}},
		{say: "Which term did I pick last?", reply: []string{"The term months were 60."}},
		{say: "what down payment did i choose", reply: []string{"The down payment was 2000."}},
	}},
	{"which of two named before the question is cheaper: of those two", "inventory", "", []siteTurn{
		{say: "Hi, I'm trying to decide between the Honda Civic and the Mazda3. Which one is cheaper?", calls: []string{`search_cars {}`},
			reply: []string{"The 2023 Honda Civic is the cheaper, at $23,900 (the 2023 Mazda Mazda3 Hatchback is $24,600)."}, not: []string{"Golf"}},
	}},
	{"compare two, which of the two is cheaper: of those two", "inventory", "", []siteTurn{
		{say: "compare the Tesla Model 3 and the Hyundai Ioniq 5, which of the two is cheaper?", calls: []string{`search_cars {}`},
			reply: []string{"The 2022 Tesla Model 3 is the cheaper, at $35,990"}, not: []string{"Golf"}},
	}},
	{"months written short are months, no car's name", "inventory", "", []siteTurn{
		{say: "open the tacoma", calls: []string{`search_cars {}`, `select_car {"carId":"c18"}`}, on: "car"},
		{say: "back to the list pls", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "monthly 60mo 0 down", calls: []string{`select_car {"carId":"c18"}`, `go_to_financing {}`, `calculate_payment {"downPayment":0,"termMonths":60}`},
			not: []string{"There is no"}, on: "financing"},
		{say: "and 72 mo?", calls: []string{`calculate_payment {"downPayment":0,"termMonths":72}`}},
	}},
	{"a lower-case name after open, or alone, is looked up", "inventory", "", []siteTurn{
		{say: "open tacoma", calls: []string{`search_cars {}`, `select_car {"carId":"c18"}`}, on: "car"},
	}},
	{"a lower-case name said alone, politely, is looked up", "inventory", "", []siteTurn{
		{say: "tacoma pls", calls: []string{`search_cars {}`, `select_car {"carId":"c18"}`}, on: "car"},
	}},
	{"pick ups, go bak, back to the list pls: a thumb's spellings", "inventory", "", []siteTurn{
		{say: "pick ups", calls: []string{`search_cars {"bodyType":"pickup"}`}, reply: []string{"Showing 2 cars"}},
		{say: "back to the list pls", calls: []string{}, reply: []string{"You're already there."}},
		{say: "open tacoma", calls: []string{`select_car {"carId":"c18"}`}, on: "car"},
		{say: "go bak", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "any pick-ups under 40k?", calls: []string{`search_cars {"bodyType":"pickup","maxPrice":40000}`}},
	}},
	{"trim levels, compare w, undo last, the new price: on the car's page", "car", "c05", []siteTurn{
		{say: "trim levels?", calls: []string{}, reply: []string{"The trim can be SE, SEL or Limited."}},
		{say: "green", calls: []string{`configure_car {"color":"green"}`}},
		{say: "add the roof", calls: []string{`configure_car {"packages":["roof"]}`}},
		{say: "undo last", calls: []string{`configure_car {"packages":[]}`}},
		{say: "add the safety package", calls: []string{`configure_car {"packages":["safety"]}`}},
		{say: "scrap that", calls: []string{`configure_car {"packages":[]}`}},
		{say: "whats the new price", calls: []string{`get_price_summary {}`}},
		{say: "What is the final price?", calls: []string{`get_price_summary {}`}},
		{say: "compare w the golf", calls: []string{`back_to_inventory {}`, `search_cars {}`, `compare_cars {"carIds":["c14","c05"]}`}, on: "drawer"},
	}},
	{"a down payment said after put down, and a rate instead of the default", "financing", "c02", []siteTurn{
		{say: "36 months with 2000 down", calls: []string{`calculate_payment {"downPayment":2000,"termMonths":36}`}},
		{say: "Actually I'd rather put down 6,500. What does that make it?", calls: []string{`calculate_payment {"downPayment":6500,"termMonths":36}`}},
		{say: "How about at 4.9 percent instead of the default rate?", calls: []string{`calculate_payment {"downPayment":6500,"termMonths":36,"apr":4.9}`}, on: "financing"},
	}},
	{"i meant thu: another day, the time kept", "car", "c10", []siteTurn{
		{say: "book test drive wed 2", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "i meant thu", calls: []string{}, reply: []string{"I need your name and email."}},
		{say: "al v, al@v.io", calls: []string{`fill_form_data {"name":"al v","email":"al@v.io","date":"2026-12-03","time":"14:00"}`}},
	}},
	{"a short day said on the car's page is read on the booking page", "car", "c05", []siteTurn{
		{say: "test drive it this sat", calls: []string{`go_to_test_drive {}`}, reply: []string{"I need your name, email and time"}, on: "test-drive"},
		{say: "9", calls: []string{}, reply: []string{"I need your name and email."}},
		{say: "ana g ana@g.com", calls: []string{`fill_form_data {"name":"ana g","email":"ana@g.com","date":"2026-12-05","time":"09:00"}`}},
	}},
	{"agreeing to the time offered keeps the booking", "test-drive", "c15", []siteTurn{
		{say: "Hi, could I test drive this Mazda tomorrow afternoon?", reply: []string{"I need your name, email and time"}},
		{say: "What's the earliest afternoon time?", reply: []string{"The earliest time is 13:00."}},
		{say: "Perfect, that works for me.", calls: []string{}, reply: []string{"I need your name and email."}, on: "test-drive"},
		{say: "Ann Lee, ann@lee.com", calls: []string{`fill_form_data {"name":"Ann Lee","email":"ann@lee.com","date":"2026-12-03","time":"13:00"}`}},
	}},
	{"back to the booking filled before, and sent when asked", "test-drive", "c01", []siteTurn{
		{say: "book it for friday at 10, Jo Park, jo@park.com", calls: []string{`fill_form_data {"name":"Jo Park","email":"jo@park.com","date":"2026-12-04","time":"10:00"}`}},
		{say: "what would it cost per month over 36 months with 10,000 down?", calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":10000,"termMonths":36}`}, on: "financing"},
		{say: "Thanks, please go back to the booking page and submit it.",
			calls: []string{`go_to_test_drive {}`, `fill_form_data {"name":"Jo Park","email":"jo@park.com","date":"2026-12-04","time":"10:00"}`, `book_test_drive {}`},
			reply: []string{"Booked test drive"}, not: []string{"I need"}, on: "test-drive"},
	}},
	{"back to the booking filled before, not sent unasked", "test-drive", "c01", []siteTurn{
		{say: "book it for friday at 10, Jo Park, jo@park.com", calls: []string{`fill_form_data {"name":"Jo Park","email":"jo@park.com","date":"2026-12-04","time":"10:00"}`}},
		{say: "go to financing", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "go back to the booking page", calls: []string{`go_to_test_drive {}`, `fill_form_data {"name":"Jo Park","email":"jo@park.com","date":"2026-12-04","time":"10:00"}`},
			reply: []string{"not submitted"}, on: "test-drive"},
	}},
	{"what about another car with all the figures, from the calculator", "financing", "c05", []siteTurn{
		{say: "48 month loan with 7,000 down, apr 5", calls: []string{`calculate_payment {"downPayment":7000,"termMonths":48,"apr":5}`}},
		{say: "How about the Tesla Model 3 at 48 months with 7,000 down and apr 5?",
			calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c12"}`, `go_to_financing {}`, `calculate_payment {"downPayment":7000,"termMonths":48,"apr":5}`},
			reply: []string{"price $35,990"}, on: "financing"},
	}},
	{"a note as written, a name spelled again", "test-drive", "c04", []siteTurn{
		{say: "book it friday 10am, Ann Lee, ann@lee.com", calls: []string{`fill_form_data {"name":"Ann Lee","email":"ann@lee.com","date":"2026-12-04","time":"10:00"}`}},
		{say: "Could you add a note that we'd like to see the home charger too?",
			calls: []string{`fill_form_data {"name":"Ann Lee","email":"ann@lee.com","date":"2026-12-04","time":"10:00","notes":"we'd like to see the home charger too"}`}},
		{say: "Sorry, my name is spelled Anne, with an e.",
			calls: []string{`fill_form_data {"name":"Anne Lee","email":"ann@lee.com","date":"2026-12-04","time":"10:00","notes":"we'd like to see the home charger too"}`}},
	}},
	{"back to the car by its name, from its calculator; wut colours", "inventory", "", []siteTurn{
		{say: "open the tacoma", calls: []string{`search_cars {}`, `select_car {"carId":"c18"}`}, on: "car"},
		{say: "go to financing", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "back to the tacoma", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c18"}`}, on: "car"},
		{say: "wut colours", calls: []string{}, reply: []string{"The color can be"}},
	}},
	{"the other one of a make, after one was named; colours asked with also", "inventory", "", []siteTurn{
		{say: "cheapest electric", calls: []string{`search_cars {"fuel":"electric"}`, `sort_cars {"by":"price","order":"asc"}`}, reply: []string{"2022 Tesla Model 3"}},
		{say: "hmm the other tesla", calls: []string{`select_car {"carId":"c04"}`}, on: "car"},
		{say: "Could you also tell me which colours are available?", calls: []string{}, reply: []string{"The color can be"}},
	}},
	{"a week from friday is the friday after the coming one", "test-drive", "c24", []siteTurn{
		{say: "I'd like to test drive this BMW convertible a week from Friday at 2pm.", reply: []string{"I need your name and email."}},
		{say: "Jo Park, jo@park.com", calls: []string{`fill_form_data {"name":"Jo Park","email":"jo@park.com","date":"2026-12-11","time":"14:00"}`}},
	}},
	{"say 10 is a time", "test-drive", "c22", []siteTurn{
		{say: "next saturday morning, say 10", calls: []string{}, reply: []string{"I need your name and email."}},
		{say: "Bea N, bea@n.co", calls: []string{`fill_form_data {"name":"Bea N","email":"bea@n.co","date":"2026-12-05","time":"10:00"}`}},
	}},
	{"swap to another car half way through a booking keeps its day and time", "inventory", "", []siteTurn{
		{say: "show me bmws", calls: []string{`search_cars {"make":"BMW"}`}},
		{say: "compare them", calls: []string{`compare_cars {"carIds":["c11","c20","c24"]}`}, on: "drawer"},
		{say: "book the 330i mon 10am", calls: []string{`select_car {"carId":"c11"}`, `go_to_test_drive {}`}, on: "test-drive"},
		{say: "swap to the m240i", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c20"}`, `go_to_test_drive {}`},
			reply: []string{"booking page for the 2022 BMW M240i Coupe"}, on: "test-drive"},
		{say: "ed p ed@p.co", calls: []string{`fill_form_data {"name":"ed p","email":"ed@p.co","date":"2026-12-07","time":"10:00"}`}},
	}},
	{"a figure said in a recall picks what was said with it", "financing", "c07", []siteTurn{
		{say: "48 mos", calls: []string{`calculate_payment {"termMonths":48}`}},
		{say: "put 5000 down", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":48}`}},
		{say: "nah 4k dwn", calls: []string{`calculate_payment {"downPayment":4000,"termMonths":48}`}},
		{say: "what was the monthly at 5k", calls: []string{}, reply: []string{"Monthly payment $953.61"}},
		{say: "whats the payment w 5k down again", calls: []string{}, reply: []string{"Monthly payment $953.61"}, not: []string{"The down payment was 4000"}},
	}},
	{"a count in words before the question is no figure", "car", "c22", []siteTurn{
		{say: "Hello, we have three kids so we're looking at this Odyssey. Does it come with the family package?", calls: []string{},
			reply: []string{"Yes: Family package is one of the packages"}, on: "car"},
		{say: "Please add that, and set the trim to EX-L.", calls: []string{`configure_car {"packages":["family"],"trim":"EX-L"}`}},
	}},
	{"a payment recalled by the car's name", "car", "c10", []siteTurn{
		{say: "how much a month over 48 months with 3k down", calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":3000,"termMonths":48}`},
			reply: []string{"$499.51"}, on: "financing"},
		{say: "what would the camry be on the same terms",
			calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c09"}`, `go_to_financing {}`, `calculate_payment {"downPayment":3000,"termMonths":48}`},
			reply: []string{"For the 2022 Toyota Camry: monthly payment $561.65"}},
		{say: "remind me what the civic was a month", reply: []string{"Earlier I said: Monthly payment $499.51"}, not: []string{"$561.65"}},
		{say: "what was the monthly for the mazda3?",
			calls: []string{`back_to_inventory {}`, `select_car {"carId":"c15"}`, `go_to_financing {}`, `calculate_payment {"downPayment":3000,"termMonths":48}`},
			reply: []string{"For the 2023 Mazda Mazda3 Hatchback: monthly payment $516.24"}, not: []string{"Earlier"}},
	}},
	{"a payment recalled by name, none worked out by the page's tools yet", "financing", "c10", []siteTurn{
		{say: "how much a month over 48 months with 3k down", calls: []string{`calculate_payment {"downPayment":3000,"termMonths":48}`}, reply: []string{"$499.51"}},
		{say: "what was the monthly for the mazda3?",
			calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c15"}`, `go_to_financing {}`, `calculate_payment {"downPayment":3000,"termMonths":48}`},
			reply: []string{"For the 2023 Mazda Mazda3 Hatchback: monthly payment $516.24"}, not: []string{"Earlier", "$499.51"}},
	}},
	{"a named car's payment, then another's, then the first again", "inventory", "", []siteTurn{
		{say: "what would the civic cost a month over 60 months",
			calls: []string{`search_cars {}`, `select_car {"carId":"c10"}`, `go_to_financing {}`, `calculate_payment {"termMonths":60}`},
			reply: []string{"For the 2023 Honda Civic: monthly payment $472.12"}, on: "financing"},
		{say: "and the corolla?", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c16"}`, `go_to_financing {}`, `calculate_payment {"termMonths":60}`},
			reply: []string{"$442.49"}},
		{say: "what was the monthly payment for the Civic?", reply: []string{"$472.12"}, not: []string{"$442.49"}},
	}},
	{"figures written with spaces and decimal commas", "financing", "c09", []siteTurn{
		{say: "15 000 down", reply: []string{"months"}},
		{say: "36 mo", calls: []string{`calculate_payment {"downPayment":15000,"termMonths":36}`}, reply: []string{"down $15,000"}},
		{say: "apr 4,5", calls: []string{`calculate_payment {"downPayment":15000,"termMonths":36,"apr":4.5}`}, reply: []string{"4.5% APR"}},
		{say: "and 3,9%", calls: []string{`calculate_payment {"downPayment":15000,"termMonths":36,"apr":3.9}`}, reply: []string{"3.9% APR"}},
		{say: "apply pls", reply: []string{"full name"}},
		{say: "olga petrova olga@p.ru", reply: []string{"annual income"}},
		{say: "income 48 000", calls: []string{`apply_for_financing {"fullName":"olga petrova","email":"olga@p.ru","annualIncome":48000}`}},
	}},
	{"a family's name is no car", "test-drive", "c22", []siteTurn{
		{say: "Could you book us a test drive on Sunday afternoon?", reply: []string{"name", "email", "13:00"}},
		{say: "Is 3 available?", reply: []string{"name", "email"}},
		{say: "We're the Kowalski family, Anna Kowalski, anna.k@example.com",
			calls: []string{`fill_form_data {"name":"Anna Kowalski","email":"anna.k@example.com","date":"2026-12-06","time":"15:00"}`}, not: []string{"There is no"}},
		{say: "Sorry, could we change it to 1pm?",
			calls: []string{`fill_form_data {"name":"Anna Kowalski","email":"anna.k@example.com","date":"2026-12-06","time":"13:00"}`}},
	}},
	{"configured, then a drive: the day kept for the details", "car", "c22", []siteTurn{
		{say: "Could you make it white with the EX-L and the family package, and then book a test drive for Sunday at 1pm?",
			calls: []string{`configure_car {"color":"white","packages":["family"],"trim":"EX-L"}`, `go_to_test_drive {}`},
			reply: []string{"name and email"}, not: []string{"There is no"}, on: "test-drive"},
		{say: "Tom Reyes, tom.reyes@example.com",
			calls: []string{`fill_form_data {"name":"Tom Reyes","email":"tom.reyes@example.com","date":"2026-12-06","time":"13:00"}`}},
		{say: "Book it, thanks.", calls: []string{`book_test_drive {}`}, reply: []string{"Booked test drive", "Odyssey"}},
	}},
	{"details after a list: a suggestion is no car named", "inventory", "", []siteTurn{
		{say: "any suvs?", calls: []string{`search_cars {"bodyType":"suv"}`}},
		{say: "Tom Reyes, tom.reyes@example.com", reply: []string{"Noted"}},
		{say: "And please add my phone: 555 310 4477.", reply: []string{"Noted"}, not: []string{"Opening"}},
	}},
	{"one value swapped for another", "car", "c22", []siteTurn{
		{say: "The Elite trim please.", calls: []string{`configure_car {"trim":"Elite"}`}},
		{say: "Hmm, swap the Elite for the EX-L, please.", calls: []string{`configure_car {"trim":"EX-L"}`}, reply: []string{"EX-L trim"}},
		{say: "add the family package", calls: []string{`configure_car {"packages":["family"]}`}},
		{say: "replace the family package with the premium sound one", calls: []string{`configure_car {"packages":["sound"]}`}},
	}},
	{"the applicant's name, not the words about the income", "financing", "c22", []siteTurn{
		{say: "What would the monthly payment be over 48 months with $5,000 down?", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":48}`}},
		{say: "We'd like to apply. I'm Maria Gonzalez, maria.gonzalez@example.com, and our household income is 92,000 a year.",
			calls: []string{`apply_for_financing {"fullName":"Maria Gonzalez","email":"maria.gonzalez@example.com","annualIncome":92000}`}},
		{say: "Thank you! Can we also book a test drive for Sunday at 11?",
			calls: []string{`go_to_test_drive {}`, `fill_form_data {"name":"Maria Gonzalez","email":"maria.gonzalez@example.com","date":"2026-12-06","time":"11:00"}`},
			not:   []string{"household"}, on: "test-drive"},
	}},
	{"an application after a drive: the terms chosen, not the calculator's defaults", "financing", "c03", []siteTurn{
		{say: "Could we try 48 months at 4.9% with $5,000 down?", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":48,"apr":4.9}`}},
		{say: "We'd like to apply, but first, can we test drive it on Saturday at 11?", calls: []string{`go_to_test_drive {}`}, reply: []string{"name and email"}, on: "test-drive"},
		{say: "Noah Kim, noah.kim@example.com", calls: []string{`fill_form_data {"name":"Noah Kim","email":"noah.kim@example.com","date":"2026-12-05","time":"11:00"}`}},
		{say: "Now back to financing please, and apply with income 120,000.",
			calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":5000,"termMonths":48,"apr":4.9}`,
				`apply_for_financing {"fullName":"Noah Kim","email":"noah.kim@example.com","annualIncome":120000}`},
			reply: []string{"$31,900 over 48 months"}, on: "financing"},
	}},
	{"an application for another car takes no terms of the first", "car", "c01", []siteTurn{
		{say: "Could you show us the monthly payment for 36 months with 4,000 down?", calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":4000,"termMonths":36}`}, on: "financing"},
		{say: "go back to the list", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "open the camry", calls: []string{`search_cars {}`, `select_car {"carId":"c09"}`}, on: "car"},
		{say: "go to financing and apply for me: Lee Chan, lee.chan@example.com, income 70,000.",
			calls: []string{`go_to_financing {}`, `apply_for_financing {"fullName":"Lee Chan","email":"lee.chan@example.com","annualIncome":70000}`},
			reply: []string{"$26,500"}, on: "financing"},
	}},
	{"a comparison with cars the filtered list does not show", "inventory", "", []siteTurn{
		{say: "show me minivans", calls: []string{`search_cars {"bodyType":"minivan"}`}, reply: []string{"Showing 1 car"}},
		{say: "Please compare the Odyssey, the RAV4 and the Outback.",
			calls: []string{`search_cars {}`, `search_cars {"bodyType":"minivan"}`, `compare_cars {"carIds":["c22","c01","c06"]}`},
			reply: []string{"2023 Toyota RAV4", "2022 Subaru Outback"}, not: []string{"$0"}, on: "drawer"},
	}},
	{"the car's page again, from its calculator", "financing", "c07", []siteTurn{
		{say: "Could you work out 60 months with $9,000 down?", calls: []string{`calculate_payment {"downPayment":9000,"termMonths":60}`}},
		{say: "Now, could we see the car's page again?", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c07"}`}, reply: []string{"2022 Volvo XC60"}, on: "car"},
	}},
	{"what a package costs, asked, is no package added", "car", "c08", []siteTurn{
		{say: "Please add the winter package and the technology package.", calls: []string{`configure_car {"packages":["winter","tech"]}`}},
		{say: "How much does the technology package cost on its own?", reply: []string{"The Technology package is $1,800."}},
		{say: "what's the price of the winter package?", reply: []string{"The Winter package is $900."}},
	}},
	{"what a package costs before it was added", "car", "c06", []siteTurn{
		{say: "How much is the off-road package?", reply: []string{"once it is added", "add the offroad package"}},
		{say: "add it", calls: []string{`configure_car {"packages":["offroad"]}`}, reply: []string{"Off-road package $2,600"}},
		{say: "how much is the off-road package?", reply: []string{"The Off-road package is $2,600."}},
	}},
	{"the other one, not the one named", "inventory", "", []siteTurn{
		{say: "Hello, could you compare the Odyssey and the RAV4 for us?", calls: []string{`search_cars {}`, `compare_cars {"carIds":["c22","c01"]}`}, on: "drawer"},
		{say: "Thanks. Let's look at the other one, not the Odyssey.", calls: []string{`select_car {"carId":"c01"}`}, reply: []string{"2023 Toyota RAV4"}, on: "car"},
	}},
	{"which of the two, asked again of another figure", "inventory", "", []siteTurn{
		{say: "Which is cheaper, the Explorer or the Odyssey?", calls: []string{`search_cars {}`}, reply: []string{"The 2022 Honda Odyssey is the cheaper"}},
		{say: "And which has fewer miles?", reply: []string{"2022 Honda Odyssey", "19,000 miles"}, not: []string{"Ioniq"}},
	}},
	{"which of two terms was cheaper per month", "financing", "c06", []siteTurn{
		{say: "What would the Outback cost per month over 72 months at 5.9% with $4,000 down?", calls: []string{`calculate_payment {"downPayment":4000,"termMonths":72,"apr":5.9}`}},
		{say: "And if we choose 60 months?", calls: []string{`calculate_payment {"downPayment":4000,"termMonths":60,"apr":5.9}`}},
		{say: "Which was cheaper per month, the 72 or the 60 month option?",
			reply: []string{"The one with 72 months has the lower monthly payment: $432.97 against $505.30 for the one with 60 months."}},
	}},
	{"a day, an hour and the details in one breath", "test-drive", "c09", []siteTurn{
		{say: "sat 10 amy wong amy.wong@mail.com",
			calls: []string{`fill_form_data {"name":"amy wong","email":"amy.wong@mail.com","date":"2026-12-05","time":"10:00"}`}},
		{say: "book", calls: []string{`book_test_drive {}`}, reply: []string{"Booked test drive", "10:00"}},
		{say: "change to 11", calls: []string{`fill_form_data {"name":"amy wong","email":"amy.wong@mail.com","date":"2026-12-05","time":"11:00"}`},
			reply: []string{"stays as it was: Booked test drive TD-4821", "at 10:00", "book test drive"}},
		{click: 1},
	}},
	{"book said while the time is still missing, a day that is busy", "test-drive", "c22", []siteTurn{
		{say: "test drive this sat morning", reply: []string{"name, email and time"}},
		{say: "name tom brown email tom.brown@x.com", reply: []string{"time"}},
		{say: "wait saturday is busy, sunday", reply: []string{"time"}},
		{say: "book it pls", reply: []string{"time"}, not: []string{"didn't work", "name"}},
		{say: "10 please", calls: []string{`fill_form_data {"name":"tom brown","email":"tom.brown@x.com","date":"2026-12-06","time":"10:00"}`}},
		{say: "book it", calls: []string{`book_test_drive {}`}, reply: []string{"2026-12-06 at 10:00"}},
	}},
	{"a day of the month that does not work, and another", "test-drive", "c22", []siteTurn{
		{say: "Could we bring the Odyssey out for a spin next Sunday morning?", reply: []string{"09:00, 10:00, 11:00"}},
		{say: "The earliest slot, please.", reply: []string{"09:00"}},
		{say: "It's for Paul Becker, paul.becker@example.com, phone 555-010-2020.",
			calls: []string{`fill_form_data {"name":"Paul Becker","email":"paul.becker@example.com","phone":"555-010-2020","date":"2026-12-06","time":"09:00"}`}},
		{say: "Actually, the 13th doesn't work — could we do Saturday the 19th instead?",
			calls: []string{`fill_form_data {"name":"Paul Becker","email":"paul.becker@example.com","phone":"555-010-2020","date":"2026-12-19","time":"09:00"}`}},
	}},
	{"an amount a month is no down payment", "car", "c19", []siteTurn{
		{say: "monthly 60 mo 6k dn", calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":6000,"termMonths":60}`}, on: "financing"},
		// (held against the payment worked out)
		{say: "what if i pay 500 a month", calls: []string{}, reply: []string{"Yes: $472.12 a month is within $500 a month."}, not: []string{"down $500"}},
		{say: "i can afford $350/mo - how many months?", calls: []string{}, reply: []string{"No: $472.12 a month is over $350 a month.", "“72 months”"}},
		{click: 1, on: "financing"},
		{say: "my budget is 400 a month. what's the payment over 72 months with 10k down?", calls: []string{`calculate_payment {"downPayment":10000,"termMonths":72}`}, reply: []string{"Monthly payment $", "within $400 a month"}},
	}},
	{"an amount a month before any payment", "financing", "c19", []siteTurn{
		{say: "what if i pay 500 a month", calls: []string{}, reply: []string{"can't start from an amount a month", "72 months"}, not: []string{"down $500"}},
	}},
	{"a rate said bare", "financing", "c10", []siteTurn{
		{say: "36 months twelve thousand down", calls: []string{`calculate_payment {"downPayment":12000,"termMonths":36}`}},
		{say: "what about 2.9 and 60 mo", calls: []string{`calculate_payment {"downPayment":12000,"termMonths":60,"apr":2.9}`}, reply: []string{"2.9% APR"}},
		{say: "and with 3.5", calls: []string{`calculate_payment {"downPayment":12000,"termMonths":60,"apr":3.5}`}},
	}},
	{"the second of a ranking", "inventory", "", []siteTurn{
		{say: "cheapest electrc", calls: []string{`search_cars {"fuel":"electric"}`, `sort_cars {"by":"price","order":"asc"}`}, reply: []string{"2022 Tesla Model 3"}},
		{say: "and 2nd cheapest?", calls: []string{`sort_cars {"by":"price","order":"asc"}`}, reply: []string{"The second cheapest is the 2023 Hyundai Ioniq 5, at $41,200."}},
	}},
	{"a make's possessive names the one car of that make on screen", "inventory", "", []siteTurn{
		{say: "We're comparing hybrids. Which SUVs are hybrids?",
			calls: []string{`search_cars {"bodyType":"suv","fuel":"hybrid"}`, `compare_cars {"carIds":["c01","c07"]}`}, on: "drawer"},
		{say: "How about the Volvo's colours?", calls: []string{`select_car {"carId":"c07"}`}, reply: []string{"white, gray, black or blue"}, not: []string{"red"}, on: "car"},
	}},
	{"two kinds of one filter, and max before a figure", "inventory", "", []siteTurn{
		{say: "sedan or hatchback under 25k", calls: []string{`search_cars {"bodyType":"sedan","maxPrice":25000}`},
			reply: []string{"2023 Honda Civic", "one body type at a time", "hatchback under 25k"}},
		{click: 1},
		{say: "suv max 45000 sort by year", calls: []string{`search_cars {"bodyType":"suv","maxPrice":45000}`, `sort_cars {"by":"year"}`}},
	}},
	{"the same terms, said over several messages, for another car", "car", "c01", []siteTurn{
		{say: "how much per month", calls: []string{`go_to_financing {}`}, reply: []string{"60 months"}, on: "financing"},
		{say: "60", calls: []string{`calculate_payment {"termMonths":60}`}},
		{say: "with 4k down", calls: []string{`calculate_payment {"downPayment":4000,"termMonths":60}`}},
		{say: "what if 2.9%", calls: []string{`calculate_payment {"downPayment":4000,"termMonths":60,"apr":2.9}`}},
		{say: "now the camry same terms",
			calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c09"}`, `go_to_financing {}`, `calculate_payment {"downPayment":4000,"termMonths":60,"apr":2.9}`},
			reply: []string{"For the 2022 Toyota Camry: monthly payment $403.30"}},
	}},
	{"the same for another car, in two words", "car", "c01", []siteTurn{
		{say: "monthly 60mo", calls: []string{`go_to_financing {}`, `calculate_payment {"termMonths":60}`}, on: "financing"},
		{say: "and the crv same?", calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c02"}`, `go_to_financing {}`, `calculate_payment {"termMonths":60}`},
			reply: []string{"For the 2022 Honda CR-V"}},
	}},
	{"the same for the car opened since", "financing", "c15", []siteTurn{
		{say: "36 mo", calls: []string{`calculate_payment {"termMonths":36}`}},
		{say: "back to inventory", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "the golf pls", calls: []string{`search_cars {}`, `select_car {"carId":"c14"}`}, on: "car"},
		{say: "same for this one", calls: []string{`go_to_financing {}`, `calculate_payment {"termMonths":36}`}, reply: []string{"$675.21"}, not: []string{"Sorry", "stays as it was"}, on: "financing"},
	}},
	{"a whole configuration asked as a question, a package by its full name", "car", "c22", []siteTurn{
		{say: "Could we get the Odyssey in silver with the Elite trim and the family and premium sound packages, and tell us the total?",
			calls: []string{`configure_car {"color":"silver","packages":["family","sound"],"trim":"Elite"}`}, reply: []string{"total $44,850"}, not: []string{"no premium"}},
		{say: "Could you add the driver assistance one as well?", calls: []string{`configure_car {"color":"silver","packages":["family","sound","safety"],"trim":"Elite"}`},
			reply: []string{"Driver assistance $1,500"}, not: []string{"Sorry"}},
		{say: "ok take the safety one off again", calls: []string{`configure_car {"packages":["family","sound"]}`}, reply: []string{"Elite trim", "silver", "total $44,850"}, not: []string{"Driver assistance"}},
	}},
	{"a package added as well", "car", "c02", []siteTurn{
		{say: "Could you add the cargo organiser as well?", calls: []string{`configure_car {"packages":["cargo"]}`}, reply: []string{"Cargo organiser $350"}},
	}},
	{"thanks, then going; the cheaper one's calculator", "financing", "c09", []siteTurn{
		{say: "thx go back to list", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "convertibles", calls: []string{`search_cars {"bodyType":"convertible"}`}},
		{say: "cheaper one", reply: []string{"The 2022 Mazda MX-5 Miata is the cheaper"}},
		{say: "go to financing", calls: []string{`select_car {"carId":"c23"}`, `go_to_financing {}`}, reply: []string{"2022 Mazda MX-5 Miata"}, on: "financing"},
	}},
	{"a drive next weekend, then the day", "test-drive", "c06", []siteTurn{
		{say: "Hi, we would love to test drive the Outback next weekend.", reply: []string{"Saturday, December 5 or Sunday, December 6?"}, not: []string{"Sorry"}},
		{say: "Sunday at 10, Jo Kim jo@kim.io", calls: []string{`fill_form_data {"name":"Jo Kim","email":"jo@kim.io","date":"2026-12-06","time":"10:00"}`}},
	}},
	{"a drive this weekend, a payment asked short", "car", "c01", []siteTurn{
		{say: "how much mo for this one", calls: []string{`go_to_financing {}`}, reply: []string{"60 months"}, on: "financing"},
		{say: "book a test drive this weekend", calls: []string{`go_to_test_drive {}`}, reply: []string{"Saturday, December 5 or Sunday, December 6?"}, on: "test-drive"},
	}},
	{"we'd is no name", "inventory", "", []siteTurn{
		{say: "Good morning! We'd like to see family cars with under 20,000 miles.", calls: []string{`search_cars {"bodyType":"suv","maxMileage":20000}`},
			not: []string{"There is no"}},
	}},
	{"compare it, the one shown, with one not listed", "inventory", "", []siteTurn{
		{say: "Good morning. We need a car with room for three kids. Do you have a minivan?", calls: []string{`search_cars {"bodyType":"minivan"}`}, reply: []string{"2022 Honda Odyssey"}},
		{say: "Could you compare it with the Ford Explorer?", calls: []string{`search_cars {}`, `search_cars {"bodyType":"minivan"}`, `compare_cars {"carIds":["c03","c22"]}`},
			reply: []string{"2021 Ford Explorer", "2022 Honda Odyssey"}, on: "drawer"},
	}},
	{"the kind, sorted, said politely", "inventory", "", []siteTurn{
		{say: "Hi, could you show us the SUVs sorted by price from low to high?", calls: []string{`search_cars {"bodyType":"suv"}`, `sort_cars {"by":"price","order":"asc"}`},
			not: []string{"Sorry"}},
		{say: "What's the cheapest one?", reply: []string{"2023 Kia Sportage"}},
	}},
	{"back to the car by its name, to change it", "financing", "c01", []siteTurn{
		{say: "60 months with $5,000 down please.", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":60}`}},
		{say: "Back to the RAV4, please; we'd like to change the colour to blue.",
			calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c01"}`, `configure_car {"color":"blue"}`}, reply: []string{"blue"}, not: []string{"Showing"}, on: "car"},
	}},
	{"how many the list shows", "inventory", "", []siteTurn{
		{say: "Could you show us only cars from 2022 or newer under 35,000?", calls: []string{`search_cars {"maxPrice":35000,"minYear":2022}`}},
		{say: "How many are there?", reply: []string{"There are 10 cars."}},
		{say: "how many miles does the camry have", reply: []string{"miles"}, not: []string{"There are 10"}},
	}},
	// Another car, named in lower case before any list has shown it, is not the one on screen.
	{"another car's colours asked in lower case on a car's page", "car", "c05", []siteTurn{
		{say: "what colours does the civic come in", calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c10"}`},
			reply: []string{"blue, white, black, gray or red"}, on: "car"},
	}},
	{"another car's mileage asked in lower case", "car", "c05", []siteTurn{
		{say: "what's the mileage on the civic", calls: []string{`back_to_inventory {}`, `search_cars {}`}, reply: []string{"The 2023 Honda Civic has 9,000 miles."}, on: "inventory"},
	}},
	{"another car's monthly in lower case, on the financing page", "financing", "c09", []siteTurn{
		{say: "what's the monthly on the civic with 48 months and 5000 down",
			calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c10"}`, `go_to_financing {}`, `calculate_payment {"downPayment":5000,"termMonths":48}`},
			reply: []string{"For the 2023 Honda Civic", "$451.71"}, on: "financing"},
	}},
	{"another car's cost a month from a car's page", "car", "c05", []siteTurn{
		{say: "what would the civic cost a month over 48 months",
			calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c10"}`, `go_to_financing {}`, `calculate_payment {"termMonths":48}`},
			reply: []string{"2023 Honda Civic"}, on: "financing"},
	}},
	{"and the other car, named alone, on the same terms", "financing", "c09", []siteTurn{
		{say: "48 months 5000 down", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":48}`}},
		{say: "and the civic?", calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c10"}`, `go_to_financing {}`, `calculate_payment {"downPayment":5000,"termMonths":48}`},
			reply: []string{"For the 2023 Honda Civic"}, on: "financing"},
		{say: "what about the golf", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c14"}`, `go_to_financing {}`, `calculate_payment {"downPayment":5000,"termMonths":48}`},
			reply: []string{"For the 2021 Volkswagen Golf"}, on: "financing"},
	}},
	{"the same terms for one car, then another named alone", "financing", "c09", []siteTurn{
		{say: "48 months 5000 down", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":48}`}},
		{say: "now the civic same terms", calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c10"}`, `go_to_financing {}`, `calculate_payment {"downPayment":5000,"termMonths":48}`}},
		{say: "and the golf?", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c14"}`, `go_to_financing {}`, `calculate_payment {"downPayment":5000,"termMonths":48}`},
			reply: []string{"For the 2021 Volkswagen Golf", "$403.91"}, on: "financing"},
	}},
	{"a share of the price said after the down payment", "financing", "c16", []siteTurn{
		{say: "48", calls: []string{`calculate_payment {"termMonths":48}`}},
		{say: "with $1,500 down", calls: []string{`calculate_payment {"downPayment":1500,"termMonths":48}`}},
		{say: "what if the down payment was 10%", calls: []string{`calculate_payment {"downPayment":2240,"termMonths":48}`}, reply: []string{"6.9% APR"}},
		{say: "and a down payment of 15%?", calls: []string{`calculate_payment {"downPayment":3360,"termMonths":48}`}},
	}},
	{"a booking cancelled is not offered again", "test-drive", "c19", []siteTurn{
		{say: "saturday 10am", reply: []string{"name and email"}},
		{say: "Ivy Chen, ivy.chen@hey.com", calls: []string{`fill_form_data {"date":"2026-12-05","email":"ivy.chen@hey.com","name":"Ivy Chen","time":"10:00"}`}},
		{say: "book it", calls: []string{`book_test_drive {}`}},
		{say: "cancel that booking", reply: []string{"Sorry"}, not: []string{"Should I submit"}},
		{say: "yes", not: []string{"Booked"}},
	}},
	{"a phone number said as my number", "test-drive", "c14", []siteTurn{
		{say: "friday at 10, Priya Raman, priya.raman@outlook.com", calls: []string{`fill_form_data {"date":"2026-12-04","email":"priya.raman@outlook.com","name":"Priya Raman","time":"10:00"}`}},
		{say: "and my number 07700 900123", calls: []string{`fill_form_data {"date":"2026-12-04","email":"priya.raman@outlook.com","name":"Priya Raman","phone":"07700 900123","time":"10:00"}`}},
	}},
	{"the car the page first showed, asked for again after another", "financing", "c11", []siteTurn{
		{say: "do you have any bmws with less than 20k miles?", calls: []string{`back_to_inventory {}`, `search_cars {"make":"BMW","maxMileage":20000}`}, on: "inventory"},
		{say: "open the m240i", calls: []string{`select_car {"carId":"c20"}`}, on: "car"},
		{say: "and monthly over 48 months?", calls: []string{`go_to_financing {}`, `calculate_payment {"termMonths":48}`}, on: "financing"},
		{say: "what about the 330i, same terms", calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c11"}`, `go_to_financing {}`, `calculate_payment {"termMonths":48}`},
			reply: []string{"For the 2021 BMW 330i", "$831.72"}, on: "financing"},
		{say: "which one is cheaper", reply: []string{"The 2021 BMW 330i is the cheaper"}},
	}},
	{"the car on screen named by its model number", "car", "c11", []siteTurn{
		{say: "what colours does the 330i come in", calls: []string{}, reply: []string{"black, white, blue or gray"}},
	}},
	{"the top one of the trims listed, and a colour", "car", "c18", []siteTurn{
		{say: "what trims does it have", reply: []string{"SR5, TRD Off-Road or Limited"}},
		{say: "the top one in green", calls: []string{`configure_car {"color":"green","trim":"Limited"}`}},
	}},
	{"what it can do, asked after a refusal", "car", "c08", []siteTurn{
		{say: "do you do trade-ins?", reply: []string{"Sorry"}},
		{say: "hmm ok, what can you do then", reply: []string{"what I can do"}, not: []string{"Sorry"}},
	}},
	{"the income said with the details, before a payment, is applied with", "financing", "c15", []siteTurn{
		{say: "hi, i'm Ben Olsen, ben.olsen@gmx.net, earning about 52k a year", reply: []string{"annual income 52000"}},
		{say: "what would 48 months look like with 2000 down", calls: []string{`calculate_payment {"downPayment":2000,"termMonths":48}`}},
		{say: "sure, apply", calls: []string{`apply_for_financing {"annualIncome":52000,"email":"ben.olsen@gmx.net","fullName":"Ben Olsen"}`}},
	}},
	{"a package asked about, then added as it", "car", "c20", []siteTurn{
		{say: "whats in the comfort one", reply: []string{"add the comfort package"}},
		{say: "add it", calls: []string{`configure_car {"packages":["comfort"]}`}},
	}},
	{"back to the form filled before, by the form", "car", "c13", []siteTurn{
		{say: "hey can i take this audi out for a spin thurs at 2", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "its Omar Haddad omar.h@posteo.de", calls: []string{`fill_form_data {"date":"2026-12-03","email":"omar.h@posteo.de","name":"Omar Haddad","time":"14:00"}`}},
		{say: "and whats it per month over 48 with 5k down", calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":5000,"termMonths":48}`}, on: "financing"},
		{say: "back to the form please", calls: []string{`go_to_test_drive {}`, `fill_form_data {"date":"2026-12-03","email":"omar.h@posteo.de","name":"Omar Haddad","time":"14:00"}`}, on: "test-drive"},
	}},
	{"the other end of a ranking asked alone", "inventory", "", []siteTurn{
		{say: "suvs under 35k", calls: []string{`search_cars {"bodyType":"suv","maxPrice":35000}`}},
		{say: "which has the lowest mileage", reply: []string{"The 2023 Toyota RAV4 is the lowest-mileage"}},
		{say: "and the highest?", reply: []string{"The 2022 Honda CR-V is the highest-mileage, with 21,000 miles"}},
	}},
	{"the same as before, after a detour to the car", "financing", "c22", []siteTurn{
		{say: "60", calls: []string{`calculate_payment {"termMonths":60}`}},
		{say: "hmm can i see it in blue first", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c22"}`, `configure_car {"color":"blue"}`}, on: "car"},
		{say: "ok go back to the payment calc", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "same as before?", calls: []string{`calculate_payment {"termMonths":60}`}},
	}},
	{"how many in total, before any list", "inventory", "", []siteTurn{
		{say: "how many cars do you have in total", calls: []string{`search_cars {}`}, reply: []string{"24 cars"}},
	}},
	{"another car by its make and model number, in lower case", "car", "c05", []siteTurn{
		{say: "the bmw 330i", calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c11"}`}, on: "car"},
	}},
	{"the same terms for another car, after a term changed", "inventory", "", []siteTurn{
		{say: "cheapest suv?", calls: []string{`search_cars {"bodyType":"suv"}`, `sort_cars {"by":"price","order":"asc"}`}},
		{say: "monthly on that over 60 months w 4k down", calls: []string{`select_car {"carId":"c08"}`, `go_to_financing {}`, `calculate_payment {"downPayment":4000,"termMonths":60}`}, on: "financing"},
		{say: "and 48", calls: []string{`calculate_payment {"downPayment":4000,"termMonths":48}`}},
		{say: "actually can i see the cr-v instead", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c02"}`}, on: "car"},
		{say: "how much a month for this one, same terms", calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":4000,"termMonths":48}`}, on: "financing"},
	}},
	{"the same deal on another car is the payment, not the first car's trim", "car", "c09", []siteTurn{
		{say: "xle trim", calls: []string{`configure_car {"trim":"XLE"}`}},
		{say: "per month over 36 months?", calls: []string{`go_to_financing {}`, `calculate_payment {"termMonths":36}`}, on: "financing"},
		{say: "and at 60 months", calls: []string{`calculate_payment {"termMonths":60}`}},
		{say: "ok and can i see the rav4 instead", calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c01"}`}, on: "car"},
		{say: "what's that per month, same deal", calls: []string{`go_to_financing {}`, `calculate_payment {"termMonths":60}`}, on: "financing"},
	}},
	{"a kind its name says, asked of the car on screen", "car", "c24", []siteTurn{
		{say: "is this a convertible?", reply: []string{"Yes: it is the 2021 BMW 430i Convertible."}},
		{say: "is it a hybrid?", reply: []string{"I can't tell"}},
	}},
	{"when to come, and the name the form has", "test-drive", "c03", []siteTurn{
		{say: "when can i come in?", reply: []string{"The time can be 09:00, 10:00, 11:00, 13:00, 14:00, 15:00 or 16:00."}},
		{say: "saturday at 11, Marcus Bell, marcus.bell@fastmail.com", calls: []string{`fill_form_data {"date":"2026-12-05","email":"marcus.bell@fastmail.com","name":"Marcus Bell","time":"11:00"}`}},
		{say: "what's my name on the form", reply: []string{"Marcus Bell"}, not: []string{"Sorry"}},
	}},
	{"compare them, with one car shown", "inventory", "", []siteTurn{
		{say: "i need a pickup truck under 40 grand", calls: []string{`search_cars {"bodyType":"pickup","maxPrice":40000}`}},
		{say: "compare them", reply: []string{"Only one car is shown: the 2021 Toyota Tacoma. That is too few to open the comparison drawer"}},
	}},
	{"a term the calculator does not offer", "financing", "c04", []siteTurn{
		{say: "can you do 84 months?", reply: []string{"There is no 84 months option.", "72 months"}},
		{say: "ok 72 then", calls: []string{`calculate_payment {"termMonths":72}`}},
	}},
	{"the colours of a car named by its make before any list", "inventory", "", []siteTurn{
		{say: "What colours does the Volvo come in?", calls: []string{`search_cars {"make":"Volvo"}`}, reply: []string{"2022 Volvo XC60"}, not: []string{"green"}},
		{say: "what colours does it come in", calls: []string{`select_car {"carId":"c07"}`}, reply: []string{"white, gray, black or blue"}, on: "car"},
	}},
	{"what the list said of a car, asked by the field's name", "inventory", "", []siteTurn{
		{say: "show me minivans", calls: []string{`search_cars {"bodyType":"minivan"}`}},
		{say: "What fuel does the Explorer use?", calls: []string{`search_cars {}`, `search_cars {"bodyType":"minivan"}`}, reply: []string{"The fuel of the 2021 Ford Explorer: gasoline."}},
	}},
	{"a kind cheaper than a car seen", "inventory", "", []siteTurn{
		{say: "minivans", calls: []string{`search_cars {"bodyType":"minivan"}`}},
		{say: "Which SUVs cost less than the Odyssey?", calls: []string{`search_cars {"bodyType":"suv"}`},
			reply: []string{"3 are cheaper than the 2022 Honda Odyssey ($34,900): the 2023 Kia Sportage ($27,800), the 2022 Honda CR-V ($29,450) and the 2023 Toyota RAV4 ($31,990)."}},
	}},
	{"what about another colour, after asking about one", "car", "c05", []siteTurn{
		{say: "Does it come in blue?", reply: []string{"No, not in blue"}},
		{say: "What about green?", calls: []string{}, reply: []string{"Yes: the color can be green"}},
		{say: "make it blue", reply: []string{"Not in blue"}},
		{say: "what about green", calls: []string{`configure_car {"color":"green"}`}},
	}},
	{"an hour written with h", "test-drive", "c01", []siteTurn{
		{say: "saturday 14h", reply: []string{"name and email"}, not: []string{"time"}},
		{say: "jo lee, jo@lee.io", calls: []string{`fill_form_data {"date":"2026-12-05","email":"jo@lee.io","name":"jo lee","time":"14:00"}`}},
	}},
	{"a rate said in words with its decimals", "financing", "c09", []siteTurn{
		{say: "48 months", calls: []string{`calculate_payment {"termMonths":48}`}},
		{say: "apr three point nine", calls: []string{`calculate_payment {"apr":3.9,"termMonths":48}`}},
		{say: "what about four point two five percent", calls: []string{`calculate_payment {"apr":4.25,"termMonths":48}`}},
	}},
	{"no name taken from the words of the request", "test-drive", "c23", []siteTurn{
		{say: "I'd like to come in saturday", reply: []string{"name, email and time"}},
		{say: "morning if possible, 9", reply: []string{"name and email"}},
		{say: "my email is pat@pat.com", calls: []string{}, reply: []string{"I need your name"}},
	}},
	{"a first name after im, and a change of time", "test-drive", "c09", []siteTurn{
		{say: "id like to book for friday 3pm", reply: []string{"name and email"}},
		{say: "im Sam", reply: []string{"I need your email"}, not: []string{"Sorry"}},
		{say: "sam@sam.org", calls: []string{`fill_form_data {"date":"2026-12-04","email":"sam@sam.org","name":"Sam","time":"15:00"}`}},
		{say: "change the time to 4", calls: []string{`fill_form_data {"date":"2026-12-04","email":"sam@sam.org","name":"Sam","time":"16:00"}`}},
		{say: "book", calls: []string{`book_test_drive {}`}, reply: []string{"for Sam"}},
	}},
	{"a date by its month's short name, then changed to another day", "test-drive", "c20", []siteTurn{
		{say: "Name: Chris Doe. Email chris.doe@x.org. Phone 555 123 4567", reply: []string{"date and time"}},
		{say: "dec 10 at 1pm", calls: []string{`fill_form_data {"date":"2026-12-10","email":"chris.doe@x.org","name":"Chris Doe","phone":"555 123 4567","time":"13:00"}`}},
		{say: "actually the 11th", calls: []string{`fill_form_data {"date":"2026-12-11","email":"chris.doe@x.org","name":"Chris Doe","phone":"555 123 4567","time":"13:00"}`}},
	}},
	{"another car wanted, not the one being booked", "car", "c15", []siteTurn{
		{say: "book me a test drive thursday at 3pm, I'm Jo Kim, jo@kim.co", calls: []string{`go_to_test_drive {}`, `fill_form_data {"date":"2026-12-03","email":"jo@kim.co","name":"Jo Kim","time":"15:00"}`}, on: "test-drive"},
		{say: "wait actually I want the golf not this one", calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c14"}`}, on: "car"},
		{say: "ok book it", calls: []string{`go_to_test_drive {}`, `fill_form_data {"date":"2026-12-03","email":"jo@kim.co","name":"Jo Kim","time":"15:00"}`, `book_test_drive {}`},
			reply: []string{"2021 Volkswagen Golf"}, not: []string{"Mazda3"}, on: "test-drive"},
	}},
	{"same terms on another car are the payment's, not the configuration's", "inventory", "", []siteTurn{
		{say: "the mustang", calls: []string{`search_cars {}`, `select_car {"carId":"c19"}`}, on: "car"},
		{say: "ok blue with the GT trim plus sport package", calls: []string{`configure_car {"color":"blue","packages":["sport"],"trim":"GT"}`}},
		{say: "monthly over 72 with 5k down", calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":5000,"termMonths":72}`}, on: "financing"},
		{say: "nvm show me the bmw coupe", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c20"}`}, on: "car"},
		{say: "same terms", calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":5000,"termMonths":72}`}, on: "financing"},
	}},
	{"a field of the car on screen asked alone", "inventory", "", []siteTurn{
		{say: "show me hatchbacks", calls: []string{`search_cars {"bodyType":"hatchback"}`}},
		{say: "tell me more about the golf", calls: []string{`select_car {"carId":"c14"}`}, on: "car"},
		{say: "and fuel?", reply: []string{"The fuel of the 2021 Volkswagen Golf: gasoline."}},
	}},
	{"a booking of another car says nothing of what was sent before", "car", "c14", []siteTurn{
		{say: "book a test drive of the civic on saturday at 11", calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c10"}`, `go_to_test_drive {}`}, on: "test-drive"},
		{say: "my name is Dana Reyes, dana@example.com", calls: []string{`fill_form_data {"date":"2026-12-05","email":"dana@example.com","name":"Dana Reyes","time":"11:00"}`},
			not: []string{"What was sent before", "Going back"}},
	}},
	{"a car whose name has a model number in it, by its page", "car", "c21", []siteTurn{
		{say: "go to financing", calls: []string{`go_to_financing {}`}, reply: []string{"the 2020 Audi A6 Avant at $38,900"}, on: "financing"},
		{say: "back to the car", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c21"}`}, reply: []string{"Opening the page of the 2020 Audi A6 Avant ($38,900)."}, on: "car"},
	}},
	{"back to the car's page, said on it", "car", "c05", []siteTurn{
		{say: "whats this a month over 60 with 5000 down", calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":5000,"termMonths":60}`}, on: "financing"},
		{say: "hmm and the ioniq with the limited trim?", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c05"}`, `configure_car {"trim":"Limited"}`}, on: "car"},
		{say: "no wait go back to the car page", calls: []string{}, reply: []string{"You're already there."}, on: "car"},
	}},
	{"back to the first car opened, not the first of the list", "inventory", "", []siteTurn{
		{say: "any pickups?", calls: []string{`search_cars {"bodyType":"pickup"}`}},
		{say: "open the tacoma", calls: []string{`select_car {"carId":"c18"}`}, on: "car"},
		{say: "actually scratch that, the f-150", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c17"}`}, on: "car"},
		{say: "whats that a month with 5000 down", calls: []string{`go_to_financing {}`}, reply: []string{"24 months"}, on: "financing"},
		{say: "go back to the first one", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c18"}`}, reply: []string{"2021 Toyota Tacoma"}, on: "car"},
	}},
	{"back to the first one, with one car opened", "inventory", "", []siteTurn{
		{say: "hmm whats the mileage on the corolla", calls: []string{`search_cars {}`}},
		{say: "ok open the corolla", calls: []string{`select_car {"carId":"c16"}`}, on: "car"},
		{say: "go back to the first one", reply: []string{"2022 Toyota Corolla Hatchback"}, not: []string{"RAV4"}},
	}},
	{"a phone number said with is", "test-drive", "c03", []siteTurn{
		{say: "phone is 5553339999", reply: []string{"name, email, date and time"}, not: []string{"Sorry"}},
	}},
	{"any in a colour, of the car on screen", "car", "c05", []siteTurn{
		{say: "any in white?", calls: []string{}, reply: []string{"Yes: the color can be white"}},
		{say: "any in black?", reply: []string{"No, not in black"}},
	}},
	{"yes, after the application was sent", "financing", "c09", []siteTurn{
		{say: "apply for financing: Jordan Fox, jfox@mail.com, income 110k", calls: []string{`apply_for_financing {"annualIncome":110000,"email":"jfox@mail.com","fullName":"Jordan Fox"}`}},
		{say: "yes go ahead", calls: []string{}, reply: []string{"That is done already: Application FN-12345 submitted"}},
	}},
	{"all of a kind, after a cap", "inventory", "", []siteTurn{
		{say: "i need a pickup truck under 40 grand", calls: []string{`search_cars {"bodyType":"pickup","maxPrice":40000}`}},
		{say: "how about all pickups", calls: []string{`search_cars {"bodyType":"pickup"}`}},
		{say: "which costs more", reply: []string{"The 2021 Ford F-150 is the more expensive"}},
	}},
	{"a day in a question about something the site never named", "financing", "c09", []siteTurn{
		{say: "what's the weather like tomorrow", calls: []string{}, not: []string{"Opening"}},
		{say: "ok, book a test drive tomorrow at 11", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
	}},
	{"another car than the one being booked, asked without a name", "inventory", "", []siteTurn{
		{say: "open the Camry", calls: []string{`search_cars {}`, `select_car {"carId":"c09"}`}, on: "car"},
		{say: "book a test drive", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "hmm can i change the car?", calls: []string{`back_to_inventory {}`}, not: []string{"Sorry", "Camry"}, on: "inventory"},
		{say: "open the Outback", calls: []string{`select_car {"carId":"c06"}`}, on: "car"},
		{say: "show me a different car", calls: []string{`back_to_inventory {}`}, on: "inventory"},
	}},
	{"numbers written in words, compound ones and halves", "financing", "c16", []siteTurn{
		{say: "could you work out the monthly payment over sixty months, please?", calls: []string{`calculate_payment {"termMonths":60}`}},
		{say: "what about seventy-two months with five thousand down?", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":72}`}},
		{say: "could I try thirty six months", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":36}`}},
		{say: "and if the rate were four and a half percent", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":36,"apr":4.5}`}},
		{say: "and at forty-eight?", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":48,"apr":4.5}`}},
		{say: "with fifteen hundred down", calls: []string{`calculate_payment {"downPayment":1500,"termMonths":48,"apr":4.5}`}},
		{say: "twelve hundred and fifty down then", calls: []string{`calculate_payment {"downPayment":1250,"termMonths":48,"apr":4.5}`}},
		{say: "I'd like to apply, I'm Tom Whitfield, tom@whitfield.org", reply: []string{"annual income"}},
		{say: "I make about sixty-five thousand a year",
			calls: []string{`apply_for_financing {"fullName":"Tom Whitfield","email":"tom@whitfield.org","annualIncome":65000}`}},
	}},
	{"a comparison undone", "inventory", "", []siteTurn{
		{say: "compare the bmw 330i and the audi a4", calls: []string{`search_cars {}`, `compare_cars {"carIds":["c11","c13"]}`}, on: "drawer"},
		{say: "undo that", calls: []string{}, reply: []string{"I can't undo that: nothing here says what the car ids were before."}},
	}},
	{"how many cars, of the list shown and in total", "inventory", "", []siteTurn{
		{say: "Please show me the cars under 25k sorted by mileage.", calls: []string{`search_cars {"maxPrice":25000}`, `sort_cars {"by":"mileage"}`}},
		{say: "How many cars is that?", calls: []string{}, reply: []string{"There are 4 cars."}},
		{say: "and how many are there in total?", calls: []string{`search_cars {}`}, reply: []string{"24 cars"}},
		{say: "how many cars are there?", calls: []string{}, reply: []string{"There are 24 cars."}},
		{say: "show me the suvs", calls: []string{`search_cars {"bodyType":"suv"}`}},
		{say: "how many is that", calls: []string{}, reply: []string{"There are 7 cars."}},
		{say: "how many cars do you have altogether", calls: []string{`search_cars {}`}, reply: []string{"24 cars"}},
	}},
	{"a list asked for, then a ranking of it after a comma", "inventory", "", []siteTurn{
		{say: "Good evening, could you show me the minivans under 30k, and which one has the lowest mileage?",
			calls: []string{`search_cars {"bodyType":"minivan","maxPrice":30000}`, `sort_cars {"by":"mileage","order":"asc"}`}, reply: []string{"No minivans match right now."}},
		{say: "Hello, I'd like to see your hybrids, please, and which one is the cheapest?",
			calls: []string{`search_cars {"fuel":"hybrid"}`, `sort_cars {"by":"price","order":"asc"}`}, reply: []string{"2022 Toyota Camry $26,500"}},
	}},
	{"one amount said twice is one bound", "inventory", "", []siteTurn{
		{say: "we have a budget of about $25,000. What do you have under 25k?", calls: []string{`search_cars {"maxPrice":25000}`}, reply: []string{"Showing 4 cars"}},
	}},
	{"a name, a phone and an e-mail given in three messages on three pages", "inventory", "", []siteTurn{
		{say: "Hi, my name is Grace Holloway. I'm shopping for a family car.", calls: []string{`search_cars {"bodyType":"suv"}`}, not: []string{"Sorry"}},
		{say: "What SUVs do you have under 30k?", calls: []string{`search_cars {"bodyType":"suv","maxPrice":30000}`}},
		{say: "Which one would be cheapest per month over 60 months?",
			calls: []string{`select_car {"carId":"c08"}`, `go_to_financing {}`, `calculate_payment {"termMonths":60}`}, on: "financing"},
		{say: "My phone number is 555 880 4411.", calls: []string{}, reply: []string{"Noted"}, not: []string{"Sorry"}},
		{say: "I'd like to test drive the Sportage next Monday at 1pm.", calls: []string{`go_to_test_drive {}`}, reply: []string{"I need your email"}, on: "test-drive"},
		{say: "grace.holloway@example.com",
			calls: []string{`fill_form_data {"name":"Grace Holloway","email":"grace.holloway@example.com","phone":"555 880 4411","date":"2026-12-07","time":"13:00"}`}},
	}},
	{"a choice picked two turns back answers no form", "test-drive", "c01", []siteTurn{
		{say: "what would the RAV4 cost per month?", calls: []string{`go_to_financing {}`}, reply: []string{"36 months"}, on: "financing"},
		{say: "do they come in blue", reply: []string{"Elsewhere on the site"}},
		{say: "add it", calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c01"}`}, on: "car"},
		{say: "back to the form please", reply: []string{"go to test drive"}}, // (it panicked)
	}},
	{"a share of the price said roughly", "financing", "c08", []siteTurn{
		{say: "What would the payment be over 60 months?", calls: []string{`calculate_payment {"termMonths":60}`}},
		{say: "We could put down about 10% of the price.", calls: []string{`calculate_payment {"downPayment":2780,"termMonths":60}`}, reply: []string{"price $27,800, down $2,780"}},
	}},
	{"a trade-in's worth is not the price", "financing", "c16", []siteTurn{
		{say: "What would the monthly cost be over 60 months if I trade in my old car worth $3,000 and put $2,000 cash down?",
			calls: []string{`calculate_payment {"downPayment":2000,"termMonths":60}`}, reply: []string{"price $22,400"}},
	}},
	{"another model of the make on screen, on the same terms", "financing", "c22", []siteTurn{
		{say: "What's the monthly payment over 72 months with $7,500 down?", calls: []string{`calculate_payment {"downPayment":7500,"termMonths":72}`}},
		{say: "What about the Honda CR-V instead, same terms?",
			calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c02"}`, `go_to_financing {}`, `calculate_payment {"downPayment":7500,"termMonths":72}`},
			reply: []string{"2022 Honda CR-V"}, on: "financing"},
	}},
	{"two cars named after a name asked for earlier, each replaced once", "inventory", "", []siteTurn{
		{say: "remind me what the civic was a month", calls: []string{`search_cars {}`, `select_car {"carId":"c10"}`, `go_to_financing {}`}, on: "financing"},
		{say: "compare the camry with the civic", calls: []string{`back_to_inventory {}`, `compare_cars {"carIds":["c09","c10"]}`}, on: "drawer"}, // (it panicked)
	}},
	{"a name read across the request before and this one, replaced once", "car", "c19", []siteTurn{
		{say: "what was the monthly for the mazda3?", calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c15"}`, `go_to_financing {}`}, on: "financing"},
		{say: "compare the Ford Mustang with the Mazda MX-5 Miata", calls: []string{`back_to_inventory {}`, `compare_cars {"carIds":["c19","c23"]}`}, on: "drawer"}, // (it panicked)
	}},
	{"one of the cars of a question asked back is no answer to it", "inventory", "", []siteTurn{
		{say: "Could you show me everything under 25,000 dollars, sorted by price?", calls: []string{`search_cars {"maxPrice":25000}`, `sort_cars {"by":"price"}`}},
		{say: "Could you compare the cheapest three?", calls: []string{`sort_cars {"by":"price","order":"asc"}`, `compare_cars {"carIds":["c14","c16","c10"]}`}, on: "drawer"},
		{say: "Any of them with a third row?", reply: []string{"Should I open the comparison drawer"}},
		{say: "Open the Civic, please.", calls: []string{`select_car {"carId":"c10"}`}, on: "car"},
		{say: "Could we see it in red with the Sport trim, and add the tech package?", calls: []string{`configure_car {"color":"red","packages":["tech"],"trim":"Sport"}`}},
	}},
	{"a trim of another model, written with a hyphen", "car", "c08", []siteTurn{
		{say: "Could we have it in gray with the EX-L trim?", calls: []string{`configure_car {"color":"gray"}`}, reply: []string{"There is no EX-L trim: the trim can be LX, EX or SX."}},
		{say: "make it the EX-L trim", calls: []string{}, reply: []string{"There is no EX-L trim"}},
	}},
	{"a yes-or-no question answered from its own sentence", "inventory", "", []siteTurn{
		{say: "Which is the cheapest SUV you have?", calls: []string{`search_cars {"bodyType":"suv"}`, `sort_cars {"by":"price","order":"asc"}`}, reply: []string{"2023 Kia Sportage"}},
		{say: "Is it reliable? I've heard mixed things about Kia.", calls: []string{`select_car {"carId":"c08"}`, `get_price_summary {}`}, not: []string{"Yes"}, on: "car"},
		{say: "Is it safe? Does it have good crash test ratings?", reply: []string{"I can't tell"}, not: []string{"(byomcp:say). I can't tell"}}, // once
	}},
	{"a package the car lacks, asked of its price after the list", "inventory", "", []siteTurn{
		{say: "Could you show me the SUVs, please?", calls: []string{`search_cars {"bodyType":"suv"}`}},
		{say: "Could you open the one with the lowest mileage?", calls: []string{`sort_cars {"by":"mileage","order":"asc"}`, `select_car {"carId":"c05"}`}, on: "car"},
		{say: "How much is it with the tech package?", calls: []string{}, reply: []string{"There is no tech package: the packages can be Home charger, Panoramic roof or Driver assistance."}},
	}},
	{"something else, asked for on a car's page", "car", "c04", []siteTurn{
		{say: "anything cheaper?", calls: []string{`back_to_inventory {}`, `search_cars {}`}, reply: []string{"Of those listed, 23 are cheaper than the 2023 Tesla Model Y", "2021 Volkswagen Golf", "and 18 more"}, on: "inventory"},
		{say: "open the F-150", calls: []string{`select_car {"carId":"c17"}`}, on: "car"},
		{say: "something sporty and fun", calls: []string{`back_to_inventory {}`, `search_cars {"bodyType":"coupe"}`}, reply: []string{"Ford Mustang"}, on: "inventory"},
		{say: "open the tacoma", calls: []string{`select_car {"carId":"c18"}`}, on: "car"},
		{say: "Could I see something more practical then, like an SUV under 31k?", calls: []string{`back_to_inventory {}`, `search_cars {"bodyType":"suv","maxPrice":31000}`}, on: "inventory"},
	}},
	{"a name, then a question", "car", "c02", []siteTurn{
		{say: "Hello! I'm Victor Alvarez. Before anything else, could you tell me what this costs?", calls: []string{`get_price_summary {}`}, reply: []string{"$29,450"}},
		{say: "book a test drive saturday at 10", calls: []string{`go_to_test_drive {}`}, reply: []string{"I need your email"}, on: "test-drive"},
		{say: "victor@alvarez.net", calls: []string{`fill_form_data {"name":"Victor Alvarez","email":"victor@alvarez.net","date":"2026-12-05","time":"10:00"}`}},
		{say: "First of all, could you tell me what it would cost a month?", calls: []string{`go_to_financing {}`}, on: "financing"},
	}},
	{"something like this car, but cheaper or newer", "inventory", "", []siteTurn{
		{say: "show me suvs", calls: []string{`search_cars {"bodyType":"suv"}`}},
		{say: "open the model y", calls: []string{`select_car {"carId":"c04"}`}, on: "car"},
		{say: "This Tesla is well over our budget. Do you have anything similar that's cheaper?",
			calls: []string{`back_to_inventory {}`, `search_cars {"bodyType":"suv"}`}, reply: []string{"cheaper than the 2023 Tesla Model Y", "2023 Kia Sportage"}, on: "inventory"},
		{say: "open the sportage", calls: []string{`select_car {"carId":"c08"}`}, on: "car"},
		{say: "I'd like it in white with the middle trim", calls: []string{`configure_car {"color":"white","trim":"EX"}`}},
		{say: "back to the list", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "open the camry", calls: []string{`search_cars {}`, `select_car {"carId":"c09"}`}, on: "car"},
		{say: "anything like this one but newer?", calls: []string{`back_to_inventory {}`, `search_cars {"bodyType":"sedan"}`}, reply: []string{"only the 2023 Honda Civic"}, on: "inventory"},
	}},
	{"a trim by its place, on the list and on the car's page", "inventory", "", []siteTurn{
		{say: "show me white ones in the top trim", calls: []string{`search_cars {"color":"white"}`}, not: []string{"Sorry"}},
		{say: "open the rav4", calls: []string{`select_car {"carId":"c01"}`}, on: "car"},
		{say: "white with the top trim then", calls: []string{`configure_car {"color":"white","trim":"Limited"}`}},
		{say: "hmm, the middle trim is enough", calls: []string{`configure_car {"trim":"XLE"}`}, reply: []string{"XLE trim"}},
	}},
	{"a phone visitor with one car listed", "inventory", "", []siteTurn{
		{say: "can i see the volvo", calls: []string{`search_cars {"make":"Volvo"}`}, reply: []string{"Showing 1 car"}},
		{say: "hw much", calls: []string{}, reply: []string{"$44,900"}},
		{say: "plus trim", calls: []string{`select_car {"carId":"c07"}`, `configure_car {"trim":"Plus"}`}, reply: []string{"Plus trim"}, on: "car"},
		{say: "k thx", calls: []string{}, not: []string{"Sorry"}},
		{say: "wat can u do", calls: []string{}, not: []string{"Sorry"}},
		{say: "lol", calls: []string{}, not: []string{"Sorry"}},
	}},
	{"a make and a model, typed on a phone", "inventory", "", []siteTurn{
		{say: "tesla model y", calls: []string{`search_cars {}`, `select_car {"carId":"c04"}`}, reply: []string{"2023 Tesla Model Y"}, on: "car"},
		{say: "finance 60 mo 10k down", calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":10000,"termMonths":60}`}, on: "financing"},
		{say: "back to the list", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "honda civic", calls: []string{`select_car {"carId":"c10"}`}, reply: []string{"2023 Honda Civic"}, on: "car"},
		{say: "test drive it sat 10am", calls: []string{`go_to_test_drive {}`}, reply: []string{"name and email"}, on: "test-drive"},
	}},
	{"contact details typed on a phone", "test-drive", "c01", []siteTurn{
		{say: "mike t, 4155550123, miket@aol.com", calls: []string{}, reply: []string{"date and time"}, not: []string{"name"}},
		{say: "tomorrow at 10", calls: []string{`fill_form_data {"name":"mike t","email":"miket@aol.com","phone":"4155550123","date":"2026-12-03","time":"10:00"}`}},
	}},
	{"an application in one line, in lower case", "financing", "c01", []siteTurn{
		{say: "apply. im chris p. email CHRIS.P@GMAIL.COM. i earn 3k a month",
			calls: []string{`apply_for_financing {"fullName":"chris p","email":"CHRIS.P@GMAIL.COM","annualIncome":36000}`}, reply: []string{"Application"}},
	}},
	{"corrections of a figure said alone on the calculator", "financing", "c01", []siteTurn{
		{say: "60 months 3000 down", calls: []string{`calculate_payment {"downPayment":3000,"termMonths":60}`}},
		{say: "nah make it 1500", calls: []string{`calculate_payment {"downPayment":1500,"termMonths":60}`}, reply: []string{"down $1,500"}},
		{say: "can u do 5.5", calls: []string{`calculate_payment {"downPayment":1500,"termMonths":60,"apr":5.5}`}, reply: []string{"5.5% APR"}},
		{say: "no wait 3.9", calls: []string{`calculate_payment {"downPayment":1500,"termMonths":60,"apr":3.9}`}, reply: []string{"3.9% APR"}},
		{say: "how about 20", calls: []string{}, reply: []string{"Which do you mean", "down payment 20", "apr 20"}, not: []string{"Total interest"}},
		{say: "the apr", calls: []string{`calculate_payment {"downPayment":1500,"termMonths":60,"apr":20}`}, reply: []string{"20% APR"}},
	}},
	{"what a budget buys", "inventory", "", []siteTurn{
		{say: "wat can i get for 25k", calls: []string{`search_cars {"maxPrice":25000}`}, reply: []string{"Showing 4 cars"}},
		{say: "i want to spend 30k on an suv", calls: []string{`search_cars {"bodyType":"suv","maxPrice":30000}`}},
	}},
	{"filters kept through a question and a short follow-up", "inventory", "", []siteTurn{
		{say: "show me everything under 35k sorted by year", calls: []string{`search_cars {"maxPrice":35000}`, `sort_cars {"by":"year"}`}},
		{say: "wat colours", calls: []string{}, reply: []string{"gray"}},
		{say: "grey", calls: []string{`search_cars {"color":"gray","maxPrice":35000}`}},
		{say: "under 25k?", calls: []string{`search_cars {"color":"gray","maxPrice":25000}`}},
		{say: "wat abt hatchbacks", calls: []string{`search_cars {"bodyType":"hatchback","color":"gray","maxPrice":25000}`}},
	}},
	{"an hour said before the day", "test-drive", "c01", []siteTurn{
		{say: "10 on friday", calls: []string{}, reply: []string{"name and email"}, not: []string{"time"}},
		{say: "Tyler Brooks, tyler.b@yahoo.com", calls: []string{`fill_form_data {"name":"Tyler Brooks","email":"tyler.b@yahoo.com","date":"2026-12-04","time":"10:00"}`}},
	}},
	{"a remark, then back", "inventory", "", []siteTurn{
		{say: "show me suvs", calls: []string{`search_cars {"bodyType":"suv"}`}},
		{say: "open the model y", calls: []string{`select_car {"carId":"c04"}`}, on: "car"},
		{say: "too pricey. back", calls: []string{`back_to_inventory {}`}, on: "inventory", not: []string{"already there"}},
	}},
	{"a package added on a second car, the first car's kept off", "inventory", "", []siteTurn{
		{say: "open the rav4", calls: []string{`search_cars {}`, `select_car {"carId":"c01"}`}, on: "car"},
		{say: "blue with the panoramic roof", calls: []string{`configure_car {"color":"blue","packages":["roof"]}`}},
		{say: "back to the list", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "open the a4", calls: []string{`select_car {"carId":"c13"}`}, on: "car"},
		{say: "add the safety package", calls: []string{`configure_car {"packages":["safety"]}`}},
	}},
	{"anything better than the car on screen", "inventory", "", []siteTurn{
		{say: "show me trucks", calls: []string{`search_cars {"bodyType":"pickup"}`}},
		{say: "open the tacoma", calls: []string{`select_car {"carId":"c18"}`}, on: "car"},
		{say: "too expensive, anything cheaper?", calls: []string{}, reply: []string{"None of those listed is cheaper than the 2021 Toyota Tacoma"}},
		{say: "show me sedans", calls: []string{`back_to_inventory {}`, `search_cars {"bodyType":"sedan"}`}, on: "inventory"},
		{say: "open the camry", calls: []string{`select_car {"carId":"c09"}`}, on: "car"},
		{say: "anything newer?", reply: []string{"only the 2023 Honda Civic (2023) is newer than the 2022 Toyota Camry"}},
	}},
	{"a kind of those shown, in two words", "inventory", "", []siteTurn{
		{say: "show me suvs", calls: []string{`search_cars {"bodyType":"suv"}`}},
		{say: "electric ones", calls: []string{`search_cars {"bodyType":"suv","fuel":"electric"}`}, reply: []string{"Showing 2 cars"}},
	}},
	{"a colour carried to a car that does not come in it", "financing", "c01", []siteTurn{
		{say: "which is newer, this or the audi a4?", calls: []string{`back_to_inventory {}`, `search_cars {}`}, reply: []string{"The 2023 Toyota RAV4 is the newer"}, on: "inventory"},
		{say: "can I see it in red?", calls: []string{`select_car {"carId":"c01"}`, `configure_car {"color":"red"}`}, on: "car"},
		{say: "hmm and the ioniq with the limited trim?", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c05"}`, `configure_car {"trim":"Limited"}`}, not: []string{"didn't work"}},
	}},
	{"another car not yet seen, in a colour", "car", "c01", []siteTurn{
		{say: "what about the ioniq in white?", calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c05"}`, `configure_car {"color":"white"}`},
			reply: []string{"2023 Hyundai Ioniq 5", "white"}, on: "car"},
	}},
	{"a time changed in few words", "test-drive", "c19", []siteTurn{
		{say: "book me in for tomorrow at 10 am, im ben carter ben.c@gmail.com",
			calls: []string{`fill_form_data {"name":"ben carter","email":"ben.c@gmail.com","date":"2026-12-03","time":"10:00"}`}},
		{say: "change time to 2", calls: []string{`fill_form_data {"name":"ben carter","email":"ben.c@gmail.com","date":"2026-12-03","time":"14:00"}`}, not: []string{"There is no"}},
	}},
	{"a trim one step down or up, and a term written short", "car", "c06", []siteTurn{
		{say: "the wilderness trim", calls: []string{`configure_car {"trim":"Wilderness"}`}},
		{say: "thats too much. cheaper trim", calls: []string{`configure_car {"trim":"Onyx XT"}`}, not: []string{"There is no"}},
		{say: "a higher trim", calls: []string{`configure_car {"trim":"Wilderness"}`}},
		{say: "finance 48m", calls: []string{`go_to_financing {}`, `calculate_payment {"termMonths":48}`}, reply: []string{"48 months"}, on: "financing"},
	}},
	{"a search with what no filter takes", "inventory", "", []siteTurn{
		{say: "show me white ones with leather seats", calls: []string{`search_cars {"color":"white"}`}, reply: []string{"no filter for “leather seats”"}, not: []string{"Sorry"}},
		{say: "just suvs then", calls: []string{`search_cars {"bodyType":"suv","color":"white"}`}},
	}},
	{"back to the calculator for another term, the same down payment", "financing", "c01", []siteTurn{
		{say: "60 months with 5000 down", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":60}`}},
		{say: "now go to the test drive page", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "go back to financing and show me the 48 month option with the same down payment",
			calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":5000,"termMonths":48}`}, reply: []string{"48 months"}, on: "financing"},
	}},
	{"a count after a dead end, typed short", "inventory", "", []siteTurn{
		{say: "electric ones", calls: []string{`search_cars {"fuel":"electric"}`}},
		{say: "can u sing", reply: []string{"Sorry"}},
		{say: "hw many r there?", reply: []string{"3 cars"}, not: []string{"Sorry"}},
		{say: "how many are there", reply: []string{"3 cars"}, not: []string{"Sorry"}},
	}},
	{"it, of two listed", "inventory", "", []siteTurn{
		{say: "show me the teslas", calls: []string{`search_cars {"make":"Tesla"}`}},
		{say: "does it come in red?", reply: []string{"Model Y", "Model 3"}, not: []string{"Showing"}},
		{click: 2, on: "car"},
	}},
	{"a down payment said as what is paid at the start", "financing", "c14", []siteTurn{
		{say: "How much per month over 48 months?", calls: []string{`calculate_payment {"termMonths":48}`}},
		{say: "And if I pay 5000 dollars at the start?", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":48}`}, reply: []string{"down $5,000"}},
		{say: "I give 3000 at the start.", calls: []string{`calculate_payment {"downPayment":3000,"termMonths":48}`}, reply: []string{"down $3,000"}},
		{say: "ok 2k upfront", calls: []string{`calculate_payment {"downPayment":2000,"termMonths":48}`}, reply: []string{"down $2,000"}},
	}},
	{"a drive of this car, asked in the comparison drawer", "car", "c13", []siteTurn{
		{say: "Compare this with the BMW 330i, please.", calls: []string{`back_to_inventory {}`, `search_cars {}`, `compare_cars {"carIds":["c11","c13"]}`}, on: "drawer"},
		{say: "Book a test drive for this car on the 20th of December at 9 in the morning.", reply: []string{"Which car", "Audi A4", "BMW 330i"}, not: []string{"There is no Book"}},
		{click: 2, on: "test-drive"},
		{say: "Lucia Ramos, lucia@ramos.pt", calls: []string{`fill_form_data {"name":"Lucia Ramos","email":"lucia@ramos.pt","date":"2026-12-20","time":"09:00"}`}},
	}},
	{"cheaper ones of a kind, asked on the calculator with a please between", "financing", "c07", []siteTurn{
		{say: "Show me cheaper SUVs, please, under 30000.", calls: []string{`back_to_inventory {}`, `search_cars {"bodyType":"suv","maxPrice":30000}`, `sort_cars {"by":"price","order":"asc"}`}, on: "inventory"},
	}},
	{"a trim written in one word with capitals inside", "car", "c19", []siteTurn{
		{say: "put it in the GT trim", calls: []string{`configure_car {"trim":"GT"}`}},
		{say: "Hmm, it is too expensive. Put the EcoBoost again, please.", calls: []string{`configure_car {"trim":"EcoBoost"}`}, reply: []string{"EcoBoost trim"}, not: []string{"There is no"}},
	}},
	{"cheaper ones of a kind, after a remark that this is too much", "financing", "c07", []siteTurn{
		{say: "It is too much for me. Show me cheaper SUVs, please, under 30000.",
			calls: []string{`back_to_inventory {}`, `search_cars {"bodyType":"suv","maxPrice":30000}`, `sort_cars {"by":"price","order":"asc"}`}, on: "inventory"},
	}},
	{"a figure of a make's one car, asked from the calculator", "financing", "c07", []siteTurn{
		{say: "What is the mileage of the Kia?", calls: []string{`back_to_inventory {}`, `search_cars {"make":"Kia"}`}, reply: []string{"The 2023 Kia Sportage has 14,000 miles"}, on: "inventory"},
		{say: "and of the Volvo?", calls: []string{`search_cars {"make":"Volvo"}`}, reply: []string{"The 2022 Volvo XC60 has 15,000 miles"}},
	}},
	{"what the car's page does not show, asked of this car", "car", "c12", []siteTurn{
		{say: "Good morning. Is this car electric?", reply: []string{"can't tell"}, not: []string{"Should I", "Sorry"}},
		{say: "What is the mileage of this car?", reply: []string{"can't tell"}, not: []string{"Should I", "Sorry"}},
	}},
	{"what a package is, asked; the colours asked after whether they change", "car", "c06", []siteTurn{
		{say: "Sorry, can you explain me what is the Off-road package?", reply: []string{"doesn't say what the Off-road package includes"}, not: []string{"Configured"}},
		{say: "what is the off-road package?", reply: []string{"doesn't say what the Off-road package includes"}, not: []string{"Configured"}},
		{say: "Is possible to change the colour? Which colours it has?", reply: []string{"The color can be green, blue, silver or white."}, not: []string{"can't tell"}},
	}},
	{"which payment is lower, the first car's page opened by its link", "car", "c10", []siteTurn{
		{say: "What would the monthly payment be over 48 months?", calls: []string{`go_to_financing {}`, `calculate_payment {"termMonths":48}`}, on: "financing"},
		{say: "Put 2000 down.", calls: []string{`calculate_payment {"downPayment":2000,"termMonths":48}`}},
		{say: "And for the Golf on the same terms?",
			calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c14"}`, `go_to_financing {}`, `calculate_payment {"downPayment":2000,"termMonths":48}`}},
		{say: "Which is cheaper per month?", reply: []string{"The monthly payment of the 2021 Volkswagen Golf is lower: $475.61 against $523.41 for the 2023 Honda Civic, a difference of $47.80 a month."}},
	}},
	{"the first of the times offered, before any detail", "test-drive", "c18", []siteTurn{
		{say: "What times are there?", reply: []string{"09:00", "16:00"}},
		{say: "the first", reply: []string{"name, email and date"}, not: []string{"Filled"}},
		{say: "Jo Kim, jo@kim.io, tomorrow", calls: []string{`fill_form_data {"name":"Jo Kim","email":"jo@kim.io","date":"2026-12-03","time":"09:00"}`}},
	}},
	{"a time said by the clock's face", "test-drive", "c09", []siteTurn{
		{say: "I want to come on the 12th of December.", reply: []string{"time"}},
		{say: "Half past ten is possible?", reply: []string{"10:30 is not one of the times", "10:00, 11:00"}, not: []string{"Sorry"}},
		{say: "or a quarter past one?", reply: []string{"13:15 is not one of the times"}, not: []string{"Sorry"}},
		{say: "OK, 11 then. I am Maria Fernandes, maria@fernandes.pt",
			calls: []string{`fill_form_data {"name":"Maria Fernandes","email":"maria@fernandes.pt","date":"2026-12-12","time":"11:00"}`}},
	}},
	{"not too expensive, with a figure, and without", "inventory", "", []siteTurn{
		{say: "Good afternoon. I am looking for a small car, not too expensive, maybe under 25 thousand.", calls: []string{`search_cars {"maxPrice":25000}`},
			reply: []string{"Showing 4 cars", "$22,400. There is no filter for “small” here."}},
		{say: "clear the filters", calls: []string{`clear_filters {}`}},
		{say: "something not too expensive", calls: []string{`sort_cars {"by":"price","order":"asc"}`}, reply: []string{"Volkswagen Golf"}},
	}},
	{"how much more one of the two compared is", "car", "c13", []siteTurn{
		{say: "Compare this with the BMW 330i, please.", calls: []string{`back_to_inventory {}`, `search_cars {}`, `compare_cars {"carIds":["c11","c13"]}`}, on: "drawer"},
		{say: "How much more is the BMW?", reply: []string{"a difference of $7,400"}},
	}},
	{"a date and a time kept over a long exchange on the booking form", "test-drive", "c09", []siteTurn{
		{say: "Hello. I want to come on the 12th of December.", reply: []string{"name", "email", "time"}},
		{say: "What times do you have?", reply: []string{"09:00", "16:00"}},
		{say: "hmm", reply: []string{"OK"}, not: []string{"Sorry"}},
		{say: "OK, 11 then.", reply: []string{"name and email"}},
		{say: "I am Maria Fernandes.", reply: []string{"email"}, not: []string{"date", "time"}},
		{say: "My email is maria.fernandes@gmail.com and my phone 07700 900123.",
			calls: []string{`fill_form_data {"name":"Maria Fernandes","email":"maria.fernandes@gmail.com","phone":"07700 900123","date":"2026-12-12","time":"11:00"}`}},
		{say: "Sorry, can we change to the 13th?",
			calls: []string{`fill_form_data {"name":"Maria Fernandes","email":"maria.fernandes@gmail.com","phone":"07700 900123","date":"2026-12-13","time":"11:00"}`}},
		{say: "Book it.", calls: []string{`book_test_drive {}`}, reply: []string{"2026-12-13 at 11:00"}},
	}},
	{"a package by the name the page shows", "car", "c07", []siteTurn{
		{say: "What is included in the Driver assistance?", reply: []string{"doesn't say what the Driver assistance package includes", "“add the safety package”"}, not: []string{"Configured"}},
		{say: "Add the Winter package and the Driver assistance, please.", calls: []string{`configure_car {"packages":["winter","safety"]}`}, reply: []string{"Driver assistance $1,500"}},
		{say: "How much is the Panoramic roof?", reply: []string{"shows what the Panoramic roof package costs once it is added"}, not: []string{"Configured"}},
	}},
	{"one package, then another with and", "car", "c04", []siteTurn{
		{say: "Add the towing package, please.", calls: []string{`configure_car {"packages":["tow"]}`}},
		{say: "And the Home charger.", calls: []string{`configure_car {"packages":["tow","charge"]}`}, reply: []string{"Towing package", "Home charger"}},
	}},
	{"a package added after an interjection", "car", "c21", []siteTurn{
		{say: "What is the total now?", calls: []string{`get_price_summary {}`}},
		{say: "Ah, and the Panoramic roof also.", calls: []string{`configure_car {"packages":["roof"]}`}, reply: []string{"Panoramic roof"}},
	}},
	{"how it performs, asked of a car with a charger package", "car", "c05", []siteTurn{
		{say: "How long it takes to charge?", reply: []string{"can't tell"}, not: []string{"Configured"}},
		{say: "How far it can go with one charge?", reply: []string{"can't tell"}, not: []string{"Configured"}},
		{say: "add the home charger", calls: []string{`configure_car {"packages":["charge"]}`}, reply: []string{"Home charger $1,250"}},
	}},
	{"the same terms after a package added on the car's page", "financing", "c12", []siteTurn{
		{say: "Good morning. I would like the monthly payment for 60 months, with 5000 down, at 5.9%.", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":60,"apr":5.9}`}},
		{say: "Go back to the car, please.", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c12"}`}, on: "car"},
		{say: "Add the Home charger.", calls: []string{`configure_car {"packages":["charge"]}`}},
		{say: "Go to the financing again.", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "Same terms, please.", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":60,"apr":5.9}`}, reply: []string{"$37,240"}},
	}},
	{"a price, then low kilometres, then how low", "inventory", "", []siteTurn{
		{say: "Good afternoon. I am looking for an SUV under 35000 with low kilometres.", calls: []string{`search_cars {"bodyType":"suv","maxPrice":35000}`}},
		{say: "Under 20000 kilometres, please.", calls: []string{`search_cars {"bodyType":"suv","maxPrice":35000,"maxMileage":20000}`}},
	}},
	{"a make's cars after a comparison", "inventory", "", []siteTurn{
		{say: "Hello, I want to compare the Toyota RAV4 and the Honda CR-V.", calls: []string{`search_cars {}`, `compare_cars {"carIds":["c01","c02"]}`}, on: "drawer"},
		{say: "Close the comparison, please.", calls: []string{`close_comparison {}`}, on: "inventory"},
		{say: "Show me the Toyota cars.", calls: []string{`search_cars {"make":"Toyota"}`}, reply: []string{"Showing 4 cars"}},
	}},
	{"a make's cars when one of them is listed", "inventory", "", []siteTurn{
		{say: "suvs please", calls: []string{`search_cars {"bodyType":"suv"}`}},
		{say: "and the Toyota models?", calls: []string{`search_cars {"bodyType":"suv","make":"Toyota"}`}, not: []string{"Opening"}},
	}},
	{"a day she cannot come, then another", "test-drive", "c05", []siteTurn{
		{say: "I would like to come on Monday at 9, I am Isabel Martins, isabel.m@gmail.com",
			calls: []string{`fill_form_data {"name":"Isabel Martins","email":"isabel.m@gmail.com","date":"2026-12-07","time":"09:00"}`}},
		{say: "Oh, sorry, Monday I cannot. Can it be Tuesday at the same time?",
			calls: []string{`fill_form_data {"name":"Isabel Martins","email":"isabel.m@gmail.com","date":"2026-12-08","time":"09:00"}`}, reply: []string{"Tuesday, December 8"}},
		{say: "hmm tuesday is not possible either, wednesday the 9th", calls: []string{`fill_form_data {"name":"Isabel Martins","email":"isabel.m@gmail.com","date":"2026-12-09","time":"09:00"}`}, reply: []string{"December 9"}},
	}},
	{"courtesies in several parts", "car", "c23", []siteTurn{
		{say: "What is the total price?", calls: []string{`get_price_summary {}`}},
		{say: "Thank you, you are very kind.", reply: []string{"welcome"}, not: []string{"Sorry"}},
		{say: "Can I finance it over 24 months?", calls: []string{`go_to_financing {}`, `calculate_payment {"termMonths":24}`}, on: "financing"},
		{say: "Thank you, I will think about it. Goodbye.", reply: []string{"Goodbye"}, not: []string{"There is no", "Sorry"}},
	}},
	{"a bound said as what it is not", "inventory", "", []siteTurn{
		{say: "I would like to see the cars that are not more expensive than 28000 dollars.", calls: []string{`search_cars {"maxPrice":28000}`}},
		{say: "and not cheaper than 25000", calls: []string{`search_cars {"maxPrice":28000,"minPrice":25000}`}},
	}},
	{"another car named at the start of a follow-up", "car", "c01", []siteTurn{
		{say: "what trims does it have", reply: []string{"Limited"}},
		{say: "hmm and the ioniq with the limited trim?",
			calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c05"}`, `configure_car {"trim":"Limited"}`},
			reply: []string{"Ioniq 5", "Limited"}, not: []string{"RAV4"}, on: "car"},
	}},
	{"what was chosen for a form that waits, and what was not said yet", "test-drive", "c01", []siteTurn{
		{say: "which day did I choose?", calls: []string{}, reply: []string{"You haven't given the date or time yet."}, not: []string{"Sorry"}},
		{say: "Saturday at 10am", calls: []string{}, reply: []string{"name and email"}},
		{say: "what time did I pick?", calls: []string{}, reply: []string{"The time was 10:00.", "name and email"}, not: []string{"Sorry"}},
		{say: "what was my email?", calls: []string{}, reply: []string{"You haven't given the email yet.", "name and email"}, not: []string{"10:00"}},
		{say: "Jane Doe, jane@example.com", calls: []string{`fill_form_data {"name":"Jane Doe","email":"jane@example.com","date":"2026-12-05","time":"10:00"}`}},
	}},
	{"a figure asked back before it was given", "financing", "c01", []siteTurn{
		{say: "what down payment did I put?", calls: []string{}, reply: []string{"You haven't given the down payment yet."}, not: []string{"Sorry", "months?"}},
		{say: "60 months with 5000 down", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":60}`}},
		{say: "what down payment did I put?", calls: []string{}, reply: []string{"The down payment was 5000."}},
	}},
	{"the price on a calculator before any calculation", "car", "c06", []siteTurn{
		{say: "put it in blue", calls: []string{`configure_car {"color":"blue"}`}},
		{say: "take me to the financing page", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "What is the price of the car here?", calls: []string{}, reply: []string{"The price here is $"}, not: []string{"Sorry"}},
	}},
	{"the price on a calculator opened by its link", "financing", "c01", []siteTurn{
		{say: "the interest is how much?", calls: []string{}, not: []string{"The price here"}},
		{say: "how much down do I need?", calls: []string{}, not: []string{"The price here"}},
		{say: "whats the price", calls: []string{}, reply: []string{"The price here is $31,990."}, not: []string{"Sorry"}},
		{say: "48 months", calls: []string{`calculate_payment {"termMonths":48}`}, reply: []string{"price $31,990"}},
	}},
	{"a yes after the form was filled sends it", "test-drive", "c05", []siteTurn{
		{say: "Kim Nguyen kim.nguyen@web.de thursday at 9am", calls: []string{`fill_form_data {"name":"Kim Nguyen","email":"kim.nguyen@web.de","date":"2026-12-03","time":"09:00"}`}},
		{say: "go ahead", calls: []string{`book_test_drive {}`}, reply: []string{"Booked test drive"}},
	}},
	{"a yes that names the sending", "test-drive", "c09", []siteTurn{
		{say: "ana silva ana.s@gmail.com fri 10", calls: []string{`fill_form_data {"name":"ana silva","email":"ana.s@gmail.com","date":"2026-12-04","time":"10:00"}`}},
		{say: "yep go ahead n book", calls: []string{`book_test_drive {}`}, reply: []string{"Booked test drive"}, not: []string{"Should I"}},
	}},
	{"a yes long after the form was filled is not a sending", "test-drive", "c09", []siteTurn{
		{say: "ana silva ana.s@gmail.com fri 10", calls: []string{`fill_form_data {"name":"ana silva","email":"ana.s@gmail.com","date":"2026-12-04","time":"10:00"}`}},
		{say: "what time did I pick?", calls: []string{}},
		{say: "sure", calls: []string{}},
	}},
	{"thanks and goodbyes said in several ways", "car", "c23", []siteTurn{
		{say: "put it in red", calls: []string{`configure_car {"color":"red"}`}},
		{say: "thanks a bunch!", calls: []string{}, reply: []string{"welcome"}, not: []string{"Sorry"}},
		{say: "perfect, thanks so much", calls: []string{}, reply: []string{"welcome"}, not: []string{"Sorry"}},
		{say: "great, that's all, cheers", calls: []string{}, reply: []string{"Goodbye"}, on: "car"},
	}},
	{"a goodbye with thanks in one breath", "inventory", "", []siteTurn{
		{say: "suvs", calls: []string{`search_cars {"bodyType":"suv"}`}},
		{say: "cheers, that's everything", calls: []string{}, reply: []string{"Goodbye"}},
		{say: "bye thanks", calls: []string{}, reply: []string{"Goodbye"}},
		{say: "thats all thanks", calls: []string{}, reply: []string{"Goodbye"}},
	}},
	{"ones of those, and a bound kept to", "inventory", "", []siteTurn{
		{say: "suvs under 45k", calls: []string{`search_cars {"bodyType":"suv","maxPrice":45000}`}},
		{say: "red ones?", calls: []string{`search_cars {"bodyType":"suv","color":"red","maxPrice":45000}`}, reply: []string{"RAV4", "Sportage"}},
		{say: "show me white suvs", calls: []string{`search_cars {"bodyType":"suv","color":"white"}`}},
		{say: "keep it below 30k", calls: []string{`search_cars {"bodyType":"suv","color":"white","maxPrice":30000}`}},
	}},
	{"back to all the cars from a car's page", "car", "c15", []siteTurn{
		{say: "back to all the cars", calls: []string{`back_to_inventory {}`}, on: "inventory", not: []string{"already there"}},
	}},
	{"the whole stock, not the list shown, and a newest shared by several", "inventory", "", []siteTurn{
		{say: "show me convertibles", calls: []string{`search_cars {"bodyType":"convertible"}`}},
		{say: "what's the cheapest car on the lot", calls: []string{`search_cars {}`}, reply: []string{"Golf"}, not: []string{"MX-5"}},
		{say: "how many bmws", calls: []string{`search_cars {"make":"BMW"}`}},
		{say: "whats the newest car u have", calls: []string{`search_cars {}`}, reply: []string{"6 are the newest, all 2023:", "and 3 more"}, not: []string{"BMW"}},
		{say: "sedans", calls: []string{`search_cars {"bodyType":"sedan"}`}},
		{say: "cheapest car in stock?", calls: []string{`search_cars {}`}, reply: []string{"Golf"}},
	}},
	{"how far apart two prices are", "inventory", "", []siteTurn{
		{say: "sedans 2022 or newer", calls: []string{`search_cars {"bodyType":"sedan","minYear":2022}`}},
		{say: "compare first two", calls: []string{`compare_cars {"carIds":["c09","c10"]}`}, on: "drawer"},
		{say: "how far apart r they in price", calls: []string{}, reply: []string{"a difference of $2,600"}},
	}},
	{"what was put in the form, asked in other words", "test-drive", "c04", []siteTurn{
		{say: "mike lu mike@ex.com sat 10", calls: []string{`fill_form_data {"name":"mike lu","email":"mike@ex.com","date":"2026-12-05","time":"10:00"}`}},
		{say: "wait what time did i say", calls: []string{}, reply: []string{"The time was 10:00."}, not: []string{"Sorry"}},
		{say: "whats the email i gave", calls: []string{}, reply: []string{"The email was mike@ex.com."}, not: []string{"Sorry"}},
	}},
	{"what else the form needs, and a name in lower case alone", "test-drive", "c09", []siteTurn{
		{say: "ana silva ana.s@gmail.com", calls: []string{}, reply: []string{"date and time"}},
		{say: "what else u need", calls: []string{}, reply: []string{"date and time"}, not: []string{"Sorry"}},
		{say: "fri 10", calls: []string{`fill_form_data {"name":"ana silva","email":"ana.s@gmail.com","date":"2026-12-04","time":"10:00"}`}},
	}},
	{"a name said as im, lower case, while the form waits", "test-drive", "c04", []siteTurn{
		{say: "book me for dec 12 at 3pm", calls: []string{}, reply: []string{"name and email"}},
		{say: "im mike", calls: []string{}, reply: []string{"I need your email."}, not: []string{"Sorry"}},
		{say: "mike@ex.com", calls: []string{`fill_form_data {"name":"mike","email":"mike@ex.com","date":"2026-12-12","time":"15:00"}`}},
	}},
	{"the price of the car asked on its booking page", "test-drive", "c02", []siteTurn{
		{say: "remind me what this car costs", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c02"}`}, reply: []string{"$29,450"}, not: []string{"car id"}, on: "car"},
	}},
	{"a surname that is a make, on the booking form", "inventory", "", []siteTurn{
		{say: "book a test drive of the civic", calls: []string{`search_cars {}`, `select_car {"carId":"c10"}`, `go_to_test_drive {}`}, on: "test-drive"},
		{say: "Lena Ford lena@ford.io", calls: []string{}, reply: []string{"date and time"}, not: []string{"Which one", "Explorer"}},
		{say: "saturday at 10", calls: []string{`fill_form_data {"name":"Lena Ford","email":"lena@ford.io","date":"2026-12-05","time":"10:00"}`}},
	}},
	{"a drive asked on the list, its car named after the dead end, then the details", "inventory", "", []siteTurn{
		{say: "i want to book a test drive saturday 10am", calls: []string{}, reply: []string{"tell me which"}},
		{say: "the civic", calls: []string{`search_cars {}`, `select_car {"carId":"c10"}`, `go_to_test_drive {}`}, reply: []string{"name and email"}, on: "test-drive"},
		{say: "Lena Park lena@park.io", calls: []string{`fill_form_data {"name":"Lena Park","email":"lena@park.io","date":"2026-12-05","time":"10:00"}`}},
	}},
	{"a phone's short words on a car's page opened by its link", "car", "c15", []siteTurn{
		{say: "more info on the mazda3 pls", calls: []string{`get_price_summary {}`}, reply: []string{"Mazda3"}, not: []string{"Sorry"}},
		{say: "wats the total", calls: []string{`get_price_summary {}`}, not: []string{"Should I"}},
		{say: "how does it stack up vs the golf", calls: []string{`back_to_inventory {}`, `search_cars {}`, `compare_cars {"carIds":["c14","c15"]}`}, reply: []string{"Golf", "Mazda3"}, on: "drawer"},
	}},
	{"other things of a kind asked short on a calculator", "financing", "c17", []siteTurn{
		{say: "what other trucks u got", calls: []string{`back_to_inventory {}`, `search_cars {"bodyType":"pickup"}`}, reply: []string{"Tacoma"}, on: "inventory"},
	}},
	{"the top few of a ranking, said with top", "inventory", "", []siteTurn{
		{say: "top 3 cheapest diesel", calls: []string{`search_cars {"fuel":"diesel"}`, `sort_cars {"by":"price","order":"asc"}`}, reply: []string{"Only 2 cars match.", "A6 Avant", "F-150"}, not: []string{"maxPrice"}},
	}},
	{"the top two of a ranking of the list shown", "inventory", "", []siteTurn{
		{say: "suvs", calls: []string{`search_cars {"bodyType":"suv"}`}},
		{say: "top 2 newest", calls: []string{`sort_cars {"by":"year","order":"desc"}`}, reply: []string{"The 2 newest are"}, not: []string{"CR-V"}},
	}},
	{"one more car added to a comparison", "inventory", "", []siteTurn{
		{say: "compare rav4 and crv", calls: []string{`search_cars {}`, `compare_cars {"carIds":["c01","c02"]}`}, on: "drawer"},
		{say: "add the outback too", calls: []string{`compare_cars {"carIds":["c01","c02","c06"]}`}, reply: []string{"Outback", "RAV4", "CR-V"}, on: "drawer"},
	}},
	{"compare them after another search, with a comparison open", "inventory", "", []siteTurn{
		{say: "compare the 3 cheapest diesels", calls: []string{`search_cars {"fuel":"diesel"}`, `sort_cars {"by":"price","order":"asc"}`, `compare_cars {"carIds":["c21","c17"]}`}, on: "drawer"},
		{say: "any green electric ones?", calls: []string{`search_cars {"fuel":"electric","color":"green"}`}},
		{say: "compare them", calls: []string{}, reply: []string{"Only one car is shown: the 2023 Hyundai Ioniq 5."}, not: []string{"A6"}},
		{say: "show me the hatchbacks", calls: []string{`search_cars {"bodyType":"hatchback"}`}},
		{say: "compare them", calls: []string{`compare_cars {"carIds":["c14","c16","c15"]}`}, reply: []string{"Golf"}},
	}},
	{"a calculation undone, and undo in other words", "financing", "", []siteTurn{
		{say: "25k 36 mo", calls: []string{`calculate_payment {"price":25000,"termMonths":36}`}},
		{say: "2k down at 4.9%", calls: []string{`calculate_payment {"price":25000,"downPayment":2000,"termMonths":36,"apr":4.9}`}},
		{say: "undo", calls: []string{`calculate_payment {"price":25000,"downPayment":0,"termMonths":36,"apr":6.9}`}, reply: []string{"down $0"}},
	}},
	{"a calculation undone in other words", "financing", "c01", []siteTurn{
		{say: "60 months", calls: []string{`calculate_payment {"termMonths":60}`}},
		{say: "48 mo 3k down", calls: []string{`calculate_payment {"downPayment":3000,"termMonths":48}`}},
		{say: "put it back how it was", calls: []string{`calculate_payment {"downPayment":0,"termMonths":60}`}, not: []string{"Sorry"}, on: "financing"},
		{say: "24 months", calls: []string{`calculate_payment {"downPayment":0,"termMonths":24}`}},
		{say: "scratch the last change", calls: []string{`calculate_payment {"downPayment":0,"termMonths":60}`}, on: "financing"},
	}},
	{"a ceiling said as nothing above, and other words for a gap and kilometres", "inventory", "", []siteTurn{
		{say: "an SUV, nothing above 35k", calls: []string{`search_cars {"bodyType":"suv","maxPrice":35000}`}},
		{say: "Which of those has the fewest kilometres on it?", calls: []string{}, reply: []string{"RAV4 is the lowest-mileage"}},
		{say: "compare the kia and the honda", calls: []string{`compare_cars {"carIds":["c08","c02"]}`}, on: "drawer"},
		{say: "What's the price gap between the two?", calls: []string{}, reply: []string{"a difference of $1,650"}},
	}},
	{"a package named short", "car", "c22", []siteTurn{
		{say: "add family pkg and driver assist", calls: []string{`configure_car {"packages":["family","safety"]}`}},
	}},
	{"a choice taken back in the same message", "car", "c19", []siteTurn{
		{say: "red. no wait, black", calls: []string{`configure_car {"color":"black"}`}},
		{say: "GT trim", calls: []string{`configure_car {"color":"black","trim":"GT"}`}},
		{say: "no GT after all, EcoBoost please", calls: []string{`configure_car {"trim":"EcoBoost"}`}},
		{say: "GT trim", calls: []string{`configure_car {"trim":"GT"}`}},
		{say: "switch back to ecoboost", calls: []string{`configure_car {"trim":"EcoBoost"}`}},
	}},
	{"a colour corrected, and a trim dropped for another", "car", "c22", []siteTurn{
		{say: "elite trim", calls: []string{`configure_car {"trim":"Elite"}`}},
		{say: "too much, drop the elite go w/ ex-l", calls: []string{`configure_car {"trim":"EX-L"}`}},
		{say: "white. no wait, blue", calls: []string{`configure_car {"color":"blue"}`}},
	}},
	{"a booking confirmed in old-fashioned words, and a goodbye", "test-drive", "c22", []siteTurn{
		{say: "Thursday at ten, Dorothy Fairweather, dorothy.f@example.co.uk", calls: []string{`fill_form_data {"name":"Dorothy Fairweather","email":"dorothy.f@example.co.uk","date":"2026-12-03","time":"10:00"}`}},
		{say: "what have you filled in so far?", calls: []string{}, reply: []string{"So far:", "Dorothy Fairweather", "10:00"}, not: []string{"Sorry"}},
		{say: "what date did you put in?", calls: []string{}, reply: []string{"The date was 2026-12-03."}},
		{say: "Splendid, do go ahead and reserve it.", calls: []string{`book_test_drive {}`}, reply: []string{"Booked test drive"}},
		{say: "Many thanks for your help. Good day to you.", calls: []string{}, reply: []string{"Goodbye"}},
	}},
	{"a confirmation after thanks, and thanks kindly", "test-drive", "c06", []siteTurn{
		{say: "sat morning 9, Dan Okafor dan@okafor.io", calls: []string{`fill_form_data {"name":"Dan Okafor","email":"dan@okafor.io","date":"2026-12-05","time":"09:00"}`}},
		{say: "I am most grateful. Please confirm the booking.", calls: []string{`book_test_drive {}`}},
		{say: "Thank you kindly, goodbye.", calls: []string{}, reply: []string{"Goodbye"}},
	}},
	{"the dearest first, and the most new", "inventory", "", []siteTurn{
		{say: "Would you be so kind as to list your automobiles in order of price, the dearest first?", calls: []string{`sort_cars {"by":"price","order":"desc"}`}},
		{say: "which Toyota is most new?", calls: []string{}, reply: []string{"The 2023 Toyota RAV4 is the newest."}, not: []string{"Tesla"}},
	}},
	{"the newest of a make asked on a list not seen", "inventory", "", []siteTurn{
		{say: "which Toyota is most new?", calls: []string{`search_cars {"make":"Toyota"}`, `sort_cars {"by":"year","order":"desc"}`}, reply: []string{"The newest toyota is the 2023 Toyota RAV4."}},
	}},
	{"a rate said after the amount put down", "car", "c17", []siteTurn{
		{say: "financing 72mo 10k down 8.9%", calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":10000,"termMonths":72,"apr":8.9}`}, on: "financing"},
		{say: "24 months 15k down 3.9%", calls: []string{`calculate_payment {"downPayment":15000,"termMonths":24,"apr":3.9}`}},
	}},
	{"a page asked for with words of what it is for", "car", "c13", []siteTurn{
		{say: "Kindly take me to the financing page with that configuration.", calls: []string{`go_to_financing {}`}, reply: []string{"Opening the financing calculator"}, not: []string{"either"}, on: "financing"},
	}},
	{"one package of two undone by its name", "car", "c08", []siteTurn{
		{say: "add tech + winter", calls: []string{`configure_car {"packages":["tech","winter"]}`}},
		{say: "undo the winter", calls: []string{`configure_car {"packages":["tech"]}`}},
	}},
	{"whether it has a package, asked short", "car", "c18", []siteTurn{
		{say: "have tow package?", calls: []string{}, reply: []string{"Yes: Towing package is one of the packages"}},
		{say: "add it pls", calls: []string{`configure_car {"packages":["tow"]}`}},
	}},
	{"a word that is a trim and a package, said once", "car", "c10", []siteTurn{
		{say: "I want red and Sport", calls: []string{`configure_car {"color":"red","trim":"Sport"}`}},
		{say: "sport trim with the sport package", calls: []string{`configure_car {"packages":["sport"],"trim":"Sport"}`}},
	}},
	{"two kinds said with their articles", "inventory", "", []siteTurn{
		{say: "a minivan or an SUV under 30k please", calls: []string{`search_cars {"bodyType":"minivan","maxPrice":30000}`}, reply: []string{"one body type at a time: [“an SUV under 30k please”]"}},
		{click: 1, calls: []string{`search_cars {"bodyType":"suv","maxPrice":30000}`}, reply: []string{"Sportage"}, on: "inventory"},
	}},
	{"a ranking said in simple words", "inventory", "", []siteTurn{
		{say: "I search electric car, not expensive", calls: []string{`search_cars {"fuel":"electric"}`, `sort_cars {"by":"price","order":"asc"}`}, reply: []string{"The cheapest electric is the 2022 Tesla Model 3"}, not: []string{"search electric"}},
	}},
	{"how the visitor is, not who", "financing", "c01", []siteTurn{
		{say: "ok I'm happy, how do I apply?", calls: []string{}, reply: []string{"I need your full name, email and annual income"}},
		{say: "dana.reyes@example.com, I make 72000 a year", calls: []string{}, reply: []string{"I need your full name"}, not: []string{"happy"}},
		{say: "Dana Reyes", calls: []string{`apply_for_financing {"fullName":"Dana Reyes","email":"dana.reyes@example.com","annualIncome":72000}`}, reply: []string{"submitted for Dana Reyes"}},
	}},
	{"an income's unit is no name", "financing", "c01", []siteTurn{
		{say: "I'd like to apply", calls: []string{}},
		{say: "dana@example.com, 72000 a year", calls: []string{}, reply: []string{"I need your full name"}},
	}},
	{"the way to do something asked", "financing", "c01", []siteTurn{
		{say: "where do I apply?", calls: []string{}, reply: []string{"I need your full name, email and annual income"}},
		{say: "im ready, dana@example.com", calls: []string{}, reply: []string{"I need your full name and annual income"}}, // ("ready" is no name)
		{say: "72000 a year", calls: []string{}, reply: []string{"I need your full name"}},                                 // ("year" is no name)
		{say: "Dana Reyes", calls: []string{`apply_for_financing {"fullName":"Dana Reyes","email":"dana@example.com","annualIncome":72000}`}, reply: []string{"submitted for Dana Reyes"}},
		{say: "I'm happy with that", calls: []string{}, reply: []string{"Anything else"}, on: "financing"},
	}},
	{"a phone visitor corrects the booking", "test-drive", "c02", []siteTurn{
		{say: "tmrw 9am, lou, lou@me.com", calls: []string{`fill_form_data {"name":"lou","email":"lou@me.com","date":"2026-12-03","time":"09:00"}`}},
		{say: "wait 9 is early, 11", calls: []string{`fill_form_data {"name":"lou","email":"lou@me.com","date":"2026-12-03","time":"11:00"}`}},
		{say: "9am is a bit early for me, can we do 10?", calls: []string{`fill_form_data {"name":"lou","email":"lou@me.com","date":"2026-12-03","time":"10:00"}`}},
		{say: "14 pls", calls: []string{`fill_form_data {"name":"lou","email":"lou@me.com","date":"2026-12-03","time":"14:00"}`}},
		{say: "can we do sun instead", calls: []string{`fill_form_data {"name":"lou","email":"lou@me.com","date":"2026-12-06","time":"14:00"}`}},
		{say: "wat have u filled in", calls: []string{}, reply: []string{"So far:", "2026-12-06", "14:00", "lou@me.com"}},
		{say: "what time again?", calls: []string{}, reply: []string{"14:00"}, not: []string{"can be"}},
		{say: "go ahead", calls: []string{`book_test_drive {}`}, reply: []string{"Booked"}},
	}},
	{"a down payment bumped up to a figure", "financing", "c12", []siteTurn{
		{say: "60 months with 6k down", calls: []string{`calculate_payment {"downPayment":6000,"termMonths":60}`}},
		{say: "bump the down payment up to 12k", calls: []string{`calculate_payment {"downPayment":12000,"termMonths":60}`}, reply: []string{"down $12,000"}},
	}},
	{"what is not wanted, and the rest kept", "car", "c22", []siteTurn{
		{say: "Elite trim with the family package", calls: []string{`configure_car {"packages":["family"],"trim":"Elite"}`}},
		{say: "Same as before but with the EX-L trim instead, please.", calls: []string{`configure_car {"packages":["family"],"trim":"EX-L"}`}},
		{say: "the Elite trim instead of the EX-L one", calls: []string{`configure_car {"trim":"Elite"}`}, reply: []string{"Elite trim", "Family package"}},
		{say: "finance it", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "60 months at 6.5%", calls: []string{`calculate_payment {"termMonths":60,"apr":6.5}`}},
		{say: "48 months, keeping the rest the same", calls: []string{`calculate_payment {"termMonths":48,"apr":6.5}`}},
	}},
	{"other cars sought on a car's page", "car", "c14", []siteTurn{
		{say: "show me red cars under 30k", calls: []string{`back_to_inventory {}`, `search_cars {"color":"red","maxPrice":30000}`}, reply: []string{"Showing 6 cars"}, on: "inventory"},
		{say: "open the civic", calls: []string{`select_car {"carId":"c10"}`}, on: "car"},
		{say: "what red cars do you have", calls: []string{`back_to_inventory {}`, `search_cars {"color":"red"}`}, on: "inventory"},
	}},
	{"the list and cheaper in a colour from a car's page", "car", "c05", []siteTurn{
		{say: "back to list, anything cheaper in blue?", calls: []string{`back_to_inventory {}`, `search_cars {"color":"blue"}`, `sort_cars {"by":"price","order":"asc"}`}, on: "inventory"},
	}},
	{"whether the car on the booking page is the one named", "test-drive", "c13", []siteTurn{
		{say: "is this the Audi A4 or the A6?", calls: []string{}, reply: []string{"Yes: it is the 2020 Audi A4."}},
		{say: "Saturday at 10", calls: []string{}},
	}},
	{"a bound's word before the sort asked", "inventory", "", []siteTurn{
		{say: "show me cars from 2022 or newer, cheapest first", calls: []string{`search_cars {"minYear":2022}`, `sort_cars {"by":"price","order":"asc"}`}},
	}},
	{"short words of a phone visitor", "inventory", "", []siteTurn{
		{say: "sedans under 30k", calls: []string{`search_cars {"bodyType":"sedan","maxPrice":30000}`}},
		{say: "compare top 3", calls: []string{`compare_cars {"carIds":["c09","c10","c13"]}`}, on: "drawer"},
		{say: "open the f-150", calls: []string{`search_cars {}`, `select_car {"carId":"c17"}`}, on: "car"},
		{say: "can i take it out tmrw morn", calls: []string{`go_to_test_drive {}`}, reply: []string{"one of: 09:00, 10:00, 11:00)"}, on: "test-drive"},
		{say: "im jess k", calls: []string{}, reply: []string{"I need your email and time"}},
	}},
	{"totals of a calculation", "inventory", "", []siteTurn{
		{say: "open the CR-V please", calls: []string{`search_cars {}`, `select_car {"carId":"c02"}`}, on: "car"},
		{say: "finance it", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "48 months please", calls: []string{`calculate_payment {"termMonths":48}`}},
		{say: "how much total interest is that?", calls: []string{}, reply: []string{"Total interest $4,334.87"}, not: []string{"is $29,450"}},
		{say: "what's the total cost?", calls: []string{}, reply: []string{"In all $33,784.87", "the price $29,450", "$4,334.87 interest"}},
		{say: "how much would I pay altogether?", calls: []string{}, reply: []string{"In all $33,784.87"}},
	}},
	{"one from the comparison, and words of asking", "inventory", "", []siteTurn{
		{say: "Might I see the wagons you have?", calls: []string{`search_cars {"bodyType":"wagon"}`}, not: []string{"no Might"}},
		{say: "show me sedans", calls: []string{`search_cars {"bodyType":"sedan"}`}},
		{say: "compare the first three", calls: []string{`compare_cars {"carIds":["c09","c10","c11"]}`}, on: "drawer"},
		{say: "Could you open the second one from the comparison, please?", calls: []string{`select_car {"carId":"c10"}`}, on: "car"},
		{say: "cheapest trim pls", calls: []string{`configure_car {"trim":"LX"}`}},
	}},
	{"another car for the booking filled", "test-drive", "c05", []siteTurn{
		{say: "sat 10am, kat, kat@mail.com", calls: []string{`fill_form_data {"name":"kat","email":"kat@mail.com","date":"2026-12-05","time":"10:00"}`}},
		{say: "swap to the model y", calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c04"}`, `go_to_test_drive {}`, `fill_form_data {"name":"kat","email":"kat@mail.com","date":"2026-12-05","time":"10:00"}`}, on: "test-drive"},
		{say: "the ioniq 5 instead", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c05"}`, `go_to_test_drive {}`, `fill_form_data {"name":"kat","email":"kat@mail.com","date":"2026-12-05","time":"10:00"}`}, on: "test-drive"},
		{say: "change car to the model y", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c04"}`, `go_to_test_drive {}`, `fill_form_data {"name":"kat","email":"kat@mail.com","date":"2026-12-05","time":"10:00"}`}, on: "test-drive"},
		{say: "go ahead", calls: []string{`book_test_drive {}`}, reply: []string{"Tesla Model Y"}},
	}},
	{"another car, the same day and time", "test-drive", "c13", []siteTurn{
		{say: "Saturday at 10", calls: []string{}, reply: []string{"name and email"}},
		{say: "I'd rather test drive the A6 Avant instead, same day and time", calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c21"}`, `go_to_test_drive {}`}, on: "test-drive"},
	}},
	{"back to the car for a choice", "financing", "c01", []siteTurn{
		{say: "48 months with 6k down please", calls: []string{`calculate_payment {"downPayment":6000,"termMonths":48}`}},
		{say: "go back to the car and pick the Limited trim", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c01"}`, `configure_car {"trim":"Limited"}`}, on: "car"},
		{say: "what's my monthly payment now?", calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":6000,"termMonths":48}`}, reply: []string{"$37,990"}, on: "financing"},
	}},
	{"a question between the details keeps those said before", "car", "c01", []siteTurn{
		{say: "book test drive sat at 10", calls: []string{`go_to_test_drive {}`}, reply: []string{"name and email"}, on: "test-drive"},
		{say: "whats the weather", calls: []string{}},
		{say: "jess.k@gmail.com", calls: []string{}, reply: []string{"I need your name."}},
		{say: "jess kim", calls: []string{`fill_form_data {"name":"jess kim","email":"jess.k@gmail.com","date":"2026-12-05","time":"10:00"}`}},
	}},
	{"one of a kind of those shown, and how many ranked", "inventory", "", []siteTurn{
		{say: "suvs under 35k", calls: []string{`search_cars {"bodyType":"suv","maxPrice":35000}`}},
		{say: "red one pls", calls: []string{`search_cars {"bodyType":"suv","color":"red","maxPrice":35000}`}},
		{say: "show me SUVs", calls: []string{`search_cars {"bodyType":"suv"}`}},
		{say: "compare the three with the lowest mileage", calls: []string{`sort_cars {"by":"mileage","order":"asc"}`, `compare_cars {"carIds":["c05","c04","c01"]}`}, on: "drawer"},
	}},
	{"a field alone asked of the two compared", "inventory", "", []siteTurn{
		{say: "compare civic n golf", calls: []string{`search_cars {}`, `compare_cars {"carIds":["c10","c14"]}`}, on: "drawer"},
		{say: "and mileage?", calls: []string{}, reply: []string{"The 2023 Honda Civic has 9,000 miles and the 2021 Volkswagen Golf has 26,000 miles."}},
		{say: "what about mileage?", calls: []string{}, reply: []string{"9,000 miles", "26,000 miles"}, not: []string{"Which do you mean"}},
		{say: "what about the year?", calls: []string{}, reply: []string{"2023", "2021"}, not: []string{"Which do you mean"}},
		{say: "what's their mileage?", calls: []string{}, reply: []string{"9,000 miles", "26,000 miles"}},
	}},
	{"a payment recalled that was never worked out", "financing", "c05", []siteTurn{
		{say: "60 months please", calls: []string{`calculate_payment {"termMonths":60}`}},
		{say: "what was the payment over 72 months with 10k down?", calls: []string{`calculate_payment {"downPayment":10000,"termMonths":72}`}, not: []string{"Earlier I said"}},
		{say: "what was the payment at 60 months again?", calls: []string{}, reply: []string{"Earlier I said: Monthly payment $813.87 for 60 months"}},
	}},
	{"two terms side by side", "financing", "c01", []siteTurn{
		{say: "48 months with 6k down please", calls: []string{`calculate_payment {"downPayment":6000,"termMonths":48}`}},
		{say: "what's the monthly difference between 48 and 60 months?", calls: []string{`calculate_payment {"downPayment":6000,"termMonths":60}`, `calculate_payment {"downPayment":6000,"termMonths":48}`},
			reply: []string{"Over 48 months: $", "Over 60 months: $", "A difference of $"}},
		{say: "compare 48 and 72 months for me", calls: []string{`calculate_payment {"downPayment":6000,"termMonths":72}`, `calculate_payment {"downPayment":6000,"termMonths":48}`}, reply: []string{"Over 72 months: $"}},
	}},
	{"every choice of a list, and the car before", "inventory", "", []siteTurn{
		{say: "open the camry", calls: []string{`search_cars {}`, `select_car {"carId":"c09"}`}, on: "car"},
		{say: "open the sportage", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c08"}`}, on: "car"},
		{say: "top trim with every package", calls: []string{`configure_car {"packages":["winter","tech","cargo"],"trim":"SX"}`}},
		{say: "what are all the packages?", calls: []string{}, reply: []string{"The packages to choose from"}},
		{say: "go back to the previous car", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c09"}`}, on: "car"},
		{say: "add all the packages", calls: []string{`configure_car {"packages":["tech","sound","safety"]}`}},
	}},
	{"a trim set on the way", "car", "c01", []siteTurn{
		{say: "go to financing with the Limited trim", calls: []string{`configure_car {"trim":"Limited"}`, `go_to_financing {}`}, reply: []string{"$37,990"}, on: "financing"},
	}},
	{"a choice set on the way, and the list narrowed", "car", "c22", []siteTurn{
		{say: "Could you take me to financing for the EX-L configuration?", calls: []string{`configure_car {"trim":"EX-L"}`, `go_to_financing {}`}, reply: []string{"$37,500"}, on: "financing"},
		{say: "back to the car", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c22"}`}, on: "car"},
		{say: "Now could we go back to the list and narrow it to ones from 2023 or newer?", calls: []string{`back_to_inventory {}`, `search_cars {"minYear":2023}`}, on: "inventory"},
	}},
	{"a ranking of the two compared that ties", "inventory", "", []siteTurn{
		{say: "show me pickups", calls: []string{`search_cars {"bodyType":"pickup"}`}},
		{say: "compare them", calls: []string{`compare_cars {"carIds":["c17","c18"]}`}, on: "drawer"},
		{say: "open the newer of the two", calls: []string{}, reply: []string{"They tie: the 2021 Ford F-150 and the 2021 Toyota Tacoma, both 2021."}},
		{click: 2, on: "car"},
		{say: "back to the list", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "open the cheaper one", calls: []string{`select_car {"carId":"c18"}`}, on: "car"},
	}},
	{"the comparison closed to open one of it", "inventory", "", []siteTurn{
		{say: "compare the golf and the civic", calls: []string{`search_cars {}`, `compare_cars {"carIds":["c14","c10"]}`}, on: "drawer"},
		{say: "Please close the comparison and open the cheaper of the two.", calls: []string{`select_car {"carId":"c14"}`}, on: "car"},
	}},
	{"a short day said alone or with the same time", "test-drive", "c01", []siteTurn{
		{say: "sat 10am, jo lee, jo@lee.io", calls: []string{`fill_form_data {"name":"jo lee","email":"jo@lee.io","date":"2026-12-05","time":"10:00"}`}},
		{say: "actually sun same time", calls: []string{`fill_form_data {"name":"jo lee","email":"jo@lee.io","date":"2026-12-06","time":"10:00"}`}},
		{say: "hmm no, tue?", calls: []string{`fill_form_data {"name":"jo lee","email":"jo@lee.io","date":"2026-12-08","time":"10:00"}`}},
		{say: "ok send it", calls: []string{`book_test_drive {}`}, reply: []string{"2026-12-08 at 10:00"}},
	}},
	{"a monthly over a bare number of months", "inventory", "", []siteTurn{
		{say: "wats the monthly over 48", calls: []string{}, reply: []string{"tell me which"}, not: []string{"Showing"}},
		{say: "the civic", calls: []string{`search_cars {}`, `select_car {"carId":"c10"}`, `go_to_financing {}`, `calculate_payment {"termMonths":48}`}, on: "financing"},
	}},
	{"which car the page is of, and a make said as a plural", "car", "c01", []siteTurn{
		{say: "what would it cost a month?", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "remind me which car this is for", calls: []string{}, reply: []string{"It is the 2023 Toyota RAV4."}},
		{say: "back to the car", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c01"}`}, on: "car"},
		{say: "which car is this?", calls: []string{}, reply: []string{"It is the 2023 Toyota RAV4."}},
		{say: "show me the audis", calls: []string{`back_to_inventory {}`, `search_cars {"make":"Audi"}`}, reply: []string{"Audi A4", "Audi A6"}, not: []string{"Sorry"}, on: "inventory"},
	}},
	{"a short question whether the site has a car", "inventory", "", []siteTurn{
		{say: "u hv the camry?", calls: []string{`search_cars {}`, `select_car {"carId":"c09"}`}, reply: []string{"2022 Toyota Camry"}, not: []string{"Sorry", "can't"}, on: "car"},
	}},
	{"a trim set from the calculator, by a car page's link", "car", "c08", []siteTurn{
		{say: "what would it cost a month over 60 months?", calls: []string{`go_to_financing {}`, `calculate_payment {"termMonths":60}`}, on: "financing"},
		{say: "switch it to the SX trim and show me the payment again",
			calls: []string{`back_to_inventory {}`, `select_car {"carId":"c08"}`, `configure_car {"trim":"SX"}`, `go_to_financing {}`, `calculate_payment {"termMonths":60}`},
			reply: []string{"$32,400", "60 months"}, not: []string{"There is no"}, on: "financing"},
		{say: "make it the EX trim", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c08"}`, `configure_car {"trim":"EX"}`}, reply: []string{"EX trim"}, not: []string{"There is no"}, on: "car"},
	}},
	{"another car for a drive asked of this car", "car", "c01", []siteTurn{
		{say: "book a test drive of this car on friday at 2pm", calls: []string{`go_to_test_drive {}`}, reply: []string{"2023 Toyota RAV4", "name and email"}, on: "test-drive"},
		{say: "nvm, the civic", calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c10"}`, `go_to_test_drive {}`},
			reply: []string{"2023 Honda Civic", "name and email"}, not: []string{"Showing"}, on: "test-drive"},
		{say: "Lee Park, lee@park.io", calls: []string{`fill_form_data {"name":"Lee Park","email":"lee@park.io","date":"2026-12-04","time":"14:00"}`}},
	}},
	{"two cars' payments, the first on a calculator come to by a link", "financing", "c01", []siteTurn{
		{say: "60 months 5k down", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":60}`}},
		{say: "and what would the civic be on the same terms",
			calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c10"}`, `go_to_financing {}`, `calculate_payment {"downPayment":5000,"termMonths":60}`}, on: "financing"},
		{say: "which of the two is cheaper a month?", calls: []string{}, reply: []string{"2023 Honda Civic is lower: $373.35 against $533.16 for the 2023 Toyota RAV4"}},
	}},
	{"the comparison closed, then the list asked again", "inventory", "", []siteTurn{
		{say: "compare the golf and the civic", calls: []string{`search_cars {}`, `compare_cars {"carIds":["c14","c10"]}`}, on: "drawer"},
		{say: "Close the comparison and show me all the cars again", calls: []string{`close_comparison {}`, `search_cars {}`}, reply: []string{"Showing 24 cars"}, on: "inventory"},
		{say: "compare the two cheapest", calls: []string{`sort_cars {"by":"price","order":"asc"}`, `compare_cars {"carIds":["c14","c16"]}`}, on: "drawer"},
		{say: "close it, then show me suvs", calls: []string{`close_comparison {}`, `search_cars {"bodyType":"suv"}`}, reply: []string{"Showing 7 cars"}, not: []string{"too many"}, on: "inventory"},
	}},
	{"back to the car twice, from a calculator come to by a link", "financing", "c09", []siteTurn{
		{say: "back to the car", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c09"}`}, on: "car"},
		{say: "finance it", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "back to the car", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c09"}`}, reply: []string{"2022 Toyota Camry"}, on: "car"},
	}},
	{"a family's drive and a spelled down payment", "car", "c22", []siteTurn{
		{say: "book a test drive saturday at ten with the kids", calls: []string{`go_to_test_drive {}`}, reply: []string{"name and email"}, not: []string{"Sorry"}, on: "test-drive"},
		{say: "Dana Wu, dana@wu.example", calls: []string{`fill_form_data {"name":"Dana Wu","email":"dana@wu.example","date":"2026-12-05","time":"10:00"}`}},
		{say: "what would it cost with seven thousand five hundred down for seventy two months", calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":7500,"termMonths":72}`},
			reply: []string{"down $7,500", "72 months"}, on: "financing"},
		{say: "can we come in this sunday at ten for a test drive the whole family",
			calls: []string{`go_to_test_drive {}`, `fill_form_data {"name":"Dana Wu","email":"dana@wu.example","date":"2026-12-06","time":"10:00"}`}, not: []string{"Sorry"}, on: "test-drive"},
	}},
	{"packages taken back in other words", "car", "c01", []siteTurn{
		{say: "Please add the panoramic roof and the winter package.", calls: []string{`configure_car {"packages":["roof","winter"]}`}},
		{say: "Forget the panoramic roof.", calls: []string{`configure_car {"packages":["winter"]}`}, reply: []string{"Winter package"}, not: []string{"Panoramic roof"}},
		{say: "add the roof again", calls: []string{`configure_car {"packages":["winter","roof"]}`}},
		{say: "Never mind the winter package.", calls: []string{`configure_car {"packages":["roof"]}`}, not: []string{"Winter package"}},
		{say: "I don't want the roof after all", calls: []string{`configure_car {"packages":[]}`}, reply: []string{"no packages"}},
	}},
	{"a hyphenated package removed", "car", "c18", []siteTurn{
		{say: "add the off-road package", calls: []string{`configure_car {"packages":["offroad"]}`}},
		{say: "Please remove the off-road package.", calls: []string{`configure_car {"packages":[]}`}, reply: []string{"no packages"}},
	}},
	{"an undo said politely, a spelled amount put down, the total all together", "financing", "c06", []siteTurn{
		{say: "What would it be over 72 months with $4,000 down?", calls: []string{`calculate_payment {"downPayment":4000,"termMonths":72}`}},
		{say: "Could you try 7.5% APR instead?", calls: []string{`calculate_payment {"downPayment":4000,"termMonths":72,"apr":7.5}`}},
		{say: "Undo that, please.", calls: []string{`calculate_payment {"downPayment":4000,"termMonths":72,"apr":6.9}`}, not: []string{"Sorry"}},
		{say: "and if i put down ten grand", calls: []string{`calculate_payment {"downPayment":10000,"termMonths":72,"apr":6.9}`}, reply: []string{"down $10,000"}, not: []string{"application"}},
		{say: "Can you undo that?", calls: []string{`calculate_payment {"downPayment":4000,"termMonths":72,"apr":6.9}`}, reply: []string{"down $4,000"}},
		{say: "back to the car", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c06"}`}, on: "car"},
		{say: "add the winter package", calls: []string{`configure_car {"packages":["winter"]}`}},
		{say: "how much is it all together", calls: []string{`get_price_summary {}`}, reply: []string{"total $31,100"}},
	}},
	{"what was booked, asked from another page", "test-drive", "c04", []siteTurn{
		{say: "Sunday at 11, Peter Lind, peter.lind@example.com.", calls: []string{`fill_form_data {"name":"Peter Lind","email":"peter.lind@example.com","date":"2026-12-06","time":"11:00"}`}},
		{say: "Please book it.", calls: []string{`book_test_drive {}`}},
		{say: "Which day is my test drive?", calls: []string{}, reply: []string{"2026-12-06 at 11:00"}},
		{say: "Take me to financing for this car.", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "Which car did I book?", calls: []string{}, reply: []string{"Booked test drive TD-4821: 2023 Tesla Model Y on 2026-12-06 at 11:00"}},
	}},
	{"the first of two payments recalled", "financing", "c02", []siteTurn{
		{say: "What would it cost per month over 48 months with $3,000 down?", calls: []string{`calculate_payment {"downPayment":3000,"termMonths":48}`}},
		{say: "And what about the Camry on the same terms?",
			calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c09"}`, `go_to_financing {}`, `calculate_payment {"downPayment":3000,"termMonths":48}`}, on: "financing"},
		{say: "What was the payment on the first one again?", calls: []string{}, reply: []string{"Earlier I said: Monthly payment $632.15"}, not: []string{"Camry"}},
		{say: "What was the payment on the second one again?", calls: []string{}, reply: []string{"$561.65"}},
	}},
	{"back to the make of the car opened before", "inventory", "", []siteTurn{
		{say: "Please open the Audi A4.", calls: []string{`search_cars {}`, `select_car {"carId":"c13"}`}, on: "car"},
		{say: "Now open the BMW 330i.", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c11"}`}, on: "car"},
		{say: "Actually, go back to the Audi.", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c13"}`}, reply: []string{"2020 Audi A4"}, on: "car"},
	}},
	{"just the kind already set: the other filter dropped", "inventory", "", []siteTurn{
		{say: "show me hybrid suvs", calls: []string{`search_cars {"bodyType":"suv","fuel":"hybrid"}`}},
		{say: "just suvs", calls: []string{`search_cars {"bodyType":"suv"}`}, reply: []string{"Showing 7 cars"}},
		{say: "only the ones under 35k", calls: []string{`search_cars {"bodyType":"suv","maxPrice":35000}`}},
	}},
	{"what is set now, asked after a choice", "car", "c02", []siteTurn{
		{say: "I'd like the EX-L trim in gray, please.", calls: []string{`configure_car {"color":"gray","trim":"EX-L"}`}},
		{say: "What trim is it set to now?", calls: []string{}, reply: []string{"EX-L"}, not: []string{"Touring"}},
		{say: "What colour is it now?", calls: []string{}, reply: []string{"gray"}, not: []string{"white"}},
	}},
	{"an earlier visit told before the request", "inventory", "", []siteTurn{
		{say: "Hi, I came by last week. Show me the SUVs, please.", calls: []string{`search_cars {"bodyType":"suv"}`}, reply: []string{"Showing 7 cars"}, not: []string{"came by"}},
		{say: "I was here yesterday. Could you show me the wagons, please?", calls: []string{`search_cars {"bodyType":"wagon"}`}, not: []string{"Sorry"}},
	}},
	{"what was filled in, asked after the application went in", "financing", "c10", []siteTurn{
		{say: "Please work out 48 months with $2,000 down.", calls: []string{`calculate_payment {"downPayment":2000,"termMonths":48}`}},
		{say: "I'd like to apply: Maya Chen, maya.chen@example.com, 72,000 a year.", calls: []string{`apply_for_financing {"fullName":"Maya Chen","email":"maya.chen@example.com","annualIncome":72000}`}},
		{say: "What have you filled in so far?", calls: []string{}, reply: []string{"Sent:", "Maya Chen", "72000"}, not: []string{"Sorry"}},
	}},
	{"the difference between two cars' payments", "financing", "c15", []siteTurn{
		{say: "What would 60 months with nothing down come to?", calls: []string{`calculate_payment {"downPayment":0,"termMonths":60}`}},
		{say: "What about the Golf on the same terms?",
			calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c14"}`, `go_to_financing {}`, `calculate_payment {"downPayment":0,"termMonths":60}`}, on: "financing"},
		{say: "What's the difference per month between them?", calls: []string{}, reply: []string{"a difference of $53.34 a month"}},
	}},
	{"a second question said short after a first", "car", "c22", []siteTurn{
		{say: "what colors does it come in and what trims", calls: []string{}, reply: []string{"The color can be silver, white, gray or blue.", "The trim can be EX, EX-L or Elite."}},
	}},
	{"an hour said in words when the time was asked", "test-drive", "c02", []siteTurn{
		{say: "book it for saturday", reply: []string{"name", "email", "time"}},
		{say: "ten works", reply: []string{"name and email"}, not: []string{"time"}},
		{say: "Ann Lee, ann@lee.com",
			calls: []string{`fill_form_data {"name":"Ann Lee","email":"ann@lee.com","date":"2026-12-05","time":"10:00"}`}},
	}},
	{"a day and an hour with who is coming", "test-drive", "c01", []siteTurn{
		{say: "saturday the 12th at eleven the whole family is coming", reply: []string{"name and email"}, not: []string{"Sorry"}},
		{say: "Ann Lee ann@lee.com",
			calls: []string{`fill_form_data {"name":"Ann Lee","email":"ann@lee.com","date":"2026-12-12","time":"11:00"}`}},
	}},
	{"a weekday said with its date, a hyphenated name", "test-drive", "c15", []siteTurn{
		{say: "Thursday, December 10 at 2pm", reply: []string{"name and email"}},
		{say: "name: Rosa Delgado-Finch, rosa.df@outlook.com",
			calls: []string{`fill_form_data {"name":"Rosa Delgado-Finch","email":"rosa.df@outlook.com","date":"2026-12-10","time":"14:00"}`}},
		{say: "I'm Mary-Kate Olsen, mk@olsen.com",
			calls: []string{`fill_form_data {"name":"Mary-Kate Olsen","email":"mk@olsen.com","date":"2026-12-10","time":"14:00"}`}},
	}},
	{"a budget held against the payment, said short or in words", "financing", "c09", []siteTurn{
		{say: "60 months, 10000 down", calls: []string{`calculate_payment {"downPayment":10000,"termMonths":60}`}},
		{say: "is that under 500?", calls: []string{}, reply: []string{"Yes: $325.94 a month is within $500 a month."}},
		{say: "is that within three hundred?", calls: []string{}, reply: []string{"No: $325.94 a month is over $300 a month."}},
		{say: "and over 72 months?", calls: []string{`calculate_payment {"downPayment":10000,"termMonths":72}`}, reply: []string{"down $10,000"}},
	}},
	{"a share of the price asked, then put down", "financing", "c12", []siteTurn{
		{say: "60 months at 4.5%", calls: []string{`calculate_payment {"termMonths":60,"apr":4.5}`}},
		{say: "what's 20% of the price exactly?", calls: []string{}, reply: []string{"20% of $35,990 is $7,198."}},
		{say: "what's 15% of 23,900?", calls: []string{}, reply: []string{"15% of $23,900 is $3,585."}},
		{say: "put 20% of the price down", calls: []string{`calculate_payment {"downPayment":7198,"termMonths":60,"apr":4.5}`}, reply: []string{"4.5% APR"}},
	}},
	{"a package refused on a car page reached by a link", "car", "c10", []siteTurn{
		{say: "Sport trim please, no sport package", calls: []string{}, reply: []string{"Which packages should it have now", "or none?"}},
		{say: "none", calls: []string{`configure_car {"packages":[],"trim":"Sport"}`}, reply: []string{"Sport trim", "no packages"}},
		{say: "the Touring trim, but not the sport package", calls: []string{`configure_car {"packages":[],"trim":"Touring"}`}},
	}},
	{"a bound said as what nothing may cost; an amount put down in words", "inventory", "", []siteTurn{
		{say: "nothing that costs more than 25000", calls: []string{`search_cars {"maxPrice":25000}`}},
		{say: "open the golf", calls: []string{`select_car {"carId":"c14"}`}, on: "car"},
		{say: "what would it be a month over 48 months if I put down seven thousand five hundred?",
			calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":7500,"termMonths":48}`}, on: "financing"},
	}},
	{"a booking sent empty after the contact details were given", "inventory", "", []siteTurn{
		{say: "my name is Gerald Fairweather and my email is gerald.f@outlook.com"},
		{say: "open the corolla", calls: []string{`search_cars {}`, `select_car {"carId":"c16"}`}, on: "car"},
		{say: "test drive please", calls: []string{`go_to_test_drive {}`}, reply: []string{"I'll fill in your name and email."}, on: "test-drive"},
		{say: "book it please", calls: []string{`book_test_drive {}`}, reply: []string{"I need your date and time", "I'll fill in your name and email."}},
		{say: "saturday at 10", calls: []string{`fill_form_data {"name":"Gerald Fairweather","email":"gerald.f@outlook.com","date":"2026-12-05","time":"10:00"}`}},
	}},
	{"a trim and a package instead, begun with and", "car", "c01", []siteTurn{
		{say: "XLE with tech", calls: []string{`configure_car {"packages":["tech"],"trim":"XLE"}`}},
		{say: "and in Limited with the winter pkg instead?", calls: []string{`configure_car {"packages":["winter"],"trim":"Limited"}`}, reply: []string{"total $38,890"}},
	}},
	{"another car's monthly cost on the same terms, from a calculator reached by a link", "financing", "c10", []siteTurn{
		{say: "48 months, 5000 down", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":48}`}},
		{say: "what would the camry cost a month on the same terms?",
			calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c09"}`, `go_to_financing {}`, `calculate_payment {"downPayment":5000,"termMonths":48}`},
			reply: []string{"For the 2022 Toyota Camry", "$513.85"}},
	}},
	{"cars named that the filtered list does not show", "inventory", "", []siteTurn{
		{say: "show me electric cars under 45k", calls: []string{`search_cars {"fuel":"electric","maxPrice":45000}`}},
		{say: "how much more is the Model Y than the Ioniq 5?", calls: []string{`search_cars {}`, `search_cars {"fuel":"electric","maxPrice":45000}`},
			reply: []string{"The 2023 Tesla Model Y is $46,990 and the 2023 Hyundai Ioniq 5 is $41,200: a difference of $5,790."}},
		{say: "which is newer, the Civic or the Camry?", calls: []string{}, reply: []string{"The 2023 Honda Civic is the newer (the other is the 2022 Toyota Camry)."}},
	}},
	{"two cars named that the filtered list does not show", "inventory", "", []siteTurn{
		{say: "show me electric cars", calls: []string{`search_cars {"fuel":"electric"}`}},
		{say: "which is newer, the Civic or the Camry?", calls: []string{`search_cars {}`, `search_cars {"fuel":"electric"}`},
			reply: []string{"The 2023 Honda Civic is the newer (the other is the 2022 Toyota Camry)."}},
	}},
	{"a remark, then the request", "inventory", "", []siteTurn{
		{say: "Good evening. My late husband always drove Toyotas, so could you show me just the Toyotas, please?", calls: []string{`search_cars {"make":"Toyota"}`}},
		{say: "I am confused, how many are there?", calls: []string{}, reply: []string{"There are 4 cars."}},
		{say: "open the camry", calls: []string{`select_car {"carId":"c09"}`}, on: "car"},
		{say: "test drive next tuesday at 9, Arthur Bell, arthur@yahoo.com", calls: []string{`go_to_test_drive {}`,
			`fill_form_data {"name":"Arthur Bell","email":"arthur@yahoo.com","date":"2026-12-08","time":"09:00"}`}, on: "test-drive"},
		{say: "Actually, could we make it an hour later? My grandson does not get up early.",
			calls: []string{`fill_form_data {"name":"Arthur Bell","email":"arthur@yahoo.com","date":"2026-12-08","time":"10:00"}`}},
	}},
	{"back to a car named, from its calculator reached by a link; the hour booked now", "financing", "c10", []siteTurn{
		{say: "48 months, 5000 down", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":48}`}},
		{say: "let us go back to the Civic", calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c10"}`}, on: "car"},
		{say: "book a test drive next tuesday at 9, Arthur Bell, arthur@yahoo.com", calls: []string{`go_to_test_drive {}`,
			`fill_form_data {"name":"Arthur Bell","email":"arthur@yahoo.com","date":"2026-12-08","time":"09:00"}`}, on: "test-drive"},
		{say: "an hour later please", calls: []string{`fill_form_data {"name":"Arthur Bell","email":"arthur@yahoo.com","date":"2026-12-08","time":"10:00"}`}},
		{say: "What time is it booked for now?", calls: []string{}, reply: []string{"10:00"}, not: []string{"09:00"}},
	}},
	{"back to the car for a trim, asked politely", "financing", "c08", []siteTurn{
		{say: "60 months with 4000 down", calls: []string{`calculate_payment {"downPayment":4000,"termMonths":60}`}},
		{say: "I would like to go back to the car and choose the EX trim, please.",
			calls: []string{`back_to_inventory {}`, `select_car {"carId":"c08"}`, `configure_car {"trim":"EX"}`}, reply: []string{"EX trim"}, on: "car"},
	}},
	{"a remark, then a request for the list", "inventory", "", []siteTurn{
		{say: "I am looking for something small and cheap to run. Could you show me the cars under 23000?", calls: []string{`search_cars {"maxPrice":23000}`}},
		{say: "show me toyotas", calls: []string{`search_cars {"make":"Toyota"}`}},
		{say: "I would rather something newer. Could you show me only the ones from 2022 or later, please?", calls: []string{`search_cars {"make":"Toyota","minYear":2022}`}},
	}},
	{"a sum asked, another car compared on the same terms, two payments, a note as said", "car", "c09", []siteTurn{
		{say: "what does it add up to?", calls: []string{`get_price_summary {}`}, reply: []string{"total $26,500"}, not: []string{"already added"}},
		{say: "what would it be over 48 months with nothing down", calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":0,"termMonths":48}`}, on: "financing"},
		{say: "5.5 percent", calls: []string{`calculate_payment {"downPayment":0,"termMonths":48,"apr":5.5}`}},
		{say: "which is cheaper per month?", calls: []string{}, reply: []string{"The one with apr 5.5 has the lower monthly payment", "for the other one."}},
		{say: "how does the Civic compare on the same terms?",
			calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c10"}`, `go_to_financing {}`, `calculate_payment {"downPayment":0,"termMonths":48,"apr":5.5}`},
			reply: []string{"For the 2023 Honda Civic"}},
		{say: "book a test drive of it on december 9 at 11, Dorothy Whitfield, dorothy@mail.com", calls: []string{`go_to_test_drive {}`,
			`fill_form_data {"name":"Dorothy Whitfield","email":"dorothy@mail.com","date":"2026-12-09","time":"11:00"}`}, on: "test-drive"},
		{say: "add a note: Oliver will be driving as well",
			calls: []string{`fill_form_data {"name":"Dorothy Whitfield","email":"dorothy@mail.com","date":"2026-12-09","time":"11:00","notes":"Oliver will be driving as well"}`}},
	}},
	{"how another car compares on the same terms, from a calculator reached by a link", "financing", "c09", []siteTurn{
		{say: "48 mo, 0 down, 6.9% APR", calls: []string{`calculate_payment {"downPayment":0,"termMonths":48,"apr":6.9}`}},
		{say: "how does the Civic compare on the same terms?",
			calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c10"}`, `go_to_financing {}`, `calculate_payment {"downPayment":0,"termMonths":48,"apr":6.9}`},
			reply: []string{"For the 2023 Honda Civic"}},
	}},
	{"the difference between the last two payments, and in interest", "financing", "c02", []siteTurn{
		{say: "48 mo at 5.5 APR, 3k down", calls: []string{`calculate_payment {"downPayment":3000,"termMonths":48,"apr":5.5}`}},
		{say: "and at 36 mo?", calls: []string{`calculate_payment {"downPayment":3000,"termMonths":36,"apr":5.5}`}},
		{say: "what's the difference between the two monthly figures?", calls: []string{}, reply: []string{"The difference in monthly payment is $183.55"}},
		{say: "what's the difference in interest?", calls: []string{}, reply: []string{"The difference in interest is $773.88"}},
	}},
	{"a figure compared with, in a question", "financing", "c10", []siteTurn{
		{say: "36 mo at 2.9% APR with 2k down", calls: []string{`calculate_payment {"downPayment":2000,"termMonths":36,"apr":2.9}`}},
		{say: "is 5k down better than 2k?", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":36,"apr":2.9}`}, reply: []string{"price $23,900"}},
	}},
	{"the morning's times asked, an hour in words with a name", "car", "c09", []siteTurn{
		{say: "test drive next Tuesday morning", calls: []string{`go_to_test_drive {}`}, reply: []string{"09:00, 10:00, 11:00"}, on: "test-drive"},
		{say: "What times are there in the morning?", calls: []string{}, reply: []string{"The time can be 09:00, 10:00 or 11:00."}},
		{say: "Nine o'clock, please. My name is Arthur Bell.", calls: []string{}, reply: []string{"email"}, not: []string{"time (one of"}},
	}},
	{"another car for a booking begun, same day and time", "test-drive", "c15", []siteTurn{
		{say: "friday the 11th at 3pm", reply: []string{"name and email"}},
		{say: "change it to the Corolla instead, same day and time",
			calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c16"}`, `go_to_test_drive {}`}, on: "test-drive"},
		{say: "Ann Lee, ann@lee.com", calls: []string{`fill_form_data {"name":"Ann Lee","email":"ann@lee.com","date":"2026-12-11","time":"15:00"}`}},
	}},
	{"a question of the three compared, no name to look up", "inventory", "", []siteTurn{
		{say: "show me SUVs under 45k", calls: []string{`search_cars {"bodyType":"suv","maxPrice":45000}`}},
		{say: "compare the Sportage, the CR-V and the RAV4", calls: []string{`compare_cars {"carIds":["c08","c02","c01"]}`}, on: "drawer"},
		{say: "which of the three has the lowest mileage?", calls: []string{}, reply: []string{"The 2023 Toyota RAV4 is the lowest-mileage"}},
	}},
	{"the price asked again on a car's page after a search with a ceiling", "inventory", "", []siteTurn{
		{say: "hatchbacks under 25000", calls: []string{`search_cars {"bodyType":"hatchback","maxPrice":25000}`}},
		{say: "open the golf", calls: []string{`select_car {"carId":"c14"}`}, on: "car"},
		{say: "what was the price again?", calls: []string{}, reply: []string{"The 2021 Volkswagen Golf is $21,900."}, not: []string{"max price"}},
		{say: "what was the max price again?", calls: []string{}, reply: []string{"The max price was 25000."}},
		{say: "SE trim please", calls: []string{`configure_car {"trim":"SE"}`}},
		{say: "what was the price again?", calls: []string{}, reply: []string{"The price was $"}, not: []string{"$21,900"}},
	}},
	{"a car opened when asked politely, nothing more said", "inventory", "", []siteTurn{
		{say: "show me hatchbacks", calls: []string{`search_cars {"bodyType":"hatchback"}`}},
		{say: "which has the fewest miles", calls: []string{}, reply: []string{"2023 Mazda Mazda3 Hatchback is the lowest-mileage"}},
		{say: "Lovely. Could you open that one for me?", calls: []string{`select_car {"carId":"c15"}`}, not: []string{"can't"}, on: "car"},
	}},
	{"a booking agreed to and sent in one breath", "test-drive", "c14", []siteTurn{
		{say: "december 9 at 11, Dorothy Whitfield, dorothy@mail.com",
			calls: []string{`fill_form_data {"name":"Dorothy Whitfield","email":"dorothy@mail.com","date":"2026-12-09","time":"11:00"}`}},
		{say: "That is all correct, book it.", calls: []string{`book_test_drive {}`}, reply: []string{"Booked test drive"}},
	}},
	{"a day moved while the form waits for the name", "test-drive", "c10", []siteTurn{
		{say: "saturday at 10", calls: []string{}, reply: []string{"name and email"}},
		{say: "the day after instead", calls: []string{}, reply: []string{"name and email"}, not: []string{"Sorry"}},
		{say: "Jo Park jo@park.io", calls: []string{`fill_form_data {"name":"Jo Park","email":"jo@park.io","date":"2026-12-06","time":"10:00"}`}},
	}},
	{"an hour moved while the form waits for the name", "test-drive", "c10", []siteTurn{
		{say: "saturday at 10", calls: []string{}, reply: []string{"name and email"}},
		{say: "an hour later please", calls: []string{}, reply: []string{"name and email"}, not: []string{"date"}},
		{say: "Jo Park jo@park.io", calls: []string{`fill_form_data {"name":"Jo Park","email":"jo@park.io","date":"2026-12-05","time":"11:00"}`}},
	}},
	{"a name corrected before the form could be filled", "test-drive", "c08", []siteTurn{
		{say: "Tom Baker, tom@yahoo.com", calls: []string{}, reply: []string{"date and time"}},
		{say: "sorry, it's for my wife, Anna Baker, anna@yahoo.com", calls: []string{}, reply: []string{"date and time"}},
		{say: "tomorrow at 2pm", calls: []string{`fill_form_data {"name":"Anna Baker","email":"anna@yahoo.com","date":"2026-12-03","time":"14:00"}`}},
		{say: "book it", calls: []string{`book_test_drive {}`}, reply: []string{"Anna Baker"}, not: []string{"Tom"}},
	}},
	{"a name alone corrected before the form could be filled", "test-drive", "c08", []siteTurn{
		{say: "Tom Baker, tom@yahoo.com", calls: []string{}, reply: []string{"date and time"}},
		{say: "sorry, it should be Anna Baker", calls: []string{}, reply: []string{"date and time"}},
		{say: "tomorrow at 2pm", calls: []string{`fill_form_data {"name":"Anna Baker","email":"tom@yahoo.com","date":"2026-12-03","time":"14:00"}`}},
	}},
	{"a couple decides between the two compared", "inventory", "", []siteTurn{
		{say: "compare the RAV4 and the CR-V", calls: []string{`search_cars {}`, `compare_cars {"carIds":["c01","c02"]}`}, on: "drawer"},
		{say: "my wife likes the RAV4 because it's hybrid, I like the CR-V, let's go with the RAV4", calls: []string{`select_car {"carId":"c01"}`}, reply: []string{"RAV4"}, on: "car"},
	}},
	{"a couple decides on a third car, then on one said before", "inventory", "", []siteTurn{
		{say: "compare the Miata and the BMW 430i", calls: []string{`search_cars {}`, `compare_cars {"carIds":["c23","c24"]}`}, on: "drawer"},
		{say: "she says the Miata is too small, we'll stay with the BMW", calls: []string{`select_car {"carId":"c24"}`}, on: "car"},
		{say: "the BMW is nice but we agreed on the Outback", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c06"}`}, on: "car"},
		{say: "ok the Outback is cheaper, we'll go with that one", calls: []string{}, not: []string{"Golf"}},
	}},
	{"a couple's budget keeps the kind of car", "inventory", "", []siteTurn{
		{say: "show me suvs", calls: []string{`search_cars {"bodyType":"suv"}`}},
		{say: "we'd like to stay under 35k if we can", calls: []string{`search_cars {"bodyType":"suv","maxPrice":35000}`}},
	}},
	{"a year said alone before the kind of car", "inventory", "", []siteTurn{
		{say: "2023 suvs", calls: []string{`search_cars {"bodyType":"suv","minYear":2023}`}},
	}},
	{"a year said alone before a make", "inventory", "", []siteTurn{
		{say: "2021 fords", calls: []string{`search_cars {"make":"Ford","minYear":2021}`}},
		{say: "open the 2021 F-150", calls: []string{`select_car {"carId":"c17"}`}, on: "car"},
	}},
	{"a year said alone after a bound", "inventory", "", []siteTurn{
		{say: "anything under 20k miles thats 2022", calls: []string{`search_cars {"maxMileage":20000,"minYear":2022}`}},
	}},
	{"the cheapest of those compared, opened and booked", "inventory", "", []siteTurn{
		{say: "compare the rav4 cr-v and sportage", calls: []string{`search_cars {}`, `compare_cars {"carIds":["c01","c02","c08"]}`}, on: "drawer"},
		{say: "book a test drive for the cheapest of those", calls: []string{`select_car {"carId":"c08"}`, `go_to_test_drive {}`}, reply: []string{"Kia Sportage"}, on: "test-drive"},
		{say: "back to the list", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "compare the rav4 and the cr-v", calls: []string{`compare_cars {"carIds":["c01","c02"]}`}, on: "drawer"},
		{say: "open the pricier of those", calls: []string{`select_car {"carId":"c01"}`}, on: "car"},
	}},
	{"a term the calculator lacks, after a payment", "financing", "c11", []siteTurn{
		{say: "60 months", calls: []string{`calculate_payment {"termMonths":60}`}},
		{say: "make it 84 months", calls: []string{}, reply: []string{"There is no 84 months option", "24, 36, 48, 60 or 72"}},
		{say: "84 months with 5k down then", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":60}`}, reply: []string{"There is no 84 months option"}},
	}},
	{"another car's payment asked to compare, on the same terms", "financing", "c09", []siteTurn{
		{say: "6000 down over 60 months", calls: []string{`calculate_payment {"downPayment":6000,"termMonths":60}`}},
		{say: "how does that compare to the Civic on the same terms?",
			calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c10"}`, `go_to_financing {}`, `calculate_payment {"downPayment":6000,"termMonths":60}`},
			reply: []string{"Honda Civic", "60 months"}, on: "financing"},
		{say: "can you tell us what the Golf would be on the same terms?",
			calls: []string{`back_to_inventory {}`, `select_car {"carId":"c14"}`, `go_to_financing {}`, `calculate_payment {"downPayment":6000,"termMonths":60}`},
			reply: []string{"Volkswagen Golf"}, not: []string{"Yes:"}, on: "financing"},
	}},
	{"an application for the car before, on its terms, after another car's payment", "inventory", "", []siteTurn{
		{say: "open the outback", calls: []string{`search_cars {}`, `select_car {"carId":"c06"}`}, on: "car"},
		{say: "what's the monthly with 3000 down over 72 months?", calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":3000,"termMonths":72}`}, on: "financing"},
		{say: "what would the Golf be on the same terms?",
			calls: []string{`back_to_inventory {}`, `select_car {"carId":"c14"}`, `go_to_financing {}`, `calculate_payment {"downPayment":3000,"termMonths":72}`}, reply: []string{"Golf"}},
		{say: "ok, apply for the Outback loan, Jenny Park, jenny.park@gmail.com, income 88000",
			calls: []string{`back_to_inventory {}`, `select_car {"carId":"c06"}`, `go_to_financing {}`, `calculate_payment {"downPayment":3000,"termMonths":72}`,
				`apply_for_financing {"fullName":"Jenny Park","email":"jenny.park@gmail.com","annualIncome":88000}`},
			reply: []string{"$27,200 over 72 months"}},
	}},
	{"back to the other of two trucks, with a reply word or without", "inventory", "", []siteTurn{
		{say: "trucks", calls: []string{`search_cars {"bodyType":"pickup"}`}},
		{say: "open the diesel one", calls: []string{`select_car {"carId":"c17"}`}, on: "car"},
		{say: "go back to the other one", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c18"}`}, reply: []string{"Tacoma"}, not: []string{"Going back"}, on: "car"},
		{say: "nah open the other one", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c17"}`}, reply: []string{"F-150"}, not: []string{"can't"}, on: "car"},
	}},
	{"no phone to give, before and after the form is filled", "test-drive", "c04", []siteTurn{
		{say: "friday at 10", calls: []string{}, reply: []string{"name and email"}},
		{say: "i don't have a phone", calls: []string{}, reply: []string{"the phone is optional", "name and email"}, not: []string{"Sorry"}},
		{say: "alex park, alexpark@proton.me", calls: []string{`fill_form_data {"name":"alex park","email":"alexpark@proton.me","date":"2026-12-04","time":"10:00"}`}},
		{say: "no phone sorry", calls: []string{}, reply: []string{"the phone is optional"}, not: []string{"Sorry"}},
		{say: "book it", calls: []string{`book_test_drive {}`}},
	}},
	{"a package taken back in other words", "car", "c02", []siteTurn{
		{say: "add the winter package", calls: []string{`configure_car {"packages":["winter"]}`}},
		{say: "nah undo that", calls: []string{`configure_car {"packages":[]}`}, reply: []string{"no packages"}},
		{say: "add the cargo organiser", calls: []string{`configure_car {"packages":["cargo"]}`}},
		{say: "go back to how it was", calls: []string{`configure_car {"packages":[]}`}, reply: []string{"no packages"}},
	}},
	{"the price on screen held against an amount", "car", "c22", []siteTurn{
		{say: "is this van under 35k?", calls: []string{`get_price_summary {}`}, reply: []string{"Yes: the 2022 Honda Odyssey is $34,900, under $35,000."}},
		{say: "add the family package", calls: []string{`configure_car {"packages":["family"]}`}},
		{say: "is it still under 35k?", calls: []string{}, reply: []string{"No: the 2022 Honda Odyssey is $3", "over $35,000"}},
	}},
	{"a listed car's price held against an amount", "inventory", "", []siteTurn{
		{say: "open the odyssey", calls: []string{`search_cars {}`, `select_car {"carId":"c22"}`}, on: "car"},
		{say: "is it over 30 grand?", calls: []string{}, reply: []string{"Yes: the 2022 Honda Odyssey is $34,900, over $30,000."}},
	}},
	{"the one just looked at, opened again", "inventory", "", []siteTurn{
		{say: "show me suvs", calls: []string{`search_cars {"bodyType":"suv"}`}},
		{say: "open the rav4", calls: []string{`select_car {"carId":"c01"}`}, on: "car"},
		{say: "back", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "open the one i just looked at", calls: []string{`select_car {"carId":"c01"}`}, reply: []string{"RAV4"}, on: "car"},
	}},
	{"which of the two compared is hybrid, and their fuel", "inventory", "", []siteTurn{
		{say: "compare the Camry and the Civic", calls: []string{`search_cars {}`, `compare_cars {"carIds":["c09","c10"]}`}, on: "drawer"},
		{say: "which one is hybrid?", calls: []string{}, reply: []string{"the 2022 Toyota Camry"}, not: []string{"Showing"}},
		{say: "what fuel do they use?", calls: []string{}, reply: []string{"2022 Toyota Camry: hybrid", "2023 Honda Civic: gasoline"}},
	}},
	{"the difference a bigger down payment makes, asked", "financing", "c06", []siteTurn{
		{say: "3000 down over 72 months", calls: []string{`calculate_payment {"downPayment":3000,"termMonths":72}`}},
		{say: "what's the difference if we put 6000 down instead?", calls: []string{`calculate_payment {"downPayment":6000,"termMonths":72}`}, reply: []string{"$411.42"}, on: "financing"},
		{say: "what's the difference between the two monthly figures?", calls: []string{}, reply: []string{"$51.01"}},
	}},
	{"the cars of a kind asked as ones", "inventory", "", []siteTurn{
		{say: "show me electric cars", calls: []string{`search_cars {"fuel":"electric"}`}},
		{say: "what electric ones do you have?", calls: []string{`search_cars {"fuel":"electric"}`}, reply: []string{"Showing 3 cars"}, not: []string{"Which do you mean"}},
	}},
	{"open it, on its page", "inventory", "", []siteTurn{
		{say: "open the civic", calls: []string{`search_cars {}`, `select_car {"carId":"c10"}`}, on: "car"},
		{say: "open it", calls: []string{}, reply: []string{"This is the page of the 2023 Honda Civic."}, not: []string{"Sorry"}},
	}},
	{"the price shown asked for", "car", "c02", []siteTurn{
		{say: "add the winter package", calls: []string{`configure_car {"packages":["winter"]}`}},
		{say: "whats the price shown now", calls: []string{`get_price_summary {}`}, reply: []string{"$30,350"}, not: []string{"not sure"}},
	}},
	{"a make's car named by its kind", "car", "c06", []siteTurn{
		{say: "compare it to the audi wagon", calls: []string{`back_to_inventory {}`, `search_cars {}`, `compare_cars {"carIds":["c21","c06"]}`}, reply: []string{"Audi A6 Avant"}, on: "drawer"},
	}},
	{"the day said twice over, the time kept", "test-drive", "c16", []siteTurn{
		{say: "thursday 9am", calls: []string{}, reply: []string{"name and email"}},
		{say: "actually wednesday", calls: []string{}, reply: []string{"name and email"}},
		{say: "next wednesday i mean", calls: []string{}, reply: []string{"name and email"}, not: []string{"time"}},
		{say: "Ann Lee ann@lee.com", calls: []string{`fill_form_data {"name":"Ann Lee","email":"ann@lee.com","date":"2026-12-09","time":"09:00"}`}},
	}},
	{"a package added by its name alone, on the calculator", "car", "c05", []siteTurn{
		{say: "monthly payment over 60 months", calls: []string{`go_to_financing {}`, `calculate_payment {"termMonths":60}`}, on: "financing"},
		{say: "add the home charger", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c05"}`, `configure_car {"packages":["charge"]}`}, reply: []string{"Home charger $1,250"}, on: "car"},
	}},
	{"a package added by its name alone, from the booking page", "test-drive", "c01", []siteTurn{
		{say: "could you add the roof", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c01"}`, `configure_car {"packages":["roof"]}`}, on: "car"},
		{say: "go to test drive", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "add a note that I prefer mornings", calls: []string{}, reply: []string{"name, email, date and time"}},
	}},
	{"a term the calculator lacks, said as a bare figure or in years", "car", "c10", []siteTurn{
		{say: "what would that cost a month?", calls: []string{`go_to_financing {}`}, reply: []string{"60 months"}, on: "financing"},
		{say: "and 84?", calls: []string{}, reply: []string{"There is no 84 months option", "24, 36, 48, 60 or 72"}, not: []string{"Sorry"}},
		{say: "ok 72 then", calls: []string{`calculate_payment {"termMonths":72}`}},
		{say: "what about 7 years", calls: []string{}, reply: []string{"There is no 7 years option"}, not: []string{"Sorry"}},
		{say: "and 48?", calls: []string{`calculate_payment {"termMonths":48}`}},
	}},
	{"the payment again with a package, asked on the calculator", "financing", "c01", []siteTurn{
		{say: "60 months with 3000 down", calls: []string{`calculate_payment {"downPayment":3000,"termMonths":60}`}},
		{say: "what about with the winter package?", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c01"}`, `configure_car {"packages":["winter"]}`, `go_to_financing {}`, `calculate_payment {"downPayment":3000,"termMonths":60}`}, reply: []string{"$590.45", "$32,890"}, on: "financing"},
		{say: "how much with the civic", calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c10"}`}, on: "car"},
	}},
	{"the payment again with a package the car lacks", "financing", "c05", []siteTurn{
		{say: "60 months with 3000 down", calls: []string{`calculate_payment {"downPayment":3000,"termMonths":60}`}},
		{say: "what about with the winter package?", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c05"}`}, reply: []string{"There is no winter package", "Home charger"}, on: "car"},
	}},
	{"a kind wanted, with a story of the summer after it", "inventory", "", []siteTurn{
		{say: "we need a pickup, my husband tows a camper in the summer", calls: []string{`search_cars {"bodyType":"pickup"}`}, reply: []string{"Showing 2 cars", "Tacoma"}, not: []string{"Sorry"}},
	}},
	{"a time said right before the name's label", "test-drive", "c09", []siteTurn{
		{say: "friday at 10 name alex park alex@park.com", calls: []string{`fill_form_data {"name":"alex park","email":"alex@park.com","date":"2026-12-04","time":"10:00"}`}, not: []string{"I need"}},
	}},
	{"a price limit said beside a wish for low mileage", "inventory", "", []siteTurn{
		{say: "suv under 40000 low mileage", calls: []string{`search_cars {"bodyType":"suv","maxPrice":40000}`}},
		{say: "and under 30000 km", calls: []string{`search_cars {"bodyType":"suv","maxPrice":40000,"maxMileage":30000}`}},
	}},
	{"a wish for low mileage said before a price limit", "inventory", "", []siteTurn{
		{say: "low mileage hybrid under 50000", calls: []string{`search_cars {"fuel":"hybrid","maxPrice":50000}`}},
	}},
	{"a car named inside a note", "test-drive", "c18", []siteTurn{
		{say: "My name is Arthur Lindqvist, email arthur.l@example.com, tomorrow at 4 pm.", calls: []string{`fill_form_data {"name":"Arthur Lindqvist","email":"arthur.l@example.com","date":"2026-12-03","time":"16:00"}`}},
		{say: "Please add a note that I would like to see the Tacoma's towing package.", calls: []string{`fill_form_data {"name":"Arthur Lindqvist","email":"arthur.l@example.com","date":"2026-12-03","time":"16:00","notes":"I would like to see the Tacoma's towing package"}`}},
	}},
	{"what the car on screen is set to, asked, not changed", "car", "c11", []siteTurn{
		{say: "Please set it to the M Sport trim in white.", calls: []string{`configure_car {"trim":"M Sport","color":"white"}`}},
		{say: "How does that compare with the base price?", calls: []string{`get_price_summary {}`}, reply: []string{"M Sport", "Base $34,800, total $37,900"}},
		{say: "Is this BMW 330i the M Sport version?", calls: []string{`get_price_summary {}`}, not: []string{"Configured"}},
	}},
	{"it after a reply that only suggested a car", "inventory", "", []siteTurn{
		{say: "hybrid", calls: []string{`search_cars {"fuel":"hybrid"}`}},
		{say: "wei.chen@qq.com", calls: []string{}, reply: []string{"Noted"}},
		{say: "book it", calls: []string{}, reply: []string{"Which car is it for"}, not: []string{"RAV4 for"}},
	}},
	{"a three-word name that ends in a short word, then the e-mail", "financing", "c05", []siteTurn{
		{say: "apply Pham Van An pham.an@gmail.com 45000", calls: []string{`apply_for_financing {"fullName":"Pham Van An","email":"pham.an@gmail.com","annualIncome":45000}`}, reply: []string{"submitted for Pham Van An"}},
	}},
	{"another car named first in lower case, as typed on a phone", "car", "c01", []siteTurn{
		{say: "camry blue how much", calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c09"}`, `configure_car {"color":"blue"}`}, reply: []string{"2022 Toyota Camry", "blue"}, on: "car"},
		{say: "open rav4", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c01"}`}, on: "car"},
	}},
	{"a car opened by a bare name from another car's page", "car", "c07", []siteTurn{
		{say: "open camry", calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c09"}`}, on: "car"},
	}},
	{"a price asked of a car named first, on the list", "inventory", "", []siteTurn{
		{say: "camry price", calls: []string{`search_cars {}`, `select_car {"carId":"c09"}`, `get_price_summary {}`}, reply: []string{"$26,500"}, on: "car"},
	}},
	{"a trim changed on the calculator after a rate with a 5 in it", "financing", "c12", []siteTurn{
		{say: "36 months at 5.5%, please.", calls: []string{`calculate_payment {"termMonths":36,"apr":5.5}`}},
		{say: "I would rather have the Long Range trim. Could you change that and calculate again with the same terms?", calls: []string{`back_to_inventory {}`, `search_cars {}`, `select_car {"carId":"c12"}`, `configure_car {"trim":"Long Range"}`, `go_to_financing {}`, `calculate_payment {"termMonths":36,"apr":5.5}`}, reply: []string{"Tesla Model 3", "$41,990"}, not: []string{"Ioniq"}, on: "financing"},
	}},
	{"a bare hour after the day, then more words", "test-drive", "c04", []siteTurn{
		{say: "tomorrow 10 phone 5551234567", calls: []string{}, reply: []string{"name and email"}, not: []string{"time"}},
		{say: "Kim Lee kim@lee.com", calls: []string{`fill_form_data {"name":"Kim Lee","email":"kim@lee.com","phone":"5551234567","date":"2026-12-03","time":"10:00"}`}},
	}},
	{"a bare afternoon hour with an ok after it", "test-drive", "c04", []siteTurn{
		{say: "friday 3 ok", calls: []string{}, reply: []string{"name and email"}, not: []string{"time"}},
		{say: "Kim Lee kim@lee.com", calls: []string{`fill_form_data {"name":"Kim Lee","email":"kim@lee.com","date":"2026-12-04","time":"15:00"}`}},
	}},
	{"the calculator named with a bare term, from the car's page", "car", "c07", []siteTurn{
		{say: "financing 60", calls: []string{`go_to_financing {}`, `calculate_payment {"termMonths":60}`}, reply: []string{"$886.96"}, not: []string{"application"}, on: "financing"},
	}},
	{"the calculator named as a verb with a bare term", "car", "c07", []siteTurn{
		{say: "finance 48", calls: []string{`go_to_financing {}`, `calculate_payment {"termMonths":48}`}, on: "financing"},
	}},
	{"a note with the request to send after it", "test-drive", "c02", []siteTurn{
		{say: "Ann Lee ann@lee.com saturday at 1 pm", calls: []string{`fill_form_data {"name":"Ann Lee","email":"ann@lee.com","date":"2026-12-05","time":"13:00"}`}},
		{say: "Please add a note that I would like to discuss financing, and send it.", calls: []string{`fill_form_data {"name":"Ann Lee","email":"ann@lee.com","date":"2026-12-05","time":"13:00","notes":"I would like to discuss financing"}`}},
		{say: "book it", calls: []string{`book_test_drive {}`}},
	}},
	{"a budget said, then the cars under that amount", "inventory", "", []siteTurn{
		{say: "We have about $30,000 to spend, so could you show me only the sedans under that amount?", calls: []string{`search_cars {"bodyType":"sedan","maxPrice":30000}`}, reply: []string{"Showing 3 cars"}},
	}},
	{"a budget said, then what is in that range", "inventory", "", []siteTurn{
		{say: "We have about $30,000 to spend. Could you show us what is available in that range?", calls: []string{`search_cars {"maxPrice":30000}`}, not: []string{"Sorry"}},
	}},
	{"a kind wanted in one sentence, what there is asked in the next", "inventory", "", []siteTurn{
		{say: "I am looking for a convertible for the summer. What do you have?", calls: []string{`search_cars {"bodyType":"convertible"}`}, reply: []string{"Showing 2 cars"}, not: []string{"Sorry", "summer"}},
	}},
	{"a trim wanted, and its price asked, where a package has its name", "car", "c10", []siteTurn{
		{say: "I would like the Sport trim, please. What would the price be?", calls: []string{`configure_car {"trim":"Sport"}`}, reply: []string{"total $25,500"}, not: []string{"Sport package"}},
		{say: "what does the sport package cost", calls: []string{}, reply: []string{"Sport package costs once it is added"}},
	}},
	{"open first, as typed on a phone after a sort", "inventory", "", []siteTurn{
		{say: "hybrid", calls: []string{`search_cars {"fuel":"hybrid"}`}},
		{say: "sort cheap first", calls: []string{`sort_cars {"by":"price"}`}},
		{say: "open first", calls: []string{`select_car {"carId":"c09"}`}, on: "car"},
	}},
	{"a figure of the last answer asked in that case", "financing", "c05", []siteTurn{
		{say: "Let us say 60 months, with $6,000 down.", calls: []string{`calculate_payment {"downPayment":6000,"termMonths":60}`}},
		{say: "Could you tell me the total interest I would pay in that case?", calls: []string{}, reply: []string{"Total interest $6,520.56"}},
	}},
	{"back alone on the calculator opened from the car's page", "car", "c09", []siteTurn{
		{say: "monthly payment over 60 months", calls: []string{`go_to_financing {}`, `calculate_payment {"termMonths":60}`}, on: "financing"},
		{say: "back", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c09"}`}, on: "car"},
		{say: "back", calls: []string{`back_to_inventory {}`}, on: "inventory"},
	}},
	{"the trim set, asked at the moment", "car", "c11", []siteTurn{
		{say: "make it m sport", calls: []string{`configure_car {"trim":"M Sport"}`}},
		{say: "Which trim is it set to at the moment?", calls: []string{}, reply: []string{"M Sport"}, not: []string{"can be"}},
	}},
	{"what the car is set to, asked before any choice, and a package by its name", "car", "c05", []siteTurn{
		{say: "what trim is it set to now?", calls: []string{`get_price_summary {}`}, reply: []string{"SE trim"}, not: []string{"haven't given"}},
		{say: "which package is selected?", calls: []string{}, reply: []string{"no packages"}, not: []string{"to choose from"}},
		{say: "add the home charger", calls: []string{`configure_car {"packages":["charge"]}`}},
		{say: "which packages are selected?", calls: []string{}, reply: []string{"Home charger"}, not: []string{"charge."}},
	}},
	{"the comparison again, from a car's page", "inventory", "", []siteTurn{
		{say: "show me suvs", calls: []string{`search_cars {"bodyType":"suv"}`}},
		{say: "compare the first three", calls: []string{`compare_cars {"carIds":["c01","c02","c03"]}`}, on: "drawer"},
		{say: "open the third one", calls: []string{`select_car {"carId":"c03"}`}, on: "car"},
		{say: "pick the xlt trim", calls: []string{`configure_car {"trim":"XLT"}`}},
		{say: "can you show me the comparison again?", calls: []string{`back_to_inventory {}`, `compare_cars {"carIds":["c01","c02","c03"]}`}, on: "drawer"},
		{say: "open the rav4", calls: []string{`select_car {"carId":"c01"}`}, on: "car"},
		{say: "compare again", calls: []string{`back_to_inventory {}`, `compare_cars {"carIds":["c01","c02","c03"]}`}, on: "drawer"},
	}},
	{"the first car shown, asked from another car's page", "inventory", "", []siteTurn{
		{say: "show me suvs", calls: []string{`search_cars {"bodyType":"suv"}`}},
		{say: "open the second one", calls: []string{`select_car {"carId":"c02"}`}, on: "car"},
		{say: "the first one you showed me", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c01"}`}, reply: []string{"RAV4"}, not: []string{"can't"}, on: "car"},
		{say: "show me the third one", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c03"}`}, on: "car"},
		{say: "the second car", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c02"}`}, on: "car"},
	}},
	{"the first car, said from the second's page", "inventory", "", []siteTurn{
		{say: "show me suvs", calls: []string{`search_cars {"bodyType":"suv"}`}},
		{say: "open the second one", calls: []string{`select_car {"carId":"c02"}`}, on: "car"},
		{say: "the first car", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c01"}`}, reply: []string{"RAV4"}, on: "car"},
	}},
	{"this make, of two of that make, on one's page", "inventory", "", []siteTurn{
		{say: "show me electric cars", calls: []string{`search_cars {"fuel":"electric"}`}},
		{say: "open the model y", calls: []string{`select_car {"carId":"c04"}`}, on: "car"},
		{say: "how much is this tesla?", calls: []string{}, reply: []string{"Model Y is $46,990"}},
		{say: "compare this tesla with the ioniq 5", calls: []string{`back_to_inventory {}`, `compare_cars {"carIds":["c05","c04"]}`}, not: []string{"Which one"}, on: "drawer"},
	}},
	{"back to the car by its name, politely, from its calculator", "inventory", "", []siteTurn{
		{say: "show me trucks", calls: []string{`search_cars {"bodyType":"pickup"}`}},
		{say: "open the tacoma", calls: []string{`select_car {"carId":"c18"}`}, on: "car"},
		{say: "go to financing", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "back to the tacoma, please", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c18"}`}, on: "car"},
	}},
	{"a yes after thanks sends the form filled", "test-drive", "c01", []siteTurn{
		{say: "saturday at 10, my name is Jo Lee, jo@lee.example, 555 123 4567", calls: []string{`fill_form_data {"name":"Jo Lee","email":"jo@lee.example","phone":"555 123 4567","date":"2026-12-05","time":"10:00"}`}},
		{say: "Lovely, thank you. Yes, please send it.", calls: []string{`book_test_drive {}`}, reply: []string{"Booked test drive", "Jo Lee"}},
	}},
	{"a yes after thanks, no more, sends the form filled", "test-drive", "c01", []siteTurn{
		{say: "saturday at 10, my name is Jo Lee, jo@lee.example, 555 123 4567", calls: []string{`fill_form_data {"name":"Jo Lee","email":"jo@lee.example","phone":"555 123 4567","date":"2026-12-05","time":"10:00"}`}},
		{say: "perfect, thanks, yes please", calls: []string{`book_test_drive {}`}, reply: []string{"Booked test drive", "Jo Lee"}},
	}},
	{"a budget said in one message, the cars under that amount in the next", "inventory", "", []siteTurn{
		{say: "we have about 30000 to spend", calls: []string{`search_cars {"maxPrice":30000}`}},
		{say: "show me the sedans under that amount", calls: []string{`search_cars {"bodyType":"sedan","maxPrice":30000}`}, reply: []string{"Showing 3 cars"}, not: []string{"Sorry", "BMW"}},
		{say: "and the suvs under that", calls: []string{`search_cars {"bodyType":"suv","maxPrice":30000}`}, reply: []string{"Showing 2 cars"}},
	}},
	{"a car asked for by name, is it still there", "inventory", "", []siteTurn{
		{say: "Do you still have the Tacoma?", calls: []string{`search_cars {}`, `select_car {"carId":"c18"}`}, reply: []string{"2021 Toyota Tacoma"}, not: []string{"can't"}, on: "car"},
		{say: "back to the list", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "is the mustang still available?", calls: []string{`select_car {"carId":"c19"}`}, reply: []string{"2020 Ford Mustang"}, not: []string{"can't tell"}, on: "car"},
	}},
	{"a car the site does not have, is it still there", "inventory", "", []siteTurn{
		{say: "is the delorean still available?", calls: []string{`search_cars {}`}, reply: []string{"There is no delorean among the 24 cars"}},
	}},
	{"a name alone on the list, kept for the form", "inventory", "", []siteTurn{
		{say: "Kenji Tanaka", calls: []string{`search_cars {}`}, reply: []string{"There is no Kenji Tanaka", "If that is your name"}},
		{say: "book a test drive of the camry saturday at 10", calls: []string{`select_car {"carId":"c09"}`, `go_to_test_drive {}`}, reply: []string{"I need your email"}, not: []string{"name"}, on: "test-drive"},
		{say: "kenji@tanaka.jp", calls: []string{`fill_form_data {"name":"Kenji Tanaka","email":"kenji@tanaka.jp","date":"2026-12-05","time":"10:00"}`}},
	}},
	{"a cheaper one asked in two words on a car's page", "car", "c06", []siteTurn{
		{say: "cheaper one?", calls: []string{`back_to_inventory {}`, `search_cars {}`}, reply: []string{"10 are cheaper than the 2022 Subaru Outback"}, not: []string{"Sorry"}, on: "inventory"},
	}},
	{"a cheaper one asked for on another car's page", "car", "c01", []siteTurn{
		{say: "do you have a cheaper one?", calls: []string{`back_to_inventory {}`, `search_cars {}`}, reply: []string{"cheaper than the 2023 Toyota RAV4"}, not: []string{"Golf, at"}, on: "inventory"},
	}},
	{"seats asked for, which no filter has", "inventory", "", []siteTurn{
		{say: "need 7 seats", calls: []string{`search_cars {"bodyType":"suv"}`}, reply: []string{"There is no filter for seats here, so I showed the suvs", "show me minivans"}, not: []string{"Sorry"}},
		{click: 1, calls: []string{`search_cars {"bodyType":"minivan"}`}, reply: []string{"2022 Honda Odyssey"}},
		{say: "a 7-seater under 40k please", calls: []string{`search_cars {"bodyType":"suv","maxPrice":40000}`}, reply: []string{"no filter for seats"}},
	}},
	{"seating for seven asked with a question", "inventory", "", []siteTurn{
		{say: "do you have anything with seating for 7?", calls: []string{`search_cars {"bodyType":"suv"}`}, reply: []string{"no filter for seats"}, not: []string{"Sorry"}},
	}},
	{"a filter said with a word no filter takes, after a search", "inventory", "", []siteTurn{
		{say: "suvs under 40000", calls: []string{`search_cars {"bodyType":"suv","maxPrice":40000}`}},
		{say: "color blue trim XLE", calls: []string{`search_cars {"bodyType":"suv","color":"blue","maxPrice":40000}`}, reply: []string{"Showing 3 cars"}},
	}},
	{"the one of a kind, with several of that kind shown", "inventory", "", []siteTurn{
		{say: "hybrids", calls: []string{`search_cars {"fuel":"hybrid"}`}, reply: []string{"Showing 3 cars"}},
		{say: "the hybrid one", reply: []string{"Which one do you mean: the 2023 Toyota RAV4, the 2022 Volvo XC60 or the 2022 Toyota Camry?"}, not: []string{"comparison"}},
		{say: "2", calls: []string{`select_car {"carId":"c07"}`}, on: "car"},
	}},
	{"open the one of a kind, with two of that kind shown", "inventory", "", []siteTurn{
		{say: "show me toyotas", calls: []string{`search_cars {"make":"Toyota"}`}},
		{say: "open the hybrid one", reply: []string{"Which one do you mean: the 2023 Toyota RAV4 or the 2022 Toyota Camry?"}},
		{say: "the camry", calls: []string{`select_car {"carId":"c09"}`}, on: "car"},
	}},
	{"words for the salesperson, said without the word note", "test-drive", "c02", []siteTurn{
		{say: "Ann Lee ann@lee.com saturday at 1 pm", calls: []string{`fill_form_data {"name":"Ann Lee","email":"ann@lee.com","date":"2026-12-05","time":"13:00"}`}},
		{say: "please tell the salesperson that I will bring my wife", calls: []string{`fill_form_data {"name":"Ann Lee","email":"ann@lee.com","date":"2026-12-05","time":"13:00","notes":"I will bring my wife"}`}, not: []string{"Sorry"}},
		{say: "can you mention that I want to see the trunk space", calls: []string{`fill_form_data {"name":"Ann Lee","email":"ann@lee.com","date":"2026-12-05","time":"13:00","notes":"I want to see the trunk space"}`}, on: "test-drive"},
		{say: "let them know I'll be bringing my kids", calls: []string{`fill_form_data {"name":"Ann Lee","email":"ann@lee.com","date":"2026-12-05","time":"13:00","notes":"I'll be bringing my kids"}`}},
		{say: "tell me the times I can book", reply: []string{"The time can be 09:00, 10:00"}, not: []string{"Should I"}},
		{say: "let me know what times are free", reply: []string{"The time can be 09:00, 10:00"}, not: []string{"Sorry"}},
	}},
	{"the payment again with a package named without its kind", "car", "c04", []siteTurn{
		{say: "go to financing", calls: []string{`go_to_financing {}`}, on: "financing"},
		{say: "48 months", calls: []string{`calculate_payment {"termMonths":48}`}, reply: []string{"$1,123.06"}},
		{say: "what about with the home charger?", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c04"}`, `configure_car {"packages":["charge"]}`, `go_to_financing {}`, `calculate_payment {"termMonths":48}`}, reply: []string{"$1,152.93", "$48,240"}, not: []string{"can't"}, on: "financing"},
	}},
	{"the year of a car whose page was come to by a link", "car", "c09", []siteTurn{
		{say: "what year is this car?", reply: []string{"The 2022 Toyota Camry is from 2022."}, not: []string{"can't tell"}},
		{say: "What is the mileage of this car?", reply: []string{"can't tell"}, not: []string{"Sorry"}},
		{say: "how many miles does it have", reply: []string{"can't tell"}, not: []string{"Sorry"}},
	}},
	{"the first car, right after the second car was opened", "inventory", "", []siteTurn{
		{say: "suvs", calls: []string{`search_cars {"bodyType":"suv"}`}},
		{say: "the second car", calls: []string{`select_car {"carId":"c02"}`}, on: "car"},
		{say: "the first car", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c01"}`}, reply: []string{"2023 Toyota RAV4"}, on: "car"},
	}},
	{"a request for one of a kind before any was shown", "inventory", "", []siteTurn{
		{say: "book a test drive of an suv", calls: []string{`search_cars {"bodyType":"suv"}`}, reply: []string{"Which one?", "book a test drive of the 2022 Honda CR-V"}, not: []string{"no filter"}},
		{click: 2, calls: []string{`select_car {"carId":"c02"}`, `go_to_test_drive {}`}, reply: []string{"2022 Honda CR-V"}, on: "test-drive"},
	}},
	{"the mileage of the cheapest, then a drive of that one", "inventory", "", []siteTurn{
		{say: "got any hybrids under 35?", calls: []string{`search_cars {}`, `search_cars {"fuel":"hybrid","maxPrice":35000}`}},
		{say: "whats the mileage on the cheapest", calls: []string{`sort_cars {"by":"price","order":"asc"}`}, reply: []string{"The cheapest one is the 2022 Toyota Camry, at $26,500, with 24,000 miles."}, not: []string{"cheapest mileage"}},
		{say: "ok book me a test drive for that one sunday 2pm", calls: []string{`select_car {"carId":"c09"}`, `go_to_test_drive {}`}, reply: []string{"name and email"}, on: "test-drive"},
		{say: "Jo Lee jo@lee.io", calls: []string{`fill_form_data {"name":"Jo Lee","email":"jo@lee.io","date":"2026-12-06","time":"14:00"}`}},
	}},
	{"more like this one, from a car's page reached by a link, and more like another but cheaper", "car", "c04", []siteTurn{
		{say: "any more like this one?", calls: []string{`back_to_inventory {}`, `search_cars {}`, `search_cars {"bodyType":"suv"}`}, reply: []string{"Showing 7 cars"}, on: "inventory"},
		{say: "open the cr-v", calls: []string{`select_car {"carId":"c02"}`}, on: "car"},
		{say: "any other cars like this but cheaper", calls: []string{`back_to_inventory {}`, `search_cars {"bodyType":"suv"}`}, reply: []string{"only the 2023 Kia Sportage ($27,800) is cheaper than the 2022 Honda CR-V"}, on: "inventory"},
	}},
	{"show me more like this, on a car's page reached by a link", "car", "c12", []siteTurn{
		{say: "show me more like this", calls: []string{`back_to_inventory {}`, `search_cars {}`, `search_cars {"bodyType":"sedan"}`}, reply: []string{"Showing 5 cars"}, on: "inventory"},
	}},
	{"a family of five on a budget; the mileage of the one named, and of the few listed", "inventory", "", []siteTurn{
		{say: "need a car for a family of 5 budget 35k", calls: []string{`search_cars {"bodyType":"suv","maxPrice":35000}`}, reply: []string{"Showing 3 cars"}},
		{say: "any in red", calls: []string{`search_cars {"bodyType":"suv","color":"red","maxPrice":35000}`}, reply: []string{"Showing 2 cars"}},
		{say: "whats the mileage", reply: []string{"The 2023 Toyota RAV4 has 12,000 miles and the 2023 Kia Sportage has 14,000 miles."}},
		{say: "ok the cheapest one then", reply: []string{"The 2023 Kia Sportage is the cheapest"}},
		{say: "how many miles", reply: []string{"The 2023 Kia Sportage has 14,000 miles."}, not: []string{"not sure"}},
	}},
	{"the packages taken off again: by their noun, as them, and taken off", "car", "c09", []siteTurn{
		{say: "add all the packages", calls: []string{`configure_car {"packages":["tech","sound","safety"]}`}},
		{say: "nah remove them", calls: []string{`configure_car {"packages":[]}`}, reply: []string{"no packages"}},
		{say: "add the sound and tech packages", calls: []string{`configure_car {"packages":["sound","tech"]}`}},
		{say: "take them off", calls: []string{`configure_car {"packages":[]}`}, reply: []string{"no packages"}},
		{say: "add all the packages", calls: []string{`configure_car {"packages":["tech","sound","safety"]}`}},
		{say: "remove the packages", calls: []string{`configure_car {"packages":[]}`}, reply: []string{"total $26,500"}},
	}},
	{"the cheapest of a kind asked on a car's page, and a payment typed short", "car", "c03", []siteTurn{
		{say: "whats the cheapest sedan", calls: []string{`back_to_inventory {}`, `search_cars {"bodyType":"sedan"}`, `sort_cars {"by":"price","order":"asc"}`}, reply: []string{"The cheapest sedan is the 2023 Honda Civic, at $23,900."}, on: "inventory"},
		{say: "ok that one", calls: []string{`select_car {"carId":"c10"}`}, on: "car"},
		{say: "how much per mnth for 4 yrs", calls: []string{`go_to_financing {}`, `calculate_payment {"termMonths":48}`}, reply: []string{"48 months"}, on: "financing"},
	}},
	{"go back, on the list come to from a car's page", "inventory", "", []siteTurn{
		{say: "suvs", calls: []string{`search_cars {"bodyType":"suv"}`}},
		{say: "open the rav4", calls: []string{`select_car {"carId":"c01"}`}, on: "car"},
		{say: "back to the list", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "go back", calls: []string{`select_car {"carId":"c01"}`}, reply: []string{"2023 Toyota RAV4"}, on: "car"},
	}},
	{"a year bound said after the others, and the price with every package", "inventory", "", []siteTurn{
		{say: "i need an suv thats red or white under 35000", calls: []string{`search_cars {"bodyType":"suv","color":"red","maxPrice":35000}`}},
		{say: "just the white ones", calls: []string{`search_cars {"bodyType":"suv","color":"white","maxPrice":35000}`}},
		{say: "2022 or newer", calls: []string{`search_cars {"bodyType":"suv","color":"white","maxPrice":35000,"minYear":2022}`}},
		{say: "how about the crv", calls: []string{`select_car {"carId":"c02"}`}, on: "car"},
		{say: "whats the price with all packages", calls: []string{`configure_car {"packages":["winter","safety","cargo"]}`}, reply: []string{"total $32,200"}},
	}},
	{"a ranking by what no result tells, in the comparison drawer; its suggestion works", "inventory", "", []siteTurn{
		{say: "show electric cars", calls: []string{`search_cars {"fuel":"electric"}`}},
		{say: "compare the top two", calls: []string{`compare_cars {"carIds":["c04","c05"]}`}, on: "drawer"},
		{say: "which one has more range", reply: []string{"I can't tell", "which is cheapest?"}, not: []string{"open the comparison"}},
		{click: 1, calls: []string{}},
		{say: "which is faster", reply: []string{"I can't tell"}, not: []string{"Which do you mean"}},
		{say: "ok which one should i get", reply: []string{"That choice is yours", "which is newest?"}, not: []string{"Sorry"}},
		{say: "what would you recommend", reply: []string{"That choice is yours"}},
	}},
	{"a request and a question in one message, on a car's page", "inventory", "", []siteTurn{
		{say: "Hi there! We're shopping for our first electric car. What do you have?", calls: []string{`search_cars {"fuel":"electric"}`}},
		{say: "Which of those has the lowest price?", reply: []string{"The 2022 Tesla Model 3 is the cheapest"}},
		{say: "Could you open that one for me?", calls: []string{`select_car {"carId":"c12"}`}, on: "car"},
		{say: "Great, white please. And what trims are there?", calls: []string{`configure_car {"color":"white"}`}, reply: []string{"white", "The trim can be Rear-Wheel Drive or Long Range."}},
		{say: "make it red, and how much is it now?", calls: []string{`configure_car {"color":"red"}`}, reply: []string{"red"}},
	}},
	{"the newest pickup, two of them: their miles, and a drive of which", "inventory", "", []siteTurn{
		{say: "what's the newest pickup", calls: []string{`search_cars {"bodyType":"pickup"}`, `sort_cars {"by":"year","order":"desc"}`}, reply: []string{"2 are the newest"}},
		{say: "how many miles on it", reply: []string{"The 2021 Ford F-150 has 27,000 miles and the 2021 Toyota Tacoma has 38,000 miles."}},
		{say: "book a test drive for it", calls: []string{}, reply: []string{"Which car is it for", "the 2021 Toyota Tacoma"}, not: []string{"Sorry"}},
		{click: 2, calls: []string{`select_car {"carId":"c18"}`, `go_to_test_drive {}`}, on: "test-drive"},
	}},
	{"the lowest monthly payment: over the longest term", "car", "c04", []siteTurn{
		{say: "what is the lowest monthly payment possible on this?", calls: []string{`go_to_financing {}`, `calculate_payment {"termMonths":72}`}, reply: []string{"72 months"}, on: "financing"},
		{say: "with 10k down?", calls: []string{`calculate_payment {"downPayment":10000,"termMonths":72}`}},
		{say: "whats the lowest monthly i can get", calls: []string{`calculate_payment {"downPayment":10000,"termMonths":72}`}},
	}},
	{"more bounds said with \"with\"; what was booked, before the form was sent and after", "inventory", "", []siteTurn{
		{say: "i'm looking for a reliable used car around 25 grand", calls: []string{`search_cars {"minPrice":22500,"maxPrice":27500}`}},
		{say: "something newer than 2021", calls: []string{`search_cars {"minPrice":22500,"maxPrice":27500,"minYear":2021}`}},
		{say: "with under 30k miles", calls: []string{`search_cars {"minPrice":22500,"maxPrice":27500,"maxMileage":30000,"minYear":2021}`}, reply: []string{"Showing 3 cars"}},
		{say: "open the mazda3", calls: []string{`select_car {"carId":"c15"}`}, on: "car"},
		{say: "i like this one. can i test drive it?", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "tomorrow at 9", calls: []string{}},
		{say: "Chris Young chris@young.dev", calls: []string{`fill_form_data {"name":"Chris Young","email":"chris@young.dev","date":"2026-12-03","time":"09:00"}`}},
		{say: "what did i book?", calls: []string{}, reply: []string{"Nothing is sent yet: the form for the 2023 Mazda Mazda3 Hatchback holds", "name Chris Young", "time 09:00"}},
		{click: 1, calls: []string{`book_test_drive {}`}},
		{say: "what did i book?", reply: []string{"Sent earlier: Booked test drive"}},
	}},
	{"is that one available in red, of the one a ranking named", "inventory", "", []siteTurn{
		{say: "show me all your teslas", calls: []string{`search_cars {"make":"Tesla"}`}},
		{say: "which tesla has the lowest mileage", reply: []string{"The 2023 Tesla Model Y is the lowest-mileage"}},
		{say: "is that one available in red", calls: []string{`select_car {"carId":"c04"}`}, reply: []string{"Yes: the color can be red"}, on: "car"},
		{say: "take me to its page", calls: []string{}, reply: []string{"You're already there."}},
	}},
	{"whats different between this and the civic, on a car's page", "car", "c20", []siteTurn{
		{say: "whats different between this and the civic", calls: []string{`back_to_inventory {}`, `search_cars {}`, `compare_cars {"carIds":["c10","c20"]}`}, reply: []string{"Comparing 2023 Honda Civic, 2022 BMW M240i Coupe"}, on: "drawer"},
		{say: "ok book the civic instead", calls: []string{`select_car {"carId":"c10"}`, `go_to_test_drive {}`}, on: "test-drive"},
	}},
	{"a share said alone after a share of the price down", "financing", "c10", []siteTurn{
		{say: "60 months", calls: []string{`calculate_payment {"termMonths":60}`}},
		{say: "what if i put 20% down", calls: []string{`calculate_payment {"downPayment":4780,"termMonths":60}`}},
		{say: "and 15%?", calls: []string{`calculate_payment {"downPayment":3585,"termMonths":60}`}, reply: []string{"down $3,585"}},
		{say: "what about 5.9%", calls: []string{`calculate_payment {"downPayment":3585,"termMonths":60,"apr":5.9}`}},
	}},
	{"a quality no tool here names, of the pickups shown: not known, never a name looked up nor a choice of tools", "inventory", "", []siteTurn{
		{say: "show me pickups", calls: []string{`search_cars {"bodyType":"pickup"}`}},
		{say: "are they 4wd?", calls: []string{}, reply: []string{"I can't tell", "sort cars by price"}, not: []string{"Which do you mean", "There is no"}},
		{say: "do they have heated seats", calls: []string{}, reply: []string{"I can't tell"}, not: []string{"not sure I got that"}},
		{say: "whats the cheapest one", reply: []string{"The 2021 Toyota Tacoma is the cheapest"}},
		{say: "is it 4wd", calls: []string{}, reply: []string{"I can't tell", "open the 2021 Toyota Tacoma"}, not: []string{"There is no 4wd"}},
		{click: 3, calls: []string{`select_car {"carId":"c18"}`}, on: "car"},
		{say: "does it come with a tow hitch?", reply: []string{"Yes: Towing package is one of the packages"}},
		{say: "is it 4wd?", reply: []string{"I can't tell", "get price summary"}},
	}},
	{"a package by a word and \"one\" that the car has not: said so, as for its name", "inventory", "", []siteTurn{
		{say: "open the model 3", calls: []string{`search_cars {}`, `select_car {"carId":"c12"}`}, on: "car"},
		{say: "add all packages", calls: []string{`configure_car {"packages":["charge","comfort"]}`}},
		{say: "remove the winter one", calls: []string{}, reply: []string{"There is no winter package", "Home charger or Comfort seats"}, not: []string{"Sorry"}},
		{say: "ok remove the comfort one then", calls: []string{`configure_car {"packages":["charge"]}`}, reply: []string{"total $37,240"}},
	}},
	{"the comparison edited: one fewer, one swapped, too few left", "inventory", "", []siteTurn{
		{say: "compare the RAV4, the CR-V and the Outback", calls: []string{`search_cars {}`, `compare_cars {"carIds":["c01","c02","c06"]}`}, on: "drawer"},
		{say: "remove the cheapest one", calls: []string{`compare_cars {"carIds":["c01","c06"]}`}, on: "drawer", not: []string{"Opening"}},
		{say: "swap the outback for the sportage", calls: []string{`compare_cars {"carIds":["c01","c08"]}`}, reply: []string{"Kia Sportage"}},
		{say: "take the RAV4 out", calls: []string{}, reply: []string{"only the 2023 Kia Sportage is left", "too few"}, not: []string{"Opening"}},
		{click: 1, calls: []string{`select_car {"carId":"c08"}`}, on: "car"},
	}},
	{"a place past the list, and a place written with #", "inventory", "", []siteTurn{
		{say: "hybrids under 30k", calls: []string{`search_cars {"fuel":"hybrid","maxPrice":30000}`}, reply: []string{"Showing 1 car"}},
		{say: "open the second one", calls: []string{}, reply: []string{"Only 1 car is shown: the 2022 Toyota Camry."}, not: []string{"Opening"}},
		{say: "show me pickups", calls: []string{`search_cars {"bodyType":"pickup"}`}},
		{say: "open #3", calls: []string{}, reply: []string{"Only 2 cars are shown"}},
		{click: 2, calls: []string{`select_car {"carId":"c18"}`}, on: "car"},
		{say: "back to inventory", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "show me suvs", calls: []string{`search_cars {"bodyType":"suv"}`}},
		{say: "open #2", calls: []string{`select_car {"carId":"c02"}`}, on: "car", not: []string{"either"}},
	}},
	{"a car's page reached by a link, left, and gone back to by words that do not name it", "car", "c12", []siteTurn{
		{say: "any other cars like this but cheaper", calls: []string{`back_to_inventory {}`, `search_cars {}`, `search_cars {"bodyType":"sedan"}`}, on: "inventory"},
		{say: "go back", calls: []string{`select_car {"carId":"c12"}`}, on: "car", not: []string{"Sorry"}},
		{say: "back to inventory", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "book a test drive of that one", calls: []string{`select_car {"carId":"c12"}`, `go_to_test_drive {}`}, on: "test-drive", reply: []string{"2022 Tesla Model 3"}},
	}},
	{"a car's page reached by a link and left before any list named it", "car", "c03", []siteTurn{
		{say: "back to inventory", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "go back to the car i was looking at", calls: []string{`search_cars {}`, `select_car {"carId":"c03"}`}, on: "car", reply: []string{"2021 Ford Explorer"}},
	}},
	{"a calculator reached by a link and left; a drive of its car", "financing", "c09", []siteTurn{
		{say: "60 months with 3000 down at 4.5%", calls: []string{`calculate_payment {"downPayment":3000,"termMonths":60,"apr":4.5}`}},
		{say: "go back", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "book a test drive for this one", calls: []string{`search_cars {}`, `select_car {"carId":"c09"}`, `go_to_test_drive {}`}, on: "test-drive", reply: []string{"2022 Toyota Camry"}},
		{say: "saturday 11", reply: []string{"I need your name and email"}},
	}},
	{"the colours of the cheapest of those shown, then that car to the end", "inventory", "", []siteTurn{
		{say: "im looking for a hybrid under 35k", calls: []string{`search_cars {"fuel":"hybrid","maxPrice":35000}`}},
		{say: "what colours does the cheapest come in", calls: []string{`select_car {"carId":"c09"}`}, on: "car", reply: []string{"The color can be silver, white, black or blue."}, not: []string{"Nothing here says"}},
		{say: "ok open it in that colour... blue", calls: []string{`configure_car {"color":"blue"}`}},
		{say: "whats it cost per month over 60 months with 5k down", calls: []string{`go_to_financing {}`, `calculate_payment {"downPayment":5000,"termMonths":60}`}, on: "financing"},
		{say: "back to inventory", calls: []string{`back_to_inventory {}`}, on: "inventory"},
		{say: "im looking for a hybrid under 35k", calls: []string{`search_cars {"fuel":"hybrid","maxPrice":35000}`}},
		{say: "which colour is the cheapest", calls: []string{`select_car {"carId":"c09"}`}, on: "car", reply: []string{"Nothing here says which color is cheapest"}},
	}},
	{"a drive of the first one shown, with a day and an hour: the first is the car, not a time", "inventory", "", []siteTurn{
		{say: "show suvs under 30k", calls: []string{`search_cars {"bodyType":"suv","maxPrice":30000}`}},
		{say: "book the first one for monday 9am", calls: []string{`select_car {"carId":"c02"}`, `go_to_test_drive {}`}, on: "test-drive", reply: []string{"I need your name and email"}, not: []string{"The first time"}},
		{say: "Ben Ode ben@ode.dk", calls: []string{`fill_form_data {"name":"Ben Ode","email":"ben@ode.dk","date":"2026-12-07","time":"09:00"}`}},
	}},
	{"a ranking of a kind no filter knows: of all, and said so", "inventory", "", []siteTurn{
		{say: "cheapest awd", calls: []string{`sort_cars {"by":"price","order":"asc"}`}, reply: []string{"Nothing here tells which cars are awd; of all of them: the cheapest car is the 2021 Volkswagen Golf"}, not: []string{"The cheapest awd"}},
		{say: "newest diesel", calls: []string{`search_cars {"fuel":"diesel"}`, `sort_cars {"by":"year","order":"desc"}`}, reply: []string{"The newest diesel is the 2021 Ford F-150."}},
	}},
	{"\"how bout\" typed on a phone is \"what about\"", "inventory", "", []siteTurn{
		{say: "any tesla under 40", calls: []string{`search_cars {}`, `search_cars {"make":"Tesla","maxPrice":40000}`}},
		{say: "how bout the other tesla", calls: []string{`select_car {"carId":"c04"}`}, on: "car", not: []string{"Going back"}},
	}},
	{"the price with everything, then one package dropped", "car", "c06", []siteTurn{
		{say: "how much with everything", calls: []string{`configure_car {"packages":["winter","offroad","cargo"]}`}, reply: []string{"total $34,050"}},
		{say: "too much, drop the offroad pkg", calls: []string{`configure_car {"packages":["winter","cargo"]}`}, reply: []string{"total $31,450"}},
		{say: "price with all the extras", calls: []string{`configure_car {"packages":["winter","offroad","cargo"]}`}},
	}},
	{"the best deal, before any list and of the SUVs shown: not known, and the rankings that are", "inventory", "", []siteTurn{
		{say: "whats ur best deal", calls: []string{}, reply: []string{"I can't tell", "I can tell", "which is cheapest?"}, not: []string{"Sorry", "Of these"}},
		{click: 1, calls: []string{`sort_cars {"by":"price","order":"asc"}`}, reply: []string{"2021 Volkswagen Golf"}},
		{say: "show me suvs", calls: []string{`search_cars {"bodyType":"suv"}`}},
		{say: "which is the best deal", calls: []string{}, reply: []string{"Of these I can tell", "which is newest?"}},
	}},
	{"a question after a term refused is no answer to the term asked: the refusal is not said again", "financing", "c06", []siteTurn{
		{say: "what if i put nothing down", reply: []string{"24 months, 36 months"}},
		{say: "and over 84 months", reply: []string{"There is no 84 months option"}},
		{say: "whats the interest total", calls: []string{}, not: []string{"There is no 84 months option"}},
		{say: "48 months then", calls: []string{`calculate_payment {"downPayment":0,"termMonths":48}`}, reply: []string{"down $0"}},
	}},
	{"\"change the car to the rav4\" away from the list opens the RAV4, not the car left", "inventory", "", []siteTurn{
		{say: "open the CR-V", calls: []string{`search_cars {}`, `select_car {"carId":"c02"}`}, on: "car"},
		{say: "book a test drive", calls: []string{`go_to_test_drive {}`}, on: "test-drive"},
		{say: "change the car to the rav4", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c01"}`}, on: "car", reply: []string{"2023 Toyota RAV4"}},
		{say: "change the car to the Civic", calls: []string{`back_to_inventory {}`, `select_car {"carId":"c10"}`}, reply: []string{"2023 Honda Civic"}},
	}},
	{"\"compare it with the cheapest electric\": it, and the one ranked", "inventory", "", []siteTurn{
		{say: "cheapest hybrid", calls: []string{`search_cars {"fuel":"hybrid"}`, `sort_cars {"by":"price","order":"asc"}`}, reply: []string{"2022 Toyota Camry"}},
		{say: "compare it with the cheapest electric", calls: []string{`search_cars {"fuel":"electric"}`, `sort_cars {"by":"price","order":"asc"}`, `compare_cars {"carIds":["c09","c12"]}`}, on: "drawer"},
	}},
	{"\"which ones have …\" and \"do any have …\" of a quality no tool names: not known, not a dead end; \"which is faster\" of seven shown too", "inventory", "", []siteTurn{
		{say: "show me suvs", calls: []string{`search_cars {"bodyType":"suv"}`}},
		{say: "which ones have 3 rows", calls: []string{}, reply: []string{"I can't tell"}, not: []string{"Sorry"}},
		{say: "do any have heated seats?", calls: []string{}, reply: []string{"I can't tell"}, not: []string{"Sorry"}},
		{say: "which one is faster", calls: []string{}, reply: []string{"I can't tell", "which is cheapest?"}, not: []string{"Sorry"}},
		{say: "compare the top two", calls: []string{`compare_cars {"carIds":["c01","c02"]}`}, on: "drawer"},
		{say: "Do any of them have a third row?", calls: []string{}, reply: []string{"I can't tell"}, not: []string{"Should I open the comparison drawer"}},
	}},
	{"a rate asked before any payment comes with the result: the term is asked, and the answer works it out", "financing", "c01", []siteTurn{
		{say: "whats the apr", calls: []string{}, reply: []string{"That comes with the result.", "24 months, 36 months"}, not: []string{"Sorry"}},
		{say: "60", calls: []string{`calculate_payment {"termMonths":60}`}, reply: []string{"6.9% APR"}},
		{say: "whats the interest rate", calls: []string{}, reply: []string{"6.9% APR"}},
	}},
	{"the total interest before any payment: the term is asked, not a dead end; a down payment is the visitor's, not asked so", "financing", "c03", []siteTurn{
		{say: "how much interest would i pay", calls: []string{}, reply: []string{"That comes with the result.", "72 months?"}, not: []string{"Sorry", "down payment"}},
		{say: "48 months with 5k down", calls: []string{`calculate_payment {"downPayment":5000,"termMonths":48}`}, reply: []string{"Total interest"}},
	}},
	{"\"how far can it go on a charge\" of three shown is not known (not a choice of which car to open); \"how much per month\" of the three asks which", "inventory", "", []siteTurn{
		{say: "looking for an electric car", calls: []string{`search_cars {"fuel":"electric"}`}},
		{say: "how far can it go on a charge", calls: []string{}, reply: []string{"I can't tell"}, not: []string{"Which car"}},
		{say: "how much per month", calls: []string{}, reply: []string{"Which car is it for", "2022 Tesla Model 3"}, not: []string{"Sorry"}},
		{say: "the model 3", calls: []string{`select_car {"carId":"c12"}`, `go_to_financing {}`}, on: "financing", reply: []string{"24 months"}},
		{say: "how safe is this car", calls: []string{}, reply: []string{"I can't tell"}, not: []string{"Sorry"}},
	}},
	{"\"compare them\" after the cheapest, then the most expensive: those two", "inventory", "", []siteTurn{
		{say: "whats the cheapest car", calls: []string{`sort_cars {"by":"price","order":"asc"}`}, reply: []string{"2021 Volkswagen Golf"}},
		{say: "and the most expensive", calls: []string{`sort_cars {"by":"price","order":"desc"}`}, reply: []string{"2023 Tesla Model Y"}},
		{say: "compare them", calls: []string{`compare_cars {"carIds":["c14","c04"]}`}, on: "drawer"},
	}},
}

// sampled tells whether the table's i-th entry runs: every one without the race detector, one
// in four under it (see raceDetector); test.sh runs the package both ways.
func sampled(i int) bool {
	return !raceDetector || i%4 == 0
}

// quoted are the suggestions of a reply: the requests it puts between “ and ”.
var quoted = regexp.MustCompile(`“([^”]+)”`)

func TestSiteConversations(t *testing.T) {
	turns := 0
	for i, sc := range siteConversations {
		turns += len(sc.turns)
		if !sampled(i) {
			continue
		}
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel() // each conversation has a site of its own
			v := &visit{t: t, site: newSite(t, sc.page, sc.car)}
			last := ""
			for _, tn := range sc.turns {
				say := tn.say
				if tn.click > 0 {
					sug := quoted.FindAllStringSubmatch(last, -1)
					if len(sug) < tn.click {
						t.Fatalf("the reply %q has no suggestion %d to click", last, tn.click)
					}
					say = sug[tn.click-1][1]
				}
				before := v.site.page
				out := v.say(say)
				last = out.text
				if tn.click > 0 {
					// A suggestion that works does something: a call, or an answer from what is on screen.
					if len(out.calls) == 0 && (strings.HasPrefix(out.text, "Sorry") || strings.Contains(out.text, "can't")) {
						t.Fatalf("clicked %q on %s: a dead end: %q", say, before, out.text)
					}
					if tn.on != "" && v.site.page != tn.on {
						t.Fatalf("clicked %q on %s: the visitor is on %s, want %s", say, before, v.site.page, tn.on)
					}
					continue
				}
				if len(out.calls) != len(tn.calls) {
					t.Fatalf("%q on %s: calls %v, want %v (reply %q)", say, before, out.calls, tn.calls, out.text)
				}
				for i := range tn.calls {
					if !sameCall(out.calls[i], tn.calls[i]) {
						t.Fatalf("%q on %s: call %d is %s, want %s (reply %q)", say, before, i, out.calls[i], tn.calls[i], out.text)
					}
				}
				for _, w := range tn.reply {
					if !strings.Contains(out.text, w) {
						t.Errorf("%q on %s: reply %q lacks %q", say, before, out.text, w)
					}
				}
				for _, w := range tn.not {
					if strings.Contains(out.text, w) {
						t.Errorf("%q on %s: reply %q contains %q", say, before, out.text, w)
					}
				}
				want := tn.on
				if want == "" {
					want = before
				}
				if v.site.page != want {
					t.Errorf("%q on %s: the visitor is on %s, want %s", say, before, v.site.page, want)
				}
			}
		})
	}
	if len(siteConversations) < 6 || turns < 40 {
		t.Errorf("%d conversations of %d turns, want at least 6 and 40", len(siteConversations), turns)
	}
}

// TestShuffledVisits: visits made of the conversations' messages in a random order, from a
// random page (a seeded generator: a failure names its seed). Whatever the order, each turn
// ends with a reply within the agent loop's steps, every call fits its tool's schema, and
// nothing panics; what the replies say is not checked.
func TestShuffledVisits(t *testing.T) {
	var says []string
	for _, sc := range siteConversations {
		for _, tn := range sc.turns {
			if tn.say != "" {
				says = append(says, tn.say)
			}
		}
	}
	starts := [][2]string{{"inventory", ""}, {"car", "c05"}, {"car", "c19"}, {"financing", "c09"}, {"test-drive", "c01"}}
	for seed := range uint64(40) {
		if !sampled(int(seed)) {
			continue
		}
		r := rand.New(rand.NewPCG(seed, 41))
		start := starts[r.IntN(len(starts))]
		v := &visit{t: t, site: newSite(t, start[0], start[1])}
		for range 6 {
			say := says[r.IntN(len(says))]
			if out := v.say(say); strings.TrimSpace(out.text) == "" {
				t.Fatalf("seed %d: %q on %s got no reply", seed, say, v.site.page)
			}
		}
	}
}
