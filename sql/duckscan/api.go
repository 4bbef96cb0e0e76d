package duckscan

/*
#include <stdlib.h>
#include "calls.h"

int td_set_api(const void *api);
*/
import "C"

import (
	"errors"
	"fmt"
	"runtime/cgo"
	"runtime/debug"
	"unsafe"
)

// APIVersion is the version of DuckDB's C extension API the scan needs
// (the struct duckdb_ext_api_v1 of that version): DuckDB 1.2.0 and later
// provide it.
const APIVersion = C.TREVNI_DUCKDB_API_VERSION

// SetAPI sets the table of DuckDB's C API functions the scan calls: a
// duckdb_ext_api_v1 of APIVersion or later (what an extension's entry
// point gets from DuckDB, or what a program linking DuckDB fills). The
// scan keeps a copy: DuckDB's need not outlive the extension's load. The
// first table set stays: one process holds one DuckDB library, and a
// second call with another table is an error.
func SetAPI(api unsafe.Pointer) error {
	if api == nil {
		return errors.New("duckscan: no C API table")
	}
	if C.td_set_api(api) != 0 {
		return errors.New("duckscan: another DuckDB's C API is already in use in this process")
	}
	return nil
}

// APISize is the size in bytes of the C API table the scan reads: a
// program that fills one allocates at least this.
const APISize = C.sizeof_trevni_duckdb_api

// newHandle returns C memory holding a handle to v, which deleteHandle
// frees (C may not keep a Go pointer).
func newHandle(v any) unsafe.Pointer {
	p := C.malloc(C.size_t(unsafe.Sizeof(cgo.Handle(0))))
	*(*cgo.Handle)(p) = cgo.NewHandle(v)
	return p
}

// handleValue returns the value of a handle newHandle made.
func handleValue[T any](p unsafe.Pointer) T {
	return (*(*cgo.Handle)(p)).Value().(T)
}

// closer is a value whose handle's deletion frees something.
type closer interface{ close() }

//export duckscan_delete
func duckscan_delete(p unsafe.Pointer) {
	defer recoverPanic(func(string) {}) // DuckDB has nowhere to put an error here
	h := *(*cgo.Handle)(p)
	if c, ok := h.Value().(closer); ok {
		c.close()
	}
	h.Delete()
	C.free(p)
}

// recoverPanic, deferred first in every function DuckDB calls, turns a
// panic into an error given to report, so that no Go panic unwinds into
// DuckDB's C++ frames (which would end the host process).
func recoverPanic(report func(msg string)) {
	if r := recover(); r != nil {
		report(fmt.Sprintf("internal error (a bug of the Trevni extension, please report it): %v\n%s", r, debug.Stack()))
	}
}

// cString returns s as C memory the caller frees.
func cString(s string) *C.char { return C.CString(s) }

// getVarchar returns the text of a DuckDB value and frees the copy DuckDB
// made.
func getVarchar(v C.duckdb_value) string {
	p := C.td_get_varchar(v)
	if p == nil {
		return ""
	}
	defer C.td_free(unsafe.Pointer(p))
	return C.GoString(p)
}

// vectorSize is DuckDB's STANDARD_VECTOR_SIZE.
func vectorSize() int { return int(C.td_vector_size()) }

// LibraryVersion returns the version of the DuckDB whose API is set.
func LibraryVersion() string {
	if C.trevni_api == nil {
		return ""
	}
	return C.GoString(C.td_library_version())
}
