package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

var (
	// ErrNoModel means a registry model's files are not in the models
	// directory: it has not been pulled yet.
	ErrNoModel = errors.New("model: model not installed")
	// ErrUnknownModel means a name is neither a registry ID nor a directory.
	ErrUnknownModel = errors.New("model: unknown model")
	// ErrWrongKind means a model computes something other than what was
	// asked for: a cross-encoder where an embedder is wanted, or the reverse.
	ErrWrongKind = errors.New("model: wrong kind of model")
)

// ModelsDir returns the directory that holds pulled models: explicit (the
// --models flag or BRAID_MODELS, which the command reads) when not empty,
// else <user cache dir>/braid/models (~/.cache/braid/models on Linux),
// else, when the system has no cache directory, braid/models under the
// temporary directory.
func ModelsDir(explicit string) string {
	if explicit != "" {
		return explicit
	}
	if cache, err := os.UserCacheDir(); err == nil {
		return filepath.Join(cache, "braid", "models")
	}
	return filepath.Join(os.TempDir(), "braid", "models")
}

// Resolve finds the model name names and the directory its files lie in.
// It is ResolveKind with no kind wanted: an empty name means the default
// embedder, and a cross-encoder is as good an answer as an embedder.
func Resolve(name, modelsDir string) (dir string, spec Spec, err error) {
	return ResolveKind(name, modelsDir, "")
}

// ResolveKind finds the model name names, of kind kind ("" takes either),
// and the directory its files lie in. name is one of:
//
//   - empty: the registry's default model of kind (the default embedder
//     when kind is "");
//   - a registry ID in any form Lookup takes: the files must lie in
//     modelsDir/spec.DirName(), else the error wraps ErrNoModel and says
//     how to pull them;
//   - a directory holding model.onnx (or onnx/model.onnx, as a Hugging Face
//     repository has it) and tokenizer.json: the Spec is inferred from the
//     files, see below.
//
// A name that starts with "." or is absolute is always taken as a
// directory; any other name is looked up in the registry first.
//
// For a directory, the Spec is inferred from what lies in it. Name is the
// directory's base name and Files lists the ONNX file and tokenizer.json,
// unpinned. Kind is cross-encoder when config.json's architectures name a
// *SequenceClassification model, else embedder; with no config.json it is
// the kind asked for. Dim is config.json's hidden_size (0 when there is
// none: the runtime finds it when it loads the model). Pooling comes from
// sentence-transformers' 1_Pooling/config.json, else is CLS when the model
// is a BGE model (config.json's _name_or_path or the directory's name says
// bge), else mean. MaxLen is sentence_bert_config.json's max_seq_length,
// else config.json's max_position_embeddings, else 512. When the directory
// or its _name_or_path names a registry model, its query and passage
// prefixes are kept.
//
// A model of another kind than kind gives an error wrapping ErrWrongKind.
func ResolveKind(name, modelsDir string, kind Kind) (dir string, spec Spec, err error) {
	name = strings.TrimSpace(name)
	if name == "" {
		k := kind
		if k == "" {
			k = KindEmbedder
		}
		return installed(defaultOf(k), modelsDir)
	}
	pathLike := filepath.IsAbs(name) || strings.HasPrefix(name, ".")
	if !pathLike {
		if s, ok := Lookup(name); ok {
			if kind != "" && s.Kind != kind {
				return "", Spec{}, fmt.Errorf("%w: %s is %s, want %s (such as %s)",
					ErrWrongKind, s.ID(), withArticle(s.Kind), withArticle(kind), defaultOf(kind).ID())
			}
			return installed(s, modelsDir)
		}
	}
	fi, statErr := os.Stat(name)
	switch {
	case statErr == nil && fi.IsDir():
		return inferDir(name, kind)
	case pathLike || statErr == nil:
		return "", Spec{}, fmt.Errorf("%w: %s is not a model directory (want a directory with model.onnx and tokenizer.json)",
			ErrUnknownModel, name)
	}
	return "", Spec{}, fmt.Errorf("%w: %q is neither a model directory nor a registry id (%s)",
		ErrUnknownModel, name, strings.Join(registryIDs(kind), ", "))
}

// registryIDs lists the IDs of the registry models of kind ("" for all).
func registryIDs(kind Kind) []string {
	var ids []string
	for _, s := range registry {
		if kind == "" || s.Kind == kind {
			ids = append(ids, s.ID())
		}
	}
	return ids
}

// installed returns spec's directory under modelsDir when every file of
// spec lies in it (with the pinned size, where one is pinned).
func installed(spec Spec, modelsDir string) (string, Spec, error) {
	dir := spec.InstallDir(modelsDir)
	var missing []string
	for _, f := range spec.Files {
		p := filepath.Join(dir, f.Name)
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			missing = append(missing, f.Name)
			continue
		}
		if f.Size > 0 && fi.Size() != f.Size {
			return "", Spec{}, fmt.Errorf("%w: %s is %d bytes, want %d (an interrupted copy?); run model.Pull %s with PullOptions.Force",
				ErrChecksum, p, fi.Size(), f.Size, spec.ID())
		}
	}
	if len(missing) > 0 {
		return "", Spec{}, fmt.Errorf("%w: %s has no %s; run model.Pull %s%s",
			ErrNoModel, dir, strings.Join(missing, " or "), spec.ID(), pullHint(spec))
	}
	return dir, spec, nil
}

// pullHint says where else the files of spec can come from.
func pullHint(spec Spec) string {
	if !spec.Mirrored() {
		return " (where Hugging Face is out of reach, add PullOptions.From DIR holding the files, or a mirror URL)"
	}
	return " (it fetches them from the Maven Central mirror)"
}

// hfConfig holds the fields of a Hugging Face config.json that ResolveKind reads.
type hfConfig struct {
	NameOrPath    string   `json:"_name_or_path"`
	Architectures []string `json:"architectures"`
	HiddenSize    int      `json:"hidden_size"`
	MaxPositions  int      `json:"max_position_embeddings"`
}

// stPooling is sentence-transformers' 1_Pooling/config.json.
type stPooling struct {
	CLS  bool `json:"pooling_mode_cls_token"`
	Mean bool `json:"pooling_mode_mean_tokens"`
}

// stConfig is sentence-transformers' sentence_bert_config.json.
type stConfig struct {
	MaxSeqLength int `json:"max_seq_length"`
}

// modelCandidates are the places, in order, where a model directory may
// hold its ONNX file, with the variant each implies.
var modelCandidates = []struct{ path, variant string }{
	{"model.onnx", ""},
	{"onnx/model.onnx", ""},
	{"model_quantized.onnx", "int8"},
	{"onnx/model_quantized.onnx", "int8"},
}

// inferDir builds the Spec of the model in dir, as ResolveKind documents.
func inferDir(dir string, kind Kind) (string, Spec, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", Spec{}, fmt.Errorf("model: %w", err)
	}
	spec := Spec{Name: filepath.Base(abs)}
	var onnx string
	for _, c := range modelCandidates {
		if isFile(filepath.Join(abs, filepath.FromSlash(c.path))) {
			onnx, spec.Variant = c.path, c.variant
			break
		}
	}
	if onnx == "" {
		return "", Spec{}, fmt.Errorf("%w: %s has no model.onnx (nor onnx/model.onnx)", ErrNoModel, dir)
	}
	if !isFile(filepath.Join(abs, "tokenizer.json")) {
		return "", Spec{}, fmt.Errorf("%w: %s has %s but no tokenizer.json", ErrNoModel, dir, onnx)
	}
	spec.Files = []File{{Name: onnx}, {Name: "tokenizer.json"}}

	var cfg hfConfig
	hasCfg, err := readJSON(filepath.Join(abs, "config.json"), &cfg)
	if err != nil {
		return "", Spec{}, err
	}
	spec.Kind = KindEmbedder
	switch {
	case hasCfg && anyContains(cfg.Architectures, "SequenceClassification"):
		spec.Kind = KindCrossEncoder
	case !hasCfg && kind != "":
		spec.Kind = kind
	}
	if kind != "" && spec.Kind != kind {
		return "", Spec{}, fmt.Errorf("%w: %s holds %s (config.json architectures %v), want %s",
			ErrWrongKind, dir, withArticle(spec.Kind), cfg.Architectures, withArticle(kind))
	}

	spec.MaxLen = cfg.MaxPositions
	var st stConfig
	if ok, err := readJSON(filepath.Join(abs, "sentence_bert_config.json"), &st); err != nil {
		return "", Spec{}, err
	} else if ok && st.MaxSeqLength > 0 {
		spec.MaxLen = st.MaxSeqLength
	}
	if spec.MaxLen <= 0 {
		spec.MaxLen = 512
	}

	known, isKnown := Lookup(spec.Name)
	if !isKnown && cfg.NameOrPath != "" {
		known, isKnown = Lookup(filepath.Base(cfg.NameOrPath))
	}
	if isKnown && known.Kind == spec.Kind {
		spec.QueryPrefix, spec.PassagePrefix = known.QueryPrefix, known.PassagePrefix
	}
	if spec.Kind == KindCrossEncoder {
		return abs, spec, nil
	}

	spec.Dim = cfg.HiddenSize
	var pool stPooling
	hasPool, err := readJSON(filepath.Join(abs, "1_Pooling", "config.json"), &pool)
	if err != nil {
		return "", Spec{}, err
	}
	switch {
	case hasPool && pool.CLS:
		spec.Pooling = PoolCLS
	case hasPool && pool.Mean:
		spec.Pooling = PoolMean
	case strings.Contains(strings.ToLower(cfg.NameOrPath), "bge"),
		strings.Contains(strings.ToLower(spec.Name), "bge"):
		spec.Pooling = PoolCLS
	default:
		spec.Pooling = PoolMean
	}
	return abs, spec, nil
}

// readJSON decodes the JSON file at path into v. A missing file is not an
// error: ok is false.
func readJSON(path string, v any) (ok bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("model: %w", err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("model: parse %s: %w", path, err)
	}
	return true, nil
}

// anyContains reports whether one of list contains sub.
func anyContains(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// withArticle returns k with its indefinite article: "an embedder", "a cross-encoder".
func withArticle(k Kind) string {
	if k == KindEmbedder {
		return "an " + string(k)
	}
	return "a " + string(k)
}

// ModelPath returns the path of s's ONNX file in dir: the first of s.Files
// whose name ends in .onnx, else dir/model.onnx.
func (s Spec) ModelPath(dir string) string {
	return s.path(dir, ".onnx", "model.onnx")
}

// TokenizerPath returns the path of s's tokenizer.json in dir.
func (s Spec) TokenizerPath(dir string) string {
	return s.path(dir, "tokenizer.json", "tokenizer.json")
}

// path returns dir joined with the first of s.Files whose name ends in
// suffix, else with fallback.
func (s Spec) path(dir, suffix, fallback string) string {
	for _, f := range s.Files {
		if strings.HasSuffix(f.Name, suffix) {
			return filepath.Join(dir, filepath.FromSlash(f.Name))
		}
	}
	return filepath.Join(dir, fallback)
}
