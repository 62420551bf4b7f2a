-- specialize on a template template parameter.
kr.kernel("tt"):apply("specialize", { args = "Box" })
