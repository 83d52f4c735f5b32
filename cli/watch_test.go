package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/braidsearch/braid/internal/testenv"
)

func TestIndexWatch(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	vault := vaultDir(t, 3, "alpha")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr testenv.Buffer
	cmd := exec.Command(self, "--index", idx, "index", "--watch", vault)
	cmd.Env = append(os.Environ(), "BRAID_TEST_MAIN=1")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			<-exited
		}
	}()
	waitFor := func(what string, want func() bool) {
		t.Helper()
		deadline := time.Now().Add(testenv.Guard)
		for !want() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within %v; stdout %q, stderr %q", what, testenv.Guard, stdout.String(), stderr.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitFor("watching", func() bool { return strings.Contains(stderr.String(), "watching for changes") })
	// The summary is written before that line, but stdout and stderr are
	// two pipes, each copied on its own: the summary may arrive later.
	waitFor("the first run's summary, 3 added", func() bool { return strings.Contains(stdout.String(), "3 added") })
	// The watches are set up just after the line: save the same note (at
	// once, as an editor does, so no run can read half of it) once a
	// second until a re-index shows.
	note := filepath.Join(vault, "fresh.md")
	deadline := time.Now().Add(testenv.Guard)
	for i := 0; !strings.Contains(stderr.String(), "re-indexed"); i++ {
		if time.Now().After(deadline) {
			t.Fatalf("no re-index within %v of writing %s; stderr %q", testenv.Guard, note, stderr.String())
		}
		if i%50 == 0 {
			tmp := filepath.Join(vault, ".fresh.md.swp")
			if err := os.WriteFile(tmp, []byte("# Fresh\n\nthe pangolin note\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, note); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	before := stdout.String()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("braid index --watch after Ctrl-C: %v, want exit 0; stderr %q", err, stderr.String())
		}
	case <-time.After(testenv.Guard):
		t.Fatalf("braid index --watch did not stop within %v of SIGINT; stderr %q", testenv.Guard, stderr.String())
	}
	if !strings.Contains(stderr.String(), "stopped watching") || stdout.String() != before {
		t.Errorf("after Ctrl-C: stderr %q, stdout grew from %q to %q; want a last line on stderr only", stderr.String(), before, stdout.String())
	}
	out, errOut, code := runCLI(t, "--index", idx, "search-keyword", "--paths-only", "pangolin")
	if code != 0 || !strings.Contains(out, "fresh.md") {
		t.Errorf("the watched file is not in the index: %q %q (exit %d)", out, errOut, code)
	}
}

func TestServeWatchRefusesReadOnly(t *testing.T) {
	_, errOut, code := runCLI(t, "--index", filepath.Join(t.TempDir(), "idx"), "serve", "--watch", "--read-only")
	if code != 1 || !strings.Contains(errOut, "--read-only") {
		t.Errorf("serve --watch --read-only: exit %d, %q; want exit 1 naming --read-only", code, errOut)
	}
}
