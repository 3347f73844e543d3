// Merge's two tables (by ID, and a Go map for sparse IDs) agree.

package scc

import (
	"fmt"
	"testing"
)

func TestMerge_tablesAgree(t *testing.T) {
	// Two tasks of a 6-state graph: task 1 explores 0, 1, 2 and reaches 3;
	// task 2 explores 3, 4, 5 and reaches 1 through its init path.
	good := func() []*FPMap {
		return []*FPMap{
			{Task: 1, Tasks: 2, IDs: []int32{0, 1, 2, 3}, FPs: []uint64{10, 11, 12, 13}, Defined: []bool{true, true, true, false}, Transitions: 4, Verdict: "ok"},
			{Task: 2, Tasks: 2, Root: 3, IDs: []int32{0, 1, 3, 4, 5}, FPs: []uint64{10, 11, 13, 14, 15}, Defined: []bool{false, false, true, true, true}, Transitions: 3, Verdict: "ok"},
		}
	}
	cases := map[string]func(ms []*FPMap){
		"good":           func([]*FPMap) {},
		"fingerprint":    func(ms []*FPMap) { ms[1].FPs[1] = 99 },
		"explored twice": func(ms []*FPMap) { ms[1].Defined[1] = true },
		"unexplored":     func(ms []*FPMap) { ms[0].Defined[1], ms[0].Defined[2] = false, false },
		"no root":        func(ms []*FPMap) { ms[0].Defined[0] = false },
		"far ID":         func(ms []*FPMap) { ms[1].IDs[4] = 1 << 20 },
	}
	for name, tamper := range cases {
		var out [2]string
		for i, tab := range []func() mergeTable{func() mergeTable { return mapTable{} }, func() mergeTable { return newDenseTable(1<<20 + 1) }} {
			ms := good()
			tamper(ms)
			res, err := merge(ms, tab())
			out[i] = fmt.Sprintf("%+v %v", res, err)
		}
		if out[0] != out[1] {
			t.Errorf("%s: merge with a map = %s, with a table by ID = %s", name, out[0], out[1])
		}
		if name == "good" && out[0] != fmt.Sprintf("%+v <nil>", &MergeResult{Verdict: "ok", States: 6, Transitions: 7, Revisits: -1, Comparisons: 3}) {
			t.Errorf("good: merge = %s", out[0])
		}
	}
	// Merge picks the map for the far ID and still accepts.
	ms := good()
	ms[1].IDs[4] = 1 << 20
	if _, err := Merge(ms); err != nil {
		t.Errorf("Merge with a far ID = %v", err)
	}
}
