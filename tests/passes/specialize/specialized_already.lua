-- specialize for arguments the file specializes already (the template named through them).
kr.kernel("j"):apply("specialize", { args = "float" })
kr.kernel("k"):apply("specialize", { args = " float " })
