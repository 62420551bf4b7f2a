-- join_declarations with its defaults on the first kernel.
kr.kernel(kr.kernels()[1]):apply("join_declarations")
