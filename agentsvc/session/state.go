// Package session is the life of one live conversation as a state machine: where its history
// is (the store, memory), whether this replica holds it, and what must happen before it
// writes again. Step is the only code that changes a State; it does no I/O, takes no lock
// and reads no clock. What a transition asks the world to do comes back as Effects, which
// the caller performs with no lock held and whose outcomes it feeds back as commands
// (Released, Claimed, Written, Resynced...).
//
// A State is four parts, each one value of a small set:
//
//   - Stage, what the store holds: Unsaved (a new conversation or a fork, in memory until its
//     first turn), Created (the store has it, claimed here, not its history yet), Stored.
//   - Memory, where its history is: InMemory, or InStore (an idle tab whose history is left to
//     the store: "cold").
//   - Home, whether this replica holds it: Live (in the registry, claimed once created),
//     Releasing (being let go: out of the registry and its claim being released), LetGo
//     (released, or parked when never stored), Claiming (being taken back), Deleted (the
//     operator deleted it: nothing more is written, no turn starts; final).
//   - Stale, why the store's state must be read again (resync) before anything is written:
//     Fresh (no need), WriteFailed, TakenBack (it was let go, and another replica may have
//     written it since), Diverged (the store does not hold it as it was left), Gone (a write
//     found it deleted; nothing more is written).
//
// and Writing: one batch write is in flight (the flusher runs); Reading: the store's state is
// being read again (one resync at a time; another waits for it and finds nothing to do).
package session

import "fmt"

// Stage is what the store holds of a conversation.
type Stage uint8

const (
	Unsaved Stage = iota // only in memory: a new conversation or a fork before its first turn
	Created              // the store has it (claimed by this replica), not its history yet
	Stored               // the store has it with its history
)

// Memory is where a stored conversation's history and recent events are.
type Memory uint8

const (
	InMemory Memory = iota // in memory (and in the store once stored)
	InStore                // only in the store: an idle tab ("cold"); read back when needed
)

// Home is whether this replica holds the conversation.
type Home uint8

const (
	Live      Home = iota // in this replica's registry, claimed here once created
	Releasing             // being let go: leaving the registry, its claim being released
	LetGo                 // out of the registry: its claim released, or parked when never stored
	Claiming              // being taken back: its claim being taken again
	Deleted               // deleted by the operator; final
)

// Stale is why the store's state must be read again before the conversation writes.
type Stale uint8

const (
	Fresh       Stale = iota // nothing to read again
	WriteFailed              // a write failed for good
	TakenBack                // let go and taken back: another replica may have written it since
	Diverged                 // the store's seq is not the one it was left at
	Gone                     // a write found it deleted: nothing more is written
)

// State is a conversation's life; the zero State is a new conversation, live and unsaved.
type State struct {
	Stage   Stage
	Memory  Memory
	Home    Home
	Stale   Stale
	Writing bool // a batch is being written
	Reading bool // the store's state is being read again (resync): one reader at a time
}

// Loaded is the State of a conversation read from the store (a resume on this replica).
func Loaded() State { return State{Stage: Stored} }

// Kind names a command.
type Kind uint8

const (
	// The flusher.
	Write      Kind = iota + 1 // events were queued: start the writer unless it runs (StartWriter)
	Written                    // a batch was stored (creating the conversation if needed)
	WriteFail                  // a batch failed for good (Command.Gone: the store no longer has it)
	WriterIdle                 // nothing is queued: the writer stops
	Create                     // the first turn created it in the store (claimed here)
	Cool                       // its history may leave memory (Command.Busy: a turn or a queued write keeps it)
	Warmed                     // its history was read back (Command.OK: at the seq it was left at)
	Resynced                   // the store's state was read again (Command.Found, Command.Adopted)
	Evict                      // nothing uses it (Command.Busy: a socket or a turn does): let it go
	Released                   // it left the registry and its claim is released (or it is parked)
	Renewed                    // a claim renewal may have taken its claim again after it was let go
	TakeBack                   // a request wants it back after it was let go
	Claimed                    // taking it back: it is claimed again and back in the registry (Command.OK), or not
	Delete                     // the operator deleted it
	ReadStart                  // a resync wants to read the store's state (ReadStore, or Wait)
	ReadDone                   // the resync ended (read or not)
)

var kindNames = [...]string{"", "write", "written", "write-fail", "writer-idle", "create", "cool", "warmed",
	"resynced", "evict", "released", "renewed", "take-back", "claimed", "delete", "read-start", "read-done"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Command is one input of Step.
type Command struct {
	Kind Kind
	// Busy (Cool, Evict): something still uses the conversation's memory or the conversation.
	Busy bool
	// OK (Warmed, Claimed): the store matched / the claim was taken.
	OK bool
	// Gone (WriteFail): the store refused the write because the conversation is not there.
	Gone bool
	// Found, Adopted (Resynced): the store has the conversation; its state was taken (it has
	// its history, or events).
	Found, Adopted bool
}

// Effects is what a transition asks the caller to do, with no lock held, feeding the outcome
// back where it says.
type Effects uint16

const (
	StartWriter  Effects = 1 << iota // run the flusher (it ends with WriterIdle)
	ReleaseClaim                     // release the store claim, then Released
	Park                             // keep the never-stored conversation parked for its tab, then Released
	LeaveHub                         // take it out of the registry (with ReleaseClaim or Park)
	ClaimAgain                       // take the store claim again (then JoinHub)
	JoinHub                          // put it back in the registry unless another copy is there, then Claimed
	ForgetHere                       // a write found it deleted elsewhere: carry the deletion out here
	WaitInFlight                     // a release, a claim or a resync is in flight: wait for its end, then ask again
	Refused                          // the request cannot have it: another replica holds it now
	Noop                             // nothing changed (a command that does not apply in this state)
	ReadStore                        // read the store's state, then Resynced (or not), then ReadDone
)

// Has tells whether e includes f.
func (e Effects) Has(f Effects) bool { return e&f != 0 }

// Step is the transition function: the state after c, and what the caller must do. It is
// the only code that assigns a State.
func Step(s State, c Command) (State, Effects) {
	if s.Home == Deleted && c.Kind != Write && c.Kind != Written && c.Kind != WriteFail && c.Kind != WriterIdle && c.Kind != ReadDone {
		if c.Kind == TakeBack {
			return s, Refused
		}
		return s, Noop // a deleted conversation only finishes the writes of the turn that ends
	}
	switch c.Kind {
	case Write:
		if s.Writing {
			return s, 0
		}
		s.Writing = true
		return s, StartWriter
	case WriterIdle:
		s.Writing = false
		return s, 0
	case Written:
		s.Stage = Stored
		return s, 0
	case WriteFail:
		if c.Gone {
			s.Stale = Gone
			if s.Home == Deleted {
				return s, 0
			}
			s.Home = Deleted
			return s, ForgetHere
		}
		s.Stale = WriteFailed
		return s, 0
	case Create:
		if s.Stage == Unsaved {
			s.Stage = Created
		}
		return s, 0
	case Cool:
		if c.Busy || s.Memory == InStore || s.Stage != Stored || s.Stale != Fresh || s.Writing {
			return s, Noop
		}
		s.Memory = InStore
		return s, 0
	case Warmed:
		if s.Memory != InStore {
			return s, Noop // warmed meanwhile by another request
		}
		if !c.OK {
			s.Stale = Diverged
			return s, 0
		}
		s.Memory = InMemory
		return s, 0
	case Resynced:
		if s.Stale == Fresh {
			return s, Noop // read again by another request meanwhile
		}
		if c.Adopted {
			s.Stage, s.Memory = Stored, InMemory
		} else if !c.Found && s.Stage != Stored {
			s.Stage = Unsaved // never stored: its next turn creates it
		}
		s.Stale = Fresh
		return s, 0
	case Evict:
		switch {
		case s.Home == Releasing || s.Home == Claiming:
			return s, WaitInFlight
		case c.Busy || s.Home != Live:
			return s, Noop
		}
		s.Home = Releasing
		if s.Stage == Stored {
			return s, LeaveHub | ReleaseClaim
		}
		return s, LeaveHub | Park
	case Renewed:
		if s.Home != LetGo || s.Stage != Stored {
			return s, Noop
		}
		s.Home = Releasing
		return s, ReleaseClaim
	case Released:
		if s.Home != Releasing {
			return s, Noop
		}
		s.Home = LetGo
		return s, 0
	case TakeBack:
		switch s.Home {
		case Live:
			return s, 0
		case Releasing, Claiming:
			return s, WaitInFlight
		}
		s.Home = Claiming
		if s.Stage != Stored {
			return s, JoinHub // parked: no claim to take, only its place in the registry
		}
		return s, ClaimAgain | JoinHub
	case Claimed:
		if s.Home != Claiming {
			return s, Noop
		}
		if !c.OK {
			s.Home = LetGo
			return s, Refused
		}
		s.Home = Live
		if s.Stale == Fresh && s.Stage == Stored {
			s.Stale = TakenBack
		}
		return s, 0
	case Delete:
		s.Home = Deleted
		return s, 0
	case ReadStart:
		switch {
		case s.Reading:
			return s, WaitInFlight
		case s.Stale == Fresh:
			return s, Noop // nothing to read again (another resync did it)
		}
		s.Reading = true
		return s, ReadStore
	case ReadDone:
		s.Reading = false
		return s, 0
	}
	return s, Noop
}

// Created tells whether the store has the conversation (created, or stored).
func (s State) Created() bool { return s.Stage >= Created }

// Cold tells whether its history is the store's only.
func (s State) Cold() bool { return s.Memory == InStore }

// Let tells whether it is not held here: being let go, let go, or being taken back.
func (s State) Let() bool { return s.Home == Releasing || s.Home == LetGo || s.Home == Claiming }

// MustResync tells whether the store's state must be read again before anything is written
// (and nothing is numbered meanwhile).
func (s State) MustResync() bool { return s.Stale != Fresh }

// Unsaved tells whether a write failed since the last resync: a turn that ends so is not
// done. A conversation a write found deleted is not unsaved: it is gone, as asked.
func (s State) Unsaved() bool { return s.Stale != Fresh && s.Stale != Gone }

// Phase is the one word for the state that logs, the console and docs/sessions.md use.
func (s State) Phase() string {
	switch {
	case s.Home == Deleted:
		return "deleted"
	case s.Home == Releasing:
		return "releasing"
	case s.Home == Claiming:
		return "claiming"
	case s.Home == LetGo && s.Stage != Stored:
		return "parked"
	case s.Home == LetGo:
		return "let-go"
	case s.Stale != Fresh:
		return "stale"
	case s.Stage == Unsaved:
		return "unsaved"
	case s.Stage == Created:
		return "created"
	case s.Memory == InStore:
		return "cold"
	}
	return "warm"
}

// Check reports a State that no sequence of commands can reach: nil when s is one.
func (s State) Check() error {
	switch {
	case s.Memory == InStore && s.Stage != Stored:
		return fmt.Errorf("session: cold but not stored (%+v)", s)
	case s.Stale == TakenBack && s.Stage != Stored:
		return fmt.Errorf("session: read again after a take-back but never stored (%+v)", s)
	case s.Stale == Gone && s.Home != Deleted:
		return fmt.Errorf("session: found deleted but not deleted (%+v)", s)
	}
	return nil
}
