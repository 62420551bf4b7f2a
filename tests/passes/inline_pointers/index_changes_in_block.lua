-- inline_pointers with its defaults on the first kernel.
kr.kernel(kr.kernels()[1]):apply("inline_pointers")
