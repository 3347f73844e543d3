// Dispatch: the one table from opcode to executor.

package vm

import "mcvm/bytecode"

// executors maps each opcode to its executor. Decoding stores the function
// in each op, so the interpreter loop calls it without re-decoding.
var executors [bytecode.NumOpcodes]func(m *Machine, t *Thread, o *op) bool

// pureOps are the opcodes an invariant may execute: they neither change
// the state nor block nor choose.
var pureOps [bytecode.NumOpcodes]bool

func init() {
	e := &executors
	e[bytecode.OpInvalid] = func(m *Machine, t *Thread, o *op) bool { return m.typeError(t, "invalid opcode") }
	e[bytecode.OpNop] = execNop
	e[bytecode.OpPush] = execPush
	e[bytecode.OpPushNull] = execPushNull
	e[bytecode.OpPop] = execPop
	e[bytecode.OpDup] = execDup
	e[bytecode.OpSwap] = execSwap
	e[bytecode.OpLoad] = execLoad
	e[bytecode.OpStore] = execStore
	e[bytecode.OpInc] = execInc
	e[bytecode.OpAdd] = execAdd
	e[bytecode.OpSub] = execSub
	e[bytecode.OpMul] = execMul
	e[bytecode.OpDiv] = execDiv
	e[bytecode.OpRem] = execRem
	e[bytecode.OpNeg] = execNeg
	e[bytecode.OpAnd] = execAnd
	e[bytecode.OpOr] = execOr
	e[bytecode.OpXor] = execXor
	e[bytecode.OpShl] = execShl
	e[bytecode.OpShr] = execShr
	e[bytecode.OpUshr] = execUshr
	e[bytecode.OpNot] = execNot
	e[bytecode.OpEq] = execEq
	e[bytecode.OpNe] = execNe
	e[bytecode.OpLt] = execLt
	e[bytecode.OpLe] = execLe
	e[bytecode.OpGt] = execGt
	e[bytecode.OpGe] = execGe
	e[bytecode.OpGoto] = execGoto
	e[bytecode.OpIfz] = execIfz
	e[bytecode.OpIfnz] = execIfnz
	e[bytecode.OpIfeq] = execIfeq
	e[bytecode.OpIfne] = execIfne
	e[bytecode.OpIflt] = execIflt
	e[bytecode.OpIfle] = execIfle
	e[bytecode.OpIfgt] = execIfgt
	e[bytecode.OpIfge] = execIfge
	e[bytecode.OpIfnull] = execIfnull
	e[bytecode.OpIfnonnull] = execIfnonnull
	e[bytecode.OpNew] = execNew
	e[bytecode.OpGetfield] = execGetfield
	e[bytecode.OpPutfield] = execPutfield
	e[bytecode.OpGetstatic] = execGetstatic
	e[bytecode.OpPutstatic] = execPutstatic
	e[bytecode.OpInstanceof] = execInstanceof
	e[bytecode.OpCheckcast] = execCheckcast
	e[bytecode.OpNewarray] = execNewarray
	e[bytecode.OpNewrefarray] = execNewrefarray
	e[bytecode.OpArrload] = execArrload
	e[bytecode.OpArrstore] = execArrstore
	e[bytecode.OpArrlen] = execArrlen
	e[bytecode.OpInvokestatic] = execInvokestatic
	e[bytecode.OpInvokevirtual] = execInvokevirtual
	e[bytecode.OpReturn] = execReturn
	e[bytecode.OpRetval] = execRetval
	e[bytecode.OpNewthread] = execNewthread
	e[bytecode.OpStart] = execStart
	e[bytecode.OpJoin] = execJoin
	e[bytecode.OpYield] = execYield
	e[bytecode.OpTid] = execTid
	e[bytecode.OpMonitorenter] = execMonitorenter
	e[bytecode.OpMonitorexit] = execMonitorexit
	e[bytecode.OpWait] = execWait
	e[bytecode.OpNotify] = execNotify
	e[bytecode.OpNotifyall] = execNotifyall
	e[bytecode.OpChoose] = execChoose
	e[bytecode.OpChooseb] = execChoose
	e[bytecode.OpAssert] = execAssert
	e[bytecode.OpPrint] = execPrint
	e[bytecode.OpPrinti] = execPrinti
	e[bytecode.OpThrow] = execThrow

	for op := 1; op < bytecode.NumOpcodes; op++ {
		switch bytecode.Opcode(op) {
		case bytecode.OpPutfield, bytecode.OpPutstatic, bytecode.OpArrstore, bytecode.OpNew,
			bytecode.OpNewarray, bytecode.OpNewrefarray, bytecode.OpNewthread, bytecode.OpStart,
			bytecode.OpJoin, bytecode.OpYield, bytecode.OpMonitorenter, bytecode.OpMonitorexit,
			bytecode.OpWait, bytecode.OpNotify, bytecode.OpNotifyall, bytecode.OpChoose,
			bytecode.OpChooseb, bytecode.OpThrow:
		default:
			pureOps[op] = true
		}
	}
}
