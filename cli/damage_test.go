package cli

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/braidsearch/braid/internal/modeltest"
	"github.com/braidsearch/braid/internal/testenv"
)

// damage is one way of damaging an index file.
type damage struct {
	name string
	do   func(t *testing.T, path string)
}

var damages = []damage{
	{"delete", func(t *testing.T, p string) {
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
	}},
	{"truncate", func(t *testing.T, p string) {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, st.Size()/2); err != nil {
			t.Fatal(err)
		}
	}},
	{"zero", func(t *testing.T, p string) {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, st.Size()), 0o644); err != nil {
			t.Fatal(err)
		}
	}},
	{"flip", func(t *testing.T, p string) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(uint64(len(b)), 7))
		for range min(64, len(b)/4+1) {
			b[r.IntN(len(b))] ^= 0xff
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}},
}

// runOut is one finished braid process.
type runOut struct {
	stdout, stderr string
	code           int
	maxRSS         int64 // bytes
}

// runProc runs one braid command line as a separate process (the test
// binary as braid), killed if it outlives limit: a hang fails the test
// instead of stalling it.
func runProc(t *testing.T, limit time.Duration, args ...string) runOut {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), "BRAID_TEST_MAIN=1")
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("braid %s did not finish within %v (stderr %q)", strings.Join(args, " "), limit, e.String())
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	out := runOut{stdout: o.String(), stderr: e.String(), code: cmd.ProcessState.ExitCode()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		out.maxRSS = ru.Maxrss * 1024
	}
	return out
}

// runUnbroken runs braid on the index idx (runProc) and fails the test
// when the process crashed, exited with neither 0 nor 1, or took more than
// 1 GB: what any command may do on a damaged or crafted index.
func runUnbroken(t *testing.T, idx string, args ...string) runOut {
	t.Helper()
	r := runProc(t, testenv.Guard, append([]string{"--index", idx}, args...)...)
	all := r.stdout + r.stderr
	for _, bad := range []string{"panic:", "goroutine ", "fatal error", "out of memory", "SIGSEGV", "SIGBUS"} {
		if strings.Contains(all, bad) {
			t.Fatalf("braid %s crashed (%q), exit %d:\n%s", strings.Join(args, " "), bad, r.code, all)
		}
	}
	if r.code != 0 && r.code != 1 {
		t.Fatalf("braid %s exited %d:\n%s", strings.Join(args, " "), r.code, all)
	}
	if r.maxRSS > 1<<30 {
		t.Errorf("braid %s peaked at %d MB", strings.Join(args, " "), r.maxRSS>>20)
	}
	return r
}

// errorLines are the lines of stderr that are not warnings.
func (r runOut) errorLines() []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
		if l != "" && !strings.HasPrefix(l, "braid: warning:") {
			out = append(out, l)
		}
	}
	return out
}

// TestDamagedIndexFiles is the corruptor half of the robustness suite:
// each kind of index file is deleted, truncated, zeroed or has bytes
// flipped, and search, stats, doctor, index and doctor --repair run on it
// as separate processes. None may panic, hang or take more than 1 GB; a
// failure is one line that names the damaged file and a command that
// fixes it; doctor fails on every damage that search or index notices;
// an index run that succeeds leaves an index doctor passes; and a repair
// that succeeds leaves one that finds what the vault holds.
func TestDamagedIndexFiles(t *testing.T) {
	testenv.Slow(t, "runs about 200 braid processes")
	t.Setenv("BRAID_ORT_LIB", modeltest.NeedRuntime(t))
	t.Setenv("BRAID_MODEL", modeltest.TinyDir())
	vault := vaultDir(t, 60, "damagemarker")
	base := filepath.Join(t.TempDir(), "idx")
	if r := runProc(t, testenv.Guard, "--index", base, "-q", "index", vault); r.code != 0 {
		t.Fatalf("index: %s", r.stderr)
	}
	if r := runProc(t, testenv.Guard, "--index", base, "config", "set", "limit", "7"); r.code != 0 {
		t.Fatalf("config: %s", r.stderr)
	}
	zaps := testenv.Must1(filepath.Glob(filepath.Join(base, "lexical.bleve", "store", "*.zap")))(t)
	vecs := testenv.Must1(filepath.Glob(filepath.Join(base, "vectors-*.hnsw")))(t)
	if len(zaps) == 0 || len(vecs) != 1 {
		t.Fatalf("index has segments %v and vector files %v; want some and one", zaps, vecs)
	}
	// Each file, and the name a message about it must carry.
	files := []struct{ rel, names string }{
		{"meta.db", "meta.db"},
		{"VERSION", "VERSION"},
		{"settings.json", "settings.json"},
		{"lexical.bleve", "lexical.bleve"},
		{"lexical.bleve/index_meta.json", "lexical.bleve"},
		{"lexical.bleve/store/root.bolt", "lexical.bleve"},
		{"lexical.bleve/store/" + filepath.Base(zaps[0]), "lexical.bleve"},
		{filepath.Base(vecs[0]), filepath.Base(vecs[0])},
	}
	const query = "note number 7 damagemarker"
	for _, f := range files {
		for _, d := range damages {
			if f.rel == "lexical.bleve" && d.name != "delete" {
				continue // a directory
			}
			t.Run(f.rel+"/"+d.name, func(t *testing.T) {
				idx := filepath.Join(t.TempDir(), "idx")
				copyDir(t, base, idx)
				d.do(t, filepath.Join(idx, f.rel))
				run := func(args ...string) runOut {
					t.Helper()
					return runUnbroken(t, idx, args...)
				}
				// oneLine checks a failed command's error: one line, naming
				// the file and a fix.
				oneLine := func(what string, r runOut) {
					t.Helper()
					lines := r.errorLines()
					fix := false
					for _, f := range []string{"doctor --repair", "braid --index", "delete it"} {
						fix = fix || len(lines) == 1 && strings.Contains(lines[0], f)
					}
					if len(lines) != 1 || !strings.Contains(lines[0], f.names) || !fix {
						t.Errorf("%s failed with %q; want one line naming %s and what fixes it", what, r.stderr, f.names)
					}
				}
				doctor := run("doctor")
				sick := doctor.code != 0
				if sick && !strings.Contains(doctor.stdout+doctor.stderr, f.names) {
					t.Errorf("doctor fails without naming %s:\n%s%s", f.names, doctor.stdout, doctor.stderr)
				}
				search := run("search", "--paths-only", "--limit", "20", query)
				switch {
				case search.code != 0:
					oneLine("search", search)
					if !sick {
						t.Errorf("search fails (%q) where doctor passes", search.stderr)
					}
				case !strings.Contains(search.stdout, "note-0007.md"):
					t.Errorf("search answered without note-0007.md and without an error: %q %q", search.stdout, search.stderr)
				case strings.HasPrefix(f.rel, "vectors-") && d.name != "delete" && !strings.Contains(search.stderr, f.names+" is damaged"):
					// The graph is rebuilt from the stored embeddings, so
					// the answer is right, but the user must hear of it.
					t.Errorf("search on a damaged vector file says nothing of it: %q", search.stderr)
				}
				if stats := run("stats"); stats.code != 0 {
					oneLine("stats", stats)
				}
				index := run("-q", "index", vault)
				if index.code != 0 {
					oneLine("index", index)
				} else if after := run("doctor"); after.code != 0 {
					t.Errorf("index reported success on an index doctor then fails:\n%s", after.stdout)
				}
				repair := run("doctor", "--repair")
				if repair.code != 0 {
					oneLine("doctor --repair", repair)
					if !strings.Contains(repair.stderr, "delete") && !strings.Contains(repair.stderr, "settings.json") {
						t.Errorf("--repair fails without saying what to do: %q", repair.stderr)
					}
					return
				}
				if after := run("doctor"); after.code != 0 {
					t.Errorf("doctor fails after a --repair that succeeded:\n%s", after.stdout)
				}
				if s := run("search", "--paths-only", "--limit", "20", query); s.code != 0 || !strings.Contains(s.stdout, "note-0007.md") {
					t.Errorf("search after repair: exit %d %q %q", s.code, s.stdout, s.stderr)
				}
			})
		}
	}
}

// copyDir copies the tree at from to to.
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := testenv.Must1(filepath.Rel(from, p))(t)
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestStrandedEmbeddings opens an index built with an embedding model
// without that model: a default search says it runs lexical only and why,
// and doctor fails; with vectors turned off (--model none) neither
// complains.
func TestStrandedEmbeddings(t *testing.T) {
	t.Setenv("BRAID_ORT_LIB", modeltest.NeedRuntime(t))
	vault := vaultDir(t, 12, "strandedmarker")
	idx := filepath.Join(t.TempDir(), "idx")
	if _, errOut, code := runCLI(t, "--model", modeltest.TinyDir(), "--index", idx, "-q", "index", vault); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	// BRAID_MODELS is empty: the default model is not installed.
	out, errOut, code := runCLI(t, "--index", idx, "search", "--paths-only", "note number 3 strandedmarker")
	if code != 0 || !strings.Contains(out, "note-0003.md") {
		t.Fatalf("search: exit %d %q %q", code, out, errOut)
	}
	for _, w := range []string{"holds embeddings of", "cannot be searched", "braid models pull", "lexical only"} {
		if !strings.Contains(errOut, w) {
			t.Errorf("search's warning %q does not say %q", errOut, w)
		}
	}
	d, code, _ := runDoctor(t, idx)
	if code == 0 || d.Healthy || !strings.Contains(d.failing(), "holds embeddings of") {
		t.Errorf("doctor: exit %d, failing %q; want a failure for embeddings it cannot search", code, d.failing())
	}
	// Another model in use (the same files elsewhere are another model to
	// braid): the search names the index's model and the way back.
	other := filepath.Join(t.TempDir(), "other-encoder")
	copyDir(t, modeltest.TinyDir(), other)
	_, errOut, code = runCLI(t, "--model", other, "--index", idx, "search", "--paths-only", "strandedmarker")
	if code != 0 || !strings.Contains(errOut, "embeddings are of tiny-encoder@") || !strings.Contains(errOut, "--model set to tiny-encoder@") {
		t.Errorf("search with another model: exit %d, stderr %q; want it to name the index's model", code, errOut)
	}
	// Asked for lexical search, or with vectors turned off: no complaint.
	for _, args := range [][]string{{"search", "--vector-weight", "0"}, {"--model", "none", "search"}} {
		_, errOut, code := runCLI(t, append(append([]string{"--index", idx}, args...), "--paths-only", "strandedmarker")...)
		if code != 0 || strings.Contains(errOut, "embeddings") {
			t.Errorf("%v: exit %d, stderr %q; want no word of the embeddings", args, code, errOut)
		}
	}
	out, errOut, code = runCLI(t, "--model", "none", "--index", idx, "--json", "doctor")
	if code != 0 {
		t.Errorf("doctor with vectors turned off: exit %d %s %s", code, out, errOut)
	}
}
