package braid_test

import (
	"context"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/graph"
	"github.com/braidsearch/braid/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite committed fixtures under testdata")

const fixtureDir = "testdata/index-v2"

// oldFixtureDir is an index of format 1, from before the link graph: it
// must be refused with a clear call to re-index, never misread.
const oldFixtureDir = "testdata/index-v1"

// TestFormatFixture reads an index written by an earlier braid of the same
// format version (committed under testdata; -update rewrites it), so a format
// change cannot slip in without a version bump.
func TestFormatFixture(t *testing.T) {
	ctx := context.Background()
	if *update {
		testenv.Must(t, os.RemoveAll(fixtureDir))
		src := filepath.Join(fixtureDir, "notes")
		testenv.Must(t, os.MkdirAll(src, 0o755))
		testenv.Must(t, os.WriteFile(filepath.Join(src, "Rivers.md"), []byte("---\ntags: [water]\n---\n# Rivers\n\nRivers carry [[Sediment]] to the sea.\n"), 0o644))
		testenv.Must(t, os.WriteFile(filepath.Join(src, "Sediment.md"), []byte("# Sediment\n\nSilt and sand settle in deltas.\n"), 0o644))
		e, err := braid.Open(filepath.Join(fixtureDir, "index"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Index(ctx, []braid.SourceSpec{{Path: src}}, nil); err != nil {
			t.Fatal(err)
		}
		e.Close()
		testenv.Must(t, os.Remove(filepath.Join(fixtureDir, "index", "lock")))
	}
	dir := copyTree(t, fixtureDir)
	e, err := braid.Open(filepath.Join(dir, "index"), &braid.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("open the committed index fixture: %v (a format change needs indexdir.SchemaVersion bumped and go test -update)", err)
	}
	defer e.Close()
	res, err := e.Search(ctx, "silt deltas", braid.SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 1 || res.Results[0].Title != "Sediment" {
		t.Errorf("search in the fixture = %+v, want Sediment", res.Results)
	}
	d, err := e.Notes().Document("Rivers")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Links) != 1 || d.Links[0].Target != "Sediment" || len(d.Tags) != 1 {
		t.Errorf("fixture document Rivers: links %+v tags %v", d.Links, d.Tags)
	}
	l, err := e.Graph().Links("Sediment", graph.LinkOptions{Reverse: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Links) != 1 || l.Links[0].Path != "Rivers.md" || l.Links[0].Edges[0].Type != graph.Cites {
		t.Errorf("backlinks of Sediment in the fixture: %+v, want Rivers citing it", l.Links)
	}
}

// A format 1 index (before the link graph) is upgraded in place by a
// writer, keeping everything it holds; a reader is told how.
func TestOldFormatUpgrade(t *testing.T) {
	dir := filepath.Join(copyTree(t, oldFixtureDir), "index")
	_, err := braid.Open(dir, &braid.Options{ReadOnly: true})
	if !errors.Is(err, braid.ErrSchemaVersion) || !strings.Contains(err.Error(), "braid index once to upgrade") {
		t.Fatalf("read-only open of a format 1 index: error %v, want ErrSchemaVersion naming the upgrade", err)
	}
	e, err := braid.Open(dir, nil)
	if err != nil {
		t.Fatalf("writable open of a format 1 index: %v, want an upgrade in place", err)
	}
	e.Close()
	got, _ := os.ReadFile(filepath.Join(dir, "VERSION"))
	if string(got) != "braid index format 2\n" {
		t.Errorf("VERSION after the upgrade: %q", got)
	}
	e, err = braid.Open(dir, &braid.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only open after the upgrade: %v", err)
	}
	defer e.Close()
	res, err := e.Search(context.Background(), "silt deltas", braid.SearchOptions{})
	if err != nil || len(res.Results) != 1 || res.Results[0].Title != "Sediment" {
		t.Fatalf("search after the upgrade: %v %+v", err, res)
	}
	back, err := e.Graph().Links("Sediment", graph.LinkOptions{Reverse: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Links) != 1 || back.Links[0].Title != "Rivers" {
		t.Errorf("backlinks of Sediment after the upgrade: %+v, want Rivers (built from the stored links)", back.Links)
	}
}

func TestVersionMismatch(t *testing.T) {
	dir := copyTree(t, fixtureDir)
	testenv.Must(t, os.WriteFile(filepath.Join(dir, "index", "VERSION"), []byte("braid index format 999\n"), 0o644))
	for _, ro := range []bool{true, false} {
		if _, err := braid.Open(filepath.Join(dir, "index"), &braid.Options{ReadOnly: ro}); !errors.Is(err, braid.ErrSchemaVersion) {
			t.Errorf("open (read-only %v) of a future format: error %v, want ErrSchemaVersion", ro, err)
		}
	}
}

func copyTree(t *testing.T, from string) string {
	t.Helper()
	to := t.TempDir()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatalf("copy fixture %s: %v (regenerate it with go test -run TestFormatFixture -update)", from, err)
	}
	return to
}
