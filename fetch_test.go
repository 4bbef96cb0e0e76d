package trevni

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"sync"
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/internal/testing/rangeserver"
	"github.com/trevni-go/trevni/shred"
)

// fetchFile writes Java's medium vector (vec.Large, 8 fields) as a Trevni
// file of small blocks with statistics, and returns its name and bytes.
// The file is converted once for all the tests that read it (fetchBytes)
// and written to each test's own directory.
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
	opts := &WriteOptions{Codec: Snappy, BlockSize: 4 << 10}
	if _, err := ConvertAvro(context.Background(), name, "testdata/interop/medium/input.avro", opts); err != nil {
		return nil, err
	}
	return os.ReadFile(name)
})

// sameRecords reports whether got and want hold equal records in the same
// order, as reflect.DeepEqual(got, want) does, but faster: DeepEqual
// remembers every map and slice it visits (to stop at cycles, which
// records have not), and on a whole read of the medium vector that was
// the slowest part of these tests.
func sameRecords(got, want []any) bool {
	return sameValue(got, want)
}

// sameValue is reflect.DeepEqual(a, b) for the values records are made
// of, without DeepEqual's bookkeeping for the maps, slices and scalars;
// any other type is left to DeepEqual. (Unlike DeepEqual it does not take
// a map or slice as equal to itself without looking: a NaN in it is
// unequal. The values compared here are never the same map or slice.)
func sameValue(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case string, bool, int32, int64, int, float32, float64:
		return a == b
	case []byte:
		b, ok := b.([]byte)
		return ok && (a == nil) == (b == nil) && bytes.Equal(a, b)
	case []any:
		b, ok := b.([]any)
		if !ok || (a == nil) != (b == nil) || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !sameValue(a[i], b[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || (a == nil) != (b == nil) || len(a) != len(b) {
			return false
		}
		for k, v := range a {
			w, ok := b[k]
			if !ok || !sameValue(v, w) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// readAll reads the records of ds with opts.
func readAll(t *testing.T, ds *Dataset, opts *ReadOptions) []any {
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

// localAndServed opens fetchFile's file as a local data set and as the
// same bytes served over HTTP (srv counts what it sends), and returns
// the two, the server and the bytes.
func localAndServed(t *testing.T) (local, remote *Dataset, srv *rangeserver.Server, b []byte) {
	t.Helper()
	name, b := fetchFile(t)
	srv = rangeserver.Bytes(t, b, nil)
	ctx := context.Background()
	local, err := Open(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	remote, err = Open(ctx, srv.URL+"/large.trv", nil)
	if err != nil {
		t.Fatal(err)
	}
	return local, remote, srv, b
}

// Over HTTP a read fetches what it needs: the header, the block tables of
// the columns it reads, and the blocks holding the rows it returns (those
// the statistics leave, with a filter); never the file. The records are
// those of the same read of the local file.
func TestFetchOnlyWhatIsRead(t *testing.T) {
	local, remote, srv, b := localAndServed(t)
	size := int64(len(b))
	if sent := srv.Sent.Load(); sent > size/20 {
		t.Errorf("Open fetched %d of %d bytes: more than the header", sent, size)
	}
	for _, c := range []struct {
		name string
		opts ReadOptions
		most int64 // the most bytes it may fetch, as a share of the file: size/most
	}{
		{"first rows of one field", ReadOptions{Fields: []string{"name"}, Limit: 3}, 20},
		{"an offset and a limit", ReadOptions{Fields: []string{"id"}, Offset: 5000, Limit: 10}, 20},
		{"one column whole", ReadOptions{Fields: []string{"id"}}, 4},
		{"a filter: its column and the fields' only", ReadOptions{Fields: []string{"small"}, Where: "id < -9200000000000000000"}, 3},
		{"a filter and a limit", ReadOptions{Fields: []string{"name"}, Where: "small > 100", Limit: 3}, 4},
		{"a row range", ReadOptions{Fields: []string{"score"}, Offset: 100, Rows: 200}, 20},
	} {
		if c.name != "first rows of one field" {
			// The first read reports the data set's open too.
			srv.Reset()
		}
		got, fetched := readAllFetched(t, remote, &c.opts)
		quiet(&srv.Sent)
		sent := srv.Sent.Load()
		// The report counts what the reader's fetches got: what the
		// server sent, read ahead included (bounded by the rows read).
		if fetched.Bytes != sent || fetched.Requests != srv.Requests.Load() {
			t.Errorf("%s: the report says %+v fetched, the server sent %d bytes in %d requests", c.name, fetched, sent, srv.Requests.Load())
		}
		if fetched.Requests == 0 || fetched.Bytes == 0 || fetched.Bytes > size/c.most {
			t.Errorf("%s: the report says %+v fetched (at most 1/%d of %d)", c.name, fetched, c.most, size)
		}
		want := readAll(t, local, &c.opts)
		if !sameRecords(got, want) {
			t.Errorf("%s: %d records over HTTP, %d from the file", c.name, len(got), len(want))
		}
		if sent > size/c.most {
			t.Errorf("%s: fetched %d bytes of %d (at most 1/%d)", c.name, sent, size, c.most)
		}
		t.Logf("%s: %d records, %d bytes sent in %d requests, %d bytes in %d requests by the report (file %d)", c.name, len(got), sent, srv.Requests.Load(), fetched.Bytes, fetched.Requests, size)
	}
}

// readAllFetched reads the records of ds with opts and returns them with
// what the reader's report says was fetched.
func readAllFetched(t *testing.T, ds *Dataset, opts *ReadOptions) ([]any, Fetched) {
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
	var f Fetched
	for _, p := range r.Report() {
		f.Requests += p.Fetched.Requests
		f.Bytes += p.Fetched.Bytes
	}
	return out, f
}

// CandidateRows with a reader schema judges the filter as a reader does:
// a renamed field by the file column's statistics (the same runs as the
// file's own name gives), a field the reader schema adds by none (every
// row may match), a promoted one by none; and Count of a filter on the
// reader schema's fields counts what reading returns.
func TestCandidateRowsReaderSchema(t *testing.T) {
	name := filepath.Join(t.TempDir(), "seq.trv")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	ws := `{"type":"record","name":"R","fields":[{"name":"id","type":"long"},{"name":"n","type":"int"}]}`
	aw, err := shred.NewAvroWriter(f, ws, &shred.Options{WriterOptions: format.WriterOptions{BlockSize: 256}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5000 {
		if err := aw.Write(map[string]any{"id": int64(i), "n": int32(i % 7)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := aw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	ctx := context.Background()
	plain, err := Open(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	rs := `{"type":"record","name":"R","fields":[
	 {"name":"key","aliases":["id"],"type":"long"},
	 {"name":"n","type":"double"},
	 {"name":"channel","type":"string","default":"web"}]}`
	evolved, err := Open(ctx, name, &OpenOptions{ReaderSchema: rs})
	if err != nil {
		t.Fatal(err)
	}
	defer evolved.Close()
	whole := []frontdoor.RowRange{{First: 0, Rows: plain.RowCount()}}
	for _, c := range []struct {
		reader, file string // the reader's filter, and the file's of the same runs ("" for the whole part)
		count        int64
	}{
		{"key >= 4000", "id >= 4000", 1000},
		{"key < 100 OR key = 2500 AND channel = 'web'", "id < 100 OR id = 2500", 101},
		{"channel = 'nowhere'", "", 0},
		{"n > 5.5", "", 714},
	} {
		got, err := evolved.Parts()[0].candidateRows(ctx, c.reader)
		if err != nil {
			t.Fatalf("%s: %v", c.reader, err)
		}
		want := whole
		if c.file != "" {
			if want, err = plain.Parts()[0].candidateRows(ctx, c.file); err != nil {
				t.Fatal(err)
			}
			if reflect.DeepEqual(want, whole) {
				t.Fatalf("%s: the statistics skip nothing: a test that cannot fail", c.file)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: candidate rows %v, want %v", c.reader, got, want)
		}
		n, err := evolved.Count(ctx, &ReadOptions{Where: c.reader})
		if err != nil || n != c.count {
			t.Fatalf("%s: Count %d %v, want %d", c.reader, n, err, c.count)
		}
		if recs := readAll(t, evolved, &ReadOptions{Where: c.reader}); int64(len(recs)) != n {
			t.Errorf("%s: Count %d, read %d", c.reader, n, len(recs))
		}
	}
}
