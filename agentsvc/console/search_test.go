package console

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/store"
)

// TestSearchEveryConversation: with 560 stored conversations, a search finds the oldest one
// (more than the 500 newest a list used to read), and the list pages through all of them
// with the X-Byomcp-Next cursor. On the memory and the SQLite store.
func TestSearchEveryConversation(t *testing.T) {
	for _, kind := range []string{"memory", "sqlite"} {
		t.Run(kind, func(t *testing.T) {
			f := newFixture(t)
			if kind == "sqlite" {
				st, err := store.OpenSQLite(t.Context(), filepath.Join(t.TempDir(), "c.db"))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { st.Close() })
				f.h.o.Store, f.st = st, st
			}
			ctx := t.Context()
			start := time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)
			const n = 560
			for i := range n {
				at := start.Add(time.Duration(i) * time.Minute)
				id := fmt.Sprintf("conv%04d", i)
				if err := f.st.Create(ctx, &store.Session{ID: id, Origin: "https://shop.example", CreatedAt: at}); err != nil {
					t.Fatal(err)
				}
				text := fmt.Sprintf("show me car %d", i)
				if i == 0 {
					text = "do you have a Quokka edition?"
				}
				ev, _ := json.Marshal(map[string]any{"seq": 1, "type": "turn_start", "turnId": "t1", "text": text, "time": at.UnixMilli()})
				if err := f.st.Append(ctx, id, store.Batch{Events: []store.Event{{Seq: 1, Data: ev}}}); err != nil {
					t.Fatal(err)
				}
			}
			c := f.signIn(t)
			var found []Summary
			rec := f.do("GET", "/console/api/conversations?q=quokka", "", nil, c)
			if err := json.Unmarshal(rec.Body.Bytes(), &found); err != nil || rec.Code != 200 {
				t.Fatalf("search: %d %s", rec.Code, rec.Body)
			}
			if len(found) != 1 || found[0].ID != "conv0000" || found[0].First != "do you have a Quokka edition?" {
				t.Errorf("search quokka: got %+v, want conv0000 (the oldest of %d)", found, n)
			}
			if next := rec.Header().Get(nextHeader); next != "" {
				t.Errorf("search read the whole store, yet gave a next cursor %q", next)
			}
			seen := map[string]bool{}
			after := ""
			for pages := 0; ; pages++ {
				if pages > n {
					t.Fatal("paging does not end")
				}
				rec := f.do("GET", "/console/api/conversations?limit=200&after="+url.QueryEscape(after), "", nil, c)
				var list []Summary
				if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil || rec.Code != 200 {
					t.Fatalf("list: %d %s", rec.Code, rec.Body)
				}
				for _, s := range list {
					if seen[s.ID] {
						t.Fatalf("%s listed twice", s.ID)
					}
					seen[s.ID] = true
				}
				if after = rec.Header().Get(nextHeader); after == "" {
					break
				}
			}
			if len(seen) != n || !seen["conv0000"] {
				t.Errorf("paging listed %d conversations, want all %d", len(seen), n)
			}
			if rec := f.do("GET", "/console/api/conversations?after=nonsense", "", nil, c); rec.Code != 400 {
				t.Errorf("bad cursor: got %d, want 400", rec.Code)
			}
		})
	}
}
