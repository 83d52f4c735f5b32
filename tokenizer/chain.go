package tokenizer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// normStep is one normalizer of a Sequence outside the BERT family
// (SentencePiece-converted tokenizers: Precompiled, Replace, Strip,
// Lowercase). append appends the normalized form of src, valid UTF-8, to
// dst; src and dst never share memory.
type normStep interface {
	append(dst, src []byte) []byte
}

// parseChain reads a normalizer made only of Precompiled, Replace, Strip
// and Lowercase, alone or in a Sequence (nested Sequences are flattened).
func parseChain(data json.RawMessage) ([]normStep, error) {
	fields, err := jsonObject(data, true)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: parse normalizer: %w", err)
	}
	var n struct {
		Type    string
		Pattern struct {
			String *string `json:"String"`
			Regex  *string `json:"Regex"`
		}
		Content    string
		StripLeft  bool
		StripRight bool
	}
	err = decodeFields(fields, map[string]any{"type": &n.Type, "pattern": &n.Pattern, "content": &n.Content,
		"strip_left": &n.StripLeft, "strip_right": &n.StripRight})
	if err != nil {
		return nil, fmt.Errorf("tokenizer: parse normalizer: %w", err)
	}
	switch n.Type {
	case "Sequence":
		items, err := jsonArray(field(fields, "normalizers"))
		if err != nil {
			return nil, fmt.Errorf("tokenizer: parse normalizer: %w", err)
		}
		var steps []normStep
		for _, raw := range items {
			s, err := parseChain(raw)
			if err != nil {
				return nil, err
			}
			steps = append(steps, s...)
		}
		return steps, nil
	case "Precompiled":
		raw := field(fields, "precompiled_charsmap")
		if isNull(raw) {
			return nil, fmt.Errorf("tokenizer: Precompiled normalizer without precompiled_charsmap")
		}
		charsmap, err := jsonString(raw)
		if err != nil {
			return nil, fmt.Errorf("tokenizer: parse normalizer: precompiled_charsmap: %w", err)
		}
		p, err := parsePrecompiled(charsmap)
		if err != nil {
			return nil, err
		}
		return []normStep{p}, nil
	case "Replace":
		r, err := newReplace(n.Pattern.String, n.Pattern.Regex, n.Content)
		if err != nil {
			return nil, err
		}
		return []normStep{r}, nil
	case "Strip":
		return []normStep{strip{left: n.StripLeft, right: n.StripRight}}, nil
	case "Lowercase":
		return []normStep{lowercase{}}, nil
	}
	return nil, fmt.Errorf("%w: normalizer %q (want BertNormalizer, Lowercase, NFD+StripAccents, or Precompiled, Replace, Strip and Lowercase)", ErrUnsupported, n.Type)
}

// replace is the Replace normalizer: every non-overlapping match of a
// literal string or a regular expression, leftmost first, becomes content.
type replace struct {
	literal []byte
	re      *regexp.Regexp
	content []byte
	// run, when set, is the fast form of a regex "c{min,}" (or "c+"):
	// every run of at least min characters c becomes content.
	run struct {
		on  bool
		c   rune
		min int
	}
}

// newReplace compiles a Replace normalizer. Regex patterns are compiled by
// Go's regexp (RE2 syntax), which agrees with the Oniguruma engine of the
// reference library on the patterns converters write (" {2,}").
func newReplace(literal, pattern *string, content string) (*replace, error) {
	r := &replace{content: []byte(content)}
	switch {
	case literal != nil:
		if *literal == "" {
			return nil, fmt.Errorf("tokenizer: Replace normalizer with an empty pattern")
		}
		r.literal = []byte(*literal)
		return r, nil
	case pattern != nil:
		re, err := regexp.Compile(*pattern)
		if err != nil {
			return nil, fmt.Errorf("%w: Replace normalizer pattern %q: %v", ErrUnsupported, *pattern, err)
		}
		r.re = re
		if p, err := syntax.Parse(*pattern, syntax.Perl); err == nil {
			if p.Op == syntax.OpPlus {
				p = &syntax.Regexp{Op: syntax.OpRepeat, Min: 1, Max: -1, Sub: p.Sub}
			}
			if p.Op == syntax.OpRepeat && p.Max == -1 && p.Min >= 1 && len(p.Sub) == 1 &&
				p.Sub[0].Op == syntax.OpLiteral && len(p.Sub[0].Rune) == 1 && p.Sub[0].Flags&syntax.FoldCase == 0 {
				r.run.on, r.run.c, r.run.min = true, p.Sub[0].Rune[0], p.Min
			}
		}
		return r, nil
	}
	return nil, fmt.Errorf("tokenizer: Replace normalizer without a String or Regex pattern")
}

func (r *replace) append(dst, src []byte) []byte {
	switch {
	case r.run.on:
		return r.appendRuns(dst, src)
	case r.re != nil:
		return append(dst, r.re.ReplaceAllLiteral(src, r.content)...)
	}
	for {
		i := bytes.Index(src, r.literal)
		if i < 0 {
			return append(dst, src...)
		}
		dst = append(dst, src[:i]...)
		dst = append(dst, r.content...)
		src = src[i+len(r.literal):]
	}
}

// appendRuns replaces runs of at least r.run.min characters r.run.c.
func (r *replace) appendRuns(dst, src []byte) []byte {
	var enc [utf8.UTFMax]byte
	c := enc[:utf8.EncodeRune(enc[:], r.run.c)]
	for {
		i := bytes.Index(src, c)
		if i < 0 {
			return append(dst, src...)
		}
		j, n := i, 0
		for bytes.HasPrefix(src[j:], c) {
			j += len(c)
			n++
		}
		dst = append(dst, src[:i]...)
		if n >= r.run.min {
			dst = append(dst, r.content...)
		} else {
			dst = append(dst, src[i:j]...)
		}
		src = src[j:]
	}
}

// strip is the Strip normalizer: it trims Unicode White_Space from the
// left, the right or both ends.
type strip struct{ left, right bool }

func (s strip) append(dst, src []byte) []byte {
	if s.left {
		src = bytes.TrimLeftFunc(src, unicode.IsSpace)
	}
	if s.right {
		src = bytes.TrimRightFunc(src, unicode.IsSpace)
	}
	return append(dst, src...)
}

// lowercase is the Lowercase normalizer (Unicode full lowercase mapping,
// from the generated table).
type lowercase struct{}

func (lowercase) append(dst, src []byte) []byte {
	for i := 0; i < len(src); {
		c := src[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(src[i:])
		if l, ok := lookupMapping(lowercases, r); ok {
			dst = append(dst, l...)
		} else {
			dst = append(dst, src[i:i+size]...)
		}
		i += size
	}
	return dst
}
