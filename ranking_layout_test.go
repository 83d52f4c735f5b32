package braid_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/internal/testdata"
	"github.com/braidsearch/braid/internal/testenv"
)

// TestLexicalRankingIgnoresLayout indexes one vault three ways (commits of
// 7 documents, commits of 256, and a lexical index that doctor --repair
// rebuilt from meta.db) and checks that keyword searches rank the same
// documents with the same scores: BM25's statistics must not depend on
// how bleve happens to cut the index into segments.
func TestLexicalRankingIgnoresLayout(t *testing.T) {
	vault := testdata.Dir(t, "markdown/silverbullet/docs")
	testenv.Slow(t, "indexes a real vault three times")
	ctx := context.Background()
	build := func(batch int) string {
		dir := filepath.Join(t.TempDir(), "idx")
		e, err := braid.Open(dir, &braid.Options{BatchDocs: batch})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if _, err := e.Index(ctx, []braid.SourceSpec{{Path: vault}}, nil); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	fresh, small := build(0), build(7)
	repaired := build(0)
	if err := os.RemoveAll(filepath.Join(repaired, "lexical.bleve")); err != nil {
		t.Fatal(err)
	}
	if did, err := braid.Repair(repaired); err != nil || len(did) == 0 {
		t.Fatalf("repair: %v %v", did, err)
	}
	zero := 0.0
	type hit struct {
		id    string
		score float64
	}
	rank := func(dir, q string) []hit {
		e, err := braid.Open(dir, &braid.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		res, err := e.Search(ctx, q, braid.SearchOptions{VectorWeight: &zero, NoRerank: true, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var out []hit
		for _, h := range res.Results {
			out = append(out, hit{h.ID, h.Score})
		}
		return out
	}
	for _, q := range []string{"space script", "template", "query language filter", "how do I configure keyboard shortcuts"} {
		want := rank(fresh, q)
		if len(want) == 0 {
			t.Fatalf("%q finds nothing", q)
		}
		for name, dir := range map[string]string{"commits of 7": small, "repaired": repaired} {
			got := rank(dir, q)
			if len(got) != len(want) {
				t.Errorf("%s: %q found %d, a fresh build %d", name, q, len(got), len(want))
				continue
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("%s: %q rank %d is %v, a fresh build's is %v", name, q, i+1, got[i], want[i])
					break
				}
			}
		}
	}
}
