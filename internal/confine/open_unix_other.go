//go:build unix && !linux

package confine

// Dir is a root for many opens beneath it; off Linux it holds the path.
type Dir struct{ root string }

// OpenDir returns the Dir of root.
func OpenDir(root string) (*Dir, error) { return &Dir{root: root}, nil }

// Close does nothing off Linux.
func (d *Dir) Close() error { return nil }

// OpenFd is OpenFd(root, path) for d's root.
func (d *Dir) OpenFd(path string) (int, error) {
	if err := Check(path); err != nil {
		return -1, err
	}
	return openResolved(d.root, path)
}

func openFd(root, path string) (int, error) {
	if root == "" {
		return openPlain(path)
	}
	return openResolved(root, path)
}
