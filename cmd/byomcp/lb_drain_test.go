package main

import (
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/llm/llmtest"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// TestLBDrainDelayTakesAReplicaOutBeforeItStops: a deploy with --drain-delay, through a real
// HAProxy that checks /readyz. On SIGTERM the replica answers /readyz with 503 and the
// balancer stops sending it anything new (requests and new tabs go to the other replica)
// while the replica still serves the tab it has: its next turn is answered there.
func TestLBDrainDelayTakesAReplicaOutBeforeItStops(t *testing.T) {
	fake := llmtest.New(llmtest.WithResponder(func(req llmtest.RecordedRequest) llmtest.Step {
		return llmtest.Step{Text: "Answered: " + lastUser(req)}
	}))
	t.Cleanup(fake.Close)
	c := startCluster(t, fake.URL, lbOptions{replicas: 2, args: []string{"--drain-delay", "20s"}})
	dumpOnFailure(t, c)

	log := newEventLog()
	tab := dialLB(t, c, log.add)
	mustSession(t, tab, wire.SessionParams{})
	draining := c.byName[tab.replica]
	other := c.other(tab.replica)
	proc := draining.current()
	if err := proc.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}

	// The balancer takes it out: ten requests in a row answered by the other replica.
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(procWait)
	for inARow := 0; inARow < 10; {
		if time.Now().After(deadline) {
			t.Fatalf("the balancer kept sending requests to the draining %s; haproxy says:\n%s", draining.name, c.lb.logs.String())
		}
		resp, err := client.Get(c.url + "/healthz")
		if err != nil {
			t.Fatalf("through the balancer while %s drains: %v", draining.name, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("through the balancer while %s drains: %d", draining.name, resp.StatusCode)
		}
		if resp.Header.Get(replicaHeader) == other.name {
			inARow++
		} else {
			inARow = 0
			time.Sleep(20 * time.Millisecond)
		}
	}
	select {
	case <-proc.exited:
		t.Fatalf("%s exited before its drain delay was over", draining.name)
	default:
	}
	for range 3 {
		p := dialLB(t, c, func(lbEvent) {})
		if p.replica != other.name {
			t.Errorf("a new tab landed on the draining %s", p.replica)
		}
		p.close()
	}

	// The tab it has is still served there.
	res := chatAndWait(t, tab, "still there?")
	end := waitEvent(t, log, "the turn's end", func(e lbEvent) bool { return e.Type == wire.EventTurnEnd && e.TurnID == res.TurnID })
	if end.Text != "Answered: still there?" {
		t.Errorf("the tab's turn on the draining replica ended with %+v", end)
	}
	if !strings.Contains(proc.logs.String(), "draining:") {
		t.Errorf("%s did not log its drain", draining.name)
	}
}
