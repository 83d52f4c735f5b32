package relay

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
)

// Request is the command a client hands to a server, already parsed: the
// command's names from the top (e.g. ["sources", "rm"]), its global flags
// and its own arguments as JSON, the client's working directory (the
// command resolves relative paths against it) and whether the client's
// stderr is a terminal. The server unmarshals it from the request bytes
// its Handler gets.
type Request struct {
	Command []string        `json:"command"`
	Globals json.RawMessage `json:"globals"`
	Args    json.RawMessage `json:"args"`
	Cwd     string          `json:"cwd"`
	TTY     bool            `json:"tty"`
}

// Forward hands req to the server of the index in dir (SocketPath) and
// relays the command's streams as Call does, returning its exit code.
// When no server listens there it sends nothing and returns an error
// wrapping ErrNoServer, so the caller can run the command itself. It also
// sends nothing on ErrNotYours (see Dial) and ErrUnsafeFolder (see
// SocketPath); a missing private folder is ErrNoServer, and is not made.
func Forward(ctx context.Context, dir string, req *Request, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	path, err := socketPath(dir, false)
	if err != nil {
		return 0, err
	}
	c, err := Dial(path)
	if err != nil {
		return 0, err
	}
	raw, err := json.Marshal(req)
	if err != nil {
		c.Close()
		return 0, fmt.Errorf("relay: encode the request: %w", err)
	}
	return Call(ctx, c, raw, stdin, stdout, stderr)
}
