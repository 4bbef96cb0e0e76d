package gcs

import (
	"context"
	"net/http"
	"testing"

	"gocloud.dev/blob/driver"
	"gocloud.dev/blob/drivertest"

	"github.com/trevni-go/trevni/internal/gcsserver"
)

// harness runs gocloud.dev's conformance suite against the driver, on a
// fake-gcs-server in process.
type harness struct {
	s *gcsserver.Server
}

func (h *harness) MakeDriver(ctx context.Context) (driver.Bucket, error) {
	return openBucket("bkt", &Options{Endpoint: h.s.URL, ChunkSize: 256 << 10})
}

func (h *harness) MakeDriverForNonexistentBucket(ctx context.Context) (driver.Bucket, error) {
	return openBucket("no-such-bucket", &Options{Endpoint: h.s.URL})
}

func (h *harness) HTTPClient() *http.Client         { return nil }
func (h *harness) SupportsCopy() bool               { return true }
func (h *harness) SupportsNonSlashDelimiters() bool { return false } // see TestConformance
func (h *harness) Close()                           {}

// TestConformance: the driver passes gocloud.dev's conformance suite for
// blob drivers (drivertest), which every driver of gocloud.dev passes.
// Its delimiters of more than one character are left out:
// fake-gcs-server keeps only their first character (asked for prefix p
// and delimiter abc over the key pabcdir1abca.txt, it answers the prefix
// pa), which GCS does not; the driver hands the delimiter to the store
// as it is.
func TestConformance(t *testing.T) {
	drivertest.RunConformanceTests(t, func(ctx context.Context, t *testing.T) (drivertest.Harness, error) {
		return &harness{s: gcsserver.Start(t, "bkt")}, nil
	}, nil)
}
