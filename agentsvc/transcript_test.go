package agentsvc

// Golden wire transcripts: whole page-socket conversations in testdata/transcripts/*.txtar,
// replayed here against the agent (over an in-memory pipe, on fake time, with the fake model)
// and in jsclient/test/transcripts.test.js against the browser client, so both sides are pinned
// to the same bytes. `go test ./agentsvc -run TestTranscripts -update` records them again.
//
// A transcript's "frames" file holds one line per WebSocket frame, "page <json>" (page → agent)
// or "agent <json>" (agent → page), and "drop" where the page's connection ends and it connects
// again. Values the agent draws at random or from the clock are replaced when recorded, and
// put back when the page's frames are sent:
//   - "sessionId" and "turnId" strings: <sessionId1>, <turnId1>, <turnId2>… in order of first use;
//   - "time" numbers: 946684800000 (2000-01-01T00:00:00Z);
//   - the page's own "clientTurnId" is <clientTurnId1>, … (the JS side replaces its ids the same way).
// The agent's frames between two page frames may come in any order (parallel tool calls run
// concurrently), so a block is compared as a set, with its request ids, seq numbers and progress
// tokens matched as a set too; the file keeps the order of the recording. Every frame is
// validated against docs/protocol.schema.json, and each response against the schema of the
// request it answers.

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

var updateTranscripts = flag.Bool("update", false, "record testdata/transcripts/*.txtar again")

const transcriptDir = "testdata/transcripts"

// transcriptTool is a page tool of a transcript: the JS side registers it, and both sides
// answer its calls with Result (nil: the call is never answered).
type transcriptTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Result      *string         `json:"result"`
}

// transcriptScenario is what a transcript records: the page's tools, the model's answers and
// what the visitor does ("session" connects and opens the conversation, "chat:<text>" sends a
// message, "stop" cancels the running agent/chat, "drop" ends the connection).
type transcriptScenario struct {
	name, about string
	tools       []transcriptTool
	model       []llmtest.Step
	script      []string
}

func str(s string) *string { return &s }

var weatherSchema = json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`)

var transcriptScenarios = []transcriptScenario{
	{
		name:  "turn-parallel-calls",
		about: "The handshake (agent/session, initialize, notifications/initialized, tools/list), then a turn whose model calls two page tools at once; the agent calls both in parallel and the model answers with their results.",
		tools: []transcriptTool{
			{Name: "get_weather", Description: "Weather of a city", InputSchema: weatherSchema, Result: str("Sunny, 21 °C")},
			{Name: "list_cars", Description: "Cars in stock", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`), Result: str(`[{"model":"Roadster"}]`)},
		},
		model: []llmtest.Step{
			{ToolCalls: []llmtest.FakeCall{{ID: "call_1", Name: "get_weather", Args: `{"city":"Oslo"}`}, {ID: "call_2", Name: "list_cars", Args: `{}`}}, Usage: &llmtest.Usage{PromptTokens: 20, CompletionTokens: 10}},
			{Text: "Sunny in Oslo; the Roadster is in stock.", Usage: &llmtest.Usage{PromptTokens: 40, CompletionTokens: 8}},
		},
		script: []string{"session", "chat:Weather in Oslo, and which cars?"},
	},
	{
		name:  "validation-error",
		about: "The model calls a page tool with arguments its schema refuses: the page is not called, the validator's message goes back to the model as a tool error, and the model answers.",
		tools: []transcriptTool{{Name: "get_weather", Description: "Weather of a city", InputSchema: weatherSchema, Result: str("Sunny")}},
		model: []llmtest.Step{
			{ToolCalls: []llmtest.FakeCall{{ID: "call_1", Name: "get_weather", Args: `{"town":"Oslo"}`}}, Usage: &llmtest.Usage{PromptTokens: 20, CompletionTokens: 5}},
			{Text: "I could not ask for the weather.", Usage: &llmtest.Usage{PromptTokens: 30, CompletionTokens: 7}},
		},
		script: []string{"session", "chat:Weather?"},
	},
	{
		name:  "cancel",
		about: "The visitor stops a turn while a page tool runs: the page cancels its agent/chat, the agent cancels the tool call, and agent/chat is answered with stopReason cancelled.",
		tools: []transcriptTool{{Name: "wait_for_user", Description: "Waits for the visitor", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}},
		model: []llmtest.Step{
			{ToolCalls: []llmtest.FakeCall{{ID: "call_1", Name: "wait_for_user", Args: `{}`}}, Usage: &llmtest.Usage{PromptTokens: 20, CompletionTokens: 5}},
		},
		script: []string{"session", "chat:Wait for me", "stop"},
	},
	{
		name:  "resume",
		about: "The page's connection drops during a tool call (the page navigates); the turn goes on without it, and the page resumes with agent/session {sessionId, lastSeq}: the events after lastSeq are sent again, after the result.",
		tools: []transcriptTool{{Name: "open_page", Description: "Opens a page", InputSchema: json.RawMessage(`{"type":"object","properties":{}}`)}},
		model: []llmtest.Step{
			{ToolCalls: []llmtest.FakeCall{{ID: "call_1", Name: "open_page", Args: `{}`}}, Usage: &llmtest.Usage{PromptTokens: 20, CompletionTokens: 5}},
			{Text: "The page did not answer.", Usage: &llmtest.Usage{PromptTokens: 30, CompletionTokens: 5}},
		},
		script: []string{"session", "chat:Open the page", "drop", "session"},
	},
}

// transcript is a parsed .txtar file.
type transcript struct {
	about  string
	tools  []transcriptTool
	frames []frameLine
}

type frameLine struct {
	from string // "page", "agent" or "drop"
	json string
}

func (tr *transcript) format() []byte {
	var b bytes.Buffer
	b.WriteString(tr.about + "\n\nRecorded by go test ./agentsvc -run TestTranscripts -update; the rules are at the top of agentsvc/transcript_test.go.\n")
	tools, _ := json.MarshalIndent(tr.tools, "", "  ")
	fmt.Fprintf(&b, "-- tools.json --\n%s\n-- frames --\n", tools)
	for _, f := range tr.frames {
		if f.from == "drop" {
			b.WriteString("drop\n")
			continue
		}
		fmt.Fprintf(&b, "%s %s\n", f.from, f.json)
	}
	return b.Bytes()
}

var txtarFile = regexp.MustCompile(`(?m)^-- (\S+) --$`)

func parseTranscript(data []byte) (*transcript, error) {
	idx := txtarFile.FindAllSubmatchIndex(data, -1)
	if len(idx) == 0 {
		return nil, fmt.Errorf("no files")
	}
	tr := &transcript{about: strings.TrimSpace(string(data[:idx[0][0]]))}
	files := map[string][]byte{}
	for i, m := range idx {
		end := len(data)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		files[string(data[m[2]:m[3]])] = data[m[1]+1 : end]
	}
	if err := json.Unmarshal(files["tools.json"], &tr.tools); err != nil {
		return nil, fmt.Errorf("tools.json: %w", err)
	}
	for line := range strings.SplitSeq(strings.TrimSpace(string(files["frames"])), "\n") {
		from, js, _ := strings.Cut(line, " ")
		switch from {
		case "page", "agent":
			if !json.Valid([]byte(js)) {
				return nil, fmt.Errorf("not JSON: %s", line)
			}
		case "drop":
		default:
			return nil, fmt.Errorf("cannot read %q", line)
		}
		tr.frames = append(tr.frames, frameLine{from, js})
	}
	return tr, nil
}

// idNames maps the agent's random values to their names in a transcript, and back.
type idNames struct {
	toName, toValue map[string]string
	count           map[string]int
}

func newIDNames() *idNames {
	return &idNames{toName: map[string]string{}, toValue: map[string]string{}, count: map[string]int{}}
}

var (
	volatileRE = regexp.MustCompile(`"(sessionId|turnId)":"([^"]*)"`)
	timeRE     = regexp.MustCompile(`"time":\d+`)
	idNameRE   = regexp.MustCompile(`<(sessionId|turnId)\d+>`)
)

const fixedTime = `"time":946684800000`

// normalise replaces the agent's random values and times in a frame by their names.
func (p *idNames) normalise(frame string) string {
	frame = timeRE.ReplaceAllString(frame, fixedTime)
	return volatileRE.ReplaceAllStringFunc(frame, func(m string) string {
		sub := volatileRE.FindStringSubmatch(m)
		key, v := sub[1], sub[2]
		name, ok := p.toName[v]
		if !ok {
			p.count[key]++
			name = fmt.Sprintf("<%s%d>", key, p.count[key])
			p.toName[v], p.toValue[name] = name, v
		}
		return fmt.Sprintf("%q:%q", key, name)
	})
}

// restore puts the real values back into a page frame.
func (p *idNames) restore(frame string) string {
	return idNameRE.ReplaceAllStringFunc(frame, func(name string) string {
		if v, ok := p.toValue[name]; ok {
			return v
		}
		return name
	})
}

// The values of an agent frame that depend on the order in which concurrent work ran.
var (
	agentRequestIDRE = regexp.MustCompile(`^\{"jsonrpc":"2\.0","id":(\d+),"method"`)
	seqRE            = regexp.MustCompile(`"seq":(\d+)`)
	tokenRE          = regexp.MustCompile(`"progressToken":"([^"]*)"`)
)

// orderFree splits a normalised agent frame into its content without the order-dependent
// values, its request id (or ""), and those values.
func orderFree(frame string) (key, id string, vals []string) {
	if m := agentRequestIDRE.FindStringSubmatch(frame); m != nil {
		id = m[1]
		frame = strings.Replace(frame, `"id":`+m[1]+`,`, `"id":_,`, 1)
	}
	for _, r := range []struct {
		re   *regexp.Regexp
		with string
	}{{seqRE, `"seq":_`}, {tokenRE, `"progressToken":_`}} {
		for _, m := range r.re.FindAllStringSubmatch(frame, -1) {
			vals = append(vals, m[1])
		}
		frame = r.re.ReplaceAllLiteralString(frame, r.with)
	}
	return frame, id, vals
}

// matchBlock compares the agent frames got with the transcript's want as sets (see the top of
// the file) and returns the transcript's request ids mapped to the real ones.
func matchBlock(want, got []string) (map[string]string, error) {
	ids := map[string]string{}
	if len(want) != len(got) {
		return nil, fmt.Errorf("got %d frames, want %d:\ngot:\n%s\nwant:\n%s", len(got), len(want), strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	used := make([]bool, len(got))
	var wantVals, gotVals []string
	for _, w := range want {
		wk, wid, wv := orderFree(w)
		wantVals = append(wantVals, wv...)
		found := false
		for i, g := range got {
			gk, gid, gv := orderFree(g)
			if used[i] || gk != wk {
				continue
			}
			used[i], found = true, true
			gotVals = append(gotVals, gv...)
			if wid != "" {
				ids[wid] = gid
			}
			break
		}
		if !found {
			return nil, fmt.Errorf("no frame like\n%s\namong\n%s", w, strings.Join(got, "\n"))
		}
	}
	slices.Sort(wantVals)
	slices.Sort(gotVals)
	if !slices.Equal(wantVals, gotVals) {
		return nil, fmt.Errorf("seq numbers and progress tokens %v, want %v", gotVals, wantVals)
	}
	return ids, nil
}

var responseIDRE = regexp.MustCompile(`^\{"jsonrpc":"2\.0","id":(\d+),"(result|error)"`)

// transcriptPage is the page end of one connection: it writes frames as given and collects
// what the agent writes.
type transcriptPage struct {
	mc     wsrpc.MessageConn
	frames chan string
}

func connectTranscriptPage(srv *Server) *transcriptPage {
	agentEnd, pageEnd := wsrpc.Pipe()
	srv.serve(context.Background(), agentEnd, testOrigin)
	p := &transcriptPage{mc: pageEnd, frames: make(chan string, 1000)}
	go func() {
		for {
			b, err := pageEnd.ReadMessage()
			if err != nil {
				return
			}
			p.frames <- string(b)
		}
	}()
	return p
}

// quiet waits until the agent has nothing left to do and returns what it wrote meanwhile.
func (p *transcriptPage) quiet() []string {
	synctest.Wait()
	var out []string
	for {
		select {
		case f := <-p.frames:
			out = append(out, f)
		default:
			return out
		}
	}
}

func (p *transcriptPage) send(t *testing.T, frame string) {
	t.Helper()
	if err := p.mc.WriteMessage([]byte(frame)); err != nil {
		t.Fatalf("page: writing %s: %v", frame, err)
	}
}

// transcriptServer runs an agent with the scenario's model inside the bubble.
func transcriptServer(t *testing.T, sc transcriptScenario) *Server {
	fake := llmtest.NewInMemory(llmtest.Script(sc.model...))
	t.Cleanup(fake.Close)
	model := llm.NewOpenAI(llm.Options{BaseURL: "http://llmtest.invalid/v1", APIKey: "test", Model: "fake-model", Provider: "custom", HTTPClient: fake.Client(),
		Sleep: func(context.Context, time.Duration) error { return nil }})
	// One text_delta per chunk: the recorded frames are the stream's pieces, whatever the
	// store's pace.
	return fakeTimeServer(t, Config{Store: store.NewMemory(), Model: model, OnPanic: failOnPanic(t), TextDeltaPerChunk: true})
}

// record plays the scenario with a page that behaves as jsclient's AgentClient and ToolHost
// do, frame for frame, and returns the conversation.
func record(t *testing.T, sc transcriptScenario) []frameLine {
	srv := transcriptServer(t, sc)
	var lines []frameLine
	ph := newIDNames()
	page := connectTranscriptPage(srv)
	nextID := 0
	var sessionID string
	lastSeq := int64(0)
	chatID := 0
	clientTurns := 0
	send := func(frame string) {
		page.send(t, ph.restore(frame))
		lines = append(lines, frameLine{"page", frame})
	}
	// settle lets the agent run, then answers its requests as the JS page does, until quiet.
	settle := func() {
		for {
			got := page.quiet()
			if len(got) == 0 {
				return
			}
			var answers []string
			for _, raw := range got {
				f := ph.normalise(raw)
				lines = append(lines, frameLine{"agent", f})
				var m struct {
					ID     json.RawMessage `json:"id"`
					Method string          `json:"method"`
					Params json.RawMessage `json:"params"`
					Result json.RawMessage `json:"result"`
				}
				if err := json.Unmarshal([]byte(raw), &m); err != nil {
					t.Fatal(err)
				}
				if m.Method == wire.MethodAgentEvent {
					var h wire.EventHeader
					_ = json.Unmarshal(m.Params, &h)
					lastSeq = max(lastSeq, h.Seq)
				}
				if m.Method == "" && m.ID != nil && string(m.ID) == "1" && sessionID == "" {
					var r wire.SessionResult
					_ = json.Unmarshal(m.Result, &r)
					sessionID = ph.toName[r.SessionID]
				}
				if m.ID == nil || m.Method == "" {
					continue
				}
				id := string(m.ID)
				switch m.Method {
				case wire.MethodInitialize:
					answers = append(answers, `{"jsonrpc":"2.0","id":`+id+`,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"byomcp-page","version":"0.1.0"}}}`)
				case wire.MethodPing:
					answers = append(answers, `{"jsonrpc":"2.0","id":`+id+`,"result":{}}`)
				case wire.MethodToolsList:
					var b strings.Builder
					for i, tl := range sc.tools {
						if i > 0 {
							b.WriteString(",")
						}
						fmt.Fprintf(&b, `{"name":%q,"description":%q,"inputSchema":%s}`, tl.Name, tl.Description, tl.InputSchema)
					}
					answers = append(answers, `{"jsonrpc":"2.0","id":`+id+`,"result":{"tools":[`+b.String()+`]}}`)
				case wire.MethodToolsCall:
					var cp wire.ToolsCallParams
					_ = json.Unmarshal(m.Params, &cp)
					for _, tl := range sc.tools {
						if tl.Name == cp.Name && tl.Result != nil {
							text, _ := json.Marshal(*tl.Result)
							answers = append(answers, `{"jsonrpc":"2.0","id":`+id+`,"result":{"content":[{"type":"text","text":`+string(text)+`}]}}`)
						}
					}
				default:
					t.Fatalf("the page got a request it does not know: %s", raw)
				}
			}
			for _, a := range answers {
				send(a)
			}
		}
	}
	for _, step := range sc.script {
		switch {
		case step == "session":
			nextID++
			params := `{"page":{"url":"https://shop.example/cars","title":"Cars"}}`
			if sessionID != "" {
				params = fmt.Sprintf(`{"sessionId":%q,"lastSeq":%d,"page":{"url":"https://shop.example/cars","title":"Cars"}}`, sessionID, lastSeq)
			}
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"agent/session","params":%s}`, nextID, params))
		case strings.HasPrefix(step, "chat:"):
			nextID++
			chatID = nextID
			clientTurns++
			text, _ := json.Marshal(strings.TrimPrefix(step, "chat:"))
			send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"agent/chat","params":{"text":%s,"clientTurnId":"<clientTurnId%d>"}}`, nextID, text, clientTurns))
		case step == "stop":
			send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d,"reason":"stopped by the visitor"}}`, chatID))
		case step == "drop":
			_ = page.mc.Close()
			synctest.Wait()
			lines = append(lines, frameLine{from: "drop"})
			page = connectTranscriptPage(srv)
			nextID = 0
			continue
		default:
			t.Fatalf("unknown step %q", step)
		}
		settle()
	}
	_ = page.mc.Close()
	return lines
}

// replay sends the transcript's page frames to the agent and checks what it answers.
func replay(t *testing.T, sc transcriptScenario, frames []frameLine) {
	srv := transcriptServer(t, sc)
	ph := newIDNames()
	page := connectTranscriptPage(srv)
	ids := map[string]string{}
	for i := 0; i < len(frames); {
		switch frames[i].from {
		case "drop":
			_ = page.mc.Close()
			synctest.Wait()
			page = connectTranscriptPage(srv)
			ids = map[string]string{}
			i++
			continue
		case "agent":
			t.Fatalf("frame %d: the agent speaks first, but it waits for the page", i+1)
		}
		for ; i < len(frames) && frames[i].from == "page"; i++ {
			f := ph.restore(frames[i].json)
			if m := responseIDRE.FindStringSubmatch(f); m != nil {
				real, ok := ids[m[1]]
				if !ok {
					t.Fatalf("frame %d answers request %s, which the agent did not send", i+1, m[1])
				}
				f = strings.Replace(f, `"id":`+m[1]+`,`, `"id":`+real+`,`, 1)
			}
			page.send(t, f)
		}
		var want []string
		for ; i < len(frames) && frames[i].from == "agent"; i++ {
			want = append(want, frames[i].json)
		}
		var got []string
		for _, g := range page.quiet() {
			got = append(got, ph.normalise(g))
		}
		blockIDs, err := matchBlock(want, got)
		if err != nil {
			t.Fatalf("before frame %d: %v", i+1, err)
		}
		for k, v := range blockIDs {
			ids[k] = v
		}
	}
	if extra := page.quiet(); len(extra) > 0 {
		t.Fatalf("the agent sent more than the transcript says: %q", extra)
	}
	_ = page.mc.Close()
}

// protocolSchema is a compiler holding docs/protocol.schema.json, and the schema's id.
func protocolSchema(t *testing.T) (*jsonschema.Compiler, string) {
	t.Helper()
	doc, err := os.ReadFile("../docs/protocol.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	const id = "https://github.com/byomcp/byomcp/blob/main/docs/protocol.schema.json"
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(id, v); err != nil {
		t.Fatal(err)
	}
	return c, id
}

// validateTranscript checks every frame against docs/protocol.schema.json, and each response
// against the <Method>Response of the request it answers.
func validateTranscript(t *testing.T, frames []frameLine) {
	t.Helper()
	c, id := protocolSchema(t)
	top, err := c.Compile(id)
	if err != nil {
		t.Fatal(err)
	}
	defName := map[string]string{
		wire.MethodInitialize: "Initialize", wire.MethodToolsList: "ToolsList", wire.MethodToolsCall: "ToolsCall",
		wire.MethodAgentSession: "AgentSession", wire.MethodAgentChat: "AgentChat", wire.MethodAgentCancel: "AgentCancel", wire.MethodPing: "Ping",
	}
	// pending[sender][id] is the method of a request not answered yet.
	pending := map[string]map[string]string{"page": {}, "agent": {}}
	other := map[string]string{"page": "agent", "agent": "page"}
	for i, f := range frames {
		if f.from == "drop" {
			pending = map[string]map[string]string{"page": {}, "agent": {}}
			continue
		}
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(f.json))
		if err != nil {
			t.Fatal(err)
		}
		if err := top.Validate(inst); err != nil {
			t.Errorf("frame %d (%s) does not fit the protocol schema: %v\n%s", i+1, f.from, err, f.json)
			continue
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Error  json.RawMessage `json:"error"`
		}
		_ = json.Unmarshal([]byte(f.json), &m)
		switch {
		case m.Method != "" && m.ID != nil:
			pending[f.from][string(m.ID)] = m.Method
		case m.Method == "" && m.Error == nil:
			method, ok := pending[other[f.from]][string(m.ID)]
			if !ok {
				t.Errorf("frame %d answers request %s, which was not sent", i+1, m.ID)
				continue
			}
			delete(pending[other[f.from]], string(m.ID))
			s, err := c.Compile(id + "#/$defs/" + defName[method] + "Response")
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(inst); err != nil {
				t.Errorf("frame %d does not fit %sResponse: %v\n%s", i+1, defName[method], err, f.json)
			}
		}
	}
}

// TestTranscripts replays each golden transcript against the agent and validates its frames
// against the protocol schema (-update records them first).
func TestTranscripts(t *testing.T) {
	for _, sc := range transcriptScenarios {
		t.Run(sc.name, func(t *testing.T) {
			path := filepath.Join(transcriptDir, sc.name+".txtar")
			if *updateTranscripts {
				var lines []frameLine
				synctest.Test(t, func(t *testing.T) { lines = record(t, sc) })
				tr := &transcript{about: sc.about, tools: sc.tools, frames: lines}
				if err := os.MkdirAll(transcriptDir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, tr.format(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run the test with -update)", err)
			}
			tr, err := parseTranscript(data)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			validateTranscript(t, tr.frames)
			synctest.Test(t, func(t *testing.T) { replay(t, sc, tr.frames) })
		})
	}
}

// TestTranscriptMatching: a block of the agent's frames matches in any order, with its request
// ids mapped, and a changed value, a missing frame or swapped seq numbers do not match.
func TestTranscriptMatching(t *testing.T) {
	want := []string{
		`{"jsonrpc":"2.0","method":"agent/event","params":{"seq":3,"type":"tool_call","callId":"a"}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":"byomcp-1"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"b","_meta":{"progressToken":"byomcp-2"}}}`,
	}
	swapped := []string{
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"b","_meta":{"progressToken":"byomcp-1"}}}`,
		`{"jsonrpc":"2.0","method":"agent/event","params":{"seq":3,"type":"tool_call","callId":"a"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"a","_meta":{"progressToken":"byomcp-2"}}}`,
	}
	ids, err := matchBlock(want, swapped)
	if err != nil {
		t.Fatal(err)
	}
	if ids["4"] != "5" || ids["5"] != "4" {
		t.Errorf("ids %v, want 4→5, 5→4", ids)
	}
	for name, got := range map[string][]string{
		"changed": {swapped[0], strings.Replace(swapped[1], `"a"`, `"c"`, 1), swapped[2]},
		"missing": swapped[:2],
		"seq":     {swapped[0], strings.Replace(swapped[1], `"seq":3`, `"seq":6`, 1), swapped[2]},
	} {
		if _, err := matchBlock(want, got); err == nil {
			t.Errorf("%s: matched", name)
		}
	}
	ph := newIDNames()
	n := ph.normalise(`{"sessionId":"s-9","turnId":"t-1","time":1767225600123,"x":{"turnId":"t-2","sessionId":"s-9"}}`)
	if want := `{"sessionId":"<sessionId1>","turnId":"<turnId1>","time":946684800000,"x":{"turnId":"<turnId2>","sessionId":"<sessionId1>"}}`; n != want {
		t.Errorf("normalise: got %s, want %s", n, want)
	}
	if got := ph.restore(`{"sessionId":"<sessionId1>","turnId":"<turnId2>"}`); got != `{"sessionId":"s-9","turnId":"t-2"}` {
		t.Errorf("restore: got %s", got)
	}
}
