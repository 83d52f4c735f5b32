package tokenizer

import (
	"encoding/json"
	"fmt"
)

// template is the post-processor: where the special tokens go around the
// sequences, and each piece's token type id.
type template struct {
	pieces []templatePiece
	added  int // number of special-token ids
}

type templatePiece struct {
	seq    int     // 0: sequence A, 1: sequence B, -1: special tokens
	ids    []int32 // the special tokens' ids when seq is -1
	typeID int64
}

// apply builds the Encoding of token ids a (and b, for a pair template).
// The three slices share one allocation, each capped at its length.
func (tp template) apply(a, b []int32) Encoding {
	n := tp.added + len(a) + len(b)
	buf := make([]int64, 3*n)
	ids, types, mask := buf[0:0:n], buf[n:n:2*n], buf[2*n:3*n:3*n]
	for _, p := range tp.pieces {
		src := p.ids
		switch p.seq {
		case 0:
			src = a
		case 1:
			src = b
		}
		for _, id := range src {
			ids = append(ids, int64(id))
			types = append(types, p.typeID)
		}
	}
	for i := range mask {
		mask[i] = 1
	}
	return Encoding{IDs: ids, TypeIDs: types, Mask: mask}
}

func newTemplate(pieces []templatePiece) template {
	tp := template{pieces: pieces}
	for _, p := range pieces {
		tp.added += len(p.ids)
	}
	return tp
}

// bertTemplates is [CLS] A [SEP] and [CLS] A [SEP] B [SEP], B's part of
// type 1.
func bertTemplates(cls, sep int32) (single, pair template) {
	single = newTemplate([]templatePiece{
		{seq: -1, ids: []int32{cls}}, {seq: 0}, {seq: -1, ids: []int32{sep}},
	})
	pair = newTemplate([]templatePiece{
		{seq: -1, ids: []int32{cls}}, {seq: 0}, {seq: -1, ids: []int32{sep}},
		{seq: 1, typeID: 1}, {seq: -1, ids: []int32{sep}, typeID: 1},
	})
	return single, pair
}

// robertaTemplates is <s> A </s> and <s> A </s> </s> B </s>, all of type
// 0, as RobertaProcessing writes them.
func robertaTemplates(cls, sep int32) (single, pair template) {
	single = newTemplate([]templatePiece{
		{seq: -1, ids: []int32{cls}}, {seq: 0}, {seq: -1, ids: []int32{sep}},
	})
	pair = newTemplate([]templatePiece{
		{seq: -1, ids: []int32{cls}}, {seq: 0}, {seq: -1, ids: []int32{sep, sep}},
		{seq: 1}, {seq: -1, ids: []int32{sep}},
	})
	return single, pair
}

// parsePostProcessor reads a TemplateProcessing, BertProcessing or
// RobertaProcessing post-processor. Without one, bertFallback picks BERT's
// [CLS]/[SEP] template, so that every WordPiece Encoding carries them;
// otherwise the text goes through bare, as in the reference.
func parsePostProcessor(data json.RawMessage, idOf func(string) (int32, bool), bertFallback bool) (single, pair template, err error) {
	var p struct {
		Type   string            `json:"type"`
		Single []json.RawMessage `json:"single"`
		Pair   []json.RawMessage `json:"pair"`
		Cls    []json.RawMessage `json:"cls"`
		Sep    []json.RawMessage `json:"sep"`
		// SpecialTokens maps a template's token name to its ids.
		SpecialTokens map[string]struct {
			IDs []int32 `json:"ids"`
		} `json:"special_tokens"`
	}
	if !isNull(data) {
		if err := json.Unmarshal(data, &p); err != nil {
			return single, pair, fmt.Errorf("tokenizer: parse post_processor: %w", err)
		}
	}
	switch p.Type {
	case "":
		if !bertFallback {
			return newTemplate([]templatePiece{{seq: 0}}), newTemplate([]templatePiece{{seq: 0}, {seq: 1}}), nil
		}
		cls, ok1 := idOf("[CLS]")
		sep, ok2 := idOf("[SEP]")
		if !ok1 || !ok2 {
			return single, pair, fmt.Errorf("%w: no post_processor and no [CLS]/[SEP] tokens", ErrUnsupported)
		}
		single, pair = bertTemplates(cls, sep)
		return single, pair, nil
	case "BertProcessing":
		cls, err1 := tokenPair(p.Cls)
		sep, err2 := tokenPair(p.Sep)
		if err1 != nil || err2 != nil {
			return single, pair, fmt.Errorf("tokenizer: parse BertProcessing: cls %v, sep %v", err1, err2)
		}
		single, pair = bertTemplates(cls, sep)
		return single, pair, nil
	case "RobertaProcessing":
		cls, err1 := tokenPair(p.Cls)
		sep, err2 := tokenPair(p.Sep)
		if err1 != nil || err2 != nil {
			return single, pair, fmt.Errorf("tokenizer: parse RobertaProcessing: cls %v, sep %v", err1, err2)
		}
		single, pair = robertaTemplates(cls, sep)
		return single, pair, nil
	case "TemplateProcessing":
		parse := func(items []json.RawMessage, seqs int) (template, error) {
			var pieces []templatePiece
			seen := [2]bool{}
			for _, raw := range items {
				var it map[string]struct {
					ID     string `json:"id"`
					TypeID int64  `json:"type_id"`
				}
				if err := json.Unmarshal(raw, &it); err != nil {
					return template{}, fmt.Errorf("tokenizer: parse TemplateProcessing: %w", err)
				}
				if s, ok := it["Sequence"]; ok {
					seq := map[string]int{"A": 0, "B": 1}[s.ID]
					if s.ID != "A" && s.ID != "B" || seq >= seqs {
						return template{}, fmt.Errorf("tokenizer: TemplateProcessing sequence %q, want A or B", s.ID)
					}
					seen[seq] = true
					pieces = append(pieces, templatePiece{seq: seq, typeID: s.TypeID})
				} else if s, ok := it["SpecialToken"]; ok {
					st, ok := p.SpecialTokens[s.ID]
					if !ok {
						return template{}, fmt.Errorf("tokenizer: TemplateProcessing special token %q not in special_tokens", s.ID)
					}
					pieces = append(pieces, templatePiece{seq: -1, ids: st.IDs, typeID: s.TypeID})
				} else {
					return template{}, fmt.Errorf("tokenizer: TemplateProcessing item %s, want Sequence or SpecialToken", raw)
				}
			}
			for i := range seqs {
				if !seen[i] {
					return template{}, fmt.Errorf("tokenizer: TemplateProcessing template lacks sequence %c", 'A'+i)
				}
			}
			return newTemplate(pieces), nil
		}
		if single, err = parse(p.Single, 1); err != nil {
			return single, pair, err
		}
		pair, err = parse(p.Pair, 2)
		return single, pair, err
	}
	return single, pair, fmt.Errorf("%w: post_processor %q (want TemplateProcessing, BertProcessing or RobertaProcessing)", ErrUnsupported, p.Type)
}

// tokenPair reads BertProcessing's ["[CLS]", 101] and returns the id.
func tokenPair(raw []json.RawMessage) (int32, error) {
	var id int32
	if len(raw) != 2 {
		return 0, fmt.Errorf("got %d elements, want [token, id]", len(raw))
	}
	if err := json.Unmarshal(raw[1], &id); err != nil {
		return 0, err
	}
	return id, nil
}
