package console

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"go.uber.org/zap"
)

// The tab list (GET /console/api/tabs) costs the same whatever the size of the tools the
// pages registered: each tab lists its tools' names with a reference to each definition (a
// hash of its content); the definition itself is sent once, when the operator opens it
// (GET /console/api/tools/{ref}), and the page keeps it. The list comes in pages.

// TabView is one tab as the console lists it.
type TabView struct {
	Replica   string    `json:"replica,omitempty"`
	ConnID    string    `json:"connId"`
	Origin    string    `json:"origin"`
	Site      string    `json:"site"`
	SessionID string    `json:"sessionId,omitempty"`
	URL       string    `json:"url,omitempty"`
	Title     string    `json:"title,omitempty"`
	Since     time.Time `json:"since"`
	ToolCount int       `json:"toolCount"`
	Tools     []ToolRef `json:"tools"`
	// ReplicaLate marks a tab of another replica whose presence is late (presenceLate): that
	// replica has not renewed it in time and may be dead; the console shows "replica not
	// answering" until it renews it or its presence expires.
	ReplicaLate bool `json:"replicaLate,omitempty"`
}

// ToolRef names a tool of a tab and references its definition.
type ToolRef struct {
	Name string `json:"name"`
	Ref  string `json:"ref"`
}

const (
	defaultTabsPage = 100
	maxTabsPage     = 500
	// maxTextShown bounds the page URL and title of a listed tab (a page chooses them).
	maxTextShown = 1024
	// maxToolsListed bounds the tool names listed for one tab (a page's tools reach the model
	// 128 at most; ToolCount says how many there are).
	maxToolsListed = 128
	maxNameShown   = 128
)

// clip cuts s to at most n bytes, on a rune boundary, marked with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// view is the listed form of t, its tools' definitions referenced by refs.
func (h *Handler) view(t Tab) TabView {
	v := TabView{Replica: t.Replica, ConnID: t.ConnID, Origin: clip(t.Origin, maxTextShown), SessionID: t.SessionID,
		URL: clip(t.URL, maxTextShown), Title: clip(t.Title, maxTextShown), Since: t.Since, ToolCount: len(t.Tools), Tools: []ToolRef{}}
	for i, tool := range t.Tools {
		if i == maxToolsListed {
			break
		}
		v.Tools = append(v.Tools, ToolRef{Name: clip(tool.Name, maxNameShown), Ref: h.refs.ref(tool)})
	}
	return v
}

// tabCursor is where a page of the list ends: tabs are ordered by replica, then by when they
// opened, then by connection.
type tabCursor struct {
	Replica string
	Since   time.Time
	ConnID  string
}

func compareTabs(a, b tabCursor) int {
	return cmp.Or(cmp.Compare(a.Replica, b.Replica), a.Since.Compare(b.Since), cmp.Compare(a.ConnID, b.ConnID))
}

func (c tabCursor) String() string {
	b, _ := json.Marshal([]any{c.Replica, c.Since.UnixNano(), c.ConnID})
	return base64.RawURLEncoding.EncodeToString(b)
}

func parseTabCursor(s string) (tabCursor, bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) > 1024 {
		return tabCursor{}, false
	}
	var parts []json.RawMessage
	var c tabCursor
	var nanos int64
	if json.Unmarshal(b, &parts) != nil || len(parts) != 3 || json.Unmarshal(parts[0], &c.Replica) != nil ||
		json.Unmarshal(parts[1], &nanos) != nil || json.Unmarshal(parts[2], &c.ConnID) != nil {
		return tabCursor{}, false
	}
	c.Since = time.Unix(0, nanos).UTC()
	return c, true
}

// tabs serves GET /console/api/tabs?limit=N&after=CURSOR: a page of the open tabs of this
// replica and, with a Cluster, of every replica that publishes its presence (each marked with
// its replica), in the order of tabCursor; at most limit (default 100, at most 500). Headers:
// X-Byomcp-Tabs-Total counts the tabs of every page, X-Byomcp-Next is the cursor of the next
// page (absent on the last), X-Byomcp-Tabs-Hidden counts the tabs of other replicas beyond
// their presence's bound, and X-Byomcp-Cluster says "unavailable" when the other replicas
// could not be read.
func (h *Handler) tabs(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := defaultTabsPage
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxTabsPage {
			writeError(w, http.StatusBadRequest, "limit must be a number from 1 to "+strconv.Itoa(maxTabsPage))
			return
		}
		limit = n
	}
	var after *tabCursor
	if s := q.Get("after"); s != "" {
		c, ok := parseTabCursor(s)
		if !ok {
			writeError(w, http.StatusBadRequest, "after is not a cursor of this list (X-Byomcp-Next)")
			return
		}
		after = &c
	}
	h.consoleUsed()
	local := h.o.Tabs()
	views := make([]TabView, 0, len(local))
	for _, t := range local {
		t.Replica = h.o.Replica
		views = append(views, h.view(t))
	}
	h.refs.sweep()
	remote, hidden, err := h.remoteTabs(r.Context())
	if err != nil {
		h.log.Warn("console: reading the other replicas' tabs failed", zap.Error(err))
		w.Header().Set("X-Byomcp-Cluster", "unavailable")
	}
	views = append(views, remote...)
	key := func(v TabView) tabCursor { return tabCursor{v.Replica, v.Since, v.ConnID} }
	slices.SortFunc(views, func(a, b TabView) int { return compareTabs(key(a), key(b)) })
	total := len(views)
	if after != nil {
		i, _ := slices.BinarySearchFunc(views, *after, func(v TabView, c tabCursor) int { return compareTabs(key(v), c) })
		for i < len(views) && compareTabs(key(views[i]), *after) <= 0 {
			i++
		}
		views = views[i:]
	}
	if len(views) > limit {
		views = views[:limit]
		w.Header().Set("X-Byomcp-Next", key(views[limit-1]).String())
	}
	for i := range views {
		views[i].Site = h.o.SiteOf(views[i].Origin)
	}
	w.Header().Set("X-Byomcp-Tabs-Total", strconv.Itoa(total))
	if hidden > 0 {
		w.Header().Set("X-Byomcp-Tabs-Hidden", strconv.Itoa(hidden))
	}
	writeJSON(w, views)
}

// tool serves GET /console/api/tools/{ref}: the definition of a tool an open tab registered
// ({name, description, inputSchema}), from this replica, or with a Cluster from the replica
// that has it. 404 when no open tab has it (any more).
func (h *Handler) tool(w http.ResponseWriter, r *http.Request) {
	ref := r.PathValue("ref")
	if !validRef(ref) {
		writeError(w, http.StatusBadRequest, "not a tool reference")
		return
	}
	h.consoleUsed()
	if t, ok := h.localTool(ref); ok {
		w.Header().Set("Cache-Control", "private, max-age=3600, immutable") // the ref is the content's hash
		writeJSON(w, t)
		return
	}
	if h.o.Cluster != nil {
		data, err := h.remoteTool(r.Context(), ref)
		if err != nil {
			h.log.Warn("console: reading a tool of another replica failed", zap.Error(err))
			writeError(w, http.StatusServiceUnavailable, "the other replicas could not be read")
			return
		}
		if data != nil {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Cache-Control", "private, max-age=3600, immutable")
			_, _ = w.Write(data)
			return
		}
	}
	writeError(w, http.StatusNotFound, "no open tab has this tool any more")
}

// localTool finds the definition of ref among this replica's open tabs.
func (h *Handler) localTool(ref string) (Tool, bool) {
	if t, ok := h.refs.lookup(ref); ok {
		return t, true
	}
	for _, tab := range h.o.Tabs() {
		for _, t := range tab.Tools {
			if h.refs.ref(t) == ref {
				return t, true
			}
		}
	}
	return Tool{}, false
}

const refLen = 32 // hex digits of a tool reference (128 bits of SHA-256)

func validRef(s string) bool {
	if len(s) != refLen {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// refCache remembers the reference of each tool definition seen in the last two listings, so
// that a definition is hashed once, not at every refresh. It is keyed by the addresses and
// lengths of the definition's bytes (the pages' definitions are interned and never changed)
// and holds the definition itself, so that those addresses cannot be reused by another one
// while it is cached. sweep, after each listing, drops what the listing before did not use.
//
// Lock order: mu is a leaf.
type refCache struct {
	mu    sync.Mutex
	gen   uint64
	byKey map[refKey]*refEntry
	byRef map[string]*refEntry
	idle  *time.Timer // empties the cache refIdle after the last listing
}

// refIdle: with no listing for this long (no console open), the cache lets go of every
// definition it holds.
const refIdle = time.Minute

type refKey struct {
	name, desc, schema    uintptr
	nName, nDesc, nSchema int
}

type refEntry struct {
	tool Tool
	ref  string
	gen  uint64
}

func keyOf(t Tool) refKey {
	return refKey{
		name: uintptr(unsafe.Pointer(unsafe.StringData(t.Name))), nName: len(t.Name),
		desc: uintptr(unsafe.Pointer(unsafe.StringData(t.Description))), nDesc: len(t.Description),
		schema: uintptr(unsafe.Pointer(unsafe.SliceData(t.InputSchema))), nSchema: len(t.InputSchema),
	}
}

// hashTool is the content hash of a definition: SHA-256 of its length-prefixed parts.
func hashTool(t Tool) string {
	s := sha256.New()
	var n [8]byte
	for _, part := range []string{t.Name, t.Description} {
		binary.BigEndian.PutUint64(n[:], uint64(len(part)))
		s.Write(n[:])
		s.Write(unsafe.Slice(unsafe.StringData(part), len(part)))
	}
	binary.BigEndian.PutUint64(n[:], uint64(len(t.InputSchema)))
	s.Write(n[:])
	s.Write(t.InputSchema)
	var sum [sha256.Size]byte
	return hex.EncodeToString(s.Sum(sum[:0])[:refLen/2])
}

func (c *refCache) ref(t Tool) string {
	k := keyOf(t)
	c.mu.Lock()
	if e, ok := c.byKey[k]; ok {
		e.gen = c.gen
		c.mu.Unlock()
		return e.ref
	}
	c.mu.Unlock()
	ref := hashTool(t)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byKey == nil {
		c.byKey, c.byRef = map[refKey]*refEntry{}, map[string]*refEntry{}
	}
	e := &refEntry{tool: t, ref: ref, gen: c.gen}
	c.byKey[k] = e
	c.byRef[ref] = e
	return ref
}

func (c *refCache) lookup(ref string) (Tool, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byRef[ref]; ok {
		return e.tool, true
	}
	return Tool{}, false
}

// sweep ends a listing: entries neither this listing nor the one before used are dropped.
func (c *refCache) sweep() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.idle == nil {
		c.idle = time.AfterFunc(refIdle, func() {
			c.mu.Lock()
			c.byKey, c.byRef = nil, nil
			c.mu.Unlock()
		})
	} else {
		c.idle.Reset(refIdle)
	}
	for k, e := range c.byKey {
		if e.gen+1 < c.gen {
			delete(c.byKey, k)
			if c.byRef[e.ref] == e {
				delete(c.byRef, e.ref)
			}
		}
	}
	c.gen++
}

// remoteTool asks the other replicas for the definition of ref: it is read from the store
// when a replica put it there already, else every replica is asked on the store's channel
// console:want and the one that has it puts it (toolTTL); the store is read again until it
// is there or clusterTimeout passes (nil, nil: no replica has it).
func (h *Handler) remoteTool(ctx context.Context, ref string) ([]byte, error) {
	c := h.o.Cluster
	ctx, cancel := context.WithTimeout(ctx, clusterTimeout)
	defer cancel()
	key := toolKey(ref)
	if data, err := c.Value(ctx, key); err != nil || data != nil {
		return data, err
	}
	if err := c.Publish(ctx, wantChannel, []byte(ref)); err != nil {
		return nil, err
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, nil
		case <-tick.C:
		}
		data, err := c.Value(ctx, key)
		if ctx.Err() != nil {
			return nil, nil
		}
		if err != nil || data != nil {
			return data, err
		}
	}
}
