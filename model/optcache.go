package model

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// Creating a session optimises the model's graph (fusing attention, layer
// norms and GELU, constant folding), which is most of what loading bge-small
// costs. The optimised graph is saved once, in the user's cache, and later
// sessions load it with optimisation off: a fresh braid search process then
// pays only for reading the file. The cache key covers everything the
// optimised graph depends on: the model file (path, size, modification
// time), the runtime's version and the CPU (some fusions pick kernels for
// its instruction set).

// OptimizedCacheEnv, set to "off", makes every session optimise its model
// afresh and save nothing.
const OptimizedCacheEnv = "BRAID_ORT_CACHE"

// optimizedDir is where optimised graphs are kept, "" when there is no
// user cache directory or the cache is turned off.
func optimizedDir() string {
	if os.Getenv(OptimizedCacheEnv) == "off" {
		return ""
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(cache, "braid", "optimized")
}

// optimizedPath is the cache file for the model at path, "" when it cannot
// be named.
func optimizedPath(path string) string {
	dir := optimizedDir()
	if dir == "" {
		return ""
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	st, err := os.Stat(abs)
	if err != nil {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%d\x00%s\x00%s\x00%s", abs, st.Size(), st.ModTime().UnixNano(), ort.GetVersion(), runtime.GOARCH, cpuModel())
	return filepath.Join(dir, hex.EncodeToString(h.Sum(nil)[:12])+".onnx")
}

var cpuOnce = sync.OnceValue(func() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var model, flags string
	for sc.Scan() && (model == "" || flags == "") {
		k, v, ok := strings.Cut(sc.Text(), ":")
		switch k = strings.TrimSpace(k); {
		case !ok:
		case k == "model name" && model == "":
			model = strings.TrimSpace(v)
		case k == "flags" && flags == "":
			flags = strings.TrimSpace(v)
		}
	}
	return model + "\x00" + flags
})

func cpuModel() string { return cpuOnce() }

// newSession creates the session for the model at path with opts (which
// set threads and the like, and full graph optimisation), through the
// cache of optimised graphs when there is one.
func newSession(path string, inputs, outputs []string, opts *ort.SessionOptions) (*ort.DynamicAdvancedSession, error) {
	cached := optimizedPath(path)
	if cached == "" {
		return ort.NewDynamicAdvancedSession(path, inputs, outputs, opts)
	}
	if _, err := os.Stat(cached); err == nil {
		if err := opts.SetGraphOptimizationLevel(ort.GraphOptimizationLevelDisableAll); err == nil {
			if s, err := ort.NewDynamicAdvancedSession(cached, inputs, outputs, opts); err == nil {
				return s, nil
			}
		}
		// A damaged or unreadable cache file: optimise afresh over it.
		if err := opts.SetGraphOptimizationLevel(ort.GraphOptimizationLevelEnableAll); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(filepath.Dir(cached), 0o755); err != nil {
		return ort.NewDynamicAdvancedSession(path, inputs, outputs, opts)
	}
	// ONNX Runtime writes the optimised graph while it creates the
	// session; it goes to a temporary name and is renamed into place only
	// once the session exists, so no reader sees half a file.
	tmp := fmt.Sprintf("%s.%d.tmp", cached, os.Getpid())
	if err := opts.SetOptimizedModelFilePath(tmp); err != nil {
		return ort.NewDynamicAdvancedSession(path, inputs, outputs, opts)
	}
	s, err := ort.NewDynamicAdvancedSession(path, inputs, outputs, opts)
	if err != nil {
		os.Remove(tmp)
		return nil, err
	}
	if err := os.Rename(tmp, cached); err != nil {
		os.Remove(tmp)
	}
	return s, nil
}
