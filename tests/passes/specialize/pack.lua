-- specialize on a variadic template.
kr.kernel("many"):apply("specialize", { args = "float" })
