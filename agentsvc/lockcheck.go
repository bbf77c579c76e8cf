package agentsvc

// The lock check: no store call is made while a lock of this package is held (a store call
// can take seconds; a session's lock held across one stalls its page, its turn and the
// claim renewal), and no lock of the package is taken while another is held (no lock
// order to keep: the session's lock, the hub's, a socket's, the relay's and the server's
// are each taken alone). Tests turn it on (lockCheck, in TestMain, before any Server); the
// package's mutexes are then counted per goroutine, a Server calls its store through
// checkedStore, and every breach is recorded. Off, it costs one atomic load per lock.

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/byomcp/byomcp/agentsvc/store"
)

var (
	lockCheck      atomic.Bool
	heldLocks      sync.Map // goroutine id → *atomic.Int32: locks of this package it holds
	lockViolations atomic.Int64
	firstViolation atomic.Pointer[string]
)

// mutex is sync.Mutex, counted by the lock check.
type mutex struct{ sync.Mutex }

func (m *mutex) Lock() {
	m.Mutex.Lock()
	if lockCheck.Load() && locksHeld().Add(1) > 1 {
		violation("a lock taken with another of the package held")
	}
}

func (m *mutex) Unlock() {
	if lockCheck.Load() {
		locksHeld().Add(-1)
	}
	m.Mutex.Unlock()
}

// locksHeld is the calling goroutine's count of held locks.
func locksHeld() *atomic.Int32 {
	id := lockerID()
	if c, ok := heldLocks.Load(id); ok {
		return c.(*atomic.Int32)
	}
	c, _ := heldLocks.LoadOrStore(id, new(atomic.Int32))
	return c.(*atomic.Int32)
}

func lockerID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, _ := strconv.ParseUint(string(b), 10, 64)
	return id
}

// noLockHeld records a store call made with a lock of this package held.
func noLockHeld(call string) {
	if !lockCheck.Load() || locksHeld().Load() == 0 {
		return
	}
	violation("store." + call + " called with a lock held")
}

// violation records one breach of the lock rules, with the first one's stack.
func violation(what string) {
	lockViolations.Add(1)
	stack := make([]byte, 8<<10)
	s := fmt.Sprintf("%s:\n%s", what, stack[:runtime.Stack(stack, false)])
	firstViolation.CompareAndSwap(nil, &s)
}

// checkedStore is a Server's store with the lock check.
type checkedStore struct{ store.Store }

func (s checkedStore) Create(ctx context.Context, ss *store.Session) error {
	noLockHeld("Create")
	return s.Store.Create(ctx, ss)
}

func (s checkedStore) CreateClaimed(ctx context.Context, ss *store.Session, owner string, ttl time.Duration) error {
	noLockHeld("CreateClaimed")
	return s.Store.CreateClaimed(ctx, ss, owner, ttl)
}

func (s checkedStore) Load(ctx context.Context, id string) (*store.Session, error) {
	noLockHeld("Load")
	return s.Store.Load(ctx, id)
}

func (s checkedStore) Append(ctx context.Context, id string, b store.Batch) error {
	noLockHeld("Append")
	return s.Store.Append(ctx, id, b)
}

func (s checkedStore) EventsAfter(ctx context.Context, id string, after int64, limit int) ([]store.Event, error) {
	noLockHeld("EventsAfter")
	return s.Store.EventsAfter(ctx, id, after, limit)
}

func (s checkedStore) List(ctx context.Context, o store.ListOptions) ([]*store.Session, error) {
	noLockHeld("List")
	return s.Store.List(ctx, o)
}

func (s checkedStore) Delete(ctx context.Context, id string) error {
	noLockHeld("Delete")
	return s.Store.Delete(ctx, id)
}

func (s checkedStore) ExpireIdle(ctx context.Context, before time.Time) (int, error) {
	noLockHeld("ExpireIdle")
	return s.Store.ExpireIdle(ctx, before)
}

func (s checkedStore) Claim(ctx context.Context, id, owner string, ttl time.Duration) (bool, string, error) {
	noLockHeld("Claim")
	return s.Store.Claim(ctx, id, owner, ttl)
}

func (s checkedStore) Release(ctx context.Context, id, owner string) error {
	noLockHeld("Release")
	return s.Store.Release(ctx, id, owner)
}
