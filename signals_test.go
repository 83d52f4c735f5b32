package braid_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/internal/modeltest"
)

var tiny = 0.01

// filler is text without the query words, so a section is long enough to
// be a chunk of its own.
func filler(n int) string {
	return strings.Repeat("The meadow path winds past the old stone wall and the orchard gate. ", n)
}

func TestRankingSignals(t *testing.T) {
	ctx := context.Background()
	files := map[string]string{
		// One strong paragraph about quartz.
		"Short.md": "# Short\n\n" + filler(10) + "Quartz, quartz, quartz.\n",
		// Quartz in three sections: weaker each, more evidence in all.
		"Long.md": "# Long\n\n## One\n\n" + filler(40) + "A quartz vein.\n\n## Two\n\n" + filler(40) + "Quartz again.\n\n## Three\n\n" + filler(40) + "More quartz.\n",
		// Lanterns: Other mentions them more, Hub is linked to by three notes.
		"Other.md": "# Other\n\nA lantern, a lantern and a lantern light the shed.\n",
		"Hub.md":   "# Hub\n\nThe lantern hangs by the door.\n",
	}
	for i := range 3 { // weak matches below both, so min-max spreads Short and Long
		files[fmt.Sprintf("weak%d.md", i)] = "# Weak\n\n" + filler(150) + "Quartz and a lantern.\n"
	}
	for i := range 3 {
		files[fmt.Sprintf("ref%d.md", i)] = fmt.Sprintf("# Ref %d\n\nSee [[Hub]] for the door.\n", i)
	}
	dir := writeVault(t, files)
	// The signals work on fused rankings: vectors take a tiny part (the
	// random-weight model's similarities barely move the order), BM25 the
	// rest.
	e := openEngine(t, &braid.Options{Embedder: modeltest.Tiny(t), Model: "tiny"})
	if _, err := e.Index(ctx, []braid.SourceSpec{{Path: dir}}, nil); err != nil {
		t.Fatal(err)
	}
	search := func(q string, opt braid.SearchOptions) []braid.Hit {
		t.Helper()
		opt.Explain = true
		opt.VectorWeight = &tiny
		res, err := e.Search(ctx, q, opt)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) < 2 {
			t.Fatalf("%q: %d results, want 2 or more", q, len(res.Results))
		}
		return res.Results
	}
	off, on := 0.0, 1.0
	// A keyword search stays plain BM25 whatever the signals.
	if res, err := e.Search(ctx, "quartz", braid.SearchOptions{Keyword: true, DocEvidence: &on, Explain: true}); err != nil || res.Results[0].Path != "Short.md" || res.Results[0].Explain.DocEvidence != 0 {
		t.Errorf("keyword search with doc evidence 1: %+v %v, want plain BM25 (Short.md first)", res, err)
	}

	// Document evidence: off, the one strong chunk wins; on, the note that
	// matches in three chunks does, and the explanation says by how much.
	if hits := search("quartz", braid.SearchOptions{DocEvidence: &off}); hits[0].Path != "Short.md" || hits[0].Explain.DocEvidence != 0 {
		t.Errorf("doc evidence off: first %s (%+v), want Short.md with nothing added", hits[0].Path, hits[0].Explain)
	}
	hits := search("quartz", braid.SearchOptions{DocEvidence: &on})
	if hits[0].Path != "Long.md" {
		t.Fatalf("doc evidence 1: first %s, want Long.md", hits[0].Path)
	}
	if x := hits[0].Explain; x.DocEvidence <= 0 || math.Abs(hits[0].Score-(x.Fused+x.DocEvidence)) > 1e-9 {
		t.Errorf("Long.md explanation %+v, score %v: want score = fused + doc evidence > fused", x, hits[0].Score)
	}

	// The link prior: off, BM25's favourite; on, the note three others
	// link to, multiplied by 1 + ln(1 + 3).
	if hits := search("lantern", braid.SearchOptions{LinkPrior: &off}); hits[0].Path != "Other.md" || hits[0].Explain.LinkPrior != 0 {
		t.Errorf("link prior off: first %s (%+v), want Other.md, no prior", hits[0].Path, hits[0].Explain)
	}
	hits = search("lantern", braid.SearchOptions{LinkPrior: &on})
	if hits[0].Path != "Hub.md" {
		t.Fatalf("link prior 1: first %s, want Hub.md", hits[0].Path)
	}
	if x := hits[0].Explain; x.Backlinks != 3 || math.Abs(x.LinkPrior-(1+math.Log(4))) > 1e-9 ||
		math.Abs(hits[0].Score-(x.Fused+x.DocEvidence)*x.LinkPrior) > 1e-9 {
		t.Errorf("Hub.md explanation %+v, score %v: want 3 backlinks, prior 1 + ln 4, score = (fused + evidence) × prior", x, hits[0].Score)
	}

	// The index's settings fill in what a search leaves open; the
	// search's own value wins.
	if _, err := e.Config().Set("link_prior", "1"); err != nil {
		t.Fatal(err)
	}
	if hits := search("lantern", braid.SearchOptions{}); hits[0].Path != "Hub.md" {
		t.Errorf("with link_prior 1 set: first %s, want Hub.md", hits[0].Path)
	}
	if hits := search("lantern", braid.SearchOptions{LinkPrior: &off}); hits[0].Path != "Other.md" {
		t.Errorf("the search's own link prior 0 did not win over the setting: first %s", hits[0].Path)
	}
	bad := 1.5
	if _, err := e.Search(ctx, "lantern", braid.SearchOptions{DocEvidence: &bad}); err == nil || !strings.Contains(err.Error(), "doc_evidence") {
		t.Errorf("doc evidence 1.5: %v, want an out-of-range error", err)
	}
	if _, err := e.Config().Set("doc_evidence", "2"); err == nil {
		t.Error("doc_evidence 2 was accepted as a setting")
	}
}
