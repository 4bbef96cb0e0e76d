package protoschema_test

import (
	"context"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/linkedin/goavro/v2"
	"github.com/trevni-go/trevni/internal/testing/prototest"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/protoload/protosrc"
	"github.com/trevni-go/trevni/schema/protoschema"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/apipb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/typepb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// TestSchemasParse checks that goavro accepts the schema of every message of
// the test files, the well-known types, descriptor.proto and OTLP, with
// several recursion limits.
func TestSchemasParse(t *testing.T) {
	files := prototest.Compile(t)
	mds := prototest.Messages(t, files, prototest.Files...)
	for _, m := range []proto.Message{
		&tracepb.TracesData{}, &metricspb.MetricsData{}, &logspb.LogsData{},
		&descriptorpb.FileDescriptorSet{}, &typepb.Type{}, &apipb.Api{},
	} {
		mds = append(mds, m.ProtoReflect().Descriptor())
	}
	mds = append(mds, prototest.Messages(t, protoregistry.GlobalFiles,
		"google/protobuf/any.proto", "google/protobuf/duration.proto", "google/protobuf/empty.proto",
		"google/protobuf/field_mask.proto", "google/protobuf/struct.proto", "google/protobuf/timestamp.proto",
		"google/protobuf/wrappers.proto", "google/protobuf/descriptor.proto")...)
	for _, md := range mds {
		for _, opts := range []*protoschema.Options{nil, {RecursionLimit: 1}, {RecursionLimit: 2, DropUnknown: true}} {
			sch, err := protoschema.AvroSchema(md, opts)
			if err != nil {
				t.Errorf("%s %v: %v", md.FullName(), opts, err)
				continue
			}
			s := sch.String()
			// The text parses back to the same schema.
			if back, err := schema.Parse(s); err != nil {
				t.Errorf("%s %v: parse: %v", md.FullName(), opts, err)
			} else if back.String() != s {
				t.Errorf("%s %v: text changes when parsed again:\n%s\n%s", md.FullName(), opts, s, back.String())
			}
			if _, err := goavro.NewCodec(s); err != nil {
				t.Errorf("%s %v: goavro: %v\n%s", md.FullName(), opts, err, s)
			}
			if !json.Valid([]byte(s)) {
				t.Errorf("%s: invalid JSON", md.FullName())
			}
		}
	}
}

// schemaFields decodes a record schema into field name → field object.
func schemaFields(t *testing.T, s string) map[string]map[string]any {
	t.Helper()
	var rec map[string]any
	if err := json.Unmarshal([]byte(s), &rec); err != nil {
		t.Fatal(err)
	}
	out := make(map[string]map[string]any)
	for _, f := range rec["fields"].([]any) {
		fm := f.(map[string]any)
		out[fm["name"].(string)] = fm
	}
	return out
}

func TestSchemaTypes(t *testing.T) {
	files := prototest.Compile(t)
	md := prototest.Message(t, files, "trevni.test.p3.Everything")
	sch, err := protoschema.AvroSchema(md, nil)
	if err != nil {
		t.Fatal(err)
	}
	fields := schemaFields(t, sch.String())
	want := map[string]string{
		"i32": `"int"`, "i64": `"long"`, "u32": `"long"`, "u64": `"long"`, "s32": `"int"`, "s64": `"long"`,
		"f32": `"long"`, "f64": `"long"`, "sf32": `"int"`, "sf64": `"long"`, "fl": `"float"`, "db": `"double"`,
		"b": `"boolean"`, "s": `"string"`, "by": `"bytes"`, "kind": `"int"`,
		"opt_i32": `["null","int"]`, "opt_u64": `["null","long"]`, "opt_kind": `["null","int"]`,
		"rep_u64": `{"items":"long","type":"array"}`, "rep_kind": `{"items":"int","type":"array"}`,
		"v_string": `["null","string"]`, "v_kind": `["null","int"]`, "v_inner": `["null","Inner"]`,
		"m_i32": `{"type":"map","values":"string"}`, "m_u64": `{"type":"map","values":"Inner"}`,
		"m_bool": `{"type":"map","values":"string"}`, "m_f64": `{"type":"map","values":"long"}`,
		"_unknown": `"bytes"`,
	}
	for name, w := range want {
		f, ok := fields[name]
		if !ok {
			t.Errorf("no field %s", name)
			continue
		}
		got, _ := json.Marshal(f["type"])
		if string(got) != w {
			t.Errorf("%s: type %s, want %s", name, got, w)
		}
	}
	if got := fields["v_string"]["protobuf.oneof"]; got != "value" {
		t.Errorf("v_string oneof property %v", got)
	}
	if _, ok := fields["opt_i32"]["protobuf.oneof"]; ok {
		t.Error("proto3 optional marked as a oneof member")
	}
	if got := fields["m_sf64"]["protobuf.type"]; got != "map<sfixed64,fixed32>" {
		t.Errorf("m_sf64 type property %v", got)
	}
	if got := fields["u64"]["protobuf.number"]; got != 4.0 {
		t.Errorf("u64 number property %v", got)
	}
	enum, _ := json.Marshal(fields["kind"]["protobuf.enum"])
	if string(enum) != `{"KIND_A":1,"KIND_B":2,"KIND_UNSPECIFIED":0}` {
		t.Errorf("kind enum property %s", enum)
	}
	// Field order is declaration order, the unknown field last.
	var rec struct{ Fields []struct{ Name string } }
	if err := json.Unmarshal([]byte(sch.String()), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Fields[0].Name != "i32" || rec.Fields[15].Name != "kind" || rec.Fields[len(rec.Fields)-1].Name != "_unknown" {
		t.Errorf("field order %v", rec.Fields)
	}
}

func TestPresence(t *testing.T) {
	files := prototest.Compile(t)
	for _, tc := range []struct {
		msg      string
		nullable []string
		plain    []string
	}{
		{"trevni.test.p2.Scalars", []string{"req_int32", "opt_int64", "opt_color", "optgroup", "choice_msg", "child"}, []string{"rep_int32", "repgroup", "children"}},
		{"trevni.test.p3.Everything", []string{"opt_i32", "inner", "ts", "v_int", "o_bool"}, []string{"i32", "s", "by", "kind", "rep_inner"}},
		{"trevni.test.ed.Item", []string{"explicit_i32", "required_i64", "open", "closed", "delimited", "with_default", "pick_u32"}, []string{"implicit_i32", "implicit_s", "implicit_open", "expanded", "by_name"}},
	} {
		mp, err := protoschema.New(prototest.Message(t, files, tc.msg), nil)
		if err != nil {
			t.Fatal(err)
		}
		byName := make(map[string]*protoschema.Field)
		for i := range mp.Root.Fields {
			byName[mp.Root.Fields[i].Name] = &mp.Root.Fields[i]
		}
		for _, n := range tc.nullable {
			if f := byName[n]; f == nil || f.Shape != protoschema.Optional || f.Branch == "" {
				t.Errorf("%s.%s: want nullable, have %+v", tc.msg, n, f)
			}
		}
		for _, n := range tc.plain {
			if f := byName[n]; f == nil || f.Shape == protoschema.Optional {
				t.Errorf("%s.%s: want not nullable, have %+v", tc.msg, n, f)
			}
		}
	}
}

func TestRecursion(t *testing.T) {
	files := prototest.Compile(t)
	tree := prototest.Message(t, files, "trevni.test.p3.Tree")
	mp, err := protoschema.New(tree, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range mp.Root.Fields {
		if f.Desc.Message() != nil && f.Desc.Message().FullName() == tree.FullName() && (!f.Serialized || f.Record != nil) {
			t.Errorf("%s: not cut", f.Name)
		}
	}
	if f := mp.Root.Fields[5]; f.Name != "leaf" || f.Record == nil || f.Branch != "trevni.test.p3.Inner" {
		t.Errorf("leaf: %+v", f)
	}
	fields := schemaFields(t, mp.Schema.String())
	for name, want := range map[string]string{
		"children": `{"items":"bytes","type":"array"}`,
		"parent":   `["null","bytes"]`,
		"named":    `{"type":"map","values":"bytes"}`,
		"left":     `["null","bytes"]`,
	} {
		got, _ := json.Marshal(fields[name]["type"])
		if string(got) != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
		if fields[name]["protobuf.serialized"] != true {
			t.Errorf("%s: not marked serialized", name)
		}
	}

	// With a limit of 2, the tree is expanded twice: three shapes of Tree.
	mp, err = protoschema.New(tree, &protoschema.Options{RecursionLimit: 2})
	if err != nil {
		t.Fatal(err)
	}
	names := recordNames(mp.Root)
	for _, n := range []string{"trevni.test.p3.Tree", "trevni.test.p3.Tree_2", "trevni.test.p3.Tree_3", "trevni.test.p3.Inner"} {
		if !names[n] {
			t.Errorf("no record %s in %v", n, names)
		}
	}
	if len(names) != 5 { // and Inner.Deep
		t.Errorf("records: %v", names)
	}
	depth := 0
	for r := mp.Root; r != nil; depth++ {
		next := r.Fields[2].Record // parent
		if next == nil && !r.Fields[2].Serialized {
			t.Fatal("parent neither record nor serialized")
		}
		r = next
	}
	if depth != 3 {
		t.Errorf("expanded %d levels, want 3", depth)
	}
}

// recordNames lists the names of the records reachable from r.
func recordNames(r *protoschema.Record) map[string]bool {
	names := make(map[string]bool)
	var walk func(r *protoschema.Record)
	walk = func(r *protoschema.Record) {
		if names[r.Name] {
			return
		}
		names[r.Name] = true
		for _, f := range r.Fields {
			if f.Record != nil {
				walk(f.Record)
			}
		}
	}
	walk(r)
	return names
}

// TestSharedShapes checks that a message type used in several places with
// the same shape is one record, and in different shapes several.
func TestSharedShapes(t *testing.T) {
	mp, err := protoschema.New((&structpb.Value{}).ProtoReflect().Descriptor(), nil)
	if err != nil {
		t.Fatal(err)
	}
	// Value → struct_value Struct → fields map<Value (cut)>; Value →
	// list_value ListValue → values (cut).
	names := recordNames(mp.Root)
	want := map[string]bool{"google.protobuf.Value": true, "google.protobuf.Struct": true, "google.protobuf.ListValue": true}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("records %v, want %v", names, want)
	}

	mp, err = protoschema.New((&descriptorpb.FileDescriptorSet{}).ProtoReflect().Descriptor(), nil)
	if err != nil {
		t.Fatal(err)
	}
	names = recordNames(mp.Root)
	// FeatureSet appears under every *Options with the same shape.
	for n := range names {
		if strings.HasPrefix(n, "google.protobuf.FeatureSet_") {
			t.Errorf("FeatureSet has more than one shape: %s", n)
		}
	}
	if !names["google.protobuf.DescriptorProto"] || names["google.protobuf.DescriptorProto_2"] {
		t.Errorf("DescriptorProto records: %v", names)
	}
}

func TestUnknownFieldName(t *testing.T) {
	files := prototest.Compile(t)
	mp, err := protoschema.New(prototest.Message(t, files, "trevni.test.p2.Clash"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if mp.Root.Unknown != "___unknown" {
		t.Errorf("unknown field %q", mp.Root.Unknown)
	}
	mp, err = protoschema.New(prototest.Message(t, files, "trevni.test.p2.Clash"), &protoschema.Options{DropUnknown: true})
	if err != nil {
		t.Fatal(err)
	}
	if mp.Root.Unknown != "" || strings.Contains(mp.Schema.String(), "protobuf.unknown") {
		t.Errorf("unknown field kept: %s", mp.Schema.String())
	}
}

func TestWellKnownTypesAreOrdinary(t *testing.T) {
	for _, tc := range []struct {
		m      proto.Message
		fields []string
	}{
		{&timestamppb.Timestamp{}, []string{"seconds", "nanos", "_unknown"}},
		{&durationpb.Duration{}, []string{"seconds", "nanos", "_unknown"}},
		{&anypb.Any{}, []string{"type_url", "value", "_unknown"}},
		{&emptypb.Empty{}, []string{"_unknown"}},
		{&fieldmaskpb.FieldMask{}, []string{"paths", "_unknown"}},
		{&wrapperspb.UInt64Value{}, []string{"value", "_unknown"}},
		{&structpb.ListValue{}, []string{"values", "_unknown"}},
	} {
		mp, err := protoschema.New(tc.m.ProtoReflect().Descriptor(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, f := range mp.Root.Fields {
			got = append(got, f.Name)
		}
		got = append(got, mp.Root.Unknown)
		if !reflect.DeepEqual(got, tc.fields) {
			t.Errorf("%s: fields %v, want %v", mp.Root.Name, got, tc.fields)
		}
	}
}

func TestNewErrors(t *testing.T) {
	if _, err := protoschema.New(nil, nil); err == nil {
		t.Error("nil descriptor accepted")
	}
	md := (&timestamppb.Timestamp{}).ProtoReflect().Descriptor()
	if _, err := protoschema.New(md, &protoschema.Options{RecursionLimit: -1}); err == nil {
		t.Error("negative recursion limit accepted")
	}
	files := prototest.Compile(t)
	entry := prototest.Message(t, files, "trevni.test.p3.Everything").Fields().ByName("m_i32").Message()
	if _, err := protoschema.New(entry, nil); err == nil {
		t.Error("map entry accepted")
	}
}

func TestOptionsText(t *testing.T) {
	for _, o := range []protoschema.Options{{}, {RecursionLimit: 3}, {DropUnknown: true}} {
		got, err := protoschema.ParseStoredOptions(o.String())
		if err != nil || *got != o {
			t.Errorf("ParseStoredOptions(%q) = %v, %v", o.String(), got, err)
		}
	}
	if o, err := protoschema.ParseStoredOptions(""); err != nil || *o != (protoschema.Options{}) {
		t.Errorf("ParseStoredOptions(\"\") = %v, %v", o, err)
	}
	for _, s := range []string{"x=1", "recursion_limit", "recursion_limit=-1", "drop_unknown=maybe"} {
		if _, err := protoschema.ParseStoredOptions(s); err == nil {
			t.Errorf("ParseStoredOptions(%q) accepted", s)
		}
	}
}

func TestMapKeys(t *testing.T) {
	type kv struct {
		kind protoreflect.Kind
		key  protoreflect.Value
		text string
	}
	cases := []kv{
		{protoreflect.StringKind, protoreflect.ValueOfString(""), ""},
		{protoreflect.StringKind, protoreflect.ValueOfString("01 é"), "01 é"},
		{protoreflect.BoolKind, protoreflect.ValueOfBool(true), "true"},
		{protoreflect.BoolKind, protoreflect.ValueOfBool(false), "false"},
		{protoreflect.Int32Kind, protoreflect.ValueOfInt32(math.MinInt32), "-2147483648"},
		{protoreflect.Sint32Kind, protoreflect.ValueOfInt32(0), "0"},
		{protoreflect.Sfixed32Kind, protoreflect.ValueOfInt32(math.MaxInt32), "2147483647"},
		{protoreflect.Int64Kind, protoreflect.ValueOfInt64(math.MinInt64), "-9223372036854775808"},
		{protoreflect.Sint64Kind, protoreflect.ValueOfInt64(-1), "-1"},
		{protoreflect.Sfixed64Kind, protoreflect.ValueOfInt64(math.MaxInt64), "9223372036854775807"},
		{protoreflect.Uint32Kind, protoreflect.ValueOfUint32(math.MaxUint32), "4294967295"},
		{protoreflect.Fixed32Kind, protoreflect.ValueOfUint32(7), "7"},
		{protoreflect.Uint64Kind, protoreflect.ValueOfUint64(math.MaxUint64), "18446744073709551615"},
		{protoreflect.Fixed64Kind, protoreflect.ValueOfUint64(0), "0"},
	}
	for _, c := range cases {
		if got := protoschema.MapKeyText(c.key.MapKey(), c.kind); got != c.text {
			t.Errorf("MapKeyText(%v, %v) = %q, want %q", c.key, c.kind, got, c.text)
		}
		k, err := protoschema.ParseMapKey(c.text, c.kind)
		if err != nil || !k.Value().Equal(c.key) {
			t.Errorf("ParseMapKey(%q, %v) = %v, %v", c.text, c.kind, k, err)
		}
	}
	for _, c := range []struct {
		kind protoreflect.Kind
		text string
	}{
		{protoreflect.BoolKind, "True"}, {protoreflect.BoolKind, "1"}, {protoreflect.Int32Kind, "+1"},
		{protoreflect.Int32Kind, "01"}, {protoreflect.Int32Kind, "-0"}, {protoreflect.Int32Kind, "2147483648"},
		{protoreflect.Int64Kind, " 1"}, {protoreflect.Uint32Kind, "-1"}, {protoreflect.Uint64Kind, "18446744073709551616"},
		{protoreflect.Uint64Kind, "0x10"}, {protoreflect.Sint64Kind, ""}, {protoreflect.DoubleKind, "1"},
	} {
		if k, err := protoschema.ParseMapKey(c.text, c.kind); err == nil {
			t.Errorf("ParseMapKey(%q, %v) = %v, want error", c.text, c.kind, k)
		}
	}
}

// TestNoPackage checks the naming of a message without a package inside one
// with a package: "namespace": "" keeps it out of the enclosing namespace.
func TestNoPackage(t *testing.T) {
	files, err := protosrc.CompileProto(context.Background(), []string{prototest.Dir(t)}, "trevni/test/mixed.proto")
	if err != nil {
		t.Fatal(err)
	}
	mp, err := protoschema.New(prototest.Message(t, files, "trevni.test.mixed.Holder"), nil)
	if err != nil {
		t.Fatal(err)
	}
	loose := mp.Root.Fields[0]
	if loose.Record.Name != "Loose" || loose.Branch != "Loose" {
		t.Errorf("Loose named %q, branch %q", loose.Record.Name, loose.Branch)
	}
	if !strings.Contains(mp.Schema.String(), `"name":"Loose","namespace":""`) {
		t.Errorf("no empty namespace: %s", mp.Schema.String())
	}
	if _, err := goavro.NewCodec(mp.Schema.String()); err != nil {
		t.Error(err)
	}
	// As the root, it needs no namespace either.
	mp, err = protoschema.New(prototest.Message(t, files, "Loose"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := goavro.NewCodec(mp.Schema.String()); err != nil {
		t.Error(err)
	}
}

// TestWideSchema checks that a message type reached along many paths is
// expanded once: 4 fields per level over 12 levels are 4^12 paths.
func TestWideSchema(t *testing.T) {
	fdp := &descriptorpb.FileDescriptorProto{Name: proto.String("wide.proto"), Package: proto.String("wide"), Syntax: proto.String("proto3")}
	const levels = 12
	for i := range levels + 1 {
		msg := &descriptorpb.DescriptorProto{Name: proto.String("L" + strconv.Itoa(i))}
		for j := range 4 {
			f := &descriptorpb.FieldDescriptorProto{
				Name:   proto.String("f" + strconv.Itoa(j)),
				Number: proto.Int32(int32(j + 1)),
				Label:  descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(),
				Type:   descriptorpb.FieldDescriptorProto_TYPE_INT32.Enum(),
			}
			if i < levels {
				f.Type = descriptorpb.FieldDescriptorProto_TYPE_MESSAGE.Enum()
				f.TypeName = proto.String(".wide.L" + strconv.Itoa(i+1))
			}
			msg.Field = append(msg.Field, f)
		}
		fdp.MessageType = append(fdp.MessageType, msg)
	}
	fd, err := protodesc.NewFile(fdp, nil)
	if err != nil {
		t.Fatal(err)
	}
	mp, err := protoschema.New(fd.Messages().ByName("L0"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(recordNames(mp.Root)); n != levels+1 {
		t.Errorf("%d records, want %d", n, levels+1)
	}
	if _, err := goavro.NewCodec(mp.Schema.String()); err != nil {
		t.Error(err)
	}
}
