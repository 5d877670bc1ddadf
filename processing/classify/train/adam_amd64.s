#include "textflag.h"

// func adamAVX2(n int, pw, pg, pm, pv *float32, c1, c2, alpha, eps float32)
//
// Adam's update (adam.go) on the first n &^ 7 elements, eight at a time:
// m += (g-m)·c1, v += (g²-v)·c2, w -= m·alpha / (√v + eps), each
// operation rounded on its own as the Go loop computes it (no fused
// multiply-add; VSQRTPS and VDIVPS round correctly, as the scalar ones).
TEXT ·adamAVX2(SB), NOSPLIT, $0-56
	MOVQ         n+0(FP), CX
	MOVQ         pw+8(FP), DI
	MOVQ         pg+16(FP), SI
	MOVQ         pm+24(FP), DX
	MOVQ         pv+32(FP), R8
	VBROADCASTSS c1+40(FP), Y12
	VBROADCASTSS c2+44(FP), Y13
	VBROADCASTSS alpha+48(FP), Y14
	VBROADCASTSS eps+52(FP), Y15
	SHRQ         $3, CX
	JZ           done

loop:
	VMOVUPS (SI), Y0
	VMOVUPS (DX), Y1
	VSUBPS  Y1, Y0, Y2
	VMULPS  Y12, Y2, Y2
	VADDPS  Y2, Y1, Y1
	VMOVUPS Y1, (DX)
	VMULPS  Y0, Y0, Y3
	VMOVUPS (R8), Y4
	VSUBPS  Y4, Y3, Y3
	VMULPS  Y13, Y3, Y3
	VADDPS  Y3, Y4, Y4
	VMOVUPS Y4, (R8)
	VSQRTPS Y4, Y5
	VADDPS  Y15, Y5, Y5
	VMULPS  Y14, Y1, Y6
	VDIVPS  Y5, Y6, Y6
	VMOVUPS (DI), Y7
	VSUBPS  Y6, Y7, Y7
	VMOVUPS Y7, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DX
	ADDQ    $32, R8
	ADDQ    $32, DI
	DECQ    CX
	JNZ     loop

done:
	VZEROUPPER
	RET
