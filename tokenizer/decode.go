package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"
)

// decoder turns tokens back into text.
type decoder struct {
	kind string // "": tokens joined by spaces; "WordPiece", "Metaspace"; else unsupported
	// WordPiece.
	prefix  string
	cleanup bool
	// Metaspace.
	meta metaspace
}

// parseDecoder reads a WordPiece or Metaspace decoder; null means none. A
// decoder of another type is kept by name, for Decode to refuse.
func parseDecoder(data json.RawMessage) (decoder, error) {
	if isNull(data) {
		return decoder{}, nil
	}
	var d struct {
		metaspaceJSON
		Prefix  *string `json:"prefix"`
		Cleanup *bool   `json:"cleanup"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		return decoder{}, fmt.Errorf("tokenizer: parse decoder: %w", err)
	}
	dec := decoder{kind: d.Type}
	switch d.Type {
	case "WordPiece":
		dec.prefix, dec.cleanup = "##", true
		if d.Prefix != nil {
			dec.prefix = *d.Prefix
		}
		if d.Cleanup != nil {
			dec.cleanup = *d.Cleanup
		}
	case "Metaspace":
		m, err := d.metaspaceJSON.parse("decoder")
		if err != nil {
			return decoder{}, err
		}
		dec.meta = m
	case "":
		return decoder{}, fmt.Errorf("tokenizer: decoder without a type")
	}
	return dec, nil
}

// Decode returns the text that ids stand for, as the reference library's
// decode(ids, skip_special_tokens=True) does: special tokens and ids
// outside the vocabulary are left out, and the decoder joins the rest
// (WordPiece: "##" pieces glued on, spaces before punctuation cleaned up;
// Metaspace: "▁" back to spaces, the first token's dropped). The text is
// the normalized one: accents stripped or case folded by the normalizer
// stay so. It returns an error wrapping ErrUnsupported for a decoder other
// than WordPiece and Metaspace.
func (t *Tokenizer) Decode(ids []int64) (string, error) {
	var b strings.Builder
	n := 0
	for _, id := range ids {
		if id < 0 || id >= int64(len(t.tokens)) || t.special[id] || t.tokens[id] == "" {
			continue
		}
		tok := t.tokens[id]
		switch t.dec.kind {
		case "":
			if n > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(tok)
		case "WordPiece":
			if n > 0 {
				if rest, ok := strings.CutPrefix(tok, t.dec.prefix); ok {
					tok = rest
				} else {
					tok = " " + tok
				}
			}
			if t.dec.cleanup {
				tok = cleanup(tok)
			}
			b.WriteString(tok)
		case "Metaspace":
			repl := string(t.dec.meta.repl)
			if n == 0 && t.dec.meta.prepend != prependNever {
				tok = strings.ReplaceAll(tok, repl, "")
			} else {
				tok = strings.ReplaceAll(tok, repl, " ")
			}
			b.WriteString(tok)
		default:
			return "", fmt.Errorf("%w: decoder %q (want WordPiece or Metaspace)", ErrUnsupported, t.dec.kind)
		}
		n++
	}
	return b.String(), nil
}

// cleanupReplacer is the WordPiece decoder's cleanup: no space before
// punctuation and English contractions.
var cleanupReplacer = []string{
	" .", ".", " ?", "?", " !", "!", " ,", ",", " ' ", "'", " n't", "n't",
	" 'm", "'m", " do not", " don't", " 's", "'s", " 've", "'ve", " 're", "'re",
}

// cleanup applies the replacements one after the other, as the reference
// does (a strings.Replacer would apply them in one pass, differently).
func cleanup(s string) string {
	for i := 0; i < len(cleanupReplacer); i += 2 {
		s = strings.ReplaceAll(s, cleanupReplacer[i], cleanupReplacer[i+1])
	}
	return s
}
