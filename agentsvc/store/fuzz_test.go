package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/store"
)

// FuzzMessageRoundTrip stores a message with arbitrary text and a raw Extra value and
// checks that Load gives back the same text and a value of the same meaning, or that
// Append refuses a value that is not JSON.
func FuzzMessageRoundTrip(f *testing.F) {
	f.Add("hello", `{"a":1}`, []byte(`{"google":{"thought_signature":"c2ln"}}`))
	f.Add("<&>\u2028\x00", "not json", []byte(` [1, 2.50, "x"] `))
	f.Add("", "", []byte(`12345678901234567890`))
	f.Add("é", "{}", []byte(`{"a":`))
	f.Fuzz(func(t *testing.T, content, args string, extra []byte) {
		ctx := context.Background()
		s := store.NewMemory()
		defer s.Close()
		if err := s.Create(ctx, &store.Session{ID: "s1"}); err != nil {
			t.Fatal(err)
		}
		in := chat.Message{Role: chat.RoleAssistant, Content: content, ToolCalls: []chat.ToolCall{{
			ID: "c1", Name: "t", Arguments: args, Extra: map[string]json.RawMessage{"x": extra},
		}}}
		err := s.Append(ctx, "s1", store.Batch{Messages: []chat.Message{in}})
		if !json.Valid(extra) {
			if err == nil {
				t.Fatalf("Append with Extra %q: got nil error, want one", extra)
			}
			return
		}
		if err != nil {
			t.Fatalf("Append: %v", err)
		}
		sess, err := s.Load(ctx, "s1")
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		got := sess.Messages[0]
		// encoding/json replaces invalid UTF-8 with U+FFFD; compare with what it keeps.
		want := roundTrip(t, in)
		if got.Content != want.Content || got.ToolCalls[0].Arguments != want.ToolCalls[0].Arguments {
			t.Errorf("got %q %q, want %q %q", got.Content, got.ToolCalls[0].Arguments, want.Content, want.ToolCalls[0].Arguments)
		}
		if !sameMeaning(t, got.ToolCalls[0].Extra["x"], extra) {
			t.Errorf("Extra: got %s, want the meaning of %s", got.ToolCalls[0].Extra["x"], extra)
		}
	})
}

func roundTrip(t *testing.T, m chat.Message) chat.Message {
	t.Helper()
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var out chat.Message
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func sameMeaning(t *testing.T, a, b []byte) bool {
	t.Helper()
	decode := func(data []byte) any {
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			t.Fatalf("decoding %q: %v", data, err)
		}
		return v
	}
	return reflect.DeepEqual(decode(a), decode(b))
}
