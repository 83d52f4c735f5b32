package lexical

import (
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/token/porter"
)

// Marks are the tokens of text whose analysed term is one of terms (as
// Analyze analyses them), in order: the words a snippet marks. It is
// Analyze and a look-up, with the stemmer, the costliest filter after
// the tokenizer, run only on the words that can stem to one of terms:
// the Porter stemmer only ever trims or rewrites a word's ending, never
// its first letter, so a word whose first byte starts none of terms
// cannot become one of them (TestMarksMatchAnalyze checks this against
// Analyze).
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
	stream := d.Tokenizer.Tokenize(input)
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
