package mcpserver_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/internal/s3test"
	"github.com/braidsearch/braid/mcpserver"
)

// s3Options opens the engine with the test server's credentials and, like
// AWS_ENDPOINT_URL_S3 in braid serve's environment, its endpoint.
func s3Options(s *s3test.Server) *braid.Options {
	return &braid.Options{AWS: func(context.Context) (aws.Config, error) {
		cfg := s.Config()
		cfg.BaseEndpoint = aws.String(s.Endpoint)
		return cfg, nil
	}}
}

func s3Bucket(t *testing.T) *s3test.Server {
	s := s3test.Start(t, nil)
	s.CreateBucket("notes")
	s.Put("notes", "team/a.md", "# Aphids\n\nLadybugs eat aphids.\n")
	s.Put("notes", "team/sub/b.md", "# Basil\n\nBasil likes sun.\n")
	s.Put("notes", "private/p.md", "# Private\n\nsecret plans\n")
	return s
}

// TestIndexPathS3Allowed indexes a bucket prefix given with --allow
// s3://…, reads it back through the reading tools, and refuses the
// prefixes outside it.
func TestIndexPathS3Allowed(t *testing.T) {
	s := s3Bucket(t)
	srv := mcpserver.New(opener(filepath.Join(t.TempDir(), "idx"), s3Options(s)), &mcpserver.Options{Allow: []string{"s3://notes/team"}, Tools: "all"})
	c := connect(t, srv)

	var idx struct {
		Summary braid.Summary `json:"summary"`
		Source  struct {
			Path string `json:"path"`
			Kind string `json:"kind"`
		} `json:"source"`
	}
	decode(t, ok(t, c, "index_path", map[string]any{"path": "s3://notes/team/"}), &idx)
	if idx.Summary.Added != 2 || idx.Source.Path != "s3://notes/team" || idx.Source.Kind != "s3" {
		t.Errorf("index_path: %+v; want 2 added from source s3://notes/team", idx)
	}
	if got := ok(t, c, "get", map[string]any{"name": "s3://notes/team/a.md"}); !strings.Contains(got, "Ladybugs eat aphids.") || !strings.Contains(got, "s3://notes/team/a.md") {
		t.Errorf("get of an S3 object: %s", got)
	}
	if got := ok(t, c, "grep", map[string]any{"pattern": "sun", "paths": []string{"s3://notes/team/sub"}}); got != "s3://notes/team/sub/b.md:Basil likes sun.\n" {
		t.Errorf("grep under an S3 prefix = %q", got)
	}

	for _, tc := range []struct {
		name string
		args map[string]any
		want []string
	}{
		{"outside the allowed prefix", map[string]any{"path": "s3://notes/private"}, []string{"s3://notes/private", "outside the S3 locations", "s3://notes/team", "--allow s3://"}},
		{"the whole bucket", map[string]any{"path": "s3://notes"}, []string{"outside the S3 locations"}},
		{"another bucket", map[string]any{"path": "s3://elsewhere/team"}, []string{"outside the S3 locations"}},
		{"a bad URL", map[string]any{"path": "s3://"}, []string{"path", "names no bucket"}},
		{"watch", map[string]any{"path": "s3://notes/team", "watch": true}, []string{"cannot be watched"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, c, "index_path", tc.args)
			if !r.IsError {
				t.Fatalf("index_path %v succeeded: %s", tc.args, r.Text)
			}
			t.Log(r.Text)
			for _, w := range tc.want {
				if !strings.Contains(r.Text, w) {
					t.Errorf("refusal %q does not mention %q", r.Text, w)
				}
			}
		})
	}
}

// TestIndexPathS3Registered re-indexes an S3 source registered from the
// command line, with its own endpoint and no --allow: a registered source
// allows itself and what is under it, nothing wider.
func TestIndexPathS3Registered(t *testing.T) {
	s := s3Bucket(t)
	dir := filepath.Join(t.TempDir(), "idx")
	noEndpoint := &braid.Options{AWS: func(context.Context) (aws.Config, error) { return s.Config(), nil }}
	e, err := braid.Open(dir, noEndpoint)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Index(context.Background(), []braid.SourceSpec{{Path: "s3://notes/team", Endpoint: s.Endpoint}}, nil); err != nil {
		t.Fatal(err)
	}
	e.Close()
	s.Put("notes", "team/c.md", "# Chives\n")
	c := connect(t, mcpserver.New(opener(dir, noEndpoint), &mcpserver.Options{Tools: "all"}))
	var idx struct {
		Summary braid.Summary `json:"summary"`
	}
	decode(t, ok(t, c, "index_path", map[string]any{"path": "s3://notes/team"}), &idx)
	if idx.Summary.Added != 1 || idx.Summary.Unchanged != 2 {
		t.Errorf("re-index through MCP: %+v; want c.md added, 2 unchanged", idx.Summary)
	}
	r := call(t, c, "index_path", map[string]any{"path": "s3://notes"})
	if !r.IsError || !strings.Contains(r.Text, "allowed: s3://notes/team") {
		t.Errorf("a prefix wider than the registered source: %+v", r)
	}
}
