package docstore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/blob"
	"github.com/braidsearch/braid/docstore"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/ingest"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/lexical"
)

// testStore is a Store over a real bbolt store, lexical index and blob
// store in a temporary index directory, with an engine's duties done by
// the index package directly: Reindex runs an Indexer over the store
// source, and Lookup finds a document by id or by its path in a source.
type testStore struct {
	*docstore.Store
	st *index.Store
	// reindexed counts Reindex calls.
	reindexed int
}

func newTestStore(t *testing.T, mod func(*docstore.Config)) *testStore {
	t.Helper()
	dir := t.TempDir()
	st, err := index.OpenStore(filepath.Join(dir, "meta.db"), false)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	lex, err := lexical.Open(filepath.Join(dir, "lexical.bleve"), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lex.Close() })
	blobs := blob.Open(filepath.Join(dir, "store", "blobs"))
	ts := &testStore{st: st}
	c := docstore.Config{
		Index: st,
		Blobs: blobs,
		Dir:   filepath.Join(dir, "store"),
		Reindex: func(ctx context.Context, src *index.Source, refresh map[string]bool) error {
			ts.reindexed++
			sum := &ingest.Summary{}
			ix := &ingest.Indexer{Store: st, Lexical: lex, Blobs: blobs, Refresh: refresh}
			if err := ix.Index(ctx, src, sum); err != nil {
				return err
			}
			if len(sum.Errors) > 0 {
				return fmt.Errorf("index %s: %s", sum.Errors[0].Path, sum.Errors[0].Err)
			}
			return nil
		},
		Lookup: func(ref string) (*index.Document, error) {
			if d, err := st.Doc(ref); err != nil || d != nil {
				return d, err
			}
			srcs, err := st.Sources()
			if err != nil {
				return nil, err
			}
			for _, s := range srcs {
				if d, err := st.DocByPath(s.ID, ref); err != nil || d != nil {
					return d, err
				}
			}
			return nil, fmt.Errorf("%w: no document %q", index.ErrNotFound, ref)
		},
		Current: func(ref string) ([]byte, string, error) {
			return nil, "", fmt.Errorf("%w: %s has no file", index.ErrNotFound, ref)
		},
	}
	if mod != nil {
		mod(&c)
	}
	ts.Store = docstore.New(c)
	return ts
}

func (ts *testStore) add(t *testing.T, req docstore.AddRequest) *docstore.AddResult {
	t.Helper()
	res, err := ts.Add(context.Background(), req)
	if err != nil {
		t.Fatalf("add %s: %v", req.Name, err)
	}
	return res
}

func TestAddKeepsContentOnceAndVersions(t *testing.T) {
	ts := newTestStore(t, nil)
	body := "---\ntags: [idea]\n---\n# Zeppelin plan\n\nBuild a zeppelin out of balsa wood.\n"
	r1 := ts.add(t, docstore.AddRequest{Name: "./ideas/zep.md", Content: body, Tags: []string{"draft"}, Collection: "ideas"})
	if r1.Name != "ideas/zep.md" || r1.BytesStored != int64(len(body)) || r1.BytesDeduped != 0 || r1.Version != 1 || r1.Replaced {
		t.Fatalf("first add = %+v; want ideas/zep.md, bytes_stored %d, version 1", r1, len(body))
	}
	r2 := ts.add(t, docstore.AddRequest{Name: "copy.md", Content: body})
	if r2.Hash != r1.Hash || r2.BytesStored != 0 || r2.BytesDeduped != int64(len(body)) {
		t.Fatalf("identical content = %+v; want the same hash, deduped", r2)
	}
	d, err := ts.st.Doc(r1.ID)
	if err != nil || d == nil {
		t.Fatalf("stored document not indexed: %v, %v", d, err)
	}
	if strings.Join(d.Tags, ",") != "idea,draft" {
		t.Errorf("tags %v, want idea (frontmatter) and draft (given)", d.Tags)
	}
	data, _, err := ts.Read(d)
	if err != nil || string(data) != body {
		t.Fatalf("Read = %q, %v", data, err)
	}
	r3 := ts.add(t, docstore.AddRequest{Name: "ideas/zep.md", Content: body + "\nNow with helium.\n"})
	if !r3.Replaced || r3.Version != 2 {
		t.Errorf("re-add = %+v, want replaced, version 2", r3)
	}
	files, err := ts.Files()
	if err != nil || len(files) != 2 {
		t.Fatalf("files = %v, %v; want the two distinct contents", files, err)
	}
	for _, name := range files {
		if !strings.HasPrefix(name, docstore.SourceName+":") {
			t.Errorf("grep name %q, want store:NAME", name)
		}
	}
}

func TestAddRefuses(t *testing.T) {
	ts := newTestStore(t, nil)
	dir := t.TempDir()
	file := filepath.Join(dir, "f.md")
	if err := os.WriteFile(file, []byte("# F\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		req  docstore.AddRequest
		want error
	}{
		{"empty name", docstore.AddRequest{Content: "x"}, docstore.ErrBadName},
		{"leaves the store", docstore.AddRequest{Name: "../escape.md", Content: "x"}, docstore.ErrBadName},
		{"absolute", docstore.AddRequest{Name: "/etc/x.md", Content: "x"}, docstore.ErrBadName},
		{"binary", docstore.AddRequest{Name: "bin.txt", Content: "a\x00b"}, ingest.ErrNotText},
		{"path and content", docstore.AddRequest{Path: file, Content: "x"}, index.ErrBadOption},
		{"data and content", docstore.AddRequest{Data: []byte("x"), Content: "x", Name: "a.md"}, index.ErrBadOption},
		{"bad metadata key", docstore.AddRequest{Name: "a.md", Content: "x", Metadata: map[string]string{"a=b": "c"}}, index.ErrBadOption},
		{"too large", docstore.AddRequest{Name: "big.txt", Data: make([]byte, ingest.DefaultMaxFileSize+1)}, index.ErrBadOption},
		{"not a regular file", docstore.AddRequest{Path: dir}, index.ErrBadOption},
	} {
		if _, err := ts.Add(context.Background(), tc.req); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	if ts.reindexed != 0 {
		t.Errorf("a refused add re-indexed the store %d times", ts.reindexed)
	}
	res := ts.add(t, docstore.AddRequest{Path: file})
	if res.Name != "f.md" {
		t.Errorf("add of a file named it %q, want its base name f.md", res.Name)
	}
}

func TestUpdateTagsAndMetadata(t *testing.T) {
	ctx := context.Background()
	ts := newTestStore(t, nil)
	ts.add(t, docstore.AddRequest{Name: "a.md", Content: "# A\n", Tags: []string{"one"}, Metadata: map[string]string{"status": "done"}})
	u, err := ts.Update(ctx, docstore.UpdateRequest{Ref: " ./a.md", Metadata: map[string]string{"status": "open", "owner": "kim"}, Tags: []string{"two", "-ONE"}})
	if err != nil {
		t.Fatal(err)
	}
	if !u.Stored || u.Path != "a.md" || u.Metadata["status"] != "open" || u.Metadata["owner"] != "kim" || strings.Join(u.Tags, ",") != "two" {
		t.Fatalf("update = %+v", u)
	}
	u, err = ts.Update(ctx, docstore.UpdateRequest{Ref: "a.md", Metadata: map[string]string{"owner": ""}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := u.Metadata["owner"]; ok || u.Metadata["status"] != "open" {
		t.Errorf("owner= did not remove only the key: %v", u.Metadata)
	}
	for _, tc := range []struct {
		name string
		req  docstore.UpdateRequest
		want error
	}{
		{"nothing to update", docstore.UpdateRequest{Ref: "a.md"}, index.ErrBadOption},
		{"no such document", docstore.UpdateRequest{Ref: "nope.md", Tags: []string{"x"}}, index.ErrNotFound},
		{"empty key", docstore.UpdateRequest{Ref: "a.md", Metadata: map[string]string{"": "x"}}, index.ErrBadOption},
	} {
		if _, err := ts.Update(ctx, tc.req); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestDeleteSweepsBlobs(t *testing.T) {
	ctx := context.Background()
	ts := newTestStore(t, nil)
	a := ts.add(t, docstore.AddRequest{Name: "drafts/x.md", Content: "# X\n\nshared\n"})
	ts.add(t, docstore.AddRequest{Name: "drafts/y.md", Content: "# Y\n"})
	ts.add(t, docstore.AddRequest{Name: "keep.md", Content: "# X\n\nshared\n"})
	dry, err := ts.Delete(ctx, docstore.DeleteRequest{Pattern: "drafts/**", DryRun: true})
	if err != nil || len(dry.Deleted) != 2 || dry.Deleted[0].Name != "drafts/x.md" || !dry.DryRun {
		t.Fatalf("dry run = %+v, %v", dry, err)
	}
	if d, _ := ts.st.Doc(a.ID); d == nil {
		t.Fatal("dry run deleted")
	}
	res, err := ts.Delete(ctx, docstore.DeleteRequest{Pattern: "drafts/**"})
	if err != nil || len(res.Deleted) != 2 || res.BlobsRemoved != 1 || res.BytesFreed != int64(len("# Y\n")) {
		t.Fatalf("delete = %+v, %v; want 2 deleted and only y's blob removed (x's content is keep.md's too)", res, err)
	}
	if d := testenv.Must1(ts.st.Doc(a.ID))(t); d != nil {
		t.Error("deleted document still indexed")
	}
	for _, tc := range []struct {
		name string
		req  docstore.DeleteRequest
		want error
	}{
		{"nothing named", docstore.DeleteRequest{}, index.ErrBadOption},
		{"bad pattern", docstore.DeleteRequest{Pattern: "[x"}, index.ErrBadOption},
		{"gone", docstore.DeleteRequest{Names: []string{"drafts/x.md"}}, index.ErrNotFound},
	} {
		if _, err := ts.Delete(ctx, tc.req); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestReadOnlyAndBackend(t *testing.T) {
	ctx := context.Background()
	ro := newTestStore(t, func(c *docstore.Config) { c.ReadOnly = true })
	if _, err := ro.Add(ctx, docstore.AddRequest{Name: "a.md", Content: "x"}); !errors.Is(err, index.ErrReadOnly) {
		t.Errorf("add on a read-only store: %v", err)
	}
	if _, err := ro.CreateSnapshot("", ""); !errors.Is(err, index.ErrReadOnly) {
		t.Errorf("snapshot on a read-only store: %v", err)
	}
	if res, err := ro.Delete(ctx, docstore.DeleteRequest{Pattern: "*", DryRun: true}); err != nil || len(res.Deleted) != 0 {
		t.Errorf("dry-run delete on a read-only store: %+v, %v", res, err)
	}
	var asked []string
	cl := newTestStore(t, func(c *docstore.Config) {
		c.Backend = func(what string) error {
			asked = append(asked, what)
			return fmt.Errorf("%w: %s is embedded-only", index.ErrBackend, what)
		}
	})
	calls := []func() error{
		func() error { _, err := cl.Add(ctx, docstore.AddRequest{Name: "a.md", Content: "x"}); return err },
		func() error {
			_, err := cl.Update(ctx, docstore.UpdateRequest{Ref: "a.md", Tags: []string{"x"}})
			return err
		},
		func() error { _, err := cl.Delete(ctx, docstore.DeleteRequest{Names: []string{"a.md"}}); return err },
		func() error { _, err := cl.Collections(); return err },
		func() error { _, err := cl.CreateSnapshot("", ""); return err },
		func() error { _, err := cl.Snapshots(); return err },
		func() error {
			_, err := cl.Restore(docstore.RestoreRequest{Collection: "c", Output: t.TempDir()})
			return err
		},
		func() error { _, err := cl.Versions("a.md"); return err },
		func() error { _, err := cl.CompareVersions(t.Context(), "a.md", "", ""); return err },
	}
	for i, call := range calls {
		if err := call(); !errors.Is(err, index.ErrBackend) {
			t.Errorf("operation %d on a cluster backend: %v, want ErrBackend", i, err)
		}
	}
	want := "the document store (add),the document store (update),the document store (delete),collections,snapshots,snapshots,restore,versions,diff"
	if got := strings.Join(asked, ","); got != want {
		t.Errorf("operations named %q, want %q", got, want)
	}
}
