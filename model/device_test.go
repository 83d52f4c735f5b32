package model

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseDevice(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     Device
		wantErr  bool
	}{
		{name: "empty is auto", in: "", want: Device{}},
		{name: "auto", in: "auto", want: Device{Kind: DeviceAuto}},
		{name: "cpu", in: "cpu", want: Device{Kind: DeviceCPU}},
		{name: "case and space", in: " CPU ", want: Device{Kind: DeviceCPU}},
		{name: "cuda is device 0", in: "cuda", want: Device{Kind: DeviceCUDA}},
		{name: "cuda:0", in: "cuda:0", want: Device{Kind: DeviceCUDA}},
		{name: "cuda:3", in: "cuda:3", want: Device{Kind: DeviceCUDA, ID: 3}},
		{name: "gpu is cuda", in: "gpu", want: Device{Kind: DeviceCUDA}},
		{name: "negative ordinal", in: "cuda:-1", wantErr: true},
		{name: "no ordinal", in: "cuda:", wantErr: true},
		{name: "not a number", in: "cuda:x", wantErr: true},
		{name: "huge ordinal", in: "cuda:99999999999999999999", wantErr: true},
		{name: "another provider", in: "rocm", wantErr: true},
		{name: "cpu with ordinal", in: "cpu:0", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseDevice(tc.in)
			if tc.wantErr {
				if !errors.Is(err, ErrBadDevice) || !strings.Contains(err.Error(), "want auto, cpu, cuda or cuda:N") {
					t.Fatalf("ParseDevice(%q) = %v, %v; want ErrBadDevice saying what it takes", tc.in, got, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseDevice(%q): %v", tc.in, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseDevice(%q) (-want +got):\n%s", tc.in, diff)
			}
			if back, err := ParseDevice(got.String()); err != nil || back != got {
				t.Errorf("ParseDevice(%q.String() = %q) = %v, %v; want it back", tc.in, got.String(), back, err)
			}
		})
	}
}

// resetProbes forgets the cached CUDA probes, so a test sees whether its
// calls probe.
func resetProbes() {
	probes.mu.Lock()
	probes.got = nil
	probes.mu.Unlock()
}

func probed() int {
	probes.mu.Lock()
	defer probes.mu.Unlock()
	return len(probes.got)
}

// TestDeviceChoice runs against whichever runtime the tests load: with the
// CPU build (make ort) auto takes the CPU, saying the build has no CUDA
// execution provider, and cuda fails in one line naming the fix; on a
// machine where CUDA works both take the GPU.
func TestDeviceChoice(t *testing.T) {
	needRuntime(t)
	resetProbes()
	t.Cleanup(resetProbes)

	cpu, err := Choose(Device{Kind: DeviceCPU})
	if err != nil || cpu.Device.Kind != DeviceCPU {
		t.Fatalf("Choose(cpu) = %v, %v; want cpu", cpu, err)
	}
	if n := probed(); n != 0 {
		t.Errorf("Choose(cpu) probed CUDA (%d probes); want no provider tried", n)
	}
	e, err := LoadEmbedder(context.Background(), "testdata/tiny-encoder", tinySpec(), Config{Threads: 1, Device: Device{Kind: DeviceCPU}})
	if err != nil {
		t.Fatalf("LoadEmbedder on cpu: %v", err)
	}
	defer e.Close()
	if got := e.Device(); got.Device.Kind != DeviceCPU {
		t.Errorf("Embedder.Device() = %v, want cpu", got)
	}
	if n := probed(); n != 0 {
		t.Errorf("a session on cpu probed CUDA (%d probes); want no provider tried", n)
	}

	auto, err := Choose(Device{})
	if err != nil {
		t.Fatalf("Choose(auto): %v", err)
	}
	t.Logf("auto: %s", auto)
	_, cudaErr := Choose(Device{Kind: DeviceCUDA})
	switch auto.Device.Kind {
	case DeviceCPU:
		if auto.Reason == "" || !strings.HasPrefix(auto.String(), "cpu (auto: ") {
			t.Errorf("auto chose %q; want cpu with the reason", auto)
		}
		if !errors.Is(cudaErr, ErrNoGPU) {
			t.Fatalf("Choose(cuda) = %v, want ErrNoGPU once auto fell back", cudaErr)
		}
		msg := cudaErr.Error()
		if strings.Contains(msg, "\n") || !strings.Contains(msg, auto.Reason) || !strings.Contains(msg, "Set.ORTLib") && !strings.Contains(msg, "Set.Device") {
			t.Errorf("Choose(cuda) error %q: want one line with auto's reason %q and the fix", msg, auto.Reason)
		}
		if strings.Contains(msg, "CPU build") && !strings.Contains(msg, RuntimePath()) {
			t.Errorf("Choose(cuda) error %q does not name the runtime %s", msg, RuntimePath())
		}
		t.Logf("cuda: %v", cudaErr)
	case DeviceCUDA:
		if cudaErr != nil {
			t.Errorf("auto chose %s but Choose(cuda) = %v", auto, cudaErr)
		}
	default:
		t.Fatalf("auto chose %v", auto.Device)
	}

	// Load says the same as Choose, and a cuda that cannot run fails the
	// load instead of leaving search lexical.
	set := Set{Embedder: "testdata/tiny-encoder", NoReranker: true, Threads: 1, ORTLib: RuntimePath(),
		Resolve: func(string, Kind) (string, Spec, error) { return "testdata/tiny-encoder", tinySpec(), nil }}
	l, err := Load(context.Background(), set)
	if err != nil {
		t.Fatalf("Load(auto): %v", err)
	}
	if l.Device != auto.String() {
		t.Logf("NoVectors: %s", l.NoVectors)
		t.Errorf("Loaded.Device = %q, want %q", l.Device, auto.String())
	}
	l.Close()
	set.Device = "cuda"
	l, err = Load(context.Background(), set)
	if (err != nil) != (cudaErr != nil) || err != nil && !errors.Is(err, ErrNoGPU) {
		t.Errorf("Load(cuda) = %v; want the error Choose gave (%v)", err, cudaErr)
	}
	if l != nil {
		l.Close()
	}
	set.Device = "tpu"
	if _, err := Load(context.Background(), set); !errors.Is(err, ErrBadDevice) {
		t.Errorf("Load(tpu) = %v, want ErrBadDevice", err)
	}

	var dev *Check
	checks := Checks(Set{Embedder: "testdata/tiny-encoder", ORTLib: RuntimePath(), Reranker: "none"})
	for i := range checks {
		if checks[i].Name == "device" {
			dev = &checks[i]
		}
	}
	if dev == nil || dev.Detail != auto.String() || dev.Warning {
		t.Errorf("Checks' device = %+v, want %q", dev, auto.String())
	}
	checks = Checks(Set{Embedder: "testdata/tiny-encoder", ORTLib: RuntimePath(), Reranker: "none", Device: "cuda"})
	for _, c := range checks {
		if c.Name == "device" && (c.Warning != (cudaErr != nil)) {
			t.Errorf("Checks(cuda) device = %+v; want a warning exactly when cuda cannot run", c)
		}
	}
}

func TestBatchFor(t *testing.T) {
	cpu, cuda := Device{Kind: DeviceCPU}, Device{Kind: DeviceCUDA}
	for _, tc := range []struct {
		name          string
		cfg           Config
		dev           Device
		batch, budget int
	}{
		{"cpu defaults", Config{}, cpu, DefaultBatchSize, DefaultTokenBudget},
		{"cpu cross-encoder", Config{cpuBatch: CrossBatch, cpuBudget: CrossTokenBudget}, cpu, CrossBatch, CrossTokenBudget},
		{"cuda defaults", Config{cpuBatch: CrossBatch, cpuBudget: CrossTokenBudget}, cuda, GPUBatchSize, GPUTokenBudget},
		{"explicit wins on cuda", Config{BatchSize: 4, TokenBudget: 100}, cuda, 4, 100},
		{"no budget", Config{TokenBudget: -1}, cuda, GPUBatchSize, 0},
	} {
		batch, budget := batchFor(tc.cfg, tc.dev)
		if batch != tc.batch || budget != tc.budget {
			t.Errorf("%s: batchFor = %d, %d; want %d, %d", tc.name, batch, budget, tc.batch, tc.budget)
		}
	}
}

func TestMissingLib(t *testing.T) {
	for _, tc := range []struct{ msg, want string }{
		{"Failed to load library libonnxruntime_providers_cuda.so with error: libcudnn.so.9: cannot open shared object file: No such file or directory", "libcudnn.so.9"},
		{"/x/libonnxruntime_providers_shared.so: cannot open shared object file: No such file or directory", "libonnxruntime_providers_shared.so"},
		{"CUDA failure 100: no CUDA-capable device is detected", ""},
	} {
		if got := missingLib(errors.New(tc.msg)); got != tc.want {
			t.Errorf("missingLib(%q) = %q, want %q", tc.msg, got, tc.want)
		}
	}
}

// gpuRuntime is the GPU build `make ort-gpu` installs, "" when absent.
func gpuRuntime() string {
	p, err := filepath.Abs("../.tools/onnxruntime-gpu/libonnxruntime.so.1")
	if err != nil || !isFile(p) {
		return ""
	}
	return p
}

// TestGPURuntime loads the GPU build of ONNX Runtime (make ort-gpu) in a
// child process each (one runtime per process): whole, where on a machine
// without a GPU the provider's libraries load and the device is missing;
// and without libcudnn.so.9, where the provider does not load. Either way
// auto runs the tiny encoder on the CPU and says why, and cuda fails in
// one line.
func TestGPURuntime(t *testing.T) {
	if c := os.Getenv("BRAID_TEST_GPU_CHILD"); c != "" {
		gpuChild(t, c)
		return
	}
	lib := gpuRuntime()
	if lib == "" {
		t.Skip("no GPU build of ONNX Runtime: make ort-gpu installs one in .tools/onnxruntime-gpu")
	}
	// The same libraries but cuDNN, linked into a directory of their own.
	partial := t.TempDir()
	ents, err := os.ReadDir(filepath.Dir(lib))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != "libcudnn.so.9" {
			if err := os.Symlink(filepath.Join(filepath.Dir(lib), e.Name()), filepath.Join(partial, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, tc := range []struct{ name, lib, reason string }{
		{"whole", lib, "no CUDA device 0"},
		{"without cudnn", filepath.Join(partial, "libonnxruntime.so.1"), "libcudnn.so.9 is missing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestGPURuntime$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), "BRAID_TEST_GPU_CHILD="+tc.lib, "BRAID_TEST_GPU_REASON="+tc.reason)
			out, err := cmd.CombinedOutput()
			t.Logf("child:\n%s", out)
			if err != nil {
				t.Fatalf("child failed: %v", err)
			}
		})
	}
}

func gpuChild(t *testing.T, lib string) {
	if err := InitRuntime(lib); err != nil {
		t.Fatalf("InitRuntime(%s): %v", lib, err)
	}
	auto, err := Choose(Device{})
	if err != nil {
		t.Fatalf("Choose(auto): %v", err)
	}
	t.Logf("ONNX Runtime %s, auto: %s", RuntimeVersion(), auto)
	if auto.Device.Kind == DeviceCUDA {
		t.Skip("this machine has a CUDA device: scripts/gpu-check.sh is the test for it")
	}
	want := os.Getenv("BRAID_TEST_GPU_REASON")
	if !strings.Contains(auto.Reason, want) {
		t.Errorf("auto's reason %q does not say %q", auto.Reason, want)
	}
	_, err = Choose(Device{Kind: DeviceCUDA})
	if !errors.Is(err, ErrNoGPU) || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), want) {
		t.Errorf("Choose(cuda) = %v; want one line wrapping ErrNoGPU that says %q", err, want)
	}
	t.Logf("cuda: %v", err)
	e, err := LoadEmbedder(context.Background(), "testdata/tiny-encoder", tinySpec(), Config{Threads: 1})
	if err != nil {
		t.Fatalf("LoadEmbedder(auto): %v", err)
	}
	defer e.Close()
	if e.Device().Device.Kind != DeviceCPU {
		t.Errorf("Embedder.Device() = %v, want cpu", e.Device())
	}
	if _, err := e.Embed(context.Background(), []string{"a note about search"}, false); err != nil {
		t.Errorf("Embed on the GPU build's CPU: %v", err)
	}
	if _, err := LoadEmbedder(context.Background(), "testdata/tiny-encoder", tinySpec(), Config{Threads: 1, Device: Device{Kind: DeviceCUDA}}); !errors.Is(err, ErrNoGPU) {
		t.Errorf("LoadEmbedder(cuda) = %v, want ErrNoGPU", err)
	}
}
