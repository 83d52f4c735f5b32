package policy_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/auth"
	"github.com/braidsearch/braid/policy"
)

const team = `{"grants": [
  {"who": "alice", "sources": ["notes"], "tools": "core"},
  {"who": "group:eng", "sources": ["docs", "code"], "tools": ["search", "grep", "list_sources"]},
  {"who": "*", "sources": ["handbook"], "tools": ["search"]},
  {"who": "admin", "sources": ["*"], "tools": "all", "writes": true},
  {"who": "erin", "sources": [], "tools": ["get_current_datetime"], "writes": true},
  {"who": "fay", "sources": ["notes", "docs"], "tools": ["index_path"], "writes": true},
  {"who": "fay", "sources": ["code"], "tools": ["search"]}
]}`

func TestFor(t *testing.T) {
	p, err := policy.Parse([]byte(team))
	if err != nil {
		t.Fatal(err)
	}
	core := []string{"ask", "explore_links", "get", "grep", "list", "read", "read_around", "scratchpad_read", "search", "search_keyword"}
	for _, tc := range []struct {
		name string
		who  *auth.Principal
		want policy.Access
	}{
		{"user grant and everyone's", &auth.Principal{Name: "alice"},
			policy.Access{Sources: []string{"handbook", "notes"}, Tools: core}},
		{"group grant adds up with everyone's", &auth.Principal{Name: "dave", Groups: []string{"eng"}},
			policy.Access{Sources: []string{"code", "docs", "handbook"}, Tools: []string{"grep", "list_sources", "search"}}},
		{"user and group grants add up", &auth.Principal{Name: "alice", Groups: []string{"eng"}},
			policy.Access{Sources: []string{"code", "docs", "handbook", "notes"}, Tools: append(core[:0:0], "ask", "explore_links", "get", "grep", "list", "list_sources", "read", "read_around", "scratchpad_read", "search", "search_keyword")}},
		{"all of everything", &auth.Principal{Name: "admin"},
			policy.Access{AllSources: true, AllTools: true, Writes: true, AllWriteSources: true}},
		{"writes only to the sources of grants with writes", &auth.Principal{Name: "fay"},
			policy.Access{Sources: []string{"code", "docs", "handbook", "notes"}, Tools: []string{"index_path", "search"}, Writes: true,
				WriteSources: []string{"docs", "notes"}}},
		{"writes but no sources of one's own", &auth.Principal{Name: "erin"},
			policy.Access{Sources: []string{"handbook"}, Tools: []string{"get_current_datetime", "search"}, Writes: true}},
		{"anyone signed in", &auth.Principal{Name: "zoe"},
			policy.Access{Sources: []string{"handbook"}, Tools: []string{"search"}}},
		{"a group named like a user is not the user", &auth.Principal{Name: "bob", Groups: []string{"alice"}},
			policy.Access{Sources: []string{"handbook"}, Tools: []string{"search"}}},
		{"a user named like a group grant is not in the group", &auth.Principal{Name: "group:eng"},
			policy.Access{Sources: []string{"handbook"}, Tools: []string{"search"}}},
		{"no principal", nil, policy.Access{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, p.For(tc.who)); diff != "" {
				t.Errorf("For (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnknownUserGetsNothing(t *testing.T) {
	p, err := policy.Parse([]byte(`{"grants": [{"who": "alice", "sources": ["*"], "tools": "all", "writes": true}]}`))
	if err != nil {
		t.Fatal(err)
	}
	a := p.For(&auth.Principal{Name: "bob", Groups: []string{"eng"}})
	if diff := cmp.Diff(policy.Access{}, a); diff != "" {
		t.Errorf("bob (-want +got):\n%s", diff)
	}
	if a.Tool("search") || a.Source("notes") || a.Writes || a.WritesTo("notes") {
		t.Errorf("bob may do something: %+v", a)
	}
	var none *policy.Policy
	if diff := cmp.Diff(policy.Access{}, none.For(&auth.Principal{Name: "alice"})); diff != "" {
		t.Errorf("nil policy (-want +got):\n%s", diff)
	}
}

func TestBad(t *testing.T) {
	for _, tc := range []struct {
		name, json string
		want       []string // in the error
	}{
		{"not JSON", `{`, []string{"not the JSON of a policy"}},
		{"unknown top field", `{"grants": [], "grant": []}`, []string{`unknown field "grant"`}},
		{"unknown grant field", `{"grants": [{"who": "a", "sources": [], "tool": "core"}]}`, []string{`unknown field "tool"`}},
		{"no grants", `{}`, []string{`no "grants" list`}},
		{"two values", `{"grants": []} {"grants": []}`, []string{"more than one JSON value"}},
		{"no who", `{"grants": [{"sources": ["a"]}]}`, []string{"grants[0].who: missing"}},
		{"empty who", `{"grants": [{"who": "", "sources": ["a"]}]}`, []string{"grants[0].who", "empty"}},
		{"spaced who", `{"grants": [{"who": " alice", "sources": ["a"]}]}`, []string{"grants[0].who"}},
		{"empty group", `{"grants": [{"who": "group:", "sources": ["a"]}]}`, []string{"grants[0].who", "names no group"}},
		{"no sources", `{"grants": [{"who": "a", "sources": ["x"]}, {"who": "b"}]}`, []string{"grants[1].sources: missing", `["*"]`}},
		{"empty source", `{"grants": [{"who": "a", "sources": ["x", ""]}]}`, []string{"grants[0].sources[1]: empty"}},
		{"unknown tool", `{"grants": [{"who": "a", "sources": [], "tools": ["search", "serch"]}]}`,
			[]string{"grants[0].tools", `"serch" is neither a tool profile`}},
		{"unknown profile", `{"grants": [{"who": "a", "sources": [], "tools": "cor"}]}`, []string{"grants[0].tools", `"cor"`}},
		{"tools of another type", `{"grants": [{"who": "a", "sources": [], "tools": 3}]}`, []string{"grants[0].tools", "neither"}},
		{"empty tools list", `{"grants": [{"who": "a", "sources": [], "tools": []}]}`, []string{"grants[0].tools", "grants no tool"}},
		{"comma in a tool", `{"grants": [{"who": "a", "sources": [], "tools": ["search,grep"]}]}`, []string{"grants[0].tools[0]"}},
		{"writes not a bool", `{"grants": [{"who": "a", "sources": [], "writes": "yes"}]}`, []string{"not the JSON of a policy"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := policy.Parse([]byte(tc.json))
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, policy.ErrBad) {
				t.Errorf("%v does not wrap ErrBad", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "policy.json")
	if err := os.WriteFile(file, []byte(team), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := policy.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	if a := p.For(&auth.Principal{Name: "alice"}); !a.Source("notes") || a.Source("docs") || !a.Tool("grep") || a.Tool("add") {
		t.Errorf("alice: %+v", a)
	}
	if _, err := policy.Load(filepath.Join(dir, "missing.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want ErrNotExist", err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"grants": [{"who": "a"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := policy.Load(bad); err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), "grants[0].sources") {
		t.Errorf("bad file: %v, want the file and the field named", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(team))
	f.Add([]byte(`{"grants": []}`))
	f.Add([]byte(`{"grants": [{"who": "group:x", "sources": ["*"], "tools": ["all"], "writes": true}]}`))
	f.Add([]byte(`{"grants": [{"who": "*", "sources": [""], "tools": null}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := policy.Parse(data)
		if err != nil {
			if !errors.Is(err, policy.ErrBad) {
				t.Fatalf("error %v does not wrap ErrBad", err)
			}
			return
		}
		for _, who := range []*auth.Principal{nil, {}, {Name: "alice", Groups: []string{"eng", "x"}}, {Name: "*"}} {
			a := p.For(who)
			if who == nil && (a.AllSources || a.AllTools || a.Writes || a.AllWriteSources || len(a.WriteSources) > 0 || len(a.Sources)+len(a.Tools) > 0) {
				t.Fatalf("no principal got %+v", a)
			}
			if a.AllSources && len(a.Sources) > 0 || a.AllTools && len(a.Tools) > 0 {
				t.Fatalf("all and a list at once: %+v", a)
			}
		}
	})
}
