package trevniio

import (
	"encoding/binary"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/rtrackers/offsetrange"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/shred"
)

// writeBig writes n generated records to dir/big.trv with the writer's
// default block size and the codec given, and returns the records and
// the file's size.
func writeBig(t testing.TB, dir string, n int64, codec string) ([][]byte, string, int64) {
	t.Helper()
	recs := genRecords(t, 0, n, 1)
	path := filepath.Join(dir, "big.trv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	aw, err := shred.NewAvroWriter(f, testSchema, &shred.Options{WriterOptions: format.WriterOptions{Codec: codec}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := aw.WriteBinary(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := aw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return recs, path, st.Size()
}

// TestReadDefaultFetchesOnce: a file read by URL with the default
// options, as the runner splits it, fetches at most 10% more bytes than
// the file holds.
func TestReadDefaultFetchesOnce(t *testing.T) {
	dir := t.TempDir()
	recs, _, size := writeBig(t, dir, 400000, "null")
	s := serveDir(t, dir, 0)
	p, sc := beam.NewPipelineWithRoot()
	passert.Count(sc, Read(sc, s.URL+"/big.trv", nil), "records", len(recs))
	ptest.RunAndValidate(t, p)
	t.Logf("a file of %d bytes: %d requests, %d bytes fetched (%.3fx)", size, s.Requests.Load(), s.Sent.Load(), float64(s.Sent.Load())/float64(size))
	if s.Sent.Load() > size+size/10 {
		t.Errorf("%d bytes fetched for a file of %d", s.Sent.Load(), size)
	}
}

// narrowSchema has two columns: a file of it is many restrictions' worth
// of bytes for few columns' fixed cost.
const narrowSchema = `{"type":"record","name":"N","fields":[{"name":"id","type":"long"},{"name":"name","type":"string"}]}`

// writeNarrow writes n records of narrowSchema (ids from 0, names of
// random letters) to dir/narrow.trv, uncompressed, and returns its path
// and size.
func writeNarrow(t testing.TB, dir string, n int) (string, int64) {
	t.Helper()
	path := filepath.Join(dir, "narrow.trv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	aw, err := shred.NewAvroWriter(f, narrowSchema, &shred.Options{WriterOptions: format.WriterOptions{Codec: "null"}})
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 3))
	var rec []byte
	for i := range n {
		rec = binary.AppendVarint(rec[:0], int64(i))
		name := make([]byte, 8+r.IntN(24))
		for k := range name {
			name[k] = byte('a' + r.IntN(26))
		}
		rec = binary.AppendVarint(rec, int64(len(name)))
		rec = append(rec, name...)
		if err := aw.WriteBinary(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := aw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, st.Size()
}

// TestReadInitialSplitsByBytes: with the default options a large file
// starts as several restrictions (a runner that never splits a running
// one still spreads the file over its workers), cut at block starts of
// its largest column, covering every row once; read by URL on prism they
// give every record once and fetch at most 10% more than the file.
func TestReadInitialSplitsByBytes(t *testing.T) {
	dir := t.TempDir()
	const rows = 600000
	path, size := writeNarrow(t, dir, rows)
	fn := &readFn{}
	rests := fn.SplitRestriction(path, fn.CreateInitialRestriction(path))
	lay := layoutAt(path)
	t.Logf("a file of %d bytes, %d rows: %d restrictions of about %d bytes (fixed cost %d)", size, rows, len(rests), lay.splitBytes(0), lay.fixed)
	// About 4 MiB a restriction: 3 here, where there was one (a file of
	// under 1,048,576 rows was one restriction).
	if want := size / (2 * lay.splitBytes(0)); len(rests) < 3 || int64(len(rests)) < want {
		t.Errorf("%d restrictions for a file of %d bytes in 2 columns: %v", len(rests), size, rests)
	}
	var next int64
	for i, r := range rests {
		if r.Start != next || r.End <= r.Start {
			t.Fatalf("restriction %d is %v after row %d", i, r, next)
		}
		if i > 0 && lay.alignUp(r.Start) != r.Start {
			t.Errorf("restriction %v does not start at a block of the largest column", r)
		}
		next = r.End
	}
	if next != rows {
		t.Fatalf("the restrictions end at row %d of %d", next, rows)
	}

	s := serveDir(t, dir, 0)
	p, sc := beam.NewPipelineWithRoot()
	got := Read(sc, s.URL+"/narrow.trv", nil)
	passert.Count(sc, got, "records", rows)
	ptest.RunAndValidate(t, p)
	t.Logf("read by URL: %d requests, %d bytes fetched (%.3fx the file)", s.Requests.Load(), s.Sent.Load(), float64(s.Sent.Load())/float64(size))
	if s.Sent.Load() > size+size/10 {
		t.Errorf("%d bytes fetched for a file of %d", s.Sent.Load(), size)
	}
}

// TestTrackerSplitsPastFetched: the tracker of a remote file's restriction
// splits only where the reader has fetched nothing yet (past what its
// FetchedEnd says of each column, and past the block being read and the
// next), at a block start of the largest column, leaving a residual of at
// least the bytes asked; where no such point is left it refuses. Read
// through the URL while splitting at random points, every record comes
// once, and the bytes fetched stay within 10% of the file.
func TestTrackerSplitsPastFetched(t *testing.T) {
	dir := t.TempDir()
	const rows = 600000
	path, size := writeNarrow(t, dir, rows)
	lay := layoutAt(path)
	if lay == nil {
		t.Fatal("no layout")
	}
	least := lay.splitBytes(0)
	// What a reader reports it fetched: nothing ahead, or some share of
	// every column past its first block.
	fetchedShare := func(share float64) func(off, end int64) int64 {
		return func(off, end int64) int64 { return off + int64(share*float64(end-off)) }
	}
	for _, c := range []struct {
		claimed  int64
		fraction float64
		fetched  float64
	}{{-1, 0, 0}, {0, 0, 0}, {1000, 0.01, 0}, {1000, 0.01, 0.3}, {100000, 0.5, 0}, {100000, 0, 0.6}, {300000, 0, 0.55}, {rows - 1000, 0.5, 0}, {10, 0, 0.999}} {
		fetched := fetchedShare(c.fetched)
		tr := newRowTracker(offsetrange.Restriction{Start: 0, End: rows})
		tr.place(lay, fetched, least)
		if c.claimed >= 0 && !tr.TryClaim(c.claimed) {
			t.Fatalf("claim %d refused", c.claimed)
		}
		_, res, err := tr.TrySplit(c.fraction)
		if err != nil {
			t.Fatal(err)
		}
		from := lay.fetchedBefore(c.claimed+1, fetched)
		if c.fetched > 0 {
			// Past what was fetched of every column.
			for i := range lay.cols {
				col := &lay.cols[i]
				if k := col.block(from); k < len(col.offset) && from < rows && col.offset[k] < fetched(col.offset[0], col.end) {
					t.Fatalf("claimed %d: row %d lies in column %d's block at %d, fetched up to %d", c.claimed, from, i, col.offset[k], fetched(col.offset[0], col.end))
				}
			}
		}
		if res == nil {
			// Refused: no block start past what was fetched leaves
			// enough bytes.
			if at := lay.alignUp(from); at < rows && lay.bytes(at, rows) >= least {
				t.Errorf("claimed %d: split refused though rows %d on hold %d bytes", c.claimed, at, lay.bytes(at, rows))
			}
			continue
		}
		r := res.(offsetrange.Restriction)
		t.Logf("claimed %d, fraction %v: residual %v (%d bytes; fetched up to row %d)", c.claimed, c.fraction, r, lay.bytes(r.Start, r.End), from)
		switch {
		case r.Start < from:
			t.Errorf("claimed %d: residual %v starts before row %d, where the reader may have fetched", c.claimed, r, from)
		case lay.alignUp(r.Start) != r.Start:
			t.Errorf("residual %v starts inside a block of the largest column", r)
		case lay.bytes(r.Start, r.End) < least:
			t.Errorf("residual %v holds %d bytes, less than %d", r, lay.bytes(r.Start, r.End), least)
		case tr.GetRestriction().(offsetrange.Restriction).End != r.Start:
			t.Errorf("primary %v, residual %v", tr.GetRestriction(), r)
		}
	}
	// A local file's restriction splits anywhere, as before.
	// Before the file is opened, none.
	tr := newRowTracker(offsetrange.Restriction{Start: 0, End: rows})
	if _, res, _ := tr.TrySplit(0.5); res != nil {
		t.Errorf("split %v before the file was opened", res)
	}
	tr.place(nil, nil, 0)
	tr.TryClaim(int64(10))
	if _, res, _ := tr.TrySplit(0); res == nil || res.(offsetrange.Restriction).Start != 11 {
		t.Errorf("a local file's split: %v", res)
	}

	s := serveDir(t, dir, 0)
	want := make([][]byte, 0, rows)
	for _, b := range readAll(t, path) {
		want = append(want, b)
	}
	splitWhileReading(t, &readFn{}, s.URL+"/narrow.trv", want, 2, 200000, 5)
	perTrial := s.Sent.Load() / 2
	t.Logf("read by URL, split at random points: %d bytes fetched a trial (%.3fx the file)", perTrial, float64(perTrial)/float64(size))
	if perTrial > size+size/10 {
		t.Errorf("%d bytes fetched a trial for a file of %d", perTrial, size)
	}
}
