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
