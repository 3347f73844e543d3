package por_test

import (
	"path/filepath"
	"testing"

	"mcvm/bytecode"
	"mcvm/explorer"
	"mcvm/por"
	"mcvm/vm"
)

// TestAmple_heldMonitorAlone: a thread whose next transition begins with
// monitorenter, a synchronized call, wait, notify or notifyall on a monitor
// it holds forms a persistent set on its own (nobody else can take, wait on
// or notify that monitor until it lets go of it), so does one that joins a
// thread that has ended, and so does one about to end (its end enables the
// joins of it, which no other thread can run before), so the reducer never
// expands such a state fully, whatever the other threads do. It looks at
// every state of the conformance programs, the regression programs and
// the small models that have such a thread and another enabled one; the
// differential tests (TestGenerated_reductionIsSound,
// TestModels_sameVerdicts) check that this loses nothing.
func TestAmple_heldMonitorAlone(t *testing.T) {
	held := map[bytecode.Opcode]int{}
	for _, pr := range programs(t) {
		switch filepath.Base(pr.path) {
		case "boundedbuffer.mcasm", "nestedmonitor.mcasm", "sleepingbarber.mcasm", "pipeline.mcasm", "rwvsn.mcasm":
		default:
			if pr.model {
				continue
			}
		}
		p := pr.prog
		m, err := vm.New(p, por.All.VMOptions(vm.Options{}))
		if err != nil {
			t.Fatal(err)
		}
		chk := por.New(p, por.Ample)
		var buf []vm.Trans
		explorer.Search(m, explorer.Options{Continue: true, Reducer: por.New(p, por.All), MaxStates: 20000,
			Listeners: []explorer.Listener{explorer.Funcs{OnState: func(id int32, fp uint64) {
				buf = m.Enabled(buf[:0])
				if len(buf) == 0 || buf[0].Thread == buf[len(buf)-1].Thread {
					return
				}
				for u := range int32(m.NumThreads()) {
					mi, pc := m.Where(u)
					if mi < 0 {
						continue
					}
					op := p.Methods[mi].Code[pc].Op
					a := m.NextAccess(u)
					switch op {
					case bytecode.OpWait, bytecode.OpNotify, bytecode.OpNotifyall:
						if !a.Held {
							continue
						}
					case bytecode.OpMonitorenter, bytecode.OpInvokevirtual, bytecode.OpInvokestatic:
						if a.Kind != vm.FootMonitor || !a.Held {
							continue // not a monitor it holds
						}
						if op == bytecode.OpInvokestatic {
							op = bytecode.OpInvokevirtual // (counted together)
						}
					case bytecode.OpJoin:
						if a.Kind != vm.FootThread || a.Write {
							continue // the thread joined has not ended
						}
					case bytecode.OpReturn, bytecode.OpRetval:
						if a.Kind != vm.FootThread || a.Index != int64(u) {
							continue // not the thread's last return
						}
						op = bytecode.OpReturn
					default:
						continue
					}
					held[op]++
					if n := chk.Ample(m, buf); n == len(buf) {
						t.Errorf("%s: state %d expanded fully, thread %d at %s (a held monitor's, an ended thread's join or its end)", filepath.Base(pr.path), id, u, op)
					}
					return
				}
			}}}})
	}
	t.Logf("states with a thread at a held monitor's instruction, a join of an ended thread or its own end: %v", held)
	for _, op := range []bytecode.Opcode{bytecode.OpWait, bytecode.OpNotify, bytecode.OpNotifyall, bytecode.OpJoin, bytecode.OpReturn, bytecode.OpMonitorenter, bytecode.OpInvokevirtual} {
		if held[op] == 0 {
			t.Errorf("no state had a thread at %s (of a monitor it holds, a join of a thread that ended, or its last return) and another thread enabled", op)
		}
	}
}
