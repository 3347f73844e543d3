// check --report and replay --report: the counterexample as one
// self-contained HTML file, a sequence diagram with a lane per thread.

package main

import (
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"mcvm/explorer"
)

// The diagram's geometry, in pixels.
const (
	laneW   = 180 // a thread's lane
	rowH    = 34  // a step
	topH    = 50  // the lanes' heads
	boxW    = 164
	boxH    = 24
	srcW    = 420 // the source column
	opChars = 23  // text shown in a box, with the step's number (all of it in its tooltip)
)

// writeReportFile writes the HTML report of rep, whose counterexample's
// states after each step are states (explorer.Describe with states), to
// path.
func writeReportFile(path string, rep *report, states [][]explorer.ThreadState) error {
	var b strings.Builder
	writeHTML(&b, rep, states)
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("--report: %w", err)
	}
	return nil
}

// writeHTML writes the report: verdict and figures, the sequence diagram
// with the source beside it, and a panel with the state after the step
// clicked (the error state at first).
func writeHTML(w io.Writer, rep *report, states [][]explorer.ThreadState) {
	esc := html.EscapeString
	cmd := rep.command
	if cmd == "" {
		cmd = "check"
	}
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>mcvm %s %s: %s</title>\n", esc(cmd), esc(rep.Model), esc(rep.Verdict))
	io.WriteString(w, htmlStyle)
	io.WriteString(w, "</head>\n<body>\n")
	fmt.Fprintf(w, "<h1>mcvm %s %s</h1>\n", esc(cmd), esc(rep.Model))
	fmt.Fprintf(w, "<p class=\"verdict v-%s\">verdict: <b>%s</b></p>\n", esc(rep.Verdict), esc(rep.Verdict))
	if rep.Message != "" {
		fmt.Fprintf(w, "<p class=\"error\">%s</p>\n", esc(rep.Message))
	}
	fmt.Fprintf(w, "<p class=\"stats\">%d states stored, %d transitions (%d revisits), max depth %d; %s, %s granularity, --por=%s; %.3f s</p>\n",
		rep.States, rep.Transitions, rep.Revisits, rep.MaxDepth, esc(rep.Search), esc(rep.Granularity), esc(rep.POR), rep.ElapsedS)
	if len(rep.Trace) == 0 {
		io.WriteString(w, "<p>No counterexample.</p>\n</body>\n</html>\n")
		return
	}
	nthreads := 0
	for _, s := range rep.Trace {
		nthreads = max(nthreads, int(s.Thread)+1, int(s.Peer)+1)
		for _, t := range s.Woke {
			nthreads = max(nthreads, int(t)+1)
		}
	}
	for _, e := range rep.Threads {
		nthreads = max(nthreads, int(e.Thread)+1)
	}
	waits := waitFor(rep.Threads)
	height := topH + rowH*len(rep.Trace) + 20 + 26*len(waits)
	width := laneW*nthreads + srcW
	io.WriteString(w, "<div class=\"main\">\n<div class=\"diagram\">\n")
	fmt.Fprintf(w, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\">\n", width, height, width, height)
	io.WriteString(w, `<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="context-stroke"/></marker></defs>`+"\n")
	laneX := func(t int32) int { return laneW*int(t) + laneW/2 }
	rowY := func(i int) int { return topH + rowH*i + rowH/2 }
	for t := range nthreads {
		x := laneX(int32(t))
		fmt.Fprintf(w, "<g class=\"lane\" data-thread=\"%d\"><text x=\"%d\" y=\"22\" class=\"head\">thread %d</text><line x1=\"%d\" y1=\"30\" x2=\"%d\" y2=\"%d\"/></g>\n", t, x, t, x, x, height-4)
	}
	// Links between threads, under the boxes.
	io.WriteString(w, "<g class=\"links\">\n")
	for _, l := range traceLinks(rep.Trace) {
		x1, y1, x2, y2 := laneX(l.fromThread), rowY(l.from), laneX(l.toThread), rowY(l.to)
		if l.from == l.to {
			y1, y2 = y1+4, y2+4
		}
		fmt.Fprintf(w, "<line class=\"link %s\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" marker-end=\"url(#arrow)\"><title>%s</title></line>\n", l.kind, x1, y1, x2, y2, esc(l.title))
	}
	io.WriteString(w, "</g>\n")
	for i, s := range rep.Trace {
		x, y := laneX(s.Thread), rowY(i)
		op := s.Op
		if op == "" {
			op = s.Instr
		}
		short := strconv.Itoa(i+1) + " " + op
		if r := []rune(short); len(r) > opChars {
			short = string(r[:opChars-1]) + "…"
		}
		cls := "step"
		if i == len(rep.Trace)-1 {
			cls += " last"
		}
		fmt.Fprintf(w, "<g class=\"%s\" data-step=\"%d\" tabindex=\"0\"><title>step %d, thread %d, %s: %s</title>", cls, i+1, i+1, s.Thread, esc(s.Method), esc(op))
		fmt.Fprintf(w, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"4\"/>", x-boxW/2, y-boxH/2, boxW, boxH)
		fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" class=\"op\">%s</text>", x, y+4, esc(short))
		src := strings.Join(strings.Fields(s.Source), " ")
		if src == "" {
			src = s.Instr
		}
		where := s.where()
		if s.File != "" {
			where = fmt.Sprintf("%s:%d", filepath.Base(s.File), s.Line)
		}
		fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" class=\"src\">%s  %s</text></g>\n", laneW*nthreads+10, y+4, esc(where), esc(src))
	}
	// A deadlock's wait-for edges, below the last step.
	for k, e := range waits {
		y := topH + rowH*len(rep.Trace) + 20 + 26*k
		fmt.Fprintf(w, "<line class=\"link waitfor\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" marker-end=\"url(#arrow)\"><title>thread %d waits for thread %d: %s</title></line>", laneX(e.from), y, laneX(e.to), y, e.from, e.to, esc(e.why))
		fmt.Fprintf(w, "<text x=\"%d\" y=\"%d\" class=\"waitlabel\">waits for</text>\n", (laneX(e.from)+laneX(e.to))/2, y-4)
	}
	io.WriteString(w, "</svg>\n</div>\n<div class=\"panel\">\n<h2 id=\"panel-title\">state</h2>\n")
	for i := range rep.Trace {
		hidden := " hidden"
		if i == len(rep.Trace)-1 {
			hidden = ""
		}
		fmt.Fprintf(w, "<div class=\"state\" id=\"state-%d\"%s>\n", i+1, hidden)
		s := rep.Trace[i]
		fmt.Fprintf(w, "<h3>after step %d: thread %d, %s</h3>\n<p class=\"stepop\">%s</p>\n", i+1, s.Thread, esc(s.Method), esc(s.Op))
		if len(s.Changes) > 0 {
			fmt.Fprintf(w, "<p class=\"changes\">changed: %s</p>\n", esc(formatChanges(s.Changes)))
		}
		if i < len(states) {
			writeThreadStates(w, states[i])
		}
		io.WriteString(w, "</div>\n")
	}
	io.WriteString(w, "</div>\n</div>\n")
	io.WriteString(w, htmlScript)
	io.WriteString(w, "</body>\n</html>\n")
}

// writeThreadStates writes the threads of a state: frames with locals,
// monitors held, objects reached.
func writeThreadStates(w io.Writer, ts []explorer.ThreadState) {
	esc := html.EscapeString
	if len(ts) == 0 {
		io.WriteString(w, "<p>Every thread has ended.</p>\n")
	}
	for _, t := range ts {
		fmt.Fprintf(w, "<div class=\"thread\"><h4>thread %d: %s", t.Thread, esc(t.Status))
		if t.Blocker != "" {
			fmt.Fprintf(w, " (%s)", esc(t.Blocker))
		}
		io.WriteString(w, "</h4>\n")
		if t.Next != "" {
			fmt.Fprintf(w, "<p>waits to: %s</p>\n", esc(t.Next))
		}
		if len(t.Holds) > 0 {
			fmt.Fprintf(w, "<p>holds: %s</p>\n", esc(strings.Join(t.Holds, ", ")))
		}
		io.WriteString(w, "<ul class=\"frames\">\n")
		for _, f := range t.Frames {
			fmt.Fprintf(w, "<li><code>%s</code> at %s", esc(f.Method), esc(f.Pos))
			if len(f.Locals) > 0 {
				fmt.Fprintf(w, ": %s", esc(formatChanges(f.Locals)))
			}
			io.WriteString(w, "</li>\n")
		}
		io.WriteString(w, "</ul>\n")
		if len(t.Objects) > 0 {
			io.WriteString(w, "<ul class=\"objects\">\n")
			for _, o := range t.Objects {
				fmt.Fprintf(w, "<li><code>%s</code>", esc(o.Name))
				if len(o.Fields) > 0 {
					fmt.Fprintf(w, " {%s}", esc(formatFields(o.Fields)))
				}
				if o.Owner >= 0 {
					fmt.Fprintf(w, ", monitor held by thread %d", o.Owner)
				}
				io.WriteString(w, "</li>\n")
			}
			io.WriteString(w, "</ul>\n")
		}
		io.WriteString(w, "</div>\n")
	}
}

// traceLink is an arrow between two steps of different threads: what links
// them.
type traceLink struct {
	from, to             int // step indices
	fromThread, toThread int32
	kind, title          string
}

// traceLinks finds what links the threads of a trace: a thread started
// or joined, a notify and the thread it woke, a monitor handed over, a
// value written and read.
func traceLinks(trace []traceStep) []traceLink {
	var out []traceLink
	lastStep := map[int32]int{}  // thread -> its last step so far
	released := map[string]int{} // object -> the step that last released it
	written := map[string]int{}  // location -> the step that last wrote it
	wokeBy := map[int32]int{}    // thread -> the notify that woke it
	for i, s := range trace {
		switch s.Access {
		case "start":
			out = append(out, traceLink{i, i, s.Thread, s.Peer, "start", fmt.Sprintf("thread %d starts thread %d", s.Thread, s.Peer)})
		case "join":
			if j, ok := lastStep[s.Peer]; ok {
				out = append(out, traceLink{j, i, s.Peer, s.Thread, "join", fmt.Sprintf("thread %d joins thread %d, which has ended", s.Thread, s.Peer)})
			}
		case "acquire":
			if j, ok := wokeBy[s.Thread]; ok && strings.HasPrefix(s.Op, "reacquires") {
				out = append(out, traceLink{j, i, trace[j].Thread, s.Thread, "notify", fmt.Sprintf("thread %d's notify woke thread %d", trace[j].Thread, s.Thread)})
				delete(wokeBy, s.Thread)
			}
			if j, ok := released[s.Target]; ok && trace[j].Thread != s.Thread {
				out = append(out, traceLink{j, i, trace[j].Thread, s.Thread, "monitor", fmt.Sprintf("%s handed over from thread %d to thread %d", s.Target, trace[j].Thread, s.Thread)})
			}
			delete(released, s.Target)
		case "release", "wait":
			released[s.Target] = i
		case "write":
			written[s.Target] = i
		case "read":
			if j, ok := written[s.Target]; ok && trace[j].Thread != s.Thread {
				out = append(out, traceLink{j, i, trace[j].Thread, s.Thread, "value", fmt.Sprintf("thread %d reads the %s thread %d wrote", s.Thread, s.Target, trace[j].Thread)})
			}
		}
		for _, t := range s.Woke {
			wokeBy[t] = i
		}
		lastStep[s.Thread] = i
	}
	return out
}

// waitEdge is an edge of a deadlock's wait-for graph.
type waitEdge struct {
	from, to int32
	why      string
}

// waitFor reads the wait-for edges of the threads at the end: a thread
// blocked on a monitor another holds, or joining another.
func waitFor(ends []threadEnd) []waitEdge {
	var out []waitEdge
	for _, e := range ends {
		for _, pre := range []string{"monitor held by thread ", "joining thread "} {
			if rest, ok := strings.CutPrefix(e.Blocker, pre); ok {
				if n, err := strconv.Atoi(rest); err == nil {
					out = append(out, waitEdge{e.Thread, int32(n), e.Blocker})
				}
			}
		}
	}
	return out
}

const htmlStyle = `<style>
body { font-family: system-ui, sans-serif; margin: 16px; color: #222; }
h1 { font-size: 18px; margin: 0 0 6px; }
h2 { font-size: 15px; margin: 0 0 6px; }
h3 { font-size: 14px; margin: 4px 0; }
h4 { font-size: 13px; margin: 8px 0 2px; }
p { margin: 3px 0; }
.verdict b { color: #b00; }
.v-ok b { color: #070; }
.error { font-family: monospace; }
.stats { color: #555; font-size: 13px; }
.main { display: flex; gap: 16px; align-items: flex-start; margin-top: 10px; }
.diagram { overflow: auto; max-height: 85vh; border: 1px solid #ddd; }
.panel { min-width: 340px; max-width: 460px; font-size: 13px; border: 1px solid #ddd; padding: 8px; position: sticky; top: 8px; }
.panel ul { margin: 2px 0; padding-left: 18px; }
svg { font-family: monospace; font-size: 11px; }
.lane line { stroke: #bbb; stroke-dasharray: 4 3; }
.lane .head { text-anchor: middle; font-weight: bold; font-size: 12px; }
.step rect { fill: #eef4ff; stroke: #5577aa; }
.step.last rect { fill: #ffe5e5; stroke: #b00; }
.step.selected rect { fill: #fff3b0; stroke: #a80; stroke-width: 2; }
.step { cursor: pointer; }
.step .op { text-anchor: middle; }
.step .src { fill: #444; white-space: pre; }
.link { stroke-width: 1.5; fill: none; }
.link.start, .link.join { stroke: #2a7; }
.link.notify { stroke: #a5a; stroke-dasharray: 5 3; }
.link.monitor { stroke: #888; }
.link.value { stroke: #37c; stroke-dasharray: 2 3; }
.link.waitfor { stroke: #c00; stroke-width: 2; }
.waitlabel { fill: #c00; text-anchor: middle; }
</style>
`

const htmlScript = `<script>
(function () {
  var steps = document.querySelectorAll('.step');
  function show(n) {
    document.querySelectorAll('.state').forEach(function (d) { d.hidden = d.id !== 'state-' + n; });
    steps.forEach(function (g) { g.classList.toggle('selected', g.dataset.step === String(n)); });
  }
  steps.forEach(function (g) {
    g.addEventListener('click', function () { show(g.dataset.step); });
    g.addEventListener('keydown', function (e) { if (e.key === 'Enter') show(g.dataset.step); });
  });
  if (steps.length) show(steps[steps.length - 1].dataset.step);
})();
</script>
`
