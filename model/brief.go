package model

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Brief says in one short clause why the model name names (of kind)
// cannot be used, for Set.Explain, and what fixes it where something can:
// a registry model with a Maven Central mirror can be pulled as is, any
// other only with PullOptions.From naming a directory that holds its
// files (a plain pull from Hugging Face does not work offline). It names
// options (Set.ORTLib, PullOptions.From) and functions (Pull, Verify,
// Checks), which a front end puts in its own words; Checks gives the
// whole story (where the runtime was looked for, which files are
// missing). Any other error is its message cut to 72 characters.
func Brief(err error, name string, kind Kind) string {
	what := "embedding model"
	if kind == KindCrossEncoder {
		what = "cross-encoder"
	}
	switch {
	case errors.Is(err, ErrOff) && kind == KindCrossEncoder:
		return "reranking is turned off (Set.Reranker none)"
	case errors.Is(err, ErrOff):
		return "vectors are turned off (Set.Embedder none)"
	case errors.Is(err, ErrNoRuntime):
		return "no ONNX Runtime found; set Set.ORTLib to one, model.Checks says where it looked"
	case errors.Is(err, ErrRuntimeTooOld):
		return "ONNX Runtime too old, want " + MinRuntimeVersion + " or later; point Set.ORTLib at a newer one"
	case errors.Is(err, ErrChecksum):
		return fmt.Sprintf("the %s's files are damaged; model.Verify says which", what)
	case errors.Is(err, ErrNoModel):
		spec, ok := Lookup(name)
		switch {
		case name == "" && kind == KindCrossEncoder:
			spec, ok = DefaultCrossEncoder(), true
		case name == "":
			spec, ok = DefaultEmbedder(), true
		}
		switch {
		case !ok:
		case spec.Mirrored():
			return fmt.Sprintf("no %s installed; model.Pull %s fetches it", what, shortID(spec))
		default:
			return fmt.Sprintf("no %s installed; model.Pull %s with PullOptions.From DIR adds it", what, shortID(spec))
		}
	}
	return clip(Clause(err), 72) + "; model.Checks says more"
}

// shortID is a registry model's id without its organisation, which
// Lookup takes as well.
func shortID(s Spec) string {
	id := s.ID()
	if _, rest, ok := strings.Cut(id, "/"); ok {
		return rest
	}
	return id
}

// clip cuts s to at most n runes at a word boundary, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	cut := string([]rune(s)[:n])
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:") + "…"
}
