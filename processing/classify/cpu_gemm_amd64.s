#include "textflag.h"

// func sgemm6x16(k int, a *float32, lda int, step int, b *float32, c *float32, ldc int, load int)
//
// C (6 x 16, rows ldc floats apart) = (C if load != 0, else 0) + A (6
// rows lda floats apart, k columns step floats apart) · B (k x 16,
// contiguous). Y0..Y11 hold
// C (row i in Y(2i), Y(2i+1)); each element is one chain of VFMADD231PS
// over k in order. k may be 0.
TEXT ·sgemm6x16(SB), NOSPLIT, $0-64
	MOVQ k+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ lda+16(FP), R8
	SHLQ $2, R8
	MOVQ step+24(FP), R12
	SHLQ $2, R12
	MOVQ b+32(FP), DI
	MOVQ c+40(FP), DX
	MOVQ ldc+48(FP), R9
	SHLQ $2, R9
	MOVQ load+56(FP), AX

	// R11 = row 3 of A; rows 0-2 are (SI), (SI)(R8*1), (SI)(R8*2) and
	// rows 3-5 the same from R11.
	LEAQ (SI)(R8*2), R11
	ADDQ R8, R11
	// R10 = row 3 of C.
	LEAQ (DX)(R9*2), R10
	ADDQ R9, R10

	TESTQ AX, AX
	JZ    zero
	VMOVUPS (DX), Y0
	VMOVUPS 32(DX), Y1
	VMOVUPS (DX)(R9*1), Y2
	VMOVUPS 32(DX)(R9*1), Y3
	VMOVUPS (DX)(R9*2), Y4
	VMOVUPS 32(DX)(R9*2), Y5
	VMOVUPS (R10), Y6
	VMOVUPS 32(R10), Y7
	VMOVUPS (R10)(R9*1), Y8
	VMOVUPS 32(R10)(R9*1), Y9
	VMOVUPS (R10)(R9*2), Y10
	VMOVUPS 32(R10)(R9*2), Y11
	JMP   start

zero:
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11

start:
	TESTQ CX, CX
	JZ    store

loop:
	VMOVUPS      (DI), Y12
	VMOVUPS      32(DI), Y13
	VBROADCASTSS (SI), Y14
	VFMADD231PS  Y12, Y14, Y0
	VFMADD231PS  Y13, Y14, Y1
	VBROADCASTSS (SI)(R8*1), Y15
	VFMADD231PS  Y12, Y15, Y2
	VFMADD231PS  Y13, Y15, Y3
	VBROADCASTSS (SI)(R8*2), Y14
	VFMADD231PS  Y12, Y14, Y4
	VFMADD231PS  Y13, Y14, Y5
	VBROADCASTSS (R11), Y15
	VFMADD231PS  Y12, Y15, Y6
	VFMADD231PS  Y13, Y15, Y7
	VBROADCASTSS (R11)(R8*1), Y14
	VFMADD231PS  Y12, Y14, Y8
	VFMADD231PS  Y13, Y14, Y9
	VBROADCASTSS (R11)(R8*2), Y15
	VFMADD231PS  Y12, Y15, Y10
	VFMADD231PS  Y13, Y15, Y11
	ADDQ         R12, SI
	ADDQ         R12, R11
	ADDQ         $64, DI
	DECQ         CX
	JNZ          loop

store:
	VMOVUPS Y0, (DX)
	VMOVUPS Y1, 32(DX)
	VMOVUPS Y2, (DX)(R9*1)
	VMOVUPS Y3, 32(DX)(R9*1)
	VMOVUPS Y4, (DX)(R9*2)
	VMOVUPS Y5, 32(DX)(R9*2)
	VMOVUPS Y6, (R10)
	VMOVUPS Y7, 32(R10)
	VMOVUPS Y8, (R10)(R9*1)
	VMOVUPS Y9, 32(R10)(R9*1)
	VMOVUPS Y10, (R10)(R9*2)
	VMOVUPS Y11, 32(R10)(R9*2)
	VZEROUPPER
	RET
