package bucket_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/google/go-cmp/cmp"

	"github.com/braidsearch/braid/bucket"
	"github.com/braidsearch/braid/internal/s3test"
	"github.com/braidsearch/braid/internal/testenv"
)

func TestParseURL(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     bucket.URL
		err      bool
	}{
		{"bucket", "s3://notes", bucket.URL{Bucket: "notes"}, false},
		{"bucket slash", "s3://notes/", bucket.URL{Bucket: "notes"}, false},
		{"prefix", "s3://notes/team/a", bucket.URL{Bucket: "notes", Prefix: "team/a"}, false},
		{"prefix slashes", "S3://notes//team/", bucket.URL{Bucket: "notes", Prefix: "team"}, false},
		{"no scheme", "notes/team", bucket.URL{}, true},
		{"other scheme", "gs://notes", bucket.URL{}, true},
		{"no bucket", "s3:///team", bucket.URL{}, true},
		{"bad bucket", "s3://no$pe", bucket.URL{}, true},
		{"nul", "s3://notes/a\x00b", bucket.URL{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := bucket.ParseURL(tc.in)
			if (err != nil) != tc.err {
				t.Fatalf("ParseURL(%q) error %v, want error %v", tc.in, err, tc.err)
			}
			if err != nil {
				if !errors.Is(err, bucket.ErrBadURL) {
					t.Errorf("error %v is not ErrBadURL", err)
				}
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseURL(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestURLWithin(t *testing.T) {
	u := func(s string) bucket.URL {
		v, err := bucket.ParseURL(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		outer, inner string
		want         bool
	}{
		{"s3://bb", "s3://bb/x/y", true},
		{"s3://bb/x", "s3://bb/x", true},
		{"s3://bb/x", "s3://bb/x/y.md", true},
		{"s3://bb/x", "s3://bb/xy", false},
		{"s3://bb/x", "s3://bb", false},
		{"s3://bb", "s3://cc", false},
	} {
		if got := u(tc.outer).Within(u(tc.inner)); got != tc.want {
			t.Errorf("%s.Within(%s) = %v, want %v", tc.outer, tc.inner, got, tc.want)
		}
	}
}

func TestCheckEndpoint(t *testing.T) {
	for _, ok := range []string{"http://127.0.0.1:9000", "https://s3.example.com"} {
		if err := bucket.CheckEndpoint(ok); err != nil {
			t.Errorf("CheckEndpoint(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "127.0.0.1:9000", "ftp://x", "http://", "http://x/?a=b", "http://u:p@x"} {
		if err := bucket.CheckEndpoint(bad); !errors.Is(err, bucket.ErrBadEndpoint) {
			t.Errorf("CheckEndpoint(%q) = %v, want ErrBadEndpoint", bad, err)
		}
	}
}

func open(t *testing.T, s *s3test.Server, url string, opt bucket.Options) *bucket.Reader {
	t.Helper()
	u, err := bucket.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	opt.Endpoint = s.Endpoint
	r, err := bucket.Open(context.Background(), s.Config(), u, &opt)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestListAndGet(t *testing.T) {
	s := s3test.Start(t, nil)
	s.CreateBucket("notes")
	etag := s.Put("notes", "team/a.md", "# A\n")
	s.Put("notes", "team/sub/b.txt", "bee\n")
	s.Put("notes", "team/", "")        // a folder marker
	s.Put("notes", "teammates.md", "") // outside the folder team/
	s.Put("notes", "other/c.md", "c\n")
	r := open(t, s, "s3://notes/team", bucket.Options{PageSize: 1})
	var pages []int
	objs, err := r.List(context.Background(), func(n int) { pages = append(pages, n) })
	if err != nil {
		t.Fatal(err)
	}
	var rels []string
	for _, o := range objs {
		rels = append(rels, o.Rel)
	}
	if diff := cmp.Diff([]string{"a.md", "sub/b.txt"}, rels); diff != "" {
		t.Errorf("listed (-want +got):\n%s", diff)
	}
	if len(pages) < 2 {
		t.Errorf("progress after each page: %v, want one call per page of 1", pages)
	}
	if objs[0].ETag != etag || objs[0].Key != "team/a.md" || objs[0].Size != 4 || objs[0].Modified.IsZero() {
		t.Errorf("object %+v, want key team/a.md, ETag %s, size 4, a time", objs[0], etag)
	}
	data, got, err := r.Get(context.Background(), "team/a.md", 100)
	if err != nil || string(data) != "# A\n" || got != etag {
		t.Errorf("Get = %q, %q, %v; want the content and ETag %s", data, got, err, etag)
	}
	if _, _, err := r.Get(context.Background(), "team/a.md", 2); !errors.Is(err, bucket.ErrTooLarge) {
		t.Errorf("Get over the limit: %v, want ErrTooLarge", err)
	}
	if _, _, err := r.Get(context.Background(), "team/gone.md", 100); !errors.Is(err, bucket.ErrNoKey) {
		t.Errorf("Get of a missing key: %v, want ErrNoKey", err)
	}
}

// oneLine checks an error is one line naming the bucket and a fix.
func oneLine(t *testing.T, err error, want ...string) {
	t.Helper()
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Errorf("error is more than one line: %q", msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not mention %q", msg, w)
		}
	}
}

func TestErrors(t *testing.T) {
	s := s3test.Start(t, nil)
	s.CreateBucket("notes")
	s.Put("notes", "a.md", "a")

	_, err := open(t, s, "s3://missing-bucket/x", bucket.Options{}).List(context.Background(), nil)
	if !errors.Is(err, bucket.ErrNoBucket) {
		t.Fatalf("missing bucket: %v, want ErrNoBucket", err)
	}
	t.Log(err)
	oneLine(t, err, "s3://missing-bucket/x", s.Endpoint, "check the bucket name")

	r := open(t, s, "s3://notes", bucket.Options{Attempts: 2})
	s.Stop()
	start := time.Now()
	_, err = r.List(context.Background(), nil)
	if !errors.Is(err, bucket.ErrUnreachable) {
		t.Fatalf("stopped server: %v, want ErrUnreachable", err)
	}
	t.Log(err)
	oneLine(t, err, "s3://notes", s.Endpoint, "Options.Endpoint")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("an unreachable endpoint took %v to report", d)
	}
	if _, _, err := r.Get(context.Background(), "a.md", 10); !errors.Is(err, bucket.ErrUnreachable) {
		t.Errorf("Get from a stopped server: %v, want ErrUnreachable", err)
	}
}

// TestListBreaksOff stops the server between two pages of a listing: the
// listing fails as a whole.
func TestListBreaksOff(t *testing.T) {
	s := s3test.Start(t, nil)
	s.CreateBucket("notes")
	for i := range 5 {
		s.Put("notes", fmt.Sprintf("n%d.md", i), "x")
	}
	r := open(t, s, "s3://notes", bucket.Options{PageSize: 2, Attempts: 1})
	objs, err := r.List(context.Background(), func(int) { s.Stop() })
	if !errors.Is(err, bucket.ErrUnreachable) || objs != nil {
		t.Fatalf("List = %d objects, %v; want none and ErrUnreachable", len(objs), err)
	}
	t.Log(err)
	oneLine(t, err, "s3://notes", "broke off after 1 page(s), 2 objects")
}

// TestDenied runs moto with its credential checks on: it knows no key
// pair it did not issue through its IAM, so the fake one is refused.
func TestDenied(t *testing.T) {
	s := s3test.Start(t, &s3test.Options{Auth: true})
	_, err := open(t, s, "s3://notes", bucket.Options{}).List(context.Background(), nil)
	if !errors.Is(err, bucket.ErrDenied) {
		t.Fatalf("unknown credentials: %v, want ErrDenied", err)
	}
	t.Log(err)
	oneLine(t, err, "s3://notes", "check the credentials", "InvalidAccessKeyId")
}

func TestCancel(t *testing.T) {
	s := s3test.Start(t, nil)
	s.CreateBucket("notes")
	r := open(t, s, "s3://notes", bucket.Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.List(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("List with a cancelled context: %v, want context.Canceled", err)
	}
}

// TestOpenChecks covers what Open refuses before any request: no region
// (and no custom endpoint), no credentials, a bad endpoint.
func TestOpenChecks(t *testing.T) {
	u := testenv.Must1(bucket.ParseURL("s3://notes"))(t)
	ctx := context.Background()
	if _, err := bucket.Open(ctx, aws.Config{Credentials: credentials.NewStaticCredentialsProvider("k", "s", "")}, u, nil); !errors.Is(err, bucket.ErrRegion) {
		t.Errorf("no region: %v, want ErrRegion", err)
	} else {
		oneLine(t, err, "s3://notes", "AWS_REGION")
	}
	if _, err := bucket.Open(ctx, aws.Config{Region: "eu-west-1"}, u, nil); !errors.Is(err, bucket.ErrNoCredentials) {
		t.Errorf("no credentials: %v, want ErrNoCredentials", err)
	} else {
		oneLine(t, err, "s3://notes", "AWS_ACCESS_KEY_ID")
	}
	if _, err := bucket.Open(ctx, aws.Config{}, u, &bucket.Options{Endpoint: "ftp://x"}); !errors.Is(err, bucket.ErrBadEndpoint) {
		t.Errorf("bad endpoint: %v, want ErrBadEndpoint", err)
	}
	r, err := bucket.Open(ctx, aws.Config{Credentials: credentials.NewStaticCredentialsProvider("k", "s", "")}, u, &bucket.Options{Endpoint: "http://127.0.0.1:9"})
	if err != nil || r.Endpoint() != "http://127.0.0.1:9" {
		t.Errorf("a custom endpoint needs no region: %v", err)
	}
}
