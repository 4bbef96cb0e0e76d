package shred

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/linkedin/goavro/v2"
	"github.com/trevni-go/trevni/format"
	"github.com/trevni-go/trevni/internal/ocf"
	"github.com/trevni-go/trevni/schema"
	"github.com/trevni-go/trevni/typemap"
)

const interopDir = "../testdata/interop"

// vectors lists the interop vectors that have an Avro input.
func vectors(t testing.TB) []string {
	dirs, err := filepath.Glob(filepath.Join(interopDir, "*", "input.avro"))
	if err != nil || len(dirs) == 0 {
		t.Fatal("no interop vectors")
	}
	var names []string
	for _, d := range dirs {
		names = append(names, filepath.Base(filepath.Dir(d)))
	}
	return names
}

// genericConvert shreds a container file through goavro native values.
func genericConvert(t testing.TB, avroFile string, opts *Options) []byte {
	t.Helper()
	f, err := os.Open(avroFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := ocf.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	codec, err := goavro.NewCodec(r.Schema())
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	aw, err := NewAvroWriter(&out, r.Schema(), opts)
	if err != nil {
		t.Fatal(err)
	}
	for {
		count, data, err := r.NextBlock()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for ; count > 0; count-- {
			v, rest, err := codec.NativeFromBinary(data)
			if err != nil {
				t.Fatal(err)
			}
			data = rest
			if err := aw.Write(v); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := aw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func fastConvert(t testing.TB, avroFile string, opts *Options) []byte {
	t.Helper()
	f, err := os.Open(avroFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out bytes.Buffer
	if _, err := FromContainer(context.Background(), &out, f, opts); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// TestJavaBytes converts every vector's input.avro with the null codec, by
// the fast and the generic path, and compares with Java's files byte for
// byte.
func TestJavaBytes(t *testing.T) {
	for _, name := range vectors(t) {
		t.Run(name, func(t *testing.T) {
			in := filepath.Join(interopDir, name, "input.avro")
			compared := 0
			for checksum, suffix := range map[string]string{"crc32": "null.crc32-correct", "null": "null.none"} {
				want, err := os.ReadFile(filepath.Join(interopDir, name, name+"."+suffix+".trv"))
				if os.IsNotExist(err) {
					continue // medium ships only null.none
				} else if err != nil {
					t.Fatal(err)
				}
				compared++
				opts := &Options{WriterOptions: format.WriterOptions{Codec: "null", Checksum: checksum, DisableStats: true}}
				if got := fastConvert(t, in, opts); !bytes.Equal(got, want) {
					t.Errorf("fast path, checksum %s: %d bytes differ from Java's %d", checksum, len(got), len(want))
				}
				if got := genericConvert(t, in, opts); !bytes.Equal(got, want) {
					t.Errorf("generic path, checksum %s: %d bytes differ from Java's %d", checksum, len(got), len(want))
				}
			}
			if compared == 0 {
				t.Fatal("no Java file to compare with")
			}
		})
	}
}

// TestPathsAgreeWithCodecs checks that both paths make the same file with
// every codec, and with small blocks so that columns have many blocks. The
// fast path runs on one goroutine: on workers its blocks end where the
// workers' segments do (same records, other bytes; the parallel tests
// compare those by content).
func TestPathsAgreeWithCodecs(t *testing.T) {
	t.Parallel()
	for _, name := range vectors(t) {
		in := filepath.Join(interopDir, name, "input.avro")
		for _, codec := range []string{"deflate", "snappy", "bzip2", "zstd"} {
			opts := &Options{Workers: 1, WriterOptions: format.WriterOptions{Codec: codec, Checksum: "crc32", BlockSize: 512}}
			if !bytes.Equal(fastConvert(t, in, opts), genericConvert(t, in, opts)) {
				t.Errorf("%s/%s: fast and generic paths differ", name, codec)
			}
		}
	}
}

// TestBadRecords checks that a record that does not fit the schema gets an
// error naming the record and field, and that writing goes on.
func TestBadRecords(t *testing.T) {
	schemaText := `{"type":"record","name":"R","fields":[
		{"name":"id","type":"int"},
		{"name":"tags","type":{"type":"array","items":{"type":"record","name":"T","fields":[{"name":"k","type":"string"}]}}},
		{"name":"m","type":{"type":"map","values":["null","long"]}}]}`
	var out bytes.Buffer
	aw, err := NewAvroWriter(&out, schemaText, nil)
	if err != nil {
		t.Fatal(err)
	}
	good := map[string]any{"id": int32(1), "tags": []any{map[string]any{"k": "a"}}, "m": map[string]any{"x": nil}}
	if err := aw.Write(good); err != nil {
		t.Fatal(err)
	}
	bad := []struct {
		rec  any
		path string
	}{
		{map[string]any{"id": "x", "tags": []any{}, "m": map[string]any{}}, "id"},
		{map[string]any{"id": int32(1), "tags": []any{map[string]any{"k": "a"}, map[string]any{"k": 3}}, "m": map[string]any{}}, "tags[1].k"},
		{map[string]any{"id": int32(1), "tags": []any{}, "m": map[string]any{"a": map[string]any{"string": "no"}}}, `m["a"]`},
		{map[string]any{"id": int32(1), "m": map[string]any{}}, "tags"},
	}
	for _, b := range bad {
		err := aw.Write(b.rec)
		var se *schema.Error
		if !errors.As(err, &se) || se.Path != b.path || se.Record != 1 || !errors.Is(err, typemap.ErrValue) {
			t.Errorf("record %v: got %v, want an error at %s", b.rec, err, b.path)
		}
	}
	if err := aw.Write(good); err != nil {
		t.Fatalf("after bad records: %v", err)
	}
	if err := aw.Close(); err != nil {
		t.Fatal(err)
	}
	if aw.RowCount() != 2 {
		t.Fatalf("%d rows, want 2", aw.RowCount())
	}
	// Truncated binary records fail with an error, never a panic.
	codec, _ := goavro.NewCodec(schemaText)
	bin, err := codec.BinaryFromNative(nil, good)
	if err != nil {
		t.Fatal(err)
	}
	aw, _ = NewAvroWriter(io.Discard, schemaText, nil)
	for cut := 0; cut < len(bin); cut++ {
		err := aw.WriteBinary(bin[:cut])
		var se *schema.Error
		if !errors.As(err, &se) || se.Record != 0 || !errors.Is(err, ErrBinary) {
			t.Fatalf("cut at %d: %v", cut, err)
		}
	}
	// So do records with bytes after them.
	if err := aw.WriteBinary(append(bin, 0)); !errors.Is(err, ErrBinary) || !strings.Contains(err.Error(), "1 bytes after the record") {
		t.Fatalf("a byte after the record: %v", err)
	}
	if err := aw.WriteBinary(bin); err != nil {
		t.Fatalf("whole record: %v", err)
	}
	// A string that is not UTF-8 is refused, in either path, and writing
	// goes on.
	badUTF8 := map[string]any{"id": int32(1), "tags": []any{map[string]any{"k": "\xff"}}, "m": map[string]any{}}
	var se *schema.Error
	if err := aw.Write(badUTF8); !errors.As(err, &se) || se.Record != 1 || se.Path != "tags[0].k" ||
		!errors.Is(err, typemap.ErrValue) || errors.Is(err, format.ErrUsage) || !strings.Contains(err.Error(), "UTF-8") {
		t.Fatalf("invalid UTF-8 written: %v", err)
	}
	badBin := append([]byte(nil), bin...)
	i := bytes.IndexByte(badBin, 'a') // the "a" of tags[0].k
	badBin[i] = 0xff
	if err := aw.WriteBinary(badBin); !errors.As(err, &se) || se.Record != 1 || se.Path != "tags[0].k" ||
		!errors.Is(err, ErrBinary) || errors.Is(err, format.ErrUsage) || !strings.Contains(err.Error(), "UTF-8") {
		t.Fatalf("invalid UTF-8 written by the fast path: %v", err)
	}
	if err := aw.WriteBinary(bin); err != nil {
		t.Fatalf("after refused records: %v", err)
	}
}

// TestFromContainerEveryCodec re-encodes a vector's container file with
// every codec the Avro specification names and checks that each converts to
// the same Trevni file.
func TestFromContainerEveryCodec(t *testing.T) {
	for _, name := range []string{"email", "maps", "unions"} {
		in := filepath.Join(interopDir, name, "input.avro")
		want := fastConvert(t, in, nil)
		f, err := os.Open(in)
		if err != nil {
			t.Fatal(err)
		}
		r, err := ocf.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		var records [][]byte
		for {
			_, data, err := r.NextBlock()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			records = append(records, append([]byte(nil), data...))
		}
		f.Close()
		for _, codec := range []string{"null", "deflate", "snappy", "bzip2", "xz", "zstandard"} {
			var container bytes.Buffer
			cw, err := ocf.NewWriter(&container, r.Schema(), ocf.WriterOptions{Codec: codec})
			if err != nil {
				t.Fatal(err)
			}
			// Rewrite record by record (goavro finds where each record
			// ends).
			gc, err := goavro.NewCodec(r.Schema())
			if err != nil {
				t.Fatal(err)
			}
			for _, block := range records {
				for len(block) > 0 {
					_, rest, err := gc.NativeFromBinary(block)
					if err != nil {
						t.Fatal(err)
					}
					if err := cw.Append(block[:len(block)-len(rest)]); err != nil {
						t.Fatal(err)
					}
					block = rest
				}
			}
			if err := cw.Close(); err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if _, err := FromContainer(context.Background(), &got, &container, nil); err != nil {
				t.Fatalf("%s/%s: %v", name, codec, err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("%s: the %s container converts differently", name, codec)
			}
		}
	}
}

// TestAppendContainer appends the same container twice and a container of
// another schema, which is refused.
func TestAppendContainer(t *testing.T) {
	in := filepath.Join(interopDir, "email", "input.avro")
	data, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	r, err := ocf.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	aw, err := NewAvroWriter(&out, r.Schema(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		if err := aw.AppendContainer(context.Background(), bytes.NewReader(data)); err != nil {
			t.Fatal(err)
		}
	}
	other, err := os.ReadFile(filepath.Join(interopDir, "maps", "input.avro"))
	if err != nil {
		t.Fatal(err)
	}
	if err := aw.AppendContainer(context.Background(), bytes.NewReader(other)); err == nil || !strings.Contains(err.Error(), "schema differs") {
		t.Fatalf("another schema: %v", err)
	}
	if err := aw.Close(); err != nil {
		t.Fatal(err)
	}
	if aw.RowCount() != 600 {
		t.Fatalf("%d rows, want 600", aw.RowCount())
	}
}

// TestInvalidWriterDefault writes and reads records of a schema whose field
// default does not match its type, as older Java wrote into data files: the
// default is not needed, so nothing fails until a reader would use it.
func TestInvalidWriterDefault(t *testing.T) {
	text := `{"type":"record","name":"R","fields":[{"name":"a","type":"int","default":"oops"}]}`
	var out bytes.Buffer
	aw, err := NewAvroWriter(&out, text, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := aw.Write(map[string]any{"a": int32(5)}); err != nil {
		t.Fatal(err)
	}
	// A record without the field would need the default: an error.
	if err := aw.Write(map[string]any{}); err == nil {
		t.Fatal("the invalid default was used")
	}
	if err := aw.Close(); err != nil {
		t.Fatal(err)
	}
}
