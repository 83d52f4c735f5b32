package markdown

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/braidsearch/braid/internal/testdata"
	"github.com/braidsearch/braid/internal/testenv"
)

// vaultFiles returns the .md files under dir, sorted.
func vaultFiles(tb testing.TB, dir string) []string {
	tb.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

type vaultStats struct {
	files, wikilinks, embeds, fmLinks, mdLinks, tags, distinctTags, headings, warnings, withFrontmatter int
}

func parseVault(t *testing.T, dir string) (vaultStats, map[string]*Doc) {
	var s vaultStats
	docs := map[string]*Doc{}
	distinct := map[string]bool{}
	for _, path := range vaultFiles(t, dir) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel := testenv.Must1(filepath.Rel(dir, path))(t)
		d := Parse(filepath.Base(path), src)
		docs[filepath.ToSlash(rel)] = d
		s.files++
		for _, l := range d.Links {
			switch l.Kind {
			case WikiLink:
				s.wikilinks++
			case Embed:
				s.embeds++
			case FrontmatterLink:
				s.fmLinks++
			case MarkdownLink:
				s.mdLinks++
			}
		}
		s.tags += len(d.Tags)
		for _, tag := range d.Tags {
			distinct[tag] = true
		}
		s.headings += len(d.Headings)
		s.warnings += len(d.Warnings)
		if d.Frontmatter != nil {
			s.withFrontmatter++
		}
		lines := strings.Count(string(src), "\n") + 1
		for _, h := range d.Headings {
			if h.Line < d.BodyStart || h.Line > lines {
				t.Errorf("%s: heading %q at line %d outside body %d..%d", rel, h.Text, h.Line, d.BodyStart, lines)
			}
		}
		for _, l := range d.Links {
			if l.Line < 1 || l.Line > lines {
				t.Errorf("%s: link %+v outside file (%d lines)", rel, l, lines)
			}
		}
	}
	s.distinctTags = len(distinct)
	return s, docs
}

func TestVaultSilverbullet(t *testing.T) {
	dir := testdata.Dir(t, "markdown/silverbullet/docs")
	s, docs := parseVault(t, dir)
	t.Logf("silverbullet: %+v", s)
	if s.files != 225 {
		t.Errorf("parsed %d files, want 225", s.files)
	}
	// The README counts 1510 [[wikilinks]] by grep, code blocks included;
	// outside code we find about 1400.
	if s.wikilinks+s.embeds+s.fmLinks < 1300 {
		t.Errorf("found %d wikilinks, want at least 1300", s.wikilinks+s.embeds+s.fmLinks)
	}
	if s.tags < 150 {
		t.Errorf("found %d tags (per file, summed), want at least 150", s.tags)
	}
	if s.withFrontmatter < 180 {
		t.Errorf("%d files with frontmatter, want at least 180", s.withFrontmatter)
	}
	if s.warnings != 0 {
		for name, d := range docs {
			if len(d.Warnings) > 0 {
				t.Logf("%s: %q", name, d.Warnings)
			}
		}
	}
	// Spot checks on known files.
	syscalls := docs["Architecture/Syscalls.md"]
	if syscalls == nil {
		t.Fatal("Architecture/Syscalls.md not parsed")
	}
	if !hasLink(syscalls, Link{Kind: FrontmatterLink, Target: "Architecture/Client", Key: "partOf"}) {
		t.Errorf("Architecture/Syscalls.md: no frontmatter link partOf -> Architecture/Client in %+v", syscalls.Links)
	}
	attr := docs["Attribute.md"]
	if attr == nil || !hasLink(attr, Link{Kind: WikiLink, Target: "Object", Alt: "Objects"}) {
		t.Errorf("Attribute.md: no [[Object|Objects]] link")
	}
	if attr != nil && (len(attr.Tags) == 0 || attr.Tags[0] != "glossary") {
		t.Errorf("Attribute.md tags = %q, want glossary first", attr.Tags)
	}
}

func TestVaultDendron(t *testing.T) {
	dir := testdata.Dir(t, "markdown/dendron/vault")
	s, docs := parseVault(t, dir)
	t.Logf("dendron: %+v", s)
	if s.files != 1012 {
		t.Errorf("parsed %d files, want 1012", s.files)
	}
	for name, d := range docs {
		if d.Frontmatter == nil {
			t.Errorf("%s: Frontmatter is nil, warnings %q", name, d.Warnings)
		}
		if d.Title == "" {
			t.Errorf("%s: empty title", name)
		}
	}
	if s.wikilinks+s.embeds+s.fmLinks < 2500 {
		t.Errorf("found %d wikilinks, want at least 2500", s.wikilinks+s.embeds+s.fmLinks)
	}
	if s.tags < 250 {
		t.Errorf("found %d tags (per file, summed), want at least 250", s.tags)
	}
	if cl := docs["changelog.md"]; cl == nil || cl.Title != "Changelog" {
		t.Errorf("changelog.md title wrong: %+v", cl)
	}
}

func hasLink(d *Doc, want Link) bool {
	for _, l := range d.Links {
		l.Line = 0
		if l == want {
			return true
		}
	}
	return false
}
