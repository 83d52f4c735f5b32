package graph

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"
)

var (
	errNotFound = errors.New("test: not found")
	errBad      = errors.New("test: bad option")
)

// queries are Queries over db holding vault, whose documents resolve by
// id and whose chunks are one per document, with its title for text.
func queries(db *bolt.DB) *Queries {
	ids := map[string]bool{}
	for _, d := range vault {
		ids[d.node.ID] = true
	}
	return &Queries{
		Read: func(fn func(*Reader) error) error {
			return db.View(func(tx *bolt.Tx) error { return fn(Read(tx)) })
		},
		Document: func(name string) (string, error) {
			if ids[name] || name == "ghost" {
				return name, nil
			}
			return "", fmt.Errorf("%w: document %q", errNotFound, name)
		},
		Exists: func() func(string, string) bool {
			return func(src, p string) bool { return src == "s1" && p == "garden/img/plot.png" }
		},
		NotFound:  errNotFound,
		BadOption: errBad,
		Chunks: func(fn func(docID, chunkID, text string) error) error {
			for _, d := range vault {
				if err := fn(d.node.ID, d.node.ID+"#0", d.node.Title+" garden soil compost"); err != nil {
					return err
				}
			}
			return nil
		},
		Nearest: exactNearest,
	}
}

func TestQueriesLinks(t *testing.T) {
	db := openDB(t)
	put(t, db, vault...)
	q := queries(db)
	for _, c := range []struct {
		name string
		doc  string
		opt  LinkOptions
		want []string // reached nodes, by id
		is   error
		says string
	}{
		{name: "out", doc: "cook", want: []string{"comp", "gard"}},
		{name: "tag backwards", doc: "#plants", opt: LinkOptions{Reverse: true}, want: []string{"comp", "gard"}},
		{name: "relation", doc: "gard", opt: LinkOptions{Relation: "SUPERSEDEDBY"}, want: []string{"g2"}},
		{name: "depth too deep", doc: "gard", opt: LinkOptions{Depth: MaxDepth + 1}, is: errBad, says: "depth 6 out of range, want 1..5"},
		{name: "unknown", doc: "nowhere", is: errNotFound, says: `document "nowhere"`},
		{name: "lone hash", doc: "#", is: errNotFound},
		{name: "not in the graph", doc: "ghost", is: errNotFound, says: "document ghost is not in the link graph; run braid doctor"},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, err := q.Links(c.doc, c.opt)
			if c.is != nil {
				if !errors.Is(err, c.is) || !strings.Contains(fmt.Sprint(err), c.says) {
					t.Fatalf("Links(%q) error %v, want %v saying %q", c.doc, err, c.is, c.says)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range l.Links {
				got = append(got, s.ID)
			}
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("Links(%q) (-want +got):\n%s", c.doc, diff)
			}
		})
	}
}

func TestQueriesSync(t *testing.T) {
	db := openDB(t)
	put(t, db, vault...)
	q := queries(db)
	synced := 0
	down := errors.New("test: cluster down")
	q.Sync = func() error {
		synced++
		if synced > 5 { // BrokenLinks, Orphans, then Related and its two walks
			return down
		}
		return nil
	}
	if b, err := q.BrokenLinks(); err != nil || len(b) != 1 || b[0].Doc.ID != "gard" || b[0].Target != "Missing Page" {
		t.Errorf("BrokenLinks = %+v, %v; want gard's Missing Page alone (plot.png exists)", b, err)
	}
	if o, err := q.Orphans(); err != nil || len(o) == 0 {
		t.Errorf("Orphans = %+v, %v; want some", o, err)
	}
	if r, err := q.Related("comp", 1); err != nil || len(r.Links) == 0 || len(r.Backlinks) == 0 {
		t.Errorf("Related(comp) = %+v, %v; want links both ways", r, err)
	}
	if _, err := q.Orphans(); !errors.Is(err, down) {
		t.Errorf("Orphans with sync failing: error %v, want %v", err, down)
	}
}

func TestQueriesGaps(t *testing.T) {
	db := openDB(t)
	put(t, db, vault...)
	vec := func(id string) []float32 {
		if strings.HasPrefix(id, "lone") {
			return nil
		}
		return []float32{1, float32(len(id))}
	}
	for _, c := range []struct {
		name        string
		embeddings  func() Embeddings
		only        func(string) error
		method      string
		warning     string
		documents   int
		errorSaying string
	}{
		{name: "no model", embeddings: func() Embeddings { return Embeddings{Missing: "no model here"} }, method: "lexical",
			warning: "no embeddings (no model here), so similarity is lexical: tf-idf cosine of words", documents: len(vault)},
		{name: "none yet", embeddings: func() Embeddings { return Embeddings{Vector: vec} }, method: "lexical",
			warning: "the index has no embeddings yet (run braid index to compute them), so similarity is lexical: tf-idf cosine of words", documents: len(vault)},
		{name: "one left out", embeddings: func() Embeddings { return Embeddings{Vector: vec, Len: len(vault) - 1} }, method: "embeddings",
			warning: "1 documents have no embedding yet and were left out (run braid index)", documents: len(vault) - 1},
		{name: "embedded only", only: func(what string) error { return errors.New("test: no " + what + " here") }, errorSaying: "test: no gaps here"},
	} {
		t.Run(c.name, func(t *testing.T) {
			q := queries(db)
			q.Embeddings, q.EmbeddedOnly = c.embeddings, c.only
			rep, err := q.Gaps(context.Background(), GapOptions{})
			if c.errorSaying != "" {
				if err == nil || err.Error() != c.errorSaying {
					t.Fatalf("Gaps error %v, want %q", err, c.errorSaying)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := GapReport{Method: rep.Method, Warning: rep.Warning, Documents: rep.Documents}
			want := GapReport{Method: c.method, Warning: c.warning, Documents: c.documents}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("report (-want +got):\n%s", diff)
			}
		})
	}
	q := queries(db)
	if _, err := q.Gaps(context.Background(), GapOptions{Threshold: 2}); !errors.Is(err, errBad) {
		t.Errorf("threshold 2: error %v, want %v", err, errBad)
	}
}
