package trevniio

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/rtrackers/offsetrange"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/passert"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"
	"github.com/linkedin/goavro/v2"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/testing/rangeserver"
	"github.com/trevni-go/trevni/shred"
)

// testFilter keeps a run of ids, a scattered city and the first ids: its
// matches lie in some blocks and not others.
const testFilter = "(id >= 1200 AND id < 1900) OR where.city = 'city-7' OR id < 40"

// matching returns the records of recs that satisfy testFilter, as goavro
// decodes them and Go judges them.
func matching(t testing.TB, recs [][]byte) [][]byte {
	t.Helper()
	codec, err := goavro.NewCodec(testSchema)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, b := range recs {
		v, _, err := codec.NativeFromBinary(b)
		if err != nil {
			t.Fatal(err)
		}
		m := v.(map[string]any)
		id := m["id"].(int64)
		city := ""
		if w, ok := m["where"].(map[string]any); ok && w != nil {
			city = w["Place"].(map[string]any)["city"].(string)
		}
		if id >= 1200 && id < 1900 || city == "city-7" || id < 40 {
			out = append(out, b)
		}
	}
	return out
}

// TestReadFilter reads a set of files with a filter, split into many
// restrictions: exactly the matching records, each once.
func TestReadFilter(t *testing.T) {
	dir := t.TempDir()
	all := makeSet(t, dir, 1000, 2501, 7, 0, 333)
	want := matching(t, all)
	if len(want) == 0 || len(want) > len(all)/2 {
		t.Fatalf("%d of %d records match", len(want), len(all))
	}
	p, s := beam.NewPipelineWithRoot()
	got := Read(s, filepath.Join(dir, "part-*.trv"), &ReadOptions{Filter: testFilter, SplitRows: 97})
	passert.EqualsList(s, beam.ParDo(s, hexOf, got), hexAll(want))
	passert.Count(s, got, "records", len(want))
	ptest.RunAndValidate(t, p)
}

// TestReadFilterDynamicSplit processes a file's restrictions with a
// filter while splitting them at random points, as a runner does: the
// pieces together give the matching rows once each, in order, and every
// tracker ends done.
func TestReadFilterDynamicSplit(t *testing.T) {
	dir := t.TempDir()
	all := makeSet(t, dir, 3000)
	want := matching(t, all)
	path := filepath.Join(dir, "part-00000.trv")
	fn := &readFn{SplitRows: DefaultSplitRows, Filter: testFilter}
	splitWhileReading(t, fn, path, want, 30, 60, 8)
	// A restriction with no match in it ends done, emitting nothing.
	rest := offsetrange.Restriction{Start: 2000, End: 2100}
	rt := fn.CreateTracker(rest)
	n := 0
	sub := matching(t, all[2000:2100])
	if err := fn.ProcessElement(context.Background(), rt, path, func([]byte) { n++ }); err != nil || !rt.IsDone() || n != len(sub) {
		t.Fatalf("rows 2000-2100: %v, done %v, %d records, want %d", err, rt.IsDone(), n, len(sub))
	}
}

// TestReadFilterBad: an expression that does not parse is refused when
// the pipeline is built; one naming a field the files lack fails the run
// naming the file.
func TestReadFilterBad(t *testing.T) {
	dir := t.TempDir()
	makeSet(t, dir, 10)
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "trevniio: Filter") {
				t.Errorf("a bad expression: %v", r)
			}
		}()
		_, s := beam.NewPipelineWithRoot()
		Read(s, dir, &ReadOptions{Filter: "id >"})
	}()
	p, s := beam.NewPipelineWithRoot()
	Read(s, dir, &ReadOptions{Filter: "nope = 1"})
	err := ptest.Run(p)
	if err == nil || !strings.Contains(err.Error(), "part-00000.trv") || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("an unknown field: %v", err)
	}
}

// serveDir serves the files of dir over loopback (internal/testing/rangeserver);
// once failAfter range requests were answered (when > 0), answers stop
// half-way.
func serveDir(t testing.TB, dir string, failAfter int64) *rangeserver.Server {
	return rangeserver.Dir(t, dir, &rangeserver.Options{FailAfter: failAfter})
}

// TestReadURLs reads parts served over HTTP (a local server on the
// loopback address), split into many restrictions, each of which opens
// its file at the URL: every record once, with and without a filter.
func TestReadURLs(t *testing.T) {
	dir := t.TempDir()
	all := makeSet(t, dir, 1000, 2501, 7, 333)
	s := serveDir(t, dir, 0)
	var urls []string
	for i := range 4 {
		urls = append(urls, fmt.Sprintf("%s/part-%05d.trv", s.URL, i))
	}
	p, sc := beam.NewPipelineWithRoot()
	got := ReadAll(sc, beam.CreateList(sc, urls), &ReadOptions{SplitRows: 97})
	passert.EqualsList(sc, beam.ParDo(sc, hexOf, got), hexAll(all))
	passert.Count(sc, got, "records", len(all))
	filtered := ReadAll(sc.Scope("filtered"), beam.CreateList(sc, urls), &ReadOptions{Filter: testFilter, SplitRows: 300})
	passert.EqualsList(sc.Scope("filtered"), beam.ParDo(sc, hexOf, filtered), hexAll(matching(t, all)))
	ptest.RunAndValidate(t, p)
	var size int64
	for i := range 4 {
		st, _ := os.Stat(filepath.Join(dir, fmt.Sprintf("part-%05d.trv", i)))
		size += st.Size()
	}
	t.Logf("4 parts of %d bytes in all, read twice: %d requests, %d bytes sent", size, s.Requests.Load(), s.Sent.Load())

	// One URL by Read.
	p, sc = beam.NewPipelineWithRoot()
	passert.EqualsList(sc, beam.ParDo(sc, hexOf, Read(sc, urls[1], &ReadOptions{SplitRows: 500})), hexAll(all[1000:3501]))
	ptest.RunAndValidate(t, p)
}

// TestReadURLFailsMidRead: a server that cuts its answers short once the
// headers are read fails the pipeline with an error naming the URL.
func TestReadURLFailsMidRead(t *testing.T) {
	dir := t.TempDir()
	makeSet(t, dir, 3000)
	s := serveDir(t, dir, 2)
	u := s.URL + "/part-00000.trv"
	p, sc := beam.NewPipelineWithRoot()
	Read(sc, u, &ReadOptions{SplitRows: 1000})
	err := ptest.Run(p)
	if err == nil || !strings.Contains(err.Error(), u) || !strings.Contains(err.Error(), "remote read failed") {
		t.Fatalf("a server failing mid-read: %v", err)
	}
}

// TestReadURLBytes: over HTTP, a restriction fetches the blocks of its
// rows (the runs the filter's statistics leave) and little else: split
// into 8 restrictions, a file costs at most its size plus, for each
// restriction, its header and block tables, and for each cut between two
// restrictions a block a column (the block the cut falls in, which both
// neighbours read); a filter that keeps the first rows fetches a small
// part of the file.
func TestReadURLBytes(t *testing.T) {
	dir := t.TempDir()
	recs := genRecords(t, 0, 200000, 1)
	path := filepath.Join(dir, "big.trv")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	aw, err := shred.NewAvroWriter(f, testSchema, &shred.Options{WriterOptions: format.WriterOptions{Codec: "null"}})
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
	f.Close()
	st, _ := os.Stat(path)
	rc, err := format.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	cols := rc.NumColumns()
	rc.Close()
	s := serveDir(t, dir, 0)
	u := s.URL + "/big.trv"

	p, sc := beam.NewPipelineWithRoot()
	passert.Count(sc, Read(sc, u, &ReadOptions{SplitRows: 25000}), "records", len(recs))
	ptest.RunAndValidate(t, p)
	// Each restriction fetches its header and the block tables (a window
	// of 16 KiB each) twice: for the layout its splits follow (rowTracker),
	// and for its reader; each of the 7 cuts between restrictions has its
	// block in each column fetched by both neighbours. Nothing else is
	// fetched twice.
	bound := st.Size() + 8*int64(2*cols+1)*16<<10 + 7*int64(cols)*(64<<10+4)
	t.Logf("8 restrictions of a file of %d bytes, %d columns: %d requests, %d bytes (bound %d)", st.Size(), cols, s.Requests.Load(), s.Sent.Load(), bound)
	if s.Sent.Load() > bound {
		t.Errorf("%d bytes fetched, more than %d", s.Sent.Load(), bound)
	}

	s.Reset()
	p, sc = beam.NewPipelineWithRoot()
	passert.EqualsList(sc, beam.ParDo(sc, hexOf, Read(sc, u, &ReadOptions{Filter: "id < 1000"})), hexAll(recs[:1000]))
	ptest.RunAndValidate(t, p)
	t.Logf("id < 1000: %d requests, %d bytes", s.Requests.Load(), s.Sent.Load())
	// The blocks of the filter's column that may match cover some
	// thousands of rows, and the other columns' blocks holding those are
	// fetched with them: a sixth of the file, where reading whole columns
	// fetched all of it.
	if s.Sent.Load() > st.Size()/4 {
		t.Errorf("a filter keeping 1000 of %d rows fetched %d of %d bytes", len(recs), s.Sent.Load(), st.Size())
	}
}

// TestReadFilterSplitsCandidates: with a filter, a file's initial
// restrictions cover only the runs of rows its block statistics leave:
// fewer rows than the file, every matching row among them.
func TestReadFilterSplitsCandidates(t *testing.T) {
	dir := t.TempDir()
	all := makeSet(t, dir, 3000)
	path := filepath.Join(dir, "part-00000.trv")
	fn := &readFn{SplitRows: 100, Filter: "id >= 1200 AND id < 1900"}
	rests := fn.SplitRestriction(path, fn.CreateInitialRestriction(path))
	var rows int64
	in := map[int64]bool{}
	for _, r := range rests {
		rows += r.End - r.Start
		for row := r.Start; row < r.End; row++ {
			in[row] = true
		}
	}
	t.Logf("%d restrictions of %d rows in all, for 700 matches of %d rows", len(rests), rows, len(all))
	if rows >= int64(len(all))/2 || rows < 700 {
		t.Fatalf("%d rows in the restrictions", rows)
	}
	for id := int64(1200); id < 1900; id++ { // the ids are the row numbers
		if !in[id] {
			t.Fatalf("row %d, which matches, is in no restriction", id)
		}
	}
	// A filter the file cannot take: the whole file, for ProcessElement
	// to report.
	bad := &readFn{SplitRows: 1000, Filter: "nope = 1"}
	if rests := bad.SplitRestriction(path, bad.CreateInitialRestriction(path)); len(rests) != 3 {
		t.Fatalf("a filter on a missing field: %v", rests)
	}
}
