package testenv

import (
	"errors"
	"fmt"
	"testing"
)

// fatalTB records Fatalf instead of stopping the test.
type fatalTB struct {
	testing.TB
	fatal string
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatalf(format string, args ...any) { f.fatal = fmt.Sprintf(format, args...) }

func TestMust(t *testing.T) {
	tb := &fatalTB{TB: t}
	Must(tb, nil)
	if tb.fatal != "" {
		t.Errorf("Must(nil) failed the test: %q", tb.fatal)
	}
	Must(tb, errors.New("open x: no such file"))
	if want := "setup: open x: no such file"; tb.fatal != want {
		t.Errorf("Must(err) = %q, want %q", tb.fatal, want)
	}

	tb = &fatalTB{TB: t}
	if got := Must1(42, nil)(tb); got != 42 || tb.fatal != "" {
		t.Errorf("Must1(42, nil) = %d (fatal %q), want 42", got, tb.fatal)
	}
	Must1(0, errors.New("boom"))(tb)
	if want := "setup: boom"; tb.fatal != want {
		t.Errorf("Must1(0, err) failed with %q, want %q", tb.fatal, want)
	}
}
