// Partitioner: splits a script into independent certification tasks (Algorithm 3.2).

package scc

import "fmt"

// Partition describes how a script was split.
type Partition struct {
	Tasks []*Script
	Sizes []int64 // per task: transitions of its region
	Init  []int   // per task: length of its init path
}

// Split partitions complete script s into at most k tasks (Algorithm 3.2):
// k-1 times it picks the state whose region (Definition 3.2.1), by the
// Subgraphs list, is closest to 1/(k-i) of the transitions not yet
// assigned, cuts that region's entries out of the script, checks that
// their number agrees with the Subgraphs list, and prefixes them with the
// init path from the initial state; what remains is the last task. In a
// full script the transition into a region's root stays with the parent
// region as a transition to a visited state; in a trustful one it is
// dropped. Fewer than k tasks result when no region is left to cut.
//
// The tasks carry global state IDs, so their FP maps merge (Merge). A
// Subgraphs list that is wrong makes Split fail or only makes the tasks'
// sizes less even (Theorem 3.2.4): the regions are cut by the script's own
// structure.
func Split(s *Script, k int) (*Partition, error) {
	if k < 1 {
		return nil, fmt.Errorf("--tasks must be at least 1, got %d", k)
	}
	if s.IsTask() {
		return nil, fmt.Errorf("the script is already task %d of %d", s.Task, s.Tasks)
	}
	if !s.Complete() {
		return nil, fmt.Errorf("the script stops at the verification's first error; only a complete script (verify --continue, or a program without errors) can be partitioned")
	}
	entries, err := DecodeEntries(s.Body, s.IDs, 0, s.Entries)
	if err != nil {
		return nil, err
	}
	if int64(len(entries)) != s.Entries {
		return nil, corrupt(-1, "the body has %d entries, the header says %d", len(entries), s.Entries)
	}
	trustful := s.Trustful()
	// The structure: where each state is introduced and left, its parent.
	newAt := []int{-1}
	btAt := []int{-1}
	parent := []int32{-1}
	stack := []int32{0}
	for i := range entries {
		e := &entries[i]
		switch e.Op {
		case OpBacktrack:
			if len(stack) == 0 {
				return nil, discrepancy(Extra, int64(i), "a backtrack after the search left its start state")
			}
			btAt[stack[len(stack)-1]] = i
			stack = stack[:len(stack)-1]
		case OpNew:
			if len(stack) == 0 {
				return nil, discrepancy(Extra, int64(i), "a transition after the search left its start state")
			}
			if int(e.ID) != len(newAt) {
				return nil, discrepancy(BadID, int64(i), "a new state must have ID %d, the script gives %d", len(newAt), e.ID)
			}
			newAt, btAt = append(newAt, i), append(btAt, -1)
			parent = append(parent, stack[len(stack)-1])
			stack = append(stack, e.ID)
		case OpOld:
			if trustful {
				return nil, corrupt(int64(i), "a trustful script has no transitions to visited states")
			}
			fallthrough
		default:
			if len(stack) == 0 {
				return nil, discrepancy(Extra, int64(i), "a transition after the search left its start state")
			}
		}
	}
	if len(stack) > 0 {
		return nil, discrepancy(Truncated, int64(len(entries)), "the script ends with %d states on the stack", len(stack))
	}
	n := len(newAt)
	if len(s.Subgraph) != n {
		return nil, discrepancy(Subgraphs, -1, "the Subgraphs list has %d entries for %d states", len(s.Subgraph), n)
	}
	cur := append([]int64(nil), s.Subgraph...)
	var remaining int64
	for i := range entries {
		if entries[i].Op != OpBacktrack {
			remaining++
		}
	}
	removedEntry := make([]bool, len(entries))
	converted := make([]bool, len(entries))
	removedState := make([]bool, n)
	drop := int64(0)
	if trustful {
		drop = 1
	}
	part := &Partition{}
	type region struct {
		root    int32
		entries []int32
	}
	var regions []region
	for i := 0; i < k-1; i++ {
		left := int64(k - i)
		best, bestDiff := int32(-1), int64(-1)
		for id := 1; id < n; id++ {
			if removedState[id] || cur[id] <= 0 {
				continue
			}
			d := cur[id]*left - remaining
			if d < 0 {
				d = -d
			}
			if best < 0 || d < bestDiff {
				best, bestDiff = int32(id), d
			}
		}
		if best < 0 {
			break
		}
		r := best
		idx := make([]int32, 0, btAt[r]-newAt[r])
		var count int64
		for j := newAt[r] + 1; j <= btAt[r]; j++ {
			if removedEntry[j] {
				continue
			}
			idx = append(idx, int32(j))
			removedEntry[j] = true
			switch e := &entries[j]; e.Op {
			case OpBacktrack:
			case OpNew:
				removedState[e.ID] = true
				count++
			default:
				count++
			}
		}
		if count != cur[r] {
			return nil, discrepancy(Subgraphs, -1, "the region rooted at state %d has %d transitions, the Subgraphs list says %d", r, count, cur[r])
		}
		removedState[r] = true
		if trustful {
			removedEntry[newAt[r]] = true
		} else {
			converted[newAt[r]] = true
		}
		for a := parent[r]; a >= 0; a = parent[a] {
			cur[a] -= count + drop
		}
		remaining -= count + drop
		regions = append(regions, region{root: r, entries: idx})
	}
	rest := make([]int32, 0, len(entries))
	for j := range entries {
		if !removedEntry[j] {
			rest = append(rest, int32(j))
		}
	}
	regions = append(regions, region{root: 0, entries: rest})
	kind := byte(KindTask)
	if trustful {
		kind = KindTrustfulTask
	}
	for ti, rg := range regions {
		t := &Script{}
		t.Header = s.Header
		t.Kind, t.Task, t.Tasks, t.Root = kind, ti+1, len(regions), rg.root
		var chain []Entry
		for a := rg.root; a > 0; a = parent[a] {
			e := entries[newAt[a]]
			e.Last = false
			chain = append(chain, e)
		}
		for i, j := 0, len(chain)-1; i < j; i, j = i+1, j-1 {
			chain[i], chain[j] = chain[j], chain[i]
		}
		t.InitEntries = int64(len(chain))
		var size int64
		for _, j := range rg.entries {
			if entries[j].Op != OpBacktrack {
				size++
			}
		}
		t.view = &taskView{all: entries, converted: converted, idx: rg.entries, init: chain}
		t.Entries = int64(len(rg.entries))
		t.Subgraphs = 0
		part.Tasks = append(part.Tasks, t)
		part.Sizes = append(part.Sizes, size)
		part.Init = append(part.Init, len(chain))
	}
	return part, nil
}
