package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/internal/formattest"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/lexical"
)

// TestCraftedSegmentInClonedIndex replays issue 47's committed .braid/: a
// segment whose doc-value chunk count is 2^40, its CRC fixed, in an index
// without stamps (as a clone has none). braid trusted the CRC and zap
// asked for 8 TiB at open: search, index, doctor and doctor --repair all
// died with a fatal error. Each runs as its own process, so a fatal error
// is a crash the test sees: search and index refuse in one line naming
// doctor --repair, doctor says the lexical index is damaged, and --repair
// rebuilds it from meta.db, after which a search answers.
func TestCraftedSegmentInClonedIndex(t *testing.T) {
	vault := vaultDir(t, 30, "kiwi")
	idx := filepath.Join(t.TempDir(), "idx")
	if _, errOut, code := runCLI(t, "--index", idx, "-q", "index", vault); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	// Its lexical index made again as braid made them before it left doc
	// values out: the crafted count needs a field with them (and such an
	// index still opens).
	lp := filepath.Join(idx, "lexical.bleve")
	testenv.Must(t, os.RemoveAll(lp))
	testenv.Must(t, lexical.CreateWithDocValues(lp))
	st, err := index.OpenStore(filepath.Join(idx, "meta.db"), false)
	if err != nil {
		t.Fatal(err)
	}
	lex, err := lexical.Open(lp, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	testenv.Must(t, index.RebuildLexical(st, lex))
	testenv.Must(t, lex.Close())
	testenv.Must(t, st.Close())
	zaps, _ := filepath.Glob(filepath.Join(idx, "lexical.bleve", "store", "*.zap"))
	if len(zaps) == 0 {
		t.Fatal("the index has no segment")
	}
	b, err := os.ReadFile(zaps[0])
	if err != nil {
		t.Fatal(err)
	}
	crafted, err := formattest.CraftZapDocValueChunks(b, 1<<40)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(zaps[0], crafted, 0o600); err != nil {
		t.Fatal(err)
	}
	stamps, _ := filepath.Glob(filepath.Join(idx, "*.verified"))
	for _, s := range stamps {
		if err := os.Remove(s); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) runOut {
		t.Helper()
		return runUnbroken(t, idx, args...)
	}
	refusal := func(what string, r runOut) {
		t.Helper()
		lines := r.errorLines()
		if r.code != 1 || len(lines) != 1 || !strings.Contains(lines[0], "lexical.bleve") ||
			!strings.Contains(lines[0], filepath.Base(zaps[0])) || !strings.Contains(lines[0], "doctor --repair") {
			t.Errorf("%s: exit %d, %q; want exit 1 and one line naming lexical.bleve, %s and doctor --repair", what, r.code, r.stderr, filepath.Base(zaps[0]))
		}
	}
	refusal("search", run("search", "--paths-only", "kiwi"))
	refusal("index", run("-q", "index", vault))
	doctor := run("doctor")
	if doctor.code != 1 || !strings.Contains(doctor.stdout+doctor.stderr, "lexical.bleve is damaged") {
		t.Errorf("doctor: exit %d, %q %q; want exit 1 saying lexical.bleve is damaged", doctor.code, doctor.stdout, doctor.stderr)
	}
	repair := run("doctor", "--repair")
	if repair.code != 0 || !strings.Contains(repair.stdout, "rebuilt") {
		t.Fatalf("doctor --repair: exit %d, %q %q; want it to rebuild the lexical index", repair.code, repair.stdout, repair.stderr)
	}
	search := run("search", "--paths-only", "--limit", "50", "kiwi")
	if search.code != 0 || strings.Count(search.stdout, "note-") != 30 {
		t.Errorf("search after the repair: exit %d, %q %q; want the 30 notes", search.code, search.stdout, search.stderr)
	}
}
