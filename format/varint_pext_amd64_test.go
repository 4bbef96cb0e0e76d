//go:build amd64 && !purego

package format

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDecodeVarintBlockWithoutPEXT runs the block decoders' checks with
// the assembly chunks turned off, so that the Go chunk decoder
// (decodeChunk) keeps being checked on processors that have PEXT.
func TestDecodeVarintBlockWithoutPEXT(t *testing.T) {
	if !havePEXT {
		t.Skip("the processor has no fast PEXT: the other tests check the Go decoders")
	}
	havePEXT = false
	defer func() { havePEXT = true }()
	TestDecodeVarintBlockAsSingleReads(t)
	TestDecodeVarintBlockErrors(t)
}

// TestDecodeChunkPEXTAsDecodeChunk checks the assembly chunk decoders
// against decodeChunk, value for value and byte for byte, on chunks of
// varints of every length they take (longs of 1 to 8 bytes, ints of 1 to
// 5, ints of 5 bytes whose last byte has bits past the 32 kept), mixed
// and in runs, into outputs shorter and longer than the chunk's values.
func TestDecodeChunkPEXTAsDecodeChunk(t *testing.T) {
	if !havePEXT {
		t.Skip("the processor has no fast PEXT")
	}
	r := rand.New(rand.NewPCG(35, 3))
	for round := range 20000 {
		long := round%2 == 0
		maxLen := 5
		if long {
			maxLen = 8
		}
		run := 1 + r.IntN(maxLen)
		var b []byte
		for len(b) < varintChunk+16 {
			n := run
			if r.IntN(3) == 0 {
				n = 1 + r.IntN(maxLen)
			}
			for range n - 1 {
				b = append(b, byte(r.IntN(256))|0x80)
			}
			b = append(b, byte(r.IntN(128)))
		}
		a := (*[varintChunk + 16]byte)(b)
		c := continuations(a)
		last := uint64(0x8080808080)
		if long {
			last = 0x8080808080808080
		}
		if longRun(c, last) {
			continue
		}
		size := 1 + r.IntN(70)
		if long {
			got, want := make([]int64, size), make([]int64, size)
			gp, gk := decodeChunkPEXT64(a, ^c, got)
			wp, wk := decodeChunk(a, ^c, want, last, ^uint64(0))
			if gp != wp || gk != wk || !slices.Equal(got[:gk], want[:wk]) {
				t.Fatalf("longs % x, out of %d: PEXT took %d bytes, %d values %v; decodeChunk %d, %d %v", b[:varintChunk], size, gp, gk, got[:gk], wp, wk, want[:wk])
			}
		} else {
			got, want := make([]int32, size), make([]int32, size)
			gp, gk := decodeChunkPEXT32(a, ^c, got)
			wp, wk := decodeChunk(a, ^c, want, last, 0xffffffff)
			if gp != wp || gk != wk || !slices.Equal(got[:gk], want[:wk]) {
				t.Fatalf("ints % x, out of %d: PEXT took %d bytes, %d values %v; decodeChunk %d, %d %v", b[:varintChunk], size, gp, gk, got[:gk], wp, wk, want[:wk])
			}
		}
	}
	// The extremes: the largest and smallest long of 8 bytes and int of 5.
	for _, v := range []int64{1<<55 - 1, -1 << 55, 1<<31 - 1, -1 << 31} {
		var b []byte
		for len(b) < varintChunk+16 {
			b = binary.AppendVarint(b, v)
		}
		a := (*[varintChunk + 16]byte)(b)
		c := continuations(a)
		got := make([]int64, 64)
		_, k := decodeChunkPEXT64(a, ^c, got)
		for _, x := range got[:k] {
			if x != v {
				t.Fatalf("%d decoded as %d", v, x)
			}
		}
	}
}

// TestSlowPEXT checks which processors keep the Go decoder, from the
// vendors and signatures CPUID reports: AMD's Zen 1 and 2 (family 0x17)
// and Hygon's run PEXT in microcode; Zen 3 and 4 (0x19) and Zen 5 (0x1a),
// and Intel's, do not.
func TestSlowPEXT(t *testing.T) {
	const (
		amdB, amdD, amdC       = 0x68747541, 0x69746e65, 0x444d4163 // AuthenticAMD
		intelB, intelD, intelC = 0x756e6547, 0x49656e69, 0x6c65746e // GenuineIntel
		hygonB, hygonD, hygonC = 0x6f677948, 0x6e65476e, 0x656e6975 // HygonGenuine
	)
	for _, c := range []struct {
		name       string
		b, c, d, a uint32
		slow       bool
	}{
		{"Zen 1 (EPYC 7001)", amdB, amdC, amdD, 0x00800f12, true},
		{"Zen 2 (EPYC 7002)", amdB, amdC, amdD, 0x00830f10, true},
		{"Zen 3 (EPYC 7003)", amdB, amdC, amdD, 0x00a00f11, false},
		{"Zen 4 (EPYC 9004)", amdB, amdC, amdD, 0x00a10f11, false},
		{"Zen 5", amdB, amdC, amdD, 0x00b00f21, false},
		{"Hygon Dhyana", hygonB, hygonC, hygonD, 0x00900f01, true},
		{"Intel Haswell", intelB, intelC, intelD, 0x000306c3, false},
		{"Intel Sapphire Rapids", intelB, intelC, intelD, 0x000806f8, false},
	} {
		if got := slowPEXTOf(c.b, c.c, c.d, c.a); got != c.slow {
			t.Errorf("%s: slow PEXT %v, want %v", c.name, got, c.slow)
		}
	}
}
