package shred_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/testing/longtest"
	"github.com/trevni-go/trevni/internal/testing/protorand"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/protoload"
	"github.com/trevni-go/trevni/schema/protoload/protosrc"
	"github.com/trevni-go/trevni/schema/protoschema"
	"github.com/trevni-go/trevni/shred"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protodelim"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/apipb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// wireDeterministic marshals test inputs the same on every run.
var wireDeterministic = proto.MarshalOptions{AllowPartial: true, Deterministic: true}

// noExtensions resolves no extension, so that extensions stay unknown
// fields whatever the global registry holds.
var noExtensions = new(protoregistry.Types)

// wireCompare writes every message of msgs twice, through WriteWire and
// through proto.Unmarshal into dynamicpb and Write, and checks that the two
// agree on which messages fail and that the files are byte for byte the
// same. It returns how many messages were written.
func wireCompare(t *testing.T, md protoreflect.MessageDescriptor, opts *shred.ProtoOptions, msgs [][]byte) int {
	t.Helper()
	var fast, slow bytes.Buffer
	fw, err := shred.NewProtoWriter(&fast, md, opts)
	if err != nil {
		t.Fatal(err)
	}
	sw, err := shred.NewProtoWriter(&slow, md, opts)
	if err != nil {
		t.Fatal(err)
	}
	uo := proto.UnmarshalOptions{Resolver: opts.Resolver}
	m := dynamicpb.NewMessage(md)
	var scratch *shred.ProtoWriter
	for i, b := range msgs {
		serr, panicked := wireUnmarshal(uo, b, m)
		if panicked {
			// proto-go's slow path panics on a map entry whose key is
			// followed by a key of the wrong wire type; WriteWire keeps
			// the first key, as generated code does. Only check that it
			// copes.
			if scratch == nil {
				if scratch, err = shred.NewProtoWriter(io.Discard, md, opts); err != nil {
					t.Fatal(err)
				}
				defer scratch.Abort()
			}
			scratch.WriteWire(b)
			continue
		}
		if serr == nil {
			serr = sw.Write(m)
		}
		ferr := fw.WriteWire(b)
		if (ferr == nil) != (serr == nil) {
			t.Fatalf("%s message %d (%d bytes, %x):\nWriteWire: %v\nreflective: %v", md.FullName(), i, len(b), b, ferr, serr)
		}
		// Besides bad wire data, a message can hold what a Trevni file
		// cannot: a required field unset, or a proto2 string that is not
		// UTF-8 (which the column writer refuses).
		if ferr != nil && !errors.Is(ferr, shred.ErrWire) && !strings.Contains(ferr.Error(), "required field") &&
			!(errors.Is(ferr, format.ErrUsage) && strings.Contains(ferr.Error(), "UTF-8")) {
			t.Fatalf("%s message %d: WriteWire error does not wrap ErrWire: %v", md.FullName(), i, ferr)
		}
	}
	if fw.RowCount() != sw.RowCount() {
		t.Fatalf("%s: %d rows written by WriteWire, %d by Write", md.FullName(), fw.RowCount(), sw.RowCount())
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := sw.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fast.Bytes(), slow.Bytes()) {
		// Find the first message that differs, for the report.
		for i, b := range msgs {
			if wireCompareOne(t, md, opts, b) {
				continue
			}
			m := dynamicpb.NewMessage(md)
			uerr := uo.Unmarshal(b, m)
			t.Fatalf("%s: the files differ, first at message %d (%x)\nunmarshalled (%v): %v", md.FullName(), i, b, uerr, m)
		}
		t.Fatalf("%s: the files differ", md.FullName())
	}
	return int(fw.RowCount())
}

// wireUnmarshal is uo.Unmarshal, reporting a panic.
func wireUnmarshal(uo proto.UnmarshalOptions, b []byte, m proto.Message) (err error, panicked bool) {
	defer func() {
		if r := recover(); r != nil {
			err, panicked = fmt.Errorf("panic: %v", r), true
		}
	}()
	return uo.Unmarshal(b, m), false
}

// wireCompareOne reports whether one message makes the same file both
// ways.
func wireCompareOne(t *testing.T, md protoreflect.MessageDescriptor, opts *shred.ProtoOptions, b []byte) bool {
	var fast, slow bytes.Buffer
	fw, _ := shred.NewProtoWriter(&fast, md, opts)
	sw, _ := shred.NewProtoWriter(&slow, md, opts)
	m := dynamicpb.NewMessage(md)
	if err, _ := wireUnmarshal(proto.UnmarshalOptions{Resolver: opts.Resolver}, b, m); err == nil {
		sw.Write(m)
	}
	fw.WriteWire(b)
	fw.Close()
	sw.Close()
	return bytes.Equal(fast.Bytes(), slow.Bytes())
}

// wireScrambler re-encodes wire messages in ways that proto-go's marshal
// never does: fields out of order, packed fields unpacked and split,
// unpacked ones packed, singular fields repeated (the last wins, messages
// merge), map entries duplicated or missing their key or value, padded
// tags, unknown fields inserted, and fields with the wrong wire type (which
// become unknown fields).
type wireScrambler struct {
	r *rand.Rand
}

func newWireScrambler(seed uint64) *wireScrambler {
	return &wireScrambler{r: rand.New(rand.NewPCG(seed, 42))}
}

type wireField struct {
	num protowire.Number
	wt  protowire.Type
	tag []byte // the tag as it was
	val []byte // the value after the tag; a group's content
}

// splitFields splits a message into its fields, or reports that it does
// not parse.
func splitFields(b []byte) ([]wireField, bool) {
	var fs []wireField
	for len(b) > 0 {
		num, wt, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, false
		}
		m := protowire.ConsumeFieldValue(num, wt, b[n:])
		if m < 0 {
			return nil, false
		}
		f := wireField{num: num, wt: wt, tag: b[:n], val: b[n : n+m]}
		if wt == protowire.StartGroupType {
			f.val, _ = protowire.ConsumeGroup(num, b[n:])
		}
		fs = append(fs, f)
		b = b[n+m:]
	}
	return fs, true
}

func (s *wireScrambler) chance(n int) bool { return s.r.IntN(n) == 0 }

// tag appends a tag, now and then padded to a longer varint.
func (s *wireScrambler) tag(b []byte, num protowire.Number, wt protowire.Type) []byte {
	t := protowire.AppendTag(nil, num, wt)
	if len(t) < 9 && s.chance(8) {
		t[len(t)-1] |= 0x80
		t = append(t, 0)
	}
	return append(b, t...)
}

func (s *wireScrambler) unknownField(b []byte) []byte {
	num := protowire.Number(5000 + s.r.IntN(1000))
	switch s.r.IntN(4) {
	case 0:
		b = s.tag(b, num, protowire.VarintType)
		return protowire.AppendVarint(b, s.r.Uint64()>>s.r.IntN(64))
	case 1:
		b = s.tag(b, num, protowire.Fixed32Type)
		return protowire.AppendFixed32(b, s.r.Uint32())
	case 2:
		b = s.tag(b, num, protowire.BytesType)
		return protowire.AppendString(b, "unknown")
	}
	b = s.tag(b, num, protowire.StartGroupType)
	b = protowire.AppendTag(b, 1, protowire.Fixed64Type)
	b = protowire.AppendFixed64(b, s.r.Uint64())
	return protowire.AppendTag(b, num, protowire.EndGroupType)
}

// message re-encodes a message of type md.
func (s *wireScrambler) message(md protoreflect.MessageDescriptor, b []byte) []byte {
	fs, ok := splitFields(b)
	if !ok {
		return b
	}
	var parts [][]byte
	for _, f := range fs {
		var fd protoreflect.FieldDescriptor
		if md != nil {
			fd = md.Fields().ByNumber(f.num)
		}
		parts = append(parts, s.field(fd, f)...)
		if s.chance(12) {
			parts = append(parts, s.unknownField(nil))
		}
	}
	if s.chance(3) {
		s.r.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	}
	return bytes.Join(parts, nil)
}

// field re-encodes one field as one or more fields.
func (s *wireScrambler) field(fd protoreflect.FieldDescriptor, f wireField) [][]byte {
	raw := append(append([]byte(nil), f.tag...), f.val...)
	if f.wt == protowire.StartGroupType {
		raw = protowire.AppendTag(raw, f.num, protowire.EndGroupType)
	}
	if fd == nil {
		return [][]byte{raw}
	}
	if s.chance(25) { // the wrong wire type: an unknown field
		b := s.tag(nil, f.num, protowire.Fixed64Type)
		return [][]byte{protowire.AppendFixed64(b, s.r.Uint64())}
	}
	kind := fd.Kind()
	switch {
	case fd.IsMap() && f.wt == protowire.BytesType:
		entry := s.entry(fd, f.val)
		out := [][]byte{protowire.AppendBytes(s.tag(nil, f.num, protowire.BytesType), entry)}
		if s.chance(6) { // the same key again, maybe with another value
			out = append(out, protowire.AppendBytes(s.tag(nil, f.num, protowire.BytesType), s.entry(fd, f.val)))
			if s.chance(2) {
				out[0], out[1] = out[1], out[0]
			}
		}
		return out
	case (kind == protoreflect.MessageKind && f.wt == protowire.BytesType) ||
		(kind == protoreflect.GroupKind && f.wt == protowire.StartGroupType):
		inner := s.message(fd.Message(), f.val)
		var pieces [][]byte
		if !fd.IsList() && s.chance(4) {
			// Split the message: the occurrences merge.
			fs, _ := splitFields(inner)
			k := s.r.IntN(len(fs) + 1)
			pieces = append(pieces, joinFields(fs[:k]), joinFields(fs[k:]))
		} else {
			pieces = append(pieces, inner)
		}
		var out [][]byte
		for _, p := range pieces {
			if kind == protoreflect.GroupKind {
				b := s.tag(nil, f.num, protowire.StartGroupType)
				b = append(b, p...)
				out = append(out, protowire.AppendTag(b, f.num, protowire.EndGroupType))
			} else {
				out = append(out, protowire.AppendBytes(s.tag(nil, f.num, protowire.BytesType), p))
			}
		}
		return out
	case fd.IsList() && isPackable(kind) && f.wt == protowire.BytesType:
		vals := splitPacked(kind, f.val)
		switch s.r.IntN(3) {
		case 0: // unpacked
			var out [][]byte
			for _, v := range vals {
				out = append(out, append(s.tag(nil, f.num, elemType(kind)), v...))
			}
			return out
		case 1: // two packed runs
			k := s.r.IntN(len(vals) + 1)
			return [][]byte{
				protowire.AppendBytes(s.tag(nil, f.num, protowire.BytesType), bytes.Join(vals[:k], nil)),
				protowire.AppendBytes(s.tag(nil, f.num, protowire.BytesType), bytes.Join(vals[k:], nil)),
			}
		}
	case fd.IsList() && isPackable(kind) && f.wt == elemType(kind):
		if s.chance(2) { // packed
			return [][]byte{protowire.AppendBytes(s.tag(nil, f.num, protowire.BytesType), f.val)}
		}
	case !fd.IsList() && s.chance(5):
		// Twice: an earlier value that the last replaces.
		return [][]byte{raw, append(s.tag(nil, f.num, f.wt), f.val...)}
	}
	if s.chance(4) {
		return [][]byte{append(s.tag(nil, f.num, f.wt), raw[len(f.tag):]...)}
	}
	return [][]byte{raw}
}

// entry re-encodes a map entry: value before key, key or value missing,
// values repeated, unknown fields.
func (s *wireScrambler) entry(fd protoreflect.FieldDescriptor, b []byte) []byte {
	fs, ok := splitFields(b)
	if !ok {
		return b
	}
	var parts [][]byte
	for _, f := range fs {
		if s.chance(8) {
			continue // missing: the default
		}
		var vd protoreflect.FieldDescriptor
		switch f.num {
		case 1:
			vd = fd.MapKey()
		case 2:
			vd = fd.MapValue()
		}
		enc := s.field(vd, f)
		if f.num == 2 && s.chance(6) { // a value given twice
			enc = append(enc, s.field(vd, f)...)
		}
		parts = append(parts, enc...)
	}
	if s.chance(8) {
		parts = append(parts, s.unknownField(nil))
	}
	if s.chance(3) {
		s.r.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	}
	return bytes.Join(parts, nil)
}

func joinFields(fs []wireField) []byte {
	var b []byte
	for _, f := range fs {
		b = append(b, f.tag...)
		b = append(b, f.val...)
		if f.wt == protowire.StartGroupType {
			b = protowire.AppendTag(b, f.num, protowire.EndGroupType)
		}
	}
	return b
}

func isPackable(k protoreflect.Kind) bool {
	switch k {
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.MessageKind, protoreflect.GroupKind:
		return false
	}
	return true
}

func elemType(k protoreflect.Kind) protowire.Type {
	switch k {
	case protoreflect.Sfixed32Kind, protoreflect.Fixed32Kind, protoreflect.FloatKind:
		return protowire.Fixed32Type
	case protoreflect.Sfixed64Kind, protoreflect.Fixed64Kind, protoreflect.DoubleKind:
		return protowire.Fixed64Type
	}
	return protowire.VarintType
}

func splitPacked(k protoreflect.Kind, b []byte) [][]byte {
	var vals [][]byte
	for len(b) > 0 {
		n := 0
		switch elemType(k) {
		case protowire.Fixed32Type:
			n = min(4, len(b))
		case protowire.Fixed64Type:
			n = min(8, len(b))
		default:
			if _, n = protowire.ConsumeVarint(b); n < 0 {
				return append(vals, b)
			}
		}
		vals = append(vals, b[:n])
		b = b[n:]
	}
	return vals
}

// corrupt damages a message: truncated, a byte changed, inserted or
// removed.
func corrupt(r *rand.Rand, b []byte) []byte {
	if len(b) == 0 {
		return []byte{byte(r.Uint32())}
	}
	c := append([]byte(nil), b...)
	i := r.IntN(len(c))
	switch r.IntN(4) {
	case 0:
		return c[:i]
	case 1:
		c[i] ^= byte(1 << r.IntN(8))
	case 2:
		c[i] = byte(r.Uint32())
	default:
		return append(c[:i], append([]byte{byte(r.Uint32())}, c[i:]...)...)
	}
	return c
}

// wireVariants returns each message as marshalled, then scrambled, then
// corrupted.
func wireVariants(t *testing.T, seed uint64, msgs []proto.Message) [][]byte {
	t.Helper()
	s := newWireScrambler(seed)
	var out [][]byte
	for _, m := range msgs {
		b, err := wireDeterministic.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		md := m.ProtoReflect().Descriptor()
		out = append(out, b, s.message(md, b), s.message(md, b))
		for range 3 {
			out = append(out, corrupt(s.r, s.message(md, b)))
		}
	}
	return out
}

func randomMessages(md protoreflect.MessageDescriptor, seeds uint64, depth, maxLen int, exts []protoreflect.ExtensionType) []proto.Message {
	var msgs []proto.Message
	for seed := range seeds {
		f := protorand.New(seed)
		f.MaxDepth, f.MaxLen, f.Extensions = depth, maxLen, exts
		m := dynamicpb.NewMessage(md)
		f.Fill(m)
		msgs = append(msgs, m)
	}
	return msgs
}

func TestWriteWireOTLP(t *testing.T) {
	for _, m := range []proto.Message{&tracepb.TracesData{}, &metricspb.MetricsData{}, &logspb.LogsData{}} {
		md := m.ProtoReflect().Descriptor()
		t.Run(string(md.Name()), func(t *testing.T) {
			msgs := randomMessages(md, 40, 7, 3, nil)
			for _, limit := range []int{0, 2} {
				opts := &shred.ProtoOptions{Resolver: noExtensions, Mapping: &protoschema.Options{RecursionLimit: limit}}
				opts.File.BlockSize = 4096
				n := wireCompare(t, md, opts, wireVariants(t, uint64(limit), msgs))
				t.Logf("recursion limit %d: %d messages written", limit, n)
			}
		})
	}
}

// TestWriteWireRealistic writes spans as an SDK makes them, whose nested
// attribute values cross the recursion cut.
func TestWriteWireRealistic(t *testing.T) {
	md := (&tracepb.TracesData{}).ProtoReflect().Descriptor()
	b, err := proto.Marshal(benchTraces(100))
	if err != nil {
		t.Fatal(err)
	}
	s := newWireScrambler(1)
	msgs := [][]byte{b, s.message(md, b), s.message(md, b)}
	wireCompare(t, md, &shred.ProtoOptions{Resolver: noExtensions}, msgs)
	wireCompare(t, md, &shred.ProtoOptions{}, msgs) // the global registry
	wireCompare(t, md, &shred.ProtoOptions{Mapping: &protoschema.Options{DropUnknown: true}}, msgs)
}

func TestWriteWireDescriptorSets(t *testing.T) {
	set := &descriptorpb.FileDescriptorSet{}
	for _, m := range []proto.Message{
		&descriptorpb.FileDescriptorSet{}, &tracepb.TracesData{}, &metricspb.MetricsData{}, &logspb.LogsData{},
		&structpb.Struct{}, &apipb.Api{},
	} {
		set.File = append(set.File, protodesc.ToFileDescriptorProto(m.ProtoReflect().Descriptor().ParentFile()))
	}
	wireTestFiles(t).RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
		return true
	})
	md := set.ProtoReflect().Descriptor()
	msgs := append([]proto.Message{set}, randomMessages(md, 15, 6, 2, nil)...)
	for _, limit := range []int{0, 1, 3} {
		opts := &shred.ProtoOptions{Resolver: noExtensions, Mapping: &protoschema.Options{RecursionLimit: limit}}
		wireCompare(t, md, opts, wireVariants(t, uint64(limit), msgs))
	}
}

func TestWriteWireWellKnownTypes(t *testing.T) {
	st, err := structpb.NewStruct(map[string]any{
		"null": nil, "n": 1.5, "s": "x", "b": true,
		"list":   []any{1.0, "two", []any{3.0}, map[string]any{"four": 4.0}},
		"nested": map[string]any{"deeper": map[string]any{"deepest": []any{}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	anyTS, err := anypb.New(timestamppb.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []proto.Message{
		st, structpb.NewStructValue(st), anyTS, &timestamppb.Timestamp{Seconds: -62135596800, Nanos: 999999999},
		&durationpb.Duration{Seconds: 1, Nanos: -5}, &fieldmaskpb.FieldMask{Paths: []string{"a.b", "c"}},
		wrapperspb.Double(math.Copysign(0, -1)), wrapperspb.Float(float32(math.Copysign(0, -1))), wrapperspb.String("é"), wrapperspb.UInt64(1<<63 + 5),
	} {
		md := m.ProtoReflect().Descriptor()
		msgs := append([]proto.Message{m}, randomMessages(md, 10, 6, 3, nil)...)
		for _, limit := range []int{0, 2} {
			opts := &shred.ProtoOptions{Resolver: noExtensions, Mapping: &protoschema.Options{RecursionLimit: limit}}
			wireCompare(t, md, opts, wireVariants(t, uint64(limit), msgs))
		}
	}
}

func wireTestFiles(t testing.TB) *protoregistry.Files {
	t.Helper()
	files, err := protosrc.CompileProto(context.Background(), []string{"../../testdata/proto"},
		"trevni/test/proto2.proto", "trevni/test/proto3.proto", "trevni/test/editions.proto", "trevni/test/mixed.proto")
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func wireMessage(t testing.TB, files *protoregistry.Files, name string) protoreflect.MessageDescriptor {
	t.Helper()
	md, err := protoload.FindMessage(files, name)
	if err != nil {
		t.Fatal(err)
	}
	return md
}

// TestWriteWireTestProtos covers proto2 (required fields, defaults,
// groups, closed enums, extensions), proto3 (implicit presence, every map
// key type, oneofs) and editions (delimited encoding, expanded repeated
// fields, closed enums).
func TestWriteWireTestProtos(t *testing.T) {
	t.Parallel()
	files := wireTestFiles(t)
	types := dynamicpb.NewTypes(files)
	fd, err := files.FindFileByPath("trevni/test/proto2.proto")
	if err != nil {
		t.Fatal(err)
	}
	var exts []protoreflect.ExtensionType
	for i := range fd.Extensions().Len() {
		exts = append(exts, dynamicpb.NewExtensionType(fd.Extensions().Get(i)))
	}
	// The recursive messages grow to megabytes at depth 5: the default
	// form takes the first 10 of their 40 seeds (see LongRounds).
	deep := uint64(longtest.Rounds(10, 40))
	for _, tc := range []struct {
		name  string
		seeds uint64
	}{
		{"trevni.test.p2.Scalars", deep}, {"trevni.test.p2.Clash", 40}, {"trevni.test.p3.Everything", deep},
		{"trevni.test.p3.Inner", 40}, {"trevni.test.p3.Tree", deep}, {"trevni.test.ed.Item", 40},
		{"trevni.test.mixed.Holder", 40},
	} {
		md := wireMessage(t, files, tc.name)
		t.Run(tc.name, func(t *testing.T) {
			msgs := randomMessages(md, tc.seeds, 5, 4, exts)
			for _, limit := range []int{0, 1} {
				variants := wireVariants(t, uint64(limit), msgs)
				// Extensions unknown to the resolver are unknown fields.
				opts := &shred.ProtoOptions{Resolver: noExtensions, Mapping: &protoschema.Options{RecursionLimit: limit}}
				wireCompare(t, md, opts, variants)
				// Extensions the resolver knows take the reflective path.
				opts.Resolver = types
				wireCompare(t, md, opts, variants)
			}
		})
	}
}

// wireBuilder builds wire messages by hand.
type wireBuilder []byte

func (b wireBuilder) varint(num protowire.Number, v uint64) wireBuilder {
	return protowire.AppendVarint(protowire.AppendTag(b, num, protowire.VarintType), v)
}

func (b wireBuilder) fixed32(num protowire.Number, v uint32) wireBuilder {
	return protowire.AppendFixed32(protowire.AppendTag(b, num, protowire.Fixed32Type), v)
}

func (b wireBuilder) fixed64(num protowire.Number, v uint64) wireBuilder {
	return protowire.AppendFixed64(protowire.AppendTag(b, num, protowire.Fixed64Type), v)
}

func (b wireBuilder) bytes(num protowire.Number, v []byte) wireBuilder {
	return protowire.AppendBytes(protowire.AppendTag(b, num, protowire.BytesType), v)
}

func (b wireBuilder) str(num protowire.Number, s string) wireBuilder { return b.bytes(num, []byte(s)) }

func (b wireBuilder) group(num protowire.Number, content wireBuilder) wireBuilder {
	b = append(protowire.AppendTag(b, num, protowire.StartGroupType), content...)
	return protowire.AppendTag(b, num, protowire.EndGroupType)
}

func packedVarints(vs ...uint64) []byte {
	var b []byte
	for _, v := range vs {
		b = protowire.AppendVarint(b, v)
	}
	return b
}

// TestWriteWireHandmade covers wire data that proto-go's marshal never
// produces, each case against the reflective path.
func TestWriteWireHandmade(t *testing.T) {
	t.Parallel()
	files := wireTestFiles(t)
	p3 := wireMessage(t, files, "trevni.test.p3.Everything")
	p2 := wireMessage(t, files, "trevni.test.p2.Scalars")
	ed := wireMessage(t, files, "trevni.test.ed.Item")
	var w wireBuilder
	inner := func(name string, vals ...uint64) []byte {
		return w.str(1, name).bytes(2, packedVarints(vals...))
	}
	deep := w.fixed64(1, 7).varint(2, 1)
	cases := []struct {
		name string
		md   protoreflect.MessageDescriptor
		b    []byte
		ok   bool
	}{
		{"empty", p3, nil, true},
		{"out of order", p3, w.str(14, "s").varint(1, 5).varint(3, 7), true},
		{"last scalar wins", p3, w.varint(1, 5).varint(1, 0).varint(2, 9).varint(2, 3), true},
		{"last string wins", p3, w.str(14, "first").str(14, "second"), true},
		{"unpacked where packed", p3, w.varint(25, 1).varint(25, 2).fixed32(30, 9), true},
		{"packed and unpacked interleaved", p3, w.varint(25, 1).bytes(25, packedVarints(2, 3)).varint(1, 4).varint(25, 5), true},
		{"empty packed run", p3, w.bytes(25, nil).bytes(29, nil), true},
		{"packed fixed", p3, w.bytes(30, []byte{1, 0, 0, 0, 2, 0, 0, 0}).bytes(29, []byte{0, 0, 0x80, 0x7f}), true},
		{"packed fixed truncated", p3, w.bytes(30, []byte{1, 0, 0, 0, 2, 0}), false},
		{"packed varint truncated", p3, w.bytes(25, []byte{0x80}), false},
		{"packed varint overflow", p3, w.bytes(25, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}), false},
		{"packed varint of ten bytes", p3, w.bytes(25, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}), true},
		{"signalling NaN", p3, w.fixed32(11, 0x7f800001).bytes(29, []byte{1, 0, 0x80, 0x7f}), true},
		{"messages merge", p3, w.bytes(52, inner("a", 1)).bytes(52, w.bytes(2, packedVarints(2)).bytes(3, deep)).bytes(52, w.bytes(3, w.varint(2, 2))), true},
		{"oneof last wins", p3, w.str(31, "x").varint(32, 5), true},
		{"oneof message then scalar then message", p3, w.bytes(33, inner("a")).varint(32, 5).bytes(33, inner("", 3)), true},
		{"oneof message merges", p3, w.bytes(33, inner("a")).bytes(33, inner("", 3)), true},
		{"oneof dropped message still parsed", p3, w.bytes(33, w.str(1, "\xff")).varint(32, 5), false},
		{"oneof zero", p3, w.varint(32, 0), true},
		{"dropped oneof tree", p3, w.bytes(53, w.bytes(5, w.bytes(2, w.str(1, "ok")).bytes(4, w.str(1, "k").bytes(2, w.bytes(2, nil))).bytes(3, w.str(1, "p")).bytes(5, nil)).bytes(6, nil)), true},
		{"dropped oneof tree bad list element", p3, w.bytes(53, w.bytes(5, w.bytes(2, w.str(1, "ok")).bytes(2, w.str(1, "\xff"))).bytes(6, nil)), false},
		{"dropped oneof tree bad map value", p3, w.bytes(53, w.bytes(5, w.bytes(4, w.str(1, "k").bytes(2, w.str(1, "\xff")))).bytes(6, nil)), false},
		{"dropped oneof tree bad map key", p3, w.bytes(53, w.bytes(5, w.bytes(4, w.str(1, "\xff"))).bytes(6, nil)), false},
		{"dropped oneof tree bad parent", p3, w.bytes(53, w.bytes(5, w.bytes(3, w.bytes(3, w.str(1, "\xff")))).bytes(6, nil)), false},
		{"dropped oneof tree bad deep oneof", p3, w.bytes(53, w.bytes(5, w.bytes(5, w.bytes(5, []byte{0x08}))).bytes(6, nil)), false},
		{"implicit zero", p3, w.varint(1, 0).str(14, "").fixed64(12, 0), true},
		{"negative zero", p3, w.fixed64(12, 1<<63).fixed32(11, 1<<31), true},
		{"optional zero", p3, w.varint(17, 0).str(18, ""), true},
		{"map duplicate keys", p3, w.bytes(40, w.varint(1, 3).str(2, "a")).bytes(40, w.varint(1, 1).str(2, "b")).bytes(40, w.varint(1, 3).str(2, "c")), true},
		{"map key order is text order", p3, w.bytes(40, w.varint(1, 10).str(2, "ten")).bytes(40, w.varint(1, 9).str(2, "nine")).bytes(40, w.varint(1, 0xffffffffffffffff).str(2, "minus one")), true},
		{"map entry value first", p3, w.bytes(40, w.str(2, "v").varint(1, 1)), true},
		{"map entry without key", p3, w.bytes(51, w.bytes(2, inner("x"))), true},
		{"map entry without value", p3, w.bytes(51, w.str(1, "k")).bytes(41, w.varint(1, 4)), true},
		{"map entry empty", p3, w.bytes(50, nil).bytes(43, nil), true},
		{"map message values merge", p3, w.bytes(51, w.str(1, "k").bytes(2, inner("a")).bytes(2, inner("", 5))), true},
		{"map duplicate key drops a bad value", p3, w.bytes(51, w.str(1, "k").bytes(2, w.str(1, "\xff"))).bytes(51, w.str(1, "k")), false},
		{"map entry unknown fields", p3, w.bytes(40, w.varint(1, 2).varint(3, 5).str(2, "v").fixed32(4, 1)), true},
		{"map entry key wrong wire type", p3, w.bytes(40, w.fixed32(1, 2).str(2, "v")), true},
		{"map entry bad utf8 key", p3, w.bytes(51, w.str(1, "\xc3")), false},
		{"map wrong wire type", p3, w.varint(40, 1), true},
		{"bool map keys", p3, w.bytes(50, w.varint(1, 2).str(2, "true")).bytes(50, w.str(2, "false")), true},
		{"sint keys", p3, w.bytes(44, w.varint(1, 3).fixed64(2, 1)).bytes(45, w.varint(1, 1).fixed32(2, 1)), true},
		{"wrong wire type is unknown", p3, w.fixed64(1, 5).varint(14, 3).varint(52, 1), true},
		{"unknown fields in order", p3, w.varint(1000, 1).varint(1, 1).fixed32(1001, 2).varint(1000, 3).group(1002, w.varint(1, 1)), true},
		{"padded tag", p3, []byte{0x88, 0x80, 0x80, 0x00, 0x01, 0xc0, 0x3e, 0x01}, true},
		{"invalid utf8", p3, w.str(14, "\xff"), false},
		{"invalid utf8 overwritten", p3, w.str(14, "\xff").str(14, "ok"), false},
		{"invalid utf8 in list", p3, w.bytes(28, w.str(1, "ok")).bytes(28, w.str(1, "\xff")), false},
		{"truncated varint", p3, []byte{0x08, 0x80}, false},
		{"truncated tag", p3, []byte{0x80}, false},
		{"field number zero", p3, []byte{0x00, 0x01}, false},
		{"field number too large", p3, []byte{0xf8, 0xff, 0xff, 0xff, 0xff, 0x01, 0x01}, false},
		{"hostile length", p3, []byte{0x72, 0xff, 0xff, 0xff, 0xff, 0x0f, 'a'}, false},
		{"end group alone", p3, []byte{0x0c}, false},
		{"reserved wire type", p3, []byte{0x0e}, false},
		{"unterminated group", p3, w.group(1000, nil)[:3], false},
		{"bad nested message", p3, w.bytes(52, []byte{0x08}), false},
		{"bad unknown group", p3, protowire.AppendTag(protowire.AppendTag(nil, 1000, protowire.StartGroupType), 1001, protowire.EndGroupType), false},
		{"proto2 required missing", p2, w.varint(2, 1), false},
		{"proto2 required present", p2, w.varint(1, 1), true},
		{"proto2 required in nested message", p2, w.varint(1, 1).bytes(27, w.varint(2, 1)), false},
		{"proto2 required in replaced oneof member", p2, w.varint(1, 1).bytes(25, w.varint(2, 1)).varint(23, 1), true},
		{"proto2 required in map value", p2, w.varint(1, 1).bytes(26, w.str(1, "k").bytes(2, w.varint(1, 2))), true},
		{"proto2 required missing in map value", p2, w.varint(1, 1).bytes(26, w.str(1, "k")), false},
		{"proto2 invalid utf8 refused by Trevni", p2, w.varint(1, 1).str(14, "\xff").str(19, "\xfe"), false},
		{"proto2 closed enum undeclared", p2, w.varint(1, 1).varint(16, 77).varint(20, 5).bytes(28, w.varint(1, 1).varint(2, 9)), true},
		{"proto2 groups", p2, w.varint(1, 1).group(21, w.varint(1, 5).str(2, "a")).group(21, w.str(2, "b")).group(22, w.bytes(1, []byte{1})).group(22, nil), true},
		{"proto2 group mismatched end", p2, append(protowire.AppendTag(w.varint(1, 1), 21, protowire.StartGroupType), protowire.AppendTag(nil, 22, protowire.EndGroupType)...), false},
		{"proto2 group as bytes is unknown", p2, w.varint(1, 1).bytes(21, w.varint(1, 5)), true},
		{"proto2 extension stays unknown", p2, w.varint(1, 1).varint(100, 5).str(101, "x"), true},
		{"proto2 merged recursion", p2, w.varint(1, 1).bytes(27, w.varint(1, 2).bytes(27, w.varint(1, 3))).bytes(27, w.bytes(27, w.varint(2, 4))), true},
		{"editions delimited", ed, w.varint(4, 1).group(7, w.fixed32(1, 1)).group(16, w.varint(3, 9)), true},
		{"editions delimited as bytes is unknown", ed, w.varint(4, 1).bytes(7, w.fixed32(1, 1)), true},
		{"editions expanded packed", ed, w.varint(4, 1).bytes(8, packedVarints(1, 2)).varint(9, 3), true},
		{"editions closed enum undeclared", ed, w.varint(4, 1).varint(6, 99).group(7, w.varint(3, 42)), true},
		{"editions required missing", ed, w.varint(1, 1), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, limit := range []int{0, 1} {
				opts := &shred.ProtoOptions{Resolver: noExtensions, Mapping: &protoschema.Options{RecursionLimit: limit}}
				if n := wireCompare(t, tc.md, opts, [][]byte{tc.b}); (n == 1) != tc.ok {
					t.Errorf("recursion limit %d: written %v, want %v", limit, n == 1, tc.ok)
				}
			}
		})
	}
}

// TestWriteWireMapKeyWrongType covers a map entry whose key is followed
// by a key of the wrong wire type: proto.Unmarshal into dynamicpb panics on
// it, generated code keeps the first key, and so does WriteWire.
func TestWriteWireMapKeyWrongType(t *testing.T) {
	var w wireBuilder
	entry := w.str(1, "a").fixed32(1, 7).bytes(2, w.varint(4, 1))
	b := w.bytes(1, entry).bytes(1, w.str(1, "b").bytes(2, w.str(3, "x")))
	gen := new(structpb.Struct)
	if err := proto.Unmarshal(b, gen); err != nil {
		t.Fatal(err)
	}
	md := gen.ProtoReflect().Descriptor()
	for _, limit := range []int{0, 1} {
		opts := &shred.ProtoOptions{Mapping: &protoschema.Options{RecursionLimit: limit}}
		var fast, slow bytes.Buffer
		fw, err := shred.NewProtoWriter(&fast, md, opts)
		if err != nil {
			t.Fatal(err)
		}
		sw, err := shred.NewProtoWriter(&slow, md, opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := fw.WriteWire(b); err != nil {
			t.Fatal(err)
		}
		if err := sw.Write(gen); err != nil {
			t.Fatal(err)
		}
		// Inside a message stored serialized (with recursion limit 0),
		// proto.Unmarshal parses it: an error, not a panic.
		nested := w.bytes(1, w.str(1, "k").bytes(2, w.bytes(5, b)))
		if err := fw.WriteWire(nested); err == nil {
			m := new(structpb.Struct)
			if err := proto.Unmarshal(nested, m); err != nil {
				t.Fatal(err)
			}
			if err := sw.Write(m); err != nil {
				t.Fatal(err)
			}
		} else if limit > 0 {
			t.Errorf("recursion limit %d: %v", limit, err)
		}
		fw.Close()
		sw.Close()
		if !bytes.Equal(fast.Bytes(), slow.Bytes()) {
			t.Errorf("recursion limit %d: the files differ", limit)
		}
	}
}

// TestWriteWireErrors checks that bad messages name the message and field,
// and that writing goes on after them.
func TestWriteWireErrors(t *testing.T) {
	md := (&tracepb.TracesData{}).ProtoReflect().Descriptor()
	good, err := proto.Marshal(benchTraces(3))
	if err != nil {
		t.Fatal(err)
	}
	var w wireBuilder
	span := w.str(5, "\xff") // Span.name
	bad := w.bytes(1, w.bytes(2, w.bytes(2, w.str(5, "ok")).bytes(2, span)))
	var buf bytes.Buffer
	pw, err := shred.NewProtoWriter(&buf, md, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := pw.WriteWire(good); err != nil {
		t.Fatal(err)
	}
	err = pw.WriteWire(bad)
	var ve *schema.Error
	if !errors.As(err, &ve) || !errors.Is(err, shred.ErrWire) {
		t.Fatalf("got %v, want a *schema.Error wrapping ErrWire", err)
	}
	if ve.Record != 1 || ve.Path != "resource_spans[0].scope_spans[0].spans[1].name" ||
		!strings.Contains(ve.Error(), "opentelemetry.proto.trace.v1.Span.name") {
		t.Errorf("error %q: record %d, path %q", ve, ve.Record, ve.Path)
	}
	for i := range len(good) { // every truncation fails cleanly
		if err := pw.WriteWire(good[:i]); err == nil {
			m := new(tracepb.TracesData)
			if proto.Unmarshal(good[:i], m) != nil {
				t.Fatalf("truncated at %d: written", i)
			}
		}
	}
	if err := pw.WriteWire(good); err != nil {
		t.Fatal(err)
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestWriteWireCorruption feeds many damaged messages to both paths.
func TestWriteWireCorruption(t *testing.T) {
	files := wireTestFiles(t)
	r := rand.New(rand.NewPCG(7, 7))
	for _, md := range []protoreflect.MessageDescriptor{
		(&tracepb.TracesData{}).ProtoReflect().Descriptor(),
		wireMessage(t, files, "trevni.test.p3.Everything"),
		wireMessage(t, files, "trevni.test.p2.Scalars"),
		wireMessage(t, files, "trevni.test.ed.Item"),
	} {
		var msgs [][]byte
		for _, m := range randomMessages(md, 30, 4, 3, nil) {
			b, err := wireDeterministic.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			for range 20 {
				c := b
				for range 1 + r.IntN(3) {
					c = corrupt(r, c)
				}
				msgs = append(msgs, c)
			}
		}
		wireCompare(t, md, &shred.ProtoOptions{Resolver: noExtensions}, msgs)
	}
}

// FuzzWriteWire checks WriteWire against the reflective path on any input.
func FuzzWriteWire(f *testing.F) {
	files := wireTestFiles(f)
	md := wireMessage(f, files, "trevni.test.p3.Everything")
	for _, m := range randomMessages(md, 8, 3, 2, nil) {
		b, _ := wireDeterministic.Marshal(m)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		wireCompare(t, md, &shred.ProtoOptions{Resolver: noExtensions}, [][]byte{b})
	})
}

func TestFromProtoStreamWire(t *testing.T) {
	md := (&tracepb.TracesData{}).ProtoReflect().Descriptor()
	msgs := randomMessages(md, 30, 6, 3, nil)
	var in bytes.Buffer
	var want bytes.Buffer
	pw, err := shred.NewProtoWriter(&want, md, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if _, err := protodelim.MarshalTo(&in, m); err != nil {
			t.Fatal(err)
		}
		if err := pw.Write(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	n, err := shred.FromProtoStream(context.Background(), &out, bytes.NewReader(in.Bytes()), protoschema.Delimited, md, nil)
	if err != nil || n != int64(len(msgs)) {
		t.Fatalf("FromProtoStream: %d messages, %v", n, err)
	}
	if !bytes.Equal(out.Bytes(), want.Bytes()) {
		t.Fatal("FromProtoStream's file differs from Write's")
	}
	var one bytes.Buffer
	if _, err := protodelim.MarshalTo(&one, benchTraces(2)); err != nil {
		t.Fatal(err)
	}
	first := one.Bytes()
	for _, tc := range []struct {
		in   []byte
		want string
	}{
		{first[:len(first)-1], "truncated message"},
		{append(append([]byte(nil), in.Bytes()...), 0x80), "truncated message"},
		{[]byte{0xff, 0xff, 0xff, 0xff, 0x7f}, "exceeded unmarshaler's maximum"},
		{[]byte{0x02, 0x08, 0x80}, "message 0 (input byte 0)"},
	} {
		_, err := shred.FromProtoStream(context.Background(), io.Discard, bytes.NewReader(tc.in), protoschema.Delimited, md, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("input %x...: error %v, want %q", tc.in[:min(8, len(tc.in))], err, tc.want)
		}
	}
	// A length that the input does not back costs no more than the input.
	huge := append(protowire.AppendVarint(nil, 200<<20), make([]byte, 100)...)
	if _, err := shred.FromProtoStream(context.Background(), io.Discard, bufio.NewReader(bytes.NewReader(huge)), protoschema.Delimited, md, nil); err == nil {
		t.Error("no error for a truncated huge message")
	}
}

func TestWriteWireAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	md := (&tracepb.TracesData{}).ProtoReflect().Descriptor()
	b, err := proto.Marshal(benchTraces(20))
	if err != nil {
		t.Fatal(err)
	}
	pw, err := shred.NewProtoWriter(io.Discard, md, &shred.ProtoOptions{File: shred.Options{WriterOptions: format.WriterOptions{Concurrency: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	defer pw.Abort()
	for range 200 { // past the first blocks
		if err := pw.WriteWire(b); err != nil {
			t.Fatal(err)
		}
	}
	allocs := testing.AllocsPerRun(200, func() {
		if err := pw.WriteWire(b); err != nil {
			t.Fatal(err)
		}
	})
	if allocs >= 1 {
		t.Errorf("%v allocations per message", allocs)
	}
}

// benchTraces returns a batch of spans as an SDK makes them: resource and
// span attributes, events, links and a status.
func benchTraces(spans int) *tracepb.TracesData {
	str := func(s string) *commonpb.AnyValue {
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: s}}
	}
	num := func(v int64) *commonpb.AnyValue {
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v}}
	}
	id := func(n, seed int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(seed*31 + i*7)
		}
		return b
	}
	routes := []string{"/api/v1/items", "/api/v1/orders/{id}", "/healthz", "/api/v2/search"}
	scope := &tracepb.ScopeSpans{
		Scope:     &commonpb.InstrumentationScope{Name: "go.opentelemetry.io/contrib/net/http", Version: "0.46.1"},
		SchemaUrl: "https://opentelemetry.io/schemas/1.24.0",
	}
	for i := range spans {
		route := routes[i%len(routes)]
		start := uint64(1_700_000_000_000_000_000 + i*1_250_000)
		sp := &tracepb.Span{
			TraceId:           id(16, i/10),
			SpanId:            id(8, i),
			ParentSpanId:      id(8, i-1),
			Name:              "HTTP GET " + route,
			Kind:              tracepb.Span_SPAN_KIND_SERVER,
			StartTimeUnixNano: start,
			EndTimeUnixNano:   start + uint64(150_000+i%7*10_000),
			Attributes: []*commonpb.KeyValue{
				{Key: "http.request.method", Value: str("GET")},
				{Key: "http.route", Value: str(route)},
				{Key: "http.response.status_code", Value: num(int64(200 + i%3*100))},
				{Key: "url.full", Value: str(fmt.Sprintf("https://shop.example.com%s?page=%d", route, i%13))},
				{Key: "server.address", Value: str("shop.example.com")},
				{Key: "network.peer.address", Value: str(fmt.Sprintf("10.0.%d.%d", i%4, i%250))},
				{Key: "user_agent.original", Value: str("Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36")},
			},
			Status: &tracepb.Status{Code: tracepb.Status_STATUS_CODE_OK},
			Flags:  0x301,
		}
		if i%3 == 0 {
			sp.Events = append(sp.Events, &tracepb.Span_Event{
				TimeUnixNano: start + 50_000,
				Name:         "cache.miss",
				Attributes:   []*commonpb.KeyValue{{Key: "cache.key", Value: str(fmt.Sprintf("item:%d", i))}},
			})
		}
		if i%5 == 0 {
			sp.Links = append(sp.Links, &tracepb.Span_Link{TraceId: id(16, i+1000), SpanId: id(8, i+1000)})
			sp.Status = &tracepb.Status{Code: tracepb.Status_STATUS_CODE_ERROR, Message: "upstream timeout"}
		}
		scope.Spans = append(scope.Spans, sp)
	}
	return &tracepb.TracesData{ResourceSpans: []*tracepb.ResourceSpans{{
		Resource: &resourcepb.Resource{Attributes: []*commonpb.KeyValue{
			{Key: "service.name", Value: str("checkout")},
			{Key: "service.version", Value: str("2.3.1")},
			{Key: "host.name", Value: str("node-17.eu-west-1")},
			{Key: "process.pid", Value: num(4242)},
		}},
		ScopeSpans: []*tracepb.ScopeSpans{scope},
		SchemaUrl:  "https://opentelemetry.io/schemas/1.24.0",
	}}}
}

// BenchmarkProtoShred writes batches of 100 OTLP spans, one TracesData per
// row, from their wire encoding.
func BenchmarkProtoShred(b *testing.B) {
	md := (&tracepb.TracesData{}).ProtoReflect().Descriptor()
	msg, err := proto.Marshal(benchTraces(100))
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, write func(pw *shred.ProtoWriter) error) {
		pw, err := shred.NewProtoWriter(io.Discard, md, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer pw.Abort()
		b.SetBytes(int64(len(msg)))
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			if err := write(pw); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
		b.ReportMetric(float64(b.N*100)/b.Elapsed().Seconds(), "spans/s")
	}
	b.Run("fast", func(b *testing.B) {
		run(b, func(pw *shred.ProtoWriter) error { return pw.WriteWire(msg) })
	})
	b.Run("reflective", func(b *testing.B) {
		m := dynamicpb.NewMessage(md)
		run(b, func(pw *shred.ProtoWriter) error {
			if err := proto.Unmarshal(msg, m); err != nil {
				return err
			}
			return pw.Write(m)
		})
	})
}
