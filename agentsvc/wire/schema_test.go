package wire

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"testing"

	invopop "github.com/invopop/jsonschema"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

var update = flag.Bool("update", false, "rewrite docs/protocol.schema.json")

const (
	goldenSchema = "../../docs/protocol.schema.json"
	// SchemaID is the $id of the published schema.
	SchemaID = "https://github.com/byomcp/byomcp/blob/main/docs/protocol.schema.json"
)

// ToolsCallResult is the page's answer to tools/call: an MCP CallToolResult (MCP 2025-11-25,
// "Calling Tools"). The agent reads it with the MCP SDK's types; this is its shape on the wire.
type ToolsCallResult struct {
	// Content blocks: text is given to the model; images, audio and resources are described.
	Content []ContentBlock `json:"content"`
	// StructuredContent is given to the model as JSON text.
	StructuredContent map[string]any `json:"structuredContent,omitempty"`
	// IsError marks a failed tool: data for the model, not a protocol error.
	IsError bool `json:"isError,omitempty"`
	// Meta may carry byomcp/navigating.
	Meta map[string]any `json:"_meta,omitempty"`
}

// ContentBlock is one MCP content block (text, image, audio, resource_link, resource).
type ContentBlock struct {
	Type string `json:"type"`
	Text string `json:"text,omitempty"`
}

// method is one message of the protocol table: its name, who sends it, and the Go types of
// its params and result (nil: none; a notification has no result).
type method struct {
	name, def, from string
	notification    bool
	params, result  any
	// paramsOptional: the params may be left out.
	paramsOptional bool
}

// eventTypes pairs each agent/event type with the Go type of its params.
var eventTypes = []struct {
	typ string
	v   Event
}{
	{EventTurnStart, &TurnStartEvent{}},
	{EventTextDelta, &TextDeltaEvent{}},
	{EventToolCall, &ToolCallEvent{}},
	{EventToolResult, &ToolResultEvent{}},
	{EventTurnEnd, &TurnEndEvent{}},
	{EventError, &ErrorEvent{}},
	{EventToolRejected, &ToolRejectedEvent{}},
}

// eventParams stands for "one of the event types" in the table; see protocolSchema.
type eventParams struct{}

// empty is a params or result with no members.
type empty struct{}

const (
	agentToPage = "agent → page"
	pageToAgent = "page → agent"
	both        = "both ways"
)

var methods = []method{
	{name: MethodInitialize, def: "Initialize", from: agentToPage, params: InitializeParams{}, result: InitializeResult{}},
	{name: MethodInitialized, def: "Initialized", from: agentToPage, notification: true, params: empty{}, paramsOptional: true},
	{name: MethodToolsList, def: "ToolsList", from: agentToPage, params: ToolsListParams{}, result: ToolsListResult{}, paramsOptional: true},
	{name: MethodToolsCall, def: "ToolsCall", from: agentToPage, params: ToolsCallParams{}, result: ToolsCallResult{}},
	{name: MethodAgentConfirm, def: "AgentConfirm", from: agentToPage, params: ConfirmParams{}, result: ConfirmResult{}},
	{name: MethodAgentElicit, def: "AgentElicit", from: agentToPage, params: ElicitParams{}, result: ElicitResult{}},
	{name: MethodAgentEvent, def: "AgentEvent", from: agentToPage, notification: true, params: eventParams{}},
	{name: MethodAgentSession, def: "AgentSession", from: pageToAgent, params: SessionParams{}, result: SessionResult{}, paramsOptional: true},
	{name: MethodAgentChat, def: "AgentChat", from: pageToAgent, params: ChatParams{}, result: ChatResult{}},
	{name: MethodAgentCancel, def: "AgentCancel", from: pageToAgent, params: CancelParams{}, result: CancelResult{}, paramsOptional: true},
	{name: MethodAgentAppCall, def: "AgentAppCall", from: pageToAgent, params: AppCallParams{}, result: ToolsCallResult{}},
	{name: MethodProgress, def: "Progress", from: pageToAgent, notification: true, params: ProgressParams{}},
	{name: MethodToolsListChanged, def: "ToolsListChanged", from: pageToAgent, notification: true, params: empty{}, paramsOptional: true},
	{name: MethodCancelled, def: "Cancelled", from: both, notification: true, params: CancelledParams{}},
	{name: MethodPing, def: "Ping", from: both, params: empty{}, result: empty{}, paramsOptional: true},
}

// openTypes are the MCP types the page writes: MCP lets them carry more members (_meta,
// outputSchema, icons, …), so their schemas allow them. The agent's own messages are closed.
var openTypes = []string{"InitializeResult", "ToolsListResult", "PageTool", "ToolAnnotations", "ToolsCallResult", "ContentBlock"}

func ref(def string) *invopop.Schema { return &invopop.Schema{Ref: "#/$defs/" + def} }

// props fills p (from invopop.NewProperties) with name, schema pairs, in order.
func props[M interface {
	Set(string, *invopop.Schema) (*invopop.Schema, bool)
}](p M, kv ...any) M {
	for i := 0; i < len(kv); i += 2 {
		p.Set(kv[i].(string), kv[i+1].(*invopop.Schema))
	}
	return p
}

func stopReasons() *invopop.Schema {
	return &invopop.Schema{Type: "string", Enum: []any{StopEnd, StopMaxIterations, StopCancelled, StopError}}
}

var jsonrpcVersion = &invopop.Schema{Const: "2.0"}

// protocolSchema builds the JSON Schema (draft 2020-12) of every message of the page socket
// from this package's types: $defs holds, per method, its Request or Notification envelope and
// its Response, and the types they use; the top level accepts any one message.
func protocolSchema() ([]byte, error) {
	r := invopop.Reflector{Anonymous: true}
	if err := r.AddGoComments("github.com/byomcp/byomcp/agentsvc/wire", "."); err != nil {
		return nil, err
	}
	if err := r.AddGoComments("github.com/byomcp/byomcp/agentsvc/chat", "../chat"); err != nil {
		return nil, err
	}
	defs := invopop.Definitions{}
	reflectType := func(v any) *invopop.Schema {
		s := r.ReflectFromType(reflect.TypeOf(v))
		for name, d := range s.Definitions {
			defs[name] = d
		}
		return &invopop.Schema{Ref: s.Ref}
	}
	anyOfType := func(types ...string) *invopop.Schema {
		s := &invopop.Schema{}
		for _, t := range types {
			s.AnyOf = append(s.AnyOf, &invopop.Schema{Type: t})
		}
		return s
	}
	defs["RequestId"] = anyOfType("string", "integer")
	defs["RequestId"].Description = "A JSON-RPC request id, chosen by the sender; the agent's and the page's requests have separate id spaces."

	var events []*invopop.Schema
	for _, e := range eventTypes {
		name := reflect.TypeOf(e.v).Elem().Name()
		reflectType(e.v)
		typ, ok := defs[name].Properties.Get("type")
		if !ok {
			return nil, fmt.Errorf("%s has no type member", name)
		}
		typ.Const = e.typ
		events = append(events, ref(name))
	}
	defs["Event"] = &invopop.Schema{OneOf: events, Description: "The params of agent/event, one schema per type (more types may be added in a later version: clients ignore types they do not know)."}

	var messages, responses []*invopop.Schema
	for _, m := range methods {
		var params *invopop.Schema
		switch m.params.(type) {
		case eventParams:
			params = ref("Event")
		case empty:
			params = &invopop.Schema{Type: "object"}
		default:
			params = reflectType(m.params)
		}
		p := props(invopop.NewProperties(), "jsonrpc", jsonrpcVersion)
		required := []string{"jsonrpc"}
		kind, what := "Request", "request"
		if m.notification {
			kind, what = "Notification", "notification"
		} else {
			p.Set("id", ref("RequestId"))
			required = append(required, "id")
		}
		p.Set("method", &invopop.Schema{Const: m.name})
		p.Set("params", params)
		required = append(required, "method")
		if !m.paramsOptional {
			required = append(required, "params")
		}
		defs[m.def+kind] = &invopop.Schema{
			Description:          fmt.Sprintf("%s %s (%s).", m.name, what, m.from),
			Type:                 "object",
			Properties:           p,
			Required:             required,
			AdditionalProperties: invopop.FalseSchema,
		}
		messages = append(messages, ref(m.def+kind))
		if m.result == nil {
			continue
		}
		result := &invopop.Schema{Type: "object"}
		if _, ok := m.result.(empty); !ok {
			result = reflectType(m.result)
		}
		defs[m.def+"Response"] = &invopop.Schema{
			Description:          fmt.Sprintf("The answer to a %s request.", m.name),
			Type:                 "object",
			Properties:           props(invopop.NewProperties(), "jsonrpc", jsonrpcVersion, "id", ref("RequestId"), "result", result),
			Required:             []string{"jsonrpc", "id", "result"},
			AdditionalProperties: invopop.FalseSchema,
		}
		responses = append(responses, ref(m.def+"Response"))
	}
	defs["ErrorResponse"] = &invopop.Schema{
		Description: "A request that failed; code is one of the README's error codes (id is null when the request could not be read).",
		Type:        "object",
		Properties: props(invopop.NewProperties(), "jsonrpc", jsonrpcVersion,
			"id", &invopop.Schema{AnyOf: []*invopop.Schema{ref("RequestId"), {Type: "null"}}},
			"error", &invopop.Schema{
				Type:       "object",
				Properties: props(invopop.NewProperties(), "code", &invopop.Schema{Type: "integer"}, "message", &invopop.Schema{Type: "string"}, "data", &invopop.Schema{}),
				Required:   []string{"code", "message"},
			}),
		Required:             []string{"jsonrpc", "id", "error"},
		AdditionalProperties: invopop.FalseSchema,
	}
	responses = append(responses, ref("ErrorResponse"))
	defs["Response"] = &invopop.Schema{AnyOf: responses, Description: "Any answer; check an answer against <Method>Response of the request it answers."}
	messages = append(messages, ref("Response"))

	// Shapes the Go types cannot say.
	for _, name := range openTypes {
		if defs[name] == nil {
			return nil, fmt.Errorf("no $defs/%s", name)
		}
		defs[name].AdditionalProperties = nil
	}
	setProp := func(def, prop string, s *invopop.Schema) error {
		old, ok := defs[def].Properties.Get(prop)
		if !ok {
			return fmt.Errorf("%s has no member %s", def, prop)
		}
		s.Description = old.Description
		defs[def].Properties.Set(prop, s)
		return nil
	}
	for _, p := range []struct {
		def, prop string
		s         *invopop.Schema
	}{
		{"PageTool", "inputSchema", &invopop.Schema{Type: "object"}},
		{"ToolsCallParams", "arguments", &invopop.Schema{Type: "object"}},
		{"ConfirmParams", "arguments", &invopop.Schema{Type: "object"}},
		{"ConfirmTool", "inputSchema", &invopop.Schema{Type: "object"}},
		{"ConfirmResult", "arguments", &invopop.Schema{Type: "object"}},
		{"AppCallParams", "arguments", &invopop.Schema{Type: "object"}},
		{"App", "input", &invopop.Schema{Type: "object"}},
		{"App", "result", ref("ToolsCallResult")},
		{"ToolCallEvent", "arguments", &invopop.Schema{}},
		{"ProgressParams", "progressToken", anyOfType("string", "integer")},
		{"CancelledParams", "requestId", ref("RequestId")},
		{"InitializeResult", "capabilities", &invopop.Schema{Type: "object"}},
		{"TurnEndEvent", "stopReason", stopReasons()},
		{"ChatResult", "stopReason", stopReasons()},
	} {
		if err := setProp(p.def, p.prop, p.s); err != nil {
			return nil, err
		}
	}

	relayMsg, err := reflectRelay(&r, defs)
	if err != nil {
		return nil, err
	}
	if defs["Relay"], err = relaySchema(relayMsg, defs); err != nil {
		return nil, err
	}

	top := &invopop.Schema{
		Version:     invopop.Version,
		ID:          SchemaID,
		Title:       "byomcp page socket (/v1/ws), protocol version 1",
		Description: "Every message of the page socket: one JSON-RPC 2.0 message per WebSocket text frame. $defs/Relay (not a page message) describes the relay between replicas. Generated from the Go package agentsvc/wire (go test ./agentsvc/wire -run TestSchemaGolden -update).",
		AnyOf:       messages,
		Definitions: defs,
	}
	b, err := json.MarshalIndent(top, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// TestSchemaGolden keeps docs/protocol.schema.json equal to the schema generated from this
// package's types (go test ./agentsvc/wire -run TestSchemaGolden -update refreshes it), and
// checks that it compiles as draft 2020-12.
func TestSchemaGolden(t *testing.T) {
	got, err := protocolSchema()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(goldenSchema, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(goldenSchema)
	if err != nil {
		t.Fatalf("%v (run the test with -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("docs/protocol.schema.json is not the schema generated from agentsvc/wire: run go test ./agentsvc/wire -run TestSchemaGolden -update")
	}
	if _, err := compileSchema(got); err != nil {
		t.Fatal(err)
	}
}

// compileSchema compiles the protocol schema; defs lists $defs to compile as well (by name).
func compileSchema(doc []byte, defs ...string) ([]*jsonschema.Schema, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(SchemaID, v); err != nil {
		return nil, err
	}
	var out []*jsonschema.Schema
	for _, loc := range append([]string{""}, defs...) {
		if loc != "" {
			loc = "#/$defs/" + loc
		}
		s, err := c.Compile(SchemaID + loc)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// TestSchemaAcceptsAndRefuses: the schema tells the protocol's messages from near misses.
func TestSchemaAcceptsAndRefuses(t *testing.T) {
	doc, err := protocolSchema()
	if err != nil {
		t.Fatal(err)
	}
	compiled, err := compileSchema(doc, "AgentChatResponse")
	if err != nil {
		t.Fatal(err)
	}
	top, chatResponse := compiled[0], compiled[1]
	for _, c := range []struct {
		msg  string
		s    *jsonschema.Schema
		good bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"agent/chat","params":{"text":"hi"}}`, top, true},
		{`{"jsonrpc":"2.0","id":1,"method":"agent/chat","params":{}}`, top, false},
		{`{"jsonrpc":"2.0","id":1,"method":"agent/chat"}`, top, false},
		{`{"jsonrpc":"2.0","id":1,"method":"agent/chats","params":{"text":"hi"}}`, top, false},
		{`{"jsonrpc":"1.0","id":1,"method":"ping"}`, top, false},
		{`{"jsonrpc":"2.0","id":"a","method":"ping"}`, top, true},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, top, true},
		{`{"jsonrpc":"2.0","method":"agent/event","params":{"sessionId":"s","turnId":"t","seq":3,"type":"text_delta","delta":"Hi"}}`, top, true},
		{`{"jsonrpc":"2.0","method":"agent/event","params":{"sessionId":"s","seq":3,"type":"text_delta","text":"Hi"}}`, top, false},
		{`{"jsonrpc":"2.0","method":"agent/event","params":{"type":"tool_rejected","name":"x","reason":"bad schema"}}`, top, true},
		{`{"jsonrpc":"2.0","method":"agent/event","params":{"type":"turn_end","stopReason":"finished","text":""}}`, top, false},
		{`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a","inputSchema":{"type":"object"},"icons":[]}]}}`, top, true},
		{`{"jsonrpc":"2.0","id":2,"error":{"code":-32001,"message":"a turn is already running in this session"}}`, top, true},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`, top, true},
		{`{"jsonrpc":"2.0","id":4,"result":{"turnId":"t","text":"Hi","stopReason":"end","usage":{"promptTokens":1,"completionTokens":1,"totalTokens":2}}}`, chatResponse, true},
		{`{"jsonrpc":"2.0","id":4,"result":{"turnId":"t","text":"Hi","stopReason":"end"}}`, chatResponse, false},
	} {
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(c.msg)))
		if err != nil {
			t.Fatal(err)
		}
		err = c.s.Validate(v)
		if (err == nil) != c.good {
			t.Errorf("%s: valid = %v, want %v (%v)", c.msg, err == nil, c.good, err)
		}
	}
}
