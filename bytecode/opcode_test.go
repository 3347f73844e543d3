package bytecode

import "testing"

// TestOpcodeTable_columns checks that every opcode's access, object and
// flags agree with each other and with its operand and stack effect: the
// VM, escape analysis and the reductions classify instructions by these
// columns alone.
func TestOpcodeTable_columns(t *testing.T) {
	if info := OpInvalid.Info(); info.Flags != 0 || info.Access != AccessNone || info.Ref != 0 {
		t.Errorf("invalid: columns set in %+v", info)
	}
	for op := Opcode(1); int(op) < NumOpcodes; op++ {
		info := op.Info()
		has := func(f Flag) bool { return info.Flags&f != 0 }
		acc := info.Access
		rules := []struct {
			ok   bool
			rule string
		}{
			{(acc == AccessField || acc == AccessElem || acc == AccessMonitor || acc == AccessThread) == (info.Ref > 0),
				"Ref is set exactly when the access is to an object's field, element, monitor or thread"},
			{info.Ref <= info.Pop, "the object's reference is one of the values popped"},
			{acc != AccessElem || info.Ref >= 2, "an element's index is above its array's reference"},
			{acc != AccessField || info.Operand == OperandField, "a field access names its field"},
			{acc != AccessStatic || info.Operand == OperandStatic, "a static access names its static"},
			{acc == AccessNone || has(FlagSched), "an access to a shared location is a scheduling point"},
			{!has(FlagWrite) || acc != AccessNone, "a write writes a shared location"},
			{acc != AccessMonitor || has(FlagWrite), "every monitor instruction counts as a write"},
			{!has(FlagAcquire) || acc == AccessMonitor && has(FlagMayBlock), "taking a monitor accesses it and may block"},
			{!has(FlagMayBlock) || has(FlagAcquire) || has(FlagCall) || acc == AccessThread && !has(FlagWrite),
				"only monitorenter, calls and joins may be disabled"},
			{!has(FlagLocal) || info.Ref > 0 && acc != AccessThread && !has(FlagChoice),
				"escape analysis merges an access to an object's field, element or monitor with one outcome"},
			{!has(FlagChoice) || has(FlagSched), "a choice is a scheduling point"},
			{!has(FlagCall) || has(FlagVarStack) && has(FlagMayBlock) && info.Operand == OperandMethod,
				"a call takes the callee's arguments and may wait for its monitor"},
			{!has(FlagReturn) || has(FlagNoNext), "a return does not fall through"},
			{!has(FlagRuntimeFlow) || has(FlagNoNext), "an instruction that continues where run time says does not fall through"},
			{has(FlagBranch) == (info.Operand == OperandLabel), "a branch is what takes a label"},
			{!has(FlagPure) || !has(FlagWrite) && !has(FlagChoice) && !has(FlagRuntimeFlow) &&
				acc != AccessMonitor && acc != AccessThread && (!has(FlagMayBlock) || has(FlagCall)) &&
				(acc != AccessNone || !has(FlagSched)),
				"an invariant may only read, call and return: no write, choice, monitor, thread, exception handling or yield"},
			{!has(FlagKeep) || !has(FlagCall|FlagReturn|FlagVarStack|FlagRuntimeFlow) && acc != AccessStatic && acc != AccessThread,
				"a kept transition reads no static or thread and does not call, return or handle exceptions"},
		}
		for _, r := range rules {
			if !r.ok {
				t.Errorf("%s: the table breaks the rule: %s", op, r.rule)
			}
		}
	}
}
