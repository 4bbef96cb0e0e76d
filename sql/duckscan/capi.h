// The part of DuckDB's C extension API (version v1.5.6 of the struct
// duckdb_ext_api_v1, the C_STRUCT ABI) that package duckscan calls.
//
// A C_STRUCT extension links against no DuckDB: DuckDB hands it a struct
// of function pointers, in an order fixed per API version (each version
// only appends). This header declares a struct of the same layout: the
// members this package calls with their types, every other one as a
// void pointer, up to the last member called. It needs no header of
// DuckDB's: every handle is an opaque pointer.
//
// The order is checked by loading the extension into a stock DuckDB
// and running every callback (sql/duckdbext's tests): a member out of
// place calls the wrong function. trevni-sql fills the same struct by
// name from the DuckDB it links (sql/trevnisql/capi.go): there the order
// does not matter, and the members' types, written here by hand from
// duckdb.h, are checked by trevni-sql's tests calling them.
#ifndef TREVNI_DUCKDB_CAPI_H
#define TREVNI_DUCKDB_CAPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint64_t idx_t;
typedef int duckdb_state; // DuckDBSuccess 0, DuckDBError 1
typedef int duckdb_type;  // enum DUCKDB_TYPE
typedef void *duckdb_database;
typedef void *duckdb_connection;
typedef void *duckdb_value;
typedef void *duckdb_logical_type;
typedef void *duckdb_data_chunk;
typedef void *duckdb_vector;
typedef void *duckdb_table_function;
typedef void *duckdb_bind_info;
typedef void *duckdb_init_info;
typedef void *duckdb_function_info;
typedef void *duckdb_replacement_scan_info;
typedef void *duckdb_extension_info;
typedef void (*duckdb_delete_callback_t)(void *data);
typedef void (*duckdb_table_function_bind_t)(duckdb_bind_info info);
typedef void (*duckdb_table_function_init_t)(duckdb_init_info info);
typedef void (*duckdb_table_function_t)(duckdb_function_info info, duckdb_data_chunk output);
typedef void (*duckdb_replacement_callback_t)(duckdb_replacement_scan_info info, const char *table_name, void *data);
typedef void *duckdb_copy_function;
typedef void *duckdb_client_context;
typedef void *duckdb_config_option;
typedef void *duckdb_copy_function_bind_info;
typedef void *duckdb_copy_function_global_init_info;
typedef void *duckdb_copy_function_sink_info;
typedef void *duckdb_copy_function_finalize_info;
typedef void (*duckdb_copy_function_bind_t)(duckdb_copy_function_bind_info info);
typedef void (*duckdb_copy_function_global_init_t)(duckdb_copy_function_global_init_info info);
typedef void (*duckdb_copy_function_sink_t)(duckdb_copy_function_sink_info info, duckdb_data_chunk input);
typedef void (*duckdb_copy_function_finalize_t)(duckdb_copy_function_finalize_info info);

// What an extension's entry point is given to reach DuckDB.
struct duckdb_extension_access {
	void (*set_error)(duckdb_extension_info info, const char *error);
	duckdb_database *(*get_database)(duckdb_extension_info info);
	const void *(*get_api)(duckdb_extension_info info, const char *version);
};

// The C API version this package needs: DuckDB 1.5.6 and later provide it.
// v1.2.0 has all the scan calls; copy functions (COPY ... TO ... (FORMAT
// trevni)) came as unstable members in DuckDB 1.5.0 and were made stable,
// as C API v1.5.6, in DuckDB 1.5.6. A C_STRUCT extension asks for one
// version, so the whole extension needs 1.5.6.
#define TREVNI_DUCKDB_API_VERSION "v1.5.6"

// trevni_duckdb_api is duckdb_ext_api_v1 of API v1.5.6, up to its 532nd
// member (duckdb_table_function_get_client_context).
typedef struct {
	void *duckdb_open;
	void *duckdb_open_ext;
	void *duckdb_close;
	duckdb_state (*duckdb_connect)(duckdb_database database, duckdb_connection *out);
	void *duckdb_interrupt;
	void *duckdb_query_progress;
	void (*duckdb_disconnect)(duckdb_connection *connection);
	const char *(*duckdb_library_version)(void);
	void *duckdb_create_config;
	void *duckdb_config_count;
	void *duckdb_get_config_flag;
	void *duckdb_set_config;
	void *duckdb_destroy_config;
	void *duckdb_query;
	void *duckdb_destroy_result;
	void *duckdb_column_name;
	void *duckdb_column_type;
	void *duckdb_result_statement_type;
	void *duckdb_column_logical_type;
	void *duckdb_column_count;
	void *duckdb_rows_changed;
	void *duckdb_result_error;
	void *duckdb_result_error_type;
	void *duckdb_result_return_type;
	void *duckdb_malloc;
	void (*duckdb_free)(void *p);
	idx_t (*duckdb_vector_size)(void);
	void *duckdb_string_is_inlined;
	void *duckdb_string_t_length;
	void *duckdb_string_t_data;
	void *duckdb_from_date;
	void *duckdb_to_date;
	void *duckdb_is_finite_date;
	void *duckdb_from_time;
	void *duckdb_create_time_tz;
	void *duckdb_from_time_tz;
	void *duckdb_to_time;
	void *duckdb_from_timestamp;
	void *duckdb_to_timestamp;
	void *duckdb_is_finite_timestamp;
	void *duckdb_hugeint_to_double;
	void *duckdb_double_to_hugeint;
	void *duckdb_uhugeint_to_double;
	void *duckdb_double_to_uhugeint;
	void *duckdb_double_to_decimal;
	void *duckdb_decimal_to_double;
	void *duckdb_prepare;
	void *duckdb_destroy_prepare;
	void *duckdb_prepare_error;
	void *duckdb_nparams;
	void *duckdb_parameter_name;
	void *duckdb_param_type;
	void *duckdb_param_logical_type;
	void *duckdb_clear_bindings;
	void *duckdb_prepared_statement_type;
	void *duckdb_bind_value;
	void *duckdb_bind_parameter_index;
	void *duckdb_bind_boolean;
	void *duckdb_bind_int8;
	void *duckdb_bind_int16;
	void *duckdb_bind_int32;
	void *duckdb_bind_int64;
	void *duckdb_bind_hugeint;
	void *duckdb_bind_uhugeint;
	void *duckdb_bind_decimal;
	void *duckdb_bind_uint8;
	void *duckdb_bind_uint16;
	void *duckdb_bind_uint32;
	void *duckdb_bind_uint64;
	void *duckdb_bind_float;
	void *duckdb_bind_double;
	void *duckdb_bind_date;
	void *duckdb_bind_time;
	void *duckdb_bind_timestamp;
	void *duckdb_bind_timestamp_tz;
	void *duckdb_bind_interval;
	void *duckdb_bind_varchar;
	void *duckdb_bind_varchar_length;
	void *duckdb_bind_blob;
	void *duckdb_bind_null;
	void *duckdb_execute_prepared;
	void *duckdb_extract_statements;
	void *duckdb_prepare_extracted_statement;
	void *duckdb_extract_statements_error;
	void *duckdb_destroy_extracted;
	void *duckdb_pending_prepared;
	void *duckdb_destroy_pending;
	void *duckdb_pending_error;
	void *duckdb_pending_execute_task;
	void *duckdb_pending_execute_check_state;
	void *duckdb_execute_pending;
	void *duckdb_pending_execution_is_finished;
	void (*duckdb_destroy_value)(duckdb_value *value);
	duckdb_value (*duckdb_create_varchar)(const char *text);
	void *duckdb_create_varchar_length;
	duckdb_value (*duckdb_create_bool)(bool b);
	void *duckdb_create_int8;
	void *duckdb_create_uint8;
	void *duckdb_create_int16;
	void *duckdb_create_uint16;
	void *duckdb_create_int32;
	void *duckdb_create_uint32;
	void *duckdb_create_uint64;
	duckdb_value (*duckdb_create_int64)(int64_t v);
	void *duckdb_create_hugeint;
	void *duckdb_create_uhugeint;
	void *duckdb_create_float;
	void *duckdb_create_double;
	void *duckdb_create_date;
	void *duckdb_create_time;
	void *duckdb_create_time_tz_value;
	void *duckdb_create_timestamp;
	void *duckdb_create_interval;
	void *duckdb_create_blob;
	void *duckdb_create_varint;
	void *duckdb_create_decimal;
	void *duckdb_create_bit;
	void *duckdb_create_uuid;
	bool (*duckdb_get_bool)(duckdb_value value);
	void *duckdb_get_int8;
	void *duckdb_get_uint8;
	void *duckdb_get_int16;
	void *duckdb_get_uint16;
	void *duckdb_get_int32;
	void *duckdb_get_uint32;
	int64_t (*duckdb_get_int64)(duckdb_value value);
	void *duckdb_get_uint64;
	void *duckdb_get_hugeint;
	void *duckdb_get_uhugeint;
	void *duckdb_get_float;
	void *duckdb_get_double;
	void *duckdb_get_date;
	void *duckdb_get_time;
	void *duckdb_get_time_tz;
	void *duckdb_get_timestamp;
	void *duckdb_get_interval;
	duckdb_logical_type (*duckdb_get_value_type)(duckdb_value value);
	void *duckdb_get_blob;
	void *duckdb_get_varint;
	void *duckdb_get_decimal;
	void *duckdb_get_bit;
	void *duckdb_get_uuid;
	char *(*duckdb_get_varchar)(duckdb_value value);
	void *duckdb_create_struct_value;
	void *duckdb_create_list_value;
	void *duckdb_create_array_value;
	void *duckdb_get_map_size;
	void *duckdb_get_map_key;
	void *duckdb_get_map_value;
	bool (*duckdb_is_null_value)(duckdb_value value);
	void *duckdb_create_null_value;
	void *duckdb_get_list_size;
	void *duckdb_get_list_child;
	void *duckdb_create_enum_value;
	void *duckdb_get_enum_value;
	duckdb_value (*duckdb_get_struct_child)(duckdb_value value, idx_t index);
	duckdb_logical_type (*duckdb_create_logical_type)(duckdb_type type);
	void *duckdb_logical_type_get_alias;
	void *duckdb_logical_type_set_alias;
	duckdb_logical_type (*duckdb_create_list_type)(duckdb_logical_type type);
	void *duckdb_create_array_type;
	duckdb_logical_type (*duckdb_create_map_type)(duckdb_logical_type key, duckdb_logical_type value);
	duckdb_logical_type (*duckdb_create_union_type)(duckdb_logical_type *types, const char **names, idx_t n);
	duckdb_logical_type (*duckdb_create_struct_type)(duckdb_logical_type *types, const char **names, idx_t n);
	void *duckdb_create_enum_type;
	duckdb_logical_type (*duckdb_create_decimal_type)(uint8_t width, uint8_t scale);
	duckdb_type (*duckdb_get_type_id)(duckdb_logical_type type);
	uint8_t (*duckdb_decimal_width)(duckdb_logical_type type);
	uint8_t (*duckdb_decimal_scale)(duckdb_logical_type type);
	duckdb_type (*duckdb_decimal_internal_type)(duckdb_logical_type type);
	duckdb_type (*duckdb_enum_internal_type)(duckdb_logical_type type);
	uint32_t (*duckdb_enum_dictionary_size)(duckdb_logical_type type);
	char *(*duckdb_enum_dictionary_value)(duckdb_logical_type type, idx_t index);
	duckdb_logical_type (*duckdb_list_type_child_type)(duckdb_logical_type type);
	duckdb_logical_type (*duckdb_array_type_child_type)(duckdb_logical_type type);
	idx_t (*duckdb_array_type_array_size)(duckdb_logical_type type);
	duckdb_logical_type (*duckdb_map_type_key_type)(duckdb_logical_type type);
	duckdb_logical_type (*duckdb_map_type_value_type)(duckdb_logical_type type);
	idx_t (*duckdb_struct_type_child_count)(duckdb_logical_type type);
	char *(*duckdb_struct_type_child_name)(duckdb_logical_type type, idx_t index);
	duckdb_logical_type (*duckdb_struct_type_child_type)(duckdb_logical_type type, idx_t index);
	idx_t (*duckdb_union_type_member_count)(duckdb_logical_type type);
	char *(*duckdb_union_type_member_name)(duckdb_logical_type type, idx_t index);
	duckdb_logical_type (*duckdb_union_type_member_type)(duckdb_logical_type type, idx_t index);
	void (*duckdb_destroy_logical_type)(duckdb_logical_type *type);
	void *duckdb_register_logical_type;
	void *duckdb_create_data_chunk;
	void *duckdb_destroy_data_chunk;
	void *duckdb_data_chunk_reset;
	void *duckdb_data_chunk_get_column_count;
	duckdb_vector (*duckdb_data_chunk_get_vector)(duckdb_data_chunk chunk, idx_t column);
	idx_t (*duckdb_data_chunk_get_size)(duckdb_data_chunk chunk);
	void (*duckdb_data_chunk_set_size)(duckdb_data_chunk chunk, idx_t size);
	void *duckdb_vector_get_column_type;
	void *(*duckdb_vector_get_data)(duckdb_vector vector);
	uint64_t *(*duckdb_vector_get_validity)(duckdb_vector vector);
	void (*duckdb_vector_ensure_validity_writable)(duckdb_vector vector);
	void *duckdb_vector_assign_string_element;
	void (*duckdb_vector_assign_string_element_len)(duckdb_vector vector, idx_t index, const char *str, idx_t len);
	duckdb_vector (*duckdb_list_vector_get_child)(duckdb_vector vector);
	idx_t (*duckdb_list_vector_get_size)(duckdb_vector vector);
	duckdb_state (*duckdb_list_vector_set_size)(duckdb_vector vector, idx_t size);
	duckdb_state (*duckdb_list_vector_reserve)(duckdb_vector vector, idx_t capacity);
	duckdb_vector (*duckdb_struct_vector_get_child)(duckdb_vector vector, idx_t index);
	duckdb_vector (*duckdb_array_vector_get_child)(duckdb_vector vector);
	void *duckdb_validity_row_is_valid;
	void *duckdb_validity_set_row_validity;
	void *duckdb_validity_set_row_invalid;
	void *duckdb_validity_set_row_valid;
	void *duckdb_create_scalar_function;
	void *duckdb_destroy_scalar_function;
	void *duckdb_scalar_function_set_name;
	void *duckdb_scalar_function_set_varargs;
	void *duckdb_scalar_function_set_special_handling;
	void *duckdb_scalar_function_set_volatile;
	void *duckdb_scalar_function_add_parameter;
	void *duckdb_scalar_function_set_return_type;
	void *duckdb_scalar_function_set_extra_info;
	void *duckdb_scalar_function_set_function;
	void *duckdb_register_scalar_function;
	void *duckdb_scalar_function_get_extra_info;
	void *duckdb_scalar_function_set_error;
	void *duckdb_create_scalar_function_set;
	void *duckdb_destroy_scalar_function_set;
	void *duckdb_add_scalar_function_to_set;
	void *duckdb_register_scalar_function_set;
	void *duckdb_create_aggregate_function;
	void *duckdb_destroy_aggregate_function;
	void *duckdb_aggregate_function_set_name;
	void *duckdb_aggregate_function_add_parameter;
	void *duckdb_aggregate_function_set_return_type;
	void *duckdb_aggregate_function_set_functions;
	void *duckdb_aggregate_function_set_destructor;
	void *duckdb_register_aggregate_function;
	void *duckdb_aggregate_function_set_special_handling;
	void *duckdb_aggregate_function_set_extra_info;
	void *duckdb_aggregate_function_get_extra_info;
	void *duckdb_aggregate_function_set_error;
	void *duckdb_create_aggregate_function_set;
	void *duckdb_destroy_aggregate_function_set;
	void *duckdb_add_aggregate_function_to_set;
	void *duckdb_register_aggregate_function_set;
	duckdb_table_function (*duckdb_create_table_function)(void);
	void (*duckdb_destroy_table_function)(duckdb_table_function *f);
	void (*duckdb_table_function_set_name)(duckdb_table_function f, const char *name);
	void (*duckdb_table_function_add_parameter)(duckdb_table_function f, duckdb_logical_type type);
	void (*duckdb_table_function_add_named_parameter)(duckdb_table_function f, const char *name, duckdb_logical_type type);
	void (*duckdb_table_function_set_extra_info)(duckdb_table_function f, void *extra, duckdb_delete_callback_t destroy);
	void (*duckdb_table_function_set_bind)(duckdb_table_function f, duckdb_table_function_bind_t bind);
	void (*duckdb_table_function_set_init)(duckdb_table_function f, duckdb_table_function_init_t init);
	void (*duckdb_table_function_set_local_init)(duckdb_table_function f, duckdb_table_function_init_t init);
	void (*duckdb_table_function_set_function)(duckdb_table_function f, duckdb_table_function_t fn);
	void (*duckdb_table_function_supports_projection_pushdown)(duckdb_table_function f, bool pushdown);
	duckdb_state (*duckdb_register_table_function)(duckdb_connection connection, duckdb_table_function f);
	void *(*duckdb_bind_get_extra_info)(duckdb_bind_info info);
	void (*duckdb_bind_add_result_column)(duckdb_bind_info info, const char *name, duckdb_logical_type type);
	void *duckdb_bind_get_parameter_count;
	duckdb_value (*duckdb_bind_get_parameter)(duckdb_bind_info info, idx_t index);
	duckdb_value (*duckdb_bind_get_named_parameter)(duckdb_bind_info info, const char *name);
	void (*duckdb_bind_set_bind_data)(duckdb_bind_info info, void *data, duckdb_delete_callback_t destroy);
	void (*duckdb_bind_set_cardinality)(duckdb_bind_info info, idx_t cardinality, bool exact);
	void (*duckdb_bind_set_error)(duckdb_bind_info info, const char *error);
	void *duckdb_init_get_extra_info;
	void *(*duckdb_init_get_bind_data)(duckdb_init_info info);
	void (*duckdb_init_set_init_data)(duckdb_init_info info, void *data, duckdb_delete_callback_t destroy);
	idx_t (*duckdb_init_get_column_count)(duckdb_init_info info);
	idx_t (*duckdb_init_get_column_index)(duckdb_init_info info, idx_t index);
	void (*duckdb_init_set_max_threads)(duckdb_init_info info, idx_t threads);
	void (*duckdb_init_set_error)(duckdb_init_info info, const char *error);
	void *duckdb_function_get_extra_info;
	void *(*duckdb_function_get_bind_data)(duckdb_function_info info);
	void *(*duckdb_function_get_init_data)(duckdb_function_info info);
	void *(*duckdb_function_get_local_init_data)(duckdb_function_info info);
	void (*duckdb_function_set_error)(duckdb_function_info info, const char *error);
	void (*duckdb_add_replacement_scan)(duckdb_database db, duckdb_replacement_callback_t fn, void *extra, duckdb_delete_callback_t destroy);
	void (*duckdb_replacement_scan_set_function_name)(duckdb_replacement_scan_info info, const char *name);
	void (*duckdb_replacement_scan_add_parameter)(duckdb_replacement_scan_info info, duckdb_value parameter);
	void (*duckdb_replacement_scan_set_error)(duckdb_replacement_scan_info info, const char *error);
	// v1.5.6: the members DuckDB 1.5.6 made stable (in 1.5.0-1.5.5 the
	// unstable tail of the same struct, in the same order)
	void *duckdb_profiling_info_get_metrics;
	void *duckdb_profiling_info_get_child_count;
	void *duckdb_profiling_info_get_child;
	void *duckdb_appender_create;
	void *duckdb_appender_create_ext;
	void *duckdb_appender_column_count;
	void *duckdb_appender_column_type;
	void *duckdb_appender_error;
	void *duckdb_appender_flush;
	void *duckdb_appender_close;
	void *duckdb_appender_destroy;
	void *duckdb_appender_add_column;
	void *duckdb_appender_clear_columns;
	void *duckdb_append_data_chunk;
	void *duckdb_table_description_create;
	void *duckdb_table_description_create_ext;
	void *duckdb_table_description_destroy;
	void *duckdb_table_description_error;
	void *duckdb_column_has_default;
	void *duckdb_table_description_get_column_name;
	void *duckdb_execute_tasks;
	void *duckdb_create_task_state;
	void *duckdb_execute_tasks_state;
	void *duckdb_execute_n_tasks_state;
	void *duckdb_finish_execution;
	void *duckdb_task_state_is_finished;
	void *duckdb_destroy_task_state;
	void *duckdb_execution_is_finished;
	void *duckdb_fetch_chunk;
	void *duckdb_create_cast_function;
	void *duckdb_cast_function_set_source_type;
	void *duckdb_cast_function_set_target_type;
	void *duckdb_cast_function_set_implicit_cast_cost;
	void *duckdb_cast_function_set_function;
	void *duckdb_cast_function_set_extra_info;
	void *duckdb_cast_function_get_extra_info;
	void *duckdb_cast_function_get_cast_mode;
	void *duckdb_cast_function_set_error;
	void *duckdb_cast_function_set_row_error;
	void *duckdb_register_cast_function;
	void *duckdb_destroy_cast_function;
	void *duckdb_is_finite_timestamp_s;
	void *duckdb_is_finite_timestamp_ms;
	void *duckdb_is_finite_timestamp_ns;
	void *duckdb_create_timestamp_tz;
	void *duckdb_create_timestamp_s;
	void *duckdb_create_timestamp_ms;
	void *duckdb_create_timestamp_ns;
	void *duckdb_get_timestamp_tz;
	void *duckdb_get_timestamp_s;
	void *duckdb_get_timestamp_ms;
	void *duckdb_get_timestamp_ns;
	void *duckdb_append_value;
	void *duckdb_get_profiling_info;
	void *duckdb_profiling_info_get_value;
	void *duckdb_appender_begin_row;
	void *duckdb_appender_end_row;
	void *duckdb_append_default;
	void *duckdb_append_bool;
	void *duckdb_append_int8;
	void *duckdb_append_int16;
	void *duckdb_append_int32;
	void *duckdb_append_int64;
	void *duckdb_append_hugeint;
	void *duckdb_append_uint8;
	void *duckdb_append_uint16;
	void *duckdb_append_uint32;
	void *duckdb_append_uint64;
	void *duckdb_append_uhugeint;
	void *duckdb_append_float;
	void *duckdb_append_double;
	void *duckdb_append_date;
	void *duckdb_append_time;
	void *duckdb_append_timestamp;
	void *duckdb_append_interval;
	void *duckdb_append_varchar;
	void *duckdb_append_varchar_length;
	void *duckdb_append_blob;
	void *duckdb_append_null;
	void *duckdb_row_count;
	void *duckdb_column_data;
	void *duckdb_nullmask_data;
	void *duckdb_result_get_chunk;
	void *duckdb_result_is_streaming;
	void *duckdb_result_chunk_count;
	void *duckdb_value_boolean;
	void *duckdb_value_int8;
	void *duckdb_value_int16;
	void *duckdb_value_int32;
	void *duckdb_value_int64;
	void *duckdb_value_hugeint;
	void *duckdb_value_uhugeint;
	void *duckdb_value_decimal;
	void *duckdb_value_uint8;
	void *duckdb_value_uint16;
	void *duckdb_value_uint32;
	void *duckdb_value_uint64;
	void *duckdb_value_float;
	void *duckdb_value_double;
	void *duckdb_value_date;
	void *duckdb_value_time;
	void *duckdb_value_timestamp;
	void *duckdb_value_interval;
	void *duckdb_value_varchar;
	void *duckdb_value_string;
	void *duckdb_value_varchar_internal;
	void *duckdb_value_string_internal;
	void *duckdb_value_blob;
	void *duckdb_value_is_null;
	void *duckdb_execute_prepared_streaming;
	void *duckdb_pending_prepared_streaming;
	void *duckdb_query_arrow;
	void *duckdb_query_arrow_schema;
	void *duckdb_prepared_arrow_schema;
	void *duckdb_result_arrow_array;
	void *duckdb_query_arrow_array;
	void *duckdb_arrow_column_count;
	void *duckdb_arrow_row_count;
	void *duckdb_arrow_rows_changed;
	void *duckdb_query_arrow_error;
	void *duckdb_destroy_arrow;
	void *duckdb_destroy_arrow_stream;
	void *duckdb_execute_prepared_arrow;
	void *duckdb_arrow_scan;
	void *duckdb_arrow_array_scan;
	void *duckdb_stream_fetch_chunk;
	void *duckdb_create_instance_cache;
	void *duckdb_get_or_create_from_cache;
	void *duckdb_destroy_instance_cache;
	void *duckdb_append_default_to_chunk;
	void *duckdb_appender_error_data;
	void *duckdb_appender_create_query;
	void *duckdb_appender_clear;
	void *duckdb_to_arrow_schema;
	void *duckdb_data_chunk_to_arrow;
	void *duckdb_schema_from_arrow;
	void *duckdb_data_chunk_from_arrow;
	void *duckdb_destroy_arrow_converted_schema;
	void *duckdb_client_context_get_catalog;
	void *duckdb_catalog_get_type_name;
	void *duckdb_catalog_get_entry;
	void *duckdb_destroy_catalog;
	void *duckdb_catalog_entry_get_type;
	void *duckdb_catalog_entry_get_name;
	void *duckdb_destroy_catalog_entry;
	duckdb_config_option (*duckdb_create_config_option)(void);
	void (*duckdb_destroy_config_option)(duckdb_config_option *option);
	void (*duckdb_config_option_set_name)(duckdb_config_option option, const char *name);
	void (*duckdb_config_option_set_type)(duckdb_config_option option, duckdb_logical_type type);
	void (*duckdb_config_option_set_default_value)(duckdb_config_option option, duckdb_value value);
	void *duckdb_config_option_set_default_scope;
	void (*duckdb_config_option_set_description)(duckdb_config_option option, const char *description);
	duckdb_state (*duckdb_register_config_option)(duckdb_connection connection, duckdb_config_option option);
	duckdb_value (*duckdb_client_context_get_config_option)(duckdb_client_context context, const char *name, int *out_scope);
	duckdb_copy_function (*duckdb_create_copy_function)(void);
	void (*duckdb_copy_function_set_name)(duckdb_copy_function f, const char *name);
	void (*duckdb_copy_function_set_extra_info)(duckdb_copy_function f, void *extra, duckdb_delete_callback_t destroy);
	duckdb_state (*duckdb_register_copy_function)(duckdb_connection connection, duckdb_copy_function f);
	void (*duckdb_destroy_copy_function)(duckdb_copy_function *f);
	void (*duckdb_copy_function_set_bind)(duckdb_copy_function f, duckdb_copy_function_bind_t bind);
	void (*duckdb_copy_function_bind_set_error)(duckdb_copy_function_bind_info info, const char *error);
	void *(*duckdb_copy_function_bind_get_extra_info)(duckdb_copy_function_bind_info info);
	void *duckdb_copy_function_bind_get_client_context;
	idx_t (*duckdb_copy_function_bind_get_column_count)(duckdb_copy_function_bind_info info);
	duckdb_logical_type (*duckdb_copy_function_bind_get_column_type)(duckdb_copy_function_bind_info info, idx_t index);
	duckdb_value (*duckdb_copy_function_bind_get_options)(duckdb_copy_function_bind_info info);
	void (*duckdb_copy_function_bind_set_bind_data)(duckdb_copy_function_bind_info info, void *data, duckdb_delete_callback_t destroy);
	void (*duckdb_copy_function_set_global_init)(duckdb_copy_function f, duckdb_copy_function_global_init_t init);
	void (*duckdb_copy_function_global_init_set_error)(duckdb_copy_function_global_init_info info, const char *error);
	void *duckdb_copy_function_global_init_get_extra_info;
	void *duckdb_copy_function_global_init_get_client_context;
	void *(*duckdb_copy_function_global_init_get_bind_data)(duckdb_copy_function_global_init_info info);
	void (*duckdb_copy_function_global_init_set_global_state)(duckdb_copy_function_global_init_info info, void *state, duckdb_delete_callback_t destroy);
	const char *(*duckdb_copy_function_global_init_get_file_path)(duckdb_copy_function_global_init_info info);
	void (*duckdb_copy_function_set_sink)(duckdb_copy_function f, duckdb_copy_function_sink_t sink);
	void (*duckdb_copy_function_sink_set_error)(duckdb_copy_function_sink_info info, const char *error);
	void *duckdb_copy_function_sink_get_extra_info;
	void *duckdb_copy_function_sink_get_client_context;
	void *(*duckdb_copy_function_sink_get_bind_data)(duckdb_copy_function_sink_info info);
	void *(*duckdb_copy_function_sink_get_global_state)(duckdb_copy_function_sink_info info);
	void (*duckdb_copy_function_set_finalize)(duckdb_copy_function f, duckdb_copy_function_finalize_t finalize);
	void (*duckdb_copy_function_finalize_set_error)(duckdb_copy_function_finalize_info info, const char *error);
	void *duckdb_copy_function_finalize_get_extra_info;
	void *duckdb_copy_function_finalize_get_client_context;
	void *duckdb_copy_function_finalize_get_bind_data;
	void *(*duckdb_copy_function_finalize_get_global_state)(duckdb_copy_function_finalize_info info);
	void *duckdb_copy_function_set_copy_from_function;
	void *duckdb_table_function_bind_get_result_column_count;
	void *duckdb_table_function_bind_get_result_column_name;
	void *duckdb_table_function_bind_get_result_column_type;
	void *duckdb_create_error_data;
	void *duckdb_destroy_error_data;
	void *duckdb_error_data_error_type;
	void *duckdb_error_data_message;
	void *duckdb_error_data_has_error;
	void *duckdb_destroy_expression;
	void *duckdb_expression_return_type;
	void *duckdb_expression_is_foldable;
	void *duckdb_expression_fold;
	void *duckdb_client_context_get_file_system;
	void *duckdb_destroy_file_system;
	void *duckdb_file_system_open;
	void *duckdb_file_system_error_data;
	void *duckdb_create_file_open_options;
	void *duckdb_file_open_options_set_flag;
	void *duckdb_destroy_file_open_options;
	void *duckdb_destroy_file_handle;
	void *duckdb_file_handle_error_data;
	void *duckdb_file_handle_close;
	void *duckdb_file_handle_read;
	void *duckdb_file_handle_write;
	void *duckdb_file_handle_seek;
	void *duckdb_file_handle_tell;
	void *duckdb_file_handle_sync;
	void *duckdb_file_handle_size;
	void *duckdb_geometry_type_get_crs;
	void *duckdb_create_log_storage;
	void *duckdb_destroy_log_storage;
	void *duckdb_log_storage_set_write_log_entry;
	void *duckdb_log_storage_set_extra_data;
	void *duckdb_log_storage_set_name;
	void *duckdb_register_log_storage;
	void *duckdb_client_context_get_connection_id;
	void (*duckdb_destroy_client_context)(duckdb_client_context *context);
	void *duckdb_connection_get_client_context;
	void *duckdb_get_table_names;
	void *duckdb_connection_get_arrow_options;
	void *duckdb_destroy_arrow_options;
	void *duckdb_prepared_statement_column_count;
	void *duckdb_prepared_statement_column_name;
	void *duckdb_prepared_statement_column_logical_type;
	void *duckdb_prepared_statement_column_type;
	void *duckdb_result_get_arrow_options;
	void *duckdb_scalar_function_set_bind;
	void *duckdb_scalar_function_bind_set_error;
	void *duckdb_scalar_function_get_client_context;
	void *duckdb_scalar_function_set_bind_data;
	void *duckdb_scalar_function_get_bind_data;
	void *duckdb_scalar_function_bind_get_extra_info;
	void *duckdb_scalar_function_bind_get_argument_count;
	void *duckdb_scalar_function_bind_get_argument;
	void *duckdb_scalar_function_set_bind_data_copy;
	void *duckdb_scalar_function_get_state;
	void *duckdb_scalar_function_set_init;
	void *duckdb_scalar_function_init_set_error;
	void *duckdb_scalar_function_init_set_state;
	void *duckdb_scalar_function_init_get_client_context;
	void *duckdb_scalar_function_init_get_bind_data;
	void *duckdb_scalar_function_init_get_extra_info;
	void *duckdb_value_to_string;
	void *duckdb_valid_utf8_check;
	void *duckdb_table_description_get_column_count;
	void *duckdb_table_description_get_column_type;
	void (*duckdb_table_function_get_client_context)(duckdb_bind_info info, duckdb_client_context *out_context);
} trevni_duckdb_api;

// TREVNI_DUCKDB_USED lists the members called (for the table a program
// linking DuckDB fills from its own symbols).
#define TREVNI_DUCKDB_USED(F) \
	F(duckdb_connect) \
	F(duckdb_disconnect) \
	F(duckdb_library_version) \
	F(duckdb_free) \
	F(duckdb_vector_size) \
	F(duckdb_destroy_value) \
	F(duckdb_create_varchar) \
	F(duckdb_create_bool) \
	F(duckdb_create_int64) \
	F(duckdb_get_bool) \
	F(duckdb_get_int64) \
	F(duckdb_get_varchar) \
	F(duckdb_is_null_value) \
	F(duckdb_create_logical_type) \
	F(duckdb_create_list_type) \
	F(duckdb_create_map_type) \
	F(duckdb_create_union_type) \
	F(duckdb_create_struct_type) \
	F(duckdb_create_decimal_type) \
	F(duckdb_destroy_logical_type) \
	F(duckdb_data_chunk_get_vector) \
	F(duckdb_data_chunk_set_size) \
	F(duckdb_vector_get_data) \
	F(duckdb_vector_get_validity) \
	F(duckdb_vector_ensure_validity_writable) \
	F(duckdb_vector_assign_string_element_len) \
	F(duckdb_list_vector_get_child) \
	F(duckdb_list_vector_get_size) \
	F(duckdb_list_vector_set_size) \
	F(duckdb_list_vector_reserve) \
	F(duckdb_struct_vector_get_child) \
	F(duckdb_create_table_function) \
	F(duckdb_destroy_table_function) \
	F(duckdb_table_function_set_name) \
	F(duckdb_table_function_add_parameter) \
	F(duckdb_table_function_add_named_parameter) \
	F(duckdb_table_function_set_extra_info) \
	F(duckdb_table_function_set_bind) \
	F(duckdb_table_function_set_init) \
	F(duckdb_table_function_set_local_init) \
	F(duckdb_table_function_set_function) \
	F(duckdb_table_function_supports_projection_pushdown) \
	F(duckdb_register_table_function) \
	F(duckdb_bind_get_extra_info) \
	F(duckdb_bind_add_result_column) \
	F(duckdb_bind_get_parameter) \
	F(duckdb_bind_get_named_parameter) \
	F(duckdb_bind_set_bind_data) \
	F(duckdb_bind_set_cardinality) \
	F(duckdb_bind_set_error) \
	F(duckdb_init_get_bind_data) \
	F(duckdb_init_set_init_data) \
	F(duckdb_init_get_column_count) \
	F(duckdb_init_get_column_index) \
	F(duckdb_init_set_max_threads) \
	F(duckdb_init_set_error) \
	F(duckdb_function_get_bind_data) \
	F(duckdb_function_get_init_data) \
	F(duckdb_function_get_local_init_data) \
	F(duckdb_function_set_error) \
	F(duckdb_add_replacement_scan) \
	F(duckdb_replacement_scan_set_function_name) \
	F(duckdb_replacement_scan_add_parameter) \
	F(duckdb_get_value_type) \
	F(duckdb_get_struct_child) \
	F(duckdb_get_type_id) \
	F(duckdb_decimal_width) \
	F(duckdb_decimal_scale) \
	F(duckdb_decimal_internal_type) \
	F(duckdb_enum_internal_type) \
	F(duckdb_enum_dictionary_size) \
	F(duckdb_enum_dictionary_value) \
	F(duckdb_list_type_child_type) \
	F(duckdb_array_type_child_type) \
	F(duckdb_array_type_array_size) \
	F(duckdb_map_type_key_type) \
	F(duckdb_map_type_value_type) \
	F(duckdb_struct_type_child_count) \
	F(duckdb_struct_type_child_name) \
	F(duckdb_struct_type_child_type) \
	F(duckdb_union_type_member_count) \
	F(duckdb_union_type_member_name) \
	F(duckdb_union_type_member_type) \
	F(duckdb_data_chunk_get_size) \
	F(duckdb_array_vector_get_child) \
	F(duckdb_create_copy_function) \
	F(duckdb_copy_function_set_name) \
	F(duckdb_copy_function_set_extra_info) \
	F(duckdb_register_copy_function) \
	F(duckdb_destroy_copy_function) \
	F(duckdb_copy_function_set_bind) \
	F(duckdb_copy_function_bind_set_error) \
	F(duckdb_copy_function_bind_get_extra_info) \
	F(duckdb_copy_function_bind_get_column_count) \
	F(duckdb_copy_function_bind_get_column_type) \
	F(duckdb_copy_function_bind_get_options) \
	F(duckdb_copy_function_bind_set_bind_data) \
	F(duckdb_copy_function_set_global_init) \
	F(duckdb_copy_function_global_init_set_error) \
	F(duckdb_copy_function_global_init_get_bind_data) \
	F(duckdb_copy_function_global_init_set_global_state) \
	F(duckdb_copy_function_global_init_get_file_path) \
	F(duckdb_copy_function_set_sink) \
	F(duckdb_copy_function_sink_set_error) \
	F(duckdb_copy_function_sink_get_bind_data) \
	F(duckdb_copy_function_sink_get_global_state) \
	F(duckdb_copy_function_set_finalize) \
	F(duckdb_copy_function_finalize_set_error) \
	F(duckdb_copy_function_finalize_get_global_state) \
	F(duckdb_create_config_option) \
	F(duckdb_destroy_config_option) \
	F(duckdb_config_option_set_name) \
	F(duckdb_config_option_set_type) \
	F(duckdb_config_option_set_default_value) \
	F(duckdb_config_option_set_description) \
	F(duckdb_register_config_option) \
	F(duckdb_client_context_get_config_option) \
	F(duckdb_destroy_client_context) \
	F(duckdb_table_function_get_client_context) \
	F(duckdb_replacement_scan_set_error)

#endif
