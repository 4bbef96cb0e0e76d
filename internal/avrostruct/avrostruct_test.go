package avrostruct

import (
	"errors"
	"reflect"
	"testing"
	"unsafe"

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
