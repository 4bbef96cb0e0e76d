//go:build amd64 && !purego

#include "textflag.h"

// PROLOGUE loads the arguments of decodeChunkPEXT64 and 32 (a in SI,
// ends in DX, out in DI, len(out) in CX), makes CX the count of values
// to decode (the fewer of len(out) and the values ending in the chunk),
// zeroes the value index R8 and the byte offset R9, and puts the mask of
// the 7-bit groups in R10.
#define PROLOGUE \
	MOVQ a+0(FP), SI \
	MOVQ ends+8(FP), DX \
	MOVQ out_base+16(FP), DI \
	MOVQ out_len+24(FP), CX \
	POPCNTQ DX, AX \
	CMPQ AX, CX \
	CMOVQLT AX, CX \
	XORQ R8, R8 \
	XORQ R9, R9 \
	MOVQ $0x7f7f7f7f7f7f7f7f, R10

// VALUE decodes the value starting at byte R9 into R13, its 7-bit groups
// packed and its zig-zag not yet undone, and sets R12 to the byte after
// it: its end is the lowest set bit of ends (R12 = the count of the bits
// up to it, POPCNT rather than BSF, whose result would wait on the
// register's old value), which is then cleared; its bytes are kept of
// the 8 loaded at its start (BZHI) and packed (PEXT).
#define VALUE \
	LEAQ -1(DX), R11 \
	MOVQ DX, R12 \
	XORQ R11, R12 \
	POPCNTQ R12, R12 \
	ANDQ R11, DX \
	MOVQ (SI)(R9*1), R13 \
	MOVQ R12, R14 \
	SUBQ R9, R14 \
	SHLQ $3, R14 \
	BZHIQ R14, R13, R13 \
	PEXTQ R10, R13, R13

// func decodeChunkPEXT64(a *[varintChunk + 16]byte, ends uint64, out []int64) (int, int)
//
// The values that end in the 64 bytes at a (a set bit of ends for each
// byte that ends one, each of at most 8 bytes), up to len(out), their
// zig-zag undone. Returns the bytes and the values taken.
TEXT ·decodeChunkPEXT64(SB), NOSPLIT, $0-56
	PROLOGUE
	TESTQ CX, CX
	JEQ done64

loop64:
	VALUE
	MOVQ R13, R15
	SHRQ $1, R15
	ANDQ $1, R13
	NEGQ R13
	XORQ R13, R15
	MOVQ R15, (DI)(R8*8)
	MOVQ R12, R9
	INCQ R8
	CMPQ R8, CX
	JLT loop64

done64:
	MOVQ R9, ret+40(FP)
	MOVQ R8, ret1+48(FP)
	RET

// func decodeChunkPEXT32(a *[varintChunk + 16]byte, ends uint64, out []int32) (int, int)
//
// decodeChunkPEXT64 for ints of at most 5 bytes: of each value the low
// 32 bits are kept before the zig-zag is undone, as readInt does.
TEXT ·decodeChunkPEXT32(SB), NOSPLIT, $0-56
	PROLOGUE
	TESTQ CX, CX
	JEQ done32

loop32:
	VALUE
	MOVL R13, R15
	SHRL $1, R15
	ANDL $1, R13
	NEGL R13
	XORL R13, R15
	MOVL R15, (DI)(R8*4)
	MOVQ R12, R9
	INCQ R8
	CMPQ R8, CX
	JLT loop32

done32:
	MOVQ R9, ret+40(FP)
	MOVQ R8, ret1+48(FP)
	RET

// func cpuid(eax, ecx uint32) (a, b, c, d uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eax+0(FP), AX
	MOVL ecx+4(FP), CX
	CPUID
	MOVL AX, a+8(FP)
	MOVL BX, b+12(FP)
	MOVL CX, c+16(FP)
	MOVL DX, d+20(FP)
	RET
