package assemble_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/shred"
)

// allSchema has a field for every rule of the struct mapping.
const allSchema = `{"type":"record","name":"All","namespace":"t","fields":[
 {"name":"b","type":"boolean"},
 {"name":"i","type":"int"},
 {"name":"i32","type":"int"},
 {"name":"i64","type":"int"},
 {"name":"l","type":"long"},
 {"name":"li","type":"long"},
 {"name":"f","type":"float"},
 {"name":"f64","type":"float"},
 {"name":"d","type":"double"},
 {"name":"s","type":"string"},
 {"name":"sb","type":"string"},
 {"name":"by","type":"bytes"},
 {"name":"bs","type":"bytes"},
 {"name":"fx","type":{"type":"fixed","name":"F4","size":4}},
 {"name":"fxs","type":"F4"},
 {"name":"e","type":{"type":"enum","name":"E","symbols":["A","B","C"]}},
 {"name":"ei","type":"E"},
 {"name":"tms","type":{"type":"long","logicalType":"timestamp-millis"}},
 {"name":"tus","type":{"type":"long","logicalType":"timestamp-micros"}},
 {"name":"day","type":{"type":"int","logicalType":"date"}},
 {"name":"opt","type":["null","int"]},
 {"name":"optr","type":["string","null"]},
 {"name":"arr","type":{"type":"array","items":"string"}},
 {"name":"m","type":{"type":"map","values":"long"}},
 {"name":"rec","type":{"type":"record","name":"Pt","fields":[{"name":"x","type":"float"},{"name":"y","type":"double"}]}},
 {"name":"prec","type":["null","Pt"]},
 {"name":"pts","type":{"type":"array","items":"Pt"}},
 {"name":"mpts","type":{"type":"map","values":{"type":"array","items":["null","Pt"]}}},
 {"name":"Exact","type":"long"},
 {"name":"folded","type":"string"}
]}`

type pt struct {
	X float32 `avro:"x"`
	Y float64 `avro:"y"`
}

// allStruct reads every field of allSchema.
type allStruct struct {
	B      bool             `avro:"b"`
	I      int              `avro:"i"`
	I32    int32            `avro:"i32"`
	I64    int64            `avro:"i64"`
	L      int64            `avro:"l"`
	LI     int              `avro:"li"`
	F      float32          `avro:"f"`
	F64    float64          `avro:"f64"`
	D      float64          `avro:"d"`
	S      string           `avro:"s"`
	SB     []byte           `avro:"sb"`
	By     []byte           `avro:"by"`
	BS     string           `avro:"bs"`
	Fx     [4]byte          `avro:"fx"`
	Fxs    []byte           `avro:"fxs"`
	E      string           `avro:"e"`
	EI     int              `avro:"ei"`
	TMs    time.Time        `avro:"tms"`
	TUs    time.Time        `avro:"tus"`
	Day    time.Time        `avro:"day"`
	Opt    *int32           `avro:"opt"`
	OptR   *string          `avro:"optr"`
	Arr    []string         `avro:"arr"`
	M      map[string]int64 `avro:"m"`
	Rec    pt               `avro:"rec"`
	PRec   *pt              `avro:"prec"`
	Pts    []pt             `avro:"pts"`
	MPts   map[string][]*pt `avro:"mpts"`
	Exact  int64            // by exact name
	Folded string           // by name ignoring case
	Skip   chan int         `avro:"-"`
	hidden int              //nolint:unused // unexported: ignored
}

// ptY reads one field of t.Pt.
type ptY struct{ Y float64 }

// projStruct reads a few fields, in another order, and a projected record.
type projStruct struct {
	Pts  []ptY          `avro:"pts"`
	S    string         `avro:"s"`
	Opt  *int64         `avro:"opt"`
	PRec *ptY           `avro:"prec"`
	Rec  ptY            `avro:"rec"`
	M    map[string]int `avro:"m"`
}

// flatStruct is a flat projection: scalars and strings only.
type flatStruct struct {
	L int64   `avro:"l"`
	S string  `avro:"s"`
	D float64 `avro:"d"`
	B bool    `avro:"b"`
	E string  `avro:"e"`
	O *int32  `avro:"opt"`
}

// structField finds the Go field for record field name by the mapping's
// rules (tag, exact name, name ignoring case), written independently of
// the package's.
func structField(t reflect.Type, name string) (reflect.StructField, bool) {
	var byName, folded *reflect.StructField
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("avro"), ",")
		if !f.IsExported() || tag == "-" {
			continue
		}
		if tag == name {
			return f, true
		}
		if tag == "" && f.Name == name && byName == nil {
			byName = &f
		}
		if tag == "" && strings.EqualFold(f.Name, name) && folded == nil {
			folded = &f
		}
	}
	if byName != nil {
		return *byName, true
	}
	if folded != nil {
		return *folded, true
	}
	return reflect.StructField{}, false
}

// native converts a Go value read into v to the goavro native value of s,
// with reflection (independently of the compiled programs).
func native(t testing.TB, v reflect.Value, s *schema.Schema) any {
	switch s.Kind {
	case schema.Boolean:
		return v.Bool()
	case schema.Int:
		if s.Logical == schema.LogicalDate {
			return v.Interface().(time.Time)
		}
		return int32(v.Int())
	case schema.Long:
		if s.Logical != "" {
			return v.Interface().(time.Time)
		}
		return v.Int()
	case schema.Float:
		return float32(v.Float())
	case schema.Double:
		return v.Float()
	case schema.String:
		if v.Kind() == reflect.String {
			return v.String()
		}
		return string(v.Bytes())
	case schema.Bytes:
		if v.Kind() == reflect.String {
			return []byte(v.String())
		}
		return bytes.Clone(v.Bytes())
	case schema.Fixed:
		if v.Kind() == reflect.Array {
			b := make([]byte, v.Len())
			reflect.Copy(reflect.ValueOf(b), v)
			return b
		}
		return bytes.Clone(v.Bytes())
	case schema.Enum:
		if v.Kind() == reflect.Int {
			return s.Symbols[v.Int()]
		}
		return v.String()
	case schema.Array:
		out := make([]any, v.Len())
		for i := range out {
			out[i] = native(t, v.Index(i), s.Items)
		}
		return out
	case schema.Map:
		out := map[string]any{}
		for it := v.MapRange(); it.Next(); {
			out[it.Key().String()] = native(t, it.Value(), s.Values)
		}
		return out
	case schema.Union:
		if v.IsNil() {
			return nil
		}
		for _, br := range s.Branches {
			if br.Kind != schema.Null {
				name := br.FullName()
				if name == "" {
					name = br.Kind.String()
				}
				return map[string]any{name: native(t, v.Elem(), br)}
			}
		}
	case schema.Record:
		if v.Kind() == reflect.Pointer {
			v = v.Elem()
		}
		out := map[string]any{}
		for _, f := range s.Fields {
			sf, ok := structField(v.Type(), f.Name)
			if !ok {
				t.Fatalf("no Go field for %s", f.Name)
			}
			out[f.Name] = native(t, v.FieldByIndex(sf.Index), f.Type)
		}
		return out
	}
	t.Fatalf("no native value for %s", s.Kind)
	return nil
}

// writeRandom writes n random records of schemaText with the generic
// writer and returns the file.
func writeRandom(t testing.TB, schemaText string, seed uint64, n int) []byte {
	t.Helper()
	s := schema.MustParse(schemaText)
	var buf bytes.Buffer
	aw, err := shred.NewAvroWriter(&buf, schemaText, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := avrorand.New(seed, avrorand.Options{MaxLen: 6})
	for range n {
		if err := aw.Write(g.Value(s)); err != nil {
			t.Fatal(err)
		}
	}
	if err := aw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func openBytes(t testing.TB, b []byte) *format.Reader {
	t.Helper()
	rd, err := format.NewReader(bytes.NewReader(b), int64(len(b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	return rd
}

// checkStructs reads file with StructReader[T] in batches of batch and
// with AvroReader.Read (the generic path, with the reader schema made from
// T), and checks that the records are equal. It returns the structs read.
func checkStructs[T any](t testing.TB, file []byte, batch int, alias bool) []T {
	t.Helper()
	sr, err := assemble.NewStructReader[T](openBytes(t, file), nil)
	if err != nil {
		t.Fatal(err)
	}
	sr.AliasStrings(alias)
	readSchema := sr.Reader().Schema()
	gen, err := assemble.NewAvroReader(openBytes(t, file), &assemble.Options{ReaderSchema: readSchema.String()})
	if err != nil {
		t.Fatal(err)
	}
	var all []T
	dst := make([]T, batch)
	row := 0
	for {
		n, err := sr.Read(dst)
		if err == io.EOF {
			if n != 0 {
				t.Fatalf("io.EOF with %d records", n)
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for i := range n {
			want, err := gen.Read()
			if err != nil {
				t.Fatal(err)
			}
			got := native(t, reflect.ValueOf(&dst[i]).Elem(), readSchema)
			if !avrorand.EqualNative(got, want) {
				t.Fatalf("record %d:\n got %v\nwant %v", row, got, want)
			}
			row++
		}
		if !alias {
			all = append(all, dst[:n]...)
			dst = make([]T, batch) // the kept records must not be reused
		}
	}
	if _, err := gen.Read(); err != io.EOF {
		t.Fatalf("generic reader has more records after %d: %v", row, err)
	}
	return all
}

func TestStructReaderShapes(t *testing.T) {
	t.Parallel()
	for seed := range uint64(4) {
		file := writeRandom(t, allSchema, seed, 300)
		for _, batch := range []int{1, 7, 1000} {
			t.Run(fmt.Sprintf("seed%d/batch%d", seed, batch), func(t *testing.T) {
				all := checkStructs[allStruct](t, file, batch, false)
				checkStructs[projStruct](t, file, batch, false)
				checkStructs[flatStruct](t, file, batch, false)
				checkStructs[flatStruct](t, file, batch, true)
				if len(all) != 300 {
					t.Fatalf("%d records", len(all))
				}
				// Write them back with StructWriter: the generic reader
				// must give back the same records.
				var buf bytes.Buffer
				sw, err := shred.NewStructWriter[allStruct](&buf, allSchema, nil)
				if err != nil {
					t.Fatal(err)
				}
				if n, err := sw.Write(all); err != nil || n != len(all) {
					t.Fatalf("Write: %d, %v", n, err)
				}
				if err := sw.Close(); err != nil {
					t.Fatal(err)
				}
				again := checkStructs[allStruct](t, buf.Bytes(), batch, false)
				orig, _ := assemble.NewAvroReader(openBytes(t, file), nil)
				back, _ := assemble.NewAvroReader(openBytes(t, buf.Bytes()), nil)
				for i := range again {
					a, _ := orig.Read()
					b, err := back.Read()
					if err != nil || !avrorand.EqualNative(a, b) {
						t.Fatalf("record %d written back: %v\n got %v\nwant %v", i, err, b, a)
					}
				}
			})
		}
	}
}

// Projection: only the columns of the struct's fields are read.
func TestStructReaderProjection(t *testing.T) {
	file := writeRandom(t, allSchema, 9, 10)
	sr, err := assemble.NewStructReader[struct {
		S   string `avro:"s"`
		Opt *int64 `avro:"opt"`
	}](openBytes(t, file), nil)
	if err != nil {
		t.Fatal(err)
	}
	ar, _ := assemble.NewAvroReader(openBytes(t, file), nil)
	var want []int
	for i, c := range ar.Columns() {
		if c.Name == "s" || strings.HasPrefix(c.Name, "opt") && !strings.HasPrefix(c.Name, "optr") {
			want = append(want, i)
		}
	}
	if got := sr.Reader().ColumnsRead(); !reflect.DeepEqual(got, want) {
		t.Fatalf("columns read %v, want %v", got, want)
	}
}

func TestStructReaderMismatch(t *testing.T) {
	file := writeRandom(t, allSchema, 1, 3)
	check := func(err error, path, goType string) {
		t.Helper()
		var se *schema.Error
		if !errors.As(err, &se) || se.Record != -1 || se.Path != path || !errors.Is(err, assemble.ErrIncompatible) || !strings.Contains(err.Error(), goType) {
			t.Fatalf("got %v, want a schema error at %q naming %s", err, path, goType)
		}
	}
	_, err := assemble.NewStructReader[struct {
		S int64 `avro:"s"`
	}](openBytes(t, file), nil)
	check(err, "S", "int64")
	_, err = assemble.NewStructReader[struct {
		Pts []struct {
			X string `avro:"x"`
		} `avro:"pts"`
	}](openBytes(t, file), nil)
	check(err, "Pts[].X", "string")
	_, err = assemble.NewStructReader[struct{ Missing int }](openBytes(t, file), nil)
	check(err, "Missing", "int")
	_, err = assemble.NewStructReader[struct {
		Opt int32 `avro:"opt"`
	}](openBytes(t, file), nil)
	check(err, "Opt", "int32")
	_, err = assemble.NewStructReader[struct {
		Fx [3]byte `avro:"fx"`
	}](openBytes(t, file), nil)
	check(err, "Fx", "[3]uint8")
	// One named record projected into two Go types has no reader schema.
	_, err = assemble.NewStructReader[struct {
		Rec ptY  `avro:"rec"`
		Pts []pt `avro:"pts"`
	}](openBytes(t, file), nil)
	check(err, "Pts[]", "assemble_test.pt")
}

func TestStructWriterDerived(t *testing.T) {
	type inner struct {
		A string
		B []int32
	}
	type rec struct {
		ID    int64 `avro:"id"`
		Name  string
		When  time.Time
		Opt   *float64
		Blob  []byte
		Key   [2]byte
		Kids  []inner
		Attrs map[string]*inner
	}
	one := 1.5
	rows := []rec{
		{ID: 1, Name: "a", When: time.UnixMicro(1234567).UTC(), Opt: &one, Blob: []byte{1}, Key: [2]byte{3, 4},
			Kids: []inner{{A: "x", B: []int32{1, 2}}}, Attrs: map[string]*inner{"k": {A: "y"}, "n": nil}},
		{ID: -2, Name: "bé", When: time.UnixMicro(-5).UTC()},
	}
	var buf bytes.Buffer
	sw, err := shred.NewStructWriter[rec](&buf, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := sw.Write(rows); n != 2 || err != nil {
		t.Fatal(n, err)
	}
	if err := sw.Close(); err != nil {
		t.Fatal(err)
	}
	sr, err := assemble.NewStructReader[rec](openBytes(t, buf.Bytes()), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]rec, 3)
	n, err := sr.Read(got)
	if n != 2 || err != nil {
		t.Fatal(n, err)
	}
	rows[1].Attrs = map[string]*inner{} // a map read is never nil
	if !reflect.DeepEqual(got[:2], rows) {
		t.Fatalf("got %+v\nwant %+v", got[:2], rows)
	}
	if n, err := sr.Read(got); n != 0 || err != io.EOF {
		t.Fatal(n, err)
	}
}

func TestStructWriterErrors(t *testing.T) {
	var buf bytes.Buffer
	_, err := shred.NewStructWriter[struct{ C chan int }](&buf, "", nil)
	var se *schema.Error
	if !errors.As(err, &se) || se.Path != "C" || !strings.Contains(err.Error(), "chan int") {
		t.Fatalf("got %v", err)
	}
	_, err = shred.NewStructWriter[struct{ A string }](&buf, `{"type":"record","name":"R","fields":[{"name":"a","type":"string"},{"name":"b","type":"int"}]}`, nil)
	if !errors.As(err, &se) || se.Path != "b" {
		t.Fatalf("got %v", err)
	}
	sw, err := shred.NewStructWriter[struct {
		A string `avro:"a"`
		B int    `avro:"b"`
	}](&buf, `{"type":"record","name":"R","fields":[{"name":"a","type":"string"},{"name":"b","type":"int"}]}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	rows := []struct {
		A string `avro:"a"`
		B int    `avro:"b"`
	}{{"x", 1}, {"y", 1 << 40}, {"\xff", 2}, {"z", 3}}
	n, err := sw.Write(rows)
	if n != 1 || !errors.As(err, &se) || se.Record != 1 || se.Path != "B" || !errors.Is(err, shred.ErrValue) {
		t.Fatalf("got %d, %v", n, err)
	}
	n, err = sw.Write(rows[2:])
	if n != 0 || !errors.As(err, &se) || se.Record != 1 {
		t.Fatalf("got %d, %v", n, err)
	}
	if n, err = sw.Write(rows[3:]); n != 1 || err != nil {
		t.Fatal(n, err)
	}
	if err := sw.Close(); err != nil {
		t.Fatal(err)
	}
}

// Reading flat structs allocates nothing per record once the batch is
// set up (strings go to blocks of memory shared by many records).
func TestStructReaderAllocs(t *testing.T) {
	type flat struct {
		L int64   `avro:"l"`
		S string  `avro:"s"`
		D float64 `avro:"d"`
		B bool    `avro:"b"`
		E string  `avro:"e"`
		I int32   `avro:"i"`
	}
	file := writeRandom(t, allSchema, 3, 5000)
	for _, alias := range []bool{false, true} {
		sr, err := assemble.NewStructReader[flat](openBytes(t, file), nil)
		if err != nil {
			t.Fatal(err)
		}
		sr.AliasStrings(alias)
		dst := make([]flat, 100)
		if _, err := sr.Read(dst); err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(40, func() {
			if _, err := sr.Read(dst); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Fatalf("alias %v: %v allocations per 100 records", alias, allocs)
		}
	}
}

// benchStructs reads the records of file into T, batch by batch, b.N
// records in all, starting again at the end of the file.
func benchStructs[T any](b *testing.B, file []byte) {
	rd := openBytes(b, file)
	sr, err := assemble.NewStructReader[T](rd, nil)
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]T, 256)
	b.ReportAllocs()
	b.SetBytes(int64(len(file)) / rd.RowCount()) // the file's bytes per record
	b.ResetTimer()
	for done := 0; done < b.N; {
		n, err := sr.Read(dst[:min(len(dst), b.N-done)])
		if err == io.EOF {
			if err := sr.Reader().SeekRow(0); err != nil {
				b.Fatal(err)
			}
			continue
		}
		if err != nil {
			b.Fatal(err)
		}
		done += n
	}
}

func BenchmarkStructReader(b *testing.B) {
	type flat struct {
		L int64   `avro:"l"`
		S string  `avro:"s"`
		D float64 `avro:"d"`
		B bool    `avro:"b"`
		I int32   `avro:"i"`
	}
	file := writeRandom(b, allSchema, 5, 20000)
	b.Run("flat", func(b *testing.B) { benchStructs[flat](b, file) })
	b.Run("two", func(b *testing.B) {
		benchStructs[struct {
			L int64  `avro:"l"`
			S string `avro:"s"`
		}](b, file)
	})
	b.Run("all", func(b *testing.B) { benchStructs[allStruct](b, file) })
}

func BenchmarkStructWriter(b *testing.B) {
	file := writeRandom(b, allSchema, 5, 2000)
	rows := checkStructs[allStruct](b, file, 100, false)
	b.ReportAllocs()
	b.SetBytes(int64(len(file)) / int64(len(rows)))
	b.ResetTimer()
	var sw *shred.StructWriter[allStruct]
	for done := 0; done < b.N; {
		if sw == nil || sw.Writer().RowCount() >= 100000 {
			if sw != nil {
				sw.Abort()
			}
			var err error
			if sw, err = shred.NewStructWriter[allStruct](io.Discard, allSchema, nil); err != nil {
				b.Fatal(err)
			}
		}
		n := min(len(rows), b.N-done)
		if _, err := sw.Write(rows[:n]); err != nil {
			b.Fatal(err)
		}
		done += n
	}
	sw.Abort()
}

// Writing flat structs allocates nothing per record in steady state.
func TestStructWriterAllocs(t *testing.T) {
	type flat struct {
		L int64   `avro:"l"`
		S string  `avro:"s"`
		D float64 `avro:"d"`
		B bool    `avro:"b"`
		E string  `avro:"e"`
		O *int32  `avro:"o"`
	}
	sw, err := shred.NewStructWriter[flat](io.Discard, `{"type":"record","name":"F","fields":[
		{"name":"l","type":"long"},{"name":"s","type":"string"},{"name":"d","type":"double"},
		{"name":"b","type":"boolean"},{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}},
		{"name":"o","type":["null","int"]}]}`, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sw.Abort()
	seven := int32(7)
	rows := make([]flat, 100)
	for i := range rows {
		rows[i] = flat{L: int64(i), S: strings.Repeat("x", i%13), D: float64(i), B: i%2 == 0, E: "B"}
		if i%3 == 0 {
			rows[i].O = &seven
		}
	}
	for range 50 { // grow the buffers
		if _, err := sw.Write(rows); err != nil {
			t.Fatal(err)
		}
	}
	allocs := testing.AllocsPerRun(20, func() {
		if _, err := sw.Write(rows); err != nil {
			t.Fatal(err)
		}
	})
	if allocs >= 1 {
		t.Fatalf("%v allocations per 100 records", allocs)
	}
}
