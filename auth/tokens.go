package auth

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/braidsearch/braid/internal/atomicfile"
)

// TokensFormat is the version of the token file's format Tokens reads
// and writes; a file of a newer format is refused, not misread.
const TokensFormat = 1

// tokenPrefix starts every token braid makes, so a token is recognisable
// in a leak scan and an access token of an identity provider (a JWT) is
// told from one without reading the file.
const tokenPrefix = "braid_"

// Bounds on what a token file and a presented token may be: a file past
// maxTokensFile is refused before it is read, a longer token is refused
// before it is hashed.
const (
	maxTokensFile = 4 << 20
	maxTokenLen   = 256
	maxNameLen    = 128
)

// ErrUnsafeTokens is the error of a token file others could read or
// replace: not a regular file, a symbolic link, not the user's, or open
// to other users.
var ErrUnsafeTokens = errors.New("auth: unsafe token file")

// Tokens is a token file: the users of a small team's server, each with
// a random bearer token of which only the SHA-256 is kept. braid tokens
// add, list and revoke change it; braid serve --auth-tokens signs
// requests in with it (Authenticate).
//
// The file is JSON ({"format":1,"tokens":[{"name","groups","sha256",
// "created"}]}), written atomically with mode 0600. It is read only when
// it is a regular file (not a link, FIFO or device) of at most 4 MiB,
// owned by the user running braid and closed to others.
//
// A Tokens is safe for concurrent use. Authenticate sees the file's
// changes (a revocation by another process) on its next call without a
// restart: it compares the file's size, time, mode, owner and inode with
// what it last read, which costs one lstat a call, and reads it again
// when they differ. Add and Revoke read the file afresh and write it
// back; two processes changing the file at the same instant may lose one
// change, which the second's re-check of the file before its rename
// makes unlikely, not impossible.
type Tokens struct {
	file string
	mu   sync.Mutex                    // serialises reloads and writes in this process
	snap atomic.Pointer[tokenSnapshot] // what Authenticate checks against
}

// TokenInfo is what List tells of a token: never its hash.
type TokenInfo struct {
	Name    string    `json:"name"`
	Groups  []string  `json:"groups"`
	Created time.Time `json:"created"`
}

// tokenFile is the file's JSON.
type tokenFile struct {
	Format int          `json:"format"`
	Tokens []tokenEntry `json:"tokens"`
}

type tokenEntry struct {
	Name    string    `json:"name"`
	Groups  []string  `json:"groups,omitempty"`
	SHA256  string    `json:"sha256"`
	Created time.Time `json:"created"`
}

// tokenSnapshot is one reading of the file: its entries with their
// hashes decoded, or why it could not be used (then every token is
// refused), and the file's stamp when it was read.
type tokenSnapshot struct {
	stamp   fileStamp
	entries []tokenEntry
	hashes  [][sha256.Size]byte
	err     error
}

// fileStamp is what tells that the file changed: a rename (an atomic
// write) changes the inode, a write in place the size or time, a chmod or
// chown the mode or owner.
type fileStamp struct {
	missing    bool
	size       int64
	mtime      int64
	mode       fs.FileMode
	ino, dev   uint64
	uid, nlink uint64
}

func stampOf(info fs.FileInfo) fileStamp {
	s := fileStamp{size: info.Size(), mtime: info.ModTime().UnixNano(), mode: info.Mode()}
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		s.ino, s.dev, s.uid, s.nlink = uint64(st.Ino), uint64(st.Dev), uint64(st.Uid), uint64(st.Nlink)
	}
	return s
}

// statFile is the file's stamp now; a file that is not there has the
// stamp missing.
func statFile(file string) (fileStamp, error) {
	info, err := os.Lstat(file)
	if errors.Is(err, fs.ErrNotExist) {
		return fileStamp{missing: true}, nil
	}
	if err != nil {
		return fileStamp{}, err
	}
	return stampOf(info), nil
}

// OpenTokens opens the token file at file. A file that does not exist is
// an empty set of tokens (Add creates it); one that is unsafe
// (ErrUnsafeTokens), unreadable or not a token file is an error.
func OpenTokens(file string) (*Tokens, error) {
	t := &Tokens{file: file}
	s := t.load()
	if s.err != nil && !s.stamp.missing {
		return nil, s.err
	}
	t.snap.Store(s)
	return t, nil
}

// load reads the file into a snapshot; a failure is the snapshot's err.
func (t *Tokens) load() *tokenSnapshot {
	stamp, err := statFile(t.file)
	if err != nil {
		return &tokenSnapshot{err: fmt.Errorf("auth: token file %s: %w", t.file, err)}
	}
	if stamp.missing {
		return &tokenSnapshot{stamp: stamp, err: fmt.Errorf("auth: token file %s does not exist; make it with braid tokens add NAME --file %s", t.file, t.file)}
	}
	f, err := readTokens(t.file)
	if err != nil {
		return &tokenSnapshot{stamp: stamp, err: err}
	}
	s := &tokenSnapshot{stamp: stamp, entries: f.Tokens, hashes: make([][sha256.Size]byte, len(f.Tokens))}
	for i, e := range f.Tokens {
		hex.Decode(s.hashes[i][:], []byte(e.SHA256)) // checked by readTokens
	}
	return s
}

// readTokens reads and checks the token file. A file that is not there
// is an error wrapping fs.ErrNotExist.
func readTokens(file string) (*tokenFile, error) {
	fd, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%w: %s is a symbolic link; point braid at the file itself", ErrUnsafeTokens, file)
		}
		return nil, fmt.Errorf("auth: read the token file: %w", err)
	}
	defer fd.Close()
	info, err := fd.Stat()
	if err != nil {
		return nil, fmt.Errorf("auth: read the token file: %w", err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file (%v)", ErrUnsafeTokens, file, info.Mode().Type())
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return nil, fmt.Errorf("%w: %s belongs to uid %d, not to the user running braid (uid %d); copy it to a file of yours and run chmod 600 on it", ErrUnsafeTokens, file, st.Uid, os.Getuid())
	}
	if info.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%w: %s is open to other users (mode %v); run chmod 600 %s", ErrUnsafeTokens, file, info.Mode().Perm(), file)
	}
	if info.Size() > maxTokensFile {
		return nil, fmt.Errorf("auth: token file %s is %d bytes, more than a token file's %d; is it the right file?", file, info.Size(), maxTokensFile)
	}
	data, err := io.ReadAll(io.LimitReader(fd, maxTokensFile+1))
	if err != nil {
		return nil, fmt.Errorf("auth: read the token file: %w", err)
	}
	if len(data) > maxTokensFile {
		return nil, fmt.Errorf("auth: token file %s grew past %d bytes while read; is it the right file?", file, maxTokensFile)
	}
	var f tokenFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("auth: %s is not a braid token file (%v); make one with braid tokens add NAME --file FILE", file, err)
	}
	if f.Format != TokensFormat {
		if f.Format > TokensFormat {
			return nil, fmt.Errorf("auth: token file %s has format %d, newer than this braid's %d; use the braid that wrote it", file, f.Format, TokensFormat)
		}
		return nil, fmt.Errorf("auth: %s is not a braid token file (format %d, want %d)", file, f.Format, TokensFormat)
	}
	seen := map[string]bool{}
	for i, e := range f.Tokens {
		if err := checkName(e.Name); err != nil {
			return nil, fmt.Errorf("auth: token file %s, token %d: %w", file, i+1, err)
		}
		if seen[e.Name] {
			return nil, fmt.Errorf("auth: token file %s names %s twice; revoke both with braid tokens revoke %s and add one again", file, e.Name, e.Name)
		}
		seen[e.Name] = true
		if b, err := hex.DecodeString(e.SHA256); err != nil || len(b) != sha256.Size {
			return nil, fmt.Errorf("auth: token file %s: the token of %s has no SHA-256 (64 hex digits); revoke it and add it again", file, e.Name)
		}
	}
	return &f, nil
}

// checkName says whether a token's name, or a group's, is one a policy
// can name: letters, digits and . _ @ + -, at most 128 bytes.
func checkName(name string) error {
	if name == "" {
		return errors.New("a name is empty")
	}
	if len(name) > maxNameLen {
		return fmt.Errorf("the name %.20q… is longer than %d bytes", name, maxNameLen)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._@+-", r)) {
			return fmt.Errorf("the name %q has %q; use letters, digits and . _ @ + -", name, r)
		}
	}
	return nil
}

// Add makes a token for name, in groups, and returns it: braid_ and 32
// random bytes in base64url. Only its SHA-256 is kept, so the token can
// be shown this once. A name that has a token already is an error.
func (t *Tokens) Add(name string, groups []string) (string, error) {
	if err := checkName(name); err != nil {
		return "", fmt.Errorf("auth: %w", err)
	}
	for _, g := range groups {
		if err := checkName(g); err != nil {
			return "", fmt.Errorf("auth: group: %w", err)
		}
	}
	var secret [32]byte
	if _, err := rand.Read(secret[:]); err != nil {
		return "", fmt.Errorf("auth: make a token: %w", err)
	}
	token := tokenPrefix + base64.RawURLEncoding.EncodeToString(secret[:])
	sum := sha256.Sum256([]byte(token))
	err := t.change(func(f *tokenFile) (bool, error) {
		if slices.ContainsFunc(f.Tokens, func(e tokenEntry) bool { return e.Name == name }) {
			return false, fmt.Errorf("auth: %s has a token in %s already; revoke it first with braid tokens revoke %s --file %s", name, t.file, name, t.file)
		}
		var gs []string
		for _, g := range groups {
			if !slices.Contains(gs, g) {
				gs = append(gs, g)
			}
		}
		f.Tokens = append(f.Tokens, tokenEntry{Name: name, Groups: gs, SHA256: hex.EncodeToString(sum[:]), Created: time.Now().UTC().Truncate(time.Second)})
		return true, nil
	})
	if err != nil {
		return "", err
	}
	return token, nil
}

// List returns the tokens' names, groups and times of creation, by name.
func (t *Tokens) List() ([]TokenInfo, error) {
	f, err := readTokens(t.file)
	if errors.Is(err, fs.ErrNotExist) {
		return []TokenInfo{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]TokenInfo, 0, len(f.Tokens))
	for _, e := range f.Tokens {
		out = append(out, TokenInfo{Name: e.Name, Groups: append([]string{}, e.Groups...), Created: e.Created})
	}
	slices.SortFunc(out, func(a, b TokenInfo) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Revoke removes name's token, and says whether it had one. A server
// reading the file refuses the token from its next request on.
func (t *Tokens) Revoke(name string) (bool, error) {
	found := false
	err := t.change(func(f *tokenFile) (bool, error) {
		n := len(f.Tokens)
		f.Tokens = slices.DeleteFunc(f.Tokens, func(e tokenEntry) bool { return e.Name == name })
		found = len(f.Tokens) < n
		return found, nil
	})
	return found, err
}

// change reads the file afresh, lets edit change it, and writes it back
// atomically with mode 0600 when edit says it changed. The file is read
// again before the rename; one changed meanwhile by another process is
// edited again from its new content.
func (t *Tokens) change(edit func(*tokenFile) (bool, error)) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	defer t.snap.Store(nil) // Authenticate reads the file again
	for range 5 {
		before, err := statFile(t.file)
		if err != nil {
			return fmt.Errorf("auth: token file %s: %w", t.file, err)
		}
		f := &tokenFile{Format: TokensFormat, Tokens: []tokenEntry{}}
		if !before.missing {
			if f, err = readTokens(t.file); err != nil {
				return err
			}
		}
		changed, err := edit(f)
		if err != nil || !changed {
			return err
		}
		data, err := json.MarshalIndent(f, "", "  ")
		if err != nil {
			return err
		}
		if now, err := statFile(t.file); err != nil || now != before {
			continue // changed by another process while edited: again
		}
		if err := atomicfile.WriteFile(t.file, append(data, '\n'), 0o600); err != nil {
			return fmt.Errorf("auth: write the token file: %w", err)
		}
		return nil
	}
	return fmt.Errorf("auth: token file %s keeps changing while braid writes it; try again", t.file)
}

// Authenticate signs in the holder of one of the file's tokens: its name
// and groups, no scopes. A token the file does not hold is refused with
// an error wrapping ErrInvalidToken. While the file cannot be used (gone,
// unreadable, unsafe, damaged) every token is refused with an error that
// says why and does not wrap ErrInvalidToken: the check could not be
// made, and Middleware answers 503.
//
// The token's SHA-256 is compared with every entry's in constant time,
// with no early exit, so the time taken says nothing of which entry, if
// any, matched.
func (t *Tokens) Authenticate(_ context.Context, token string) (*Principal, error) {
	if !strings.HasPrefix(token, tokenPrefix) || len(token) > maxTokenLen {
		return nil, fmt.Errorf("%w: not a token of a braid token file", ErrInvalidToken)
	}
	s := t.current()
	if s.err != nil {
		return nil, fmt.Errorf("%w; every token of the file is refused until it is fixed", s.err)
	}
	sum := sha256.Sum256([]byte(token))
	match := -1
	for i := range s.hashes {
		eq := subtle.ConstantTimeCompare(sum[:], s.hashes[i][:])
		match = subtle.ConstantTimeSelect(eq, i, match)
	}
	if match < 0 {
		return nil, fmt.Errorf("%w: not in the token file (unknown or revoked)", ErrInvalidToken)
	}
	e := s.entries[match]
	return &Principal{Name: e.Name, Groups: slices.Clone(e.Groups)}, nil
}

// current returns the snapshot of the file as it is now, reading the file
// again when its stamp changed since the last reading.
func (t *Tokens) current() *tokenSnapshot {
	stamp, err := statFile(t.file)
	if s := t.snap.Load(); s != nil && err == nil && s.stamp == stamp {
		return s
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := t.snap.Load(); s != nil && err == nil {
		if now, err := statFile(t.file); err == nil && now == s.stamp {
			return s // another call read it meanwhile
		}
	}
	s := t.load()
	t.snap.Store(s)
	return s
}
