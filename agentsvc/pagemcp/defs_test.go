package pagemcp

import (
	"encoding/json"
	"testing"
	"testing/synctest"
	"time"
	"unsafe"

	"go.uber.org/zap/zaptest"

	"github.com/byomcp/byomcp/agentsvc/wire"
)

// sameBytes tells whether a and b are one piece of memory, not two equal copies.
func sameBytes(a, b []byte) bool {
	return len(a) > 0 && len(a) == len(b) && unsafe.SliceData(a) == unsafe.SliceData(b)
}

func sameString(a, b string) bool {
	return len(a) > 0 && len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b)
}

// The tabs open on one page list byte-identical tools: they hold one copy of each
// definition (name, description, schema bytes), decoded once; a tab whose page lists a
// different definition gets its own, and a tab's Tool may still differ where it is its own
// (the description defaulted from the title, confirmation).
func TestPagesShareToolDefinitions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		defs := NewDefCache(16)
		confirmed := "b"
		o := Options{Logger: zaptest.NewLogger(t), OnPanic: failOnPanic(t), Defs: defs, Schemas: NewSchemaCache(16)}
		page := func(tools ...wire.PageTool) *Client {
			// The listing answers after 1 ms of fake time, which cannot pass before the
			// tools are set: this goroutine is not blocked meanwhile.
			p, c := serveRelistPage(t, o, time.Millisecond)
			p.mu.Lock()
			p.tools = tools
			p.mu.Unlock()
			t.Cleanup(func() { p.peer.Close(nil); p.peer.Wait(); c.peer.Wait() })
			return c
		}
		schema := func() json.RawMessage { // a fresh copy each time, as each page sends its own
			return json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)
		}
		a := wire.PageTool{Name: "a", Description: "Search the cars.", InputSchema: schema()}
		b := wire.PageTool{Name: "b", Title: "Book a test drive", InputSchema: schema()}
		tab1 := page(a, b)
		tab2 := page(a, b)
		o.Confirm = func(name string) bool { return name == confirmed } // a site that confirms b
		tab3 := page(a, b)
		other := a
		other.Description = "Search the trucks."
		tab4 := page(other)
		time.Sleep(time.Second) // every listing answered
		synctest.Wait()

		t1, t2, t3, t4 := tab1.Tools(), tab2.Tools(), tab3.Tools(), tab4.Tools()
		if len(t1) != 2 || len(t2) != 2 || len(t3) != 2 || len(t4) != 1 {
			t.Fatalf("got %d, %d, %d, %d tools, want 2, 2, 2, 1", len(t1), len(t2), len(t3), len(t4))
		}
		for i := range t1 {
			if !sameString(t1[i].Description, t2[i].Description) || !sameString(t1[i].Description, t3[i].Description) {
				t.Errorf("tool %s: the tabs hold copies of its description, want one shared", t1[i].Name)
			}
			if !sameBytes(t1[i].InputSchema, t2[i].InputSchema) || !sameBytes(t1[i].InputSchema, t3[i].InputSchema) {
				t.Errorf("tool %s: the tabs hold copies of its schema, want one shared", t1[i].Name)
			}
			if t1[i].schema != t2[i].schema {
				t.Errorf("tool %s: the tabs hold two compiled schemas, want one", t1[i].Name)
			}
		}
		if got := t1[1].Description; got != "Book a test drive" {
			t.Errorf("b's description: got %q, want its title", got)
		}
		if t1[1].confirm || !t3[1].confirm {
			t.Errorf("b confirmed: tab1 %v, tab3 %v; want false, true (tab3's site confirms it)", t1[1].confirm, t3[1].confirm)
		}
		if t4[0].Description != "Search the trucks." || sameString(t4[0].Description, t1[0].Description) {
			t.Errorf("another definition of a: got %q, want its own description", t4[0].Description)
		}
		if n := defs.Len(); n != 3 {
			t.Errorf("got %d interned definitions, want 3 (a, b, the other a)", n)
		}
	})
}

// A tool whose definition does not decode fails the listing, as a tools/list result that
// does not decode did before, and is not interned.
func TestDefCacheRefusesUndecodable(t *testing.T) {
	defs := NewDefCache(4)
	if _, err := defs.Decode(json.RawMessage(`{"name":5}`)); err == nil {
		t.Error("a definition with a numeric name decoded, want an error")
	}
	if n := defs.Len(); n != 0 {
		t.Errorf("got %d interned definitions, want 0", n)
	}
	for i := range 10 { // bounded
		if _, err := defs.Decode(json.RawMessage(`{"name":"t` + string(rune('a'+i)) + `"}`)); err != nil {
			t.Fatal(err)
		}
	}
	if n := defs.Len(); n > 4 {
		t.Errorf("got %d interned definitions, want at most 4", n)
	}
}
