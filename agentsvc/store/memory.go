package store

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync"
	"time"
)

// memory is the Store that lives in one process's memory.
type memory struct {
	mu       sync.Mutex
	now      func() time.Time
	closed   bool
	sessions map[string]*memSession
	bus      *memBus // the bus of the servers that share this store in one process (NewMemoryWithBus)
}

// memSession is one session of a memory store.
type memSession struct {
	s          Session  // without messages
	messages   eventLog // JSON, so Load returns copies with the same meaning as the other stores
	events     eventLog // event i has seq i+1
	claimOwner string
	claimUntil time.Time
}

// packed is a list of byte strings held back to back in one buffer (the events or messages
// of a session not sealed yet): one allocation per item (with its 24-byte slice
// header and its size class's rounding) cost a third more than the bytes.
type packed struct {
	data []byte
	ends []uint32 // item i is data[ends[i-1]:ends[i]]
}

func (p *packed) len() int { return len(p.ends) }

// item returns item i; it shares p's memory.
func (p *packed) item(i int) []byte {
	start := uint32(0)
	if i > 0 {
		start = p.ends[i-1]
	}
	return p.data[start:p.ends[i]:p.ends[i]]
}

// add appends b. The buffers double as they grow: an open block lives for one turn (it is
// sealed when the turn ends, or at blockEvents items), so its slack is never held by an
// idle session, and growing by less copied the block over and over (growing by an eighth,
// a block of 63 text deltas was copied to a new buffer 22 times as it filled).
func (p *packed) add(b []byte) {
	if n := len(p.data) + len(b); n > cap(p.data) {
		if p.data == nil {
			p.data = takeBlockBuf(n)
		} else {
			p.data = append(make([]byte, 0, max(n, 2*cap(p.data))), p.data...)
		}
	}
	p.data = append(p.data, b...)
	if len(p.ends) == cap(p.ends) {
		p.ends = append(make([]uint32, 0, max(16, 2*cap(p.ends))), p.ends...)
	}
	p.ends = append(p.ends, uint32(len(p.data)))
}

// release gives p's buffer back for the next open block (of any session) and empties p.
// Nothing may use p's items after it: they are copied when read (appendRange) and when
// sealed (sealBlock).
func (p *packed) release() {
	if data := p.data[:0]; cap(data) <= maxPooledBlock {
		blockBufs.Put(&data)
	}
	*p = packed{}
}

// blockBufs recycles the buffers of open blocks: every turn fills one or two (its events,
// its messages) and seals them at its end. A buffer larger than maxPooledBlock (a block of
// long tool results) is left to the collector.
var blockBufs sync.Pool // of *[]byte

const maxPooledBlock = 64 << 10

// takeBlockBuf returns an empty buffer for an open block that will hold at least n bytes.
func takeBlockBuf(n int) []byte {
	if v, ok := blockBufs.Get().(*[]byte); ok && cap(*v) >= n {
		return *v
	}
	return make([]byte, 0, max(n, 1<<10))
}

// NewMemory returns a Store that keeps everything in this process's memory (tests, one-off runs).
// Nothing survives the process; sessions expire only through ExpireIdle.
func NewMemory() Store {
	return &memory{now: time.Now, sessions: make(map[string]*memSession)}
}

// InMemory marks the memory store as a store.InMemory.
func (m *memory) InMemory() {}

// lookup returns the session id while m.mu is held.
func (m *memory) lookup(id string) (*memSession, error) {
	if m.closed {
		return nil, ErrClosed
	}
	ms, ok := m.sessions[id]
	if !ok {
		return nil, ErrNotFound
	}
	return ms, nil
}

func (m *memory) Create(ctx context.Context, s *Session) error {
	return m.create(s, "", 0)
}

func (m *memory) CreateClaimed(ctx context.Context, s *Session, owner string, ttl time.Duration) error {
	if err := checkClaim(owner, ttl); err != nil {
		return err
	}
	return m.create(s, owner, ttl)
}

// create is Create, claimed by owner for ttl unless owner is "".
func (m *memory) create(s *Session, owner string, ttl time.Duration) error {
	created, err := newSession(s, m.now())
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	if _, ok := m.sessions[s.ID]; ok {
		return ErrExists
	}
	created = fromNanos(nanos(created))
	ms := &memSession{s: Session{
		ID:         s.ID,
		Origin:     s.Origin,
		Page:       s.Page,
		CreatedAt:  created,
		UpdatedAt:  created,
		ActiveTurn: s.ActiveTurn,
	}}
	if owner != "" {
		ms.claimOwner, ms.claimUntil = owner, m.now().Add(ttl)
	}
	m.sessions[s.ID] = ms
	return nil
}

func (m *memory) Load(ctx context.Context, id string) (*Session, error) {
	m.mu.Lock()
	ms, err := m.lookup(id)
	if err != nil {
		m.mu.Unlock()
		return nil, err
	}
	s := ms.s
	rows, err := ms.messages.all()
	m.mu.Unlock()
	if err != nil {
		return nil, err
	}
	msgs, err := decodeMessages(rows)
	if err != nil {
		return nil, err
	}
	s.Messages = msgs
	return &s, nil
}

func (m *memory) Append(ctx context.Context, id string, b Batch) error {
	e, err := encodeBatch(b)
	if err != nil {
		return err
	}
	m.mu.Lock()
	origin, err := m.appendLocked(id, e)
	replica := ""
	if ms := m.sessions[id]; err == nil && ms != nil && ms.claimOwner != "" && m.now().Before(ms.claimUntil) {
		replica = ms.claimOwner
	}
	m.mu.Unlock()
	if err == nil && len(e.events) > 0 && m.bus != nil {
		_ = m.bus.Publish(ctx, EventsChannel(id), encodeAppended(origin, replica, e.events))
	}
	return err
}

// appendLocked is Append with m.mu held; it returns the session's origin.
func (m *memory) appendLocked(id string, e encodedBatch) (string, error) {
	ms, err := m.lookup(id)
	if err != nil {
		return "", err
	}
	seq, err := e.nextSeq(ms.s.Seq)
	if err != nil {
		return "", err
	}
	evSize, msgSize := 0, 0
	for _, ev := range e.events {
		evSize += len(ev.Data)
	}
	for _, msg := range e.messages {
		msgSize += len(msg)
	}
	if len(ms.events.open.data)+evSize > math.MaxUint32 || len(ms.messages.open.data)+msgSize > math.MaxUint32 {
		return "", errors.New("store: memory: a session's history, or a block of its log, cannot hold more than 4 GiB")
	}
	for _, ev := range e.events {
		ms.events.add(ev.Data)
	}
	for _, msg := range e.messages {
		ms.messages.add(msg)
	}
	ms.s.Seq = seq
	if e.page != nil {
		ms.s.Page = *e.page
	}
	if e.turn != nil {
		ms.s.ActiveTurn = *e.turn
	}
	// No turn runs (one ended, or this write came outside one: a fork's history): the
	// events are read again only by a resume, the messages by the next turn's start. So an
	// idle session holds no open block, nor the slack of one's buffer.
	if ms.s.ActiveTurn == "" {
		ms.events.seal()
		ms.messages.seal()
	}
	ms.s.UpdatedAt = fromNanos(nanos(m.now()))
	return ms.s.Origin, nil
}

func (m *memory) EventsAfter(ctx context.Context, id string, after int64, limit int) ([]Event, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ms, err := m.lookup(id)
	if err != nil {
		return nil, err
	}
	start := min(max(after, 0), int64(ms.events.len()))
	end := int64(ms.events.len())
	if limit > 0 {
		end = min(end, start+int64(limit))
	}
	return ms.events.appendRange(make([]Event, 0, end-start), int(start), int(end))
}

func (m *memory) List(ctx context.Context, o ListOptions) ([]*Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, ErrClosed
	}
	var out []*Session
	for _, ms := range m.sessions {
		if o.Origin != "" && ms.s.Origin != o.Origin {
			continue
		}
		s := ms.s
		out = append(out, &s)
	}
	slices.SortFunc(out, compareRecent)
	return out[:min(len(out), listLimit(o))], nil
}

// compareRecent orders sessions most recently updated first, then by descending id, the
// order every store's List uses.
func compareRecent(a, b *Session) int {
	if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
		return c
	}
	switch {
	case a.ID > b.ID:
		return -1
	case a.ID < b.ID:
		return 1
	}
	return 0
}

func (m *memory) Delete(ctx context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	delete(m.sessions, id)
	return nil
}

func (m *memory) ExpireIdle(ctx context.Context, before time.Time) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return 0, ErrClosed
	}
	n := 0
	for id, ms := range m.sessions {
		if ms.s.UpdatedAt.Before(before) {
			delete(m.sessions, id)
			n++
		}
	}
	return n, nil
}

func (m *memory) Claim(ctx context.Context, id, owner string, ttl time.Duration) (bool, string, error) {
	if err := checkClaim(owner, ttl); err != nil {
		return false, "", err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	ms, err := m.lookup(id)
	if err != nil {
		return false, "", err
	}
	now := m.now()
	if ms.claimOwner != "" && ms.claimOwner != owner && now.Before(ms.claimUntil) {
		return false, ms.claimOwner, nil
	}
	ms.claimOwner, ms.claimUntil = owner, now.Add(ttl)
	return true, owner, nil
}

// RenewClaims is Claim for each id, under one lock.
func (m *memory) RenewClaims(ctx context.Context, ids []string, owner string, ttl time.Duration) error {
	if err := checkClaim(owner, ttl); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	for _, id := range ids {
		ms, err := m.lookup(id)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if ms.claimOwner == "" || ms.claimOwner == owner || !now.Before(ms.claimUntil) {
			ms.claimOwner, ms.claimUntil = owner, now.Add(ttl)
		}
	}
	return nil
}

func (m *memory) Release(ctx context.Context, id, owner string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	ms, err := m.lookup(id)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if ms.claimOwner == owner {
		ms.claimOwner, ms.claimUntil = "", time.Time{}
	}
	return nil
}

func (m *memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	m.sessions = nil
	return nil
}
