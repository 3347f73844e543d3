// Listeners: what a search reports as it goes (JPF's SearchListener).

package explorer

import "mcvm/vm"

// Events is a set of the events a Listener is given.
type Events uint8

// The events of a search.
const (
	EventState      Events = 1 << iota // Listener.StateStored
	EventTransition                    // Listener.Transition
	EventBacktrack                     // Listener.Backtracked
	EventError                         // Listener.ErrorFound
	EventEnd                           // Listener.EndState
	EventProgress                      // Listener.Progress
	AllEvents       Events = 1<<iota - 1
)

// Listener observes a search: the search calls each of its methods for
// the events Wants names, in the order they happen, from the goroutine
// that runs the search. Embed NoListener to implement only some methods.
// The script recorder of package scc, the progress line of cmd/mcvm and
// the tests' observers are listeners.
type Listener interface {
	// Wants names the events the listener is given (it is asked once, at
	// the start). A search that reports transitions cannot take them from
	// its lookahead (ahead.go), so a listener that does not need them
	// should leave EventTransition out.
	Wants() Events
	// StateStored is called for each state stored for the first time,
	// with its id in the store and its fingerprint.
	StateStored(id int32, fp uint64)
	// Transition is called after every transition executed, with the
	// state it left, the transition, the method and pc of the instruction
	// that began it, and the state it reached (-1 when the transition
	// faulted and so reached no state, or, with a lossy store, for a
	// revisit) and whether that state is new. With Options.Chain, the
	// transition is the one that began a chain and the state reached the
	// chain's end; a chain that ends in an invariant violation is
	// reported as a fault, and one whose transition faulted in a reduced
	// state is reported again, reaching the state before the fault, which
	// the search stores and explores fully (materialise).
	Transition(from int32, tr vm.Trans, method, pc int32, to int32, isNew bool)
	// Backtracked is called when depth-first search leaves state id for
	// good, its transitions all explored (or cut off by a limit or a
	// violation).
	Backtracked(id int32)
	// ErrorFound is called for every error found, with the fingerprint of
	// the state it was found in for deadlocks and invariant violations (0
	// for faults of a transition, which leave no state).
	ErrorFound(f *vm.Fault, fp uint64)
	// EndState is called with the fingerprint of every new state in which
	// every started thread has ended.
	EndState(fp uint64)
	// Progress is called about every Options.ProgressEvery with the
	// figures so far.
	Progress(st Stats)
}

// NoListener is a Listener that wants every event and does nothing with
// it: embed it and override the methods needed (and Wants, to be spared
// the rest).
type NoListener struct{}

func (NoListener) Wants() Events                                         { return AllEvents }
func (NoListener) StateStored(int32, uint64)                             {}
func (NoListener) Transition(int32, vm.Trans, int32, int32, int32, bool) {}
func (NoListener) Backtracked(int32)                                     {}
func (NoListener) ErrorFound(*vm.Fault, uint64)                          {}
func (NoListener) EndState(uint64)                                       {}
func (NoListener) Progress(Stats)                                        {}

// Funcs is a Listener made of functions, for tests and small tools: it
// wants the events whose function is set.
type Funcs struct {
	OnState      func(id int32, fp uint64)
	OnTransition func(from int32, tr vm.Trans, method, pc int32, to int32, isNew bool)
	OnBacktrack  func(id int32)
	OnError      func(f *vm.Fault, fp uint64)
	OnEnd        func(fp uint64)
	OnProgress   func(st Stats)
}

// Wants implements Listener.
func (f Funcs) Wants() Events {
	var e Events
	for _, x := range [...]struct {
		set bool
		ev  Events
	}{{f.OnState != nil, EventState}, {f.OnTransition != nil, EventTransition}, {f.OnBacktrack != nil, EventBacktrack},
		{f.OnError != nil, EventError}, {f.OnEnd != nil, EventEnd}, {f.OnProgress != nil, EventProgress}} {
		if x.set {
			e |= x.ev
		}
	}
	return e
}

// The methods call the functions (Wants keeps the search from calling
// the others).

func (f Funcs) StateStored(id int32, fp uint64) { f.OnState(id, fp) }
func (f Funcs) Transition(from int32, tr vm.Trans, method, pc int32, to int32, isNew bool) {
	f.OnTransition(from, tr, method, pc, to, isNew)
}
func (f Funcs) Backtracked(id int32)               { f.OnBacktrack(id) }
func (f Funcs) ErrorFound(fl *vm.Fault, fp uint64) { f.OnError(fl, fp) }
func (f Funcs) EndState(fp uint64)                 { f.OnEnd(fp) }
func (f Funcs) Progress(st Stats)                  { f.OnProgress(st) }

// Listen adds l to the listeners of the search o configures.
func (o *Options) Listen(l Listener) { o.Listeners = append(o.Listeners, l) }

// ListenerSet holds listeners sorted by the events they want, so that an
// event nobody wants costs a length test. Searches report through one,
// and so does the certifier of their scripts (package scc).
type ListenerSet struct {
	State, Transition, Backtrack, Error, End, Progress []Listener
}

// NewListenerSet sorts ls by the events each wants (Listener.Wants).
func NewListenerSet(ls []Listener) ListenerSet {
	var r ListenerSet
	for _, l := range ls {
		w := l.Wants()
		for _, x := range [...]struct {
			ev   Events
			list *[]Listener
		}{{EventState, &r.State}, {EventTransition, &r.Transition}, {EventBacktrack, &r.Backtrack},
			{EventError, &r.Error}, {EventEnd, &r.End}, {EventProgress, &r.Progress}} {
			if w&x.ev != 0 {
				*x.list = append(*x.list, l)
			}
		}
	}
	return r
}
