-- specialize on a template named without arguments, and none given.
kr.kernel("k"):apply("specialize")
