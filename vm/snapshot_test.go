package vm_test

import (
	"path/filepath"
	"testing"

	"mcvm/vm"
)

// TestSnapshot_discard walks every model depth first as the explorer
// does (a snapshot per level, saved into again when the level is reached
// again, with the nearest level below as its parent, deltas from level 4
// on, Discard when a level is popped) and checks in every state that the
// copies of threads the machine holds are exactly those the levels on the
// stack hold: none is pinned by a level popped, and none still listed was
// given back.
func TestSnapshot_discard(t *testing.T) {
	for _, path := range models(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			m := walkMachine(t, path, vm.GCMarkSweep, false)
			type level struct {
				trs  []vm.Trans
				next int
			}
			var snaps []*vm.Snapshot
			var stack []level
			seen := map[string]bool{}
			check := func() {
				t.Helper()
				held, listed := m.CopiesHeld(snaps[:len(stack)])
				if held != listed {
					t.Fatalf("%d states: the machine holds %d bytes of copies of threads, the %d levels on the stack %d", len(seen), held, len(stack), listed)
				}
			}
			push := func() {
				l := len(stack)
				if l == len(snaps) {
					snaps = append(snaps, new(vm.Snapshot))
				}
				switch {
				case l == 0:
					m.Save(snaps[l], nil)
				case l < 4:
					m.Save(snaps[l], snaps[l-1])
				default:
					m.SaveDelta(snaps[l], snaps[l-1])
				}
				stack = append(stack, level{trs: m.Enabled(nil)})
				check()
			}
			seen[string(m.Encode(nil))] = true
			push()
			for len(stack) > 0 && len(seen) < 2000 {
				top := &stack[len(stack)-1]
				if top.next == len(top.trs) {
					m.Discard(snaps[len(stack)-1])
					stack = stack[:len(stack)-1]
					check()
					continue
				}
				m.Restore(snaps[len(stack)-1])
				tr := top.trs[top.next]
				top.next++
				if f := m.Step(tr); f != nil {
					continue
				}
				k := string(m.Encode(nil))
				if seen[k] {
					continue
				}
				seen[k] = true
				m.CollectGarbage()
				push()
			}
		})
	}
}
