package indexdir

import (
	"errors"
	"fmt"
	"runtime/debug"
)

// ErrCorrupt is what every error about a damaged index file matches
// (errors.Is): the file is named in the error, with the command that fixes
// it.
var ErrCorrupt = errors.New("index file is damaged")

// CorruptError is a damaged index file: which file, what is wrong with it,
// and what the user runs to fix it.
type CorruptError struct {
	Path, Detail, Fix string
}

func (e *CorruptError) Error() string {
	if e.Detail == "missing" {
		return fmt.Sprintf("%s is missing; %s", e.Path, e.Fix)
	}
	return fmt.Sprintf("%s is damaged (%s); %s", e.Path, e.Detail, e.Fix)
}

// Is makes a CorruptError match ErrCorrupt.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// Guard runs f and turns a panic, or a fault reading mapped memory,
// into the error damaged makes of it.
func Guard(damaged func(any) error, f func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			err = damaged(r)
		}
	}()
	return f()
}
