package llm

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sync"

	"github.com/openai/openai-go/v3/packages/ssestream"
)

// maxSSELine bounds one line of the model's event stream (openai-go's own decoder allows
// the same 32 MiB).
const maxSSELine = bufio.MaxScanTokenSize << 9

// errSSELine is the error of a stream line longer than maxSSELine.
var errSSELine = errors.New("the model API sent an event stream line longer than 32 MiB")

// sseReader reads the events of a text/event-stream body as openai-go's ssestream decoder
// does (each event's data lines joined, each ended by "\n"; "event:" sets its type;
// comments and other fields skipped; an event is dispatched by a blank line and one left
// unfinished at the end is dropped), but into buffers it reuses. The SDK's decoder gave
// every event new data and scanned each stream from a new buffer: a streamed answer is a
// hundred events or so, and those were a sixth of all the agent allocated in a turn.
// An event's Data is valid until the next call of next.
type sseReader struct {
	r    *bufio.Reader
	line []byte // a line longer than r's buffer, gathered
	ev   ssestream.Event
	data []byte
	err  error
}

// sseBuffers are the read buffers of the streams not being read: one per model call was
// 4 KiB of garbage a call.
var sseBuffers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 4<<10) }}

func newSSEReader(body io.Reader) *sseReader {
	r := sseBuffers.Get().(*bufio.Reader)
	r.Reset(body)
	return &sseReader{r: r}
}

// release gives the read buffer back; the reader is not used after.
func (s *sseReader) release() {
	if s.r == nil {
		return
	}
	s.r.Reset(nil)
	sseBuffers.Put(s.r)
	s.r = nil
	if s.err == nil {
		s.err = io.ErrClosedPipe
	}
}

// next reads the next event; false at the end of the stream or on an error (err).
func (s *sseReader) next() bool {
	if s.err != nil {
		return false
	}
	s.data = s.data[:0]
	typ := ""
	for {
		line, err := s.readLine()
		if err != nil && (err != io.EOF || len(line) == 0) {
			if err != io.EOF {
				s.err = err
			}
			return false
		}
		if len(line) == 0 { // a blank line dispatches the event
			if len(s.data) == 0 {
				typ = ""
				continue
			}
			s.ev = ssestream.Event{Type: typ, Data: s.data}
			return true
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		switch string(name) {
		case "event":
			typ = string(value)
		case "data":
			s.data = append(s.data, value...)
			s.data = append(s.data, '\n')
		}
		if err == io.EOF { // a last line without its newline: the event is never dispatched
			return false
		}
	}
}

// readLine reads one line without its "\n" or "\r\n" (as bufio.ScanLines); valid until the
// next read. At the end of the stream it returns what is left with io.EOF.
func (s *sseReader) readLine() ([]byte, error) {
	line, err := s.r.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		s.line = append(s.line[:0], line...)
		for errors.Is(err, bufio.ErrBufferFull) {
			line, err = s.r.ReadSlice('\n')
			if len(s.line)+len(line) > maxSSELine {
				return nil, errSSELine
			}
			s.line = append(s.line, line...)
		}
		line = s.line
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	return line, err
}

// event is the event next read.
func (s *sseReader) event() ssestream.Event { return s.ev }
