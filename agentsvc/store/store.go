// Package store keeps conversations: sessions, their messages and their numbered event log,
// in memory, in a SQLite file or in Redis, behind one Store interface.
//
// Open picks an implementation from a --store value ("memory", "sqlite:PATH", "redis://…").
// Every implementation behaves the same way (the storetest package checks it): session ids
// are 1–128 characters of [A-Za-z0-9_.-] (Create rejects others, and the other methods treat
// them as missing), times are kept to the nanosecond and returned in UTC, messages keep the
// meaning of their JSON (raw Extra values may come back re-encoded, never changed), and
// Append checks the seqs and writes all of a Batch or nothing.
package store

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"time"

	"github.com/byomcp/byomcp/agentsvc/chat"
)

// Errors returned by every Store.
var (
	ErrNotFound = errors.New("store: session not found")
	// ErrSeqConflict: an appended event's seq is not exactly the next one (another writer
	// owns the session, or the caller is out of date).
	ErrSeqConflict = errors.New("store: event seq conflict")
	// ErrExists: Create with an id that is already taken.
	ErrExists = errors.New("store: session exists")
	// ErrClosed: the Store was closed.
	ErrClosed = errors.New("store: closed")
)

// ThreadPrefix starts the id of every AG-UI thread (agentsvc/agui). The page socket's ids
// are hex and never start with it, and the page socket opens no session whose id does: the
// two id spaces are disjoint, whatever a page derives.
const ThreadPrefix = "agui-"

// IsThread reports whether id names an AG-UI thread (ThreadPrefix).
func IsThread(id string) bool { return strings.HasPrefix(id, ThreadPrefix) }

// Page is the page a session was last seen on.
type Page struct {
	URL   string `json:"url,omitempty"`
	Title string `json:"title,omitempty"`
}

// Session is one conversation.
type Session struct {
	ID        string
	Origin    string // the Origin that created it; only it may resume
	Page      Page
	CreatedAt time.Time
	UpdatedAt time.Time
	// Seq is the seq of the last event appended (0 when none).
	Seq int64
	// Messages is the model-facing history, oldest first (filled by Load, not by List).
	Messages []chat.Message
	// ActiveTurn is the id of a turn that started and has not ended ("" when none).
	// A turn left active by a crash is found here on the next load.
	ActiveTurn string
}

// Event is one entry of a session's event log: an agent/event params object without its
// sessionId (the sender adds it). Data is a JSON object that includes "seq" equal to Seq.
type Event struct {
	Seq  int64
	Data json.RawMessage
}

// Batch is what one Append writes atomically.
type Batch struct {
	Messages []chat.Message
	// Events must carry seqs Session.Seq+1, +2, ... in order, else ErrSeqConflict and
	// nothing is written.
	Events []Event
	// Page, when not nil, replaces the session's page.
	Page *Page
	// ActiveTurn, when not nil, replaces the session's active turn ("" clears it).
	ActiveTurn *string
}

// ListOptions bounds List.
type ListOptions struct {
	Origin string // "" = every origin
	Limit  int    // 0 = 100
}

// Store keeps sessions. Implementations are safe for concurrent use.
type Store interface {
	// Create stores a new session (ID, Origin, Page, CreatedAt set by the caller;
	// UpdatedAt = CreatedAt, Seq 0, no messages). A zero CreatedAt means now; a Session
	// with a Seq or Messages is refused; ActiveTurn is stored as given. ErrExists.
	Create(ctx context.Context, s *Session) error
	// CreateClaimed is Create with the new session claimed by owner until now+ttl in the
	// same step (see Claim): no other owner can find it unclaimed, or claim it, between its
	// creation and its claim. ErrExists leaves the existing session and its claim as they
	// are; an empty owner or a ttl <= 0 is an error.
	CreateClaimed(ctx context.Context, s *Session, owner string, ttl time.Duration) error
	// Load returns the session with its messages, or ErrNotFound.
	Load(ctx context.Context, id string) (*Session, error)
	// Append writes b atomically and touches UpdatedAt (to the second: SQLite leaves one
	// less than a second old as it is); ErrNotFound, ErrSeqConflict.
	Append(ctx context.Context, id string, b Batch) error
	// EventsAfter returns the events with seq > after, in order, at most limit (0 = all);
	// ErrNotFound when the session does not exist.
	EventsAfter(ctx context.Context, id string, after int64, limit int) ([]Event, error)
	// List returns sessions without messages, most recently updated first.
	List(ctx context.Context, o ListOptions) ([]*Session, error)
	// Delete removes a session, its log and its claim (no error when missing).
	Delete(ctx context.Context, id string) error
	// ExpireIdle deletes sessions not updated since before; returns how many.
	ExpireIdle(ctx context.Context, before time.Time) (int, error)
	// Claim makes owner the live owner of session id until now+ttl, unless another owner
	// holds an unexpired claim (then ok=false and the current owner is returned). Claiming
	// again by the same owner renews. Release drops the claim if owner holds it. Claim
	// returns ErrNotFound for a missing session and an error for ttl <= 0.
	Claim(ctx context.Context, id, owner string, ttl time.Duration) (ok bool, current string, err error)
	Release(ctx context.Context, id, owner string) error
	// Close releases the Store's resources; later calls return ErrClosed. Closing again
	// returns nil.
	Close() error
}

// InMemory is a Store whose calls complete without I/O or another process (the memory
// store): a caller need not bound them with a time-out, whose timer had been a fifth of the
// cost of a write at saturation. A wrapper of a store does not pass it on.
type InMemory interface{ InMemory() }

// ClaimRenewer is a Store that renews many of one owner's claims at once, as a replica does
// for every session live in it each third of the claims' TTL. RenewClaims is Claim for each
// id (ids of missing sessions, and sessions another owner holds unexpired, are skipped),
// without the per-claim answers: on SQLite a transaction per session made 1,000 idle tabs
// cost 300 write transactions a second, and the turns' appends waited behind them.
type ClaimRenewer interface {
	RenewClaims(ctx context.Context, ids []string, owner string, ttl time.Duration) error
}

// renewChunk bounds the claims of one RenewClaims step (a SQLite statement, a Redis
// pipeline), so that what waits behind it (the turns' appends) never waits long.
const renewChunk = 128

// inRenewChunks calls step with ids renewChunk at a time, until it fails or closed is set.
func inRenewChunks(ids []string, closed *atomic.Bool, step func(chunk []string) error) error {
	for len(ids) > 0 {
		if closed.Load() {
			return ErrClosed
		}
		n := min(len(ids), renewChunk)
		if err := step(ids[:n]); err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}
