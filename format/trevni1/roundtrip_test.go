package trevni1

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/linkedin/goavro/v2"
	"github.com/trevni-go/trevni/assemble"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/avrorand"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/shred"
)

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
// file's records decode to the records written, and converting it back
// gives the very bytes of the first v2 file.
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
		if _, err := Layout(orig); err != nil {
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
		cols, err := Layout(text)
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
			opts := &WriterOptions{Codec: codecs[seed%len(codecs)], blockSize: []int{64, 300, 4096, 0}[seed%4]}
			if seed%3 == 0 {
				opts.Checksum = ChecksumCRC32
			}
			if rows, err := FromV2(&v1, rd2, opts); err != nil || rows != int64(n) {
				t.Fatalf("FromV2: %d rows, %v", rows, err)
			}
			rd1, err := NewReader(bytes.NewReader(v1.Bytes()), int64(v1.Len()), nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := rd1.Verify(); err != nil {
				t.Fatal(err)
			}
			for c := 0; c < rd1.NumColumns(); c++ {
				if rd1.Column(c).MaxRep > 0 && len(rd1.Blocks(c)) > 1 {
					nestedBlocks++
					break
				}
			}
			rr, err := NewRecordReader(rd1)
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
			if rows, err := ToV2(&back, rd1, &shred.Options{WriterOptions: format.WriterOptions{Codec: "null", Checksum: "null"}}); err != nil || rows != int64(n) {
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

// Schemas version 1 cannot express are refused with the field's path.
func TestLayoutRefusals(t *testing.T) {
	for _, tc := range []struct{ avsc, path string }{
		{`{"type":"record","name":"R","fields":[{"name":"a","type":{"type":"record","name":"S","fields":[{"name":"u","type":["int","string"]}]}}]}`, "a.u"},
		{`{"type":"record","name":"R","fields":[{"name":"m","type":{"type":"map","values":["null","int","long"]}}]}`, "m.value"},
		{`{"type":"record","name":"R","fields":[{"name":"e","type":{"type":"array","items":{"type":"record","name":"E","fields":[]}}}]}`, "e"},
		{`{"type":"record","name":"L","fields":[{"name":"next","type":["null","L"]}]}`, "next"},
		{`"int"`, ""},
	} {
		_, err := Layout(tc.avsc)
		var se *schema.Error
		if !errors.As(err, &se) || se.Path != tc.path {
			t.Errorf("%s: got %v, want an error at %q", tc.avsc, err, tc.path)
		}
	}
}

// An Impala file (no avro.schema) reads as records of ["null", T] fields,
// with the timestamp record and the fixedN annotations, and survives
// v1 -> v2 -> v1 byte for byte.
func TestImpalaFileAsAvro(t *testing.T) {
	v := allTypesVec(t, "")
	rd, err := NewReader(bytes.NewReader(v.b), int64(len(v.b)), nil)
	if err != nil {
		t.Fatal(err)
	}
	text, err := rd.AvroSchema()
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"type":"record","name":"Row","namespace":"trevni1","fields":[{"name":"col_1","type":["null","boolean"]},{"name":"col_2","type":["null",{"type":"int","trevni1.type":"fixed8"}]},{"name":"col_3","type":["null",{"type":"int","trevni1.type":"fixed16"}]},{"name":"col_4","type":["null","int"]},{"name":"col_5","type":["null","long"]},{"name":"col_6","type":["null","float"]},{"name":"col_7","type":["null","double"]},{"name":"col_8","type":["null",{"type":"record","name":"Timestamp","namespace":"trevni1","fields":[{"name":"nanosOfDay","type":"long"},{"name":"julianDay","type":"int"}]}]},{"name":"col_9","type":["null","string"]}]}`
	if text != want {
		t.Fatalf("schema\n%s\nwant\n%s", text, want)
	}
	var v2 bytes.Buffer
	if _, err := ToV2(&v2, rd, nil); err != nil {
		t.Fatal(err)
	}
	recs := readV2(t, v2.Bytes())
	ts := recs[0].(map[string]any)["col_8"].(map[string]any)["trevni1.Timestamp"].(map[string]any)
	if ts["nanosOfDay"] != int64(31714123456789) || ts["julianDay"] != int32(2456072) {
		t.Fatalf("timestamp %v", ts)
	}
	if recs[1].(map[string]any)["col_1"] != nil {
		t.Fatalf("row 1 %v", recs[1])
	}
	rd2, err := format.NewReader(bytes.NewReader(v2.Bytes()), int64(v2.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	var back bytes.Buffer
	if _, err := FromV2(&back, rd2, nil); err != nil {
		t.Fatal(err)
	}
	// The same columns and blocks; the file now carries avro.schema.
	rb, err := NewReader(bytes.NewReader(back.Bytes()), int64(back.Len()), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := rb.AvroSchema(); got != text {
		t.Fatalf("schema after the round trip %s", got)
	}
	tail := func(b []byte, rd *Reader) []byte { return b[rd.ColumnStart(0):] }
	if !bytes.Equal(tail(back.Bytes(), rb), tail(v.b, rd)) {
		t.Fatalf("columns differ after v1 -> v2 -> v1")
	}
}
