-- specialize with too few arguments, the rest without defaults.
kr.kernel("k<float>"):apply("specialize")
