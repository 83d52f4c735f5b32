package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// ErrInvalidToken is the error of a token that is not accepted: unknown,
// revoked, expired, of another issuer or audience, or badly signed.
var ErrInvalidToken = errors.New("auth: invalid token")

// Authenticator checks a bearer token and says who it belongs to. Tokens
// (a token file) and Issuer (an identity provider's access tokens) are the
// two; an error wraps ErrInvalidToken when the token is refused, and is
// anything else when the check itself could not be made (the provider's
// keys out of reach).
type Authenticator interface {
	Authenticate(ctx context.Context, token string) (*Principal, error)
}

// MiddlewareOptions say how Middleware signs requests in.
type MiddlewareOptions struct {
	// Authenticators are tried in order; the first that accepts the
	// token signs the request in. When none does and one of them could
	// not check it (an error not wrapping ErrInvalidToken), the answer is
	// 503, not 401: the token may be good.
	Authenticators []Authenticator
	// ResourceMetadata is the address of the server's RFC 9728
	// protected-resource metadata, named in every 401's
	// WWW-Authenticate header so a client can find the issuer.
	ResourceMetadata string
	// Scopes are the OAuth scopes every request needs; a principal
	// without one of them gets 403 insufficient_scope. A principal of a
	// token file (no scopes) is exempt: its grants are the policy's.
	Scopes []string
	// Log, when set, hears why a sign-in could not be checked (the
	// answer to the client, 503, does not say).
	Log func(error)
}

// Middleware returns next behind sign-in: a request without a bearer
// token, or with one no authenticator accepts, is answered 401 with
// WWW-Authenticate: Bearer resource_metadata="…" (and error="invalid_token"
// when a token was given); a token without a required scope is answered
// 403 with error="insufficient_scope". A request signed in reaches next
// with the Principal in its context (From). A token is never passed on.
func Middleware(next http.Handler, o MiddlewareOptions) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, given := bearer(r)
		if !given {
			challenge(w, o.ResourceMetadata, "", "sign-in required: send Authorization: Bearer <token>")
			return
		}
		var p *Principal
		var unchecked error // the first check that could not be made
		for _, a := range o.Authenticators {
			q, err := a.Authenticate(r.Context(), token)
			if err == nil && q != nil {
				p = q
				break
			}
			if err != nil && !errors.Is(err, ErrInvalidToken) && unchecked == nil {
				unchecked = err
			}
		}
		if p == nil && unchecked != nil {
			// No authenticator took the token and one could not check
			// it (the token file gone, the provider's keys out of
			// reach): not the client's fault, and another authenticator
			// down must not refuse a token the next one accepts.
			// The reason (a file's path, a provider's address) is the
			// operator's, not an unsigned-in client's: it goes to Log.
			if o.Log != nil {
				o.Log(unchecked)
			}
			w.Header().Set("Retry-After", "5")
			http.Error(w, "sign-in could not be checked now; try again shortly", http.StatusServiceUnavailable)
			return
		}
		if p == nil {
			challenge(w, o.ResourceMetadata, `error="invalid_token"`, "the token is not accepted")
			return
		}
		if p.Scopes != nil {
			for _, s := range o.Scopes {
				if !slices.Contains(p.Scopes, s) {
					c := fmt.Sprintf(`Bearer error="insufficient_scope", scope=%q`, strings.Join(o.Scopes, " "))
					if o.ResourceMetadata != "" {
						c += fmt.Sprintf(", resource_metadata=%q", o.ResourceMetadata)
					}
					w.Header().Set("WWW-Authenticate", c)
					http.Error(w, fmt.Sprintf("the token lacks the scope %s", s), http.StatusForbidden)
					return
				}
			}
		}
		r.Header.Del("Authorization") // nothing after this point passes it on
		next.ServeHTTP(w, r.WithContext(WithPrincipal(r.Context(), p)))
	})
}

// bearer returns the request's bearer token, and whether one was given.
func bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// challenge answers 401 with the Bearer challenge.
func challenge(w http.ResponseWriter, metadata, extra, msg string) {
	var params []string
	if metadata != "" {
		params = append(params, fmt.Sprintf("resource_metadata=%q", metadata))
	}
	if extra != "" {
		params = append(params, extra)
	}
	w.Header().Set("WWW-Authenticate", strings.TrimSpace("Bearer "+strings.Join(params, ", ")))
	http.Error(w, msg, http.StatusUnauthorized)
}
