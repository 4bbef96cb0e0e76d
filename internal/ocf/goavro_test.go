package ocf

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/linkedin/goavro/v2"

	"github.com/trevni-go/trevni/internal/testing/longtest"
)

// goavroCodecs are the codecs goavro v2.15.0's OCF reader and writer
// support (see its ocf.go).
var goavroCodecs = []string{goavro.CompressionNullLabel, goavro.CompressionDeflateLabel, goavro.CompressionSnappyLabel}

// TestGoavroInterop checks, for every codec goavro supports, that goavro
// reads what we write and we read what goavro writes. Values are compared
// through their fmt rendering, which orders map keys and treats NaN alike.
func TestGoavroInterop(t *testing.T) {
	for name, path := range interopFiles(t) {
		if name == "medium" && testing.Short() {
			continue
		}
		schema, recs := interopRecords(t, path)
		if name == "medium" {
			// The default form takes the first 5,000 of the medium
			// vector's 30,000 records (see longtest.Rounds).
			recs = recs[:min(len(recs), longtest.Rounds(5000, len(recs)))]
		}
		codec, err := goavro.NewCodec(schema)
		if err != nil {
			t.Fatal(err)
		}
		natives := make([]any, len(recs))
		want := make([]string, len(recs))
		for i, rec := range recs {
			natives[i], _, err = codec.NativeFromBinary(rec)
			if err != nil {
				t.Fatal(err)
			}
			want[i] = fmt.Sprint(natives[i])
		}

		for _, comp := range goavroCodecs {
			t.Run(name+"/ours-to-goavro/"+comp, func(t *testing.T) {
				var buf bytes.Buffer
				w, err := NewWriter(&buf, schema, WriterOptions{Codec: comp, BlockSize: 8 << 10})
				if err != nil {
					t.Fatal(err)
				}
				for _, rec := range recs {
					if err := w.Append(rec); err != nil {
						t.Fatal(err)
					}
				}
				if err := w.Close(); err != nil {
					t.Fatal(err)
				}
				gr, err := goavro.NewOCFReader(&buf)
				if err != nil {
					t.Fatal(err)
				}
				if gr.CompressionName() != comp {
					t.Errorf("goavro sees codec %q", gr.CompressionName())
				}
				i := 0
				for gr.Scan() {
					v, err := gr.Read()
					if err != nil {
						t.Fatalf("goavro record %d: %v", i, err)
					}
					if i < len(want) && fmt.Sprint(v) != want[i] {
						t.Fatalf("record %d: goavro read %v, want %s", i, v, want[i])
					}
					i++
				}
				if err := gr.Err(); err != nil {
					t.Fatalf("goavro: %v", err)
				}
				if i != len(recs) {
					t.Errorf("goavro read %d records, want %d", i, len(recs))
				}
			})

			t.Run(name+"/goavro-to-ours/"+comp, func(t *testing.T) {
				var buf bytes.Buffer
				gw, err := goavro.NewOCFWriter(goavro.OCFConfig{W: &buf, Schema: schema, CompressionName: comp})
				if err != nil {
					t.Fatal(err)
				}
				// Several Append calls make several blocks.
				for i := 0; i < len(natives); i += 64 {
					if err := gw.Append(natives[i:min(i+64, len(natives))]); err != nil {
						t.Fatal(err)
					}
				}
				r, blocks := readBlocks(t, buf.Bytes())
				if r.Codec() != comp {
					t.Errorf("Codec() = %q, want %q", r.Codec(), comp)
				}
				rc, err := goavro.NewCodec(r.Schema())
				if err != nil {
					t.Fatal(err)
				}
				i := 0
				for _, b := range blocks {
					for _, rec := range splitRecords(t, rc, b.count, b.data) {
						v, _, err := rc.NativeFromBinary(rec)
						if err != nil {
							t.Fatal(err)
						}
						if fmt.Sprint(v) != want[i] {
							t.Fatalf("record %d: read %v, want %s", i, v, want[i])
						}
						i++
					}
				}
				if i != len(recs) {
					t.Errorf("read %d records, want %d", i, len(recs))
				}
			})
		}
	}
}
