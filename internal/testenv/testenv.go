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
