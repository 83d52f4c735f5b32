package lexical

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/braidsearch/braid/query"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// With Explain, a hit's BM25 score comes broken down by term: field,
// term, tf, idf and its document frequency, field lengths and boost, in
// a few hundred bytes of valid UTF-8 rather than bleve's kilobytes of tree
// with the chunk's internal id as NUL bytes (issue 35, point 4e).
func TestExplainBM25(t *testing.T) {
	l, err := Open(filepath.Join(t.TempDir(), "lex"), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	meta := map[string]ChunkMeta{
		"sour": {Title: "Sourdough", Path: "bread.md"},
		"rye":  {Title: "Rye", Path: "rye.md"},
	}
	chunks := []Chunk{
		{ID: "sour#1.0", DocID: "sour", Text: "feed the sourdough starter flour, sourdough loves flour"},
		{ID: "rye#1.0", DocID: "rye", Text: "rye flour"},
	}
	if _, err := l.Apply(1, nil, chunks, func(id string) ChunkMeta { return meta[id] }); err != nil {
		t.Fatal(err)
	}
	q, err := query.Parse("sourdough flour")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		title float64
		want  []TermBM25
	}{
		{"content only", 0, []TermBM25{
			{Field: "content", Term: "sourdough", TF: 3, DocFreq: 1, Docs: 2, Boost: 1}, // the content holds the title too
			{Field: "content", Term: "flour", TF: 2, DocFreq: 2, Docs: 2, Boost: 1},
		}},
		{"title weighed", 0.5, []TermBM25{
			{Field: "content", Term: "sourdough", TF: 3, DocFreq: 1, Docs: 2, Boost: 1},
			{Field: "content", Term: "flour", TF: 2, DocFreq: 2, Docs: 2, Boost: 1},
			{Field: "title", Term: "sourdough", TF: 1, DocFreq: 1, Docs: 2, Boost: 0.5},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cands, _, err := l.Search(context.Background(), Request{Query: q, Size: 10, TitleWeight: tc.title, Explain: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(cands) == 0 || cands[0].ChunkID != "sour#1.0" || cands[0].BM25 == nil {
				t.Fatalf("candidates %+v, want sour#1.0 first with a breakdown", cands)
			}
			x := cands[0].BM25
			// The numbers BM25 computes are checked for sense, the counts exactly.
			sum, fields := 0.0, 0.0
			for _, term := range x.Terms {
				sum += term.Score
				if term.Field != fieldContent {
					fields += term.Score
				}
				if term.Score <= 0 || term.IDF <= 0 || term.FieldLength <= 0 || term.AvgFieldLength <= 0 {
					t.Errorf("term %+v: want positive score, idf and field lengths", term)
				}
			}
			if math.Abs(sum-x.Score) > 1e-9 || math.Abs(x.Score-cands[0].Score) > 1e-9 {
				t.Errorf("terms sum to %v, breakdown says %v, hit scores %v; want all equal", sum, x.Score, cands[0].Score)
			}
			if math.Abs(fields-cands[0].FieldBonus) > 1e-9 {
				t.Errorf("title and heading terms sum to %v, FieldBonus %v; want equal", fields, cands[0].FieldBonus)
			}
			ignore := cmpopts.IgnoreFields(TermBM25{}, "Score", "IDF", "FieldLength", "AvgFieldLength")
			if diff := cmp.Diff(tc.want, x.Terms, ignore); diff != "" {
				t.Errorf("terms (-want +got):\n%s", diff)
			}
			b, err := json.Marshal(x)
			if err != nil {
				t.Fatal(err)
			}
			if !utf8.Valid(b) || strings.Contains(string(b), `\u0000`) || strings.ContainsRune(string(b), 0) || len(b) > 200*len(x.Terms)+40 {
				t.Errorf("JSON %s (%d bytes): want valid UTF-8, no NUL, about 200 bytes a term", b, len(b))
			}
		})
	}
}

func TestClean(t *testing.T) {
	for in, want := range map[string]string{"flour": "flour", "a\x00b": "ab", "\xffcafé\x01": "café", "": ""} {
		if got := clean(in); got != want {
			t.Errorf("clean(%q) = %q, want %q", in, got, want)
		}
	}
}
