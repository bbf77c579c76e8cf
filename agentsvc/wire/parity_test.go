package wire

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The browser's copy of the protocol table is jsclient/protocol.js. The naming rule between the
// two sides: a Go constant is its JS object's name plus the JS key, e.g. MethodAgentChat is
// Method.AgentChat, EventTurnEnd is EventType.TurnEnd, StopEnd is StopReason.End, CodeNoTurn is
// ErrorCode.NoTurn, MetaConfirm is Meta.Confirm, CloseResume is CloseCode.Resume.
// ProtocolVersion and SupportedVersions are PROTOCOL_VERSION and SUPPORTED_PROTOCOL_VERSIONS.

const protocolJS = "../../jsclient/protocol.js"

// jsObjects maps each Go constant prefix to the frozen object of protocol.js that holds it.
var jsObjects = map[string]string{
	"Method": "Method",
	"Event":  "EventType",
	"Stop":   "StopReason",
	"Code":   "ErrorCode",
	"Meta":   "Meta",
	"Close":  "CloseCode",
}

// goTable is every protocol constant of this package by its Go name, as the values the agent
// puts on the wire. TestGoTableIsComplete keeps it equal to the constants declared in the
// package's source, so a constant added there and not here fails a test.
var goTable = map[string]any{
	"MethodInitialize":       MethodInitialize,
	"MethodInitialized":      MethodInitialized,
	"MethodToolsList":        MethodToolsList,
	"MethodToolsCall":        MethodToolsCall,
	"MethodAgentEvent":       MethodAgentEvent,
	"MethodAgentConfirm":     MethodAgentConfirm,
	"MethodAgentElicit":      MethodAgentElicit,
	"MethodAgentSession":     MethodAgentSession,
	"MethodAgentChat":        MethodAgentChat,
	"MethodAgentCancel":      MethodAgentCancel,
	"MethodAgentAppCall":     MethodAgentAppCall,
	"MethodProgress":         MethodProgress,
	"MethodToolsListChanged": MethodToolsListChanged,
	"MethodCancelled":        MethodCancelled,
	"MethodPing":             MethodPing,

	"EventTurnStart":    EventTurnStart,
	"EventTextDelta":    EventTextDelta,
	"EventToolCall":     EventToolCall,
	"EventToolResult":   EventToolResult,
	"EventTurnEnd":      EventTurnEnd,
	"EventError":        EventError,
	"EventToolRejected": EventToolRejected,

	"StopEnd":           StopEnd,
	"StopMaxIterations": StopMaxIterations,
	"StopCancelled":     StopCancelled,
	"StopError":         StopError,

	"CodeParseError":      CodeParseError,
	"CodeInvalidRequest":  CodeInvalidRequest,
	"CodeMethodNotFound":  CodeMethodNotFound,
	"CodeInvalidParams":   CodeInvalidParams,
	"CodeInternalError":   CodeInternalError,
	"CodeHandlersBusy":    CodeHandlersBusy,
	"CodeRateLimited":     CodeRateLimited,
	"CodeTurnInProgress":  CodeTurnInProgress,
	"CodeSessionNotFound": CodeSessionNotFound,
	"CodeTextTooLong":     CodeTextTooLong,
	"CodeNoSession":       CodeNoSession,
	"CodeNoTurn":          CodeNoTurn,
	"CodeStoreDown":       CodeStoreDown,
	"CodeBusy":            CodeBusy,
	"CodeTooManySessions": CodeTooManySessions,
	"CodeCancelledEarly":  CodeCancelledEarly,
	"CodeOverBudget":      CodeOverBudget,

	"MetaProgressToken": MetaProgressToken,
	"MetaConfirm":       MetaConfirm,
	"MetaSummary":       MetaSummary,
	"MetaNavigating":    MetaNavigating,

	"CloseResume": CloseResume,
}

// jsTable is protocol.js's frozen objects: object name → key → value (a string, or an int64
// for a number).
type jsTable map[string]map[string]any

var (
	jsObjectRE = regexp.MustCompile(`(?s)export const (\w+) = Object\.freeze\(\{(.*?)\}\);`)
	jsEntryRE  = regexp.MustCompile(`^(\w+):\s*(?:'([^'\\]*)'|(-?\d+)),?$`)
	jsConstRE  = regexp.MustCompile(`export const (\w+) = '([^'\\]*)';`)
	jsListRE   = regexp.MustCompile(`export const (\w+) = Object\.freeze\(\[([^\]]*)\]\);`)
)

// parseProtocolJS reads the frozen objects of protocol.js (`Name: 'value',` or `Name: -32001,`
// one a line; comment lines skipped), its string constants and its frozen string lists. A line
// it cannot read is an error, so a new shape of entry is noticed instead of skipped.
func parseProtocolJS(src string) (jsTable, map[string]string, map[string][]string, error) {
	objs := jsTable{}
	for _, m := range jsObjectRE.FindAllStringSubmatch(src, -1) {
		entries := map[string]any{}
		for line := range strings.SplitSeq(m[2], "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "//") || strings.HasPrefix(line, "/*") || strings.HasPrefix(line, "*") {
				continue
			}
			e := jsEntryRE.FindStringSubmatch(line)
			if e == nil {
				return nil, nil, nil, fmt.Errorf("%s: cannot read the entry %q", m[1], line)
			}
			if _, dup := entries[e[1]]; dup {
				return nil, nil, nil, fmt.Errorf("%s.%s is defined twice", m[1], e[1])
			}
			if e[3] != "" {
				n, err := strconv.ParseInt(e[3], 10, 64)
				if err != nil {
					return nil, nil, nil, err
				}
				entries[e[1]] = n
			} else {
				entries[e[1]] = e[2]
			}
		}
		objs[m[1]] = entries
	}
	consts := map[string]string{}
	for _, m := range jsConstRE.FindAllStringSubmatch(src, -1) {
		consts[m[1]] = m[2]
	}
	lists := map[string][]string{}
	for _, m := range jsListRE.FindAllStringSubmatch(src, -1) {
		var l []string
		for item := range strings.SplitSeq(m[2], ",") {
			item = strings.TrimSpace(item)
			if item == "" {
				continue
			}
			s, okStart := strings.CutPrefix(item, "'")
			s, okEnd := strings.CutSuffix(s, "'")
			if !okStart || !okEnd {
				return nil, nil, nil, fmt.Errorf("%s: cannot read the item %q", m[1], item)
			}
			l = append(l, s)
		}
		lists[m[1]] = l
	}
	return objs, consts, lists, nil
}

// jsName is the JS object and key of a Go constant, by the naming rule.
func jsName(goName string) (obj, key string, ok bool) {
	for prefix, o := range jsObjects {
		if k, found := strings.CutPrefix(goName, prefix); found && k != "" {
			return o, k, true
		}
	}
	return "", "", false
}

// compareTables lists every difference between the Go constants and protocol.js's objects,
// both ways, sorted.
func compareTables(goT map[string]any, js jsTable) []string {
	var diffs []string
	seen := map[string]bool{}
	for goName, v := range goT {
		obj, key, ok := jsName(goName)
		if !ok {
			diffs = append(diffs, fmt.Sprintf("Go %s: no JS object for its prefix", goName))
			continue
		}
		seen[obj+"."+key] = true
		want := v
		if n, isInt := v.(int); isInt { // an untyped constant; wsrpc's codes are int64
			want = int64(n)
		}
		got, ok := js[obj][key]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("Go %s = %v: %s.%s missing in protocol.js", goName, want, obj, key))
		case got != want:
			diffs = append(diffs, fmt.Sprintf("%s.%s = %v in protocol.js, Go %s = %v", obj, key, got, goName, want))
		}
	}
	for _, obj := range jsObjects {
		for key, v := range js[obj] {
			if !seen[obj+"."+key] {
				diffs = append(diffs, fmt.Sprintf("%s.%s = %v in protocol.js: no Go constant", obj, key, v))
			}
		}
	}
	slices.Sort(diffs)
	return diffs
}

func readProtocolJS(t *testing.T) (jsTable, map[string]string, map[string][]string) {
	t.Helper()
	src, err := os.ReadFile(protocolJS)
	if err != nil {
		t.Fatal(err)
	}
	objs, consts, lists, err := parseProtocolJS(string(src))
	if err != nil {
		t.Fatalf("protocol.js: %v", err)
	}
	for _, obj := range jsObjects {
		if len(objs[obj]) == 0 {
			t.Fatalf("protocol.js: no entries read for %s", obj)
		}
	}
	return objs, consts, lists
}

// TestProtocolJSMatchesGo: every Go method, event type, stop reason, error code and _meta key
// is in protocol.js with the same value, and protocol.js has nothing Go does not.
func TestProtocolJSMatchesGo(t *testing.T) {
	js, consts, lists := readProtocolJS(t)
	for _, d := range compareTables(goTable, js) {
		t.Error(d)
	}
	if got := consts["PROTOCOL_VERSION"]; got != ProtocolVersion {
		t.Errorf("PROTOCOL_VERSION = %q in protocol.js, Go ProtocolVersion = %q", got, ProtocolVersion)
	}
	if got := lists["SUPPORTED_PROTOCOL_VERSIONS"]; !slices.Equal(got, SupportedVersions) {
		t.Errorf("SUPPORTED_PROTOCOL_VERSIONS = %q in protocol.js, Go SupportedVersions = %q", got, SupportedVersions)
	}

	// The comparison notices drift either way: each change of a copy is reported.
	drifts := []struct {
		name   string
		mutate func(goT map[string]any, js jsTable)
		want   string
	}{
		{"JS value changed", func(_ map[string]any, js jsTable) { js["ErrorCode"]["NoTurn"] = int64(-32006) }, "ErrorCode.NoTurn = -32006 in protocol.js, Go CodeNoTurn = -32007"},
		{"JS entry removed", func(_ map[string]any, js jsTable) { delete(js["Method"], "AgentCancel") }, "Go MethodAgentCancel = agent/cancel: Method.AgentCancel missing in protocol.js"},
		{"JS entry added", func(_ map[string]any, js jsTable) { js["ErrorCode"]["OriginMismatch"] = int64(-32003) }, "ErrorCode.OriginMismatch = -32003 in protocol.js: no Go constant"},
		{"Go constant added", func(goT map[string]any, _ jsTable) { goT["EventTurnPaused"] = "turn_paused" }, "Go EventTurnPaused = turn_paused: EventType.TurnPaused missing in protocol.js"},
		{"Go value changed", func(goT map[string]any, _ jsTable) { goT["StopEnd"] = "done" }, "StopReason.End = end in protocol.js, Go StopEnd = done"},
	}
	for _, d := range drifts {
		t.Run(d.name, func(t *testing.T) {
			goT := maps.Clone(goTable)
			jsCopy := jsTable{}
			for k, v := range js {
				jsCopy[k] = maps.Clone(v)
			}
			d.mutate(goT, jsCopy)
			got := compareTables(goT, jsCopy)
			if !slices.Equal(got, []string{d.want}) {
				t.Errorf("got %q, want [%q]", got, d.want)
			}
		})
	}
}

// TestParseProtocolJS: the reader of protocol.js refuses what it cannot read rather than
// skipping it.
func TestParseProtocolJS(t *testing.T) {
	good := "export const ErrorCode = Object.freeze({\n  // comment\n  A: -1,\n  B: 'b',\n});\nexport const V = '1';\nexport const L = Object.freeze(['x', 'y']);\n"
	objs, consts, lists, err := parseProtocolJS(good)
	if err != nil {
		t.Fatal(err)
	}
	if objs["ErrorCode"]["A"] != int64(-1) || objs["ErrorCode"]["B"] != "b" || consts["V"] != "1" || !slices.Equal(lists["L"], []string{"x", "y"}) {
		t.Errorf("got %v %v %v", objs, consts, lists)
	}
	for _, bad := range []string{
		"export const M = Object.freeze({\n  A: B + 1,\n});",
		"export const M = Object.freeze({\n  A: 'a',\n  A: 'b',\n});",
		"export const M = Object.freeze({\n  A: \"double\",\n});",
	} {
		if _, _, _, err := parseProtocolJS(bad); err == nil {
			t.Errorf("parseProtocolJS(%q): no error", bad)
		}
	}
}

// TestGoTableIsComplete: goTable names exactly the constants with a protocol prefix that this
// package declares (read from its source), so the parity test covers every one.
func TestGoTableIsComplete(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				for _, id := range spec.(*ast.ValueSpec).Names {
					if _, _, ok := jsName(id.Name); ok && id.IsExported() {
						declared[id.Name] = true
					}
				}
			}
		}
	}
	for name := range declared {
		if _, ok := goTable[name]; !ok {
			t.Errorf("const %s is declared but not in goTable: add it (and to protocol.js)", name)
		}
	}
	for name := range goTable {
		if !declared[name] {
			t.Errorf("goTable has %s, which the package does not declare as a const", name)
		}
	}
}

// TestToolsCallMetaKeys: the _meta the agent sends with tools/call is keyed by the constants
// the browser's table has (Meta.ProgressToken, Meta.Confirm).
func TestToolsCallMetaKeys(t *testing.T) {
	b, err := json.Marshal(ToolsCallMeta{ProgressToken: "byomcp-1", Confirm: true})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{MetaProgressToken: "byomcp-1", MetaConfirm: true}
	if !maps.Equal(got, want) {
		t.Errorf("ToolsCallMeta encodes as %s, want the keys %q and %q", b, MetaProgressToken, MetaConfirm)
	}
	if b, _ := json.Marshal(ToolsCallMeta{ProgressToken: "byomcp-2"}); string(b) != `{"progressToken":"byomcp-2"}` {
		t.Errorf("a call without confirmation: %s, want no %q", b, MetaConfirm)
	}
}
