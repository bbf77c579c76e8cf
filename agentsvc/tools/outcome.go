package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/byomcp/byomcp/agentsvc/wire"
)

// Kind is how a tool call ended. It is set once, where it is known (the validator, the
// call's timers, the socket, the toolbox); the text for the model, the text for the visitor
// and the metrics' label are derived from it.
type Kind uint8

// The kinds of Outcome.
const (
	OK          Kind = iota // the tool answered
	ToolError               // the tool answered with an error (an isError result, or an error response)
	InvalidArgs             // the arguments do not fit the tool's schema: the tool did not run
	Timeout                 // no answer in time: the call's timeout, or its hard maximum
	PageGone                // the page went away during the call, or did not come back to run it
	Cancelled               // the turn was cancelled during the call
	UnknownTool             // no tool of that name (any more)
	Failed                  // the call failed on its way (neither an answer nor one of the above)
	OverLimit               // not run: the turn reached its limit of tool calls
	HandedOff               // answered outside the turn (an AG-UI client runs it)
)

var kindLabels = [...]string{
	OK:          "ok",
	ToolError:   "tool_error",
	InvalidArgs: "invalid_args",
	Timeout:     "timeout",
	PageGone:    "page_gone",
	Cancelled:   "cancelled",
	UnknownTool: "unknown_tool",
	Failed:      "failed",
	OverLimit:   "over_limit",
	HandedOff:   "handed_off",
}

// String returns the kind's label, as the metrics' outcome label uses it.
func (k Kind) String() string {
	if int(k) < len(kindLabels) {
		return kindLabels[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Outcome is the end of one tool call. Make it with the functions below, which write its
// text from its kind.
type Outcome struct {
	Kind Kind
	Name string // the tool's own name (as the page or the server knows it)
	// Text is the tool's rendered result (OK, ToolError: not yet labelled) or one sentence
	// on what happened instead.
	Text string
	// AskAgain: the page went away while its visitor was asked to confirm the call (the
	// tool did not run), so the page that comes next may ask them again (LeftUnconfirmed).
	AskAgain bool
	// Confirmation is how the visitor answered, when the call asked for their confirmation.
	Confirmation *wire.Confirmation
	// App is the MCP App the result is shown with (tool_result's app), or nil.
	App *wire.App
	// Asked are the server's requests for the visitor's input during the call and how each
	// ended (a server tool's call, agent/elicit); nil: none. A pointer keeps Outcome comparable.
	Asked *[]wire.Asked
}

// AskedList is o.Asked's list (nil when none).
func (o Outcome) AskedList() []wire.Asked {
	if o.Asked == nil {
		return nil
	}
	return *o.Asked
}

// IsError tells whether the model is given the outcome as a tool error.
func (o Outcome) IsError() bool { return o.Kind != OK && o.Kind != HandedOff }

// Label is the outcome label of the tool call metrics.
func (o Outcome) Label() string { return o.Kind.String() }

// ForVisitor is the text shown to the visitor (the tool_result event).
func (o Outcome) ForVisitor() string { return o.Text }

// ForModel is the tool message's content: the text labelled as untrusted data (Wrap).
func (o Outcome) ForModel() string { return Wrap(o.Name, o.Text, o.IsError()) }

// Answered is the tool's own answer, rendered: OK, or ToolError when it says it failed.
func Answered(name, text string, isError bool) Outcome {
	if isError {
		return Outcome{Kind: ToolError, Name: name, Text: text}
	}
	return Outcome{Kind: OK, Name: name, Text: text}
}

// ErrorAnswer is an error response of the tool's host (a JSON-RPC error from the page).
func ErrorAnswer(name, message string) Outcome {
	return Outcome{Kind: ToolError, Name: name, Text: "the page answered with an error: " + message}
}

// InvalidArguments is a call whose arguments the validator refused, with its message.
func InvalidArguments(name string, err error) Outcome {
	return Outcome{Kind: InvalidArgs, Name: name, Text: "invalid arguments: " + err.Error()}
}

// TimedOut is a call that got no answer within its timeout, or within its hard maximum.
func TimedOut(name string, hard bool) Outcome {
	if hard {
		return Outcome{Kind: Timeout, Name: name, Text: "the tool ran past its hard time limit"}
	}
	return Outcome{Kind: Timeout, Name: name, Text: "the tool did not answer in time"}
}

// Disconnected is a call whose page went away while it ran: it may or may not have run.
func Disconnected(name string) Outcome {
	return Outcome{Kind: PageGone, Name: name, Text: "the page disconnected while the tool was running; it may or may not have completed"}
}

// LeftUnconfirmed is a call whose page went away while the visitor was asked to confirm it.
func LeftUnconfirmed(name string) Outcome {
	return Outcome{Kind: PageGone, Name: name, Text: "the page went away while the visitor was asked to confirm this call; it was not confirmed, so the tool did not run", AskAgain: true}
}

// NotConfirmedInTime is a call the visitor was asked to confirm and did not, within the
// call's hard time limit: the page withdrew the question and the tool did not run.
func NotConfirmedInTime(name string) Outcome {
	return Outcome{Kind: Timeout, Name: name, Text: "the visitor did not confirm this call in time, so the tool did not run"}
}

// Declined is a call the visitor declined to confirm: the tool did not run. The text is the
// widget's own for a declined page tool (jsclient/tools.js declinedText): the visitor's
// reason, when they gave one, on a second line (spaces collapsed, at most 500 characters).
func Declined(name, reason string) Outcome {
	text := declinedPrefix + name + "."
	if reason = strings.Join(strings.Fields(reason), " "); reason != "" {
		if r := []rune(reason); len(r) > maxReason {
			reason = string(r[:maxReason])
		}
		text += reasonPrefix + reason
	}
	return Outcome{Kind: ToolError, Name: name, Text: text}
}

// maxReason bounds the visitor's reason for a decline, as the widget does.
const maxReason = 500

// declinedPrefix and reasonPrefix are Declined's words (the widget's too).
const (
	declinedPrefix = "The user declined to run "
	reasonPrefix   = "\nThe user's reason: "
	changedPrefix  = "The user changed the arguments before confirming: "
)

// DeclinedReason tells whether text is a declined call's (Declined, or the widget's own for a
// page tool), and the visitor's reason in it ("" when they gave none).
func DeclinedReason(text string) (reason string, declined bool) {
	text = strings.TrimSpace(text)
	first, rest, _ := strings.Cut(text, "\n")
	if !strings.HasPrefix(first, declinedPrefix) || !strings.HasSuffix(first, ".") {
		return "", false
	}
	if rest == "" {
		return "", true
	}
	r, ok := strings.CutPrefix("\n"+rest, reasonPrefix)
	return r, ok
}

// ChangedByVisitor tells whether a call's result begins with ChangedArgs' sentence: the
// visitor changed its arguments on the card before confirming.
func ChangedByVisitor(text string) bool {
	return strings.HasPrefix(strings.TrimSpace(text), changedPrefix)
}

// ChangedArgs is the sentence the model reads first in the result of a call whose arguments
// the visitor changed on the confirmation card before confirming ("" when none changed): the
// widget's own (jsclient/tools.js changedText), each argument that differs named with its
// value before and after, in the order of before's arguments and then after's new ones.
func ChangedArgs(before, after json.RawMessage) string {
	bk, bv := objectInOrder(before)
	ak, av := objectInOrder(after)
	keys := bk
	for _, k := range ak {
		if _, ok := bv[k]; !ok {
			keys = append(keys, k)
		}
	}
	var parts []string
	for _, k := range keys {
		b, a := shownArg(bv, k), shownArg(av, k)
		if a != b {
			parts = append(parts, k+" from "+b+" to "+a)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return changedPrefix + strings.Join(parts, "; ") + ". The tool ran with the user's arguments."
}

// objectInOrder reads a JSON object's keys in their order, with their values in compact JSON.
func objectInOrder(raw json.RawMessage) ([]string, map[string]string) {
	vals := map[string]string{}
	var keys []string
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, vals
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			break
		}
		k, _ := t.(string)
		var v any
		if err := dec.Decode(&v); err != nil {
			break
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // as JSON.stringify writes it
		_ = enc.Encode(v)
		if _, seen := vals[k]; !seen {
			keys = append(keys, k)
		}
		vals[k] = strings.TrimSuffix(b.String(), "\n")
	}
	return keys, vals
}

func shownArg(vals map[string]string, k string) string {
	if v, ok := vals[k]; ok {
		return v
	}
	return "(not given)"
}

// Unconfirmable is a call that needs the visitor's confirmation where nobody can be asked
// (who says why): it did not run.
func Unconfirmable(name, who string) Outcome {
	return Outcome{Kind: ToolError, Name: name, Text: "not run: this tool needs the visitor's confirmation, and " + who + " cannot ask for it"}
}

// NotConnected is a call whose page was gone and did not come back in time: it did not run.
func NotConnected(name string) Outcome {
	return Outcome{Kind: PageGone, Name: name, Text: "the page is not connected: it did not come back in time, so the tool could not run"}
}

// CancelledCall is a call ended by the turn's cancellation.
func CancelledCall(name string) Outcome {
	return Outcome{Kind: Cancelled, Name: name, Text: "cancelled"}
}

// Unknown is a call of a name the model was not offered, or no longer is.
func Unknown(name string) Outcome {
	return Outcome{Kind: UnknownTool, Name: name, Text: fmt.Sprintf("unknown tool %q", name)}
}

// NotOnPage is a call of a tool the current page does not have (the page changed).
func NotOnPage(name string) Outcome {
	return Outcome{Kind: UnknownTool, Name: name, Text: fmt.Sprintf("the tool %q is not available on the current page (the page may have changed)", name)}
}

// CallFailed is a call that failed on its way, for a reason the model may read.
func CallFailed(name string, err error) Outcome {
	return Outcome{Kind: Failed, Name: name, Text: err.Error()}
}

// InternalError is a call that failed inside the agent (a recovered panic).
func InternalError(name string) Outcome {
	return Outcome{Kind: Failed, Name: name, Text: "internal error: the tool call failed in the agent"}
}

// NotRun is a call the turn refused to run: it reached its limit of max tool calls.
func NotRun(name string, max int) Outcome {
	calls := "tool calls"
	if max == 1 {
		calls = "tool call"
	}
	return Outcome{Kind: OverLimit, Name: name, Text: fmt.Sprintf("not run: this turn reached its limit of %d %s", max, calls)}
}

// Handed is a call handed to someone outside the turn, who answers it later.
func Handed(name string) Outcome { return Outcome{Kind: HandedOff, Name: name, Text: ""} }
