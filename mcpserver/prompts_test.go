package mcpserver_test

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/mcpserver"
)

// Prompts come from the built-ins and the prompts folder, read again on
// every request, and never wait for the engine.
func TestPrompts(t *testing.T) {
	dir := t.TempDir()
	writeFile := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeFile("PROMPT-code-review.md", "---\ndescription: Review a file against our conventions\narguments:\n"+
		"  - name: file\n    description: The file to review\n    required: true\n  - name: focus\n    default: naming\n---\n"+
		"Review {{file}} with a focus on {{focus}}.\n")
	writeFile("PROMPT-research-topic.md", "# Our research routine\n\nLook into {{topic}} the house way.\n")

	// An engine that never opens: prompts must not need it.
	blocked := make(chan struct{})
	srv := mcpserver.New(func() (*braid.Engine, func(), error) {
		<-blocked
		return nil, nil, errors.New("closed")
	}, &mcpserver.Options{Prompts: dir})
	c := connect(t, srv)
	t.Cleanup(func() { close(blocked) }) // before connect's cleanup closes the server
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Guard)
	defer cancel()

	list := func() map[string]mcp.Prompt {
		t.Helper()
		res, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
		if err != nil {
			t.Fatalf("prompts/list: %v", err)
		}
		m := map[string]mcp.Prompt{}
		for _, p := range res.Prompts {
			m[p.Name] = p
		}
		return m
	}
	get := func(name string, args map[string]string) (string, error) {
		t.Helper()
		var req mcp.GetPromptRequest
		req.Params.Name, req.Params.Arguments = name, args
		res, err := c.GetPrompt(ctx, req)
		if err != nil {
			return "", err
		}
		if len(res.Messages) != 1 || res.Messages[0].Role != mcp.RoleUser {
			t.Fatalf("%s: messages %+v, want one user message", name, res.Messages)
		}
		text, ok := mcp.AsTextContent(res.Messages[0].Content)
		if !ok {
			t.Fatalf("%s: content %T, want text", name, res.Messages[0].Content)
		}
		return text.Text, nil
	}

	ps := list()
	if diff := cmp.Diff([]string{"code_review", "find_gaps_review", "research_topic", "summarize_document"}, slices.Sorted(maps.Keys(ps))); diff != "" {
		t.Errorf("prompts (-want +got):\n%s", diff)
	}
	wantArgs := []mcp.PromptArgument{{Name: "file", Description: "The file to review", Required: true}, {Name: "focus", Description: "Default naming."}}
	if p := ps["code_review"]; p.Description != "Review a file against our conventions" || !cmp.Equal(p.Arguments, wantArgs) {
		t.Errorf("code_review: %+v", p)
	}
	if p := ps["research_topic"]; p.Description != "Our research routine" || len(p.Arguments) != 1 || p.Arguments[0].Name != "topic" || !p.Arguments[0].Required {
		t.Errorf("research_topic from the file: %+v, want the file's heading as description and topic required", p)
	}
	if p := ps["find_gaps_review"]; len(p.Arguments) != 1 || p.Arguments[0].Required || !strings.Contains(p.Description, "find_gaps") {
		t.Errorf("find_gaps_review: %+v", p)
	}

	for _, tc := range []struct {
		name string
		args map[string]string
		want []string // in the text
	}{
		{"code_review", map[string]string{"file": "main.go"}, []string{"Review main.go with a focus on naming."}},
		{"research_topic", map[string]string{"topic": "kiwi vines"}, []string{"Look into kiwi vines the house way."}},
		{"summarize_document", map[string]string{"id": "notes/plan.md"}, []string{"notes/plan.md", "get_document", "explore_links"}},
		{"find_gaps_review", nil, []string{"find_gaps with limit 10", "read_around"}},
		{"find_gaps_review", map[string]string{"limit": "3"}, []string{"find_gaps with limit 3"}},
	} {
		text, err := get(tc.name, tc.args)
		if err != nil {
			t.Errorf("prompts/get %s %v: %v", tc.name, tc.args, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("prompts/get %s %v: %q lacks %q", tc.name, tc.args, text, w)
			}
		}
	}

	for _, tc := range []struct {
		name string
		args map[string]string
		want string
	}{
		{"nope", nil, `"nope": the prompts are code_review, find_gaps_review, research_topic, summarize_document; to add one, write PROMPT-nope.md to ` + dir},
		{"code_review", nil, "code_review needs argument file (The file to review)"},
		{"summarize_document", map[string]string{"id": "x", "depth": "2"}, `takes no argument "depth"; it takes id`},
		{"find_gaps_review", map[string]string{"limit": "lots"}, `"lots" is not a whole number from 1 to 100`},
	} {
		if _, err := get(tc.name, tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("prompts/get %s %v: error %v, want one containing %q", tc.name, tc.args, err, tc.want)
		}
	}
	if _, ok := list()["nope"]; ok {
		t.Error("an unknown name asked for shows up in prompts/list")
	}

	// The folder is read on each request: a new file appears, an edit
	// shows, a deleted override gives the built-in back.
	writeFile("PROMPT-daily-note.md", "Write today's note about {{subject}}.\n")
	writeFile("PROMPT-code-review.md", "Review {{file}} strictly.\n")
	testenv.Must(t, os.Remove(filepath.Join(dir, "PROMPT-research-topic.md")))
	ps = list()
	if _, ok := ps["daily_note"]; !ok {
		t.Errorf("a prompt file added while serving is not listed: %v", ps)
	}
	if text, err := get("daily_note", map[string]string{"subject": "kiwi"}); err != nil || text != "Write today's note about kiwi." {
		t.Errorf("daily_note: %q %v", text, err)
	}
	if text, err := get("code_review", map[string]string{"file": "a.go"}); err != nil || text != "Review a.go strictly." {
		t.Errorf("edited code_review: %q %v", text, err)
	}
	if text, err := get("research_topic", map[string]string{"topic": "kiwi"}); err != nil || !strings.Contains(text, "read_around") {
		t.Errorf("research_topic after its override was deleted: %q %v, want the built-in", text, err)
	}
}

// A FIFO in the prompts folder stopped braid serve answering initialize:
// New read it while building the prompts. A FIFO and a link are left out
// with a logged reason, and the server answers with the other prompts.
func TestPromptsFolderWithFIFO(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "PROMPT-trip.md"), []byte("Plan a trip to {{place}}.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "PROMPT-pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "PROMPT-secret.md"), []byte("The secret {{x}}.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "PROMPT-secret.md"), filepath.Join(dir, "PROMPT-link.md")); err != nil {
		t.Fatal(err)
	}

	var logs testenv.Buffer
	made := make(chan *mcpserver.Server, 1)
	go func() {
		made <- mcpserver.New(func() (*braid.Engine, func(), error) { return nil, nil, errors.New("no engine") },
			&mcpserver.Options{Prompts: dir, Log: &logs, ShutdownTimeout: testenv.Guard}) // a busy machine may take past the 5 s default
	}()
	var srv *mcpserver.Server
	select {
	case srv = <-made:
	case <-time.After(testenv.Guard): // a last guard: New blocked on the FIFO
		t.Fatalf("mcpserver.New did not return within %v", testenv.Guard)
	}
	c := connect(t, srv) // fails the test when initialize gets no answer
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Guard)
	defer cancel()
	res, err := c.ListPrompts(ctx, mcp.ListPromptsRequest{})
	if err != nil {
		t.Fatalf("prompts/list: %v", err)
	}
	var names []string
	for _, p := range res.Prompts {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	if diff := cmp.Diff([]string{"find_gaps_review", "research_topic", "summarize_document", "trip"}, names); diff != "" {
		t.Errorf("prompts (-want +got):\n%s", diff)
	}
	for _, want := range []string{"PROMPT-pipe.md is a FIFO", "PROMPT-link.md is a symbolic link"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log %q, want it to say %q", logs.String(), want)
		}
	}
}
