package shred_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema/protoschema"
	"github.com/trevni-go/trevni/shred"
	"google.golang.org/protobuf/encoding/protodelim"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/structpb"
)

// streamOf returns n Struct messages, each with a string long enough to
// fill a block, as a delimited stream and as JSON lines.
func streamOf(t *testing.T, n int) (delimited, jsonl []byte) {
	t.Helper()
	var d, j bytes.Buffer
	for i := range n {
		m, err := structpb.NewStruct(map[string]any{"k": strings.Repeat("x", 2000+i)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := protodelim.MarshalTo(&d, m); err != nil {
			t.Fatal(err)
		}
		b, err := protojson.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		j.Write(b)
		j.WriteByte('\n')
	}
	return d.Bytes(), j.Bytes()
}

// TestFromProtoStreamWriteError checks that a message the writer fails on
// is named, with where it starts in the input, in both input forms. (The
// JSON-lines form used to return the writer's error bare.)
func TestFromProtoStreamWriteError(t *testing.T) {
	md := (&structpb.Struct{}).ProtoReflect().Descriptor()
	delimited, jsonl := streamOf(t, 50)
	for _, tc := range []struct {
		name string
		form protoschema.Framing
		in   []byte
	}{{"delimited", protoschema.Delimited, delimited}, {"json lines", protoschema.JSONLines, jsonl}} {
		// Small blocks and a tiny memory budget spill early, to a
		// directory that does not exist.
		opts := &shred.ProtoOptions{File: shred.Options{WriterOptions: format.WriterOptions{BlockSize: 1024, MemoryBudget: 1, TempDir: filepath.Join(t.TempDir(), "missing"), Concurrency: 1}}}
		n, err := shred.FromProtoStream(context.Background(), io.Discard, bytes.NewReader(tc.in), tc.form, md, opts)
		if err == nil {
			t.Fatalf("%s: no error writing %d messages with nowhere to spill", tc.name, n)
		}
		if !strings.Contains(err.Error(), "message ") || !strings.Contains(err.Error(), "(input byte ") {
			t.Errorf("%s: error %q does not name the message", tc.name, err)
		}
		if n >= 50 {
			t.Errorf("%s: %d messages written", tc.name, n)
		}
	}
}

// TestFromProtoStreamCancel checks that a cancelled context stops the
// conversion with ctx.Err().
func TestFromProtoStreamCancel(t *testing.T) {
	md := (&structpb.Struct{}).ProtoReflect().Descriptor()
	delimited, jsonl := streamOf(t, 10)
	for _, tc := range []struct {
		form protoschema.Framing
		in   []byte
	}{{protoschema.Delimited, delimited}, {protoschema.JSONLines, jsonl}} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var out bytes.Buffer
		n, err := shred.FromProtoStream(ctx, &out, bytes.NewReader(tc.in), tc.form, md, nil)
		if !errors.Is(err, context.Canceled) || n != 0 || out.Len() != 0 {
			t.Errorf("form %d: %d messages, %d bytes out, %v", tc.form, n, out.Len(), err)
		}
	}
	// Progress is reported through the options.
	var rows, bytesIn int64
	opts := &shred.ProtoOptions{File: shred.Options{Progress: func(r, b int64) { rows, bytesIn = r, b }}}
	if _, err := shred.FromProtoStream(context.Background(), io.Discard, bytes.NewReader(delimited), protoschema.Delimited, md, opts); err != nil {
		t.Fatal(err)
	}
	if rows != 10 || bytesIn != int64(len(delimited)) {
		t.Errorf("progress %d rows, %d bytes; want 10, %d", rows, bytesIn, len(delimited))
	}
}
