package query

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrEmptyQuery means a query had nothing to search for.
var ErrEmptyQuery = errors.New("index: empty query; give at least one word to search for")

// ErrQueryTooLong means a query is over MaxQueryLen bytes.
var ErrQueryTooLong = errors.New("index: query too long")

// MaxQueryLen bounds a query's length in bytes.
const MaxQueryLen = 4096

// Query is a parsed search query: free terms, "quoted phrases" that must
// appear, and -excluded terms.
type Query struct {
	Text     string   // the query as given
	Terms    []string // free words, in order
	Phrases  []string // quoted phrases
	Excluded []string // words written as -word
}

// Parse splits a user query into terms, phrases and exclusions. An
// unterminated quote runs to the end of the query.
func Parse(s string) (Query, error) {
	q := Query{Text: s}
	if !utf8.ValidString(s) {
		return q, errors.New("index: query is not valid UTF-8; re-encode it as UTF-8")
	}
	if len(s) > MaxQueryLen {
		return q, fmt.Errorf("%w: it is %d bytes; the limit is %d bytes; shorten it", ErrQueryTooLong, len(s), MaxQueryLen)
	}
	rest := s
	for {
		rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
		if rest == "" {
			break
		}
		switch {
		case rest[0] == '"':
			end := strings.IndexByte(rest[1:], '"')
			var p string
			if end < 0 {
				p, rest = rest[1:], ""
			} else {
				p, rest = rest[1:1+end], rest[2+end:]
			}
			if p = strings.TrimSpace(p); p != "" {
				q.Phrases = append(q.Phrases, p)
			}
		default:
			end := strings.IndexFunc(rest, unicode.IsSpace)
			if end < 0 {
				end = len(rest)
			}
			w := rest[:end]
			rest = rest[end:]
			if len(w) > 1 && w[0] == '-' {
				q.Excluded = append(q.Excluded, w[1:])
			} else if w != "-" {
				q.Terms = append(q.Terms, w)
			}
		}
	}
	if len(q.Terms) == 0 && len(q.Phrases) == 0 {
		if len(q.Excluded) > 0 {
			return q, fmt.Errorf("%w (the query only excludes words)", ErrEmptyQuery)
		}
		return q, ErrEmptyQuery
	}
	return q, nil
}

// Words returns the terms and the words of the phrases, for highlighting.
func (q Query) Words() []string {
	out := append([]string(nil), q.Terms...)
	for _, p := range q.Phrases {
		out = append(out, strings.Fields(p)...)
	}
	return out
}

// Semantic is the query as an embedding model should read it: the words
// and phrases in their order, punctuation kept, without quote marks and
// without the excluded words.
func (q Query) Semantic() string {
	var out []string
	quoted := false
	for _, f := range strings.Fields(q.Text) {
		excluded := !quoted && len(f) > 1 && f[0] == '-'
		quoted = quoted != (strings.Count(f, `"`)%2 == 1)
		if excluded {
			continue
		}
		if f = strings.ReplaceAll(f, `"`, ""); f != "" {
			out = append(out, f)
		}
	}
	return strings.Join(out, " ")
}
