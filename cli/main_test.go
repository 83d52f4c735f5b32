package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/braidsearch/braid/internal/testdata"
	"github.com/braidsearch/braid/internal/testenv"
)

// TestMain lets the test binary act as the braid command, so tests can run
// it as a separate process (and kill it) without a separate build.
// Tests never see the user's pulled models: BRAID_MODELS points at an empty
// directory unless a test names a model itself.
func TestMain(m *testing.M) {
	if os.Getenv("BRAID_TEST_MAIN") == "1" {
		log.SetOutput(io.Discard) // as main does
		os.Exit(Run(os.Args[1:], os.Stdout, os.Stderr))
	}
	empty, err := os.MkdirTemp("", "braid-no-models-")
	if err != nil {
		panic(err)
	}
	os.Setenv("BRAID_MODELS", empty)
	os.Unsetenv("BRAID_MODEL")
	code := m.Run()
	os.RemoveAll(empty)
	os.Exit(code)
}

// runCLI runs one command line in process.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	code = Run(args, &o, &e)
	return o.String(), e.String(), code
}

func vaultDir(t *testing.T, n int, marker string) string {
	t.Helper()
	dir := t.TempDir()
	writeVault(t, dir, n, marker)
	return dir
}

func writeVault(t *testing.T, dir string, n int, marker string) {
	t.Helper()
	for i := range n {
		body := fmt.Sprintf("---\ntitle: Note %d\ntags: [n%d]\n---\n# Note %d\n\nThis is note number %d with %s and [[Note %d]].\n\n## Details\n\n%s\n", i, i%7, i, i, marker, (i+1)%n, strings.Repeat("filler words about gardens and rivers. ", 20))
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("note-%04d.md", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestBadInputExitsOneWithOneLine(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	vault := vaultDir(t, 3, "alpha")
	if _, errOut, code := runCLI(t, "--index", idx, "index", vault); code != 0 {
		t.Fatalf("index failed: %s", errOut)
	}
	big := filepath.Join(t.TempDir(), "big.md")
	if err := os.WriteFile(big, bytes.Repeat([]byte("a"), 9<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "x.bin")
	testenv.Must(t, os.WriteFile(bin, []byte{0, 1, 2, 3}, 0o644))
	bad := filepath.Join(t.TempDir(), "bad.md")
	testenv.Must(t, os.WriteFile(bad, []byte("caf\xe9"), 0o644))
	loop := filepath.Join(t.TempDir(), "loop")
	testenv.Must(t, os.Symlink(loop, loop))
	jsonl := filepath.Join(t.TempDir(), "corpus.jsonl")
	testenv.Must(t, os.WriteFile(jsonl, []byte("{\"_id\":\"x1\",\"title\":\"t\",\"text\":\"kiwi\"}\n{broken\n{\"_id\":\"x2\",\"title\":\"t\",\"text\":\"mango\"}\n"), 0o644))
	tests := []struct {
		name string
		args []string
		want string // in the error line
	}{
		{"empty query", []string{"search", " "}, "empty query"},
		{"weight out of range", []string{"search", "--vector-weight", "1.7", "alpha"}, `vector_weight "1.7" is out of range`},
		{"invalid regex", []string{"grep", "a(b"}, "bad pattern"},
		{"missing path", []string{"index", "/no/such/dir"}, "does not exist"},
		{"invalid utf-8 query", []string{"search", "caf\xe9"}, "UTF-8"},
		{"invalid utf-8 file", []string{"index", bad}, "UTF-8"},
		{"oversized file", []string{"index", big}, "--max-file-size"},
		{"binary file", []string{"index", bin}, "binary"},
		{"symlink loop", []string{"index", loop}, "symbolic links"},
		{"unknown document", []string{"get", "no-such-doc"}, "no document is named"},
		{"malformed jsonl line", []string{"index", jsonl}, "could not be indexed"},
		{"bad lines", []string{"get", "Note 1", "--lines", "5:2"}, "--lines"},
		{"unknown flag", []string{"search", "--nope", "x"}, "unknown flag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := runCLI(t, append([]string{"--index", idx, "-q"}, tt.args...)...)
			if code != 1 {
				t.Errorf("exit code %d, want 1", code)
			}
			lines := strings.Split(strings.TrimSpace(errOut), "\n")
			last := lines[len(lines)-1]
			if !strings.HasPrefix(last, "braid: ") || !strings.Contains(last, tt.want) {
				t.Errorf("stderr %q: want a last line starting braid: and containing %q", errOut, tt.want)
			}
			if tt.name != "malformed jsonl line" && len(lines) != 1 {
				t.Errorf("stderr has %d lines, want 1: %q", len(lines), errOut)
			}
		})
	}
	if _, errOut, _ := runCLI(t, "--index", idx, "index", jsonl); !strings.Contains(errOut, ":2: not a JSON object") {
		t.Errorf("malformed JSONL line not reported with its line number: %q", errOut)
	}
	out, _, code := runCLI(t, "--index", idx, "search-keyword", "--paths-only", "mango")
	if code != 0 || !strings.Contains(out, "corpus.jsonl#x2") {
		t.Errorf("the good JSONL lines were not indexed: %q (exit %d)", out, code)
	}
	out, errOut, code := runCLI(t, "--index", idx, "search", "alpha", "--json")
	var res struct {
		Results []map[string]any `json:"results"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || len(res.Results) != 3 {
		t.Errorf("index not searchable after bad input: exit %d, %q %q", code, out, errOut)
	}
	if _, errOut, code := runCLI(t, "--index", idx, "doctor"); code != 0 {
		t.Errorf("doctor after bad input: exit %d: %s", code, errOut)
	}
}

func TestJSONEverywhere(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	vault := vaultDir(t, 5, "kiwi")
	for _, args := range [][]string{
		{"index", vault},
		{"search", "kiwi"},
		{"search-keyword", "kiwi", "--paths-only"},
		{"get", "Note 2"},
		{"sources"},
		{"stats"},
		{"doctor"},
		{"version"},
	} {
		out, errOut, code := runCLI(t, append([]string{"--index", idx, "--json"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Errorf("%v --json printed %q: %v", args, out, err)
		}
	}
	out, _, _ := runCLI(t, "--index", idx, "--json", "stats")
	var st struct {
		Documents int `json:"documents"`
		Chunks    int `json:"chunks"`
	}
	testenv.Must(t, json.Unmarshal([]byte(out), &st))
	if st.Documents != 5 || st.Chunks < 5 {
		t.Errorf("stats --json documents %d chunks %d, want 5 and at least 5", st.Documents, st.Chunks)
	}
	out, _, code := runCLI(t, "--index", idx, "--json", "grep", "-n", "kiwi")
	if code != 0 || strings.Count(out, "\n") != 5 || !strings.Contains(out, `"line":7`) {
		t.Errorf("grep --json printed %q (exit %d), want 5 JSON lines at line 7", out, code)
	}
	out, _, _ = runCLI(t, "--index", idx, "get", "Note 2", "--lines", "5:5")
	if out != "# Note 2\n" {
		t.Errorf("get --lines 5:5 = %q, want the heading line", out)
	}
}

// TestKillDuringIndex kills braid index with SIGKILL at varied moments and
// checks that the index stays consistent and searchable, holding for every
// document either its old or its new version.
func TestKillDuringIndex(t *testing.T) {
	testenv.Slow(t, "kills braid index six times over 1,500 notes")
	const n = 1500
	idx := filepath.Join(t.TempDir(), "idx")
	vault := vaultDir(t, n, "oldmarker")
	if _, errOut, code := runCLI(t, "--index", idx, "-q", "index", vault); code != 0 {
		t.Fatalf("first index: %s", errOut)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	killed := 0
	for i, delay := range []time.Duration{30, 80, 150, 250, 400, 600} {
		writeVault(t, vault, n, fmt.Sprintf("newmarker%d", i))
		cmd := exec.Command(self, "--index", idx, "-q", "index")
		cmd.Env = append(os.Environ(), "BRAID_TEST_MAIN=1")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay * time.Millisecond)
		if cmd.Process.Signal(syscall.SIGKILL) == nil {
			killed++
		}
		cmd.Wait()

		out, errOut, code := runCLI(t, "--index", idx, "--json", "doctor")
		if code != 0 {
			t.Fatalf("round %d (kill after %dms): doctor failed: %s %s", i, delay, out, errOut)
		}
		out, errOut, code = runCLI(t, "--index", idx, "--json", "stats")
		var st struct{ Documents int }
		if code != 0 || json.Unmarshal([]byte(out), &st) != nil || st.Documents != n {
			t.Fatalf("round %d: stats %q %q, want %d documents", i, out, errOut, n)
		}
		// Every note is findable by its number, old version or new.
		out, errOut, code = runCLI(t, "--index", idx, "search-keyword", "--paths-only", "note-0777.md number 777")
		if code != 0 || !strings.Contains(out, "note-0777.md") {
			t.Fatalf("round %d: search after kill: exit %d %q %q", i, code, out, errOut)
		}
	}
	if killed == 0 {
		t.Fatal("no run was killed; the test proved nothing")
	}
	if _, errOut, code := runCLI(t, "--index", idx, "-q", "index"); code != 0 {
		t.Fatalf("final index: %s", errOut)
	}
	// A search lists at most 1,000 hits: count note-0xxx and note-1xxx apart.
	newest := 0
	for _, glob := range []string{"note-0*.md", "note-1*.md"} {
		out, _, _ := runCLI(t, "--index", idx, "--json", "search-keyword", "--limit", "1000", "--path", glob, "--paths-only", "newmarker5")
		var res struct{ Paths []string }
		testenv.Must(t, json.Unmarshal([]byte(out), &res))
		newest += len(res.Paths)
	}
	if newest != n {
		t.Errorf("after a full run %d documents have the newest version, want %d", newest, n)
	}
}

func TestSecondWriterRefused(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	vault := vaultDir(t, 2000, "x")
	self := testenv.Must1(os.Executable())(t)
	cmd := exec.Command(self, "--index", idx, "-q", "index", vault)
	cmd.Env = append(os.Environ(), "BRAID_TEST_MAIN=1")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	// The first writer need not finish: once the second is refused, it
	// has served its purpose.
	defer func() { cmd.Process.Kill(); <-exited }()
	// Wait for the writer to take the lock.
	guard := time.After(testenv.Guard)
	for {
		b, _ := os.ReadFile(filepath.Join(idx, "lock"))
		if len(b) > 0 {
			break
		}
		select {
		case <-exited:
			t.Skip("the writer finished before the test could race it")
		case <-guard:
			t.Fatalf("the writer did not take the lock within %v", testenv.Guard)
		case <-time.After(5 * time.Millisecond):
		}
	}
	_, errOut, code := runCLI(t, "--index", idx, "index", vault)
	if code == 0 {
		t.Skip("the writer finished before the second one started")
	}
	if !strings.Contains(errOut, "in use") || !strings.Contains(errOut, fmt.Sprintf("pid %d", cmd.Process.Pid)) {
		t.Errorf("second writer said %q, want a refusal naming pid %d", errOut, cmd.Process.Pid)
	}
}

// TestGrepAgreesWithRipgrep runs braid grep over both indexed vaults and rg
// over the same folders, and compares their output byte for byte.
func TestGrepAgreesWithRipgrep(t *testing.T) {
	testenv.Slow(t, "indexes both real vaults through the CLI")
	rg, err := exec.LookPath("rg")
	if err != nil {
		t.Skip("no ripgrep: rg not installed: apt-get install ripgrep (make test installs it)")
	}
	var dirs []string
	for _, d := range []string{"markdown/dendron/vault", "markdown/silverbullet/docs"} {
		abs := testenv.Must1(filepath.Abs(testdata.Dir(t, d)))(t)
		// braid registers a source at its real path, so ripgrep is given
		// the same: the shared folder may be reached through a link.
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real
		}
		dirs = append(dirs, (&Globals{}).displayPath(abs))
	}
	idx := filepath.Join(t.TempDir(), "idx")
	if _, errOut, code := runCLI(t, append([]string{"--index", idx, "-q", "index"}, dirs...)...); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	for _, flags := range [][]string{
		{"-n", "SilverBullet"},
		{"-n", "-i", "config"},
		{"-n", `\[\[[^\]]*\]\]`},
		{"-n", "-w", "page"},
		{"-n", "TODO|FIXME"},
		{"-c", "the"},
		{"-l", "lua"},
		{"-n", "-C", "1", "frontmatter"},
		{"-n", "-m", "1", "-A", "2", `^#+ `},
		{"-n", "-v", "-c", "e"},
	} {
		t.Run(strings.Join(flags, " "), func(t *testing.T) {
			want, err := exec.Command(rg, append(append([]string{"--no-config", "--no-heading", "--color", "never", "--sort", "path", "-H"}, flags...), dirs...)...).Output()
			if err != nil && len(want) > 0 {
				t.Fatalf("rg: %v", err)
			}
			got, errOut, _ := runCLI(t, append([]string{"--index", idx, "grep"}, flags...)...)
			if got != string(want) {
				gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
				for i := 0; i < len(gl) && i < len(wl); i++ {
					if gl[i] != wl[i] {
						t.Fatalf("braid grep %v differs from rg at line %d:\nbraid: %q\nrg:    %q\n(%d vs %d lines; stderr %q)", flags, i+1, gl[i], wl[i], len(gl), len(wl), errOut)
					}
				}
				t.Fatalf("braid grep %v: %d lines, rg: %d lines", flags, len(gl), len(wl))
			}
		})
	}
}
