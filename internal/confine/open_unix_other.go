//go:build unix && !linux

package confine

func openFd(root, path string) (int, error) {
	if root == "" {
		return openPlain(path)
	}
	return openResolved(root, path)
}
