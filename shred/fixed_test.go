package shred

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/linkedin/goavro/v2"
	"github.com/trevni-go/trevni/format"
)

// fixedSchema has arrays whose items are floats and doubles only (written
// a column at a time, runFixed) beside one whose items are not.
const fixedSchema = `{"type":"record","name":"R","fields":[
 {"name":"pts","type":{"type":"array","items":{"type":"record","name":"P","fields":[
  {"name":"x","type":"float"},{"name":"y","type":"double"},{"name":"z","type":"float"}]}}},
 {"name":"fs","type":{"type":"array","items":"float"}},
 {"name":"ds","type":{"type":"array","items":"double"}},
 {"name":"mixed","type":{"type":"array","items":{"type":"record","name":"M","fields":[
  {"name":"x","type":"float"},{"name":"n","type":"int"}]}}}
]}`

// TestFixedItems writes random records of arrays of floats and doubles
// (NaNs and infinities among them, arrays in one Avro block and in
// several, with and without their byte sizes) through WriteBinary and
// through Write with the values goavro decodes from the same bytes, and
// checks that the two files are the same bytes, in small blocks so that
// blocks are cut between items.
func TestFixedItems(t *testing.T) {
	codec, err := goavro.NewCodec(fixedSchema)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	f32 := func(b []byte) []byte {
		v := float32(r.NormFloat64())
		switch r.IntN(20) {
		case 0:
			v = float32(math.NaN())
		case 1:
			v = float32(math.Inf(-1))
		}
		return binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	f64 := func(b []byte) []byte {
		v := r.NormFloat64() * 1e6
		if r.IntN(20) == 0 {
			v = math.NaN()
		}
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	// array appends an array of n items in blocks of random counts, a
	// block's count negative with its size at random.
	array := func(b []byte, n int, item func([]byte) []byte) []byte {
		for n > 0 {
			k := 1 + r.IntN(n)
			var items []byte
			for range k {
				items = item(items)
			}
			if r.IntN(2) == 0 {
				b = binary.AppendVarint(b, int64(-k))
				b = binary.AppendVarint(b, int64(len(items)))
			} else {
				b = binary.AppendVarint(b, int64(k))
			}
			b = append(b, items...)
			n -= k
		}
		return append(b, 0)
	}
	opts := &Options{WriterOptions: format.WriterOptions{Codec: "snappy", Checksum: "crc32", BlockSize: 64}}
	var fast, generic bytes.Buffer
	fw, err := NewAvroWriter(&fast, fixedSchema, opts)
	if err != nil {
		t.Fatal(err)
	}
	gw, err := NewAvroWriter(&generic, fixedSchema, opts)
	if err != nil {
		t.Fatal(err)
	}
	for range 2000 {
		var rec []byte
		rec = array(rec, r.IntN(7), func(b []byte) []byte { return f32(f64(f32(b))) })
		rec = array(rec, r.IntN(7), f32)
		rec = array(rec, r.IntN(7), f64)
		rec = array(rec, r.IntN(4), func(b []byte) []byte { return binary.AppendVarint(f32(b), int64(r.Int32())) })
		if err := fw.WriteBinary(rec); err != nil {
			t.Fatal(err)
		}
		v, rest, err := codec.NativeFromBinary(rec)
		if err != nil || len(rest) != 0 {
			t.Fatalf("goavro: %v, %d bytes left", err, len(rest))
		}
		if err := gw.Write(v); err != nil {
			t.Fatal(err)
		}
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gw.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fast.Bytes(), generic.Bytes()) {
		t.Fatalf("WriteBinary and Write differ: %d and %d bytes", fast.Len(), generic.Len())
	}

	// Items cut short: the count claims more than the bytes hold.
	short := []byte{4} // 2 items of 16 bytes
	short = append(short, make([]byte, 20)...)
	fw, err = NewAvroWriter(&fast, fixedSchema, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.WriteBinary(short); !errors.Is(err, ErrBinary) {
		t.Fatalf("items cut short: got %v, want ErrBinary", err)
	}
}

// TestStringItems writes arrays of strings (taken by runStrings) in one
// Avro block and in several, through WriteBinary and through Write, and
// checks that the files are the same bytes; and that a string item that
// is not UTF-8 is refused with the path of the item.
func TestStringItems(t *testing.T) {
	const text = `{"type":"record","name":"R","fields":[{"name":"tags","type":{"type":"array","items":"string"}}]}`
	codec, err := goavro.NewCodec(text)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 8))
	opts := &Options{WriterOptions: format.WriterOptions{Codec: "snappy", Checksum: "crc32", BlockSize: 64}}
	var fast, generic bytes.Buffer
	fw, err := NewAvroWriter(&fast, text, opts)
	if err != nil {
		t.Fatal(err)
	}
	gw, err := NewAvroWriter(&generic, text, opts)
	if err != nil {
		t.Fatal(err)
	}
	for range 2000 {
		var rec []byte
		for n := r.IntN(8); n > 0; {
			k := 1 + r.IntN(n)
			rec = binary.AppendVarint(rec, int64(k))
			for range k {
				s := make([]byte, r.IntN(90)) // lengths of one varint byte and of two
				for i := range s {
					s[i] = byte('a' + r.IntN(26))
				}
				rec = binary.AppendVarint(rec, int64(len(s)))
				rec = append(rec, s...)
			}
			n -= k
		}
		rec = append(rec, 0)
		if err := fw.WriteBinary(rec); err != nil {
			t.Fatal(err)
		}
		v, _, err := codec.NativeFromBinary(rec)
		if err != nil {
			t.Fatal(err)
		}
		if err := gw.Write(v); err != nil {
			t.Fatal(err)
		}
	}
	bad := []byte{6, 2, 'a', 2, 'b', 2, 0xff, 0}
	err = fw.WriteBinary(bad)
	if !errors.Is(err, ErrBinary) || !strings.Contains(err.Error(), "tags[2]") {
		t.Errorf("item not UTF-8: got %v, want ErrBinary at tags[2]", err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gw.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fast.Bytes(), generic.Bytes()) {
		t.Fatalf("WriteBinary and Write differ: %d and %d bytes", fast.Len(), generic.Len())
	}
}
