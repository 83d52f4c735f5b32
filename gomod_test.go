package braid_test

import (
	"bytes"
	"os"
	"os/exec"
	"testing"

	"github.com/braidsearch/braid/internal/testenv"
)

// go.mod and go.sum are tidy: a module the code imports is a direct
// requirement, so that go build -mod=mod leaves go.mod alone (issue 20,
// 8g). It runs offline; when the module cache lacks what tidy needs, it
// skips.
func TestGoModTidy(t *testing.T) {
	testenv.Slow(t, "runs the go command")
	gocmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command(gocmd, "mod", "tidy", "-diff")
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	switch err := cmd.Run(); {
	case err == nil:
	case stdout.Len() > 0:
		t.Errorf("go.mod or go.sum is not tidy; run go mod tidy:\n%s", stdout.String())
	default:
		t.Skipf("go mod tidy -diff could not run offline: %v: %s", err, stderr.String())
	}
}
