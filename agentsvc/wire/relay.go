package wire

import "encoding/json"

// The relay: the messages replicas that share a store send one another on its bus (Redis
// pub/sub), so that a turn running on one replica can use a page whose socket is on another
// (agentsvc/relay.go does it; docs/relay.md describes it). A message is one JSON object
// (RelayMsg) published on the channel "r:" + the receiving replica's owner id, or, for
// RelayForget, on store.ForgetChannel to every replica. The holder is the replica that holds
// the session's claim and runs its turn; the proxy is the replica with the tab's socket.

// RelayVersion is the relay protocol version this build speaks and sets ("v") on every message
// it sends. A message of a higher version is not read: the receiver warns once per sending
// replica and answers a request with RelayStatusVersion, so that the sender fails it at once.
// A message without "v" is version 0 (a replica built before the field existed): version 1 is
// version 0 with "v" and RelayStatusVersion added, so it is read as version 1.
const RelayVersion = 1

// RelayMsg is one message between replicas: a request (it carries an ID, and the receiver
// answers it with a RelayReply that echoes the ID), a notice (no answer), or a reply. The
// members "v", "k", "f" and "id" keep their meaning in every version, so that a replica can
// answer a message of a version it does not speak.
type RelayMsg struct {
	// V is the relay protocol version of the sender (RelayVersion); absent is version 0.
	V int `json:"v,omitempty"`
	// Kind is what the message is: RelayReply or one of the requests and notices.
	Kind string `json:"k"`
	// From is the sender's owner id: a reply goes to the channel "r:" + From.
	From string `json:"f"`
	// ID numbers a request within its sender (from 1); its reply echoes it. A RelayUncall
	// carries the ID of the RelayCall it cancels.
	ID int64 `json:"id,omitempty"`
	// Session is the session's id.
	Session string `json:"s,omitempty"`
	// Link names the proxy's socket (one per proxied socket, chosen by the proxy).
	Link string `json:"l,omitempty"`
	// Origin is the session's origin (RelayAttach): the holder checks it.
	Origin string `json:"o,omitempty"`
	// Name is the tool a RelayCall runs.
	Name string `json:"n,omitempty"`
	// Args are a RelayCall's arguments, validated against the tool's schema by the proxy; in
	// the reply to a confirming RelayCall, the arguments the visitor edited on the card.
	Args json.RawMessage `json:"a,omitempty"`
	// Late asks RelayTools to wait for a page that has not registered its tools yet.
	Late bool `json:"late,omitempty"`
	// Confirm makes a RelayCall ask the page to have the visitor confirm a server tool's
	// call (agent/confirm) instead of running a page tool; the reply's outcome is ok when the
	// visitor allowed it, and its Args are the arguments the visitor edited, if any.
	Confirm bool `json:"cf,omitempty"`
	// Tool is what the confirmation card shows of the server tool (a confirming RelayCall):
	// ConfirmParams.Tool.
	Tool *ConfirmTool `json:"tool,omitempty"`
	// Elicit makes a RelayCall ask the page to have the visitor answer a server's request
	// for input (agent/elicit) instead of running a page tool; the reply carries Elicited.
	Elicit *ElicitParams `json:"el,omitempty"`

	// Status is a reply's answer (one of the RelayStatus constants).
	Status string `json:"st,omitempty"`
	// Tools are the page's tools (the reply to RelayTools).
	Tools []PageTool `json:"tools,omitempty"`
	// Outcome is how a RelayCall ended on the page.
	Outcome *RelayOutcome `json:"out,omitempty"`
	// Elicited is how an eliciting RelayCall was answered on the page.
	Elicited *RelayElicited `json:"eld,omitempty"`
	// Leaving says the page announced it navigates away (byomcp/navigating).
	Leaving bool `json:"leaving,omitempty"`
	// TurnID is the running turn (the reply to RelayAttach and RelayCancel), or the turn a
	// RelayCancel asks to stop ("": whichever runs).
	TurnID string `json:"turn,omitempty"`
	// ClientTurnID is the running turn's clientTurnId, as its agent/chat gave it.
	ClientTurnID string `json:"ct,omitempty"`
	// StartSeq is the seq of the running turn's turn_start.
	StartSeq int64 `json:"ss,omitempty"`
	// Code is an error code of the page protocol (CodeNoTurn: no turn to cancel).
	Code int `json:"code,omitempty"`
	// Message says in words why a reply has RelayStatusVersion.
	Message string `json:"msg,omitempty"`
}

// RelayOutcome is how a tool call routed through the relay ended (a tools.Outcome).
type RelayOutcome struct {
	// Kind is the tools.Kind: 0 ok, 1 tool_error, 2 invalid_args, 3 timeout, 4 page_gone,
	// 5 cancelled, 6 unknown_tool, 7 failed, 8 over_limit, 9 handed_off.
	Kind uint8 `json:"kind"`
	// Name is the tool's name.
	Name string `json:"name"`
	// Text is the tool's result, or one sentence on what happened instead.
	Text string `json:"text"`
	// AskAgain says the page went away while its visitor was asked to confirm the call: the
	// tool did not run, and the page that comes next may ask again.
	AskAgain bool `json:"again,omitempty"`
	// Confirmation is how the visitor answered, when the call asked for their confirmation.
	Confirmation *Confirmation `json:"conf,omitempty"`
}

// RelayElicited is how the page answered an eliciting RelayCall: the result the server gets,
// why it is cancel without the visitor (Asked.Missed's values; "" when they answered), and
// whether the page went away while its visitor was asked (the next page may ask again).
type RelayElicited struct {
	Result ElicitResult `json:"res"`
	Missed string       `json:"miss,omitempty"`
	Again  bool         `json:"again,omitempty"`
}

// Kinds of relay messages: who sends each, and what answers it.
const (
	// RelayReply answers a request: it echoes the request's ID and carries a Status.
	RelayReply = "re"
	// RelayAttach (proxy → holder, request): the session's tab is on my socket now. Answered
	// attached (with the running turn), fork, released or absent.
	RelayAttach = "attach"
	// RelayDetach (proxy → holder, notice): that socket is gone.
	RelayDetach = "detach"
	// RelayCancel (proxy → holder, request): the page sent agent/cancel. Answered ok with the
	// cancelled turn, or with Code CodeNoTurn.
	RelayCancel = "cancel"
	// RelayYield (proxy → holder, request): the page sent agent/chat; let the session go
	// unless a turn runs. Answered released, busy, fork or absent.
	RelayYield = "yield"
	// RelayTools (holder → proxy, request): the page's tools/list. Answered ok with the tools,
	// or gone.
	RelayTools = "tools"
	// RelayCall (holder → proxy, request): a tools/call (or an agent/confirm) in the page.
	// Answered ok with its outcome, or gone.
	RelayCall = "call"
	// RelayUncall (holder → proxy, notice): the call with this ID is cancelled.
	RelayUncall = "uncall"
	// RelayPing (holder → proxy, request): is the page's socket alive? Answered alive, dead
	// or gone.
	RelayPing = "ping"
	// RelayHello (holder → proxy, request): do you still serve this link? Answered ok or gone.
	RelayHello = "hello"
	// RelayReleased (holder → proxy, notice): the session is free; take it over.
	RelayReleased = "released"
	// RelaySuperseded (holder → proxy, notice): another socket has the session now.
	RelaySuperseded = "superseded"
	// RelayForget (any replica → every replica, notice on store.ForgetChannel): an operator
	// deleted the session.
	RelayForget = "forget"
)

// Statuses of relay replies.
const (
	// RelayStatusAttached: the holder runs a turn and uses the proxy's page from now on.
	RelayStatusAttached = "attached"
	// RelayStatusFork: the session is live on another tab; the page forks it.
	RelayStatusFork = "fork"
	// RelayStatusReleased: the holder let the session go; claim it.
	RelayStatusReleased = "released"
	// RelayStatusAbsent: the session is not live on the holder (it is letting it go, or never
	// had it).
	RelayStatusAbsent = "absent"
	// RelayStatusBusy: a turn runs.
	RelayStatusBusy = "busy"
	// RelayStatusOK: done.
	RelayStatusOK = "ok"
	// RelayStatusGone: the link's socket is gone (or was never served here).
	RelayStatusGone = "gone"
	// RelayStatusAlive: the page answered the socket's ping.
	RelayStatusAlive = "alive"
	// RelayStatusDead: the page did not answer the socket's ping.
	RelayStatusDead = "dead"
	// RelayStatusVersion: the request's version (or kind) is not spoken here; nothing was done.
	RelayStatusVersion = "version"
)
