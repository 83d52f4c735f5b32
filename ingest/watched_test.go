package ingest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/index"
)

func TestWatched(t *testing.T) {
	dir := t.TempDir()
	a := &index.Source{ID: "a", Path: filepath.Join(dir, "a"), Kind: index.SourceDir}
	b := &index.Source{ID: "b", Path: filepath.Join(dir, "b.md"), Kind: index.SourceFile}
	store := &index.Source{ID: "s", Path: filepath.Join(dir, "store"), Kind: index.SourceStore}
	bucket := &index.Source{ID: "3", Path: "s3://bucket/notes", Kind: index.SourceS3}
	all := []*index.Source{a, store, b, bucket}
	got, err := Watched(all, nil, nil)
	if err != nil || len(got) != 2 || got[0] != a || got[1] != b {
		t.Errorf("every source: %v, %v; want a and b", got, err)
	}
	if len(all) != 4 || all[1] != store {
		t.Errorf("Watched changed its argument: %v", all)
	}
	if got, err := Watched(all, []string{b.Path}, nil); err != nil || len(got) != 1 || got[0] != b {
		t.Errorf("by path: %v, %v; want b", got, err)
	}
	for _, tc := range []struct {
		name  string
		all   []*index.Source
		paths []string
		is    error
		want  string
	}{
		{"nothing registered", nil, nil, index.ErrNotFound, "no sources registered yet"},
		{"nothing watchable", []*index.Source{store, bucket}, nil, index.ErrNotFound, "S3 sources and the document store are not"},
		{"a bucket", all, []string{"s3://bucket/notes"}, index.ErrBadOption, "S3 sources cannot be watched"},
		{"the store", all, []string{store.Path}, index.ErrNotFound, "no source at"},
		{"unknown path", all, []string{filepath.Join(dir, "c")}, index.ErrNotFound, "index it before watching it"},
	} {
		if _, err := Watched(tc.all, tc.paths, nil); !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %v saying %q", tc.name, err, tc.is, tc.want)
		}
	}
}

// A source this user's braid cannot use (an unsealed record, as in a
// cloned index, or a folder reached through a symbolic link since) is not
// watched: said once through warn when others are, the error when none is.
func TestWatchedLeavesOutUnusableSources(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"mine", "theirs", "real/moved"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	mine := &index.Source{ID: "m", Name: "mine", Path: filepath.Join(dir, "mine"), Kind: index.SourceDir}
	theirs := &index.Source{ID: "t", Name: "theirs", Path: filepath.Join(dir, "theirs"), Kind: index.SourceDir, Untrusted: "is not sealed by this user's key"}
	moved := &index.Source{ID: "v", Name: "moved", Path: filepath.Join(dir, "link", "moved"), Kind: index.SourceDir}
	all := []*index.Source{theirs, mine, moved}

	var warned []error
	got, err := Watched(all, nil, func(err error) { warned = append(warned, err) })
	if err != nil || len(got) != 1 || got[0] != mine {
		t.Fatalf("every source: %v, %v; want mine alone", got, err)
	}
	if len(warned) != 2 || !errors.Is(warned[0], index.ErrUntrusted) || !strings.Contains(warned[0].Error(), "braid sources trust theirs") || !errors.Is(warned[1], index.ErrMoved) {
		t.Errorf("warnings %v; want theirs untrusted (naming braid sources trust theirs), then moved", warned)
	}

	warned = nil
	if got, err := Watched(all, []string{theirs.Path}, func(err error) { warned = append(warned, err) }); !errors.Is(err, index.ErrUntrusted) || got != nil || warned != nil {
		t.Errorf("the untrusted source by path: %v, %v, warned %v; want ErrUntrusted alone", got, err, warned)
	}
	_, err = Watched([]*index.Source{theirs, moved}, nil, nil)
	if !errors.Is(err, index.ErrUntrusted) || !errors.Is(err, index.ErrMoved) {
		t.Errorf("nothing usable: %v, want both refusals", err)
	}
	if n := strings.Count(err.Error(), "not watched: "); n != 2 {
		t.Errorf("nothing usable: %d refusals in %q, want each of the two once", n, err)
	}
}
