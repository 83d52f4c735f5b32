package auth

import "context"

// Principal is who signed in: a user of a token file (Tokens) or the
// subject of an identity provider's access token (Issuer).
type Principal struct {
	// Name is the user: a token's name, or the access token's subject
	// (the claim IssuerOptions.UserClaim names; "sub" by default).
	Name string
	// Groups are the groups the user is in: a token's --groups, or the
	// access token's groups claim.
	Groups []string
	// Scopes are the OAuth scopes the access token grants; nil for a
	// token of a token file.
	Scopes []string
}

type principalKey struct{}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p *Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// From returns the principal ctx carries, or nil and false when none
// signed in (stdio, or a loopback server without sign-in).
func From(ctx context.Context) (*Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(*Principal)
	return p, ok && p != nil
}
