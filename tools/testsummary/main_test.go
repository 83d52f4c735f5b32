package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/braidsearch/braid/internal/testenv"
)

const pkg = "github.com/braidsearch/braid/x"

// stream writes events as go test -json does, one per line.
func stream(t *testing.T, events ...event) string {
	t.Helper()
	var b strings.Builder
	for _, e := range events {
		if e.Package == "" && e.ImportPath == "" {
			e.Package = pkg
		}
		j, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

func out(test, text string) event   { return event{Action: "output", Test: test, Output: text} }
func end(action, test string) event { return event{Action: action, Test: test} }

// skipped is a test that skips with message.
func skipped(test, message string) []event {
	return []event{
		end("run", test),
		out(test, "=== RUN   "+test+"\n"),
		out(test, "    x_test.go:12: "+message+"\n"),
		out(test, "--- SKIP: "+test+" (0.00s)\n"),
		end("skip", test),
	}
}

func passed(test string) []event {
	return []event{end("run", test), out(test, "=== RUN   "+test+"\n"), out(test, "    x_test.go:20: fine\n"), out(test, "--- PASS: "+test+" (0.01s)\n"), {Action: "pass", Test: test, Elapsed: float64(len(test))}}
}

func join(parts ...[]event) []event {
	var all []event
	for _, p := range parts {
		all = append(all, p...)
	}
	return all
}

func TestSummarize(t *testing.T) {
	okLine := []event{out("", "ok  \t"+pkg+"\t1.2s\n"), end("pass", "")}
	tests := []struct {
		name     string
		in       []event
		raw      string // appended to the stream as is
		slow     string
		ok       bool
		want     []string // lines the summary holds
		dontWant []string
	}{
		{
			name: "skips grouped by their first clause",
			in: join(passed("TestA"),
				skipped("TestB", "no shared data: /s/data/scifact not found (set DATA)"),
				skipped("TestC", "no shared data: /s/data/markdown not found (set DATA)"),
				skipped("TestD", "no ripgrep: rg not installed"),
				passed("TestE"), skipped("TestE/sub", "not root: needs root"),
				okLine),
			ok:       true,
			want:     []string{"ok  \t" + pkg + "\t1.2s", "slowest tests: x.TestA 5s, x.TestE 5s\n", "skipped 4 tests: 2 no shared data, 1 no ripgrep, 1 not root"},
			dontWant: []string{"fine", "=== RUN", "--- SKIP"},
		},
		{
			name: "nothing skipped",
			in:   join(passed("TestA"), okLine),
			ok:   true,
			want: []string{"skipped no tests"},
		},
		{
			name:     "a package -run leaves without tests",
			in:       []event{out("", "testing: warning: no tests to run\n"), out("", "PASS\n"), out("", "ok  \t"+pkg+"\t0.1s [no tests to run]\n"), end("pass", "")},
			ok:       true,
			want:     []string{"ok  \t" + pkg + "\t0.1s [no tests to run]"},
			dontWant: []string{"warning", "PASS"},
		},
		{
			name: "a failing subtest's output, not its passing sibling's",
			in: join([]event{
				end("run", "TestF"), out("TestF", "=== RUN   TestF\n"),
				end("run", "TestF/ok"), out("TestF/ok", "=== RUN   TestF/ok\n"), out("TestF/ok", "    x_test.go:5: all good\n"), out("TestF/ok", "--- PASS: TestF/ok (0.00s)\n"), end("pass", "TestF/ok"),
				end("run", "TestF/bad"), out("TestF/bad", "=== RUN   TestF/bad\n"), out("TestF/bad", "    x_test.go:9: boom\n"), out("TestF/bad", "--- FAIL: TestF/bad (0.00s)\n"), end("fail", "TestF/bad"),
				out("TestF", "--- FAIL: TestF (0.01s)\n"), end("fail", "TestF"),
				out("", "FAIL\n"), out("", "FAIL\t"+pkg+"\t0.5s\n"), end("fail", ""),
			}),
			want:     []string{"    x_test.go:9: boom", "--- FAIL: TestF/bad (0.00s)", "--- FAIL: TestF (0.01s)", "FAIL\t" + pkg + "\t0.5s", "failed 1 test: x.TestF"},
			dontWant: []string{"all good", "--- PASS"},
		},
		{
			name: "a timeout shows what the running test printed",
			in: join([]event{
				end("run", "TestHang"), out("TestHang", "=== RUN   TestHang\n"), out("TestHang", "    x_test.go:7: waiting\n"),
				out("", "panic: test timed out after 20m0s\n"), out("", "FAIL\t"+pkg+"\t1200.0s\n"), end("fail", ""),
			}),
			want: []string{"    x_test.go:7: waiting", "panic: test timed out after 20m0s"},
		},
		{
			name: "a build failure",
			in: []event{
				{ImportPath: pkg + " [" + pkg + ".test]", Action: "build-output", Output: "x_test.go:3:2: undefined: y\n"},
				{ImportPath: pkg + " [" + pkg + ".test]", Action: "build-fail"},
				out("", "FAIL\t"+pkg+" [build failed]\n"), end("fail", ""),
			},
			want: []string{"x_test.go:3:2: undefined: y", "FAIL\t" + pkg + " [build failed]"},
		},
		{
			name: "a line that is not JSON",
			in:   okLine,
			raw:  "go: no such tool\n",
			want: []string{"go: no such tool"},
		},
		{
			name: "the fast and slow suites split the tests",
			in: join(skipped("TestSlow", testenv.SlowReason+": starts a cluster"),
				skipped("TestData", "no shared data: gone"), passed("TestFast"), okLine),
			slow: "^(TestSlow|TestData)$",
			ok:   true,
			want: []string{"skipped 2 tests: 1 no shared data, 1 " + testenv.SlowReason},
		},
		{
			name: "a slow test missing from SLOW, a fast one in it",
			in:   join(skipped("TestSlow", testenv.SlowReason+": starts a cluster"), passed("TestFast"), okLine),
			slow: "^(TestFast)$",
			want: []string{
				"testsummary: x.TestSlow is skipped as slow but make test-slow does not run it",
				"testsummary: x.TestFast ran in the fast suite but SLOW names it",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var slow *regexp.Regexp
			if tt.slow != "" {
				slow = regexp.MustCompile(tt.slow)
			}
			var w strings.Builder
			ok, err := summarize(strings.NewReader(stream(t, tt.in...)+tt.raw), &w, slow)
			if err != nil {
				t.Fatal(err)
			}
			got := w.String()
			if ok != tt.ok {
				t.Errorf("ok = %v, want %v; output:\n%s", ok, tt.ok, got)
			}
			for _, l := range tt.want {
				if !strings.Contains(got, l) {
					t.Errorf("output lacks %q:\n%s", l, got)
				}
			}
			for _, l := range tt.dontWant {
				if strings.Contains(got, l) {
					t.Errorf("output holds %q:\n%s", l, got)
				}
			}
		})
	}
}
