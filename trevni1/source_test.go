package trevni1_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/linkedin/goavro/v2"
	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/schema/layout"
	"github.com/trevni-go/trevni/trevni1"
)

// checkSource reads a version-1 file's records through its Source
// (format.NewSourceReader) and checks, against the version-2 file of the
// same records (v2) and goavro's decoding of them (recs, through codec):
// the columns are the schema's layout, each record reads as goavro decodes
// the one written, in Avro binary as from the version-2 file, after seeks
// too, and the whole reads as valid.
func checkSource(t *testing.T, rd1 *trevni1.Reader, text string, codec *goavro.Codec, recs []any, v2 []byte, seed uint64) {
	t.Helper()
	src, err := trevni1.NewSource(rd1)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := format.NewSourceReader(src, &format.ReaderOptions{ReadAhead: seed%2 == 0})
	if err != nil {
		t.Fatal(err)
	}
	s, err := schema.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	lay, err := layout.New(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := lay.Metas()
	if rd.NumColumns() != len(want) {
		t.Fatalf("source has %d columns, the layout %d", rd.NumColumns(), len(want))
	}
	for i := range want {
		got, err := rd.Column(i)
		if err != nil {
			t.Fatal(err)
		}
		if got.Name != want[i].Name || got.Type != want[i].Type || got.Array != want[i].Array || got.Parent != want[i].Parent {
			t.Fatalf("column %d: %+v, the layout's %+v", i, *got, want[i])
		}
	}
	rd2, err := format.NewReader(bytes.NewReader(v2), int64(len(v2)), nil)
	if err != nil {
		t.Fatal(err)
	}
	ar, err := assemble.NewAvroReader(rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	ar2, err := assemble.NewAvroReader(rd2, nil)
	if err != nil {
		t.Fatal(err)
	}
	bins := make([][]byte, len(recs))
	for i := range recs {
		b, err := ar.ReadBinary(nil)
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		b2, err := ar2.ReadBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, b2) {
			t.Fatalf("record %d: % x, from version 2 % x", i, b, b2)
		}
		got, rest, err := codec.NativeFromBinary(b)
		if err != nil || len(rest) != 0 {
			t.Fatalf("record %d: goavro: %v, %d bytes left", i, err, len(rest))
		}
		if !avrorand.EqualNative(got, recs[i]) {
			t.Fatalf("record %d:\n got %v\nwant %v", i, got, recs[i])
		}
		bins[i] = b
	}
	if _, err := ar.ReadBinary(nil); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last record: %v", err)
	}
	r := rand.New(rand.NewPCG(seed, 3))
	for k := 0; k < 5 && len(recs) > 0; k++ {
		row := r.Int64N(int64(len(recs)))
		if err := ar.SeekRow(row); err != nil {
			t.Fatalf("seek to %d: %v", row, err)
		}
		b, err := ar.ReadBinary(nil)
		if err != nil || !bytes.Equal(b, bins[row]) {
			t.Fatalf("record %d after a seek: % x, %v; want % x", row, b, err, bins[row])
		}
	}
	ar, err = assemble.NewAvroReader(rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ar.Validate(context.Background()); err != nil {
		t.Fatalf("validate: %v", err)
	}
	if n := rd.Validate(func(err error) { t.Error(err) }); n != 0 {
		t.Fatalf("%d problems", n)
	}
}
