package vm

// SetSwitchDispatch selects switch dispatch, for BenchmarkDispatch.
func (m *Machine) SetSwitchDispatch(on bool) { m.useSwitch = on }
