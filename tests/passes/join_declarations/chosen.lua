-- join_declarations on i only.
kr.kernel("scale"):apply("join_declarations", { locals = { "i" } })
