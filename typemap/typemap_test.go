package typemap

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/linkedin/goavro/v2"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
)

func equalNative(a, b any) bool {
	switch x := a.(type) {
	case time.Time:
		y, ok := b.(time.Time)
		return ok && x.Equal(y) && x.Location() == y.Location()
	case *big.Rat:
		y, ok := b.(*big.Rat)
		return ok && x.Cmp(y) == 0
	}
	return reflect.DeepEqual(a, b)
}

// conversionCase is a schema whose values are checked against goavro: the
// stored value must encode, as the underlying type, to the bytes goavro
// writes for the native value, and must convert back to what goavro
// decodes.
type conversionCase struct {
	schema     string // the schema, with its logical type
	underlying string // the type the column stores, as goavro knows it
	values     []any
}

func ts(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
	return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
}

func rat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic(s)
	}
	return r
}

func conversionCases() []conversionCase {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		paris = time.FixedZone("CET", 3600)
	}
	times := []any{
		time.Unix(0, 0).UTC(),
		ts(2024, 2, 29, 0, 0, 0, 0),
		ts(2024, 2, 29, 13, 14, 15, 123456789),
		ts(1969, 12, 31, 23, 59, 59, 999999999),
		ts(1969, 12, 31, 12, 0, 0, 0),
		ts(1900, 1, 1, 0, 0, 0, 1),
		ts(1, 1, 1, 0, 0, 0, 0),
		ts(9999, 12, 31, 23, 59, 59, 999999999),
		time.Date(2020, 6, 1, 1, 30, 0, 5000, paris),
	}
	rats := []any{rat("1"), rat("-1"), rat("12345.6789"), rat("-0.0001"), rat("0.0127"), rat("0.0128"),
		rat("-0.0128"), rat("-0.0129"), rat("1/3"), rat("-1/3"), rat("-2/3"), rat("99999999999999999999.9999"),
		rat("-32768"), rat("-3.2768"), rat("-6.5536"), rat("255"), rat("0.0255"), rat("0.0256")}
	return []conversionCase{
		{`"null"`, `"null"`, []any{nil}},
		{`"boolean"`, `"boolean"`, []any{true, false}},
		{`"int"`, `"int"`, []any{int32(0), int32(-1), int32(math.MaxInt32), int32(math.MinInt32), 7, int64(-9), 3.0, float32(-4)}},
		{`"long"`, `"long"`, []any{int64(0), int64(math.MaxInt64), int64(math.MinInt64), 7, int32(-9), 1e15, float32(2)}},
		{`"float"`, `"float"`, []any{float32(0), float32(math.Copysign(0, -1)), float32(1.5), float32(math.MaxFloat32),
			float32(math.SmallestNonzeroFloat32), float32(math.Inf(1)), float32(math.Inf(-1)), 0.1, 3, int64(1 << 24)}},
		{`"double"`, `"double"`, []any{0.0, math.Copysign(0, -1), math.MaxFloat64, math.SmallestNonzeroFloat64, math.Inf(-1),
			float32(0.1), int32(-5), int64(1 << 53)}},
		{`"string"`, `"string"`, []any{"", "abc", "héllo wörld ☃ 😀", []byte("raw")}},
		{`"bytes"`, `"bytes"`, []any{[]byte{}, []byte{0, 1, 255}, "text"}},
		{`{"type":"int","logicalType":"date"}`, `"int"`, append(times[:len(times)-2:len(times)-2], int32(19000), -1, times[8])},
		{`{"type":"int","logicalType":"time-millis"}`, `"int"`, []any{time.Duration(0), 1500 * time.Millisecond,
			24*time.Hour - time.Millisecond, 1500*time.Microsecond + 700, -time.Millisecond, -1500 * time.Microsecond,
			time.Duration(math.MaxInt32) * time.Millisecond, int32(86399999), 12}},
		{`{"type":"long","logicalType":"time-micros"}`, `"long"`, []any{time.Duration(0), 24*time.Hour - time.Microsecond,
			1234567 * time.Nanosecond, -1500 * time.Nanosecond, time.Duration(math.MaxInt64), time.Duration(math.MinInt64),
			int64(5), 6}},
		{`{"type":"long","logicalType":"timestamp-millis"}`, `"long"`, append(times, int64(1700000000000), -1)},
		{`{"type":"long","logicalType":"timestamp-micros"}`, `"long"`, append(times, int64(1700000000000000), -1)},
		// Logical types goavro does not know: it uses the underlying type.
		{`{"type":"long","logicalType":"timestamp-nanos"}`, `"long"`, []any{int64(0), int64(-1), int64(math.MaxInt64)}},
		{`{"type":"long","logicalType":"local-timestamp-millis"}`, `"long"`, []any{int64(0), int64(1700000000000)}},
		{`{"type":"long","logicalType":"local-timestamp-micros"}`, `"long"`, []any{int64(-5)}},
		{`{"type":"long","logicalType":"local-timestamp-nanos"}`, `"long"`, []any{int64(7)}},
		{`{"type":"string","logicalType":"uuid"}`, `"string"`, []any{"6ba7b810-9dad-11d1-80b4-00c04fd430c8"}},
		{`{"type":"bytes","logicalType":"big-decimal"}`, `"bytes"`, []any{[]byte{1, 2}}},
		{`{"type":"fixed","name":"D","size":12,"logicalType":"duration"}`, `{"type":"fixed","name":"D","size":12}`,
			[]any{[]byte("\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00")}},
		{`{"type":"fixed","name":"U","size":16,"logicalType":"uuid"}`, `{"type":"fixed","name":"U","size":16}`,
			[]any{bytes.Repeat([]byte{0xab}, 16)}},
		{`{"type":"fixed","name":"F","size":3}`, `{"type":"fixed","name":"F","size":3}`, []any{[]byte("abc"), "xyz"}},
		{`{"type":"bytes","logicalType":"decimal","precision":24,"scale":4}`, `"bytes"`, append(rats, rat("0"))},
		{`{"type":"bytes","logicalType":"decimal","precision":5,"scale":0}`, `"bytes"`, []any{rat("0"), rat("-99999"), rat("7/2")}},
		// goavro cannot write a zero decimal in a fixed wider than one byte.
		{`{"type":"fixed","name":"Dec","size":12,"logicalType":"decimal","precision":24,"scale":4}`,
			`{"type":"fixed","name":"Dec","size":12}`, rats},
		{`{"type":"fixed","name":"Dec","size":8,"logicalType":"decimal","precision":18,"scale":2}`,
			`{"type":"fixed","name":"Dec","size":8}`, []any{rat("92233720368547758.07"), rat("-92233720368547758.08"), rat("-0.01")}},
		{`{"type":"fixed","name":"Dec","size":1,"logicalType":"decimal","precision":2,"scale":1}`,
			`{"type":"fixed","name":"Dec","size":1}`, []any{rat("0"), rat("12.7"), rat("-12.8")}},
	}
}

func TestConversionsMatchGoavro(t *testing.T) {
	for _, c := range conversionCases() {
		s := schema.MustParse(c.schema)
		logical, err := goavro.NewCodec(c.schema)
		if err != nil {
			t.Fatalf("%s: %v", c.schema, err)
		}
		under, err := goavro.NewCodec(c.underlying)
		if err != nil {
			t.Fatalf("%s: %v", c.underlying, err)
		}
		for _, v := range c.values {
			want, err := logical.BinaryFromNative(nil, v)
			if err != nil {
				t.Fatalf("%s: goavro cannot encode %#v: %v", c.schema, v, err)
			}
			stored, err := ToStored(s, v)
			if err != nil {
				t.Errorf("%s: ToStored(%#v): %v", c.schema, v, err)
				continue
			}
			checkStoredType(t, s, stored)
			got, err := under.BinaryFromNative(nil, stored)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s: %#v is stored as %#v, which encodes to %x (%v), want %x", c.schema, v, stored, got, err, want)
				continue
			}
			decoded, _, err := logical.NativeFromBinary(want)
			if err != nil {
				t.Fatal(err)
			}
			back, err := FromStored(s, stored)
			if err != nil || !equalNative(back, decoded) {
				t.Errorf("%s: FromStored(%#v) = %#v (%v), goavro decodes %#v", c.schema, stored, back, err, decoded)
			}
			// What goavro decodes converts back to the same stored value.
			again, err := ToStored(s, decoded)
			if err != nil || !reflect.DeepEqual(again, stored) {
				t.Errorf("%s: ToStored(%#v) = %#v (%v), want %#v", c.schema, decoded, again, err, stored)
			}
		}
	}
}

// checkStoredType checks that a stored value has the Go type the column
// type calls for.
func checkStoredType(t *testing.T, s *schema.Schema, v any) {
	t.Helper()
	vt, _ := layout.ColumnType(s)
	var ok bool
	switch vt {
	case format.Null:
		ok = v == nil
	case format.Boolean:
		_, ok = v.(bool)
	case format.Int:
		_, ok = v.(int32)
	case format.Long:
		_, ok = v.(int64)
	case format.Float:
		_, ok = v.(float32)
	case format.Double:
		_, ok = v.(float64)
	case format.String:
		_, ok = v.(string)
	case format.Bytes:
		_, ok = v.([]byte)
	}
	if !ok {
		t.Errorf("%s: stored value %#v (%T) for a %v column", s, v, v, vt)
	}
}

func TestEnumMatchesGoavro(t *testing.T) {
	const text = `{"type":"enum","name":"E","symbols":["A","B","C","D","E","F","G","H","I","J","K","L","M","N","O","P","Q","R"]}`
	s := schema.MustParse(text)
	enum, _ := goavro.NewCodec(text)
	ints, _ := goavro.NewCodec(`"int"`)
	for _, sym := range s.Symbols {
		want, _ := enum.BinaryFromNative(nil, sym)
		stored, err := ToStored(s, sym)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := ints.BinaryFromNative(nil, stored)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: %x, want %x", sym, got, want)
		}
		back, err := FromStored(s, stored)
		if err != nil || back != sym {
			t.Errorf("FromStored(%v) = %v, %v", stored, back, err)
		}
	}
}

func TestFixedMatchesGoavro(t *testing.T) {
	const text = `{"type":"fixed","name":"Dec","size":6,"logicalType":"decimal","precision":14,"scale":3}`
	s := schema.MustParse(text)
	c, _ := goavro.NewCodec(text)
	for _, v := range []*big.Rat{rat("1"), rat("-1"), rat("-0.001"), rat("99999999999.999"), rat("-99999999999.999")} {
		want, err := c.BinaryFromNative(nil, v)
		if err != nil {
			t.Fatal(err)
		}
		stored, err := ToStored(s, v)
		if err != nil || !bytes.Equal(stored.([]byte), want) {
			t.Errorf("%v: stored %x (%v), want %x", v, stored, err, want)
		}
	}
	// Zero, which goavro cannot write.
	if stored, err := ToStored(s, rat("0")); err != nil || !bytes.Equal(stored.([]byte), make([]byte, 6)) {
		t.Errorf("zero: %x %v", stored, err)
	}
}

func TestUnionKeysMatchGoavro(t *testing.T) {
	branches := []struct {
		schema string
		value  any
	}{
		{`"int"`, int32(3)},
		{`"string"`, "s"},
		{`{"type":"int","logicalType":"date"}`, ts(2000, 1, 1, 0, 0, 0, 0)},
		{`{"type":"int","logicalType":"time-millis"}`, time.Second},
		{`{"type":"long","logicalType":"time-micros"}`, time.Second},
		{`{"type":"long","logicalType":"timestamp-millis"}`, ts(2000, 1, 1, 0, 0, 0, 0)},
		{`{"type":"long","logicalType":"timestamp-micros"}`, ts(2000, 1, 1, 0, 0, 0, 0)},
		{`{"type":"long","logicalType":"timestamp-nanos"}`, int64(1)},
		{`{"type":"long","logicalType":"local-timestamp-millis"}`, int64(1)},
		{`{"type":"string","logicalType":"uuid"}`, "u"},
		{`{"type":"bytes","logicalType":"decimal","precision":4,"scale":2}`, rat("1.25")},
		{`{"type":"fixed","name":"n.Dec","size":4,"logicalType":"decimal","precision":4,"scale":2}`, rat("1.25")},
		{`{"type":"fixed","name":"n.Dur","size":12,"logicalType":"duration"}`, make([]byte, 12)},
		{`{"type":"array","items":"int"}`, []any{int32(1)}},
		{`{"type":"map","values":"int"}`, map[string]any{"k": int32(1)}},
		{`{"type":"enum","name":"n.E","symbols":["A"]}`, "A"},
		{`{"type":"record","name":"m.R","fields":[]}`, map[string]any{}},
	}
	for _, b := range branches {
		text := `["null",` + b.schema + `]`
		u := schema.MustParse(text)
		codec, err := goavro.NewCodec(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		wrapped := WrapUnion(u, 1, b.value)
		bin, err := codec.BinaryFromNative(nil, wrapped)
		if err != nil {
			t.Errorf("%s: goavro rejects %#v: %v", text, wrapped, err)
			continue
		}
		decoded, _, err := codec.NativeFromBinary(bin)
		if err != nil {
			t.Fatal(err)
		}
		m, ok := decoded.(map[string]any)
		if !ok || len(m) != 1 {
			t.Fatalf("%s: goavro decodes %#v", text, decoded)
		}
		for k := range m {
			if k != UnionKey(u.Branches[1]) {
				t.Errorf("%s: goavro's key is %q, UnionKey %q", text, k, UnionKey(u.Branches[1]))
			}
		}
		i, inner, err := ResolveUnion(u, decoded)
		if err != nil || i != 1 || !equalNative(inner, m[UnionKey(u.Branches[1])]) {
			t.Errorf("%s: ResolveUnion = %d %#v %v", text, i, inner, err)
		}
		if i, inner, err := ResolveUnion(u, nil); err != nil || i != 0 || inner != nil {
			t.Errorf("%s: ResolveUnion(nil) = %d %v %v", text, i, inner, err)
		}
		if WrapUnion(u, 0, nil) != nil {
			t.Errorf("%s: WrapUnion of null is not nil", text)
		}
	}
	// The Avro name is accepted too.
	u := schema.MustParse(`["null",{"type":"long","logicalType":"timestamp-millis"}]`)
	if i, v, err := ResolveUnion(u, map[string]any{"long": int64(5)}); err != nil || i != 1 || v != int64(5) {
		t.Errorf("ResolveUnion by full name: %d %v %v", i, v, err)
	}
}

func TestErrors(t *testing.T) {
	p := schema.MustParse
	toStored := []struct {
		schema string
		value  any
		want   string
	}{
		{`"null"`, 0, "null wants nil, got int"},
		{`"boolean"`, 1, "boolean wants a bool"},
		{`"int"`, int64(math.MaxInt32 + 1), "int wants an integer that fits in 32 bits, got int64"},
		{`"int"`, 1.5, "got float64"},
		{`"int"`, "1", "got string"},
		{`"long"`, uint64(math.MaxUint64), "long wants an integer"},
		{`"long"`, 1e19, "long wants an integer"},
		{`"long"`, time.Now(), "got time.Time"},
		{`"float"`, int64(1<<24 + 1), "float wants a float32"},
		{`"double"`, int64(1<<53 + 1), "double wants a float64"},
		{`"double"`, int64(math.MaxInt64), "double wants a float64"},
		{`"string"`, 5, "string wants a string"},
		{`"bytes"`, 5, "bytes wants a []byte"},
		{`{"type":"fixed","name":"F","size":2}`, []byte{1}, "fixed F wants 2 bytes, got 1"},
		{`{"type":"fixed","name":"F","size":2}`, 1, "fixed F wants a []byte"},
		{`{"type":"enum","name":"E","symbols":["A"]}`, "B", `"B" is not a symbol of enum E`},
		{`{"type":"enum","name":"E","symbols":["A"]}`, 0, "enum E wants a symbol"},
		{`{"type":"int","logicalType":"date"}`, ts(9999999, 1, 1, 0, 0, 0, 0), "out of the range of int (date)"},
		{`{"type":"int","logicalType":"time-millis"}`, time.Duration(math.MaxInt32+1) * time.Millisecond, "out of the range"},
		{`{"type":"long","logicalType":"timestamp-nanos"}`, ts(2300, 1, 1, 0, 0, 0, 0), "out of the range"},
		{`{"type":"bytes","logicalType":"decimal","precision":4}`, 1.5, "bytes (decimal) wants a *big.Rat"},
		{`{"type":"bytes","logicalType":"decimal","precision":4}`, (*big.Rat)(nil), "non-nil"},
		{`{"type":"fixed","name":"F","size":1,"logicalType":"decimal","precision":2}`, rat("128"), "does not fit in fixed F (decimal) of 1 bytes"},
		{`{"type":"fixed","name":"F","size":1,"logicalType":"decimal","precision":2}`, rat("-129"), "does not fit"},
		{`{"type":"fixed","name":"F","size":1,"logicalType":"decimal","precision":2}`, 5, "wants a *big.Rat"},
		{`["null","int"]`, nil, "union is not stored as a single value"},
	}
	for _, tt := range toStored {
		_, err := ToStored(p(tt.schema), tt.value)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrValue) {
			t.Errorf("ToStored(%s, %#v): %v, want %q", tt.schema, tt.value, err, tt.want)
		}
	}
	fromStored := []struct {
		schema string
		value  any
		want   string
	}{
		{`"null"`, false, "null wants nil"},
		{`"boolean"`, 0, "wants a bool"},
		{`"int"`, int64(math.MaxInt32 + 1), "wants an int32"},
		{`"int"`, float32(1), "wants an int32"},
		{`"long"`, "1", "wants an int64"},
		{`"float"`, 1.0, "wants a float32"},
		{`"double"`, float32(1), "wants a float64"},
		{`"string"`, 1, "wants a string"},
		{`"bytes"`, 1, "wants a []byte"},
		{`{"type":"fixed","name":"F","size":2}`, []byte{1, 2, 3}, "wants 2 bytes, got 3"},
		{`{"type":"enum","name":"E","symbols":["A"]}`, int32(1), "1 is not an ordinal of enum E"},
		{`{"type":"enum","name":"E","symbols":["A"]}`, int32(-1), "not an ordinal"},
		{`{"type":"map","values":"int"}`, nil, "not stored as a single value"},
	}
	for _, tt := range fromStored {
		_, err := FromStored(p(tt.schema), tt.value)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, ErrValue) {
			t.Errorf("FromStored(%s, %#v): %v, want %q", tt.schema, tt.value, err, tt.want)
		}
	}
	u := p(`["int","string"]`)
	for _, v := range []any{nil, 5, map[string]any{"long": 1}, map[string]any{"int": 1, "string": "s"}} {
		if _, _, err := ResolveUnion(u, v); err == nil || !errors.Is(err, ErrValue) {
			t.Errorf("ResolveUnion(%#v): %v", v, err)
		}
	}
	if _, _, err := ResolveUnion(p(`"int"`), nil); err == nil {
		t.Error("ResolveUnion of a non-union")
	}
}

func TestLocalTimestamps(t *testing.T) {
	// goavro leaves local timestamps as int64; a time.Time is accepted
	// too, its wall clock read as UTC.
	loc := time.FixedZone("X", -5*3600)
	tm := time.Date(2021, 3, 4, 5, 6, 7, 891234567, loc)
	for lt, want := range map[string]int64{
		"local-timestamp-millis": time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC).Unix()*1e3 + 891,
		"local-timestamp-micros": time.Date(2021, 3, 4, 5, 6, 7, 0, time.UTC).Unix()*1e6 + 891234,
		"local-timestamp-nanos":  time.Date(2021, 3, 4, 5, 6, 7, 891234567, time.UTC).UnixNano(),
		"timestamp-nanos":        tm.UnixNano(),
	} {
		s := schema.MustParse(`{"type":"long","logicalType":"` + lt + `"}`)
		got, err := ToStored(s, tm)
		if err != nil || got != want {
			t.Errorf("%s: %v %v, want %d", lt, got, err, want)
		}
		back, err := FromStored(s, got)
		if err != nil || back != want {
			t.Errorf("%s: FromStored = %#v %v", lt, back, err)
		}
	}
}

func TestSignedBytes(t *testing.T) {
	for i := int64(-70000); i <= 70000; i += 7 {
		n := big.NewInt(i)
		b := signedBytes(n)
		if fromSignedBytes(b).Cmp(n) != 0 {
			t.Fatalf("%d: %x", i, b)
		}
		// Shortest: dropping the first byte changes the value.
		if len(b) > 1 && fromSignedBytes(b[1:]).Cmp(n) == 0 {
			t.Fatalf("%d: %x is not the shortest form", i, b)
		}
	}
	if fromSignedBytes(nil).Sign() != 0 {
		t.Error("empty is not zero")
	}
}

func TestGoIntegers(t *testing.T) {
	i := schema.MustParse(`"int"`)
	l := schema.MustParse(`"long"`)
	for _, v := range []any{int(5), int8(5), int16(5), int32(5), int64(5), uint(5), uint8(5), uint16(5), uint32(5), uint64(5),
		float32(5), float64(5)} {
		if got, err := ToStored(i, v); err != nil || got != int32(5) {
			t.Errorf("int %T: %v %v", v, got, err)
		}
		if got, err := ToStored(l, v); err != nil || got != int64(5) {
			t.Errorf("long %T: %v %v", v, got, err)
		}
	}
	for _, v := range []any{uint(math.MaxUint64), uint32(math.MaxUint32), float64(math.MaxInt32) + 1, math.NaN(), math.Inf(1)} {
		if _, err := ToStored(i, v); err == nil {
			t.Errorf("int accepts %T %v", v, v)
		}
	}
	if _, err := ToStored(l, 0x1p63); err == nil {
		t.Error("long accepts 2^63")
	}
	if got, err := ToStored(l, -0x1p63); err != nil || got != int64(math.MinInt64) {
		t.Errorf("long -2^63: %v %v", got, err)
	}
}

func TestDefaultValue(t *testing.T) {
	const text = `{"type":"record","name":"R","fields":[
		{"name":"n","type":"null","default":null},
		{"name":"b","type":"boolean","default":true},
		{"name":"i","type":"int","default":-7},
		{"name":"l","type":"long","default":9007199254740993},
		{"name":"f","type":"float","default":1.5},
		{"name":"d","type":"double","default":-2},
		{"name":"s","type":"string","default":"é"},
		{"name":"by","type":"bytes","default":"\u00ff\u0000"},
		{"name":"fx","type":{"type":"fixed","name":"F","size":2},"default":"ab"},
		{"name":"e","type":{"type":"enum","name":"E","symbols":["A","B"]},"default":"B"},
		{"name":"a","type":{"type":"array","items":"int"},"default":[1,2]},
		{"name":"m","type":{"type":"map","values":"long"},"default":{"k":3}},
		{"name":"u","type":["null","int"],"default":null},
		{"name":"u2","type":["int","null"],"default":4},
		{"name":"dt","type":{"type":"int","logicalType":"date"},"default":1},
		{"name":"r","type":{"type":"record","name":"S","fields":[{"name":"x","type":"int","default":9}]},"default":{}}]}`
	s := schema.MustParse(text)
	want := map[string]any{
		"n": nil, "b": true, "i": int32(-7), "l": int64(9007199254740993), "f": float32(1.5), "d": -2.0, "s": "é",
		"by": []byte{255, 0}, "fx": []byte("ab"), "e": "B", "a": []any{int32(1), int32(2)},
		"m": map[string]any{"k": int64(3)}, "u": nil, "u2": map[string]any{"int": int32(4)},
		"dt": ts(1970, 1, 2, 0, 0, 0, 0), "r": map[string]any{"x": int32(9)},
	}
	for _, f := range s.Fields {
		got, err := DefaultValue(f.Type, f.Default)
		if err != nil || !equalNative(got, want[f.Name]) {
			t.Errorf("%s: %#v %v, want %#v", f.Name, got, err, want[f.Name])
		}
	}
	// The result is what goavro accepts for the field.
	codec, err := goavro.NewCodec(text)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := codec.BinaryFromNative(nil, want); err != nil {
		t.Error(err)
	}
	for _, bad := range []struct {
		schema string
		value  any
	}{
		{`"int"`, "1"}, {`"int"`, json.Number("2147483648")}, {`"null"`, false}, {`"boolean"`, 1}, {`"float"`, "x"},
		{`"string"`, 1}, {`"bytes"`, "\u0100"}, {`{"type":"fixed","name":"F","size":2}`, "a"},
		{`{"type":"enum","name":"E","symbols":["A"]}`, "B"}, {`{"type":"array","items":"int"}`, []any{"x"}},
		{`{"type":"map","values":"int"}`, []any{}}, {`["null","int"]`, "x"},
		{`{"type":"record","name":"R","fields":[{"name":"x","type":"int"}]}`, map[string]any{}},
	} {
		if _, err := DefaultValue(schema.MustParse(bad.schema), bad.value); err == nil || !errors.Is(err, ErrValue) {
			t.Errorf("DefaultValue(%s, %#v): %v", bad.schema, bad.value, err)
		}
	}
}
