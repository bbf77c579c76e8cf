package turnbudget

import (
	"errors"
	"testing"

	"github.com/byomcp/byomcp/agentsvc/wire"
)

// Turns are bounded per client and in all; a release gives its slot back once, however
// often it is called; the client "" is bound by the total only.
func TestTurnsPerClientAndInAll(t *testing.T) {
	b := New(2, 3, -1, 0)
	r1, err := b.StartTurn("a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.StartTurn("a"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.StartTurn("a"); !errors.Is(err, wire.ErrClientBusy) {
		t.Fatalf("third turn of one client: %v, want ErrClientBusy", err)
	}
	if _, err := b.StartTurn(""); err != nil {
		t.Fatal(err)
	}
	if _, err := b.StartTurn("b"); !errors.Is(err, wire.ErrServerBusy) {
		t.Fatalf("fourth turn in all: %v, want ErrServerBusy", err)
	}
	r1()
	r1() // once only
	if _, err := b.StartTurn("b"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.StartTurn("c"); !errors.Is(err, wire.ErrServerBusy) {
		t.Fatalf("a release given back twice: %v", err)
	}
	if !New(-1, -1, -1, 0).NewSession("a") {
		t.Fatal("no session rate limits nothing")
	}
	limited := New(-1, -1, 0.001, 1)
	if !limited.NewSession("a") || limited.NewSession("a") || !limited.NewSession("") {
		t.Fatal("a client's new sessions are bounded by its bucket; the client \"\" is not")
	}
}
