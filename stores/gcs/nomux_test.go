package gcs_test

import (
	"testing"

	"gocloud.dev/blob"
)

// The driver registers nothing on gocloud's blob.DefaultURLMux, whose gs
// scheme is gocloud.dev's gcsblob's: this test binary links no gcsblob,
// so the mux knows no gs.
func TestRegistersNothing(t *testing.T) {
	if blob.DefaultURLMux().ValidBucketScheme("gs") {
		t.Error(`a package registered "gs" on gocloud's blob.DefaultURLMux`)
	}
}
