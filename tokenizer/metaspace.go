package tokenizer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// Metaspace prepend schemes: when a "▁" goes before a text that does not
// start with one.
const (
	prependAlways = iota
	prependFirst  // only before the first segment of the text
	prependNever
)

// metaspace is the Metaspace pre-tokenizer of SentencePiece tokenizers:
// spaces become the replacement character ("▁"), one is prepended as the
// scheme says, and, with split, every replacement character starts a new
// piece for the model.
type metaspace struct {
	repl    []byte
	prepend int
	split   bool
}

// metaspaceJSON is a Metaspace pre-tokenizer or decoder.
type metaspaceJSON struct {
	Type           string          `json:"type"`
	Replacement    *string         `json:"replacement"`
	PrependScheme  *string         `json:"prepend_scheme"`
	AddPrefixSpace *bool           `json:"add_prefix_space"`
	Split          *bool           `json:"split"`
	PreTokenizers  json.RawMessage `json:"pretokenizers"`
}

// parse reads the fields as the reference does: prepend_scheme defaults to
// "always"; the legacy add_prefix_space must agree with it.
func (m metaspaceJSON) parse(what string) (metaspace, error) {
	var ms metaspace
	if m.Replacement == nil || utf8.RuneCountInString(*m.Replacement) != 1 {
		return ms, fmt.Errorf("tokenizer: %s Metaspace replacement %v, want one character", what, m.Replacement)
	}
	ms.repl = []byte(*m.Replacement)
	ms.split = m.Split == nil || *m.Split
	scheme := "always"
	if m.PrependScheme != nil {
		scheme = *m.PrependScheme
	}
	switch scheme {
	case "always":
		ms.prepend = prependAlways
	case "first":
		ms.prepend = prependFirst
	case "never":
		ms.prepend = prependNever
	default:
		return ms, fmt.Errorf("tokenizer: %s Metaspace prepend_scheme %q, want always, first or never", what, scheme)
	}
	if a := m.AddPrefixSpace; a != nil && *a != (ms.prepend != prependNever) {
		return ms, fmt.Errorf("tokenizer: %s Metaspace add_prefix_space %v does not match prepend_scheme %q", what, *a, scheme)
	}
	return ms, nil
}

// parseMetaspace reads the pre-tokenizer of a Unigram model: Metaspace,
// alone or as the only member of a Sequence.
func parseMetaspace(data json.RawMessage) (metaspace, error) {
	if isNull(data) {
		return metaspace{}, fmt.Errorf("%w: no pre_tokenizer (want Metaspace with Unigram)", ErrUnsupported)
	}
	var m metaspaceJSON
	if err := json.Unmarshal(data, &m); err != nil {
		return metaspace{}, fmt.Errorf("tokenizer: parse pre_tokenizer: %w", err)
	}
	if m.Type == "Sequence" {
		var seq []json.RawMessage
		if err := json.Unmarshal(m.PreTokenizers, &seq); err == nil && len(seq) == 1 {
			return parseMetaspace(seq[0])
		}
	}
	if m.Type != "Metaspace" {
		return metaspace{}, fmt.Errorf("%w: pre_tokenizer %q (want Metaspace with Unigram)", ErrUnsupported, m.Type)
	}
	return m.parse("pre_tokenizer")
}

// appendMetaspace pre-tokenizes normalized text s and appends the Unigram
// ids of each piece; first says that s begins the text.
func (t *Tokenizer) appendMetaspace(sc *scratch, ids []int32, s []byte, first bool) []int32 {
	if len(s) == 0 {
		return ids
	}
	m := &t.meta
	buf := sc.meta[:0]
	if m.prepend == prependAlways || m.prepend == prependFirst && first {
		if s[0] != ' ' && !bytes.HasPrefix(s, m.repl) {
			buf = append(buf, m.repl...)
		}
	}
	for {
		i := bytes.IndexByte(s, ' ')
		if i < 0 {
			buf = append(buf, s...)
			break
		}
		buf = append(buf, s[:i]...)
		buf = append(buf, m.repl...)
		s = s[i+1:]
	}
	sc.meta = buf
	if !m.split {
		return t.uni.appendPiece(sc, ids, buf)
	}
	// Split before every replacement character, keeping it with what
	// follows.
	for len(buf) > 0 {
		i := bytes.Index(buf[1:], m.repl)
		if i < 0 {
			return t.uni.appendPiece(sc, ids, buf)
		}
		ids = t.uni.appendPiece(sc, ids, buf[:i+1])
		buf = buf[i+1:]
	}
	return ids
}
