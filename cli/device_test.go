package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/internal/modeltest"
)

// TestDeviceFlag: --device reaches the models. With the CPU build of ONNX
// Runtime, auto runs on the CPU without a word on stderr while stats and
// doctor say where and why; cuda fails in one line naming the fix; a name
// that is no device fails before anything loads.
func TestDeviceFlag(t *testing.T) {
	t.Setenv("BRAID_ORT_LIB", modeltest.NeedRuntime(t))
	t.Setenv("BRAID_MODEL", modeltest.TinyDir())
	t.Setenv("BRAID_DEVICE", "")
	index := filepath.Join(t.TempDir(), "idx")
	if _, errOut, code := runCLI(t, "--index", index, "--reranker", "none", "index", vaultDir(t, 3, "kestrel")); code != 0 {
		t.Fatalf("index: exit %d: %s", code, errOut)
	}

	out, errOut, code := runCLI(t, "--index", index, "--reranker", "none", "search", "kestrel")
	if code != 0 || !strings.Contains(out, "Note") {
		t.Fatalf("search on auto: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	cpuBuild := !strings.Contains(modeltest.RuntimePath(), "onnxruntime-gpu")
	if cpuBuild && strings.Contains(errOut, "models run on") {
		t.Errorf("search on auto with the CPU build said %q; want nothing said (no choice was made)", errOut)
	}

	out, _, code = runCLI(t, "--index", index, "--reranker", "none", "stats")
	if code != 0 || !strings.Contains(out, "models run on cpu (auto: ") {
		t.Errorf("stats: exit %d, stdout %q; want the device and why", code, out)
	}
	out, _, _ = runCLI(t, "--index", index, "--reranker", "none", "doctor")
	if !strings.Contains(out, "device") || !strings.Contains(out, "cpu (auto: ") {
		t.Errorf("doctor: %q; want a device check", out)
	}

	_, errOut, code = runCLI(t, "--index", index, "--reranker", "none", "--device", "cuda", "search", "kestrel")
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if code == 0 || len(lines) != 1 || !strings.Contains(errOut, "CUDA unavailable") {
		t.Errorf("search on cuda: exit %d, stderr %q; want one line saying why", code, errOut)
	} else if cpuBuild && !strings.Contains(errOut, "make ort-gpu") {
		t.Errorf("search on cuda with the CPU build: %q; want the fix, make ort-gpu", errOut)
	}

	_, errOut, code = runCLI(t, "--index", index, "--device", "tpu", "search", "kestrel")
	if code == 0 || !strings.Contains(errOut, `--device "tpu"`) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
		t.Errorf("--device tpu: exit %d, stderr %q; want one line naming the flag", code, errOut)
	}

	out, errOut, code = runCLI(t, "--index", index, "--reranker", "none", "--device", "cpu", "search", "kestrel")
	if code != 0 || !strings.Contains(out, "Note") || strings.Contains(errOut, "models run on") {
		t.Errorf("search on cpu: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
