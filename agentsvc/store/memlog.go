package store

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sync"

	"github.com/klauspost/compress/s2"
)

// eventLog is a memory-store session's events (or its messages: the same, without seqs):
// the events after the last block are kept
// packed; they are sealed into a block compressed with S2 when they are blockEvents,
// or when the turn they belong to has ended (seal). A log is mostly text deltas that differ
// by a word and a seq (~110 bytes of JSON each, hundreds per conversation); sealed, they take
// a few times less. Reading sealed events (a resume's replay) decompresses their
// blocks.
type eventLog struct {
	sealed []eventBlock
	open   packed
	n      int // events in all
}

// blockEvents is how many events one block holds at most.
const blockEvents = 64

// eventBlock is events first.. first+n-1 (0-based), each as its length (uvarint) then its
// bytes, compressed with S2.
type eventBlock struct {
	first, n int
	z        []byte
}

func (l *eventLog) len() int { return l.n }

// add appends one event's data.
func (l *eventLog) add(data []byte) {
	l.open.add(data)
	l.n++
	if l.open.len() == blockEvents {
		l.seal()
	}
}

// seal compresses the open events into a block (a turn ended: the session may idle now).
func (l *eventLog) seal() {
	if l.open.len() == 0 {
		return
	}
	l.sealed = append(l.sealed, sealBlock(&l.open, l.n-l.open.len()))
	l.open.release()
}

// all returns copies of every item.
func (l *eventLog) all() ([][]byte, error) {
	evs, err := l.appendRange(make([]Event, 0, l.n), 0, l.n)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(evs))
	for i, e := range evs {
		out[i] = e.Data
	}
	return out, nil
}

// appendRange appends copies of events [start, end) (0-based; event i has seq i+1) to out.
func (l *eventLog) appendRange(out []Event, start, end int) ([]Event, error) {
	i := start
	for _, b := range l.sealed {
		if i >= end {
			return out, nil
		}
		if i >= b.first+b.n {
			continue
		}
		items, err := b.items()
		if err != nil {
			return nil, fmt.Errorf("store: memory: reading events: %w", err)
		}
		for ; i < end && i < b.first+b.n; i++ {
			out = append(out, Event{Seq: int64(i + 1), Data: items[i-b.first]})
		}
	}
	openFirst := l.n - l.open.len()
	for ; i < end; i++ {
		out = append(out, Event{Seq: int64(i + 1), Data: bytes.Clone(l.open.item(i - openFirst))})
	}
	return out, nil
}

// sealBlock compresses the events of p, the first of which is event first, with S2 (klauspost's
// Snappy extension, in the module graph already through prometheus). DEFLATE made blocks a
// fifth smaller (TestMemoryStoreHoldsEventsPacked: 0.24× of the events against 0.31×) but
// took a third of a saturation turn's store work: BenchmarkMemoryAppendTurn ~88 µs with
// klauspost's DEFLATE at BestSpeed, ~60 µs with S2 (~124 µs with compress/flate).
func sealBlock(p *packed, first int) eventBlock {
	bufs := sealBufs.Get().(*sealBuffers)
	defer sealBufs.Put(bufs)
	raw := &bufs.raw
	raw.Reset()
	var n [binary.MaxVarintLen32]byte
	for i := range p.len() {
		it := p.item(i)
		raw.Write(n[:binary.PutUvarint(n[:], uint64(len(it)))])
		raw.Write(it)
	}
	if n := s2.MaxEncodedLen(raw.Len()); cap(bufs.z) < n {
		bufs.z = make([]byte, n)
	}
	z := s2.Encode(bufs.z[:cap(bufs.z)], raw.Bytes())
	return eventBlock{first: first, n: p.len(), z: bytes.Clone(z)} // exactly its size: it is kept
}

// sealBuffers are sealBlock's buffers: the block's items with their lengths, and its S2.
type sealBuffers struct {
	raw bytes.Buffer
	z   []byte
}

var sealBufs = sync.Pool{New: func() any { return new(sealBuffers) }}

// items decompresses the block into its events (fresh memory, not the log's).
func (b eventBlock) items() ([][]byte, error) {
	raw, err := s2.Decode(nil, b.z)
	if err != nil {
		return nil, err
	}
	items := make([][]byte, 0, b.n)
	for len(raw) > 0 {
		n, k := binary.Uvarint(raw)
		if k <= 0 || uint64(len(raw)-k) < n {
			return nil, fmt.Errorf("a corrupt block")
		}
		items = append(items, raw[k:k+int(n):k+int(n)])
		raw = raw[k+int(n):]
	}
	if len(items) != b.n {
		return nil, fmt.Errorf("a block of %d events, want %d", len(items), b.n)
	}
	return items, nil
}
