package braid

// EngineModels is the models an engine opened by OpenWithModels owns, for
// the tests of package braid_test.
func EngineModels(e *Engine) *LoadedModels { return e.models }
