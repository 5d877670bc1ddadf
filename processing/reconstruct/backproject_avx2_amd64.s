#include "textflag.h"

// The AVX2 back-projection loops of accumulate and accumulate2
// (backproject_amd64.go), for CPUs without AVX-512: lerpAdd8's and
// lerpAdd8x2's steps four slice columns at a time, the same
// operations lane for lane, so a slice is the same bit for bit on
// either. AVX2 has no 64-bit arithmetic shift nor unsigned 64-bit to
// float64 conversion: positions are non-negative (detectorSpan), so a
// logical shift gives the column; the fraction, under 2^32, is made
// exact by planting it in the mantissa of 2^52 and subtracting 2^52.

// LERP4 leaves in out the four columns' samples of col at the positions
// pos: gathers each lane's two neighbouring float32 (mask Y9, columns
// Y4, pair Y5, halves Y6 and X8), weighs them by the exact fraction
// (Y10), v0 + t·(v1 − v0); Y2, Y3 and Y13 hold the fraction mask, 2^-32
// and 2^52.
#define LERP4(pos, col, out) \
	VPSRLQ $32, pos, Y4 \
	VPCMPEQD Y9, Y9, Y9 \
	VPXOR Y5, Y5, Y5 \
	VPGATHERQQ Y9, (col)(Y4*4), Y5 \
	VPSHUFD $0xd8, Y5, Y6 \
	VPERMQ $0xd8, Y6, Y6 \
	VCVTPS2PD X6, out \
	VEXTRACTI128 $1, Y6, X8 \
	VCVTPS2PD X8, Y8 \
	VSUBPD out, Y8, Y8 \
	VPAND Y2, pos, Y10 \
	VPOR Y13, Y10, Y10 \
	VSUBPD Y13, Y10, Y10 \
	VMULPD Y3, Y10, Y10 \
	VFMADD231PD Y10, Y8, out

// CONSTS4 sets LERP4's constants: Y2 the fraction mask, Y3 2^-32 and
// Y13 2^52 as float64 (DX is clobbered).
#define CONSTS4 \
	MOVQ $0xffffffff, DX \
	MOVQ DX, X2 \
	VPBROADCASTQ X2, Y2 \
	MOVQ $0x3df0000000000000, DX \
	MOVQ DX, X3 \
	VPBROADCASTQ X3, Y3 \
	MOVQ $0x4330000000000000, DX \
	MOVQ DX, X13 \
	VPBROADCASTQ X13, Y13

// func lerpAdd4(acc *float64, groups int, col *float32, pos *[4]int64, step int64)
TEXT ·lerpAdd4(SB), NOSPLIT, $0-40
	MOVQ acc+0(FP), DI
	MOVQ groups+8(FP), CX
	MOVQ col+16(FP), SI
	MOVQ pos+24(FP), AX
	MOVQ step+32(FP), BX
	VMOVDQU (AX), Y0           // positions
	MOVQ BX, X1
	VPBROADCASTQ X1, Y1        // step of 4 columns
	CONSTS4
	TESTQ CX, CX
	JZ done4

loop4:
	LERP4(Y0, SI, Y7)
	VADDPD (DI), Y7, Y7
	VMOVUPD Y7, (DI)
	VPADDQ Y1, Y0, Y0
	ADDQ $32, DI
	DECQ CX
	JNZ loop4

done4:
	VZEROUPPER
	RET

// func lerpAdd4x2(acc *float64, groups int, ca *float32, pa *[4]int64, sa int64, cb *float32, pb *[4]int64, sb int64)
TEXT ·lerpAdd4x2(SB), NOSPLIT, $0-64
	MOVQ acc+0(FP), DI
	MOVQ groups+8(FP), CX
	MOVQ ca+16(FP), SI
	MOVQ pa+24(FP), AX
	MOVQ sa+32(FP), BX
	MOVQ cb+40(FP), R8
	MOVQ pb+48(FP), R9
	MOVQ sb+56(FP), R10
	VMOVDQU (AX), Y0
	MOVQ BX, X1
	VPBROADCASTQ X1, Y1
	VMOVDQU (R9), Y11
	MOVQ R10, X12
	VPBROADCASTQ X12, Y12
	CONSTS4
	TESTQ CX, CX
	JZ done4x2

loop4x2:
	LERP4(Y0, SI, Y7)   // a's samples
	LERP4(Y11, R8, Y14) // b's
	VADDPD Y14, Y7, Y7
	VADDPD (DI), Y7, Y7
	VMOVUPD Y7, (DI)
	VPADDQ Y1, Y0, Y0
	VPADDQ Y12, Y11, Y11
	ADDQ $32, DI
	DECQ CX
	JNZ loop4x2

done4x2:
	VZEROUPPER
	RET
