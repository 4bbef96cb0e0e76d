package objstore_test

import (
	"slices"
	"testing"

	"gocloud.dev/blob"
	_ "gocloud.dev/blob/azureblob" // gocloud.dev's own drivers, beside ours
	_ "gocloud.dev/blob/gcsblob"
	_ "gocloud.dev/blob/s3blob"

	"github.com/trevni-go/trevni/remote/store"
)

// A program may link gocloud.dev's drivers (gcsblob, s3blob, azureblob)
// beside the library and its drivers (imported by this test binary, see
// frontdoor_helpers_test.go): no package of ours registers on gocloud's
// blob.DefaultURLMux, which holds gocloud's own, and ours are on
// remote/store's registry. (Before, the program panicked at start:
// scheme "gs" already registered for blob.Bucket.) That the drivers
// still reach their stores is what the other tests of this binary check.
func TestGocloudDriversBeside(t *testing.T) {
	for _, s := range []string{"s3", "gs", "azblob"} {
		if !blob.DefaultURLMux().ValidBucketScheme(s) {
			t.Errorf("gocloud's blob.DefaultURLMux has no %s: its own driver is not linked", s)
		}
		if !slices.Contains(store.Schemes(), s) {
			t.Errorf("remote/store has no driver of %s: %v", s, store.Schemes())
		}
	}
}
