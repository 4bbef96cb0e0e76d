package duckscan

/*
#include <stdlib.h>
#include "calls.h"
*/
import "C"

import "unsafe"

// The DuckDB settings of the readers' limits, as integers: byte counts
// (SET trevni_block_memory = 67108864), a schema's columns and depth
// (SET trevni_max_columns = 100000). A named parameter of read_trevni wins over its setting; 0
// (the default) means the library's default.
const (
	BlockMemorySetting    = "trevni_block_memory"
	MaxBlockSizeSetting   = "trevni_max_block_size"
	MaxRecordBytesSetting = "trevni_max_record_bytes"
	MaxColumnsSetting     = "trevni_max_columns"
	MaxDepthSetting       = "trevni_max_depth"
)

// limitSettings are the settings of the limits, in the order of the
// named parameters (limitParameters).
var limitSettings = [numLimits]struct{ name, description string }{
	{BlockMemorySetting, "trevni: the bytes of block buffers a Trevni reader holds (0: the library's default)"},
	{MaxBlockSizeSetting, "trevni: the most bytes of one Trevni block (0: the library's default)"},
	{MaxRecordBytesSetting, "trevni: the most bytes of one record as read (0: the library's default)"},
	{MaxColumnsSetting, "trevni: the most columns of a schema's layout (0: the library's default, 65,536)"},
	{MaxDepthSetting, "trevni: the deepest nesting of a schema's types (0: the library's default, 1,000)"},
}

// registerSettings registers the settings of the limits. A setting that
// cannot be registered (the extension loaded again into a database that
// has it) is left as it is: SET then uses the first.
func registerSettings(conn C.duckdb_connection) {
	bigint := C.td_create_logical_type(typeBigint)
	defer C.td_destroy_logical_type(&bigint)
	for _, s := range limitSettings {
		o := C.td_create_config_option()
		name := cString(s.name)
		desc := cString(s.description)
		C.td_config_option_set_name(o, name)
		C.td_config_option_set_type(o, bigint)
		zero := C.td_create_int64(0)
		C.td_config_option_set_default_value(o, zero)
		C.td_destroy_value(&zero)
		C.td_config_option_set_description(o, desc)
		C.td_register_config_option(conn, o)
		C.td_destroy_config_option(&o)
		C.free(unsafe.Pointer(name))
		C.free(unsafe.Pointer(desc))
	}
}

// settingLimits fills the limits not given as named parameters from the
// settings of the query's client context.
func settingLimits(info C.duckdb_bind_info, limits *[numLimits]int64) {
	var ctx C.duckdb_client_context
	C.td_table_function_get_client_context(info, &ctx)
	if ctx == nil {
		return
	}
	defer C.td_destroy_client_context(&ctx)
	for i, s := range limitSettings {
		if limits[i] != 0 {
			continue
		}
		name := cString(s.name)
		v := C.td_client_context_get_config_option(ctx, name, nil)
		C.free(unsafe.Pointer(name))
		if v == nil {
			continue
		}
		if !bool(C.td_is_null_value(v)) {
			limits[i] = int64(C.td_get_int64(v))
		}
		C.td_destroy_value(&v)
	}
}
