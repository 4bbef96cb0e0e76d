package trevniparquet_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/variant"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/internal/testing/ducktest"
	"github.com/trevni-go/trevni/internal/testing/longtest"
	"github.com/trevni-go/trevni/trevniparquet"
)

// The valid files of parquet-testing's shredded_variant (a quarter and
// those DuckDB refuses by default, all 128 with TREVNI_LONG_TESTS=1), converted as
// fromparquet does and written back as toparquet does, is a Parquet
// VARIANT column again (DuckDB's DESCRIBE) of the same values: DuckDB's
// var::JSON of the file written the same as of the original (where
// DuckDB reads the original; else the same values as our reading of it),
// and our own reading of it the same text as of the original, byte for
// byte.
func TestParquetVariantWrittenBack(t *testing.T) {
	t.Parallel()
	dir := "testdata/variant"
	sameDuck, sameOurs, files := 0, 0, 0
	for _, c := range variantCases(t) {
		if c.File == "" || c.Error != "" || variantChoices[c.Number] != "" {
			continue
		}
		// By default a quarter of the files and those DuckDB refuses;
		// all 128 in the long form.
		if !longtest.On() && c.Number%4 != 1 && !duckRefusesVariant[c.Number] {
			continue
		}
		files++
		file := filepath.Join(dir, c.File)
		_, trv, err := fromParquetSuiteFile(t, file, nil)
		if err != nil {
			t.Fatalf("case %d: %v", c.Number, err)
		}
		back := toParquetSuite(t, trv)
		q := strings.ReplaceAll(back, "'", "''")
		d := ducktest.Query(t, fmt.Sprintf("SELECT column_type FROM (DESCRIBE SELECT var FROM read_parquet('%s'))", q))[0]
		if d.Error != "" || len(d.Rows) != 1 || d.Rows[0][0] != "VARIANT" {
			t.Errorf("case %d: DuckDB's type of var written back: %v %s", c.Number, d.Rows, d.Error)
		}
		ours, _, err := variantRows(t, file)
		if err != nil {
			t.Fatal(err)
		}
		oursBack, _, err := variantRows(t, back)
		if err != nil {
			t.Fatalf("case %d: reading back: %v", c.Number, err)
		}
		if fmt.Sprint(derefAll(oursBack)) != fmt.Sprint(derefAll(ours)) {
			t.Errorf("case %d: read back %v, from the original %v", c.Number, derefAll(oursBack), derefAll(ours))
		} else {
			sameOurs++
		}
		duckBack, errBack := duckVariants(t, back)
		if errBack != "" {
			t.Errorf("case %d: DuckDB cannot read the file written back: %s", c.Number, errBack)
			continue
		}
		duck, duckErr := duckVariants(t, file)
		if duckErr != "" {
			// DuckDB refuses the original (cases 41, 88...): our
			// reading of it is the truth.
			duck = ours
		}
		if len(duck) != len(duckBack) {
			t.Errorf("case %d: %d rows written back, %d in the original", c.Number, len(duckBack), len(duck))
			continue
		}
		same := true
		for id, want := range duck {
			got := duckBack[id]
			if (got == nil) != (want == nil) {
				t.Errorf("case %d id %d: DuckDB reads %v written back, %v from the original", c.Number, id, deref(got), deref(want))
				continue
			}
			if got == nil {
				continue
			}
			// The original's NaN and infinities are DuckDB's bare
			// words (not JSON), ours strings; timestamps of nanoseconds
			// DuckDB cuts: sameVariant says so.
			ok, err := sameVariant(duckDecimals(*got), duckDecimals(*want))
			if err != nil {
				ok, err = sameVariant(duckDecimals(*got), *ours[id])
			}
			if err != nil || !ok {
				same = false
				t.Errorf("case %d id %d: DuckDB reads %s written back, %s from the original (%v)", c.Number, id, *got, *want, err)
			}
		}
		if same {
			sameDuck++
		}
	}
	t.Logf("%d files written back: DuckDB reads the same values from %d, we the same text from %d", files, sameDuck, sameOurs)
	if want := longtest.Rounds(36, 128); files < want {
		t.Errorf("%d files compared, want %d", files, want)
	}
}

// duckRefusesVariant are the valid cases DuckDB cannot read (no value
// column: TestParquetVariantAsDuckDB).
var duckRefusesVariant = map[int]bool{41: true, 88: true, 131: true, 132: true, 138: true}

// The encoding of JSON text is what encoding/json reads of it, as
// arrow-go's Variant reader (another implementation of the spec) and
// ours decode it: random JSON values of every kind, keys shared and
// repeated across objects, numbers of every width and notation,
// strings with escapes and of 64 bytes and more, objects and arrays of
// more than 255 elements.
func TestVariantEncodeAsJSON(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(38, 1))
	keys := []string{"a", "b", "zz", "é", "\u2028", "a\"b", "", "longer key name", "B"}
	var gen func(depth int) any
	gen = func(depth int) any {
		k := r.IntN(12)
		if depth > 4 {
			k = r.IntN(8)
		}
		switch k {
		case 0:
			return nil
		case 1:
			return r.IntN(2) == 0
		case 2:
			return json.Number(strconv.FormatInt(r.Int64()>>r.IntN(64), 10))
		case 3:
			return json.Number(strconv.FormatInt(-r.Int64()>>r.IntN(64), 10))
		case 4:
			// Decimals: digits with a point somewhere, up to 40 of them.
			n := 1 + r.IntN(40)
			var b strings.Builder
			if r.IntN(2) == 0 {
				b.WriteByte('-')
			}
			b.WriteByte(byte('1' + r.IntN(9)))
			for range n - 1 {
				b.WriteByte(byte('0' + r.IntN(10)))
			}
			s := b.String()
			at := len(s) - r.IntN(n)
			if at <= 1 || s[at-1] == '-' {
				return json.Number(s[:at] + ".5")
			}
			return json.Number(s[:at] + "." + s[at:] + "0")
		case 5:
			f := math.Float64frombits(r.Uint64())
			if math.IsNaN(f) || math.IsInf(f, 0) {
				f = 1.5e300
			}
			return json.Number(strconv.FormatFloat(f, 'e', -1, 64))
		case 6:
			n := r.IntN(3) * 40
			var b strings.Builder
			for range n + r.IntN(30) {
				b.WriteRune([]rune("aZ\"\\/\n\t\x01é€😀\u2028 ")[r.IntN(13)])
			}
			return b.String()
		case 7:
			return "0.5"
		case 8, 9:
			n, d := r.IntN(5), depth+1
			if r.IntN(8) == 0 {
				n, d = 256+r.IntN(50), 5 // of scalars
			}
			a := make([]any, n)
			for i := range a {
				a[i] = gen(d)
			}
			return a
		default:
			n, d := r.IntN(5), depth+1
			if r.IntN(8) == 0 {
				n, d = 300, 5
			}
			m := map[string]any{}
			for i := range n {
				k := keys[r.IntN(len(keys))]
				if n > len(keys) {
					k = fmt.Sprint("k", i)
				}
				m[k] = gen(d)
			}
			return m
		}
	}
	checked := 0
	for i := range 400 {
		text, err := json.Marshal(gen(0))
		if err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			// White space and escapes of any kind, as other writers
			// write them.
			text = []byte(strings.NewReplacer(",", " ,\n ", ":", "\t:", `\u2028`, `\u2028`, "é", `\u00e9`, "😀", `\ud83d\ude00`).Replace(string(text)))
		}
		want, err := variantWant(string(text))
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		meta, val, err := trevniparquet.VariantEncode(string(text))
		if err != nil {
			t.Fatalf("%.200s: %v", text, err)
		}
		// arrow-go v18.8.0 cannot read a dictionary of more than 255
		// bytes of offsets (its position in them is a byte, and wraps):
		// those Variants are DuckDB's to read
		// (TestParquetVariantWrittenLarge).
		if off := int(meta[0]>>6) + 1; off == 1 && meta[1] < 100 {
			v, err := variant.New(meta, val)
			if err != nil {
				t.Fatalf("%.200s: arrow-go cannot read the Variant: %v", text, err)
			}
			if got, err := arrowGoTree(v); err != nil || !sameTree(got, want) {
				t.Fatalf("%.300s: arrow-go reads %.300v (%v)", text, got, err)
			}
			checked++
		}
		ours, err := trevniparquet.VariantValueJSON(meta, val, 0)
		if err != nil {
			t.Fatalf("%.200s: %v", text, err)
		}
		// Our reader writes doubles in the shortest digits, plainly
		// where they are not too large or small: compared as doubles.
		var a, b any
		if err := json.Unmarshal([]byte(ours), &a); err != nil || json.Unmarshal(text, &b) != nil || !reflect.DeepEqual(a, b) {
			t.Fatalf("%.300s: we read %.300s (%v)", text, ours, err)
		}
	}
	if checked < 300 {
		t.Errorf("arrow-go read %d of the 400 values", checked)
	}
}

// variantWant decodes JSON text as encoding/json does, with the numbers
// a Variant keeps: exact, but for those with an exponent, of more than
// 38 digits, or with a fraction that is a double's shortest digits, the
// doubles nearest them.
func variantWant(text string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case json.Number:
			text := string(x)
			digits := strings.Count(strings.TrimLeft(strings.Trim(text, "-"), "0."), "") - 1 - strings.Count(text, ".")
			f, err := strconv.ParseFloat(text, 64)
			if err != nil {
				return err
			}
			short := strconv.FormatFloat(f, 'f', -1, 64)
			if strings.ContainsAny(text, "eE") || digits > 38 || strings.Contains(text, ".") && (text == short || text == short+".0") {
				return new(big.Rat).SetFloat64(f)
			}
			r, _ := new(big.Rat).SetString(string(x))
			return r
		case []any:
			for i := range x {
				x[i] = walk(x[i])
			}
		case map[string]any:
			for k := range x {
				x[k] = walk(x[k])
			}
		}
		return v
	}
	return walk(v), nil
}

// arrowGoTree returns arrow-go's reading of a Variant as jsonTree's
// values (numbers exact), checking that each object's fields come in the
// order of their names and are found by name.
func arrowGoTree(v variant.Value) (any, error) {
	switch x := v.Value().(type) {
	case variant.ObjectValue:
		m := map[string]any{}
		last := ""
		for k, fv := range x.Values() {
			if len(m) > 0 && k <= last {
				return nil, fmt.Errorf("field %q after %q", k, last)
			}
			last = k
			if f, err := x.ValueByKey(k); err != nil || f.Key != k {
				return nil, fmt.Errorf("field %q not found by name: %v", k, err)
			}
			t, err := arrowGoTree(fv)
			if err != nil {
				return nil, err
			}
			m[k] = t
		}
		return m, nil
	case variant.ArrayValue:
		a := []any{}
		for ev := range x.Values() {
			t, err := arrowGoTree(ev)
			if err != nil {
				return nil, err
			}
			a = append(a, t)
		}
		return a, nil
	case nil, bool, string:
		return x, nil
	case int8:
		return big.NewRat(int64(x), 1), nil
	case int16:
		return big.NewRat(int64(x), 1), nil
	case int32:
		return big.NewRat(int64(x), 1), nil
	case int64:
		return big.NewRat(x, 1), nil
	case float64:
		return new(big.Rat).SetFloat64(x), nil
	case json.Marshaler: // the decimals
		b, err := x.MarshalJSON()
		if err != nil {
			return nil, err
		}
		r, ok := new(big.Rat).SetString(string(b))
		if !ok {
			return nil, fmt.Errorf("decimal %s", b)
		}
		return r, nil
	}
	return nil, fmt.Errorf("a Variant of type %v", v.Type())
}

// Text that is not JSON, or not a value a Variant holds, is an error
// saying what and at which byte; toparquet of such a value names the
// record and the column.
func TestVariantEncodeErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ text, want string }{
		{``, "byte 0: the text ends where a value should be"},
		{`{"a":1,}`, "byte 7: an object key that is not a string"},
		{`{"a":1 "b":2}`, "byte 7: an object without , or }"},
		{`[1 2]`, "byte 3: an array without , or ]"},
		{`{"a":1,"a":2}`, `byte 0: an object with the key "a" twice`},
		{`01`, "byte 0: a number with a leading zero"},
		{`1.`, "byte 2: a fraction without digits"},
		{`1e999`, "byte 0: the number 1e999 is beyond a double's range"},
		{`"\ud800"`, "half a UTF-16 surrogate pair"},
		{`"a` + "\x01" + `"`, "byte 2: a control character in a string"},
		{`"\x"`, `byte 1: the escape \x`},
		{"\"\xff\"", "a string that is not UTF-8"},
		{`tru`, "byte 0: not a JSON value"},
		{`1 2`, "byte 2: text after the value"},
		{strings.Repeat("[", 200), "nested deeper than 128"},
	} {
		_, _, err := trevniparquet.VariantEncode(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.20q: %v, want %q", tc.text, err, tc.want)
		}
	}

	// Through toparquet: a Trevni file of Variant text, one value bad.
	ctx := context.Background()
	dir := t.TempDir()
	trv := filepath.Join(dir, "v.trv")
	const text = `{"type":"record","name":"r","fields":[{"name":"id","type":"int"},{"name":"s","type":{"type":"record","name":"in","fields":[{"name":"v","type":["null",{"type":"string","parquet.variant":"json"}]}]}}]}`
	w, err := trevni.Create(ctx, trv, text, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range []any{nil, `{"a":[1,2.5]}`, `true`, `{"a":1,}`} {
		if v != nil {
			v = map[string]any{"string": v}
		}
		if err := w.Write(map[string]any{"id": int32(i), "s": map[string]any{"v": v}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ds, err := trevni.Open(ctx, trv, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	out, err := os.Create(filepath.Join(dir, "v.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	_, err = trevniparquet.Write(ctx, out, ds, nil)
	if err == nil || !strings.Contains(err.Error(), "record 3, column s.v: the JSON text of a Parquet VARIANT: not JSON text at byte 7") {
		t.Fatalf("toparquet of bad Variant text: %v", err)
	}
}

// BenchmarkVariantEncode encodes a log line's JSON as a Variant: no
// allocation a value.
func BenchmarkVariantEncode(b *testing.B) {
	const text = `{"@timestamp":"2024-11-07 12:33:54.123456+00","log.level":"info","message":"request served","http":{"status":200,"bytes":51234,"ms":12.75},"tags":["a","b","c"],"user":{"id":12345678901,"name":"Ada Lovelace"}}`
	var e trevniparquet.VariantEncoder
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := e.Encode(text); err != nil {
			b.Fatal(err)
		}
	}
}

// Variants past the one-byte sizes of the encoding, written by toparquet
// from their JSON text, are read by DuckDB as the same values: objects of
// 300 keys (two-byte field ids and dictionary offsets), arrays of 300
// elements (four-byte counts), a 70,000-byte string (three-byte
// offsets), integers past int64 (decimal16), numbers of every notation,
// escapes, 100 levels of nesting; a SQL NULL and a Variant null. Our own
// reader reads the file written back as the same values too.
func TestParquetVariantWrittenLarge(t *testing.T) {
	t.Parallel()
	var obj, arr strings.Builder
	obj.WriteString("{")
	arr.WriteString("[")
	for i := range 300 {
		if i > 0 {
			obj.WriteString(",")
			arr.WriteString(",")
		}
		fmt.Fprintf(&obj, `"key %03d":[%d,"v%d"]`, 299-i, i, i)
		fmt.Fprintf(&arr, `{"i":%d,"s":"%s"}`, i, strings.Repeat("x", i%70))
	}
	obj.WriteString("}")
	arr.WriteString("]")
	texts := []any{
		obj.String(),
		arr.String(),
		`{"long":"` + strings.Repeat("abcdefghij", 7000) + `","n":1}`,
		`[123456789012345678901234567890,-99999999999999999999,9223372036854775807,-9223372036854775808]`,
		`[1.50,0.9560,-12.000001,0.1,1.0,-0.0,1e300,1.5e-7,2.5E+3,0,-1,127,128,32768,2147483648]`,
		`{"é":"\u00e9\ud83d\ude00\n\"\\","":true,"B":false,"a":null}`,
		strings.Repeat(`{"a":[`, 50) + `1` + strings.Repeat(`]}`, 50),
		nil,
		`null`,
	}
	ctx := context.Background()
	dir := t.TempDir()
	trv := filepath.Join(dir, "large.trv")
	const text = `{"type":"record","name":"r","fields":[{"name":"id","type":"int"},{"name":"var","type":["null",{"type":"string","parquet.variant":"json"}]}]}`
	w, err := trevni.Create(ctx, trv, text, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range texts {
		if v != nil {
			v = map[string]any{"string": v}
		}
		if err := w.Write(map[string]any{"id": int32(i), "var": v}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	back := toParquetSuite(t, trv)
	duck, duckErr := duckVariants(t, back)
	if duckErr != "" {
		t.Fatalf("DuckDB: %s", duckErr)
	}
	ours, _, err := variantRows(t, back)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range texts {
		d, o := duck[int64(i)], ours[int64(i)]
		switch {
		case v == nil:
			if d != nil || o != nil {
				t.Errorf("id %d: SQL NULL read as %v, %v", i, deref(d), deref(o))
			}
		case v == "null":
			// DuckDB reads the Variant null as SQL NULL.
			if d != nil || o == nil || *o != "null" {
				t.Errorf("id %d: the Variant null read as %v by DuckDB, %v by us", i, deref(d), deref(o))
			}
		default:
			if d == nil || o == nil {
				t.Errorf("id %d: read as null: %v, %v", i, deref(d), deref(o))
				continue
			}
			if same, err := sameVariant(v.(string), duckDecimals(*d)); err != nil || !same {
				t.Errorf("id %d: DuckDB reads %.300s, written %.300s (%v)", i, *d, v, err)
			}
			if same, err := sameVariant(v.(string), *o); err != nil || !same {
				t.Errorf("id %d: we read %.300s, written %.300s (%v)", i, *o, v, err)
			}
		}
	}
}

// duckDecimalRE finds the decimals DuckDB writes without their integer
// digit (.9560 for 0.9560), which is not JSON.
var duckDecimalRE = regexp.MustCompile(`(^|[\[,:])(-?)\.([0-9])`)

// duckDecimals returns DuckDB's JSON text with a 0 before such decimals.
func duckDecimals(s string) string { return duckDecimalRE.ReplaceAllString(s, "${1}${2}0.${3}") }

// Variants inside a record, a list and a map are written back as
// VARIANTs there (DuckDB's types), of the same values (DuckDB's JSON of
// each, and our reading of the file written).
func TestParquetVariantWrittenNested(t *testing.T) {
	t.Parallel()
	const text = `{"type":"record","name":"r","fields":[{"name":"id","type":"int"},` +
		`{"name":"rec","type":{"type":"record","name":"in","fields":[{"name":"v","type":{"type":"string","parquet.variant":"json"}}]}},` +
		`{"name":"list","type":{"type":"array","items":["null",{"type":"string","parquet.variant":"json"}]}},` +
		`{"name":"m","type":{"type":"map","values":{"type":"string","parquet.variant":"json"}}}]}`
	ctx := context.Background()
	trv := filepath.Join(t.TempDir(), "nested.trv")
	w, err := trevni.Create(ctx, trv, text, nil)
	if err != nil {
		t.Fatal(err)
	}
	recs := []map[string]any{
		{"id": int32(0), "rec": map[string]any{"v": `{"a":1}`}, "list": []any{map[string]any{"string": `[1,"x"]`}, nil, map[string]any{"string": `2.5`}}, "m": map[string]any{"k": `"s"`, "l": `{"b":{"c":true}}`}},
		{"id": int32(1), "rec": map[string]any{"v": `3`}, "list": []any{}, "m": map[string]any{}},
		{"id": int32(2), "rec": map[string]any{"v": `{"z":null}`}, "list": []any{map[string]any{"string": `false`}}, "m": map[string]any{"only": `0.125`}},
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	back := toParquetSuite(t, trv)
	q := strings.ReplaceAll(back, "'", "''")
	d := ducktest.Query(t, fmt.Sprintf("SELECT column_name, column_type FROM (DESCRIBE SELECT rec, list, m FROM read_parquet('%s'))", q))[0]
	if got := fmt.Sprint(d.Rows); got != "[[rec STRUCT(v VARIANT)] [list VARIANT[]] [m MAP(VARCHAR, VARIANT)]]" || d.Error != "" {
		t.Errorf("DuckDB's types: %s %s", got, d.Error)
	}
	r := ducktest.Query(t, fmt.Sprintf("SELECT id::INTEGER, rec.v::JSON::VARCHAR, list_transform(list, x -> x::JSON)::JSON::VARCHAR, map_from_entries(list_transform(map_entries(m), e -> {'key': e.key, 'value': e.value::JSON}))::JSON::VARCHAR FROM read_parquet('%s') ORDER BY id", q))[0]
	if r.Error != "" || len(r.Rows) != len(recs) {
		t.Fatalf("DuckDB: %v %s", r.Rows, r.Error)
	}
	for i, row := range r.Rows {
		want := recs[i]
		var list, m []string
		for _, x := range want["list"].([]any) {
			if x == nil {
				list = append(list, "null")
			} else {
				list = append(list, x.(map[string]any)["string"].(string))
			}
		}
		for _, k := range []string{"k", "l", "only"} {
			if v, ok := want["m"].(map[string]any)[k]; ok {
				m = append(m, fmt.Sprintf("%q:%s", k, v))
			}
		}
		for j, w := range []string{want["rec"].(map[string]any)["v"].(string), "[" + strings.Join(list, ",") + "]", "{" + strings.Join(m, ",") + "}"} {
			got, _ := row[j+1].(string)
			if same, err := sameVariant(w, duckDecimals(got)); err != nil || !same {
				t.Errorf("id %d, column %d: DuckDB reads %s, written %s (%v)", i, j+1, got, w, err)
			}
		}
	}
	// Our reading of the file written: the records written.
	if got, want := fmt.Sprint(readAll(t, back)), fmt.Sprint(recs); got != want {
		t.Errorf("read back\n%s\nwritten\n%s", got, want)
	}
}

// FuzzVariantEncode: any text is encoded or refused, never a panic; what
// is encoded is JSON (encoding/json says so) whose Variant reads back as
// the same values; JSON that is refused breaks one of the Variant's own
// rules (a key twice, a lone surrogate, a number beyond a double, nesting
// past 128).
func FuzzVariantEncode(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x"],"b":null}`, `[1e300,-0.0,0.9560,123456789012345678901234567890]`, `"\ud83d\ude00\n"`, `{"a":1,"a":2}`, `"\ud800"`, `{`, `1e999`, ` true `} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		meta, val, err := trevniparquet.VariantEncode(text)
		if err != nil {
			if !json.Valid([]byte(text)) {
				return
			}
			for _, rule := range []string{"twice", "surrogate", "beyond a double", "nested deeper", "not UTF-8"} {
				if strings.Contains(err.Error(), rule) {
					return
				}
			}
			t.Fatalf("%q: valid JSON refused: %v", text, err)
		}
		if !json.Valid([]byte(text)) {
			t.Fatalf("%q: not JSON, encoded", text)
		}
		ours, err := trevniparquet.VariantValueJSON(meta, val, 0)
		if err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		var a, b any
		if err := json.Unmarshal([]byte(ours), &a); err != nil || json.Unmarshal([]byte(text), &b) != nil || !reflect.DeepEqual(a, b) {
			t.Fatalf("%q: read back as %q (%v)", text, ours, err)
		}
	})
}
