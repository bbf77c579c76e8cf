package store_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"

	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/store/storetest"
)

// TestBusCarriesAppendedEvents: every Append that adds events publishes them, with the
// session's origin, on the session's channel and on the all-sessions pattern, to
// subscribers of another store on the same Redis (another replica), once they subscribed;
// an unsubscribed one gets nothing more.
func TestBusCarriesAppendedEvents(t *testing.T) {
	for _, kind := range []string{"memory", "miniredis", "redis-server"} {
		t.Run(kind, func(t *testing.T) {
			var a, b store.Store
			switch kind {
			case "memory":
				if store.BusOf(store.NewMemory()) != nil {
					t.Fatal("a plain memory store has a bus")
				}
				a = store.NewMemoryWithBus()
				b = a
			case "miniredis":
				m := miniredis.RunT(t)
				a = openRedis(t, "redis://"+m.Addr(), store.RedisOptions{})
				b = openRedis(t, "redis://"+m.Addr(), store.RedisOptions{})
			default:
				url := storetest.RedisServer(t)
				a = openRedis(t, url, store.RedisOptions{})
				b = openRedis(t, url, store.RedisOptions{})
			}
			ctx := t.Context()
			bus := store.BusOf(b)
			if bus == nil {
				t.Fatal("the store has no bus")
			}
			one := make(chan []byte, 16)
			all := make(chan string, 16)
			unsub, err := bus.Subscribe(ctx, store.EventsChannel("s1"), func(_ string, msg []byte) { one <- msg })
			if err != nil {
				t.Fatal(err)
			}
			unsubAll, err := bus.Subscribe(ctx, store.AllEventsChannel, func(ch string, _ []byte) { all <- ch })
			if err != nil {
				t.Fatal(err)
			}
			defer unsubAll()
			if err := a.Create(ctx, &store.Session{ID: "s1", Origin: `https://shop.example`}); err != nil {
				t.Fatal(err)
			}
			if err := a.Create(ctx, &store.Session{ID: "s2", Origin: `https://other.example`}); err != nil {
				t.Fatal(err)
			}
			ev := func(seq int64) store.Event {
				return store.Event{Seq: seq, Data: []byte(fmt.Sprintf(`{"type":"text_delta","seq":%d,"delta":"a:b"}`, seq))}
			}
			// The replica that writes holds the session's claim: the message names it, so
			// that a listener can tell its own events from the others' (the console).
			if ok, _, err := a.Claim(ctx, "s1", "replica-a", time.Minute); err != nil || !ok {
				t.Fatalf("claim: %v %v", ok, err)
			}
			if err := a.Append(ctx, "s1", store.Batch{Events: []store.Event{ev(1), ev(2)}}); err != nil {
				t.Fatal(err)
			}
			if err := a.Append(ctx, "s1", store.Batch{}); err != nil { // no events: nothing published
				t.Fatal(err)
			}
			if err := a.Append(ctx, "s2", store.Batch{Events: []store.Event{ev(1)}}); err != nil {
				t.Fatal(err)
			}
			msg := recv(t, one)
			id, origin, evs, err := store.DecodeAppended(store.EventsChannel("s1"), msg)
			if err != nil {
				t.Fatalf("decoding %s: %v", msg, err)
			}
			if id != "s1" || origin != "https://shop.example" || len(evs) != 2 || evs[0].Seq != 1 || evs[1].Seq != 2 || string(evs[1].Data) != string(ev(2).Data) {
				t.Fatalf("got %s %s %+v", id, origin, evs)
			}
			var ap store.Appended
			if err := json.Unmarshal(msg, &ap); err != nil || ap.Replica != "replica-a" {
				t.Errorf("got %s, want the claim holder replica-a named (%v)", msg, err)
			}
			if got := []string{recv(t, all), recv(t, all)}; got[0] != "ev:s1" || got[1] != "ev:s2" {
				t.Fatalf("the pattern subscriber got %v", got)
			}
			unsub()
			if err := a.Append(ctx, "s1", store.Batch{Events: []store.Event{ev(3)}}); err != nil {
				t.Fatal(err)
			}
			if recv(t, all) != "ev:s1" {
				t.Fatal("pattern subscriber missed the third event")
			}
			select {
			case m := <-one:
				t.Fatalf("unsubscribed, yet got %s", m)
			default:
			}
			if err := bus.Publish(ctx, "r:x", []byte("hello")); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func recv[T any](t *testing.T, ch chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatal("nothing received")
	}
	var zero T
	return zero
}
