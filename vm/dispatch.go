// Dispatch: the one switch from opcode to executor.

package vm

import "mcvm/bytecode"

// execSwitch calls o's executor by a switch on the opcode, which Go
// compiles to a jump table with direct calls. A function pointer in each
// op, measured beside it, was no faster on whole searches and 6-12%
// slower on BenchmarkDispatch (benchmarks/RESULTS.md, "Tried and left").
func execSwitch(m *Machine, t *Thread, o *op) bool {
	switch o.op {
	case bytecode.OpNop:
		return execNop(m, t, o)
	case bytecode.OpPush:
		return execPush(m, t, o)
	case bytecode.OpPushNull:
		return execPushNull(m, t, o)
	case bytecode.OpPop:
		return execPop(m, t, o)
	case bytecode.OpDup:
		return execDup(m, t, o)
	case bytecode.OpSwap:
		return execSwap(m, t, o)
	case bytecode.OpLoad:
		return execLoad(m, t, o)
	case bytecode.OpStore:
		return execStore(m, t, o)
	case bytecode.OpInc:
		return execInc(m, t, o)
	case bytecode.OpAdd:
		return execAdd(m, t, o)
	case bytecode.OpSub:
		return execSub(m, t, o)
	case bytecode.OpMul:
		return execMul(m, t, o)
	case bytecode.OpDiv:
		return execDiv(m, t, o)
	case bytecode.OpRem:
		return execRem(m, t, o)
	case bytecode.OpNeg:
		return execNeg(m, t, o)
	case bytecode.OpAnd:
		return execAnd(m, t, o)
	case bytecode.OpOr:
		return execOr(m, t, o)
	case bytecode.OpXor:
		return execXor(m, t, o)
	case bytecode.OpShl:
		return execShl(m, t, o)
	case bytecode.OpShr:
		return execShr(m, t, o)
	case bytecode.OpUshr:
		return execUshr(m, t, o)
	case bytecode.OpNot:
		return execNot(m, t, o)
	case bytecode.OpEq:
		return execEq(m, t, o)
	case bytecode.OpNe:
		return execNe(m, t, o)
	case bytecode.OpLt:
		return execLt(m, t, o)
	case bytecode.OpLe:
		return execLe(m, t, o)
	case bytecode.OpGt:
		return execGt(m, t, o)
	case bytecode.OpGe:
		return execGe(m, t, o)
	case bytecode.OpGoto:
		return execGoto(m, t, o)
	case bytecode.OpIfz:
		return execIfz(m, t, o)
	case bytecode.OpIfnz:
		return execIfnz(m, t, o)
	case bytecode.OpIfeq:
		return execIfeq(m, t, o)
	case bytecode.OpIfne:
		return execIfne(m, t, o)
	case bytecode.OpIflt:
		return execIflt(m, t, o)
	case bytecode.OpIfle:
		return execIfle(m, t, o)
	case bytecode.OpIfgt:
		return execIfgt(m, t, o)
	case bytecode.OpIfge:
		return execIfge(m, t, o)
	case bytecode.OpIfnull:
		return execIfnull(m, t, o)
	case bytecode.OpIfnonnull:
		return execIfnonnull(m, t, o)
	case bytecode.OpNew:
		return execNew(m, t, o)
	case bytecode.OpGetfield:
		return execGetfield(m, t, o)
	case bytecode.OpPutfield:
		return execPutfield(m, t, o)
	case bytecode.OpGetstatic:
		return execGetstatic(m, t, o)
	case bytecode.OpPutstatic:
		return execPutstatic(m, t, o)
	case bytecode.OpInstanceof:
		return execInstanceof(m, t, o)
	case bytecode.OpCheckcast:
		return execCheckcast(m, t, o)
	case bytecode.OpNewarray:
		return execNewarray(m, t, o)
	case bytecode.OpNewrefarray:
		return execNewrefarray(m, t, o)
	case bytecode.OpArrload:
		return execArrload(m, t, o)
	case bytecode.OpArrstore:
		return execArrstore(m, t, o)
	case bytecode.OpArrlen:
		return execArrlen(m, t, o)
	case bytecode.OpInvokestatic:
		return execInvokestatic(m, t, o)
	case bytecode.OpInvokevirtual:
		return execInvokevirtual(m, t, o)
	case bytecode.OpReturn:
		return execReturn(m, t, o)
	case bytecode.OpRetval:
		return execRetval(m, t, o)
	case bytecode.OpNewthread:
		return execNewthread(m, t, o)
	case bytecode.OpStart:
		return execStart(m, t, o)
	case bytecode.OpJoin:
		return execJoin(m, t, o)
	case bytecode.OpYield:
		return execYield(m, t, o)
	case bytecode.OpTid:
		return execTid(m, t, o)
	case bytecode.OpMonitorenter:
		return execMonitorenter(m, t, o)
	case bytecode.OpMonitorexit:
		return execMonitorexit(m, t, o)
	case bytecode.OpWait:
		return execWait(m, t, o)
	case bytecode.OpNotify:
		return execNotify(m, t, o)
	case bytecode.OpNotifyall:
		return execNotifyall(m, t, o)
	case bytecode.OpChoose:
		return execChoose(m, t, o)
	case bytecode.OpChooseb:
		return execChoose(m, t, o)
	case bytecode.OpAssert:
		return execAssert(m, t, o)
	case bytecode.OpPrint:
		return execPrint(m, t, o)
	case bytecode.OpPrinti:
		return execPrinti(m, t, o)
	case bytecode.OpThrow:
		return execThrow(m, t, o)
	case bytecode.OpRethrow:
		return execRethrow(m, t, o)
	case bytecode.OpLeave:
		return execLeave(m, t, o)
	case bytecode.OpEndfinally:
		return execEndfinally(m, t, o)
	case bytecode.OpEndfault:
		return execEndfault(m, t, o)
	case bytecode.OpEndfilter:
		return execEndfilter(m, t, o)
	}
	return m.typeError(t, "invalid opcode")
}
