package model

import (
	"path/filepath"
	"strings"
	"time"
)

// Arch is the shape of a BERT-style encoder, from its config.json
// (num_hidden_layers, hidden_size, intermediate_size): enough to count
// its arithmetic without its file.
type Arch struct {
	Layers, Hidden, FFN int
}

// FLOPsPerToken is what FLOPsPerToken counts in the file of a
// cross-encoder of this shape: two operations for each weight of every
// layer's four attention projections (Hidden × Hidden) and feed-forward
// (Hidden × FFN and back), and of the classification head (Hidden ×
// Hidden, then Hidden × 1). 0 for the zero Arch.
func (a Arch) FLOPsPerToken() int64 {
	l, h, f := int64(a.Layers), int64(a.Hidden), int64(a.FFN)
	if l == 0 {
		return 0
	}
	return 2 * (l*(4*h*h+2*h*f) + h*h + h)
}

// TokenFLOPs is the arithmetic one token costs the model spec whose files are
// in dir: counted in its ONNX file (FLOPsPerToken), else (dir "", or no
// file) estimated from spec.Arch; 0 when neither can say.
func TokenFLOPs(dir string, spec Spec) int64 {
	for _, f := range spec.Files {
		if dir != "" && strings.HasSuffix(f.Name, ".onnx") {
			if n, err := FLOPsPerToken(filepath.Join(dir, filepath.FromSlash(f.Name))); err == nil {
				return n
			}
		}
	}
	return spec.Arch.FLOPsPerToken()
}

// Faster returns the most capable registry cross-encoder (the most
// arithmetic per token) predicted to score within target the pairs that
// the cross-encoder from, costing flops per token, scored in took, and
// that prediction: took × its FLOPs per token / flops, as the same tokens
// go through both on the same machine. It keeps to from's variant (no
// variant is fp32): int8 and fp32 run at different speeds, so took says
// nothing of the other. ok is false when none is predicted within target.
//
// The prediction is optimistic: a smaller model keeps the cores less busy
// (issue 48 measured TinyBERT-L2 at about half MiniLM-L6's FLOP rate), so
// time the model it names once it is installed.
func Faster(from Spec, flops int64, took, target time.Duration) (s Spec, predicted time.Duration, ok bool) {
	variant := from.Variant
	if variant == "" {
		variant = "fp32"
	}
	var most int64
	for _, c := range registry {
		f := c.Arch.FLOPsPerToken()
		if c.Kind != KindCrossEncoder || c.Variant != variant || c.Name == from.Name || f == 0 || f >= flops || f <= most {
			continue
		}
		if p := time.Duration(float64(took) * float64(f) / float64(flops)); p <= target {
			s, predicted, ok, most = c.clone(), p, true, f
		}
	}
	return s, predicted, ok
}
