// Package bucket reads the objects under an s3:// URL — a bucket and a key
// prefix of Amazon S3 or of an S3-compatible store (MinIO, SeaweedFS,
// moto...) — for indexing: List pages through ListObjectsV2 and returns
// every object with its ETag and size, Get downloads one object up to a
// size limit.
//
// Configuration comes from the caller as an aws.Config (credentials,
// region, endpoint: package cli loads it from the standard AWS environment
// variables and config files); Options.Endpoint overrides the endpoint and
// turns on path-style addressing, which S3-compatible stores expect.
//
// Every request is bounded: a dial timeout, a per-request timeout
// (Options.Timeout) and a few retries with short backoff. Failures come
// back as one-line errors that name the bucket and the fix, and match one
// of ErrNoBucket, ErrDenied, ErrNoCredentials, ErrRegion or ErrUnreachable
// with errors.Is.
//
//	u, _ := bucket.ParseURL("s3://notes/team")
//	r, err := bucket.Open(ctx, cfg, u, &bucket.Options{Endpoint: "http://127.0.0.1:9000"})
//	objs, err := r.List(ctx, nil)
//	for _, o := range objs {
//		data, etag, err := r.Get(ctx, o.Key, 8<<20)
//		...
//	}
//
// Caveats: a prefix is taken as a folder (s3://b/docs lists docs/…, not
// docs2/…); keys ending in "/" (folder markers) are not listed. A Reader is
// safe for concurrent use.
package bucket
