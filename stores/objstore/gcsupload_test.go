package objstore_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/trevni-go/trevni/stores/objstore"
	"github.com/trevni-go/trevni/stores/storetest/gcsserver"
)

// TestGCSUploadRetried: an object written to gs:// in chunks of 8 MiB
// whose upload meets a lost answer, a 503 to the status query that
// follows, a 429 and a connection dropped in the middle of the last chunk
// is committed whole, byte for byte, with the driver's default retries.
func TestGCSUploadRetried(t *testing.T) {
	s := gcsserver.Start(t, "bkt")
	ctx := context.Background()
	w, err := objstore.Create(ctx, "gs://bkt/big.trv", false, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	// The start, chunks 1 and 2 (its answer lost, then its status query
	// refused), chunk 3 (refused, 429), the last chunk (its connection
	// dropped mid-body).
	s.InjectWrites(0, 0, gcsserver.LoseAnswer, gcsserver.Unavailable, 0, gcsserver.TooMany, 0, gcsserver.DropRequest)
	body := data(3<<23 + 12345)
	for off := 0; off < len(body); off += 1 << 20 {
		if _, err := w.Write(body[off:min(off+1<<20, len(body))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if n := s.PendingWrites(); n != 0 {
		t.Errorf("%d faults did not happen", n)
	}
	if got, ok := s.Get(t, "bkt", "big.trv"); !ok || !bytes.Equal(got, body) {
		t.Fatalf("the object holds %d bytes (exists %v), not the %d written", len(got), ok, len(body))
	}
}
