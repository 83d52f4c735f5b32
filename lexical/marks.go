package lexical

import (
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
	"github.com/blevesearch/bleve/v2/analysis/tokenizer/unicode"
)

// Marks are the tokens of text whose analysed term is one of terms (as
// Analyze analyses them), in order: the words a snippet marks. It is
// Analyze and a look-up, with the stemmer, the costliest filter after
// the tokenizer, run only on the words that can stem to one of terms:
// the Porter stemmer only ever trims or rewrites a word's ending, never
// its first letter, so a word whose first byte starts none of terms
// cannot become one of them. And ASCII text is cut into words by
// asciiWords, not the Unicode segmenter. TestMarksMatchAnalyze and
// TestASCIIWordsMatchSegmenter check both against Analyze.
func Marks(text string, terms map[string]bool) []Token {
	if len(terms) == 0 {
		return nil
	}
	d, ok := analyzer().(*analysis.DefaultAnalyzer)
	if !ok {
		return marked(Analyze(text), terms)
	}
	var first [256]bool
	for t := range terms {
		if t != "" {
			first[t[0]] = true
		}
	}
	input := []byte(text)
	for _, cf := range d.CharFilters {
		input = cf.Filter(input)
	}
	var stream analysis.TokenStream
	if _, uni := d.Tokenizer.(*unicode.UnicodeTokenizer); uni && asciiOnly(input) {
		stream = asciiWords(input)
	} else {
		stream = d.Tokenizer.Tokenize(input)
	}
	for _, f := range d.TokenFilters {
		if _, stems := f.(*porter.PorterStemmer); stems {
			kept := stream[:0]
			for _, t := range stream {
				if len(t.Term) > 0 && first[t.Term[0]] {
					kept = append(kept, t)
				}
			}
			stream = kept
		}
		stream = f.Filter(stream)
	}
	var out []Token
	for _, t := range stream {
		if terms[string(t.Term)] {
			out = append(out, Token{Term: string(t.Term), Start: t.Start, End: t.End})
		}
	}
	return out
}

// marked are the tokens whose term is one of terms.
func marked(tokens []Token, terms map[string]bool) []Token {
	var out []Token
	for _, t := range tokens {
		if terms[t.Term] {
			out = append(out, t)
		}
	}
	return out
}

// asciiOnly says whether in is all ASCII, without '_' (the one ASCII
// character that joins words, by Unicode's rules WB13a/b, which
// asciiWords leaves to the segmenter; the index's char filter turns it
// into a space before the tokenizer).
func asciiOnly(in []byte) bool {
	for _, b := range in {
		if b >= 0x80 || b == '_' {
			return false
		}
	}
	return true
}

// asciiWords is what bleve's Unicode tokenizer makes of ASCII text without
// '_', by the word-boundary rules of UAX #29 that apply to it: runs of
// letters and digits (WB5, WB8-10), joined across one apostrophe, full
// stop or colon between two letters (WB6, WB7) and across one apostrophe,
// full stop, comma or semicolon between two digits (WB11, WB12);
// everything else separates words and is no token. Each token has its
// Term, Start, End and Position; its Type is AlphaNumeric, numbers too
// (the segmenter's Numeric), which no filter after the tokenizer reads.
func asciiWords(in []byte) analysis.TokenStream {
	letter := func(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
	digit := func(c byte) bool { return c >= '0' && c <= '9' }
	var out analysis.TokenStream
	var slab []analysis.Token // the tokens, a few allocations for all of them
	for i := 0; i < len(in); {
		if !letter(in[i]) && !digit(in[i]) {
			i++
			continue
		}
		start := i
		for i++; i < len(in); {
			c := in[i]
			if letter(c) || digit(c) {
				i++
				continue
			}
			if i+1 < len(in) {
				prev, next := in[i-1], in[i+1]
				midLetter := c == '\'' || c == '.' || c == ':'          // Single_Quote, MidNumLet, MidLetter
				midNum := c == '\'' || c == '.' || c == ',' || c == ';' // Single_Quote, MidNumLet, MidNum
				if (midLetter && letter(prev) && letter(next)) || (midNum && digit(prev) && digit(next)) {
					i += 2
					continue
				}
			}
			break
		}
		if len(slab) == cap(slab) {
			slab = make([]analysis.Token, 0, max(16, min(1024, len(in)/6)))
		}
		slab = append(slab, analysis.Token{Term: in[start:i], Start: start, End: i, Position: len(out) + 1, Type: analysis.AlphaNumeric})
		out = append(out, &slab[len(slab)-1])
	}
	return out
}
