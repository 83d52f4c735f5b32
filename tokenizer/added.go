package tokenizer

import (
	"cmp"
	"slices"
)

// addedToken is an entry of tokenizer.json's added_tokens ([CLS], [MASK]…).
type addedToken struct {
	content string
	id      int32
}

// matcher finds added tokens in text, leftmost first and, among those
// starting at the same place, longest first, as HF's AddedVocabulary does.
type matcher struct {
	first  [256]bool
	tokens []addedToken // longest first
}

func newMatcher(tokens []addedToken) *matcher {
	if len(tokens) == 0 {
		return nil
	}
	m := &matcher{tokens: slices.Clone(tokens)}
	slices.SortStableFunc(m.tokens, func(a, b addedToken) int {
		return cmp.Compare(len(b.content), len(a.content))
	})
	for _, t := range m.tokens {
		m.first[t.content[0]] = true
	}
	return m
}

// find returns the first added token in s as the byte range [start, end)
// and its id; ok is false when s holds none. A nil matcher finds nothing.
func find[S string | []byte](m *matcher, s S) (start, end int, id int32, ok bool) {
	if m == nil {
		return 0, 0, 0, false
	}
	for i := 0; i < len(s); i++ {
		if !m.first[s[i]] {
			continue
		}
		for _, t := range m.tokens {
			if hasPrefixAt(s, i, t.content) {
				return i, i + len(t.content), t.id, true
			}
		}
	}
	return 0, 0, 0, false
}

func hasPrefixAt[S string | []byte](s S, i int, p string) bool {
	if len(s)-i < len(p) {
		return false
	}
	for j := 0; j < len(p); j++ {
		if s[i+j] != p[j] {
			return false
		}
	}
	return true
}
