package bucket

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
)

// Errors a Reader's methods return, each wrapped in a message that names
// the bucket and the fix.
var (
	// ErrBadURL means a string is not an s3://bucket[/prefix] URL.
	ErrBadURL = errors.New("bucket: invalid s3:// URL")
	// ErrBadEndpoint means a custom endpoint is not an http(s):// URL.
	ErrBadEndpoint = errors.New("bucket: invalid endpoint")
	// ErrNoBucket means the bucket does not exist at the endpoint.
	ErrNoBucket = errors.New("bucket: no such bucket")
	// ErrDenied means the store refused the credentials or the request.
	ErrDenied = errors.New("bucket: access denied")
	// ErrNoCredentials means no AWS credentials were found.
	ErrNoCredentials = errors.New("bucket: no AWS credentials")
	// ErrRegion means no region is configured, or the bucket is in another.
	ErrRegion = errors.New("bucket: wrong or missing region")
	// ErrUnreachable means the endpoint could not be reached in time.
	ErrUnreachable = errors.New("bucket: endpoint unreachable")
	// ErrNoKey means an object is gone (deleted since it was listed).
	ErrNoKey = errors.New("bucket: no such object")
	// ErrTooLarge means an object is over the size limit Get was given.
	ErrTooLarge = errors.New("bucket: object too large")
)

// Scheme is the URL scheme of bucket locations.
const Scheme = "s3://"

// URL is a bucket and a key prefix: s3://bucket/prefix.
type URL struct {
	Bucket string
	Prefix string // without leading or trailing "/"; empty means the whole bucket
}

// bucketName is what S3 (and older us-east-1 buckets) accept as a name.
var bucketName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{1,254}$`)

// IsURL reports whether s starts with s3:// (in any case).
func IsURL(s string) bool {
	return len(s) >= len(Scheme) && strings.EqualFold(s[:len(Scheme)], Scheme)
}

// ParseURL reads s3://bucket or s3://bucket/prefix. Slashes around the
// prefix are dropped: the prefix names a folder.
func ParseURL(s string) (URL, error) {
	if !IsURL(s) {
		return URL{}, fmt.Errorf("%w: %q does not start with s3://", ErrBadURL, s)
	}
	rest := s[len(Scheme):]
	name, prefix, _ := strings.Cut(rest, "/")
	prefix = strings.Trim(prefix, "/")
	switch {
	case name == "":
		return URL{}, fmt.Errorf("%w: %q names no bucket; want s3://bucket or s3://bucket/prefix", ErrBadURL, s)
	case !bucketName.MatchString(name):
		return URL{}, fmt.Errorf("%w: %q is not a bucket name (want 2-255 letters, digits, '.', '-' or '_')", ErrBadURL, name)
	case !utf8.ValidString(prefix) || strings.ContainsAny(prefix, "\x00"):
		return URL{}, fmt.Errorf("%w: the prefix of %q holds a NUL or invalid UTF-8", ErrBadURL, s)
	case len(prefix) > 1000:
		return URL{}, fmt.Errorf("%w: the prefix of %q is %d bytes, want at most 1000", ErrBadURL, s, len(prefix))
	}
	return URL{Bucket: name, Prefix: prefix}, nil
}

// String is the URL in canonical form: s3://bucket or s3://bucket/prefix.
func (u URL) String() string {
	if u.Prefix == "" {
		return Scheme + u.Bucket
	}
	return Scheme + u.Bucket + "/" + u.Prefix
}

// Key is the object key of rel, a path relative to the prefix.
func (u URL) Key(rel string) string {
	if u.Prefix == "" {
		return rel
	}
	return u.Prefix + "/" + rel
}

// Within reports whether v is u or lies under it (a key or a narrower
// prefix of the same bucket).
func (u URL) Within(v URL) bool {
	return u.Bucket == v.Bucket && (u.Prefix == "" || v.Prefix == u.Prefix || strings.HasPrefix(v.Prefix, u.Prefix+"/"))
}

// keyPrefix is what ListObjectsV2 is asked for: the prefix as a folder.
func (u URL) keyPrefix() string {
	if u.Prefix == "" {
		return ""
	}
	return u.Prefix + "/"
}

// CheckEndpoint checks a custom endpoint: an http:// or https:// URL with a
// host and no query.
func CheckEndpoint(endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return fmt.Errorf("%w: %q; want an http:// or https:// URL such as http://127.0.0.1:9000", ErrBadEndpoint, endpoint)
	}
	return nil
}

// Options tunes a Reader. The zero value (or nil) means the defaults.
type Options struct {
	// Endpoint is an S3-compatible store's URL (http://host:port); it
	// overrides the configured endpoint and turns on path-style addressing.
	// Empty means the aws.Config's endpoint (AWS_ENDPOINT_URL_S3 or
	// AWS_ENDPOINT_URL, path-style too), else Amazon S3.
	Endpoint string
	// Timeout bounds each request, its retries and the read of its body;
	// zero means 60 seconds.
	Timeout time.Duration
	// DialTimeout bounds each connection attempt; zero means 5 seconds.
	DialTimeout time.Duration
	// Attempts is how many times a failed request is tried; zero means 3.
	Attempts int
	// PageSize is how many keys one ListObjectsV2 call asks for; zero means
	// 1000, the most S3 returns.
	PageSize int32
}

// Reader lists and downloads the objects under one URL.
type Reader struct {
	url      URL
	client   *s3.Client
	endpoint string // for messages
	timeout  time.Duration
	pageSize int32
}

// Object is one listed object.
type Object struct {
	Key      string    // the full key
	Rel      string    // the key relative to the URL's prefix
	ETag     string    // without quotes
	Size     int64     // bytes
	Modified time.Time // last modified, UTC
}

// Open prepares a Reader of u. It checks the options and resolves the
// credentials (within the timeout), so a missing key pair is reported
// before anything is listed; it sends no request to the bucket.
func Open(ctx context.Context, cfg aws.Config, u URL, opt *Options) (*Reader, error) {
	var o Options
	if opt != nil {
		o = *opt
	}
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = 5 * time.Second
	}
	if o.Attempts <= 0 {
		o.Attempts = 3
	}
	if o.PageSize <= 0 || o.PageSize > 1000 {
		o.PageSize = 1000
	}
	if o.Endpoint != "" {
		if err := CheckEndpoint(o.Endpoint); err != nil {
			return nil, err
		}
	}
	httpClient := awshttp.NewBuildableClient().
		WithDialerOptions(func(d *net.Dialer) { d.Timeout = o.DialTimeout }).
		WithTransportOptions(func(t *http.Transport) {
			t.ResponseHeaderTimeout = o.Timeout
			t.TLSHandshakeTimeout = o.DialTimeout
		})
	client := s3.NewFromConfig(cfg, func(so *s3.Options) {
		so.HTTPClient = httpClient
		so.Retryer = retry.NewStandard(func(r *retry.StandardOptions) {
			r.MaxAttempts = o.Attempts
			r.MaxBackoff = time.Second
			r.RateLimiter = ratelimit.None // a run of failures must not turn into "retry quota exceeded"
		})
		so.DisableLogOutputChecksumValidationSkipped = true
		if o.Endpoint != "" {
			so.BaseEndpoint = aws.String(o.Endpoint)
		}
		if so.BaseEndpoint != nil {
			so.UsePathStyle = true // S3-compatible stores rarely have per-bucket host names
			if so.Region == "" {
				so.Region = "us-east-1" // they ignore it, but signing needs one
			}
		}
	})
	r := &Reader{url: u, client: client, timeout: o.Timeout, pageSize: o.PageSize}
	so := client.Options()
	if so.BaseEndpoint != nil {
		r.endpoint = *so.BaseEndpoint
	} else {
		r.endpoint = "Amazon S3"
		if so.Region != "" {
			r.endpoint += " (" + so.Region + ")"
		}
	}
	if so.Region == "" {
		return nil, fmt.Errorf("%w: %s: no AWS region is configured; set AWS_REGION (or region in ~/.aws/config) to the bucket's region", ErrRegion, u)
	}
	if so.Credentials == nil {
		return nil, fmt.Errorf("%w: %s: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE", ErrNoCredentials, u)
	}
	cctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	if _, err := so.Credentials.Retrieve(cctx); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w for %s (%s); set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE", ErrNoCredentials, u, oneLine(err.Error()))
	}
	return r, nil
}

// URL is the location the Reader reads.
func (r *Reader) URL() URL { return r.url }

// Endpoint names the store the Reader talks to, for messages.
func (r *Reader) Endpoint() string { return r.endpoint }

// List returns every object under the URL's prefix, in key order, keys
// ending in "/" left out. It pages through ListObjectsV2, calling progress
// (when not nil) with the count so far after each page. A listing that
// fails part-way returns the error and no objects: callers must not take a
// partial listing for the bucket's content.
func (r *Reader) List(ctx context.Context, progress func(listed int)) ([]Object, error) {
	prefix := r.url.keyPrefix()
	in := &s3.ListObjectsV2Input{Bucket: aws.String(r.url.Bucket), MaxKeys: aws.Int32(r.pageSize)}
	if prefix != "" {
		in.Prefix = aws.String(prefix)
	}
	p := s3.NewListObjectsV2Paginator(r.client, in)
	var out []Object
	pages := 0
	for p.HasMorePages() {
		pctx, cancel := context.WithTimeout(ctx, r.timeout)
		page, err := p.NextPage(pctx)
		cancel()
		if err != nil {
			err = r.explain(ctx, "list", "", err)
			if pages > 0 {
				return nil, fmt.Errorf("%w (the listing broke off after %d page(s), %d objects)", err, pages, len(out))
			}
			return nil, err
		}
		pages++
		for _, o := range page.Contents {
			key := aws.ToString(o.Key)
			if !strings.HasPrefix(key, prefix) || strings.HasSuffix(key, "/") || key == prefix {
				continue
			}
			obj := Object{Key: key, Rel: key[len(prefix):], ETag: unquote(aws.ToString(o.ETag)), Size: aws.ToInt64(o.Size)}
			if o.LastModified != nil {
				obj.Modified = o.LastModified.UTC()
			}
			out = append(out, obj)
		}
		if progress != nil {
			progress(len(out))
		}
	}
	return out, nil
}

// Get downloads the object with the given key, refusing one of more than
// max bytes with ErrTooLarge, and returns its content and ETag.
func (r *Reader) Get(ctx context.Context, key string, max int64) ([]byte, string, error) {
	gctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	out, err := r.client.GetObject(gctx, &s3.GetObjectInput{Bucket: aws.String(r.url.Bucket), Key: aws.String(key)})
	if err != nil {
		return nil, "", r.explain(ctx, "get", key, err)
	}
	defer out.Body.Close()
	if n := aws.ToInt64(out.ContentLength); n > max {
		return nil, "", fmt.Errorf("%w: s3://%s/%s is %d bytes, over the %d-byte limit", ErrTooLarge, r.url.Bucket, key, n, max)
	}
	data, err := io.ReadAll(io.LimitReader(out.Body, max+1))
	if err != nil {
		return nil, "", r.explain(ctx, "read", key, err)
	}
	if int64(len(data)) > max {
		return nil, "", fmt.Errorf("%w: s3://%s/%s is over the %d-byte limit", ErrTooLarge, r.url.Bucket, key, max)
	}
	return data, unquote(aws.ToString(out.ETag)), nil
}

// explain turns an SDK error into one line that names the bucket (and the
// key, for an object) and the fix. ctx is the caller's: its cancellation
// is returned as such, not as a network failure.
func (r *Reader) explain(ctx context.Context, op, key string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	where := r.url.String()
	if key != "" {
		where = Scheme + r.url.Bucket + "/" + key
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		code, msg := api.ErrorCode(), oneLine(api.ErrorMessage())
		detail := code
		if msg != "" {
			detail += ": " + msg
		}
		switch code {
		case "NoSuchBucket":
			return fmt.Errorf("%w: %s does not exist at %s; check the bucket name (and Options.Endpoint for an S3-compatible store)", ErrNoBucket, where, r.endpoint)
		case "NoSuchKey":
			return fmt.Errorf("%w: %s (deleted since it was listed)", ErrNoKey, where)
		case "AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "ExpiredToken", "InvalidToken", "TokenRefreshRequired", "AllAccessDisabled", "AccountProblem", "Forbidden":
			return fmt.Errorf("%w: %s at %s refused the request (%s); check the credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE) and that they may list and read the bucket", ErrDenied, where, r.endpoint, detail)
		case "PermanentRedirect", "AuthorizationHeaderMalformed", "IllegalLocationConstraintException", "Redirect", "301":
			return fmt.Errorf("%w: %s is not in the configured region (%s); set AWS_REGION to the bucket's region", ErrRegion, where, detail)
		}
		var re *awshttp.ResponseError
		if errors.As(err, &re) {
			switch re.HTTPStatusCode() {
			case http.StatusNotFound:
				if key != "" {
					return fmt.Errorf("%w: %s (deleted since it was listed)", ErrNoKey, where)
				}
				return fmt.Errorf("%w: %s does not exist at %s; check the bucket name (and Options.Endpoint for an S3-compatible store)", ErrNoBucket, where, r.endpoint)
			case http.StatusForbidden, http.StatusUnauthorized:
				return fmt.Errorf("%w: %s at %s refused the request (%s); check the credentials (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE) and that they may list and read the bucket", ErrDenied, where, r.endpoint, detail)
			case http.StatusMovedPermanently:
				return fmt.Errorf("%w: %s is not in the configured region; set AWS_REGION to the bucket's region", ErrRegion, where)
			}
		}
		return fmt.Errorf("bucket: %s %s at %s: %s", op, where, r.endpoint, detail)
	}
	if strings.Contains(err.Error(), "get identity") {
		return fmt.Errorf("%w for %s (%s); set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE", ErrNoCredentials, where, oneLine(rootCause(err).Error()))
	}
	var netErr net.Error
	var opErr *net.OpError
	var dnsErr *net.DNSError
	if errors.As(err, &opErr) || errors.As(err, &dnsErr) || errors.As(err, &netErr) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || strings.Contains(err.Error(), "connection reset") {
		cause := oneLine(rootCause(err).Error())
		if errors.Is(err, context.DeadlineExceeded) {
			cause = fmt.Sprintf("no answer within %v", r.timeout)
		}
		return fmt.Errorf("%w: %s: cannot %s it at %s (%s); check Options.Endpoint (or AWS_ENDPOINT_URL) and the network", ErrUnreachable, where, op, r.endpoint, cause)
	}
	return fmt.Errorf("bucket: %s %s at %s: %s", op, where, r.endpoint, oneLine(err.Error()))
}

// rootCause is the innermost error of a chain of single wraps.
func rootCause(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func unquote(etag string) string { return strings.Trim(etag, `"`) }
