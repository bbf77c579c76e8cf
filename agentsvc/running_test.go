package agentsvc

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// A page loaded in the middle of a turn (a tool navigated) asks for its session without
// lastSeq: the result carries the running turn, from its turn_start (with the page's client
// turn id) to the result's seq, text deltas merged; what follows comes as live events after
// that seq, none twice. Short turns are served from the in-memory tail, long ones from the store.
func TestSessionResultCarriesRunningTurn(t *testing.T) {
	for _, tc := range []struct {
		name  string
		words int
	}{
		{"from the tail", 6},
		{"from the store", 3 * tailMax},
	} {
		t.Run(tc.name, func(t *testing.T) {
			intro := strings.Repeat("word ", tc.words) + "opening."
			model := &scriptModel{reply: func(n int, req llm.Request) (*llm.Response, error) {
				switch n {
				case 0:
					return &llm.Response{Text: intro, ToolCalls: []chat.ToolCall{call("n1", "open_configurator", `{}`)}}, nil
				default:
					return &llm.Response{Text: "Your car is red."}, nil
				}
			}}
			ts := newTestServer(t, model, nil)
			goTool := pageTestTool{
				tool: wire.PageTool{Name: "open_configurator", InputSchema: json.RawMessage(`{"type":"object"}`)},
				fn: func(context.Context, map[string]any) (any, error) {
					return map[string]any{
						"content": []any{map[string]any{"type": "text", "text": "navigating"}},
						"_meta":   map[string]any{wire.MetaNavigating: true},
					}, nil
				},
			}
			a := newFakePage(t, ts, testOrigin, goTool)
			sess := a.session(wire.SessionParams{})
			go func() {
				var res wire.ChatResult
				_ = a.peer.Call(context.Background(), wire.MethodAgentChat, wire.ChatParams{Text: "open the configurator", ClientTurnID: "c-42"}, &res)
			}()
			a.eventsUntil(wire.EventToolResult)
			a.peer.Close(nil) // the page navigates once its tool's result is in

			b := newFakePage(t, ts, testOrigin, echoTool())
			res := b.session(wire.SessionParams{SessionID: sess.SessionID})
			if !res.Resumed || res.Running == nil {
				t.Fatalf("got %+v, want the session resumed with its running turn", res)
			}
			if res.Running.ClientTurnID != "c-42" || !strings.HasPrefix(res.Running.TurnID, "t-") {
				t.Errorf("got running turn %q client id %q, want t-… and c-42", res.Running.TurnID, res.Running.ClientTurnID)
			}
			for _, m := range res.Messages {
				if m.TurnID == res.Running.TurnID && m.Role != chat.RoleUser {
					t.Errorf("got message %+v of the running turn, want only its question stored", m)
				}
			}
			var snap []event
			for _, raw := range res.Running.Events {
				var e event
				if err := json.Unmarshal(raw, &e); err != nil {
					t.Fatalf("snapshot event %s: %v", raw, err)
				}
				if e.TurnID != res.Running.TurnID || e.Seq <= 0 || e.Seq > res.Seq {
					t.Errorf("got snapshot event %s, want one of the turn with 0 < seq <= %d", raw, res.Seq)
				}
				snap = append(snap, e)
			}
			got := make([]string, len(snap))
			for i, e := range snap {
				got[i] = e.Type
			}
			want := []string{wire.EventTurnStart, wire.EventTextDelta, wire.EventToolCall, wire.EventToolResult}
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("got snapshot %v, want %v (one merged text_delta)", got, want)
			}
			var start struct {
				Text         string `json:"text"`
				ClientTurnID string `json:"clientTurnId"`
			}
			_ = json.Unmarshal(res.Running.Events[0], &start)
			if start.Text != "open the configurator" || start.ClientTurnID != "c-42" {
				t.Errorf("got turn_start %s, want the question and clientTurnId c-42", res.Running.Events[0])
			}
			if snap[1].Delta != intro {
				t.Errorf("got merged text %q, want %q", snap[1].Delta, intro)
			}
			for i := 1; i < len(snap); i++ {
				if snap[i].Seq <= snap[i-1].Seq {
					t.Errorf("snapshot seqs not increasing: %d then %d", snap[i-1].Seq, snap[i].Seq)
				}
			}
			live := b.eventsUntil(wire.EventTurnEnd)
			for _, e := range live {
				if e.Seq <= res.Seq {
					t.Errorf("got live event %s seq %d, want only events after the result's seq %d", e.Type, e.Seq, res.Seq)
				}
			}
			if end := live[len(live)-1]; end.StopReason != wire.StopEnd || !strings.HasSuffix(end.Text, "Your car is red.") {
				t.Errorf("got turn_end %+v, want the turn finished on the new page", end)
			}
		})
	}
}

// The page's client turn id comes back in turn_start; none is no clientTurnId; a long one is
// refused.
func TestChatEchoesClientTurnID(t *testing.T) {
	model := &scriptModel{reply: func(int, llm.Request) (*llm.Response, error) { return &llm.Response{Text: "ok"}, nil }}
	ts := newTestServer(t, model, nil)
	p := newFakePage(t, ts, testOrigin)
	p.session(wire.SessionParams{})
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	for _, id := range []string{"c-1", ""} {
		var res wire.ChatResult
		if err := p.peer.Call(ctx, wire.MethodAgentChat, wire.ChatParams{Text: "hi", ClientTurnID: id}, &res); err != nil {
			t.Fatal(err)
		}
		// The first event is the turn's turn_start, as sent.
		var raw json.RawMessage
		select {
		case raw = <-p.events:
		case <-time.After(waitLimit):
			t.Fatal("no event arrived")
		}
		var start struct {
			Type         string  `json:"type"`
			ClientTurnID *string `json:"clientTurnId"`
		}
		if err := json.Unmarshal(raw, &start); err != nil || start.Type != wire.EventTurnStart {
			t.Fatalf("got first event %s (%v), want turn_start", raw, err)
		}
		if got := start.ClientTurnID; (id == "" && got != nil) || (id != "" && (got == nil || *got != id)) {
			t.Errorf("got turn_start %s, want clientTurnId %q", raw, id)
		}
		p.eventsUntil(wire.EventTurnEnd)
	}
	var res wire.ChatResult
	err := p.peer.Call(ctx, wire.MethodAgentChat, wire.ChatParams{Text: "hi", ClientTurnID: strings.Repeat("x", wire.MaxClientTurnID+1)}, &res)
	var rpcErr *wsrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != wsrpc.CodeInvalidParams {
		t.Errorf("got %v, want invalid params for a clientTurnId over %d bytes", err, wire.MaxClientTurnID)
	}
}
