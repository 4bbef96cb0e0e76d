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
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/core/sdf"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/rtrackers/offsetrange"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema/layout"
)

func init() {
	register.DoFn2x1[string, func(string), error](&expandFn{})
	register.Emitter1[string]()
	register.DoFn3x1[*sdf.LockRTracker, string, func([]byte), error](&readFn{})
	register.Emitter1[[]byte]()
	beam.RegisterType(reflect.TypeOf((*readFn)(nil)).Elem())
	beam.RegisterType(reflect.TypeOf((*expandFn)(nil)).Elem())
}

// DefaultSplitRows is the number of rows of the restrictions Read splits a
// file into before processing, unless SplitRows says otherwise.
const DefaultSplitRows = 1 << 20

// ReadOption configures Read.
type ReadOption func(*readFn)

// Fields selects record fields by dotted path ("a.b.c"): only their columns
// are read. For Avro output the records are encoded in the projection of
// the file's schema to those fields (see ProjectSchema); for protobuf
// output the other fields stay unset.
func Fields(paths ...string) ReadOption {
	return func(fn *readFn) { fn.Fields = append([]string(nil), paths...) }
}

// ReaderSchema reads Avro records as the given reader schema (JSON text):
// a projection or an evolution of the files' schema. Records are emitted
// in its binary encoding.
func ReaderSchema(text string) ReadOption {
	return func(fn *readFn) { fn.ReaderSchema = text }
}

// Proto emits the records of files made from protobuf (trevni fromproto,
// shred.ProtoWriter) as protobuf wire bytes instead of Avro binary.
func Proto() ReadOption {
	return func(fn *readFn) { fn.Proto = true }
}

// SplitRows sets the number of rows of the restrictions a file is split
// into before processing (n > 0). Runners may split them further while
// they run.
func SplitRows(n int64) ReadOption {
	return func(fn *readFn) {
		if n > 0 {
			fn.SplitRows = n
		}
	}
}

// Read reads the records of the Trevni files matching glob (a
// filepath.Match pattern, or a directory, meaning its *.trv files) and
// returns them as a PCollection of []byte: Avro binary records, or
// protobuf wire bytes with Proto. Files are read in ranges of rows that a
// runner can split further; every record is emitted exactly once.
func Read(s beam.Scope, glob string, opts ...ReadOption) beam.PCollection {
	s = s.Scope("trevniio.Read")
	fn := &readFn{SplitRows: DefaultSplitRows}
	for _, o := range opts {
		o(fn)
	}
	files := beam.ParDo(s, &expandFn{}, beam.Create(s, glob))
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

// Expand returns the files glob names, in name order: a directory means
// its *.trv files, anything else is a filepath.Glob pattern. A pattern that
// matches nothing is an error.
func Expand(glob string) ([]string, error) {
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
	SplitRows    int64
}

// rowCount reads the header of the file and returns its number of rows.
func rowCount(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("trevniio: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("trevniio: %w", err)
	}
	rd, err := format.NewReader(f, st.Size(), nil)
	if err != nil {
		return 0, fmt.Errorf("trevniio: %s: %w", path, err)
	}
	return rd.RowCount(), nil
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
func (fn *readFn) SplitRestriction(_ string, rest offsetrange.Restriction) []offsetrange.Restriction {
	size := fn.SplitRows
	if size <= 0 {
		size = DefaultSplitRows
	}
	return rest.SizedSplits(size)
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
}

// ProcessElement emits the rows of the file the tracker's restriction
// holds, claiming each before it is emitted.
func (fn *readFn) ProcessElement(rt *sdf.LockRTracker, path string, emit func([]byte)) error {
	rest := rt.GetRestriction().(offsetrange.Restriction)
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("trevniio: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("trevniio: %w", err)
	}
	rd, err := format.NewReader(f, st.Size(), nil)
	if err != nil {
		return fmt.Errorf("trevniio: %s: %w", path, err)
	}
	var (
		rr   recordReader
		next func([]byte) ([]byte, error)
	)
	if fn.Proto {
		pr, err := assemble.NewProtoReader(rd, &assemble.ProtoOptions{Fields: fn.Fields})
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
		ar, err := assemble.NewAvroReader(rd, &assemble.Options{ReaderSchema: readerSchema})
		if err != nil {
			return fmt.Errorf("trevniio: %s: %w", path, err)
		}
		rr, next = ar, ar.ReadBinary
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
