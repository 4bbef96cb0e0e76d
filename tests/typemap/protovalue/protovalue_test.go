package protovalue_test

import (
	"context"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/trevni-go/trevni/internal/fieldpath"
	"github.com/trevni-go/trevni/internal/testing/protorand"
	"github.com/trevni-go/trevni/internal/testing/prototest"
	"github.com/trevni-go/trevni/schema/protoload"
	"github.com/trevni-go/trevni/schema/protoload/protosrc"
	"github.com/trevni-go/trevni/schema/protoschema"
	"github.com/trevni-go/trevni/typemap/protovalue"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
)

func newMessage(t *testing.T, files *protoregistry.Files, name string) *dynamicpb.Message {
	t.Helper()
	md, err := protoload.FindMessage(files, name)
	if err != nil {
		t.Fatal(err)
	}
	return dynamicpb.NewMessage(md)
}

func set(m protoreflect.Message, field string, v any) {
	m.Set(m.Descriptor().Fields().ByName(protoreflect.Name(field)), protoreflect.ValueOf(v))
}

func TestValues(t *testing.T) {
	files := prototest.Compile(t)
	m := newMessage(t, files, "trevni.test.p3.Everything")
	set(m, "u64", uint64(math.MaxUint64))
	set(m, "u32", uint32(math.MaxUint32))
	set(m, "f64", uint64(1<<63))
	set(m, "fl", float32(math.Copysign(0, -1)))
	set(m, "kind", protoreflect.EnumNumber(99)) // not declared
	set(m, "opt_i32", int32(0))
	set(m, "v_kind", protoreflect.EnumNumber(2))
	mm := m.Mutable(m.Descriptor().Fields().ByName("m_u64")).Map()
	mm.Mutable(protoreflect.ValueOfUint64(math.MaxUint64).MapKey())
	bm := m.Mutable(m.Descriptor().Fields().ByName("m_bool")).Map()
	bm.Set(protoreflect.ValueOfBool(false).MapKey(), protoreflect.ValueOfString("no"))

	v, err := toAvro(m)
	if err != nil {
		t.Fatal(err)
	}
	check := func(field string, want any) {
		t.Helper()
		got := v[field]
		if !equalNative(got, want) {
			t.Errorf("%s = %#v, want %#v", field, got, want)
		}
	}
	check("u64", int64(-1))
	check("u32", int64(math.MaxUint32))
	check("f64", int64(math.MinInt64))
	check("i32", int32(0))
	check("kind", int32(99))
	check("opt_i32", map[string]any{"int": int32(0)})
	check("opt_s", nil)
	check("v_kind", map[string]any{"int": int32(2)})
	check("v_string", nil)
	check("s", "")
	check("by", []byte{})
	check("rep_u64", []any{})
	check("m_bool", map[string]any{"false": "no"})
	check("_unknown", []byte{})
	if inner := v["m_u64"].(map[string]any)["18446744073709551615"]; inner == nil {
		t.Errorf("m_u64 = %#v", v["m_u64"])
	}
	if b := math.Float32bits(v["fl"].(float32)); b != 1<<31 {
		t.Errorf("fl bits %x, want -0", b)
	}
	roundTrip(t, m, nil)
}

func equalNative(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k := range x {
			if !equalNative(x[k], y[k]) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalNative(x[i], y[i]) {
				return false
			}
		}
		return true
	case []byte:
		y, ok := b.([]byte)
		return ok && string(x) == string(y) && (x == nil) == (y == nil)
	case float32:
		y, ok := b.(float32)
		return ok && math.Float32bits(x) == math.Float32bits(y)
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	}
	return a == b
}

// TestPresence checks that set-to-default and unset differ for fields with
// presence, in proto2, proto3 optional and editions.
func TestPresence(t *testing.T) {
	files := prototest.Compile(t)
	for _, tc := range []struct {
		msg, field string
		value      any
		branch     string
	}{
		{"trevni.test.p2.Scalars", "opt_int64", int64(-5), "long"}, // the declared default
		{"trevni.test.p2.Scalars", "opt_string", "hello", "string"},
		{"trevni.test.p2.Scalars", "req_int32", int32(0), "int"},
		{"trevni.test.p3.Everything", "opt_db", 0.0, "double"},
		{"trevni.test.ed.Item", "explicit_i32", int32(0), "int"},
		{"trevni.test.ed.Item", "with_default", "dflt", "string"},
	} {
		unset := newMessage(t, files, tc.msg)
		isSet := newMessage(t, files, tc.msg)
		set(isSet, tc.field, tc.value)
		vu, err := toAvro(unset)
		if err != nil {
			t.Fatal(err)
		}
		vs, err := toAvro(isSet)
		if err != nil {
			t.Fatal(err)
		}
		if vu[tc.field] != nil {
			t.Errorf("%s.%s unset: %#v", tc.msg, tc.field, vu[tc.field])
		}
		if w := map[string]any{tc.branch: tc.value}; !equalNative(vs[tc.field], w) {
			t.Errorf("%s.%s set: %#v, want %#v", tc.msg, tc.field, vs[tc.field], w)
		}
		back := newMessage(t, files, tc.msg)
		if err := fromAvro(vs, back); err != nil {
			t.Fatal(err)
		}
		if !back.Has(back.Descriptor().Fields().ByName(protoreflect.Name(tc.field))) {
			t.Errorf("%s.%s: not set after FromAvro", tc.msg, tc.field)
		}
		roundTrip(t, unset, nil)
		roundTrip(t, isSet, nil)
	}
}

func TestExtensions(t *testing.T) {
	files := prototest.Compile(t)
	types := dynamicpb.NewTypes(files)
	m := newMessage(t, files, "trevni.test.p2.Scalars")
	set(m, "req_int32", int32(1))
	xt, err := types.FindExtensionByName("trevni.test.p2.ext_int32")
	if err != nil {
		t.Fatal(err)
	}
	m.Set(xt.TypeDescriptor(), protoreflect.ValueOfInt32(42))
	m.SetUnknown(protoreflect.RawFields{0xf8, 0x3e, 0x01}) // field 999, varint 1
	v, err := toAvro(m)
	if err != nil {
		t.Fatal(err)
	}
	if u := v["_unknown"].([]byte); len(u) != 3+3 {
		t.Errorf("unknown bytes %x, want the unknown field and the extension", u)
	}
	roundTrip(t, m, &protovalue.Options{Resolver: types})

	// Without a resolver that knows it, the extension comes back unknown.
	back := newMessage(t, files, "trevni.test.p2.Scalars")
	if err := fromAvroWith(&protovalue.Options{Resolver: new(protoregistry.Types)}, v, back); err != nil {
		t.Fatal(err)
	}
	if back.Has(xt.TypeDescriptor()) || len(back.GetUnknown()) != 6 {
		t.Errorf("extension resolved without a resolver: %v", back)
	}
}

func TestDropUnknown(t *testing.T) {
	o := &protovalue.Options{Mapping: &protoschema.Options{DropUnknown: true}}
	for seed := range uint64(10) {
		f := protorand.New(seed)
		f.MaxDepth = 8
		f.Unknown = false
		m := &tracepb.TracesData{}
		f.Fill(m.ProtoReflect())
		roundTrip(t, m, o)
	}

	m := sampleTraces(2)
	unknown := protoreflect.RawFields{0xf8, 0x3e, 0x01} // field 999, varint 1
	m.ProtoReflect().SetUnknown(unknown)
	m.ResourceSpans[0].ScopeSpans[0].Spans[1].ProtoReflect().SetUnknown(unknown)
	v, err := toAvroWith(o, m.ProtoReflect())
	if err != nil {
		t.Fatal(err)
	}
	var back tracepb.TracesData
	if err := fromAvroWith(o, v, back.ProtoReflect()); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(sampleTraces(2), &back) {
		t.Errorf("unknown fields kept or other fields lost: %v", &back)
	}
}

// TestGeneratedToDynamic converts generated messages and reads them back
// into dynamic ones made from the stored descriptor set, as a reader without
// the generated code would.
func TestGeneratedToDynamic(t *testing.T) {
	src := sampleTraces(3)
	md := src.ProtoReflect().Descriptor()
	set, err := protoload.DescriptorSetFor(md)
	if err != nil {
		t.Fatal(err)
	}
	dmd, err := protoload.MessageFromDescriptorSet(set, string(md.FullName()))
	if err != nil {
		t.Fatal(err)
	}
	if dmd == md {
		t.Fatal("descriptor not rebuilt")
	}
	v, err := toAvro(src.ProtoReflect())
	if err != nil {
		t.Fatal(err)
	}
	dc := converter(t, dmd, nil)
	schema, _ := protoschema.AvroSchema(md, nil)
	if dc.Mapping().Schema.String() != schema.String() {
		t.Error("schemas of the generated and the rebuilt descriptor differ")
	}
	dyn := dynamicpb.NewMessage(dmd)
	if err := dc.FromAvro(v, dyn); err != nil {
		t.Fatal(err)
	}
	want, _ := deterministic.Marshal(src)
	have, _ := deterministic.Marshal(dyn)
	if string(want) != string(have) {
		t.Error("dynamic message differs")
	}
	// And back from dynamic to generated.
	v, err = toAvro(dyn)
	if err != nil {
		t.Fatal(err)
	}
	var gen tracepb.TracesData
	if err := fromAvro(v, gen.ProtoReflect()); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(src, &gen) {
		t.Error("generated message differs")
	}
}

func TestFromAvroResets(t *testing.T) {
	m := &logspb.LogRecord{SeverityText: "old", Body: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: 1}}}
	v, err := toAvro((&logspb.LogRecord{TimeUnixNano: 5}).ProtoReflect())
	if err != nil {
		t.Fatal(err)
	}
	if err := fromAvro(v, m.ProtoReflect()); err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(m, &logspb.LogRecord{TimeUnixNano: 5}) {
		t.Errorf("not reset: %v", m)
	}
}

// TestLenientInput checks the native forms accepted besides goavro's.
func TestLenientInput(t *testing.T) {
	files := prototest.Compile(t)
	m := newMessage(t, files, "trevni.test.p3.Everything")
	err := fromAvro(map[string]any{
		"i32":     7,              // int for int
		"i64":     int32(-1),      // int32 for long
		"fl":      0.5,            // exactly representable double for float
		"db":      float32(0.25),  // float for double
		"s":       []byte("text"), // bytes for string
		"by":      "raw",          // string for bytes
		"opt_i32": int32(3),       // bare value for a nullable scalar
		"opt_s":   map[string]any{"string": "x"},
		"v_inner": map[string]any{"trevni.test.p3.Inner": map[string]any{"name": "n"}},
	}, m)
	if err != nil {
		t.Fatal(err)
	}
	want := newMessage(t, files, "trevni.test.p3.Everything")
	set(want, "i32", int32(7))
	set(want, "i64", int64(-1))
	set(want, "fl", float32(0.5))
	set(want, "db", 0.25)
	set(want, "s", "text")
	set(want, "by", []byte("raw"))
	set(want, "opt_i32", int32(3))
	set(want, "opt_s", "x")
	inner := want.Mutable(want.Descriptor().Fields().ByName("v_inner")).Message()
	set(inner, "name", "n")
	if !proto.Equal(m, want) {
		t.Errorf("have %v\nwant %v", m, want)
	}
}

func TestErrors(t *testing.T) {
	files := prototest.Compile(t)
	base := func() map[string]any {
		m := newMessage(t, files, "trevni.test.p3.Everything")
		l := m.Mutable(m.Descriptor().Fields().ByName("rep_inner")).List()
		for range 2 {
			e := l.NewElement()
			set(e.Message(), "name", "x")
			l.Append(e)
		}
		v, err := toAvro(m)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		name   string
		change func(v map[string]any)
		want   string
	}{
		{"nested type", func(v map[string]any) { v["rep_inner"].([]any)[1].(map[string]any)["name"] = 5 }, "rep_inner[1].name: want string, have int"},
		{"map key", func(v map[string]any) { v["m_i32"] = map[string]any{"01": "x"} }, `m_i32["01"]: `},
		{"map value", func(v map[string]any) { v["m_u32"] = map[string]any{"1": 2.5} }, `m_u32["1"]: want bytes, have float64`},
		{"range", func(v map[string]any) { v["u32"] = int64(1 << 32) }, "u32: 4294967296 out of range"},
		{"int32 range", func(v map[string]any) { v["i32"] = int64(1 << 31) }, "i32: 2147483648 out of range"},
		{"inexact float", func(v map[string]any) { v["fl"] = 0.1 }, "fl: double 0.1 is not exactly a float"},
		{"not an array", func(v map[string]any) { v["rep_u64"] = int64(1) }, "rep_u64: want array, have int64"},
		{"not a map", func(v map[string]any) { v["m_bool"] = []any{} }, "m_bool: want map, have []interface {}"},
		{"record branch", func(v map[string]any) {
			v["inner"] = map[string]any{"other.Name": map[string]any{}}
		}, `inner: want union {"trevni.test.p3.Inner": value} or null`},
		{"bare record", func(v map[string]any) { v["ts"] = int64(1) }, "ts: want union {google.protobuf.Timestamp: record}"},
		{"not a record", func(v map[string]any) { v["rep_inner"] = []any{"x"} }, "rep_inner[0]: want record, have string"},
		{"oneof", func(v map[string]any) {
			v["v_string"] = map[string]any{"string": "a"}
			v["v_int"] = map[string]any{"long": int64(1)}
		}, "oneof value has both v_string and v_int set"},
		{"unknown", func(v map[string]any) { v["_unknown"] = 1 }, "_unknown: want bytes"},
		{"bool", func(v map[string]any) { v["b"] = "true" }, "b: want boolean"},
		{"enum", func(v map[string]any) { v["kind"] = "KIND_A" }, "kind: want int or long, have string"},
	} {
		v := base()
		tc.change(v)
		err := fromAvro(v, newMessage(t, files, "trevni.test.p3.Everything"))
		if path, _ := fieldpath.Split(err); err == nil || path == "" || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}

	v := base()
	v["m_i32"] = map[string]any{"+1": "x"}
	if err := fromAvro(v, newMessage(t, files, "trevni.test.p3.Everything")); !errors.Is(err, strconv.ErrSyntax) {
		t.Errorf("map key error %v does not wrap strconv.ErrSyntax", err)
	}

	// ToAvro fails only where it must marshal a message that protobuf
	// cannot: here a proto3 string with invalid UTF-8 past the recursion cut.
	tree := newMessage(t, files, "trevni.test.p3.Tree")
	parent := tree.Mutable(tree.Descriptor().Fields().ByName("parent")).Message()
	child := parent.Mutable(tree.Descriptor().Fields().ByName("named")).Map().Mutable(protoreflect.ValueOfString("k").MapKey()).Message()
	set(child, "label", "\xff")
	if _, err := toAvro(tree); err == nil || !strings.Contains(err.Error(), "parent: ") {
		t.Errorf("invalid UTF-8 past the cut: %v", err)
	}

	// Recursion cut: the serialized bytes must parse.
	tree = newMessage(t, files, "trevni.test.p3.Tree")
	err := fromAvro(map[string]any{"parent": map[string]any{"bytes": []byte{0xff}}}, tree)
	if err == nil || !strings.Contains(err.Error(), "parent: ") {
		t.Errorf("bad serialized message: %v", err)
	}

	// A message of another type, or another descriptor of the same type.
	c := converter(t, (&structpb.Struct{}).ProtoReflect().Descriptor(), nil)
	mp := c.Mapping()
	if _, err := c.ToAvro(timestamppb.Now().ProtoReflect()); err == nil {
		t.Error("ToAvro of another type accepted")
	}
	if err := c.FromAvro(map[string]any{}, dynamicpb.NewMessage(mp.Root.Desc)); err != nil {
		t.Errorf("dynamic message of the mapping's descriptor: %v", err)
	}
	set, _ := protoload.DescriptorSetFor(mp.Root.Desc)
	other, _ := protoload.MessageFromDescriptorSet(set, "google.protobuf.Struct")
	if err := c.FromAvro(map[string]any{}, dynamicpb.NewMessage(other)); err == nil {
		t.Error("FromAvro into another descriptor accepted")
	}
}

// TestToAvroInto converts a series of different messages into one reused
// record and checks each result against a fresh conversion.
func TestToAvroInto(t *testing.T) {
	files := prototest.Compile(t)
	md, err := protoload.FindMessage(files, "trevni.test.p3.Everything")
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	for seed := range uint64(30) {
		m := dynamicpb.NewMessage(md)
		protorand.New(seed).Fill(m)
		want, err := toAvro(m)
		if err != nil {
			t.Fatal(err)
		}
		if v, err = toAvroIntoDefault(m, v); err != nil {
			t.Fatal(err)
		}
		if !equalNative(v, want) {
			t.Fatalf("seed %d: reused record differs from a fresh one", seed)
		}
	}
	// A record of another type is cleared first.
	v, err = toAvroIntoDefault(timestamppb.New(time.Unix(5, 0)).ProtoReflect(), v)
	if err != nil {
		t.Fatal(err)
	}
	if !equalNative(v, map[string]any{"seconds": int64(5), "nanos": int32(0), "_unknown": []byte{}}) {
		t.Errorf("Timestamp into an Everything record: %#v", v)
	}
}

// TestQualifiedBranch reads a union whose branch goavro names in the
// enclosing namespace, as it does for a record without a namespace.
func TestQualifiedBranch(t *testing.T) {
	files, err := protosrc.CompileProto(context.Background(), []string{prototest.Dir(t)}, "trevni/test/mixed.proto")
	if err != nil {
		t.Fatal(err)
	}
	m := newMessage(t, files, "trevni.test.mixed.Holder")
	err = fromAvro(map[string]any{
		"loose": map[string]any{"trevni.test.mixed.Loose": map[string]any{"x": int32(3)}},
		"many":  []any{map[string]any{"x": int32(4)}},
	}, m)
	if err != nil {
		t.Fatal(err)
	}
	v, err := toAvro(m)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"loose":    map[string]any{"Loose": map[string]any{"x": int32(3), "_unknown": []byte{}}},
		"many":     []any{map[string]any{"x": int32(4), "_unknown": []byte{}}},
		"_unknown": []byte{},
	}
	if !equalNative(v, want) {
		t.Errorf("have %#v", v)
	}
}
