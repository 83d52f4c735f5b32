package bench

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// cpuPeak is the machine's nominal arithmetic peak, from /proc/cpuinfo:
// cores × clock × operations per cycle per core. Per cycle it assumes two
// 256-bit FMA pipes (Zen 2–4, Intel since Haswell: AVX-512 runs on them
// at the same rate on Zen 4): 32 fp32 operations; int8 dot products are
// four times that with VNNI (vpdpbusd) and twice without. The clock is
// the one the kernel reports, so a core boosting above it can pass 100%.
type cpuPeak struct {
	Cores        int
	MHz          float64
	FP32, Int8   float64 // GFLOP/s and GOP/s
	Instructions string
}

func readCPUPeak() (cpuPeak, bool) {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return cpuPeak{}, false
	}
	defer f.Close()
	var mhz float64
	flags := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "cpu MHz":
			if mhz == 0 {
				mhz, _ = strconv.ParseFloat(strings.TrimSpace(v), 64)
			}
		case "flags":
			if len(flags) == 0 {
				for _, fl := range strings.Fields(v) {
					flags[fl] = true
				}
			}
		}
	}
	if mhz <= 0 || len(flags) == 0 {
		return cpuPeak{}, false
	}
	p := cpuPeak{Cores: runtime.NumCPU(), MHz: mhz}
	perCycle, int8x, isa := 16.0, 2.0, "SSE"
	switch {
	case flags["avx512f"]:
		perCycle, isa = 32, "AVX-512"
	case flags["avx2"] && flags["fma"]:
		perCycle, isa = 32, "AVX2+FMA"
	}
	if flags["avx512_vnni"] || flags["avx_vnni"] {
		int8x, isa = 4, isa+" VNNI"
	}
	ghz := float64(p.Cores) * mhz / 1000
	p.FP32, p.Int8, p.Instructions = ghz*perCycle, ghz*perCycle*int8x, isa
	return p, true
}

func (p cpuPeak) String() string {
	return fmt.Sprintf("%d cores × %.0f MHz, %s: %.0f GFLOP/s fp32, %.0f GOP/s int8", p.Cores, p.MHz, p.Instructions, p.FP32, p.Int8)
}
