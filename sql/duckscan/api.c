#include <string.h>

#include "calls.h"

// The table of DuckDB's C API the scan calls through, set once by SetAPI:
// a copy of the one DuckDB hands over (which need not outlive the load).
static trevni_duckdb_api trevni_api_copy;
const trevni_duckdb_api *trevni_api;

// td_set_api copies the table api and returns 0; if a table is set
// already, it returns 0 when api holds the same, else 1.
int td_set_api(const void *api) {
	if (trevni_api != NULL) {
		return memcmp(trevni_api, api, sizeof(trevni_duckdb_api)) == 0 ? 0 : 1;
	}
	memcpy(&trevni_api_copy, api, sizeof(trevni_duckdb_api));
	trevni_api = &trevni_api_copy;
	return 0;
}

// td_assign_strings assigns n strings or blobs of Arrow's layout (offsets
// and data; valid, when not NULL, a bitmap whose bit bit_offset+i tells
// that value i is not null) to rows row..row+n-1 of v: one cgo call a
// batch rather than one a value.
void td_assign_strings(duckdb_vector v, idx_t row, const int32_t *offsets, const char *data, const uint8_t *valid,
                       int64_t bit_offset, int64_t n) {
	for (int64_t i = 0; i < n; i++) {
		if (valid != NULL) {
			int64_t b = bit_offset + i;
			if (!(valid[b >> 3] & (1 << (b & 7)))) {
				continue;
			}
		}
		trevni_api->duckdb_vector_assign_string_element_len(v, row + (idx_t)i, data + offsets[i],
		                                                    (idx_t)(offsets[i + 1] - offsets[i]));
	}
}

// td_assign_fixed assigns n values of size bytes each, stored one after
// the other, as td_assign_strings does.
void td_assign_fixed(duckdb_vector v, idx_t row, const char *data, int64_t size, const uint8_t *valid, int64_t bit_offset,
                     int64_t n) {
	for (int64_t i = 0; i < n; i++) {
		if (valid != NULL) {
			int64_t b = bit_offset + i;
			if (!(valid[b >> 3] & (1 << (b & 7)))) {
				continue;
			}
		}
		trevni_api->duckdb_vector_assign_string_element_len(v, row + (idx_t)i, data + i * size, (idx_t)size);
	}
}

// td_copy_bind_names reads the column names of a COPY TO that DuckDB's C
// API does not hand a copy function (it gives their count and types
// only). In DuckDB 1.5 the bind info a copy function's bind gets is a C++
// struct whose first members are references (pointers) to the client
// context, the bind input, the vector of the column types and the vector
// of the column names (CCopyFunctionToInternalBindInfo, in
// src/main/capi/copy_function-c.cpp, unchanged since copy functions came
// in 1.5.0). Only called for a DuckDB 1.5.x built with libstdc++'s C++11
// ABI (a vector is three pointers, begin, end and capacity end; a string
// 32 bytes: data pointer, length, then 16 bytes of local buffer or
// capacity). It checks what it reads as far as it can without following
// a pointer it has not checked: the types' vector must hold n LogicalTypes
// of 24 bytes, the names' vector n strings of 32, each of a sane length
// whose data is its local buffer exactly when it is short; any mismatch
// and it returns 0 (the caller names the columns by position). On success
// ptrs[i] and lens[i] are name i's bytes, valid during the bind.
int td_copy_bind_names(duckdb_copy_function_bind_info info, idx_t n, const char **ptrs, idx_t *lens) {
	const char *const *refs = (const char *const *)info;
	const char *const *types = (const char *const *)refs[2];
	const char *const *names = (const char *const *)refs[3];
	if (types == NULL || names == NULL) {
		return 0;
	}
	if (types[1] < types[0] || (idx_t)(types[1] - types[0]) != n * 24) {
		return 0;
	}
	if (names[1] < names[0] || (idx_t)(names[1] - names[0]) != n * 32) {
		return 0;
	}
	for (idx_t i = 0; i < n; i++) {
		const char *s = names[0] + 32 * i;
		const char *data = *(const char *const *)s;
		idx_t len = *(const idx_t *)(s + 8);
		if (data == NULL || len > 65536) {
			return 0;
		}
		if ((data == s + 16) != (len <= 15)) {
			return 0;
		}
		ptrs[i] = data;
		lens[i] = len;
	}
	return 1;
}

// td_assign_at assigns n strings or blobs, stored end to end in data
// (value i ending at ends[i]), to rows pos[i] of v, or, when pos is NULL,
// to rows base+i: the levels path's byte strings, one cgo call a run.
void td_assign_at(duckdb_vector v, idx_t base, const int32_t *pos, const int64_t *ends, const char *data, int64_t n) {
	int64_t start = 0;
	for (int64_t i = 0; i < n; i++) {
		idx_t row = pos != NULL ? (idx_t)pos[i] : base + (idx_t)i;
		trevni_api->duckdb_vector_assign_string_element_len(v, row, data + start, (idx_t)(ends[i] - start));
		start = ends[i];
	}
}
