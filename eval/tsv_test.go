package eval

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/internal/testdata"
)

func writeTSV(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "q.tsv")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadTSV(t *testing.T) {
	p := writeTSV(t, "# a comment\nid\tsplit\tquery\trelevant\n"+
		"q1\ttune\thow do I fold a heading\tnotes/Folding.md=2,notes/Outline.md=1\n"+
		"q2\ttest\t  search inside code blocks \tdocs/Code Search.md=2\n"+
		"\n# another\nq3\ttest\twhy is sync slow\tSync.md=2\n")
	c, err := LoadTSV(p, "test")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Queries) != 2 || c.Queries[0].ID != "q2" || c.Queries[0].Text != "search inside code blocks" || c.Queries[1].ID != "q3" {
		t.Fatalf("test split: %+v", c.Queries)
	}
	if c.Qrels["q2"]["docs/Code Search.md"] != 2 || len(c.Qrels) != 2 {
		t.Errorf("qrels %v", c.Qrels)
	}
	all, err := LoadTSV(p, "all")
	if err != nil || len(all.Queries) != 3 || all.Qrels["q1"]["notes/Outline.md"] != 1 {
		t.Fatalf("all: %+v %v", all, err)
	}
	if _, err := LoadTSV(p, "dev"); err == nil || !strings.Contains(err.Error(), "tune (1)") {
		t.Errorf("an empty split: %v, want the splits the file has", err)
	}
}

func TestLoadTSVErrors(t *testing.T) {
	for name, body := range map[string]string{
		"no header":   "q1\ttest\tx\ta.md=2\n",
		"3 columns":   "id\tsplit\tquery\trelevant\nq1\ttest\tx\n",
		"bad grade":   "id\tsplit\tquery\trelevant\nq1\ttest\tx\ta.md=two\n",
		"no grade":    "id\tsplit\tquery\trelevant\nq1\ttest\tx\ta.md\n",
		"duplicate":   "id\tsplit\tquery\trelevant\nq1\ttest\tx\ta.md=2\nq1\ttest\ty\tb.md=2\n",
		"empty query": "id\tsplit\tquery\trelevant\nq1\ttest\t \ta.md=2\n",
	} {
		if _, err := LoadTSV(writeTSV(t, body), "test"); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// The vault query set in the repository loads, has both halves, and every
// judged path names a file of the corpus when ../shared holds it.
func TestVaultQuerySet(t *testing.T) {
	const set = "../bench/vaults/queries.tsv"
	tune, err := LoadTSV(set, "tune")
	if err != nil {
		t.Fatal(err)
	}
	test, err := LoadTSV(set, "test")
	if err != nil {
		t.Fatal(err)
	}
	if len(tune.Queries) < 30 || len(test.Queries) < 30 {
		t.Errorf("%d tune and %d test queries, want 30 or more each", len(tune.Queries), len(test.Queries))
	}
	corpus := testdata.Dir(t, "markdown") // the judged paths are checked against it
	for _, c := range []*Collection{tune, test} {
		for q, rel := range c.Qrels {
			best := 0
			for p, g := range rel {
				best = max(best, g)
				if _, err := os.Stat(filepath.Join(corpus, p)); err != nil {
					t.Errorf("%s: %v", q, err)
				}
			}
			if best != 2 {
				t.Errorf("%s has no answer graded 2", q)
			}
		}
	}
}
