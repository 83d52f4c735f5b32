package eval

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/braidsearch/braid/internal/testdata"
	"github.com/braidsearch/braid/internal/testenv"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestNDCG(t *testing.T) {
	rel := map[string]int{"a": 1, "b": 1}
	if got := NDCG([]string{"a", "b", "c"}, rel, 10); !near(got, 1) {
		t.Errorf("perfect ranking: nDCG %v, want 1", got)
	}
	// b at rank 2 only: (1/log2 3) / (1 + 1/log2 3)
	want := (1 / math.Log2(3)) / (1 + 1/math.Log2(3))
	if got := NDCG([]string{"x", "b"}, rel, 10); !near(got, want) {
		t.Errorf("nDCG %v, want %v", got, want)
	}
	if got := NDCG([]string{"x", "y", "a"}, rel, 2); got != 0 {
		t.Errorf("relevant below the cut: nDCG@2 %v, want 0", got)
	}
	graded := map[string]int{"a": 2, "b": 1}
	if got := NDCG([]string{"b", "a"}, graded, 10); got >= 1 || got <= 0 {
		t.Errorf("graded, wrong order: nDCG %v, want in (0,1)", got)
	}
}

// Hand-computed cases: graded gains, equal grades in the ideal ranking,
// and documents the qrels do not judge (or judge 0) counting as misses.
func TestMetricsHandComputed(t *testing.T) {
	l2 := math.Log2
	// Graded, wrong order: DCG = 1/1 + 2/log2(3); IDCG = 2/1 + 1/log2(3).
	graded := map[string]int{"a": 2, "b": 1}
	if got, want := NDCG([]string{"b", "a"}, graded, 10), (1+2/l2(3))/(2+1/l2(3)); !near(got, want) {
		t.Errorf("graded nDCG %v, want %v", got, want)
	}
	// Ties in the ideal ranking: grades 2, 1, 1 whatever their ids.
	// Ranking a, c, x(unjudged), b: DCG = 1 + 2/log2(3) + 0 + 1/log2(5).
	tied := map[string]int{"a": 1, "b": 1, "c": 2}
	want := (1 + 2/l2(3) + 1/l2(5)) / (2 + 1/l2(3) + 1/l2(4))
	if got := NDCG([]string{"a", "c", "x", "b"}, tied, 10); !near(got, want) {
		t.Errorf("nDCG with tied grades %v, want %v", got, want)
	}
	// Missing judgments: z is judged 0 and y not at all; both are misses.
	rel := map[string]int{"a": 1, "z": 0}
	if got, want := NDCG([]string{"z", "y", "a"}, rel, 10), 1/l2(4); !near(got, want) {
		t.Errorf("nDCG past unjudged documents %v, want %v", got, want)
	}
	if got := MRR([]string{"z", "y", "a"}, rel, 10); !near(got, 1.0/3) {
		t.Errorf("MRR past unjudged documents %v, want 1/3", got)
	}
	if got := Recall([]string{"z", "y"}, rel, 100); got != 0 {
		t.Errorf("recall with only unjudged hits %v, want 0", got)
	}
	// A query whose judgments are all 0 scores 0 everywhere, not NaN.
	none := map[string]int{"a": 0}
	if n, r, m := NDCG([]string{"a"}, none, 10), Recall([]string{"a"}, none, 10), MRR([]string{"a"}, none, 10); n != 0 || r != 0 || m != 0 {
		t.Errorf("all-zero judgments: nDCG %v recall %v MRR %v, want 0", n, r, m)
	}
	// The cut-off: recall@1 sees only the first hit.
	two := map[string]int{"a": 1, "b": 1}
	if got := Recall([]string{"a", "b"}, two, 1); !near(got, 0.5) {
		t.Errorf("recall@1 %v, want 0.5", got)
	}
}

func TestRecallMRR(t *testing.T) {
	rel := map[string]int{"a": 1, "b": 1, "z": 0}
	if got := Recall([]string{"x", "a", "y"}, rel, 10); !near(got, 0.5) {
		t.Errorf("recall %v, want 0.5", got)
	}
	if got := MRR([]string{"x", "a", "b"}, rel, 10); !near(got, 0.5) {
		t.Errorf("MRR %v, want 0.5", got)
	}
	if got := MRR([]string{"x"}, rel, 10); got != 0 {
		t.Errorf("MRR with nothing relevant %v, want 0", got)
	}
}

func TestPercentile(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3}
	if p := Percentile(xs, 50); p != 3 {
		t.Errorf("p50 %v, want 3", p)
	}
	if p := Percentile(xs, 95); p != 5 {
		t.Errorf("p95 %v, want 5", p)
	}
}

func TestLoadBEIR(t *testing.T) {
	dir := t.TempDir()
	testenv.Must(t, os.MkdirAll(filepath.Join(dir, "qrels"), 0o755))
	testenv.Must(t, os.WriteFile(filepath.Join(dir, "queries.jsonl"), []byte(`{"_id":"1","text":"first"}
{"_id":"2","text":"unjudged"}

{"_id":"3","text":"third"}
`), 0o644))
	testenv.Must(t, os.WriteFile(filepath.Join(dir, "qrels", "test.tsv"), []byte("query-id\tcorpus-id\tscore\n1\td1\t1\n3\td3\t1\n3\td4\t2\n"), 0o644))
	c, err := LoadBEIR(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Queries) != 2 || c.Queries[0].Text != "first" || c.Queries[1].ID != "3" {
		t.Errorf("queries %+v, want the judged 1 and 3", c.Queries)
	}
	if c.Qrels["3"]["d4"] != 2 {
		t.Errorf("qrels %v", c.Qrels)
	}
	if _, err := LoadBEIR(dir, "train"); err == nil {
		t.Error("a missing split loaded")
	}
	testenv.Must(t, os.WriteFile(filepath.Join(dir, "qrels", "bad.tsv"), []byte("h\th\th\n1\td1\n"), 0o644))
	if _, err := LoadBEIR(dir, "bad"); err == nil {
		t.Error("a malformed qrels line loaded")
	}
}

func TestSciFactFiles(t *testing.T) {
	dir := testdata.Dir(t, "scifact")
	for split, n := range map[string]int{"test": 300, "train": 809} {
		c, err := LoadBEIR(dir, split)
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Queries) != n {
			t.Errorf("%s: %d queries, want %d", split, len(c.Queries), n)
		}
	}
}

func TestHit(t *testing.T) {
	rel := map[string]int{"answer": 2, "useful": 1}
	for _, c := range []struct {
		ranked []string
		want   float64
	}{
		{[]string{"a", "b", "c", "d", "answer"}, 1},
		{[]string{"a", "b", "c", "d", "e", "answer"}, 0},
		{[]string{"useful", "b"}, 0}, // only the answer counts
		{nil, 0},
	} {
		if got := Hit(c.ranked, rel, 5); got != c.want {
			t.Errorf("Hit(%v) = %v, want %v", c.ranked, got, c.want)
		}
	}
	if Hit([]string{"x"}, map[string]int{"x": 1}, 5) != 1 {
		t.Error("with one grade every judged document is an answer")
	}
}
