package llmtest

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	json "github.com/segmentio/encoding/json"
)

// argPieceLen is the size of the pieces tool-call arguments are split into.
const argPieceLen = 8

// created is the fixed "created" timestamp of every answer, so output is reproducible.
const created = 1700000000

// answer is a step resolved against a request: ids chosen, text split, usage counted.
type answer struct {
	id     string
	deltas [][]byte // the JSON of the delta objects after the role chunk, in sending order
	text   string
	calls  []FakeCall
	extras []map[string]json.RawMessage // per call: members of FakeCall.Extra
	finish string
	usage  Usage
	// billedAfter[i] is the completion tokens billed once deltas[:i] were generated;
	// billedAfter[len(deltas)] is usage.CompletionTokens.
	billedAfter []int64
}

func (s *Server) answer(req RecordedRequest, step Step) (answer, error) {
	s.mu.Lock()
	s.nextCall++
	a := answer{id: fmt.Sprintf("chatcmpl-llmtest%d", s.nextCall), text: step.Text}
	for _, c := range step.ToolCalls {
		if c.ID == "" {
			s.nextCall++
			c.ID = fmt.Sprintf("call_%d", s.nextCall)
		}
		a.calls = append(a.calls, c)
	}
	s.mu.Unlock()
	for _, c := range a.calls {
		var extra map[string]json.RawMessage
		if len(c.Extra) > 0 {
			if err := json.Unmarshal(c.Extra, &extra); err != nil || extra == nil {
				return answer{}, fmt.Errorf("llmtest: FakeCall %q: Extra is not a JSON object: %s", c.Name, c.Extra)
			}
		}
		a.extras = append(a.extras, extra)
	}

	var pieces []int64 // the tokens of each delta, as CountTokens counts them
	for _, d := range splitText(step.Text) {
		b := append([]byte(`{"content":`), json.AppendEscape(nil, d, json.EscapeHTML)...)
		a.deltas = append(a.deltas, append(b, '}'))
		pieces = append(pieces, max(CountTokens(d), 1))
	}
	// Each call is a first chunk (id, name, extra fields) then argument pieces; the
	// calls' chunks are interleaved round-robin, as a provider streaming them in parallel.
	// The deltas are written out by hand (keys sorted, as json.Marshal sorts a map's):
	// encoding maps through reflection made most of the fake model's CPU under load.
	var seqs [][][]byte
	var seqTokens [][]int64
	for i, c := range a.calls {
		first, err := firstCallDelta(i, c, a.extras[i])
		if err != nil {
			return answer{}, err
		}
		seq, toks := [][]byte{first}, []int64{CountTokens(c.Name) + 1}
		for _, p := range splitArgs(c.Args) {
			b := append([]byte(`{"tool_calls":[{"function":{"arguments":`), json.AppendEscape(nil, p, json.EscapeHTML)...)
			b = append(b, `},"index":`...)
			b = strconv.AppendInt(b, int64(i), 10)
			seq = append(seq, append(b, `}]}`...))
			toks = append(toks, max(CountTokens(p), 1))
		}
		seqs = append(seqs, seq)
		seqTokens = append(seqTokens, toks)
	}
	for round := 0; ; round++ {
		sent := false
		for j, seq := range seqs {
			if round < len(seq) {
				a.deltas = append(a.deltas, seq[round])
				pieces = append(pieces, seqTokens[j][round])
				sent = true
			}
		}
		if !sent {
			break
		}
	}

	a.finish = step.FinishReason
	if a.finish == "" {
		a.finish = "stop"
		if len(a.calls) > 0 {
			a.finish = "tool_calls"
		}
	}
	var completion int64
	for _, n := range pieces {
		completion += n
	}
	if step.Usage != nil {
		a.usage = *step.Usage
	} else {
		a.usage = Usage{PromptTokens: PromptTokens(req), CompletionTokens: completion}
	}
	// The completion is billed as generated: each delta its share of the tokens.
	a.billedAfter = make([]int64, len(a.deltas)+1)
	var sum int64
	for i, n := range pieces {
		sum += n
		if completion > 0 {
			a.billedAfter[i+1] = (a.usage.CompletionTokens*sum + completion - 1) / completion
		}
	}
	a.billedAfter[len(a.deltas)] = a.usage.CompletionTokens
	return a, nil
}

// CountTokens counts the tokens of text the way OpenAI's help pages estimate them: one
// per 4 bytes of English text, rounded up. The server bills with it when a step gives no
// Usage.
func CountTokens(text string) int64 {
	return int64((len(text) + 3) / 4)
}

// PromptTokens counts the prompt of a request the way OpenAI's cookbook does: the tokens
// of each message's text (content, tool calls' names and arguments) and 4 more per
// message for its role and delimiters, the tokens of each tool's name, description and
// parameter schema and 8 more per tool, and 3 to prime the reply.
func PromptTokens(req RecordedRequest) int64 {
	n := int64(3)
	for _, m := range req.Messages {
		n += 4 + CountTokens(m.Role) + CountTokens(m.Content)
		for _, c := range m.ToolCalls {
			n += CountTokens(c.Name) + CountTokens(c.Arguments)
		}
	}
	for _, t := range req.Tools {
		n += 8 + CountTokens(t.Name) + CountTokens(t.Description) + CountTokens(string(t.Parameters))
	}
	return n
}

// splitText splits text after each space: "a b c" is "a ", "b ", "c".
func splitText(text string) []string {
	if text == "" {
		return nil
	}
	return strings.SplitAfter(text, " ")
}

// splitArgs splits args into pieces of about argPieceLen bytes, on rune boundaries.
func splitArgs(args string) []string {
	var out []string
	for len(args) > 0 {
		n := min(argPieceLen, len(args))
		for n < len(args) && !utf8.RuneStart(args[n]) {
			n++
		}
		out = append(out, args[:n])
		args = args[n:]
	}
	return out
}

// firstCallDelta is the JSON of the delta that opens call i: its id, name and extra fields.
func firstCallDelta(i int, c FakeCall, extra map[string]json.RawMessage) ([]byte, error) {
	if len(extra) == 0 {
		b := append([]byte(`{"tool_calls":[{"function":{"arguments":"","name":`), json.AppendEscape(nil, c.Name, json.EscapeHTML)...)
		b = append(b, `},"id":`...)
		b = json.AppendEscape(b, c.ID, json.EscapeHTML)
		b = append(b, `,"index":`...)
		b = strconv.AppendInt(b, int64(i), 10)
		return append(b, `,"type":"function"}]}`...), nil
	}
	first := map[string]any{
		"index": i, "id": c.ID, "type": "function",
		"function": map[string]any{"name": c.Name, "arguments": ""},
	}
	for k, v := range extra {
		first[k] = v
	}
	b, err := json.Marshal(map[string]any{"tool_calls": []any{first}})
	if err != nil {
		return nil, fmt.Errorf("llmtest: FakeCall %q: %w", c.Name, err)
	}
	return b, nil
}

// chunkFrame writes chat.completion.chunk events of one answer: the event around a delta
// is the same but for the finish reason, so it is written once and the delta put in.
type chunkFrame struct {
	head string // up to the delta
	tail []byte // after the finish reason, to the end of the event
	buf  []byte
}

func (a answer) frame(req RecordedRequest) *chunkFrame {
	tail := []byte(`,"index":0,"logprobs":null}],"created":`)
	tail = strconv.AppendInt(tail, created, 10)
	tail = append(tail, `,"id":`...)
	tail = json.AppendEscape(tail, a.id, json.EscapeHTML)
	tail = append(tail, `,"model":`...)
	tail = json.AppendEscape(tail, req.Model, json.EscapeHTML)
	tail = append(tail, `,"object":"chat.completion.chunk","system_fingerprint":"fp_llmtest"`...)
	if req.IncludeUsage {
		tail = append(tail, `,"usage":null`...)
	}
	tail = append(tail, "}\n\n"...)
	return &chunkFrame{head: `data: {"choices":[{"delta":`, tail: tail}
}

// event returns the SSE event of a chunk with delta and finish ("" for null); it is valid
// until the next call.
func (f *chunkFrame) event(delta []byte, finish string) []byte {
	b := append(append(f.buf[:0], f.head...), delta...)
	b = append(b, `,"finish_reason":`...)
	if finish == "" {
		b = append(b, "null"...)
	} else {
		b = json.AppendEscape(b, finish, json.EscapeHTML)
	}
	f.buf = append(b, f.tail...)
	return f.buf
}

func (u Usage) wire() map[string]any {
	return map[string]any{
		"prompt_tokens":     u.PromptTokens,
		"completion_tokens": u.CompletionTokens,
		"total_tokens":      u.PromptTokens + u.CompletionTokens,
	}
}

// writeStream sends the answer as server-sent events, the way the real API does.
func (s *Server) writeStream(w http.ResponseWriter, r *http.Request, req RecordedRequest, step Step, a answer) {
	if s.noUsage { // the server ignores stream_options.include_usage
		req.IncludeUsage = false
	}
	flusher, _ := w.(http.Flusher)
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	put := func(event []byte) bool {
		if _, err := w.Write(event); err != nil {
			return false
		}
		if flusher != nil {
			flusher.Flush()
		}
		return true
	}
	write := func(event []byte) bool {
		if step.ChunkDelay > 0 && !s.wait(r, step.ChunkDelay) {
			return false
		}
		return put(event)
	}
	send := func(v any) bool {
		b, err := json.Marshal(v)
		if err != nil {
			panic(fmt.Sprintf("llmtest: encoding a chunk: %v", err))
		}
		return write(fmt.Appendf(nil, "data: %s\n\n", b))
	}

	// The prompt is billed once the answer began; each delta once generated (its wait
	// over), whether or not the client reads it. Billed on every way out, the abort too.
	generated := 0
	defer func() {
		s.bill(Usage{PromptTokens: a.usage.PromptTokens, CompletionTokens: a.billedAfter[generated]})
	}()
	f := a.frame(req)
	if !write(f.event([]byte(`{"content":"","refusal":null,"role":"assistant"}`), "")) {
		return
	}
	for i, d := range a.deltas {
		if (step.FailAfterTokens > 0 || step.Stall) && i == step.FailAfterTokens {
			s.fail(w, r, step, send)
			return
		}
		if step.ChunkDelay > 0 && !s.wait(r, step.ChunkDelay) {
			return
		}
		generated = i + 1
		if !put(f.event(d, "")) {
			return
		}
	}
	if (step.FailAfterTokens > 0 || step.Stall) && len(a.deltas) <= step.FailAfterTokens {
		s.fail(w, r, step, send)
		return
	}
	if !write(f.event([]byte(`{}`), a.finish)) {
		return
	}
	if req.IncludeUsage {
		c := map[string]any{
			"id": a.id, "object": "chat.completion.chunk", "created": created, "model": req.Model,
			"system_fingerprint": "fp_llmtest", "choices": []any{}, "usage": a.usage.wire(),
		}
		if !send(c) {
			return
		}
	}
	if _, err := fmt.Fprint(w, "data: [DONE]\n\n"); err == nil && flusher != nil {
		flusher.Flush()
	}
}

// fail ends a stream early the way step asks: stall, error event, or cut connection.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, step Step, send func(any) bool) {
	switch {
	case step.Stall:
		select {
		case <-r.Context().Done():
		case <-s.closed:
		}
	case step.Status != 0 && step.Status != http.StatusOK:
		msg := step.Message
		if msg == "" {
			msg = http.StatusText(step.Status)
		}
		send(map[string]any{"error": map[string]any{
			"message": msg, "type": errorType(step.Status), "code": step.Status,
		}})
	default:
		// Abort the connection: the client sees the body end without a final chunk.
		panic(http.ErrAbortHandler)
	}
}

// wait sleeps d unless the client goes away or the server closes first.
func (s *Server) wait(r *http.Request, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	case <-s.closed:
		return false
	}
}

// writeCompletion answers a request without stream: true with one chat.completion object.
func (s *Server) writeCompletion(w http.ResponseWriter, req RecordedRequest, a answer) {
	msg := map[string]any{"role": "assistant", "content": nil, "refusal": nil}
	if a.text != "" {
		msg["content"] = a.text
	}
	if len(a.calls) > 0 {
		var calls []any
		for i, c := range a.calls {
			call := map[string]any{
				"id": c.ID, "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": c.Args},
			}
			for k, v := range a.extras[i] {
				call[k] = v
			}
			calls = append(calls, call)
		}
		msg["tool_calls"] = calls
	}
	body, err := json.Marshal(map[string]any{
		"id": a.id, "object": "chat.completion", "created": created, "model": req.Model,
		"system_fingerprint": "fp_llmtest",
		"choices": []any{map[string]any{
			"index": 0, "message": msg, "logprobs": nil, "finish_reason": a.finish,
		}},
		"usage": a.usage.wire(),
	})
	if err != nil {
		panic(fmt.Sprintf("llmtest: encoding a completion: %v", err))
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}
