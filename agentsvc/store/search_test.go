package store_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/store/storetest"
)

// searchStores are the stores Search runs on, each opened empty.
var searchStores = []struct {
	name string
	open func(t *testing.T) store.Store
}{
	{"memory", func(t *testing.T) store.Store { s := store.NewMemory(); t.Cleanup(func() { s.Close() }); return s }},
	{"sqlite", func(t *testing.T) store.Store {
		s := openSQLite(t, filepath.Join(t.TempDir(), "s.db"), nil)
		t.Cleanup(func() { s.Close() })
		return s
	}},
	{"redis", func(t *testing.T) store.Store { return openRedis(t, storetest.RedisServer(t), store.RedisOptions{}) }},
}

// TestSearchEverySession: with 620 sessions, a word said only in the oldest one, in a tool
// result, in a JSON-escaped form and in the page title are found; paging through Next visits
// every session once, in List's order.
func TestSearchEverySession(t *testing.T) {
	for _, tc := range searchStores {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			st := tc.open(t)
			start := time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)
			now := start
			store.SetClock(st, func() time.Time { return now })
			const n = 620
			for i := range n {
				now = start.Add(time.Duration(i) * time.Minute)
				id := fmt.Sprintf("s%04d", i)
				if err := st.Create(ctx, &store.Session{ID: id, Origin: "https://shop.example", Page: store.Page{URL: "https://shop.example/cars", Title: "Cars"}, CreatedAt: now}); err != nil {
					t.Fatal(err)
				}
				text := fmt.Sprintf("car number %d", i)
				if i == 0 {
					text = `the Zephyr "blue" <edition> & more`
				}
				if i == 7 {
					text = "ordinary"
				}
				data, _ := json.Marshal(map[string]any{"seq": 1, "type": "tool_result", "turnId": "t1", "callId": "c1", "name": "search_cars", "text": text})
				page := (*store.Page)(nil)
				if i == 3 {
					page = &store.Page{URL: "https://shop.example/kia", Title: "Kia Sportage"}
				}
				if err := st.Append(ctx, id, store.Batch{Events: []store.Event{{Seq: 1, Data: data}}, Page: page}); err != nil {
					t.Fatal(err)
				}
			}
			for _, q := range []string{"zephyr", `"BLUE" <EDITION> &`, "kia sportage"} {
				page, err := store.Search(ctx, st, store.SearchOptions{Query: q, Scan: 10000})
				if err != nil {
					t.Fatal(err)
				}
				want := "s0000"
				if q == "kia sportage" {
					want = "s0003"
				}
				if got := sessionIDs(page.Sessions); !slices.Equal(got, []string{want}) || page.Next != "" {
					t.Errorf("Search(%q) = %v next %q, want [%s] and no next", q, got, page.Next, want)
				}
			}
			// Every session once, most recent first, 50 a page; a query that every one holds
			// in its events ("car number" misses only s0000 and s0007).
			for _, q := range []string{"", "car number"} {
				var all []string
				after := ""
				for pages := 0; ; pages++ {
					if pages > n {
						t.Fatal("paging does not end")
					}
					page, err := store.Search(ctx, st, store.SearchOptions{Query: q, After: after, Limit: 50, Scan: 300})
					if err != nil {
						t.Fatal(err)
					}
					all = append(all, sessionIDs(page.Sessions)...)
					if page.Next == "" {
						break
					}
					after = page.Next
				}
				want := n
				if q != "" {
					want = n - 2
				}
				if len(all) != want || all[0] != "s0619" || !slices.IsSortedFunc(all, func(a, b string) int { return -cmpString(a, b) }) || (q != "" && slices.Contains(all, "s0007")) {
					t.Errorf("query %q: paging found %d sessions (first %v), want %d from s0619 down, without s0007", q, len(all), all[:min(3, len(all))], want)
				}
			}
		})
	}
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func sessionIDs(ss []*store.Session) []string {
	out := []string{}
	for _, s := range ss {
		out = append(out, s.ID)
	}
	return out
}

// TestSearchBadCursor: a cursor that Search did not make is refused.
func TestSearchBadCursor(t *testing.T) {
	if _, err := store.Search(t.Context(), store.NewMemory(), store.SearchOptions{After: "x:y:z"}); err == nil {
		t.Error("a bad cursor was accepted")
	}
}
