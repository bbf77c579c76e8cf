package wsrpc

import (
	"context"
	"runtime"
	"testing"
)

// A socket between calls holds no map of calls or requests in flight: most of an agent's
// sockets are idle tabs, and the two emptied maps kept their buckets.
func TestIdlePeerHoldsNoEmptyMaps(t *testing.T) {
	done := make(chan struct{})
	a, b := startPair(t, Options{}, Options{}, func(b *Peer) {
		b.Handle("tools/list", func(context.Context, *Request) (any, error) { return map[string]any{"tools": []any{}}, nil })
		b.Handle("ping", func(context.Context, *Request) (any, error) { return struct{}{}, nil })
		b.HandleStart("agent/chat", func(*Request) Handler {
			return func(context.Context, *Request) (any, error) { return struct{}{}, nil }
		})
		b.HandleNotification("notifications/tools/list_changed", func(context.Context, *Request) { close(done) })
	})
	for _, m := range []string{"tools/list", "ping", "agent/chat"} {
		if err := a.Call(context.Background(), m, nil, nil); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
	}
	if err := a.Notify(context.Background(), "notifications/tools/list_changed", nil); err != nil {
		t.Fatal(err)
	}
	<-done
	for _, p := range []*Peer{a, b} {
		p.mu.Lock()
		pending, inflight := p.pending, p.inflight
		p.mu.Unlock()
		if pending != nil || inflight != nil {
			t.Errorf("an idle peer keeps its maps of calls (%v) and requests (%v) in flight", pending != nil, inflight != nil)
		}
	}
	// inflight is freed after the handler's entry goes, and made again for the next one.
	if err := a.Call(context.Background(), "ping", nil, nil); err != nil {
		t.Fatal(err)
	}
}

// A peer with its handlers registered holds little: its routes were three maps (~0.6 KiB of
// every open socket for four or five methods), its maps of calls and requests in flight
// were made before any was.
func TestPeerWithRoutesIsSmall(t *testing.T) {
	const n = 1000
	held := func() int64 {
		peers := make([]*Peer, n)
		conns := make([]MessageConn, n)
		for i := range conns {
			conns[i], _ = Pipe()
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for i := range peers {
			p := NewPeer(conns[i], Options{})
			p.Handle("ping", func(context.Context, *Request) (any, error) { return struct{}{}, nil })
			for _, m := range []string{"agent/session", "agent/chat", "agent/cancel"} {
				p.HandleStart(m, func(*Request) Handler { return nil })
			}
			p.HandleNotification("notifications/tools/list_changed", func(context.Context, *Request) {})
			peers[i] = p
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(peers)
		return (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n
	}
	// The least of three: what other goroutines of the test binary allocate meanwhile only
	// adds to a reading.
	per := min(held(), held(), held())
	t.Logf("a peer with 5 routes holds %d bytes", per)
	if per > 1300 {
		t.Errorf("a peer with 5 routes holds %d bytes, want at most 1,300", per)
	}
}
