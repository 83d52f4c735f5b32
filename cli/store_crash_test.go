package cli

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/braidsearch/braid/internal/testenv"
)

// TestAddCrashKillLoop kills braid add with SIGKILL at seeded delays over
// its run. After each kill the index must pass doctor, braid get must
// return one complete version of the document, every recorded version's
// content must be readable, and braid index must bring the index in step
// with the last recorded version.
func TestAddCrashKillLoop(t *testing.T) {
	testenv.Slow(t, "kills braid add 10 times")
	const rounds = 10
	idx := filepath.Join(t.TempDir(), "idx")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	body := func(i int) string {
		return fmt.Sprintf("# Doc\n\naddmarker%d\n\n%s", i, strings.Repeat(fmt.Sprintf("Paragraph %d of words about herons.\n\n", i), 4000))
	}
	add := func(i int) *exec.Cmd {
		f := filepath.Join(t.TempDir(), "doc.md")
		if err := os.WriteFile(f, []byte(body(i)), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(self, "--index", idx, "-q", "add", f)
		cmd.Env = append(os.Environ(), "BRAID_TEST_MAIN=1")
		return cmd
	}
	t0 := time.Now()
	if out, err := add(0).CombinedOutput(); err != nil {
		t.Fatalf("first add: %v %s", err, out)
	}
	full := time.Since(t0)
	r := rand.New(rand.NewPCG(9, 2026))
	mid := 0
	for i := 1; i <= rounds; i++ {
		delay := time.Duration((0.2 + 0.8*(float64(i-1)+r.Float64())/float64(rounds)) * float64(full))
		if landed, took := killAfter(t, add(i), delay); landed {
			mid++
		} else {
			full = took // the run was quicker than the first: aim within this one
		}
		if d, code, errOut := runDoctor(t, idx); code != 0 || !d.Healthy {
			t.Fatalf("round %d (kill after %v of %v): doctor: exit %d %s %s", i, delay, full, code, d.failing(), errOut)
		}
		out, errOut, code := runCLI(t, "--index", idx, "get", "doc.md")
		if code != 0 || !strings.HasPrefix(out, "# Doc\n\naddmarker") || !strings.HasSuffix(out, "herons.\n\n") {
			t.Fatalf("round %d: get after the kill: exit %d, %d bytes, %s", i, code, len(out), errOut)
		}
		var vl struct {
			Versions []struct {
				Hash string `json:"hash"`
				Kept bool   `json:"kept"`
			} `json:"versions"`
		}
		out, errOut, code = runCLI(t, "--index", idx, "--json", "versions", "doc.md")
		if code != 0 || json.Unmarshal([]byte(out), &vl) != nil || len(vl.Versions) == 0 {
			t.Fatalf("round %d: versions: exit %d %q %s", i, code, out, errOut)
		}
		for _, v := range vl.Versions {
			if !v.Kept {
				t.Fatalf("round %d: version %s was recorded before its content was kept", i, v.Hash)
			}
		}
		if _, errOut, code := runCLI(t, "--index", idx, "-q", "index"); code != 0 {
			t.Fatalf("round %d: index after the kill: %s", i, errOut)
		}
		var doc struct {
			Hash string `json:"hash"`
		}
		out, _, _ = runCLI(t, "--index", idx, "--json", "ls", "--stored")
		var l struct {
			Documents []struct {
				Hash string `json:"hash"`
			} `json:"documents"`
		}
		testenv.Must(t, json.Unmarshal([]byte(out), &l))
		if len(l.Documents) == 1 {
			doc.Hash = l.Documents[0].Hash
		}
		if last := vl.Versions[len(vl.Versions)-1].Hash; doc.Hash != last {
			t.Fatalf("round %d: after braid index the document has content %s, want the last recorded version %s", i, doc.Hash, last)
		}
	}
	t.Logf("survived %d kills of braid add, %d landed mid-run (full run %v)", rounds, mid, full)
	if mid == 0 {
		t.Fatal("no kill landed mid-run; the test proved nothing")
	}
}
