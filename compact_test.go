package braid_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/indexdir"
	"github.com/braidsearch/braid/internal/modeltest"
)

// TestIndexCompacts: a run that removes most of the notes leaves most of
// meta.db unused, and compacts it: the file is smaller, the summary says
// so, every kept note is still found, doctor finds the index whole, and
// the stamp describes the new file (so the next run skips the full
// check). A run that changes nothing does not compact.
func TestIndexCompacts(t *testing.T) {
	braid.SetCompactMinSlack(t, 0)
	notes := map[string]string{}
	for i := range 200 {
		var b strings.Builder
		fmt.Fprintf(&b, "# Note %d\n\n", i)
		for p := range 12 {
			fmt.Fprintf(&b, "Paragraph %d of note %d: the word token%dx%d and some filler text about gardens, bread and rivers.\n\n", p, i, i, p)
		}
		notes[fmt.Sprintf("n%03d.md", i)] = b.String()
	}
	vault := writeVault(t, notes)
	dir := filepath.Join(t.TempDir(), "idx")
	opt := &braid.Options{KeyFile: filepath.Join(t.TempDir(), "key"), Embedder: modeltest.Tiny(t), Model: "braid/tiny-encoder"}
	ctx := context.Background()
	e, err := braid.Open(dir, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { e.Close() }()
	if _, err := e.Index(ctx, []braid.SourceSpec{{Path: vault}}, nil); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, indexdir.StoreFile)
	before := size(t, store)
	for i := 20; i < 200; i++ {
		if err := os.Remove(filepath.Join(vault, fmt.Sprintf("n%03d.md", i))); err != nil {
			t.Fatal(err)
		}
	}
	var phases []string
	sum, err := e.Index(ctx, nil, func(p braid.Progress) { phases = append(phases, p.Phase) })
	if err != nil {
		t.Fatal(err)
	}
	after := size(t, store)
	c := sum.Compacted
	if c == nil || sum.Removed != 180 {
		t.Fatalf("a run that removed %d of 200 notes did not compact meta.db (%d bytes)", sum.Removed, after)
	}
	t.Logf("meta.db %d bytes, compaction %+v", before, c)
	if c.Before < before || c.After != after || after*2 > before {
		t.Errorf("compaction %+v; meta.db %d bytes before the run, %d after: want it halved at least and said so", c, before, after)
	}
	if !strings.Contains(sum.Text(), "compacted meta.db") || phases[len(phases)-1] != "compact" {
		t.Errorf("summary %q, last phase %q: want the compaction said", sum.Text(), phases[len(phases)-1])
	}
	for _, i := range []int{0, 7, 19} {
		res, err := e.Search(ctx, fmt.Sprintf("token%dx5", i), braid.SearchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Results) == 0 || !strings.HasSuffix(res.Results[0].Path, fmt.Sprintf("n%03d.md", i)) {
			t.Errorf("note %d is not the first hit for its word after the compaction: %+v", i, res.Results)
		}
	}
	checks, err := e.Doctor(ctx, &braid.DoctorOptions{Files: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks {
		if !c.OK && !c.Warning {
			t.Errorf("doctor after the compaction: %s: %s", c.Name, c.Detail)
		}
	}
	stamp, err := os.ReadFile(store + indexdir.StampSuffix)
	if err != nil {
		t.Fatalf("no stamp after the compaction: %v", err)
	}
	var st syscall.Stat_t
	if err := syscall.Stat(store, &st); err != nil {
		t.Fatal(err)
	}
	if f := strings.Fields(string(stamp)); len(f) != 8 || f[2] != fmt.Sprint(st.Size) || f[6] != fmt.Sprint(st.Ino) {
		t.Errorf("stamp %q does not describe the compacted meta.db (size %d, inode %d)", stamp, st.Size, st.Ino)
	}

	// Nothing changed: no compaction, and the file is not rewritten. (Its
	// size may grow: a run records the status of each file whose times
	// have settled, ingest/filestat.go, which on a busy machine can be
	// this run.)
	e.Close()
	if e, err = braid.Open(dir, opt); err != nil {
		t.Fatal(err)
	}
	sum, err = e.Index(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var again syscall.Stat_t
	if err := syscall.Stat(store, &again); err != nil {
		t.Fatal(err)
	}
	if sum.Compacted != nil || again.Ino != st.Ino {
		t.Errorf("a run that changed nothing compacted: %+v, inode %d → %d", sum.Compacted, st.Ino, again.Ino)
	}

	// A source removed gives its pages back too.
	other := map[string]string{}
	for name, text := range notes {
		other[name] = strings.ReplaceAll(text, "token", "other")
	}
	if _, err := e.Index(ctx, []braid.SourceSpec{{Path: writeVault(t, other), Name: "other"}}, nil); err != nil {
		t.Fatal(err)
	}
	big := size(t, store)
	if _, err := e.Sources().Remove(ctx, "other"); err != nil {
		t.Fatal(err)
	}
	if got := size(t, store); got*2 > big {
		t.Errorf("meta.db %d bytes after a source of 200 notes was removed, %d with it: not compacted", got, big)
	}
	if res, err := e.Search(ctx, "token7x5", braid.SearchOptions{}); err != nil || len(res.Results) == 0 {
		t.Errorf("the kept source's note 7 is not found after the removal's compaction: %v", err)
	}
}

func size(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
