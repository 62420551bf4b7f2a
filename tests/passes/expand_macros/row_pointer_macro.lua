-- expand_macros with its defaults on the first kernel.
kr.kernel(kr.kernels()[1]):apply("expand_macros")
