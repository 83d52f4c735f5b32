package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/braidsearch/braid/internal/mcptest"
	"github.com/braidsearch/braid/internal/oidctest"
	"github.com/braidsearch/braid/internal/testenv"
)

// The team server end to end (issue 46): braid serve --http as a process
// of its own over an index of three sources, signed in with a real token
// file or a real identity provider, limited by a real policy file, and
// driven by mcp-go's Streamable HTTP client as each user.

// teamSources are the team index's sources, folders of two notes each.
var teamSources = []string{"alpha", "beta", "gamma"}

// teamPolicy grants alice alpha (every tool, no writes), the group eng
// (bob) beta with the core tools, dave every source without writes and
// erin every source with writes; carol is named by no grant.
const teamPolicy = `{"grants": [
	{"who": "alice", "sources": ["alpha"], "tools": "all"},
	{"who": "group:eng", "sources": ["beta"]},
	{"who": "dave", "sources": ["*"], "tools": "all"},
	{"who": "erin", "sources": ["*"], "tools": "all", "writes": true}
]}`

// teamIndex indexes the folders alpha, beta and gamma under dir, whose
// notes (alpha-0.md, alpha-1.md, …) all speak of rivers and each holds a
// secret word of its own (alphaword0, …), and writes teamPolicy to
// dir/policy.json. It returns the index.
func teamIndex(t *testing.T, dir string) string {
	t.Helper()
	args := append([]string{"--index", filepath.Join(dir, "idx"), "index"}, testenv.TeamSources(t, dir, teamSources...)...)
	if _, errOut, code := runCLI(t, args...); code != 0 {
		t.Fatalf("index: %s", errOut)
	}
	if err := os.WriteFile(filepath.Join(dir, "policy.json"), []byte(teamPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "idx")
}

// teamTools is the sorted names tools/list gives c.
func teamTools(c *client.Client) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Guard)
	defer cancel()
	res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return nil, err
	}
	names := []string{}
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	sort.Strings(names)
	return names, nil
}

// teamCall calls the tool name with args: its text and whether it is a
// tool error, or the protocol error.
func teamCall(c *client.Client, name string, args map[string]any) (string, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), testenv.Guard)
	defer cancel()
	var req mcp.CallToolRequest
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return "", false, err
	}
	text := ""
	for _, ct := range res.Content {
		if tc, ok := mcp.AsTextContent(ct); ok {
			text += tc.Text
		}
	}
	return text, res.IsError, nil
}

// teamHit is one hit of a search tool's answer.
type teamHit struct {
	ID, Path, Source string
	Score            float64
}

// teamResults calls the search tool name with args and parses its answer:
// the hits in rank order and the total; a tool error is an error.
func teamResults(c *client.Client, name string, args map[string]any) ([]teamHit, int, error) {
	text, isErr, err := teamCall(c, name, args)
	if err != nil {
		return nil, 0, err
	}
	if isErr {
		return nil, 0, fmt.Errorf("%s %v: tool error: %s", name, args["query"], text)
	}
	var r struct {
		Results []teamHit
		Total   int
	}
	if err := json.Unmarshal([]byte(text), &r); err != nil {
		return nil, 0, fmt.Errorf("%s %v: %v: %.300s", name, args["query"], err, text)
	}
	return r.Results, r.Total, nil
}

// teamSearch is a search's results: each hit's source (its note's
// prefix), the id of each note, and the total.
func teamSearch(t *testing.T, text string) (sources []string, ids map[string]string, total int) {
	t.Helper()
	var r struct {
		Results []struct{ ID, Path string }
		Total   int
	}
	if err := json.Unmarshal([]byte(text), &r); err != nil {
		t.Fatalf("search answer %q: %v", text, err)
	}
	ids = map[string]string{}
	for _, h := range r.Results {
		src, _, _ := strings.Cut(h.Path, "-")
		if !slices.Contains(sources, src) {
			sources = append(sources, src)
		}
		ids[h.Path] = h.ID
	}
	sort.Strings(sources)
	return sources, ids, r.Total
}

// foreignSecrets returns the secret words of the sources not in granted
// that text gives away.
func foreignSecrets(text string, granted []string) []string {
	var leaked []string
	for _, s := range teamSources {
		if !slices.Contains(granted, s) && strings.Contains(text, s+"word") {
			leaked = append(leaked, s)
		}
	}
	return leaked
}

// teamPost sends a raw 2025-11-25 tools/list to url's /mcp with token
// and, when not empty, a session id; it returns the status.
func teamPost(t *testing.T, url, token, session string) (int, http.Header) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", mcp.LATEST_LEGACY_PROTOCOL_VERSION)
	req.Header.Set("Authorization", "Bearer "+token)
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode, res.Header
}

// Each user of a team server sees exactly their grants: tools/list,
// search, grep and read answer from their granted sources alone (carol,
// named by no grant, gets nothing), a write tool is refused without
// writes, alice's 2025-11-25 session is refused to bob, and a token
// revoked while the server runs is refused from the next request.
func TestServeTeam(t *testing.T) {
	dir := t.TempDir()
	idx := teamIndex(t, dir)
	tokens := filepath.Join(dir, "tokens")
	tok := addTokens(t, tokens, [][]string{{"alice"}, {"bob", "--groups", "eng"}, {"carol"}, {"dave"}, {"erin"}}...)
	p := startServeHTTP(t, "--index", idx, "serve", "--tools", "all", "--http", "127.0.0.1:0", "--auth-tokens", tokens, "--policy", filepath.Join(dir, "policy.json"))

	clients := map[string]*client.Client{}
	for user := range tok {
		c, _, err := mcptest.Dial(p.url, tok[user], false)
		if err != nil {
			t.Fatalf("%s: connect: %v\n%s", user, err, p.log.String())
		}
		defer c.Close()
		clients[user] = c
	}
	// erin sees every note: the ids the others try to read.
	text, isErr, err := teamCall(clients["erin"], "search", map[string]any{"query": "rivers", "limit": 20})
	if err != nil || isErr {
		t.Fatalf("erin: search: %v %s", err, text)
	}
	_, ids, _ := teamSearch(t, text)
	if len(ids) != 2*len(teamSources) {
		t.Fatalf("erin's search found %d notes, want %d: %s", len(ids), 2*len(teamSources), text)
	}

	for _, tc := range []struct {
		user    string
		sources []string // granted
		tools   []string // among tools/list
		refused []string // not in tools/list, and a call is refused
	}{
		{"alice", []string{"alpha"}, []string{"grep", "read", "search"}, []string{"add", "index_path", "get_stats"}},
		{"bob", []string{"beta"}, []string{"grep", "read", "search"}, []string{"add", "configure", "get_stats"}},
		{"carol", nil, nil, []string{"add", "grep", "read", "search"}},
		{"dave", teamSources, []string{"grep", "read", "search", "get_stats"}, []string{"add", "configure", "index_path", "restore"}},
		{"erin", teamSources, []string{"add", "index_path", "search"}, nil},
	} {
		t.Run(tc.user, func(t *testing.T) {
			c := clients[tc.user]
			names, err := teamTools(c)
			if err != nil {
				t.Fatalf("tools/list: %v", err)
			}
			if tc.sources == nil && len(names) != 0 {
				t.Errorf("tools/list of a user no grant names: %v, want none", names)
			}
			for _, n := range tc.tools {
				if !slices.Contains(names, n) {
					t.Errorf("tools/list lacks %s: %v", n, names)
				}
			}
			for _, n := range tc.refused {
				if slices.Contains(names, n) {
					t.Errorf("tools/list offers %s: %v", n, names)
				}
				if text, _, err := teamCall(c, n, map[string]any{"query": "rivers", "pattern": "secret", "id": ids["alpha-0.md"], "path": dir}); err == nil {
					t.Errorf("%s was answered: %s", n, text)
				}
			}
			if tc.sources == nil {
				return
			}

			text, isErr, err := teamCall(c, "search", map[string]any{"query": "rivers", "limit": 20})
			if err != nil || isErr {
				t.Fatalf("search: %v %s", err, text)
			}
			got, _, total := teamSearch(t, text)
			if diff := cmp.Diff(tc.sources, got); diff != "" {
				t.Errorf("search's sources (-want +got):\n%s", diff)
			}
			if total != 2*len(tc.sources) {
				t.Errorf("search total %d, want %d (the granted notes alone)", total, 2*len(tc.sources))
			}
			if leaked := foreignSecrets(text, tc.sources); leaked != nil {
				t.Errorf("search gave away %v: %s", leaked, text)
			}

			text, isErr, err = teamCall(c, "grep", map[string]any{"pattern": "secret word"})
			if err != nil || isErr {
				t.Fatalf("grep: %v %s", err, text)
			}
			var grepped []string
			for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
				path, _, _ := strings.Cut(line, ":")
				if src := filepath.Base(filepath.Dir(path)); !slices.Contains(grepped, src) {
					grepped = append(grepped, src)
				}
			}
			sort.Strings(grepped)
			if diff := cmp.Diff(tc.sources, grepped); diff != "" {
				t.Errorf("grep's sources (-want +got):\n%s\n%s", diff, text)
			}

			for path, id := range ids {
				src, _, _ := strings.Cut(path, "-")
				secret := strings.TrimSuffix(strings.Replace(path, "-", "word", 1), ".md")
				text, isErr, err := teamCall(c, "read", map[string]any{"id": id})
				switch {
				case err != nil:
					t.Errorf("read %s: %v", path, err)
				case slices.Contains(tc.sources, src) && (isErr || !strings.Contains(text, secret)):
					t.Errorf("read %s, granted: %s", path, text)
				case !slices.Contains(tc.sources, src) && (!isErr || strings.Contains(text, secret) || strings.Contains(text, src)):
					t.Errorf("read %s, not granted: answered %q, want the answer of a note that does not exist", path, text)
				}
			}
		})
	}

	// A 2025-11-25 client's session is alice's alone: bob sending its id is
	// answered as for a session that does not exist.
	legacy, tr, err := mcptest.Dial(p.url, tok["alice"], true)
	if err != nil {
		t.Fatalf("alice, 2025-11-25: connect: %v", err)
	}
	session := tr.GetSessionId()
	if session == "" {
		t.Fatal("the 2025-11-25 client got no Mcp-Session-Id")
	}
	if names, err := teamTools(legacy); err != nil || !slices.Contains(names, "search") {
		t.Errorf("alice on her session: tools/list %v, %v", names, err)
	}
	if code, _ := teamPost(t, p.url, tok["alice"], session); code != http.StatusOK {
		t.Errorf("alice's own session id, raw: status %d, want 200", code)
	}
	if code, _ := teamPost(t, p.url, tok["bob"], session); code != http.StatusNotFound {
		t.Errorf("bob with alice's session id: status %d, want 404", code)
	}
	legacy.Close() // ends the session (DELETE) while the server runs

	// Revoked while the server runs: bob's next request is refused.
	if _, errOut, code := runCLI(t, "tokens", "revoke", "bob", "--file", tokens); code != 0 {
		t.Fatalf("tokens revoke bob: %s", errOut)
	}
	if names, err := teamTools(clients["bob"]); err == nil {
		t.Errorf("bob's revoked token was answered: tools/list %v", names)
	}
	if code, h := teamPost(t, p.url, tok["bob"], ""); code != http.StatusUnauthorized || !strings.HasPrefix(h.Get("WWW-Authenticate"), "Bearer") {
		t.Errorf("bob's revoked token: status %d, WWW-Authenticate %q; want 401 with a Bearer challenge", code, h.Get("WWW-Authenticate"))
	}
	if _, err := teamTools(clients["alice"]); err != nil {
		t.Errorf("alice after bob's revocation: %v", err)
	}
	p.stop(t)
}

// The same server signing users in with a real identity provider
// (internal/oidctest): a client-credentials token of the provider for
// braid's URL is accepted end to end, the groups claim reaching the
// policy; a token of the same provider for another audience is 401.
func TestServeTeamIssuer(t *testing.T) {
	const public = "https://braid.example.com"
	dir := t.TempDir()
	idx := teamIndex(t, dir)
	idp := oidctest.Start(t,
		oidctest.Client{ID: "alice", Audience: []string{public}},
		oidctest.Client{ID: "bob", Groups: []string{"eng"}, Audience: []string{public}},
		oidctest.Client{ID: "mallory", Audience: []string{"https://other.example.com"}})
	p := startServeHTTP(t, "--index", idx, "serve", "--http", "127.0.0.1:0", "--auth-issuer", idp.URL, "--public-url", public,
		"--policy", filepath.Join(dir, "policy.json"))

	for user, want := range map[string][]string{"alice": {"alpha"}, "bob": {"beta"}} {
		c, _, err := mcptest.Dial(p.url, idp.Token(t, user, "openid"), false)
		if err != nil {
			t.Fatalf("%s with the provider's token: connect: %v\n%s", user, err, p.log.String())
		}
		text, isErr, err := teamCall(c, "search", map[string]any{"query": "rivers", "limit": 20})
		c.Close()
		if err != nil || isErr {
			t.Fatalf("%s: search: %v %s", user, err, text)
		}
		if got, _, _ := teamSearch(t, text); !slices.Equal(got, want) {
			t.Errorf("%s: search's sources %v, want %v", user, got, want)
		}
	}

	other := idp.Token(t, "mallory", "openid")
	if c, _, err := mcptest.Dial(p.url, other, false); err == nil {
		c.Close()
		t.Error("a token for another audience connected")
	}
	code, h := teamPost(t, p.url, other, "")
	if code != http.StatusUnauthorized || !strings.Contains(h.Get("WWW-Authenticate"), `resource_metadata="`+public+`/.well-known/oauth-protected-resource`) {
		t.Errorf("a token for another audience: status %d, WWW-Authenticate %q; want 401 naming the resource metadata", code, h.Get("WWW-Authenticate"))
	}
	p.stop(t)
}
