kr.kernel("gemm_acc"):apply("fuse", { consumer = "clamp01" })
