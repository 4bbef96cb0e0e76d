// Command duckdbext is DuckDB's Trevni extension: built with
// -buildmode=c-shared and given DuckDB's metadata footer (by
// ./duckdbext/build), it is trevni.duckdb_extension, which a stock DuckDB
// (1.2.0 or later: the C API version it needs) loads with
// LOAD 'trevni.duckdb_extension' when unsigned extensions are allowed.
// It registers read_trevni (also trevni_scan) and the replacement scan
// of names ending in .trv, .trv1 and .clmn: the scan of package
// duckscan, which trevni-sql runs too. See docs/duckdb.md.
package main

/*
#cgo CFLAGS: -I${SRCDIR}/../duckscan
#include <stdlib.h>
#include "capi.h"

static const void *trevniext_get_api(struct duckdb_extension_access *a, duckdb_extension_info info) {
	return a->get_api(info, TREVNI_DUCKDB_API_VERSION);
}
static duckdb_database *trevniext_get_database(struct duckdb_extension_access *a, duckdb_extension_info info) {
	return a->get_database(info);
}
static void trevniext_set_error(struct duckdb_extension_access *a, duckdb_extension_info info, char *error) {
	a->set_error(info, error);
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/trevni-go/trevni/sql/duckscan"
)

// trevni_init_c_api is the entry point DuckDB calls as it loads the
// extension (DuckDB's name for it: the file's name, trevni, then
// _init_c_api). It asks DuckDB for the C API table of the version the
// scan needs (DuckDB refuses, saying so, when it is older) and
// registers the scan with the database.
//
//export trevni_init_c_api
func trevni_init_c_api(info C.duckdb_extension_info, access *C.struct_duckdb_extension_access) (ok C.bool) {
	fail := func(msg string) {
		m := C.CString(msg)
		defer C.free(unsafe.Pointer(m))
		C.trevniext_set_error(access, info, m)
		ok = false
	}
	defer func() {
		if r := recover(); r != nil {
			fail(fmt.Sprintf("trevni: internal error loading the extension: %v", r))
		}
	}()
	api := C.trevniext_get_api(access, info)
	if api == nil {
		return false // DuckDB has said why: its C API is older than the extension needs
	}
	if err := duckscan.SetAPI(unsafe.Pointer(api)); err != nil {
		fail("trevni: " + err.Error())
		return false
	}
	db := C.trevniext_get_database(access, info)
	if db == nil {
		fail("trevni: DuckDB gave no database")
		return false
	}
	if err := duckscan.RegisterDatabase(unsafe.Pointer(*db), nil); err != nil {
		fail("trevni: " + err.Error())
		return false
	}
	return true
}

func main() {}
