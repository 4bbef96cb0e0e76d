// Package gs is the driver of gs:// URLs (Google Cloud Storage) for the
// front door: a program that imports it, even for its side effect only,
//
//	import _ "github.com/trevni-go/trevni/stores/gs"
//
// reads and writes gs://bucket/key with Application Default Credentials or
// STORAGE_EMULATOR_HOST (see package objstore), through this module's
// lean GCS driver (package gcs), never Google's client libraries. Its init
// registers the scheme on the project's own registry, package
// remote/store, and nowhere else: gocloud.dev's gcsblob, which registers
// "gs" on gocloud's blob.DefaultURLMux, may be linked beside it. A service
// with an http.Client of its own hands New's store to the front door
// instead (trevni.OpenOptions' Stores, by scheme).
package gs

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"gocloud.dev/blob"

	"github.com/trevni-go/trevni/remote/store"
	"github.com/trevni-go/trevni/stores/gcs"
	"github.com/trevni-go/trevni/stores/objstore"
)

// Scheme is the URL scheme the package registers.
const Scheme = "gs"

func init() {
	objstore.RegisterProvider(provider)
	store.Register(Scheme, objstore.Store{})
}

// New returns the store of gs:// URLs whose buckets are reached with
// opts: its Client (with the credentials its transport adds, following
// no redirects), Endpoint and ChunkSize. nil opts: an endpoint of
// gcs.DefaultEndpoint and no credentials.
func New(opts *gcs.Options) store.Store {
	return objstore.Store{OpenBucket: func(ctx context.Context, bucketURL string) (*blob.Bucket, error) {
		u, err := url.Parse(bucketURL)
		if err != nil {
			return nil, err
		}
		if u.Scheme != Scheme {
			return nil, fmt.Errorf("%s: not a gs:// bucket", bucketURL)
		}
		return gcs.OpenBucket(u.Host, opts)
	}}
}

// NewClient returns the store of gs:// URLs whose requests client makes
// (with the credentials its transport adds), at gcs.DefaultEndpoint.
// Its redirects are handed back, as uploads need.
func NewClient(client *http.Client) store.Store {
	c := *client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return New(&gcs.Options{Client: &c})
}
