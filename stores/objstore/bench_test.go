package objstore_test

import (
	"context"
	"testing"

	"github.com/trevni-go/trevni/stores/objstore"
	"github.com/trevni-go/trevni/stores/storetest/gcsserver"
)

// BenchmarkReadAt reads a 16 MiB object from the GCS server in ReadAts of
// 1 MiB: the read path's cost (the server's included), for comparisons of
// instruction counts.
func BenchmarkReadAt(b *testing.B) {
	s := gcsserver.Start(b, "bkt")
	s.Put(b, "bkt", "obj", data(16<<20))
	o, err := objstore.Open(context.Background(), "gs://bkt/obj", nil)
	if err != nil {
		b.Fatal(err)
	}
	defer o.Close()
	p := make([]byte, 1<<20)
	b.SetBytes(o.Size())
	b.ResetTimer()
	for range b.N {
		for off := int64(0); off < o.Size(); off += int64(len(p)) {
			if _, err := o.ReadAt(p, off); err != nil {
				b.Fatal(err)
			}
		}
	}
}
