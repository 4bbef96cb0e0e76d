package trevnisql

/*
#include <stdbool.h>
#include <stdlib.h>

// The few declarations of DuckDB's C API (duckdb.h, linked in by
// duckdb-go-bindings) that convert Arrow's C data interface into DuckDB
// data chunks. The bindings wrap them only under the duckdb_arrow build
// tag; declared here, the module builds without it. Every handle is a
// pointer to an opaque struct, passed as void*.
typedef void *trevnisql_handle;
trevnisql_handle duckdb_schema_from_arrow(trevnisql_handle connection, void *schema, trevnisql_handle *out_types);
trevnisql_handle duckdb_data_chunk_from_arrow(trevnisql_handle connection, void *arrow_array, trevnisql_handle converted_schema, trevnisql_handle *out_chunk);
void duckdb_destroy_arrow_converted_schema(trevnisql_handle *schema);
void duckdb_destroy_data_chunk(trevnisql_handle *chunk);
bool duckdb_error_data_has_error(trevnisql_handle error_data);
const char *duckdb_error_data_message(trevnisql_handle error_data);
void duckdb_destroy_error_data(trevnisql_handle *error_data);
*/
import "C"

import (
	"errors"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/cdata"
	bindings "github.com/duckdb/duckdb-go-bindings"
)

// errorData turns a duckdb_error_data into a Go error (nil when it holds
// none) and destroys it.
func errorData(ed C.trevnisql_handle) error {
	if ed == nil {
		return nil
	}
	defer C.duckdb_destroy_error_data(&ed)
	if !bool(C.duckdb_error_data_has_error(ed)) {
		return nil
	}
	return errors.New(C.GoString(C.duckdb_error_data_message(ed)))
}

// convertedSchema is DuckDB's reading of an Arrow schema: the DuckDB types
// its columns become.
type convertedSchema struct {
	p C.trevnisql_handle
}

// newConvertedSchema converts s through the connection conn.
func newConvertedSchema(conn bindings.Connection, s *arrow.Schema) (convertedSchema, error) {
	cs := (*cdata.CArrowSchema)(C.calloc(1, C.size_t(unsafe.Sizeof(cdata.CArrowSchema{}))))
	defer C.free(unsafe.Pointer(cs))
	cdata.ExportArrowSchema(s, cs)
	defer cdata.ReleaseCArrowSchema(cs)
	var out C.trevnisql_handle
	if err := errorData(C.duckdb_schema_from_arrow(C.trevnisql_handle(conn.Ptr), unsafe.Pointer(cs), &out)); err != nil {
		if out != nil {
			C.duckdb_destroy_arrow_converted_schema(&out)
		}
		return convertedSchema{}, err
	}
	return convertedSchema{p: out}, nil
}

// destroy frees the converted schema.
func (s *convertedSchema) destroy() {
	if s.p != nil {
		C.duckdb_destroy_arrow_converted_schema(&s.p)
		s.p = nil
	}
}

// chunkFromArrow converts the batch rec (of the schema s was made from)
// into a new DuckDB data chunk, which the caller destroys with
// destroyChunk. The export retains the batch's buffers until whoever
// holds the exported arrays (DuckDB, if it takes them over) releases
// them.
func chunkFromArrow(conn bindings.Connection, rec arrow.RecordBatch, s convertedSchema) (bindings.DataChunk, error) {
	ca := (*cdata.CArrowArray)(C.calloc(1, C.size_t(unsafe.Sizeof(cdata.CArrowArray{}))))
	defer C.free(unsafe.Pointer(ca))
	cdata.ExportArrowRecordBatch(rec, ca, nil)
	// Released here only if DuckDB did not take the array over (a
	// released array has a nil release callback, and this is a no-op).
	defer cdata.ReleaseCArrowArray(ca)
	var out C.trevnisql_handle
	if err := errorData(C.duckdb_data_chunk_from_arrow(C.trevnisql_handle(conn.Ptr), unsafe.Pointer(ca), s.p, &out)); err != nil {
		if out != nil {
			C.duckdb_destroy_data_chunk(&out)
		}
		return bindings.DataChunk{}, err
	}
	return bindings.DataChunk{Ptr: unsafe.Pointer(out)}, nil
}

// destroyChunk frees a chunk chunkFromArrow made.
func destroyChunk(c bindings.DataChunk) {
	p := C.trevnisql_handle(c.Ptr)
	C.duckdb_destroy_data_chunk(&p)
}
