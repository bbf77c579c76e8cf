package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alicebob/miniredis/v2"

	"github.com/byomcp/byomcp/agentsvc/chat"
	"github.com/byomcp/byomcp/agentsvc/store"
)

func TestOpen(t *testing.T) {
	m := miniredis.RunT(t)
	dir := t.TempDir()
	tests := []struct {
		spec    string
		wantErr string // "" = opens
	}{
		{"memory", ""},
		{"sqlite:" + filepath.Join(dir, "a.db"), ""},
		{"sqlite:relative.db", ""},
		{"redis://" + m.Addr(), ""},
		{"redis://" + m.Addr() + "/0?prefix=x:&ttl=2h", ""},
		{"sqlite:", "names no file"},
		{"sqlite::memory:", "not a file path"},
		{"", "unknown store"},
		{"Memory", "unknown store"},
		{"postgres://localhost/db", "unknown store"},
		{"sqlite", "unknown store"},
		{"redis:/" + m.Addr(), "unknown store"},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			if tc.spec == "sqlite:relative.db" {
				t.Chdir(t.TempDir())
			}
			s, err := store.Open(t.Context(), tc.spec)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				defer s.Close()
				if err := s.Create(t.Context(), &store.Session{ID: "s1"}); err != nil {
					t.Errorf("Create: %v", err)
				}
				return
			}
			if err == nil {
				s.Close()
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Open: got %v, want an error with %q", err, tc.wantErr)
			}
		})
	}
}

// An operator audit: a Redis URL that did not parse was quoted whole in the error, its
// password with it.
func TestOpenRedisErrorHidesThePassword(t *testing.T) {
	for _, spec := range []string{"redis://:s3cret-pw@[::1", "redis://user:s3cret-pw@host:bad/0", "rediss://:s3cret-pw@%zz/0"} {
		s, err := store.Open(t.Context(), spec)
		if err == nil {
			s.Close()
			t.Errorf("%s: opened", spec)
			continue
		}
		if strings.Contains(err.Error(), "s3cret-pw") {
			t.Errorf("%s: the error shows the password: %v", spec, err)
		}
	}
}

func ExampleOpen() {
	ctx := context.Background()
	s, err := store.Open(ctx, "memory")
	if err != nil {
		panic(err)
	}
	defer s.Close()

	if err := s.Create(ctx, &store.Session{ID: "f3a9", Origin: "https://shop.example"}); err != nil {
		panic(err)
	}
	err = s.Append(ctx, "f3a9", store.Batch{
		Messages: []chat.Message{{Role: chat.RoleUser, Content: "red cars?"}},
		Events:   []store.Event{{Seq: 1, Data: []byte(`{"seq":1,"type":"text_delta","delta":"Here"}`)}},
	})
	if err != nil {
		panic(err)
	}
	// A writer that is out of date is refused, and writes nothing.
	err = s.Append(ctx, "f3a9", store.Batch{Events: []store.Event{{Seq: 1, Data: []byte(`{"seq":1}`)}}})
	fmt.Println(err)

	sess, _ := s.Load(ctx, "f3a9")
	events, _ := s.EventsAfter(ctx, "f3a9", 0, 0)
	fmt.Println(sess.Seq, sess.Messages[0].Content, len(events), string(events[0].Data))
	// Output:
	// store: event seq conflict: got event 1, want 2
	// 1 red cars? 1 {"seq":1,"type":"text_delta","delta":"Here"}
}
