package remote

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"

	"github.com/mark3labs/mcp-go/server"

	"github.com/braidsearch/braid/auth"
)

// errSession is Validate's error for a session id that is malformed, not
// signed with this server's key, or another user's. mcp-go answers it 404,
// as the transport answers a session it does not know, so a client starts a
// new session and nothing says whose the id was.
var errSession = errors.New("remote: unknown session")

// sessionVersion starts every session id, so the format can change.
const sessionVersion = "b1"

// sessions makes and checks the session ids of 2025-11-25 clients (the
// initialize handshake). An id carries the signed-in user it was issued
// to, a random nonce and an HMAC-SHA256 of both under key:
//
//	b1.<base64url user>.<base64url nonce>.<base64url mac>
//
// so any braid server holding the same key accepts it (no shared session
// store, no sticky load balancer), and only for the same user. Ids cannot
// be revoked: they expire with nothing, and carry no rights of their own;
// every request still needs its bearer token.
type sessions struct{ key []byte }

// ResolveSessionIdManager binds the ids it makes and accepts to the
// request's user. mcp-go's idle sweeper passes a nil request: that
// manager only terminates.
func (s *sessions) ResolveSessionIdManager(r *http.Request) server.SessionIdManager {
	if r == nil {
		return &userSessions{key: s.key, sweeper: true}
	}
	m := &userSessions{key: s.key}
	if p, ok := auth.From(r.Context()); ok {
		m.user = p.Name
	}
	return m
}

// userSessions is sessions for one request's user ("" without sign-in).
type userSessions struct {
	key     []byte
	user    string
	sweeper bool
}

func (m *userSessions) Generate() string {
	nonce := make([]byte, 16)
	_, _ = rand.Read(nonce) // crypto/rand.Read never fails
	body := sessionVersion + "." + b64(m.user) + "." + base64.RawURLEncoding.EncodeToString(nonce)
	return body + "." + base64.RawURLEncoding.EncodeToString(m.mac(body))
}

func (m *userSessions) Validate(id string) (bool, error) {
	if m.sweeper {
		return false, errSession
	}
	i := strings.LastIndexByte(id, '.')
	if i < 0 {
		return false, errSession
	}
	body, sig := id[:i], id[i+1:]
	mac, err := base64.RawURLEncoding.DecodeString(sig)
	if err != nil || !hmac.Equal(mac, m.mac(body)) {
		return false, errSession
	}
	parts := strings.Split(body, ".")
	if len(parts) != 3 || parts[0] != sessionVersion || parts[1] != b64(m.user) {
		return false, errSession
	}
	return false, nil
}

// Terminate refuses (405) every DELETE, as the transport lets a server
// that does not allow clients to end sessions: an id is valid wherever
// the key is, so no server could honour the termination (a later request
// with the id must then be 404) without a shared store of ended ids. A
// session's state on this server is dropped once idle (sessionIdleTTL);
// the id itself carries no rights: every request needs its bearer token.
func (m *userSessions) Terminate(string) (bool, error) {
	return !m.sweeper, nil
}

func (m *userSessions) mac(body string) []byte {
	h := hmac.New(sha256.New, m.key)
	h.Write([]byte(body))
	return h.Sum(nil)
}

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
