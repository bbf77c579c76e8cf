package console

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"
)

// Several replicas on one Redis store: each one publishes a snapshot of its open tabs (its
// presence, renewed every presenceEvery, gone presenceTTL after the replica stops renewing
// it), and the console of any replica lists the tabs of all. The events every replica
// appends come on the store's pub/sub channel "ev:<sessionId>" as {"origin": …, "events":
// [agent/event params with seq, …]} (optionally with "replica"); the console streams the
// other replicas' ones to its live view beside its own.

// Cluster is what the console shares with the other replicas (store.Shared of a Redis
// store).
type Cluster interface {
	PutPresence(ctx context.Context, replica string, data []byte, ttl time.Duration) error
	DropPresence(ctx context.Context, replica string) error
	Presences(ctx context.Context) (map[string][]byte, error)
	Subscribe(ctx context.Context, channel string, fn func(channel string, msg []byte)) (unsubscribe func(), err error)
}

const (
	presenceEvery = 5 * time.Second
	presenceTTL   = 3 * presenceEvery
	// maxPresenceTabs bounds the tabs of one snapshot (the most recent ones); the snapshot
	// says how many the replica has in all.
	maxPresenceTabs = 2000
	clusterTimeout  = 3 * time.Second
	eventsChannel   = "ev:*"
)

// snapshot is a replica's presence: its tabs, each tool definition once (the tabs of one
// page share them).
type snapshot struct {
	Replica string          `json:"replica"`
	Time    time.Time       `json:"time"`
	Total   int             `json:"total"` // tabs open on the replica, maybe more than Tabs
	Tabs    []snapTab       `json:"tabs"`
	Tools   map[string]Tool `json:"tools"` // by hash of the definition
}

type snapTab struct {
	Tab
	ToolRefs []string `json:"toolRefs"`
}

func makeSnapshot(replica string, now time.Time, tabs []Tab) snapshot {
	s := snapshot{Replica: replica, Time: now, Total: len(tabs), Tabs: []snapTab{}, Tools: map[string]Tool{}}
	if len(tabs) > maxPresenceTabs {
		tabs = slices.Clone(tabs)
		slices.SortFunc(tabs, func(a, b Tab) int { return b.Since.Compare(a.Since) })
		tabs = tabs[:maxPresenceTabs]
	}
	for _, t := range tabs {
		st := snapTab{Tab: t, ToolRefs: []string{}}
		st.Tools = nil
		for _, tool := range t.Tools {
			b, _ := json.Marshal(tool)
			sum := sha256.Sum256(b)
			k := hex.EncodeToString(sum[:12])
			s.Tools[k] = tool
			st.ToolRefs = append(st.ToolRefs, k)
		}
		s.Tabs = append(s.Tabs, st)
	}
	return s
}

func (s snapshot) tabs() []Tab {
	out := make([]Tab, 0, len(s.Tabs))
	for _, st := range s.Tabs {
		t := st.Tab
		t.Replica = s.Replica
		t.Tools = []Tool{}
		for _, k := range st.ToolRefs {
			if tool, ok := s.Tools[k]; ok {
				t.Tools = append(t.Tools, tool)
			}
		}
		out = append(out, t)
	}
	return out
}

// remoteTabs are the tabs of the other replicas' snapshots, and the number of tabs they hold
// beyond their snapshots.
func (h *Handler) remoteTabs(ctx context.Context) (tabs []Tab, hidden int, err error) {
	if h.o.Cluster == nil {
		return nil, 0, nil
	}
	ctx, cancel := context.WithTimeout(ctx, clusterTimeout)
	defer cancel()
	all, err := h.o.Cluster.Presences(ctx)
	if err != nil {
		return nil, 0, err
	}
	owners := map[string]string{}
	for replica, data := range all {
		if replica == h.o.Replica {
			continue
		}
		var s snapshot
		if json.Unmarshal(data, &s) != nil {
			h.log.Warn("console: a replica's presence does not decode", zap.String("replica", replica))
			continue
		}
		s.Replica = replica
		for _, t := range s.tabs() {
			tabs = append(tabs, t)
			if t.SessionID != "" {
				owners[t.SessionID] = replica
			}
		}
		hidden += s.Total - len(s.Tabs)
	}
	h.owners.set(owners)
	return tabs, hidden, nil
}

// owners maps the sessions of the other replicas' tabs to their replica, as the last
// snapshots read said (to name the replica of an event that does not say it).
type owners struct {
	mu sync.Mutex
	m  map[string]string
}

func (o *owners) set(m map[string]string) {
	o.mu.Lock()
	o.m = m
	o.mu.Unlock()
}

func (o *owners) of(session string) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.m[session]
}

// Run publishes this replica's presence until ctx ends (then removes it), and streams the
// other replicas' events into the Feed. Without Options.Cluster it returns at once.
func (h *Handler) Run(ctx context.Context) {
	c := h.o.Cluster
	if c == nil {
		return
	}
	h.o.Feed.trackSeqs()
	var unsubscribe func()
	subscribe := func() {
		sctx, cancel := context.WithTimeout(ctx, clusterTimeout)
		defer cancel()
		u, err := c.Subscribe(sctx, eventsChannel, h.remoteEvents)
		if err != nil {
			h.log.Warn("console: subscribing to the other replicas' events failed; trying again", zap.Error(err))
			return
		}
		unsubscribe = u
	}
	subscribe()
	defer func() {
		if unsubscribe != nil {
			unsubscribe()
		}
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), clusterTimeout)
		defer cancel()
		_ = c.DropPresence(dctx, h.o.Replica)
	}()
	tick := time.NewTicker(presenceEvery)
	defer tick.Stop()
	for {
		h.putPresence(ctx)
		if unsubscribe == nil {
			subscribe()
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if h.o.Feed.watched() {
			_, _, _ = h.remoteTabs(ctx) // keeps the owners of sessions fresh for the live view
		}
	}
}

func (h *Handler) putPresence(ctx context.Context) {
	defer func() {
		if v := recover(); v != nil {
			h.log.Error("console: panic publishing the presence", zap.Any("panic", v), zap.Stack("stack"))
		}
	}()
	data, err := json.Marshal(makeSnapshot(h.o.Replica, h.o.Now(), h.o.Tabs()))
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, clusterTimeout)
	defer cancel()
	if err := h.o.Cluster.PutPresence(ctx, h.o.Replica, data, presenceTTL); err != nil && ctx.Err() == nil {
		h.log.Warn("console: publishing this replica's tabs failed", zap.Error(err))
	}
}

// remoteEvents takes a message of a session's events channel.
func (h *Handler) remoteEvents(channel string, msg []byte) {
	if msg == nil { // the subscription broke and is back: what was missed is in the store
		return
	}
	var m struct {
		Origin  string            `json:"origin"`
		Replica string            `json:"replica"`
		Events  []json.RawMessage `json:"events"`
	}
	id, ok := cutPrefix(channel, "ev:")
	if !ok || json.Unmarshal(msg, &m) != nil || m.Replica == h.o.Replica && m.Replica != "" {
		return
	}
	replica := m.Replica
	if replica == "" {
		replica = h.owners.of(id)
	}
	for _, ev := range m.Events {
		h.o.Feed.PublishRemote(replica, m.Origin, id, ev)
	}
}

func cutPrefix(s, p string) (string, bool) {
	if len(s) < len(p) || s[:len(p)] != p {
		return s, false
	}
	return s[len(p):], true
}
