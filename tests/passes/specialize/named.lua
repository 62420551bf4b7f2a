-- specialize on the kernel named with its template arguments.
kr.kernel("scale<float, 128>"):apply("specialize")
