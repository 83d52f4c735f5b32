//go:build amd64 && !purego

#include "textflag.h"

// func dotInt8AVX2(a, b *int8, n int) int32
TEXT ·dotInt8AVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	TESTQ CX, CX
	JZ done

loop:
	VPMOVSXBW (SI), Y2
	VPMOVSXBW (DI), Y3
	VPMADDWD Y3, Y2, Y2
	VPADDD Y2, Y0, Y0
	VPMOVSXBW 16(SI), Y4
	VPMOVSXBW 16(DI), Y5
	VPMADDWD Y5, Y4, Y4
	VPADDD Y4, Y1, Y1
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $32, CX
	JNZ loop

done:
	VPADDD Y1, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0x4E, X0, X1
	VPADDD X1, X0, X0
	VPSHUFD $0xB1, X0, X1
	VPADDD X1, X0, X0
	VMOVD X0, AX
	VZEROUPPER
	MOVL AX, ret+24(FP)
	RET

// func dotHalfF16C(a *float32, h *uint16, n int) float32
// 32 values a step into four accumulators (a step's four FMAs do not wait
// on one another), then 16 into two when n is an odd multiple of 16.
TEXT ·dotHalfF16C(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ h+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	CMPQ CX, $32
	JB half16

halfloop:
	VCVTPH2PS (DI), Y4
	VFMADD231PS (SI), Y4, Y0
	VCVTPH2PS 16(DI), Y5
	VFMADD231PS 32(SI), Y5, Y1
	VCVTPH2PS 32(DI), Y6
	VFMADD231PS 64(SI), Y6, Y2
	VCVTPH2PS 48(DI), Y7
	VFMADD231PS 96(SI), Y7, Y3
	ADDQ $64, DI
	ADDQ $128, SI
	SUBQ $32, CX
	CMPQ CX, $32
	JAE halfloop

half16:
	TESTQ CX, CX
	JZ halfdone
	VCVTPH2PS (DI), Y4
	VFMADD231PS (SI), Y4, Y0
	VCVTPH2PS 16(DI), Y5
	VFMADD231PS 32(SI), Y5, Y1

halfdone:
	VADDPS Y2, Y0, Y0
	VADDPS Y3, Y1, Y1
	VADDPS Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func dotHalfF16Cx4(a *float32, h *[4]*uint16, n int, out *[4]float32)
// 16 values a step: the step's 16 of a are loaded once and multiplied
// with 16 of each of the four rows into two accumulators a row, eight
// FMA chains that do not wait on one another; then each row's two are
// added and the four rows' sums reduced together into out.
TEXT ·dotHalfF16Cx4(SB), NOSPLIT, $0-32
	MOVQ a+0(FP), SI
	MOVQ h+8(FP), DX
	MOVQ n+16(FP), CX
	MOVQ out+24(FP), DI
	MOVQ 0(DX), R8
	MOVQ 8(DX), R9
	MOVQ 16(DX), R10
	MOVQ 24(DX), R11
	SHLQ $1, CX // n fp16 values are 2n bytes
	XORQ BX, BX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	TESTQ CX, CX
	JZ x4done

x4loop:
	VMOVUPS (SI)(BX*2), Y8
	VMOVUPS 32(SI)(BX*2), Y9
	VCVTPH2PS (R8)(BX*1), Y10
	VCVTPH2PS 16(R8)(BX*1), Y11
	VFMADD231PS Y8, Y10, Y0
	VFMADD231PS Y9, Y11, Y1
	VCVTPH2PS (R9)(BX*1), Y12
	VCVTPH2PS 16(R9)(BX*1), Y13
	VFMADD231PS Y8, Y12, Y2
	VFMADD231PS Y9, Y13, Y3
	VCVTPH2PS (R10)(BX*1), Y14
	VCVTPH2PS 16(R10)(BX*1), Y15
	VFMADD231PS Y8, Y14, Y4
	VFMADD231PS Y9, Y15, Y5
	VCVTPH2PS (R11)(BX*1), Y10
	VCVTPH2PS 16(R11)(BX*1), Y11
	VFMADD231PS Y8, Y10, Y6
	VFMADD231PS Y9, Y11, Y7
	ADDQ $32, BX
	CMPQ BX, CX
	JB x4loop

x4done:
	VADDPS Y1, Y0, Y0
	VADDPS Y3, Y2, Y2
	VADDPS Y5, Y4, Y4
	VADDPS Y7, Y6, Y6
	VHADDPS Y2, Y0, Y0
	VHADDPS Y6, Y4, Y4
	VHADDPS Y4, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VMOVUPS X0, (DI)
	VZEROUPPER
	RET

// func fromHalfsF16C(v *float32, h *uint16, n int)
TEXT ·fromHalfsF16C(SB), NOSPLIT, $0-24
	MOVQ v+0(FP), SI
	MOVQ h+8(FP), DI
	MOVQ n+16(FP), CX
	TESTQ CX, CX
	JZ widendone

widenloop:
	VCVTPH2PS (DI), Y0
	VMOVUPS Y0, (SI)
	ADDQ $16, DI
	ADDQ $32, SI
	SUBQ $8, CX
	JNZ widenloop

widendone:
	VZEROUPPER
	RET

// func prefetchLines(p unsafe.Pointer, n int)
TEXT ·prefetchLines(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	TESTQ CX, CX
	JLE fetchdone

fetchloop:
	PREFETCHT0 (SI)
	ADDQ $64, SI
	SUBQ $64, CX
	JG fetchloop

fetchdone:
	RET
