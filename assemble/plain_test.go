package assemble

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/shred"
	"github.com/trevni-go/trevni/typemap"
)

// plainOf computes, independently of the library's plain sink, the plain
// JSON of the goavro native value v of schema s, as a decoded JSON value
// (numbers as json.Number): from the Avro definitions of the types and Go's
// time, math/big and encoding/json.
func plainOf(t *testing.T, s *schema.Schema, v any) any {
	t.Helper()
	marshal := func(x any) json.Number {
		b, err := json.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		return json.Number(b)
	}
	b64 := func(x []byte) string {
		return strings.Trim(string(marshal(x)), `"`)
	}
	switch s.Kind {
	case schema.Null:
		return nil
	case schema.Union:
		if v == nil {
			return nil
		}
		m := v.(map[string]any)
		for key, inner := range m {
			for _, br := range s.Branches {
				if typemap.UnionKey(br) == key {
					return plainOf(t, br, inner)
				}
			}
			t.Fatalf("union %s has no branch %s", s, key)
		}
	case schema.Record:
		m := v.(map[string]any)
		out := map[string]any{}
		for _, f := range s.Fields {
			out[f.Name] = plainOf(t, f.Type, m[f.Name])
		}
		return out
	case schema.Array:
		out := []any{}
		for _, e := range v.([]any) {
			out = append(out, plainOf(t, s.Items, e))
		}
		return out
	case schema.Map:
		out := map[string]any{}
		for k, e := range v.(map[string]any) {
			out[k] = plainOf(t, s.Values, e)
		}
		return out
	case schema.Enum, schema.String, schema.Boolean:
		return v
	case schema.Float:
		return plainFloat(v.(float32), marshal)
	case schema.Double:
		return plainFloat(v.(float64), marshal)
	case schema.Int, schema.Long:
		switch x := v.(type) {
		case time.Time:
			switch s.Logical {
			case schema.LogicalDate:
				return civil(x)
			case schema.LogicalTimestampMillis:
				return civil(x) + "T" + x.Format("15:04:05.000") + "Z"
			case schema.LogicalTimestampMicros:
				return civil(x) + "T" + x.Format("15:04:05.000000") + "Z"
			}
		case time.Duration:
			if x < 0 || x >= 24*time.Hour {
				if s.Logical == schema.LogicalTimeMillis {
					return json.Number(fmt.Sprint(int64(x / time.Millisecond)))
				}
				return json.Number(fmt.Sprint(int64(x / time.Microsecond)))
			}
			clock := time.Unix(0, int64(x)).UTC()
			if s.Logical == schema.LogicalTimeMillis {
				return clock.Format("15:04:05.000")
			}
			return clock.Format("15:04:05.000000")
		case int64:
			// goavro leaves these logical types as longs.
			var tm time.Time
			var layout string
			switch s.Logical {
			case schema.LogicalTimestampNanos, schema.LogicalLocalTimestampNanos:
				tm, layout = time.Unix(0, x).UTC(), "15:04:05.000000000"
			case schema.LogicalLocalTimestampMillis:
				tm, layout = time.UnixMilli(x).UTC(), "15:04:05.000"
			case schema.LogicalLocalTimestampMicros:
				tm, layout = time.UnixMicro(x).UTC(), "15:04:05.000000"
			default:
				return json.Number(fmt.Sprint(x))
			}
			text := civil(tm) + "T" + tm.Format(layout)
			if s.Logical == schema.LogicalTimestampNanos {
				text += "Z"
			}
			return text
		case int32:
			return json.Number(fmt.Sprint(x))
		}
		t.Fatalf("%s: unexpected native %T", s, v)
	case schema.Bytes, schema.Fixed:
		switch x := v.(type) {
		case *big.Rat:
			return json.Number(x.FloatString(s.Scale))
		case []byte:
			if s.Logical == schema.LogicalUUID && len(x) == 16 {
				return fmt.Sprintf("%x-%x-%x-%x-%x", x[:4], x[4:6], x[6:8], x[8:10], x[10:])
			}
			return b64(x)
		case string:
			return b64([]byte(x))
		}
		t.Fatalf("%s: unexpected native %T", s, v)
	}
	t.Fatalf("plainOf: unexpected %s", s)
	return nil
}

// plainFromAvroJSON computes, independently of the library, the plain
// JSON of v, a value in Avro's JSON encoding of schema s as Java writes it
// (decoded with numbers as json.Number). goavro cannot be used here: it
// reads the JSON of bytes and fixed as UTF-8, not as Latin-1 code points.
func plainFromAvroJSON(t *testing.T, s *schema.Schema, v any) any {
	t.Helper()
	switch s.Kind {
	case schema.Union:
		if v == nil {
			return nil
		}
		for key, inner := range v.(map[string]any) {
			for _, br := range s.Branches {
				if br.FullName() == key {
					return plainFromAvroJSON(t, br, inner)
				}
			}
			t.Fatalf("union %s has no branch %s", s, key)
		}
	case schema.Record:
		m := v.(map[string]any)
		out := map[string]any{}
		for _, f := range s.Fields {
			out[f.Name] = plainFromAvroJSON(t, f.Type, m[f.Name])
		}
		return out
	case schema.Array:
		out := []any{}
		for _, e := range v.([]any) {
			out = append(out, plainFromAvroJSON(t, s.Items, e))
		}
		return out
	case schema.Map:
		out := map[string]any{}
		for k, e := range v.(map[string]any) {
			out[k] = plainFromAvroJSON(t, s.Values, e)
		}
		return out
	case schema.Float, schema.Double:
		n, ok := v.(json.Number)
		if !ok {
			return v // "NaN", "Infinity", "-Infinity"
		}
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil {
			t.Fatal(err)
		}
		var b []byte
		if s.Kind == schema.Float {
			b, err = json.Marshal(float32(f))
		} else {
			b, err = json.Marshal(f)
		}
		if err != nil {
			t.Fatal(err)
		}
		return json.Number(b)
	case schema.Bytes, schema.Fixed:
		var raw []byte
		for _, r := range v.(string) {
			if r > 0xff {
				t.Fatalf("bytes in Avro JSON hold code point %U", r)
			}
			raw = append(raw, byte(r))
		}
		return base64.StdEncoding.EncodeToString(raw)
	}
	return v
}

func plainFloat[F float32 | float64](f F, marshal func(any) json.Number) any {
	x := float64(f)
	switch {
	case x != x:
		return "NaN"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	}
	return marshal(f)
}

// civil writes t's date as YYYY-MM-DD, a year beyond 9999 with a plus
// sign and one before year 0 with a minus sign.
func civil(t time.Time) string {
	y := t.Year()
	var year string
	switch {
	case y < 0:
		year = fmt.Sprintf("-%04d", -y)
	case y > 9999:
		year = fmt.Sprintf("+%d", y)
	default:
		year = fmt.Sprintf("%04d", y)
	}
	return fmt.Sprintf("%s-%02d-%02d", year, int(t.Month()), t.Day())
}

// readPlain reads every record of rd with ReadPlainJSON.
func readPlain(t *testing.T, rd *format.Reader, opts *Options) [][]byte {
	t.Helper()
	ar, err := NewAvroReader(rd, opts)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for {
		line, err := ar.ReadPlainJSON(nil)
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, line)
	}
}

// TestPlainJSONInterop reads Java's files in plain JSON and compares with
// the plain JSON of the records Java wrote, computed from its Avro JSON.
func TestPlainJSONInterop(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(interopDir, "*", "expected.jsonl"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no interop vectors: %v", err)
	}
	for _, expected := range dirs {
		dir := filepath.Dir(expected)
		name := filepath.Base(dir)
		files, _ := filepath.Glob(filepath.Join(dir, name+".*.trv"))
		if len(files) == 0 {
			continue
		}
		t.Run(name, func(t *testing.T) {
			text, err := os.ReadFile(filepath.Join(dir, "schema.avsc"))
			if err != nil {
				t.Fatal(err)
			}
			s, err := schema.Parse(string(text))
			if err != nil {
				t.Fatal(err)
			}
			var want []any
			for _, line := range readLines(t, expected) {
				want = append(want, plainFromAvroJSON(t, s, decode(t, line)))
			}
			for _, file := range files {
				got := readPlain(t, openTrv(t, file).Reader, nil)
				if len(got) != len(want) {
					t.Fatalf("%s: %d records, Java wrote %d", file, len(got), len(want))
				}
				for i := range got {
					if g := decode(t, got[i]); !reflect.DeepEqual(g, want[i]) {
						w, _ := json.Marshal(want[i])
						t.Fatalf("%s record %d:\n got %s\nwant %s", file, i, got[i], w)
					}
				}
			}
		})
	}
}

// writeFile shreds the records to a Trevni file in memory.
func writeFile(t *testing.T, text string, records []any) *format.Reader {
	t.Helper()
	var file bytes.Buffer
	aw, err := shred.NewAvroWriter(&file, text, &shred.Options{WriterOptions: format.WriterOptions{BlockSize: 256}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range records {
		if err := aw.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := aw.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := format.NewReader(bytes.NewReader(file.Bytes()), int64(file.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	return rd
}

// TestPlainJSONRandom writes random records of random schemas (with every
// logical type among them) and compares ReadPlainJSON with the plain JSON
// of the values written.
func TestPlainJSONRandom(t *testing.T) {
	seen := map[schema.LogicalType]bool{}
	var note func(s *schema.Schema, done map[*schema.Schema]bool)
	note = func(s *schema.Schema, done map[*schema.Schema]bool) {
		if done[s] {
			return
		}
		done[s] = true
		seen[s.Logical] = true
		for _, f := range s.Fields {
			note(f.Type, done)
		}
		for _, b := range s.Branches {
			note(b, done)
		}
		if s.Items != nil {
			note(s.Items, done)
		}
		if s.Values != nil {
			note(s.Values, done)
		}
	}
	all := []schema.LogicalType{schema.LogicalDecimal, schema.LogicalUUID, schema.LogicalDate,
		schema.LogicalTimeMillis, schema.LogicalTimeMicros, schema.LogicalTimestampMillis,
		schema.LogicalTimestampMicros, schema.LogicalTimestampNanos, schema.LogicalLocalTimestampMillis,
		schema.LogicalLocalTimestampMicros, schema.LogicalLocalTimestampNanos}
	allSeen := func() bool {
		for _, lt := range all {
			if !seen[lt] {
				return false
			}
		}
		return true
	}
	// At least 30 schemas, and on until every logical type has been seen.
	for seed := uint64(0); seed < 30 || seed < 300 && !allSeen(); seed++ {
		g := avrorand.New(seed, avrorand.Options{})
		text := g.Schema()
		s, err := schema.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		note(s, map[*schema.Schema]bool{})
		var records []any
		for range 20 {
			records = append(records, g.Value(s))
		}
		got := readPlain(t, writeFile(t, text, records), nil)
		if len(got) != len(records) {
			t.Fatalf("seed %d: %d records, wrote %d", seed, len(got), len(records))
		}
		for i, v := range records {
			want := plainOf(t, s, v)
			if g := decode(t, got[i]); !reflect.DeepEqual(g, want) {
				w, _ := json.Marshal(want)
				t.Fatalf("seed %d record %d:\n got %s\nwant %s\nschema %s", seed, i, got[i], w, text)
			}
		}
	}
	for _, lt := range all {
		if !seen[lt] {
			t.Errorf("no random schema has %s", lt)
		}
	}
}

// TestPlainJSONText checks the exact text of one record with every
// logical type, written out by hand from the Avro definitions.
func TestPlainJSONText(t *testing.T) {
	text := `{"type":"record","name":"R","fields":[
	 {"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":8,"scale":2}},
	 {"name":"negdec","type":{"type":"fixed","name":"D","size":12,"logicalType":"decimal","precision":20,"scale":3}},
	 {"name":"small","type":{"type":"bytes","logicalType":"decimal","precision":5,"scale":4}},
	 {"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},
	 {"name":"tsu","type":{"type":"long","logicalType":"timestamp-micros"}},
	 {"name":"tsn","type":{"type":"long","logicalType":"timestamp-nanos"}},
	 {"name":"lts","type":{"type":"long","logicalType":"local-timestamp-millis"}},
	 {"name":"old","type":{"type":"long","logicalType":"timestamp-millis"}},
	 {"name":"day","type":{"type":"int","logicalType":"date"}},
	 {"name":"tm","type":{"type":"int","logicalType":"time-millis"}},
	 {"name":"tu","type":{"type":"long","logicalType":"time-micros"}},
	 {"name":"id","type":{"type":"string","logicalType":"uuid"}},
	 {"name":"fid","type":{"type":"fixed","name":"U","size":16,"logicalType":"uuid"}},
	 {"name":"u","type":["null","string","double"]},
	 {"name":"n","type":["null","string"]},
	 {"name":"raw","type":"bytes"},
	 {"name":"f","type":{"type":"fixed","name":"F","size":2}},
	 {"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}},
	 {"name":"m","type":{"type":"map","values":"float"}},
	 {"name":"nan","type":"double"}
	]}`
	ts := time.Date(2024, 5, 20, 10, 11, 12, 345_000_000, time.UTC)
	negdec, _ := new(big.Rat).SetString("-123456789012345.678")
	rec := map[string]any{
		"dec":    big.NewRat(123450, 100),
		"negdec": negdec,
		"small":  big.NewRat(5, 10000),
		"ts":     ts,
		"tsu":    ts.Add(6 * time.Microsecond),
		"tsn":    ts.UnixNano() + 789,
		"lts":    ts.UnixMilli(),
		"old":    time.Date(1969, 12, 31, 23, 59, 59, 999_000_000, time.UTC),
		"day":    time.Date(2024, 5, 20, 0, 0, 0, 0, time.UTC),
		"tm":     10*time.Hour + 11*time.Minute + 12*time.Second + 5*time.Millisecond,
		"tu":     time.Duration(1_000_001) * time.Microsecond,
		"id":     "123e4567-e89b-12d3-a456-426614174000",
		"fid":    []byte{0x12, 0x3e, 0x45, 0x67, 0xe8, 0x9b, 0x12, 0xd3, 0xa4, 0x56, 0x42, 0x66, 0x14, 0x17, 0x40, 0x00},
		"u":      map[string]any{"double": 2.5},
		"n":      nil,
		"raw":    []byte("hi?"),
		"f":      []byte{0xff, 0x00},
		"e":      "B",
		"m":      map[string]any{"b": float32(1e-7), "a": float32(0.1)},
		"nan":    -1 / zero(),
	}
	got := readPlain(t, writeFile(t, text, []any{rec}), nil)
	defer func() {
		if t.Failed() {
			return
		}
		// Reading plain JSON allocates nothing per record, decimals of
		// more than eight bytes and maps included.
		records := make([]any, 300)
		for i := range records {
			records[i] = rec
		}
		ar, err := NewAvroReader(writeFile(t, text, records), nil)
		if err != nil {
			t.Fatal(err)
		}
		var line []byte
		read := func() {
			if line, err = ar.ReadPlainJSON(line[:0]); err != nil {
				t.Fatal(err)
			}
		}
		for range 10 {
			read()
		}
		if n := testing.AllocsPerRun(200, read); n != 0 {
			t.Errorf("%v allocations per record", n)
		}
	}()
	want := `{"dec":1234.50,"negdec":-123456789012345.678,"small":0.0005,` +
		`"ts":"2024-05-20T10:11:12.345Z","tsu":"2024-05-20T10:11:12.345006Z","tsn":"2024-05-20T10:11:12.345000789Z",` +
		`"lts":"2024-05-20T10:11:12.345","old":"1969-12-31T23:59:59.999Z","day":"2024-05-20",` +
		`"tm":"10:11:12.005","tu":"00:00:01.000001","id":"123e4567-e89b-12d3-a456-426614174000",` +
		`"fid":"123e4567-e89b-12d3-a456-426614174000","u":2.5,"n":null,"raw":"aGk/","f":"/wA=","e":"B",` +
		`"m":{"a":0.1,"b":1e-7},"nan":"-Infinity"}`
	if len(got) != 1 || string(got[0]) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func zero() float64 { return 0 }

// TestPlainJSONSelection reads selected fields of a reader schema in plain
// JSON and in Avro's JSON encoding, with the reader schema's defaults.
func TestPlainJSONSelection(t *testing.T) {
	text := `{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":["null","string"]}]}`
	rd := writeFile(t, text, []any{map[string]any{"a": int32(1), "b": map[string]any{"string": "x"}}})
	reader := `{"type":"record","name":"R","fields":[{"name":"b","type":["null","string"]},
	 {"name":"c","type":{"type":"long","logicalType":"timestamp-millis"},"default":86400001}]}`
	ar, err := NewAvroReader(rd, &Options{ReaderSchema: reader, Fields: []string{"b", "c"}})
	if err != nil {
		t.Fatal(err)
	}
	// The records are those of the reader schema projected on the
	// selection: Avro's JSON encoding writes them too.
	if got, err := ar.ReadJSON(nil); err != nil || string(got) != `{"b":{"string":"x"},"c":86400001}` {
		t.Fatalf("ReadJSON of selected fields: %s %v", got, err)
	}
	got := readPlain(t, rd, &Options{ReaderSchema: reader, Fields: []string{"b", "c"}})
	if want := `{"b":"x","c":"1970-01-02T00:00:00.001Z"}`; len(got) != 1 || string(got[0]) != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	var out bytes.Buffer
	ar, err = NewAvroReader(rd, &Options{ReaderSchema: reader, Fields: []string{"b"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ToJSON(context.Background(), &out, ar, &JSONOptions{Plain: true}); err != nil {
		t.Fatal(err)
	}
	if want := "{\"b\":\"x\"}\n"; out.String() != want {
		t.Fatalf("ToJSON Plain: %q, want %q", out.String(), want)
	}
}

// TestAppendDecimal checks the exact digits of long decimals against
// math/big.
func TestAppendDecimal(t *testing.T) {
	var scratch []byte
	for _, digits := range []string{"0", "1", "-1", "9223372036854775807", "-9223372036854775808",
		"123456789012345678901234567890", "-1000000000000000000000000000000000001", strings.Repeat("9", 38)} {
		n, _ := new(big.Int).SetString(digits, 10)
		// Two's complement bytes, the shortest with a sign bit, and one
		// longer.
		size := (n.BitLen()+8)/8 + 1
		b := make([]byte, size)
		m := new(big.Int).Set(n)
		if n.Sign() < 0 {
			m.Add(m, new(big.Int).Lsh(big.NewInt(1), uint(8*size)))
		}
		m.FillBytes(b)
		for _, scale := range []int{0, 1, 5, 40} {
			var got []byte
			got, scratch = appendDecimal(nil, b, scale, scratch)
			want := new(big.Rat).SetFrac(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)).FloatString(scale)
			if string(got) != want {
				t.Errorf("%s scale %d: got %s, want %s", digits, scale, got, want)
			}
		}
	}
}
