package assemble

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/schema/protoload"
	"github.com/trevni-go/trevni/schema/protoschema"
	"google.golang.org/protobuf/encoding/protodelim"
	"google.golang.org/protobuf/proto"
)

// TestLegacyProtoFiles reads files written before protoschema built its
// Avro schema as a tree, when it wrote the JSON text itself: their
// avro.schema says the same schema in other words (full names where the
// text now writes names relative to the namespace, "protobuf.message"
// before the fields, enum symbols in declaration order). They must read
// back to the messages written (testdata/proto/legacy/*.pb), through the
// fast path as before.
func TestLegacyProtoFiles(t *testing.T) {
	trvs, err := filepath.Glob("../testdata/proto/legacy/*.trv")
	if err != nil || len(trvs) == 0 {
		t.Fatalf("no legacy files: %v", err)
	}
	for _, path := range trvs {
		base := strings.TrimSuffix(path, ".trv")
		t.Run(filepath.Base(base), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			oldText, err := os.ReadFile(base + ".avsc")
			if err != nil {
				t.Fatal(err)
			}
			rd, err := format.NewReader(bytes.NewReader(data), int64(len(data)), nil)
			if err != nil {
				t.Fatal(err)
			}
			meta := rd.Meta()
			if stored := meta.GetString(layout.MetaAvroSchema); stored != string(oldText) {
				t.Fatalf("the file's avro.schema is not the legacy text")
			}
			// The text differs from today's, the schema does not.
			md, err := protoload.MessageFromDescriptorSet(func() []byte { b, _ := meta.Get(protoload.MetaDescriptorSet); return b }(), meta.GetString(protoload.MetaMessage))
			if err != nil {
				t.Fatal(err)
			}
			mopts, err := protoschema.ParseStoredOptions(meta.GetString(protoschema.MetaOptions))
			if err != nil {
				t.Fatal(err)
			}
			mp, err := protoschema.New(md, mopts)
			if err != nil {
				t.Fatal(err)
			}
			parsed, err := schema.Parse(string(oldText))
			if err != nil {
				t.Fatal(err)
			}
			if parsed.String() != mp.Schema.String() {
				t.Errorf("the legacy schema differs from today's mapping:\n%s\n%s", oldText, mp.Schema.String())
			}
			if string(oldText) == mp.Schema.String() {
				t.Log("the legacy text is today's text")
			}

			pr, err := NewProtoReader(rd, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !pr.own {
				t.Error("a file of the message's own mapping does not take ReadWire's fast path")
			}
			want, err := os.ReadFile(base + ".pb")
			if err != nil {
				t.Fatal(err)
			}
			// ReadWire gives the deterministic encoding the messages
			// were stored with.
			var out bytes.Buffer
			n, err := ToProtoStream(context.Background(), &out, pr, protoschema.Delimited, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("ReadWire's %d messages differ from those written", n)
			}
			// Read gives equal messages.
			if err := pr.SeekRow(0); err != nil {
				t.Fatal(err)
			}
			in := bytes.NewReader(want)
			opts := protodelim.UnmarshalOptions{UnmarshalOptions: proto.UnmarshalOptions{AllowPartial: true}}
			var got int64
			for m, err := range pr.All() {
				if err != nil {
					t.Fatal(err)
				}
				w := pr.MessageType().New().Interface()
				if err := opts.UnmarshalFrom(in, w); err != nil {
					t.Fatalf("message %d: %v", got, err)
				}
				if !proto.Equal(m, w) {
					t.Fatalf("message %d differs", got)
				}
				got++
			}
			if _, err := in.ReadByte(); err != io.EOF || got != n || got == 0 {
				t.Errorf("read %d messages, ReadWire %d", got, n)
			}
		})
	}
}
