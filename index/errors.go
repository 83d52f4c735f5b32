package index

import "errors"

// Errors the engine and the packages that serve it (docstore, notes)
// share; the braid package re-exports them for callers to test with
// errors.Is.
var (
	// ErrNotFound means a named document, source or chunk does not exist.
	ErrNotFound = errors.New("not found")
	// ErrAmbiguous means a document name matched more than one document.
	ErrAmbiguous = errors.New("ambiguous name")
	// ErrReadOnly means a write was attempted on an engine opened read-only.
	ErrReadOnly = errors.New("engine is open read-only; open it for writing to index")
	// ErrBadOption means a search or index option is out of range.
	ErrBadOption = errors.New("invalid option")
	// ErrBackend means an operation needs the embedded index and the
	// engine keeps its index in a cluster.
	ErrBackend = errors.New("not available on this backend")
)
