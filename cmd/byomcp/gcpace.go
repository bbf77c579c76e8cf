package main

// The load generator's collector.

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// benchHeadroom is how much the generator's heap may grow between two collections at least.
// The generator shares the machine's cores with the agent it measures; under Go's default
// (GOGC=100) its pages and fake model, with ~10 MB live, collected many times a second and
// the collector took ~7% of the generator's CPU at saturation (bench/PERFORMANCE.md). The
// agent under test keeps Go's default: a heap that grew more between collections spreads
// the long-lived objects of tabs that connected meanwhile over more spans, and idle tabs
// then hold more memory (measured: 2-5 KiB more a tab in `realistic-memory`).
const benchHeadroom = 64 << 20

var paceOnce sync.Once

// paceGenerator keeps the generator's collector from running before its heap has grown by
// benchHeadroom since the last collection, unless GOGC is set: then the operator chose.
func paceGenerator() {
	if os.Getenv("GOGC") != "" {
		return
	}
	paceOnce.Do(func() { newGCPace(benchHeadroom, debug.SetGCPercent, liveHeap).arm() })
}

// gcPace re-computes GOGC after each collection from the heap it left live.
type gcPace struct {
	headroom uint64
	set      func(int) int // debug.SetGCPercent
	live     func() uint64 // the live heap after the last collection
	percent  int           // what set was last given
}

func newGCPace(headroom uint64, set func(int) int, live func() uint64) *gcPace {
	return &gcPace{headroom: headroom, set: set, live: live, percent: 100}
}

// percentFor is the GOGC that lets a heap of live bytes grow by the headroom at least:
// 100 (Go's default) or more, at most 10,000.
func (p *gcPace) percentFor(live uint64) int {
	if live == 0 || live >= p.headroom {
		return 100
	}
	pct := (p.headroom*100 + live - 1) / live
	return int(min(max(pct, 100), 10_000))
}

// adjust sets GOGC for the heap the last collection left.
func (p *gcPace) adjust() {
	if pct := p.percentFor(p.live()); pct != p.percent {
		p.set(pct)
		p.percent = pct
	}
}

// gcSentinel is allocated, dropped and watched: its cleanup runs after the collection that
// found it unreachable, so once per collection. Larger than the tiny allocator's 16 bytes,
// so that it is not kept alive by a neighbour in a shared block.
type gcSentinel struct{ _ [32]byte }

// arm watches a new sentinel; its cleanup adjusts GOGC and arms the next. It runs for the
// life of the process.
func (p *gcPace) arm() {
	runtime.AddCleanup(new(gcSentinel), func(p *gcPace) {
		p.adjust()
		p.arm()
	}, p)
}

// liveHeap reads the heap the last collection marked live.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
