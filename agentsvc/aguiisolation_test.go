package agentsvc

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/zap/zaptest"

	"github.com/byomcp/byomcp/agentsvc/agui"
	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// postRun posts one AG-UI run to url from origin and returns its status and body (the
// whole event stream).
func postRun(t *testing.T, url, origin, body string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Origin", origin)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// TestPageSocketCannotOpenAGUIThread: a page socket of the thread's own Origin cannot open an
// AG-UI thread (issue 36, item 5), neither by the id the thread is stored under nor by the
// id the thread had before threads were scoped by origin ("agui-" and the first 40 hex of
// sha256(threadId)): agent/session answers "session not found", the thread is not claimed
// (the next run is not refused with 409), and nothing the page says reaches the thread's
// model. Both sides are the real endpoints: the page socket and POST /v1/agui, on one store.
func TestPageSocketCannotOpenAGUIThread(t *testing.T) {
	model, fake := openAIModel(t, llmtest.Repeat(llmtest.Step{Text: "ok"}))
	ts := newTestServer(t, model, nil)
	ag, err := agui.New(agui.Options{Model: model, Store: ts.store, OriginAllowed: ts.OriginAllowed, Logger: zaptest.NewLogger(t).Named("agui")})
	if err != nil {
		t.Fatal(err)
	}
	aguiSrv := httptest.NewServer(ag)
	t.Cleanup(aguiSrv.Close)

	run := func(runID, msgID, text string) {
		t.Helper()
		status, body := postRun(t, aguiSrv.URL, testOrigin, `{"threadId":"shared-thread","runId":"`+runID+`","messages":[{"id":"`+msgID+`","role":"user","content":"`+text+`"}]}`)
		if status != http.StatusOK || !strings.Contains(body, `"RUN_FINISHED"`) {
			t.Fatalf("AG-UI run %s: status %d, body %q; want 200 and RUN_FINISHED", runID, status, body)
		}
	}
	run("r1", "m1", "thread secret")
	list, err := ts.store.List(t.Context(), store.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var threadIDs []string
	for _, s := range list {
		if s.Origin == testOrigin {
			threadIDs = append(threadIDs, s.ID)
		}
	}
	if len(threadIDs) != 1 || !store.IsThread(threadIDs[0]) {
		t.Fatalf("stored sessions of the origin %v, want the one thread, in the thread namespace", threadIDs)
	}
	sum := sha256.Sum256([]byte("shared-thread"))
	legacy := "agui-" + hex.EncodeToString(sum[:20])

	page := newFakePage(t, ts, testOrigin)
	for _, id := range []string{threadIDs[0], legacy} {
		ctx, cancel := context.WithTimeout(t.Context(), waitLimit)
		var res wire.SessionResult
		err := page.peer.Call(ctx, wire.MethodAgentSession, wire.SessionParams{SessionID: id, LastSeq: new(int64)}, &res)
		cancel()
		var rpcErr *wsrpc.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != wire.CodeSessionNotFound {
			t.Errorf("agent/session %s from the thread's origin: %v (result %+v), want session not found", id, err, res)
		}
	}
	// The page goes on in a session of its own; what it says stays there.
	if res := page.session(wire.SessionParams{}); store.IsThread(res.SessionID) {
		t.Errorf("a new page session %q is in the thread namespace", res.SessionID)
	}
	if _, err := page.chat("page injection"); err != nil {
		t.Fatal(err)
	}
	run("r2", "m2", "second question") // not 409: the page holds nothing of the thread
	reqs := fake.Requests()
	last := reqs[len(reqs)-1]
	var sawSecret bool
	for _, m := range last.Messages {
		if strings.Contains(m.Content, "page injection") {
			t.Errorf("the thread's model reads the page's message %q", m.Content)
		}
		sawSecret = sawSecret || strings.Contains(m.Content, "thread secret")
	}
	if !sawSecret {
		t.Errorf("the thread's second run does not read its first message: %+v", last.Messages)
	}
}
