package model

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// MinRuntimeVersion is the oldest ONNX Runtime release braid can load:
// onnxruntime_go v1.27.0 asks the library for C API version 24.
const MinRuntimeVersion = "1.24"

// runtimeFix tells a user how to get a usable ONNX Runtime, in terms of
// the option that names it (a front end says its own flag).
const runtimeFix = "set Set.ORTLib to libonnxruntime.so >= " + MinRuntimeVersion

var (
	// ErrNoRuntime means no ONNX Runtime shared library was found.
	ErrNoRuntime = errors.New("model: ONNX Runtime library not found")
	// ErrRuntimeTooOld means the library loaded but lacks the C API
	// version braid needs (ONNX Runtime < 1.24).
	ErrRuntimeTooOld = errors.New("model: ONNX Runtime library too old")
	// ErrNoInit means a model was loaded before InitRuntime succeeded.
	ErrNoInit = errors.New("model: ONNX Runtime not initialized; call InitRuntime first")
)

// EnvRuntimeLib names the environment variable the braid command reads
// into Set.ORTLib (its --ort-lib flag).
const EnvRuntimeLib = "BRAID_ORT_LIB"

// runtimeCandidates lists, in order, the places FindRuntime looks when
// no explicit path names the library, for this executable and user.
func runtimeCandidates() []string {
	var exeDir, cacheDir string
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		exeDir = filepath.Dir(exe)
	}
	if cache, err := os.UserCacheDir(); err == nil {
		cacheDir = cache
	}
	return candidates(exeDir, cacheDir)
}

// candidates lists the places to look for the library, in order, for an
// executable in exeDir and the user cache directory cacheDir (either ""
// when unknown).
func candidates(exeDir, cacheDir string) []string {
	var c []string
	if exeDir != "" {
		c = append(c,
			filepath.Join(exeDir, "..", ".tools", "onnxruntime", "libonnxruntime.so.1"),
			filepath.Join(exeDir, "..", "lib", "braid", "libonnxruntime.so.1"),
			filepath.Join(exeDir, "libonnxruntime.so.1"))
	}
	if cacheDir != "" {
		c = append(c, filepath.Join(cacheDir, "braid", "onnxruntime", "libonnxruntime.so.1"))
	}
	for _, dir := range []string{"/usr/local/lib", "/usr/lib"} {
		c = append(c, filepath.Join(dir, "libonnxruntime.so"), filepath.Join(dir, "libonnxruntime.so.1"))
	}
	return append(c, "/opt/homebrew/lib/libonnxruntime.dylib")
}

// FindRuntime returns the path of the ONNX Runtime shared library to load.
// It takes, in order: explicit (the --ort-lib flag or BRAID_ORT_LIB, which
// the command reads) when not empty; the first existing file among
// <executable dir>/../.tools/onnxruntime/libonnxruntime.so.1 (a binary built
// into bin/ of a braid checkout after `make ort`),
// <executable dir>/../lib/braid/libonnxruntime.so.1 (where `make install`
// puts it beside PREFIX/bin/braid),
// <executable dir>/libonnxruntime.so.1,
// <user cache dir>/braid/onnxruntime/libonnxruntime.so.1,
// /usr/local/lib and /usr/lib (libonnxruntime.so, libonnxruntime.so.1) and
// /opt/homebrew/lib/libonnxruntime.dylib. The executable's directory is
// that of its real path, symbolic links resolved.
//
// An explicit path that names no file is an error, not a reason to look
// elsewhere. When nothing is found the error wraps ErrNoRuntime and lists
// where FindRuntime looked and how to fix it.
func FindRuntime(explicit string) (string, error) {
	return findRuntime(explicit, runtimeCandidates())
}

// findRuntime is FindRuntime looking through cands.
func findRuntime(explicit string, cands []string) (string, error) {
	if explicit != "" {
		return existing(explicit, "Set.ORTLib")
	}
	for _, p := range cands {
		if isFile(p) {
			return filepath.Clean(p), nil
		}
	}
	looked := make([]string, len(cands))
	for i, p := range cands {
		looked[i] = filepath.Clean(p)
	}
	return "", fmt.Errorf("%w (looked in %s, and Set.ORTLib names none); %s",
		ErrNoRuntime, strings.Join(looked, ", "), runtimeFix)
}

// FindRuntimeFor is FindRuntime for models that run on d: for auto and
// cuda it looks first for the GPU build `make ort-gpu` installs,
// <executable dir>/../.tools/onnxruntime-gpu/libonnxruntime.so.1 and
// <user cache dir>/braid/onnxruntime-gpu/libonnxruntime.so.1, then where
// FindRuntime looks. An explicit path wins, whatever the device.
func FindRuntimeFor(explicit string, d Device) (string, error) {
	if explicit == "" && d.Kind != DeviceCPU {
		for _, p := range gpuRuntimeCandidates() {
			if isFile(p) {
				return filepath.Clean(p), nil
			}
		}
	}
	return FindRuntime(explicit)
}

// gpuRuntimeCandidates lists where a GPU build of the runtime is looked
// for, in order.
func gpuRuntimeCandidates() []string {
	var c []string
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		c = append(c, filepath.Join(filepath.Dir(exe), "..", ".tools", "onnxruntime-gpu", "libonnxruntime.so.1"))
	}
	if cache, err := os.UserCacheDir(); err == nil {
		c = append(c, filepath.Join(cache, "braid", "onnxruntime-gpu", "libonnxruntime.so.1"))
	}
	return c
}

// existing returns path when it is a file, else an ErrNoRuntime error
// that names where the path came from.
func existing(path, from string) (string, error) {
	if !isFile(path) {
		return "", fmt.Errorf("%w: %s %s is not a file; %s", ErrNoRuntime, from, path, runtimeFix)
	}
	return path, nil
}

func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// rt is the process-wide runtime state. ONNX Runtime has one environment
// per process, so InitRuntime is global too.
var rt struct {
	mu   sync.Mutex
	ok   bool   // InitRuntime succeeded
	path string // the library it loaded
}

// InitRuntime loads the ONNX Runtime shared library at path and creates the
// process-wide ONNX Runtime environment every model shares. It is safe to
// call from several goroutines and more than once: after a success later
// calls return nil without loading anything (a call naming a different
// library returns an error, since one process holds one runtime), and after
// a failure a later call may try again, with the same or another path.
// A library older than 1.24 gives an error wrapping ErrRuntimeTooOld.
func InitRuntime(path string) error {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.ok {
		if path != "" && rt.path != "" && !samePath(path, rt.path) {
			return fmt.Errorf("model: ONNX Runtime already loaded from %s, cannot switch to %s in the same process", rt.path, path)
		}
		return nil
	}
	if ort.IsInitialized() {
		// Another package of this process set the environment up.
		rt.ok, rt.path = true, path
		return nil
	}
	if path == "" {
		return fmt.Errorf("%w: no library path given; %s", ErrNoRuntime, runtimeFix)
	}
	if !isFile(path) {
		return fmt.Errorf("%w: %s is not a file; %s", ErrNoRuntime, path, runtimeFix)
	}
	ort.SetSharedLibraryPath(path)
	if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
		// onnxruntime_go reports a library whose OrtApiBase has no API
		// version 24 as "Error setting ORT API base: 2".
		if strings.Contains(err.Error(), "ORT API base: 2") {
			return fmt.Errorf("%w: %s does not provide ONNX Runtime C API 24, need ONNX Runtime >= %s; %s",
				ErrRuntimeTooOld, path, MinRuntimeVersion, runtimeFix)
		}
		return fmt.Errorf("model: load ONNX Runtime %s: %w; %s", path, err, runtimeFix)
	}
	rt.ok, rt.path = true, path
	return nil
}

// samePath reports whether a and b name the same file.
func samePath(a, b string) bool {
	if a == b {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// RuntimeVersion returns the loaded ONNX Runtime's version, e.g. "1.24.3",
// or "" before InitRuntime succeeded.
func RuntimeVersion() string {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if !rt.ok || !ort.IsInitialized() {
		return ""
	}
	return ort.GetVersion()
}

// RuntimePath returns the library InitRuntime loaded, or "" before it succeeded.
func RuntimePath() string {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.path
}

// checkRuntime returns ErrNoInit unless InitRuntime succeeded.
func checkRuntime() error {
	if !ort.IsInitialized() {
		return ErrNoInit
	}
	return nil
}
