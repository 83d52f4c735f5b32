package docstore_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/docstore"
	"github.com/braidsearch/braid/internal/testenv"
)

func TestSnapshotAndRestore(t *testing.T) {
	ctx := context.Background()
	ts := newTestStore(t, nil)
	add := func(name, body, coll string) {
		t.Helper()
		if _, err := ts.Add(ctx, docstore.AddRequest{Name: name, Content: body, Collection: coll}); err != nil {
			t.Fatal(err)
		}
	}
	add("a/one.md", "# One\n\nfirst\n", "c")
	add("two.txt", "two\n", "c")
	add("other.txt", "elsewhere\n", "d")
	cols, err := ts.Collections()
	if err != nil || len(cols) != 2 || cols[0].Name != "c" || cols[0].Documents != 2 || cols[0].Bytes != int64(len("# One\n\nfirst\n")+4) {
		t.Fatalf("collections = %+v, %v", cols, err)
	}
	snap, err := ts.CreateSnapshot("c", "before edits")
	if err != nil || snap.Documents != 2 {
		t.Fatalf("snapshot = %+v, %v", snap, err)
	}
	add("a/one.md", "# One\n\nchanged\n", "")
	// Deleting the document keeps its snapshot's content.
	if _, err := ts.Delete(ctx, docstore.DeleteRequest{Names: []string{"two.txt"}}); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, "two.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dry, err := ts.Restore(docstore.RestoreRequest{SnapshotID: snap.ID, Output: out, DryRun: true})
	if err != nil || len(dry.Written) != 1 || len(dry.Skipped) != 1 {
		t.Fatalf("dry run = %+v, %v", dry, err)
	}
	if _, err := os.Stat(filepath.Join(out, "a")); !os.IsNotExist(err) {
		t.Fatal("dry run wrote files")
	}
	res, err := ts.Restore(docstore.RestoreRequest{SnapshotID: snap.ID, Output: out})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Name != "two.txt" || !strings.Contains(res.Skipped[0].Reason, "exists") {
		t.Fatalf("restore without overwrite = %+v; want two.txt skipped", res)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "two.txt")); string(got) != "mine\n" {
		t.Fatalf("existing file overwritten: %q", got)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "a", "one.md")); string(got) != "# One\n\nfirst\n" {
		t.Fatalf("restored a/one.md = %q, want the snapshot's content", got)
	}
	res, err = ts.Restore(docstore.RestoreRequest{SnapshotID: snap.ID, Output: out, Overwrite: true, Include: []string{"*.txt"}})
	if err != nil || len(res.Written) != 1 || !res.Written[0].Replaced {
		t.Fatalf("restore with overwrite = %+v, %v", res, err)
	}
	if got, _ := os.ReadFile(filepath.Join(out, "two.txt")); string(got) != "two\n" {
		t.Fatalf("overwrite did not replace: %q", got)
	}
	// A link inside the output directory that leads out is not followed.
	evil := t.TempDir()
	out2 := t.TempDir()
	if err := os.Symlink(evil, filepath.Join(out2, "a")); err != nil {
		t.Skip(err)
	}
	res, err = ts.Restore(docstore.RestoreRequest{Collection: "d", Output: out2})
	if err != nil || len(res.Written) != 1 {
		t.Fatalf("restore of collection d = %+v, %v", res, err)
	}
	res, err = ts.Restore(docstore.RestoreRequest{SnapshotID: snap.ID, Output: out2, Include: []string{"a/**"}})
	if err != nil || len(res.Written) != 0 || len(res.Skipped) != 1 || !strings.Contains(res.Skipped[0].Reason, "outside") {
		t.Fatalf("restore through a link = %+v, %v", res, err)
	}
	if entries := testenv.Must1(os.ReadDir(evil))(t); len(entries) != 0 {
		t.Fatalf("restore wrote through a symbolic link: %v", entries)
	}
	list, err := ts.Snapshots()
	if err != nil || len(list) != 1 || list[0].Label != "before edits" {
		t.Fatalf("snapshots = %+v, %v", list, err)
	}
}
