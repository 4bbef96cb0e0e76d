// Package trevniio reads and writes Trevni files in Apache Beam pipelines
// (the Go SDK, github.com/apache/beam/sdks/v2), so that the same pipeline
// runs on Beam's local runner, Dataflow, Flink or Spark.
//
// Read is a splittable DoFn whose restriction is a range of rows of one
// file: a runner may split a large file across workers, before processing
// or while it runs, and every row is emitted by exactly one restriction.
// Write shards a PCollection of Avro binary records into Trevni files,
// each written under a temporary name and renamed once the pipeline has
// committed it.
//
// The package lives in its own Go module so that the core library does not
// depend on Beam.
package trevniio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/sdf"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/rtrackers/offsetrange"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/predicate"
	"github.com/trevni-go/trevni/remote"
	"github.com/trevni-go/trevni/schema/layout"
)

func init() {
	register.DoFn2x1[string, func(string), error](&expandFn{})
	register.Emitter1[string]()
	register.DoFn4x1[context.Context, *sdf.LockRTracker, string, func([]byte), error](&readFn{})
	register.Emitter1[[]byte]()
	beam.RegisterType(reflect.TypeOf((*readFn)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*expandFn)(nil)).Elem())
}

// DefaultSplitRows is the number of rows of the restrictions Read splits a
// file into before processing, unless ReadOptions.SplitRows says otherwise.
const DefaultSplitRows = 1 << 20

// ReadOptions configure Read and ReadAll. A nil *ReadOptions, like the
// zero value, reads every field of Avro records in the files' schema, in
// restrictions of DefaultSplitRows rows.
type ReadOptions struct {
	// Fields selects record fields by dotted path ("a.b.c"): only their
	// columns are read. For Avro output the records are encoded in the
	// projection of the file's schema to those fields (see
	// ProjectSchema); for protobuf output the other fields stay unset.
	Fields []string
	// ReaderSchema, if set, reads Avro records as this reader schema
	// (JSON text): a projection or an evolution of the files' schema.
	// Records are emitted in its binary encoding.
	ReaderSchema string
	// Proto emits the records of files made from protobuf (trevni
	// fromproto, shred.ProtoWriter) as protobuf wire bytes instead of Avro
	// binary.
	Proto bool
	// Filter, if set, keeps only the records satisfying it, a filter
	// expression in the grammar of "trevni tojson --where" (package
	// predicate: comparisons, IN, BETWEEN, LIKE, IS NULL, AND, OR, NOT on
	// the fields of the files' schema, "amount > 4500 AND region IN
	// ('EU', 'US')"). Each restriction reads only the blocks whose
	// statistics allow a match, and evaluates the filter's columns before
	// reading the others. Read panics, as beam.ParDo does with a bad DoFn,
	// if it does not parse; a field it names that a file lacks fails the
	// pipeline with an error naming the file.
	Filter string
	// SplitRows is the number of rows of the restrictions a file is split
	// into before processing; 0 means DefaultSplitRows. Runners may split
	// them further while they run.
	SplitRows int64
}

// Read reads the records of the Trevni files glob names (a filepath.Match
// pattern, a directory, meaning its *.trv files, or an http:// or https://
// URL, read with range requests) and returns them as a PCollection of
// []byte: Avro binary records, or protobuf wire bytes with Proto. Files
// are read in ranges of rows that a runner can split further; every record
// is emitted exactly once. A nil opts means the defaults.
func Read(s beam.Scope, glob string, opts *ReadOptions) beam.PCollection {
	s = s.Scope("trevniio.Read")
	return readPatterns(s, beam.Create(s, glob), opts)
}

// ReadAll is Read for a PCollection of strings, each a pattern, directory
// or URL as Read takes them: the records of all the files they name, such
// as several URLs of the parts of a data set.
func ReadAll(s beam.Scope, patterns beam.PCollection, opts *ReadOptions) beam.PCollection {
	s = s.Scope("trevniio.ReadAll")
	return readPatterns(s, patterns, opts)
}

func readPatterns(s beam.Scope, patterns beam.PCollection, opts *ReadOptions) beam.PCollection {
	var o ReadOptions
	if opts != nil {
		o = *opts
	}
	if o.SplitRows < 0 {
		panic(fmt.Sprintf("trevniio: SplitRows %d is negative", o.SplitRows))
	}
	if o.SplitRows == 0 {
		o.SplitRows = DefaultSplitRows
	}
	if o.Filter != "" {
		if _, err := predicate.Parse(o.Filter); err != nil {
			panic(fmt.Sprintf("trevniio: Filter: %v", err))
		}
	}
	fn := &readFn{
		Fields:       append([]string(nil), o.Fields...),
		ReaderSchema: o.ReaderSchema,
		Proto:        o.Proto,
		Filter:       o.Filter,
		SplitRows:    o.SplitRows,
	}
	files := beam.ParDo(s, &expandFn{}, patterns)
	files = beam.Reshuffle(s, files)
	return beam.ParDo(s, fn, files)
}

// expandFn expands a glob into the names of the files it matches.
type expandFn struct{}

// ProcessElement emits the files glob names, in name order.
func (fn *expandFn) ProcessElement(glob string, emit func(string)) error {
	names, err := Expand(glob)
	if err != nil {
		return err
	}
	for _, n := range names {
		emit(n)
	}
	return nil
}

// Expand returns the files glob names, in name order: an http:// or
// https:// URL is itself, a directory means its *.trv files, anything else
// is a filepath.Glob pattern. A pattern that matches nothing is an error.
func Expand(glob string) ([]string, error) {
	if remote.IsURL(glob) {
		return []string{glob}, nil
	}
	if st, err := os.Stat(glob); err == nil && st.IsDir() {
		glob = filepath.Join(glob, "*.trv")
	}
	names, err := filepath.Glob(glob)
	if err != nil {
		return nil, fmt.Errorf("trevniio: pattern %q: %w", glob, err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("trevniio: no file matches %q", glob)
	}
	sort.Strings(names)
	return names, nil
}

// readFn is the splittable DoFn of Read. Its exported fields are its
// serialized configuration.
type readFn struct {
	Fields       []string
	ReaderSchema string
	Proto        bool
	Filter       string
	SplitRows    int64
}

// Open opens the Trevni file name, a local path or an http:// or https://
// URL, for reading. A URL is read with range requests (remote.OpenHTTP),
// each column's blocks through a remote.Coalescer in a few large requests;
// ctx bounds them. closeFile releases the file.
func Open(ctx context.Context, name string) (rd *format.Reader, closeFile func() error, err error) {
	rd, _, closeFile, err = open(ctx, name, wholeColumns)
	return rd, closeFile, err
}

// How open reads a URL.
const (
	wholeColumns = iota // columns are read whole: the reader hints each column's range to the coalescer
	headerOnly          // nothing past the header: a remote.HeaderReader, not a coalescer, whose windows would fetch column data
	rowRange            // a range of rows: the caller hints the ranges of the blocks it needs
)

// rangeWindow is what a read of a row range fetches outside the byte
// ranges hinted: each column's block table.
const rangeWindow = 16 << 10

// open is Open, reading a URL as mode says; the coalescer is nil for a
// local file or in headerOnly mode.
func open(ctx context.Context, name string, mode int) (*format.Reader, *remote.Coalescer, func() error, error) {
	var (
		ra        io.ReaderAt
		size      int64
		c         *remote.Coalescer
		sw        *switchReader
		closeFile = func() error { return nil }
		opts      format.ReaderOptions
	)
	if remote.IsURL(name) {
		h, err := remote.OpenHTTP(ctx, name, nil)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("trevniio: %w", err)
		}
		ra, size = h, h.Size()
		switch mode {
		case headerOnly:
			ra = remote.NewHeaderReader(h, h.Size())
		case wholeColumns:
			c = remote.NewCoalescer(h, h.Size(), nil)
			opts.Prefetch = c.Prefetch
		case rowRange:
			// The header through a HeaderReader, then the rest through
			// the coalescer, told the blocks' ranges by hintRows.
			c = remote.NewCoalescer(h, h.Size(), &remote.CoalescerOptions{Window: rangeWindow})
			sw = &switchReader{header: remote.NewHeaderReader(h, h.Size()), rest: c}
			ra = sw
		}
	} else {
		f, err := os.Open(name)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("trevniio: %w", err)
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, nil, nil, fmt.Errorf("trevniio: %w", err)
		}
		ra, size, closeFile = f, st.Size(), f.Close
	}
	rd, err := format.NewReader(ra, size, &opts)
	if err != nil {
		closeFile()
		return nil, nil, nil, fmt.Errorf("trevniio: %s: %w", name, err)
	}
	if sw != nil {
		sw.pastHeader.Store(true)
	}
	return rd, c, closeFile, nil
}

// switchReader reads through header until the header is read, then
// through rest.
type switchReader struct {
	header, rest io.ReaderAt
	pastHeader   atomic.Bool
}

func (r *switchReader) ReadAt(p []byte, off int64) (int, error) {
	if r.pastHeader.Load() {
		return r.rest.ReadAt(p, off)
	}
	return r.header.ReadAt(p, off)
}

// hintRows tells c the byte ranges of the blocks of each of the columns
// that hold the rows of ranges (in order, not overlapping), so that reading
// them fetches those bytes in a few large requests and nothing else.
func hintRows(rd *format.Reader, c *remote.Coalescer, cols []int, ranges []predicate.Range) error {
	slices.Sort(cols)
	for _, i := range slices.Compact(cols) {
		blocks, err := rd.Blocks(i)
		if err != nil {
			return err
		}
		// The runs of blocks that hold rows of the ranges, joined where
		// they touch.
		var runs [][2]int
		for _, r := range ranges {
			a := sort.Search(len(blocks), func(k int) bool { return blocks[k].FirstRow+blocks[k].Rows > r.First })
			b := sort.Search(len(blocks), func(k int) bool { return blocks[k].FirstRow >= r.First+r.Rows })
			if a >= b {
				continue
			}
			if n := len(runs); n > 0 && runs[n-1][1] >= a {
				runs[n-1][1] = max(runs[n-1][1], b)
				continue
			}
			runs = append(runs, [2]int{a, b})
		}
		for _, run := range runs {
			first, last := &blocks[run[0]], &blocks[run[1]-1]
			const checksum = 4 // at most, after each block's stored bytes
			c.Prefetch(first.Offset, last.Offset+int64(last.CompressedSize)+checksum-first.Offset)
		}
	}
	return nil
}

// candidates returns the runs of rows from first to end-1 that may hold
// a record satisfying p, by the file's block statistics; all of them
// without a filter.
func candidates(rd *format.Reader, p *predicate.Predicate, first, end int64) []predicate.Range {
	if first >= end {
		return nil
	}
	if p == nil {
		return []predicate.Range{{First: first, Rows: end - first}}
	}
	var out []predicate.Range
	for _, r := range p.FileRanges(rd) {
		a, b := max(r.First, first), min(r.First+r.Rows, end)
		if a < b {
			out = append(out, predicate.Range{First: a, Rows: b - a})
		}
	}
	return out
}

// compileFilter compiles expr against the schema rd stores, or returns nil
// if it cannot (the reader reports why).
func compileFilter(rd *format.Reader, expr string) *predicate.Predicate {
	s, err := layout.ParseStored(rd.Meta().GetString(layout.MetaAvroSchema), nil)
	if err != nil {
		return nil
	}
	l, err := layout.New(s, nil)
	if err != nil {
		return nil
	}
	p, err := predicate.Compile(expr, s, l)
	if err != nil {
		return nil
	}
	return p
}

// rowCount reads the header of the file and returns its number of rows,
// checked against the block table of its first column: a count that the
// file's blocks do not hold is an error.
func rowCount(path string) (int64, error) {
	rd, _, closeFile, err := open(context.Background(), path, headerOnly)
	if err != nil {
		return 0, err
	}
	defer closeFile()
	if rd.NumColumns() > 0 {
		if _, err := rd.Blocks(0); err != nil {
			return 0, err
		}
	}
	return rd.RowCount(), nil
}

// MaxInitialSplits bounds the number of restrictions Read splits one file
// into before processing: a file of more rows than MaxInitialSplits times
// SplitRows is split into larger restrictions (which a runner may still
// split while it runs).
const MaxInitialSplits = 1 << 16

// splitSize returns the rows of each initial restriction of rest: size,
// or more where size would make more than MaxInitialSplits of them.
func splitSize(rest offsetrange.Restriction, size int64) int64 {
	if n := rest.End - rest.Start; n > 0 && n/size >= MaxInitialSplits {
		size = n/MaxInitialSplits + 1
	}
	return size
}

// CreateInitialRestriction returns all the rows of the file.
func (fn *readFn) CreateInitialRestriction(path string) offsetrange.Restriction {
	n, err := rowCount(path)
	if err != nil {
		// The error is reported by ProcessElement, which opens the file
		// again: a restriction of one row makes sure it runs.
		return offsetrange.Restriction{Start: 0, End: 1}
	}
	return offsetrange.Restriction{Start: 0, End: n}
}

// SplitRestriction splits the rows of a file into ranges of SplitRows rows.
// With a filter, only the runs of rows that the file's block statistics
// leave are split: rows proven not to match make no restriction at all.
func (fn *readFn) SplitRestriction(path string, rest offsetrange.Restriction) []offsetrange.Restriction {
	size := fn.SplitRows
	if size <= 0 {
		size = DefaultSplitRows
	}
	size = splitSize(rest, size)
	if fn.Filter == "" {
		return rest.SizedSplits(size)
	}
	runs, ok := candidateRuns(path, fn.Filter, rest)
	if !ok {
		return rest.SizedSplits(size) // ProcessElement reports the problem
	}
	var out []offsetrange.Restriction
	for _, r := range runs {
		out = append(out, offsetrange.Restriction{Start: r.First, End: r.First + r.Rows}.SizedSplits(size)...)
	}
	return out
}

// candidateRuns reads the header and the filter's block statistics of the
// file at path and returns the runs of rest's rows that may match expr;
// false if it cannot tell.
func candidateRuns(path, expr string, rest offsetrange.Restriction) ([]predicate.Range, bool) {
	rd, _, closeFile, err := open(context.Background(), path, headerOnly)
	if err != nil {
		return nil, false
	}
	defer closeFile()
	p := compileFilter(rd, expr)
	if p == nil || rest.End > rd.RowCount() {
		return nil, false
	}
	return candidates(rd, p, rest.Start, rest.End), true
}

// RestrictionSize returns the number of rows of rest.
func (fn *readFn) RestrictionSize(_ string, rest offsetrange.Restriction) float64 {
	return rest.Size()
}

// CreateTracker returns a thread-safe tracker of rest, which runners may
// split while ProcessElement claims rows.
func (fn *readFn) CreateTracker(rest offsetrange.Restriction) *sdf.LockRTracker {
	return sdf.NewLockRTracker(offsetrange.NewTracker(rest))
}

// recordReader is what AvroReader and ProtoReader have in common.
type recordReader interface {
	SeekRow(row int64) error
	StopAt(row int64)
	RowCount() int64
	Row() int64
	ColumnsRead() []int
	Filter() *predicate.Predicate
}

// ProcessElement emits the rows of the file the tracker's restriction
// holds, claiming each before it is emitted. With a filter, the reader
// passes over the rows that do not match (and the blocks that cannot):
// the row of each match is claimed, and the end of the restriction once
// no match is left.
func (fn *readFn) ProcessElement(ctx context.Context, rt *sdf.LockRTracker, path string, emit func([]byte)) error {
	rest := rt.GetRestriction().(offsetrange.Restriction)
	rd, c, closeFile, err := open(ctx, path, rowRange)
	if err != nil {
		return err
	}
	defer closeFile()
	var (
		rr   recordReader
		next func([]byte) ([]byte, error)
	)
	if fn.Proto {
		pr, err := assemble.NewProtoReader(rd, &assemble.ProtoOptions{Fields: fn.Fields, Filter: fn.Filter})
		if err != nil {
			return fmt.Errorf("trevniio: %s: %w", path, err)
		}
		rr, next = pr, pr.ReadWire
	} else {
		readerSchema := fn.ReaderSchema
		if len(fn.Fields) > 0 {
			base := readerSchema
			if base == "" {
				base = rd.Meta().GetString(layout.MetaAvroSchema)
			}
			if readerSchema, err = ProjectSchema(base, fn.Fields); err != nil {
				return fmt.Errorf("trevniio: %s: %w", path, err)
			}
		}
		ar, err := assemble.NewAvroReader(rd, &assemble.Options{ReaderSchema: readerSchema, Filter: fn.Filter})
		if err != nil {
			return fmt.Errorf("trevniio: %s: %w", path, err)
		}
		rr, next = ar, ar.ReadBinary
	}
	if c != nil {
		// Over HTTP, the blocks of the restriction's rows in each column
		// read (those the filter's statistics leave), in as few requests
		// as the coalescer's budget allows.
		cols := rr.ColumnsRead()
		p := rr.Filter()
		if p != nil {
			cols = append(cols, p.Columns()...)
		}
		if err := hintRows(rd, c, cols, candidates(rd, p, rest.Start, min(rest.End, rr.RowCount()))); err != nil {
			return fmt.Errorf("trevniio: %s: %w", path, err)
		}
	}
	if rest.End > rr.RowCount() {
		return fmt.Errorf("trevniio: %s: rows %d to %d asked of a file of %d rows", path, rest.Start, rest.End, rr.RowCount())
	}
	if err := rr.SeekRow(rest.Start); err != nil {
		return fmt.Errorf("trevniio: %s: row %d: %w", path, rest.Start, err)
	}
	// The end of the restriction only moves closer when a runner splits it,
	// and TryClaim tells when it has.
	rr.StopAt(rest.End)
	if fn.Filter == "" {
		for row := rest.Start; rt.TryClaim(row); row++ {
			rec, err := next(nil)
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = io.ErrUnexpectedEOF
				}
				return fmt.Errorf("trevniio: %s: row %d: %w", path, row, err)
			}
			emit(rec)
		}
		return rt.GetError()
	}
	for {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("trevniio: %s: %w", path, err)
		}
		rec, err := next(nil)
		if errors.Is(err, io.EOF) {
			// No match before the end: claiming the end (past the
			// restriction's, however split) marks it done.
			rt.TryClaim(rest.End)
			break
		}
		if err != nil {
			return fmt.Errorf("trevniio: %s: %w", path, err)
		}
		if !rt.TryClaim(rr.Row() - 1) {
			break
		}
		emit(rec)
	}
	return rt.GetError()
}
