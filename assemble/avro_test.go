package assemble

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/linkedin/goavro/v2"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/avrojson"
	"github.com/trevni-go/trevni/internal/testing/avrorand"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/shred"
)

const interopDir = "../testdata/interop"

func readLines(t testing.TB, name string) [][]byte {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(name, ".gz") {
		if r, err = gzip.NewReader(f); err != nil {
			t.Fatal(err)
		}
	}
	var out [][]byte
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			out = append(out, append([]byte(nil), sc.Bytes()...))
		}
	}
	return out
}

func decode(t testing.TB, b []byte) any {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return v
}

// sameJSON compares decoded JSON; numbers compare as float32 when they
// differ as text (Java and Go print floats differently).
func sameJSON(a, b any) bool {
	switch a := a.(type) {
	case json.Number:
		bn, ok := b.(json.Number)
		if !ok {
			return false
		}
		if a == bn {
			return true
		}
		x, err1 := strconv.ParseFloat(string(a), 64)
		y, err2 := strconv.ParseFloat(string(bn), 64)
		return err1 == nil && err2 == nil && (x == y || float32(x) == float32(y) || math.IsNaN(x) && math.IsNaN(y))
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(bm) != len(a) {
			return false
		}
		for k, v := range a {
			if !sameJSON(v, bm[k]) {
				return false
			}
		}
		return true
	case []any:
		bl, ok := b.([]any)
		if !ok || len(bl) != len(a) {
			return false
		}
		for i := range a {
			if !sameJSON(a[i], bl[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

func openTrv(t testing.TB, name string) *format.ReadCloser {
	t.Helper()
	rc, err := format.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rc.Close() })
	return rc
}

// TestReadJavaFiles reads every Java-written Avro-layer file, of every codec
// and checksum variant, and compares with what Java's reader returned; the
// fast path must agree with goavro's encoding of the generic path's values.
func TestReadJavaFiles(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob(filepath.Join(interopDir, "*", "*.trv"))
	checked := 0
	// Java's records, decoded once per vector for its four to six files.
	type expectedRecords struct {
		lines  [][]byte
		values []any
	}
	expectations := make(map[string]expectedRecords)
	for _, file := range files {
		dir := filepath.Dir(file)
		expected := filepath.Join(dir, "expected.jsonl")
		if _, err := os.Stat(expected); err != nil {
			expected += ".gz"
			if _, err := os.Stat(expected); err != nil {
				continue // not an Avro-layer vector
			}
		}
		checked++
		t.Run(strings.TrimPrefix(file, interopDir+"/"), func(t *testing.T) {
			exp, ok := expectations[expected]
			if !ok {
				exp.lines = readLines(t, expected)
				for _, line := range exp.lines {
					exp.values = append(exp.values, decode(t, line))
				}
				expectations[expected] = exp
			}
			want := exp.lines
			rc := openTrv(t, file)
			generic, err := NewAvroReader(rc.Reader, nil)
			if err != nil {
				t.Fatal(err)
			}
			fast, err := NewAvroReader(rc.Reader, nil)
			if err != nil {
				t.Fatal(err)
			}
			codec, err := goavro.NewCodec(generic.readText)
			if err != nil {
				t.Fatal(err)
			}
			var bin []byte
			for i := 0; ; i++ {
				v, err := generic.Read()
				if err == io.EOF {
					if i != len(want) {
						t.Fatalf("read %d records, Java read %d", i, len(want))
					}
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				text, err := codec.TextualFromNative(nil, v)
				if err != nil {
					t.Fatal(err)
				}
				if i >= len(want) || !sameJSON(decode(t, text), exp.values[i]) {
					t.Fatalf("record %d:\n got %s\nwant %s", i, text, want[min(i, len(want)-1)])
				}
				if bin, err = fast.ReadBinary(bin[:0]); err != nil {
					t.Fatal(err)
				}
				// goavro encodes Go maps in random order: compare values.
				fv, rest, err := codec.NativeFromBinary(bin)
				if err != nil || len(rest) != 0 {
					t.Fatalf("record %d: fast path output does not decode: %v (%d bytes left)", i, err, len(rest))
				}
				if !avrorand.EqualNative(fv, v) {
					t.Fatalf("record %d: fast path encodes differently", i)
				}
			}
		})
	}
	if checked < 40 {
		t.Fatalf("only %d files checked", checked)
	}
}

// TestEmailProjection reads the email vector with Java's projection schema:
// fields dropped, reordered and added with a default.
func TestEmailProjection(t *testing.T) {
	reader, err := os.ReadFile(filepath.Join(interopDir, "email", "projection.avsc"))
	if err != nil {
		t.Fatal(err)
	}
	want := readLines(t, filepath.Join(interopDir, "email", "projection.expected.jsonl"))
	for _, variant := range []string{"deflate.crc32", "snappy.crc32", "bzip2.crc32", "null.none"} {
		rc := openTrv(t, filepath.Join(interopDir, "email", "email."+variant+".trv"))
		ar, err := NewAvroReader(rc.Reader, &Options{ReaderSchema: string(reader)})
		if err != nil {
			t.Fatal(err)
		}
		// Only the columns the projection needs are read.
		if got := len(ar.ColumnsRead()); got != 5 {
			t.Errorf("%s: reads %d columns, want 5 (received[], sigs[], algo, host, id)", variant, got)
		}
		var out bytes.Buffer
		if _, err := ToJSON(context.Background(), &out, ar, nil); err != nil {
			t.Fatal(err)
		}
		got := bytes.Split(bytes.TrimSpace(out.Bytes()), []byte("\n"))
		if len(got) != len(want) {
			t.Fatalf("%s: %d records, want %d", variant, len(got), len(want))
		}
		for i := range want {
			if !sameJSON(decode(t, got[i]), decode(t, want[i])) {
				t.Fatalf("%s record %d:\n got %s\nwant %s", variant, i, got[i], want[i])
			}
		}
	}
}

// TestToContainer writes Avro container files through the fast path and
// reads them back with goavro.
func TestToContainer(t *testing.T) {
	for _, name := range []string{"primitives", "maps", "unions", "enum_fixed_bytes", "nested_records"} {
		rc := openTrv(t, filepath.Join(interopDir, name, name+".deflate.crc32.trv"))
		ar, err := NewAvroReader(rc.Reader, nil)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		n, err := ToContainer(context.Background(), &buf, ar, &ContainerOptions{Codec: "deflate"})
		if err != nil {
			t.Fatal(err)
		}
		ocf, err := goavro.NewOCFReader(&buf)
		if err != nil {
			t.Fatal(err)
		}
		want := readLines(t, filepath.Join(interopDir, name, "expected.jsonl"))
		codec := ocf.Codec()
		i := 0
		for ocf.Scan() {
			v, err := ocf.Read()
			if err != nil {
				t.Fatal(err)
			}
			text, _ := codec.TextualFromNative(nil, v)
			if !sameJSON(decode(t, text), decode(t, want[i])) {
				t.Fatalf("%s record %d:\n got %s\nwant %s", name, i, text, want[i])
			}
			i++
		}
		if int64(i) != n || i != len(want) {
			t.Fatalf("%s: %d records read back, %d written, %d expected", name, i, n, len(want))
		}
	}
}

// TestIncompatibleReaderSchema checks that a reader schema that cannot read
// the file is rejected up front, naming the field.
func TestIncompatibleReaderSchema(t *testing.T) {
	rc := openTrv(t, filepath.Join(interopDir, "email", "email.null.none.trv"))
	cases := map[string]string{
		`{"type":"record","name":"M","fields":[{"name":"id","type":"string"}]}`:                                                                                            "id",
		`{"type":"record","name":"M","fields":[{"name":"nope","type":"int"}]}`:                                                                                             "nope",
		`{"type":"record","name":"M","fields":[{"name":"received","type":{"type":"array","items":{"type":"record","name":"R","fields":[{"name":"date","type":"int"}]}}}]}`: "received[].date",
	}
	for rs, path := range cases {
		_, err := NewAvroReader(rc.Reader, &Options{ReaderSchema: rs})
		var se *schema.Error
		if !errors.Is(err, ErrIncompatible) || !errors.As(err, &se) || se.Record != -1 || se.Path != path {
			t.Errorf("reader schema %s: got %v, want an error naming %s", rs, err, path)
		}
	}
}

// TestToJSONMatchesJavaText checks that ToJSON writes, byte for byte, the
// text Java's reader printed for every vector: record fields in schema
// order, map keys sorted, Java's string escapes and float format.
func TestToJSONMatchesJavaText(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(interopDir, "*", "expected.jsonl*"))
	if len(dirs) < 9 {
		t.Fatalf("only %d vectors", len(dirs))
	}
	for _, expected := range dirs {
		dir := filepath.Dir(expected)
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			rc := openTrv(t, filepath.Join(dir, name+".null.none.trv"))
			ar, err := NewAvroReader(rc.Reader, nil)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if _, err := ToJSON(context.Background(), &out, ar, nil); err != nil {
				t.Fatal(err)
			}
			want := readLines(t, expected)
			got := bytes.Split(out.Bytes(), []byte("\n"))
			if len(got) != len(want)+1 || len(got[len(want)]) != 0 {
				t.Fatalf("%d lines, want %d", len(got)-1, len(want))
			}
			for i := range want {
				if !bytes.Equal(got[i], want[i]) {
					t.Fatalf("line %d:\n got %s\nwant %s", i+1, got[i], want[i])
				}
			}
		})
	}
}

// TestSeekAndStop reads ranges of records by seeking and stopping, and
// compares with reading everything in order.
func TestSeekAndStop(t *testing.T) {
	rc := openTrv(t, filepath.Join(interopDir, "medium", "medium.deflate.crc32.trv"))
	all, err := NewAvroReader(rc.Reader, nil)
	if err != nil {
		t.Fatal(err)
	}
	var records [][]byte
	for {
		b, err := all.ReadBinary(nil)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		records = append(records, b)
	}
	ar, err := NewAvroReader(rc.Reader, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range [][2]int64{{0, 3}, {29990, 30000}, {12345, 12400}, {7, 7}, {100, 50}, {30000, 30000}} {
		if err := ar.SeekRow(r[0]); err != nil {
			t.Fatal(err)
		}
		ar.StopAt(r[1])
		n := r[0]
		for ; ; n++ {
			b, err := ar.ReadBinary(nil)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b, records[n]) {
				t.Fatalf("range %v: record %d differs", r, n)
			}
		}
		if want := max(r[0], r[1]); n != want {
			t.Fatalf("range %v: stopped at %d, want %d", r, n, want)
		}
	}
	if err := ar.SeekRow(30001); err == nil {
		t.Fatal("seek past the end accepted")
	}
}

// TestReadJSONMatchesValues checks the JSON fast path against the value
// path (Read, then avrojson.Append) on random schemas and data.
func TestReadJSONMatchesValues(t *testing.T) {
	for seed := uint64(0); seed < 150; seed++ {
		g := avrorand.New(seed, avrorand.Options{})
		text := g.Schema()
		s, err := schema.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		var file bytes.Buffer
		aw, err := shred.NewAvroWriter(&file, text, &shred.Options{WriterOptions: format.WriterOptions{BlockSize: 256}})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 20; i++ {
			if err := aw.Write(g.Value(s)); err != nil {
				t.Fatal(err)
			}
		}
		if err := aw.Close(); err != nil {
			t.Fatal(err)
		}
		rd, err := format.NewReader(bytes.NewReader(file.Bytes()), int64(file.Len()), nil)
		if err != nil {
			t.Fatal(err)
		}
		values, err := NewAvroReader(rd, nil)
		if err != nil {
			t.Fatal(err)
		}
		fast, err := NewAvroReader(rd, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; ; i++ {
			if i == 20 {
				if _, err := values.Read(); err != io.EOF {
					t.Fatalf("seed %d: after 20 records, Read: %v, want EOF", seed, err)
				}
				if _, err := fast.ReadJSON(nil); err != io.EOF {
					t.Fatalf("seed %d: after 20 records, ReadJSON: %v, want EOF", seed, err)
				}
				break
			}
			v, err := values.Read()
			if err != nil {
				t.Fatal(err)
			}
			want, err := avrojson.Append(nil, s, v)
			if err != nil {
				t.Fatal(err)
			}
			got, err := fast.ReadJSON(nil)
			if err != nil {
				t.Fatalf("seed %d record %d: %v", seed, i, err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("seed %d record %d:\n got %s\nwant %s\nschema %s", seed, i, got, want, text)
			}
		}
	}
}
