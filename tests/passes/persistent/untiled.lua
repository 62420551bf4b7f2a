-- persistent before any schedule pass: refused (there is no block tile to walk).
kr.kernel("matmul"):apply("persistent")
