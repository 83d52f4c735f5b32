package mcpserver

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestDecodeArgs(t *testing.T) {
	for _, tc := range []struct {
		name string
		raw  string
		want searchArgs
		err  string // substring; empty means success
	}{
		{"nothing keeps the defaults", ``, searchArgs{Limit: 10, Fuzzy: true}, ""},
		{"null keeps the defaults", `null`, searchArgs{Limit: 10, Fuzzy: true}, ""},
		{"values replace defaults", `{"query":"q","limit":3,"fuzzy":false,"rerank":false,"tags":["a","b"]}`,
			searchArgs{Query: "q", Limit: 3, Tags: []string{"a", "b"}, Rerank: new(false)}, ""},
		{"null for one argument keeps its default", `{"limit":null}`, searchArgs{Limit: 10, Fuzzy: true}, ""},
		{"unknown name", `{"query":"q","limitt":1}`, searchArgs{}, `unknown argument "limitt"`},
		{"names match exactly", `{"Query":"q"}`, searchArgs{}, `unknown argument "Query"`},
		{"wrong type", `{"tags":"a"}`, searchArgs{}, "bad argument tags: got a JSON string, want an array of strings"},
		{"array for arguments", `["q"]`, searchArgs{}, "arguments must be a JSON object"},
		{"broken JSON", `{"query":`, searchArgs{}, "not valid JSON"},
		{"two objects", `{"query":"a"} {"query":"b"}`, searchArgs{}, "not valid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := searchArgs{Limit: 10, Fuzzy: true}
			err := decodeArgs(json.RawMessage(tc.raw), &got)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrBadArgument) {
					t.Fatalf("error %v, want ErrBadArgument with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// FuzzDecodeArgs feeds arbitrary argument bytes to the decoder: it never
// panics, every error is ErrBadArgument, and what it accepts names only
// known arguments.
func FuzzDecodeArgs(f *testing.F) {
	for _, s := range []string{``, `{}`, `{"query":"q","limit":5}`, `{"tags":["a"]}`, `{"vector_weight":1e400}`,
		`{"limit":1.5}`, `{"query":"\u0000"}`, `{"x":1}`, `[]`, `{"query":"a"}{}`, `{"context":-3,"fuzzy":true}`} {
		f.Add([]byte(s))
	}
	known := argNames(&searchArgs{})
	f.Fuzz(func(t *testing.T, raw []byte) {
		a := searchArgs{Limit: 10}
		err := decodeArgs(raw, &a)
		if err != nil {
			if !errors.Is(err, ErrBadArgument) {
				t.Fatalf("error %v is not ErrBadArgument", err)
			}
			if !utf8.ValidString(err.Error()) && utf8.Valid(raw) {
				t.Fatalf("error message is not UTF-8: %q", err)
			}
			return
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) != nil {
			return // empty or null
		}
		for k := range obj {
			if !slices.Contains(known, k) {
				t.Fatalf("accepted unknown argument %q in %s", k, raw)
			}
		}
		_ = a.check() // range checks must not panic either
	})
}
