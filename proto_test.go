package trevni_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protodelim"
	"google.golang.org/protobuf/proto"

	"github.com/trevni-go/trevni"
	"github.com/trevni-go/trevni/schema/protoschema"
)

// The protobuf files of testdata/proto/legacy read through the front door
// as the messages they were written from: WriteProto's delimited stream is
// byte for byte the .pb file of the same messages (deterministic
// marshalling, as protobuf-go makes it), also as two parts, with an
// offset and a limit; Messages gives messages equal to protodelim's
// reading of the .pb file.
func TestProtoThroughFrontDoor(t *testing.T) {
	ctx := context.Background()
	files, _ := filepath.Glob("testdata/proto/legacy/*.trv")
	if len(files) == 0 {
		t.Fatal("no legacy files")
	}
	for _, name := range files {
		pb, err := os.ReadFile(strings.TrimSuffix(name, ".trv") + ".pb")
		if err != nil {
			t.Fatal(err)
		}
		ds, err := trevni.Open(ctx, name, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if _, err := ds.WriteProto(ctx, &got, protoschema.Delimited, nil); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got.Bytes(), pb) {
			t.Fatalf("%s: WriteProto differs from the .pb file", name)
		}
		// The messages, decoded by protodelim into the type Messages
		// yields, are equal to those Messages yields.
		var want []proto.Message
		var mt = func() proto.Message { return nil }
		n := 0
		for m, err := range ds.Messages(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				mt = func() proto.Message { return m.ProtoReflect().New().Interface() }
			}
			want = append(want, m)
			n++
		}
		r := bytes.NewReader(pb)
		for k := 0; ; k++ {
			m := mt()
			if m == nil {
				break
			}
			if err := (protodelim.UnmarshalOptions{UnmarshalOptions: proto.UnmarshalOptions{AllowPartial: true}}).UnmarshalFrom(r, m); err != nil {
				if k != len(want) {
					t.Fatalf("%s: .pb holds %d messages, Messages gave %d: %v", name, k, len(want), err)
				}
				break
			}
			if !proto.Equal(m, want[k]) {
				t.Fatalf("%s: message %d differs", name, k)
			}
		}
		// Two parts, an offset past the first and a limit: the slice of
		// the doubled stream.
		two, err := trevni.OpenFiles(ctx, []string{name, name}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got.Reset()
		rows := ds.RowCount()
		o := &trevni.ProtoOptions{ReadOptions: trevni.ReadOptions{Offset: rows - 1, Limit: 2}}
		if _, err := two.WriteProto(ctx, &got, protoschema.Delimited, o); err != nil {
			t.Fatal(err)
		}
		msgs := splitDelimited(t, append(bytes.Clone(pb), pb...))
		if wantB := bytes.Join(msgs[rows-1:rows+1], nil); !bytes.Equal(got.Bytes(), wantB) {
			t.Fatalf("%s: offset %d limit 2 over two parts differs", name, rows-1)
		}
	}
}

// splitDelimited splits a length-delimited stream into its messages, each
// with its length prefix.
func splitDelimited(t *testing.T, b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		n, k := uvarint(b)
		if k <= 0 || int(n) > len(b)-k {
			t.Fatal("bad delimited stream")
		}
		out = append(out, b[:k+int(n)])
		b = b[k+int(n):]
	}
	return out
}

func uvarint(b []byte) (uint64, int) {
	var x uint64
	for i, c := range b {
		if i == 10 {
			return 0, -1
		}
		x |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return x, i + 1
		}
	}
	return 0, 0
}
