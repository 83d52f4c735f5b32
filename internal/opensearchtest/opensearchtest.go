// Package opensearchtest runs a real OpenSearch cluster on 127.0.0.1 for
// tests in any package, through scripts/opensearch.sh (see
// docs/opensearch.md). Each cluster gets its own state directory (data,
// logs, pid files) under the test's temporary directory and its own free
// ports, so parallel test packages do not collide; the jars and the
// compiled launcher live in one shared cache (BRAID_OPENSEARCH_CACHE,
// default .tools/opensearch/cache in the repository), resolved once.
//
// A test that starts a cluster belongs to the slow suite: it skips under
// -short (make test) and make test-slow runs it (testenv.Slow). Without
// java, mvn or curl the tests that need a cluster skip, saying so; with
// BRAID_REQUIRE_OPENSEARCH=1 they fail instead.
//
// A busy machine (other builds, the race detector) may take minutes to
// start nodes: the script waits up to greenWait for green unless
// BRAID_OPENSEARCH_TIMEOUT says otherwise.
package opensearchtest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/braidsearch/braid/internal/testenv"
	"golang.org/x/sys/unix"
)

// Environment variables the helper reads.
const (
	EnvRequire = "BRAID_REQUIRE_OPENSEARCH" // "1": missing tools fail the test
	EnvCache   = "BRAID_OPENSEARCH_CACHE"   // shared jar/class cache dir
	EnvHome    = "BRAID_OPENSEARCH_HOME"    // per-cluster state dir (set by the helper)
	EnvTimeout = "BRAID_OPENSEARCH_TIMEOUT" // seconds the script waits for green
)

// Ports the helper picks from: HTTP in [httpLow, httpHigh), transport at
// the same offset above transportOffset.
const (
	httpLow         = 19200
	httpHigh        = 19700
	transportOffset = 1000
)

// greenWait is how long the script waits for a started cluster to be
// green, unless EnvTimeout is set; startTimeout bounds one start of the
// script, which adds a cold Maven resolution to that. Both are last
// guards against a hang, sized for a machine at a load average of 12 or
// more, not expectations.
const (
	greenWait    = 15 * time.Minute
	startTimeout = greenWait + 10*time.Minute
)

// Cluster is a running OpenSearch cluster started by StartCluster.
type Cluster struct {
	URL  string   // node 1's HTTP URL, e.g. http://127.0.0.1:19200
	URLs []string // every node's HTTP URL, node 1 first

	tb          testing.TB
	env         []string
	home        string
	nodes       int
	port, tport int
	once        sync.Once
}

// Start starts a cluster of nodes nodes, stopped when the test ends, and
// returns node 1's HTTP URL.
func Start(t testing.TB, nodes int) (url string) {
	return StartCluster(t, nodes).URL
}

// StartCluster starts a cluster of nodes nodes and registers its Stop with
// t.Cleanup; it skips (or fails, under BRAID_REQUIRE_OPENSEARCH=1) when
// the tools the script needs are missing.
func StartCluster(t testing.TB, nodes int) *Cluster {
	t.Helper()
	testenv.Slow(t, "starts an OpenSearch cluster")
	for _, tool := range []string{"java", "mvn", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			msg := fmt.Sprintf("no %s: opensearchtest: %s not found on PATH: install a JDK 11+, Apache Maven and curl to run OpenSearch tests", tool, tool)
			if os.Getenv(EnvRequire) == "1" {
				t.Fatalf("%s (%s=1)", msg, EnvRequire)
			}
			t.Skip(msg)
		}
	}
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cache := os.Getenv(EnvCache)
	if cache == "" {
		cache = filepath.Join(root, ".tools", "opensearch", "cache")
	}
	home := t.TempDir()
	c := &Cluster{
		tb:   t,
		home: home,
		env:  append(os.Environ(), EnvHome+"="+home, EnvCache+"="+cache),
	}
	if os.Getenv(EnvTimeout) == "" {
		c.env = append(c.env, fmt.Sprintf("%s=%d", EnvTimeout, int(greenWait.Seconds())))
	}
	script := filepath.Join(root, "scripts", "opensearch.sh")

	// Free ports are checked here, but another process may take them
	// before the nodes bind: retry on the script's "already in use".
	var out, errOut string
	for attempt := 0; attempt < 4; attempt++ {
		port, claimed, err := freeRange(nodes, attempt)
		if err != nil {
			t.Fatal(err)
		}
		out, errOut, err = c.run(startTimeout, script, "start",
			"--nodes", strconv.Itoa(nodes),
			"--port", strconv.Itoa(port),
			"--transport-port", strconv.Itoa(port+transportOffset))
		if err == nil {
			c.nodes, c.port, c.tport = nodes, port, port+transportOffset
			// Held until the test ends, after its Stop (cleanups run
			// last first): Restart starts on the same ports.
			t.Cleanup(func() { claimed.Close() })
			break
		}
		claimed.Close()
		if strings.Contains(errOut, "already in use") {
			continue
		}
		t.Fatalf("opensearchtest: %s start: %v\n%s", script, err, errOut)
	}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(line, "http://") {
			c.URLs = append(c.URLs, line)
		}
	}
	if len(c.URLs) != nodes {
		c.Stop()
		t.Fatalf("opensearchtest: start printed %d URLs for %d nodes:\n%s\n%s", len(c.URLs), nodes, out, errOut)
	}
	c.URL = c.URLs[0]
	t.Cleanup(func() {
		if t.Failed() {
			c.logTails()
		}
		c.Stop()
	})
	return c
}

// Stop stops the cluster's nodes and waits for them to exit. It may be
// called more than once.
func (c *Cluster) Stop() {
	c.once.Do(func() {
		root, err := repoRoot()
		if err != nil {
			c.tb.Error(err)
			return
		}
		if _, errOut, err := c.run(time.Minute, filepath.Join(root, "scripts", "opensearch.sh"), "stop"); err != nil {
			c.tb.Errorf("opensearchtest: stop: %v\n%s", err, errOut)
		}
	})
}

// Kill ends node n (1 for the first) at once with SIGKILL, as a machine
// that dies would; the other nodes keep running, and Stop still ends them.
func (c *Cluster) Kill(n int) {
	c.tb.Helper()
	b, err := os.ReadFile(filepath.Join(c.home, "run", fmt.Sprintf("node%d.pid", n)))
	if err != nil {
		c.tb.Fatalf("opensearchtest: kill node %d: %v", n, err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		c.tb.Fatalf("opensearchtest: kill node %d: pid file says %q", n, b)
	}
	p, err := os.FindProcess(pid)
	if err == nil {
		err = p.Kill()
	}
	if err != nil {
		c.tb.Fatalf("opensearchtest: kill node %d (pid %d): %v", n, pid, err)
	}
	// Wait until its HTTP port stops answering, so the test sees a dead
	// node (the deadline is a last guard: a killed process closes its
	// sockets at once, but a loaded machine may take a while to reap it).
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		conn, err := net.DialTimeout("tcp", strings.TrimPrefix(c.URLs[n-1], "http://"), time.Second)
		if err != nil {
			return
		}
		conn.Close()
		time.Sleep(100 * time.Millisecond)
	}
	c.tb.Fatalf("opensearchtest: node %d still answers 2 minutes after SIGKILL", n)
}

// Restart starts the cluster's nodes again on the same ports and data
// (after Kill, say) and waits for it to be green.
func (c *Cluster) Restart() {
	c.tb.Helper()
	root, err := repoRoot()
	if err != nil {
		c.tb.Fatal(err)
	}
	if _, errOut, err := c.run(startTimeout, filepath.Join(root, "scripts", "opensearch.sh"), "stop"); err != nil {
		c.tb.Fatalf("opensearchtest: stop before restart: %v\n%s", err, errOut)
	}
	if _, errOut, err := c.run(startTimeout, filepath.Join(root, "scripts", "opensearch.sh"), "start",
		"--nodes", strconv.Itoa(c.nodes), "--port", strconv.Itoa(c.port), "--transport-port", strconv.Itoa(c.tport)); err != nil {
		c.tb.Fatalf("opensearchtest: restart: %v\n%s", err, errOut)
	}
}

// logTails logs the end of each node's log, for a failed test.
func (c *Cluster) logTails() {
	logs, _ := filepath.Glob(filepath.Join(c.home, "nodes", "node*", "logs", "node.log"))
	for _, l := range logs {
		b, err := os.ReadFile(l)
		if err != nil {
			continue
		}
		lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
		if len(lines) > 30 {
			lines = lines[len(lines)-30:]
		}
		c.tb.Logf("last lines of %s:\n%s", l, strings.Join(lines, "\n"))
	}
}

// run runs the script with the cluster's environment and returns its
// stdout and stderr.
func (c *Cluster) run(timeout time.Duration, name string, args ...string) (string, string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = c.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	// The nodes write to their own log files, but make sure a child that
	// kept the pipes open cannot hang Wait past the deadline.
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// freeRange picks an HTTP base port with nodes free ports from it and as
// many free transport ports at transportOffset above it, and claims the
// range for this cluster (claim) until the returned file is closed.
func freeRange(nodes, attempt int) (int, *os.File, error) {
	span := httpHigh - httpLow
	start := (os.Getpid()*7 + attempt*13) * 10 % span
	for i := 0; i < span; i += 10 {
		base := httpLow + (start+i)%span
		if base+nodes > httpHigh {
			continue
		}
		claimed, ok := claim(base)
		if !ok {
			continue
		}
		for n := 0; n < nodes && ok; n++ {
			ok = portFree(base+n) && portFree(base+transportOffset+n)
		}
		if ok {
			return base, claimed, nil
		}
		claimed.Close()
	}
	return 0, nil, fmt.Errorf("opensearchtest: no %d free ports in %d..%d", nodes, httpLow, httpHigh)
}

// claim takes an advisory lock on the port range from base, in a file of
// the system's temporary folder, for as long as the returned file stays
// open (or the process lives); false when another cluster holds it. A
// port found free is free only until a node binds it, seconds later, so
// without the claim two test processes starting clusters at once could
// pick the same range, and one node would die at its start.
func claim(base int) (*os.File, bool) {
	f, err := os.OpenFile(filepath.Join(os.TempDir(), fmt.Sprintf("braid-opensearchtest-%d.lock", base)), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, false
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, false
	}
	return f, true
}

func portFree(port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

// repoRoot is the repository holding this package: found from this
// source file's path, or (under -trimpath) by walking up from the working
// directory, which go test sets to the package's directory.
func repoRoot() (string, error) {
	has := func(dir string) bool {
		_, err := os.Stat(filepath.Join(dir, "scripts", "opensearch.sh"))
		return err == nil
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		if root := filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..")); has(root) {
			return root, nil
		}
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("opensearchtest: %w", err)
	}
	for {
		if has(dir) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("opensearchtest: scripts/opensearch.sh not found above the working directory")
		}
		dir = parent
	}
}
