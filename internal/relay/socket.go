package relay

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
)

// SocketName is the socket's file name inside the index directory.
const SocketName = "serve.sock"

// ErrNoServer means no server answers at the socket.
var ErrNoServer = errors.New("relay: no server is listening")

// ErrNotYours means the socket file, or the process answering on it,
// belongs to another user. Dial sent nothing to it.
var ErrNotYours = errors.New("relay: the socket belongs to another user")

// ErrUnsafeFolder means the folder that holds the socket of a long index
// path exists but is not private to the user: a symbolic link, not a
// directory, another user's, or open to group or others. Nothing is made
// or dialled in it.
var ErrUnsafeFolder = errors.New("relay: the socket folder is not private")

// refusal reads as msg and matches kind with errors.Is.
type refusal struct {
	kind error
	msg  string
}

func (r *refusal) Error() string { return r.msg }
func (r *refusal) Unwrap() error { return r.kind }

func notYours(path string, uid int) error {
	return &refusal{ErrNotYours, fmt.Sprintf("relay: the socket %s is held by uid %d, not you (uid %d); not sending the command. Remove it if it is stale", path, uid, os.Getuid())}
}

// SocketPath is where the server of the index in dir listens: inside dir
// when the path fits a socket address (about 100 bytes), else in a folder
// only the user can enter, under a name derived from dir. That folder is
// braid inside $XDG_RUNTIME_DIR when it is set and is a directory of the
// user's with mode 0700, else braid-<uid> in the temporary directory; it
// is made with mode 0700 when missing. A folder that exists but is not
// private is ErrUnsafeFolder.
func SocketPath(dir string) (string, error) {
	return socketPath(dir, true)
}

// socketPath is SocketPath; with create false a missing private folder is
// left missing (a client only looks for a server there).
func socketPath(dir string, create bool) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	p := filepath.Join(abs, SocketName)
	if len(p) < 100 {
		return p, nil
	}
	folder, err := privateFolder(create)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(folder, hex.EncodeToString(sum[:8])+".sock"), nil
}

// privateFolder returns the folder for the sockets of long index paths,
// checked to be the user's alone, and makes it when create is set.
func privateFolder(create bool) (string, error) {
	folder := filepath.Join(os.TempDir(), "braid-"+strconv.Itoa(os.Getuid()))
	// Read here, as os.TempDir reads TMPDIR: the one caller, braid's CLI,
	// would only pass it through.
	if run := os.Getenv("XDG_RUNTIME_DIR"); run != "" && filepath.IsAbs(run) {
		if fi, err := os.Lstat(run); err == nil && notPrivate(fi) == "" {
			folder = filepath.Join(run, "braid")
		}
	}
	if create {
		if err := os.Mkdir(folder, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", fmt.Errorf("relay: make the socket folder: %w", err)
		}
	}
	fi, err := os.Lstat(folder)
	if errors.Is(err, fs.ErrNotExist) && !create {
		return folder, nil
	}
	if err != nil {
		return "", fmt.Errorf("relay: check the socket folder: %w", err)
	}
	if why := notPrivate(fi); why != "" {
		return "", &refusal{ErrUnsafeFolder, fmt.Sprintf("relay: the socket folder %s %s; remove it (braid makes it again, private to you), or set TMPDIR to a folder of your own", folder, why)}
	}
	return folder, nil
}

// notPrivate says why fi, from Lstat, is not a folder only this user can
// enter, or returns "".
func notPrivate(fi fs.FileInfo) string {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return "is a symbolic link"
	case !fi.IsDir():
		return "is not a directory"
	}
	if uid, ok := fileOwner(fi); ok && uid != os.Getuid() {
		return fmt.Sprintf("belongs to uid %d, not you (uid %d)", uid, os.Getuid())
	}
	if ownerOnly && fi.Mode().Perm()&0o077 != 0 {
		return fmt.Sprintf("is open to other users (mode %s, want drwx------)", fi.Mode())
	}
	return ""
}

// Dial connects to the server at path. A missing socket, or one left by a
// server that is gone, is ErrNoServer. A socket file, or a process
// answering on it, of another user is ErrNotYours: the connection is
// closed before anything is sent.
func Dial(path string) (net.Conn, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, fmt.Errorf("%w at %s: %v", ErrNoServer, path, err)
	}
	if uid, ok := fileOwner(fi); ok && uid != os.Getuid() {
		return nil, notYours(path, uid)
	}
	c, err := net.Dial("unix", path)
	if err != nil {
		return nil, fmt.Errorf("%w at %s: %v", ErrNoServer, path, err)
	}
	uid, err := peerUID(c)
	switch {
	case errors.Is(err, errNoPeerCred): // the file owner check above is all there is
	case err != nil:
		c.Close()
		return nil, fmt.Errorf("relay: cannot tell who answers at %s, so not sending the command: %w", path, err)
	case uid != os.Getuid():
		c.Close()
		return nil, notYours(path, uid)
	}
	return c, nil
}

// errNoPeerCred means the system cannot tell who is at the other end of a
// Unix socket.
var errNoPeerCred = errors.New("relay: peer credentials are not available on this system")

// peerUID is the user id of the process at the other end of c: the
// listener's for a client, the client's for a server.
func peerUID(c net.Conn) (int, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return 0, fmt.Errorf("relay: a %T is not a Unix socket", c)
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return 0, err
	}
	var uid int
	var cerr error
	if err := raw.Control(func(fd uintptr) { uid, cerr = fdPeerUID(int(fd)) }); err != nil {
		return 0, err
	}
	return uid, cerr
}
