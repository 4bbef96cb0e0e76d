package objstore

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"gocloud.dev/blob"
)

// How buckets are opened.
//
// Every request of a bucket goes through a stallhttp.Transport that
// bounds its time without progress to Options.Stall: a request whose
// connection, answer header, body (taken by the connection) or answer
// body makes no progress for that long fails with an error wrapping
// ErrStalled, a timeout, which the SDKs retry as they retry a dropped
// connection (the AWS SDK up to 3 tries, the Azure SDK up to 4, the GCS
// driver the steps of uploads up to 9; reads are retried by Object).
// A bucket is opened by the Provider of its scheme, which the driver
// package registers (stores/s3, stores/gs, stores/azblob), with the query
// parameters and environment of gocloud.dev's URL opener of that store
// (s3blob's, gocloud.dev azureblob's, and the GCS driver's own, never
// blob.DefaultURLMux), and a client made there so that the stall bound
// and the closing of its connections are this package's.
// Options.OpenBucket replaces all of it.

// openBucket opens the bucket of bucketURL (a Location's Bucket) with
// p, every request bounded by stall (0: none), and returns it with the
// function that closes the idle connections of its own client (nil where
// it has none). Buckets are opened through acquireBucket, which shares
// them.
func openBucket(ctx context.Context, p *Provider, bucketURL string, stall time.Duration) (*blob.Bucket, func(), error) {
	u, err := url.Parse(bucketURL)
	if err != nil {
		return nil, nil, err
	}
	if u.Scheme != p.Scheme {
		return nil, nil, fmt.Errorf("%s: not a bucket of %s://", bucketURL, p.Scheme)
	}
	return p.OpenBucket(ctx, u, stall)
}
