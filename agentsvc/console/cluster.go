package console

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"
)

// Several replicas on one Redis store: while a console is open on any of them, each one
// publishes its presence, a bounded summary of its open tabs (no tool definitions: the names
// and references of the tools, see tabs.go) and its health counters (metrics.go), renewed
// every presenceEvery, late past presenceLate, gone presenceTTL after the replica stops
// renewing it; the console of any replica lists the tabs and the health of all. With
// no console open nothing is published: a replica whose console is used sets the store's
// value console:open (renewed every presenceEvery, expiring after presenceTTL) and says so at
// once on the channel console:open; every replica reads that value every presenceEvery.
// A tool's definition goes to another replica's console on demand: that console asks on the
// channel console:want (the reference), and the replica that has it puts it in the store's
// value console:tool:<ref> for toolTTL.
// The events every replica appends come on the store's pub/sub channel "ev:<sessionId>" as
// {"origin": …, "events": [agent/event params with seq, …]} (optionally with "replica"); the
// console streams the other replicas' ones to its live view beside its own.

// Cluster is what the console shares with the other replicas (store.Shared of a Redis
// store).
type Cluster interface {
	PutPresence(ctx context.Context, replica string, data []byte, ttl time.Duration) error
	DropPresence(ctx context.Context, replica string) error
	Presences(ctx context.Context) (map[string][]byte, error)
	// SetValue stores a value for ttl; Value reads it (nil, nil when there is none).
	SetValue(ctx context.Context, key string, val []byte, ttl time.Duration) error
	Value(ctx context.Context, key string) ([]byte, error)
	Publish(ctx context.Context, channel string, msg []byte) error
	Subscribe(ctx context.Context, channel string, fn func(channel string, msg []byte)) (unsubscribe func(), err error)
}

const (
	presenceEvery = 5 * time.Second
	presenceTTL   = 3 * presenceEvery
	// presenceLate is the age past which another replica's presence is late: a replica that
	// runs renews it every presenceEvery, each write given clusterTimeout, so a presence
	// older than both was not renewed when it should have been (the replica is stopped,
	// killed or cut from the store). Its tabs are then marked ReplicaLate and its health
	// Late until the presence is renewed or expires (presenceTTL). The age is measured
	// with the clocks of both replicas: keep them in step (NTP).
	presenceLate = presenceEvery + clusterTimeout
	// maxPresenceTabs bounds the tabs of one presence (the most recent ones); it says how
	// many the replica has in all.
	maxPresenceTabs = 2000
	// maxPresenceSets bounds the distinct lists of tool names of one presence (the tabs of
	// one page share one); a tab past it is listed with its count of tools only.
	maxPresenceSets = 256
	clusterTimeout  = 3 * time.Second
	eventsChannel   = "ev:*"
	consoleChannels = "console:*"
	wantChannel     = "console:want"
	openChannel     = "console:open"
	openKey         = "console:open"
	toolTTL         = 10 * time.Minute
	// maxWants bounds the definitions this replica puts in the store at once for others.
	maxWants = 4
)

func toolKey(ref string) string   { return "console:tool:" + ref }
func revokedKey(id string) string { return "console:revoked:" + id }

// snapshot is a replica's presence: its tabs, each list of tool names once.
type snapshot struct {
	Replica string               `json:"replica"`
	Time    time.Time            `json:"time"`
	Total   int                  `json:"total"` // tabs open on the replica, maybe more than Tabs
	Tabs    []snapTab            `json:"tabs"`
	Sets    map[string][]ToolRef `json:"sets"` // by hash of the list
	// Health is the replica's counters when the snapshot was made (bounded: Health.bounded),
	// so that any replica's console shows every replica's health.
	Health *Health `json:"health,omitempty"`
}

type snapTab struct {
	TabView
	Set string `json:"set,omitempty"` // "": its tools are not listed (past maxPresenceSets)
}

func (h *Handler) makeSnapshot(now time.Time, tabs []Tab) snapshot {
	s := snapshot{Replica: h.o.Replica, Time: now, Total: len(tabs), Tabs: []snapTab{}, Sets: map[string][]ToolRef{}}
	if len(tabs) > maxPresenceTabs {
		tabs = slices.Clone(tabs)
		slices.SortFunc(tabs, func(a, b Tab) int { return b.Since.Compare(a.Since) })
		tabs = tabs[:maxPresenceTabs]
	}
	views := make([]snapTab, len(tabs))
	count := map[string]int{}
	for i, t := range tabs {
		st := snapTab{TabView: h.view(t)}
		sum := sha256.New()
		for _, r := range st.Tools {
			sum.Write([]byte(r.Name + "\x00" + r.Ref + "\x00"))
		}
		st.Set = hex.EncodeToString(sum.Sum(nil)[:12])
		count[st.Set]++
		views[i] = st
	}
	// The lists of the most tabs are kept when there are too many.
	keep := map[string]bool{}
	if len(count) <= maxPresenceSets {
		for k := range count {
			keep[k] = true
		}
	} else {
		sets := slices.Collect(maps.Keys(count))
		slices.SortFunc(sets, func(a, b string) int { return cmp.Or(cmp.Compare(count[b], count[a]), cmp.Compare(a, b)) })
		for _, k := range sets[:maxPresenceSets] {
			keep[k] = true
		}
	}
	for _, st := range views {
		if keep[st.Set] {
			s.Sets[st.Set] = st.Tools
		} else {
			st.Set = ""
		}
		st.Tools = nil
		st.Replica = ""
		s.Tabs = append(s.Tabs, st)
	}
	return s
}

func (s snapshot) tabs() []TabView {
	out := make([]TabView, 0, len(s.Tabs))
	for _, st := range s.Tabs {
		t := st.TabView
		t.Replica = s.Replica
		t.Tools = s.Sets[st.Set]
		if t.Tools == nil {
			t.Tools = []ToolRef{}
		}
		out = append(out, t)
	}
	return out
}

// others are the presences of the other replicas, by replica (none without a Cluster).
func (h *Handler) others(ctx context.Context) (map[string]snapshot, error) {
	if h.o.Cluster == nil {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, clusterTimeout)
	defer cancel()
	all, err := h.o.Cluster.Presences(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]snapshot, len(all))
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
		out[replica] = s
	}
	return out, nil
}

// late tells whether a presence made at t is late (presenceLate).
func (h *Handler) late(t time.Time) bool { return h.o.Now().Sub(t) > presenceLate }

// remoteTabs are the tabs of the other replicas' presences, and the number of tabs they hold
// beyond them.
func (h *Handler) remoteTabs(ctx context.Context) (tabs []TabView, hidden int, err error) {
	if h.o.Cluster == nil {
		return nil, 0, nil
	}
	all, err := h.others(ctx)
	if err != nil {
		return nil, 0, err
	}
	owners := map[string]string{}
	for replica, s := range all {
		late := h.late(s.Time)
		for _, t := range s.tabs() {
			t.ReplicaLate = late
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

// consoleUsed notes that a console asked this replica for something: while it does (and
// for presenceTTL after), the replicas publish their presence. The first use after none
// wakes Run, which tells the other replicas at once.
func (h *Handler) consoleUsed() {
	now := h.o.Now().UnixNano()
	if prev := h.usedAt.Swap(now); now-prev >= int64(presenceTTL) {
		select {
		case h.wake <- struct{}{}:
		default:
		}
	}
}

// consoleOpen tells whether a console is open on this replica: a live view is connected, or
// the tabs or a tool were asked for within presenceTTL.
func (h *Handler) consoleOpen() bool {
	return h.o.Feed.watched() || h.o.Now().UnixNano()-h.usedAt.Load() < int64(presenceTTL)
}

// Run, with a Cluster, publishes this replica's presence while a console is open on any
// replica (and removes it when none is, or when ctx ends), answers the other replicas'
// consoles that want a tool of this one, and streams the other replicas' events into the
// Feed. Without Options.Cluster it returns at once.
func (h *Handler) Run(ctx context.Context) {
	c := h.o.Cluster
	if c == nil {
		return
	}
	h.o.Feed.trackSeqs()
	wants := make(chan struct{}, maxWants)
	var unsubscribe []func()
	subscribe := func() {
		if len(unsubscribe) == 2 {
			return
		}
		sctx, cancel := context.WithTimeout(ctx, clusterTimeout)
		defer cancel()
		for _, ch := range []string{eventsChannel, consoleChannels}[len(unsubscribe):] {
			fn := h.remoteEvents
			if ch == consoleChannels {
				fn = func(channel string, msg []byte) { h.consoleMessage(ctx, wants, channel, msg) }
			}
			u, err := c.Subscribe(sctx, ch, fn)
			if err != nil {
				h.log.Warn("console: subscribing to the other replicas failed; trying again", zap.String("channel", ch), zap.Error(err))
				return
			}
			unsubscribe = append(unsubscribe, u)
		}
	}
	subscribe()
	published, announced := false, false
	defer func() {
		for _, u := range unsubscribe {
			u()
		}
		if published {
			dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), clusterTimeout)
			defer cancel()
			_ = c.DropPresence(dctx, h.o.Replica)
		}
	}()
	tick := time.NewTicker(presenceEvery)
	defer tick.Stop()
	for {
		subscribe()
		published, announced = h.presenceRound(ctx, published, announced)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-h.wake:
		}
	}
}

// presenceRound is one turn of Run: it says whether a console is open here, reads whether
// one is anywhere, and publishes or removes this replica's presence accordingly. It returns
// whether the presence is published, and whether this replica's open console was announced.
func (h *Handler) presenceRound(ctx context.Context, published, announced bool) (bool, bool) {
	defer func() {
		if v := recover(); v != nil {
			h.log.Error("console: panic publishing the presence", zap.Any("panic", v), zap.Stack("stack"))
		}
	}()
	c := h.o.Cluster
	rctx, cancel := context.WithTimeout(ctx, clusterTimeout)
	defer cancel()
	open := h.consoleOpen()
	if open {
		if err := c.SetValue(rctx, openKey, []byte(h.o.Replica), presenceTTL); err != nil && rctx.Err() == nil {
			h.log.Warn("console: telling the other replicas that a console is open failed", zap.Error(err))
		} else if !announced {
			announced = c.Publish(rctx, openChannel, []byte(h.o.Replica)) == nil
		}
	} else {
		announced = false
	}
	anywhere := open
	if !open {
		v, err := c.Value(rctx, openKey)
		if err != nil {
			return published, announced // the store does not answer: nothing to do now
		}
		anywhere = v != nil
	}
	switch {
	case anywhere:
		snap := h.makeSnapshot(h.o.Now(), h.o.Tabs())
		h.refs.sweep() // a listing too: the references of closed tabs are let go
		if x, err := h.health(); err == nil {
			x = x.bounded()
			snap.Health = &x
		}
		data, err := json.Marshal(snap)
		if err != nil {
			return published, announced
		}
		if err := c.PutPresence(rctx, h.o.Replica, data, presenceTTL); err != nil {
			if rctx.Err() == nil {
				h.log.Warn("console: publishing this replica's tabs failed", zap.Error(err))
			}
			return published, announced
		}
		published = true
		if h.o.Feed.watched() {
			_, _, _ = h.remoteTabs(rctx) // keeps the owners of sessions fresh for the live view
		}
	case published:
		if c.DropPresence(rctx, h.o.Replica) == nil {
			published = false
		}
	}
	return published, announced
}

// consoleMessage takes a message of the console:* channels: another replica's console
// opened (publish the presence now), or wants the definition of a tool (put it in the store
// if this replica has it; at most maxWants at once, others are dropped: that console asks
// again).
func (h *Handler) consoleMessage(ctx context.Context, wants chan struct{}, channel string, msg []byte) {
	switch channel {
	case openChannel:
		if string(msg) != h.o.Replica {
			select {
			case h.wake <- struct{}{}:
			default:
			}
		}
	case wantChannel:
		ref := string(msg)
		if !validRef(ref) {
			return
		}
		tool, ok := h.localTool(ref)
		if !ok {
			return
		}
		select {
		case wants <- struct{}{}:
		default:
			return
		}
		go func() {
			defer func() { <-wants }()
			defer func() {
				if v := recover(); v != nil {
					h.log.Error("console: panic sharing a tool", zap.Any("panic", v), zap.Stack("stack"))
				}
			}()
			data, err := json.Marshal(tool)
			if err != nil {
				return
			}
			wctx, cancel := context.WithTimeout(ctx, clusterTimeout)
			defer cancel()
			if err := h.o.Cluster.SetValue(wctx, toolKey(ref), data, toolTTL); err != nil && wctx.Err() == nil {
				h.log.Warn("console: sharing a tool with another replica's console failed", zap.Error(err))
			}
		}()
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
