package ingest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	ignore "github.com/sabhiram/go-gitignore"

	"github.com/braidsearch/braid/extract"
	"github.com/braidsearch/braid/index"
	"github.com/braidsearch/braid/internal/confine"
)

// DefaultMaxFileSize is the largest file indexed when a source sets no limit.
const DefaultMaxFileSize = 8 << 20

// DefaultMaxDocumentSize is the largest PDF, DOCX or ODT file indexed when
// a source sets no limit: their bytes are mostly compressed streams, fonts
// and images, so a paper or a manual is often over DefaultMaxFileSize, and
// package extract bounds what reading one costs (its memory, pages, time
// and decompressed size) whatever the file's size.
const DefaultMaxDocumentSize = 64 << 20

// fileLimit is the largest file at rel a source indexes: its own limit,
// else DefaultMaxDocumentSize for the formats extract reads from a
// compressed container, else DefaultMaxFileSize.
func fileLimit(src *index.Source, rel string) int64 {
	if src.MaxFileSize > 0 {
		return src.MaxFileSize
	}
	switch extract.Format(rel) {
	case "pdf", "docx", "odt":
		return DefaultMaxDocumentSize
	}
	return DefaultMaxFileSize
}

// DefaultMaxFiles is the most files indexed from one directory source when
// it sets no limit.
const DefaultMaxFiles = 200_000

// DefaultMaxChunks is the most chunks one document may be split into when
// its source sets no limit; at the default chunk size it is far beyond what
// the default file size limit allows.
const DefaultMaxChunks = 20_000

// capFiles keeps the first MaxFiles of the n files (or S3 objects) a
// source lists, in path order: it counts the others as skipped, says so
// in sum, and returns how many are kept.
func capFiles(src *index.Source, n int, sum *Summary) int {
	limit := maxFiles(src)
	if n <= limit {
		return n
	}
	what, order, narrow := "files", "path", "--pattern, --exclude or a .gitignore"
	if src.Kind == index.SourceS3 {
		what, order, narrow = "objects", "key", "--pattern or --exclude"
	}
	sum.Skipped.OverFileLimit += n - limit
	sum.Errors = append(sum.Errors, FileError{Path: src.Path, Err: fmt.Errorf(
		"%w: %d %s, over the %d-file limit; the first %d in %s order are indexed and the rest skipped; narrow the source with %s",
		ErrTooManyFiles, n, what, limit, limit, order, narrow).Error()})
	return limit
}

func maxFiles(src *index.Source) int {
	if src.MaxFiles > 0 {
		return src.MaxFiles
	}
	return DefaultMaxFiles
}

func maxFileSize(src *index.Source) int64 {
	if src.MaxFileSize > 0 {
		return src.MaxFileSize
	}
	return DefaultMaxFileSize
}

// file is a candidate found by a walk.
type file struct {
	abs  string
	rel  string // slash-separated, relative to the source
	size int64
	// stat is the file's status as the walk saw it (statOf), nil where
	// the system does not say it; settled says that its times are old
	// enough to record it (filestat.go).
	stat    *index.FileStat
	settled bool
}

// listed is the file at abs (rel in its source) of status info, seen at
// now.
func listed(abs, rel string, info fs.FileInfo, now time.Time) file {
	f := file{abs: abs, rel: rel, size: info.Size()}
	if st, ok := statOf(info); ok {
		f.stat, f.settled = &st, settled(st, now)
	}
	return f
}

// Skips counts files a walk or a read left out, by reason.
type Skips struct {
	Hidden    int `json:"hidden"`
	Ignored   int `json:"gitignored"`
	Excluded  int `json:"excluded"` // by --pattern / --exclude
	Binary    int `json:"binary"`
	Oversized int `json:"oversized"`
	NotUTF8   int `json:"not_utf8"`
	// OverFileLimit counts files past the source's MaxFiles; TooManyChunks
	// counts documents that would need more than its MaxChunks.
	OverFileLimit int `json:"over_file_limit"`
	TooManyChunks int `json:"too_many_chunks"`
	// LinkOutside counts symbolic links whose target lies outside the
	// source, not followed unless the source sets FollowLinks; NotRegular
	// counts FIFOs, sockets and devices, never read.
	LinkOutside int `json:"link_outside"`
	NotRegular  int `json:"not_regular"`
	// BrokenLink counts symbolic links that lead nowhere: to a missing
	// file, or round in a loop.
	BrokenLink int `json:"broken_link"`
	// Encrypted, NoText, Damaged and OverLimit count files of a format
	// braid extracts (PDF, HTML, DOCX, ODT) that it could not: a PDF that
	// needs a password, a file without text (a scanned PDF), a broken or
	// truncated file, and one past a bound on its pages, time, memory,
	// decompressed size or nesting (package extract).
	Encrypted int `json:"encrypted"`
	NoText    int `json:"no_text_layer"`
	Damaged   int `json:"damaged"`
	OverLimit int `json:"over_limit"`
	// OverBudget counts files of those formats that may cost more memory
	// to extract than the whole of the extraction budget (extract.Budget).
	OverBudget int `json:"over_memory_budget"`
}

// add counts a file skipped for reason (a prepared file's skip), and says
// whether reason is one it counts.
func (s *Skips) add(reason string) bool {
	switch reason {
	case "binary":
		s.Binary++
	case "not_utf8":
		s.NotUTF8++
	case "encrypted":
		s.Encrypted++
	case "no_text_layer":
		s.NoText++
	case "damaged":
		s.Damaged++
	case "over_limit":
		s.OverLimit++
	case "over_memory_budget":
		s.OverBudget++
	default:
		return false
	}
	return true
}

// Total is the number of skipped files.
func (s Skips) Total() int {
	return s.Hidden + s.Ignored + s.Excluded + s.Binary + s.Oversized + s.NotUTF8 + s.OverFileLimit + s.TooManyChunks + s.LinkOutside + s.NotRegular + s.BrokenLink + s.Encrypted + s.NoText + s.Damaged + s.OverLimit + s.OverBudget
}

// globs are a source's include and exclude patterns (Source.Patterns,
// Source.Excludes), which the walk of a folder and the listing of a
// bucket apply alike.
type globs struct{ include, exclude *index.Matcher }

func sourceGlobs(src *index.Source) (globs, error) {
	include, err := index.NewMatcher(src.Patterns)
	if err != nil {
		return globs{}, err
	}
	exclude, err := index.NewMatcher(src.Excludes)
	return globs{include, exclude}, err
}

// leaveOut reports whether the patterns leave out the file at rel: an
// include pattern is set and none matches it, or an exclude pattern does.
func (g globs) leaveOut(rel string) bool {
	return (g.include != nil && !g.include.Match(rel)) || g.exclude.Match(rel)
}

type gitignore struct {
	dir string // relative to the source root, "" for the root
	m   *ignore.GitIgnore
}

// walk lists the files of a directory source, honouring .gitignore files at
// every level, skipping hidden entries and applying the source's globs.
// A .gitignore that is a link, a FIFO, a device or over 1 MiB is not read
// (see loadGitignore): warn reports it and the walk goes on without its
// rules.
// Symbolic links to directories are not followed, so link loops cannot trap
// it; links to files are followed when their target lies inside the source
// (or anywhere, when the source sets FollowLinks): a cloned vault's link to
// ~/.aws/credentials must not end up in search results.
func walk(src *index.Source, skips *Skips, warn func(error)) ([]file, error) {
	w, err := newWalker(src, skips, warn)
	if err != nil {
		return nil, err
	}
	return w.tree(src.Path, "", nil)
}

// walker decides, entry by entry, what a walk of a folder source lists:
// the whole walk (tree from the root) and a changed-paths run (changed,
// then tree below a folder that appeared) take the same decisions
// through take, so a file is listed by one exactly when the other would
// list it.
type walker struct {
	src      *index.Source
	globs    globs
	ignores  []gitignore
	entered  map[string]bool // folders (rel; "" for the root) whose .gitignore is loaded
	reached  map[string]bool // folders (rel) above a changed path: whether a walk goes into each
	realRoot string
	skips    *Skips
	warn     func(error)
	now      time.Time // when the walk began
}

func newWalker(src *index.Source, skips *Skips, warn func(error)) (*walker, error) {
	globs, err := sourceGlobs(src)
	if err != nil {
		return nil, err
	}
	realRoot, err := filepath.EvalSymlinks(src.Path)
	if err != nil {
		return nil, fmt.Errorf("walk %s: %w", src.Path, err)
	}
	return &walker{src: src, globs: globs, realRoot: realRoot, skips: skips, warn: warn, now: time.Now(),
		entered: map[string]bool{}, reached: map[string]bool{}}, nil
}

// ignored reports whether the .gitignore rules loaded so far leave out
// rel (a folder when isDir).
func (w *walker) ignored(rel string, isDir bool) bool {
	for _, g := range w.ignores {
		if g.dir != "" && !strings.HasPrefix(rel, g.dir+"/") {
			continue
		}
		p := strings.TrimPrefix(rel, g.dir+"/")
		if g.dir == "" {
			p = rel
		}
		if isDir {
			p += "/"
		}
		if g.m.MatchesPath(p) {
			return true
		}
	}
	return false
}

// enter loads the .gitignore of the folder at p (rel from the root, ""
// for the root itself), once.
func (w *walker) enter(p, rel string) {
	if w.entered[rel] {
		return
	}
	w.entered[rel] = true
	w.ignores = loadGitignore(w.ignores, p, rel, w.warn)
}

// take decides one entry below the root (p, and rel from the root) as the
// walk does, counting a skip in w.skips: into says the walk goes into it
// (a folder, not a link to one), ok that it is a file to index (f). Its
// .gitignore rules must be loaded for every folder above rel (enter).
func (w *walker) take(p, rel string, d fs.DirEntry) (f file, ok, into bool) {
	src := w.src
	if strings.HasPrefix(d.Name(), ".") {
		w.skips.Hidden++
		return f, false, false
	}
	if d.IsDir() {
		if src.NoRecursive || w.ignored(rel, true) {
			if !src.NoRecursive {
				w.skips.Ignored++
			}
			return f, false, false
		}
		return f, false, true
	}
	if w.ignored(rel, false) {
		w.skips.Ignored++
		return f, false, false
	}
	if w.globs.leaveOut(rel) {
		w.skips.Excluded++
		return f, false, false
	}
	if d.Type()&fs.ModeSymlink != 0 {
		real, err := filepath.EvalSymlinks(p)
		if err != nil { // a dangling link, or a loop
			w.skips.BrokenLink++
			return f, false, false
		}
		if !src.FollowLinks && !confine.Within(w.realRoot, real) {
			w.skips.LinkOutside++
			return f, false, false
		}
	}
	info, err := os.Stat(p) // follows a link to a file
	if err != nil {
		w.warn(fmt.Errorf("%s: %w", p, err))
		return f, false, false
	}
	if !info.Mode().IsRegular() {
		if !info.IsDir() {
			w.skips.NotRegular++
		}
		return f, false, false
	}
	if info.Size() > fileLimit(src, rel) {
		w.skips.Oversized++
		return f, false, false
	}
	return listed(p, rel, info, w.now), true, false
}

// tree walks the folder at dir (rel from the root: "" for the root, else
// a folder take goes into, whose parents' rules are loaded) and appends
// the files it lists to files. A failure to read the root stops the
// walk; below it, one is reported to warn and its folder left out.
func (w *walker) tree(dir, dirRel string, files []file) ([]file, error) {
	src := w.src
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == src.Path {
				return err
			}
			w.warn(fmt.Errorf("%s: %w", p, err))
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if p == dir {
			if !d.IsDir() {
				if dirRel != "" {
					return nil // no longer a folder: the next change says what it is
				}
				// A link took the folder's place since it was checked: walk
				// nothing, and remove nothing.
				return fmt.Errorf("%w: %s is no longer a folder", index.ErrMoved, src.Path)
			}
			w.enter(p, dirRel)
			return nil
		}
		rel, _ := filepath.Rel(src.Path, p)
		rel = filepath.ToSlash(rel)
		f, ok, into := w.take(p, rel, d)
		switch {
		case into:
			w.enter(p, rel)
		case d.IsDir():
			return fs.SkipDir
		case ok:
			files = append(files, f)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("walk %s: %w", src.Path, err)
	}
	return files, nil
}

// changed lists what the walk would list at rel, a path below the root
// that changed: nothing when it is gone or left out (a folder above it
// hidden, gitignored, not a folder any more, or the source not
// recursive), the file, or for a folder the files below it. Only rel, its
// parents and (for a folder) what is below it are looked at.
func (w *walker) changed(rel string, files []file) ([]file, error) {
	if !w.reach(path.Dir(rel)) {
		return files, nil
	}
	p := filepath.Join(w.src.Path, filepath.FromSlash(rel))
	info, err := os.Lstat(p)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			w.warn(fmt.Errorf("%s: %w", p, err))
		}
		return files, nil
	}
	f, ok, into := w.take(p, rel, fs.FileInfoToDirEntry(info))
	switch {
	case into:
		return w.tree(p, rel, files)
	case ok:
		files = append(files, f)
	}
	return files, nil
}

// reach reports whether a walk goes into the folder at rel ("." for the
// root), loading the .gitignore of each folder on the way.
func (w *walker) reach(rel string) bool {
	if rel == "." {
		w.enter(w.src.Path, "")
		return true
	}
	if r, ok := w.reached[rel]; ok {
		return r
	}
	ok := w.reach(path.Dir(rel))
	if ok {
		p := filepath.Join(w.src.Path, filepath.FromSlash(rel))
		info, err := os.Lstat(p)
		if ok = err == nil && info.IsDir(); ok {
			_, _, ok = w.take(p, rel, fs.FileInfoToDirEntry(info)) // into
		}
		if ok {
			w.enter(p, rel)
		}
	}
	w.reached[rel] = ok
	return ok
}

// maxIgnoreFile is the largest .gitignore read, in bytes: a hand-written
// list of patterns is a few KiB.
const maxIgnoreFile = 1 << 20

// loadGitignore adds the .gitignore of dir (rel from the source root) to
// list. It is read as confine.ReadConfig reads: a link, a FIFO, a device or
// a file over maxIgnoreFile is not read, and warn says so; its rules are
// not applied and the walk goes on.
func loadGitignore(list []gitignore, dir, rel string, warn func(error)) []gitignore {
	p := filepath.Join(dir, ".gitignore")
	data, err := confine.ReadConfig(p, maxIgnoreFile)
	if errors.Is(err, fs.ErrNotExist) {
		return list
	}
	if err != nil {
		warn(fmt.Errorf("%s not read, its rules are not applied: %w", p, err))
		return list
	}
	lines := strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
	return append(list, gitignore{dir: rel, m: ignore.CompileIgnoreLines(lines...)})
}

// ErrNotText means a file is binary or not UTF-8 and so was not indexed.
var ErrNotText = errors.New("index: not a UTF-8 text file")

// isMarkdown reports whether a path names a markdown file.
func isMarkdown(rel string) bool {
	switch strings.ToLower(path.Ext(rel)) {
	case ".md", ".markdown", ".mdx", ".mdown", ".mkd":
		return true
	}
	return false
}
