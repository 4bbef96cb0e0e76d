package trevniparquet

import (
	"context"
	"encoding/binary"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// Spark, Hive and Impala wrote timestamps as Parquet INT96 (nanoseconds of
// the day and a Julian day). arrow-go reads them as Arrow nanoseconds
// since 1970 and refuses a whole file for one value outside 1677-2262,
// such as Spark's 9999-12-31 "end of time" (int96_from_spark.parquet).
// DuckDB reads them all. Open reads the INT96 columns of the top
// level itself: it scans them once at open, and gives them
// local-timestamp-micros when every value is a whole microsecond (Spark's
// timestamps always are; the range is then ±290,000 years, read as Spark
// reads it), else local-timestamp-nanos when every value lies in its
// range; a column of both (nanoseconds and dates past 2262) has no Avro
// timestamp that holds it exactly and is refused, naming it. INT96 inside
// lists and structs is left to arrow-go (nanoseconds). The timestamps are
// local (no time zone), as DuckDB and Arrow C++ read INT96: Impala and
// Hive wrote wall-clock times, and toparquet writes them back as
// timestamps DuckDB reads as the original's.

// julianUnixEpoch is the Julian day of 1970-01-01.
const julianUnixEpoch = 2440588

// int96Col is a top-level INT96 column read by Open itself.
type int96Col struct {
	field int // the index of its field in the Arrow schema
	col   int // its Parquet column
	typ   *arrow.TimestampType
}

// int96Micros returns an INT96 value as microseconds since 1970 as
// Spark reads it (its Julian day a signed 32-bit count, its nanoseconds a
// signed 64-bit count, the sum in 64-bit arithmetic that wraps: Spark
// writes timestamps near the ends of its range so, 290000-12-31 with a
// negative day and negative nanoseconds), and whether its nanoseconds are
// a whole number of microseconds.
func int96Micros(v parquet.Int96) (us int64, whole bool) {
	nanos := int64(binary.LittleEndian.Uint64(v[:8]))
	days := int64(int32(binary.LittleEndian.Uint32(v[8:]))) - julianUnixEpoch
	return days*86400_000_000 + nanos/1000, nanos%1000 == 0
}

// int96Nanos returns an INT96 value as nanoseconds since 1970, and whether
// it lies in their range (its nanoseconds those of a day).
func int96Nanos(v parquet.Int96) (int64, bool) {
	t, err := v.ToTimestamp()
	return int64(t), err == nil
}

// findInt96 returns the top-level INT96 columns of a file, their unit
// chosen by scanning their values.
func findInt96(rd *file.Reader, m *pqarrow.SchemaManifest) ([]int96Col, error) {
	var out []int96Col
	descr := rd.MetaData().Schema
	for i := range m.Fields {
		sf := &m.Fields[i]
		if !sf.IsLeaf() || sf.ColIndex < 0 || sf.ColIndex >= descr.NumColumns() || descr.Column(sf.ColIndex).PhysicalType() != parquet.Types.Int96 {
			continue
		}
		if descr.Column(sf.ColIndex).MaxRepetitionLevel() != 0 {
			continue
		}
		unit, err := scanInt96(rd, sf.ColIndex)
		if err != nil {
			return nil, err
		}
		out = append(out, int96Col{field: i, col: sf.ColIndex, typ: &arrow.TimestampType{Unit: unit}})
	}
	return out, nil
}

// scanInt96 reads an INT96 column through and returns the unit its values
// take.
func scanInt96(rd *file.Reader, col int) (arrow.TimeUnit, error) {
	name := rd.MetaData().Schema.Column(col).Path()
	allWhole, allNanos := true, true
	for g := range rd.NumRowGroups() {
		err := eachInt96(rd, g, col, func(v parquet.Int96) error {
			_, whole := int96Micros(v)
			_, inNanos := int96Nanos(v)
			allWhole, allNanos = allWhole && whole, allNanos && inNanos
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	switch {
	case allWhole:
		return arrow.Microsecond, nil
	case allNanos:
		return arrow.Nanosecond, nil
	}
	return 0, fmt.Errorf("Parquet column %s: its INT96 timestamps hold nanoseconds and dates outside 1677-2262, which no Avro timestamp holds both of", name)
}

// eachInt96 calls f with each value (not null) of an INT96 column of row
// group g.
func eachInt96(rd *file.Reader, g, col int, f func(parquet.Int96) error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("Parquet row group %d, column %s: bad data", g, rd.MetaData().Schema.Column(col).Path())
		}
	}()
	cr, err := rd.RowGroup(g).Column(col)
	if err != nil {
		return err
	}
	r, ok := cr.(*file.Int96ColumnChunkReader)
	if !ok {
		return fmt.Errorf("Parquet column %d is not INT96", col)
	}
	vals := make([]parquet.Int96, 1024)
	defs := make([]int16, 1024)
	for r.HasNext() {
		_, n, err := r.ReadBatch(int64(len(vals)), vals, defs, nil)
		if err != nil {
			return fmt.Errorf("Parquet row group %d, column %s: %w", g, rd.MetaData().Schema.Column(col).Path(), err)
		}
		if n == 0 {
			break
		}
		for _, v := range vals[:n] {
			if err := f(v); err != nil {
				return err
			}
		}
	}
	return nil
}

// int96Reader reads the rows of one INT96 column of a row group as
// timestamps, in step with pqarrow's batches of the others.
type int96Reader struct {
	c    int96Col
	name string
	r    *file.Int96ColumnChunkReader
	maxD int16
	vals []parquet.Int96
	defs []int16
}

func newInt96Reader(rd *file.Reader, g int, c int96Col) (*int96Reader, error) {
	cr, err := rd.RowGroup(g).Column(c.col)
	if err != nil {
		return nil, err
	}
	r, ok := cr.(*file.Int96ColumnChunkReader)
	if !ok {
		return nil, fmt.Errorf("Parquet column %d is not INT96", c.col)
	}
	d := rd.MetaData().Schema.Column(c.col)
	return &int96Reader{c: c, name: d.Path(), r: r, maxD: d.MaxDefinitionLevel()}, nil
}

// read returns the next n rows as an array.
func (ir *int96Reader) read(mem memory.Allocator, n int) (arrow.Array, error) {
	b := array.NewTimestampBuilder(mem, ir.c.typ)
	defer b.Release()
	b.Reserve(n)
	if cap(ir.vals) < n {
		ir.vals, ir.defs = make([]parquet.Int96, n), make([]int16, n)
	}
	vals, defs := ir.vals[:n], ir.defs[:n]
	for got := 0; got < n; {
		levels, nv, err := ir.r.ReadBatch(int64(n-got), vals, defs, nil)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", ir.name, err)
		}
		if levels == 0 {
			return nil, fmt.Errorf("column %s: %d rows of the row group's %d missing", ir.name, n-got, n)
		}
		k := 0
		for _, d := range defs[:levels] {
			if d < ir.maxD {
				b.AppendNull()
				continue
			}
			if k >= nv {
				return nil, fmt.Errorf("column %s: fewer values than its definition levels say", ir.name)
			}
			v := vals[k]
			k++
			var x int64
			var ok bool
			if ir.c.typ.Unit == arrow.Microsecond {
				x, ok = int96Micros(v)
			} else {
				x, ok = int96Nanos(v)
			}
			if !ok {
				return nil, fmt.Errorf("column %s: INT96 value is not a valid timestamp", ir.name)
			}
			b.Append(arrow.Timestamp(x))
		}
		got += int(levels)
	}
	return b.NewArray(), nil
}

// int96Batches reads row group g of a file with top-level INT96 columns:
// the other columns through pqarrow, the INT96 ones by int96Reader, each
// batch put together in the order of the schema as (of the fields as
// pqarrow makes them, INT96 columns of their chosen unit). each is called
// with every batch, which it must not keep.
func (p *File) int96Batches(ctx context.Context, g int, as *arrow.Schema, each func(arrow.RecordBatch) error) error {
	mem := memory.NewGoAllocator()
	readers := make(map[int]*int96Reader, len(p.int96))
	skip := make(map[int]bool, len(p.int96))
	for _, c := range p.int96 {
		r, err := newInt96Reader(p.pf, g, c)
		if err != nil {
			return fmt.Errorf("Parquet row group %d: %w", g, err)
		}
		readers[c.field], skip[c.col] = r, true
	}
	var cols []int
	for c := range p.pf.MetaData().Schema.NumColumns() {
		if !skip[c] {
			cols = append(cols, c)
		}
	}
	rows := p.pf.MetaData().RowGroup(g).NumRows()
	if len(cols) == 0 {
		// Only INT96 columns: batches of the reader's size.
		for done := int64(0); done < rows; {
			n := min(rows-done, int64(p.batchRows))
			if err := p.int96Batch(mem, nil, as, readers, int(n), each); err != nil {
				return fmt.Errorf("Parquet row group %d: %w", g, err)
			}
			done += n
		}
		return nil
	}
	rr, err := p.fr.GetRecordReader(ctx, cols, []int{g})
	if err != nil {
		return fmt.Errorf("Parquet row group %d: %w", g, err)
	}
	defer rr.Release()
	for rr.Next() {
		if err := ctx.Err(); err != nil {
			return err
		}
		rec := rr.RecordBatch()
		if err := p.int96Batch(mem, rec, as, readers, int(rec.NumRows()), each); err != nil {
			return fmt.Errorf("Parquet row group %d: %w", g, err)
		}
	}
	return rr.Err()
}

// int96Batch puts together one batch of n rows: rec's columns (nil for
// none) and those the readers read.
func (p *File) int96Batch(mem memory.Allocator, rec arrow.RecordBatch, as *arrow.Schema, readers map[int]*int96Reader, n int, each func(arrow.RecordBatch) error) error {
	cols := make([]arrow.Array, as.NumFields())
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	k := 0
	for i := range cols {
		if r := readers[i]; r != nil {
			a, err := r.read(mem, n)
			if err != nil {
				return err
			}
			cols[i] = a
			continue
		}
		if rec == nil || k >= int(rec.NumCols()) {
			return fmt.Errorf("column %s missing from the batch", as.Field(i).Name)
		}
		cols[i] = rec.Column(k)
		cols[i].Retain()
		k++
	}
	b := array.NewRecordBatch(as, cols, int64(n))
	defer b.Release()
	return each(b)
}

// withInt96 returns as with the INT96 columns of their chosen types.
func withInt96(as *arrow.Schema, cols []int96Col) *arrow.Schema {
	if len(cols) == 0 {
		return as
	}
	fields := as.Fields()
	for _, c := range cols {
		if c.field < len(fields) {
			fields[c.field].Type = c.typ
		}
	}
	md := as.Metadata()
	return arrow.NewSchema(fields, &md)
}
