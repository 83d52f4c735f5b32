// Package testenv sorts the tests into the two suites: the fast one that
// make test runs (go test -short, with the race detector) and the slow one
// that make test-slow runs (the top-level tests the Makefile's SLOW
// pattern names, without -short). make test-all runs both; .ci/run runs
// make test, then make test-slow, so no test runs twice.
//
// A t.Skip message starts with its reason, a short clause before the first
// ": " ("slow (make test-slow): ...", "no shared data: ...", "no ripgrep:
// ..."): the summary line make test ends with (tools/testsummary) groups
// the skips by it.
//
// Must and Must1 fail a test whose setup step returned an error, so that
// no test passes without testing anything.
package testenv

import (
	"testing"
	"time"
)

// SlowReason is the first clause of the message Slow skips with.
const SlowReason = "slow (make test-slow)"

// Slow skips the test under -short, saying why it is slow. A test that
// calls it must be named by SLOW in the Makefile (make test checks).
func Slow(tb testing.TB, why string) {
	tb.Helper()
	if testing.Short() {
		tb.Skip(SlowReason + ": " + why)
	}
}

// Guard bounds a test's wait for something to happen (a re-index, a line
// of output, a process to exit): a last guard against a hang, never a
// claim about how fast it is, so it is minutes, not seconds. The fast
// suite runs on busy two-core machines, with the race detector.
const Guard = 5 * time.Minute

// Must fails the test at once when a setup step (writing a fixture,
// making a directory or a link) returned an error. A setup step that fails
// silently leaves the test passing without testing anything:
//
//	testenv.Must(t, os.WriteFile(p, data, 0o644))
func Must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatalf("setup: %v", err)
	}
}

// Must1 is Must for a setup step that also returns a value, which it
// passes on when there was no error:
//
//	data := testenv.Must1(os.ReadFile(p))(t)
func Must1[T any](v T, err error) func(testing.TB) T {
	return func(tb testing.TB) T {
		tb.Helper()
		Must(tb, err)
		return v
	}
}
