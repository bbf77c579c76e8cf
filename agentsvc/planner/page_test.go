package planner

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
)

// The item of a page reached by a link is read from the address the agent's instructions
// give: an id-like key whose value is an item seen or written like an id; a campaign's,
// a referrer's or a sign-in's key is none.
func TestPageAddressNamesTheItem(t *testing.T) {
	for _, c := range []struct {
		address, want string
	}{
		{"https://cars.example/test-drive.html?id=c01", "c01"},
		{"https://cars.example/financing.html?carId=c05&price=41200", "c05"},
		{"https://shop.example/p?sku=AB-1234", "AB-1234"},
		{"https://cars.example/?ref=newsletter", ""},
		{"https://cars.example/?utm_id=c01&utm_source=mail", ""},
		{"https://cars.example/auth?code=x1234", ""},
		{"https://cars.example/car.html?id=sunday-special", ""}, // not written like an id, never seen
		{"https://cars.example/car.html", ""},
	} {
		instructions := fmt.Sprintf("You are a helpful assistant embedded in the web page %q (%s).", "A car — Shop", c.address)
		req := llm.Request{Tools: demoPages["test-drive"], Messages: []chat.Message{
			{Role: chat.RoleSystem, Content: instructions},
			{Role: chat.RoleUser, Content: "how much is it"},
		}}
		got := ""
		if cv := newConv(req, time.Now()); cv.page != nil {
			got = cv.page.id
		}
		if got != c.want {
			t.Errorf("%s: the page's item is %q, want %q", c.address, got, c.want)
		}
	}
}

// A car opened by a call whose result named no car is on screen but unnamed: "which car is
// this for?" has no answer from it (it panicked on the nil item).
func TestWhichItemOfAnUnnamedCar(t *testing.T) {
	req := llm.Request{Tools: demoPages["test-drive"], Messages: []chat.Message{
		{Role: chat.RoleUser, Content: "open c99"},
		{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "planner-open-2", Name: "select_car", Arguments: `{"carId":"c99"}`}}},
		{Role: chat.RoleTool, ToolCallID: "planner-open-2", Name: "select_car", Content: "Opening the car's page."},
		{Role: chat.RoleAssistant, Content: "Opening the car's page."},
		{Role: chat.RoleUser, Content: "which car is this for?"},
	}}
	resp, err := New().Stream(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasPrefix(resp.Text, "It is") {
		t.Errorf("the planner answered %q of a car no result named", resp.Text)
	}
}
