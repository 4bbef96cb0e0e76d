package trevni1

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/trevni-go/trevni/internal/avrobin"
)

// The bit scans of the Source (zeroBits, zerosEnd, onesIn) against a bit
// at a time, over random streams of every density, from every position.
func TestBitScansAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	bit := func(b []byte, i int64) int { return int(b[i>>3] >> (i & 7) & 1) }
	for round := range 300 {
		n := int64(r.IntN(300))
		b := make([]byte, int((n+7)/8)+r.IntN(3))
		ones := []int{0, 1, 8, 15, 16}[round%5]
		for i := range b {
			for k := range 8 {
				if r.IntN(16) < ones {
					b[i] |= 1 << k
				}
			}
		}
		it := zeroBits{b: b, n: n, base: -64}
		for after := int64(-1); after < n; after++ {
			want := n
			for i := after + 1; i < n; i++ {
				if bit(b, i) == 0 {
					want = i
					break
				}
			}
			if got := it.next(after); got != want {
				t.Fatalf("round %d: next(%d) = %d, want %d", round, after, got, want)
			}
			if after < 0 {
				continue
			}
			e := after
			most := int64(r.IntN(5))
			wantEnd, wantZeros := n, int64(0)
			for i := e; i < n; i++ {
				if bit(b, i) == 0 {
					if wantZeros == most {
						wantEnd = i
						break
					}
					wantZeros++
				}
			}
			if end, zeros := zerosEnd(b, e, n, most); end != wantEnd || zeros != wantZeros {
				t.Fatalf("round %d: zerosEnd(%d, %d) = %d, %d, want %d, %d", round, e, most, end, zeros, wantEnd, wantZeros)
			}
			end := e + int64(r.IntN(int(n-e)+1))
			c := int64(0)
			for i := e; i < end; i++ {
				c += int64(bit(b, i))
			}
			if got := onesIn(b, e, end); got != c {
				t.Fatalf("round %d: onesIn(%d, %d) = %d, want %d", round, e, end, got, c)
			}
		}
	}
}

// canonicalVarints accepts what readValue reads and version 2 writes, and
// nothing else: against decoding, over random and hand-made varints, a
// few (looked at a byte at a time) or many (eight bytes at a time), the
// bad ones rare or not.
func TestCanonicalVarintsAgainstDecoding(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for round := range 6000 {
		var v []byte
		k := r.IntN(4)
		bad := 4
		if round%2 == 1 {
			k, bad = r.IntN(60), 4+r.IntN(200)
		}
		for range k + r.IntN(2) {
			switch r.IntN(bad + 3) {
			case 0:
				v = append(v, byte(r.IntN(256)), byte(r.IntN(256)))
			case 1:
				v = append(v, 0x80, 0x00) // not canonical
			case 2:
				v = append(v, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, byte(r.IntN(3))) // a long's longest, or past it
			case 3:
				v = avrobin.AppendLong(v, r.Int64())
			case 4:
				v = avrobin.AppendLong(v, int64(r.Int32()))
			default:
				v = avrobin.AppendLong(v, r.Int64N(1<<uint(r.IntN(63)))-r.Int64N(1<<uint(r.IntN(63))))
			}
		}
		for _, typ := range []Type{Int, Long} {
			lo, hi := typ.intRange()
			want, wantOK, p := 0, true, 0
			for range k {
				x, n := avrobin.ConsumeLong(v[p:])
				if n < 0 || x < lo || x > hi || n != len(avrobin.AppendLong(nil, x)) {
					wantOK = false
					break
				}
				p += n
			}
			if wantOK {
				want = p
			}
			got, ok := canonicalVarints(v, typ, int64(k))
			if ok != wantOK || (ok && got != want) {
				t.Fatalf("%s, %d values of % x: %d, %v; decoding says %d, %v", typ, k, v, got, ok, want, wantOK)
			}
		}
	}
}

// optionalVarints writes what optionalLengths writes for an ["null", int]
// or ["null", long] and accepts what canonicalVarints accepts: against
// decoding, over random presence bits and varints (see
// TestCanonicalVarintsAgainstDecoding), good and bad.
func TestOptionalVarintsAgainstDecoding(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for round := range 4000 {
		n := int64(r.IntN(90))
		e := int64(r.IntN(int(n) + 1))
		defs := make([]byte, (n+7)/8)
		for i := range defs {
			defs[i] = byte(r.IntN(256))
		}
		var v []byte
		for range r.IntN(int(n) + 2) {
			switch r.IntN(40) {
			case 0:
				v = append(v, 0x80, 0x00) // not canonical
			case 1:
				v = append(v, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, byte(r.IntN(3)))
			case 2:
				v = avrobin.AppendLong(v, r.Int64())
			default:
				v = avrobin.AppendLong(v, r.Int64N(1<<uint(r.IntN(40)))-r.Int64N(1<<uint(r.IntN(40))))
			}
		}
		for _, typ := range []Type{Int, Long} {
			lo, hi := typ.intRange()
			want, p, k, wantOK := []byte{0xee}, 0, int64(0), true
			for i := e; i < n && wantOK; i++ {
				if defs[i>>3]>>(i&7)&1 == 0 {
					want = append(want, 0)
					continue
				}
				x, l := avrobin.ConsumeLong(v[p:])
				if l < 0 || x < lo || x > hi || l != len(avrobin.AppendLong(nil, x)) {
					wantOK = false
					break
				}
				want = append(append(want, 2), v[p:p+l]...)
				p, k = p+l, k+1
			}
			out := make([]byte, 1+int(n-e)+len(v))
			out[0] = 0xee
			o, gotP, gotK, ok := optionalVarints(out, 1, defs, e, n, v, typ)
			if ok != wantOK {
				t.Fatalf("round %d, %s: ok %v, decoding says %v (defs % x, values % x)", round, typ, ok, wantOK, defs, v)
			}
			if ok && (!bytes.Equal(out[:o], want) || gotP != p || gotK != k) {
				t.Fatalf("round %d, %s: wrote % x, took %d bytes, %d values; want % x, %d, %d", round, typ, out[:o], gotP, gotK, want, p, k)
			}
		}
	}
}
