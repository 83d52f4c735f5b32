// Command servebench load-tests braid serve --http over the shared
// vaults (package bench/serveload; make bench-serve runs it):
//
//	go run ./tools/servebench --braid bin/braid --data ../shared/data --duration 10m
//
// It prints markdown tables, or the report as JSON with --json. Without
// the shared vaults it prints one line saying the run is skipped and
// exits 0.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/braidsearch/braid/bench/serveload"
)

func main() {
	var o serveload.Options
	serverCPU, loadCPU := 1, 0
	flag.StringVar(&o.Braid, "braid", "bin/braid", "the braid binary to index and serve with")
	flag.StringVar(&o.Data, "data", "../shared/data", "the shared data folder (markdown/silverbullet, markdown/dendron)")
	flag.StringVar(&o.Queries, "queries", "bench/vaults/queries.tsv", "the vault questions")
	flag.StringVar(&o.Index, "index", "", "index directory to make or reuse (embedding the vaults takes minutes); default a temporary one")
	flag.IntVar(&o.Clients, "clients", 16, "concurrent closed-loop clients")
	flag.DurationVar(&o.Duration, "duration", 30*time.Second, "each search mode's closed-loop phase (the soak: 10m)")
	flag.DurationVar(&o.Overload, "overload", 10*time.Second, "each mode's open-loop phase at twice the throughput")
	flag.IntVar(&o.Calls, "calls", 10000, "the correctness pass's mixed calls")
	flag.IntVar(&o.MaxInFlight, "max-inflight", 4, "the server's --max-inflight (its default on one core)")
	flag.IntVar(&serverCPU, "server-cpu", 1, "the core the server is pinned to (-1: unpinned)")
	flag.IntVar(&loadCPU, "load-cpu", 0, "the core the load generator is pinned to (-1: unpinned)")
	modes := flag.String("modes", "bm25,hybrid", "the search modes to run, of bm25 and hybrid")
	flag.StringVar(&o.Profile, "profile", "", "a folder for a CPU profile of each server started (serve-N.prof)")
	cpuProfile := flag.String("cpuprofile", "", "write the load generator's own CPU profile to this file")
	asJSON := flag.Bool("json", false, "print the report as JSON")
	quiet := flag.Bool("quiet", false, "no progress lines on stderr")
	flag.Parse()
	o.ServerCPU, o.LoadCPU = &serverCPU, &loadCPU
	o.Modes = strings.Split(*modes, ",")
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintf(os.Stderr, "servebench: %v\n", err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(os.Stderr, "servebench: %v\n", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}
	if !*quiet {
		o.Log = func(format string, args ...any) { fmt.Fprintf(os.Stderr, "servebench: "+format+"\n", args...) }
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := serveload.Run(ctx, o)
	if errors.Is(err, serveload.ErrNoData) {
		fmt.Fprintf(os.Stderr, "servebench: skipped, the whole run (it needs the two vaults): %v\n", err)
		return
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "servebench: %v\n", err)
		if rep == nil {
			os.Exit(1)
		}
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep)
	} else {
		rep.Markdown(os.Stdout)
	}
	if err != nil {
		os.Exit(1)
	}
}
