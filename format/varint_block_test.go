package format

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/trevni-go/trevni/internal/testing/longtest"
)

// sameAsSingleReads decodes b from pos by the block decoders as
// readVarints does (the block decoder, the single-value read where it
// stops), into want values, and by the single-value reads alone (the
// plain decoder: readLong or readInt, one value at a time), and fails
// unless both give the same values, end at the same byte and meet the same
// error. It also fails if the block decoder stops at a value that the
// single read decodes when more than 10 bytes are left after it: it may
// leave only the end of the block, and errors, to the single reads.
func sameAsSingleReads[T int32 | int64](t *testing.T, b []byte, pos, want int, batch func([]byte, int, []T) (int, int), one func(*decoder) (T, error)) {
	t.Helper()
	ref := decoder{b: b, pos: pos}
	var refVals []T
	var refErr error
	for range want {
		v, err := one(&ref)
		if err != nil {
			refErr = err
			break
		}
		refVals = append(refVals, v)
	}
	got := make([]T, want)
	d := decoder{b: b, pos: pos}
	n := 0
	var err error
	for n < want {
		var k int
		p := d.pos
		d.pos, k = batch(b, d.pos, got[n:])
		if d.pos < p || d.pos > len(b) || k > want-n {
			t.Fatalf("block decoder from byte %d: at byte %d after %d values", p, d.pos, k)
		}
		if n += k; n == want {
			break
		}
		at := d.pos
		v, e := one(&d)
		if e != nil {
			err = e
			break
		}
		if len(b)-d.pos > 10 {
			t.Fatalf("block decoder stopped at byte %d of %d before a value it could take (%d, to byte %d)", at, len(b), v, d.pos)
		}
		got[n] = v
		n++
	}
	got = got[:n]
	if fmt.Sprint(got) != fmt.Sprint(refVals) || !errors.Is(err, refErr) || (err == nil) != (refErr == nil) || d.pos != ref.pos && err == nil {
		t.Fatalf("from byte %d of %d: block decoding gave %d values to byte %d and %v; single reads %d to byte %d and %v\n%v\n%v",
			pos, len(b), len(got), d.pos, err, len(refVals), ref.pos, refErr, got, refVals)
	}
}

// checkBlock checks both decoders, as longs and as ints, on b from pos.
func checkBlock(t *testing.T, b []byte, pos, want int) {
	t.Helper()
	sameAsSingleReads(t, b, pos, want, decodeLongs, (*decoder).readLong)
	sameAsSingleReads(t, b, pos, want, decodeInts, (*decoder).readInt)
}

// damagedVarints returns a block of r's varints of lengths drawn from a
// random mix (one to ten bytes, runs of one length), some of them damaged:
// overlong (continuation bytes beyond 5 or 10), cut short by the block's
// end, or a byte flipped.
func damagedVarints(r *rand.Rand) []byte {
	var b []byte
	size := 1 + r.IntN(2000)
	for len(b) < size {
		bitsN := r.IntN(65)
		run := 1 + r.IntN(100)
		for range run {
			v := int64(r.Uint64() >> (64 - bitsN))
			if bitsN == 0 {
				v = 0
			}
			b = binary.AppendVarint(b, v)
		}
		switch r.IntN(12) {
		case 0: // an overlong varint
			for range 5 + r.IntN(8) {
				b = append(b, 0x80|byte(r.IntN(128)))
			}
			b = append(b, byte(r.IntN(128)))
		case 1: // a flipped byte
			if len(b) > 0 {
				b[r.IntN(len(b))] ^= 1 << r.IntN(8)
			}
		}
	}
	if r.IntN(3) == 0 { // cut short
		b = b[:r.IntN(len(b)+1)]
	}
	return b
}

// TestDecodeVarintBlockAsSingleReads checks the block decoders of ints and
// longs against the single-value reads over random blocks of varints of
// every length, damaged and not, from every start in the first bytes, and
// over the blocks of the benchmark's shapes.
func TestDecodeVarintBlockAsSingleReads(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 1))
	for range longtest.Rounds(300, 5000) {
		b := damagedVarints(r)
		for pos := range min(len(b), 12) {
			checkBlock(t, b, pos, 1+r.IntN(3000))
		}
	}
	for s := range varintShapes {
		b, n := varintBlock(s, 4<<10)
		sameAsSingleReads(t, b, 0, n, decodeLongs, (*decoder).readLong)
		if !varintShapes[s].long {
			sameAsSingleReads(t, b, 0, n, decodeInts, (*decoder).readInt)
		}
	}
}

// TestDecodeVarintBlockErrors checks the errors the batch reads meet
// where the block decoders leave a value to the single reads: a long of
// more than 10 bytes, an int of more than 5, a value cut by the block's
// end, after a run of values the chunks take (of 4 and of 1 byte).
func TestDecodeVarintBlockErrors(t *testing.T) {
	for _, lead := range []int64{1 << 24, 1} {
		var b []byte
		for range 100 {
			b = binary.AppendVarint(b, lead)
		}
		overlong := append(append([]byte(nil), b...), 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 1)
		overlong = append(overlong, make([]byte, 100)...)
		int6 := append(append([]byte(nil), b...), 0x80, 0x80, 0x80, 0x80, 0x80, 1)
		int6 = append(int6, make([]byte, 100)...)
		cut := append(append([]byte(nil), b...), 0x80)
		for _, c := range []struct {
			name    string
			b       []byte
			long    bool
			wantErr error
		}{
			{"long of 12 bytes", overlong, true, errLongVarint},
			{"int of 6 bytes", int6, false, errIntVarint},
			{"long cut by the end", cut, true, errTruncated},
			{"int cut by the end", cut, false, errTruncated},
		} {
			d := decoder{b: c.b}
			var err error
			if c.long {
				err = decodeAll(&d, make([]int64, 200), decodeLongs, (*decoder).readLong)
			} else {
				err = decodeAll(&d, make([]int32, 200), decodeInts, (*decoder).readInt)
			}
			if !errors.Is(err, c.wantErr) {
				t.Errorf("%s after 100 values of %d: %v, want %v", c.name, lead, err, c.wantErr)
			}
			checkBlock(t, c.b, 0, 200)
		}
	}
}

// FuzzDecodeVarintBlock checks the block decoders against the single-value
// reads on any bytes.
func FuzzDecodeVarintBlock(f *testing.F) {
	r := rand.New(rand.NewPCG(35, 2))
	for range 8 {
		f.Add(damagedVarints(r), uint8(0), uint16(3000))
	}
	for s := range varintShapes {
		b, n := varintBlock(s, 600)
		f.Add(b, uint8(1), uint16(n))
	}
	f.Fuzz(func(t *testing.T, b []byte, pos uint8, want uint16) {
		checkBlock(t, b, min(int(pos), len(b)), int(want)%4096+1)
	})
}
