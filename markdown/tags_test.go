package markdown

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAddTags(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		tags  []string
		style TagStyle
		want  string
		added []string
	}{
		{
			name: "no frontmatter gets one",
			src:  "# Title\n\nBody.\n",
			tags: []string{"go", "#search"},
			want: "---\ntags: [go, search]\n---\n# Title\n\nBody.\n",
		},
		{
			name: "no frontmatter, CRLF, no final newline",
			src:  "# Title\r\n\r\nBody.",
			tags: []string{"go"},
			want: "---\r\ntags: [go]\r\n---\r\n# Title\r\n\r\nBody.",
		},
		{
			name: "byte order mark stays first",
			src:  "\ufeffBody\n",
			tags: []string{"a"},
			want: "\ufeff---\ntags: [a]\n---\nBody\n",
		},
		{
			name: "frontmatter without tags key",
			src:  "---\ntitle: Note\n---\nBody\n",
			tags: []string{"a", "b"},
			want: "---\ntitle: Note\ntags: [a, b]\n---\nBody\n",
		},
		{
			name: "empty frontmatter, CRLF",
			src:  "---\r\n---\r\nBody",
			tags: []string{"a"},
			want: "---\r\ntags: [a]\r\n---\r\nBody",
		},
		{
			name:  "flow list",
			src:   "---\ntags: [a, b] # kept\ntitle: x\n---\n",
			tags:  []string{"c", "a", "d"},
			want:  "---\ntags: [a, b, c, d] # kept\ntitle: x\n---\n",
			added: []string{"c", "d"},
		},
		{
			name: "empty flow list",
			src:  "---\ntags: []\n---\n",
			tags: []string{"c"},
			want: "---\ntags: [c]\n---\n",
		},
		{
			name: "flow list over lines with a trailing comma",
			src:  "---\ntags: [\n  a,\n  b,\n]\n---\n",
			tags: []string{"c"},
			want: "---\ntags: [\n  a,\n  b, c\n]\n---\n",
		},
		{
			name: "block list",
			src:  "---\ntitle: x\ntags:\n  - a\n  - b\nother: 1\n---\nbody\n",
			tags: []string{"c", "d"},
			want: "---\ntitle: x\ntags:\n  - a\n  - b\n  - c\n  - d\nother: 1\n---\nbody\n",
		},
		{
			name: "block list, CRLF, unindented, comment after the last item",
			src:  "---\r\ntags:\r\n- a # first\r\n---\r\n",
			tags: []string{"c"},
			want: "---\r\ntags:\r\n- a # first\r\n- c\r\n---\r\n",
		},
		{
			name: "string of tags",
			src:  "---\ntags: glossary api\n---\n",
			tags: []string{"c"},
			want: "---\ntags: glossary api, c\n---\n",
		},
		{
			name: "quoted string",
			src:  "---\ntags: 'a b'\n---\n",
			tags: []string{"c"},
			want: "---\ntags: 'a b, c'\n---\n",
		},
		{
			name: "empty value",
			src:  "---\ntags:\ntitle: x\n---\n",
			tags: []string{"c"},
			want: "---\ntags: [c]\ntitle: x\n---\n",
		},
		{
			name: "values YAML would not read as strings are quoted",
			src:  "---\ntags: [a]\n---\n",
			tags: []string{"true", "null", "2024-x", "0x1F", "1e3"},
			want: "---\ntags: [a, \"true\", \"null\", 2024-x, \"0x1F\", \"1e3\"]\n---\n",
		},
		{
			name: "tags the body has already are not added again",
			src:  "# T\n\nAbout #Go and [tag: rust].\n",
			tags: []string{"go", "rust"},
			want: "# T\n\nAbout #Go and [tag: rust].\n",
		},
		{
			name:  "comment style appends a comment",
			src:   "# T\n\nBody.\n",
			tags:  []string{"a", "b"},
			style: TagComment,
			want:  "# T\n\nBody.\n\n<!-- tags: a, b -->\n",
		},
		{
			name:  "comment style, no final newline, CRLF",
			src:   "# T\r\n\r\nBody.",
			tags:  []string{"a"},
			style: TagComment,
			want:  "# T\r\n\r\nBody.\r\n\r\n<!-- tags: a -->",
		},
		{
			name:  "comment style grows the comment there is",
			src:   "<!-- tags: x -->\n# T\n```\n<!-- tags: in code -->\n```\n",
			tags:  []string{"a"},
			style: TagComment,
			want:  "<!-- tags: x, a -->\n# T\n```\n<!-- tags: in code -->\n```\n",
		},
		{
			name:  "comment style with an empty comment",
			src:   "text\n\n<!-- tags: -->\n",
			tags:  []string{"a"},
			style: TagComment,
			want:  "text\n\n<!-- tags: a -->\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, added, err := AddTags([]byte(tt.src), tt.tags, tt.style)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(out)); diff != "" {
				t.Errorf("AddTags(%q) (-want +got):\n%s", tt.src, diff)
			}
			want := tt.added
			if want == nil && tt.want != tt.src {
				for _, tag := range tt.tags {
					want = append(want, strings.TrimPrefix(tag, "#"))
				}
			}
			if diff := cmp.Diff(want, added); diff != "" {
				t.Errorf("added (-want +got):\n%s", diff)
			}
			for _, tag := range want {
				if !slices.Contains(Parse("x.md", out).Tags, tag) {
					t.Errorf("the result does not read back tag %q", tag)
				}
			}
		})
	}
}

func TestAddTagsRefuses(t *testing.T) {
	tests := []struct {
		name string
		src  string
		tags []string
		want error
	}{
		{"not a tag", "x\n", []string{"a b"}, ErrBadTag},
		{"all digits", "x\n", []string{"123"}, ErrBadTag},
		{"empty", "x\n", []string{"#"}, ErrBadTag},
		{"broken yaml", "---\ntitle: [x\n---\n", []string{"a"}, ErrTagPlace},
		{"block scalar", "---\ntags: |\n  a\n---\n", []string{"b"}, ErrTagPlace},
		{"null", "---\ntags: ~\n---\n", []string{"b"}, ErrTagPlace},
		{"mapping", "---\ntags: {a: 1}\n---\n", []string{"b"}, ErrTagPlace},
		{"flow mapping frontmatter", "---\n{title: x}\n---\n", []string{"b"}, ErrTagPlace},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := AddTags([]byte(tt.src), tt.tags, TagFrontmatter)
			if !errors.Is(err, tt.want) {
				t.Errorf("error %v, want %v", err, tt.want)
			}
			if string(out) != tt.src {
				t.Errorf("a refusal changed the file: %q", out)
			}
		})
	}
	// A comment cannot be added inside an unclosed code fence.
	if _, _, err := AddTags([]byte("```\ncode\n"), []string{"a"}, TagComment); !errors.Is(err, ErrTagPlace) {
		t.Errorf("comment in an open fence: error %v, want ErrTagPlace", err)
	}
}

func TestBracketTags(t *testing.T) {
	d := Parse("x.md", []byte("Some [tag: alpha] and [Tags: beta, gamma/x] but `[tag: code]` and [tag: unclosed\n\n```\n[tag: fenced]\n```\n[tag: z](http://x)\n"))
	if diff := cmp.Diff([]string{"alpha", "beta", "gamma/x"}, d.Tags); diff != "" {
		t.Errorf("tags (-want +got):\n%s", diff)
	}
}

// FuzzTagInsertion checks that AddTags only ever inserts: cutting the
// inserted run out of the result gives back the input byte for byte, the
// result reads back with every tag, and a refusal leaves the input alone.
func FuzzTagInsertion(f *testing.F) {
	for _, s := range []string{
		"",
		"# T\n",
		"no newline",
		"---\ntags: [a, b]\n---\nbody",
		"---\r\ntags:\r\n  - a\r\n---\r\n",
		"---\ntags: a b\ntitle: x\n---\n",
		"---\ntags: \"q\"\n---\n",
		"---\ntags:\n---\n",
		"---\n---\n",
		"\ufeff---\ntitle: x\n...\nbody\n",
		"<!-- tags: a -->\n",
		"```\n<!-- tags: a -->\n",
		"---\ntags: [a, [b]]\n---\n",
		"---\ntags: [\"a\", 'b''c']\n---\n",
		"---\ntitle: [x\n---\n",
		"#a [tag: b]\n",
	} {
		f.Add([]byte(s), "new", false)
		f.Add([]byte(s), "x/y", true)
	}
	f.Fuzz(func(t *testing.T, src []byte, tag string, comment bool) {
		style := TagFrontmatter
		if comment {
			style = TagComment
		}
		off, text, added, err := tagInsertion(src, []string{tag}, style)
		out, added2, err2 := AddTags(src, []string{tag}, style)
		if err2 != nil || len(added2) == 0 {
			if !bytes.Equal(out, src) {
				t.Fatalf("AddTags failed (%v) but changed the input", err2)
			}
			return
		}
		if err != nil || !slices.Equal(added, added2) {
			t.Fatalf("tagInsertion %v %v, AddTags %v", err, added, added2)
		}
		if len(out) != len(src)+len(text) || !bytes.Equal(out[off:off+len(text)], []byte(text)) {
			t.Fatalf("result %q is not the input with %q inserted at %d", out, text, off)
		}
		if back := append(append([]byte(nil), out[:off]...), out[off+len(text):]...); !bytes.Equal(back, src) {
			t.Fatalf("removing the insertion gives %q, want %q", back, src)
		}
		d := Parse("x.md", out)
		for _, a := range added {
			if !slices.Contains(d.Tags, a) {
				t.Fatalf("result %q does not read back tag %q (tags %q)", out, a, d.Tags)
			}
		}
		if bytes.Contains(src, []byte("\r\n")) == false && bytes.Contains([]byte(text), []byte("\r\n")) {
			t.Fatalf("CRLF inserted into an LF file: %q", text)
		}
	})
}
