package trevni1

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"

	dbzip2 "github.com/dsnet/compress/bzip2"
	"github.com/golang/snappy"
)

// The vectors here are built byte by byte from the layout Impala's writer
// produced (../../../shared/specs/trevni-v1-impala-layout.md, cited by
// section), independently of the Writer, and read back to the values they
// were built from. Files in Impala's flat form must also be exactly what
// our Writer makes of the same rows.

// vec builds a file and records what each byte range means, so that a
// failing test can print an annotated dump.
type vec struct {
	b     []byte
	notes []string
}

func (v *vec) add(note string, b ...byte) {
	v.notes = append(v.notes, fmt.Sprintf("%06x  % x  %s", len(v.b), b, note))
	v.b = append(v.b, b...)
}

func le32(x uint32) []byte { return binary.LittleEndian.AppendUint32(nil, x) }
func le64(x uint64) []byte { return binary.LittleEndian.AppendUint64(nil, x) }

// str is a §1 String: a one-byte zigzag length (the strings here are short)
// and the bytes.
func str(s string) []byte {
	if len(s) > 63 {
		panic("str: long string")
	}
	return append([]byte{byte(2 * len(s))}, s...)
}

// impalaColumnMeta is §3.1's column map: count 3 (06), trevni.name col_N,
// trevni.type, trevni.definition "1".
func impalaColumnMeta(v *vec, n int, typ string) {
	v.add("column map: 3 pairs", 0x06)
	v.add("key trevni.name", str("trevni.name")...)
	v.add(fmt.Sprintf("value col_%d", n), str(fmt.Sprintf("col_%d", n))...)
	v.add("key trevni.type", str("trevni.type")...)
	v.add("value "+typ, str(typ)...)
	v.add("key trevni.definition", str("trevni.definition")...)
	v.add("value \"1\"", str("1")...)
}

// vecBlock is one block as stored: its descriptor and its body.
type vecBlock struct {
	rows  uint32
	body  []byte // uncompressed: values, then definition array (§5)
	store []byte // as stored, when compressed
}

// build assembles a file of Impala's form (§2): header, file metadata, the
// column maps, the start table, then each column's block count,
// descriptors and bodies. The start of column 1 is the end of the start
// table; each next one adds 4 + 12 per block + the stored bytes (§3.2).
func build(rows uint64, codec string, types []string, cols [][]vecBlock) *vec {
	v := &vec{}
	v.add("magic Trv\\x01", 'T', 'r', 'v', 1)
	v.add("row count (Fixed64)", le64(rows)...)
	v.add("column count (Fixed32)", le32(uint32(len(types)))...)
	if codec == "" {
		v.add("file metadata: 0 pairs", 0x00)
	} else {
		v.add("file metadata: 1 pair", 0x02)
		v.add("key trevni.codec", str("trevni.codec")...)
		v.add("value "+codec, str(codec)...)
	}
	for i, t := range types {
		impalaColumnMeta(v, i+1, t)
	}
	pos := uint64(len(v.b) + 8*len(types))
	for i, blocks := range cols {
		v.add(fmt.Sprintf("start of col_%d (Fixed64)", i+1), le64(pos)...)
		pos += 4 + 12*uint64(len(blocks))
		for _, b := range blocks {
			if codec == "" {
				pos += uint64(len(b.body))
			} else {
				pos += uint64(len(b.store))
			}
		}
	}
	for i, blocks := range cols {
		v.add(fmt.Sprintf("col_%d: block count", i+1), le32(uint32(len(blocks)))...)
		for j, b := range blocks {
			v.add(fmt.Sprintf("block %d: rows", j), le32(b.rows)...)
			v.add(fmt.Sprintf("block %d: uncompressed size (values + definition array)", j), le32(uint32(len(b.body)))...)
			v.add(fmt.Sprintf("block %d: compressed size", j), le32(uint32(len(b.store)))...)
		}
		for j, b := range blocks {
			if codec == "" {
				v.add(fmt.Sprintf("col_%d block %d body", i+1, j), b.body...)
			} else {
				v.add(fmt.Sprintf("col_%d block %d body, compressed", i+1, j), b.store...)
			}
		}
	}
	return v
}

func (v *vec) dump() string { return strings.Join(v.notes, "\n") }

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func hexf32(bits uint32) float32 { return math.Float32frombits(bits) }

// allTypes is one block per column of every Impala type, three rows:
// a row of values, a row of NULLs, a row of other values. The definition
// array of every column is 1, 0, 1: the byte 05 (§6).
var allTypesTypes = []string{"boolean", "fixed8", "fixed16", "int", "long", "float", "double", "timestamp", "string"}

var allTypesRows = [][]any{
	{true, int8(-1), int16(300), int32(1), int64(-2), float32(1.5), math.Copysign(0, -1),
		TimestampValue{NanosOfDay: 31714123456789, JulianDay: 2456072}, "hi"},
	{nil, nil, nil, nil, nil, nil, nil, nil, nil},
	{false, int8(127), int16(-32768), int32(64), int64(1) << 40, hexf32(0x7fc00001), 2.25,
		TimestampValue{NanosOfDay: 0, JulianDay: 2440588}, ""},
}

func allTypesBodies() [][]byte {
	return [][]byte{
		// boolean (§8): bits true, false = 01; Impala's size counter
		// reserved one byte at block row 0 only.
		{0x01, 0x05},
		// fixed8: ff, 7f
		{0xff, 0x7f, 0x05},
		// fixed16 LE: 300 = 2c 01, -32768 = 00 80
		{0x2c, 0x01, 0x00, 0x80, 0x05},
		// int ZInt: 1 -> 02, 64 -> 80 01
		{0x02, 0x80, 0x01, 0x05},
		// long ZLong: -2 -> 03, 2^40 -> zigzag 2^41 -> 80 80 80 80 80 40
		{0x03, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40, 0x05},
		// float LE: 1.5 = 3fc00000, a NaN with payload 7fc00001
		{0x00, 0x00, 0xc0, 0x3f, 0x01, 0x00, 0xc0, 0x7f, 0x05},
		// double LE: -0 = 8000000000000000, 2.25 = 4002000000000000
		cat(le64(1<<63), le64(0x4002000000000000), []byte{0x05}),
		// timestamp (§8): 2012-05-24 08:48:34.123456789 is the layout's
		// example bytes; 1970-01-01 00:00 is nanos 0, day 2440588 (8c 3d 25 00)
		cat([]byte{0x15, 0x21, 0x10, 0x05, 0xd8, 0x1c, 0x00, 0x00, 0x08, 0x7a, 0x25, 0x00},
			le64(0), []byte{0x8c, 0x3d, 0x25, 0x00}, []byte{0x05}),
		// string: "hi" = 04 68 69, "" = 00
		{0x04, 'h', 'i', 0x00, 0x05},
	}
}

func compressWith(t testing.TB, codec string, body []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w io.WriteCloser
	switch codec {
	case "deflate":
		w = zlib.NewWriter(&buf)
	case "gzip":
		w = gzip.NewWriter(&buf)
	case "bzip2":
		var err error
		if w, err = dbzip2.NewWriter(&buf, &dbzip2.WriterConfig{Level: 5}); err != nil {
			t.Fatal(err)
		}
	case "snappy":
		return snappy.Encode(nil, body)
	}
	w.Write(body)
	w.Close()
	return buf.Bytes()
}

func allTypesVec(t testing.TB, codec string) *vec {
	var cols [][]vecBlock
	for _, body := range allTypesBodies() {
		b := vecBlock{rows: 3, body: body}
		if codec != "" {
			b.store = compressWith(t, codec, body)
		}
		cols = append(cols, []vecBlock{b})
	}
	return build(3, codec, allTypesTypes, cols)
}

// readFlat reads every column of a flat file as rows of Go values, as
// WriteRow takes them (with the column's Go type).
func readFlat(t *testing.T, data []byte, opts *ReaderOptions) ([][]any, error) {
	t.Helper()
	rd, err := NewReader(bytes.NewReader(data), int64(len(data)), opts)
	if err != nil {
		return nil, err
	}
	rows := make([][]any, rd.RowCount())
	for i := range rows {
		rows[i] = make([]any, rd.NumColumns())
	}
	for c := 0; c < rd.NumColumns(); c++ {
		cr := rd.Values(c)
		for r := range rows {
			if err := cr.Next(); err != nil {
				return nil, err
			}
			if cr.Null() {
				continue
			}
			var v any
			switch rd.Column(c).Type {
			case Boolean:
				v = cr.Bool()
			case Fixed8:
				v = int8(cr.Int64())
			case Fixed16:
				v = int16(cr.Int64())
			case Int, Fixed32:
				v = int32(cr.Int64())
			case Long, Fixed64:
				v = cr.Int64()
			case Float:
				v = math.Float32frombits(cr.Float32Bits())
			case Double:
				v = math.Float64frombits(cr.Float64Bits())
			case Timestamp:
				v = cr.Timestamp()
			case String:
				v = string(cr.Bytes())
			case Bytes:
				v = append([]byte{}, cr.Bytes()...)
			}
			rows[r][c] = v
		}
		if err := cr.Next(); err != io.EOF {
			return nil, fmt.Errorf("column %d: after the last row: %v", c, err)
		}
	}
	return rows, nil
}

// sameValue compares bit for bit (NaN payloads, signed zeros).
func sameValue(a, b any) bool {
	switch a := a.(type) {
	case float32:
		b, ok := b.(float32)
		return ok && math.Float32bits(a) == math.Float32bits(b)
	case float64:
		b, ok := b.(float64)
		return ok && math.Float64bits(a) == math.Float64bits(b)
	case []byte:
		b, ok := b.([]byte)
		return ok && bytes.Equal(a, b)
	}
	return a == b
}

func checkRows(t *testing.T, got, want [][]any) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d", len(got), len(want))
	}
	for r := range want {
		for c := range want[r] {
			if !sameValue(got[r][c], want[r][c]) {
				t.Fatalf("row %d column %d: got %#v, want %#v", r, c, got[r][c], want[r][c])
			}
		}
	}
}

func specs(types []string) []ColumnSpec {
	var cs []ColumnSpec
	for i, n := range types {
		t, err := ParseType(n)
		if err != nil {
			panic(err)
		}
		cs = append(cs, ColumnSpec{Name: fmt.Sprintf("col_%d", i+1), Type: t, MaxDef: 1})
	}
	return cs
}

func writeRows(t *testing.T, cols []ColumnSpec, opts *WriterOptions, rows [][]any) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, cols, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := w.WriteRow(r...); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestVectorAllTypes(t *testing.T) {
	v := allTypesVec(t, "")
	got, err := readFlat(t, v.b, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, v.dump())
	}
	checkRows(t, got, allTypesRows)
	// Our writer makes exactly these bytes of the same rows.
	mine := writeRows(t, specs(allTypesTypes), nil, allTypesRows)
	if !bytes.Equal(mine, v.b) {
		t.Fatalf("writer output differs from the layout:\n got % x\nwant % x\n%s", mine, v.b, v.dump())
	}
}

func TestVectorCodecs(t *testing.T) {
	for _, codec := range []string{"deflate", "gzip", "bzip2", "snappy"} {
		t.Run(codec, func(t *testing.T) {
			v := allTypesVec(t, codec)
			got, err := readFlat(t, v.b, nil)
			if err != nil {
				t.Fatalf("%v\n%s", err, v.dump())
			}
			checkRows(t, got, allTypesRows)
			// Our writer's file matches block for block once decompressed.
			mine := writeRows(t, specs(allTypesTypes), &WriterOptions{Codec: codec}, allTypesRows)
			sameLayout(t, mine, v.b)
		})
	}
	// Impala read deflate and gzip alike (windowBits 15|32): a gzip
	// block in a file that says deflate reads.
	var cols [][]vecBlock
	for _, body := range allTypesBodies() {
		cols = append(cols, []vecBlock{{rows: 3, body: body, store: compressWith(t, "gzip", body)}})
	}
	v := build(3, "deflate", allTypesTypes, cols)
	got, err := readFlat(t, v.b, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, got, allTypesRows)
}

// sameLayout compares two files up to their compressed bytes: the same
// header and metadata, the same block rows and uncompressed sizes, the same
// bodies once decompressed.
func sameLayout(t *testing.T, a, b []byte) {
	t.Helper()
	ra, err := NewReader(bytes.NewReader(a), int64(len(a)), nil)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := NewReader(bytes.NewReader(b), int64(len(b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if ra.RowCount() != rb.RowCount() || ra.NumColumns() != rb.NumColumns() || fmt.Sprint(*ra.Meta()) != fmt.Sprint(*rb.Meta()) {
		t.Fatalf("headers differ")
	}
	end := func(rd *Reader) int { return int(rd.ColumnStart(0)) - 8*rd.NumColumns() }
	if !bytes.Equal(a[:end(ra)], b[:end(rb)]) {
		t.Fatalf("headers differ:\n% x\n% x", a[:end(ra)], b[:end(rb)])
	}
	for c := 0; c < ra.NumColumns(); c++ {
		ba, bb := ra.Blocks(c), rb.Blocks(c)
		if len(ba) != len(bb) {
			t.Fatalf("column %d: %d blocks, want %d", c, len(ba), len(bb))
		}
		for i := range ba {
			if ba[i].Rows != bb[i].Rows || ba[i].Uncompressed != bb[i].Uncompressed {
				t.Fatalf("column %d block %d: %+v, want %+v", c, i, ba[i], bb[i])
			}
			ca, cb := ra.Values(c), rb.Values(c)
			if err := ca.loadBlock(i); err != nil {
				t.Fatal(err)
			}
			if err := cb.loadBlock(i); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(ca.body, cb.body) {
				t.Fatalf("column %d block %d body % x, want % x", c, i, ca.body, cb.body)
			}
		}
	}
}

// Several blocks in one column: an int column cut into blocks of 3 and 2
// rows (any cut is readable), and a NULL falling in the second block.
func severalBlocksVec() *vec {
	return build(5, "", []string{"int", "string"}, [][]vecBlock{
		{
			{rows: 3, body: []byte{0x02, 0x04, 0x06, 0x07}}, // 1 2 3, definitions 111
			{rows: 2, body: []byte{0x01, 0x01}},             // -1, NULL: definitions 1 0 = 01
		},
		{
			{rows: 1, body: []byte{0x02, 'a', 0x01}},
			{rows: 1, body: []byte{0x00}}, // NULL: no value bytes
			{rows: 3, body: []byte{0x02, 'b', 0x04, 'c', 'd', 0x00, 0x07}},
		},
	})
}

func TestVectorSeveralBlocks(t *testing.T) {
	v := severalBlocksVec()
	got, err := readFlat(t, v.b, nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, v.dump())
	}
	checkRows(t, got, [][]any{{int32(1), "a"}, {int32(2), nil}, {int32(3), "b"}, {int32(-1), "cd"}, {nil, ""}})
	rd, _ := NewReader(bytes.NewReader(v.b), int64(len(v.b)), nil)
	if err := rd.Verify(); err != nil {
		t.Fatal(err)
	}
}

// §8's boolean size quirk: booleans [NULL, true, true] made a block that
// is just the definition byte 06 (uncompressed size 1, no values area).
// We report it; with ImpalaBooleans we read it as Impala's scanner did.
func TestVectorBooleanQuirk(t *testing.T) {
	v := build(3, "", []string{"boolean"}, [][]vecBlock{{{rows: 3, body: []byte{0x06}}}})
	_, err := readFlat(t, v.b, nil)
	if !errors.Is(err, ErrImpalaBoolean) {
		t.Fatalf("got %v, want ErrImpalaBoolean", err)
	}
	var e *Error
	if !errors.As(err, &e) || e.Column != 0 || e.Block != 0 || e.Offset < 0 {
		t.Fatalf("error %v does not locate the block", err)
	}
	got, err := readFlat(t, v.b, &ReaderOptions{ImpalaBooleans: true})
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, got, [][]any{{nil}, {false}, {true}})

	// We do not reproduce the bug: our writer gives the bits their byte.
	mine := writeRows(t, specs([]string{"boolean"}), nil, [][]any{{nil}, {true}, {true}})
	want := build(3, "", []string{"boolean"}, [][]vecBlock{{{rows: 3, body: []byte{0x03, 0x06}}}})
	if !bytes.Equal(mine, want.b) {
		t.Fatalf("got % x\nwant % x", mine, want.b)
	}
	got, err = readFlat(t, mine, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, got, [][]any{{nil}, {true}, {true}})
}

// The other side of the quirk: NULLs only off multiples of 8 make the
// values area longer than the bits need, with zero bytes; Impala's bytes,
// which we reproduce.
func TestVectorBooleanLongArea(t *testing.T) {
	rows := [][]any{{true}, {nil}, {nil}, {nil}, {nil}, {nil}, {nil}, {nil}, {true}}
	// Values reserved a byte at block rows 0 and 8: 2 bytes, bits 11 = 03
	// then 00. Definitions 1 0000000 1 = 01 01.
	v := build(9, "", []string{"boolean"}, [][]vecBlock{{{rows: 9, body: []byte{0x03, 0x00, 0x01, 0x01}}}})
	got, err := readFlat(t, v.b, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkRows(t, got, rows)
	if mine := writeRows(t, specs([]string{"boolean"}), nil, rows); !bytes.Equal(mine, v.b) {
		t.Fatalf("got % x\nwant % x", mine, v.b)
	}
}

// A nested column as we write them (Impala never did): record {a:
// array<int>} with rows [1, 2], [], [3]. The column "a" has definition 1
// (the array has items) and repetition 1. Entries (rep, def, value):
// (0,1,1) (1,1,2) (0,0) (0,1,3). Block rows count entries (4), so that the
// level arrays are found from the end as Impala's scanner found them:
// values 02 04 06, definitions 1101 -> 0b, repetitions 0100 -> 02.
func TestVectorNested(t *testing.T) {
	const avsc = `{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"array","items":"int"}}]}`
	v := &vec{}
	v.add("magic", 'T', 'r', 'v', 1)
	v.add("3 rows", le64(3)...)
	v.add("1 column", le32(1)...)
	v.add("file metadata: 1 pair", 0x02)
	v.add("avro.schema", str("avro.schema")...)
	// The schema is 90 bytes: zigzag 180 is the varint b4 01.
	v.add("schema length 90", 0xb4, 0x01)
	v.add("the schema", []byte(avsc)...)
	v.add("column map: 4 pairs", 0x08)
	v.add("", str("trevni.name")...)
	v.add("", str("a")...)
	v.add("", str("trevni.type")...)
	v.add("", str("int")...)
	v.add("", str("trevni.definition")...)
	v.add("", str("1")...)
	v.add("", str("trevni.repetition")...)
	v.add("", str("1")...)
	v.add("start", le64(uint64(len(v.b)+8))...)
	v.add("1 block", le32(1)...)
	v.add("4 entries", le32(4)...)
	v.add("5 bytes", le32(5)...)
	v.add("not compressed", le32(0)...)
	v.add("values, definitions, repetitions", 0x02, 0x04, 0x06, 0x0b, 0x02)

	var buf bytes.Buffer
	rw, err := NewRecordWriter(&buf, avsc, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range [][]byte{{0x04, 0x02, 0x04, 0x00}, {0x00}, {0x02, 0x06, 0x00}} {
		if _, err := rw.WriteBinary(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), v.b) {
		t.Fatalf("got % x\nwant % x", buf.Bytes(), v.b)
	}
	rd, err := NewReader(bytes.NewReader(v.b), int64(len(v.b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := NewRecordReader(rd)
	if err != nil {
		t.Fatal(err)
	}
	var got [][]byte
	for {
		rec, err := rr.ReadBinary(nil)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, rec)
	}
	want := [][]byte{{0x04, 0x02, 0x04, 0x00}, {0x00}, {0x02, 0x06, 0x00}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("records % x, want % x", got, want)
	}
}
