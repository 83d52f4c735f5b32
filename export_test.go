package braid

// EngineModels is the models an engine opened by OpenWithModels owns, for
// the tests of package braid_test.
func EngineModels(e *Engine) *LoadedModels { return e.models }

// SetCompactMinSlack sets the least unused space in meta.db that an index
// run compacts, until the test ends.
func SetCompactMinSlack(t interface{ Cleanup(func()) }, n int64) {
	old := compactMinSlack
	compactMinSlack = n
	t.Cleanup(func() { compactMinSlack = old })
}
