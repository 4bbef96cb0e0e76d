// Calls through the API table trevni_api: cgo calls C functions, not
// function pointers. Generated from the declarations of capi.h.
#ifndef TREVNI_DUCKDB_CALLS_H
#define TREVNI_DUCKDB_CALLS_H

#include "capi.h"

extern const trevni_duckdb_api *trevni_api;

static inline duckdb_state td_connect(duckdb_database database, duckdb_connection *out) { return trevni_api->duckdb_connect(database, out); }
static inline void td_disconnect(duckdb_connection *connection) { trevni_api->duckdb_disconnect(connection); }
static inline const char *td_library_version(void) { return trevni_api->duckdb_library_version(); }
static inline void td_free(void *p) { trevni_api->duckdb_free(p); }
static inline idx_t td_vector_size(void) { return trevni_api->duckdb_vector_size(); }
static inline void td_destroy_value(duckdb_value *value) { trevni_api->duckdb_destroy_value(value); }
static inline duckdb_value td_create_varchar(const char *text) { return trevni_api->duckdb_create_varchar(text); }
static inline duckdb_value td_create_bool(bool b) { return trevni_api->duckdb_create_bool(b); }
static inline duckdb_value td_create_int64(int64_t v) { return trevni_api->duckdb_create_int64(v); }
static inline char *td_get_varchar(duckdb_value value) { return trevni_api->duckdb_get_varchar(value); }
static inline int64_t td_get_int64(duckdb_value value) { return trevni_api->duckdb_get_int64(value); }
static inline bool td_get_bool(duckdb_value value) { return trevni_api->duckdb_get_bool(value); }
static inline bool td_is_null_value(duckdb_value value) { return trevni_api->duckdb_is_null_value(value); }
static inline duckdb_logical_type td_create_logical_type(duckdb_type type) { return trevni_api->duckdb_create_logical_type(type); }
static inline duckdb_logical_type td_create_list_type(duckdb_logical_type type) { return trevni_api->duckdb_create_list_type(type); }
static inline duckdb_logical_type td_create_map_type(duckdb_logical_type key, duckdb_logical_type value) { return trevni_api->duckdb_create_map_type(key, value); }
static inline duckdb_logical_type td_create_union_type(duckdb_logical_type *types, const char **names, idx_t n) { return trevni_api->duckdb_create_union_type(types, names, n); }
static inline duckdb_logical_type td_create_struct_type(duckdb_logical_type *types, const char **names, idx_t n) { return trevni_api->duckdb_create_struct_type(types, names, n); }
static inline duckdb_logical_type td_create_decimal_type(uint8_t width, uint8_t scale) { return trevni_api->duckdb_create_decimal_type(width, scale); }
static inline void td_destroy_logical_type(duckdb_logical_type *type) { trevni_api->duckdb_destroy_logical_type(type); }
static inline duckdb_vector td_data_chunk_get_vector(duckdb_data_chunk chunk, idx_t column) { return trevni_api->duckdb_data_chunk_get_vector(chunk, column); }
static inline void td_data_chunk_set_size(duckdb_data_chunk chunk, idx_t size) { trevni_api->duckdb_data_chunk_set_size(chunk, size); }
static inline void *td_vector_get_data(duckdb_vector vector) { return trevni_api->duckdb_vector_get_data(vector); }
static inline uint64_t *td_vector_get_validity(duckdb_vector vector) { return trevni_api->duckdb_vector_get_validity(vector); }
static inline void td_vector_ensure_validity_writable(duckdb_vector vector) { trevni_api->duckdb_vector_ensure_validity_writable(vector); }
static inline void td_vector_assign_string_element_len(duckdb_vector vector, idx_t index, const char *str, idx_t len) { trevni_api->duckdb_vector_assign_string_element_len(vector, index, str, len); }
static inline duckdb_vector td_list_vector_get_child(duckdb_vector vector) { return trevni_api->duckdb_list_vector_get_child(vector); }
static inline idx_t td_list_vector_get_size(duckdb_vector vector) { return trevni_api->duckdb_list_vector_get_size(vector); }
static inline duckdb_state td_list_vector_set_size(duckdb_vector vector, idx_t size) { return trevni_api->duckdb_list_vector_set_size(vector, size); }
static inline duckdb_state td_list_vector_reserve(duckdb_vector vector, idx_t capacity) { return trevni_api->duckdb_list_vector_reserve(vector, capacity); }
static inline duckdb_vector td_struct_vector_get_child(duckdb_vector vector, idx_t index) { return trevni_api->duckdb_struct_vector_get_child(vector, index); }
static inline duckdb_table_function td_create_table_function(void) { return trevni_api->duckdb_create_table_function(); }
static inline void td_destroy_table_function(duckdb_table_function *f) { trevni_api->duckdb_destroy_table_function(f); }
static inline void td_table_function_set_name(duckdb_table_function f, const char *name) { trevni_api->duckdb_table_function_set_name(f, name); }
static inline void td_table_function_add_parameter(duckdb_table_function f, duckdb_logical_type type) { trevni_api->duckdb_table_function_add_parameter(f, type); }
static inline void td_table_function_add_named_parameter(duckdb_table_function f, const char *name, duckdb_logical_type type) { trevni_api->duckdb_table_function_add_named_parameter(f, name, type); }
static inline void td_table_function_set_extra_info(duckdb_table_function f, void *extra, duckdb_delete_callback_t destroy) { trevni_api->duckdb_table_function_set_extra_info(f, extra, destroy); }
static inline void td_table_function_set_bind(duckdb_table_function f, duckdb_table_function_bind_t bind) { trevni_api->duckdb_table_function_set_bind(f, bind); }
static inline void td_table_function_set_init(duckdb_table_function f, duckdb_table_function_init_t init) { trevni_api->duckdb_table_function_set_init(f, init); }
static inline void td_table_function_set_local_init(duckdb_table_function f, duckdb_table_function_init_t init) { trevni_api->duckdb_table_function_set_local_init(f, init); }
static inline void td_table_function_set_function(duckdb_table_function f, duckdb_table_function_t fn) { trevni_api->duckdb_table_function_set_function(f, fn); }
static inline void td_table_function_supports_projection_pushdown(duckdb_table_function f, bool pushdown) { trevni_api->duckdb_table_function_supports_projection_pushdown(f, pushdown); }
static inline duckdb_state td_register_table_function(duckdb_connection connection, duckdb_table_function f) { return trevni_api->duckdb_register_table_function(connection, f); }
static inline void *td_bind_get_extra_info(duckdb_bind_info info) { return trevni_api->duckdb_bind_get_extra_info(info); }
static inline void td_bind_add_result_column(duckdb_bind_info info, const char *name, duckdb_logical_type type) { trevni_api->duckdb_bind_add_result_column(info, name, type); }
static inline duckdb_value td_bind_get_parameter(duckdb_bind_info info, idx_t index) { return trevni_api->duckdb_bind_get_parameter(info, index); }
static inline duckdb_value td_bind_get_named_parameter(duckdb_bind_info info, const char *name) { return trevni_api->duckdb_bind_get_named_parameter(info, name); }
static inline void td_bind_set_bind_data(duckdb_bind_info info, void *data, duckdb_delete_callback_t destroy) { trevni_api->duckdb_bind_set_bind_data(info, data, destroy); }
static inline void td_bind_set_cardinality(duckdb_bind_info info, idx_t cardinality, bool exact) { trevni_api->duckdb_bind_set_cardinality(info, cardinality, exact); }
static inline void td_bind_set_error(duckdb_bind_info info, const char *error) { trevni_api->duckdb_bind_set_error(info, error); }
static inline void *td_init_get_bind_data(duckdb_init_info info) { return trevni_api->duckdb_init_get_bind_data(info); }
static inline void td_init_set_init_data(duckdb_init_info info, void *data, duckdb_delete_callback_t destroy) { trevni_api->duckdb_init_set_init_data(info, data, destroy); }
static inline idx_t td_init_get_column_count(duckdb_init_info info) { return trevni_api->duckdb_init_get_column_count(info); }
static inline idx_t td_init_get_column_index(duckdb_init_info info, idx_t index) { return trevni_api->duckdb_init_get_column_index(info, index); }
static inline void td_init_set_max_threads(duckdb_init_info info, idx_t threads) { trevni_api->duckdb_init_set_max_threads(info, threads); }
static inline void td_init_set_error(duckdb_init_info info, const char *error) { trevni_api->duckdb_init_set_error(info, error); }
static inline void *td_function_get_bind_data(duckdb_function_info info) { return trevni_api->duckdb_function_get_bind_data(info); }
static inline void *td_function_get_init_data(duckdb_function_info info) { return trevni_api->duckdb_function_get_init_data(info); }
static inline void *td_function_get_local_init_data(duckdb_function_info info) { return trevni_api->duckdb_function_get_local_init_data(info); }
static inline void td_function_set_error(duckdb_function_info info, const char *error) { trevni_api->duckdb_function_set_error(info, error); }
static inline void td_add_replacement_scan(duckdb_database db, duckdb_replacement_callback_t fn, void *extra, duckdb_delete_callback_t destroy) { trevni_api->duckdb_add_replacement_scan(db, fn, extra, destroy); }
static inline void td_replacement_scan_set_function_name(duckdb_replacement_scan_info info, const char *name) { trevni_api->duckdb_replacement_scan_set_function_name(info, name); }
static inline void td_replacement_scan_add_parameter(duckdb_replacement_scan_info info, duckdb_value parameter) { trevni_api->duckdb_replacement_scan_add_parameter(info, parameter); }
static inline void td_replacement_scan_set_error(duckdb_replacement_scan_info info, const char *error) { trevni_api->duckdb_replacement_scan_set_error(info, error); }

static inline duckdb_logical_type td_get_value_type(duckdb_value value) { return trevni_api->duckdb_get_value_type(value); }
static inline duckdb_value td_get_struct_child(duckdb_value value, idx_t index) { return trevni_api->duckdb_get_struct_child(value, index); }
static inline duckdb_type td_get_type_id(duckdb_logical_type type) { return trevni_api->duckdb_get_type_id(type); }
static inline uint8_t td_decimal_width(duckdb_logical_type type) { return trevni_api->duckdb_decimal_width(type); }
static inline uint8_t td_decimal_scale(duckdb_logical_type type) { return trevni_api->duckdb_decimal_scale(type); }
static inline duckdb_type td_decimal_internal_type(duckdb_logical_type type) { return trevni_api->duckdb_decimal_internal_type(type); }
static inline duckdb_type td_enum_internal_type(duckdb_logical_type type) { return trevni_api->duckdb_enum_internal_type(type); }
static inline uint32_t td_enum_dictionary_size(duckdb_logical_type type) { return trevni_api->duckdb_enum_dictionary_size(type); }
static inline char *td_enum_dictionary_value(duckdb_logical_type type, idx_t index) { return trevni_api->duckdb_enum_dictionary_value(type, index); }
static inline duckdb_logical_type td_list_type_child_type(duckdb_logical_type type) { return trevni_api->duckdb_list_type_child_type(type); }
static inline duckdb_logical_type td_array_type_child_type(duckdb_logical_type type) { return trevni_api->duckdb_array_type_child_type(type); }
static inline idx_t td_array_type_array_size(duckdb_logical_type type) { return trevni_api->duckdb_array_type_array_size(type); }
static inline duckdb_logical_type td_map_type_key_type(duckdb_logical_type type) { return trevni_api->duckdb_map_type_key_type(type); }
static inline duckdb_logical_type td_map_type_value_type(duckdb_logical_type type) { return trevni_api->duckdb_map_type_value_type(type); }
static inline idx_t td_struct_type_child_count(duckdb_logical_type type) { return trevni_api->duckdb_struct_type_child_count(type); }
static inline char *td_struct_type_child_name(duckdb_logical_type type, idx_t index) { return trevni_api->duckdb_struct_type_child_name(type, index); }
static inline duckdb_logical_type td_struct_type_child_type(duckdb_logical_type type, idx_t index) { return trevni_api->duckdb_struct_type_child_type(type, index); }
static inline idx_t td_union_type_member_count(duckdb_logical_type type) { return trevni_api->duckdb_union_type_member_count(type); }
static inline char *td_union_type_member_name(duckdb_logical_type type, idx_t index) { return trevni_api->duckdb_union_type_member_name(type, index); }
static inline duckdb_logical_type td_union_type_member_type(duckdb_logical_type type, idx_t index) { return trevni_api->duckdb_union_type_member_type(type, index); }
static inline idx_t td_data_chunk_get_size(duckdb_data_chunk chunk) { return trevni_api->duckdb_data_chunk_get_size(chunk); }
static inline duckdb_vector td_array_vector_get_child(duckdb_vector vector) { return trevni_api->duckdb_array_vector_get_child(vector); }
static inline duckdb_copy_function td_create_copy_function(void) { return trevni_api->duckdb_create_copy_function(); }
static inline void td_copy_function_set_name(duckdb_copy_function f, const char *name) { trevni_api->duckdb_copy_function_set_name(f, name); }
static inline void td_copy_function_set_extra_info(duckdb_copy_function f, void *extra, duckdb_delete_callback_t destroy) { trevni_api->duckdb_copy_function_set_extra_info(f, extra, destroy); }
static inline duckdb_state td_register_copy_function(duckdb_connection connection, duckdb_copy_function f) { return trevni_api->duckdb_register_copy_function(connection, f); }
static inline void td_destroy_copy_function(duckdb_copy_function *f) { trevni_api->duckdb_destroy_copy_function(f); }
static inline void td_copy_function_set_bind(duckdb_copy_function f, duckdb_copy_function_bind_t bind) { trevni_api->duckdb_copy_function_set_bind(f, bind); }
static inline void td_copy_function_bind_set_error(duckdb_copy_function_bind_info info, const char *error) { trevni_api->duckdb_copy_function_bind_set_error(info, error); }
static inline void *td_copy_function_bind_get_extra_info(duckdb_copy_function_bind_info info) { return trevni_api->duckdb_copy_function_bind_get_extra_info(info); }
static inline idx_t td_copy_function_bind_get_column_count(duckdb_copy_function_bind_info info) { return trevni_api->duckdb_copy_function_bind_get_column_count(info); }
static inline duckdb_logical_type td_copy_function_bind_get_column_type(duckdb_copy_function_bind_info info, idx_t index) { return trevni_api->duckdb_copy_function_bind_get_column_type(info, index); }
static inline duckdb_value td_copy_function_bind_get_options(duckdb_copy_function_bind_info info) { return trevni_api->duckdb_copy_function_bind_get_options(info); }
static inline void td_copy_function_bind_set_bind_data(duckdb_copy_function_bind_info info, void *data, duckdb_delete_callback_t destroy) { trevni_api->duckdb_copy_function_bind_set_bind_data(info, data, destroy); }
static inline void td_copy_function_set_global_init(duckdb_copy_function f, duckdb_copy_function_global_init_t init) { trevni_api->duckdb_copy_function_set_global_init(f, init); }
static inline void td_copy_function_global_init_set_error(duckdb_copy_function_global_init_info info, const char *error) { trevni_api->duckdb_copy_function_global_init_set_error(info, error); }
static inline void *td_copy_function_global_init_get_bind_data(duckdb_copy_function_global_init_info info) { return trevni_api->duckdb_copy_function_global_init_get_bind_data(info); }
static inline void td_copy_function_global_init_set_global_state(duckdb_copy_function_global_init_info info, void *state, duckdb_delete_callback_t destroy) { trevni_api->duckdb_copy_function_global_init_set_global_state(info, state, destroy); }
static inline const char *td_copy_function_global_init_get_file_path(duckdb_copy_function_global_init_info info) { return trevni_api->duckdb_copy_function_global_init_get_file_path(info); }
static inline void td_copy_function_set_sink(duckdb_copy_function f, duckdb_copy_function_sink_t sink) { trevni_api->duckdb_copy_function_set_sink(f, sink); }
static inline void td_copy_function_sink_set_error(duckdb_copy_function_sink_info info, const char *error) { trevni_api->duckdb_copy_function_sink_set_error(info, error); }
static inline void *td_copy_function_sink_get_bind_data(duckdb_copy_function_sink_info info) { return trevni_api->duckdb_copy_function_sink_get_bind_data(info); }
static inline void *td_copy_function_sink_get_global_state(duckdb_copy_function_sink_info info) { return trevni_api->duckdb_copy_function_sink_get_global_state(info); }
static inline void td_copy_function_set_finalize(duckdb_copy_function f, duckdb_copy_function_finalize_t finalize) { trevni_api->duckdb_copy_function_set_finalize(f, finalize); }
static inline void td_copy_function_finalize_set_error(duckdb_copy_function_finalize_info info, const char *error) { trevni_api->duckdb_copy_function_finalize_set_error(info, error); }
static inline void *td_copy_function_finalize_get_global_state(duckdb_copy_function_finalize_info info) { return trevni_api->duckdb_copy_function_finalize_get_global_state(info); }
static inline duckdb_config_option td_create_config_option(void) { return trevni_api->duckdb_create_config_option(); }
static inline void td_destroy_config_option(duckdb_config_option *option) { trevni_api->duckdb_destroy_config_option(option); }
static inline void td_config_option_set_name(duckdb_config_option option, const char *name) { trevni_api->duckdb_config_option_set_name(option, name); }
static inline void td_config_option_set_type(duckdb_config_option option, duckdb_logical_type type) { trevni_api->duckdb_config_option_set_type(option, type); }
static inline void td_config_option_set_default_value(duckdb_config_option option, duckdb_value value) { trevni_api->duckdb_config_option_set_default_value(option, value); }
static inline void td_config_option_set_description(duckdb_config_option option, const char *description) { trevni_api->duckdb_config_option_set_description(option, description); }
static inline duckdb_state td_register_config_option(duckdb_connection connection, duckdb_config_option option) { return trevni_api->duckdb_register_config_option(connection, option); }
static inline duckdb_value td_client_context_get_config_option(duckdb_client_context context, const char *name, int *out_scope) { return trevni_api->duckdb_client_context_get_config_option(context, name, out_scope); }
static inline void td_destroy_client_context(duckdb_client_context *context) { trevni_api->duckdb_destroy_client_context(context); }
static inline void td_table_function_get_client_context(duckdb_bind_info info, duckdb_client_context *out_context) { trevni_api->duckdb_table_function_get_client_context(info, out_context); }

#endif
