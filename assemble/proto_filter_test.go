package assemble_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/shred"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// TestProtoFilter: ProtoOptions.Filter reads only the messages that
// satisfy it, by ReadWire's fast path and by Read alike, and Row tells
// the row of each message read, as AvroReader.Row does.
func TestProtoFilter(t *testing.T) {
	md := scalarsDescriptor(t)
	const n = 5000
	var buf bytes.Buffer
	pw, err := shred.NewProtoWriter(&buf, md, nil)
	if err != nil {
		t.Fatal(err)
	}
	field := md.Fields().ByName("req_int32")
	var want [][]byte // wire bytes of the messages that match, by row
	var rows []int64
	for i := range n {
		m := dynamicpb.NewMessage(md)
		v := int32((i * 7919) % 1000) // scattered over the rows
		m.Set(field, protoreflect.ValueOfInt32(v))
		if err := pw.Write(m); err != nil {
			t.Fatal(err)
		}
		if v >= 990 {
			b, err := proto.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, b)
			rows = append(rows, int64(i))
		}
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 || len(want) == n {
		t.Fatalf("%d of %d match", len(want), n)
	}
	open := func() *assemble.ProtoReader {
		rd, err := format.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()), nil)
		if err != nil {
			t.Fatal(err)
		}
		pr, err := assemble.NewProtoReader(rd, &assemble.ProtoOptions{Filter: "req_int32 >= 990"})
		if err != nil {
			t.Fatal(err)
		}
		return pr
	}
	for _, how := range []string{"ReadWire", "Read"} {
		pr := open()
		for k := 0; ; k++ {
			var got []byte
			if how == "ReadWire" {
				got, err = pr.ReadWire(nil)
			} else {
				var m proto.Message
				if m, err = pr.Read(); err == nil {
					got, err = proto.Marshal(m)
				}
			}
			if err == io.EOF {
				if k != len(want) {
					t.Fatalf("%s: %d messages, want %d", how, k, len(want))
				}
				break
			}
			if err != nil {
				t.Fatalf("%s: message %d: %v", how, k, err)
			}
			if k >= len(want) || !bytes.Equal(got, want[k]) {
				t.Fatalf("%s: message %d differs", how, k)
			}
			if pr.Row()-1 != rows[k] {
				t.Fatalf("%s: message %d: Row %d, want %d", how, k, pr.Row()-1, rows[k])
			}
		}
	}
	// From the middle: SeekRow and StopAt bound the rows looked at.
	pr := open()
	if err := pr.SeekRow(rows[2]); err != nil {
		t.Fatal(err)
	}
	pr.StopAt(rows[5])
	for k := 2; k < 6; k++ {
		got, err := pr.ReadWire(nil)
		if k == 5 {
			if err != io.EOF {
				t.Fatalf("past StopAt: %v", err)
			}
			break
		}
		if err != nil || !bytes.Equal(got, want[k]) || pr.Row()-1 != rows[k] {
			t.Fatalf("message %d after SeekRow: %v, row %d", k, err, pr.Row()-1)
		}
	}
}
