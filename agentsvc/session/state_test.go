package session

import (
	"math/rand/v2"
	"testing"
)

// States the table starts from.
var (
	unsaved   = State{}
	created   = State{Stage: Created}
	warm      = Loaded()
	cold      = State{Stage: Stored, Memory: InStore}
	writing   = State{Stage: Stored, Writing: true}
	failed    = State{Stage: Stored, Stale: WriteFailed}
	releasing = State{Stage: Stored, Home: Releasing}
	letGo     = State{Stage: Stored, Home: LetGo}
	coldLetGo = State{Stage: Stored, Memory: InStore, Home: LetGo}
	parked    = State{Stage: Unsaved, Home: LetGo}
	claiming  = State{Stage: Stored, Home: Claiming}
	deleted   = State{Stage: Stored, Home: Deleted}
)

func TestStep(t *testing.T) {
	cases := []struct {
		name string
		from State
		cmd  Command
		want State
		eff  Effects
	}{
		// The writer.
		{"first event starts the writer", unsaved, Command{Kind: Write}, State{Writing: true}, StartWriter},
		{"one writer at a time", writing, Command{Kind: Write}, writing, 0},
		{"a batch written stores an unsaved conversation", State{Writing: true}, Command{Kind: Written}, State{Stage: Stored, Writing: true}, 0},
		{"a batch written keeps a cold one cold", State{Stage: Stored, Memory: InStore, Writing: true}, Command{Kind: Written}, State{Stage: Stored, Memory: InStore, Writing: true}, 0},
		{"the writer stops when nothing is queued", writing, Command{Kind: WriterIdle}, warm, 0},
		{"a failed write makes it stale", writing, Command{Kind: WriteFail}, State{Stage: Stored, Writing: true, Stale: WriteFailed}, 0},
		{"a write that finds it deleted deletes it here", writing, Command{Kind: WriteFail, Gone: true}, State{Stage: Stored, Writing: true, Stale: Gone, Home: Deleted}, ForgetHere},
		{"a write of a conversation deleted here is not forgotten twice", State{Stage: Stored, Home: Deleted, Writing: true}, Command{Kind: WriteFail, Gone: true}, State{Stage: Stored, Home: Deleted, Writing: true, Stale: Gone}, 0},
		{"a deleted conversation's turn still finishes writing", State{Stage: Stored, Home: Deleted, Writing: true}, Command{Kind: WriterIdle}, deleted, 0},
		// Creation.
		{"the first turn creates it", unsaved, Command{Kind: Create}, created, 0},
		{"creating a stored one changes nothing", warm, Command{Kind: Create}, warm, 0},
		// Memory.
		{"an idle stored tab leaves its history to the store", warm, Command{Kind: Cool}, cold, 0},
		{"a turn keeps its history in memory", warm, Command{Kind: Cool, Busy: true}, warm, Noop},
		{"an unsaved conversation keeps its history", unsaved, Command{Kind: Cool}, unsaved, Noop},
		{"a stale conversation keeps its history", failed, Command{Kind: Cool}, failed, Noop},
		{"a write in flight keeps its history", writing, Command{Kind: Cool}, writing, Noop},
		{"read back at the seq it was left at", cold, Command{Kind: Warmed, OK: true}, warm, 0},
		{"read back at another seq: read it all again", cold, Command{Kind: Warmed}, State{Stage: Stored, Memory: InStore, Stale: Diverged}, 0},
		{"warmed meanwhile by another request", warm, Command{Kind: Warmed, OK: true}, warm, Noop},
		// Resync.
		{"resync adopts the store's state", State{Stage: Stored, Memory: InStore, Stale: Diverged}, Command{Kind: Resynced, Found: true, Adopted: true}, warm, 0},
		{"resync of a never-created one finds nothing", State{Stale: WriteFailed}, Command{Kind: Resynced}, unsaved, 0},
		{"resync of a created one without events keeps it created", State{Stage: Created, Stale: WriteFailed}, Command{Kind: Resynced, Found: true}, created, 0},
		// Letting go.
		{"evict a stored conversation: release its claim", warm, Command{Kind: Evict}, releasing, LeaveHub | ReleaseClaim},
		{"evict an unsaved one: park it", unsaved, Command{Kind: Evict}, State{Home: Releasing}, LeaveHub | Park},
		{"evict a created one: park it", created, Command{Kind: Evict}, State{Stage: Created, Home: Releasing}, LeaveHub | Park},
		{"a socket or a turn keeps it", warm, Command{Kind: Evict, Busy: true}, warm, Noop},
		{"evict while it is released: wait", releasing, Command{Kind: Evict}, releasing, WaitInFlight},
		{"evict what is let go already", letGo, Command{Kind: Evict}, letGo, Noop},
		{"released", releasing, Command{Kind: Released}, letGo, 0},
		{"released twice", letGo, Command{Kind: Released}, letGo, Noop},
		{"a renewal took a let-go claim again: release it again", letGo, Command{Kind: Renewed}, releasing, ReleaseClaim},
		{"a renewal of a live one keeps it", warm, Command{Kind: Renewed}, warm, Noop},
		{"a renewal of a parked one has no claim to release", parked, Command{Kind: Renewed}, parked, Noop},
		// Taking back.
		{"take back a live one: nothing to do", warm, Command{Kind: TakeBack}, warm, 0},
		{"take back while it is released: wait", releasing, Command{Kind: TakeBack}, releasing, WaitInFlight},
		{"take back while another request claims it: wait", claiming, Command{Kind: TakeBack}, claiming, WaitInFlight},
		{"take back a parked one: no claim, back in the registry", parked, Command{Kind: TakeBack}, State{Home: Claiming}, JoinHub},
		{"a parked one back in the registry: as it was", State{Home: Claiming}, Command{Kind: Claimed, OK: true}, unsaved, 0},
		{"take back a stored one: claim it again", letGo, Command{Kind: TakeBack}, claiming, ClaimAgain | JoinHub},
		{"claimed again: live, and the store is read first", claiming, Command{Kind: Claimed, OK: true}, State{Stage: Stored, Stale: TakenBack}, 0},
		{"claimed again after a failed write: still that failure", State{Stage: Stored, Home: Claiming, Stale: WriteFailed}, Command{Kind: Claimed, OK: true}, failed, 0},
		{"another replica claimed it meanwhile", claiming, Command{Kind: Claimed}, letGo, Refused},
		{"a cold one taken back is read again", State{Stage: Stored, Memory: InStore, Home: Claiming}, Command{Kind: Claimed, OK: true}, State{Stage: Stored, Memory: InStore, Stale: TakenBack}, 0},
		{"a claim answer nobody waits for", warm, Command{Kind: Claimed, OK: true}, warm, Noop},
		// Deletion.
		{"the operator deletes a live one", warm, Command{Kind: Delete}, deleted, 0},
		{"the operator deletes a parked one", parked, Command{Kind: Delete}, State{Home: Deleted}, 0},
		{"a deleted one is never taken back", deleted, Command{Kind: TakeBack}, deleted, Refused},
		{"a deleted one is never let go", deleted, Command{Kind: Evict}, deleted, Noop},
		{"a deleted one never cools", deleted, Command{Kind: Cool}, deleted, Noop},
		{"a deleted one is not resynced", State{Stage: Stored, Home: Deleted, Stale: WriteFailed}, Command{Kind: Resynced, Found: true, Adopted: true}, State{Stage: Stored, Home: Deleted, Stale: WriteFailed}, Noop},
		// Resync.
		{"a stale one is read again", failed, Command{Kind: ReadStart}, State{Stage: Stored, Stale: WriteFailed, Reading: true}, ReadStore},
		{"one resync at a time", State{Stage: Stored, Stale: WriteFailed, Reading: true}, Command{Kind: ReadStart}, State{Stage: Stored, Stale: WriteFailed, Reading: true}, WaitInFlight},
		{"after another resync: nothing to read", warm, Command{Kind: ReadStart}, warm, Noop},
		{"a resync ends", State{Stage: Stored, Reading: true}, Command{Kind: ReadDone}, warm, 0},
		{"cold and let go: taken back by claim", coldLetGo, Command{Kind: TakeBack}, State{Stage: Stored, Memory: InStore, Home: Claiming}, ClaimAgain | JoinHub},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, eff := Step(tc.from, tc.cmd)
			if got != tc.want || eff != tc.eff {
				t.Errorf("Step(%+v, %v)\n got %+v, effects %b\nwant %+v, effects %b", tc.from, tc.cmd.Kind, got, eff, tc.want, tc.eff)
			}
			if err := got.Check(); err != nil {
				t.Error(err)
			}
		})
	}
	if len(cases) < 30 {
		t.Fatalf("%d cases; the table covers each command in each phase that matters", len(cases))
	}
}

// TestStepWalks drives random command sequences from each starting state: no sequence
// reaches a State that Check refuses, a deleted conversation stays deleted, and the effects
// that hand work to the caller (a release, a claim) come exactly when Home enters the state
// that waits for their outcome.
func TestStepWalks(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	starts := []State{unsaved, created, warm, cold, failed, letGo, parked, deleted}
	for walk := range 2000 {
		s := starts[walk%len(starts)]
		for range 60 {
			c := Command{Kind: Kind(1 + r.IntN(int(ReadDone))), Busy: r.IntN(3) == 0, OK: r.IntN(2) == 0,
				Gone: r.IntN(8) == 0, Found: r.IntN(4) != 0, Adopted: r.IntN(2) == 0}
			if c.Kind == Resynced && c.Adopted {
				c.Found = true
			}
			next, eff := Step(s, c)
			if err := next.Check(); err != nil {
				t.Fatalf("walk %d: %v after %v from %+v", walk, err, c.Kind, s)
			}
			if s.Home == Deleted && next.Home != Deleted {
				t.Fatalf("walk %d: left deleted by %v", walk, c.Kind)
			}
			if eff.Has(ReleaseClaim) != (next.Home == Releasing && s.Home != Releasing && next.Stage == Stored) {
				t.Fatalf("walk %d: %v from %+v: ReleaseClaim %v, home %v", walk, c.Kind, s, eff.Has(ReleaseClaim), next.Home)
			}
			if eff.Has(JoinHub) != (next.Home == Claiming && s.Home != Claiming) ||
				eff.Has(ClaimAgain) != (eff.Has(JoinHub) && next.Stage == Stored) {
				t.Fatalf("walk %d: %v from %+v: ClaimAgain %v, home %v", walk, c.Kind, s, eff.Has(ClaimAgain), next.Home)
			}
			if eff.Has(StartWriter) && (s.Writing || !next.Writing) {
				t.Fatalf("walk %d: a second writer started", walk)
			}
			s = next
		}
	}
}

func TestPhaseNames(t *testing.T) {
	for _, tc := range []struct {
		s    State
		want string
	}{
		{unsaved, "unsaved"}, {created, "created"}, {warm, "warm"}, {cold, "cold"}, {failed, "stale"},
		{releasing, "releasing"}, {letGo, "let-go"}, {parked, "parked"}, {claiming, "claiming"}, {deleted, "deleted"},
	} {
		if got := tc.s.Phase(); got != tc.want {
			t.Errorf("%+v: phase %q, want %q", tc.s, got, tc.want)
		}
	}
}
