package main

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/model"
)

// brief says in one short clause why the model name names (of kind) cannot
// be used (braid.Models.Explain), and a command that fixes it where one can work: a registry
// model with a Maven Central mirror can be pulled as is, any other only
// --from a directory holding its files (a plain pull from Hugging Face
// does not work offline). Searches repeat it in their warnings; braid
// doctor gives the whole story (where the runtime was looked for, which
// files are missing).
func brief(err error, name string, kind model.Kind) string {
	what := "embedding model"
	if kind == model.KindCrossEncoder {
		what = "cross-encoder"
	}
	switch {
	case errors.Is(err, braid.ErrModelOff) && kind == model.KindCrossEncoder:
		return "reranking is turned off (--reranker none)"
	case errors.Is(err, braid.ErrModelOff):
		return "vectors are turned off (--model none)"
	case errors.Is(err, model.ErrNoRuntime):
		return "no ONNX Runtime found; set BRAID_ORT_LIB to one, braid doctor says where it looked"
	case errors.Is(err, model.ErrRuntimeTooOld):
		return "ONNX Runtime too old, want 1.24 or later; point BRAID_ORT_LIB at a newer one"
	case errors.Is(err, model.ErrChecksum):
		return fmt.Sprintf("the %s's files are damaged; braid models verify says which", what)
	case errors.Is(err, model.ErrNoModel):
		spec, ok := model.Lookup(name)
		switch {
		case name == "" && kind == model.KindCrossEncoder:
			spec, ok = model.DefaultCrossEncoder(), true
		case name == "":
			spec, ok = model.DefaultEmbedder(), true
		}
		switch {
		case !ok:
		case spec.Mirrored():
			return fmt.Sprintf("no %s installed; braid models pull %s fetches it", what, shortID(spec))
		default:
			return fmt.Sprintf("no %s installed; braid models pull %s --from DIR adds it", what, shortID(spec))
		}
	}
	return clip(reason(err), 72) + "; braid doctor says more"
}

// shortID is a registry model's id without its organisation, which
// braid models pull takes as well.
func shortID(s model.Spec) string {
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
