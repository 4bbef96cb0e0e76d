package trevni

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/ordered"
	"github.com/trevni-go/trevni/internal/rowtasks"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/internal/testing/predrand"
	"github.com/trevni-go/trevni/predicate"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/schema/protoschema"
)

// outputs are the writing methods the workers serve, each returning what
// it wrote, the records, the reader's report and the error.
var outputs = []struct {
	name  string
	write func(r *Reader, w io.Writer) (int64, error)
}{
	{"json", func(r *Reader, w io.Writer) (int64, error) { return r.WriteJSON(w, nil) }},
	{"plain", func(r *Reader, w io.Writer) (int64, error) { return r.WriteJSON(w, &JSONOptions{Plain: true}) }},
	{"pretty", func(r *Reader, w io.Writer) (int64, error) { return r.WriteJSON(w, &JSONOptions{Pretty: true}) }},
	{"avro", func(r *Reader, w io.Writer) (int64, error) {
		return r.WriteAvro(w, &AvroOptions{Codec: "snappy", SyncMarker: [16]byte{1, 2, 3}})
	}},
}

// written is one run of a writing method.
type written struct {
	out     []byte
	n       int64
	err     error
	reports []PartReport
}

// writeWith runs a writing method with opts on workers workers, tasks of
// taskRows rows.
func writeWith(t *testing.T, ctx context.Context, ds *Dataset, opts ReadOptions, workers int, taskRows int64, write func(*Reader, io.Writer) (int64, error)) written {
	t.Helper()
	opts.Workers = workers
	r, err := ds.NewReader(ctx, &opts)
	if err != nil {
		return written{err: err}
	}
	defer r.Close()
	r.taskRows = taskRows
	var buf bytes.Buffer
	n, err := write(r, &buf)
	return written{out: buf.Bytes(), n: n, err: err, reports: r.Report()}
}

// same reports whether two runs wrote the same, stopped with the same
// error, and read the same records from each part.
func same(a, b written) string {
	switch {
	case !bytes.Equal(a.out, b.out):
		return fmt.Sprintf("outputs differ (%d and %d bytes)", len(a.out), len(b.out))
	case a.n != b.n:
		return fmt.Sprintf("%d and %d records", a.n, b.n)
	case (a.err == nil) != (b.err == nil) || (a.err != nil && a.err.Error() != b.err.Error()):
		return fmt.Sprintf("errors differ:\n%v\n%v", a.err, b.err)
	}
	if a.err != nil {
		// A record the reader assembled and the encoding refused is
		// counted by one reader and not by the other: no matter.
		return ""
	}
	var ma, mb int64
	for _, p := range a.reports {
		ma += p.Scan.RowsMatched
	}
	for _, p := range b.reports {
		mb += p.Scan.RowsMatched
	}
	if ma != mb {
		return fmt.Sprintf("reports count %d and %d records matched", ma, mb)
	}
	return ""
}

// randomDataset writes n records of a random schema in parts of small
// blocks and opens them as one data set.
func randomDataset(t *testing.T, seed uint64, n int) (*Dataset, *schema.Schema, []any) {
	t.Helper()
	g := avrorand.New(seed, avrorand.Options{})
	return writeParts(t, g, g.Schema(), seed, n, 50)
}

// writeParts writes n records of schema text drawn from g in 1 to 3 parts
// (by seed) of small blocks (64 bytes and steps of blockStep) and opens
// them as one data set.
func writeParts(t *testing.T, g *avrorand.Generator, text string, seed uint64, n, blockStep int) (*Dataset, *schema.Schema, []any) {
	t.Helper()
	s, err := schema.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var recs []any
	parts := 1 + int(seed%3)
	for p := range parts {
		o := &WriteOptions{BlockSize: 64 + int(seed%5)*blockStep, Codec: []Codec{NoCodec, Snappy, Deflate}[seed%3]}
		w, err := Create(context.Background(), filepath.Join(dir, fmt.Sprintf("p%d.trv", p)), text, o)
		if err != nil {
			t.Fatal(err)
		}
		for range n / parts {
			v := g.Value(s)
			if err := w.Write(v); err != nil {
				t.Fatal(err)
			}
			recs = append(recs, v)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := Open(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ds, s, recs
}

// Random schemas and records in parts of small blocks, read with random
// filters, offsets, row ranges and limits: every writing method writes on
// 2 and 7 workers, with tasks of a few rows, byte for byte what it
// writes on one, and the reports count the same records.
func TestWorkersProperty(t *testing.T) {
	ctx := context.Background()
	var filtered, limited, failed int
	for seed := range uint64(8) {
		ds, s, recs := randomDataset(t, seed, 150)
		r := rand.New(rand.NewPCG(seed, 27))
		exprs := compiledExprs(t, r, s, recs)
		rows := ds.RowCount()
		for k := range 4 {
			o := drawReadOptions(t, r, exprs, k, rows)
			if o.Where != "" {
				filtered++
			}
			if o.Limit != 0 {
				limited++
			}
			if k == 2 && s.Kind == schema.Record && len(s.Fields) > 1 {
				o.Fields = []string{s.Fields[len(s.Fields)-1].Name, s.Fields[0].Name}
			}
			for _, out := range []int{k % len(outputs), r.IntN(len(outputs))} {
				out := outputs[out]
				want := writeWith(t, ctx, ds, o, 1, 0, out.write)
				if want.err != nil {
					failed++
				}
				for _, w := range []int{2, 7} {
					for _, task := range []int64{1 + r.Int64N(9)} {
						got := writeWith(t, ctx, ds, o, w, task, out.write)
						if d := same(want, got); d != "" {
							t.Fatalf("seed %d, %s, %+v, %d workers, tasks of %d rows: %s", seed, out.name, o, w, task, d)
						}
					}
				}
			}
		}
	}
	if filtered == 0 || limited == 0 || failed > filtered {
		t.Fatalf("%d filtered runs, %d limited, %d failed", filtered, limited, failed)
	}
}

// Java's files, read on workers with tasks of a few rows, give Java's
// reader's output.
func TestWorkersInterop(t *testing.T) {
	ctx := context.Background()
	dirs, err := filepath.Glob("testdata/interop/*")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, dir := range dirs {
		want, err := os.ReadFile(filepath.Join(dir, "expected.jsonl"))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			continue // not a vector's directory
		}
		if errors.Is(err, os.ErrNotExist) {
			f, gerr := os.Open(filepath.Join(dir, "expected.jsonl.gz"))
			if gerr != nil {
				continue
			}
			zr, gerr := gzip.NewReader(f)
			if gerr != nil {
				t.Fatal(gerr)
			}
			want, err = io.ReadAll(zr)
			f.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.crc32.trv"))
		for _, name := range files {
			ds, err := Open(ctx, name, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, task := range []int64{7} {
				got := writeWith(t, ctx, ds, ReadOptions{}, 3, task, outputs[0].write)
				if got.err != nil || !bytes.Equal(got.out, want) {
					t.Fatalf("%s, tasks of %d rows: %v; output differs from Java's (%d and %d bytes)", name, task, got.err, len(got.out), len(want))
				}
			}
			checked++
		}
	}
	if checked < 5 {
		t.Fatalf("%d files checked", checked)
	}
}

// corruptParts writes records of a long and a string in blocks of about
// 100 rows with CRC-32s, in two parts, and returns their bytes.
func corruptParts(t *testing.T) (dir string, files [][]byte) {
	t.Helper()
	const text = `{"type":"record","name":"R","fields":[{"name":"id","type":"long"},{"name":"s","type":"string"}]}`
	dir = t.TempDir()
	for p := range 2 {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, text, &WriteOptions{BlockSize: 400, Checksum: CRC32})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 1000 {
			if err := w.Write(map[string]any{"id": int64(p*1000 + i), "s": strings.Repeat("x", i%7)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		files = append(files, buf.Bytes())
	}
	return dir, files
}

// damagedRead is one case of the workers' error tests: the data set of
// corruptParts' two parts with a byte flipped in the middle of one block
// of the second part (column col, block), read with opts.
type damagedRead struct {
	col, block int
	ds         *Dataset
	opts       ReadOptions
}

// forEachDamagedBlock writes corruptParts' parts into dir with every
// (1+n/spread)-th block of each column of the second part damaged in
// turn, and calls f with the data set for each of the read options the
// error tests use (whole, from an offset, filtered, limited to past the
// damage); it returns the number of calls.
func forEachDamagedBlock(t *testing.T, dir string, files [][]byte, spread int, f func(c damagedRead)) int {
	t.Helper()
	rd, err := format.NewReader(bytes.NewReader(files[1]), int64(len(files[1])), nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := 0
	for col := range 2 {
		blocks, err := rd.Blocks(col)
		if err != nil {
			t.Fatal(err)
		}
		for b := 0; b < len(blocks); b += 1 + len(blocks)/spread {
			bad := bytes.Clone(files[1])
			bad[blocks[b].Offset+int64(blocks[b].CompressedSize)/2] ^= 0x55
			for p, data := range [][]byte{files[0], bad} {
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("p%d.trv", p)), data, 0o666); err != nil {
					t.Fatal(err)
				}
			}
			ds, err := Open(context.Background(), dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range []ReadOptions{{}, {Offset: 1500}, {Where: "id < 300 OR id > 1200"}, {Limit: 1000 + blocks[b].FirstRow}} {
				f(damagedRead{col: col, block: b, ds: ds, opts: o})
				cases++
			}
		}
	}
	return cases
}

// A damaged block anywhere, in either column of either part: on any number
// of workers, the records before it are written as on one, and the error
// is the one the sequential reader gives, naming the part, column, block
// and row. Records too large for MaxRecordBytes likewise.
func TestWorkersErrors(t *testing.T) {
	ctx := context.Background()
	dir, files := corruptParts(t)
	cases := forEachDamagedBlock(t, dir, files, 6, func(c damagedRead) {
		want := writeWith(t, ctx, c.ds, c.opts, 1, 0, outputs[0].write)
		if c.opts.Offset == 0 && c.opts.Limit == 0 && c.opts.Where == "" && (want.err == nil || !strings.Contains(want.err.Error(), "p1.trv: ")) {
			t.Fatalf("column %d block %d, %+v: error %v", c.col, c.block, c.opts, want.err)
		}
		for _, w := range []int{2, 3, 7} {
			for _, task := range []int64{37, 250} {
				got := writeWith(t, ctx, c.ds, c.opts, w, task, outputs[0].write)
				if d := same(want, got); d != "" {
					t.Fatalf("column %d block %d, %+v, %d workers, tasks of %d: %s", c.col, c.block, c.opts, w, task, d)
				}
			}
		}
	})
	// Records larger than the bound, from some row on.
	tooLarge := 0
	for seed := range uint64(12) {
		ds, _, _ := randomDataset(t, seed, 120)
		ds.opts.MaxRecordBytes = 400
		want := writeWith(t, ctx, ds, ReadOptions{}, 1, 0, outputs[0].write)
		if errors.Is(want.err, format.ErrRecordSize) {
			tooLarge++
		}
		for _, w := range []int{2, 7} {
			got := writeWith(t, ctx, ds, ReadOptions{}, w, 4, outputs[0].write)
			if d := same(want, got); d != "" {
				t.Fatalf("seed %d, records of at most 400 bytes, %d workers: %s", seed, w, d)
			}
		}
	}
	if cases < 8 || tooLarge == 0 {
		t.Fatalf("%d cases, %d with records too large", cases, tooLarge)
	}
}

// Cancelling the context stops every worker, before the writing or
// during it: the writing returns the context's error, wrapped, and leaves
// no goroutine running.
func TestWorkersCancel(t *testing.T) {
	const text = `{"type":"record","name":"R","fields":[{"name":"id","type":"long"},{"name":"s","type":"string"}]}`
	dir := t.TempDir()
	w, err := Create(context.Background(), filepath.Join(dir, "a.trv"), text, &WriteOptions{BlockSize: 4096})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 30000 {
		if err := w.Write(map[string]any{"id": int64(i), "s": strings.Repeat("abc", i%11)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ds, err := Open(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := runtime.NumGoroutine()
	for _, out := range outputs {
		for _, early := range []bool{true, false} {
			ctx, cancel := context.WithCancel(context.Background())
			r, err := ds.NewReader(ctx, &ReadOptions{Workers: 3})
			if err != nil {
				t.Fatal(err)
			}
			r.taskRows = 500
			if early {
				cancel()
			}
			w := writerFunc(func(p []byte) (int, error) {
				cancel()
				return len(p), nil
			})
			_, err = out.write(r, w)
			r.Close()
			cancel()
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("%s, cancelled early %v: %v, want the context's error", out.name, early, err)
			}
		}
	}
	// The read-ahead of a block being fetched ends on its own.
	for range 100 {
		if runtime.NumGoroutine() <= before {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%d goroutines, %d before", runtime.NumGoroutine(), before)
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// The protobuf files of testdata/proto/legacy, as one part and as two,
// written by WriteProto in both framings on workers with tasks of a few
// messages, with offsets and limits: byte for byte as on one goroutine.
func TestWorkersProto(t *testing.T) {
	ctx := context.Background()
	files, _ := filepath.Glob("testdata/proto/legacy/*.trv")
	if len(files) == 0 {
		t.Fatal("no legacy files")
	}
	write := func(ds *Dataset, o ReadOptions, form protoschema.Framing, workers int, task int64) written {
		o.Workers = workers
		p, err := ds.NewProtoReader(ctx, &ProtoOptions{ReadOptions: o})
		if err != nil {
			return written{err: err}
		}
		defer p.Close()
		p.r.taskRows = task
		var buf bytes.Buffer
		n, err := p.writeTo(ctx, &buf, form, nil)
		return written{out: buf.Bytes(), n: n, err: err, reports: p.Report()}
	}
	checked := 0
	for _, name := range files {
		for _, names := range [][]string{{name}, {name, name}} {
			ds, err := OpenFiles(ctx, names, nil)
			if err != nil {
				t.Fatal(err)
			}
			rows := ds.RowCount()
			for _, o := range []ReadOptions{{Offset: rows / 3}, {Limit: rows/2 + 1}, {Offset: 1, Rows: rows - 2}} {
				for _, form := range []protoschema.Framing{protoschema.Delimited, protoschema.JSONLines} {
					want := write(ds, o, form, 1, 0)
					if want.err == nil && want.n > 2 {
						checked++
					}
					for _, w := range []int{3} {
						got := write(ds, o, form, w, 2)
						if d := same(want, got); d != "" {
							t.Fatalf("%s ×%d, %+v, %v, %d workers: %s", name, len(names), o, form, w, d)
						}
					}
				}
			}
		}
	}
	if checked < 10 {
		t.Fatalf("%d runs wrote messages", checked)
	}
}

// A reader that has returned some records already hands the rest to the
// workers: what they write, and the reader's report, are those of the
// reader going on alone.
func TestWorkersAfterRead(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(4) {
		ds, _, _ := randomDataset(t, seed, 90)
		for _, o := range []ReadOptions{{}, {Limit: 40}, {Offset: 5, Rows: 70, Limit: 50}} {
			for _, k := range []int{1, 17, 31} {
				run := func(workers int) written {
					o := o
					o.Workers = workers
					r, err := ds.NewReader(ctx, &o)
					if err != nil {
						t.Fatal(err)
					}
					defer r.Close()
					r.taskRows = 4
					var buf bytes.Buffer
					var line []byte
					for range k {
						if line, err = r.ReadJSON(line[:0]); err == io.EOF {
							break
						} else if err != nil {
							t.Fatal(err)
						}
						buf.Write(append(line, '\n'))
					}
					n, err := r.WriteJSON(&buf, nil)
					return written{out: buf.Bytes(), n: n + int64(k), err: err, reports: r.Report()}
				}
				want := run(1)
				for _, w := range []int{2, 5} {
					if d := same(want, run(w)); d != "" {
						t.Fatalf("seed %d, %+v, %d read first, %d workers: %s", seed, o, k, w, d)
					}
				}
			}
		}
	}
}

// The report of a reading on workers counts what they read: every record
// of each part, every block of every column at least once, and a block
// at most once more for each task (the one where its task starts).
func TestWorkersReport(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(4) {
		ds, _, _ := randomDataset(t, seed+3, 120)
		const task = 6
		got := writeWith(t, ctx, ds, ReadOptions{}, 3, task, outputs[0].write)
		if got.err != nil || len(got.reports) != len(ds.Parts()) {
			t.Fatalf("seed %d: %v, %d reports", seed, got.err, len(got.reports))
		}
		for i, rep := range got.reports {
			p := ds.Parts()[i]
			s := rep.Scan
			if rep.Part != p.Name() || s.RowsMatched != p.RowCount() || s.RowsScanned != p.RowCount() || rep.Fetched.Bytes <= 0 {
				t.Fatalf("seed %d, part %d: %+v", seed, i, rep)
			}
			var bytes int64
			for _, c := range s.Columns {
				tasks := int(p.RowCount()/task) + 1
				if c.BlocksRead < c.Blocks || c.BlocksRead > c.Blocks+tasks || c.BlocksSkipped != 0 {
					t.Fatalf("seed %d, part %d, column %d: %d of %d blocks read, %d skipped, %d tasks at most", seed, i, c.Column, c.BlocksRead, c.Blocks, c.BlocksSkipped, tasks)
				}
				bytes += c.BytesRead
			}
			if bytes != s.BytesRead || bytes <= 0 {
				t.Fatalf("seed %d, part %d: %d bytes read, columns %d", seed, i, s.BytesRead, bytes)
			}
		}
	}
}

// Records of a larger schema, written on 2 and 3 workers whose tasks are
// sized by OutputMemory alone, from the least it allows to the default:
// the output is byte for byte one worker's, and the chunks the writer
// takes are no larger than the sizes ordered.Sizes gives that memory,
// plus a record.
func TestWorkersOutputMemory(t *testing.T) {
	ctx := context.Background()
	ds, _, _ := largeDataset(t, 5, 6000)
	for _, out := range outputs {
		want := writeWith(t, ctx, ds, ReadOptions{}, 1, 0, out.write)
		if want.err != nil || want.n != ds.RowCount() {
			t.Fatalf("%s: %d records, %v", out.name, want.n, want.err)
		}
		for _, w := range []int{2, 3} {
			for _, memory := range []int64{1, 100 << 10, 0} {
				got := writeWith(t, ctx, ds, ReadOptions{OutputMemory: memory}, w, 0, out.write)
				if d := same(want, got); d != "" {
					t.Fatalf("%s, %d workers, OutputMemory %d: %s", out.name, w, memory, d)
				}
			}
		}
	}
	// The largest record, in Avro's binary encoding.
	var largest int
	r, err := ds.NewReader(ctx, &ReadOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	for {
		b, err := r.ReadBinary(nil)
		if err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		largest = max(largest, len(b))
	}
	r.Close()
	for _, memory := range []int64{1, 100 << 10} {
		r, err := ds.NewReader(ctx, &ReadOptions{Workers: 2, OutputMemory: memory})
		if err != nil {
			t.Fatal(err)
		}
		chunk, _, _ := ordered.Sizes(2, memory)
		var records, chunks int
		n, err := r.writeParallel(2, func() encodeFunc {
			return func(pr partReader, dst []byte) ([]byte, error) {
				return pr.(*assemble.AvroReader).ReadBinary(dst)
			}
		}, func(data []byte, ends []int) error {
			if len(data) > chunk+largest {
				t.Errorf("OutputMemory %d: a chunk of %d bytes, records of up to %d", memory, len(data), largest)
			}
			records += len(ends)
			chunks++
			return nil
		})
		r.Close()
		if err != nil || n != ds.RowCount() || int64(records) != n {
			t.Fatalf("OutputMemory %d: %d records (%d in chunks), %v", memory, n, records, err)
		}
		if chunks < 2 {
			t.Errorf("OutputMemory %d: %d chunks", memory, chunks)
		}
	}
}

// A task's own depth (deepen), with the default memory: its share while
// its output fits twice that, half its output where it is larger, and
// never more than rowtasks.MaxDeepOutput however large the blocks make it.
func TestDeepen(t *testing.T) {
	chunk, ahead, task := ordered.Sizes(2, 3*DefaultOutputMemory)
	c := int64(chunk)
	pr := &prun{r: &Reader{}, out: &byteOut{task: task, deep: true, chunk: c}}
	pp := &ppart{inPerRow: 100} // no task done yet: 100 bytes a row
	for _, tc := range []struct {
		rows int64
		want int64 // chunks it may hold waiting
	}{
		{task / 100, int64(ahead)},
		{4 * task / 100, 2*task/c - 1},
		{1 << 40, rowtasks.MaxDeepOutput/c - 1},
	} {
		tk := pr.deepen(&ptask{pp: pp, from: 0, to: tc.rows})
		if held := int64(max(tk.Ahead(), ahead)); held != tc.want {
			t.Errorf("a task of %d rows of 100 bytes may hold %d chunks of %d, want %d", tc.rows, held, chunk, tc.want)
		}
	}
	// An OutputMemory given is a bound: no task holds more than its share.
	pr.out = &byteOut{task: task, chunk: c}
	if tk := pr.deepen(&ptask{pp: pp, from: 0, to: 1 << 40}); tk.Ahead() > ahead {
		t.Errorf("with OutputMemory set, a task may hold %d chunks, more than %d", tk.Ahead(), ahead)
	}
}

// drawReadOptions draws the options of round k of a worker property test
// over the records of s: a filter that compiles on odd rounds, and at
// random an offset, a limit and a row range within rows (the row count).
func drawReadOptions(t *testing.T, r *rand.Rand, exprs *predrand.Generator, k int, rows int64) ReadOptions {
	t.Helper()
	var o ReadOptions
	if k%2 == 1 {
		o.Where = exprs.Expr(2)
	}
	if r.IntN(3) == 0 {
		o.Offset = r.Int64N(rows + 2)
	}
	if r.IntN(3) == 0 {
		o.Limit = 1 + r.Int64N(rows/2+1)
	}
	if r.IntN(4) == 0 {
		o.Rows = 1 + r.Int64N(rows)
	}
	return o
}

// compiledExprs returns a generator of random filters over recs, records
// of s, drawing on r, that makes only filters predicate.Compile takes.
func compiledExprs(t *testing.T, r *rand.Rand, s *schema.Schema, recs []any) *predrand.Generator {
	t.Helper()
	l, err := layout.New(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	exprs := predrand.New(r, s, recs)
	exprs.Check = func(e string) error {
		_, err := predicate.Compile(e, s, l)
		return err
	}
	return exprs
}
