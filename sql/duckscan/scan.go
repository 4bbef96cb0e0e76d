package duckscan

/*
#include <stdlib.h>
#include "calls.h"

void duckscan_bind(duckdb_bind_info info);
void duckscan_init(duckdb_init_info info);
void duckscan_local_init(duckdb_init_info info);
void duckscan_function(duckdb_function_info info, duckdb_data_chunk output);
void duckscan_delete(void *data);
void duckscan_replacement(duckdb_replacement_scan_info info, char *table_name, void *data);
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/trevniarrow"
)

// FunctionName is the name of the table function that reads a data set;
// LegacyName is the other name it goes by (trevni-sql's first).
const (
	FunctionName = "read_trevni"
	LegacyName   = "trevni_scan"
)

// The named parameters of read_trevni.
const (
	// FilterParameter takes a filter in package predicate's grammar (as
	// trevni tojson --where takes it): read_trevni('orders/*.trv', filter
	// := 'amount > 100') reads only the records satisfying it, and skips
	// the blocks whose statistics rule out a match. DuckDB gives a table
	// function of its C API nothing of the query's WHERE, so this is the
	// way to skip blocks.
	FilterParameter = "filter"
	// FilenameParameter, true, adds the column filename: the part each
	// row comes from.
	FilenameParameter = "filename"
	// BlockMemoryParameter bounds the bytes of block buffers one reader
	// holds (format.ReaderOptions.BlockMemory).
	BlockMemoryParameter = "block_memory"
	// MaxRecordBytesParameter bounds the bytes of one record as
	// assembled (trevni.OpenOptions.MaxRecordBytes).
	MaxRecordBytesParameter = "max_record_bytes"
	// MaxBlockSizeParameter bounds the bytes of one block
	// (format.ReaderOptions.MaxBlockSize).
	MaxBlockSizeParameter = "max_block_size"
	// MaxColumnsParameter bounds the columns of the parts' schemas'
	// layout (trevni.OpenOptions.MaxColumns).
	MaxColumnsParameter = "max_columns"
	// MaxDepthParameter bounds the nesting of the parts' schemas
	// (trevni.OpenOptions.MaxDepth).
	MaxDepthParameter = "max_depth"
)

// limitParameters are the named parameters of the readers' limits, in
// the order of a scan's limits (scanner.options) and of limitSettings.
var limitParameters = [numLimits]string{BlockMemoryParameter, MaxBlockSizeParameter, MaxRecordBytesParameter, MaxColumnsParameter, MaxDepthParameter}

// numLimits is how many limits a scan takes as named parameters or
// settings.
const numLimits = 5

// PanicTestVariable names the environment variable of the tests of
// panics: binding the source it names panics, which the scan must turn
// into the query's error.
const PanicTestVariable = "TREVNI_DUCKDB_PANIC_SOURCE"

// FilenameColumn is the name of the column FilenameParameter adds.
const FilenameColumn = "filename"

// minUnitRows is the fewest rows of a range of a Trevni 2 part that one
// thread reads at a time.
const minUnitRows = 64 << 10

// arrowMapping is the Arrow mapping of the scans: the Parquet mapping
// (unions as structs of a nullable field per non-null branch, which
// duckRecord turns into the sparse unions written as DuckDB UNIONs, and
// durations as INTERVALs), the one trevni toparquet writes.
func arrowMapping() trevniarrow.SchemaOptions {
	return trevniarrow.SchemaOptions{UnionsAsStructs: true, Parquet: true}
}

// Config configures the scans of one database.
type Config struct {
	// Open configures the opening and reading of the data sets: the
	// reader's limits, HTTP, the temporary directory. nil means trevni's
	// defaults. The named parameters block_memory, max_block_size and
	// max_record_bytes override its limits for one scan.
	Open *trevni.OpenOptions
	// Threads bounds the threads one scan runs on; 0 means GOMAXPROCS.
	Threads int
	// Reports, if set, is given the reports of the parts read, as the
	// reads end (from several threads at once).
	Reports func([]trevni.PartReport)
	// Arrow makes every scan read Arrow batches (trevniarrow's
	// RecordReader) rather than write DuckDB's vectors from the columns'
	// levels: slower, the way the scan reads what the levels path does
	// not cover; tests set it to compare the two paths.
	Arrow bool
}

// scanner is the state shared by every scan of one database.
type scanner struct {
	cfg Config
}

// Register registers read_trevni and trevni_scan, trevni_metadata and
// trevni_schema, and the copy function of
// COPY ... TO ... (FORMAT trevni) through the connection conn (a
// duckdb_connection), and the replacement scan of names ending
// in .trv, .trv1 and .clmn with the database db (a duckdb_database).
// SetAPI must have been called.
func Register(conn, db unsafe.Pointer, cfg *Config) error {
	if C.trevni_api == nil {
		return errors.New("duckscan: SetAPI was not called")
	}
	s := &scanner{}
	if cfg != nil {
		s.cfg = *cfg
	}
	for _, name := range []string{FunctionName, LegacyName} {
		if err := s.register(C.duckdb_connection(conn), name); err != nil {
			return err
		}
	}
	if err := s.registerCopy(C.duckdb_connection(conn)); err != nil {
		return err
	}
	if err := s.registerRows(C.duckdb_connection(conn)); err != nil {
		return err
	}
	registerSettings(C.duckdb_connection(conn))
	C.td_add_replacement_scan(C.duckdb_database(db), C.duckdb_replacement_callback_t(C.duckscan_replacement), newHandle(s), C.duckdb_delete_callback_t(C.duckscan_delete))
	return nil
}

// register registers the table function under name.
func (s *scanner) register(conn C.duckdb_connection, name string) error {
	f := C.td_create_table_function()
	defer C.td_destroy_table_function(&f)
	cname := cString(name)
	defer C.free(unsafe.Pointer(cname))
	C.td_table_function_set_name(f, cname)
	varchar := C.td_create_logical_type(typeVarchar)
	defer C.td_destroy_logical_type(&varchar)
	boolean := C.td_create_logical_type(typeBoolean)
	defer C.td_destroy_logical_type(&boolean)
	bigint := C.td_create_logical_type(typeBigint)
	defer C.td_destroy_logical_type(&bigint)
	C.td_table_function_add_parameter(f, varchar)
	for _, p := range []struct {
		name string
		t    C.duckdb_logical_type
	}{{FilterParameter, varchar}, {FilenameParameter, boolean}, {UnionByNameParameter, boolean}, {BlockMemoryParameter, bigint}, {MaxBlockSizeParameter, bigint}, {MaxRecordBytesParameter, bigint}, {MaxColumnsParameter, bigint}, {MaxDepthParameter, bigint}} {
		n := cString(p.name)
		C.td_table_function_add_named_parameter(f, n, p.t)
		C.free(unsafe.Pointer(n))
	}
	C.td_table_function_set_extra_info(f, newHandle(s), C.duckdb_delete_callback_t(C.duckscan_delete))
	C.td_table_function_set_bind(f, C.duckdb_table_function_bind_t(C.duckscan_bind))
	C.td_table_function_set_init(f, C.duckdb_table_function_init_t(C.duckscan_init))
	C.td_table_function_set_local_init(f, C.duckdb_table_function_init_t(C.duckscan_local_init))
	C.td_table_function_set_function(f, C.duckdb_table_function_t(C.duckscan_function))
	C.td_table_function_supports_projection_pushdown(f, true)
	if C.td_register_table_function(conn, f) != 0 {
		return errors.New("registering the table function " + name)
	}
	return nil
}

//export duckscan_replacement
func duckscan_replacement(info C.duckdb_replacement_scan_info, tableName *C.char, _ unsafe.Pointer) {
	defer recoverPanic(func(msg string) { setError(msg, func(m *C.char) { C.td_replacement_scan_set_error(info, m) }) })
	name := C.GoString(tableName)
	if !TrevniName(name) {
		return // not a Trevni data set: DuckDB tries its own readers
	}
	fn := cString(FunctionName)
	defer C.free(unsafe.Pointer(fn))
	C.td_replacement_scan_set_function_name(info, fn)
	cn := cString(name)
	defer C.free(unsafe.Pointer(cn))
	v := C.td_create_varchar(cn)
	C.td_replacement_scan_add_parameter(info, v)
	C.td_destroy_value(&v)
}

// TrevniName reports whether a table name in quotes names a Trevni data
// set: a path or glob ending in .trv, .trv1 or .clmn.
func TrevniName(name string) bool {
	lower := strings.ToLower(name)
	return slices.ContainsFunc([]string{".trv", ".trv1", ".clmn"}, func(ext string) bool { return strings.HasSuffix(lower, ext) })
}

// optionWords turns the reader options that the library's messages name
// into what a DuckDB user sets: read_trevni's named parameter, or the
// setting beside it.
var optionWords = strings.NewReplacer(
	"--block-memory (format.ReaderOptions.BlockMemory)", blockMemoryWords,
	"--max-block-size (format.ReaderOptions.MaxBlockSize)", maxBlockSizeWords,
	"format.ReaderOptions.BlockMemory", blockMemoryWords,
	"format.ReaderOptions.MaxBlockSize", maxBlockSizeWords,
	"OpenOptions.BlockMemory", blockMemoryWords,
	"OpenOptions.MaxBlockSize", maxBlockSizeWords,
	"OpenOptions.MaxRecordBytes", maxRecordBytesWords,
	"ReaderOptions.BlockMemory", blockMemoryWords,
	"ReaderOptions.ColumnMemory", blockMemoryWords,
	"ReaderOptions.MaxBlockSize", maxBlockSizeWords,
	"Options.MaxRecordBytes", maxRecordBytesWords,
	"OpenOptions.MaxColumns", maxColumnsWords,
	"OpenOptions.MaxDepth", maxDepthWords,
	"layout.Options.MaxColumns", maxColumnsWords,
	"layout.Options.MaxDepth", maxDepthWords,
	"ParseOptions.MaxDepth", maxDepthWords,
)

const (
	blockMemoryWords    = BlockMemoryParameter + " (or SET " + BlockMemorySetting + ")"
	maxBlockSizeWords   = MaxBlockSizeParameter + " (or SET " + MaxBlockSizeSetting + ")"
	maxRecordBytesWords = MaxRecordBytesParameter + " (or SET " + MaxRecordBytesSetting + ")"
	maxColumnsWords     = MaxColumnsParameter + " (or SET " + MaxColumnsSetting + ")"
	maxDepthWords       = MaxDepthParameter + " (or SET " + MaxDepthSetting + ")"
)

// setError hands msg to a DuckDB setter of errors, the reader options it
// names in the words of DuckDB's user (optionWords).
func setError(msg string, set func(*C.char)) {
	msg = optionWords.Replace(msg)
	m := cString(msg)
	defer C.free(unsafe.Pointer(m))
	set(m)
}

// bindData is what binding read_trevni('SOURCE') learnt of the data set.
type bindData struct {
	s        *scanner
	ds       *trevni.Dataset // the data set, open until DuckDB is done with the bind: the levels path opens its parts
	source   string
	filter   string // the named parameter filter, if given
	open     *trevni.OpenOptions
	filename bool             // the last column is FilenameColumn
	record   bool             // the schema is a record: its fields can be selected
	names    []string         // the data set's columns, in order, as DuckDB names them
	fields   []string         // of a record: each column's Avro field name (names may restore arrow.name)
	types    []arrow.DataType // per column, the Arrow type its DuckDB type was made from
	parts    []partInfo
	reshape  bool // the batches need duckRecord (see duckType)
}

// localPart reports whether the part called name is a local file. Its
// blocks are read and decompressed on DuckDB's thread: a goroutine a
// block reading ahead costs more in wake-ups than the overlap gives back
// (docs/duckdb.md, "Speed"). A remote part's readers read ahead, over
// the latency of its requests (scanner.options).
func (bd *bindData) localPart(name string) bool {
	var stores map[string]trevni.Store
	if bd.open != nil {
		stores = bd.open.Stores
	}
	return !frontdoor.IsURL(name, stores)
}

// partInfo is one part of a data set.
type partInfo struct {
	name   string
	rows   int64
	format trevni.Format
	text   string // its schema
}

// namedString returns the named parameter name as text ("" when not
// given), namedInt as an integer (0), namedBool as a boolean (false).
func namedValue(info C.duckdb_bind_info, name string, f func(C.duckdb_value)) {
	n := cString(name)
	defer C.free(unsafe.Pointer(n))
	v := C.td_bind_get_named_parameter(info, n)
	if v == nil {
		return
	}
	defer C.td_destroy_value(&v)
	if !bool(C.td_is_null_value(v)) {
		f(v)
	}
}

//export duckscan_bind
func duckscan_bind(info C.duckdb_bind_info) {
	defer recoverPanic(func(msg string) { setError(msg, func(m *C.char) { C.td_bind_set_error(info, m) }) })
	s := handleValue[*scanner](C.td_bind_get_extra_info(info))
	v := C.td_bind_get_parameter(info, 0)
	source := getVarchar(v)
	C.td_destroy_value(&v)
	if p := os.Getenv(PanicTestVariable); p != "" && p == source {
		panic("test panic, as " + PanicTestVariable + " asks")
	}
	var filter string
	var filename, unionByName bool
	var limits [numLimits]int64
	namedValue(info, FilterParameter, func(v C.duckdb_value) { filter = getVarchar(v) })
	namedValue(info, FilenameParameter, func(v C.duckdb_value) { filename = bool(C.td_get_bool(v)) })
	namedValue(info, UnionByNameParameter, func(v C.duckdb_value) { unionByName = bool(C.td_get_bool(v)) })
	for i, name := range limitParameters {
		namedValue(info, name, func(v C.duckdb_value) { limits[i] = int64(C.td_get_int64(v)) })
	}
	settingLimits(info, &limits)
	fail := func(err error) {
		setError(fmt.Sprintf("%s(%s): %v", FunctionName, quoteString(source), err), func(m *C.char) { C.td_bind_set_error(info, m) })
	}
	open, err := s.options(limits)
	if err != nil {
		fail(err)
		return
	}
	if unionByName {
		text, err := unionSchema(context.Background(), source, open)
		if err != nil {
			fail(err)
			return
		}
		var o trevni.OpenOptions
		if open != nil {
			o = *open
		}
		o.ReaderSchema = text
		open = &o
	}
	bd, as, err := s.bind(source, filter, open)
	if err != nil {
		fail(err)
		return
	}
	bd.filename = filename
	types := make([]C.duckdb_logical_type, 0, len(as.Fields())+1)
	defer func() {
		for i := range types {
			C.td_destroy_logical_type(&types[i])
		}
	}()
	for _, f := range as.Fields() {
		t, err := logicalType(f.Type)
		if err != nil {
			fail(fmt.Errorf("column %s: %w", f.Name, err))
			return
		}
		types = append(types, t)
	}
	names := bd.names
	if filename {
		if slices.Contains(names, FilenameColumn) {
			fail(fmt.Errorf("the data set has a column %s already: leave filename out", FilenameColumn))
			return
		}
		names = append(slices.Clip(names), FilenameColumn)
		types = append(types, C.td_create_logical_type(typeVarchar))
	}
	var rows int64
	for _, p := range bd.parts {
		rows += p.rows
	}
	for i, name := range names {
		n := cString(name)
		C.td_bind_add_result_column(info, n, types[i])
		C.free(unsafe.Pointer(n))
	}
	C.td_bind_set_cardinality(info, C.idx_t(rows), C.bool(filter == ""))
	C.td_bind_set_bind_data(info, newHandle(bd), C.duckdb_delete_callback_t(C.duckscan_delete))
}

// options returns the opening options of a scan: the configuration's,
// with the limits of the named parameters or settings, in the order of
// limitParameters (0 where not given).
func (s *scanner) options(limits [numLimits]int64) (*trevni.OpenOptions, error) {
	var o trevni.OpenOptions
	if s.cfg.Open != nil {
		o = *s.cfg.Open
	}
	// Each scan's column readers read ahead, as the front door did by
	// default before ReadAhead was an option of its own (a local part's
	// do not: see openLevels).
	o.ReadAhead = true
	for i, v := range limits {
		if v < 0 {
			return nil, fmt.Errorf("%s := %d: want a positive number", limitParameters[i], v)
		}
	}
	// asInt returns v as an int, or an error if it is past an int32
	// (the options that count blocks' bytes, columns and levels).
	asInt := func(i int, v int64) (int, error) {
		const maxInt32 = int64(^uint32(0) >> 1)
		if v > maxInt32 {
			return 0, fmt.Errorf("%s := %d: at most %d", limitParameters[i], v, maxInt32)
		}
		return int(v), nil
	}
	for i, v := range limits {
		if v == 0 {
			continue
		}
		var err error
		switch limitParameters[i] {
		case BlockMemoryParameter:
			o.BlockMemory = v
		case MaxBlockSizeParameter:
			o.MaxBlockSize, err = asInt(i, v)
		case MaxRecordBytesParameter:
			o.MaxRecordBytes = v
		case MaxColumnsParameter:
			o.MaxColumns, err = asInt(i, v)
		case MaxDepthParameter:
			o.MaxDepth, err = asInt(i, v)
		}
		if err != nil {
			return nil, err
		}
	}
	return &o, nil
}

// bind opens the data set source and returns what the scan needs of it
// and the Arrow schema of its columns as DuckDB gets them.
func (s *scanner) bind(source, filter string, open *trevni.OpenOptions) (*bindData, *arrow.Schema, error) {
	ctx := context.Background()
	ds, err := trevni.Open(ctx, source, open)
	if err != nil {
		return nil, nil, err
	}
	kept := false
	defer func() {
		if !kept {
			ds.Close()
		}
	}()
	if filter != "" {
		// A reader checks the filter (its grammar, its fields) as it
		// starts.
		r, err := ds.NewReader(ctx, &trevni.ReadOptions{Where: filter, Limit: 1})
		if err != nil {
			return nil, nil, fmt.Errorf("%s := %s: %w", FilterParameter, quoteString(filter), err)
		}
		r.Close()
	}
	as, err := trevniarrow.ArrowSchema(frontdoor.Schema(ds), new(arrowMapping()))
	if err != nil {
		return nil, nil, err
	}
	bd := &bindData{s: s, ds: ds, source: source, filter: filter, open: open, record: frontdoor.Schema(ds).Kind == schema.Record}
	as, bd.reshape = duckSchema(frontdoor.Schema(ds), as)
	for _, f := range as.Fields() {
		bd.names = append(bd.names, f.Name)
	}
	if bd.record {
		for _, f := range frontdoor.Schema(ds).Fields {
			bd.fields = append(bd.fields, f.Name)
		}
	}
	for _, f := range as.Fields() {
		bd.types = append(bd.types, f.Type)
	}
	for _, p := range ds.Parts() {
		bd.parts = append(bd.parts, partInfo{name: p.Name(), rows: p.RowCount(), format: p.Format(), text: p.SchemaText()})
	}
	if len(bd.parts) == 0 {
		return nil, nil, errors.New("no parts")
	}
	kept = true // the scans open its parts: their headers are read once
	return bd, as, nil
}

// unit is a piece of a scan one thread reads: a part, or a range of rows
// of one.
type unit struct {
	part         string
	index        int   // of the part in the data set
	offset, rows int64 // rows 0: the whole part
	count        int64 // its rows
}

// scanState is one scan's shared state: the projection and the units
// left.
type scanState struct {
	bd       *bindData
	cols     []int    // per output column, its column of the data set (-1: none, a row id; -2: the file name)
	fields   []string // the fields to read (nil: all)
	units    []unit
	next     atomic.Int64
	levels   bool // the levels path reads every column read
	anyField bool // some output column is a column of the data set
}

// plannable says whether the levels path reads the columns of every
// part: their records, resolved to the data set's schema where a part's
// differs, are covered by the plan of the columnar read layer and their
// types by the vectors' (see planColumn). The Arrow path reads the rest.
func (st *scanState) plannable() bool {
	seen := map[string]bool{}
	for _, p := range st.bd.parts {
		if seen[p.text] {
			continue
		}
		seen[p.text] = true
		if _, err := planLevels(st.bd, st.cols, p.text); err != nil {
			return false
		}
	}
	return true
}

// fileCol marks the output column of the file name.
const fileCol = -2

//export duckscan_init
func duckscan_init(info C.duckdb_init_info) {
	defer recoverPanic(func(msg string) { setError(msg, func(m *C.char) { C.td_init_set_error(info, m) }) })
	bd := handleValue[*bindData](C.td_init_get_bind_data(info))
	st := &scanState{bd: bd}
	n := int(C.td_init_get_column_count(info))
	for i := range n {
		c := int(C.td_init_get_column_index(info, C.idx_t(i)))
		switch {
		case bd.filename && c == len(bd.names):
			c = fileCol
		case c < 0 || c >= len(bd.names):
			c = -1 // the row id, or another virtual column
		default:
			st.anyField = true
			if bd.record {
				st.fields = append(st.fields, bd.fields[c])
			}
		}
		st.cols = append(st.cols, c)
	}
	st.levels = !bd.s.cfg.Arrow && st.plannable()
	threads := bd.s.cfg.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	var total int64
	for _, p := range bd.parts {
		total += p.rows
	}
	per := max(minUnitRows, (total+int64(4*threads)-1)/int64(4*threads))
	for i, p := range bd.parts {
		if p.format != trevni.Trevni2 || p.rows <= per {
			st.units = append(st.units, unit{part: p.name, index: i, count: p.rows})
			continue
		}
		for off := int64(0); off < p.rows; off += per {
			n := min(per, p.rows-off)
			st.units = append(st.units, unit{part: p.name, index: i, offset: off, rows: n, count: n})
		}
	}
	C.td_init_set_max_threads(info, C.idx_t(max(1, min(threads, len(st.units)))))
	C.td_init_set_init_data(info, newHandle(st), C.duckdb_delete_callback_t(C.duckscan_delete))
}

// localState is one thread's state in a scan: the unit it reads.
type localState struct {
	st      *scanState
	ds      *trevni.Dataset
	rr      *trevniarrow.RecordReader
	lr      *levelReader
	plans   map[string]*levelScan // the thread's own plans of the levels path by the parts' schema (a plan holds a chunk's state)
	colmap  []int                 // per output column, its column in the batches (-1: none)
	unit    unit                  // the unit read
	left    int64                 // rows left to count when no column of the data set is read
	counted bool                  // the unit is counted, not read
	started bool
	reshape *arrow.Schema // the batches' schema after duckRecord, if they need it
}

//export duckscan_local_init
func duckscan_local_init(info C.duckdb_init_info) {
	defer recoverPanic(func(msg string) { setError(msg, func(m *C.char) { C.td_init_set_error(info, m) }) })
	// The scan's shared state is not reachable from here: the thread's
	// first call of duckscan_function takes it.
	C.td_init_set_init_data(info, newHandle(&localState{}), C.duckdb_delete_callback_t(C.duckscan_delete))
}

//export duckscan_function
func duckscan_function(info C.duckdb_function_info, output C.duckdb_data_chunk) {
	var ls *localState
	defer recoverPanic(func(msg string) {
		if ls != nil {
			ls.closeReader() // a panic may leave a reader half way
		}
		setError(msg, func(m *C.char) { C.td_function_set_error(info, m) })
	})
	ls = handleValue[*localState](C.td_function_get_local_init_data(info))
	if ls.st == nil {
		ls.st = handleValue[*scanState](C.td_function_get_init_data(info))
	}
	n, err := ls.fill(output)
	if err != nil {
		setError(fmt.Sprintf("%s(%s): %v", FunctionName, quoteString(ls.st.bd.source), err), func(m *C.char) { C.td_function_set_error(info, m) })
		return
	}
	C.td_data_chunk_set_size(output, C.idx_t(n))
}

// fill fills output with the next rows and returns how many; 0 ends the
// scan.
func (ls *localState) fill(output C.duckdb_data_chunk) (int, error) {
	size := int64(vectorSize())
	for {
		var n int
		var err error
		switch {
		case ls.counted:
			if ls.left > 0 {
				n = int(min(ls.left, size))
				ls.left -= int64(n)
			}
		case ls.lr != nil:
			n, err = ls.lr.fill(output)
		case ls.rr != nil:
			if ls.rr.Next() {
				n, err = ls.emit(output)
			}
		}
		if err != nil {
			return 0, err
		}
		if n > 0 {
			ls.fillNames(output, n)
			return n, nil
		}
		i := ls.st.next.Add(1) - 1
		if i < int64(len(ls.st.units)) && ls.lr != nil && ls.st.units[i].index == ls.unit.index {
			// The next range of the part read: on with its readers.
			ls.unit = ls.st.units[i]
			if err := ls.lr.moveTo(ls.unit); err != nil {
				return 0, fmt.Errorf("%s: %w", ls.unit.part, err)
			}
			continue
		}
		if err := ls.closeReader(); err != nil {
			return 0, err
		}
		if i >= int64(len(ls.st.units)) {
			return 0, nil
		}
		ls.unit = ls.st.units[i]
		if !ls.st.anyField && ls.st.bd.filter == "" {
			ls.counted, ls.left = true, ls.unit.count
			continue
		}
		ls.counted = false
		if err := ls.openReader(ls.unit); err != nil {
			return 0, fmt.Errorf("%s: %w", ls.unit.part, err)
		}
	}
}

// fillNames sets the file name column, if read, of the first n rows.
func (ls *localState) fillNames(output C.duckdb_data_chunk, n int) {
	for i, c := range ls.st.cols {
		if c != fileCol {
			continue
		}
		vec := C.td_data_chunk_get_vector(output, C.idx_t(i))
		name := ls.unit.part
		p := cString(name)
		for r := range n {
			C.td_vector_assign_string_element_len(vec, C.idx_t(r), p, C.idx_t(len(name)))
		}
		C.free(unsafe.Pointer(p))
	}
}

// openReader starts reading the unit u.
func (ls *localState) openReader(u unit) error {
	ctx := context.Background()
	bd := ls.st.bd
	if ls.st.levels {
		// The part is opened through the bind's data set, which keeps
		// what it read of its header (of a remote part, the bytes
		// themselves): the ranges of a part do not fetch it again.
		text := bd.parts[u.index].text
		plan := ls.plans[text]
		if plan == nil {
			var err error
			if plan, err = planLevels(bd, ls.st.cols, text); err != nil {
				return err
			}
			if ls.plans == nil {
				ls.plans = map[string]*levelScan{}
			}
			ls.plans[text] = plan
		}
		part := bd.ds.Parts()[u.index]
		f, err := part.Open(ctx)
		if err != nil {
			return err
		}
		lr, err := openLevels(ctx, bd, plan, u, part, f)
		if err != nil {
			f.Close()
			return err
		}
		ls.lr = lr
		return nil
	}
	open := bd.open
	if open != nil && open.ReadAhead && bd.localPart(u.part) {
		o := *open
		o.ReadAhead = false
		open = &o
	}
	ds, err := trevni.OpenFiles(ctx, []string{u.part}, open)
	if err != nil {
		return err
	}
	opts := &trevniarrow.ReadOptions{BatchRows: vectorSize(), Schema: arrowMapping()}
	opts.Fields = ls.st.fields
	if !ls.st.anyField && bd.record && len(bd.names) > 0 {
		opts.Fields = bd.names[:1] // a filtered count reads the fewest columns it can
	}
	opts.Where = bd.filter
	opts.Offset, opts.Rows = u.offset, u.rows
	rr, err := trevniarrow.NewRecordReader(ctx, ds, opts)
	if err != nil {
		ds.Close()
		return err
	}
	ls.ds, ls.rr = ds, rr
	if !ls.started {
		as := rr.Schema()
		if bd.reshape {
			as, _ = duckSchema(rr.AvroSchema(), as)
			ls.reshape = as
		}
		for _, c := range ls.st.cols {
			j := -1
			if c >= 0 {
				if idx := as.FieldIndices(bd.names[c]); len(idx) == 1 {
					j = idx[0]
				} else {
					return fmt.Errorf("the batches have no one column %q", bd.names[c])
				}
			}
			ls.colmap = append(ls.colmap, j)
		}
		ls.started = true
	}
	return nil
}

// emit writes the reader's current batch into output's vectors.
func (ls *localState) emit(output C.duckdb_data_chunk) (int, error) {
	rec := ls.rr.RecordBatch()
	if ls.reshape != nil {
		rec = duckRecord(rec, ls.reshape)
		defer rec.Release()
	}
	for i, j := range ls.colmap {
		if j < 0 {
			continue
		}
		vec := C.td_data_chunk_get_vector(output, C.idx_t(i))
		if err := write(vec, rec.Column(j), nil, 0); err != nil {
			return 0, fmt.Errorf("column %s: %w", rec.ColumnName(j), err)
		}
	}
	return int(rec.NumRows()), nil
}

// closeReader ends the read of a unit, recording its report.
func (ls *localState) closeReader() error {
	report := ls.st.bd.s.cfg.Reports
	if ls.lr != nil {
		if report != nil {
			report([]trevni.PartReport{ls.lr.report()})
		}
		err := ls.lr.close()
		ls.lr = nil
		return err
	}
	if ls.rr == nil {
		return nil
	}
	err := ls.rr.Err()
	if report != nil {
		report(ls.rr.Report())
	}
	err = errors.Join(err, ls.rr.Close(), ls.ds.Close())
	ls.rr, ls.ds = nil, nil
	return err
}

// close frees the thread's state when DuckDB is done with it.
func (ls *localState) close() {
	if ls.st != nil {
		ls.closeReader()
	}
}

// quoteString quotes a SQL string literal.
func quoteString(s string) string {
	return `'` + strings.ReplaceAll(s, `'`, `''`) + `'`
}

// RegisterDatabase registers the table functions and the replacement
// scan with the database db (a duckdb_database) through a connection of
// its own, which it closes: what an extension's entry point does.
func RegisterDatabase(db unsafe.Pointer, cfg *Config) error {
	if C.trevni_api == nil {
		return errors.New("duckscan: SetAPI was not called")
	}
	var conn C.duckdb_connection
	if C.td_connect(C.duckdb_database(db), &conn) != 0 {
		return errors.New("cannot connect to the database")
	}
	defer C.td_disconnect(&conn)
	return Register(unsafe.Pointer(conn), db, cfg)
}

// layoutOptions returns the layout limits of the opening options.
func layoutOptions(open *trevni.OpenOptions) *layout.Options {
	if open == nil || open.MaxColumns == 0 && open.MaxDepth == 0 {
		return nil
	}
	return &layout.Options{MaxColumns: open.MaxColumns, MaxDepth: open.MaxDepth}
}

// close closes the data set when DuckDB is done with the bind.
func (bd *bindData) close() {
	if bd.ds != nil {
		bd.ds.Close()
		bd.ds = nil
	}
}
