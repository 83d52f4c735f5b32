package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/internal/testenv"
)

func TestSource(t *testing.T) {
	beir := t.TempDir()
	testenv.Must(t, os.MkdirAll(filepath.Join(beir, "qrels"), 0o755))
	testenv.Must(t, os.WriteFile(filepath.Join(beir, "queries.jsonl"), []byte(`{"_id":"q1","text":"one"}`+"\n"), 0o644))
	testenv.Must(t, os.WriteFile(filepath.Join(beir, "qrels", "test.tsv"), []byte("query-id\tcorpus-id\tscore\nq1\td1\t1\n"), 0o644))
	tests := []struct {
		name  string
		src   Source
		split string
		say   string // in the error; "" for none
	}{
		{"nothing named", Source{}, "test", "eval: say what to score: Source.BEIR DIR"},
		{"a query set without its corpus", Source{Queries: "q.tsv"}, "test", "eval: Source.Queries q.tsv wants Source.Corpus DIR"},
		{"a BEIR directory without its corpus", Source{BEIR: beir}, "test", "a BEIR directory holds corpus.jsonl beside queries.jsonl"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, _, err := tc.src.Load(tc.split); err == nil || !strings.Contains(err.Error(), tc.say) {
				t.Errorf("Load = %v, want %q", err, tc.say)
			}
		})
	}
	testenv.Must(t, os.WriteFile(filepath.Join(beir, "corpus.jsonl"), []byte(`{"_id":"d1","text":"one"}`+"\n"), 0o644))
	src := Source{BEIR: beir}
	col, corpus, byPath, err := src.Load("test")
	if err != nil || len(col.Queries) != 1 || corpus != filepath.Join(beir, "corpus.jsonl") || byPath {
		t.Errorf("Load = %+v, %q, %v, %v; want the query, corpus.jsonl, judged by document id", col, corpus, byPath, err)
	}
	if got, want := src.Name("test"), "BEIR "+filepath.Base(beir)+", split test"; got != want || src.TuneSplit() != "train" {
		t.Errorf("Name = %q, want %q; TuneSplit %q, want train", got, want, src.TuneSplit())
	}
	set := Source{Queries: "q.tsv", Corpus: "notes"}
	if got := set.Name("tune"); got != "q.tsv over notes, split tune" || set.TuneSplit() != "tune" {
		t.Errorf("Name = %q, TuneSplit %q", got, set.TuneSplit())
	}
}
