package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestDefBudget(t *testing.T) {
	small := json.RawMessage(`{"type":"object"}`)
	t.Run("description cut on a rune boundary, with a note", func(t *testing.T) {
		b := NewDefBudget(0)
		desc, reason := b.Admit("t", strings.Repeat("é", 900_000), small)
		if reason != "" {
			t.Fatal(reason)
		}
		if !strings.HasPrefix(desc, strings.Repeat("é", MaxDescription/2)+" [description cut: 4096 of 1800000 bytes]") || len(desc) > MaxDescription+64 {
			t.Errorf("got %d bytes ending %q", len(desc), desc[len(desc)-50:])
		}
		if desc, _ := b.Admit("u", "short", small); desc != "short" {
			t.Errorf("got %q, want a short description unchanged", desc)
		}
	})
	t.Run("count", func(t *testing.T) {
		b := NewDefBudget(3)
		for i := range 5 {
			_, reason := b.Admit(fmt.Sprint(i), "", small)
			if (i < 3) != (reason == "") || (i >= 3 && !strings.Contains(reason, "more than 3 tools")) {
				t.Errorf("tool %d: got reason %q", i, reason)
			}
		}
		if NewDefBudget(1000).maxTools != MaxTools {
			t.Error("a configured maximum above 128 was not held to 128")
		}
	})
	t.Run("total, a later smaller tool still fits", func(t *testing.T) {
		b := NewDefBudget(0)
		big := json.RawMessage(`{"type":"object","description":"` + strings.Repeat("x", 60_000) + `"}`)
		var kept []string
		for i := range 6 {
			if _, reason := b.Admit(fmt.Sprintf("big%d", i), "", big); reason == "" {
				kept = append(kept, fmt.Sprintf("big%d", i))
			} else if !strings.Contains(reason, "over 262144 bytes in all") {
				t.Errorf("big%d: got reason %q", i, reason)
			}
		}
		if len(kept) != 4 {
			t.Errorf("kept %v, want 4 of 60 KB in 256 KiB", kept)
		}
		if _, reason := b.Admit("small", "", small); reason != "" {
			t.Errorf("a small tool after the big ones: %q, want it admitted", reason)
		}
		if _, reason := b.Admit("huge", "", json.RawMessage(strings.Repeat(" ", MaxSchemaBytes+1))); !strings.Contains(reason, "inputSchema too large") {
			t.Errorf("huge schema: got %q", reason)
		}
	})
}
