package duckscan

/*
#include <stdlib.h>
#include "calls.h"

int td_copy_bind_names(duckdb_copy_function_bind_info info, idx_t n, const char **ptrs, idx_t *lens);

void duckscan_copy_bind(duckdb_copy_function_bind_info info);
void duckscan_copy_init(duckdb_copy_function_global_init_info info);
void duckscan_copy_sink(duckdb_copy_function_sink_info info, duckdb_data_chunk input);
void duckscan_copy_finalize(duckdb_copy_function_finalize_info info);
void duckscan_delete(void *p);
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"unsafe"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
)

// CopyFormat is the FORMAT of COPY ... TO that writes a Trevni file:
// COPY (query) TO 'x.trv' (FORMAT trevni, CODEC 'zstd').
const CopyFormat = "trevni"

// The options of COPY ... TO ... (FORMAT trevni, ...), as DuckDB hands
// them over (upper case).
const (
	CopyCodec     = "CODEC"      // the blocks' codec: deflate (the default), snappy, zstd, bzip2, null (also none, uncompressed)
	CopyChecksum  = "CHECKSUM"   // crc32 (the default) or null (also none)
	CopyBlockSize = "BLOCK_SIZE" // the uncompressed bytes at which a column's block is cut
	CopyStats     = "STATS"      // false leaves out the blocks' statistics
)

// registerCopy registers the copy function of FORMAT trevni.
func (s *scanner) registerCopy(conn C.duckdb_connection) error {
	f := C.td_create_copy_function()
	defer C.td_destroy_copy_function(&f)
	name := cString(CopyFormat)
	defer C.free(unsafe.Pointer(name))
	C.td_copy_function_set_name(f, name)
	C.td_copy_function_set_extra_info(f, newHandle(s), C.duckdb_delete_callback_t(C.duckscan_delete))
	C.td_copy_function_set_bind(f, C.duckdb_copy_function_bind_t(C.duckscan_copy_bind))
	C.td_copy_function_set_global_init(f, C.duckdb_copy_function_global_init_t(C.duckscan_copy_init))
	C.td_copy_function_set_sink(f, C.duckdb_copy_function_sink_t(C.duckscan_copy_sink))
	C.td_copy_function_set_finalize(f, C.duckdb_copy_function_finalize_t(C.duckscan_copy_finalize))
	if C.td_register_copy_function(conn, f) != 0 {
		return errors.New("registering the copy function " + CopyFormat)
	}
	return nil
}

// copyBind is what binding a COPY TO learnt: the schema and encoders of
// its columns, and the write options.
type copyBind struct {
	schema string
	names  []string // of the columns
	encs   []encoder
	opts   trevni.WriteOptions
}

//export duckscan_copy_bind
func duckscan_copy_bind(info C.duckdb_copy_function_bind_info) {
	fail := func(msg string) {
		setError("trevni: "+msg, func(m *C.char) { C.td_copy_function_bind_set_error(info, m) })
	}
	defer recoverPanic(fail)
	b, err := copyBindOf(info)
	if err != nil {
		fail(err.Error())
		return
	}
	C.td_copy_function_bind_set_bind_data(info, newHandle(b), C.duckdb_delete_callback_t(C.duckscan_delete))
}

// copyBindOf maps the columns and reads the options of a COPY TO.
func copyBindOf(info C.duckdb_copy_function_bind_info) (*copyBind, error) {
	n := int(C.td_copy_function_bind_get_column_count(info))
	names := copyColumnNames(info, n)
	types := make([]C.duckdb_logical_type, n)
	for i := range types {
		types[i] = C.td_copy_function_bind_get_column_type(info, C.idx_t(i))
	}
	defer func() {
		for i := range types {
			if types[i] != nil {
				C.td_destroy_logical_type(&types[i])
			}
		}
	}()
	m := &typeMapper{names: map[string]int{"Record": 1}}
	fields, encs, err := m.fields(names, types, "Record", 0)
	if err != nil {
		return nil, err
	}
	text := (&schema.Schema{Kind: schema.Record, Name: "Record", Fields: fields}).String()
	if _, err := schema.Parse(text); err != nil {
		return nil, fmt.Errorf("the Avro schema of the columns: %w", err)
	}
	b := &copyBind{schema: text, names: names, encs: encs}
	if err := b.options(C.td_copy_function_bind_get_options(info)); err != nil {
		return nil, err
	}
	return b, nil
}

// copyColumnNames returns the names of the columns of a COPY TO: read
// from DuckDB's bind info where that is known to be possible (see
// td_copy_bind_names), else column0, column1, ... (DuckDB's names of
// unnamed columns).
func copyColumnNames(info C.duckdb_copy_function_bind_info, n int) []string {
	names := make([]string, n)
	if n > 0 && strings.HasPrefix(LibraryVersion(), "v1.5.") && runtime.GOOS == "linux" {
		ptrs := make([]*C.char, n)
		lens := make([]C.idx_t, n)
		pp := (**C.char)(C.malloc(C.size_t(n) * C.size_t(unsafe.Sizeof(ptrs[0]))))
		lp := (*C.idx_t)(C.malloc(C.size_t(n) * C.size_t(unsafe.Sizeof(lens[0]))))
		defer C.free(unsafe.Pointer(pp))
		defer C.free(unsafe.Pointer(lp))
		if C.td_copy_bind_names(info, C.idx_t(n), pp, lp) != 0 {
			ps := unsafe.Slice(pp, n)
			ls := unsafe.Slice(lp, n)
			for i := range names {
				names[i] = C.GoStringN(ps[i], C.int(ls[i]))
			}
			return names
		}
	}
	for i := range names {
		names[i] = "column" + strconv.Itoa(i)
	}
	return names
}

// options reads the COPY options (a STRUCT value of one field an option).
func (b *copyBind) options(v C.duckdb_value) error {
	if v == nil {
		return nil
	}
	defer C.td_destroy_value(&v)
	t := C.td_get_value_type(v) // the value's: not destroyed
	if C.td_get_type_id(t) != typeStruct {
		return nil
	}
	for i := range int(C.td_struct_type_child_count(t)) {
		name := strings.ToUpper(takeString(C.td_struct_type_child_name(t, C.idx_t(i))))
		c := C.td_get_struct_child(v, C.idx_t(i))
		text := ""
		null := c == nil || bool(C.td_is_null_value(c))
		if !null {
			text = getVarchar(c)
		}
		if c != nil {
			C.td_destroy_value(&c)
		}
		if err := b.option(name, text, null); err != nil {
			return err
		}
	}
	return nil
}

// option sets one COPY option.
func (b *copyBind) option(name, text string, null bool) error {
	if null {
		return fmt.Errorf("option %s: no value", name)
	}
	lower := strings.ToLower(strings.TrimSpace(text))
	switch name {
	case CopyCodec:
		switch lower {
		case "none", "uncompressed", "null":
			b.opts.Codec = trevni.NoCodec
		case string(trevni.Deflate), string(trevni.Snappy), string(trevni.Zstd), string(trevni.Bzip2):
			b.opts.Codec = trevni.Codec(lower)
		default:
			return fmt.Errorf("option CODEC %q: not a Trevni codec (deflate, snappy, zstd, bzip2, null)", text)
		}
	case CopyChecksum:
		switch lower {
		case "none", "null":
			b.opts.Checksum = trevni.NoChecksum
		case string(trevni.CRC32):
			b.opts.Checksum = trevni.CRC32
		default:
			return fmt.Errorf("option CHECKSUM %q: not a Trevni checksum (crc32, null)", text)
		}
	case CopyBlockSize:
		n, err := strconv.ParseInt(lower, 10, 64)
		if err != nil || n < 1 || n > 1<<30 {
			return fmt.Errorf("option BLOCK_SIZE %q: not a number of bytes from 1 to 2³⁰", text)
		}
		b.opts.BlockSize = int(n)
	case CopyStats:
		v, err := strconv.ParseBool(lower)
		if err != nil {
			return fmt.Errorf("option STATS %q: not true or false", text)
		}
		b.opts.NoStats = !v
	default:
		return fmt.Errorf("unknown option %s of FORMAT trevni (it takes %s, %s, %s and %s)", name, CopyCodec, CopyChecksum, CopyBlockSize, CopyStats)
	}
	return nil
}

// The sink writes each chunk's vectors straight into the file's columns
// (copycols.go), on DuckDB's thread, and holds no rows: every type the
// COPY maps has a column writer, and the file is the one the writer makes
// of the same records given one by one.

// copyState is the writer of one COPY TO.
type copyState struct {
	b    *copyBind
	w    *trevni.Writer
	rows int64 // the records written so far

	// The writer's columns and layout, and a column writer a column of
	// the COPY.
	fw   *format.Writer
	root *layout.Node
	cols []colWriter

	done bool // committed or abandoned
}

// newCopyState returns the state of a COPY writing w.
func newCopyState(b *copyBind, w *trevni.Writer) (*copyState, error) {
	sh := frontdoor.Shredder(w)
	root, fw := sh.Columnar()
	cols, err := copyColumns(b.encs, root, sh)
	if err != nil {
		return nil, fmt.Errorf("the columns of the file: %w", err)
	}
	if err := fw.CheckRows(false); err != nil {
		return nil, err
	}
	return &copyState{b: b, w: w, fw: fw, root: root, cols: cols}, nil
}

// close aborts the file unless it was committed: DuckDB destroys the state
// after a failed COPY too.
func (st *copyState) close() {
	if !st.done {
		st.done = true
		st.w.Abort()
	}
}

//export duckscan_copy_init
func duckscan_copy_init(info C.duckdb_copy_function_global_init_info) {
	fail := func(msg string) {
		setError("trevni: "+msg, func(m *C.char) { C.td_copy_function_global_init_set_error(info, m) })
	}
	defer recoverPanic(fail)
	b := handleValue[*copyBind](C.td_copy_function_global_init_get_bind_data(info))
	path := C.GoString(C.td_copy_function_global_init_get_file_path(info))
	opts := b.opts
	// DuckDB's COPY TO replaces an existing file, as its own formats do;
	// the file is written beside and put in place only once complete.
	opts.Replace = true
	// Compression on a goroutine a core, as trevni fromparquet does by
	// default.
	opts.Workers = runtime.GOMAXPROCS(0)
	w, err := trevni.Create(context.Background(), path, b.schema, &opts)
	if err != nil {
		fail(err.Error())
		return
	}
	st, err := newCopyState(b, w)
	if err != nil {
		w.Abort()
		fail(err.Error())
		return
	}
	C.td_copy_function_global_init_set_global_state(info, newHandle(st), C.duckdb_delete_callback_t(C.duckscan_delete))
}

//export duckscan_copy_sink
func duckscan_copy_sink(info C.duckdb_copy_function_sink_info, input C.duckdb_data_chunk) {
	fail := func(msg string) {
		setError("trevni: "+msg, func(m *C.char) { C.td_copy_function_sink_set_error(info, m) })
	}
	defer recoverPanic(fail)
	st := handleValue[*copyState](C.td_copy_function_sink_get_global_state(info))
	if err := st.sink(input); err != nil {
		st.close()
		fail(err.Error())
	}
}

// sink writes the rows of a chunk into the file's columns.
func (st *copyState) sink(input C.duckdb_data_chunk) error {
	if st.done {
		return errors.New("the file was abandoned after an error")
	}
	for i, e := range st.b.encs {
		e.bind(C.td_data_chunk_get_vector(input, C.idx_t(i)))
	}
	rows := int(C.td_data_chunk_get_size(input))
	if rows == 0 {
		return nil
	}
	if err := writeChunkColumns(st.fw, st.root, st.cols, st.b.names, rows, st.rows); err != nil {
		return err
	}
	st.rows += int64(rows)
	return nil
}

//export duckscan_copy_finalize
func duckscan_copy_finalize(info C.duckdb_copy_function_finalize_info) {
	fail := func(msg string) {
		setError("trevni: "+msg, func(m *C.char) { C.td_copy_function_finalize_set_error(info, m) })
	}
	defer recoverPanic(fail)
	st := handleValue[*copyState](C.td_copy_function_finalize_get_global_state(info))
	if st.done {
		fail("the file was abandoned after an error")
		return
	}
	st.done = true
	if err := st.w.Close(); err != nil {
		fail(err.Error())
	}
}
