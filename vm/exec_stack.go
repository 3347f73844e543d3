// Executors for constants, stack operations and locals.

package vm

func execNop(m *Machine, t *Thread, o *op) bool { t.top().PC++; return true }

func execPush(m *Machine, t *Thread, o *op) bool {
	t.Stack = append(t.Stack, Value{I: o.a})
	t.top().PC++
	return true
}

func execPushNull(m *Machine, t *Thread, o *op) bool {
	t.Stack = append(t.Stack, Value{Ref: true})
	t.top().PC++
	return true
}

func execPop(m *Machine, t *Thread, o *op) bool {
	t.Stack = t.Stack[:len(t.Stack)-1]
	t.top().PC++
	return true
}

func execDup(m *Machine, t *Thread, o *op) bool {
	t.Stack = append(t.Stack, t.Stack[len(t.Stack)-1])
	t.top().PC++
	return true
}

func execSwap(m *Machine, t *Thread, o *op) bool {
	s := t.Stack
	n := len(s)
	s[n-1], s[n-2] = s[n-2], s[n-1]
	t.top().PC++
	return true
}

func execLoad(m *Machine, t *Thread, o *op) bool {
	f := t.top()
	t.Stack = append(t.Stack, t.Stack[f.Base+int32(o.a)])
	f.PC++
	return true
}

func execStore(m *Machine, t *Thread, o *op) bool {
	f := t.top()
	n := len(t.Stack) - 1
	t.Stack[f.Base+int32(o.a)] = t.Stack[n]
	t.Stack = t.Stack[:n]
	f.PC++
	return true
}

func execInc(m *Machine, t *Thread, o *op) bool {
	f := t.top()
	v := &t.Stack[f.Base+int32(o.a)]
	if v.Ref {
		return m.typeError(t, "inc of a reference")
	}
	v.I += o.b
	f.PC++
	return true
}
