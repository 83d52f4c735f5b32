package model

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

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
	// The .ort name makes ONNX Runtime save its own flatbuffer format,
	// which loads in 70 ms where the same graph as ONNX protobuf took 99.
	return filepath.Join(dir, hex.EncodeToString(h.Sum(nil)[:12])+".ort")
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
// cache of optimised graphs when there is one. A session made from the
// cache runs on the cached file mapped into memory (mapped, which the
// caller unmaps after destroying the session): ONNX Runtime then uses the
// weights where they lie instead of copying them, which halves the load
// (40 ms instead of 68 for bge-small int8). The mapping is not Go memory,
// so ONNX Runtime may keep pointing into it.
func newSession(path string, inputs, outputs []string, opts *ort.SessionOptions) (s *ort.DynamicAdvancedSession, mapped []byte, err error) {
	cached := optimizedPath(path)
	if cached == "" {
		s, err = ort.NewDynamicAdvancedSession(path, inputs, outputs, opts)
		return s, nil, err
	}
	if s, mapped, err := fromCache(cached, inputs, outputs, opts); err == nil {
		return s, mapped, nil
	}
	// No cache file, or a damaged one: optimise afresh (over it).
	if err := fromBytes(opts, false); err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(filepath.Dir(cached), 0o755); err != nil {
		s, err = ort.NewDynamicAdvancedSession(path, inputs, outputs, opts)
		return s, nil, err
	}
	// ONNX Runtime writes the optimised graph while it creates the
	// session; it goes to a temporary name and is renamed into place only
	// once the session exists, so no reader sees half a file.
	tmp := fmt.Sprintf("%s.%d.tmp.ort", strings.TrimSuffix(cached, ".ort"), os.Getpid())
	if err := opts.SetOptimizedModelFilePath(tmp); err != nil {
		s, err = ort.NewDynamicAdvancedSession(path, inputs, outputs, opts)
		return s, nil, err
	}
	s, err = ort.NewDynamicAdvancedSession(path, inputs, outputs, opts)
	if err != nil {
		os.Remove(tmp)
		return nil, nil, err
	}
	if err := os.Rename(tmp, cached); err != nil {
		os.Remove(tmp)
	}
	evict(filepath.Dir(cached), maxCached)
	return s, nil, nil
}

// fromCache makes a session from the cached optimised graph at cached,
// mapped into memory.
func fromCache(cached string, inputs, outputs []string, opts *ort.SessionOptions) (*ort.DynamicAdvancedSession, []byte, error) {
	f, err := os.Open(cached)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return nil, nil, fmt.Errorf("model: optimised graph %s is empty", cached)
	}
	m, err := syscall.Mmap(int(f.Fd()), 0, int(st.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	if err := fromBytes(opts, true); err != nil {
		syscall.Munmap(m)
		return nil, nil, err
	}
	s, err := ort.NewDynamicAdvancedSessionWithONNXData(m, inputs, outputs, opts)
	if err != nil {
		syscall.Munmap(m)
		return nil, nil, err
	}
	os.Chtimes(cached, time.Now(), time.Now()) // used: evict keeps it
	return s, m, nil
}

// fromBytes sets opts for a session on an already optimised graph whose
// weights ONNX Runtime uses where they lie (on), or back for one that
// optimises a model file (off).
func fromBytes(opts *ort.SessionOptions, on bool) error {
	var level ort.GraphOptimizationLevel = ort.GraphOptimizationLevelEnableAll
	flag := "0"
	if on {
		level, flag = ort.GraphOptimizationLevelDisableAll, "1"
	}
	if err := opts.SetGraphOptimizationLevel(level); err != nil {
		return err
	}
	for _, key := range []string{"session.use_ort_model_bytes_directly", "session.use_ort_model_bytes_for_initializers"} {
		if err := opts.AddSessionConfigEntry(key, flag); err != nil {
			return err
		}
	}
	return nil
}

// maxCached is how many optimised graphs the cache keeps (the most
// recently used): each model in use has one, and a model that moved or
// changed leaves an old one behind.
const maxCached = 16

// evict removes all but the keep most recently used files of dir.
func evict(dir string, keep int) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type file struct {
		path string
		used time.Time
	}
	var files []file
	for _, e := range ents {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			files = append(files, file{filepath.Join(dir, e.Name()), info.ModTime()})
		}
	}
	if len(files) <= keep {
		return
	}
	slices.SortFunc(files, func(a, b file) int { return b.used.Compare(a.used) })
	for _, f := range files[keep:] {
		os.Remove(f.path)
	}
}
