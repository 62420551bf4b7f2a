-- implicit_gemm after another schedule pass is refused: it chooses the view the others work on.
local k = kr.kernel("matmul")
k:apply("tile")
k:apply("implicit_gemm")
