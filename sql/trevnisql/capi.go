package trevnisql

/*
#cgo CFLAGS: -I${SRCDIR}/../duckscan
#include "capi.h"

// The C API table of the DuckDB linked into this program (by
// duckdb-go-bindings), filled from its own symbols: the scan of package
// duckscan calls DuckDB through such a table, which an extension gets
// from DuckDB instead.
#define TRSQL_DECLARE(n) extern __typeof__(*((trevni_duckdb_api *)0)->n) n;
TREVNI_DUCKDB_USED(TRSQL_DECLARE)

static trevni_duckdb_api trevnisql_api;

static void *trevnisql_api_table(void) {
#define TRSQL_SET(n) trevnisql_api.n = n;
	TREVNI_DUCKDB_USED(TRSQL_SET)
	return &trevnisql_api;
}
*/
import "C"

import "unsafe"

// linkedAPI returns the C API table of the linked DuckDB.
func linkedAPI() unsafe.Pointer { return C.trevnisql_api_table() }
