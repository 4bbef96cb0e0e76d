package assemble_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/schema/protoload"
	"github.com/trevni-go/trevni/schema/protoload/protosrc"
	"github.com/trevni-go/trevni/schema/protoschema"
	"github.com/trevni-go/trevni/shred"
	"github.com/trevni-go/trevni/typemap/protovalue"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// scalarsDescriptor returns the descriptor of the proto2 test message
// trevni.test.p2.Scalars, compiled from testdata/proto.
func scalarsDescriptor(t *testing.T) protoreflect.MessageDescriptor {
	t.Helper()
	files, err := protosrc.CompileProto(context.Background(), []string{"../testdata/proto"}, "trevni/test/proto2.proto")
	if err != nil {
		t.Fatal(err)
	}
	md, err := protoload.FindMessage(files, "trevni.test.p2.Scalars")
	if err != nil {
		t.Fatal(err)
	}
	return md
}

// scalarsFile writes five proto2 Scalars messages, the one at bad without
// its required field (which protojson refuses to marshal). The protobuf
// writers refuse such a message, as they should, so the file is made as a
// file of another writer could hold it: the five messages are written
// whole, read back as Avro records, the bad one's field made null, and
// the records written again under the same schema and descriptor.
func scalarsFile(t *testing.T, bad int) *format.Reader {
	t.Helper()
	md := scalarsDescriptor(t)
	var whole bytes.Buffer
	pw, err := shred.NewProtoWriter(&whole, md, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		m := dynamicpb.NewMessage(md)
		m.Set(md.Fields().ByName("req_int32"), protoreflect.ValueOfInt32(int32(i)))
		if err := pw.Write(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	wrd, err := format.NewReader(bytes.NewReader(whole.Bytes()), int64(whole.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	ar, err := assemble.NewAvroReader(wrd, nil)
	if err != nil {
		t.Fatal(err)
	}
	var opts shred.Options
	meta := wrd.Meta()
	for i := range meta.Len() {
		if k := meta.Key(i); k != layout.MetaAvroSchema {
			opts.Meta.Set(k, meta.Value(i))
		}
	}
	var buf bytes.Buffer
	aw, err := shred.NewAvroWriter(&buf, meta.GetString(layout.MetaAvroSchema), &opts)
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	for rec, err := range ar.All() {
		if err != nil {
			t.Fatal(err)
		}
		if i == bad {
			rec.(map[string]any)["req_int32"] = nil
		}
		if err := aw.Write(rec); err != nil {
			t.Fatal(err)
		}
		i++
	}
	if err := aw.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := format.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	return rd
}

// TestToProtoStreamRecordNumbers checks that ToProtoStream's errors count
// records from the start of the file after SeekRow, as every other path
// does (it used to count from the seek position).
func TestToProtoStreamRecordNumbers(t *testing.T) {
	rd := scalarsFile(t, 3)
	pr, err := assemble.NewProtoReader(rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := pr.SeekRow(2); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	n, err := assemble.ToProtoStream(context.Background(), &out, pr, protoschema.JSONLines, nil)
	var se *schema.Error
	if !errors.As(err, &se) || se.Record != 3 {
		t.Fatalf("wrote %d, error %v; want a *schema.Error for record 3", n, err)
	}
	if n != 1 {
		t.Errorf("wrote %d messages before the bad one, want 1", n)
	}
}

// TestProtoReaderIterator checks All against Read, and its behaviour on
// errors and cancellation of ToProtoStream.
func TestProtoReaderIterator(t *testing.T) {
	rd := scalarsFile(t, -1)
	pr, err := assemble.NewProtoReader(rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	var all []proto.Message
	for m, err := range pr.All() {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, m)
	}
	if len(all) != 5 {
		t.Fatalf("All gave %d messages, want 5", len(all))
	}
	if err := pr.SeekRow(1); err != nil {
		t.Fatal(err)
	}
	for i := 1; ; i++ {
		m, err := pr.Read()
		if err == io.EOF {
			if i != 5 {
				t.Errorf("Read stopped at %d", i)
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if !proto.Equal(m, all[i]) {
			t.Errorf("message %d differs between Read and All", i)
		}
	}
	if pr.Schema() == nil || len(pr.Columns()) == 0 || len(pr.ColumnsRead()) == 0 {
		t.Error("no schema or columns")
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := pr.SeekRow(0); err != nil {
		t.Fatal(err)
	}
	if n, err := assemble.ToProtoStream(ctx, io.Discard, pr, protoschema.Delimited, nil); !errors.Is(err, context.Canceled) || n != 0 {
		t.Errorf("cancelled: %d messages, %v", n, err)
	}
	var rows int64
	n, err := assemble.ToProtoStream(context.Background(), io.Discard, pr, protoschema.Delimited, &assemble.ProtoStreamOptions{Progress: func(r int64) { rows = r }})
	if err != nil || n != 5 || rows != 5 {
		t.Errorf("%d messages, progress %d, %v", n, rows, err)
	}
}

// TestProtoReaderAllError checks that All yields a message's error once,
// as a *schema.Error with the record number, and stops.
func TestProtoReaderAllError(t *testing.T) {
	md := scalarsDescriptor(t)
	set, err := protoload.DescriptorSetFor(md)
	if err != nil {
		t.Fatal(err)
	}
	conv, err := protovalue.NewConverter(md, nil)
	if err != nil {
		t.Fatal(err)
	}
	var fo shred.Options
	fo.Meta.Set(protoload.MetaDescriptorSet, set)
	fo.Meta.SetString(protoload.MetaMessage, string(md.FullName()))
	fo.Meta.SetString(protoschema.MetaOptions, protoschema.Options{}.String())
	var buf bytes.Buffer
	aw, err := shred.NewAvroWriter(&buf, conv.Mapping().Schema.String(), &fo)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		m := dynamicpb.NewMessage(md)
		m.Set(md.Fields().ByName("req_int32"), protoreflect.ValueOfInt32(1))
		rec, err := conv.ToAvro(m)
		if err != nil {
			t.Fatal(err)
		}
		if i == 2 { // two members of one oneof: no message has that
			rec["choice_int"] = map[string]any{"int": int32(1)}
			rec["choice_string"] = map[string]any{"string": "x"}
		}
		if err := aw.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := aw.Close(); err != nil {
		t.Fatal(err)
	}
	rd, err := format.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := assemble.NewProtoReader(rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	var msgs, errs int
	for m, err := range pr.All() {
		if err != nil {
			errs++
			var se *schema.Error
			if !errors.As(err, &se) || se.Record != 2 || m != nil {
				t.Errorf("error %v, message %v; want a *schema.Error for record 2", err, m)
			}
			continue
		}
		msgs++
	}
	if msgs != 2 || errs != 1 {
		t.Errorf("%d messages and %d errors, want 2 and 1", msgs, errs)
	}
}
