// Package memlimit is a braid process's memory budget. Apply sets the Go
// runtime's soft memory limit from --memory (BRAID_MEMORY; --memory-limit
// is the same flag), else GOMEMLIMIT as the runtime already read it, else
// a share of the memory the machine (or the process's cgroup) has. Near
// the limit the collector runs more often, so a long index run's garbage
// is returned before the heap grows into it.
//
// An index run keeps within Budget (package ingest): a Pacer holds the
// heap's growth between collections to a Headroom instead of the live
// heap's size, Resident tells the anonymous pages from the mapped file
// pages, and Release lets go of a mapped file's pages (bbolt's meta.db).
// Release and Resident read /proc: on other systems they do nothing.
package memlimit

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// Share is the part of the machine's memory a braid process aims to stay
// under when nothing names a limit.
const Share = 0.5

// ErrBad is the error of a limit that does not parse.
var ErrBad = errors.New("memory limit")

// Apply sets the soft memory limit from spec ("" for the default, "off",
// or a size such as 4GiB, 512MiB or 2G) and returns it in bytes
// (math.MaxInt64 when off). An empty spec keeps a GOMEMLIMIT the
// environment sets; without one it is Share of Available().
func Apply(spec string) (int64, error) {
	n, err := Parse(spec)
	if err != nil {
		return 0, err
	}
	if n == 0 { // the default
		if os.Getenv("GOMEMLIMIT") != "" {
			return debug.SetMemoryLimit(-1), nil
		}
		avail := Available()
		if avail <= 0 {
			return debug.SetMemoryLimit(-1), nil
		}
		n = int64(float64(avail) * Share)
	}
	debug.SetMemoryLimit(n)
	return n, nil
}

// Parse reads a limit: 0 for "" (the default), math.MaxInt64 for "off",
// else bytes from a number with an optional unit (B, K/KB/KiB, M/MB/MiB,
// G/GB/GiB, T/TB/TiB; the decimal ones are read as binary, as GOMEMLIMIT
// reads its own).
func Parse(spec string) (int64, error) {
	s := strings.TrimSpace(spec)
	switch strings.ToLower(s) {
	case "":
		return 0, nil
	case "off", "none":
		return math.MaxInt64, nil
	}
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := s, ""
	if i >= 0 {
		num, unit = s[:i], strings.ToLower(strings.TrimSpace(s[i:]))
	}
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f <= 0 {
		return 0, fmt.Errorf("%w %q: want a size such as 4GiB or 512MiB, or off", ErrBad, spec)
	}
	mult := map[string]float64{"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10, "m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
		"g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30, "t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40}[unit]
	if mult == 0 {
		return 0, fmt.Errorf("%w %q: unknown unit %q; want B, KiB, MiB, GiB or TiB, or off", ErrBad, spec, unit)
	}
	b := f * mult
	if b < 64<<20 {
		return 0, fmt.Errorf("%w %q: under 64MiB, braid could not load a model; give more, or off", ErrBad, spec)
	}
	if b >= math.MaxInt64 {
		return math.MaxInt64, nil
	}
	return int64(b), nil
}

// Available is the memory this process may use, in bytes: the machine's
// (MemTotal in /proc/meminfo), or its cgroup's limit when that is lower;
// 0 when neither can be read.
func Available() int64 {
	total := meminfo()
	if c := cgroupLimit(); c > 0 && (total == 0 || c < total) {
		return c
	}
	return total
}

func meminfo() int64 {
	data, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// cgroupLimit is cgroup v2's memory.max (or v1's limit_in_bytes) for this
// process; 0 when there is none.
func cgroupLimit() int64 {
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		s := strings.TrimSpace(string(data))
		if s == "max" {
			return 0
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err == nil && n > 0 && n < 1<<60 {
			return n
		}
	}
	return 0
}
