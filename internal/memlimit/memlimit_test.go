package memlimit

import (
	"errors"
	"math"
	"runtime/debug"
	"testing"
)

func TestParse(t *testing.T) {
	for spec, want := range map[string]int64{"": 0, "off": math.MaxInt64, "4GiB": 4 << 30, "512MiB": 512 << 20, "2G": 2 << 30, " 1.5 gb": 3 << 29, "134217728": 128 << 20} {
		if got, err := Parse(spec); err != nil || got != want {
			t.Errorf("Parse(%q) = %d, %v; want %d", spec, got, err, want)
		}
	}
	for _, bad := range []string{"lots", "-1GiB", "4 parsecs", "1MiB", "0"} {
		if _, err := Parse(bad); !errors.Is(err, ErrBad) {
			t.Errorf("Parse(%q) error %v, want ErrBad", bad, err)
		}
	}
}

func TestApply(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(old) })
	t.Setenv("GOMEMLIMIT", "")
	if n, err := Apply("1GiB"); err != nil || n != 1<<30 || debug.SetMemoryLimit(-1) != 1<<30 {
		t.Errorf("Apply(1GiB) = %d, %v; runtime limit %d", n, err, debug.SetMemoryLimit(-1))
	}
	if n, err := Apply(""); err != nil {
		t.Fatal(err)
	} else if avail := Available(); avail > 0 && n != int64(float64(avail)*Share) {
		t.Errorf("the default limit is %d, want half of %d", n, avail)
	}
	if _, err := Apply("lots"); err == nil {
		t.Error("Apply(lots) set a limit")
	}
}
