package duckscan

/*
#include <stdlib.h>
#include "calls.h"

void duckscan_rows_bind(duckdb_bind_info info);
void duckscan_rows_init(duckdb_init_info info);
void duckscan_rows_function(duckdb_function_info info, duckdb_data_chunk output);
void duckscan_delete(void *p);
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"unsafe"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/schema"
)

// The names of the table functions that describe a data set, as DuckDB's
// parquet_metadata and parquet_schema describe Parquet files.
const (
	MetadataFunction = "trevni_metadata"
	SchemaFunction   = "trevni_schema"
)

// rowsColumn is a column of a describing table function: its name and
// DuckDB type (typeVarchar, typeBigint or typeBoolean).
type rowsColumn struct {
	name string
	typ  C.duckdb_type
}

// rowsFunction is a table function whose rows bind computes whole: a
// data set's description, small beside its data.
type rowsFunction struct {
	s       *scanner
	name    string
	columns []rowsColumn
	rows    func(ctx context.Context, ds *trevni.Dataset, open *trevni.OpenOptions) ([][]any, error)
}

var metadataColumns = []rowsColumn{
	{"file_name", typeVarchar}, {"file_format", typeVarchar}, {"file_size", typeBigint}, {"row_count", typeBigint},
	{"column_count", typeBigint}, {"codec", typeVarchar}, {"checksum", typeVarchar},
	{"column_id", typeBigint}, {"column_name", typeVarchar}, {"column_type", typeVarchar}, {"is_array", typeBoolean},
	{"parent", typeVarchar}, {"column_codec", typeVarchar}, {"column_checksum", typeVarchar}, {"column_start", typeBigint},
	{"block_count", typeBigint}, {"compressed_bytes", typeBigint}, {"uncompressed_bytes", typeBigint},
}

var schemaColumns = []rowsColumn{
	{"file_name", typeVarchar}, {"name", typeVarchar}, {"type", typeVarchar}, {"logical_type", typeVarchar},
	{"nullable", typeBoolean}, {"num_children", typeBigint}, {"type_name", typeVarchar},
}

// metadataRows returns a row per column of every part: the part's size,
// rows, columns, codec and checksum, and the column's name, type, codec,
// checksum, offset, blocks and stored and uncompressed bytes (of a Trevni
// 1 or CLMN part, its columns as they read as Trevni 2).
func metadataRows(ctx context.Context, ds *trevni.Dataset, _ *trevni.OpenOptions) ([][]any, error) {
	var rows [][]any
	for _, p := range ds.Parts() {
		f, err := p.Open(ctx)
		if err != nil {
			return nil, err
		}
		rd, err := frontdoor.AsTrevni(ctx, f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", p.Name(), err)
		}
		for i := range rd.NumColumns() {
			c, err := rd.Column(i)
			if err != nil {
				f.Close()
				return nil, fmt.Errorf("%s: %w", p.Name(), err)
			}
			bl, err := rd.Blocks(i)
			if err != nil {
				f.Close()
				return nil, fmt.Errorf("%s: column %s: %w", p.Name(), c.Name, err)
			}
			var comp, unc int64
			for _, b := range bl {
				comp += int64(b.CompressedSize)
				unc += int64(b.UncompressedSize)
			}
			var parent any
			if c.Parent != "" {
				parent = c.Parent
			}
			rows = append(rows, []any{p.Name(), p.Format().String(), p.Size(), p.RowCount(),
				int64(rd.NumColumns()), rd.Codec(), rd.Checksum(),
				int64(i), c.Name, c.Type.String(), c.Array, parent, rd.ColumnCodec(i), rd.ColumnChecksum(i), rd.ColumnStart(i),
				int64(len(bl)), comp, unc})
		}
		if err := f.Close(); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// schemaRows returns a row per node of each part's schema, depth first:
// the root (named by its full name), then each record field (named by
// its dotted path), array's items (path.item), map's values (path.value)
// and union's branches (path.TYPE): its Avro type, logical type, whether
// it is ["null", T] (then described as T), its children, and the full
// name of a named type. A schema nesting deeper than open's MaxDepth is
// refused.
func schemaRows(_ context.Context, ds *trevni.Dataset, open *trevni.OpenOptions) ([][]any, error) {
	maxDepth := schema.DefaultMaxDepth
	if open != nil && open.MaxDepth > 0 {
		maxDepth = open.MaxDepth
	}
	var rows [][]any
	for _, p := range ds.Parts() {
		s, err := schema.ParseWith(p.SchemaText(), &schema.ParseOptions{MaxDepth: maxDepth})
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Name(), err)
		}
		var walk func(path string, s *schema.Schema, depth int) error
		walk = func(path string, s *schema.Schema, depth int) error {
			// (the parse's bound holds the walk's: a step down is a
			// step into a complex type)
			if depth > maxDepth {
				return fmt.Errorf("%s: the schema nests deeper than %d at %s", p.Name(), maxDepth, path)
			}
			nullable := false
			if s.Kind == schema.Union && len(s.Branches) == 2 {
				for i, b := range s.Branches {
					if b.Kind == schema.Null && s.Branches[1-i].Kind != schema.Null {
						nullable, s = true, s.Branches[1-i]
						break
					}
				}
			}
			var logical, typeName any
			if s.Logical != "" {
				logical = string(s.Logical)
			}
			if s.Kind == schema.Record || s.Kind == schema.Enum || s.Kind == schema.Fixed {
				typeName = s.FullName()
			}
			children := int64(0)
			switch s.Kind {
			case schema.Record:
				children = int64(len(s.Fields))
			case schema.Union:
				children = int64(len(s.Branches))
			case schema.Array, schema.Map:
				children = 1
			}
			rows = append(rows, []any{p.Name(), path, s.Kind.String(), logical, nullable, children, typeName})
			join := func(n string) string {
				if depth == 0 {
					return n
				}
				return path + "." + n
			}
			switch s.Kind {
			case schema.Record:
				for _, f := range s.Fields {
					if err := walk(join(f.Name), f.Type, depth+1); err != nil {
						return err
					}
				}
			case schema.Array:
				return walk(join("item"), s.Items, depth+1)
			case schema.Map:
				return walk(join("value"), s.Values, depth+1)
			case schema.Union:
				for _, b := range s.Branches {
					n := b.Kind.String()
					if b.Kind == schema.Record || b.Kind == schema.Enum || b.Kind == schema.Fixed {
						n = b.FullName()
					}
					if err := walk(join(n), b, depth+1); err != nil {
						return err
					}
				}
			}
			return nil
		}
		root := s.Kind.String()
		if s.Kind == schema.Record {
			root = s.FullName()
		}
		if err := walk(root, s, 0); err != nil {
			return nil, err
		}
	}
	return rows, nil
}

// registerRows registers the describing table functions.
func (s *scanner) registerRows(conn C.duckdb_connection) error {
	for _, rf := range []*rowsFunction{
		{s: s, name: MetadataFunction, columns: metadataColumns, rows: metadataRows},
		{s: s, name: SchemaFunction, columns: schemaColumns, rows: schemaRows},
	} {
		f := C.td_create_table_function()
		cname := cString(rf.name)
		C.td_table_function_set_name(f, cname)
		C.free(unsafe.Pointer(cname))
		varchar := C.td_create_logical_type(typeVarchar)
		C.td_table_function_add_parameter(f, varchar)
		C.td_destroy_logical_type(&varchar)
		C.td_table_function_set_extra_info(f, newHandle(rf), C.duckdb_delete_callback_t(C.duckscan_delete))
		C.td_table_function_set_bind(f, C.duckdb_table_function_bind_t(C.duckscan_rows_bind))
		C.td_table_function_set_init(f, C.duckdb_table_function_init_t(C.duckscan_rows_init))
		C.td_table_function_set_function(f, C.duckdb_table_function_t(C.duckscan_rows_function))
		state := C.td_register_table_function(conn, f)
		C.td_destroy_table_function(&f)
		if state != 0 {
			return errors.New("registering the table function " + rf.name)
		}
	}
	return nil
}

// rowsBind is the rows a describing function returns.
type rowsBind struct {
	f    *rowsFunction
	rows [][]any
}

// emptyString is where an empty string's bytes are said to be.
var emptyString [1]byte

// rowsState is how far a describing function has returned its rows.
type rowsState struct{ next int }

//export duckscan_rows_bind
func duckscan_rows_bind(info C.duckdb_bind_info) {
	defer recoverPanic(func(msg string) { setError(msg, func(m *C.char) { C.td_bind_set_error(info, m) }) })
	rf := handleValue[*rowsFunction](C.td_bind_get_extra_info(info))
	v := C.td_bind_get_parameter(info, 0)
	source := getVarchar(v)
	C.td_destroy_value(&v)
	fail := func(err error) {
		setError(fmt.Sprintf("%s(%s): %v", rf.name, quoteString(source), err), func(m *C.char) { C.td_bind_set_error(info, m) })
	}
	ctx := context.Background()
	// The limits of the settings (SET trevni_max_columns = ...) bound
	// what these functions read too.
	var limits [numLimits]int64
	settingLimits(info, &limits)
	open, err := rf.s.options(limits)
	if err != nil {
		fail(err)
		return
	}
	ds, err := trevni.Open(ctx, source, open)
	if err != nil {
		fail(err)
		return
	}
	rows, err := rf.rows(ctx, ds, open)
	ds.Close()
	if err != nil {
		fail(err)
		return
	}
	for _, c := range rf.columns {
		n := cString(c.name)
		t := C.td_create_logical_type(c.typ)
		C.td_bind_add_result_column(info, n, t)
		C.td_destroy_logical_type(&t)
		C.free(unsafe.Pointer(n))
	}
	C.td_bind_set_cardinality(info, C.idx_t(len(rows)), true)
	C.td_bind_set_bind_data(info, newHandle(&rowsBind{f: rf, rows: rows}), C.duckdb_delete_callback_t(C.duckscan_delete))
}

//export duckscan_rows_init
func duckscan_rows_init(info C.duckdb_init_info) {
	defer recoverPanic(func(msg string) { setError(msg, func(m *C.char) { C.td_init_set_error(info, m) }) })
	C.td_init_set_init_data(info, newHandle(&rowsState{}), C.duckdb_delete_callback_t(C.duckscan_delete))
}

//export duckscan_rows_function
func duckscan_rows_function(info C.duckdb_function_info, output C.duckdb_data_chunk) {
	defer recoverPanic(func(msg string) { setError(msg, func(m *C.char) { C.td_function_set_error(info, m) }) })
	b := handleValue[*rowsBind](C.td_function_get_bind_data(info))
	st := handleValue[*rowsState](C.td_function_get_init_data(info))
	n := min(len(b.rows)-st.next, vectorSize())
	for c, col := range b.f.columns {
		v := C.td_data_chunk_get_vector(output, C.idx_t(c))
		data := C.td_vector_get_data(v)
		for r := range n {
			switch x := b.rows[st.next+r][c].(type) {
			case nil:
				C.td_vector_ensure_validity_writable(v)
				w := (*uint64)(unsafe.Add(unsafe.Pointer(C.td_vector_get_validity(v)), (r>>6)*8))
				*w &^= 1 << (uint(r) & 63)
			case string:
				p := (*C.char)(unsafe.Pointer(&emptyString[0]))
				if len(x) > 0 {
					p = (*C.char)(unsafe.Pointer(unsafe.StringData(x)))
				}
				C.td_vector_assign_string_element_len(v, C.idx_t(r), p, C.idx_t(len(x)))
			case int64:
				*(*int64)(unsafe.Add(data, r*8)) = x
			case bool:
				var u uint8
				if x {
					u = 1
				}
				*(*uint8)(unsafe.Add(data, r)) = u
			default:
				panic(fmt.Sprintf("%s: column %s: a value of type %T", b.f.name, col.name, x))
			}
		}
	}
	st.next += n
	C.td_data_chunk_set_size(output, C.idx_t(n))
}
