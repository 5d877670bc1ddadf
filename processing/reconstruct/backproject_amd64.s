#include "textflag.h"

// The AVX-512 back-projection loops of accumulate and accumulate2
// (backproject_amd64.go): eight slice columns per step, the detector
// position in accumulate's fixed point (32 bits of column, 32 of
// fraction) in eight 64-bit lanes. One gather of eight 64-bit words at
// byte offset 4·column reads each lane's two neighbouring float32
// samples at once; the fraction, converted to float64 exactly, weighs
// them as lerp does (one rounding fewer: the FMA).

// func lerpAdd8(acc *float64, groups int, col *float32, pos *[8]int64, step int64)
TEXT ·lerpAdd8(SB), NOSPLIT, $0-40
	MOVQ acc+0(FP), DI
	MOVQ groups+8(FP), CX
	MOVQ col+16(FP), SI
	MOVQ pos+24(FP), AX
	MOVQ step+32(FP), BX
	VMOVDQU64 (AX), Z0         // positions
	VPBROADCASTQ BX, Z1        // step of 8 columns
	MOVQ $0xffffffff, DX
	VPBROADCASTQ DX, Z2        // fraction mask
	MOVQ $0x3df0000000000000, DX // 2^-32 as float64
	VPBROADCASTQ DX, Z3
	TESTQ CX, CX
	JZ done1

loop1:
	VPSRAQ $32, Z0, Z4         // column
	KXNORW K1, K1, K1
	VPXORQ Z5, Z5, Z5
	VPGATHERQQ (SI)(Z4*4), K1, Z5 // col[k] | col[k+1]<<32
	VPMOVQD Z5, Y6
	VPSRLQ $32, Z5, Z7
	VPMOVQD Z7, Y7
	VCVTPS2PD Y6, Z6           // v0
	VCVTPS2PD Y7, Z7           // v1
	VSUBPD Z6, Z7, Z7          // v1 − v0
	VPANDQ Z2, Z0, Z8
	VCVTUQQ2PD Z8, Z8
	VMULPD Z3, Z8, Z8          // t
	VFMADD231PD Z8, Z7, Z6     // v0 + t·(v1 − v0)
	VADDPD (DI), Z6, Z6
	VMOVUPD Z6, (DI)
	VPADDQ Z1, Z0, Z0
	ADDQ $64, DI
	DECQ CX
	JNZ loop1

done1:
	VZEROUPPER
	RET

// func lerpAdd8x2(acc *float64, groups int, ca *float32, pa *[8]int64, sa int64, cb *float32, pb *[8]int64, sb int64)
TEXT ·lerpAdd8x2(SB), NOSPLIT, $0-64
	MOVQ acc+0(FP), DI
	MOVQ groups+8(FP), CX
	MOVQ ca+16(FP), SI
	MOVQ pa+24(FP), AX
	MOVQ sa+32(FP), BX
	MOVQ cb+40(FP), R8
	MOVQ pb+48(FP), R9
	MOVQ sb+56(FP), R10
	VMOVDQU64 (AX), Z0
	VPBROADCASTQ BX, Z1
	VMOVDQU64 (R9), Z10
	VPBROADCASTQ R10, Z11
	MOVQ $0xffffffff, DX
	VPBROADCASTQ DX, Z2
	MOVQ $0x3df0000000000000, DX
	VPBROADCASTQ DX, Z3
	TESTQ CX, CX
	JZ done2

loop2:
	VPSRAQ $32, Z0, Z4
	VPSRAQ $32, Z10, Z14
	KXNORW K1, K1, K1
	KXNORW K2, K2, K2
	VPXORQ Z5, Z5, Z5
	VPXORQ Z15, Z15, Z15
	VPGATHERQQ (SI)(Z4*4), K1, Z5
	VPGATHERQQ (R8)(Z14*4), K2, Z15
	VPMOVQD Z5, Y6
	VPSRLQ $32, Z5, Z7
	VPMOVQD Z7, Y7
	VCVTPS2PD Y6, Z6
	VCVTPS2PD Y7, Z7
	VSUBPD Z6, Z7, Z7
	VPANDQ Z2, Z0, Z8
	VCVTUQQ2PD Z8, Z8
	VMULPD Z3, Z8, Z8
	VFMADD231PD Z8, Z7, Z6     // a's sample
	VPMOVQD Z15, Y16
	VPSRLQ $32, Z15, Z17
	VPMOVQD Z17, Y17
	VCVTPS2PD Y16, Z16
	VCVTPS2PD Y17, Z17
	VSUBPD Z16, Z17, Z17
	VPANDQ Z2, Z10, Z18
	VCVTUQQ2PD Z18, Z18
	VMULPD Z3, Z18, Z18
	VFMADD231PD Z18, Z17, Z16  // b's sample
	VADDPD Z16, Z6, Z6
	VADDPD (DI), Z6, Z6
	VMOVUPD Z6, (DI)
	VPADDQ Z1, Z0, Z0
	VPADDQ Z11, Z10, Z10
	ADDQ $64, DI
	DECQ CX
	JNZ loop2

done2:
	VZEROUPPER
	RET
