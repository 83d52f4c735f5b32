//go:build !unix

package vector

import "os"

// openLog opens the log at path for writing; Save then checks it is the
// file it wrote.
func openLog(path string) (*os.File, error) { return os.OpenFile(path, os.O_WRONLY, 0) }
