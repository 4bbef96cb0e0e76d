package avrojson

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/linkedin/goavro/v2"
	"github.com/trevni-go/trevni/internal/avrorand"
	"github.com/trevni-go/trevni/schema"
)

// TestDecodeInteropInputs decodes every vector's input.jsonl and compares
// with goavro's decoding of the same records from input.avro's binary
// encoding (the independent truth), then encodes them back to the same text.
func TestDecodeInteropInputs(t *testing.T) {
	dirs, _ := filepath.Glob("../../testdata/interop/*/input.jsonl")
	if len(dirs) < 8 {
		t.Fatal("no vectors")
	}
	for _, in := range dirs {
		dir := filepath.Dir(in)
		text, err := os.ReadFile(filepath.Join(dir, "schema.avsc"))
		if err != nil {
			t.Fatal(err)
		}
		s := schema.MustParse(string(text))
		ocf, err := os.Open(filepath.Join(dir, "input.avro"))
		if err != nil {
			t.Fatal(err)
		}
		r, err := goavro.NewOCFReader(ocf)
		if err != nil {
			t.Fatal(err)
		}
		f, _ := os.Open(in)
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		n := 0
		for sc.Scan() {
			if !r.Scan() {
				t.Fatalf("%s: more JSON lines than Avro records", dir)
			}
			want, err := r.Read()
			if err != nil {
				t.Fatal(err)
			}
			got, err := Decode(s, sc.Bytes())
			if err != nil {
				t.Fatalf("%s line %d: %v", dir, n+1, err)
			}
			if !avrorand.EqualNative(got, want) {
				t.Fatalf("%s line %d: decoded %v, want %v", dir, n+1, got, want)
			}
			again, err := Append(nil, s, got)
			if err != nil || !bytes.Equal(again, sc.Bytes()) {
				t.Fatalf("%s line %d: re-encoded\n%s\nwant\n%s (%v)", dir, n+1, again, sc.Bytes(), err)
			}
			n++
		}
		f.Close()
		ocf.Close()
		if n == 0 && filepath.Base(dir) != "empty" {
			t.Fatalf("%s: no records", dir)
		}
		if r.Scan() {
			t.Fatalf("%s: more Avro records than JSON lines", dir)
		}
	}
}

// TestRandomRoundTrip encodes random values of random schemas and decodes
// them back.
func TestRandomRoundTrip(t *testing.T) {
	for seed := uint64(0); seed < 200; seed++ {
		g := avrorand.New(seed, avrorand.Options{})
		s, err := schema.Parse(g.Schema())
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 5; i++ {
			v := g.Value(s)
			text, err := Append(nil, s, v)
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			back, err := Decode(s, text)
			if err != nil {
				t.Fatalf("seed %d: %v\n%s", seed, err, text)
			}
			if !avrorand.EqualNative(back, v) {
				t.Fatalf("seed %d: %s decodes to %v, want %v", seed, text, back, v)
			}
		}
	}
}
