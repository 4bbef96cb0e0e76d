package trevnisql

/*
#include <stdlib.h>
#include <stdint.h>

void trevnisql_bind(void *info);
void trevnisql_init(void *info);
void trevnisql_local_init(void *info);
void trevnisql_function(void *info, void *output);
void trevnisql_delete(void *data);
void trevnisql_replacement(void *info, void *table_name, void *data);

typedef void (*trevnisql_info_fn)(void *);
typedef void (*trevnisql_function_fn)(void *, void *);
typedef void (*trevnisql_replacement_fn)(void *, void *, void *);
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/cgo"
	"sync/atomic"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	bindings "github.com/duckdb/duckdb-go-bindings"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/trevniarrow"
)

// FunctionName is the name of the table function that reads a data set.
const FunctionName = "trevni_scan"

// FilterParameter is the name of trevni_scan's named parameter that
// takes a filter in package predicate's grammar (as trevni tojson
// --where takes it): trevni_scan('orders/*.trv', filter := 'amount > 100')
// reads only the records satisfying it, and skips the blocks whose
// statistics rule out a match. DuckDB gives a table function nothing of
// the query's WHERE, so this is the way to skip blocks.
const FilterParameter = "filter"

// minUnitRows is the fewest rows of a range of a Trevni 2 part that one
// thread reads at a time.
const minUnitRows = 64 << 10

// arrowMapping is the Arrow mapping of the scans: unions other than
// ["null", T] as structs of a nullable field per non-null branch, which
// duckRecord turns into the sparse unions DuckDB reads (see duckType).
func arrowMapping() trevniarrow.SchemaOptions {
	return trevniarrow.SchemaOptions{UnionsAsStructs: true}
}

// scanner is the table function's state shared by every scan of one
// database: how data sets are opened.
type scanner struct {
	db      *DB
	open    *trevni.Options
	threads int
}

// register registers trevni_scan and the replacement scan with the
// database.
func (s *scanner) register(db bindings.Database) error {
	f := bindings.CreateTableFunction()
	defer bindings.DestroyTableFunction(&f)
	bindings.TableFunctionSetName(f, FunctionName)
	varchar := bindings.CreateLogicalType(bindings.TypeVarchar)
	bindings.TableFunctionAddParameter(f, varchar)
	bindings.TableFunctionAddNamedParameter(f, FilterParameter, varchar)
	bindings.DestroyLogicalType(&varchar)
	bindings.TableFunctionSetExtraInfo(f, newHandle(s), deleteFn())
	bindings.TableFunctionSetBind(f, unsafe.Pointer(C.trevnisql_info_fn(C.trevnisql_bind)))
	bindings.TableFunctionSetInit(f, unsafe.Pointer(C.trevnisql_info_fn(C.trevnisql_init)))
	bindings.TableFunctionSetLocalInit(f, unsafe.Pointer(C.trevnisql_info_fn(C.trevnisql_local_init)))
	bindings.TableFunctionSetFunction(f, unsafe.Pointer(C.trevnisql_function_fn(C.trevnisql_function)))
	bindings.TableFunctionSupportsProjectionPushdown(f, true)
	if bindings.RegisterTableFunction(s.db.conv, f) == bindings.StateError {
		return errors.New("registering the table function " + FunctionName)
	}
	bindings.AddReplacementScan(db, unsafe.Pointer(C.trevnisql_replacement_fn(C.trevnisql_replacement)), newHandle(s), deleteFn())
	return nil
}

// newHandle returns C memory holding a handle to v, which trevnisql_delete
// frees (a Go pointer may not be kept by C).
func newHandle(v any) unsafe.Pointer {
	p := C.malloc(C.size_t(unsafe.Sizeof(cgo.Handle(0))))
	*(*cgo.Handle)(p) = cgo.NewHandle(v)
	return p
}

// handleValue returns the value of a handle newHandle made.
func handleValue[T any](p unsafe.Pointer) T {
	return (*(*cgo.Handle)(p)).Value().(T)
}

// deleteFn is the callback that frees a handle of newHandle.
func deleteFn() unsafe.Pointer {
	return unsafe.Pointer(C.trevnisql_info_fn(C.trevnisql_delete))
}

//export trevnisql_delete
func trevnisql_delete(p unsafe.Pointer) {
	h := *(*cgo.Handle)(p)
	if c, ok := h.Value().(interface{ close() }); ok {
		c.close()
	}
	h.Delete()
	C.free(p)
}

//export trevnisql_replacement
func trevnisql_replacement(infoPtr, namePtr, data unsafe.Pointer) {
	name := C.GoString((*C.char)(namePtr))
	if !trevniName(name) {
		return // not a Trevni data set: DuckDB tries its own readers
	}
	info := bindings.ReplacementScanInfo{Ptr: infoPtr}
	bindings.ReplacementScanSetFunctionName(info, FunctionName)
	v := bindings.CreateVarchar(name)
	bindings.ReplacementScanAddParameter(info, v)
	bindings.DestroyValue(&v)
}

// bindData is what binding trevni_scan('SOURCE') learnt of the data set.
type bindData struct {
	s       *scanner
	source  string
	filter  string             // the named parameter filter, if given
	record  bool               // the schema is a record: its fields can be selected
	names   []string           // the columns, in order
	direct  []format.ValueType // per column, its Trevni type if the direct path reads it, else 255
	parts   []partInfo
	reshape bool // the batches need duckRecord (see duckType)
}

// notDirect marks a column the direct path does not read.
const notDirect format.ValueType = 255

// partInfo is one part of a data set.
type partInfo struct {
	name   string
	rows   int64
	format trevni.Format
}

//export trevnisql_bind
func trevnisql_bind(infoPtr unsafe.Pointer) {
	info := bindings.BindInfo{Ptr: infoPtr}
	s := handleValue[*scanner](bindings.BindGetExtraInfo(info))
	v := bindings.BindGetParameter(info, 0)
	source := bindings.GetVarchar(v)
	bindings.DestroyValue(&v)
	var filter string
	if w := bindings.BindGetNamedParameter(info, FilterParameter); w.Ptr != nil {
		if !bindings.IsNullValue(w) {
			filter = bindings.GetVarchar(w)
		}
		bindings.DestroyValue(&w)
	}
	bd, types, err := s.bind(source, filter)
	if err != nil {
		bindings.BindSetError(info, fmt.Sprintf("%s(%s): %v", FunctionName, quoteString(source), err))
		return
	}
	var rows int64
	for _, p := range bd.parts {
		rows += p.rows
	}
	for i, name := range bd.names {
		bindings.BindAddResultColumn(info, name, types[i])
		bindings.DestroyLogicalType(&types[i])
	}
	bindings.BindSetCardinality(info, bindings.IdxT(rows), filter == "")
	bindings.BindSetBindData(info, newHandle(bd), deleteFn())
}

// bind opens the data set source and returns its parts and its columns'
// DuckDB types (which the caller destroys).
func (s *scanner) bind(source, filter string) (*bindData, []bindings.LogicalType, error) {
	ctx := context.Background()
	ds, err := trevni.Open(ctx, source, s.open)
	if err != nil {
		return nil, nil, err
	}
	defer ds.Close()
	if filter != "" {
		// A reader checks the filter (its grammar, its fields) as it
		// starts.
		r, err := ds.NewReader(ctx, &trevni.ReadOptions{Where: filter, Limit: 1})
		if err != nil {
			return nil, nil, fmt.Errorf("%s := %s: %w", FilterParameter, quoteString(filter), err)
		}
		r.Close()
	}
	as, err := trevniarrow.ArrowSchema(ds.Schema(), new(arrowMapping()))
	if err != nil {
		return nil, nil, err
	}
	bd := &bindData{s: s, source: source, filter: filter, record: ds.Schema().Kind == schema.Record}
	as, bd.reshape = duckSchema(ds.Schema(), as)
	for _, f := range as.Fields() {
		bd.names = append(bd.names, f.Name)
	}
	bd.direct = make([]format.ValueType, len(bd.names))
	for i := range bd.direct {
		bd.direct[i] = notDirect
		if bd.record {
			if t, ok := directType(ds.Schema().Fields[i].Type); ok {
				bd.direct[i] = t
			}
		}
	}
	for _, p := range ds.Parts() {
		bd.parts = append(bd.parts, partInfo{name: p.Name(), rows: p.RowCount(), format: p.Format()})
	}
	if len(bd.parts) == 0 {
		return nil, nil, errors.New("no parts")
	}
	types, err := s.types(as)
	if err != nil {
		return nil, nil, err
	}
	return bd, types, nil
}

// types returns the DuckDB types of the columns of the Arrow schema as:
// those of an empty batch of it converted by DuckDB.
func (s *scanner) types(as *arrow.Schema) ([]bindings.LogicalType, error) {
	cs, err := newConvertedSchema(s.db.conv, as)
	if err != nil {
		return nil, fmt.Errorf("DuckDB cannot read the Arrow schema %s: %w", as, err)
	}
	defer cs.destroy()
	b := array.NewRecordBuilder(memory.DefaultAllocator, as)
	defer b.Release()
	rec := b.NewRecordBatch()
	defer rec.Release()
	chunk, err := chunkFromArrow(s.db.conv, rec, cs)
	if err != nil {
		return nil, err
	}
	defer destroyChunk(chunk)
	types := make([]bindings.LogicalType, len(as.Fields()))
	for i := range types {
		types[i] = bindings.VectorGetColumnType(bindings.DataChunkGetVector(chunk, bindings.IdxT(i)))
	}
	return types, nil
}

// unit is a piece of a scan one thread reads: a part, or a range of rows
// of one.
type unit struct {
	part         string
	offset, rows int64 // rows 0: the whole part
	count        int64 // its rows
}

// scanState is one scan's shared state: the projection and the units
// left.
type scanState struct {
	bd     *bindData
	cols   []int    // per output column, its column of the data set (-1: none, a row id)
	fields []string // the fields to read (nil: all)
	units  []unit
	next   atomic.Int64
	direct bool // every column read is one the direct path reads
}

//export trevnisql_init
func trevnisql_init(infoPtr unsafe.Pointer) {
	info := bindings.InitInfo{Ptr: infoPtr}
	bd := handleValue[*bindData](bindings.InitGetBindData(info))
	st := &scanState{bd: bd}
	n := int(bindings.InitGetColumnCount(info))
	for i := range n {
		c := int(bindings.InitGetColumnIndex(info, bindings.IdxT(i)))
		if c < 0 || c >= len(bd.names) {
			c = -1 // the row id, or another virtual column
		} else if bd.record {
			st.fields = append(st.fields, bd.names[c])
		}
		st.cols = append(st.cols, c)
	}
	st.direct = bd.filter == "" // the direct path does not filter
	for _, c := range st.cols {
		if c >= 0 && bd.direct[c] == notDirect {
			st.direct = false
		}
	}
	for _, p := range bd.parts {
		if p.format != trevni.Trevni2 {
			st.direct = false
		}
	}
	threads := bd.s.threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	var total int64
	for _, p := range bd.parts {
		total += p.rows
	}
	per := max(minUnitRows, (total+int64(4*threads)-1)/int64(4*threads))
	for _, p := range bd.parts {
		if p.format != trevni.Trevni2 || p.rows <= per {
			st.units = append(st.units, unit{part: p.name, count: p.rows})
			continue
		}
		for off := int64(0); off < p.rows; off += per {
			n := min(per, p.rows-off)
			st.units = append(st.units, unit{part: p.name, offset: off, rows: n, count: n})
		}
	}
	bindings.InitSetMaxThreads(info, bindings.IdxT(max(1, min(threads, len(st.units)))))
	bindings.InitSetInitData(info, newHandle(st), deleteFn())
}

// localState is one thread's state in a scan: the unit it reads.
type localState struct {
	st        *scanState
	ds        *trevni.Dataset
	rr        *trevniarrow.RecordReader
	dr        *directReader
	cs        convertedSchema
	colmap    []int // per output column, its column in the batches (-1: none)
	countOnly bool  // the scan reads no column: only counts rows
	left      int64 // rows left to count when countOnly
	started   bool
	reshape   *arrow.Schema // the batches' schema after duckRecord, if they need it
}

//export trevnisql_local_init
func trevnisql_local_init(infoPtr unsafe.Pointer) {
	// The scan's shared state is not reachable from here: the thread's
	// first call of trevnisql_function takes it.
	bindings.InitSetInitData(bindings.InitInfo{Ptr: infoPtr}, newHandle(&localState{}), deleteFn())
}

// hasColumn reports whether some output column is a column of the data
// set.
func hasColumn(cols []int) bool {
	for _, c := range cols {
		if c >= 0 {
			return true
		}
	}
	return false
}

//export trevnisql_function
func trevnisql_function(infoPtr, outputPtr unsafe.Pointer) {
	info := bindings.FunctionInfo{Ptr: infoPtr}
	output := bindings.DataChunk{Ptr: outputPtr}
	ls := handleValue[*localState](bindings.FunctionGetLocalInitData(info))
	if ls.st == nil {
		ls.st = handleValue[*scanState](bindings.FunctionGetInitData(info))
		ls.countOnly = !hasColumn(ls.st.cols)
	}
	n, err := ls.fill(output)
	if err != nil {
		bindings.FunctionSetError(info, fmt.Sprintf("%s(%s): %v", FunctionName, quoteString(ls.st.bd.source), err))
		return
	}
	bindings.DataChunkSetSize(output, bindings.IdxT(n))
}

// fill fills output with the next rows and returns how many; 0 ends the
// scan.
func (ls *localState) fill(output bindings.DataChunk) (int, error) {
	size := int64(bindings.VectorSize())
	for {
		if ls.countOnly {
			if ls.left > 0 {
				n := min(ls.left, size)
				ls.left -= n
				return int(n), nil
			}
		} else if ls.dr != nil {
			n, err := ls.dr.fill(output)
			if n > 0 || err != nil {
				return n, err
			}
			if err := ls.closeReader(); err != nil {
				return 0, err
			}
		} else if ls.rr != nil {
			if ls.rr.Next() {
				return ls.emit(output)
			}
			if err := ls.closeReader(); err != nil {
				return 0, err
			}
		}
		i := ls.st.next.Add(1) - 1
		if i >= int64(len(ls.st.units)) {
			return 0, nil
		}
		u := ls.st.units[i]
		if ls.countOnly {
			ls.left = u.count
			continue
		}
		if err := ls.openReader(u); err != nil {
			return 0, err
		}
	}
}

// openReader starts reading the unit u.
func (ls *localState) openReader(u unit) error {
	ctx := context.Background()
	if ls.st.direct {
		dr, err := openDirect(ctx, ls.st.bd, u, ls.st.cols)
		if err != nil {
			return err
		}
		if dr != nil {
			ls.dr = dr
			return nil
		}
	}
	ds, err := trevni.OpenFiles(ctx, []string{u.part}, ls.st.bd.s.open)
	if err != nil {
		return err
	}
	opts := &trevniarrow.ReadOptions{BatchRows: int(bindings.VectorSize()), Schema: arrowMapping()}
	opts.Fields = ls.st.fields
	opts.Where = ls.st.bd.filter
	opts.Offset, opts.Rows = u.offset, u.rows
	rr, err := trevniarrow.NewRecordReader(ctx, ds, opts)
	if err != nil {
		ds.Close()
		return err
	}
	ls.ds, ls.rr = ds, rr
	if !ls.started {
		as := rr.Schema()
		if ls.st.bd.reshape {
			as, _ = duckSchema(rr.AvroSchema(), as)
			ls.reshape = as
		}
		ls.cs, err = newConvertedSchema(ls.st.bd.s.db.conv, as)
		if err != nil {
			return err
		}
		for _, c := range ls.st.cols {
			j := -1
			if c >= 0 {
				if idx := as.FieldIndices(ls.st.bd.names[c]); len(idx) == 1 {
					j = idx[0]
				} else {
					return fmt.Errorf("the batches have no one column %q", ls.st.bd.names[c])
				}
			}
			ls.colmap = append(ls.colmap, j)
		}
		ls.started = true
	}
	return nil
}

// emit hands the reader's current batch to DuckDB as output's vectors.
func (ls *localState) emit(output bindings.DataChunk) (int, error) {
	rec := ls.rr.RecordBatch()
	if ls.reshape != nil {
		rec = duckRecord(rec, ls.reshape)
		defer rec.Release()
	}
	chunk, err := chunkFromArrow(ls.st.bd.s.db.conv, rec, ls.cs)
	if err != nil {
		return 0, err
	}
	defer destroyChunk(chunk)
	for i, j := range ls.colmap {
		if j < 0 {
			continue
		}
		bindings.VectorReferenceVector(bindings.DataChunkGetVector(output, bindings.IdxT(i)), bindings.DataChunkGetVector(chunk, bindings.IdxT(j)))
	}
	return int(rec.NumRows()), nil
}

// closeReader ends the read of a unit, recording its report.
func (ls *localState) closeReader() error {
	if ls.dr != nil {
		ls.st.bd.s.db.addReports([]trevni.PartReport{ls.dr.report()})
		err := ls.dr.close()
		ls.dr = nil
		return err
	}
	if ls.rr == nil {
		return nil
	}
	err := ls.rr.Err()
	ls.st.bd.s.db.addReports(ls.rr.Report())
	err = errors.Join(err, ls.rr.Close(), ls.ds.Close())
	ls.rr, ls.ds = nil, nil
	return err
}

// close frees the thread's state when DuckDB is done with it.
func (ls *localState) close() {
	if ls.st == nil {
		return
	}
	ls.closeReader()
	ls.cs.destroy()
}
