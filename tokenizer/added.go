package tokenizer

import (
	"cmp"
	"slices"
	"unicode"
	"unicode/utf8"
)

// addedToken is an entry of tokenizer.json's added_tokens ([CLS], <mask>…).
type addedToken struct {
	content string
	id      int32
	// lstrip and rstrip make a match take the whitespace on its left or
	// right; singleWord ignores a match that touches a word character.
	lstrip, rstrip, singleWord bool
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
// and the token; ok is false when s holds none. A nil matcher finds nothing.
func find[S string | []byte](m *matcher, s S) (start, end int, tok *addedToken, ok bool) {
	if m == nil {
		return 0, 0, nil, false
	}
	for i := 0; i < len(s); i++ {
		if !m.first[s[i]] {
			continue
		}
		for k := range m.tokens {
			t := &m.tokens[k]
			if hasPrefixAt(s, i, t.content) {
				return i, i + len(t.content), t, true
			}
		}
	}
	return 0, 0, nil, false
}

// nextAdded finds the next added token of s at or after pos, as HF's
// AddedVocabulary::find_matches does: a single_word token touching a word
// character is passed over; lstrip takes the whitespace before the match
// (not before floor, where the previous token ended), rstrip the
// whitespace after it. start and end are the range the token takes, next
// where the search goes on (the end of the match proper).
func nextAdded[S string | []byte](m *matcher, s S, pos, floor int) (start, end, next int, id int32, ok bool) {
	for {
		i, j, tok, found := find(m, s[pos:])
		if !found {
			return 0, 0, 0, 0, false
		}
		start, end = pos+i, pos+j
		pos = end
		if tok.singleWord && (endsWithWord(s[:start]) || startsWithWord(s[end:])) {
			continue
		}
		if tok.lstrip {
			k := start
			for k > 0 {
				r, size := lastRune(s[:k])
				if !unicode.IsSpace(r) {
					break
				}
				k -= size
			}
			start = max(k, floor)
		}
		if tok.rstrip {
			for end < len(s) {
				r, size := firstRune(s[end:])
				if !unicode.IsSpace(r) {
					break
				}
				end += size
			}
		}
		return start, end, pos, tok.id, true
	}
}

// isWordChar is the regex class \w of Rust's regex crate: Alphabetic,
// marks, decimal digits, connector punctuation and join controls.
func isWordChar(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.Is(unicode.Nd, r) ||
		unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Other_Alphabetic, r) ||
		unicode.Is(unicode.Pc, r) || unicode.Is(unicode.Join_Control, r)
}

func endsWithWord[S string | []byte](s S) bool {
	r, size := lastRune(s)
	return size > 0 && isWordChar(r)
}

func startsWithWord[S string | []byte](s S) bool {
	r, size := firstRune(s)
	return size > 0 && isWordChar(r)
}

// firstRune and lastRune decode the first and last character of s,
// copying at most utf8.UTFMax bytes.
func firstRune[S string | []byte](s S) (rune, int) {
	return utf8.DecodeRune([]byte(s[:min(len(s), utf8.UTFMax)]))
}

func lastRune[S string | []byte](s S) (rune, int) {
	return utf8.DecodeLastRune([]byte(s[max(0, len(s)-utf8.UTFMax):]))
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
