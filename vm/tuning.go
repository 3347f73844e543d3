// Tuning: the machine's settings for tests.

package vm

// Tuning holds settings of a machine that users never set: they let tests
// check a fast path against the slow one it stands for. The zero value is
// what every search runs with.
type Tuning struct {
	// CheckEncoding makes every incremental encoding, kept
	// transition and restore of the incremental encoder's base check
	// itself against the slow way (a whole encoding, an executed
	// transition) and panic on a difference. Slow, and it allocates.
	CheckEncoding bool
	// NoKeptTransitions makes StepAhead execute every transition instead
	// of taking the ones it kept (keptahead.go).
	NoKeptTransitions bool
}
