package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	fastjson "github.com/segmentio/encoding/json"

	"github.com/byomcp/byomcp/agentsvc/chat"
)

// DefaultListLimit is the number of sessions List returns when ListOptions.Limit is 0.
const DefaultListLimit = 100

// maxIDLen bounds a session id.
const maxIDLen = 128

// validID reports whether id is 1–128 characters of [A-Za-z0-9_.-]. Ids never contain ':' so
// they cannot collide inside composed Redis keys.
func validID(id string) bool {
	if id == "" || len(id) > maxIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '_' || c == '.' || c == '-'
		if !ok {
			return false
		}
	}
	return true
}

// newSession checks s for Create and returns its creation time (now when s has none).
func newSession(s *Session, now time.Time) (time.Time, error) {
	if s == nil {
		return time.Time{}, errors.New("store: create: nil session")
	}
	if !validID(s.ID) {
		return time.Time{}, fmt.Errorf("store: create: invalid session id %q (want 1-%d of [A-Za-z0-9_.-])", s.ID, maxIDLen)
	}
	if s.Seq != 0 || len(s.Messages) > 0 {
		return time.Time{}, errors.New("store: create: a new session has no seq and no messages")
	}
	created := s.CreatedAt
	if created.IsZero() {
		created = now
	}
	if created.UnixNano() <= 0 || created.Year() >= 2262 {
		return time.Time{}, fmt.Errorf("store: create: creation time %v out of range", created)
	}
	return created, nil
}

// checkClaim checks the arguments of Claim.
func checkClaim(owner string, ttl time.Duration) error {
	if owner == "" {
		return errors.New("store: claim: empty owner")
	}
	if ttl <= 0 {
		return fmt.Errorf("store: claim: ttl %v is not positive", ttl)
	}
	return nil
}

// encodedBatch is a Batch checked and encoded for storage.
type encodedBatch struct {
	messages [][]byte // JSON of each message
	first    int64    // seq of the first event (0 when none)
	events   []Event
	page     *Page
	turn     *string
}

// encodeBatch checks that b's events are consecutive and hold JSON, and encodes its messages.
// It returns ErrSeqConflict when the events are not consecutive among themselves.
func encodeBatch(b Batch) (encodedBatch, error) {
	e := encodedBatch{events: b.Events, page: b.Page, turn: b.ActiveTurn}
	for i, ev := range b.Events {
		if i == 0 {
			e.first = ev.Seq
		} else if ev.Seq != e.first+int64(i) {
			return encodedBatch{}, fmt.Errorf("%w: event %d follows event %d in one batch", ErrSeqConflict, ev.Seq, b.Events[i-1].Seq)
		}
		if !fastjson.Valid(ev.Data) {
			return encodedBatch{}, fmt.Errorf("store: append: event %d: data is not valid JSON", ev.Seq)
		}
	}
	e.messages = make([][]byte, len(b.Messages))
	for i := range b.Messages {
		data, err := fastjson.Marshal(&b.Messages[i])
		if err != nil {
			return encodedBatch{}, fmt.Errorf("store: append: encoding message %d: %w", i, err)
		}
		e.messages[i] = data
	}
	return e, nil
}

// nextSeq returns the seq of the session after e is appended to a session at seq cur, or
// ErrSeqConflict when e's first event is not cur+1.
func (e encodedBatch) nextSeq(cur int64) (int64, error) {
	if len(e.events) == 0 {
		return cur, nil
	}
	if e.first != cur+1 {
		return 0, fmt.Errorf("%w: got event %d, want %d", ErrSeqConflict, e.first, cur+1)
	}
	return cur + int64(len(e.events)), nil
}

// decodeMessages decodes stored messages.
func decodeMessages(rows [][]byte) ([]chat.Message, error) {
	msgs := make([]chat.Message, len(rows))
	for i, row := range rows {
		if err := json.Unmarshal(row, &msgs[i]); err != nil {
			return nil, fmt.Errorf("store: decoding message %d: %w", i, err)
		}
	}
	return msgs, nil
}

// nanos is how a time is stored: nanoseconds since the Unix epoch.
func nanos(t time.Time) int64 { return t.UnixNano() }

// fromNanos is the time a stored value stands for, in UTC.
func fromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }

// listLimit is the limit List applies for o.
func listLimit(o ListOptions) int {
	if o.Limit <= 0 {
		return DefaultListLimit
	}
	return o.Limit
}
