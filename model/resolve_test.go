package model

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// writeFiles creates files (name -> content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// install places spec's files in modelsDir as empty sparse files of their
// pinned size, which is all Resolve looks at.
func install(t *testing.T, modelsDir string, spec Spec) string {
	t.Helper()
	dir := filepath.Join(modelsDir, spec.DirName())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range spec.Files {
		p := filepath.Join(dir, f.Name)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, f.Size); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestResolveModelsDir(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache) // os.UserCacheDir on macOS
	want, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	want = filepath.Join(want, "braid", "models")
	if got := ModelsDir(""); got != want {
		t.Errorf("ModelsDir(\"\") = %q, want %q", got, want)
	}
	if got := ModelsDir("/flag/models"); got != "/flag/models" {
		t.Errorf("ModelsDir(\"/flag/models\") = %q, want the explicit directory", got)
	}
}

func TestResolveRegistry(t *testing.T) {
	models := t.TempDir()
	small8, _ := Lookup("bge-small-en-v1.5:int8")
	smallDir := install(t, models, small8)
	def := install(t, models, DefaultEmbedder())
	cross := install(t, models, DefaultCrossEncoder())

	tests := []struct {
		name, in string
		kind     Kind
		wantDir  string
		wantID   string
	}{
		{"id", "BAAI/bge-small-en-v1.5:int8", "", smallDir, "BAAI/bge-small-en-v1.5:int8"},
		{"short name", "bge-small-en-v1.5:int8", KindEmbedder, smallDir, "BAAI/bge-small-en-v1.5:int8"},
		{"empty is the default embedder", "", "", def, "BAAI/bge-small-en-v1.5:int8"},
		{"empty embedder", "", KindEmbedder, def, "BAAI/bge-small-en-v1.5:int8"},
		{"empty cross-encoder", "", KindCrossEncoder, cross, "cross-encoder/ms-marco-MiniLM-L-6-v2"},
		{"cross-encoder, any kind", "cross-encoder/ms-marco-MiniLM-L-6-v2", "", cross, "cross-encoder/ms-marco-MiniLM-L-6-v2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, spec, err := ResolveKind(tt.in, models, tt.kind)
			if err != nil {
				t.Fatal(err)
			}
			if dir != tt.wantDir || spec.ID() != tt.wantID {
				t.Errorf("ResolveKind(%q, %q) = %s, %s; want %s, %s", tt.in, tt.kind, dir, spec.ID(), tt.wantDir, tt.wantID)
			}
			if want, _ := Lookup(tt.wantID); !cmp.Equal(want, spec) {
				t.Errorf("spec (-want +got):\n%s", cmp.Diff(want, spec))
			}
		})
	}
}

func TestResolveErrors(t *testing.T) {
	models := t.TempDir()
	small32, _ := Lookup("bge-small-en-v1.5:fp32")
	// A truncated model.onnx: present, but shorter than its pin.
	truncated := install(t, models, DefaultEmbedder())
	if err := os.Truncate(filepath.Join(truncated, "model.onnx"), 1000); err != nil {
		t.Fatal(err)
	}
	// A model without its tokenizer.
	base, _ := Lookup("BAAI/bge-base-en-v1.5")
	writeFiles(t, filepath.Join(models, base.DirName()), map[string]string{"model.onnx": "x"})
	cross := t.TempDir()
	writeFiles(t, cross, map[string]string{
		"model.onnx": "x", "tokenizer.json": "{}",
		"config.json": `{"architectures": ["BertForSequenceClassification"]}`,
	})
	noTok := t.TempDir()
	writeFiles(t, noTok, map[string]string{"onnx/model.onnx": "x"})
	badJSON := t.TempDir()
	writeFiles(t, badJSON, map[string]string{"model.onnx": "x", "tokenizer.json": "{}", "config.json": "{"})

	tests := []struct {
		name, in string
		kind     Kind
		want     error
		says     []string
	}{
		{"not pulled", small32.ID(), "", ErrNoModel, []string{
			filepath.Join(models, "BAAI--bge-small-en-v1.5"), "model.onnx or tokenizer.json",
			"run model.Pull BAAI/bge-small-en-v1.5 (", "Maven Central"}},
		{"half pulled, no mirror", "bge-base-en-v1.5", "", ErrNoModel, []string{
			"has no tokenizer.json;", "run model.Pull BAAI/bge-base-en-v1.5 (", "PullOptions.From DIR"}},
		{"truncated", "", "", ErrChecksum, []string{"is 1000 bytes, want 34014426", "with PullOptions.Force"}},
		{"cross-encoder id for an embedder", "cross-encoder/ms-marco-MiniLM-L-6-v2", KindEmbedder, ErrWrongKind, []string{
			"cross-encoder/ms-marco-MiniLM-L-6-v2 is a cross-encoder, want an embedder"}},
		{"embedder id for a cross-encoder", "bge-small-en-v1.5", KindCrossEncoder, ErrWrongKind, []string{
			"is an embedder, want a cross-encoder (such as cross-encoder/ms-marco-MiniLM-L-6-v2)"}},
		{"cross-encoder directory for an embedder", cross, KindEmbedder, ErrWrongKind, []string{
			"holds a cross-encoder", "BertForSequenceClassification"}},
		{"unknown", "bge-large-en-v1.5", "", ErrUnknownModel, []string{
			`"bge-large-en-v1.5" is neither`, "BAAI/bge-small-en-v1.5:int8"}},
		{"missing directory", "./no/such/dir", "", ErrUnknownModel, []string{"./no/such/dir is not a model directory"}},
		{"directory without tokenizer", noTok, "", ErrNoModel, []string{"has onnx/model.onnx but no tokenizer.json"}},
		{"directory without model", t.TempDir(), "", ErrNoModel, []string{"no model.onnx"}},
		{"broken config.json", badJSON, "", nil, []string{"parse", "config.json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := ResolveKind(tt.in, models, tt.kind)
			if err == nil {
				t.Fatalf("ResolveKind(%q) succeeded, want an error", tt.in)
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("error %q does not wrap %q", err, tt.want)
			}
			for _, s := range tt.says {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not say %q", err, s)
				}
			}
		})
	}
}

func TestResolveDirectory(t *testing.T) {
	bgeQueryPrefix := DefaultEmbedder().QueryPrefix
	tests := []struct {
		name  string
		files map[string]string
		kind  Kind
		want  Spec // Name is the directory's base name, filled in below
	}{
		{
			name: "sentence-transformers layout",
			files: map[string]string{
				"model.onnx": "x", "tokenizer.json": "{}",
				"config.json":               `{"_name_or_path": "nreimers/MiniLM-L6-H384-uncased", "architectures": ["BertModel"], "hidden_size": 384, "max_position_embeddings": 512}`,
				"1_Pooling/config.json":     `{"word_embedding_dimension": 384, "pooling_mode_cls_token": false, "pooling_mode_mean_tokens": true}`,
				"sentence_bert_config.json": `{"max_seq_length": 256, "do_lower_case": false}`,
			},
			want: Spec{Kind: KindEmbedder, Pooling: PoolMean, Dim: 384, MaxLen: 256,
				Files: []File{{Name: "model.onnx"}, {Name: "tokenizer.json"}}},
		},
		{
			name: "sentence-transformers CLS pooling",
			files: map[string]string{
				"model.onnx": "x", "tokenizer.json": "{}",
				"config.json":           `{"hidden_size": 768}`,
				"1_Pooling/config.json": `{"pooling_mode_cls_token": true, "pooling_mode_mean_tokens": false}`,
			},
			want: Spec{Kind: KindEmbedder, Pooling: PoolCLS, Dim: 768, MaxLen: 512,
				Files: []File{{Name: "model.onnx"}, {Name: "tokenizer.json"}}},
		},
		{
			name: "Hugging Face layout of a BGE model",
			files: map[string]string{
				"onnx/model.onnx": "x", "onnx/model_quantized.onnx": "x", "tokenizer.json": "{}",
				"config.json": `{"_name_or_path": "BAAI/bge-small-en-v1.5", "architectures": ["BertModel"], "hidden_size": 384, "max_position_embeddings": 512}`,
			},
			want: Spec{Kind: KindEmbedder, Pooling: PoolCLS, Dim: 384, MaxLen: 512, QueryPrefix: bgeQueryPrefix,
				Files: []File{{Name: "onnx/model.onnx"}, {Name: "tokenizer.json"}}},
		},
		{
			name:  "quantized export only",
			files: map[string]string{"onnx/model_quantized.onnx": "x", "tokenizer.json": "{}"},
			want: Spec{Variant: "int8", Kind: KindEmbedder, Pooling: PoolMean, MaxLen: 512,
				Files: []File{{Name: "onnx/model_quantized.onnx"}, {Name: "tokenizer.json"}}},
		},
		{
			name:  "bare files",
			files: map[string]string{"model.onnx": "x", "tokenizer.json": "{}"},
			want: Spec{Kind: KindEmbedder, Pooling: PoolMean, MaxLen: 512,
				Files: []File{{Name: "model.onnx"}, {Name: "tokenizer.json"}}},
		},
		{
			name:  "bare files asked as a cross-encoder",
			files: map[string]string{"model.onnx": "x", "tokenizer.json": "{}"},
			kind:  KindCrossEncoder,
			want: Spec{Kind: KindCrossEncoder, MaxLen: 512,
				Files: []File{{Name: "model.onnx"}, {Name: "tokenizer.json"}}},
		},
		{
			name: "cross-encoder",
			files: map[string]string{
				"model.onnx": "x", "tokenizer.json": "{}",
				"config.json": `{"_name_or_path": "cross-encoder/ms-marco-MiniLM-L-6-v2", "architectures": ["BertForSequenceClassification"], "hidden_size": 384, "max_position_embeddings": 512}`,
			},
			want: Spec{Kind: KindCrossEncoder, MaxLen: 512,
				Files: []File{{Name: "model.onnx"}, {Name: "tokenizer.json"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "my-model")
			writeFiles(t, dir, tt.files)
			gotDir, got, err := ResolveKind(dir, t.TempDir(), tt.kind)
			if err != nil {
				t.Fatal(err)
			}
			tt.want.Name = "my-model"
			if gotDir != dir {
				t.Errorf("dir = %q, want %q", gotDir, dir)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("spec (-want +got):\n%s", diff)
			}
			if p := got.ModelPath(gotDir); !isFile(p) {
				t.Errorf("ModelPath = %s, not a file", p)
			}
			if p := got.TokenizerPath(gotDir); p != filepath.Join(dir, "tokenizer.json") {
				t.Errorf("TokenizerPath = %s", p)
			}
		})
	}
}

// TestResolveDirectoryNamedAsRegistry: a directory that holds a registry
// model, as Pull lays it out, keeps the model's prefixes and BGE pooling.
func TestResolveDirectoryNamedAsRegistry(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "BAAI--bge-small-en-v1.5")
	writeFiles(t, dir, map[string]string{"model.onnx": "x", "tokenizer.json": "{}"})
	_, got, err := Resolve(dir, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if got.Pooling != PoolCLS || got.QueryPrefix != DefaultEmbedder().QueryPrefix {
		t.Errorf("spec = %+v, want CLS pooling and the BGE query prefix", got)
	}
}

// TestResolveFixtures resolves the committed tiny models by relative path.
func TestResolveFixtures(t *testing.T) {
	for _, tt := range []struct {
		dir  string
		kind Kind
	}{{"testdata/tiny-encoder", KindEmbedder}, {"./testdata/tiny-cross", KindCrossEncoder}} {
		dir, spec, err := ResolveKind(tt.dir, t.TempDir(), tt.kind)
		if err != nil {
			t.Fatal(err)
		}
		if spec.Kind != tt.kind || spec.Name != filepath.Base(tt.dir) || !isFile(spec.ModelPath(dir)) || !isFile(spec.TokenizerPath(dir)) {
			t.Errorf("ResolveKind(%q) = %s, %+v", tt.dir, dir, spec)
		}
	}
}
