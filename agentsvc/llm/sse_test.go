package llm

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/packages/ssestream"
)

// sdkEvents reads a stream with openai-go's own decoder.
func sdkEvents(stream string) []string {
	res := &http.Response{Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: io.NopCloser(strings.NewReader(stream))}
	d := ssestream.NewDecoder(res)
	var out []string
	for d.Next() {
		out = append(out, fmt.Sprintf("%q %q", d.Event().Type, d.Event().Data))
	}
	if d.Err() != nil {
		out = append(out, "error")
	}
	return out
}

// ourEvents reads a stream with sseReader, through a reader that hands out a few bytes at a
// time (as a network stream does).
func ourEvents(stream string, step int) []string {
	s := newSSEReader(&trickle{s: stream, step: step})
	var out []string
	for s.next() {
		out = append(out, fmt.Sprintf("%q %q", s.event().Type, s.event().Data))
	}
	if s.err != nil {
		out = append(out, "error")
	}
	return out
}

type trickle struct {
	s    string
	step int
}

func (t *trickle) Read(p []byte) (int, error) {
	if t.s == "" {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), t.step)], t.s)
	t.s = t.s[n:]
	return n, nil
}

// The stream reader gives the events openai-go's decoder gives, on the streams providers
// send and on odd ones: comments, CRLF, several data lines, an event type, empty events, a
// line longer than the read buffer, an event left unfinished at the end.
func TestSSEReaderReadsAsTheSDK(t *testing.T) {
	long := strings.Repeat("x", 10<<10)
	streams := []string{
		"data: {\"a\":1}\n\ndata: {\"b\":2}\n\ndata: [DONE]\n\n",
		": keep-alive\n\ndata: one\n\n",
		"data: one\r\n\r\ndata: two\r\n\r\n",
		"data: line 1\ndata: line 2\n\n",
		"event: error\ndata: {\"error\":\"boom\"}\n\n",
		"event: ping\n\ndata: after an empty event\n\n",
		"data:no space\n\ndata:  two spaces\n\n",
		"id: 7\nretry: 100\ndata: fields ignored\n\n",
		"data: " + long + "\n\ndata: short\n\n",
		"data: unfinished at the end",
		"data: unfinished\n",
		"data: done\n\ndata: unfinished",
		"\n\n\ndata: after blank lines\n\n",
		"data\n\n",
		"",
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"data: ", "event: x", ": c", "\n", "\r\n", "\n\n", "{\"k\":\"v\"}", "data:", "a:b", " ", "[DONE]", "data: " + long[:5000]}
	for range 300 {
		var b strings.Builder
		for range rnd.IntN(20) {
			b.WriteString(pieces[rnd.IntN(len(pieces))])
		}
		streams = append(streams, b.String())
	}
	for _, stream := range streams {
		want := sdkEvents(stream)
		for _, step := range []int{1, 7, 4096, 1 << 20} {
			if got := ourEvents(stream, step); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("stream %q read %d bytes at a time:\n got %v\nwant %v (openai-go)", stream, step, got, want)
			}
		}
	}
}

// A line longer than 32 MiB is an error, not memory without end.
func TestSSEReaderBoundsALine(t *testing.T) {
	s := newSSEReader(io.MultiReader(strings.NewReader("data: "), &endless{}))
	if s.next() || s.err != errSSELine {
		t.Fatalf("got err %v, want %v", s.err, errSSELine)
	}
}

type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}
