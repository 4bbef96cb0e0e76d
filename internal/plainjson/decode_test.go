package plainjson

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/shred"
)

// plainLines writes records of the schema text to a Trevni file in memory
// and reads them back with ReadPlainJSON, the library's plain JSON writer.
func plainLines(t *testing.T, text string, records []any) [][]byte {
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
	ar, err := assemble.NewAvroReader(rd, nil)
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

// jsonClasses returns the kinds of JSON value (bits: 1 null, 2 boolean,
// 4 number, 8 string, 16 object, 32 array) that plain JSON writes for s.
func jsonClasses(s *schema.Schema) int {
	switch s.Kind {
	case schema.Null:
		return 1
	case schema.Boolean:
		return 2
	case schema.Int, schema.Long:
		switch {
		case s.Logical == schema.LogicalDate || isTimestamp(s.Logical):
			return 8
		case s.Logical == schema.LogicalTimeMillis || s.Logical == schema.LogicalTimeMicros:
			return 4 | 8
		}
		return 4
	case schema.Float, schema.Double:
		return 4 | 8
	case schema.Bytes, schema.Fixed:
		if s.Logical == schema.LogicalDecimal {
			return 4
		}
		return 8
	case schema.String, schema.Enum:
		return 8
	case schema.Record, schema.Map:
		return 16
	case schema.Array:
		return 32
	}
	return 0
}

// unambiguous reports whether plain JSON tells every union branch of s
// apart: no two branches of a union write the same kind of JSON value.
func unambiguous(s *schema.Schema, done map[*schema.Schema]bool) bool {
	if done[s] {
		return true
	}
	done[s] = true
	switch s.Kind {
	case schema.Union:
		seen := 0
		for _, b := range s.Branches {
			c := jsonClasses(b)
			if seen&c != 0 || !unambiguous(b, done) {
				return false
			}
			seen |= c
		}
	case schema.Record:
		for _, f := range s.Fields {
			if !unambiguous(f.Type, done) {
				return false
			}
		}
	case schema.Array:
		return unambiguous(s.Items, done)
	case schema.Map:
		return unambiguous(s.Values, done)
	}
	return true
}

// TestRoundTripRandom writes random values of random schemas, reads them
// as plain JSON and decodes that: where plain JSON tells the unions'
// branches apart, the values decoded equal those written; everywhere,
// the decoded values write the same plain JSON again.
func TestRoundTripRandom(t *testing.T) {
	exact := 0
	for seed := uint64(0); seed < 200; seed++ {
		g := avrorand.New(seed, avrorand.Options{})
		text := g.Schema()
		s, err := schema.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		var records []any
		for range 10 {
			records = append(records, g.Value(s))
		}
		lines := plainLines(t, text, records)
		if len(lines) != len(records) {
			t.Fatalf("seed %d: %d lines of %d records", seed, len(lines), len(records))
		}
		strict := unambiguous(s, map[*schema.Schema]bool{})
		if strict {
			exact++
		}
		decoded := make([]any, len(lines))
		for i, line := range lines {
			v, err := Decode(s, line)
			if err != nil {
				t.Fatalf("seed %d record %d: %v\n%s\nschema %s", seed, i, err, line, text)
			}
			if strict && !avrorand.EqualNative(v, records[i]) {
				t.Fatalf("seed %d record %d: decoded %v, wrote %v\n%s\nschema %s", seed, i, v, records[i], line, text)
			}
			decoded[i] = v
		}
		again := plainLines(t, text, decoded)
		for i := range lines {
			if !sameJSON(t, again[i], lines[i]) {
				t.Fatalf("seed %d record %d: again\n%s\nfirst\n%s\nschema %s", seed, i, again[i], lines[i], text)
			}
		}
	}
	if exact < 20 {
		t.Errorf("only %d of 200 random schemas are unambiguous in plain JSON", exact)
	}
	t.Logf("%d of 200 schemas compared exactly", exact)
}

// sameJSON reports whether two JSON texts hold the same value, numbers
// compared by exact value (a decimal's 5.00 is the int's 5).
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	x, err := parse(a)
	if err != nil {
		t.Fatal(err)
	}
	y, err := parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return sameValue(x, y)
}

func sameValue(x, y any) bool {
	switch a := x.(type) {
	case json.Number:
		b, ok := y.(json.Number)
		if !ok {
			return false
		}
		r, ok1 := new(big.Rat).SetString(string(a))
		q, ok2 := new(big.Rat).SetString(string(b))
		return ok1 && ok2 && r.Cmp(q) == 0
	case []any:
		b, ok := y.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !sameValue(a[i], b[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		b, ok := y.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, v := range a {
			if w, ok := b[k]; !ok || !sameValue(v, w) {
				return false
			}
		}
		return true
	}
	return x == y
}

// TestDecodeFirstBranch checks the union rule: the first branch that takes
// the value.
func TestDecodeFirstBranch(t *testing.T) {
	s, err := schema.Parse(`{"type":"record","name":"r","fields":[
		{"name":"a","type":["int","long"]},
		{"name":"b","type":["null","string","bytes"]},
		{"name":"c","type":["null",{"type":"int","logicalType":"date"},"string"]},
		{"name":"d","type":["double","string"]}]}`)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Decode(s, []byte(`{"a":5,"b":"QUJD","c":"2024-02-29","d":"NaN"}`))
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if x := m["a"].(map[string]any)["int"]; x != int32(5) {
		t.Errorf("a = %v", m["a"])
	}
	if x := m["b"].(map[string]any)["string"]; x != "QUJD" {
		t.Errorf("b = %v", m["b"])
	}
	if x := m["c"].(map[string]any)["int.date"]; !x.(time.Time).Equal(time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("c = %v", m["c"])
	}
	if x := m["d"].(map[string]any)["double"].(float64); !math.IsNaN(x) {
		t.Errorf("d = %v", m["d"])
	}
	v, err = Decode(s, []byte(`{"a":5000000000,"b":null,"c":"2024-02-30","d":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	m = v.(map[string]any)
	if x := m["a"].(map[string]any)["long"]; x != int64(5000000000) {
		t.Errorf("a = %v", m["a"])
	}
	if m["b"] != nil {
		t.Errorf("b = %v", m["b"])
	}
	if x := m["c"].(map[string]any)["string"]; x != "2024-02-30" {
		t.Errorf("c = %v", m["c"])
	}
}

// TestDecodeText checks values written out by hand.
func TestDecodeText(t *testing.T) {
	s, err := schema.Parse(`{"type":"record","name":"r","fields":[
		{"name":"ts","type":{"type":"long","logicalType":"timestamp-micros"}},
		{"name":"tn","type":{"type":"long","logicalType":"timestamp-nanos"}},
		{"name":"lt","type":{"type":"long","logicalType":"local-timestamp-millis"}},
		{"name":"t","type":{"type":"int","logicalType":"time-millis"}},
		{"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":6,"scale":2}},
		{"name":"u","type":{"type":"fixed","name":"u16","size":16,"logicalType":"uuid"}},
		{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]}},
		{"name":"f","type":"float"},
		{"name":"m","type":{"type":"map","values":"long"}, "default":{}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Decode(s, []byte(`{"ts":"1969-12-31T23:59:59.999999Z","tn":"1677-09-21T00:12:43.145224192Z",`+
		`"lt":"2000-01-01T00:00:00.5","t":"23:59:59.999","dec":-1234.5,`+
		`"u":"00112233-4455-6677-8899-aabbccddeeff","e":"B","f":0.1}`))
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if x := m["ts"].(time.Time); !x.Equal(time.Unix(0, -1000)) {
		t.Errorf("ts = %v", x)
	}
	if x := m["tn"]; x != int64(math.MinInt64) {
		t.Errorf("tn = %v", x)
	}
	if x := m["lt"]; x != int64(946684800500) {
		t.Errorf("lt = %v", x)
	}
	if x := m["t"]; x != 86_399_999*time.Millisecond {
		t.Errorf("t = %v", x)
	}
	if x := m["dec"].(*big.Rat); x.Cmp(big.NewRat(-24690, 20)) != 0 {
		t.Errorf("dec = %v", x)
	}
	if x := m["u"].([]byte); !bytes.Equal(x, []byte{0, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff}) {
		t.Errorf("u = %x", x)
	}
	if m["e"] != "B" || m["f"] != float32(0.1) || len(m["m"].(map[string]any)) != 0 {
		t.Errorf("e, f, m = %v, %v, %v", m["e"], m["f"], m["m"])
	}
	if x, err := Decode(s.Field("ts").Type, []byte(`"2000-01-01T01:00:00+01:00"`)); err != nil || !x.(time.Time).Equal(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("offset: %v, %v", x, err)
	}
}

// TestDecodeRefuses checks that bad values are refused with an error.
func TestDecodeRefuses(t *testing.T) {
	s, err := schema.Parse(`{"type":"record","name":"r","fields":[
		{"name":"ts","type":{"type":"long","logicalType":"timestamp-millis"}},
		{"name":"tn","type":{"type":"long","logicalType":"timestamp-nanos"}},
		{"name":"dec","type":{"type":"bytes","logicalType":"decimal","precision":4,"scale":2}},
		{"name":"b","type":"bytes"},
		{"name":"i","type":"int"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	good := map[string]string{"ts": `"2000-01-01T00:00:00.000Z"`, "tn": `"2000-01-01T00:00:00Z"`, "dec": `1.5`, "b": `""`, "i": `1`}
	bad := map[string][]string{
		"ts":  {`0`, `"2000-01-01T00:00:00.0001Z"`, `"2000-01-01T00:00:00"`, `"2000-13-01T00:00:00Z"`, `"2000-01-01T24:00:00Z"`},
		"tn":  {`"2263-01-01T00:00:00Z"`, `"1677-09-21T00:12:43.145224191Z"`},
		"dec": {`1.005`, `100.5`, `"1.5"`, `1e999999999`},
		"b":   {`"a"`, `"QQ"`, `5`},
		"i":   {`2147483648`, `1.5`, `"1"`},
	}
	for field, values := range bad {
		for _, bv := range values {
			var line strings.Builder
			line.WriteString("{")
			first := true
			for f, gv := range good {
				if !first {
					line.WriteString(",")
				}
				first = false
				if f == field {
					gv = bv
				}
				line.WriteString(`"` + f + `":` + gv)
			}
			line.WriteString("}")
			if _, err := Decode(s, []byte(line.String())); err == nil {
				t.Errorf("%s: took %s", field, bv)
			}
		}
	}
	for _, line := range []string{`{"ts":"2000-01-01T00:00:00.000Z","tn":"2000-01-01T00:00:00Z","dec":1.5,"b":"","i":1,"x":1}`, `[`, `{} {}`, "\"\xff\""} {
		if _, err := Decode(s, []byte(line)); err == nil {
			t.Errorf("took %q", line)
		}
	}
}
