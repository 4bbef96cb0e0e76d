package trevni1_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/linkedin/goavro/v2"
	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/shred"
	"github.com/trevni-go/trevni/trevni1"
	"github.com/trevni-go/trevni/trevni1/convert"
)

// The random round trip lives beside the version-1 writer, as an external
// test, because it cuts blocks small (WriterOptions.BlockSize) to give
// nested columns of several blocks, which only this package's tests can.

// expressible rewrites a random schema into one version 1 can express: a
// top-level non-record is wrapped in a record, and a union of several
// non-null branches keeps null (if it had it) and its first other branch.
func expressible(s *schema.Schema) string {
	seen := map[*schema.Schema]bool{}
	var walk func(*schema.Schema)
	walk = func(s *schema.Schema) {
		if seen[s] {
			return
		}
		seen[s] = true
		switch s.Kind {
		case schema.Record:
			if len(s.Fields) == 0 {
				// A record without fields has no column to carry levels.
				s.Fields = []*schema.Field{{Name: "pad", Type: schema.MustParse(`"boolean"`)}}
			}
			for _, f := range s.Fields {
				walk(f.Type)
			}
		case schema.Array:
			walk(s.Items)
		case schema.Map:
			walk(s.Values)
		case schema.Union:
			var keep []*schema.Schema
			other := false
			for _, b := range s.Branches {
				if b.Kind == schema.Null || !other {
					keep = append(keep, b)
					other = other || b.Kind != schema.Null
				}
			}
			s.Branches = keep
			for _, b := range keep {
				walk(b)
			}
		}
	}
	walk(s)
	text := s.String()
	if s.Kind != schema.Record {
		text = `{"type":"record","name":"trevni1test.Wrap","fields":[{"name":"value","type":` + text + `}]}`
	}
	return text
}

func v2File(t *testing.T, text string, recs []any) []byte {
	t.Helper()
	var buf bytes.Buffer
	aw, err := shred.NewAvroWriter(&buf, text, &shred.Options{WriterOptions: format.WriterOptions{Codec: "null", Checksum: "null"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := aw.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := aw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func readV2(t *testing.T, data []byte) []any {
	t.Helper()
	rd, err := format.NewReader(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	ar, err := assemble.NewAvroReader(rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []any
	for {
		r, err := ar.Read()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
}

// TestRoundTripRandom: random schemas and records, v2 -> v1 -> v2. The v1
// file's records decode to the records written, read directly through its
// Source too (checkSource), and converting it back gives the very bytes of
// the first v2 file.
func TestRoundTripRandom(t *testing.T) {
	codecs := []string{"", "deflate", "gzip", "bzip2", "snappy"}
	refused, nested, nestedBlocks := 0, 0, 0
	seeds := 150
	if testing.Short() {
		seeds = 30
	}
	for seed := range seeds {
		g := avrorand.New(uint64(seed), avrorand.Options{})
		orig := g.Schema()
		if _, err := trevni1.Layout(orig); err != nil {
			var se *schema.Error
			if !errors.As(err, &se) || se.Err == nil {
				t.Fatalf("seed %d: refusal %v is not a schema.Error", seed, err)
			}
			refused++
		}
		s, err := schema.Parse(orig)
		if err != nil {
			t.Fatal(err)
		}
		text := expressible(s)
		cols, err := trevni1.Layout(text)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, text)
		}
		for _, c := range cols {
			if c.MaxRep > 0 {
				nested++
				break
			}
		}
		s2, err := schema.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		codec, err := goavro.NewCodec(text)
		if err != nil {
			t.Fatalf("seed %d: goavro: %v", seed, err)
		}
		n := []int{0, 1, 7, 60, 400}[seed%5]
		recs := make([]any, n)
		for i := range recs {
			recs[i] = g.Value(s2)
		}
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			v2 := v2File(t, text, recs)
			rd2, err := format.NewReader(bytes.NewReader(v2), int64(len(v2)), nil)
			if err != nil {
				t.Fatal(err)
			}
			var v1 bytes.Buffer
			opts := &trevni1.WriterOptions{Codec: codecs[seed%len(codecs)]}
			opts.BlockSize = []int{64, 300, 4096, 0}[seed%4]
			if seed%3 == 0 {
				opts.Checksum = trevni1.ChecksumCRC32
			}
			if rows, err := convert.FromV2(context.Background(), &v1, rd2, opts); err != nil || rows != int64(n) {
				t.Fatalf("FromV2: %d rows, %v", rows, err)
			}
			rd1, err := trevni1.NewReader(bytes.NewReader(v1.Bytes()), int64(v1.Len()), nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := rd1.Verify(); err != nil {
				t.Fatal(err)
			}
			checkSource(t, rd1, text, codec, recs, v2, uint64(seed))
			for c := 0; c < rd1.NumColumns(); c++ {
				if rd1.Column(c).MaxRep > 0 && len(rd1.Blocks(c)) > 1 {
					nestedBlocks++
					break
				}
			}
			rr, err := trevni1.NewRecordReader(rd1)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; ; i++ {
				b, err := rr.ReadBinary(nil)
				if errors.Is(err, io.EOF) {
					if i != n {
						t.Fatalf("%d records, want %d", i, n)
					}
					break
				}
				if err != nil {
					t.Fatalf("record %d: %v", i, err)
				}
				got, rest, err := codec.NativeFromBinary(b)
				if err != nil || len(rest) != 0 {
					t.Fatalf("record %d: goavro: %v, %d bytes left", i, err, len(rest))
				}
				if !avrorand.EqualNative(got, recs[i]) {
					t.Fatalf("record %d:\n got %v\nwant %v", i, got, recs[i])
				}
			}
			var back bytes.Buffer
			if rows, err := convert.ToV2(context.Background(), &back, rd1, &shred.Options{WriterOptions: format.WriterOptions{Codec: "null", Checksum: "null"}}); err != nil || rows != int64(n) {
				t.Fatalf("ToV2: %d rows, %v", rows, err)
			}
			if !bytes.Equal(back.Bytes(), v2) {
				got := readV2(t, back.Bytes())
				for i := range recs {
					if !avrorand.EqualNative(got[i], recs[i]) {
						t.Fatalf("record %d after v2 -> v1 -> v2:\n got %v\nwant %v", i, got[i], recs[i])
					}
				}
				t.Fatalf("v2 -> v1 -> v2 changed the file's bytes")
			}
		})
	}
	t.Logf("%d seeds: %d refused as generated, %d nested, %d with nested columns of several blocks", seeds, refused, nested, nestedBlocks)
	if refused == 0 || nested < seeds/4 || nestedBlocks < seeds/10 {
		t.Fatalf("random schemas too tame: %d refused, %d nested", refused, nested)
	}
}
