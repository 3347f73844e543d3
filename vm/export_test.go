package vm

// SetTableDispatch selects dispatch through the function table, for
// BenchmarkDispatch.
func (m *Machine) SetTableDispatch(on bool) { m.tableDispatch = on }
