package agentsvc

// remotePage: on the holder, the page of a session whose socket is on another replica (the
// relay's holder side, see relay.go and remote.go).

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/byomcp/byomcp/agentsvc/tools"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// remotePage is, on the holder, a page whose socket is on another replica.
type remotePage struct {
	r       *relay
	replica string
	link    string
	session string
	done    chan struct{}
	once    sync.Once
	leave   chan struct{} // closed when a tool result said the page navigates away
	leaveMu sync.Once
}

func (r *relay) newRemote(replica, link, session string) (rp, replaced *remotePage) {
	rp = &remotePage{r: r, replica: replica, link: link, session: session, done: make(chan struct{}), leave: make(chan struct{})}
	r.mu.Lock()
	replaced = r.links[link]
	r.links[link] = rp
	r.mu.Unlock()
	return rp, replaced
}

// unused ends a remote page that newRemote made and nobody used, giving its link back to the
// one it replaced, if any.
func (rp *remotePage) unused(replaced *remotePage) {
	if replaced == nil {
		rp.closeLink()
		return
	}
	rp.once.Do(func() {
		close(rp.done)
		rp.r.mu.Lock()
		if rp.r.links[rp.link] == rp {
			delete(rp.r.links, rp.link)
			select {
			case <-replaced.closed(): // ended meanwhile: nothing to give back
			default:
				rp.r.links[rp.link] = replaced
			}
		}
		rp.r.mu.Unlock()
	})
}

// closeLink ends the remote page: its waiting calls fail at once, as for a socket that closed.
func (rp *remotePage) closeLink() {
	rp.once.Do(func() {
		close(rp.done)
		rp.r.mu.Lock()
		if rp.r.links[rp.link] == rp {
			delete(rp.r.links, rp.link)
		}
		rp.r.mu.Unlock()
	})
}

// remoteTools asks the page's replica for the page's tools; ok is false when that replica
// no longer serves the page (or does not answer).
func (rp *remotePage) remoteTools(ctx context.Context, late bool) (list []*wire.PageTool, ok bool) {
	ctx, cancel := context.WithTimeout(ctx, rp.r.cfg.HandshakeTimeout+relayWait)
	defer cancel()
	_, ch, forget, err := rp.r.request(ctx, rp.replica, relayMsg{Kind: relayTools, Link: rp.link, Session: rp.session, Late: late})
	if err != nil {
		return nil, false
	}
	defer forget()
	select {
	case rep := <-ch:
		if rep.Status != stOK {
			return nil, false
		}
		out := make([]*wire.PageTool, len(rep.Tools))
		for i := range rep.Tools {
			out[i] = &rep.Tools[i]
		}
		return out, true
	case <-ctx.Done():
	case <-rp.done:
	}
	return nil, false
}

func (rp *remotePage) callTool(ctx context.Context, name string, args json.RawMessage) tools.Outcome {
	out, _ := rp.routedCall(ctx, relayMsg{Name: name, Args: args})
	return out
}

// confirmCall asks the page's replica to have the visitor confirm a server tool's call.
func (rp *remotePage) confirmCall(ctx context.Context, name string, args json.RawMessage, tool *wire.ConfirmTool) (tools.Outcome, json.RawMessage, bool) {
	out, rep := rp.routedCall(ctx, relayMsg{Name: name, Args: args, Confirm: true, Tool: tool})
	return out, rep.Args, out.Kind == tools.OK
}

// elicit asks the page's replica to have the visitor answer a server's request for input. A
// replica that loses the page (or dies) meanwhile leaves it unanswered: the next page may ask.
func (rp *remotePage) elicit(ctx context.Context, p wire.ElicitParams) (wire.ElicitResult, string, bool) {
	out, rep := rp.routedCall(ctx, relayMsg{Name: p.Server, Elicit: &p})
	if e := rep.Elicited; e != nil {
		return e.Result, e.Missed, e.Again
	}
	cancelled := wire.ElicitResult{Action: wire.ElicitCancel}
	switch out.Kind {
	case tools.Timeout:
		return cancelled, wire.AskedLate, false
	case tools.PageGone:
		return cancelled, wire.AskedGone, true
	case tools.Cancelled:
		return cancelled, wire.AskedGone, false
	}
	return cancelled, wire.AskedUnable, false
}

// routedCall runs a page tool's call, a confirmation (call.Confirm) or a request for input
// (call.Elicit) on the page's replica; rep is the replica's reply (its Args: the arguments the
// visitor changed on a confirmation's card; its Elicited: the answer to a request for input),
// empty when none came.
func (rp *remotePage) routedCall(ctx context.Context, call relayMsg) (out tools.Outcome, rep relayMsg) {
	name := call.Name
	cfg := rp.r.cfg
	// The page's replica enforces the tool's time-outs; this bound only covers a replica that
	// never answers (it died with the socket, or the bus lost the answer).
	hard, cancel := context.WithTimeout(ctx, cfg.ToolMaxTimeout+relayWait)
	defer cancel()
	call.Kind, call.Link, call.Session = relayCall, rp.link, rp.session
	id, ch, forget, err := rp.r.request(hard, rp.replica, call)
	if err != nil {
		return tools.CallFailed(name, err), relayMsg{}
	}
	defer forget()
	// While the call runs, the page's replica is asked now and then whether it still has the
	// socket: a replica that died took the socket with it, and the call fails at once, as a
	// call whose socket closed does.
	probe := time.NewTicker(relayProbe)
	defer probe.Stop()
	for {
		select {
		case rep := <-ch:
			return rp.outcome(name, rep), rep
		case <-rp.done:
			return tools.Disconnected(name), relayMsg{}
		case <-probe.C:
			rep, err := rp.r.ask(hard, rp.replica, relayMsg{Kind: relayHello, Link: rp.link, Session: rp.session})
			if hard.Err() != nil || (err == nil && rep.Status == stOK) {
				continue
			}
			select {
			case rep := <-ch: // answered meanwhile after all
				return rp.outcome(name, rep), rep
			default:
			}
			rp.r.srv.hub.dropRemote(rp)
			return tools.Disconnected(name), relayMsg{}
		case <-hard.Done():
			if ctx.Err() != nil {
				uctx, ucancel := context.WithTimeout(context.Background(), relayWait)
				_ = rp.r.send(uctx, rp.replica, relayMsg{Kind: relayUncall, ID: id})
				ucancel()
				return tools.CancelledCall(name), relayMsg{}
			}
			return tools.TimedOut(name, true), relayMsg{}
		}
	}
}

// outcome is a routed call's reply as the turn sees it.
func (rp *remotePage) outcome(name string, rep relayMsg) tools.Outcome {
	if rep.Leaving {
		rp.leaveMu.Do(func() { close(rp.leave) })
	}
	if rep.Outcome == nil {
		return tools.Disconnected(name)
	}
	return tools.Outcome{Kind: tools.Kind(rep.Outcome.Kind), Name: rep.Outcome.Name, Text: rep.Outcome.Text, AskAgain: rep.Outcome.AskAgain, Confirmation: rep.Outcome.Confirmation}
}

func (rp *remotePage) leaving() bool {
	select {
	case <-rp.leave:
		return true
	default:
		return false
	}
}

func (rp *remotePage) closed() <-chan struct{} { return rp.done }
