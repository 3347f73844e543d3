#include "textflag.h"

// func prefetchLine(p *uint64)
TEXT ·prefetchLine(SB), NOSPLIT, $0-8
	MOVD p+0(FP), R0
	PRFM (R0), PLDL1KEEP
	RET
