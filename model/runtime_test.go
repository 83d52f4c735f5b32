package model

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// repoRuntime is where `make ort` (scripts/install-ort.sh) puts the
// library, seen from this package's directory.
const repoRuntime = "../.tools/onnxruntime/libonnxruntime.so.1"

// runtimePath finds the ONNX Runtime library for tests: FindRuntime, then,
// unless BRAID_ORT_LIB names one, the repository's .tools copy. It returns
// "" when there is none.
func runtimePath() string {
	if p, err := FindRuntime(os.Getenv(EnvRuntimeLib)); err == nil {
		return p
	}
	if os.Getenv(EnvRuntimeLib) == "" && isFile(repoRuntime) {
		return repoRuntime
	}
	return ""
}

// needRuntime initialises ONNX Runtime or skips the test when the library
// is absent; with BRAID_REQUIRE_ORT=1 (as in CI) its absence fails the test.
func needRuntime(tb testing.TB) {
	tb.Helper()
	p := runtimePath()
	if p == "" {
		if os.Getenv("BRAID_REQUIRE_ORT") == "1" {
			_, err := FindRuntime("")
			tb.Fatalf("BRAID_REQUIRE_ORT=1 but %v", err)
		}
		tb.Skip("no ONNX Runtime: run `make ort` or set BRAID_ORT_LIB")
	}
	if err := InitRuntime(p); err != nil {
		tb.Fatalf("InitRuntime(%s): %v", p, err)
	}
}

func touch(t *testing.T, path string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("not a library"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestFindRuntime(t *testing.T) {
	dir := t.TempDir()
	explicit := touch(t, filepath.Join(dir, "explicit", "libonnxruntime.so.1"))
	missing := filepath.Join(dir, "missing", "libonnxruntime.so.1")
	cache := filepath.Join(dir, "cache")
	// Keep the user cache dir inside the test on every platform.
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", filepath.Join(dir, "home"))
	t.Setenv("LocalAppData", cache)

	tests := []struct {
		name     string
		explicit string
		want     string
		wantErr  []string // substrings of the error; nil means success
	}{
		{name: "explicit", explicit: explicit, want: explicit},
		{name: "explicit missing is an error", explicit: missing,
			wantErr: []string{"Set.ORTLib " + missing, "set Set.ORTLib to libonnxruntime.so >= 1.24"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := FindRuntime(tc.explicit)
			if tc.wantErr == nil {
				if err != nil || got != tc.want {
					t.Fatalf("FindRuntime(%q) = %q, %v; want %q", tc.explicit, got, err, tc.want)
				}
				return
			}
			if !errors.Is(err, ErrNoRuntime) {
				t.Fatalf("FindRuntime(%q) = %q, %v; want ErrNoRuntime", tc.explicit, got, err)
			}
			for _, s := range tc.wantErr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
		})
	}

	t.Run("user cache dir", func(t *testing.T) {
		if p := firstSystemRuntime(dir); p != "" {
			t.Skipf("%s exists on this machine and comes first", p)
		}
		want := touch(t, filepath.Join(cache, "braid", "onnxruntime", "libonnxruntime.so.1"))
		defer os.Remove(want)
		if got, err := FindRuntime(""); err != nil || got != want {
			t.Fatalf("FindRuntime(\"\") = %q, %v; want %q", got, err, want)
		}
	})

	t.Run("nothing found", func(t *testing.T) {
		if p := firstSystemRuntime(dir); p != "" {
			t.Skipf("%s exists on this machine", p)
		}
		_, err := FindRuntime("")
		if !errors.Is(err, ErrNoRuntime) {
			t.Fatalf("FindRuntime(\"\") error = %v, want ErrNoRuntime", err)
		}
		for _, s := range []string{"set Set.ORTLib to", "Set.ORTLib names none", "1.24", "/usr/lib/libonnxruntime.so", filepath.Join(cache, "braid", "onnxruntime")} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("error %q does not mention %q", err, s)
			}
		}
	})
}

// TestFindRuntimeOrder checks the order of the places FindRuntime looks
// in, for a binary in PREFIX/bin and a user cache directory, both in a
// temporary directory: each case has the libraries listed and no others.
func TestFindRuntimeOrder(t *testing.T) {
	const lib = "libonnxruntime.so.1"
	places := map[string]string{
		"checkout": filepath.Join(".tools", "onnxruntime", lib), // make ort, binary in bin/
		"install":  filepath.Join("lib", "braid", lib),          // make install
		"beside":   filepath.Join("bin", lib),
		"cache":    filepath.Join("cache", "braid", "onnxruntime", lib),
		"explicit": filepath.Join("elsewhere", lib),
	}
	tests := []struct {
		name     string
		present  []string // places holding a library
		explicit bool     // pass the explicit place as --ort-lib would
		want     string   // the place found; "" means none
	}{
		{name: "explicit wins over all", present: []string{"explicit", "checkout", "install", "beside", "cache"}, explicit: true, want: "explicit"},
		{name: "checkout first", present: []string{"checkout", "install", "beside", "cache"}, want: "checkout"},
		{name: "installed beside PREFIX/bin", present: []string{"install", "beside", "cache"}, want: "install"},
		{name: "next to the executable", present: []string{"beside", "cache"}, want: "beside"},
		{name: "user cache", present: []string{"cache"}, want: "cache"},
		{name: "nothing", present: nil, want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, p := range tc.present {
				touch(t, filepath.Join(dir, places[p]))
			}
			var cands []string // the places in this test's directory, in FindRuntime's order
			for _, c := range candidates(filepath.Join(dir, "bin"), filepath.Join(dir, "cache")) {
				if strings.HasPrefix(c, dir) {
					cands = append(cands, c)
				}
			}
			explicit := ""
			if tc.explicit {
				explicit = filepath.Join(dir, places["explicit"])
			}
			got, err := findRuntime(explicit, cands)
			if tc.want == "" {
				if !errors.Is(err, ErrNoRuntime) || !strings.Contains(err.Error(), filepath.Join(dir, places["install"])) {
					t.Fatalf("findRuntime = %q, %v; want ErrNoRuntime naming %s", got, err, places["install"])
				}
				return
			}
			if want := filepath.Join(dir, places[tc.want]); err != nil || got != want {
				t.Fatalf("findRuntime = %q, %v; want %q", got, err, want)
			}
		})
	}
}

// firstSystemRuntime returns the first existing candidate outside the
// test's own directory, or "".
func firstSystemRuntime(testDir string) string {
	for _, p := range runtimeCandidates() {
		if isFile(p) && !strings.HasPrefix(p, testDir) {
			return p
		}
	}
	return ""
}

// fakeOldRuntime is a library that exports OrtGetApiBase, like ONNX Runtime,
// but offers no C API version, as a release older than braid needs does.
const fakeOldRuntime = `
#include <stddef.h>
typedef struct {
	const void *(*GetApi)(unsigned int version);
	const char *(*GetVersionString)(void);
} OrtApiBase;
static const void *get_api(unsigned int version) { (void)version; return NULL; }
static const char *version_string(void) { return "1.23.2"; }
static const OrtApiBase base = {get_api, version_string};
const OrtApiBase *OrtGetApiBase(void) { return &base; }
`

// TestInitRuntime runs its checks in a child process, since a process
// loads ONNX Runtime once and other tests here load the real library.
func TestInitRuntime(t *testing.T) {
	if os.Getenv("BRAID_TEST_INIT_CHILD") != "" {
		initRuntimeChild(t)
		return
	}
	dir := t.TempDir()
	env := append(os.Environ(), "BRAID_TEST_INIT_CHILD=1", "BRAID_TEST_DIR="+dir)
	if gcc, err := exec.LookPath("gcc"); err == nil {
		src := filepath.Join(dir, "fake.c")
		if err := os.WriteFile(src, []byte(fakeOldRuntime), 0o644); err != nil {
			t.Fatal(err)
		}
		lib := filepath.Join(dir, "libfakeort.so")
		if out, err := exec.Command(gcc, "-shared", "-fPIC", "-o", lib, src).CombinedOutput(); err != nil {
			t.Logf("cannot build a fake old runtime, skipping that case: %v\n%s", err, out)
		} else {
			env = append(env, "BRAID_TEST_OLD_ORT="+lib)
		}
	}
	if p := runtimePath(); p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		env = append(env, "BRAID_TEST_REAL_ORT="+abs)
	} else if os.Getenv("BRAID_REQUIRE_ORT") == "1" {
		t.Fatal("BRAID_REQUIRE_ORT=1 but no ONNX Runtime found")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestInitRuntime$", "-test.v", "-test.count=1")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	t.Logf("child:\n%s", out)
	if err != nil {
		t.Fatalf("child failed: %v", err)
	}
}

func initRuntimeChild(t *testing.T) {
	dir := os.Getenv("BRAID_TEST_DIR")
	if RuntimeVersion() != "" || RuntimePath() != "" {
		t.Fatalf("before InitRuntime: version %q path %q, want empty", RuntimeVersion(), RuntimePath())
	}

	missing := filepath.Join(dir, "nope", "libonnxruntime.so.1")
	if err := InitRuntime(missing); !errors.Is(err, ErrNoRuntime) || !strings.Contains(err.Error(), missing) {
		t.Errorf("InitRuntime(missing) = %v, want ErrNoRuntime naming the path", err)
	}
	garbage := touch(t, filepath.Join(dir, "garbage.so"))
	if err := InitRuntime(garbage); err == nil || !strings.Contains(err.Error(), "garbage.so") || !strings.Contains(err.Error(), "set Set.ORTLib to") {
		t.Errorf("InitRuntime(garbage) = %v, want a load error naming the file and the fix", err)
	}
	if old := os.Getenv("BRAID_TEST_OLD_ORT"); old != "" {
		err := InitRuntime(old)
		if !errors.Is(err, ErrRuntimeTooOld) {
			t.Errorf("InitRuntime(old) = %v, want ErrRuntimeTooOld", err)
		} else {
			t.Logf("old library refused: %v", err)
			for _, s := range []string{">= 1.24", "set Set.ORTLib to", "C API 24"} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
		}
	}
	if _, err := LoadEmbedder(context.Background(), "testdata/tiny-encoder", tinySpec(), Config{}); !errors.Is(err, ErrNoInit) {
		t.Errorf("LoadEmbedder before InitRuntime = %v, want ErrNoInit", err)
	}

	real := os.Getenv("BRAID_TEST_REAL_ORT")
	if real == "" {
		t.Log("no real ONNX Runtime; the retry cases are skipped")
		return
	}
	// A failure leaves the way open for another try.
	if err := InitRuntime(real); err != nil {
		t.Fatalf("InitRuntime(real) after failures = %v", err)
	}
	if err := InitRuntime(real); err != nil {
		t.Errorf("second InitRuntime(real) = %v, want nil", err)
	}
	if v := RuntimeVersion(); !strings.HasPrefix(v, "1.") {
		t.Errorf("RuntimeVersion() = %q, want 1.x", v)
	} else {
		t.Logf("ONNX Runtime %s from %s", v, RuntimePath())
	}
	if err := InitRuntime(garbage); err == nil || !strings.Contains(err.Error(), "already loaded") {
		t.Errorf("InitRuntime(another library) = %v, want an already-loaded error", err)
	}
}
