package model

import (
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRegistryComplete(t *testing.T) {
	ids := map[string]bool{}
	dirs := map[string]bool{}
	defaults := map[Kind]int{}
	for _, s := range Registry() {
		id := s.ID()
		if ids[id] || dirs[s.DirName()] {
			t.Errorf("%s: id or directory %s listed twice", id, s.DirName())
		}
		ids[id], dirs[s.DirName()] = true, true
		if s.Default {
			defaults[s.Kind]++
		}
		if !strings.Contains(s.Name, "/") {
			t.Errorf("%s: Name is not org/repo", id)
		}
		if s.Variant != "fp32" && s.Variant != "int8" {
			t.Errorf("%s: Variant %q, want fp32 or int8", id, s.Variant)
		}
		if s.MaxLen <= 0 || s.MaxLen > 512 {
			t.Errorf("%s: MaxLen %d out of range, want 1..512", id, s.MaxLen)
		}
		switch s.Kind {
		case KindEmbedder:
			if s.Dim != 384 && s.Dim != 768 {
				t.Errorf("%s: Dim %d, want 384 or 768", id, s.Dim)
			}
			if s.Pooling != PoolCLS && s.Pooling != PoolMean {
				t.Errorf("%s: Pooling %q, want cls or mean", id, s.Pooling)
			}
		case KindCrossEncoder:
			if s.Dim != 0 || s.Pooling != "" {
				t.Errorf("%s: cross-encoder has Dim %d, Pooling %q; want none", id, s.Dim, s.Pooling)
			}
			if s.Arch.FLOPsPerToken() == 0 {
				t.Errorf("%s: cross-encoder without its Arch: Faster cannot weigh it", id)
			}
		default:
			t.Errorf("%s: Kind %q", id, s.Kind)
		}
		var names []string
		for _, f := range s.Files {
			names = append(names, f.Name)
			if !strings.HasPrefix(f.URL, HuggingFace+"/") || !strings.Contains(f.URL, "/resolve/main/") {
				t.Errorf("%s %s: URL %q is not a Hugging Face download URL", id, f.Name, f.URL)
			}
			if path := f.URL[strings.Index(f.URL, "/resolve/main/"):]; !strings.HasSuffix(path, f.Name) &&
				!(f.Name == "model.onnx" && strings.HasSuffix(path, "model_quantized.onnx")) {
				t.Errorf("%s %s: URL %q names another file", id, f.Name, f.URL)
			}
			if (f.Jar == "") != (f.Member == "") {
				t.Errorf("%s %s: Jar %q and Member %q must come together", id, f.Name, f.Jar, f.Member)
			}
			if f.Jar != "" && (!strings.HasPrefix(f.Jar, "https://repo1.maven.org/maven2/") || !strings.HasSuffix(f.Jar, ".jar")) {
				t.Errorf("%s %s: Jar %q is not a Maven Central jar", id, f.Name, f.Jar)
			}
			if f.SHA256 != "" {
				if b, err := hex.DecodeString(f.SHA256); err != nil || len(b) != 32 || f.SHA256 != strings.ToLower(f.SHA256) {
					t.Errorf("%s %s: SHA256 %q is not 64 lowercase hex digits", id, f.Name, f.SHA256)
				}
			}
			if (f.SHA256 == "") != (f.Size == 0) {
				t.Errorf("%s %s: SHA256 %q and Size %d must be pinned together", id, f.Name, f.SHA256, f.Size)
			}
		}
		if diff := cmp.Diff([]string{"model.onnx", "tokenizer.json"}, names); diff != "" {
			t.Errorf("%s: files (-want +got):\n%s", id, diff)
		}
	}
	if diff := cmp.Diff(map[Kind]int{KindEmbedder: 1, KindCrossEncoder: 1}, defaults); diff != "" {
		t.Errorf("defaults per kind (-want +got):\n%s", diff)
	}
}

// TestRegistryPins records which files are pinned, and where the mirror is.
func TestRegistryPins(t *testing.T) {
	type pins struct{ Model, Tokenizer, ModelJar, TokenizerJar bool }
	want := map[string]pins{
		"BAAI/bge-small-en-v1.5":                      {true, true, true, true},
		"BAAI/bge-small-en-v1.5:int8":                 {true, true, true, true},
		"sentence-transformers/all-MiniLM-L6-v2":      {true, true, false, true},
		"sentence-transformers/all-MiniLM-L6-v2:int8": {true, true, true, true},
		"BAAI/bge-base-en-v1.5":                       {},
		"BAAI/bge-base-en-v1.5:int8":                  {},
		"cross-encoder/ms-marco-MiniLM-L-6-v2":        {},
		"cross-encoder/ms-marco-MiniLM-L-6-v2:int8":   {},
		"cross-encoder/ms-marco-TinyBERT-L-2-v2":      {},
		"cross-encoder/ms-marco-TinyBERT-L-2-v2:int8": {},
		"BAAI/bge-reranker-base":                      {},
		"BAAI/bge-reranker-base:int8":                 {},
	}
	got := map[string]pins{}
	for _, s := range Registry() {
		got[s.ID()] = pins{
			Model: s.Files[0].SHA256 != "", Tokenizer: s.Files[1].SHA256 != "",
			ModelJar: s.Files[0].Jar != "", TokenizerJar: s.Files[1].Jar != "",
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("pins (-want +got):\n%s", diff)
	}
}

func TestRegistryReturnsCopies(t *testing.T) {
	r := Registry()
	r[0].Files[0].SHA256 = "changed"
	r[0].Name = "changed"
	s, ok := Lookup("BAAI/bge-small-en-v1.5")
	if !ok || s.Files[0].SHA256 == "changed" || DefaultEmbedder().Files[0].SHA256 == "changed" {
		t.Fatal("changing Registry's result changed the registry")
	}
	s.Files[1].URL = "changed"
	if again, _ := Lookup("BAAI/bge-small-en-v1.5"); again.Files[1].URL == "changed" {
		t.Fatal("changing Lookup's result changed the registry")
	}
}

func TestRegistryLookup(t *testing.T) {
	tests := []struct {
		name, in, want string // want: the ID found, "" for none
	}{
		{"id", "BAAI/bge-small-en-v1.5", "BAAI/bge-small-en-v1.5"},
		{"id with variant", "BAAI/bge-small-en-v1.5:int8", "BAAI/bge-small-en-v1.5:int8"},
		{"explicit fp32", "BAAI/bge-small-en-v1.5:fp32", "BAAI/bge-small-en-v1.5"},
		{"short name", "bge-small-en-v1.5", "BAAI/bge-small-en-v1.5"},
		{"short name with variant", "bge-small-en-v1.5:int8", "BAAI/bge-small-en-v1.5:int8"},
		{"case", "baai/BGE-Small-EN-v1.5:INT8", "BAAI/bge-small-en-v1.5:int8"},
		{"short case", "all-minilm-l6-v2:int8", "sentence-transformers/all-MiniLM-L6-v2:int8"},
		{"spaces", "  bge-base-en-v1.5 ", "BAAI/bge-base-en-v1.5"},
		{"directory name", "BAAI--bge-small-en-v1.5-int8", "BAAI/bge-small-en-v1.5:int8"},
		{"cross-encoder", "ms-marco-MiniLM-L-6-v2", "cross-encoder/ms-marco-MiniLM-L-6-v2"},
		{"unknown variant", "bge-small-en-v1.5:fp16", ""},
		{"wrong org", "other/bge-small-en-v1.5", ""},
		{"unknown", "bge-large-en-v1.5", ""},
		{"empty", "", ""},
		{"prefix only", "bge-small", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, ok := Lookup(tt.in)
			if got := s.ID(); ok != (tt.want != "") || (ok && got != tt.want) {
				t.Errorf("Lookup(%q) = %q, %v; want %q", tt.in, got, ok, tt.want)
			}
		})
	}
}

func TestRegistryDefaults(t *testing.T) {
	e := DefaultEmbedder()
	if e.ID() != "BAAI/bge-small-en-v1.5:int8" || e.Variant != "int8" || e.Kind != KindEmbedder || !e.Default {
		t.Errorf("DefaultEmbedder() = %s %s %s default=%v, want BAAI/bge-small-en-v1.5:int8 embedder", e.ID(), e.Variant, e.Kind, e.Default)
	}
	if e.Pooling != PoolCLS || e.Dim != 384 || e.MaxLen != 512 ||
		e.QueryPrefix != "Represent this sentence for searching relevant passages: " || e.PassagePrefix != "" {
		t.Errorf("DefaultEmbedder() = %+v", e)
	}
	if c := DefaultCrossEncoder(); c.ID() != "cross-encoder/ms-marco-MiniLM-L-6-v2" || c.Kind != KindCrossEncoder {
		t.Errorf("DefaultCrossEncoder() = %s %s", c.ID(), c.Kind)
	}
}

func ExampleLookup() {
	s, ok := Lookup("bge-small-en-v1.5:int8")
	fmt.Println(ok, s.ID(), s.DirName(), s.Dim, s.Pooling)
	// Output: true BAAI/bge-small-en-v1.5:int8 BAAI--bge-small-en-v1.5-int8 384 cls
}

func TestEntryString(t *testing.T) {
	e := Entry{ID: "org/m", Kind: KindEmbedder, Dim: 384, Pooling: "mean", Installed: true, Default: true}
	want := fmt.Sprintf("%-46s %-13s %4d  %-4s  %-13s (default)", "org/m", KindEmbedder, 384, "mean", "installed")
	if got := e.String(); got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}
