//go:build amd64 && !purego

#include "textflag.h"

// func decodeChunkPEXT64(a *[varintChunk + 16]byte, ends uint64, out []int64) (int, int)
//
// The values that end in the 64 bytes at a (a set bit of ends for each
// byte that ends one, each of at most 8 bytes), up to len(out): each
// value's bytes are kept of the 8 loaded at its start (BZHI), their 7-bit
// groups packed (PEXT) and the zig-zag undone. Returns the bytes and the
// values taken.
TEXT ·decodeChunkPEXT64(SB), NOSPLIT, $0-56
	MOVQ a+0(FP), SI
	MOVQ ends+8(FP), DX
	MOVQ out_base+16(FP), DI
	MOVQ out_len+24(FP), CX
	POPCNTQ DX, AX
	CMPQ AX, CX
	CMOVQLT AX, CX
	XORQ R8, R8
	XORQ R9, R9
	MOVQ $0x7f7f7f7f7f7f7f7f, R10
	TESTQ CX, CX
	JEQ done64

loop64:
	LEAQ -1(DX), R11
	MOVQ DX, R12
	XORQ R11, R12
	POPCNTQ R12, R12
	ANDQ R11, DX
	MOVQ (SI)(R9*1), R13
	MOVQ R12, R14
	SUBQ R9, R14
	SHLQ $3, R14
	BZHIQ R14, R13, R13
	PEXTQ R10, R13, R13
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
	MOVQ a+0(FP), SI
	MOVQ ends+8(FP), DX
	MOVQ out_base+16(FP), DI
	MOVQ out_len+24(FP), CX
	POPCNTQ DX, AX
	CMPQ AX, CX
	CMOVQLT AX, CX
	XORQ R8, R8
	XORQ R9, R9
	MOVQ $0x7f7f7f7f7f7f7f7f, R10
	TESTQ CX, CX
	JEQ done32

loop32:
	LEAQ -1(DX), R11
	MOVQ DX, R12
	XORQ R11, R12
	POPCNTQ R12, R12
	ANDQ R11, DX
	MOVQ (SI)(R9*1), R13
	MOVQ R12, R14
	SUBQ R9, R14
	SHLQ $3, R14
	BZHIQ R14, R13, R13
	PEXTQ R10, R13, R13
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
