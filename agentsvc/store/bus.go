package store

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
)

// Bus carries messages between the processes that share a store: Redis pub/sub for the
// Redis store, and within the process for the memory store (several servers of one test).
// A SQLite store has none: one process owns its file.
//
// Delivery is at most once: a subscriber that is disconnected misses what is published
// meanwhile. It is then called with a nil message once it is connected again, so it can
// read back from the store what it may have missed (the store is the truth; the bus only
// says when to look).
type Bus interface {
	// Publish sends msg to the channel's current subscribers.
	Publish(ctx context.Context, channel string, msg []byte) error
	// Subscribe calls fn with every message published on channel from when it returns (the
	// subscription is confirmed by then) until unsubscribe is called; a channel ending in
	// "*" subscribes to every channel with that prefix. fn runs on the bus's delivery
	// goroutine, one message at a time: it must not block, nor call the bus.
	Subscribe(ctx context.Context, channel string, fn func(channel string, msg []byte)) (unsubscribe func(), err error)
}

// BusOf returns the store's bus, or nil when it has none. A Store that wraps another (a
// decorator with an Unwrap() Store method, as errors.Unwrap) has the bus of the one it wraps.
func BusOf(s Store) Bus {
	switch b := s.(type) {
	case interface{ storeBus() Bus }:
		return b.storeBus()
	case interface{ Unwrap() Store }:
		return BusOf(b.Unwrap())
	}
	return nil
}

// NewMemoryWithBus is NewMemory with a bus between the servers of this process that share it
// (tests of several replicas in one process). A plain memory store has none: one server.
func NewMemoryWithBus() Store {
	m := NewMemory().(*memory)
	m.bus = &memBus{}
	return m
}

func (m *memory) storeBus() Bus {
	if m.bus == nil {
		return nil
	}
	return m.bus
}

func (s *redisStore) storeBus() Bus { return s }

// ForgetChannel carries the ids of sessions an operator deleted, so that every process that
// shares the store lets go of its copy and its tabs at once.
const ForgetChannel = "forget"

// EventsChannel is the channel on which every Append that adds events to session id
// publishes them (an Appended, JSON), after they are stored.
func EventsChannel(id string) string { return "ev:" + id }

// AllEventsChannel subscribes to the events appended to every session.
const AllEventsChannel = "ev:*"

// Appended is what an Append publishes on EventsChannel: the session's origin and the
// events it added, in order.
type Appended struct {
	Origin string `json:"origin"`
	// Replica is the session's claim holder when the events were written (the replica that
	// wrote them), "" when none: a listener tells its own events from the others' by it.
	Replica string            `json:"replica,omitempty"`
	Events  []json.RawMessage `json:"events"`
}

// DecodeAppended reads a message of EventsChannel into the session id (from the channel),
// its origin and its events with their seqs.
func DecodeAppended(channel string, msg []byte) (id, origin string, evs []Event, err error) {
	id, ok := strings.CutPrefix(channel, "ev:")
	if !ok {
		return "", "", nil, errors.New("store: not an events channel: " + channel)
	}
	var a Appended
	if err := json.Unmarshal(msg, &a); err != nil {
		return "", "", nil, err
	}
	evs = make([]Event, 0, len(a.Events))
	for _, data := range a.Events {
		var h struct {
			Seq int64 `json:"seq"`
		}
		if err := json.Unmarshal(data, &h); err != nil || h.Seq <= 0 {
			return "", "", nil, errors.New("store: an appended event without its seq")
		}
		evs = append(evs, Event{Seq: h.Seq, Data: data})
	}
	return id, a.Origin, evs, nil
}

// encodeAppended is the message of an Append that added evs.
func encodeAppended(origin, replica string, evs []Event) []byte {
	a := Appended{Origin: origin, Replica: replica, Events: make([]json.RawMessage, len(evs))}
	for i, e := range evs {
		a.Events[i] = e.Data
	}
	b, _ := json.Marshal(a)
	return b
}

// memBus is the memory store's bus: subscribers of this process, called synchronously by
// Publish (with no lock of the store held).
type memBus struct {
	mu   sync.Mutex
	next int
	subs map[int]memSub
}

type memSub struct {
	channel string
	fn      func(string, []byte)
}

func (b *memBus) Publish(_ context.Context, channel string, msg []byte) error {
	b.mu.Lock()
	var fns []func(string, []byte)
	for _, s := range b.subs {
		if s.channel == channel || (strings.HasSuffix(s.channel, "*") && strings.HasPrefix(channel, strings.TrimSuffix(s.channel, "*"))) {
			fns = append(fns, s.fn)
		}
	}
	b.mu.Unlock()
	for _, fn := range fns {
		fn(channel, append([]byte(nil), msg...))
	}
	return nil
}

func (b *memBus) Subscribe(_ context.Context, channel string, fn func(string, []byte)) (func(), error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.subs == nil {
		b.subs = map[int]memSub{}
	}
	b.next++
	id := b.next
	b.subs[id] = memSub{channel, fn}
	return func() {
		b.mu.Lock()
		delete(b.subs, id)
		b.mu.Unlock()
	}, nil
}
