// Package s3test runs a real S3-compatible server for tests in any
// package: moto's server mode (pip install 'moto[server]'), started on a
// free port of 127.0.0.1 and stopped when the test ends. `make moto`
// installs it into .tools/moto, and the Makefile exports its path as
// BRAID_MOTO. Without it the tests that need it skip, saying so; with
// BRAID_REQUIRE_S3=1 (as make test sets) they fail instead.
package s3test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/braidsearch/braid/internal/testenv"
)

// Environment variables the tests read.
const (
	EnvMoto    = "BRAID_MOTO"       // path of moto_server
	EnvRequire = "BRAID_REQUIRE_S3" // "1": a missing moto fails the test
)

// Fake credentials and region the server and its clients share.
const (
	AccessKey = "braidtest"
	SecretKey = "braidtestsecret"
	Region    = "us-east-1"
)

// Options tune a server. The zero value (or nil) means the defaults.
type Options struct {
	// Auth makes the server check credentials on every request (moto's
	// INITIAL_NO_AUTH_ACTION_COUNT=0): the fake key pair, like any key it
	// has not issued through its IAM, is refused with InvalidAccessKeyId.
	// By default moto accepts any credentials.
	Auth bool
}

// Server is a running moto server.
type Server struct {
	Endpoint string     // http://127.0.0.1:PORT
	Client   *s3.Client // path-style client with the fake credentials

	tb   testing.TB
	cmd  *exec.Cmd
	log  *syncBuffer
	once sync.Once
	done chan struct{}
}

// MotoPath finds moto_server: $BRAID_MOTO, else the copy `make moto`
// installs in the repository. It returns "" when there is none.
func MotoPath() string {
	if p := os.Getenv(EnvMoto); p != "" {
		if _, err := os.Stat(p); err == nil {
			return p
		}
		return ""
	}
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(file), "..", "..", ".tools", "moto", "bin", "moto_server")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return ""
}

// Start runs a moto server for the test and stops it when the test ends.
// It skips the test when moto is not installed, or fails it under
// BRAID_REQUIRE_S3=1.
func Start(tb testing.TB, opt *Options) *Server {
	tb.Helper()
	bin := MotoPath()
	if bin == "" {
		msg := fmt.Sprintf("no moto: moto_server not found ($%s=%q): run `make moto`, or set %s to a moto_server", EnvMoto, os.Getenv(EnvMoto), EnvMoto)
		if os.Getenv(EnvRequire) == "1" {
			tb.Fatalf("%s=1 but %s", EnvRequire, msg)
		}
		tb.Skip(msg)
	}
	var o Options
	if opt != nil {
		o = *opt
	}
	port, err := freePort()
	if err != nil {
		tb.Fatalf("s3test: find a free port: %v", err)
	}
	s := &Server{Endpoint: fmt.Sprintf("http://127.0.0.1:%d", port), tb: tb, log: &syncBuffer{}, done: make(chan struct{})}
	s.cmd = exec.Command(bin, "-H", "127.0.0.1", "-p", fmt.Sprint(port))
	env := append(os.Environ(), "AWS_ACCESS_KEY_ID="+AccessKey, "AWS_SECRET_ACCESS_KEY="+SecretKey, "AWS_DEFAULT_REGION="+Region, "AWS_REGION="+Region)
	if o.Auth {
		env = append(env, "INITIAL_NO_AUTH_ACTION_COUNT=0")
	}
	s.cmd.Env = env
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		tb.Fatalf("s3test: start %s: %v", bin, err)
	}
	go func() {
		_ = s.cmd.Wait()
		close(s.done)
	}()
	tb.Cleanup(func() {
		s.Stop()
		if tb.Failed() {
			tb.Logf("moto_server log (tail):\n%s", s.log.tail(4000))
		}
	})
	if err := s.waitUp(30 * time.Second); err != nil {
		tb.Fatalf("s3test: %v; log:\n%s", err, s.log.tail(4000))
	}
	s.Client = s3.NewFromConfig(s.Config(), func(o *s3.Options) {
		o.BaseEndpoint = aws.String(s.Endpoint)
		o.UsePathStyle = true
	})
	return s
}

// Config is an aws.Config with the fake credentials and region, and no
// endpoint: give the endpoint as bucket.Options.Endpoint (--s3-endpoint).
func (s *Server) Config() aws.Config {
	return aws.Config{Region: Region, Credentials: credentials.NewStaticCredentialsProvider(AccessKey, SecretKey, "")}
}

// Setenv points the standard AWS environment of the test at the fake
// credentials and region, away from the user's own config files, for code
// that loads the config itself (the CLI). It does not set the endpoint.
func (s *Server) Setenv(t *testing.T) {
	t.Helper()
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": AccessKey, "AWS_SECRET_ACCESS_KEY": SecretKey, "AWS_REGION": Region,
		"AWS_CONFIG_FILE": os.DevNull, "AWS_SHARED_CREDENTIALS_FILE": os.DevNull,
		"AWS_PROFILE": "", "AWS_SESSION_TOKEN": "", "AWS_ENDPOINT_URL": "", "AWS_ENDPOINT_URL_S3": "",
	} {
		t.Setenv(k, v)
	}
}

// Stop ends the server (at once; it holds nothing worth flushing) and
// waits for it to exit. Later requests find the port closed. Stopping
// twice is harmless.
func (s *Server) Stop() {
	s.once.Do(func() {
		_ = s.cmd.Process.Kill()
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			s.tb.Errorf("s3test: moto_server (pid %d) did not exit", s.cmd.Process.Pid)
		}
	})
}

// CreateBucket creates a bucket.
func (s *Server) CreateBucket(name string) {
	s.tb.Helper()
	if _, err := s.Client.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		s.tb.Fatalf("create bucket %s: %v", name, err)
	}
}

// Put writes an object and returns its ETag (without quotes).
func (s *Server) Put(bucket, key, body string) string {
	s.tb.Helper()
	out, err := s.Client.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: strings.NewReader(body)})
	if err != nil {
		s.tb.Fatalf("put s3://%s/%s: %v", bucket, key, err)
	}
	return strings.Trim(aws.ToString(out.ETag), `"`)
}

// PutBytes writes an object of raw bytes.
func (s *Server) PutBytes(bucket, key string, body []byte) {
	s.tb.Helper()
	if _, err := s.Client.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(body)}); err != nil {
		s.tb.Fatalf("put s3://%s/%s: %v", bucket, key, err)
	}
}

// Delete removes an object.
func (s *Server) Delete(bucket, key string) {
	s.tb.Helper()
	if _, err := s.Client.DeleteObject(context.Background(), &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)}); err != nil {
		s.tb.Fatalf("delete s3://%s/%s: %v", bucket, key, err)
	}
}

// Requests counts the requests of a method and path prefix the server has
// logged so far ("GET", "/bucket/notes/a.md"): how a test sees which
// objects were downloaded.
func (s *Server) Requests(method, pathPrefix string) int {
	n := 0
	log := ansi.ReplaceAllString(s.log.String(), "") // werkzeug colours lines of some statuses
	for _, line := range strings.Split(log, "\n") {
		// werkzeug logs: 127.0.0.1 - - [date] "GET /bucket/key HTTP/1.1" 200 -
		_, req, ok := strings.Cut(line, `"`)
		if !ok {
			continue
		}
		m, rest, _ := strings.Cut(req, " ")
		if m == method && strings.HasPrefix(rest, pathPrefix) {
			n++
		}
	}
	return n
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

func (s *Server) waitUp(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	client := &http.Client{Timeout: time.Second}
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			return errors.New("moto_server exited at start")
		default:
		}
		if resp, err := client.Get(s.Endpoint + "/moto-api/"); err == nil {
			resp.Body.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("moto_server did not answer on %s within %v", s.Endpoint, limit)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// syncBuffer collects the server's log from its two streams.
type syncBuffer struct{ testenv.Buffer }

func (b *syncBuffer) tail(n int) string {
	s := b.String()
	if len(s) > n {
		s = "…" + s[len(s)-n:]
	}
	return s
}
