package objstore_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/trevni-go/trevni"
	_ "github.com/trevni-go/trevni/stores/azblob" // azblob://
	_ "github.com/trevni-go/trevni/stores/gs"     // gs://
	_ "github.com/trevni-go/trevni/stores/s3"     // s3://
)

// The front door's reads and writes of objects, through the drivers this
// module registers: the tests of the root package that need a store's
// server (frontdoor_*_test.go), here so that the core module's build
// list holds no test server.

// fastRetries retries at once, for the tests of injected faults.
var fastRetries = &trevni.OpenOptions{StoreBackoff: 1}

// fetchFile writes Java's medium vector (vec.Large, 8 fields) as a Trevni
// file of small blocks with statistics, and returns its name and bytes,
// as the root package's tests of remote reads do.
func fetchFile(t *testing.T) (string, []byte) {
	t.Helper()
	b, err := fetchBytes()
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "large.trv")
	if err := os.WriteFile(name, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return name, b
}

// fetchBytes converts the medium vector for fetchFile, once.
var fetchBytes = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "trevni-fetch-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	name := filepath.Join(dir, "large.trv")
	opts := &trevni.WriteOptions{Codec: trevni.Snappy, BlockSize: 4 << 10}
	if _, err := trevni.ConvertAvro(context.Background(), name, "../../testdata/interop/medium/input.avro", opts); err != nil {
		return nil, err
	}
	return os.ReadFile(name)
})

// sameRecords reports whether got and want hold equal records in the same
// order.
func sameRecords(got, want []any) bool { return reflect.DeepEqual(got, want) }

// readAll reads the records of ds with opts.
func readAll(t *testing.T, ds *trevni.Dataset, opts *trevni.ReadOptions) []any {
	t.Helper()
	var out []any
	for rec, err := range ds.All(context.Background(), opts) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rec)
	}
	return out
}

// readAllFetched reads the records of ds with opts and returns them with
// what the reader's report says was fetched.
func readAllFetched(t *testing.T, ds *trevni.Dataset, opts *trevni.ReadOptions) ([]any, trevni.Fetched) {
	t.Helper()
	r, err := ds.NewReader(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []any
	for rec, err := range r.All() {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rec)
	}
	var f trevni.Fetched
	for _, p := range r.Report() {
		f.Requests += p.Fetched.Requests
		f.Bytes += p.Fetched.Bytes
	}
	return out, f
}
