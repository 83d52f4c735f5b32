package rerank

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// span is one token of a text: the bytes text[start:end].
type span struct{ start, end int }

// tokenize cuts s into words-ish tokens the way BERT's pre-tokenizer does:
// each maximal run of letters, digits and marks is one token, and so is
// each other rune that is not white space (punctuation, symbols, bytes
// that are not UTF-8). Spans start and end on rune boundaries.
func tokenize(s string) []span {
	var out []span
	inWord := false
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)):
			if inWord {
				out[len(out)-1].end = i + w
			} else {
				out = append(out, span{i, i + w})
				inWord = true
			}
		case r != utf8.RuneError && unicode.IsSpace(r):
			inWord = false
		default:
			out = append(out, span{i, i + w})
			inWord = false
		}
		i += w
	}
	return out
}

// isWord reports whether the token t starts with a letter or digit.
func isWord(t string) bool {
	r, _ := utf8.DecodeRuneInString(t)
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// stopwords are left out of the query terms a window is chosen by, unless
// the query has nothing else.
var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be by do does did for from has have how in is it its
		of on or that the this to was what when where which who why will with`) {
		stopwords[w] = true
	}
}

// stem lowercases a word and strips a plural or possessive ending, so that
// "Plugins" matches "plugin". It is deliberately light: a missed match only
// costs the window a point.
func stem(w string) string {
	w = strings.ToLower(w)
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us"):
		return w[:len(w)-1]
	}
	return w
}

// queryTerms returns the stemmed content words of query, each once, in
// the order they first appear; the stop words only when nothing else is left.
func queryTerms(query string) []string {
	var all, content []string
	seen := map[string]bool{}
	for _, sp := range tokenize(query) {
		t := query[sp.start:sp.end]
		if !isWord(t) {
			continue
		}
		t = stem(t)
		if seen[t] {
			continue
		}
		seen[t] = true
		all = append(all, t)
		if !stopwords[t] {
			content = append(content, t)
		}
	}
	if len(content) > 0 {
		return content
	}
	return all
}

// Window returns the run of about tokens tokens of text with the most
// query-term overlap, or text itself when it has no more tokens than that
// or tokens <= 0.
//
// Tokens are words-ish, as BERT's pre-tokenizer cuts them: a run of letters
// and digits is one, and so is each punctuation rune. WordPiece cuts some
// words further, so a window of n tokens is about 1.2n model tokens of
// English prose (more for code and rare words).
//
// A window scores by how many distinct query terms it holds, then by how
// many occurrences of them; terms match as lowercased words with a light
// plural stemming, and stop words count only when the query is made of
// nothing else. Of equal windows the earliest wins, then it is shifted to
// centre the matched terms it holds (which can only add matches), and
// then forward to the start of the sentence of the first match if that
// lies in between; a passage without any query term yields its head. The result is a substring of text that starts
// and ends on token boundaries, so it never splits a UTF-8 rune.
func Window(query, text string, tokens int) string {
	if tokens <= 0 {
		return text
	}
	spans := tokenize(text)
	if len(spans) <= tokens {
		return text
	}
	terms := queryTerms(query)
	// hit[i] is the query term index of token i, or -1.
	index := make(map[string]int, len(terms))
	for i, t := range terms {
		index[t] = i
	}
	hit := make([]int, len(spans))
	for i, sp := range spans {
		hit[i] = -1
		if t := text[sp.start:sp.end]; isWord(t) {
			if j, ok := index[stem(t)]; ok {
				hit[i] = j
			}
		}
	}
	count := make([]int, len(terms))
	distinct, occur := 0, 0
	add := func(i, d int) {
		j := hit[i]
		if j < 0 {
			return
		}
		if d > 0 && count[j] == 0 {
			distinct++
		}
		count[j] += d
		if d < 0 && count[j] == 0 {
			distinct--
		}
		occur += d
	}
	for i := range tokens {
		add(i, +1)
	}
	best, bestD, bestO := 0, distinct, occur
	for start := 1; start+tokens <= len(spans); start++ {
		add(start-1, -1)
		add(start+tokens-1, +1)
		if distinct > bestD || distinct == bestD && occur > bestO {
			best, bestD, bestO = start, distinct, occur
		}
	}
	if bestD > 0 {
		// Centre the matches: context on both sides of them serves the
		// model better than the earliest window's leftovers.
		first, last := best, best+tokens-1
		for hit[first] < 0 {
			first++
		}
		for hit[last] < 0 {
			last--
		}
		best = min(max(first-(tokens-(last-first+1))/2, 0), len(spans)-tokens)
		// Start at a sentence rather than in one, when a sentence ends
		// between the centred start and the first match.
		for i := first - 1; i >= best; i-- {
			if t := text[spans[i].start:spans[i].end]; t == "." || t == "!" || t == "?" {
				best = min(i+1, len(spans)-tokens)
				break
			}
		}
	}
	return text[spans[best].start:spans[best+tokens-1].end]
}
