kr.kernel("rowsum"):apply("block_reduce", { vector = false })
