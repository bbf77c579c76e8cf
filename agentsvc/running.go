package agentsvc

// The running turn as agent/session reports it: a snapshot of its events, so that a page
// loaded in the middle of a turn shows it from the agent's log alone.

import (
	"context"
	"encoding/json"

	"go.uber.org/zap"

	"github.com/byomcp/byomcp/agentsvc/store"
	"github.com/byomcp/byomcp/agentsvc/wire"
)

// snapshotPage is how many events one store read of a snapshot asks for; snapshotMax bounds
// the events read for one snapshot (runs of text_delta are merged afterwards, so a turn's
// snapshot is a few events, but a long answer is many deltas in the log).
const (
	snapshotPage = 1000
	snapshotMax  = 50 * snapshotPage
)

// runningInfo is what a snapshot needs of a running turn, copied under ls.mu.
type runningInfo struct {
	id, clientTurnID string
	startSeq         int64
}

// runningLocked returns the running turn's info, or nil. ls.mu is held.
func (ls *liveSession) runningLocked() *runningInfo {
	if ls.turn == nil {
		return nil
	}
	return &runningInfo{id: ls.turn.id, clientTurnID: ls.turn.clientTurnID, startSeq: ls.turn.startSeq}
}

// runningSnapshot returns turn rt with its events from its turn_start up to seq upTo (every
// one of them persisted), runs of text_delta merged. They come from the in-memory tail when
// it reaches back to the turn's start, else from the store; when the store cannot be read,
// the tail's part is all the snapshot has (the page then shows the turn from there on).
func (ls *liveSession) runningSnapshot(ctx context.Context, rt *runningInfo, upTo int64) *wire.RunningTurn {
	ls.mu.Lock()
	tail := append([]store.Event(nil), ls.tail...)
	ls.mu.Unlock()
	return snapshotOf(ctx, ls.hub.store, ls.id, rt, upTo, tail, ls.log)
}

// snapshotOf is runningSnapshot for session id, from tail (recent events, may be empty) and
// the store: a proxy of a session whose turn runs on another replica uses it too.
func snapshotOf(ctx context.Context, st store.Store, id string, rt *runningInfo, upTo int64, tail []store.Event, log *zap.Logger) *wire.RunningTurn {
	snap := &wire.RunningTurn{TurnID: rt.id, ClientTurnID: rt.clientTurnID, Events: []json.RawMessage{}}
	if rt.startSeq <= 0 || upTo < rt.startSeq {
		return snap // its turn_start is not stored yet: it follows as a live event
	}
	var evs []store.Event
	if len(tail) > 0 && tail[0].Seq <= rt.startSeq {
		evs = tail
	} else {
		after := rt.startSeq - 1
		for len(evs) < snapshotMax && after < upTo {
			page, err := st.EventsAfter(ctx, id, after, snapshotPage)
			if err != nil {
				log.Warn("reading the running turn's events", zap.Error(err))
				evs = tail
				break
			}
			if len(page) == 0 {
				break
			}
			evs = append(evs, page...)
			after = page[len(page)-1].Seq
		}
	}
	var mine []store.Event
	for _, e := range evs {
		if e.Seq < rt.startSeq || e.Seq > upTo {
			continue
		}
		var h struct {
			TurnID string `json:"turnId"`
		}
		if json.Unmarshal(e.Data, &h) != nil || h.TurnID != rt.id {
			continue
		}
		mine = append(mine, e)
	}
	for _, e := range coalesceDeltas(mine) {
		snap.Events = append(snap.Events, e.Data)
	}
	return snap
}
