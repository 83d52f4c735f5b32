package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
)

// ErrUnsupported means a tokenizer.json describes a tokenizer this package
// cannot run: a model other than WordPiece (Unigram, BPE, WordLevel), or a
// normalizer, pre-tokenizer or post-processor outside the BERT family. The
// wrapping error names the component and its type.
var ErrUnsupported = errors.New("tokenizer: unsupported tokenizer.json")

// Encoding is one tokenised input, special tokens included, unpadded.
type Encoding struct {
	IDs     []int64
	TypeIDs []int64 // token_type_ids: 0 for the first segment, 1 for the second
	Mask    []int64 // attention mask: all 1 (padding is the caller's job)
}

// Tokenizer is a BERT WordPiece tokenizer loaded from a Hugging Face
// tokenizer.json. It is immutable once loaded and safe for concurrent use.
type Tokenizer struct {
	norm   *normalizer // nil: no normalizer
	wp     *wordPiece
	raw    *matcher // added tokens matched before normalization
	nrm    *matcher // added tokens matched after normalization
	single template
	pair   template
	tokens []string // by id
	padID  int64
	pool   sync.Pool
}

// scratch holds the buffers of one encoding call.
type scratch struct {
	norm []byte
	a, b []int32
}

// maxPooled bounds the buffers kept for reuse after a very long input.
const maxPooled = 1 << 20

// Load reads a tokenizer.json file.
func Load(path string) (*Tokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	t, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	return t, nil
}

// Encode tokenises one text as [CLS] text [SEP], truncated so that
// len(IDs) <= maxLen (maxLen <= 0: no limit). A maxLen too small to hold
// the special tokens still yields them: Encode(text, 1) is [CLS] [SEP].
func (t *Tokenizer) Encode(text string, maxLen int) Encoding {
	sc := t.getScratch()
	defer t.putScratch(sc)
	sc.a = t.appendText(sc, sc.a[:0], text)
	a := sc.a
	if maxLen > 0 {
		if room := max(maxLen-t.single.added, 0); len(a) > room {
			a = a[:room]
		}
	}
	return t.single.apply(a, nil)
}

// EncodePair tokenises [CLS] a [SEP] b [SEP] with Hugging Face's
// "longest_first" truncation to maxLen (maxLen <= 0: no limit): when both
// sides must shrink, each keeps half of the room, the longer side the odd
// token; otherwise only the longer one is cut.
func (t *Tokenizer) EncodePair(a, b string, maxLen int) Encoding {
	sc := t.getScratch()
	defer t.putScratch(sc)
	sc.a = t.appendText(sc, sc.a[:0], a)
	sc.b = t.appendText(sc, sc.b[:0], b)
	ia, ib := sc.a, sc.b
	if maxLen > 0 {
		n1, n2 := longestFirst(len(ia), len(ib), max(maxLen-t.pair.added, 0))
		ia, ib = ia[:n1], ib[:n2]
	}
	return t.pair.apply(ia, ib)
}

// longestFirst returns how many tokens of each side to keep so that at
// most room remain, as HF's TruncationStrategy::LongestFirst does.
func longestFirst(n1, n2, room int) (int, int) {
	if n1+n2 <= room {
		return n1, n2
	}
	k1, k2 := n1, n2
	swap := k1 > k2
	if swap {
		k1, k2 = k2, k1
	}
	if k1 > room {
		k2 = k1
	} else {
		k2 = max(k1, room-k1)
	}
	if k1+k2 > room {
		k1 = room / 2
		k2 = k1 + room%2
	}
	if swap {
		k1, k2 = k2, k1
	}
	return min(k1, n1), min(k2, n2)
}

// Tokens returns the wordpiece strings of text without special tokens
// (debugging, explain). Added tokens written in the text, such as a
// literal "[MASK]", appear as themselves.
func (t *Tokenizer) Tokens(text string) []string {
	sc := t.getScratch()
	defer t.putScratch(sc)
	sc.a = t.appendText(sc, sc.a[:0], text)
	out := make([]string, len(sc.a))
	for i, id := range sc.a {
		out[i] = t.tokens[id]
	}
	return out
}

// PadID returns the id of the padding token.
func (t *Tokenizer) PadID() int64 { return t.padID }

// VocabSize returns the number of token ids, added tokens included; every
// id Encode returns is below it.
func (t *Tokenizer) VocabSize() int { return len(t.tokens) }

// appendText appends the ids of text, without special tokens, to ids.
func (t *Tokenizer) appendText(sc *scratch, ids []int32, text string) []int32 {
	for len(text) > 0 {
		start, end, id, ok := find(t.raw, text)
		if !ok {
			return t.appendSegment(sc, ids, text)
		}
		ids = t.appendSegment(sc, ids, text[:start])
		ids = append(ids, id)
		text = text[end:]
	}
	return ids
}

// appendSegment normalizes a piece of text free of raw added tokens and
// appends its ids.
func (t *Tokenizer) appendSegment(sc *scratch, ids []int32, seg string) []int32 {
	if seg == "" {
		return ids
	}
	if t.norm != nil {
		sc.norm = t.norm.append(sc.norm[:0], seg)
	} else {
		sc.norm = append(sc.norm[:0], seg...)
	}
	s := sc.norm
	for len(s) > 0 {
		start, end, id, ok := find(t.nrm, s)
		if !ok {
			return t.appendWords(ids, s)
		}
		ids = t.appendWords(ids, s[:start])
		ids = append(ids, id)
		s = s[end:]
	}
	return ids
}

func (t *Tokenizer) getScratch() *scratch {
	if sc, ok := t.pool.Get().(*scratch); ok {
		return sc
	}
	return new(scratch)
}

func (t *Tokenizer) putScratch(sc *scratch) {
	if cap(sc.norm) > maxPooled || cap(sc.a) > maxPooled || cap(sc.b) > maxPooled {
		return
	}
	t.pool.Put(sc)
}

// tokenizerJSON is the part of tokenizer.json this package reads.
type tokenizerJSON struct {
	AddedTokens []struct {
		ID         int64  `json:"id"`
		Content    string `json:"content"`
		Normalized bool   `json:"normalized"`
	} `json:"added_tokens"`
	Normalizer    json.RawMessage `json:"normalizer"`
	PreTokenizer  json.RawMessage `json:"pre_tokenizer"`
	PostProcessor json.RawMessage `json:"post_processor"`
	Padding       *struct {
		PadID int64 `json:"pad_id"`
	} `json:"padding"`
	Model struct {
		Type                    string          `json:"type"`
		UnkToken                string          `json:"unk_token"`
		ContinuingSubwordPrefix *string         `json:"continuing_subword_prefix"`
		MaxInputCharsPerWord    int             `json:"max_input_chars_per_word"`
		Vocab                   json.RawMessage `json:"vocab"`
	} `json:"model"`
}

// Parse reads the bytes of a tokenizer.json file. It returns an error
// wrapping ErrUnsupported for tokenizers other than BERT WordPiece.
func Parse(data []byte) (*Tokenizer, error) {
	var f tokenizerJSON
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("tokenizer: parse tokenizer.json: %w", err)
	}
	// The door to other models: a case here and an implementation.
	switch f.Model.Type {
	case "WordPiece":
	case "":
		return nil, fmt.Errorf("%w: no model type (only BERT WordPiece tokenizers are supported)", ErrUnsupported)
	default:
		return nil, fmt.Errorf("%w: model type %q (only BERT WordPiece tokenizers are supported)", ErrUnsupported, f.Model.Type)
	}
	var vocab map[string]int32
	if err := json.Unmarshal(f.Model.Vocab, &vocab); err != nil {
		return nil, fmt.Errorf("tokenizer: parse WordPiece vocab: %w", err)
	}
	if len(vocab) == 0 {
		return nil, errors.New("tokenizer: empty WordPiece vocab")
	}
	prefix := "##"
	if f.Model.ContinuingSubwordPrefix != nil {
		prefix = *f.Model.ContinuingSubwordPrefix
	}
	unk := f.Model.UnkToken
	if unk == "" {
		unk = "[UNK]"
	}
	wp, err := newWordPiece(vocab, unk, prefix, f.Model.MaxInputCharsPerWord)
	if err != nil {
		return nil, err
	}
	t := &Tokenizer{wp: wp}

	size := 0
	for tok, id := range vocab {
		if id < 0 {
			return nil, fmt.Errorf("tokenizer: token %q has id %d, want >= 0", tok, id)
		}
		size = max(size, int(id)+1)
	}
	var raw, nrm []addedToken
	for _, a := range f.AddedTokens {
		if a.ID < 0 || a.ID >= 1<<31 {
			return nil, fmt.Errorf("tokenizer: added token %q has id %d, want 0..2^31", a.Content, a.ID)
		}
		if a.Content == "" {
			continue
		}
		size = max(size, int(a.ID)+1)
		if a.Normalized {
			nrm = append(nrm, addedToken{a.Content, int32(a.ID)})
		} else {
			raw = append(raw, addedToken{a.Content, int32(a.ID)})
		}
	}
	t.raw, t.nrm = newMatcher(raw), newMatcher(nrm)
	t.tokens = make([]string, size)
	for tok, id := range vocab {
		t.tokens[id] = tok
	}
	for _, a := range f.AddedTokens {
		if a.Content != "" {
			t.tokens[a.ID] = a.Content
		}
	}
	ids := func(tok string) (int32, bool) {
		for _, a := range f.AddedTokens {
			if a.Content == tok {
				return int32(a.ID), true
			}
		}
		id, ok := vocab[tok]
		return id, ok
	}

	if t.norm, err = parseNormalizer(f.Normalizer); err != nil {
		return nil, err
	}
	if err := checkPreTokenizer(f.PreTokenizer); err != nil {
		return nil, err
	}
	if t.single, t.pair, err = parsePostProcessor(f.PostProcessor, ids); err != nil {
		return nil, err
	}
	for _, tp := range []template{t.single, t.pair} {
		for _, p := range tp.pieces {
			for _, id := range p.ids {
				if id < 0 || int(id) >= size {
					return nil, fmt.Errorf("tokenizer: post_processor token id %d out of range, want 0..%d", id, size-1)
				}
			}
		}
	}

	switch {
	case f.Padding != nil:
		t.padID = f.Padding.PadID
	default:
		if id, ok := ids("[PAD]"); ok {
			t.padID = int64(id)
		}
	}
	return t, nil
}

// parseNormalizer reads a BertNormalizer, or a Sequence of BertNormalizer,
// Lowercase, NFD and StripAccents (NFD first); null means none.
func parseNormalizer(data json.RawMessage) (*normalizer, error) {
	if isNull(data) {
		return nil, nil
	}
	type normJSON struct {
		Type               string            `json:"type"`
		CleanText          *bool             `json:"clean_text"`
		HandleChineseChars *bool             `json:"handle_chinese_chars"`
		StripAccents       *bool             `json:"strip_accents"`
		Lowercase          *bool             `json:"lowercase"`
		Normalizers        []json.RawMessage `json:"normalizers"`
	}
	var n normJSON
	if err := json.Unmarshal(data, &n); err != nil {
		return nil, fmt.Errorf("tokenizer: parse normalizer: %w", err)
	}
	orTrue := func(b *bool) bool { return b == nil || *b }
	switch n.Type {
	case "BertNormalizer":
		lower := orTrue(n.Lowercase)
		strip := lower
		if n.StripAccents != nil {
			strip = *n.StripAccents
		}
		return newNormalizer(orTrue(n.CleanText), orTrue(n.HandleChineseChars), strip, lower), nil
	case "Sequence":
		var clean, chinese, strip, lower, nfd bool
		for _, raw := range n.Normalizers {
			var m normJSON
			if err := json.Unmarshal(raw, &m); err != nil {
				return nil, fmt.Errorf("tokenizer: parse normalizer: %w", err)
			}
			switch m.Type {
			case "BertNormalizer":
				b, err := parseNormalizer(raw)
				if err != nil {
					return nil, err
				}
				clean, chinese = clean || b.clean, chinese || b.chinese
				strip, lower = strip || b.strip, lower || b.lower
			case "Lowercase":
				lower = true
			case "NFD":
				nfd = true
			case "StripAccents":
				if !nfd {
					return nil, fmt.Errorf("%w: normalizer StripAccents without NFD before it", ErrUnsupported)
				}
				strip = true
			default:
				return nil, fmt.Errorf("%w: normalizer %q in a Sequence (only BERT WordPiece tokenizers are supported)", ErrUnsupported, m.Type)
			}
		}
		if nfd && !strip {
			return nil, fmt.Errorf("%w: normalizer NFD without StripAccents", ErrUnsupported)
		}
		return newNormalizer(clean, chinese, strip, lower), nil
	}
	return nil, fmt.Errorf("%w: normalizer %q (only BERT WordPiece tokenizers are supported)", ErrUnsupported, n.Type)
}

// checkPreTokenizer accepts BertPreTokenizer, alone or as the only member
// of a Sequence.
func checkPreTokenizer(data json.RawMessage) error {
	var p struct {
		Type          string            `json:"type"`
		PreTokenizers []json.RawMessage `json:"pretokenizers"`
	}
	if isNull(data) {
		return fmt.Errorf("%w: no pre_tokenizer (want BertPreTokenizer)", ErrUnsupported)
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return fmt.Errorf("tokenizer: parse pre_tokenizer: %w", err)
	}
	switch {
	case p.Type == "BertPreTokenizer":
		return nil
	case p.Type == "Sequence" && len(p.PreTokenizers) == 1:
		return checkPreTokenizer(p.PreTokenizers[0])
	}
	return fmt.Errorf("%w: pre_tokenizer %q (want BertPreTokenizer)", ErrUnsupported, p.Type)
}

func isNull(data json.RawMessage) bool {
	return len(data) == 0 || string(data) == "null"
}
