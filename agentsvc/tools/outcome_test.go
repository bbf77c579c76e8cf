package tools

import (
	"errors"
	"strings"
	"testing"
)

// TestOutcomes: each outcome's kind decides whether the model is told of an error, the
// metrics' label and the status of the labelled text; the text is the visitor's.
func TestOutcomes(t *testing.T) {
	tests := []struct {
		out     Outcome
		label   string
		isError bool
		text    string
	}{
		{Answered("t", "3 cars", false), "ok", false, "3 cars"},
		{Answered("t", "out of stock", true), "tool_error", true, "out of stock"},
		{ErrorAnswer("t", "boom"), "tool_error", true, "the page answered with an error: boom"},
		{InvalidArguments("t", errors.New("missing properties: 'a'")), "invalid_args", true, "invalid arguments: missing properties: 'a'"},
		{TimedOut("t", false), "timeout", true, "the tool did not answer in time"},
		{TimedOut("t", true), "timeout", true, "the tool ran past its hard time limit"},
		{Disconnected("t"), "page_gone", true, "the page disconnected while the tool was running; it may or may not have completed"},
		{NotConnected("t"), "page_gone", true, "the page is not connected: it did not come back in time, so the tool could not run"},
		{CancelledCall("t"), "cancelled", true, "cancelled"},
		{Unknown("t"), "unknown_tool", true, `unknown tool "t"`},
		{NotOnPage("t"), "unknown_tool", true, `the tool "t" is not available on the current page (the page may have changed)`},
		{CallFailed("t", errors.New("no route")), "failed", true, "no route"},
		{InternalError("t"), "failed", true, "internal error: the tool call failed in the agent"},
		{NotRun("t", 25), "over_limit", true, "not run: this turn reached its limit of 25 tool calls"},
		{NotRun("t", 1), "over_limit", true, "not run: this turn reached its limit of 1 tool call"},
		{Handed("t"), "handed_off", false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.label+"/"+tt.text, func(t *testing.T) {
			o := tt.out
			if o.Label() != tt.label || o.IsError() != tt.isError || o.ForVisitor() != tt.text || o.Name != "t" {
				t.Errorf("got %s isError=%v %q name %q, want %s isError=%v %q name t", o.Label(), o.IsError(), o.ForVisitor(), o.Name, tt.label, tt.isError, tt.text)
			}
			status := `status="ok"`
			if tt.isError {
				status = `status="error"`
			}
			if m := o.ForModel(); !strings.HasPrefix(m, `<tool_output tool="t" `+status+">\n"+tt.text+"\n</tool_output>") {
				t.Errorf("for the model: got %q, want the text labelled %s", m, status)
			}
		})
	}
	if got := Kind(200).String(); got != "kind(200)" {
		t.Errorf("an unknown kind: got %q", got)
	}
}
