package agentsvc

// Config: what a Server is built from, and its defaults (DESIGN.md).

import (
	"encoding/json"
	"time"

	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/llm"
	"github.com/byomcp/byomcp/agentsvc/loop"
	"github.com/byomcp/byomcp/agentsvc/mcpservers"
	"github.com/byomcp/byomcp/agentsvc/sites"
	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/wsrpc"
)

// Config configures a Server. Zero values take the DESIGN.md defaults.
type Config struct {
	// OwnOrigins are the server's own origins ("http://127.0.0.1:8080"): where it serves its
	// pages, from its listen address (serve gives both http://127.0.0.1:PORT and
	// http://localhost:PORT for a loopback listener) or its public URL behind a proxy. They
	// are always allowed, and the Host header of a socket or check request must name one of
	// their hosts or of AllowedOrigins' (DNS rebinding). Empty: the address the request's
	// connection came in on (never its Host header), plus localhost for a loopback address.
	OwnOrigins []string
	// AllowedOrigins are exact origins ("https://shop.example") allowed besides OwnOrigins; a
	// port may be "*" ("http://localhost:*"). Empty: http://localhost:*, http://127.0.0.1:*
	// and http://[::1]:* (local development); given, they replace those three.
	AllowedOrigins []string
	// OnPanic, if set, is called with where and the value of every panic the server recovers
	// (after it was logged with its stack and counted in byomcp_panics_total). Tests make it
	// fail the test: a recovered panic is still a bug.
	OnPanic func(where string, v any)
	Store   store.Store // required
	Model   llm.Model   // required (the offline planner when no model is configured)
	// ServerTools are server-side MCP tools offered to web conversations (nil = none).
	ServerTools mcpservers.ServerTools
	Logger      *zap.Logger
	Limits      loop.Limits
	// ConfirmTools are page tool names that always need the user's confirmation.
	ConfirmTools []string
	// SystemPrompt overrides the default system prompt.
	SystemPrompt string
	// Sites, if set, gives the site of a page Origin (agentsvc/sites; nil: none): its
	// origins are allowed, and its instructions, model, guards, token budget, confirm
	// policy and server MCP servers apply to its pages' turns.
	Sites func(origin string) *sites.Site
	// OnEvent, if set, is given every event of a session once it is stored (the operator
	// console's live view). It is called under the session's lock and must not block.
	OnEvent func(origin, sessionID string, data json.RawMessage)
	// TextDeltaPerChunk keeps one text_delta event per chunk of the model's stream. By
	// default the chunks that come while the session's previous write is in flight join
	// one text_delta (the same text, in fewer events); tests that replay a stream event by
	// event set it.
	TextDeltaPerChunk bool

	ToolTimeout      time.Duration // per tool call, extended by progress; default 30 s
	ToolMaxTimeout   time.Duration // hard maximum per tool call; default 10 min
	HandshakeTimeout time.Duration // initialize and tools/list; default 10 s
	RelistDebounce   time.Duration // after tools/list_changed; default 100 ms
	// LateTools: when a turn's next model call finds a new page (a tool navigated) that has
	// listed no tools yet, the page is given until this long after its socket opened to
	// announce some (tools/list_changed) before the call goes without them: a page that
	// registers its tools once its data has loaded. Default 2 s, negative: no wait.
	LateTools time.Duration
	// ReconnectWait is how long a running turn waits for its page to come back (for example
	// after a tool navigated); default 30 s.
	ReconnectWait time.Duration
	MaxChatText   int // bytes of one agent/chat text; default 32 KiB
	// ClaimTTL is how long a replica's claim on a live session lasts without renewal;
	// default 10 s.
	ClaimTTL time.Duration
	// OwnerID names this process as a session owner ("" = random). Give a stable one with a
	// local store so a restarted process takes its sessions back at once.
	OwnerID       string
	ShutdownGrace time.Duration // how long running turns may go on at shutdown; default 10 s
	// SessionTTL deletes sessions idle for longer (checked every SessionTTL/10, at most
	// hourly); default 7 days, negative = keep forever.
	SessionTTL time.Duration
	// IdleRelease gives the memory the runtime no longer uses back to the OS once no turn
	// has ended for this long (debug.FreeOSMemory, once per quiet period: see memrelease.Releaser);
	// default 10 s, negative = never.
	IdleRelease time.Duration

	// Budgets per client (the TCP remote address: behind a proxy every visitor shares the
	// proxy's; a loopback address is no client of its own, so only the totals bound it) and
	// in all. Over them an agent/chat gets wire.CodeBusy and an agent/session that
	// creates a session gets wire.CodeTooManySessions.
	ClientTurns        int     // turns running at once per client; default 32, negative: no limit
	MaxTurns           int     // turns running at once in all; default 1024, negative: no limit
	ClientSessionRate  float64 // new sessions per second per client; default 2, negative: no limit
	ClientSessionBurst int     // bucket of ClientSessionRate; default 120

	ReadLimit      int64         // bytes per frame; default 1 MiB
	MessageTimeout time.Duration // from a message's first frame to its last; default 30 s
	SendQueue      int           // messages queued per socket; default 256
	PingInterval   time.Duration // default 25 s
	WriteTimeout   time.Duration // default 10 s
	RateLimit      float64       // messages per second per socket; default 50
	RateBurst      int           // default 200

	// PongWait is how long a socket may stay silent (no message, no pong) before it is
	// closed; default 60 s. It must exceed PingInterval: the pings' answers extend it.
	PongWait time.Duration
}

func (c Config) withDefaults() Config {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&c.ToolTimeout, 30*time.Second)
	def(&c.ToolMaxTimeout, 10*time.Minute)
	def(&c.HandshakeTimeout, 10*time.Second)
	def(&c.RelistDebounce, 100*time.Millisecond)
	if c.LateTools == 0 {
		c.LateTools = 2 * time.Second
	}
	def(&c.ReconnectWait, 30*time.Second)
	def(&c.ClaimTTL, 10*time.Second)
	def(&c.ShutdownGrace, 10*time.Second)
	if c.SessionTTL == 0 {
		c.SessionTTL = 7 * 24 * time.Hour
	}
	if c.IdleRelease == 0 {
		c.IdleRelease = 10 * time.Second
	}
	def(&c.PingInterval, 25*time.Second)
	def(&c.PongWait, wsrpc.DefaultPongWait)
	def(&c.MessageTimeout, 30*time.Second)
	if c.ClientTurns == 0 {
		c.ClientTurns = 32
	}
	if c.MaxTurns == 0 {
		c.MaxTurns = 1024
	}
	if c.ClientSessionRate == 0 {
		c.ClientSessionRate = 2
	}
	if c.ClientSessionBurst <= 0 {
		c.ClientSessionBurst = 120
	}
	def(&c.WriteTimeout, 10*time.Second)
	if c.MaxChatText <= 0 {
		c.MaxChatText = 32 << 10
	}
	if c.ReadLimit <= 0 {
		c.ReadLimit = 1 << 20
	}
	if c.SendQueue <= 0 {
		c.SendQueue = 256
	}
	if c.RateLimit == 0 {
		c.RateLimit = 50
	}
	if c.RateBurst <= 0 {
		c.RateBurst = 200
	}
	if c.Logger == nil {
		c.Logger = zap.NewNop()
	}
	c.Limits = c.Limits.WithDefaults()
	return c
}
