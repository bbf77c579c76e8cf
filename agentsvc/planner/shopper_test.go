package planner

import (
	"strings"
	"testing"
)

// step is one shopper message on a page: the calls the planner must make (none means it
// must reply without acting) and words its reply must and must not contain.
type step struct {
	page  string
	say   string
	calls []string
	reply []string
	not   []string
}

// shopperScenarios are conversations written the way shoppers type on the demo: suggestions
// of the widget, lower case, typos, no punctuation, follow-ups that depend on the answer.
var shopperScenarios = []struct {
	name  string
	steps []step
}{
	// The rows of issue 13.
	{"compare by names, then a new question", []step{
		{"inventory", "Compare the RAV4 and the CR-V", []string{`search_cars {}`, `compare_cars {"carIds":["c01","c02"]}`},
			[]string{"2023 Toyota RAV4", "2022 Honda CR-V", "$31,990"}, []string{"c01", "carIds"}},
		{"drawer", "Which electric cars do you have?", []string{`search_cars {"fuel":"electric"}`}, []string{"Tesla Model Y", "$46,990"}, []string{"carIds", "c04"}},
	}},
	{"open by name", []step{{"inventory", "open the Model 3", []string{`search_cars {}`, `select_car {"carId":"c12"}`}, []string{"2022 Tesla Model 3", "$35,990"}, []string{"c12", "tools", "Model 3 (2022"}}}},
	{"the whole inventory", []step{{"inventory", "show all cars", []string{`search_cars {}`}, []string{"Showing 24 cars", "; and 19 more."}, []string{"c01"}}}},
	{"show by name", []step{{"inventory", "show me the RAV4", []string{`search_cars {}`, `select_car {"carId":"c01"}`}, []string{"2023 Toyota RAV4"}, []string{"c01"}}}},
	{"cheapest electric", []step{{"inventory", "cheapest electric car?", []string{`search_cars {"fuel":"electric"}`, `sort_cars {"by":"price","order":"asc"}`},
		[]string{"The cheapest electric car is the 2022 Tesla Model 3, at $35,990."}, nil}}},
	{"sort by newest", []step{{"inventory", "sort by newest", []string{`sort_cars {"by":"year","order":"desc"}`}, []string{"Sorted by year descending"}, nil}}},
	{"payment on the inventory", []step{{"inventory", "monthly payment over 60 months with 5000 down", nil, []string{"can't help with that on this page"}, []string{"minPrice"}}}},
	{"total price on the inventory", []step{{"inventory", "what's the total price?", nil, []string{"?"}, nil}}},
	{"which is cheaper in the drawer", []step{
		// The page's result is one line per attribute, and so is the reply (the widget breaks lines).
		{"inventory", "compare c01 and c02", []string{`compare_cars {"carIds":["c01","c02"]}`}, []string{"Comparing 2023 Toyota RAV4, 2022 Honda CR-V.\nPrice: "}, nil},
		{"drawer", "which one is cheaper?", nil, []string{"The 2022 Honda CR-V is the cheaper, at $29,450", "$31,990"}, nil},
	}},
	// The booking form is declarative (<form toolname>): its required fields are required by
	// the tool, so the planner asks for what is missing, keeps what it was told, then fills.
	{"name and email without my name is", []step{
		{"test-drive", "Jane Doe, jane@example.com", nil, []string{"date", "time", "10:00"}, []string{"fill_form_data"}},
		{"test-drive", "Saturday at 10", []string{`fill_form_data {"name":"Jane Doe","email":"jane@example.com","date":"2026-12-05","time":"10:00"}`},
			[]string{"Filled date, email, name, time in the form.", "Book test drive"}, []string{"visitor", "Ask them", "themselves", "fill_form_data"}},
	}},
	{"a day written as an ordinal", []step{ // "10th" is a day of the month here, no place in a list
		{"test-drive", "Jane Doe, jane@example.com, on December 10th at 11am", []string{`fill_form_data {"name":"Jane Doe","email":"jane@example.com","date":"2026-12-10","time":"11:00"}`}, nil, nil},
	}},
	{"hi", []step{{"inventory", "hi", nil, []string{"Hi!", "“search cars", "Offline planner"}, []string{"search_cars:"}}}},
	{"something fun", []step{{"inventory", "something fun to drive", nil, []string{"I can do things like"}, nil}}},
	{"note once", []step{
		{"inventory", "show me SUVs under 40k", []string{`search_cars {"bodyType":"suv","maxPrice":40000}`}, []string{"Offline planner", "$31,990"}, nil},
		{"inventory", "sort by price", []string{`sort_cars {"by":"price"}`}, nil, []string{"Offline planner", "OPENAI_API_KEY"}},
	}},

	// Inventory: filters in shopper phrasing.
	{"suvs under", []step{{"inventory", "Show me SUVs under $35,000", []string{`search_cars {"bodyType":"suv","maxPrice":35000}`}, []string{"Showing"}, nil}}},
	{"lower case no punctuation", []step{{"inventory", "red toyotas", []string{`search_cars {"make":"Toyota","color":"red"}`}, nil, nil}}},
	{"between thousand", []step{{"inventory", "cars between 20 and 30 thousand", []string{`search_cars {"minPrice":20000,"maxPrice":30000}`}, nil, nil}}},
	{"less than miles", []step{{"inventory", "less than 50k miles", []string{`search_cars {"maxMileage":50000}`}, nil, nil}}},
	{"hybrids since", []step{{"inventory", "hybrids from 2022 or newer", []string{`search_cars {"fuel":"hybrid","minYear":2022}`}, nil, nil}}},
	{"typo suv", []step{{"inventory", "any electirc suvs", []string{`search_cars {"bodyType":"suv","fuel":"electric"}`}, nil, nil}}},
	{"budget", []step{{"inventory", "my budget is 25k", []string{`search_cars {"maxPrice":25000}`}, nil, nil}}},
	{"pickups", []step{{"inventory", "do you have any trucks", []string{`search_cars {"bodyType":"pickup"}`}, nil, nil}}},
	{"clear", []step{{"inventory", "reset filters pls", []string{`clear_filters {}`}, []string{"Filters cleared"}, nil}}},
	{"sort cheap first", []step{{"inventory", "cheapest first", []string{`sort_cars {"by":"price","order":"asc"}`}, nil, nil}}},
	{"sort high to low", []step{{"inventory", "sort by price high to low", []string{`sort_cars {"by":"price","order":"desc"}`}, nil, nil}}},
	{"sort mileage", []step{{"inventory", "order by mileage", []string{`sort_cars {"by":"mileage"}`}, nil, nil}}},
	{"sort question", []step{{"inventory", "sort the cars", nil, []string{"by price", "by year", "by mileage"}, nil}}},
	{"sort answered", []step{
		{"inventory", "sort the cars", nil, []string{"by price"}, nil},
		{"inventory", "price", []string{`sort_cars {"by":"price"}`}, nil, nil},
	}},
	{"sort question abandoned", []step{
		{"inventory", "sort the cars", nil, []string{"by price"}, nil},
		{"inventory", "show me hybrids", []string{`search_cars {"fuel":"hybrid"}`}, nil, nil},
	}},
	{"newest suv", []step{{"inventory", "whats the newest suv", []string{`search_cars {"bodyType":"suv"}`, `sort_cars {"by":"year","order":"desc"}`}, []string{"4 are the newest, all 2023: the 2023 Toyota RAV4, the 2023 Tesla Model Y, the 2023 Hyundai Ioniq 5 and the 2023 Kia Sportage."}, nil}}},
	{"most expensive", []step{{"inventory", "most expensive car", []string{`sort_cars {"by":"price","order":"desc"}`}, []string{"The most expensive car is the 2023 Tesla Model Y, at $46,990."}, nil}}},
	{"lowest mileage sedan", []step{{"inventory", "sedan with the lowest mileage", []string{`search_cars {"bodyType":"sedan"}`, `sort_cars {"by":"mileage","order":"asc"}`}, []string{"The lowest-mileage sedan is the 2023 Honda Civic, with 9,000 miles."}, nil}}},
	{"compare two cheapest", []step{{"inventory", "compare the two cheapest", []string{`sort_cars {"by":"price","order":"asc"}`, `compare_cars {"carIds":["c14","c16"]}`}, []string{"Comparing 2021 Volkswagen Golf, 2022 Toyota Corolla Hatchback"}, nil}}},
	{"compare two cheapest suvs", []step{{"inventory", "compare the 2 cheapest suvs", []string{`search_cars {"bodyType":"suv"}`, `sort_cars {"by":"price","order":"asc"}`, `compare_cars {"carIds":["c08","c02"]}`}, []string{"Kia Sportage"}, nil}}},
	{"the second", []step{
		{"inventory", "electric cars", []string{`search_cars {"fuel":"electric"}`}, nil, nil},
		{"inventory", "open the second one", []string{`select_car {"carId":"c05"}`}, []string{"2023 Hyundai Ioniq 5"}, nil},
	}},
	{"the 2nd", []step{ // an ordinal written with digits is the same place as in words
		{"inventory", "electric cars", []string{`search_cars {"fuel":"electric"}`}, nil, nil},
		{"inventory", "open the 2nd one", []string{`select_car {"carId":"c05"}`}, []string{"2023 Hyundai Ioniq 5"}, nil},
	}},
	{"nothing matches after a list", []step{ // an empty result empties the list: no winner from the one before
		{"inventory", "electric cars", []string{`search_cars {"fuel":"electric"}`}, nil, nil},
		{"inventory", "cheapest pickup under 20k", []string{`search_cars {"bodyType":"pickup","maxPrice":20000}`, `sort_cars {"by":"price","order":"asc"}`},
			[]string{"No pickup matches"}, []string{"Tesla"}},
	}},
	{"contact details are no search", []step{ // a person's name before their e-mail names no car
		{"inventory", "Kim Lee kim@lee.org", nil, []string{"search cars"}, []string{"There is no", "Kim Lee among"}},
		{"inventory", "schedule a drive tomorrow at 10am for Kim Lee kim@lee.org", nil, nil, []string{"There is no", "Kim Lee among"}},
	}},
	{"the first few of the list", []step{
		{"inventory", "show me sedans", []string{`search_cars {"bodyType":"sedan"}`}, nil, nil},
		{"inventory", "compare the top three", []string{`compare_cars {"carIds":["c09","c10","c11"]}`}, []string{"Comparing"}, []string{"There is no"}},
	}},
	{"the last few of the list", []step{
		{"inventory", "show me sedans", []string{`search_cars {"bodyType":"sedan"}`}, nil, nil},
		{"inventory", "compare the last 2", []string{`compare_cars {"carIds":["c12","c13"]}`}, []string{"Comparing"}, nil},
	}},
	{"a comparison with a figure is a bound", []step{ // not a sort by price
		{"inventory", "anything cheaper than 25k?", []string{`search_cars {"maxPrice":25000}`}, []string{"4 cars"}, []string{"Should I"}},
		{"inventory", "suvs that are less expensive than $30,000", []string{`search_cars {"bodyType":"suv","maxPrice":30000}`}, nil, []string{"Should I"}},
	}},
	{"cheaper things in the plural are the list in that order", []step{
		{"inventory", "show me cheaper cars", []string{`sort_cars {"by":"price","order":"asc"}`}, []string{"Showing 24 cars: 2021 Volkswagen Golf"}, []string{"cars is"}},
	}},
	{"another value instead keeps the rest", []step{
		{"inventory", "blue SUVs", []string{`search_cars {"bodyType":"suv","color":"blue"}`}, nil, nil},
		{"inventory", "any in red instead?", []string{`search_cars {"bodyType":"suv","color":"red"}`}, []string{"3 cars"}, nil},
	}},
	{"a budget said after the figure", []step{
		{"inventory", "I have 30k to spend, what SUVs can I get?", []string{`search_cars {"bodyType":"suv","maxPrice":30000}`}, nil, nil},
	}},
	{"filters, then the order asked for", []step{
		{"inventory", "hybrids newer than 2021 under 35k sorted by mileage",
			[]string{`search_cars {"fuel":"hybrid","maxPrice":35000,"minYear":2021}`, `sort_cars {"by":"mileage"}`}, []string{"Sorted by mileage"}, nil},
	}},
	{"a value of the item named last, not the filter's choices", []step{
		{"inventory", "what's your cheapest SUV?", []string{`search_cars {"bodyType":"suv"}`, `sort_cars {"by":"price","order":"asc"}`}, []string{"Kia Sportage"}, nil},
		{"inventory", "is it a hybrid?", nil, []string{"No: the 2023 Kia Sportage's fuel is gasoline."}, []string{"choices"}},
		{"inventory", "is it gasoline?", nil, []string{"Yes: the 2023 Kia Sportage's fuel is gasoline."}, nil},
	}},
	{"the cheaper one", []step{
		{"inventory", "compare the civic and the camry", []string{`search_cars {}`, `compare_cars {"carIds":["c10","c09"]}`}, nil, nil},
		{"drawer", "open the cheaper one", []string{`select_car {"carId":"c10"}`}, []string{"2023 Honda Civic"}, nil},
	}},
	{"cheapest one, then open it", []step{
		{"inventory", "show me SUVs under 40k", []string{`search_cars {"bodyType":"suv","maxPrice":40000}`}, nil, nil},
		{"inventory", "cheapest one", nil, []string{"Kia Sportage", "$27,800"}, nil},
		{"inventory", "open it", []string{`select_car {"carId":"c08"}`}, []string{"2023 Kia Sportage"}, nil},
	}},
	{"open the cheapest one", []step{
		{"inventory", "show me SUVs under 40k", []string{`search_cars {"bodyType":"suv","maxPrice":40000}`}, nil, nil},
		{"inventory", "open the cheapest one", []string{`select_car {"carId":"c08"}`}, []string{"2023 Kia Sportage"}, nil},
	}},
	{"the red one", []step{
		{"inventory", "compare c03 and c04", []string{`compare_cars {"carIds":["c03","c04"]}`}, nil, nil},
		{"drawer", "show me the red one", []string{`select_car {"carId":"c04"}`}, []string{"Tesla Model Y"}, nil},
	}},
	{"how much is", []step{
		{"inventory", "suvs", []string{`search_cars {"bodyType":"suv"}`}, nil, nil},
		{"inventory", "how much is the explorer", nil, []string{"The 2021 Ford Explorer is $36,900."}, nil},
	}},
	{"which is newer", []step{
		{"inventory", "compare c06 and c13", []string{`compare_cars {"carIds":["c06","c13"]}`}, nil, nil},
		{"drawer", "which is newer", nil, []string{"The 2022 Subaru Outback is the newer"}, nil},
	}},
	{"narrowed", []step{
		{"inventory", "show me cars with less than 20000 miles", []string{`search_cars {"maxMileage":20000}`}, nil, nil},
		{"inventory", "only the hybrids", []string{`search_cars {"fuel":"hybrid","maxMileage":20000}`}, []string{"2 cars"}, nil},
		{"inventory", "show me SUVs", []string{`search_cars {"bodyType":"suv"}`}, nil, nil},
	}},
	{"newest, then open it", []step{
		{"inventory", "show me the hybrids", []string{`search_cars {"fuel":"hybrid"}`}, nil, nil},
		{"inventory", "which is the newest?", nil, []string{"The 2023 Toyota RAV4 is the newest (the others are the 2022 Volvo XC60 and the 2022 Toyota Camry)."}, nil},
		{"inventory", "open it", []string{`select_car {"carId":"c01"}`}, nil, nil},
	}},
	{"ambiguous tesla", []step{
		{"inventory", "electric cars", []string{`search_cars {"fuel":"electric"}`}, nil, nil},
		{"inventory", "open the tesla", nil, []string{"Which one do you mean", "Tesla Model Y", "Tesla Model 3"}, nil},
		{"inventory", "the second", []string{`select_car {"carId":"c12"}`}, nil, nil},
	}},
	{"close drawer", []step{{"drawer", "close the comparison", []string{`close_comparison {}`}, []string{"closed"}, nil}}},
	{"compare ids", []step{{"inventory", "compare c01 c05 and c07", []string{`compare_cars {"carIds":["c01","c05","c07"]}`}, nil, nil}}},
	{"compare one only", []step{{"inventory", "compare c03", nil, []string{"Which 2 to 3"}, nil}}},
	{"thanks", []step{{"inventory", "thanks!", nil, []string{"welcome"}, nil}}},

	// Car page.
	{"suggestion blue winter", []step{{"car", "Make it blue with the winter package", []string{`configure_car {"color":"blue","packages":["winter"]}`}, []string{"total $35,390"}, []string{"c01"}}}},
	{"total price", []step{{"car", "What is the total price?", []string{`get_price_summary {}`}, []string{"total $31,990"}, []string{"(c01)"}}}},
	{"xle trim", []step{{"car", "xle trim in red pls", []string{`configure_car {"trim":"XLE","color":"red"}`}, nil, nil}}},
	{"packages", []step{{"car", "add tech and roof packages", []string{`configure_car {"packages":["tech","roof"]}`}, nil, nil}}},
	{"test drive", []step{{"car", "Book a test drive", []string{`go_to_test_drive {}`}, []string{"test-drive booking page"}, []string{"tools"}}}},
	{"financing", []step{{"car", "can i finance it", []string{`go_to_financing {}`}, []string{"financing calculator", "$31,990"}, nil}}},
	// Issue 41: the site, not the page: the calculator's page is where this is done, and the
	// request's values go with it.
	{"payments on the car page", []step{
		{"car", "how much per month over 60 months?", []string{`go_to_financing {}`, `calculate_payment {"termMonths":60}`}, []string{"Monthly payment"}, nil},
	}},
	{"open, then finance", []step{
		{"inventory", "open the RAV4", []string{`search_cars {}`, `select_car {"carId":"c01"}`}, nil, nil},
		{"car", "finance it", []string{`go_to_financing {}`}, []string{"for the 2023 Toyota RAV4 at $31,990"}, nil},
	}},
	{"back", []step{{"car", "go back to inventory", []string{`back_to_inventory {}`}, nil, nil}}},
	{"car chit chat", []step{{"car", "is it fun to drive", nil, nil, nil}}},
	{"it, across a reply that named nothing", []step{
		{"inventory", "what's the cheapest SUV?", []string{`search_cars {"bodyType":"suv"}`, `sort_cars {"by":"price","order":"asc"}`}, nil, nil},
		{"inventory", "how many miles does it have?", nil, []string{"The 2023 Kia Sportage has 14,000 miles."}, nil},
		{"inventory", "something fun", nil, []string{"Sorry"}, nil},
		{"inventory", "open it", []string{`select_car {"carId":"c08"}`}, nil, nil},
	}},
	{"close it", []step{
		{"inventory", "compare the explorer and the outback", []string{`search_cars {}`, `compare_cars {"carIds":["c03","c06"]}`}, nil, nil},
		{"drawer", "which has lower mileage?", nil, []string{"(the 2021 Ford Explorer has 34,000 miles)"}, nil},
		{"drawer", "close it", []string{`close_comparison {}`}, nil, nil},
	}},
	{"how much now", []step{{"car", "how much is it now?", []string{`get_price_summary {}`}, nil, nil}}},
	{"follow-up with and", []step{
		{"financing", "what if I put 10k down over 72 months", []string{`calculate_payment {"downPayment":10000,"termMonths":72}`}, nil, nil},
		{"financing", "and at 3.9%?", []string{`calculate_payment {"downPayment":10000,"termMonths":72,"apr":3.9}`}, nil, nil},
	}},
	{"a request for the car's own page", []step{{"inventory", "book a test drive for the rav4",
		[]string{`search_cars {}`, `select_car {"carId":"c01"}`, `go_to_test_drive {}`}, []string{"Opening the test-drive booking page for the 2023 Toyota RAV4."}, nil}}},
	{"a request no page here can do", []step{{"inventory", "trade in my old car for the rav4",
		[]string{`search_cars {}`, `select_car {"carId":"c01"}`}, []string{"Opening the page of the 2023 Toyota RAV4 ($31,990). I can't do that on this page either."}, nil}}},
	{"a request the car's page goes on with", []step{
		{"inventory", "schedule a test drive of the rav4", []string{`search_cars {}`, `select_car {"carId":"c01"}`, `go_to_test_drive {}`}, []string{"test-drive booking page"}, nil},
	}},
	{"finance it from the inventory", []step{{"inventory", "finance the rav4",
		[]string{`search_cars {}`, `select_car {"carId":"c01"}`, `go_to_financing {}`}, []string{"Opening the financing calculator for the 2023 Toyota RAV4 at $31,990."}, nil}}},
	{"compare them", []step{
		{"inventory", "show me fords", []string{`search_cars {"make":"Ford"}`}, nil, nil},
		{"inventory", "compare them", []string{`compare_cars {"carIds":["c03","c17","c19"]}`}, []string{"Comparing 2021 Ford Explorer, 2021 Ford F-150, 2020 Ford Mustang."}, nil},
	}},
	{"confirm the booking", []step{
		{"test-drive", "my name is Ann Lee, email ann@lee.io, next saturday 11am", []string{`fill_form_data {"name":"Ann Lee","email":"ann@lee.io","date":"2026-12-05","time":"11:00"}`}, nil, nil},
		{"test-drive", "confirm it", []string{`book_test_drive {}`}, nil, nil},
	}},
	{"filter and sort in one", []step{{"inventory", "show me everything under $25k sorted by price", []string{`search_cars {"maxPrice":25000}`, `sort_cars {"by":"price"}`}, []string{"Sorted by price", "4 cars"}, nil}}},
	{"sort alone", []step{{"inventory", "sort by price", []string{`sort_cars {"by":"price"}`}, nil, nil}}},
	{"packages added and removed", []step{
		{"car", "add the winter package", []string{`configure_car {"packages":["winter"]}`}, nil, nil},
		{"car", "add the tech package too", []string{`configure_car {"packages":["winter","tech"]}`}, nil, nil},
		{"car", "remove the winter package", []string{`configure_car {"packages":["tech"]}`}, nil, nil},
		{"car", "also the roof", []string{`configure_car {"packages":["tech","roof"]}`}, nil, nil},
		{"car", "take off the roof", []string{`configure_car {"packages":["tech"]}`}, nil, nil},
	}},
	{"package removed, list unknown", []step{
		{"car", "remove the roof", nil, []string{"Which packages should it have now: Winter package, Technology package, Panoramic roof or none?"}, nil},
		{"car", "Winter package and Technology package", []string{`configure_car {"packages":["winter","tech"]}`}, nil, nil},
	}},
	{"which colours", []step{{"car", "what colors does it come in?", nil, []string{"The color can be white, black, red, blue or silver."}, nil}}},
	{"which trims", []step{{"car", "which trims are there", nil, []string{"LE, XLE or Limited"}, nil}}},
	{"which packages", []step{{"car", "what packages can I get?", nil, []string{"The packages to choose from: "}, nil}}},
	{"which fuels", []step{{"inventory", "what fuel types do you have?", nil, []string{"The fuel can be "}, []string{"body"}}}},
	{"which terms", []step{{"financing", "what terms can I choose?", nil, []string{"24"}, nil}}},
	{"colour spelling", []step{{"car", "change the colour to silver", []string{`configure_car {"color":"silver"}`}, []string{"2023 Toyota RAV4, XLE trim"}, nil}}},

	// Test-drive page.
	{"suggestion name", []step{
		{"test-drive", "Fill in my name: Alex Doe, alex@example.com", nil, []string{"date"}, nil},
		{"test-drive", "tomorrow at 2pm", []string{`fill_form_data {"name":"Alex Doe","email":"alex@example.com","date":"2026-12-03","time":"14:00"}`}, nil, nil},
	}},
	{"saturday at 10", []step{
		{"test-drive", "Saturday at 10", nil, []string{"name", "email"}, nil},
		{"test-drive", "Jane Doe, jane@example.com", []string{`fill_form_data {"name":"Jane Doe","email":"jane@example.com","date":"2026-12-05","time":"10:00"}`}, nil, nil},
	}},
	{"next monday", []step{
		{"test-drive", "Book it for next Monday at 10:00", nil, []string{"name", "email"}, []string{"book_test_drive"}},
		{"test-drive", "jane doe jane@example.com", []string{`fill_form_data {"name":"jane doe","email":"jane@example.com","date":"2026-12-07","time":"10:00"}`}, nil, nil},
	}},
	{"everything at once", []step{{"test-drive", "Jane Doe jane@example.com tomorrow at 2pm", []string{`fill_form_data {"name":"Jane Doe","email":"jane@example.com","date":"2026-12-03","time":"14:00"}`}, nil, nil}}},
	{"date words", []step{
		{"test-drive", "december 10 at 11", nil, []string{"name"}, nil},
		{"test-drive", "my name is Sam Lee, sam@example.com", []string{`fill_form_data {"name":"Sam Lee","email":"sam@example.com","date":"2026-12-10","time":"11:00"}`}, nil, nil},
	}},
	{"phone", []step{
		{"test-drive", "my phone is 555-123-4567", nil, []string{"name", "email", "date"}, nil},
		{"test-drive", "Jane Doe, jane@example.com, saturday at 10", []string{`fill_form_data {"phone":"555-123-4567","name":"Jane Doe","email":"jane@example.com","date":"2026-12-05","time":"10:00"}`}, nil, nil},
	}},
	{"lowercase no punctuation", []step{{"test-drive", "jane doe jane@example.com saturday at 10", []string{`fill_form_data {"name":"jane doe","email":"jane@example.com","date":"2026-12-05","time":"10:00"}`}, nil, nil}}},
	{"book it", []step{{"test-drive", "book it", []string{`book_test_drive {}`}, []string{"didn't work", "name"}, []string{"fill_form_data"}}}},
	{"notes, then a question that abandons it", []step{
		{"test-drive", `add a note "I'll bring my dog"`, nil, []string{"name"}, nil},
		{"inventory", "show me SUVs", []string{`search_cars {"bodyType":"suv"}`}, nil, nil},
	}},

	// Financing page.
	{"suggestion 48 months", []step{{"financing", "What would I pay per month over 48 months?", []string{`calculate_payment {"termMonths":48}`}, []string{"$597.50"}, nil}}},
	{"put 5000 down", []step{
		{"financing", "Put $5,000 down", nil, []string{"24 months", "72 months"}, nil},
		{"financing", "60", []string{`calculate_payment {"termMonths":60,"downPayment":5000}`}, nil, nil},
	}},
	{"60 months 5000 down", []step{{"financing", "monthly payment over 60 months with 5000 down", []string{`calculate_payment {"termMonths":60,"downPayment":5000}`}, []string{"$31,990"}, nil}}},
	{"5 years apr", []step{{"financing", "5 years at 4.9% apr", []string{`calculate_payment {"termMonths":60,"apr":4.9}`}, nil, nil}}},
	{"apply missing", []step{{"financing", "apply for financing", nil, []string{"full name", "email", "annual income"}, nil}}},
	{"apply answered", []step{
		{"financing", "apply for financing", nil, []string{"full name"}, nil},
		{"financing", "Jane Doe, jane@example.com, income 85k", []string{`apply_for_financing {"fullName":"Jane Doe","email":"jane@example.com","annualIncome":85000}`}, []string{"Application"}, nil},
	}},
	{"test-drive hello", []step{
		{"test-drive", "hi", nil, []string{"Hi! Here is what I can do on this page: ", "fill in the test-drive booking form with your details"}, []string{"no actions", "visitor"}},
		{"test-drive", "what can I do here?", nil, []string{"fill in the test-drive booking form"}, []string{"Sorry"}},
	}},
	{"financing hello", []step{{"financing", "hello", nil, []string{"Hi!", "“calculate payment"}, nil}}},
}

func TestShopperSuite(t *testing.T) {
	pass, total := 0, 0
	for _, sc := range shopperScenarios {
		for i := range sc.steps {
			total++
			_ = i
		}
		ok := t.Run(sc.name, func(t *testing.T) {
			cv := &conversation{t: t, page: &demoPage{}}
			for _, st := range sc.steps {
				out := cv.say(demoPages[st.page], st.say)
				if len(out.calls) != len(st.calls) {
					t.Fatalf("%q on %s: calls %v, want %v (reply %q)", st.say, st.page, out.calls, st.calls, out.text)
				}
				for i := range st.calls {
					if !sameCall(out.calls[i], st.calls[i]) {
						t.Fatalf("%q on %s: call %d is %s, want %s", st.say, st.page, i, out.calls[i], st.calls[i])
					}
				}
				for _, w := range st.reply {
					if !strings.Contains(out.text, w) {
						t.Errorf("%q on %s: reply %q lacks %q", st.say, st.page, out.text, w)
					}
				}
				for _, w := range st.not {
					if strings.Contains(out.text, w) {
						t.Errorf("%q on %s: reply %q contains %q", st.say, st.page, out.text, w)
					}
				}
			}
		})
		if ok {
			pass += len(sc.steps)
		}
	}
	t.Logf("shopper suite: %d of %d utterances pass (%d conversations)", pass, total, len(shopperScenarios))
	if total < 60 {
		t.Errorf("the suite has %d utterances, want at least 60", total)
	}
}
