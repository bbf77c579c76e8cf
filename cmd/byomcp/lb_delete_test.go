package main

import (
	"errors"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/wire"
	"github.com/byomcp/byomcp/wsrpc"
)

// TestLBConsoleDeleteOnAnotherReplica: an operator deletes, in one replica's console, a
// conversation whose tab is connected, through the balancer, to the other replica. The tab is
// closed there with 1000 "conversation deleted" (the word goes over Redis), and its resume
// through the balancer, wherever it lands, does not find the conversation.
func TestLBConsoleDeleteOnAnotherReplica(t *testing.T) {
	const token = "console-token-of-the-lb-test"
	fake := llmtest.New(llmtest.WithResponder(func(llmtest.RecordedRequest) llmtest.Step {
		return llmtest.Step{Text: "Fine."}
	}))
	t.Cleanup(fake.Close)
	c := startCluster(t, fake.URL, lbOptions{replicas: 2, args: []string{"--console-token", token}})
	dumpOnFailure(t, c)

	tab := dialLB(t, c, func(lbEvent) {})
	sess := mustSession(t, tab, wire.SessionParams{})
	if r := chatAndWait(t, tab, "hello"); r.Text != "Fine." {
		t.Fatalf("the first turn: got %+v", r)
	}
	ended := make(chan error, 1)
	go func() { ended <- tab.peer.Wait() }()

	// The other replica's console, reached directly (not through the balancer).
	other := c.other(tab.replica)
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar, Timeout: procWait}
	console := func(method, path, body string) int {
		req, err := http.NewRequest(method, other.url()+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Byomcp-Console", "1")
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("%s %s on %s: %v", method, path, other.name, err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := console("POST", "/console/api/signin", `{"token":"`+token+`"}`); code != http.StatusOK {
		t.Fatalf("signing in on %s: %d", other.name, code)
	}
	if code := console("DELETE", "/console/api/conversations/"+sess.SessionID, ""); code/100 != 2 {
		t.Fatalf("deleting on %s: %d", other.name, code)
	}

	select {
	case err := <-ended:
		var ce *websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != websocket.CloseNormalClosure || ce.Text != "conversation deleted" {
			t.Errorf("the tab on %s ended with %v, want 1000 \"conversation deleted\"", tab.replica, err)
		}
	case <-time.After(procWait):
		t.Fatalf("the tab on %s was not closed after the delete on %s", tab.replica, other.name)
	}

	// The tab's next page, through the balancer, on each replica: the conversation is gone.
	for _, avoid := range []string{other.name, tab.replica} {
		again := dialLBNotOn(t, c, avoid, func(lbEvent) {})
		_, err := again.session(wire.SessionParams{SessionID: sess.SessionID})
		var re *wsrpc.Error
		if !errors.As(err, &re) || re.Code != wire.CodeSessionNotFound {
			t.Errorf("resuming the deleted conversation on %s: %v, want -32002", again.replica, err)
		}
		again.close()
	}
}
