package objstore

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"gocloud.dev/blob"

	"github.com/trevni-go/trevni/remote/store"
)

// A Provider is what this package needs of one store's SDK: opening a
// bucket, pinning a read to a version, telling a status out of an error,
// and the few steps that differ from store to store. This package names
// no SDK's types: each driver (stores/s3, stores/gs, stores/azblob)
// implements the Provider of its scheme and registers it with
// RegisterProvider in its init, so that a program links the SDKs of the
// stores it imports, and no other. Only OpenBucket is required; a nil
// hook does nothing.
type Provider struct {
	// Scheme is the URL scheme the provider takes: "s3", "gs", "azblob".
	Scheme string
	// OpenBucket opens the bucket of u (a Location's Bucket, parsed),
	// with every request bounded by stall (0: no bound; see "How
	// buckets are opened"), from the URL's query parameters and the
	// store's environment. It returns the bucket and the function that
	// closes the idle connections of its own client (nil where it has
	// none).
	OpenBucket func(ctx context.Context, u *url.URL, stall time.Duration) (*blob.Bucket, func(), error)
	// LookRetried says that the SDK retries the look at an object
	// (Attributes) itself, so that Open does not retry it again (one
	// policy, not one inside the other).
	LookRetried bool
	// NoRetries returns ctx telling the SDK to make no retries of its
	// own, for the requests an Object retries itself.
	NoRetries func(ctx context.Context) context.Context
	// Answered returns the version an object's attributes or a read's
	// answer carry, as far as the SDK's types (reached through as, the
	// As of blob.Attributes or blob.Reader) tell: its Generation, and an
	// ETag where the answer's differs from what blob.Attributes gives.
	Answered func(as func(any) bool) Version
	// BeforeRead makes a read, through as (blob.ReaderOptions'
	// BeforeRead), ask for the version v only, and tells the SDK to
	// make no retries of its own.
	BeforeRead func(as func(any) bool, v Version) error
	// BeforeCopy makes a copy, through as (blob.CopyOptions'
	// BeforeCopy), fail atomically when its destination exists, if the
	// store can and replace is false.
	BeforeCopy func(as func(any) bool, replace bool) error
	// HTTPStatus returns the HTTP status of the store's answer that err
	// carries, or 0 when err is none of the SDK's.
	HTTPStatus func(err error) int
	// StreamUploads makes uploads go through blob.Bucket.Upload fed by a
	// pipe rather than through a blob.Writer (for a driver whose Writer
	// fails badly after an error in the middle of an upload).
	StreamUploads bool
	// AbortUpload aborts the multipart upload id of the object key of
	// bucket on the store (through b's client), for an upload whose
	// context ended and whose SDK left its parts stored. It returns nil
	// once the upload is aborted or is no more, and the abort command a
	// user can run later otherwise.
	AbortUpload func(ctx context.Context, b *blob.Bucket, bucket, key, id string) (command string, err error)
}

// Version is the version of an object that reads are pinned to.
type Version struct {
	// ETag is the object's entity tag (S3, Azure); "" when unknown.
	ETag string
	// Generation is the object's generation (GCS); 0 when unknown.
	Generation int64
}

var providers struct {
	mu sync.RWMutex
	m  map[string]*Provider
}

// RegisterProvider makes p the provider of its scheme, for the drivers'
// init. It panics when p has no scheme or no OpenBucket, or when the
// scheme has a provider already.
func RegisterProvider(p Provider) {
	if p.Scheme == "" || p.OpenBucket == nil {
		panic(fmt.Sprintf("objstore: RegisterProvider: provider %q without a scheme or OpenBucket", p.Scheme))
	}
	providers.mu.Lock()
	defer providers.mu.Unlock()
	if providers.m[p.Scheme] != nil {
		panic("objstore: RegisterProvider: a second provider of " + p.Scheme + "://")
	}
	if providers.m == nil {
		providers.m = map[string]*Provider{}
	}
	providers.m[p.Scheme] = &p
}

// provider returns the provider of scheme, or an error wrapping
// store.ErrNoDriver naming the package to import.
func provider(scheme string) (*Provider, error) {
	providers.mu.RLock()
	p := providers.m[scheme]
	providers.mu.RUnlock()
	if p != nil {
		return p, nil
	}
	if slices.Contains(Schemes, scheme) {
		return nil, fmt.Errorf("%w %s://: import _ %q", store.ErrNoDriver, scheme, "github.com/trevni-go/trevni/stores/"+scheme)
	}
	return nil, fmt.Errorf("%w %s://", store.ErrNoDriver, scheme)
}

// schemeOf returns the scheme of an object or bucket URL.
func schemeOf(name string) string {
	scheme, _, _ := strings.Cut(name, "://")
	return scheme
}

// httpStatus returns the HTTP status of the store's answer that err
// carries, or 0.
func httpStatus(err error) int {
	providers.mu.RLock()
	defer providers.mu.RUnlock()
	for _, p := range providers.m {
		if p.HTTPStatus == nil {
			continue
		}
		if s := p.HTTPStatus(err); s != 0 {
			return s
		}
	}
	var sdk interface{ HTTPStatusCode() int } // the AWS SDK's, and others'
	if errors.As(err, &sdk) {
		return sdk.HTTPStatusCode()
	}
	return 0
}
