package braid_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/blob"
	"github.com/braidsearch/braid/docstore"
	"github.com/braidsearch/braid/grep"
	"github.com/braidsearch/braid/notes"
)

func TestAddDedupesAndIsSearchable(t *testing.T) {
	ctx := context.Background()
	e := openEngine(t, nil)
	body := "---\ntags: [idea]\n---\n# Zeppelin plan\n\nBuild a zeppelin out of balsa wood. See [[Other]].\n"
	r1, err := e.Store().Add(ctx, docstore.AddRequest{Name: "ideas/zep.md", Content: body, Tags: []string{"draft"}, Collection: "ideas"})
	if err != nil {
		t.Fatal(err)
	}
	if r1.BytesStored != int64(len(body)) || r1.BytesDeduped != 0 || r1.Version != 1 {
		t.Fatalf("first add = %+v; want bytes_stored %d, deduped 0, version 1", r1, len(body))
	}
	r2, err := e.Store().Add(ctx, docstore.AddRequest{Name: "copy.md", Content: body})
	if err != nil {
		t.Fatal(err)
	}
	if r2.Hash != r1.Hash || r2.BytesStored != 0 || r2.BytesDeduped != int64(len(body)) {
		t.Fatalf("identical content add = %+v; want same hash, bytes_stored 0, bytes_deduped %d", r2, len(body))
	}
	res, err := e.Search(ctx, "zeppelin balsa", braid.SearchOptions{Tags: []string{"draft"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 1 || res.Results[0].Path != "ideas/zep.md" {
		t.Fatalf("search with tag draft = %+v; want ideas/zep.md only", res.Results)
	}
	c, err := e.Notes().Get(t.Context(), "ideas/zep.md")
	if err != nil || string(c.Data) != body {
		t.Fatalf("Get = %v, %v", c, err)
	}
	if got := c.Doc.Tags; !slicesContains(got, "idea") || !slicesContains(got, "draft") {
		t.Errorf("tags %v, want idea (frontmatter) and draft (given)", got)
	}
	// A new version of an existing name.
	r3, err := e.Store().Add(ctx, docstore.AddRequest{Name: "ideas/zep.md", Content: body + "\nNow with helium.\n"})
	if err != nil {
		t.Fatal(err)
	}
	if !r3.Replaced || r3.Version != 2 {
		t.Errorf("re-add = %+v, want replaced, version 2", r3)
	}
	if _, err := e.Store().Add(ctx, docstore.AddRequest{Name: "../escape.md", Content: "x"}); !errors.Is(err, docstore.ErrBadName) {
		t.Errorf("add ../escape.md: %v, want ErrBadName", err)
	}
	if _, err := e.Store().Add(ctx, docstore.AddRequest{Name: "bin.txt", Content: "a\x00b"}); err == nil {
		t.Error("binary content was stored")
	}
}

func TestMetadataFilter(t *testing.T) {
	ctx := context.Background()
	e := openEngine(t, nil)
	for name, status := range map[string]string{"a.md": "done", "b.md": "open"} {
		if _, err := e.Store().Add(ctx, docstore.AddRequest{Name: name, Content: "# " + name + "\n\nquarterly report figures\n", Metadata: map[string]string{"status": status}}); err != nil {
			t.Fatal(err)
		}
	}
	search := func(meta map[string]string) []string {
		t.Helper()
		res, err := e.Search(ctx, "quarterly report", braid.SearchOptions{Metadata: meta})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range res.Results {
			out = append(out, h.Path)
		}
		return out
	}
	if got := search(map[string]string{"status": "open"}); len(got) != 1 || got[0] != "b.md" {
		t.Fatalf("status=open found %v, want [b.md]", got)
	}
	if _, err := e.Store().Update(ctx, docstore.UpdateRequest{Ref: "a.md", Metadata: map[string]string{"status": "open", "owner": "kim"}}); err != nil {
		t.Fatal(err)
	}
	if got := search(map[string]string{"status": "open", "owner": "kim"}); len(got) != 1 || got[0] != "a.md" {
		t.Fatalf("status=open owner=kim found %v, want [a.md]", got)
	}
	u, err := e.Store().Update(ctx, docstore.UpdateRequest{Ref: "a.md", Metadata: map[string]string{"owner": ""}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := u.Metadata["owner"]; ok {
		t.Errorf("owner= did not remove the key: %v", u.Metadata)
	}
	if got := search(map[string]string{"status": "nope"}); len(got) != 0 {
		t.Errorf("status=nope found %v", got)
	}
}

func TestDeleteByNameNeverTouchesSources(t *testing.T) {
	ctx := context.Background()
	dir := writeVault(t, map[string]string{"keep.md": "# Keep\n\nsource file text\n"})
	e := openEngine(t, nil)
	if _, err := e.Index(ctx, []braid.SourceSpec{{Path: dir}}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Store().Add(ctx, docstore.AddRequest{Name: "drafts/x.md", Content: "# X\n\nunique draft words\n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Store().Delete(ctx, docstore.DeleteRequest{Names: []string{"keep.md"}}); !errors.Is(err, docstore.ErrSourceFile) {
		t.Fatalf("delete of a source file: %v, want ErrSourceFile", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "keep.md")); err != nil {
		t.Fatalf("source file gone after a refused delete: %v", err)
	}
	dry, err := e.Store().Delete(ctx, docstore.DeleteRequest{Pattern: "drafts/**", DryRun: true})
	if err != nil || len(dry.Deleted) != 1 || dry.Deleted[0].Name != "drafts/x.md" {
		t.Fatalf("dry run = %+v, %v", dry, err)
	}
	if _, err := e.Notes().Document("drafts/x.md"); err != nil {
		t.Fatalf("dry run deleted: %v", err)
	}
	res, err := e.Store().Delete(ctx, docstore.DeleteRequest{Pattern: "drafts/**"})
	if err != nil || len(res.Deleted) != 1 || res.BlobsRemoved != 1 {
		t.Fatalf("delete = %+v, %v; want 1 deleted, 1 blob removed", res, err)
	}
	if _, err := e.Notes().Document("drafts/x.md"); !errors.Is(err, braid.ErrNotFound) {
		t.Errorf("deleted document still resolves: %v", err)
	}
	r, err := e.Search(ctx, "unique draft words", braid.SearchOptions{})
	if err != nil || len(r.Results) != 0 {
		t.Errorf("deleted document still found: %+v, %v", r, err)
	}
	if r, _ := e.Search(ctx, "source file text", braid.SearchOptions{}); len(r.Results) != 1 {
		t.Errorf("source document lost from the index: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "keep.md")); err != nil {
		t.Fatalf("source file gone: %v", err)
	}
	// Re-indexing everything keeps the store source consistent.
	if _, err := e.Index(ctx, nil, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(e.Capabilities().Dir, "idx") {
		t.Fatal(e.Capabilities().Dir)
	}
}

func TestKeepVersionsOfSourceFiles(t *testing.T) {
	ctx := context.Background()
	dir := writeVault(t, map[string]string{"n.md": "# N\n\nfirst\n"})
	e := openEngine(t, nil)
	keep := 2
	if _, err := e.Index(ctx, []braid.SourceSpec{{Path: dir, KeepVersions: &keep}}, nil); err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{"# N\n\nsecond\n", "# N\n\nthird\n"} {
		if err := os.WriteFile(filepath.Join(dir, "n.md"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Index(ctx, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	l, err := e.Store().Versions("n.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Versions) != 2 || l.Stored {
		t.Fatalf("versions = %+v, want the last 2", l)
	}
	c, err := e.Store().CompareVersions(t.Context(), "n.md", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Diff, "-second\n+third\n") {
		t.Errorf("diff:\n%s", c.Diff)
	}
}

func TestList(t *testing.T) {
	ctx := context.Background()
	dir := writeVault(t, map[string]string{"src.md": "# S\n\ntext\n", "code.py": "print(1)\n"})
	e := openEngine(t, nil)
	if _, err := e.Index(ctx, []braid.SourceSpec{{Path: dir}}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Store().Add(ctx, docstore.AddRequest{Name: "big.txt", Content: strings.Repeat("word ", 100), Collection: "c1", Metadata: map[string]string{"k": "v"}}); err != nil {
		t.Fatal(err)
	}
	names := func(opt notes.ListOptions) string {
		t.Helper()
		l, err := e.Notes().List(context.Background(), opt)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, d := range l.Documents {
			out = append(out, d.Path)
		}
		return strings.Join(out, ",")
	}
	for _, tc := range []struct {
		name string
		opt  notes.ListOptions
		want string
	}{
		{"all by name", notes.ListOptions{}, "big.txt,code.py,src.md"},
		{"stored only", notes.ListOptions{Stored: "stored"}, "big.txt"},
		{"sources only", notes.ListOptions{Stored: "source"}, "code.py,src.md"},
		{"extension", notes.ListOptions{Extension: "md"}, "src.md"},
		{"mime family", notes.ListOptions{MIME: "text/*", Extension: ".txt"}, "big.txt"},
		{"metadata", notes.ListOptions{Metadata: map[string]string{"k": "v"}}, "big.txt"},
		{"collection", notes.ListOptions{Collection: "c1"}, "big.txt"},
		{"size descending", notes.ListOptions{SortBy: "size", Descending: true, Limit: 1}, "big.txt"},
		{"recent", notes.ListOptions{Recent: time.Hour, Stored: "stored"}, "big.txt"},
		{"indexed before", notes.ListOptions{IndexedBefore: time.Now().Add(-time.Hour)}, ""},
	} {
		if got := names(tc.opt); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if _, err := e.Notes().List(context.Background(), notes.ListOptions{SortBy: "color"}); !errors.Is(err, braid.ErrBadOption) {
		t.Errorf("sort by color: %v", err)
	}
}

func TestGrepFindsStoredDocuments(t *testing.T) {
	ctx := context.Background()
	e := openEngine(t, nil)
	if _, err := e.Store().Add(ctx, docstore.AddRequest{Name: "g/x.md", Content: "# X\n\nneedle-7 in a stored note\n"}); err != nil {
		t.Fatal(err)
	}
	var names []string
	err := e.Grep(ctx, `needle-\d`, braid.GrepOptions{}, func(r grep.Result) error {
		names = append(names, r.File.Name)
		return nil
	})
	if err != nil || len(names) != 1 || names[0] != "store:g/x.md" {
		t.Fatalf("grep = %v, %v; want [store:g/x.md]", names, err)
	}
}

// TestStoreOnOlderIndex reads the committed format fixture, written before
// the document store's buckets existed: readers see an empty store, and
// the first writer adds the buckets.
func TestStoreOnOlderIndex(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(copyTree(t, fixtureDir), "index")
	e, err := braid.Open(dir, &braid.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	l, err := e.Notes().List(context.Background(), notes.ListOptions{})
	if err != nil || l.Total != 2 || l.Documents[0].Stored {
		t.Fatalf("list on an index without store buckets = %+v, %v", l, err)
	}
	if v, err := e.Store().Versions("Rivers"); err != nil || len(v.Versions) != 1 {
		t.Fatalf("versions = %+v, %v", v, err)
	}
	if c, err := e.Store().Collections(); err != nil || len(c) != 0 {
		t.Fatalf("collections = %+v, %v", c, err)
	}
	if s, err := e.Store().Snapshots(); err != nil || len(s) != 0 {
		t.Fatalf("snapshots = %+v, %v", s, err)
	}
	if _, err := e.Store().Delete(ctx, docstore.DeleteRequest{Names: []string{"Rivers"}, DryRun: true}); !errors.Is(err, docstore.ErrSourceFile) {
		t.Fatalf("dry-run delete of a source file: %v", err)
	}
	if r, err := e.Search(ctx, "silt", braid.SearchOptions{Metadata: map[string]string{"k": "v"}}); err != nil || len(r.Results) != 0 {
		t.Fatalf("metadata search = %+v, %v", r, err)
	}
	e.Close()
	w, err := braid.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Store().Add(ctx, docstore.AddRequest{Name: "n.md", Content: "# N\n\nsilt note\n"}); err != nil {
		t.Fatal(err)
	}
	if r, err := w.Search(ctx, "silt", braid.SearchOptions{}); err != nil || len(r.Results) != 2 {
		t.Fatalf("search after add = %+v, %v", r, err)
	}
}

// TestIndexOfStoreDirKeepsItAStore checks that re-indexing the store's own
// directory by path (as a watcher does) syncs the stored documents instead
// of indexing the blob files as text.
func TestIndexOfStoreDirKeepsItAStore(t *testing.T) {
	ctx := context.Background()
	e := openEngine(t, nil)
	if _, err := e.Store().Add(ctx, docstore.AddRequest{Name: "s.md", Content: "# S\n\nstored words\n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Index(ctx, []braid.SourceSpec{{Path: filepath.Join(e.Capabilities().Dir, "store")}}, nil); err != nil {
		t.Fatal(err)
	}
	l, err := e.Notes().List(context.Background(), notes.ListOptions{})
	if err != nil || l.Total != 1 || l.Documents[0].Path != "s.md" || !l.Documents[0].Stored {
		t.Fatalf("after indexing the store directory: %+v, %v", l, err)
	}
}

// storeCheck returns Doctor's store finding.
func storeCheck(t *testing.T, e *braid.Engine) braid.Check {
	t.Helper()
	checks, err := e.Doctor(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks {
		if c.Name == "store" {
			return c
		}
	}
	t.Fatalf("doctor has no store check: %+v", checks)
	return braid.Check{}
}

// Doctor notices a stored document whose content is gone and, as a
// warning, blobs nothing refers to; Repair removes those and only those.
func TestDoctorChecksTheStore(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "idx")
	e, err := braid.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, err := e.Store().Add(ctx, docstore.AddRequest{Name: "keep.md", Content: "# Keep\n\nkept\n"})
	if err != nil {
		t.Fatal(err)
	}
	if c := storeCheck(t, e); !c.OK || c.Warning {
		t.Fatalf("healthy store: %+v", c)
	}
	// An add killed after its blob and before its record leaves an orphan.
	orphan := blob.Open(filepath.Join(dir, "store", "blobs"))
	h, _, err := orphan.Put([]byte("never recorded"))
	if err != nil {
		t.Fatal(err)
	}
	if c := storeCheck(t, e); !c.OK || !c.Warning || !strings.Contains(c.Detail, "1 blobs") || !strings.Contains(c.Detail, "--repair") {
		t.Fatalf("orphan blob: %+v", c)
	}
	e.Close()
	did, err := braid.Repair(dir)
	if err != nil || len(did) != 1 || !strings.Contains(did[0], "removed 1 blobs") {
		t.Fatalf("repair = %q, %v", did, err)
	}
	if orphan.Has(h) || !orphan.Has(a.Hash) {
		t.Fatalf("repair removed the wrong blobs: orphan there %v, kept content there %v", orphan.Has(h), orphan.Has(a.Hash))
	}
	// Content lost from under a record is an unhealthy index naming the document.
	if err := os.Remove(orphan.Path(a.Hash)); err != nil {
		t.Fatal(err)
	}
	e, err = braid.Open(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if c := storeCheck(t, e); c.OK || !strings.Contains(c.Detail, "keep.md") {
		t.Fatalf("lost content: %+v", c)
	}
}

// The document store is not a folder to watch: it changes only through
// Add, Update and Delete, which index it themselves.
func TestWatchLeavesTheStoreAlone(t *testing.T) {
	e := openEngine(t, nil)
	if _, err := e.Store().Add(context.Background(), docstore.AddRequest{Name: "a.md", Content: "# A\n"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := e.Watch(ctx, nil, nil); !errors.Is(err, braid.ErrNotFound) {
		t.Fatalf("watch with only stored documents: %v, want ErrNotFound (no sources to watch)", err)
	}
}

// The store is not a source to remove: that would drop its documents from
// the index while their records stay, to come back at the next add.
func TestRemoveSourceRefusesTheStore(t *testing.T) {
	e := openEngine(t, nil)
	if _, err := e.Store().Add(context.Background(), docstore.AddRequest{Name: "a.md", Content: "# A\n\nkeepsake\n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Sources().Remove(t.Context(), "store"); !errors.Is(err, braid.ErrBadOption) || !strings.Contains(err.Error(), "braid delete") {
		t.Fatalf("remove the store source: %v", err)
	}
	res, err := e.Search(context.Background(), "keepsake", braid.SearchOptions{})
	if err != nil || len(res.Results) != 1 {
		t.Fatalf("stored document after the refused removal: %v %+v", err, res)
	}
}
