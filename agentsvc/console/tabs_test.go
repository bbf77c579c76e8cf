package console

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/byomcp/byomcp/agentsvc/store"
)

// bigTabs returns n tabs, each with one tool of its own whose definition (description and
// schema) is about size bytes: what a hostile or careless page can register.
func bigTabs(n, size int) []Tab {
	start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	tabs := make([]Tab, n)
	for i := range tabs {
		var schema bytes.Buffer
		schema.WriteString(`{"type":"object","properties":{`)
		for j := 0; schema.Len() < size/2; j++ {
			if j > 0 {
				schema.WriteByte(',')
			}
			fmt.Fprintf(&schema, `"p%d_%d":{"type":"string","description":"a property of tab %d"}`, i, j, i)
		}
		schema.WriteString(`}}`)
		tabs[i] = Tab{ConnID: fmt.Sprintf("c%04d", i), Origin: "https://shop.example", SessionID: fmt.Sprintf("s%04d", i),
			URL: "https://shop.example/cars", Title: "Cars", Since: start.Add(time.Duration(i) * time.Second),
			Tools: []Tool{{Name: fmt.Sprintf("tool_%d", i), Description: strings.Repeat("d", size/2), InputSchema: schema.Bytes()}}}
	}
	return tabs
}

func newTabsFixture(t *testing.T, tabs []Tab) (*Handler, *http.Cookie) {
	t.Helper()
	st := store.NewMemory()
	t.Cleanup(func() { _ = st.Close() })
	feed := NewFeed(nil)
	h, err := New(Options{Token: token, Store: st, Feed: feed, Gatherer: prometheus.Gatherers{feed.Gatherer()},
		Tabs: func() []Tab { return append([]Tab(nil), tabs...) }})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{h: h}
	return h, f.signIn(t)
}

// refreshCost serves one GET of path and returns the bytes the process allocated meanwhile
// (runtime.MemStats.TotalAlloc, the response's buffer included) and the response's size.
func refreshCost(t *testing.T, h *Handler, c *http.Cookie, path string) (alloc uint64, size int) {
	t.Helper()
	req := httptest.NewRequest("GET", path, nil)
	req.AddCookie(c)
	rec := httptest.NewRecorder()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	h.ServeHTTP(rec, req)
	runtime.ReadMemStats(&after)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
	}
	return after.TotalAlloc - before.TotalAlloc, rec.Body.Len()
}

// peakRSS reads the process's peak resident set (VmHWM of /proc/self/status), in bytes.
func peakRSS(t *testing.T) uint64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status (%v): the peak RSS cannot be read here", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Skip("no VmHWM in /proc/self/status")
	return 0
}

// TestTabsRefreshBoundedByToolSize: a refresh of the console's tab list costs the same
// whatever the size of the tabs' tool definitions (issue 36, item 2). 200 tabs whose tools
// are about 250 KiB each against the same tabs with 1 KiB tools: the response and the bytes
// allocated per refresh stay within a small margin of each other and under maxRefreshAlloc;
// five refreshes at once raise the process's peak RSS by less than maxRefreshRSS.
func TestTabsRefreshBoundedByToolSize(t *testing.T) {
	const (
		n               = 200
		maxRefreshAlloc = 2 << 20  // bytes allocated by one refresh of 200 tabs
		maxRefreshRSS   = 64 << 20 // peak RSS growth of five refreshes at once
	)
	path := fmt.Sprintf("/console/api/tabs?limit=%d", n)
	small, cs := newTabsFixture(t, bigTabs(n, 1<<10))
	big, cb := newTabsFixture(t, bigTabs(n, 250<<10))
	refreshCost(t, small, cs, path) // warm: the definitions' hashes are computed once
	refreshCost(t, big, cb, path)
	allocSmall, sizeSmall := refreshCost(t, small, cs, path)
	allocBig, sizeBig := refreshCost(t, big, cb, path)
	t.Logf("one refresh of %d tabs: 1 KiB tools: %d bytes sent, %d allocated; 250 KiB tools: %d bytes sent, %d allocated", n, sizeSmall, allocSmall, sizeBig, allocBig)
	if sizeBig > sizeSmall+n*16 {
		t.Errorf("response with 250 KiB tools: %d bytes, with 1 KiB tools %d: want the same but for the numbers", sizeBig, sizeSmall)
	}
	if allocBig > maxRefreshAlloc || allocBig > allocSmall+1<<20 {
		t.Errorf("a refresh with 250 KiB tools allocated %d bytes (1 KiB tools: %d), want under %d and independent of the tools' size", allocBig, allocSmall, maxRefreshAlloc)
	}

	runtime.GC()
	base := peakRSS(t)
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			req := httptest.NewRequest("GET", path, nil)
			req.AddCookie(cb)
			rec := httptest.NewRecorder()
			big.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				t.Errorf("refresh: %d", rec.Code)
			}
		})
	}
	wg.Wait()
	grew := peakRSS(t) - base
	t.Logf("five refreshes at once: peak RSS grew by %d bytes", grew)
	if grew > maxRefreshRSS {
		t.Errorf("five refreshes at once raised the peak RSS by %d bytes, want under %d", grew, maxRefreshRSS)
	}
	var tabs []json.RawMessage
	req := httptest.NewRequest("GET", path, nil)
	req.AddCookie(cb)
	rec := httptest.NewRecorder()
	big.ServeHTTP(rec, req)
	if err := json.Unmarshal(rec.Body.Bytes(), &tabs); err != nil || len(tabs) != n {
		t.Errorf("tabs: %d (%v), want %d", len(tabs), err, n)
	}
}

// TestTabsPagedAndToolsByRef: the list comes in pages that follow each other without a gap
// or a repeat; a listed reference gives its tool's definition; bad parameters get 400 with
// the reason, and a reference no open tab has gets 404.
func TestTabsPagedAndToolsByRef(t *testing.T) {
	tabs := bigTabs(25, 2<<10)
	h, c := newTabsFixture(t, tabs)
	f := &fixture{h: h}
	seen := map[string]bool{}
	var refs []ToolRef
	after, pages := "", 0
	for {
		path := "/console/api/tabs?limit=10"
		if after != "" {
			path += "&after=" + after
		}
		rec := f.do("GET", path, "", nil, c)
		var page []TabView
		if err := json.Unmarshal(rec.Body.Bytes(), &page); rec.Code != 200 || err != nil {
			t.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
		if got := rec.Header().Get("X-Byomcp-Tabs-Total"); got != "25" {
			t.Errorf("X-Byomcp-Tabs-Total %q, want 25", got)
		}
		pages++
		for _, tab := range page {
			if seen[tab.ConnID] {
				t.Errorf("tab %s listed twice", tab.ConnID)
			}
			seen[tab.ConnID] = true
			if tab.ToolCount != 1 || len(tab.Tools) != 1 {
				t.Fatalf("tab %+v, want its one tool listed", tab)
			}
			refs = append(refs, tab.Tools[0])
		}
		after = rec.Header().Get("X-Byomcp-Next")
		if after == "" {
			break
		}
		if pages > 3 {
			t.Fatal("more than 3 pages of 10 for 25 tabs")
		}
	}
	if pages != 3 || len(seen) != 25 {
		t.Errorf("%d pages, %d tabs; want 3 pages, 25 tabs", pages, len(seen))
	}
	for i, r := range []ToolRef{refs[0], refs[24]} {
		var def Tool
		rec := f.do("GET", "/console/api/tools/"+r.Ref, "", nil, c)
		if err := json.Unmarshal(rec.Body.Bytes(), &def); rec.Code != 200 || err != nil || def.Name != r.Name {
			t.Fatalf("tool %d (%s): %d %.200s", i, r.Name, rec.Code, rec.Body)
		}
		want := tabs[0].Tools[0]
		if i == 1 {
			want = tabs[24].Tools[0]
		}
		if def.Description != want.Description || !bytes.Equal(def.InputSchema, want.InputSchema) {
			t.Errorf("tool %s: the definition differs from the page's", r.Name)
		}
	}
	for _, tc := range []struct {
		path string
		code int
	}{
		{"/console/api/tabs?limit=0", 400},
		{"/console/api/tabs?limit=501", 400},
		{"/console/api/tabs?limit=x", 400},
		{"/console/api/tabs?after=not-a-cursor", 400},
		{"/console/api/tools/xyz", 400},
		{"/console/api/tools/" + strings.Repeat("0", refLen), 404},
	} {
		if rec := f.do("GET", tc.path, "", nil, c); rec.Code != tc.code || !strings.Contains(rec.Body.String(), `"error"`) {
			t.Errorf("GET %s: %d %s, want %d with an error", tc.path, rec.Code, rec.Body, tc.code)
		}
	}
	// The definition's reference is its content's: the same definition in another tab (the
	// tabs of one page) has the same one, a changed one another.
	same := Tool{Name: tabs[3].Tools[0].Name, Description: strings.Clone(tabs[3].Tools[0].Description), InputSchema: bytes.Clone(tabs[3].Tools[0].InputSchema)}
	if hashTool(same) != refs[3].Ref || h.refs.ref(same) != refs[3].Ref {
		t.Error("a copy of a definition has another reference")
	}
	same.InputSchema = append(same.InputSchema[:len(same.InputSchema)-1:len(same.InputSchema)-1], ' ', '}')
	if h.refs.ref(same) == refs[3].Ref {
		t.Error("a changed definition has the same reference")
	}
}
