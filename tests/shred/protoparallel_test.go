package shred_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/testing/protorand"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/protoschema"
	"github.com/trevni-go/trevni/shred"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protodelim"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

// traceStream returns n random TracesData messages as a delimited stream,
// the message at bad (if any) replaced by bytes that do not parse, and
// the input byte each message's framing starts at.
func traceStream(t testing.TB, n, bad int) (protoreflect.MessageDescriptor, []byte, []int) {
	t.Helper()
	md := (&tracepb.TracesData{}).ProtoReflect().Descriptor()
	var buf bytes.Buffer
	var starts []int
	for i := range n {
		starts = append(starts, buf.Len())
		if i == bad {
			// Field 1 with wire type 7, which does not exist.
			buf.Write(protowire.AppendVarint(nil, 2))
			buf.Write([]byte{0x0f, 0x00})
			continue
		}
		f := protorand.New(uint64(i))
		f.MaxDepth, f.MaxLen = 5, 3
		m := dynamicpb.NewMessage(md)
		f.Fill(m)
		if _, err := (protodelim.MarshalOptions{MarshalOptions: proto.MarshalOptions{Deterministic: true}}).MarshalTo(&buf, m); err != nil {
			t.Fatal(err)
		}
	}
	return md, buf.Bytes(), starts
}

// Random messages written with 1 and with 2, 3 and 7 workers, in tiny
// blocks and a tiny budget so that ranges and segments are many, read
// back the same.
func TestProtoParallelProperty(t *testing.T) {
	t.Parallel()
	md, in, _ := traceStream(t, 600, -1)
	write := func(workers int) []byte {
		var out bytes.Buffer
		o := &shred.ProtoOptions{Resolver: new(protoregistry.Types), File: shred.Options{WriterOptions: smallBlocks, Workers: workers}}
		n, err := shred.FromProtoStream(context.Background(), &out, bytes.NewReader(in), protoschema.Delimited, md, o)
		if err != nil || n != 600 {
			t.Fatalf("%d workers: %d messages, %v", workers, n, err)
		}
		return out.Bytes()
	}
	want := toJSON(t, write(1))
	if strings.Count(want, "\n") != 600 {
		t.Fatalf("one worker: %d records read back", strings.Count(want, "\n"))
	}
	for _, workers := range []int{2, 3, 7} {
		if got := toJSON(t, write(workers)); got != want {
			t.Fatalf("%d workers: the records differ from one worker's", workers)
		}
	}
}

// A bad message, or a stream cut inside a message or a length, in any
// range gives the error one worker gives, with the message written count.
func TestProtoParallelBadMessage(t *testing.T) {
	ctx := context.Background()
	run := func(md protoreflect.MessageDescriptor, in []byte, workers int) (int64, error) {
		o := &shred.ProtoOptions{Resolver: new(protoregistry.Types), File: shred.Options{WriterOptions: smallBlocks, Workers: workers}}
		return shred.FromProtoStream(ctx, io.Discard, bytes.NewReader(in), protoschema.Delimited, md, o)
	}
	type input struct {
		name string
		in   []byte
		at   int // the message the error names
	}
	var inputs []input
	md, _, _ := traceStream(t, 0, -1)
	for _, bad := range []int{0, 211, 399} {
		_, in, _ := traceStream(t, 400, bad)
		inputs = append(inputs, input{fmt.Sprintf("bad message %d", bad), in, bad})
	}
	_, in, starts := traceStream(t, 400, -1)
	inputs = append(inputs,
		input{"cut in message 300", in[:starts[300]+3], 300},
		input{"cut in the length of message 250", append(clone(in[:starts[250]]), 0x80), 250},
		input{"message 100 too long", append(clone(in[:starts[100]]), protowire.AppendVarint(nil, maxMessageSize+1)...), 100},
		input{"length of message 50 overflows", append(clone(in[:starts[50]]), bytes.Repeat([]byte{0xff}, 11)...), 50},
	)
	for _, tc := range inputs {
		n1, want := run(md, tc.in, 1)
		if want == nil || !strings.HasPrefix(want.Error(), fmt.Sprintf("message %d ", tc.at)) || n1 != int64(tc.at) {
			t.Fatalf("%s: one worker: %d messages, error %v", tc.name, n1, want)
		}
		for _, workers := range []int{2, 3, 7} {
			n, err := run(md, tc.in, workers)
			if err == nil || err.Error() != want.Error() || n != n1 {
				t.Fatalf("%s, %d workers: %d messages, error\n%v\nwant %d,\n%v", tc.name, workers, n, err, n1, want)
			}
			var se *schema.Error
			if errors.As(want, &se) != errors.As(err, &se) {
				t.Fatalf("%s, %d workers: %v and %v differ in type", tc.name, workers, err, want)
			}
		}
	}
}

func clone(b []byte) []byte { return append([]byte(nil), b...) }

// Cancelling stops the workers, writes nothing and leaves no temporary
// file behind.
func TestProtoParallelCancel(t *testing.T) {
	md, delimited, _ := traceStream(t, 600, -1)
	jsonl, _, _ := traceJSON(t, 300, -1, -1)
	dir := t.TempDir()
	for _, tc := range []struct {
		form  protoschema.Framing
		in    []byte
		after int
	}{{protoschema.Delimited, delimited, 1}, {protoschema.Delimited, delimited, 3}, {protoschema.Delimited, delimited, 20}, {protoschema.JSONLines, jsonl, 1}, {protoschema.JSONLines, jsonl, 10}} {
		in, after := tc.in, tc.after
		ctx, cancel := context.WithCancel(context.Background())
		calls := 0
		o := &shred.ProtoOptions{Resolver: new(protoregistry.Types), File: shred.Options{WriterOptions: smallBlocks, Workers: 3, Progress: func(int64, int64) {
			if calls++; calls == after {
				cancel()
			}
		}}}
		o.File.TempDir = dir
		o.File.MemoryBudget = 16 << 10 // the joined file spills
		var out bytes.Buffer
		_, err := shred.FromProtoStream(ctx, &out, bytes.NewReader(in), tc.form, md, o)
		cancel()
		if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "shred: stopped at message ") {
			t.Fatalf("cancelled after %d segments: %v", after, err)
		}
		if out.Len() != 0 {
			t.Fatalf("cancelled after %d segments: %d bytes written", after, out.Len())
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Fatalf("cancelled after %d segments: %d files left in the temporary directory", after, len(left))
		}
	}
}

// traceJSON returns n random TracesData messages as protojson lines, with
// blank lines between some, the line at bad (if any) replaced by one that
// does not parse and the line at long by one of blanks longer than every
// other line, which it returns as the limit of a line; and the input
// byte each message's line starts at.
func traceJSON(t testing.TB, n, bad, long int) ([]byte, int64, []int) {
	t.Helper()
	md := (&tracepb.TracesData{}).ProtoReflect().Descriptor()
	var lines [][]byte
	longest := 0
	for i := range n {
		f := protorand.New(uint64(i))
		f.MaxDepth, f.MaxLen = 5, 3
		m := dynamicpb.NewMessage(md)
		f.Fill(m)
		b, err := protojson.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if i == bad {
			b = []byte(`{"resourceSpans": 5}`)
		}
		lines = append(lines, b)
		longest = max(longest, len(b)+1)
	}
	var buf bytes.Buffer
	var starts []int
	for i, b := range lines {
		if i%7 == 3 {
			buf.WriteString(" \n")
		}
		starts = append(starts, buf.Len())
		if i == long {
			b = append(bytes.Repeat([]byte{' '}, longest), "{}"...)
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return buf.Bytes(), int64(longest), starts
}

// Protojson lines too: the same records on 1, 2, 3 and 7 workers, and
// the same errors.
func TestProtoParallelJSON(t *testing.T) {
	t.Parallel()
	md := (&tracepb.TracesData{}).ProtoReflect().Descriptor()
	run := func(in []byte, limit int64, workers int) ([]byte, int64, error) {
		var out bytes.Buffer
		o := &shred.ProtoOptions{Resolver: new(protoregistry.Types), MaxJSONMessageSize: limit, File: shred.Options{WriterOptions: smallBlocks, Workers: workers}}
		n, err := shred.FromProtoStream(context.Background(), &out, bytes.NewReader(in), protoschema.JSONLines, md, o)
		return out.Bytes(), n, err
	}
	in, _, _ := traceJSON(t, 300, -1, -1)
	one, n1, err := run(in, 0, 1)
	if err != nil || n1 != 300 {
		t.Fatalf("one worker: %d messages, %v", n1, err)
	}
	want := toJSON(t, one)
	for _, workers := range []int{2, 3, 7} {
		out, n, err := run(in, 0, workers)
		if err != nil || n != 300 || toJSON(t, out) != want {
			t.Fatalf("%d workers: %d messages, %v, or the records differ", workers, n, err)
		}
	}
	for _, at := range []int{0, 150, 299} {
		for _, kind := range []string{"bad", "long"} {
			var in []byte
			var limit int64
			var starts []int
			if kind == "bad" {
				in, _, starts = traceJSON(t, 300, at, -1)
			} else {
				in, limit, starts = traceJSON(t, 300, -1, at)
			}
			_, n1, want := run(in, limit, 1)
			if want == nil || n1 != int64(at) || !strings.HasPrefix(want.Error(), fmt.Sprintf("message %d (input byte %d): ", at, starts[at])) {
				t.Fatalf("%s line %d: one worker: %d messages, %v", kind, at, n1, want)
			}
			for _, workers := range []int{2, 7} {
				_, n, err := run(in, limit, workers)
				if err == nil || err.Error() != want.Error() || n != n1 {
					t.Fatalf("%s line %d, %d workers: %d messages, %v; want %d, %v", kind, at, workers, n, err, n1, want)
				}
			}
		}
	}
}

// toJSON returns a Trevni file's records as Avro JSON lines, as tojson
// writes them.
func toJSON(t testing.TB, file []byte) string {
	t.Helper()
	rd, err := format.NewReader(bytes.NewReader(file), int64(len(file)), nil)
	if err != nil {
		t.Fatal(err)
	}
	ar, err := assemble.NewAvroReader(rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := assemble.ToJSON(context.Background(), &out, ar, nil); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// smallBlocks is a Trevni file of tiny blocks and a tiny memory budget:
// segments of a few blocks, many of them, and the joined file spilling.
var smallBlocks = format.WriterOptions{Codec: "snappy", Checksum: "crc32", BlockSize: 256, MemoryBudget: 64 << 10}

// maxMessageSize is shred's bound on one delimited message (its own
// constant, unexported): a longer length prefix is an error.
const maxMessageSize = 256 << 20
