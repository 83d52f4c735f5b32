package lexical

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/search"
)

// BM25 is a lexical hit's score broken down by the query terms it
// matched, read from bleve's explanation tree (which runs to kilobytes a
// hit and carries the chunk's internal id as raw bytes).
type BM25 struct {
	Score float64    `json:"score"` // the hit's BM25 score
	Terms []TermBM25 `json:"terms"` // in the tree's order
}

// TermBM25 is one matched term's part of a BM25 score. Score is its
// weight times the coordination factors above it (a clause that matched
// one of two words counts half), so the terms' scores sum to BM25.Score.
// A word matched again in the title or headings field
// (Request.TitleWeight, HeadingWeight) is a term of its own, with that
// field and its weight as Boost.
type TermBM25 struct {
	Field string  `json:"field"` // content, title or headings
	Term  string  `json:"term"`  // as indexed (lower-cased, stemmed)
	Score float64 `json:"score"`
	// TF is how often the term occurs in the field; IDF its inverse
	// document frequency, from DocFreq of Docs chunks.
	TF      int     `json:"tf"`
	IDF     float64 `json:"idf"`
	DocFreq int     `json:"doc_freq"`
	Docs    int     `json:"docs"`
	// FieldLength is the field's length in this chunk and AvgFieldLength
	// the index's average, which BM25 normalises term frequency by.
	FieldLength    float64 `json:"field_length"`
	AvgFieldLength float64 `json:"avg_field_length"`
	Boost          float64 `json:"boost"`
}

// explainBM25 reads the matched terms out of bleve's explanation e.
func explainBM25(e *search.Explanation) *BM25 {
	x := &BM25{Score: e.Value, Terms: []TermBM25{}}
	// factor is the product of the factors (coord(1/2), boosts: the
	// leaves of "product of" nodes) above e.
	var walk func(e *search.Explanation, factor float64)
	walk = func(e *search.Explanation, factor float64) {
		if rest, ok := strings.CutPrefix(e.Message, "weight("); ok {
			t := termBM25(rest, e)
			t.Score *= factor
			x.Terms = append(x.Terms, t)
			return
		}
		if strings.HasPrefix(e.Message, "product of") {
			for _, c := range e.Children {
				if len(c.Children) == 0 {
					factor *= c.Value
				}
			}
		}
		for _, c := range e.Children {
			if len(c.Children) > 0 || strings.HasPrefix(c.Message, "weight(") {
				walk(c, factor)
			}
		}
	}
	walk(e, 1)
	return x
}

// termBM25 reads one term's weight node: its message after "weight(" is
// "field:term^boost in <internal id>), product of:".
func termBM25(msg string, e *search.Explanation) TermBM25 {
	t := TermBM25{Score: e.Value}
	ft, _, _ := strings.Cut(msg, " in ")
	if i := strings.LastIndexByte(ft, '^'); i >= 0 {
		t.Boost, _ = strconv.ParseFloat(ft[i+1:], 64)
		ft = ft[:i]
	}
	field, term, _ := strings.Cut(ft, ":")
	t.Field, t.Term = clean(field), clean(term)
	var walk func(e *search.Explanation)
	walk = func(e *search.Explanation) {
		m := e.Message
		switch {
		case strings.HasPrefix(m, "idf("):
			t.IDF = e.Value
			t.DocFreq = int(number(m, "docFreq="))
			t.Docs = int(number(m, "maxDocs="))
		case strings.HasPrefix(m, "tf(termFreq("):
			t.TF = int(number(m, ")="))
		case strings.HasPrefix(m, "fieldNorm("):
			t.FieldLength, t.AvgFieldLength = number(m, "fieldLength="), number(m, "avgFieldLength=")
		}
		for _, c := range e.Children {
			walk(c)
		}
	}
	for _, c := range e.Children {
		walk(c)
	}
	return t
}

// number is the number after key in s, 0 when there is none.
func number(s, key string) float64 {
	i := strings.Index(s, key)
	if i < 0 {
		return 0
	}
	s = s[i+len(key):]
	end := strings.IndexFunc(s, func(r rune) bool { return !(r >= '0' && r <= '9' || r == '.' || r == '-' || r == 'e' || r == '+') })
	if end >= 0 {
		s = s[:end]
	}
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

// clean makes s valid UTF-8 without control characters, for JSON.
func clean(s string) string {
	if utf8.ValidString(s) && strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, ""))
}
