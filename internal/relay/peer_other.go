//go:build !linux && !darwin && !freebsd

package relay

// fdPeerUID cannot tell on this system; Dial relies on the socket file's
// owner instead.
func fdPeerUID(int) (int, error) { return 0, errNoPeerCred }
