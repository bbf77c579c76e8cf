package store

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// The Redis store's Bus: Redis pub/sub on channels under the store's prefix. One pub/sub
// connection per store carries every subscription; one goroutine reads it and calls the
// subscribers. When the connection breaks, go-redis reconnects and subscribes again, and
// every subscriber is then called with a nil message (it may have missed some).

// redisBus is the pub/sub side of a redisStore.
//
// Lock order: mu is a leaf; subscribers are called without it.
type redisBus struct {
	mu      sync.Mutex
	ps      *redis.PubSub
	subs    map[string]map[int]func(string, []byte) // full channel (or pattern) → subscribers
	next    int
	waiting map[string][]chan struct{} // full channel → Subscribe calls waiting for its confirmation
	broken  bool                       // the connection broke; subscribers are told once it is back
	stop    context.CancelFunc
	stopped bool
}

func (s *redisStore) Publish(ctx context.Context, channel string, msg []byte) error {
	if s.closed.Load() {
		return ErrClosed
	}
	if err := s.c.Publish(ctx, s.prefix+channel, msg).Err(); err != nil {
		return s.fail("publish", err)
	}
	return nil
}

func (s *redisStore) Subscribe(ctx context.Context, channel string, fn func(string, []byte)) (func(), error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	b := &s.bus
	full := s.prefix + channel
	pattern := strings.HasSuffix(channel, "*")
	b.mu.Lock()
	if b.stopped {
		b.mu.Unlock()
		return nil, ErrClosed
	}
	if b.ps == nil {
		b.ps = s.c.Subscribe(context.Background())
		b.subs = map[string]map[int]func(string, []byte){}
		b.waiting = map[string][]chan struct{}{}
		rctx, stop := context.WithCancel(context.Background())
		b.stop = stop
		go b.receive(rctx, s.prefix)
	}
	b.next++
	id := b.next
	fns := b.subs[full]
	first := fns == nil
	if first {
		fns = map[int]func(string, []byte){}
		b.subs[full] = fns
	}
	fns[id] = fn
	var confirmed chan struct{}
	if first || len(b.waiting[full]) > 0 {
		confirmed = make(chan struct{})
		b.waiting[full] = append(b.waiting[full], confirmed)
	}
	ps := b.ps
	b.mu.Unlock()
	unsubscribe := func() { b.unsubscribe(full, id, pattern) }
	if first {
		var err error
		if pattern {
			err = ps.PSubscribe(ctx, full)
		} else {
			err = ps.Subscribe(ctx, full)
		}
		if err != nil {
			unsubscribe()
			return nil, s.fail("subscribe", err)
		}
	}
	if confirmed != nil {
		select {
		case <-confirmed:
		case <-ctx.Done():
			unsubscribe()
			return nil, s.fail("subscribe", ctx.Err())
		}
	}
	return unsubscribe, nil
}

func (b *redisBus) unsubscribe(full string, id int, pattern bool) {
	b.mu.Lock()
	fns := b.subs[full]
	if _, ok := fns[id]; !ok {
		b.mu.Unlock()
		return
	}
	delete(fns, id)
	last := len(fns) == 0
	if last {
		delete(b.subs, full)
	}
	ps := b.ps
	b.mu.Unlock()
	if !last || ps == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if pattern {
		_ = ps.PUnsubscribe(ctx, full)
	} else {
		_ = ps.Unsubscribe(ctx, full)
	}
}

// receive reads the pub/sub connection until the store closes.
func (b *redisBus) receive(ctx context.Context, prefix string) {
	b.mu.Lock()
	ps := b.ps
	b.mu.Unlock()
	backoff := 50 * time.Millisecond
	for ctx.Err() == nil {
		msg, err := ps.ReceiveTimeout(ctx, 15*time.Second)
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				_ = ps.Ping(ctx) // a silently dead connection fails here and is replaced
				continue
			}
			b.mu.Lock()
			b.broken = true
			b.mu.Unlock()
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
			backoff = min(2*backoff, 2*time.Second)
			continue
		}
		backoff = 50 * time.Millisecond
		switch m := msg.(type) {
		case *redis.Subscription:
			if m.Kind != "subscribe" && m.Kind != "psubscribe" {
				continue
			}
			b.mu.Lock()
			for _, ch := range b.waiting[m.Channel] {
				close(ch)
			}
			delete(b.waiting, m.Channel)
			var all []func(string, []byte)
			var chans []string
			if b.broken { // subscribed again after a break: everyone may have missed messages
				b.broken = false
				for full, fns := range b.subs {
					for _, fn := range fns {
						all = append(all, fn)
						chans = append(chans, strings.TrimPrefix(full, prefix))
					}
				}
			}
			b.mu.Unlock()
			for i, fn := range all {
				fn(chans[i], nil)
			}
		case *redis.Message:
			key := m.Channel
			if m.Pattern != "" {
				key = m.Pattern
			}
			b.mu.Lock()
			fns := make([]func(string, []byte), 0, len(b.subs[key]))
			for _, fn := range b.subs[key] {
				fns = append(fns, fn)
			}
			b.mu.Unlock()
			ch := strings.TrimPrefix(m.Channel, prefix)
			for _, fn := range fns {
				fn(ch, []byte(m.Payload))
			}
		}
	}
}

func (b *redisBus) close() {
	b.mu.Lock()
	b.stopped = true
	ps, stop := b.ps, b.stop
	b.mu.Unlock()
	if stop != nil {
		stop()
	}
	if ps != nil {
		_ = ps.Close()
	}
}
