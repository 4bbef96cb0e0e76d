//go:build amd64 && !purego

package format

import "golang.org/x/sys/cpu"

// havePEXT says whether the chunks of varints may be decoded by
// decodeChunkPEXT64 and decodeChunkPEXT32: the processor has BMI2 and
// POPCNT, and its PEXT is fast (AMD's before Zen 3, family 0x19, and
// Hygon's, of Zen 1, run it in microcode, slower than the Go decoder).
var havePEXT = cpu.X86.HasBMI2 && cpu.X86.HasPOPCNT && !slowPEXT()

// slowPEXT reports an AMD processor of a family before 0x19, or a
// Hygon one.
func slowPEXT() bool {
	_, b, c, d := cpuid(0, 0)
	a, _, _, _ := cpuid(1, 0)
	return slowPEXTOf(b, c, d, a)
}

// slowPEXTOf is slowPEXT for the vendor of CPUID leaf 0 (b, c, d: EBX,
// ECX, EDX) and the signature of leaf 1 (a: EAX).
func slowPEXTOf(b, c, d, a uint32) bool {
	if b == 0x6f677948 && d == 0x6e65476e && c == 0x656e6975 { // "HygonGenuine"
		return true
	}
	if b != 0x68747541 || d != 0x69746e65 || c != 0x444d4163 { // "AuthenticAMD"
		return false
	}
	family := a >> 8 & 0xf
	if family == 0xf {
		family += a >> 20 & 0xff
	}
	return family < 0x19
}

// cpuid returns the registers CPUID leaves for leaf eax, subleaf ecx.
//
//go:noescape
func cpuid(eax, ecx uint32) (a, b, c, d uint32)

// decodeChunkPEXT64 is decodeChunk for longs of at most 8 bytes each.
//
//go:noescape
func decodeChunkPEXT64(a *[varintChunk + 16]byte, ends uint64, out []int64) (int, int)

// decodeChunkPEXT32 is decodeChunk for ints of at most 5 bytes each.
//
//go:noescape
func decodeChunkPEXT32(a *[varintChunk + 16]byte, ends uint64, out []int32) (int, int)
