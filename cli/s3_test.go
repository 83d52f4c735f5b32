package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/internal/s3test"
	"github.com/braidsearch/braid/internal/testenv"
)

// TestS3CLI indexes a bucket prefix from the command line, with the AWS
// configuration from the environment as a user would have it and
// --s3-endpoint for the S3-compatible server, then reads it back with
// search, get, cite and grep, and re-indexes it with a plain braid index.
func TestS3CLI(t *testing.T) {
	s := s3test.Start(t, nil)
	s.Setenv(t)
	s.CreateBucket("notes")
	s.Put("notes", "team/a.md", "# Aphids\n\nLadybugs eat aphids.\n")
	s.Put("notes", "team/sub/b.txt", "basil likes sun\n")
	idx := filepath.Join(t.TempDir(), "idx")
	cli := func(args ...string) (string, string, int) {
		return runCLI(t, append([]string{"--index", idx, "--model", "none", "-q"}, args...)...)
	}

	out, errOut, code := cli("index", "s3://notes/team", "--s3-endpoint", s.Endpoint)
	if code != 0 || !strings.Contains(out, "2 added") {
		t.Fatalf("index = %d %q %q; want 2 added", code, out, errOut)
	}
	if out, errOut, code = cli("index"); code != 0 || !strings.Contains(out, "2 unchanged") {
		t.Errorf("plain re-index = %d %q %q; want 2 unchanged, the endpoint found in the source", code, out, errOut)
	}
	if out, _, _ = cli("sources"); !strings.Contains(out, "s3://notes/team") || !strings.Contains(out, " s3 ") {
		t.Errorf("sources = %q; want the S3 source", out)
	}

	out, errOut, code = cli("search", "--json", "ladybugs")
	var res struct {
		Results []struct {
			ChunkID string `json:"chunk_id"`
			Path    string `json:"path"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 || len(res.Results) == 0 || res.Results[0].Path != "a.md" {
		t.Fatalf("search = %d %q %q (%v)", code, out, errOut, err)
	}
	if out, _, _ = cli("search", "--paths-only", "ladybugs"); out != "s3://notes/team/a.md\n" {
		t.Errorf("search --paths-only = %q; want the object's URL", out)
	}
	if out, errOut, code = cli("get", "s3://notes/team/a.md"); code != 0 || out != "# Aphids\n\nLadybugs eat aphids.\n" {
		t.Errorf("get = %d %q %q", code, out, errOut)
	}
	if out, errOut, code = cli("cite", res.Results[0].ChunkID); code != 0 || !strings.Contains(out, "(s3://notes/team/a.md#L1-L3)") {
		t.Errorf("cite = %d %q %q; want a link to the object", code, out, errOut)
	}
	if out, errOut, code = cli("grep", "sun|aphids"); code != 0 || out != "s3://notes/team/a.md:Ladybugs eat aphids.\ns3://notes/team/sub/b.txt:basil likes sun\n" {
		t.Errorf("grep = %d %q %q", code, out, errOut)
	}
	if out, errOut, code = cli("grep", "sun|aphids", "s3://notes/team/sub/"); code != 0 || out != "s3://notes/team/sub/b.txt:basil likes sun\n" {
		t.Errorf("grep under a prefix = %d %q %q", code, out, errOut)
	}

	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"missing bucket", []string{"index", "s3://no-such-bucket", "--s3-endpoint", s.Endpoint}, []string{"s3://no-such-bucket", "check the bucket name"}},
		{"bad endpoint", []string{"index", "s3://notes", "--s3-endpoint", "localhost:9000"}, []string{"--s3-endpoint", "http://"}},
		{"endpoint without a path", []string{"index", "--s3-endpoint", s.Endpoint}, []string{"--s3-endpoint needs the s3:// PATH"}},
		{"endpoint for a folder", []string{"index", t.TempDir(), "--s3-endpoint", s.Endpoint}, []string{"for s3:// sources"}},
		{"watch", []string{"index", "--watch", "s3://notes/team"}, []string{"cannot be watched"}},
		{"allow a missing folder", []string{"serve", "--allow", filepath.Join(t.TempDir(), "gone")}, []string{"--allow", "existing folder or an s3://"}},
		{"allow a bad URL", []string{"serve", "--allow", "s3://"}, []string{"--allow s3://", "names no bucket"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, errOut, code := cli(tc.args...)
			if code != 1 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
				t.Errorf("exit %d, stderr %q; want 1 and one line", code, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q does not mention %q", errOut, w)
				}
			}
		})
	}

	// The server stopped: the re-index fails with one line, the index
	// keeps what it had and still answers.
	s.Stop()
	if _, errOut, code = cli("index"); code != 1 || !strings.Contains(errOut, "s3://notes/team") || !strings.Contains(errOut, "--s3-endpoint") || !strings.Contains(errOut, "the index is unchanged") {
		t.Errorf("re-index with the server gone = %d %q", code, errOut)
	}
	if out, _, code = cli("get", "s3://notes/team/a.md"); code != 0 || !strings.Contains(out, "Ladybugs") {
		t.Errorf("get after the failed run = %d %q", code, out)
	}
}

// TestS3ServeAllow runs braid serve as its own process with --allow
// s3://… and the endpoint in AWS_ENDPOINT_URL_S3, as a user would set it.
func TestS3ServeAllow(t *testing.T) {
	s := s3test.Start(t, nil)
	s.Setenv(t)
	t.Setenv("AWS_ENDPOINT_URL_S3", s.Endpoint)
	s.CreateBucket("notes")
	s.Put("notes", "team/a.md", "# Aphids\n\nLadybugs eat aphids.\n")
	s.Put("notes", "private/p.md", "secret\n")
	var errOut testenv.Buffer
	c := serveClient(t, &errOut, "--index", filepath.Join(t.TempDir(), "idx"), "--model", "none", "serve", "--init", "--tools", "all", "--allow", "s3://notes/team")
	if out, isErr := callTool(t, c, "index_path", map[string]any{"path": "s3://notes/team"}); isErr || !strings.Contains(out, `"added":1`) {
		t.Fatalf("index_path under --allow s3://notes/team: %q (stderr %q)", out, errOut.String())
	}
	mustRefuse(t, c, "index_path", map[string]any{"path": "s3://notes/private"}, "--allow s3://")
	if out, isErr := callTool(t, c, "search_keyword", map[string]any{"query": "ladybugs"}); isErr || !strings.Contains(out, "a.md") {
		t.Errorf("search after index_path: %q", out)
	}
}
