// Command testsummary reads `go test -json` on stdin and writes what plain
// `go test` would (each package's ok or FAIL line, build errors, and the
// output of every failing test), then one line saying which tests were
// skipped and why, grouped by the first clause of each t.Skip message:
//
//	skipped 14 tests: 12 no shared data, 2 no ripgrep
//
// Before it comes a line naming the five slowest tests, to show where the
// time of a suite goes.
//
// It exits 1 when a test, a package or a build failed (or the input is not
// go test -json), so `set -o pipefail; go test -json ./... | testsummary`
// fails as go test does.
//
// With -slow REGEXP (the top-level tests `make test-slow` runs) it also
// checks, over a -short run, that the fast and the slow suite split the
// tests between them: a test skipped as slow (testenv.SlowReason) that the
// pattern does not match would run in neither, and a test the pattern
// matches that ran anyway would run in both. Either fails the run.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/braidsearch/braid/internal/testenv"
)

// event is one line of go test -json (cmd/test2json's TestEvent, and the
// build events go test -json interleaves with them).
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	Elapsed    float64 // seconds, on pass and fail
	ImportPath string  // build-output, build-fail
}

// timing is how long a top-level test ran.
type timing struct {
	test    string // package.Test
	elapsed float64
}

// line is one line of output from a test or one of its subtests.
type line struct {
	test, text string
}

// summary gathers what the stream says.
type summary struct {
	out     io.Writer
	slow    *regexp.Regexp
	pending map[string][]line // package + top-level test: its tree's output so far
	failed  map[string]bool   // package + test (any level) that failed
	skips   map[string]int    // reason: tests skipped for it
	nskips  int
	fails   []string // failed tests, as package.Test
	times   []timing // top-level tests that ran
	bad     bool     // a failure of any kind
	split   []string // tests the -slow check found on the wrong side
}

func main() {
	slow := flag.String("slow", "", "the `regexp` of top-level tests make test-slow runs; check a -short run against it")
	flag.Parse()
	var re *regexp.Regexp
	if *slow != "" {
		var err error
		if re, err = regexp.Compile(*slow); err != nil {
			fmt.Fprintf(os.Stderr, "testsummary: -slow %q: %v\n", *slow, err)
			os.Exit(2)
		}
	}
	ok, err := summarize(os.Stdin, os.Stdout, re)
	if err != nil {
		fmt.Fprintf(os.Stderr, "testsummary: %v\n", err)
		os.Exit(1)
	}
	if !ok {
		os.Exit(1)
	}
}

// summarize reads go test -json from r and writes the summary to w; ok
// is false when anything failed. slow, when not nil, is checked against
// the tests as -slow says.
func summarize(r io.Reader, w io.Writer, slow *regexp.Regexp) (ok bool, err error) {
	s := &summary{out: w, slow: slow, pending: map[string][]line{}, failed: map[string]bool{}, skips: map[string]int{}}
	if err := s.read(r); err != nil {
		return false, err
	}
	s.finish()
	return !s.bad, nil
}

// read handles each event of r; a line that is not JSON (go test's own
// early errors) is passed through and counts as a failure.
func (s *summary) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			fmt.Fprintln(s.out, sc.Text())
			s.bad = true
			continue
		}
		s.handle(e)
	}
	return sc.Err()
}

func (s *summary) handle(e event) {
	switch e.Action {
	case "build-output":
		fmt.Fprint(s.out, e.Output)
		return
	case "build-fail":
		s.bad = true
		return
	}
	if e.Test == "" {
		s.packageEvent(e)
		return
	}
	top, _, _ := strings.Cut(e.Test, "/")
	key := e.Package + " " + top
	switch e.Action {
	case "output":
		if !framing(e.Output) {
			s.pending[key] = append(s.pending[key], line{e.Test, e.Output})
		}
	case "fail":
		s.failed[e.Package+" "+e.Test] = true
		if e.Test == top {
			s.bad = true
			s.fails = append(s.fails, short(e.Package)+"."+e.Test)
			for _, l := range s.pending[key] {
				if s.failed[e.Package+" "+l.test] {
					fmt.Fprint(s.out, l.text)
				}
			}
		}
	case "skip":
		reason := skipReason(s.pending[key], e.Test)
		s.skips[reason]++
		s.nskips++
		if s.slow != nil && e.Test == top && reason == testenv.SlowReason && !s.slow.MatchString(e.Test) {
			s.split = append(s.split, fmt.Sprintf("%s.%s is skipped as slow but make test-slow does not run it (add it to SLOW in the Makefile)", short(e.Package), e.Test))
		}
	case "pass":
		if s.slow != nil && e.Test == top && s.slow.MatchString(e.Test) {
			s.split = append(s.split, fmt.Sprintf("%s.%s ran in the fast suite but SLOW names it, so make test-slow runs it again (call testenv.Slow in it, or take it out of SLOW)", short(e.Package), e.Test))
		}
	}
	if e.Test == top && (e.Action == "pass" || e.Action == "fail" || e.Action == "skip") {
		delete(s.pending, key)
		if e.Action != "skip" {
			s.times = append(s.times, timing{short(e.Package) + "." + e.Test, e.Elapsed})
		}
	}
}

// packageEvent prints a package's own output (its ok or FAIL line, a
// panic, a timeout) as go test does, less the PASS line and the warning
// of a package that -run leaves without tests (its ok line says so).
func (s *summary) packageEvent(e event) {
	switch e.Action {
	case "output":
		if e.Output != "PASS\n" && e.Output != "testing: warning: no tests to run\n" && !framing(e.Output) {
			fmt.Fprint(s.out, e.Output)
		}
	case "fail":
		s.bad = true
		// A timeout or a crash ends the package with its tests unfinished:
		// show what they had printed.
		for key, lines := range s.pending {
			if strings.HasPrefix(key, e.Package+" ") {
				for _, l := range lines {
					fmt.Fprint(s.out, l.text)
				}
				delete(s.pending, key)
			}
		}
	}
}

// finish writes the slowest tests, the failed ones, the split problems
// and the skip line.
func (s *summary) finish() {
	sort.SliceStable(s.times, func(i, j int) bool { return s.times[i].elapsed > s.times[j].elapsed })
	var slowest []string
	for _, t := range s.times[:min(5, len(s.times))] {
		slowest = append(slowest, fmt.Sprintf("%s %.0fs", t.test, t.elapsed))
	}
	if len(slowest) > 0 {
		fmt.Fprintf(s.out, "slowest tests: %s\n", strings.Join(slowest, ", "))
	}
	if len(s.fails) > 0 {
		fmt.Fprintf(s.out, "failed %s: %s\n", tests(len(s.fails)), strings.Join(s.fails, ", "))
	}
	for _, m := range s.split {
		fmt.Fprintln(s.out, "testsummary: "+m)
		s.bad = true
	}
	if s.nskips == 0 {
		fmt.Fprintln(s.out, "skipped no tests")
		return
	}
	reasons := make([]string, 0, len(s.skips))
	for r := range s.skips {
		reasons = append(reasons, r)
	}
	sort.Slice(reasons, func(i, j int) bool {
		a, b := reasons[i], reasons[j]
		if s.skips[a] != s.skips[b] {
			return s.skips[a] > s.skips[b]
		}
		return a < b
	})
	parts := make([]string, len(reasons))
	for i, r := range reasons {
		parts[i] = fmt.Sprintf("%d %s", s.skips[r], r)
	}
	fmt.Fprintf(s.out, "skipped %s: %s\n", tests(s.nskips), strings.Join(parts, ", "))
}

// tests is "1 test" or "n tests".
func tests(n int) string {
	if n == 1 {
		return "1 test"
	}
	return fmt.Sprintf("%d tests", n)
}

// framing reports go test -json's own lines about running tests.
func framing(out string) bool {
	for _, p := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME", "--- PASS", "--- SKIP"} {
		if strings.HasPrefix(strings.TrimLeft(out, " "), p) {
			return true
		}
	}
	return false
}

// logLine matches a t.Log or t.Skip line: "    file_test.go:12: message".
var logLine = regexp.MustCompile(`^\s+[\w.-]+\.go:\d+: (.*)$`)

// skipReason is the first clause of a skipped test's last logged line
// (its t.Skip message), up to the first ": "; "no reason given" when it
// logged none.
func skipReason(lines []line, test string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		if lines[i].test != test {
			continue
		}
		m := logLine.FindStringSubmatch(strings.TrimRight(lines[i].text, "\n"))
		if m == nil {
			continue
		}
		reason, _, _ := strings.Cut(m[1], ": ")
		if len(reason) > 80 {
			reason = reason[:77] + "..."
		}
		return reason
	}
	return "no reason given"
}

// short is the package path less the module's, "." for the root.
func short(pkg string) string {
	const module = "github.com/braidsearch/braid"
	if pkg == module {
		return "braid"
	}
	return strings.TrimPrefix(pkg, module+"/")
}
