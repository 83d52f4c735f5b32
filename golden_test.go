package braid_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/eval"
	"github.com/braidsearch/braid/internal/testdata"
	"github.com/braidsearch/braid/internal/testenv"
)

const goldenFile = "testdata/scifact-lexical-golden.json"

// goldenQueries is how many SciFact test queries the golden file pins.
const goldenQueries = 30

// TestSciFactGolden pins the BM25 top 10 of the first SciFact test
// queries, so a change to analysis, scoring or tie-breaking shows up as a
// diff of document ids. A change that is meant to move rankings refreshes
// the file with `go test -run TestSciFactGolden -update .`; the eval
// baseline (bench/scifact-baseline.json) says whether quality went up.
func TestSciFactGolden(t *testing.T) {
	dir := testdata.Dir(t, "scifact")
	testenv.Slow(t, "indexes SciFact's 5,183 abstracts")
	col, err := eval.LoadBEIR(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	e, err := braid.Open(filepath.Join(t.TempDir(), "idx"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	if _, err := e.Index(ctx, []braid.SourceSpec{{Path: filepath.Join(dir, "corpus.jsonl")}}, nil); err != nil {
		t.Fatal(err)
	}
	zero := 0.0
	type ranking struct {
		Query string   `json:"query"`
		Top   []string `json:"top10"`
	}
	var got []ranking
	for _, q := range col.Queries[:goldenQueries] {
		res, err := e.Search(ctx, q.Text, braid.SearchOptions{VectorWeight: &zero, NoRerank: true})
		if err != nil {
			t.Fatal(err)
		}
		r := ranking{Query: q.ID + ": " + q.Text}
		for _, h := range res.Results {
			r.Top = append(r.Top, h.ID)
		}
		got = append(got, r)
	}
	data := testenv.Must1(json.MarshalIndent(got, "", "  "))(t)
	data = append(data, '\n')
	if *update {
		if err := os.WriteFile(goldenFile, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(goldenFile)
	if err != nil {
		t.Fatalf("%v (create it with go test -run TestSciFactGolden -update .)", err)
	}
	if bytes.Equal(data, want) {
		return
	}
	var old []ranking
	if err := json.Unmarshal(want, &old); err != nil || len(old) != len(got) {
		t.Fatalf("%s is not %d rankings (%v); refresh it with -update", goldenFile, len(got), err)
	}
	changed := 0
	for i := range got {
		if fmt.Sprint(got[i].Top) != fmt.Sprint(old[i].Top) {
			changed++
			t.Errorf("%s\n got  %v\n want %v", got[i].Query, got[i].Top, old[i].Top)
		}
	}
	t.Errorf("%d of %d golden rankings changed; if intended, run go test -run TestSciFactGolden -update . and check braid eval against the baseline", changed, len(got))
}
