// Package s3 is the driver of s3:// URLs (Amazon S3 and S3-compatible
// stores) for the front door: a program that imports it, even for its
// side effect only,
//
//	import _ "github.com/trevni-go/trevni/stores/s3"
//
// reads and writes s3://bucket/key with the credentials and endpoint of
// the AWS SDK's environment (see package objstore). Its init registers the
// scheme on the project's own registry, package remote/store, and nowhere
// else. A service with a client of its own hands New's store to the front
// door instead (trevni.OpenOptions' Stores, by scheme).
package s3

import (
	"context"
	"fmt"
	"net/url"

	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/blob"
	"gocloud.dev/blob/s3blob"

	"github.com/trevni-go/trevni/remote/store"
	"github.com/trevni-go/trevni/stores/objstore"
)

// Scheme is the URL scheme the package registers.
const Scheme = "s3"

func init() {
	objstore.RegisterProvider(provider)
	store.Register(Scheme, objstore.Store{})
}

// New returns the store of s3:// URLs whose buckets are reached through
// client, with its credentials, region, endpoint and HTTP client (a stall
// bound is the client's to set).
func New(client *awss3.Client) store.Store {
	return objstore.Store{OpenBucket: func(ctx context.Context, bucketURL string) (*blob.Bucket, error) {
		u, err := url.Parse(bucketURL)
		if err != nil {
			return nil, err
		}
		if u.Scheme != Scheme {
			return nil, fmt.Errorf("%s: not an s3:// bucket", bucketURL)
		}
		return s3blob.OpenBucket(ctx, client, u.Host, nil)
	}}
}
