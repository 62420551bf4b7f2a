-- join_declarations on a name the kernel does not declare without a value.
kr.kernel("unk"):apply("join_declarations", { locals = { "idx" } })
