package trevniio

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/rtrackers/offsetrange"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/clmn"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/trevni1"
	"github.com/trevni-go/trevni/trevni1/convert"
)

// writeNarrowV1 writes the records of writeNarrow as a Trevni 1 file,
// dir/narrow.trv1, uncompressed, and returns its path and size.
func writeNarrowV1(t testing.TB, dir string, n int) (string, int64) {
	t.Helper()
	v2, _ := writeNarrow(t, t.TempDir(), n)
	b, err := os.ReadFile(v2)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := format.NewReader(bytes.NewReader(b), int64(len(b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := convert.FromV2(context.Background(), &out, rd, &trevni1.WriterOptions{}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "narrow.trv1")
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, int64(out.Len())
}

// writeNarrowCLMN writes n rows of an INT64 id and a STRING name of
// random letters as a CLMN file, dir/narrow.clmn, and returns its path and
// size.
func writeNarrowCLMN(t testing.TB, dir string, n int) (string, int64) {
	t.Helper()
	var out bytes.Buffer
	w, err := clmn.NewWriter(&out, []clmn.Column{{Name: "id", Type: clmn.Int64}, {Name: "name", Type: clmn.String}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(4, 4))
	name := make([]byte, 32)
	for i := range n {
		w.WriteInt64(0, int64(i))
		k := 8 + r.IntN(24)
		for j := range k {
			name[j] = byte('a' + r.IntN(26))
		}
		w.WriteString(1, name[:k])
		if err := w.EndRow(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "narrow.clmn")
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, int64(out.Len())
}

// frontDoorRecords reads every record of the file at path through the
// front door, sequentially, as Avro binary.
func frontDoorRecords(t testing.TB, path string) [][]byte {
	t.Helper()
	ctx := context.Background()
	ds, err := trevni.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	r, err := ds.NewReader(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out [][]byte
	for {
		b, err := r.ReadBinary(nil)
		if err != nil {
			break
		}
		out = append(out, b)
	}
	if int64(len(out)) != ds.RowCount() {
		t.Fatalf("%s: read %d of %d rows", path, len(out), ds.RowCount())
	}
	return out
}

// checkCover checks that rests cover the rows [0, rows) once, in order.
func checkCover(t *testing.T, rests []offsetrange.Restriction, rows int64) {
	t.Helper()
	var next int64
	for i, r := range rests {
		if r.Start != next || r.End <= r.Start {
			t.Fatalf("restriction %d is %v after row %d", i, r, next)
		}
		next = r.End
	}
	if next != rows {
		t.Fatalf("the restrictions end at row %d of %d", next, rows)
	}
}

// TestReadTrevni1SplitsByBytes: a Trevni 1 file is cut by bytes at the
// block starts of its largest column, as a Trevni 2 file is (it was cut
// every 1,048,576 rows: a file of 600,000 rows was one restriction), and
// read by URL on the direct runner, and while a runner splits its
// restrictions at random points, gives every record once and fetches at
// most 10% more than the file.
func TestReadTrevni1SplitsByBytes(t *testing.T) {
	dir := t.TempDir()
	const rows = 600000
	path, size := writeNarrowV1(t, dir, rows)
	fn := &readFn{}
	rests := fn.SplitRestriction(path, fn.CreateInitialRestriction(path))
	lay := layoutAt(path)
	if lay == nil {
		t.Fatal("no layout of a Trevni 1 file")
	}
	t.Logf("a Trevni 1 file of %d bytes, %d rows: %d restrictions of about %d bytes (fixed cost %d)", size, rows, len(rests), lay.splitBytes(0), lay.fixed)
	if want := size / (2 * lay.splitBytes(0)); len(rests) < 3 || int64(len(rests)) < want {
		t.Errorf("%d restrictions for a Trevni 1 file of %d bytes in 2 columns: %v", len(rests), size, rests)
	}
	checkCover(t, rests, rows)
	for _, r := range rests[1:] {
		if lay.alignUp(r.Start) != r.Start {
			t.Errorf("restriction %v does not start at a block of the largest column", r)
		}
	}
	if lay.total > size || lay.total < size*9/10 {
		t.Errorf("the layout's blocks hold %d bytes of a file of %d", lay.total, size)
	}

	want := frontDoorRecords(t, path)
	s := serveDir(t, dir, 0)
	url := s.URL + "/narrow.trv1"
	p, sc := beam.NewPipelineWithRoot()
	got := Read(sc, url, nil)
	passert.EqualsList(sc, beam.ParDo(sc, hexOf, got), hexAll(want))
	ptest.RunAndValidate(t, p)
	t.Logf("read by URL: %d requests, %d bytes fetched (%.3fx the file)", s.Requests.Load(), s.Sent.Load(), float64(s.Sent.Load())/float64(size))
	if s.Sent.Load() > size+size/10 {
		t.Errorf("%d bytes fetched for a file of %d", s.Sent.Load(), size)
	}

	s.Reset()
	splitWhileReading(t, &readFn{}, url, want, 2, 200000, 9)
	perTrial := s.Sent.Load() / 2
	t.Logf("read by URL, split at random points: %d bytes fetched a trial (%.3fx the file)", perTrial, float64(perTrial)/float64(size))
	if perTrial > size+size/10 {
		t.Errorf("%d bytes fetched a trial for a file of %d", perTrial, size)
	}
}

// TestReadCLMNSplitsByBytes: a local CLMN file is cut by bytes into a few
// restrictions (at most maxStreamSplits: each decompresses its columns
// from their start), and read on the direct runner gives every record
// once; read by URL it is one restriction, which refuses a runner's
// splits, and fetches the file once.
func TestReadCLMNSplitsByBytes(t *testing.T) {
	dir := t.TempDir()
	const rows = 600000
	path, size := writeNarrowCLMN(t, dir, rows)
	fn := &readFn{}
	rests := fn.SplitRestriction(path, fn.CreateInitialRestriction(path))
	t.Logf("a CLMN file of %d bytes, %d rows: %d restrictions %v", size, rows, len(rests), rests)
	if len(rests) < 2 || len(rests) > maxStreamSplits {
		t.Errorf("%d restrictions for a CLMN file of %d bytes, want 2 to %d", len(rests), size, maxStreamSplits)
	}
	checkCover(t, rests, rows)
	want := frontDoorRecords(t, path)
	p, sc := beam.NewPipelineWithRoot()
	got := Read(sc, path, nil)
	passert.EqualsList(sc, beam.ParDo(sc, hexOf, got), hexAll(want))
	ptest.RunAndValidate(t, p)

	s := serveDir(t, dir, 0)
	url := s.URL + "/narrow.clmn"
	if rests := fn.SplitRestriction(url, fn.CreateInitialRestriction(url)); len(rests) != 1 {
		t.Errorf("a CLMN file by URL: %d restrictions, want 1", len(rests))
	}
	s.Reset()
	splitWhileReading(t, &readFn{}, url, want, 1, 1000, 11)
	t.Logf("read by URL while a runner asks for splits: %d bytes fetched (%.3fx the file)", s.Sent.Load(), float64(s.Sent.Load())/float64(size))
	if s.Sent.Load() > size+size/10 {
		t.Errorf("%d bytes fetched for a file of %d", s.Sent.Load(), size)
	}
}
