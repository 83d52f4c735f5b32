package cli

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/vector"
)

// The subprocess form of the test binary (BRAID_TEST_MAIN=1) takes its
// commit size from BRAID_BATCH_DOCS, so a short run has many commits.
func init() {
	if os.Getenv("BRAID_TEST_MAIN") == "1" {
		if n, err := strconv.Atoi(os.Getenv("BRAID_BATCH_DOCS")); err == nil && n > 0 {
			testBatchDocs = n
		}
	}
}

// TestCrashKillLoop runs braid index over a vault whose every file changed,
// with commits of 4 files, and kills it with SIGKILL at seeded delays spread
// over a full run. After each kill the index must pass doctor, hold every
// document, answer braid search, and a rerun must finish with every
// document at its newest version.
func TestCrashKillLoop(t *testing.T) {
	testenv.Slow(t, "kills braid index 16 times over 300 notes")
	const n, rounds = 300, 16
	vault := vaultDir(t, n, "crashmarker0")
	idx := filepath.Join(t.TempDir(), "idx")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	command := func(args ...string) *exec.Cmd {
		cmd := exec.Command(self, append([]string{"--index", idx, "-q"}, args...)...)
		cmd.Env = append(os.Environ(), "BRAID_TEST_MAIN=1", "BRAID_BATCH_DOCS=4")
		return cmd
	}
	// A full, uninterrupted run in a subprocess sets the time scale.
	t0 := time.Now()
	if out, err := command("index", vault).CombinedOutput(); err != nil {
		t.Fatalf("first index: %v %s", err, out)
	}
	full := time.Since(t0)
	docCount := func(round int) int {
		out, errOut, code := runCLI(t, "--index", idx, "--json", "stats")
		var st struct{ Documents int }
		if code != 0 || json.Unmarshal([]byte(out), &st) != nil {
			t.Fatalf("round %d: stats: exit %d %q %q", round, code, out, errOut)
		}
		return st.Documents
	}

	r := rand.New(rand.NewPCG(8, 2026))
	mid := 0
	for i := 1; i <= rounds; i++ {
		marker := fmt.Sprintf("crashmarker%d", i)
		writeVault(t, vault, n, marker)
		// One delay per stratum of the run, random within it.
		frac := 0.1 + 0.85*(float64(i-1)+r.Float64())/float64(rounds)
		delay := time.Duration(frac * float64(full))
		if landed, took := killAfter(t, command("index"), delay); landed {
			mid++
		} else {
			full = took // the run was quicker than the first: aim within this one
		}

		out, errOut, code := runCLI(t, "--index", idx, "--json", "doctor")
		var doc struct{ Healthy bool }
		if code != 0 || json.Unmarshal([]byte(out), &doc) != nil || !doc.Healthy {
			t.Fatalf("round %d (kill after %v of %v): doctor: exit %d %s %s", i, delay, full, code, out, errOut)
		}
		if got := docCount(i); got != n {
			t.Fatalf("round %d (kill after %v): %d documents after the kill, want %d", i, delay, got, n)
		}
		out, errOut, code = runCLI(t, "--index", idx, "search", "--paths-only", "note-0123.md number 123")
		if code != 0 || !strings.Contains(out, "note-0123.md") {
			t.Fatalf("round %d: search after kill: exit %d %q %q", i, code, out, errOut)
		}
		if _, errOut, code := runCLI(t, "--index", idx, "-q", "index"); code != 0 {
			t.Fatalf("round %d: rerun of index: %s", i, errOut)
		}
		if got := docCount(i); got != n {
			t.Fatalf("round %d: %d documents after the rerun, want %d", i, got, n)
		}
		out, _, _ = runCLI(t, "--index", idx, "--json", "search-keyword", "--limit", "1000", "--paths-only", marker)
		var res struct{ Paths []string }
		testenv.Must(t, json.Unmarshal([]byte(out), &res))
		if len(res.Paths) != n {
			t.Fatalf("round %d: after the rerun %d documents have the newest version, want %d", i, len(res.Paths), n)
		}
	}
	t.Logf("survived %d kills, %d landed mid-run (full run %v)", rounds, mid, full)
	if mid*2 < rounds {
		t.Fatalf("only %d of %d kills landed mid-run; the test proved too little", mid, rounds)
	}
}

// doctorJSON runs braid doctor (with extra arguments) and decodes it.
type doctorOut struct {
	Healthy bool
	Checks  []struct {
		Name   string
		OK     bool
		Detail string
	}
	Repaired []string
}

func runDoctor(t *testing.T, idx string, args ...string) (doctorOut, int, string) {
	t.Helper()
	out, errOut, code := runCLI(t, append([]string{"--index", idx, "--json", "doctor"}, args...)...)
	var d doctorOut
	if code == 0 || out != "" {
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatalf("doctor output %q: %v (stderr %q)", out, err, errOut)
		}
	}
	return d, code, errOut
}

// failing is the details of the failed checks, one per line.
func (d doctorOut) failing() string {
	var b strings.Builder
	for _, c := range d.Checks {
		if !c.OK {
			b.WriteString(c.Detail + "\n")
		}
	}
	return b.String()
}

// TestDoctorDetectsAndRepairsCorruption damages one file of a healthy index
// at a time and checks that doctor names it and the fix, and that --repair
// fixes what it claims to.
func TestDoctorDetectsAndRepairsCorruption(t *testing.T) {
	vault := vaultDir(t, 40, "repairmarker")
	setup := func(t *testing.T) string {
		idx := filepath.Join(t.TempDir(), "idx")
		if _, errOut, code := runCLI(t, "--index", idx, "-q", "index", vault); code != 0 {
			t.Fatalf("index: %s", errOut)
		}
		// A vectors file as a model run leaves it (no model is needed to
		// write one).
		vi := vector.New(8, nil)
		for i := range 50 {
			v := make([]float32, 8)
			v[i%8], v[(i+3)%8] = 1, float32(i)
			if err := vi.Add(fmt.Sprint(i), v); err != nil {
				t.Fatal(err)
			}
		}
		if err := vi.Save(filepath.Join(idx, "vectors-0badc0de.hnsw")); err != nil {
			t.Fatal(err)
		}
		if d, code, errOut := runDoctor(t, idx); code != 0 || !d.Healthy {
			t.Fatalf("healthy index: doctor exit %d %+v %s", code, d, errOut)
		}
		return idx
	}
	searchFinds := func(t *testing.T, idx string) {
		t.Helper()
		out, errOut, code := runCLI(t, "--index", idx, "search-keyword", "--paths-only", "note-0007.md number 7")
		if code != 0 || !strings.Contains(out, "note-0007.md") {
			t.Fatalf("search after repair: exit %d %q %q", code, out, errOut)
		}
	}
	cases := []struct {
		name   string
		damage func(t *testing.T, idx string)
		want   []string // in doctor's failing details
		repair bool     // --repair makes the index healthy again
	}{
		{"vectors bytes flipped", func(t *testing.T, idx string) {
			p := filepath.Join(idx, "vectors-0badc0de.hnsw")
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			for i := len(b) / 2; i < len(b)/2+8; i++ {
				b[i] ^= 0xff
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}, []string{"vectors-0badc0de.hnsw is damaged", "--repair removes it"}, true},
		{"lexical missing", func(t *testing.T, idx string) {
			if err := os.RemoveAll(filepath.Join(idx, "lexical.bleve")); err != nil {
				t.Fatal(err)
			}
		}, []string{"lexical.bleve is missing", "--repair rebuilds it"}, true},
		{"lexical damaged", func(t *testing.T, idx string) {
			if err := os.WriteFile(filepath.Join(idx, "lexical.bleve", "index_meta.json"), []byte("{garbage"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, []string{"lexical.bleve is damaged", "--repair rebuilds it"}, true},
		{"VERSION garbled", func(t *testing.T, idx string) {
			if err := os.WriteFile(filepath.Join(idx, "VERSION"), []byte("\x00\x01braid"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, []string{"VERSION is missing or garbled", "--repair rewrites it"}, true},
		{"meta.db truncated", func(t *testing.T, idx string) {
			p := filepath.Join(idx, "meta.db")
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(p, st.Size()/3); err != nil {
				t.Fatal(err)
			}
		}, []string{"meta.db", "delete " + "IDX" + " and run braid --index"}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			idx := setup(t)
			tc.damage(t, idx)
			d, code, errOut := runDoctor(t, idx)
			if code == 0 || d.Healthy {
				t.Fatalf("doctor passed a damaged index: %+v", d)
			}
			fail := d.failing()
			for _, w := range tc.want {
				w = strings.ReplaceAll(w, "IDX", idx)
				if !strings.Contains(fail, w) {
					t.Errorf("doctor's findings %q (stderr %q) do not say %q", fail, errOut, w)
				}
			}
			d, code, errOut = runDoctor(t, idx, "--repair")
			if !tc.repair {
				if code == 0 || !strings.Contains(errOut, "cannot be repaired") || !strings.Contains(errOut, "braid --index "+idx+" index PATH") {
					t.Fatalf("--repair on %s: exit %d, stderr %q; want a refusal naming the re-index command", tc.name, code, errOut)
				}
				return
			}
			if code != 0 || !d.Healthy || len(d.Repaired) == 0 {
				t.Fatalf("--repair: exit %d %+v %s", code, d, errOut)
			}
			if d, code, _ := runDoctor(t, idx); code != 0 || !d.Healthy {
				t.Fatalf("doctor after --repair: exit %d %s", code, d.failing())
			}
			searchFinds(t, idx)
		})
	}
}

// killAfter starts cmd and kills it with SIGKILL after delay unless it
// ends first. It reports whether the kill landed while it ran and, when it
// did not, how long the run took: the machine may be busier or quieter
// than when the caller timed a full run, so the caller scales its next
// delays to that.
func killAfter(t *testing.T, cmd *exec.Cmd, delay time.Duration) (landed bool, took time.Duration) {
	t.Helper()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
		return false, time.Since(start)
	case <-time.After(delay):
	}
	cmd.Process.Signal(syscall.SIGKILL)
	<-done
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ok && ws.Signaled() {
		return true, 0
	}
	return false, time.Since(start)
}
