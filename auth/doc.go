// Package auth signs in the users of a networked braid server: bearer
// tokens from a token file (Tokens: braid tokens add, list, revoke) or
// JWT access tokens from an OAuth 2.1 / OpenID Connect identity provider
// (Issuer), checked on every request by Middleware, which answers a
// missing or bad token with 401 and the RFC 9728 resource metadata's
// address. The signed-in Principal travels in the request's context
// (From); what it may see is package policy's.
package auth
