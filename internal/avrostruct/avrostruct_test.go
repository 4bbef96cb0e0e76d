package avrostruct

import (
	"errors"
	"reflect"
	"testing"
	"unsafe"

	"github.com/trevni-go/trevni/internal/avrobin"
	"github.com/trevni-go/trevni/schema"
)

type inner struct {
	A string
	B []int32
}

type rec struct {
	ID   int64 `avro:"id"`
	Name string
	Opt  *float64
	Key  [2]byte
	Kids []inner
	M    map[string]*inner
}

// Every truncation of a record's encoding is refused, never a panic, and
// the whole decodes back to the value encoded.
func TestDecodeTruncated(t *testing.T) {
	text, err := Derive(reflect.TypeFor[rec](), "ns")
	if err != nil {
		t.Fatal(err)
	}
	s := schema.MustParse(text)
	wp, _, err := Compile(s, reflect.TypeFor[rec](), Write)
	if err != nil {
		t.Fatal(err)
	}
	rp, projected, err := Compile(s, reflect.TypeFor[rec](), Read)
	if err != nil || projected.String() != s.String() {
		t.Fatalf("projection of the whole type: %v, %s", err, projected)
	}
	one := 2.5
	v := rec{ID: -7, Name: "héllo", Opt: &one, Key: [2]byte{1, 2}, Kids: []inner{{A: "x", B: []int32{1, -1}}, {}},
		M: map[string]*inner{"k": {A: "y"}}} // an empty array reads as nil into a nil slice
	b, err := Encode(nil, wp, unsafe.Pointer(&v))
	if err != nil {
		t.Fatal(err)
	}
	var d Decoder
	for n := range len(b) {
		var got rec
		if err := d.Decode(b[:n], rp, unsafe.Pointer(&got)); !errors.Is(err, ErrBinary) {
			t.Fatalf("%d of %d bytes: %v", n, len(b), err)
		}
	}
	var got rec
	if err := d.Decode(b, rp, unsafe.Pointer(&got)); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, v) {
		t.Fatalf("got %+v, want %+v", got, v)
	}
}

// A long out of int32's range where the schema says int is refused, not
// truncated into the Go field.
func TestDecodeIntRange(t *testing.T) {
	type ints struct {
		A int
		B int32
		C int64 `avro:"c,int"`
	}
	s := schema.MustParse(`{"type":"record","name":"R","fields":[{"name":"A","type":"int"},{"name":"B","type":"int"},{"name":"c","type":"int"}]}`)
	rp, _, err := Compile(s, reflect.TypeFor[ints](), Read)
	if err != nil {
		t.Fatal(err)
	}
	var d Decoder
	for i := range 3 {
		vals := []int64{1, 2, 3}
		vals[i] = 1 << 31
		var b []byte
		for _, v := range vals {
			b = avrobin.AppendLong(b, v)
		}
		var got ints
		if err := d.Decode(b, rp, unsafe.Pointer(&got)); !errors.Is(err, ErrBinary) {
			t.Errorf("field %d of 2^31: %v, %+v", i, err, got)
		}
		vals[i] = -1 << 31
		b = b[:0]
		for _, v := range vals {
			b = avrobin.AppendLong(b, v)
		}
		if err := d.Decode(b, rp, unsafe.Pointer(&got)); err != nil || got != (ints{A: int(vals[0]), B: int32(vals[1]), C: vals[2]}) {
			t.Errorf("field %d of -2^31: %v, %+v", i, err, got)
		}
	}
}
