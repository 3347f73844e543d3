package explorer

// SetStoreHash sets the hash of the stores made from now on (tests make
// fingerprints collide with a weak one) and returns the previous one.
func SetStoreHash(h func([]byte) uint64) func([]byte) uint64 {
	old := storeHash
	storeHash = h
	return old
}
