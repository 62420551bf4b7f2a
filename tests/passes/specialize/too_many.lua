-- specialize with more arguments than the template takes.
kr.kernel("k<float, 4>"):apply("specialize")
