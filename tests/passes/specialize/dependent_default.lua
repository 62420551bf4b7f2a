-- specialize leaving a default that names another parameter.
kr.kernel("fill<float>"):apply("specialize")
