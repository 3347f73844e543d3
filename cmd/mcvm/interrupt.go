// Interrupts: the first SIGINT or SIGTERM stops a search at its next step, the second exits at once.

package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// interrupt is what catchInterrupts sets up for one command: flag, which
// the first SIGINT or SIGTERM sets and the searches look at
// (explorer.Options.Interrupt, scc.Options.Interrupt), and the child
// processes every signal is passed on to (mcvm bench and mcvm swarm run
// each check in its own process group, so that a signal reaches it once,
// from here: the first stops it with a report, the second at once).
type interrupt struct {
	flag     atomic.Bool
	mu       sync.Mutex
	sigs     []os.Signal // received so far
	children map[*os.Process]struct{}
}

// interruptReady is called once a command catches interrupts; tests set
// it to learn when a signal will be caught.
var interruptReady = func() {}

// catchInterrupts makes the first SIGINT or SIGTERM set the returned
// interrupt's flag (and say so on stderr) and the second exit at once
// with 128 plus the signal's number, as the shell reports a process
// killed by it. The caller runs stop when the command ends.
//
// Signals are caught from catchDelay on: catching them costs a run about
// as much CPU time as checking a small model, and a run that ends before
// then has no part explored worth a report (the signal's default action
// ends it; every file mcvm writes is renamed into place whole).
func catchInterrupts(stderr io.Writer) (it *interrupt, stop func()) {
	it = new(interrupt)
	ch := make(chan os.Signal, 2)
	done := make(chan struct{})
	var mu sync.Mutex
	stopped := false
	t := time.AfterFunc(catchDelay, func() {
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return
		}
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		go it.handle(ch, done, stderr, os.Exit)
		interruptReady()
	})
	return it, func() {
		mu.Lock()
		stopped = true
		t.Stop()
		signal.Stop(ch)
		mu.Unlock()
		close(done)
	}
}

// catchDelay is how long a command runs before it catches interrupts.
const catchDelay = 50 * time.Millisecond

// handle takes the signals from ch until done is closed.
func (it *interrupt) handle(ch <-chan os.Signal, done <-chan struct{}, stderr io.Writer, exit func(int)) {
	for {
		select {
		case <-done:
			return
		case sig := <-ch:
			it.mu.Lock()
			it.sigs = append(it.sigs, sig)
			n := len(it.sigs)
			for p := range it.children {
				p.Signal(sig)
			}
			it.mu.Unlock()
			if n == 1 {
				it.flag.Store(true)
				fmt.Fprintf(stderr, "mcvm: %s: stopping at the next step to report the part explored (again to exit at once)\n", sigName(sig))
				continue
			}
			fmt.Fprintf(stderr, "mcvm: %s again: exiting without a report\n", sigName(sig))
			code := 128 + 2
			if s, ok := sig.(syscall.Signal); ok {
				code = 128 + int(s)
			}
			exit(code)
			return
		}
	}
}

// started tells it of a child process the signals go to, until ended;
// the signals received before it started are passed on at once.
func (it *interrupt) started(p *os.Process) {
	it.mu.Lock()
	defer it.mu.Unlock()
	if it.children == nil {
		it.children = map[*os.Process]struct{}{}
	}
	it.children[p] = struct{}{}
	for _, sig := range it.sigs {
		p.Signal(sig)
	}
}

// ended tells it that child p has ended.
func (it *interrupt) ended(p *os.Process) {
	it.mu.Lock()
	defer it.mu.Unlock()
	delete(it.children, p)
}

// interrupted reports whether a signal has asked the command to stop.
func (it *interrupt) interrupted() bool { return it.flag.Load() }

func sigName(sig os.Signal) string {
	if sig == syscall.SIGTERM {
		return "SIGTERM"
	}
	if sig == os.Interrupt {
		return "SIGINT"
	}
	return sig.String()
}
