package prompts_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/prompts"
)

func write(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "PROMPT-code-review.md", "---\ndescription: Review a file\narguments:\n  - name: file\n    description: The file\n    required: true\n  - name: focus\n    default: naming\n---\nReview {{file}} for {{ focus }}; keep {{other}}.\n")
	write(t, dir, "PROMPT-trip.md", "\r\n# Plan a trip\r\n\r\nGo to {{place}} in {{month}}, then back to {{place}}.\r\n")
	write(t, dir, "PROMPT-research-topic.md", "Dig into {{topic}} my way.\n")
	write(t, dir, "PROMPT-broken.md", "---\narguments: [name: x\n---\nbody\n")
	write(t, dir, "PROMPT-summarize-document.md", "---\ndescription: nothing after this\n---\n\n")
	write(t, dir, "notes.md", "not a prompt {{x}}\n")
	write(t, dir, "PROMPT-bad name.md", "text\n")
	testenv.Must(t, os.Mkdir(filepath.Join(dir, "PROMPT-dir.md"), 0o755))

	set, err := prompts.Load(dir)
	if err == nil || !strings.Contains(err.Error(), "PROMPT-broken.md: frontmatter") || !strings.Contains(err.Error(), "PROMPT-bad name.md") ||
		!strings.Contains(err.Error(), "no text after its frontmatter") {
		t.Errorf("Load error %v: want the broken, empty and badly named files named", err)
	}
	want := []string{"code_review", "find_gaps_review", "research_topic", "trip"}
	if diff := cmp.Diff(want, set.Names()); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}

	tests := []struct {
		name, prompt string
		args         map[string]string
		want         string // the text, or a part of the error
		err          error
	}{
		{"declared args", "code_review", map[string]string{"file": "a.go"}, "Review a.go for naming; keep {{other}}.", nil},
		{"optional given", "code_review", map[string]string{"file": "a.go", "focus": "errors"}, "Review a.go for errors; keep {{other}}.", nil},
		{"values are not expanded", "code_review", map[string]string{"file": "{{focus}}"}, "Review {{focus}} for naming; keep {{other}}.", nil},
		{"missing required", "code_review", map[string]string{"focus": "x"}, "code_review needs argument file (The file)", prompts.ErrArgument},
		{"blank required", "code_review", map[string]string{"file": "  "}, "needs argument file", prompts.ErrArgument},
		{"unknown arg", "code_review", map[string]string{"file": "a", "colour": "red"}, `takes no argument "colour"; it takes file, focus`, prompts.ErrArgument},
		{"inferred args, CRLF", "trip", map[string]string{"place": "Rome", "month": "May"}, "# Plan a trip\n\nGo to Rome in May, then back to Rome.", nil},
		{"inferred are required", "trip", map[string]string{"place": "Rome"}, "needs argument month", prompts.ErrArgument},
		{"file overrides built-in", "research_topic", map[string]string{"topic": "kiwi"}, "Dig into kiwi my way.", nil},
		{"built-in default", "find_gaps_review", nil, "Call find_gaps with limit 10.", nil},
		{"built-in check", "find_gaps_review", map[string]string{"limit": "500"}, "not a whole number from 1 to 100", prompts.ErrArgument},
		{"broken file hides its built-in", "summarize_document", map[string]string{"id": "x"}, "its file could not be used", prompts.ErrNotFound},
		{"unknown prompt", "nope", nil, `named "nope": the prompts are code_review, find_gaps_review, research_topic, trip; to add one, write PROMPT-nope.md to ` + dir, prompts.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got string
			p, err := set.Get(tt.prompt)
			if err == nil {
				got, err = p.Render(tt.args)
			}
			if tt.err != nil {
				if !errors.Is(err, tt.err) || !strings.Contains(err.Error(), tt.want) {
					t.Errorf("error %v, want %v containing %q", err, tt.err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(got, tt.want) {
				t.Errorf("text %q, want it to contain %q", got, tt.want)
			}
		})
	}

	p := testenv.Must1(set.Get("trip"))(t)
	wantP := prompts.Prompt{Name: "trip", Description: "Plan a trip", File: filepath.Join(dir, "PROMPT-trip.md"),
		Arguments: []prompts.Argument{{Name: "place", Description: "Fills {{place}} in the prompt.", Required: true},
			{Name: "month", Description: "Fills {{month}} in the prompt.", Required: true}}}
	if diff := cmp.Diff(wantP, *p, cmp.AllowUnexported(prompts.Argument{}), cmp.FilterPath(func(p cmp.Path) bool { return p.String() == "Body" }, cmp.Ignore())); diff != "" {
		t.Errorf("trip (-want +got):\n%s", diff)
	}
}

// A prompts folder someone else arranged: a FIFO, links (to a prompt
// outside, to /dev/zero) and an oversized file are left out, named in the
// error, without blocking or reading them; the other prompts are listed.
func TestLoadRefusesLinksAndFIFOs(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	write(t, dir, "PROMPT-trip.md", "Plan a trip to {{place}}.\n")
	write(t, outside, "PROMPT-secret.md", "The secret {{x}}.\n")
	if err := syscall.Mkfifo(filepath.Join(dir, "PROMPT-pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{
		"PROMPT-link.md": filepath.Join(outside, "PROMPT-secret.md"),
		"PROMPT-zero.md": "/dev/zero",
		"PROMPT-self.md": "PROMPT-trip.md", // even one inside the folder
	} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	write(t, dir, "PROMPT-huge.md", strings.Repeat("x", 256<<10+1))

	type result struct {
		set *prompts.Set
		err error
	}
	done := make(chan result, 1)
	go func() {
		set, err := prompts.Load(dir)
		done <- result{set, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(testenv.Guard): // a last guard: Load blocked on the FIFO
		t.Fatalf("Load did not return within %v", testenv.Guard)
	}
	if diff := cmp.Diff([]string{"find_gaps_review", "research_topic", "summarize_document", "trip"}, r.set.Names()); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	for _, want := range []string{
		"PROMPT-pipe.md is a FIFO",
		"PROMPT-link.md is a symbolic link",
		"PROMPT-zero.md is a symbolic link",
		"PROMPT-self.md is a symbolic link",
		"never through a link",
		"PROMPT-huge.md is 262145 bytes, over 262144",
	} {
		if r.err == nil || !strings.Contains(r.err.Error(), want) {
			t.Errorf("Load error %v, want it to say %q", r.err, want)
		}
	}
	if _, err := r.set.Get("pipe"); !errors.Is(err, prompts.ErrNotFound) || !strings.Contains(err.Error(), "its file could not be used") {
		t.Errorf("Get(pipe) = %v, want the FIFO named as unusable", err)
	}
	if _, err := prompts.ReadFile(filepath.Join(dir, "PROMPT-link.md")); err == nil {
		t.Error("ReadFile through a link: no error, want it refused")
	}
}

func TestLoadWithoutFolder(t *testing.T) {
	for _, dir := range []string{"", filepath.Join(t.TempDir(), "missing")} {
		set, err := prompts.Load(dir)
		if err != nil || len(set.Prompts) != len(prompts.Builtin()) {
			t.Errorf("Load(%q): %d prompts, %v; want the built-ins and no error", dir, len(set.Prompts), err)
		}
	}
	_, err := (&prompts.Set{}).Get("x")
	if err == nil || !strings.Contains(err.Error(), "PROMPT-NAME.md file in the prompts folder") {
		t.Errorf("Get without a folder: %v", err)
	}
}

func TestBuiltinsNameTheirTools(t *testing.T) {
	for _, p := range prompts.Builtin() {
		if len(p.Description) < 60 {
			t.Errorf("%s: description %q is too short to choose by", p.Name, p.Description)
		}
		args := map[string]string{}
		for _, a := range p.Arguments {
			if a.Required {
				args[a.Name] = "VALUE-" + a.Name
			}
		}
		text, err := p.Render(args)
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		if strings.Contains(text, "{{") {
			t.Errorf("%s: a placeholder is left: %s", p.Name, text)
		}
		for _, a := range p.Arguments {
			if a.Required && !strings.Contains(text, "VALUE-"+a.Name) {
				t.Errorf("%s: the text does not use argument %s", p.Name, a.Name)
			}
		}
	}
}

func TestNameOf(t *testing.T) {
	for file, want := range map[string]string{
		"PROMPT-code-review.md":  "code_review",
		"/x/PROMPT-a_b-c.v2.md":  "a_b_c.v2",
		"PROMPT-.md":             "",
		"PROMPT-x.txt":           "",
		"prompt-x.md":            "",
		"PROMPT-with space.md":   "",
		"PROMPT-daily-review.md": "daily_review",
	} {
		got, ok := prompts.NameOf(file)
		if ok != (want != "") || (ok && got != want) {
			t.Errorf("NameOf(%q) = %q, %v; want %q", file, got, ok, want)
		}
		if ok && prompts.FileName(got) != filepath.Base(file) && !strings.Contains(file, "_") {
			t.Errorf("FileName(%q) = %q, want %q", got, prompts.FileName(got), filepath.Base(file))
		}
	}
}

// FuzzReadFile: any file text either loads or is refused with an error;
// a loaded prompt renders with its required arguments given.
func FuzzReadFile(f *testing.F) {
	f.Add("---\ndescription: d\narguments:\n  - name: a\n    required: true\n---\nx {{a}} {{b}}\n")
	f.Add("# T\n\n{{x}} and {{ y }}\n")
	f.Add("---\n---\n")
	f.Add("---\narguments: 3\n---\nbody")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, text string) {
		file := filepath.Join(dir, "PROMPT-fuzz.md")
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := prompts.ReadFile(file)
		if err != nil {
			return
		}
		args := map[string]string{}
		for i, a := range p.Arguments {
			if a.Required {
				args[a.Name] = fmt.Sprint("v", i)
			}
		}
		if _, err := p.Render(args); err != nil {
			t.Errorf("render with every required argument: %v", err)
		}
	})
}

func TestDir(t *testing.T) {
	idx := t.TempDir()
	file := filepath.Join(idx, "file.md")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := prompts.Dir("", idx); got != "" || err != nil {
		t.Errorf("Dir with no prompts folder = %q, %v; want none", got, err)
	}
	if err := os.Mkdir(filepath.Join(idx, "prompts"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := prompts.Dir("", idx); got != filepath.Join(idx, "prompts") || err != nil {
		t.Errorf("Dir with the index's prompts folder = %q, %v", got, err)
	}
	if got, err := prompts.Dir(idx, "elsewhere"); got != idx || err != nil {
		t.Errorf("Dir given = %q, %v", got, err)
	}
	for dir, want := range map[string]string{
		filepath.Join(idx, "missing"): "no such folder; create it, or leave Dir empty",
		file:                          "is a file; want the folder that holds the PROMPT-*.md files",
	} {
		if _, err := prompts.Dir(dir, idx); err == nil || !strings.Contains(err.Error(), "prompts: Dir "+dir) || !strings.Contains(err.Error(), want) {
			t.Errorf("Dir(%s) = %v, want %q", dir, err, want)
		}
	}
}
