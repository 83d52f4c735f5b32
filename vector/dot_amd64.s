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
