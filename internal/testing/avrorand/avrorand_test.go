package avrorand

import (
	"fmt"
	"math"
	"math/big"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/linkedin/goavro/v2"

	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/typemap"
)

// features records what a schema contains.
func features(s *schema.Schema, top bool, seen map[*schema.Schema]bool, f map[string]int) {
	if top {
		f["top "+s.Kind.String()]++
	}
	if s.Logical != "" {
		f["logical "+s.Kind.String()+" "+string(s.Logical)]++
	}
	if s.Kind.IsNamed() {
		if seen[s] {
			f["named type reused"]++
			return
		}
		seen[s] = true
		if s.Namespace() != "" {
			f["namespaced"]++
		} else {
			f["null namespace"]++
		}
	}
	f[s.Kind.String()]++
	switch s.Kind {
	case schema.Record:
		if len(s.Fields) == 0 {
			f["empty record"]++
		}
		for _, fd := range s.Fields {
			if fd.HasDefault {
				f["default"]++
			}
			features(fd.Type, false, seen, f)
		}
	case schema.Array:
		f["array of "+s.Items.Kind.String()]++
		features(s.Items, false, seen, f)
	case schema.Map:
		f["map of "+s.Values.Kind.String()]++
		features(s.Values, false, seen, f)
	case schema.Union:
		if len(s.Branches) >= 6 {
			f["union of 6+"]++
		}
		if len(s.Branches) > 1 && s.Branches[0].Kind != schema.Null && s.Branch("null") > 0 {
			f["null not first"]++
		}
		for _, b := range s.Branches {
			f["union with "+b.Kind.String()]++
			features(b, false, seen, f)
		}
	case schema.Enum:
		if len(s.Symbols) >= 20 {
			f["big enum"]++
		}
	}
}

// valueFeatures records the edge cases a value holds.
func valueFeatures(v any, f map[string]int) {
	switch x := v.(type) {
	case nil:
		f["nil"]++
	case string:
		if x == "" {
			f["empty string"]++
		}
		if len(x) != len([]rune(x)) {
			f["multi-byte string"]++
		}
	case []byte:
		if len(x) == 0 {
			f["empty bytes"]++
		}
	case float32:
		if x != x {
			f["NaN"]++
		}
		if math.IsInf(float64(x), 0) {
			f["Inf"]++
		}
	case float64:
		if x != x {
			f["NaN"]++
		}
		if math.IsInf(x, 0) {
			f["Inf"]++
		}
	case int32:
		if x == math.MinInt32 || x == math.MaxInt32 {
			f["extreme int"]++
		}
	case int64:
		if x == math.MinInt64 || x == math.MaxInt64 {
			f["extreme long"]++
		}
	case time.Time:
		if x.Before(time.Unix(0, 0)) {
			f["time before 1970"]++
		}
	case *big.Rat:
		if x.Sign() < 0 {
			f["negative decimal"]++
		}
	case []any:
		if len(x) == 0 {
			f["empty array"]++
		}
		for _, e := range x {
			valueFeatures(e, f)
		}
	case map[string]any:
		if len(x) == 0 {
			f["empty map"]++
		}
		for _, e := range x {
			valueFeatures(e, f)
		}
	}
}

func TestRandomSchemasAndValues(t *testing.T) {
	const schemas, valuesPer = 200, 8
	sf, vf := map[string]int{}, map[string]int{}
	for seed := range uint64(schemas) {
		g := New(seed, Options{})
		text := g.Schema()
		codec, err := goavro.NewCodec(text)
		if err != nil {
			t.Fatalf("seed %d: goavro rejects %s: %v", seed, text, err)
		}
		s, err := schema.Parse(text)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, text)
		}
		if _, err := layout.Columns(s, nil); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, text)
		}
		// The schema as package schema writes it means the same to goavro.
		codec2, err := goavro.NewCodec(s.String())
		if err != nil {
			t.Fatalf("seed %d: goavro rejects the rewritten %s: %v", seed, s, err)
		}
		if s2, err := schema.Parse(s.String()); err != nil || s2.String() != s.String() {
			t.Fatalf("seed %d: rewritten schema: %v", seed, err)
		}
		features(s, true, map[*schema.Schema]bool{}, sf)
		if strings.Contains(text, `"namespace"`) {
			sf["namespace attribute"]++
		}
		for range valuesPer {
			v := g.Value(s)
			valueFeatures(v, vf)
			bin, err := codec.BinaryFromNative(nil, v)
			if err != nil {
				t.Fatalf("seed %d: goavro cannot encode %#v: %v\n%s", seed, v, err, text)
			}
			// (Map entries come in random order: compare decoded values.)
			if back2, _, err := codec2.NativeFromBinary(bin); err != nil || !EqualNative(v, back2) {
				t.Fatalf("seed %d: the rewritten schema reads differently (%v)", seed, err)
			}
			back, rest, err := codec.NativeFromBinary(bin)
			if err != nil || len(rest) != 0 {
				t.Fatalf("seed %d: goavro cannot decode its own encoding: %v", seed, err)
			}
			if !EqualNative(v, back) {
				t.Fatalf("seed %d: value changed through goavro:\n%#v\n%#v\n%s", seed, v, back, text)
			}
			if err := storedRoundTrip(s, back); err != nil {
				t.Fatalf("seed %d: %v\n%s", seed, err, text)
			}
		}
	}
	want := []string{
		"top record", "top array", "top map", "top union", "top enum", "top fixed", "top int", "top string",
		"record", "empty record", "enum", "big enum", "fixed", "named type reused", "namespaced", "null namespace",
		"namespace attribute", "default",
		"array of record", "array of union", "array of map", "map of record", "map of array", "map of union",
		"union with record", "union with array", "union with map", "union with enum", "union with fixed",
		"union of 6+", "null not first",
		"logical int date", "logical int time-millis", "logical long time-micros", "logical long timestamp-millis",
		"logical long timestamp-micros", "logical long timestamp-nanos", "logical long local-timestamp-millis",
		"logical long local-timestamp-micros", "logical long local-timestamp-nanos", "logical bytes decimal",
		"logical bytes big-decimal", "logical string uuid", "logical fixed decimal", "logical fixed duration",
		"logical fixed uuid",
	}
	for _, w := range want {
		if sf[w] == 0 {
			t.Errorf("no schema has %q", w)
		}
	}
	for _, w := range []string{"nil", "empty string", "multi-byte string", "empty bytes", "NaN", "Inf", "extreme int",
		"extreme long", "time before 1970", "negative decimal", "empty array", "empty map"} {
		if vf[w] == 0 {
			t.Errorf("no value has %q", w)
		}
	}
	if testing.Verbose() {
		var keys []string
		for k := range sf {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			t.Logf("%-45s %d", k, sf[k])
		}
	}
}

// storedRoundTrip converts every simple value inside v to its stored form
// and back, as a Trevni writer and reader would.
func storedRoundTrip(s *schema.Schema, v any) error {
	switch s.Kind {
	case schema.Record:
		m := v.(map[string]any)
		for _, f := range s.Fields {
			if err := storedRoundTrip(f.Type, m[f.Name]); err != nil {
				return err
			}
		}
	case schema.Array:
		for _, e := range v.([]any) {
			if err := storedRoundTrip(s.Items, e); err != nil {
				return err
			}
		}
	case schema.Map:
		for _, e := range v.(map[string]any) {
			if err := storedRoundTrip(s.Values, e); err != nil {
				return err
			}
		}
	case schema.Union:
		i, inner, err := typemap.ResolveUnion(s, v)
		if err != nil {
			return err
		}
		if !EqualNative(typemap.WrapUnion(s, i, inner), v) {
			return fmt.Errorf("%#v does not wrap back", v)
		}
		return storedRoundTrip(s.Branches[i], inner)
	default:
		stored, err := typemap.ToStored(s, v)
		if err != nil {
			return err
		}
		back, err := typemap.FromStored(s, stored)
		if err != nil {
			return err
		}
		if !EqualNative(v, back) {
			return fmt.Errorf("%s: %#v is stored as %#v and read back as %#v", s, v, stored, back)
		}
	}
	return nil
}

func TestDeterministic(t *testing.T) {
	for seed := range uint64(20) {
		a, b := New(seed, Options{}), New(seed, Options{})
		sa, sb := a.Schema(), b.Schema()
		if sa != sb {
			t.Fatalf("seed %d: schemas differ", seed)
		}
		s := schema.MustParse(sa)
		for range 5 {
			if va, vb := a.Value(s), b.Value(s); !EqualNative(va, vb) {
				t.Fatalf("seed %d: values differ", seed)
			}
		}
	}
	if New(1, Options{}).Schema() == New(2, Options{}).Schema() {
		t.Error("seeds 1 and 2 give the same schema")
	}
}

func TestOptions(t *testing.T) {
	g := New(7, Options{MaxDepth: 1, MaxFields: 2, MaxBranches: 2, MaxLen: 1})
	for range 50 {
		s := schema.MustParse(g.Schema())
		if s.Kind == schema.Record && len(s.Fields) > 2 {
			t.Fatalf("%d fields", len(s.Fields))
		}
	}
}

func TestValueOfRecursiveSchema(t *testing.T) {
	s := schema.MustParse(`{"type":"record","name":"L","fields":[{"name":"v","type":"int"},
		{"name":"next","type":["null","L"]},{"name":"kids","type":{"type":"array","items":"L"}}]}`)
	codec, err := goavro.NewCodec(s.String())
	if err != nil {
		t.Fatal(err)
	}
	g := New(3, Options{})
	for range 20 {
		v := g.Value(s)
		if _, err := codec.BinaryFromNative(nil, v); err != nil {
			t.Fatal(err)
		}
	}
}

func TestEqualNative(t *testing.T) {
	nan := math.NaN()
	tm := time.Date(2020, 1, 2, 3, 4, 5, 6, time.UTC)
	equal := [][2]any{
		{nil, nil}, {true, true}, {int32(1), int32(1)}, {int64(1), int64(1)}, {"a", "a"},
		{float32(nan), float32(nan)}, {nan, nan}, {[]byte{}, []byte(nil)}, {tm, tm.In(time.FixedZone("X", 3600))},
		{big.NewRat(1, 2), big.NewRat(2, 4)}, {time.Second, time.Second},
		{[]any{int32(1), "x"}, []any{int32(1), "x"}}, {map[string]any{"k": nil}, map[string]any{"k": nil}},
	}
	for _, e := range equal {
		if !EqualNative(e[0], e[1]) {
			t.Errorf("%#v != %#v", e[0], e[1])
		}
	}
	differ := [][2]any{
		{nil, 0}, {int32(1), int64(1)}, {0.0, math.Copysign(0, -1)}, {float32(1), 1.0}, {[]byte{1}, []byte{2}},
		{tm, tm.Add(1)}, {big.NewRat(1, 2), big.NewRat(1, 3)}, {[]any{1}, []any{}}, {[]any{int32(1)}, []any{int32(2)}},
		{map[string]any{"k": nil}, map[string]any{"l": nil}}, {map[string]any{"k": int32(1)}, map[string]any{"k": int32(2)}},
		{struct{}{}, struct{}{}}, {"a", []byte("a")},
	}
	for _, d := range differ {
		if EqualNative(d[0], d[1]) {
			t.Errorf("%#v == %#v", d[0], d[1])
		}
	}
}
