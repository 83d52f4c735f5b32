package braid_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/bucket"
	"github.com/braidsearch/braid/grep"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/ingest"
	"github.com/braidsearch/braid/internal/s3test"
	"github.com/braidsearch/braid/internal/testenv"
	"github.com/braidsearch/braid/notes"
)

// s3Engine opens an engine that reads buckets with the test server's
// credentials.
func s3Engine(t *testing.T, s *s3test.Server) (*braid.Engine, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "idx")
	e, err := braid.Open(dir, &braid.Options{AWS: func(context.Context) (aws.Config, error) { return s.Config(), nil }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, dir
}

func grepNames(t *testing.T, e *braid.Engine, pattern string, paths ...string) []string {
	t.Helper()
	var got []string
	err := e.Grep(context.Background(), pattern, braid.GrepOptions{Paths: paths}, func(r grep.Result) error {
		for _, l := range r.Lines {
			got = append(got, r.File.Name+":"+l.Text)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("grep %s %v: %v", pattern, paths, err)
	}
	return got
}

func blobPath(dir, content string) string {
	h := sha256.Sum256([]byte(content))
	x := hex.EncodeToString(h[:])
	return filepath.Join(dir, "store", "blobs", x[:2], x)
}

// objectGets counts the downloads of objects under a key prefix of bucket
// notes (listings are GET /notes?list-type=2…, not counted).
func objectGets(s *s3test.Server, prefix string) int { return s.Requests("GET", "/notes/"+prefix) }

const (
	s3A = "---\ntitle: Aphid Control\ntags: [garden]\n---\n# Pests\n\nLadybugs eat aphids on the tomatoes.\nSee [[b]].\n"
	s3B = "plain notes about tomatoes and basil\n"
	s3C = "# Deep\n\nA nested tomato note.\n"
)

func TestS3Source(t *testing.T) {
	ctx := context.Background()
	s := s3test.Start(t, nil)
	s.CreateBucket("notes")
	s.Put("notes", "team/a.md", s3A)
	s.Put("notes", "team/b.txt", s3B)
	s.Put("notes", "team/sub/c.md", s3C)
	s.Put("notes", "team/.hidden.md", "# Hidden tomatoes\n")
	s.PutBytes("notes", "team/bin.dat", []byte("tomato\x00\x01\x02"))
	s.PutBytes("notes", "team/latin1.txt", []byte("caf\xe9 tomato\n"))
	s.Put("notes", "team/big.md", "# Big\n\n"+strings.Repeat("tomato ", 100))
	s.Put("notes", "other/x.md", "# Outside the prefix: tomato\n")
	e, dir := s3Engine(t, s)

	sum, err := e.Index(ctx, []braid.SourceSpec{{Path: "s3://notes/team/", Endpoint: s.Endpoint, MaxFileSize: 400}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	k := sum.Skipped
	if sum.Added != 3 || k.Hidden != 1 || k.Binary != 1 || k.NotUTF8 != 1 || k.Oversized != 1 || len(sum.Errors) != 0 {
		t.Fatalf("first run: %+v; want 3 added and one each hidden, binary, not UTF-8 and oversized", sum)
	}
	srcs, err := e.Sources().List(t.Context())
	if err != nil || len(srcs) != 1 {
		t.Fatalf("sources %v, %v", srcs, err)
	}
	if src := srcs[0]; src.Path != "s3://notes/team" || src.Kind != index.SourceS3 || src.Endpoint != s.Endpoint || src.Name != "team" {
		t.Errorf("source %+v; want s3://notes/team, kind s3, the endpoint kept, name team", src)
	}

	res, err := e.Search(ctx, "ladybugs aphids", braid.SearchOptions{})
	if err != nil || len(res.Results) == 0 {
		t.Fatalf("search: %v, %v", res, err)
	}
	hit := res.Results[0]
	if hit.Path != "a.md" || hit.Title != "Aphid Control" {
		t.Errorf("top hit %s %q, want a.md %q", hit.Path, hit.Title, "Aphid Control")
	}

	for _, name := range []string{"s3://notes/team/a.md", "a.md", "Aphid Control"} {
		c, err := e.Notes().Get(t.Context(), name)
		if err != nil {
			t.Fatalf("get %q: %v", name, err)
		}
		if string(c.Data) != s3A || c.File != "s3://notes/team/a.md" || c.Changed {
			t.Errorf("get %q = file %s changed %v %q; want the object's content at its URL", name, c.File, c.Changed, c.Data)
		}
	}
	if d, err := e.Notes().Document("s3://notes/team/sub/c.md"); err != nil || d.Path != "sub/c.md" || d.ETag == "" {
		t.Errorf("document by URL = %+v, %v; want sub/c.md with its ETag", d, err)
	}

	ct, err := e.Notes().Cite(context.Background(), hit.ChunkID)
	if err != nil {
		t.Fatal(err)
	}
	if ct.File != "s3://notes/team/a.md" || !strings.HasPrefix(ct.Tag, "[Aphid Control](s3://notes/team/a.md#L") {
		t.Errorf("cite = file %s tag %s; want the object's URL", ct.File, ct.Tag)
	}

	want := []string{
		"s3://notes/team/a.md:Ladybugs eat aphids on the tomatoes.",
		"s3://notes/team/b.txt:plain notes about tomatoes and basil",
		"s3://notes/team/sub/c.md:A nested tomato note.",
	}
	if diff := cmp.Diff(want, grepNames(t, e, "tomato")); diff != "" {
		t.Errorf("grep over the bucket (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want[2:], grepNames(t, e, "tomato", "s3://notes/team/sub")); diff != "" {
		t.Errorf("grep under s3://notes/team/sub (-want +got):\n%s", diff)
	}
	if err := e.Grep(ctx, "x", braid.GrepOptions{Paths: []string{"s3://notes/other"}}, func(grep.Result) error { return nil }); !errors.Is(err, notes.ErrNotIndexed) {
		t.Errorf("grep of an unindexed prefix: %v, want ErrNotIndexed", err)
	}

	tree, err := e.Notes().Tree()
	if err != nil || len(tree) != 1 || tree[0].Docs != 3 || len(tree[0].Folders) != 1 {
		t.Errorf("tree %+v, %v; want 3 documents and the folder sub", tree, err)
	}
	checks, err := e.Doctor(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks {
		if (c.Name == "store" || c.Name == "sources") && (!c.OK || c.Warning) {
			t.Errorf("doctor %s: %s; the objects' blobs are referenced and a bucket is no missing path", c.Name, c.Detail)
		}
	}

	// A plain re-index finds the endpoint in the source and downloads
	// nothing: every ETag is the same.
	gets := objectGets(s, "team/")
	sum, err = e.Index(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Unchanged != 3 || sum.Added+sum.Updated+sum.Removed != 0 {
		t.Errorf("unchanged re-index: %+v, want 3 unchanged", sum)
	}
	if n := objectGets(s, "team/") - gets; n != 0 {
		t.Errorf("unchanged re-index downloaded %d objects, want 0", n)
	}

	// New chunk settings re-chunk every object from the blob store, and a
	// blob lost from the store is downloaded again: nothing else is.
	if err := os.Remove(blobPath(dir, s3C)); err != nil {
		t.Fatal(err)
	}
	gets = objectGets(s, "team/")
	sum, err = e.Index(ctx, []braid.SourceSpec{{Path: "s3://notes/team", ChunkTokens: 64}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Updated != 3 || sum.Added+sum.Removed != 0 {
		t.Errorf("re-chunk: %+v, want 3 updated", sum)
	}
	if n := objectGets(s, "team/") - gets; n != 1 || objectGets(s, "team/sub/c.md") != 2 {
		t.Errorf("re-chunk downloaded %d objects, want 1 (sub/c.md, whose blob was lost)", n)
	}
	if _, err := os.Stat(blobPath(dir, s3C)); err != nil {
		t.Errorf("the lost blob was not restored: %v", err)
	}

	// Change one object, delete one, add one.
	const a2 = "# Pests\n\nLacewings eat aphids too.\n"
	s.Put("notes", "team/a.md", a2)
	s.Delete("notes", "team/b.txt")
	s.Put("notes", "team/d.md", "# New\n\nfresh basil\n")
	gets = objectGets(s, "team/")
	sum, err = e.Index(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Updated != 1 || sum.Removed != 1 || sum.Added != 1 || sum.Unchanged != 1 {
		t.Errorf("re-index after changes: %+v, want 1 updated, 1 removed, 1 added, 1 unchanged", sum)
	}
	if n := objectGets(s, "team/") - gets; n != 2 {
		t.Errorf("re-index downloaded %d objects, want 2 (the changed and the new one)", n)
	}
	if c, err := e.Notes().Get(t.Context(), "s3://notes/team/a.md"); err != nil || string(c.Data) != a2 {
		t.Errorf("get after the change = %v; want the new content", err)
	}
	if _, err := e.Notes().Get(t.Context(), "s3://notes/team/b.txt"); !errors.Is(err, braid.ErrNotFound) {
		t.Errorf("get of a deleted object: %v, want ErrNotFound", err)
	}
	res, err = e.Search(ctx, "lacewings", braid.SearchOptions{})
	if err != nil || len(res.Results) != 1 || res.Results[0].Path != "a.md" {
		t.Errorf("search for the new text: %+v, %v", res, err)
	}
	for _, old := range []string{s3A, s3B} {
		if _, err := os.Stat(blobPath(dir, old)); !os.IsNotExist(err) {
			t.Errorf("the blob of replaced or deleted content is still there (%v)", err)
		}
	}
	if _, err := os.Stat(blobPath(dir, a2)); err != nil {
		t.Errorf("the new content's blob: %v", err)
	}

	// Removing the source takes its blobs with it.
	if n, err := e.Sources().Remove(t.Context(), "team"); err != nil || n != 3 {
		t.Fatalf("remove source = %d, %v; want 3", n, err)
	}
	if _, err := os.Stat(blobPath(dir, a2)); !os.IsNotExist(err) {
		t.Errorf("the blob of a removed source's object is still there (%v)", err)
	}
}

func TestS3Patterns(t *testing.T) {
	ctx := context.Background()
	s := s3test.Start(t, nil)
	s.CreateBucket("notes")
	s.Put("notes", "team/a.md", s3A)
	s.Put("notes", "team/b.txt", s3B)
	s.Put("notes", "team/sub/c.md", s3C)
	s.Put("notes", "team/sub/skip.md", "# skip\n")
	s.Put("notes", "top.md", "# Top\n")
	e, _ := s3Engine(t, s)
	sum, err := e.Index(ctx, []braid.SourceSpec{{Path: "s3://notes/team", Endpoint: s.Endpoint, Patterns: []string{"*.md"}, Excludes: []string{"sub/skip.md"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Added != 2 || sum.Skipped.Excluded != 2 {
		t.Errorf("summary %+v; want a.md and sub/c.md added, b.txt and sub/skip.md excluded", sum)
	}
	sum, err = e.Index(ctx, []braid.SourceSpec{{Path: "s3://notes", Endpoint: s.Endpoint, NoRecursive: true}}, nil)
	if err != nil || sum.Added != 1 || sum.Seen != 1 {
		t.Errorf("top level of a bucket: %+v, %v; want top.md alone", sum, err)
	}
}

// oneLine checks an error is a single line naming what it must.
func oneLine(t *testing.T, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	t.Logf("error: %s", msg)
	if strings.Contains(msg, "\n") {
		t.Errorf("error is more than one line: %q", msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not mention %q", msg, w)
		}
	}
}

func TestS3BadInput(t *testing.T) {
	ctx := context.Background()
	s := s3test.Start(t, nil)
	s.CreateBucket("notes")
	s.Put("notes", "a.md", s3A)
	e, _ := s3Engine(t, s)

	_, err := e.Index(ctx, []braid.SourceSpec{{Path: "s3://no-such-bucket/x", Endpoint: s.Endpoint}}, nil)
	if !errors.Is(err, bucket.ErrNoBucket) {
		t.Errorf("missing bucket: %v, want ErrNoBucket", err)
	}
	oneLine(t, err, "s3://no-such-bucket/x", "check the bucket name", "the index is unchanged")
	for _, sp := range []braid.SourceSpec{
		{Path: "s3://"},
		{Path: "s3://notes", Endpoint: "127.0.0.1:9"},
		{Path: t.TempDir(), Endpoint: s.Endpoint},
	} {
		if _, err := e.Index(ctx, []braid.SourceSpec{sp}, nil); !errors.Is(err, braid.ErrBadOption) {
			t.Errorf("index %+v: %v, want ErrBadOption", sp, err)
		}
	}
	if srcs := testenv.Must1(e.Sources().List(t.Context()))(t); len(srcs) != 0 {
		t.Errorf("failed runs registered sources: %v", srcs)
	}

	noAWS := openEngine(t, nil)
	if _, err := noAWS.Index(ctx, []braid.SourceSpec{{Path: "s3://notes", Endpoint: s.Endpoint}}, nil); !errors.Is(err, ingest.ErrNoAWS) {
		t.Errorf("an engine without AWS configuration: %v, want ErrNoAWS", err)
	}

	if _, err := e.Index(ctx, []braid.SourceSpec{{Path: "s3://notes", Endpoint: s.Endpoint}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.Watch(ctx, []string{"s3://notes"}, nil); !errors.Is(err, braid.ErrBadOption) {
		t.Errorf("watch of an S3 source: %v, want ErrBadOption", err)
	}
}

// TestS3ServerGone stops the server: during the downloads of a re-index,
// and before one. Each run fails with one line naming the bucket, removes
// nothing, and the indexed documents stay readable offline.
func TestS3ServerGone(t *testing.T) {
	ctx := context.Background()
	s := s3test.Start(t, nil)
	s.CreateBucket("notes")
	s.Put("notes", "a.md", s3A)
	s.Put("notes", "b.txt", s3B)
	e, _ := s3Engine(t, s)
	if _, err := e.Index(ctx, []braid.SourceSpec{{Path: "s3://notes", Endpoint: s.Endpoint}}, nil); err != nil {
		t.Fatal(err)
	}
	s.Put("notes", "a.md", "# Changed\n")
	s.Put("notes", "c.md", "# New\n")
	sum, err := e.Index(ctx, nil, func(p braid.Progress) {
		if p.Phase == "list" {
			s.Stop() // listed; the downloads find the server gone
		}
	})
	if !errors.Is(err, bucket.ErrUnreachable) {
		t.Fatalf("server gone during the downloads: %v, want ErrUnreachable", err)
	}
	oneLine(t, err, "s3://notes/", s.Endpoint, "Options.Endpoint", "none were removed")
	if sum.Removed != 0 {
		t.Errorf("a failed run removed %d documents", sum.Removed)
	}
	if _, err := e.Index(ctx, nil, nil); !errors.Is(err, bucket.ErrUnreachable) {
		t.Errorf("server gone before the listing: %v, want ErrUnreachable", err)
	}
	for name, want := range map[string]string{"a.md": s3A, "b.txt": s3B} {
		if c, err := e.Notes().Get(t.Context(), name); err != nil || string(c.Data) != want {
			t.Errorf("get %s offline = %v; want the indexed content", name, err)
		}
	}
	if res, err := e.Search(ctx, "ladybugs", braid.SearchOptions{}); err != nil || len(res.Results) != 1 {
		t.Errorf("search after the failed runs: %+v, %v", res, err)
	}
}

// TestS3Denied runs moto with its credential checks on: the fake key pair
// is not one its IAM issued, so every request is refused.
func TestS3Denied(t *testing.T) {
	s := s3test.Start(t, &s3test.Options{Auth: true})
	e, _ := s3Engine(t, s)
	_, err := e.Index(context.Background(), []braid.SourceSpec{{Path: "s3://notes", Endpoint: s.Endpoint}}, nil)
	if !errors.Is(err, bucket.ErrDenied) {
		t.Fatalf("refused credentials: %v, want ErrDenied", err)
	}
	oneLine(t, err, "s3://notes", "check the credentials")
}
