package tokenizer

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"unicode/utf8"
)

// ErrUnsupported means a tokenizer.json describes a tokenizer this package
// cannot run: a model other than WordPiece and Unigram (BPE, WordLevel), or
// a normalizer, pre-tokenizer or post-processor outside the BERT and
// SentencePiece families. The wrapping error names the component and its
// type.
var ErrUnsupported = errors.New("tokenizer: unsupported tokenizer.json")

// Encoding is one tokenised input, special tokens included, unpadded.
type Encoding struct {
	IDs     []int64
	TypeIDs []int64 // token_type_ids: 0 for the first segment, 1 for the second
	Mask    []int64 // attention mask: all 1 (padding is the caller's job)
}

// Tokenizer is a BERT WordPiece or SentencePiece Unigram tokenizer loaded
// from a Hugging Face tokenizer.json. It is immutable once loaded and safe
// for concurrent use.
type Tokenizer struct {
	norm  *normalizer // BERT-family normalizer; nil: steps, or none
	steps []normStep  // SentencePiece-family normalizers, in order
	// valid makes encoding replace invalid UTF-8 first, as Python's
	// decode(errors="replace") does; the BERT normalizer needs no such pass.
	valid  bool
	wp     *wordPiece // the model: wp or uni
	uni    *unigram
	meta   metaspace // Unigram's pre-tokenizer
	raw    *matcher  // added tokens matched before normalization
	nrm    *matcher  // added tokens matched after normalization
	single template
	pair   template
	dec    decoder
	tokens []string // by id
	// special marks the ids of added tokens flagged special, which Decode
	// leaves out.
	special []bool
	padID   int64
	pool    sync.Pool
}

// scratch holds the buffers of one encoding call.
type scratch struct {
	norm, norm2, meta []byte
	a, b              []int32
	lattice           []latticeNode
	path              []int32
}

// maxVocab bounds token ids, and so the tables indexed by them that a
// hostile file could otherwise make gigabytes long; the largest real
// vocabularies hold a quarter of a million tokens.
const maxVocab = 1 << 24

// maxPooled bounds the buffers kept for reuse after a very long input.
const maxPooled = 1 << 20

// Load reads a tokenizer.json file.
func Load(path string) (*Tokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: %w", err)
	}
	t, err := parse(data, true)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", path, err)
	}
	return t, nil
}

// Encode tokenises one text with the post-processor's single template
// ([CLS] text [SEP], <s> text </s>), truncated so that len(IDs) <= maxLen
// (maxLen <= 0: no limit). A maxLen too small to hold the special tokens
// still yields them: Encode(text, 1) is [CLS] [SEP].
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

// EncodePair tokenises a pair with the pair template ([CLS] a [SEP] b
// [SEP], <s> a </s></s> b </s>) and Hugging Face's "longest_first"
// truncation to maxLen (maxLen <= 0: no limit): when both sides must
// shrink, each keeps half of the room, the longer side the odd token;
// otherwise only the longer one is cut.
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

// Tokens returns the token strings of text without the template's special
// tokens (debugging, explain). Added tokens written in the text, such as a
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

// PadID returns the id of the padding token: the padding block's pad_id,
// else that of [PAD] or <pad>, else 0.
func (t *Tokenizer) PadID() int64 { return t.padID }

// VocabSize returns the number of token ids, added tokens included; every
// id Encode returns is below it.
func (t *Tokenizer) VocabSize() int { return len(t.tokens) }

// appendText appends the ids of text, without special tokens, to ids.
func (t *Tokenizer) appendText(sc *scratch, ids []int32, text string) []int32 {
	if t.valid && !utf8.ValidString(text) {
		text = validUTF8(text)
	}
	pos, off := 0, 0
	for {
		start, end, next, id, ok := nextAdded(t.raw, text, pos, off)
		if !ok {
			break
		}
		if off < start {
			ids = t.appendSegment(sc, ids, text[off:start], off == 0)
		}
		ids = append(ids, id)
		off, pos = end, next
	}
	if off < len(text) {
		ids = t.appendSegment(sc, ids, text[off:], off == 0)
	}
	return ids
}

// appendSegment normalizes a piece of text free of raw added tokens and
// appends its ids; first says that it begins the text.
func (t *Tokenizer) appendSegment(sc *scratch, ids []int32, seg string, first bool) []int32 {
	if seg == "" {
		return ids
	}
	switch {
	case t.norm != nil:
		sc.norm = t.norm.append(sc.norm[:0], seg)
	case len(t.steps) > 0:
		sc.norm2 = append(sc.norm2[:0], seg...)
		for _, st := range t.steps {
			sc.norm = st.append(sc.norm[:0], sc.norm2)
			sc.norm, sc.norm2 = sc.norm2, sc.norm
		}
		sc.norm, sc.norm2 = sc.norm2, sc.norm
	default:
		sc.norm = append(sc.norm[:0], seg...)
	}
	s := sc.norm
	if t.nrm == nil {
		return t.appendWords(sc, ids, s, first)
	}
	pos, off := 0, 0
	for {
		start, end, next, id, ok := nextAdded(t.nrm, s, pos, off)
		if !ok {
			break
		}
		if off < start {
			ids = t.appendWords(sc, ids, s[off:start], first && off == 0)
		}
		ids = append(ids, id)
		off, pos = end, next
	}
	if off < len(s) {
		ids = t.appendWords(sc, ids, s[off:], first && off == 0)
	}
	return ids
}

// appendWords pre-tokenizes normalized text s and runs the model on each
// piece; first says that s begins the text.
func (t *Tokenizer) appendWords(sc *scratch, ids []int32, s []byte, first bool) []int32 {
	if t.uni != nil {
		return t.appendMetaspace(sc, ids, s, first)
	}
	return t.appendBertWords(ids, s)
}

func (t *Tokenizer) getScratch() *scratch {
	if sc, ok := t.pool.Get().(*scratch); ok {
		return sc
	}
	return new(scratch)
}

func (t *Tokenizer) putScratch(sc *scratch) {
	if cap(sc.norm) > maxPooled || cap(sc.norm2) > maxPooled || cap(sc.meta) > maxPooled ||
		cap(sc.a) > maxPooled || cap(sc.b) > maxPooled || cap(sc.lattice) > maxPooled/16 || cap(sc.path) > maxPooled {
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
		Special    bool   `json:"special"`
		Lstrip     bool   `json:"lstrip"`
		Rstrip     bool   `json:"rstrip"`
		SingleWord bool   `json:"single_word"`
	} `json:"added_tokens"`
	Normalizer    json.RawMessage `json:"normalizer"`
	PreTokenizer  json.RawMessage `json:"pre_tokenizer"`
	PostProcessor json.RawMessage `json:"post_processor"`
	Decoder       json.RawMessage `json:"decoder"`
	Padding       *struct {
		PadID int64 `json:"pad_id"`
	} `json:"padding"`
	Model struct {
		Type string `json:"type"`
		// WordPiece.
		UnkToken                string  `json:"unk_token"`
		ContinuingSubwordPrefix *string `json:"continuing_subword_prefix"`
		MaxInputCharsPerWord    int     `json:"max_input_chars_per_word"`
		// Unigram.
		UnkID        *int `json:"unk_id"`
		ByteFallback bool `json:"byte_fallback"`
		// A map for WordPiece, a list of [piece, score] for Unigram.
		Vocab json.RawMessage `json:"vocab"`
	} `json:"model"`
	// words is the model's vocab when it is an object, read by parseFile
	// (see scanner.wordPieceVocab).
	words *wpVocab
}

// Parse reads the bytes of a tokenizer.json file. It returns an error
// wrapping ErrUnsupported for tokenizers other than BERT WordPiece and
// SentencePiece Unigram ones.
func Parse(data []byte) (*Tokenizer, error) { return parse(data, false) }

// parse is Parse; owned says that data is the caller's to give away: it
// will never change, so that the tokens may point into it.
func parse(data []byte, owned bool) (*Tokenizer, error) {
	f, err := parseFile(data, owned)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: parse tokenizer.json: %w", err)
	}
	t := &Tokenizer{}
	// tokens holds the model's pieces by id; idOf finds a model piece.
	var tokens []string
	var idOf func(string) (int32, bool)
	switch f.Model.Type {
	case "WordPiece":
		vocab := f.words
		if vocab == nil && !isNull(f.Model.Vocab) {
			return nil, fmt.Errorf("tokenizer: WordPiece vocab %.20q is not an object of token ids", f.Model.Vocab)
		}
		if vocab == nil || vocab.table.n == 0 {
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
		tokens = vocab.tokens
		if err := checkPreTokenizer(f.PreTokenizer); err != nil {
			return nil, err
		}
		t.wp = wp
		idOf = vocab.table.findString
	case "Unigram":
		vocab, err := parseVocab(f.Model.Vocab, owned)
		if err != nil {
			return nil, err
		}
		if f.Model.UnkID == nil {
			return nil, fmt.Errorf("%w: Unigram model without unk_id", ErrUnsupported)
		}
		uni, err := newUnigram(vocab, *f.Model.UnkID, f.Model.ByteFallback)
		if err != nil {
			return nil, err
		}
		tokens = make([]string, len(vocab))
		for id, e := range vocab {
			tokens[id] = e.piece
		}
		if t.meta, err = parseMetaspace(f.PreTokenizer); err != nil {
			return nil, err
		}
		t.uni, t.valid = uni, true
		idOf = func(tok string) (int32, bool) { id, ok := uni.ids[tok]; return id, ok }
	case "":
		return nil, fmt.Errorf("%w: no model type (want WordPiece or Unigram)", ErrUnsupported)
	default:
		return nil, fmt.Errorf("%w: model type %q (want WordPiece or Unigram)", ErrUnsupported, f.Model.Type)
	}

	size := len(tokens)
	var raw, nrm []addedToken
	for _, a := range f.AddedTokens {
		if a.ID < 0 || a.ID >= maxVocab {
			return nil, fmt.Errorf("tokenizer: added token %q has id %d, want 0..%d", a.Content, a.ID, maxVocab-1)
		}
		if a.Content == "" {
			continue
		}
		size = max(size, int(a.ID)+1)
		at := addedToken{content: a.Content, id: int32(a.ID), lstrip: a.Lstrip, rstrip: a.Rstrip, singleWord: a.SingleWord}
		if a.Normalized {
			nrm = append(nrm, at)
		} else {
			raw = append(raw, at)
		}
	}
	t.raw, t.nrm = newMatcher(raw), newMatcher(nrm)
	// tokens may be the keys of the WordPiece table: reuse its array only
	// if the added tokens leave those as they are (they repeat the vocab's
	// tokens in the usual file); the rest of the array is all "".
	reuse := size <= cap(tokens)
	for _, a := range f.AddedTokens {
		if a.Content != "" && int(a.ID) < len(tokens) && tokens[a.ID] != a.Content {
			reuse = false
		}
	}
	if reuse {
		t.tokens = tokens[:size]
	} else {
		t.tokens = make([]string, size)
		copy(t.tokens, tokens)
	}
	t.special = make([]bool, size)
	for _, a := range f.AddedTokens {
		if a.Content != "" {
			t.tokens[a.ID] = a.Content
			t.special[a.ID] = a.Special
		}
	}
	ids := func(tok string) (int32, bool) {
		for _, a := range f.AddedTokens {
			if a.Content == tok {
				return int32(a.ID), true
			}
		}
		return idOf(tok)
	}

	if t.norm, t.steps, err = parseNormalizers(f.Normalizer); err != nil {
		return nil, err
	}
	t.valid = t.valid || t.norm == nil
	if t.single, t.pair, err = parsePostProcessor(f.PostProcessor, ids, t.uni == nil); err != nil {
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
	if t.dec, err = parseDecoder(f.Decoder); err != nil {
		return nil, err
	}

	switch {
	case f.Padding != nil:
		t.padID = f.Padding.PadID
	default:
		for _, name := range []string{"[PAD]", "<pad>"} {
			if id, ok := ids(name); ok {
				t.padID = int64(id)
				break
			}
		}
	}
	return t, nil
}

// parseFile reads the top level of a tokenizer.json, checking all of it
// (see scanner), and the model's fields; a vocab that is an object is read
// as a WordPiece one on the way.
func parseFile(data []byte, owned bool) (*tokenizerJSON, error) {
	f := new(tokenizerJSON)
	s := scanner{data: data, owned: owned}
	var fields, model []jsonField
	switch s.ws() {
	case '{':
		s.object(func(key []byte, plain bool) {
			k, v := s.key(key, plain), s.pos
			if k == "model" {
				model, f.words = nil, nil
				if s.ws() == '{' {
					s.object(func(key []byte, plain bool) {
						k, v := s.key(key, plain), s.pos
						if k == "vocab" {
							f.words = nil // a repeated vocab: the last one counts
						}
						if k == "vocab" && s.ws() == '{' {
							f.words = s.wordPieceVocab()
						} else {
							s.value()
						}
						model = append(model, jsonField{k, data[v:s.pos]})
					})
					fields = append(fields, jsonField{k, data[v:s.pos]})
					return
				}
			}
			s.value()
			fields = append(fields, jsonField{k, data[v:s.pos]})
		})
	case 'n':
		s.literal("null")
	default:
		s.failAt("an object")
	}
	if s.end(); s.err != nil {
		return nil, s.err
	}
	if err := decodeFields(fields, map[string]any{"added_tokens": &f.AddedTokens, "padding": &f.Padding}); err != nil {
		return nil, err
	}
	f.Normalizer, f.PreTokenizer = field(fields, "normalizer"), field(fields, "pre_tokenizer")
	f.PostProcessor, f.Decoder = field(fields, "post_processor"), field(fields, "decoder")
	if m := field(fields, "model"); m != nil && !isNull(m) && model == nil && m[0] != '{' {
		return nil, fmt.Errorf("field \"model\": %.20q is not an object", m)
	}
	m := &f.Model
	err := decodeFields(model, map[string]any{
		"type": &m.Type, "unk_token": &m.UnkToken, "continuing_subword_prefix": &m.ContinuingSubwordPrefix,
		"max_input_chars_per_word": &m.MaxInputCharsPerWord, "unk_id": &m.UnkID, "byte_fallback": &m.ByteFallback,
	})
	if err != nil {
		return nil, fmt.Errorf("field \"model\": %w", err)
	}
	m.Vocab = field(model, "vocab")
	return f, nil
}

// parseNormalizers reads the normalizer: the BERT family (see
// parseNormalizer) runs as one fused pass, anything else as a chain of
// steps (see parseChain); null means none.
func parseNormalizers(data json.RawMessage) (*normalizer, []normStep, error) {
	if isNull(data) {
		return nil, nil, nil
	}
	n, err := parseNormalizer(data)
	if err == nil || !errors.Is(err, ErrUnsupported) {
		return n, nil, err
	}
	steps, err := parseChain(data)
	if err != nil {
		return nil, nil, err
	}
	return nil, steps, nil
}

// parseNormalizer reads a BertNormalizer, or a Sequence of BertNormalizer,
// Lowercase, NFD and StripAccents (NFD first); null means none.
func parseNormalizer(data json.RawMessage) (*normalizer, error) {
	if isNull(data) {
		return nil, nil
	}
	type normJSON struct {
		CleanText          *bool `json:"clean_text"`
		HandleChineseChars *bool `json:"handle_chinese_chars"`
		StripAccents       *bool `json:"strip_accents"`
		Lowercase          *bool `json:"lowercase"`
	}
	// The type comes first: a SentencePiece normalizer holds a
	// precompiled_charsmap of hundreds of KB that encoding/json would
	// decode for nothing.
	fields, err := jsonObject(data, true)
	if err != nil {
		return nil, fmt.Errorf("tokenizer: parse normalizer: %w", err)
	}
	typ, err := stringField(fields, "type")
	if err != nil {
		return nil, fmt.Errorf("tokenizer: parse normalizer: %w", err)
	}
	orTrue := func(b *bool) bool { return b == nil || *b }
	switch typ {
	case "BertNormalizer":
		var n normJSON
		if err := json.Unmarshal(data, &n); err != nil {
			return nil, fmt.Errorf("tokenizer: parse normalizer: %w", err)
		}
		lower := orTrue(n.Lowercase)
		strip := lower
		if n.StripAccents != nil {
			strip = *n.StripAccents
		}
		return newNormalizer(orTrue(n.CleanText), orTrue(n.HandleChineseChars), strip, lower), nil
	case "Sequence":
		items, err := jsonArray(field(fields, "normalizers"))
		if err != nil {
			return nil, fmt.Errorf("tokenizer: parse normalizer: %w", err)
		}
		var clean, chinese, strip, lower, nfd bool
		for _, raw := range items {
			mf, err := jsonObject(raw, true)
			if err != nil {
				return nil, fmt.Errorf("tokenizer: parse normalizer: %w", err)
			}
			typ, err := stringField(mf, "type")
			if err != nil {
				return nil, fmt.Errorf("tokenizer: parse normalizer: %w", err)
			}
			switch typ {
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
				return nil, fmt.Errorf("%w: normalizer %q in a BERT Sequence", ErrUnsupported, typ)
			}
		}
		if nfd && !strip {
			return nil, fmt.Errorf("%w: normalizer NFD without StripAccents", ErrUnsupported)
		}
		return newNormalizer(clean, chinese, strip, lower), nil
	}
	return nil, fmt.Errorf("%w: normalizer %q outside the BERT family", ErrUnsupported, typ)
}

// checkPreTokenizer accepts BertPreTokenizer, alone or as the only member
// of a Sequence: the pre-tokenizer of a WordPiece model.
func checkPreTokenizer(data json.RawMessage) error {
	var p struct {
		Type          string            `json:"type"`
		PreTokenizers []json.RawMessage `json:"pretokenizers"`
	}
	if isNull(data) {
		return fmt.Errorf("%w: no pre_tokenizer (want BertPreTokenizer with WordPiece)", ErrUnsupported)
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
	return fmt.Errorf("%w: pre_tokenizer %q (want BertPreTokenizer with WordPiece)", ErrUnsupported, p.Type)
}

func isNull(data json.RawMessage) bool {
	return len(data) == 0 || string(data) == "null"
}

// validUTF8 returns s with each maximal invalid subpart (a lone byte, or
// the valid start of a truncated sequence) replaced by U+FFFD, as Python's
// bytes.decode("utf-8", errors="replace") does.
func validUTF8(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError || size > 1 {
			b.WriteString(s[i : i+size])
			i += size
			continue
		}
		b.WriteRune(utf8.RuneError)
		i += maximalSubpart(s[i:])
	}
	return b.String()
}

// maximalSubpart returns the length of the invalid sequence at the start
// of s: its lead byte and the continuation bytes that could still have
// completed it.
func maximalSubpart(s string) int {
	need, lo, hi := 0, byte(0x80), byte(0xBF)
	switch c := s[0]; {
	case 0xC2 <= c && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c == 0xED:
		need, hi = 2, 0x9F
	case 0xE1 <= c && c <= 0xEF:
		need = 2
	case c == 0xF0:
		need, lo = 3, 0x90
	case c == 0xF4:
		need, hi = 3, 0x8F
	case 0xF1 <= c && c <= 0xF3:
		need = 3
	}
	n := 1
	for ; n <= need && n < len(s); n++ {
		if s[n] < lo || s[n] > hi {
			break
		}
		lo, hi = 0x80, 0xBF
	}
	return n
}
