package braid_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/braidsearch/braid"
	"github.com/braidsearch/braid/grep"
	"github.com/braidsearch/braid/notes"
)

// escapeVault is a source holding links that lead out of it (to a secret
// file beside it), a link that stays inside, and a FIFO named like a note.
func escapeVault(t *testing.T) (dir, secret string) {
	t.Helper()
	base := t.TempDir()
	dir = filepath.Join(base, "vault")
	secret = filepath.Join(base, "credentials")
	for name, body := range map[string]string{"note.md": "# Note\n\nalpha bravo\n", "sub/inner.md": "# Inner\n\ncharlie\n"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(secret, []byte("aws_secret_access_key = hunter2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"passwd.md":   secret,                           // absolute, out
		"creds.md":    "../credentials",                 // relative, out
		"inside.md":   "sub/inner.md",                   // relative, in
		"abs-in.md":   filepath.Join(dir, "note.md"),    // absolute, in
		"outdir":      base,                             // a folder out
		"sub/back.md": filepath.Join("..", "passwd.md"), // a link to a link out
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, secret
}

func TestWalkKeepsLinksInsideTheSource(t *testing.T) {
	ctx := context.Background()
	dir, _ := escapeVault(t)
	e := openEngine(t, nil)
	sum, err := e.Index(ctx, []braid.SourceSpec{{Path: dir}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Skipped.LinkOutside != 4 || sum.Skipped.NotRegular != 1 {
		t.Errorf("skipped %+v; want 4 links outside (passwd.md, creds.md, sub/back.md, outdir) and 1 FIFO", sum.Skipped)
	}
	res, err := e.Search(ctx, "hunter2 aws_secret_access_key", braid.SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 0 {
		t.Fatalf("the secret behind a link is searchable: %+v", res.Results[0])
	}
	res, err = e.Search(ctx, "charlie", braid.SearchOptions{Chunks: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Results) != 2 { // sub/inner.md and inside.md, which links to it
		t.Errorf("charlie: %d hits, want the note and the link inside the source", len(res.Results))
	}

	// Opting in follows them.
	follow := true
	sum, err = e.Index(ctx, []braid.SourceSpec{{Path: dir, FollowLinks: &follow}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Skipped.LinkOutside != 0 || sum.Added != 3 {
		t.Errorf("with FollowLinks: %+v; want the 3 links indexed", sum)
	}
	res, err = e.Search(ctx, "hunter2", braid.SearchOptions{})
	if err != nil || len(res.Results) == 0 {
		t.Fatalf("with FollowLinks the linked file is not found: %v", err)
	}
}

func TestGrepReadsIndexedFilesOnly(t *testing.T) {
	ctx := context.Background()
	dir, secret := escapeVault(t)
	e := openEngine(t, nil)
	if _, err := e.Index(ctx, []braid.SourceSpec{{Path: dir}}, nil); err != nil {
		t.Fatal(err)
	}
	grepAll := func(paths ...string) (string, error) {
		var b strings.Builder
		err := e.Grep(ctx, "hunter2|alpha", braid.GrepOptions{Paths: paths}, func(r grep.Result) error {
			if r.Err != nil {
				b.WriteString("error: " + r.Err.Error() + "\n")
			}
			for _, l := range r.Lines {
				b.WriteString(r.File.Name + ":" + l.Text + "\n")
			}
			return nil
		})
		return b.String(), err
	}
	for _, p := range []string{secret, "/etc/passwd", filepath.Join(dir, "passwd.md"), filepath.Join(dir, "..", "credentials"),
		filepath.Join(dir, "sub", "..", "..", "credentials"), filepath.Join(dir, "outdir", "credentials"), filepath.Join(dir, "pipe.md"),
		dir + "/note.md\x00"} {
		out, err := grepAll(p)
		if err == nil || strings.Contains(out, "hunter2") {
			t.Errorf("grep %q: %q, %v; want an error and nothing read", p, out, err)
		}
	}
	if _, err := grepAll(secret); !errors.Is(err, notes.ErrNotIndexed) {
		t.Errorf("grep of a file outside: %v, want ErrNotIndexed", err)
	}
	out, err := grepAll()
	if err != nil || strings.Contains(out, "hunter2") || !strings.Contains(out, "alpha bravo") {
		t.Fatalf("grep over the index: %q, %v", out, err)
	}
	out, err = grepAll(filepath.Join(dir, "note.md"), filepath.Join(dir, "sub"))
	if err != nil || !strings.Contains(out, "alpha bravo") {
		t.Fatalf("grep of an indexed file: %q, %v", out, err)
	}

	// A note swapped for a link out after indexing is refused when read.
	note := filepath.Join(dir, "note.md")
	if err := os.Remove(note); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, note); err != nil {
		t.Fatal(err)
	}
	out, err = grepAll()
	if err != nil || strings.Contains(out, "hunter2") || !strings.Contains(out, "error: ") {
		t.Fatalf("grep after the note became a link out: %q, %v; want an error for that file and no secret", out, err)
	}
}
