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
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/sdf"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/rtrackers/offsetrange"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/predicate"
	// http(s) URLs are read through remote/httpread's client.
	_ "github.com/trevni-go/trevni/remote/httpread"
	// ReadOptions.Proto reads messages, which needs the descriptor packages.
	_ "github.com/trevni-go/trevni/schema/protoload"
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
// file whose block tables it cannot read into before processing (the
// restriction's ProcessElement then reports why). Every readable file is
// split by bytes (ReadOptions.SplitBytes) unless ReadOptions.SplitRows
// says otherwise.
const DefaultSplitRows = 1 << 20

// ReadOptions configure Read and ReadAll. A nil *ReadOptions, like the
// zero value, reads every field of Avro records in the files' schema, in
// restrictions sized by the files' layout (SplitBytes).
type ReadOptions struct {
	// Fields selects record fields by dotted path ("a.b.c"): only their
	// columns are read. For Avro output the records are encoded in the
	// projection of the file's schema to those fields (see
	// trevni.ProjectSchema); for protobuf output the other fields stay unset.
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
	// SplitRows, if positive, is the number of rows of the restrictions a
	// file is split into before processing, which runners may split
	// further anywhere while they run. 0 sizes restrictions by bytes
	// (SplitBytes).
	SplitRows int64
	// SplitBytes is about the bytes of file (of all its columns) each
	// initial restriction of a file covers when SplitRows is 0;
	// restrictions are cut where a block of the file's largest column
	// starts (Trevni 2 and Trevni 1 files: where their block tables
	// place them). 0 means 20 times what a restriction fetches besides its
	// rows (the header, the block tables, one block a column), and at
	// least MinSplitBytes: initial splits then fetch at most 5% more than
	// the file, and a runner's split of a running restriction of a
	// remote file is accepted only where it leaves at least as many
	// bytes and falls past what the reader has fetched already, as its
	// frontdoor.FetchedEnd says (another 5% at most). A runner without dynamic
	// splitting gets a file of 305 MB in 8 columns as about 15
	// restrictions. A CLMN file, whose columns are each one stream read
	// from its start, is cut into at most 4 restrictions, and one read by
	// URL is one restriction, never split (see split.go).
	SplitBytes int64
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
	if o.SplitBytes < 0 {
		panic(fmt.Sprintf("trevniio: SplitBytes %d is negative", o.SplitBytes))
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
		SplitBytes:   o.SplitBytes,
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

// Expand returns the files glob names, as the front door expands a data
// set's name (frontdoor.ExpandNames): an http:// or https:// URL is itself, an
// object store's URL (s3://, gs://, azblob://) a glob over its bucket's
// keys or, ending in "/", a prefix, a directory means its *.trv, *.trv1
// and *.clmn files, anything else is a filepath.Glob pattern, matched in
// name order. A pattern that matches
// nothing is an error. It runs while the pipeline is built, so a store's
// listing is bounded by no context of its own.
func Expand(glob string) ([]string, error) {
	names, err := frontdoor.ExpandNames(context.Background(), []string{glob}, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("trevniio: %w", err)
	}
	if len(names) == 1 && !frontdoor.IsURL(names[0], nil) {
		if _, err := os.Stat(names[0]); err != nil {
			return nil, fmt.Errorf("trevniio: no file matches %q", glob)
		}
	}
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
	SplitBytes   int64
}

// rowCount reads the header of the file and returns its number of rows. A
// row count that the first column's blocks do not hold is an error.
func rowCount(path string) (int64, error) {
	ctx := context.Background()
	ds, err := trevni.Open(ctx, path, nil)
	if err != nil {
		return 0, err
	}
	defer ds.Close()
	p := ds.Parts()[0]
	if p.Format() == trevni.Trevni2 {
		f, err := p.Open(ctx)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		if rd := frontdoor.TrevniReader(f); rd.NumColumns() > 0 {
			if _, err := rd.Blocks(0); err != nil {
				return 0, err
			}
		}
	}
	return ds.RowCount(), nil
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

// SplitRestriction splits the rows of a file into ranges of SplitRows
// rows, or, with SplitRows 0, of a Trevni 2 file into ranges of about
// SplitBytes bytes cut where blocks of its largest column start. With a
// filter, only the runs of rows that the file's block statistics leave
// are split: rows proven not to match make no restriction at all.
func (fn *readFn) SplitRestriction(path string, rest offsetrange.Restriction) []offsetrange.Restriction {
	size := fn.SplitRows
	var lay *fileLayout
	if size <= 0 {
		size = DefaultSplitRows
		lay = layoutAt(path)
	}
	size = splitSize(rest, size)
	cut := func(r offsetrange.Restriction) []offsetrange.Restriction {
		if lay != nil && r.End <= lay.rows {
			if lay.stream && frontdoor.IsURL(path, nil) {
				// Each restriction would fetch the streams from
				// their start.
				return []offsetrange.Restriction{r}
			}
			return lay.split(r.Start, r.End, lay.splitBytes(fn.SplitBytes))
		}
		return r.SizedSplits(size)
	}
	if fn.Filter == "" {
		return cut(rest)
	}
	runs, ok := candidateRuns(path, fn.Filter, rest)
	if !ok {
		return rest.SizedSplits(size) // ProcessElement reports the problem
	}
	var out []offsetrange.Restriction
	for _, r := range runs {
		out = append(out, cut(offsetrange.Restriction{Start: r.First, End: r.First + r.Rows})...)
	}
	return out
}

// layoutAt returns the layout of the Trevni 2 file at path, or nil if it
// is not one or cannot be read (ProcessElement reports the problem).
func layoutAt(path string) *fileLayout {
	ctx := context.Background()
	ds, err := trevni.Open(ctx, path, nil)
	if err != nil {
		return nil
	}
	defer ds.Close()
	lay, err := openLayout(ctx, ds)
	if err != nil {
		return nil
	}
	return lay
}

// candidateRuns reads the header and the filter's block statistics of the
// file at path and returns the runs of rest's rows that may match expr;
// false if it cannot tell.
func candidateRuns(path, expr string, rest offsetrange.Restriction) ([]frontdoor.RowRange, bool) {
	ctx := context.Background()
	ds, err := trevni.Open(ctx, path, nil)
	if err != nil {
		return nil, false
	}
	defer ds.Close()
	if rest.End > ds.RowCount() {
		return nil, false
	}
	runs, err := frontdoor.CandidateRows(ctx, ds.Parts()[0], expr)
	if err != nil {
		return nil, false
	}
	var out []frontdoor.RowRange
	for _, r := range runs {
		a, b := max(r.First, rest.Start), min(r.First+r.Rows, rest.End)
		if a < b {
			out = append(out, frontdoor.RowRange{First: a, Rows: b - a})
		}
	}
	return out, true
}

// RestrictionSize returns the number of rows of rest.
func (fn *readFn) RestrictionSize(_ string, rest offsetrange.Restriction) float64 {
	return rest.Size()
}

// CreateTracker returns a thread-safe tracker of rest, which runners may
// split while ProcessElement claims rows: of a remote Trevni 2 file, only
// past what the reader has fetched (see rowTracker).
func (fn *readFn) CreateTracker(rest offsetrange.Restriction) *sdf.LockRTracker {
	return sdf.NewLockRTracker(newRowTracker(rest))
}

// ProcessElement emits the rows of the file the tracker's restriction
// holds, claiming each before it is emitted. With a filter, the reader
// passes over the rows that do not match (and the blocks that cannot):
// the row of each match is claimed, and the end of the restriction once
// no match is left. The file is read through the front door (package
// trevni): over HTTP it fetches the header, then only the blocks of the
// restriction's rows that the columns read and the filter's statistics
// need.
func (fn *readFn) ProcessElement(ctx context.Context, rt *sdf.LockRTracker, path string, emit func([]byte)) error {
	rest := rt.GetRestriction().(offsetrange.Restriction)
	// With a reader schema, the records of Fields are those of its
	// projection, and the filter names any of its fields.
	opts := &trevni.OpenOptions{ReaderSchema: fn.ReaderSchema, ReadAhead: true} // read ahead, as the front door did by default
	ro := trevni.ReadOptions{Where: fn.Filter, Offset: rest.Start, Rows: rest.End - rest.Start, Fields: fn.Fields}
	ds, err := trevni.Open(ctx, path, opts)
	if err != nil {
		return fmt.Errorf("trevniio: %w", err)
	}
	defer ds.Close()
	if rest.End > ds.RowCount() {
		return fmt.Errorf("trevniio: %s: rows %d to %d asked of a file of %d rows", path, rest.Start, rest.End, ds.RowCount())
	}
	// The runner's splits of a remote file fall past what the reader
	// fetches; a local file's anywhere.
	var (
		lay   *fileLayout
		least int64
	)
	if frontdoor.IsURL(path, nil) {
		if lay, err = openLayout(ctx, ds); err != nil {
			return fmt.Errorf("trevniio: %w", err)
		}
		if fn.SplitRows <= 0 {
			least = lay.splitBytes(fn.SplitBytes)
		}
	}
	var (
		next    func([]byte) ([]byte, error)
		row     func() int64
		fetched func(off, end int64) int64
	)
	if fn.Proto {
		pr, err := ds.NewProtoReader(ctx, &trevni.ProtoOptions{ReadOptions: ro})
		if err != nil {
			return fmt.Errorf("trevniio: %w", err)
		}
		defer pr.Close()
		next, row = pr.ReadWire, pr.Row
		fetched = func(off, end int64) int64 { return frontdoor.FetchedEnd(pr, off, end) }
	} else {
		r, err := ds.NewReader(ctx, &ro)
		if err != nil {
			return fmt.Errorf("trevniio: %w", err)
		}
		defer r.Close()
		next, row = r.ReadBinary, r.Row
		fetched = func(off, end int64) int64 { return frontdoor.FetchedEnd(r, off, end) }
	}
	// Splits are placed once the reader is open: where it has fetched
	// is then known (frontdoor.FetchedEnd, safe while it reads).
	if tr, ok := rt.Rt.(*rowTracker); ok {
		rt.Mu.Lock()
		tr.place(lay, fetched, least)
		rt.Mu.Unlock()
	}
	// The end of the restriction only moves closer when a runner splits it,
	// and TryClaim tells when it has.
	if fn.Filter == "" {
		for r := rest.Start; rt.TryClaim(r); r++ {
			rec, err := next(nil)
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = io.ErrUnexpectedEOF
				}
				return fmt.Errorf("trevniio: %s: row %d: %w", path, r, err)
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
			return fmt.Errorf("trevniio: %w", err)
		}
		if !rt.TryClaim(row() - 1) {
			break
		}
		emit(rec)
	}
	return rt.GetError()
}
