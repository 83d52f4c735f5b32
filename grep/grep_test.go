package grep

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testFiles are the hand-made files of the table tests.
var testFiles = map[string]string{
	"a.txt":     "alpha\nfoo one\nbeta\ngamma\ndelta\nfoo two\nfoo three\neps\nzeta\neta\ntheta\nfoo four", // no final \n
	"b.txt":     "nothing\nhere\n",
	"crlf.txt":  "x foo\r\ny\r\n",
	"empty.txt": "",
	"bin.txt":   "foo a\nbar\x00baz\nfoo b\n",
	"u.txt":     "a\xffb\ncafé foo\néfoo\nfooé bar\nFOO_bar foo-bar\n\n",
	"w.txt":     "foo foo\nfoobar baz\na@foo b\n @foo\nab\n\na b\na  b\n",
}

// writeFiles writes testFiles into a new temporary directory.
func writeFiles(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range testFiles {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// run searches names in dir and formats the results as one string.
func run(t testing.TB, dir, pattern string, opt Options, f Format, names ...string) string {
	t.Helper()
	m, err := Compile(pattern, opt)
	if err != nil {
		t.Fatalf("Compile(%q): %v", pattern, err)
	}
	files := make([]File, len(names))
	for i, n := range names {
		files[i] = File{Path: filepath.Join(dir, n), Name: n}
	}
	f.Before, f.After = opt.Before, opt.After
	var out bytes.Buffer
	err = m.Search(context.Background(), files, 2, func(r Result) error {
		if r.Err != nil {
			t.Errorf("%s: %v", r.File.Name, r.Err)
		}
		// Ranges come from Go's regexp, whose \b is ASCII-only: with \b or
		// \B they may miss a match the (Unicode) line selection saw.
		asciiB := strings.Contains(pattern, `\b`) || strings.Contains(pattern, `\B`)
		for _, l := range r.Lines {
			if l.Match && !opt.Invert && !opt.NoRanges && !asciiB && len(l.Ranges) == 0 {
				t.Errorf("%s:%d: matching line %q has no Ranges", r.File.Name, l.Number, l.Text)
			}
		}
		return f.Write(&out, r)
	})
	if err != nil {
		t.Fatalf("Search: %v", err)
	}
	return out.String()
}

// rgArgs returns the ripgrep flags equivalent to opt and f.
func rgArgs(opt Options, f Format) []string {
	args := []string{"--no-config", "--no-heading", "--color", "never", "-j1"}
	add := func(on bool, flag string) {
		if on {
			args = append(args, flag)
		}
	}
	add(opt.IgnoreCase, "-i")
	add(opt.Word, "-w")
	add(opt.Invert, "-v")
	if opt.Before > 0 {
		args = append(args, "-B", strconv.Itoa(opt.Before))
	}
	if opt.After > 0 {
		args = append(args, "-A", strconv.Itoa(opt.After))
	}
	if opt.MaxCount > 0 {
		args = append(args, "-m", strconv.Itoa(opt.MaxCount))
	}
	if f.LineNumbers {
		args = append(args, "-n")
	} else {
		args = append(args, "-N")
	}
	if f.WithFilename {
		args = append(args, "-H")
	} else {
		args = append(args, "--no-filename")
	}
	add(f.Count, "-c")
	add(f.FilesWithMatches, "-l")
	add(f.FilesWithoutMatch, "--files-without-match")
	return args
}

// ripgrep runs rg in dir, returning its output; it skips t when rg is not
// installed.
func ripgrep(t testing.TB, dir, pattern string, opt Options, f Format, names ...string) string {
	t.Helper()
	if _, err := exec.LookPath("rg"); err != nil {
		t.Skip("no ripgrep: rg not installed: apt-get install ripgrep (make test installs it)")
	}
	args := append(rgArgs(opt, f), "-e", pattern, "--")
	cmd := exec.Command("rg", append(args, names...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) { // 1: nothing matched
		t.Fatalf("rg %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return string(out)
}

func TestSearchFormat(t *testing.T) {
	dir := writeFiles(t)
	hn := Format{WithFilename: true, LineNumbers: true}
	tests := []struct {
		name    string
		pattern string
		opt     Options
		format  Format
		files   []string
		want    string
		// noRipgrep says why ripgrep cannot confirm want, when it cannot.
		noRipgrep string
	}{
		{
			name: "line numbers and names", pattern: "foo", format: hn,
			files: []string{"a.txt", "b.txt", "crlf.txt"},
			want:  "a.txt:2:foo one\na.txt:6:foo two\na.txt:7:foo three\na.txt:12:foo four\ncrlf.txt:1:x foo\r\n",
		},
		{
			name: "no line numbers", pattern: "foo", format: Format{WithFilename: true},
			files: []string{"a.txt", "crlf.txt"},
			want:  "a.txt:foo one\na.txt:foo two\na.txt:foo three\na.txt:foo four\ncrlf.txt:x foo\r\n",
		},
		{
			name: "no file names", pattern: "two|three", format: Format{LineNumbers: true},
			files: []string{"a.txt"},
			want:  "6:foo two\n7:foo three\n",
		},
		{
			name: "context groups and files", pattern: "foo", opt: Options{Before: 1, After: 1}, format: hn,
			files: []string{"crlf.txt", "a.txt"},
			want: "crlf.txt:1:x foo\r\ncrlf.txt-2-y\r\n--\n" +
				"a.txt-1-alpha\na.txt:2:foo one\na.txt-3-beta\n--\n" +
				"a.txt-5-delta\na.txt:6:foo two\na.txt:7:foo three\na.txt-8-eps\n--\n" +
				"a.txt-11-theta\na.txt:12:foo four\n",
		},
		{
			name: "after context without numbers", pattern: "foo", opt: Options{After: 1}, format: Format{WithFilename: true},
			files: []string{"a.txt"},
			want:  "a.txt:foo one\na.txt-beta\n--\na.txt:foo two\na.txt:foo three\na.txt-eps\n--\na.txt:foo four\n",
		},
		{
			name: "before context overlapping", pattern: "foo t", opt: Options{Before: 3}, format: hn,
			files: []string{"a.txt"},
			want:  "a.txt-3-beta\na.txt-4-gamma\na.txt-5-delta\na.txt:6:foo two\na.txt:7:foo three\n",
		},
		{
			name: "context separator skips files without output", pattern: "one|nothing", opt: Options{After: 1}, format: hn,
			files: []string{"a.txt", "empty.txt", "b.txt"},
			want:  "a.txt:2:foo one\na.txt-3-beta\n--\nb.txt:1:nothing\nb.txt-2-here\n",
		},
		{
			name: "count", pattern: "foo", format: Format{WithFilename: true, Count: true},
			files: []string{"a.txt", "b.txt", "crlf.txt", "empty.txt"},
			want:  "a.txt:4\ncrlf.txt:1\n",
		},
		{
			name: "count without name", pattern: "foo", format: Format{Count: true},
			files: []string{"a.txt"},
			want:  "4\n",
		},
		{
			name: "count counts lines not matches", pattern: "o", format: Format{WithFilename: true, Count: true},
			files: []string{"w.txt"},
			want:  "w.txt:4\n",
		},
		{
			name: "count inverted", pattern: "foo", opt: Options{Invert: true}, format: Format{WithFilename: true, Count: true},
			files: []string{"a.txt", "b.txt", "empty.txt"},
			want:  "a.txt:8\nb.txt:2\n",
		},
		{
			name: "count wins over -l", pattern: "foo", format: Format{WithFilename: true, Count: true, FilesWithMatches: true},
			files: []string{"a.txt", "b.txt"},
			want:  "a.txt:4\n",
		},
		{
			name: "count with max", pattern: "foo", opt: Options{MaxCount: 2}, format: Format{WithFilename: true, Count: true},
			files: []string{"a.txt"},
			want:  "a.txt:2\n",
		},
		{
			name: "files with matches", pattern: "foo", format: Format{FilesWithMatches: true},
			files: []string{"crlf.txt", "b.txt", "a.txt", "empty.txt"},
			want:  "crlf.txt\na.txt\n",
		},
		{
			name: "files with matches inverted", pattern: "foo", opt: Options{Invert: true}, format: Format{FilesWithMatches: true},
			files: []string{"a.txt", "b.txt", "crlf.txt", "empty.txt"},
			want:  "a.txt\nb.txt\ncrlf.txt\n",
		},
		{
			name: "files without match", pattern: "foo", format: Format{FilesWithoutMatch: true},
			files: []string{"a.txt", "b.txt", "crlf.txt", "empty.txt"},
			want:  "b.txt\nempty.txt\n",
		},
		{
			name: "invert", pattern: "a", opt: Options{Invert: true}, format: hn,
			files: []string{"a.txt"},
			want:  "a.txt:2:foo one\na.txt:6:foo two\na.txt:7:foo three\na.txt:8:eps\na.txt:12:foo four\n",
		},
		{
			name: "invert with context", pattern: "foo|eta|eps|zeta", opt: Options{Invert: true, Before: 1, After: 1}, format: hn,
			files: []string{"a.txt"},
			want:  "a.txt:1:alpha\na.txt-2-foo one\na.txt-3-beta\na.txt:4:gamma\na.txt:5:delta\na.txt-6-foo two\n",
		},
		{
			name: "max count", pattern: "foo", opt: Options{MaxCount: 2}, format: hn,
			files: []string{"a.txt"},
			want:  "a.txt:2:foo one\na.txt:6:foo two\n",
		},
		{
			name: "max count prints trailing context with matches in it", pattern: "foo", opt: Options{MaxCount: 2, Before: 2, After: 3}, format: hn,
			files: []string{"a.txt"},
			want: "a.txt-1-alpha\na.txt:2:foo one\na.txt-3-beta\na.txt-4-gamma\na.txt-5-delta\n" +
				"a.txt:6:foo two\na.txt:7:foo three\na.txt-8-eps\na.txt-9-zeta\n",
		},
		{
			name: "max count inverted with trailing context", pattern: "alpha|gamma", opt: Options{Invert: true, MaxCount: 1, After: 2}, format: hn,
			files: []string{"a.txt"},
			want:  "a.txt:2:foo one\na.txt:3:beta\na.txt-4-gamma\n",
		},
		{
			name: "ignore case", pattern: "FOO|Café", opt: Options{IgnoreCase: true}, format: hn,
			files: []string{"u.txt"},
			want:  "u.txt:2:café foo\nu.txt:3:éfoo\nu.txt:4:fooé bar\nu.txt:5:FOO_bar foo-bar\n",
		},
		{
			name: "word", pattern: "foo", opt: Options{Word: true}, format: hn,
			files: []string{"w.txt", "u.txt"},
			want:  "w.txt:1:foo foo\nw.txt:3:a@foo b\nw.txt:4: @foo\nu.txt:2:café foo\nu.txt:5:FOO_bar foo-bar\n",
		},
		{
			name: "word picks the alternative that fits", pattern: "foo|foobar", opt: Options{Word: true}, format: hn,
			files: []string{"w.txt"},
			want:  "w.txt:1:foo foo\nw.txt:2:foobar baz\nw.txt:3:a@foo b\nw.txt:4: @foo\n",
		},
		{
			name: "word needs non-word characters around the match", pattern: "@foo", opt: Options{Word: true}, format: hn,
			files: []string{"w.txt"},
			want:  "w.txt:4: @foo\n",
		},
		{
			name: "word with an empty match", pattern: "x*", opt: Options{Word: true}, format: hn,
			files: []string{"w.txt"},
			want:  "w.txt:4: @foo\nw.txt:6:\nw.txt:8:a  b\n",
		},
		{
			name: "unicode word boundary", pattern: `\bfoo`, format: hn,
			files: []string{"u.txt"},
			want:  "u.txt:2:café foo\nu.txt:4:fooé bar\nu.txt:5:FOO_bar foo-bar\n",
		},
		{
			name: "unicode word class", pattern: `caf\w\b`, format: hn,
			files: []string{"u.txt"},
			want:  "u.txt:2:café foo\n",
		},
		{
			name: "invalid UTF-8 matches no class", pattern: `a.b|a\Wb`, format: hn,
			files: []string{"u.txt", "w.txt"},
			want:  "w.txt:7:a b\n",
		},
		{
			name: "empty lines and zero-width matches", pattern: "^$", format: hn,
			files: []string{"u.txt", "w.txt", "b.txt", "empty.txt"},
			want:  "u.txt:6:\nw.txt:6:\n",
		},
		{
			name: "every line of a file without final newline", pattern: "x*", format: Format{WithFilename: true, Count: true},
			files: []string{"a.txt", "crlf.txt", "empty.txt"},
			want:  "a.txt:12\ncrlf.txt:2\n",
		},
		{
			name: "line anchors", pattern: `\Afoo|four$|^eps\z`, format: hn,
			files: []string{"a.txt", "crlf.txt"},
			want:  "a.txt:2:foo one\na.txt:6:foo two\na.txt:7:foo three\na.txt:8:eps\na.txt:12:foo four\n",
		},
		{
			name: "carriage return stays in the line", pattern: `y\r$`, format: hn,
			files: []string{"crlf.txt"},
			want:  "crlf.txt:2:y\r\n",
		},
		{
			name: "binary files print nothing", pattern: "foo", format: hn,
			files: []string{"bin.txt", "crlf.txt"},
			want:  "crlf.txt:1:x foo\r\n",
			// Given file names, rg searches binary files and prints
			// "binary file matches"; walking a directory it skips them
			// silently, which is what braid grep does.
			noRipgrep: "rg reports explicitly named binary files",
		},
		{
			name: "binary files are not listed as without match", pattern: "zzz", format: Format{FilesWithoutMatch: true},
			files:     []string{"bin.txt", "b.txt"},
			want:      "b.txt\n",
			noRipgrep: "rg reports explicitly named binary files",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := run(t, dir, tt.pattern, tt.opt, tt.format, tt.files...)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("output mismatch (-want +got):\n%s", diff)
			}
			if tt.noRipgrep != "" {
				return
			}
			if _, err := exec.LookPath("rg"); err != nil {
				return // the wanted strings were checked against rg 13.0.0
			}
			if rg := ripgrep(t, dir, tt.pattern, tt.opt, tt.format, tt.files...); rg != tt.want {
				t.Errorf("rg disagrees with want (-want +rg):\n%s", cmp.Diff(tt.want, rg))
			}
		})
	}
}

func TestSearchResults(t *testing.T) {
	dir := writeFiles(t)
	m, err := Compile("foo", Options{After: 1})
	if err != nil {
		t.Fatal(err)
	}
	files := []File{
		{Path: filepath.Join(dir, "crlf.txt"), Name: "crlf.txt"},
		{Path: filepath.Join(dir, "missing.txt")},
		{Path: filepath.Join(dir, "bin.txt"), Name: "bin.txt"},
		{Path: filepath.Join(dir, "w.txt"), Name: "w.txt"},
	}
	var got []Result
	err = m.Search(context.Background(), files, 3, func(r Result) error {
		if r.Err != nil {
			if !errors.Is(r.Err, os.ErrNotExist) {
				t.Errorf("Err = %v, want one wrapping os.ErrNotExist", r.Err)
			}
			r.Err = os.ErrNotExist
		}
		got = append(got, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []Result{
		{File: files[0], Count: 1, Lines: []Line{
			{Number: 1, Text: "x foo\r", Match: true, Ranges: [][2]int{{2, 5}}},
			{Number: 2, Text: "y\r"},
		}},
		{File: files[1], Err: os.ErrNotExist},
		{File: files[2], Binary: true},
		{File: files[3], Count: 4, Lines: []Line{
			{Number: 1, Text: "foo foo", Match: true, Ranges: [][2]int{{0, 3}, {4, 7}}},
			{Number: 2, Text: "foobar baz", Match: true, Ranges: [][2]int{{0, 3}}},
			{Number: 3, Text: "a@foo b", Match: true, Ranges: [][2]int{{2, 5}}},
			{Number: 4, Text: " @foo", Match: true, Ranges: [][2]int{{2, 5}}},
			{Number: 5, Text: "ab"},
		}},
	}
	if diff := cmp.Diff(want, got, cmp.Comparer(func(a, b error) bool { return a == b })); diff != "" {
		t.Errorf("results mismatch (-want +got):\n%s", diff)
	}
}

func TestRanges(t *testing.T) {
	tests := []struct {
		name    string
		pattern string
		opt     Options
		line    string
		want    [][2]int
	}{
		{name: "literal", pattern: "ab", line: "abcab", want: [][2]int{{0, 2}, {3, 5}}},
		{name: "folded literal", pattern: "ab", opt: Options{IgnoreCase: true}, line: "xAbaB", want: [][2]int{{1, 3}, {3, 5}}},
		{name: "regexp", pattern: `\d+`, line: "a12b3", want: [][2]int{{1, 3}, {4, 5}}},
		{name: "unicode digits", pattern: `\d+`, line: "x١٢", want: [][2]int{{1, 5}}},
		{name: "word, adjacent matches", pattern: "foo", opt: Options{Word: true}, line: "foo foo,foo", want: [][2]int{{0, 3}, {4, 7}, {8, 11}}},
		{name: "word skips embedded", pattern: "foo", opt: Options{Word: true}, line: "foobar foo", want: [][2]int{{7, 10}}},
		{name: "word, longer alternative", pattern: "foo|foobar", opt: Options{Word: true}, line: "foobar", want: [][2]int{{0, 6}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Compile(tt.pattern, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			s := m.newSearcher()
			got := s.appendRanges(nil, []byte(tt.line))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ranges of %q in %q (-want +got):\n%s", tt.pattern, tt.line, diff)
			}
		})
	}
}

func TestNoRanges(t *testing.T) {
	dir := writeFiles(t)
	m, err := Compile("foo", Options{NoRanges: true})
	if err != nil {
		t.Fatal(err)
	}
	err = m.Search(context.Background(), []File{{Path: filepath.Join(dir, "a.txt")}}, 1, func(r Result) error {
		for _, l := range r.Lines {
			if l.Ranges != nil {
				t.Errorf("line %d: Ranges = %v, want nil", l.Number, l.Ranges)
			}
		}
		if r.Count != 4 {
			t.Errorf("Count = %d, want 4", r.Count)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct {
		name    string
		pattern string
		opt     Options
		want    error
		msg     string
	}{
		{name: "unclosed group", pattern: "a(", want: ErrBadPattern,
			msg: "grep: bad pattern \"a(\": missing closing ); write an RE2 regular expression and escape metacharacters such as ( [ { . * + ? with \\ to match them literally"},
		{name: "unclosed class", pattern: "x[[", want: ErrBadPattern,
			msg: "grep: bad pattern \"x[[\": missing closing ] at `[[`; write an RE2 regular expression and escape metacharacters such as ( [ { . * + ? with \\ to match them literally"},
		{name: "newline", pattern: `a\nb`, want: ErrBadPattern,
			msg: "grep: bad pattern \"a\\\\nb\": the literal \"\\n\" is not allowed; patterns match within one line; search for the text on each side of the line break separately"},
		{name: "newline class", pattern: `[\n]`, want: ErrBadPattern},
		{name: "repeat too large", pattern: `x{1001}`, want: ErrBadPattern},
		{name: "negative context", pattern: "x", opt: Options{Before: -1}, want: ErrBadOptions,
			msg: "grep: bad options: Before -1, want >= 0"},
		{name: "negative max count", pattern: "x", opt: Options{MaxCount: -2}, want: ErrBadOptions},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compile(tt.pattern, tt.opt)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Compile(%q) = %v, want an error wrapping %v", tt.pattern, err, tt.want)
			}
			if tt.msg != "" {
				if diff := cmp.Diff(tt.msg, err.Error()); diff != "" {
					t.Errorf("message mismatch (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestCompileAccepts(t *testing.T) {
	// Patterns whose classes lose \n, or that only look like they need it.
	for _, p := range []string{`[^a]`, `\s`, `(?s).`, `[\na]`, `\W`, `[^\n]`, `\Q(\E`, `[\w-]`, `[^\d\s]`, `[]a]`, `[[:alpha:]\d]`} {
		if _, err := Compile(p, Options{}); err != nil {
			t.Errorf("Compile(%q): %v", p, err)
		}
	}
}

func TestSearchStops(t *testing.T) {
	dir := writeFiles(t)
	m, err := Compile("foo", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var files []File
	for range 50 {
		files = append(files, File{Path: filepath.Join(dir, "a.txt")})
	}

	stop := errors.New("stop")
	calls := 0
	err = m.Search(context.Background(), files, 4, func(Result) error {
		calls++
		if calls == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || calls != 3 {
		t.Errorf("Search = %v after %d calls, want %v after 3", err, calls, stop)
	}

	ctx, cancel := context.WithCancel(context.Background())
	calls = 0
	err = m.Search(ctx, files, 4, func(Result) error {
		calls++
		if calls == 2 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || calls > 2+4*4 {
		t.Errorf("Search = %v after %d calls, want context.Canceled soon after 2", err, calls)
	}
}

func TestSearchRecoversPanics(t *testing.T) {
	dir := writeFiles(t)
	m, err := Compile("foo", Options{})
	if err != nil {
		t.Fatal(err)
	}
	m.lits = nil // an exact matcher without its literal: searching it panics
	var errs []error
	err = m.Search(context.Background(), []File{{Path: filepath.Join(dir, "a.txt")}, {Path: filepath.Join(dir, "b.txt")}}, 2,
		func(r Result) error {
			errs = append(errs, r.Err)
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range errs {
		if e == nil || !strings.Contains(e.Error(), "panic") {
			t.Errorf("file %d: Err = %v, want a recovered panic", i, e)
		}
	}
}
