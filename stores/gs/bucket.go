package gs

import (
	"context"
	"errors"
	"net/url"
	"time"

	"gocloud.dev/blob"

	"github.com/trevni-go/trevni/stores/gcs"
	"github.com/trevni-go/trevni/stores/objstore"
)

// provider is what package objstore needs of the GCS driver.
var provider = objstore.Provider{
	Scheme:     Scheme,
	OpenBucket: openGCS,
	Answered:   answered,
	BeforeRead: beforeRead,
	BeforeCopy: beforeCopy,
	HTTPStatus: httpStatus,
}

// opener opens the gs:// buckets, keeping the credentials it finds.
var opener gcs.URLOpener

// openGCS opens a gs:// bucket with the GCS driver's URL opener, told
// the stall by its stall parameter. Its buckets share one client, which
// is never closed: the function returned is nil.
func openGCS(ctx context.Context, u *url.URL, stall time.Duration) (*blob.Bucket, func(), error) {
	if stall > 0 {
		q := u.Query()
		if q.Get("stall") == "" {
			q.Set("stall", stall.String())
			u.RawQuery = q.Encode()
		}
	}
	b, err := opener.OpenBucketURL(ctx, u)
	return b, nil, err
}

// answered returns the generation an object's attributes or a read's
// answer carry.
func answered(as func(any) bool) objstore.Version {
	var a gcs.ObjectAttrs
	if as(&a) {
		return objstore.Version{Generation: a.Generation}
	}
	return objstore.Version{}
}

// beforeRead makes a read ask for the generation opened only (the GCS
// driver retries no reads: objstore does).
func beforeRead(as func(any) bool, v objstore.Version) error {
	var c *gcs.Conditions
	if as(&c) {
		c.GenerationMatch = v.Generation
	}
	return nil
}

// beforeCopy makes a copy fail atomically when its destination exists,
// unless replace.
func beforeCopy(as func(any) bool, replace bool) error {
	var c *gcs.Conditions
	if as(&c) {
		c.DoesNotExist = !replace
	}
	return nil
}

// httpStatus returns the HTTP status of the GCS driver's error err
// carries, or 0.
func httpStatus(err error) int {
	var e *gcs.Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}
