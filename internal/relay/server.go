package relay

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
)

// ErrInUse means another live server already listens at the socket.
var ErrInUse = errors.New("relay: another server is listening")

// Session is a running request's streams. Stdin asks the client for its
// standard input on the first Read; until then the client's stdin is left
// alone.
type Session struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// Handler runs one request and returns its exit code. ctx ends when the
// client goes away or the server closes.
type Handler func(ctx context.Context, request []byte, s *Session) int

// Server accepts requests on a Unix socket and runs each in its own
// goroutine.
type Server struct {
	path   string
	ln     net.Listener
	h      Handler
	ctx    context.Context
	cancel context.CancelFunc

	mu    sync.Mutex
	conns map[net.Conn]bool
	wg    sync.WaitGroup
}

// Listen serves requests on the socket at path with h. A socket file left
// by a server that is gone is replaced; one a live server answers on is
// ErrInUse. The socket is readable and writable by this user only, and a
// connection from another user's process is closed unread.
func Listen(path string, h Handler) (*Server, error) {
	if c, err := net.Dial("unix", path); err == nil {
		c.Close()
		return nil, fmt.Errorf("%w at %s", ErrInUse, path)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("relay: remove stale socket: %w", err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("relay: listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("relay: restrict socket: %w", err)
	}
	s := &Server{path: path, ln: ln, h: h, conns: map[net.Conn]bool{}}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Path is the socket's path.
func (s *Server) Path() string { return s.path }

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return // closed
		}
		if uid, err := peerUID(c); (err != nil && !errors.Is(err, errNoPeerCred)) || (err == nil && uid != os.Getuid()) {
			c.Close() // another user's client, or one we cannot tell: unread
			continue
		}
		s.mu.Lock()
		if s.ctx.Err() != nil {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = true
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			s.serve(c)
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
		}()
	}
}

// Close stops accepting, cancels the requests under way, waits for them to
// return and removes the socket.
func (s *Server) Close() error {
	s.mu.Lock()
	s.cancel()
	err := s.ln.Close()
	s.mu.Unlock()
	s.wg.Wait()
	if rerr := os.Remove(s.path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
		err = rerr
	}
	return err
}

// serve runs one connection's request.
func (s *Server) serve(c net.Conn) {
	defer c.Close()
	typ, req, err := readFrame(c)
	if err != nil || typ != frameRequest {
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { c.Close() }) // unblocks the reader
	defer stop()

	send := sender(c)
	pr, pw := io.Pipe()
	var reader sync.WaitGroup
	reader.Add(1)
	go func() { // the client's frames: stdin, its end, or the connection closing
		defer reader.Done()
		for {
			typ, p, err := readFrame(c)
			if err != nil {
				pw.CloseWithError(io.ErrUnexpectedEOF)
				cancel()
				return
			}
			switch typ {
			case frameStdin:
				if _, err := pw.Write(p); err != nil {
					return
				}
			case frameStdinEnd:
				pw.Close()
			}
		}
	}()
	sess := &Session{
		Stdin:  &askingReader{r: pr, ask: func() { _ = send(frameWantIn, nil) }},
		Stdout: frameWriter{typ: frameStdout, send: send},
		Stderr: frameWriter{typ: frameStderr, send: send},
	}
	code := s.run(ctx, req, sess)
	var p [4]byte
	binary.BigEndian.PutUint32(p[:], uint32(int32(code)))
	_ = send(frameExit, p[:])
	pr.Close()
	cancel() // closes c, so the reader returns
	reader.Wait()
}

// run calls the handler, turning a panic into exit code 2 so that one bad
// request cannot take the server down.
func (s *Server) run(ctx context.Context, req []byte, sess *Session) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(sess.Stderr, "braid: internal error in the server: %v\n", r)
			code = 2
		}
	}()
	return s.h(ctx, req, sess)
}

type frameWriter struct {
	typ  byte
	send func(byte, []byte) error
}

func (w frameWriter) Write(p []byte) (int, error) {
	if err := w.send(w.typ, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// askingReader asks the client for stdin on the first Read.
type askingReader struct {
	r    io.Reader
	ask  func()
	once sync.Once
}

func (a *askingReader) Read(p []byte) (int, error) {
	a.once.Do(a.ask)
	return a.r.Read(p)
}
