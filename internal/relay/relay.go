// Package relay runs a command line in another process over a Unix socket:
// a client sends one request, the server runs it and streams the
// command's stdout and stderr back, reads the client's stdin only when the
// command asks for it, and ends with the exit code. A client that goes away
// cancels the command.
//
// braid serve holds its index for writing, so other braid processes cannot
// open it; they hand their command to the server through this package
// instead, and it runs on the server's open engine. The request is a
// parsed command (Request, sent by Forward); running it is the caller's.
//
// Only one user takes part. The socket is readable and writable by its
// owner only and, when it cannot sit in the index directory, lives in a
// folder only the user can enter (SocketPath). A client sends nothing
// unless the socket file and the process answering on it are the user's
// own (Dial), and a server closes connections from other users unread.
package relay

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"sync"
)

// Frame types. Client to server: request, stdin data, stdin end. Server to
// client: stdout, stderr, a request for stdin, the exit code.
const (
	frameRequest  = 'R'
	frameStdin    = 'I'
	frameStdinEnd = 'E'
	frameStdout   = 'O'
	frameStderr   = 'e'
	frameWantIn   = 'W'
	frameExit     = 'X'
)

// maxFrame bounds one frame's payload; longer writes are split.
const maxFrame = 1 << 20

func writeFrame(w io.Writer, typ byte, payload []byte) error {
	for {
		n := min(len(payload), maxFrame)
		var hdr [5]byte
		hdr[0] = typ
		binary.BigEndian.PutUint32(hdr[1:], uint32(n))
		if _, err := w.Write(append(hdr[:], payload[:n]...)); err != nil {
			return err
		}
		payload = payload[n:]
		if len(payload) == 0 {
			return nil
		}
	}
}

// sender returns a function that writes whole frames to w, one at a time,
// for the goroutines that share a connection.
func sender(w io.Writer) func(typ byte, payload []byte) error {
	var mu sync.Mutex
	return func(typ byte, payload []byte) error {
		mu.Lock()
		defer mu.Unlock()
		return writeFrame(w, typ, payload)
	}
}

func readFrame(r io.Reader) (byte, []byte, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(hdr[1:])
	if n > maxFrame {
		return 0, nil, fmt.Errorf("relay: frame of %d bytes is over the %d limit", n, maxFrame)
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(r, p); err != nil {
		return 0, nil, err
	}
	return hdr[0], p, nil
}

// Call sends request on c, copies the command's output to stdout and
// stderr, feeds it stdin when it asks, and returns its exit code. When ctx
// ends first the connection is closed, which cancels the command.
func Call(ctx context.Context, c net.Conn, request []byte, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	send := sender(c)
	if err := send(frameRequest, request); err != nil {
		return 0, fmt.Errorf("relay: send request: %w", err)
	}
	var feeding sync.Once
	for {
		typ, p, err := readFrame(c)
		if err != nil {
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			return 0, fmt.Errorf("relay: the server closed the connection before the command ended: %w", err)
		}
		switch typ {
		case frameStdout:
			_, err = stdout.Write(p)
		case frameStderr:
			_, err = stderr.Write(p)
		case frameWantIn:
			feeding.Do(func() { go feed(stdin, send) })
		case frameExit:
			if len(p) != 4 {
				return 0, fmt.Errorf("relay: bad exit frame of %d bytes", len(p))
			}
			return int(int32(binary.BigEndian.Uint32(p))), nil
		default:
			return 0, fmt.Errorf("relay: unknown frame type %q from the server", typ)
		}
		if err != nil {
			return 0, err
		}
	}
}

// feed copies stdin to the server until it ends.
func feed(stdin io.Reader, send func(byte, []byte) error) {
	if stdin == nil {
		_ = send(frameStdinEnd, nil)
		return
	}
	buf := make([]byte, 64<<10)
	for {
		n, err := stdin.Read(buf)
		if n > 0 {
			if send(frameStdin, buf[:n]) != nil {
				return
			}
		}
		if err != nil {
			_ = send(frameStdinEnd, nil)
			return
		}
	}
}
