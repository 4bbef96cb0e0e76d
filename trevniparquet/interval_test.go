package trevniparquet_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/frontdoor"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/internal/testing/ducktest"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/trevniarrow"
	"github.com/trevni-go/trevni/typemap"

	"github.com/trevni-go/trevni/trevniparquet"
)

// durationEdges are counts at the edges of the unsigned 32-bit months,
// days and milliseconds of an Avro duration (and of DuckDB's signed
// months and days).
var durationEdges = []uint32{0, 1, 12, 1<<31 - 1, 1 << 31, 1<<32 - 1}

// durationSchema places a duration in every kind of place: a field, a
// ["null", T] union of either order, array items, map values, a record
// under a union; with union, in a union of several branches too (which
// the direct path does not write).
func durationSchema(union bool) string {
	u := ""
	if union {
		u = `,{"name":"u","type":["null","string","Dur"]}`
	}
	return `{"type":"record","name":"R","fields":[
		{"name":"d","type":{"type":"fixed","name":"Dur","size":12,"logicalType":"duration"}},
		{"name":"od","type":["null","Dur"]},
		{"name":"ds","type":{"type":"array","items":"Dur"}},
		{"name":"md","type":{"type":"map","values":["Dur","null"]}},
		{"name":"rec","type":["null",{"type":"record","name":"In","fields":[
			{"name":"x","type":"Dur"},{"name":"xs","type":{"type":"array","items":["null","Dur"]}}]}]}` + u + `]}`
}

// writeDurations writes a Trevni file of durationSchema whose durations
// take every combination of durationEdges for months, days and
// milliseconds, and returns its name and records.
func writeDurations(t *testing.T, union bool) (string, []any) {
	t.Helper()
	var combos [][]byte
	for _, m := range durationEdges {
		for _, d := range durationEdges {
			for _, ms := range durationEdges {
				b := binary.LittleEndian.AppendUint32(nil, m)
				b = binary.LittleEndian.AppendUint32(b, d)
				combos = append(combos, binary.LittleEndian.AppendUint32(b, ms))
			}
		}
	}
	at := func(i int) []byte { return combos[i%len(combos)] }
	name := filepath.Join(t.TempDir(), "durations.trv")
	w, err := trevni.Create(context.Background(), name, durationSchema(union), nil)
	if err != nil {
		t.Fatal(err)
	}
	var want []any
	for i := range combos {
		var od any
		if i%4 != 0 {
			od = map[string]any{"Dur": at(i + 1)}
		}
		var ds []any
		for k := range i % 3 {
			ds = append(ds, at(i+2+k))
		}
		md := map[string]any{"a": map[string]any{"Dur": at(i + 5)}}
		if i%2 == 0 {
			md["b"] = nil
		}
		var rec any
		if i%5 != 0 {
			xs := []any{nil, map[string]any{"Dur": at(i + 7)}}
			rec = map[string]any{"In": map[string]any{"x": at(i + 6), "xs": xs[:i%3]}}
		}
		r := map[string]any{"d": at(i), "od": od, "ds": ds, "md": md, "rec": rec}
		if union {
			switch i % 3 {
			case 0:
				r["u"] = nil
			case 1:
				r["u"] = map[string]any{"string": fmt.Sprint(i)}
			default:
				r["u"] = map[string]any{"Dur": at(i + 8)}
			}
		}
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
		want = append(want, r)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return name, want
}

// withoutKeys returns a Parquet file with the key-value metadata of keys
// removed from its footer.
func withoutKeys(t *testing.T, data []byte, keys ...string) []byte {
	t.Helper()
	return editFooter(t, data, func(md *metadata.FileMetaData) {
		kv := md.FileMetaData.KeyValueMetadata
		keep := kv[:0]
		for _, e := range kv {
			drop := false
			for _, k := range keys {
				drop = drop || e.Key == k
			}
			if !drop {
				keep = append(keep, e)
			}
		}
		md.FileMetaData.KeyValueMetadata = keep
	})
}

// editFooter returns a Parquet file with its footer changed by edit.
func editFooter(t *testing.T, data []byte, edit func(*metadata.FileMetaData)) []byte {
	t.Helper()
	n := int(binary.LittleEndian.Uint32(data[len(data)-8:]))
	start := len(data) - 8 - n
	md, err := metadata.NewFileMetaData(data[start:len(data)-8], nil)
	if err != nil {
		t.Fatal(err)
	}
	edit(md)
	out := bytes.NewBuffer(append([]byte(nil), data[:start]...))
	m, err := md.WriteTo(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	return append(binary.LittleEndian.AppendUint32(out.Bytes(), uint32(m)), "PAR1"...)
}

// fromParquetBytes converts a Parquet file with fromparquet's code and
// returns its Avro schema and records.
func fromParquetBytes(t *testing.T, data []byte) (*schema.Schema, []any) {
	t.Helper()
	name := filepath.Join(t.TempDir(), "in.parquet")
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s, got, err := fromParquetSuite(t, name, &trevniparquet.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s, got
}

// plain returns a native value of s with its union branches unwrapped,
// to compare the values of schemas whose names differ.
func plain(s *schema.Schema, v any) any {
	switch s.Kind {
	case schema.Union:
		i, inner, err := typemap.ResolveUnion(s, v)
		if err != nil {
			return err
		}
		return plain(s.Branches[i], inner)
	case schema.Record:
		m := v.(map[string]any)
		out := map[string]any{}
		for _, f := range s.Fields {
			out[f.Name] = plain(f.Type, m[f.Name])
		}
		return out
	case schema.Array:
		var out []any
		for _, x := range v.([]any) {
			out = append(out, plain(s.Items, x))
		}
		return out
	case schema.Map:
		out := map[string]any{}
		for k, x := range v.(map[string]any) {
			out[k] = plain(s.Values, x)
		}
		return out
	}
	return v
}

// fixedLogicals returns the logical types of the fixed types of s, in
// order, each place a named type is used counting.
func fixedLogicals(s *schema.Schema) []schema.LogicalType {
	switch s.Kind {
	case schema.Fixed:
		return []schema.LogicalType{s.Logical}
	case schema.Record:
		var out []schema.LogicalType
		for _, f := range s.Fields {
			out = append(out, fixedLogicals(f.Type)...)
		}
		return out
	case schema.Union:
		var out []schema.LogicalType
		for _, b := range s.Branches {
			out = append(out, fixedLogicals(b)...)
		}
		return out
	case schema.Array:
		return fixedLogicals(s.Items)
	case schema.Map:
		return fixedLogicals(s.Values)
	}
	return nil
}

// Avro durations at the edges of their counts, in every kind of place,
// written to Parquet straight from the Trevni columns and through Arrow
// batches: the two files are the same; every leaf is a
// FIXED_LEN_BYTE_ARRAY(12) annotated INTERVAL; DuckDB reads each value as
// an INTERVAL of its months, days and milliseconds; fromparquet gives back
// the schema and the records, and, with the avro.schema key and the Arrow
// schema taken out of the footer, infers durations where they were and
// gives back their bytes.
func TestParquetDurationsAsIntervals(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	type job struct {
		label string
		s     *schema.Schema
		want  []any
	}
	jobs := map[string]job{}
	var files []string
	for _, union := range []bool{false, true} {
		name, want := writeDurations(t, union)
		ds, err := trevni.Open(ctx, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		opts := &trevniparquet.WriteOptions{RowGroupRows: 50, Codec: "zstd"}
		if !trevniparquet.DirectApplies(ds, opts) {
			t.Fatalf("union %v: the direct path does not apply", union)
		}
		var direct, viaArrow bytes.Buffer
		if _, err := trevniparquet.Write(ctx, &direct, ds, opts); err != nil {
			t.Fatal(err)
		}
		if _, err := trevniparquet.WriteArrow(ctx, &viaArrow, ds, opts); err != nil {
			t.Fatal(err)
		}
		sameParquet(t, fmt.Sprintf("durations, union %v", union), direct.Bytes(), viaArrow.Bytes())
		for path, data := range map[string][]byte{"direct": direct.Bytes(), "arrow": viaArrow.Bytes()} {
			label := fmt.Sprintf("union %v, %s path", union, path)
			rd, err := file.NewParquetReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			sc := rd.MetaData().Schema
			leaves := 0
			for c := range sc.NumColumns() {
				col := sc.Column(c)
				if col.PhysicalType() != parquet.Types.FixedLenByteArray {
					continue
				}
				leaves++
				if col.TypeLength() != 12 || col.ConvertedType() != pqschema.ConvertedTypes.Interval {
					t.Errorf("%s: column %s is %s(%d), converted type %s", label, col.Path(), col.PhysicalType(), col.TypeLength(), col.ConvertedType())
				}
			}
			rd.Close()
			wantLeaves := 6
			if union {
				wantLeaves = 7
			}
			if leaves != wantLeaves {
				t.Errorf("%s: %d fixed-length leaves, want %d", label, leaves, wantLeaves)
			}
			s, got := fromParquetBytes(t, data)
			if s.String() != frontdoor.Schema(ds).String() {
				t.Errorf("%s: Avro schema back as %s", label, s)
			}
			if len(got) != len(want) {
				t.Fatalf("%s: %d records back of %d", label, len(got), len(want))
			}
			for i := range want {
				if !avrorand.EqualNative(got[i], want[i]) {
					t.Fatalf("%s: record %d\n got %v\nwant %v", label, i, got[i], want[i])
				}
			}
			if !union {
				// The Avro schema is kept under avro.schema, and in the
				// metadata of the Arrow schema kept under ARROW:schema.
				keys := []string{trevniarrow.MetaAvroSchema, "ARROW:schema"}
				s, got := fromParquetBytes(t, withoutKeys(t, data, keys...))
				if s.String() == frontdoor.Schema(ds).String() {
					t.Fatalf("%s without %v: the Avro schema was not inferred", label, keys)
				}
				lt := fixedLogicals(s)
				for _, l := range lt {
					if l != schema.LogicalDuration {
						t.Fatalf("%s without %v: fixed types of logical types %v inferred\n%s", label, keys, lt, s)
					}
				}
				if len(lt) != len(fixedLogicals(frontdoor.Schema(ds))) {
					t.Fatalf("%s without %v: %d durations inferred of %d\n%s", label, keys, len(lt), len(fixedLogicals(frontdoor.Schema(ds))), s)
				}
				for i := range want {
					if !avrorand.EqualNative(plain(s, got[i]), plain(frontdoor.Schema(ds), want[i])) {
						t.Fatalf("%s without %v: record %d\n got %v\nwant %v", label, keys, i, got[i], want[i])
					}
				}
			}
			f := filepath.Join(dir, fmt.Sprintf("%d.parquet", len(files)))
			if err := os.WriteFile(f, data, 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
			jobs[f] = job{label, frontdoor.Schema(ds), want}
		}
		ds.Close()
	}
	reads := ducktest.ReadParquet(t, files...)
	for _, f := range files {
		j := jobs[f]
		ducktest.Check(t, j.label, j.s, j.want, reads[f])
	}
}

// Batches of the Parquet mapping, whose durations are of the extension
// type DurationExtension, written to Trevni with the Avro schema inferred
// from their Arrow schema (its avro.schema metadata left out): the schema
// has durations where the data set has, and the records come back.
func TestParquetMappedDurationsInferred(t *testing.T) {
	ctx := context.Background()
	name, want := writeDurations(t, false)
	ds, err := trevni.Open(ctx, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	rr, err := trevniarrow.NewRecordReader(ctx, ds, &trevniarrow.ReadOptions{BatchRows: 40, Schema: trevniarrow.SchemaOptions{Parquet: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	bare := arrow.NewSchema(rr.Schema().Fields(), nil)
	if _, ok := bare.Field(0).Type.(arrow.ExtensionType); !ok {
		t.Fatalf("a duration of the Parquet mapping is %s", bare.Field(0).Type)
	}
	text, err := trevniarrow.AvroSchema(bare)
	if err != nil {
		t.Fatal(err)
	}
	s, err := schema.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	lt := fixedLogicals(s)
	if len(lt) != len(fixedLogicals(frontdoor.Schema(ds))) {
		t.Fatalf("%d fixed types inferred of %d\n%s", len(lt), len(fixedLogicals(frontdoor.Schema(ds))), text)
	}
	for _, l := range lt {
		if l != schema.LogicalDuration {
			t.Fatalf("fixed types of logical types %v inferred\n%s", lt, text)
		}
	}
	out := filepath.Join(t.TempDir(), "batches.trv")
	w, err := trevni.Create(context.Background(), out, text, nil)
	if err != nil {
		t.Fatal(err)
	}
	tw, err := trevniarrow.NewWriter(w, bare)
	if err != nil {
		t.Fatal(err)
	}
	for rr.Next() {
		if err := tw.Write(rr.RecordBatch()); err != nil {
			t.Fatal(err)
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got := readAll(t, out)
	if len(got) != len(want) {
		t.Fatalf("%d records back of %d", len(got), len(want))
	}
	for i := range want {
		if !avrorand.EqualNative(plain(s, got[i]), plain(frontdoor.Schema(ds), want[i])) {
			t.Fatalf("record %d\n got %v\nwant %v", i, got[i], want[i])
		}
	}
}
