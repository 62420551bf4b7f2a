-- specialize on a kernel that is no template.
kr.kernel("plain"):apply("specialize", { args = "float" })
