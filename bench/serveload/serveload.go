package serveload

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/braidsearch/braid/eval"
)

// ErrNoData is Run's error when the shared vaults are not in Options.Data.
var ErrNoData = errors.New("serveload: no shared vaults")

// Options say what to run. Zero values mean the defaults given.
type Options struct {
	// Braid is the braid binary to index and serve with. Required.
	Braid string
	// Data is the shared data folder, holding markdown/silverbullet/docs
	// and markdown/dendron/vault. Required.
	Data string
	// Queries is the vault questions file (bench/vaults/queries.tsv).
	// Required.
	Queries string
	// Index is the index directory, made or brought up to date with braid
	// index (embedding the vaults takes minutes the first time, so keep
	// one across runs). Empty means a temporary one, removed afterwards.
	Index string
	// Clients is the closed-loop clients (default 16).
	Clients int
	// Duration is each mode's closed-loop phase, the soak (default 30s).
	Duration time.Duration
	// Overload is each mode's phase at twice the throughput (default 10s).
	Overload time.Duration
	// Calls is the correctness pass's calls (default 10,000).
	Calls int
	// MaxInFlight is the server's --max-inflight (default 4: the server's own default on its one core); the
	// overload phase offers its rate from up to openWorkers requests at once.
	MaxInFlight int
	// ServerCPU and LoadCPU are the cores the server and this process are
	// pinned to (defaults 1 and 0); -1 leaves them unpinned.
	ServerCPU, LoadCPU *int
	// Modes names the search modes to run, of "bm25" and "hybrid"; empty
	// means both.
	Modes []string
	// Profile, when set, is a folder where each server started writes a
	// CPU profile of its whole run (serve-N.prof, through braid's
	// BRAID_CPUPROFILE; read with go tool pprof BRAID FILE).
	Profile string
	// Log receives progress lines; nil discards them.
	Log func(format string, args ...any)
}

// Report is what Run measured.
type Report struct {
	Command string         `json:"command"` // the server's command line
	Pinned  string         `json:"pinned"`  // where the server and the load ran
	Sources map[string]int `json:"sources"` // documents per source
	Clients int            `json:"clients"`
	Modes   []Mode         `json:"modes"`
	// Correctness is the pass of mixed calls of the four users.
	Correctness Correctness `json:"correctness"`
}

// Mode is one kind of search's figures.
type Mode struct {
	Name         string  `json:"name"` // "bm25" or "hybrid"
	VectorWeight float64 `json:"vector_weight"`
	Skipped      string  `json:"skipped,omitempty"` // why it did not run
	Load         Stats   `json:"load"`              // closed loop, Clients clients
	Memory       Memory  `json:"memory"`            // the server's, over Load
	// PacedRate is the steady load of Paced: the target rate
	// (BM25 only), sent by Clients clients for Overload, each latency
	// counted from when its send was due (pacedLoop).
	PacedRate float64 `json:"paced_rate,omitempty"`
	Paced     Stats   `json:"paced"`
	// OverloadRate is twice Load's throughput: the requests a second
	// sent, open loop, in Overload (the server's concurrency limit alone)
	// and RateLimited (a server whose users' --rate add up to Load's
	// throughput).
	OverloadRate float64 `json:"overload_rate"`
	Overload     Stats   `json:"overload"`
	RatePerUser  float64 `json:"rate_per_user"`
	RateLimited  Stats   `json:"rate_limited"`
	// Lagged is the same load against a server with --max-lag MaxLag.
	Lagged Stats `json:"lagged"`
	// Dropped are the sends the generator could not make, all its workers
	// waiting, in Overload, RateLimited and Lagged.
	Dropped [3]int `json:"dropped"`
}

// Correctness counts the correctness pass.
type Correctness struct {
	Calls     int            `json:"calls"`
	Errors    int            `json:"errors"`
	CrossUser int            `json:"cross_user"` // hits from a source outside their user's grants
	Hits      map[string]int `json:"hits"`       // by user
	Hybrid    int            `json:"hybrid"`     // calls with vector_weight 0.5
	First     string         `json:"first_error,omitempty"`
	Retried   int            `json:"retried"` // refusals waited out and sent again
}

// user is a signed-in user of the bench and the sources their grants give.
type user struct {
	name    string
	groups  []string
	sources []string
}

// The four users: grants given directly, through a group, and adding up.
var users = []user{
	{name: "alice", sources: []string{"silverbullet"}},
	{name: "bob", sources: []string{"dendron"}},
	{name: "carol", groups: []string{"eng"}, sources: []string{"silverbullet", "dendron"}}, // group:eng + her own
	{name: "dave", groups: []string{"ops"}, sources: []string{"dendron"}},                  // group:ops
}

const policy = `{"grants": [
  {"who": "alice", "sources": ["silverbullet"], "tools": ["search"]},
  {"who": "bob", "sources": ["dendron"], "tools": ["search"]},
  {"who": "group:eng", "sources": ["silverbullet"], "tools": ["search"]},
  {"who": "carol", "sources": ["dendron"], "tools": ["search"]},
  {"who": "group:ops", "sources": ["dendron"], "tools": ["search"]}
]}`

// The vaults, by source name, inside Options.Data.
var vaults = map[string]string{"silverbullet": "markdown/silverbullet/docs", "dendron": "markdown/dendron/vault"}

// MaxLag is the --max-lag of the third server at twice the throughput.
const MaxLag = 50 * time.Millisecond

// servers counts the servers started, for their profiles' names.
var servers atomic.Int64

// Run indexes the vaults, serves them and measures (the package doc).
func Run(ctx context.Context, opt Options) (*Report, error) {
	o := opt.withDefaults()
	for _, dir := range vaults {
		if _, err := os.Stat(filepath.Join(o.Data, dir)); err != nil {
			return nil, fmt.Errorf("%w: %v; set the shared data folder (DATA=path/to/shared/data)", ErrNoData, err)
		}
	}
	col, err := eval.LoadTSV(o.Queries, "all")
	if err != nil {
		return nil, err
	}
	queries := make([]string, len(col.Queries))
	for i, q := range col.Queries {
		queries[i] = q.Text
	}
	work, err := os.MkdirTemp("", "braid-servebench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	if o.Index == "" {
		o.Index = filepath.Join(work, "index")
	}
	rep := &Report{Clients: o.Clients, Sources: map[string]int{}}
	ids, err := o.prepare(ctx, work, rep)
	if err != nil {
		return nil, err
	}
	tokens, err := o.tokens(ctx, work)
	if err != nil {
		return nil, err
	}
	rep.Pinned = "unpinned"
	if *o.LoadCPU >= 0 && *o.ServerCPU >= 0 {
		if err := pin(os.Getpid(), *o.LoadCPU); err != nil {
			return nil, fmt.Errorf("serveload: pin the load generator to CPU %d: %w", *o.LoadCPU, err)
		}
		runtime.GOMAXPROCS(1)
		rep.Pinned = fmt.Sprintf("server on CPU %d, load generator on CPU %d", *o.ServerCPU, *o.LoadCPU)
	}
	// with runs f against a fresh server started with extra flags.
	with := func(extra []string, f func(cl *client, srv *server)) error {
		srv, err := o.serve(ctx, work, extra)
		if err != nil {
			return err
		}
		defer srv.stop()
		if rep.Command == "" {
			rep.Command = srv.command
		}
		f(newClient(srv.url, tokens, openWorkers), srv)
		return ctx.Err()
	}

	rng := rand.New(rand.NewPCG(46, 1))
	var mu sync.Mutex
	var id int64
	pick := func(weight float64) func() call {
		return func() call {
			mu.Lock()
			defer mu.Unlock()
			id++
			return newCall(rng.IntN(len(users)), id, queries[rng.IntN(len(queries))], weight)
		}
	}
	hybrid := ""
	for _, m := range []Mode{{Name: "bm25", VectorWeight: 0}, {Name: "hybrid", VectorWeight: 0.5}} {
		if len(o.Modes) > 0 && !slices.Contains(o.Modes, m.Name) {
			continue
		}
		err := with(nil, func(cl *client, srv *server) {
			if m.VectorWeight > 0 {
				if hybrid = o.probe(ctx, cl, m.VectorWeight); hybrid != "" {
					m.Skipped = hybrid
					o.Log("hybrid skipped: %s", hybrid)
					return
				}
			}
			o.Log("%s: warm-up, then %d clients for %v", m.Name, o.Clients, o.Duration)
			closedLoop(ctx, cl, o.Clients, o.Duration, 200, pick(m.VectorWeight), nil)
			stop := sampler(cl, srv.pid)
			outs, took := closedLoop(ctx, cl, o.Clients, o.Duration, 0, pick(m.VectorWeight), nil)
			m.Load, m.Memory = aggregate(outs, took), memory(stop(), took)
			o.Log("%s: %.0f searches/s, p99 %.1f ms, %d errors", m.Name, m.Load.PerSecond, m.Load.P99, m.Load.Errors)
			if m.Load.PerSecond <= 0 || ctx.Err() != nil {
				return
			}
			if m.Name == "bm25" {
				m.PacedRate = TargetPerSecond
				o.Log("%s: %d clients sending %.0f a second in all for %v", m.Name, o.Clients, m.PacedRate, o.Overload)
				outs, took := pacedLoop(ctx, cl, m.PacedRate, o.Clients, o.Overload, pick(m.VectorWeight))
				m.Paced = aggregate(outs, took)
			}
			m.OverloadRate = 2 * m.Load.PerSecond
			o.Log("%s: open loop at %.0f a second for %v, --max-inflight %d the only limit", m.Name, m.OverloadRate, o.Overload, o.MaxInFlight)
			outs, took, m.Dropped[0] = openLoop(ctx, cl, m.OverloadRate, openWorkers, o.Overload, pick(m.VectorWeight))
			m.Overload = aggregate(outs, took)
		})
		if err == nil && m.OverloadRate > 0 {
			// The users' rates add up to the throughput found: at twice it,
			// about half is refused 429.
			m.RatePerUser = math.Round(100*m.Load.PerSecond/float64(len(users))) / 100
			err = with([]string{"--rate", strconv.FormatFloat(m.RatePerUser, 'f', -1, 64)}, func(cl *client, _ *server) {
				o.Log("%s: open loop at %.0f a second for %v, --rate %g", m.Name, m.OverloadRate, o.Overload, m.RatePerUser)
				outs, took, dropped := openLoop(ctx, cl, m.OverloadRate, openWorkers, o.Overload, pick(m.VectorWeight))
				m.RateLimited, m.Dropped[1] = aggregate(outs, took), dropped
			})
		}
		if err == nil && m.OverloadRate > 0 {
			err = with([]string{"--max-lag", MaxLag.String()}, func(cl *client, _ *server) {
				o.Log("%s: open loop at %.0f a second for %v, --max-lag %v", m.Name, m.OverloadRate, o.Overload, MaxLag)
				outs, took, dropped := openLoop(ctx, cl, m.OverloadRate, openWorkers, o.Overload, pick(m.VectorWeight))
				m.Lagged, m.Dropped[2] = aggregate(outs, took), dropped
			})
		}
		rep.Modes = append(rep.Modes, m)
		if err != nil {
			return rep, err
		}
	}
	o.Log("correctness: %d mixed calls of %d users", o.Calls, len(users))
	err = with(nil, func(cl *client, _ *server) {
		rep.Correctness = o.correctness(ctx, cl, queries, ids, hybrid == "")
	})
	return rep, err
}

func (o Options) withDefaults() Options {
	if o.Clients <= 0 {
		o.Clients = 16
	}
	if o.Duration <= 0 {
		o.Duration = 30 * time.Second
	}
	if o.Overload <= 0 {
		o.Overload = 10 * time.Second
	}
	if o.Calls <= 0 {
		o.Calls = 10000
	}
	if o.MaxInFlight <= 0 {
		o.MaxInFlight = 4
	}
	one, zero := 1, 0
	if o.ServerCPU == nil {
		o.ServerCPU = &one
	}
	if o.LoadCPU == nil {
		o.LoadCPU = &zero
	}
	if runtime.NumCPU() < 2 {
		none := -1
		o.ServerCPU, o.LoadCPU = &none, &none
	}
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
	return o
}

// braid runs the braid binary with args and returns its stdout.
func (o Options) braid(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, o.Braid, append([]string{"--index", o.Index}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("serveload: %s: %w: %.500s", strings.Join(cmd.Args, " "), err, stderr.String())
	}
	return out, nil
}

// prepare indexes the vaults into o.Index (unchanged files are skipped)
// and returns each source's id by name.
func (o Options) prepare(ctx context.Context, work string, rep *Report) (map[string]string, error) {
	for _, name := range slices.Sorted(maps.Keys(vaults)) {
		o.Log("indexing %s into %s (embedding it the first time takes minutes)", name, o.Index)
		if _, err := o.braid(ctx, "index", filepath.Join(o.Data, vaults[name]), "--name", name); err != nil {
			return nil, err
		}
	}
	out, err := o.braid(ctx, "--json", "sources")
	if err != nil {
		return nil, err
	}
	var list struct {
		Sources []struct {
			ID, Name  string
			Documents int
		}
	}
	if err := json.Unmarshal(out, &list); err != nil {
		return nil, fmt.Errorf("serveload: braid sources --json: %w", err)
	}
	ids := map[string]string{}
	for _, s := range list.Sources {
		ids[s.Name] = s.ID
		rep.Sources[s.Name] = s.Documents
	}
	for name := range vaults {
		if ids[name] == "" {
			return nil, fmt.Errorf("serveload: source %s missing from braid sources after indexing", name)
		}
	}
	return ids, os.WriteFile(filepath.Join(work, "policy.json"), []byte(policy), 0o600)
}

// tokens adds the users to a token file and returns their tokens.
func (o Options) tokens(ctx context.Context, work string) ([]string, error) {
	file := filepath.Join(work, "tokens")
	var tokens []string
	for _, u := range users {
		args := []string{"tokens", "add", u.name, "--file", file}
		if len(u.groups) > 0 {
			args = append(args, "--groups", strings.Join(u.groups, ","))
		}
		out, err := o.braid(ctx, args...)
		if err != nil {
			return nil, err
		}
		tokens = append(tokens, strings.TrimSpace(string(out)))
	}
	return tokens, nil
}

// server is the braid serve process.
type server struct {
	command string
	url     string
	pid     int
	stop    func()
}

var listening = regexp.MustCompile(`MCP on (http://[^/\s]+)/mcp`)

// serve starts braid serve --http, pinned, and waits until /healthz says
// the index is open.
func (o Options) serve(ctx context.Context, work string, extra []string) (*server, error) {
	args := []string{o.Braid, "--index", o.Index, "serve", "--http", "127.0.0.1:0",
		"--auth-tokens", filepath.Join(work, "tokens"), "--policy", filepath.Join(work, "policy.json"),
		"--max-inflight", strconv.Itoa(o.MaxInFlight)}
	args = append(args, extra...)
	taskset, _ := exec.LookPath("taskset")
	if *o.ServerCPU >= 0 && taskset != "" {
		args = append([]string{taskset, "-c", strconv.Itoa(*o.ServerCPU)}, args...)
	}
	command := strings.Join(args, " ")
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout = io.Discard
	if o.Profile != "" {
		n := servers.Add(1)
		cmd.Env = append(os.Environ(), "BRAID_CPUPROFILE="+filepath.Join(o.Profile, fmt.Sprintf("serve-%d.prof", n)))
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("serveload: start %s: %w", command, err)
	}
	exited := make(chan struct{})
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	addr := make(chan string, 1)
	var logTail strings.Builder
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case addr <- m[1]:
				default:
				}
			}
			if logTail.Len() < 4096 {
				logTail.WriteString(sc.Text() + "\n")
			}
		}
		_ = cmd.Wait()
		close(exited)
	}()
	if *o.ServerCPU >= 0 && taskset == "" {
		if err := pin(cmd.Process.Pid, *o.ServerCPU); err != nil {
			stop()
			return nil, fmt.Errorf("serveload: pin the server to CPU %d: %w", *o.ServerCPU, err)
		}
	}
	var url string
	select {
	case url = <-addr:
	case <-exited:
		return nil, fmt.Errorf("serveload: %s exited before listening", command)
	case <-time.After(2 * time.Minute):
		stop()
		return nil, fmt.Errorf("serveload: %s did not say where it listens within 2 minutes", command)
	}
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		res, err := http.Get(url + "/healthz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			stop()
			return nil, fmt.Errorf("serveload: %s not ready within 5 minutes", url)
		}
	}
	return &server{url: url, pid: cmd.Process.Pid, stop: stop, command: command}, nil
}

// probe sends one search at weight and returns why hybrid search cannot
// be measured (the server's warning, say, that it has no embedding
// model), or "".
func (o Options) probe(ctx context.Context, cl *client, weight float64) string {
	out := cl.do(ctx, newCall(0, 0, "keyboard shortcuts", weight))
	switch {
	case out.err != nil:
		return fmt.Sprintf("a hybrid search failed: %v", out.err)
	case out.warning != "":
		return "the server searched without vectors: " + out.warning
	}
	return ""
}

// openWorkers bounds the open loop's requests in flight: far above any
// server's --max-inflight, so the generator offers the whole rate and the
// server's limits, not the generator, decide what is refused.
const openWorkers = 256

// hybridShare is the share of the correctness pass's calls that are
// hybrid searches, when the server has its model.
const hybridShare = 5 // one in five

// correctness sends o.Calls searches of the four users in turn, from
// o.Clients clients, and counts errors and hits outside the caller's
// grants.
func (o Options) correctness(ctx context.Context, cl *client, queries []string, ids map[string]string, hybrid bool) Correctness {
	allowed := make([]map[string]bool, len(users))
	for i, u := range users {
		allowed[i] = map[string]bool{}
		for _, s := range u.sources {
			allowed[i][ids[s]] = true
		}
	}
	rng := rand.New(rand.NewPCG(46, 2))
	var mu sync.Mutex
	var n int64
	next := func() call {
		mu.Lock()
		defer mu.Unlock()
		n++
		w := 0.0
		if hybrid && n%hybridShare == 0 {
			w = 0.5
		}
		return newCall(int(n)%len(users), n, queries[rng.IntN(len(queries))], w)
	}
	c := Correctness{Hits: map[string]int{}}
	check := func(k call, out outcome) {
		mu.Lock()
		defer mu.Unlock()
		c.Calls++
		if hybrid && strings.Contains(string(k.body), `"vector_weight":0.5`) {
			c.Hybrid++
		}
		if out.err != nil {
			c.Errors++
			if c.First == "" {
				c.First = out.err.Error()
			}
			return
		}
		for _, s := range out.hits {
			c.Hits[users[k.user].name]++
			if !allowed[k.user][s] {
				c.CrossUser++
			}
		}
	}
	// A client that honours the server's limits: no more calls at once
	// than it answers, and a refused one sent again after its
	// Retry-After (counted apart, never an error).
	polite := &client{url: cl.url, tokens: cl.tokens, http: cl.http, polite: true}
	closedLoop(ctx, polite, min(o.Clients, o.MaxInFlight), 24*time.Hour, o.Calls, next, check)
	c.Retried = int(polite.retried.Load())
	return c
}

// pin sets the CPU affinity of every thread of process pid to cpu; the
// threads it starts later inherit it.
func pin(pid, cpu int) error {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return err
	}
	var set unix.CPUSet
	set.Set(cpu)
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if err := unix.SchedSetaffinity(tid, &set); err != nil && !errors.Is(err, unix.ESRCH) {
			return err
		}
	}
	return nil
}
