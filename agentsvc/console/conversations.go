package console

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// Summary is one conversation in the list.
type Summary struct {
	ID        string     `json:"id"`
	Origin    string     `json:"origin"`
	Site      string     `json:"site"`
	Page      store.Page `json:"page"`
	CreatedAt time.Time  `json:"createdAt"`
	UpdatedAt time.Time  `json:"updatedAt"`
	Turns     int        `json:"turns"`
	First     string     `json:"first"`    // the visitor's first message
	Outcomes  []string   `json:"outcomes"` // of its turns: end, error, cancelled, max_iterations, budget, interrupted (each once)
	Tokens    int64      `json:"tokens"`
	Active    bool       `json:"active"` // a turn is running (or was cut by a crash)
}

// Transcript is one conversation in full.
type Transcript struct {
	Summary
	TurnList []Turn `json:"turnList"`
}

// Turn is one turn of a transcript.
type Turn struct {
	ID         string      `json:"id"`
	Text       string      `json:"text"` // the visitor's message
	Start      time.Time   `json:"start,omitzero"`
	End        time.Time   `json:"end,omitzero"`
	Answer     string      `json:"answer"`
	StopReason string      `json:"stopReason"`
	Usage      *chat.Usage `json:"usage,omitempty"`
	Calls      []Call      `json:"calls"`
	Errors     []string    `json:"errors"`
	// Interrupted is set on a turn a crash, a replica's death or a store failure cut short
	// (its turn_end says so): its calls are those that ran before, with their results, and
	// a call whose result never came is answered as of unknown outcome.
	Interrupted bool `json:"interrupted,omitempty"`
}

// Call is one tool call of a turn.
type Call struct {
	ID         string          `json:"id"`
	Name       string          `json:"name"`
	Arguments  json.RawMessage `json:"arguments"`
	Result     string          `json:"result"`
	IsError    bool            `json:"isError"`
	DurationMs *int64          `json:"durationMs,omitempty"`
	Outcome    string          `json:"outcome"` // ok, error, no result
	// Confirmation is how the visitor answered, when the call asked for their confirmation.
	Confirmation *wire.Confirmation `json:"confirmation,omitempty"`
	// Asked are the server's questions to the visitor during the call and how each ended.
	Asked []wire.Asked `json:"asked,omitempty"`
	// App is the MCP App the result was shown with (apps.go), without its document.
	App *CallApp `json:"app,omitempty"`
}

// event is what the console reads of a stored agent/event.
type event struct {
	Seq         int64           `json:"seq"`
	Type        string          `json:"type"`
	TurnID      string          `json:"turnId"`
	Time        int64           `json:"time"`
	Text        string          `json:"text"`
	CallID      string          `json:"callId"`
	Name        string          `json:"name"`
	Arguments   json.RawMessage `json:"arguments"`
	IsError     bool            `json:"isError"`
	StopReason  string          `json:"stopReason"`
	Interrupted bool            `json:"interrupted"`
	Message     string          `json:"message"`
	Usage       *chat.Usage     `json:"usage"`
	// Confirmation is a tool_result's: how the visitor answered the call.
	Confirmation *wire.Confirmation `json:"confirmation"`
	// Asked is a tool_result's: the server's questions to the visitor.
	Asked []wire.Asked `json:"asked"`
	App   *eventApp    `json:"app"`
}

func msTime(ms int64) time.Time {
	if ms == 0 {
		return time.Time{}
	}
	return time.UnixMilli(ms).UTC()
}

// budgetMessage marks an error event of a turn stopped by a site's token budget
// (sites.BudgetError's messages).
func budgetMessage(m string) bool { return strings.Contains(m, "reached its usage limit") }

// build reads a session's events into its turns.
func build(s *store.Session, site string, events []store.Event) Transcript {
	t := Transcript{Summary: Summary{ID: s.ID, Origin: s.Origin, Site: site, Page: s.Page, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, Active: s.ActiveTurn != ""}, TurnList: []Turn{}}
	byTurn := map[string]int{}
	turn := func(id string) *Turn {
		i, ok := byTurn[id]
		if !ok {
			i = len(t.TurnList)
			byTurn[id] = i
			t.TurnList = append(t.TurnList, Turn{ID: id, Calls: []Call{}, Errors: []string{}})
		}
		return &t.TurnList[i]
	}
	seen := map[string]bool{}
	outcome := func(o string) {
		if !seen[o] {
			seen[o] = true
			t.Outcomes = append(t.Outcomes, o)
		}
	}
	started := map[string]int64{}
	for _, e := range events {
		var ev event
		if json.Unmarshal(e.Data, &ev) != nil || ev.TurnID == "" {
			continue
		}
		tr := turn(ev.TurnID)
		switch ev.Type {
		case "turn_start":
			tr.Text, tr.Start = ev.Text, msTime(ev.Time)
		case "tool_call":
			started[ev.CallID] = ev.Time
			tr.Calls = append(tr.Calls, Call{ID: ev.CallID, Name: ev.Name, Arguments: ev.Arguments, Outcome: "no result"})
		case "tool_result":
			for i := range tr.Calls {
				c := &tr.Calls[i]
				if c.ID != ev.CallID {
					continue
				}
				c.Result, c.IsError, c.Outcome, c.Confirmation, c.Asked, c.App = ev.Text, ev.IsError, "ok", ev.Confirmation, ev.Asked, callApp(ev.App)
				if ev.IsError {
					c.Outcome = "error"
				}
				if st := started[ev.CallID]; st != 0 && ev.Time != 0 {
					d := ev.Time - st
					c.DurationMs = &d
				}
			}
		case "error":
			tr.Errors = append(tr.Errors, ev.Message)
			if budgetMessage(ev.Message) {
				outcome("budget")
			}
		case "turn_end":
			tr.Answer, tr.StopReason, tr.End, tr.Usage = ev.Text, ev.StopReason, msTime(ev.Time), ev.Usage
			outcome(ev.StopReason)
			if ev.Interrupted {
				outcome("interrupted")
				tr.Interrupted = true
			}
			// A turn that ended on an error says it twice in the log: its error event, then
			// its turn_end's text (what agent/chat answered). The transcript shows it once.
			if ev.StopReason == "error" && slices.Contains(tr.Errors, ev.Text) {
				tr.Answer = ""
			}
			if ev.Usage != nil {
				t.Tokens += ev.Usage.TotalTokens
			}
		}
	}
	t.Turns = len(t.TurnList)
	if t.Turns > 0 {
		t.First = t.TurnList[0].Text
	}
	if t.Outcomes == nil {
		t.Outcomes = []string{}
	}
	return t
}

// matches reports whether a conversation holds q (case-insensitive): in a message, a tool
// name or arguments, a tool result, an error, its page or its origin.
func matches(t Transcript, q string) bool {
	q = strings.ToLower(q)
	has := func(s string) bool { return strings.Contains(strings.ToLower(s), q) }
	if has(t.ID) || has(t.Origin) || has(t.Site) || has(t.Page.URL) || has(t.Page.Title) {
		return true
	}
	for _, tr := range t.TurnList {
		if has(tr.Text) || has(tr.Answer) {
			return true
		}
		for _, c := range tr.Calls {
			if has(c.Name) || has(string(c.Arguments)) || has(c.Result) {
				return true
			}
		}
		for _, e := range tr.Errors {
			if has(e) {
				return true
			}
		}
	}
	return false
}

// listBudget bounds how long one list or search request reads the store; what it did not
// reach comes with the next request (the X-Byomcp-Next cursor).
const listBudget = 3 * time.Second

// nextHeader carries the cursor of the next page of a list: absent when the whole store was
// read.
const nextHeader = "X-Byomcp-Next"

func (h *Handler) load(ctx context.Context, s *store.Session) (Transcript, error) {
	evs, err := h.o.Store.EventsAfter(ctx, s.ID, 0, 0)
	if err != nil {
		return Transcript{}, err
	}
	return build(s, h.o.SiteOf(s.Origin), evs), nil
}

// list serves GET /console/api/conversations?q=&site=&outcome=&limit=&after=: the most
// recent conversations first, from the store (every replica's, with a shared store). The
// search reaches every stored conversation (store.Search): a page ends when it holds limit
// conversations or after listBudget, and the X-Byomcp-Next header then gives the after= of
// the next page.
func (h *Handler) list(w http.ResponseWriter, r *http.Request) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	site := r.URL.Query().Get("site")
	want := r.URL.Query().Get("outcome")
	after := r.URL.Query().Get("after")
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	if limit <= 0 || limit > 200 {
		limit = 50
	}
	deadline := h.o.Now().Add(listBudget)
	out := []Summary{}
	next := after
	for {
		page, err := store.Search(r.Context(), h.o.Store, store.SearchOptions{Query: q, After: next, Limit: limit})
		if errors.Is(err, store.ErrBadCursor) {
			writeError(w, http.StatusBadRequest, "bad after= cursor")
			return
		}
		if err != nil {
			h.log.Error("console: searching the sessions", zap.Error(err))
			writeError(w, http.StatusServiceUnavailable, "the session store did not answer")
			return
		}
		next = page.Next
		for i, s := range page.Sessions {
			if len(out) == limit || (i > 0 && h.o.Now().After(deadline)) {
				next = store.SearchCursor(page.Sessions[i-1])
				break
			}
			if site != "" && h.o.SiteOf(s.Origin) != site {
				continue
			}
			t, err := h.load(r.Context(), s)
			if errors.Is(err, store.ErrNotFound) {
				continue // deleted meanwhile
			}
			if err != nil {
				writeError(w, http.StatusServiceUnavailable, "the session store did not answer")
				return
			}
			if q != "" && !matches(t, q) {
				continue
			}
			if want != "" && !contains(t.Outcomes, want) {
				continue
			}
			out = append(out, t.Summary)
		}
		if next == "" || len(out) == limit || h.o.Now().After(deadline) {
			break
		}
	}
	if next != "" {
		w.Header().Set(nextHeader, next)
	}
	writeJSON(w, out)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (h *Handler) transcriptOf(w http.ResponseWriter, r *http.Request) (*store.Session, []store.Event, bool) {
	s, err := h.o.Store.Load(r.Context(), r.PathValue("id"))
	if errors.Is(err, store.ErrNotFound) {
		writeError(w, http.StatusNotFound, "no such conversation")
		return nil, nil, false
	}
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "the session store did not answer")
		return nil, nil, false
	}
	evs, err := h.o.Store.EventsAfter(r.Context(), s.ID, 0, 0)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "the session store did not answer")
		return nil, nil, false
	}
	return s, evs, true
}

func (h *Handler) transcript(w http.ResponseWriter, r *http.Request) {
	s, evs, ok := h.transcriptOf(w, r)
	if !ok {
		return
	}
	writeJSON(w, build(s, h.o.SiteOf(s.Origin), evs))
}

// Export is a conversation as GET …/export gives it: the transcript, the model-facing
// messages and the raw event log.
type Export struct {
	Transcript
	Messages []chat.Message   `json:"messages"`
	Events   []map[string]any `json:"events"`
}

func (h *Handler) export(w http.ResponseWriter, r *http.Request) {
	s, evs, ok := h.transcriptOf(w, r)
	if !ok {
		return
	}
	x := Export{Transcript: build(s, h.o.SiteOf(s.Origin), evs), Messages: s.Messages, Events: []map[string]any{}}
	for _, e := range evs {
		var m map[string]any
		if json.Unmarshal(e.Data, &m) == nil {
			x.Events = append(x.Events, m)
		}
	}
	w.Header().Set("Content-Disposition", `attachment; filename="conversation-`+s.ID+`.json"`)
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(x)
}

func (h *Handler) delete(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, err := h.o.Store.Load(r.Context(), id); errors.Is(err, store.ErrNotFound) {
		writeError(w, http.StatusNotFound, "no such conversation")
		return
	}
	// Forgotten first: its running turn is cancelled and ends (stored and answered as
	// cancelled) before the store drops it, instead of failing on a session the store no
	// longer has. Forgotten again after: a tab that reconnected in between may have loaded it.
	if h.o.Forget != nil {
		h.o.Forget(id)
	}
	if err := h.o.Store.Delete(r.Context(), id); err != nil {
		writeError(w, http.StatusServiceUnavailable, "the session store did not answer")
		return
	}
	if h.o.Forget != nil {
		h.o.Forget(id)
	}
	h.log.Info("console: deleted a conversation")
	writeJSON(w, map[string]string{"deleted": id})
}
