package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/internal/testenv"
)

func TestPromptsCommands(t *testing.T) {
	idx := filepath.Join(t.TempDir(), "idx")
	inIndex := filepath.Join(idx, "prompts")
	if err := os.MkdirAll(inIndex, 0o755); err != nil {
		t.Fatal(err)
	}
	testenv.Must(t, os.WriteFile(filepath.Join(inIndex, "PROMPT-code-review.md"), []byte("---\ndescription: Review a file\narguments:\n"+
		"  - name: file\n    required: true\n  - name: focus\n    default: naming\n---\nReview {{file}} for {{focus}}.\n"), 0o644))
	testenv.Must(t, os.WriteFile(filepath.Join(inIndex, "PROMPT-research-topic.md"), []byte("Research {{topic}} our way.\n"), 0o644))
	other := t.TempDir()
	testenv.Must(t, os.WriteFile(filepath.Join(other, "PROMPT-trip.md"), []byte("# Plan a trip\n\nGo to {{place}}.\n"), 0o644))
	testenv.Must(t, os.WriteFile(filepath.Join(other, "PROMPT-broken.md"), []byte("---\narguments: [x\n---\nbody\n"), 0o644))

	// The index directory's prompts folder is the default.
	out, errOut, code := runCLI(t, "--index", idx, "prompts", "list")
	if code != 0 || errOut != "" {
		t.Fatalf("prompts list: exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "code_review ") || !strings.Contains(lines[0], "file [focus=naming]") ||
		!strings.Contains(lines[0], "PROMPT-code-review.md") || !strings.Contains(lines[2], "PROMPT-research-topic.md") ||
		!strings.Contains(lines[3], "summarize_document  id ") || !strings.Contains(lines[3], "built-in") {
		t.Errorf("prompts list:\n%s", out)
	}

	// --prompts names another folder; a broken file is warned of and left out.
	out, errOut, code = runCLI(t, "--index", idx, "prompts", "list", "--prompts", other, "--json")
	var list struct {
		Dir     string
		Prompts []struct {
			Name, Description, File string
			Arguments               []struct {
				Name     string
				Required bool
			}
		}
	}
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil {
		t.Fatalf("prompts list --json: exit %d: %s %s", code, out, errOut)
	}
	var names []string
	for _, p := range list.Prompts {
		names = append(names, p.Name)
	}
	if list.Dir != other || strings.Join(names, " ") != "find_gaps_review research_topic summarize_document trip" ||
		list.Prompts[3].Description != "Plan a trip" || len(list.Prompts[3].Arguments) != 1 || !list.Prompts[3].Arguments[0].Required {
		t.Errorf("prompts list --prompts: %+v", list)
	}
	if !strings.Contains(errOut, "warning: ") || !strings.Contains(errOut, "PROMPT-broken.md") {
		t.Errorf("no warning about the broken prompt file: %q", errOut)
	}

	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"file prompt", []string{"get", "code_review", "--arg", "file=main.go"}, "Review main.go for naming.\n"},
		{"value with = and ;", []string{"get", "code_review", "--arg", "file=a=b;c", "--arg", "focus=errors"}, "Review a=b;c for errors.\n"},
		{"override", []string{"get", "research_topic", "--arg", "topic=kiwi"}, "Research kiwi our way.\n"},
		{"other folder", []string{"get", "trip", "--prompts", other, "--arg", "place=Rome"}, "# Plan a trip\n\nGo to Rome.\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := runCLI(t, append([]string{"--index", idx, "prompts"}, tt.args...)...)
			if code != 0 || out != tt.want {
				t.Errorf("exit %d, stdout %q (want %q), stderr %q", code, out, tt.want, errOut)
			}
		})
	}

	// A built-in, as JSON.
	out, _, code = runCLI(t, "--index", filepath.Join(t.TempDir(), "none"), "--json", "prompts", "get", "research_topic", "--arg", "topic=kiwi vines")
	var got struct {
		Name     string
		Messages []struct{ Role, Text string }
	}
	if code != 0 || json.Unmarshal([]byte(out), &got) != nil || got.Name != "research_topic" || len(got.Messages) != 1 ||
		got.Messages[0].Role != "user" || !strings.Contains(got.Messages[0].Text, "kiwi vines") || !strings.Contains(got.Messages[0].Text, "explore_links") {
		t.Errorf("prompts get research_topic --json: exit %d: %s", code, out)
	}

	missing := filepath.Join(t.TempDir(), "missing")
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown prompt", []string{"prompts", "get", "nope"}, `no such prompt named "nope": the prompts are code_review, find_gaps_review, research_topic, summarize_document; to add one, write PROMPT-nope.md to ` + inIndex},
		{"missing argument", []string{"prompts", "get", "code_review"}, "code_review needs argument file; give arguments as --arg NAME=VALUE"},
		{"unknown argument", []string{"prompts", "get", "trip", "--prompts", other, "--arg", "place=x", "--arg", "when=now"}, `trip takes no argument "when"; it takes place`},
		{"bad --arg", []string{"prompts", "get", "trip", "--arg", "place"}, `--arg "place": want NAME=VALUE`},
		{"twice", []string{"prompts", "get", "trip", "--arg", "place=a", "--arg", "place=b"}, "--arg place is given twice"},
		{"bad value", []string{"prompts", "get", "find_gaps_review", "--arg", "limit=0"}, "not a whole number from 1 to 100"},
		{"missing folder", []string{"prompts", "list", "--prompts", missing}, "--prompts " + missing + ": no such folder; create it, or leave out --prompts"},
		{"serve with a missing folder", []string{"serve", "--prompts", missing}, "no such folder"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := runCLI(t, append([]string{"--index", idx}, tt.args...)...)
			if code != 1 || !strings.HasPrefix(errOut, "braid: ") || !strings.Contains(errOut, tt.want) || strings.Count(errOut, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want exit 1 and one line containing %q", code, errOut, tt.want)
			}
		})
	}

	t.Setenv("BRAID_PROMPTS", missing)
	if _, errOut, code := runCLI(t, "--index", idx, "prompts", "list"); code != 1 || !strings.Contains(errOut, "no such folder") {
		t.Errorf("BRAID_PROMPTS naming a missing folder: exit %d, %q", code, errOut)
	}
	t.Setenv("BRAID_PROMPTS", other)
	if out, _, code := runCLI(t, "--index", idx, "prompts", "get", "trip", "--arg", "place=Oslo"); code != 0 || !strings.Contains(out, "Go to Oslo.") {
		t.Errorf("BRAID_PROMPTS: exit %d, %q", code, out)
	}
}
