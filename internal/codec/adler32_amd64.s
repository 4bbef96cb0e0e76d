//go:build amd64 && !purego

#include "textflag.h"

// Adler-32's sums of 32-byte blocks with AVX2 (see adler32_amd64.go):
// VPSADBW sums each eight bytes into a 64-bit lane, VPMADDUBSW multiplies
// the bytes by their weights 32..1 and adds neighbours into 16-bit lanes
// (at most 255·(32+31), no saturation), VPMADDWD adds those pairwise into
// 32-bit lanes.

DATA adlerWeights<>+0(SB)/8, $0x191a1b1c1d1e1f20
DATA adlerWeights<>+8(SB)/8, $0x1112131415161718
DATA adlerWeights<>+16(SB)/8, $0x090a0b0c0d0e0f10
DATA adlerWeights<>+24(SB)/8, $0x0102030405060708
GLOBL adlerWeights<>(SB), RODATA|NOPTR, $32

DATA adlerOnes<>+0(SB)/8, $0x0001000100010001
DATA adlerOnes<>+8(SB)/8, $0x0001000100010001
DATA adlerOnes<>+16(SB)/8, $0x0001000100010001
DATA adlerOnes<>+24(SB)/8, $0x0001000100010001
GLOBL adlerOnes<>(SB), RODATA|NOPTR, $32

// func adlerSumsAVX2(p []byte) (sum, prefix, weighted uint64)
TEXT ·adlerSumsAVX2(SB), NOSPLIT, $0-48
	MOVQ p_base+0(FP), SI
	MOVQ p_len+8(FP), CX
	SHRQ $5, CX
	VPXOR Y0, Y0, Y0 // zero
	VPXOR Y1, Y1, Y1 // the bytes' sums, four 64-bit lanes
	VPXOR Y2, Y2, Y2 // Y1 before each block, summed
	VPXOR Y3, Y3, Y3 // the weighted sums, eight 32-bit lanes
	VMOVDQU adlerWeights<>(SB), Y4
	VMOVDQU adlerOnes<>(SB), Y5
	TESTQ CX, CX
	JZ done

loop:
	VMOVDQU (SI), Y6
	VPADDQ Y1, Y2, Y2
	VPSADBW Y0, Y6, Y7
	VPADDQ Y7, Y1, Y1
	VPMADDUBSW Y4, Y6, Y6
	VPMADDWD Y5, Y6, Y6
	VPADDD Y6, Y3, Y3
	ADDQ $32, SI
	DECQ CX
	JNZ loop

done:
	VEXTRACTI128 $1, Y1, X6
	VPADDQ X6, X1, X1
	VPSHUFD $0x4e, X1, X6
	VPADDQ X6, X1, X1
	VMOVQ X1, AX
	MOVQ AX, sum+24(FP)
	VEXTRACTI128 $1, Y2, X6
	VPADDQ X6, X2, X2
	VPSHUFD $0x4e, X2, X6
	VPADDQ X6, X2, X2
	VMOVQ X2, AX
	MOVQ AX, prefix+32(FP)
	VEXTRACTI128 $1, Y3, X6
	VPADDD X6, X3, X3
	VPSHUFD $0x4e, X3, X6
	VPADDD X6, X3, X3
	VPSHUFD $0xb1, X3, X6
	VPADDD X6, X3, X3
	VMOVD X3, AX
	MOVQ AX, weighted+40(FP)
	VZEROUPPER
	RET
