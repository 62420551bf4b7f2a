-- specialize with the arguments given: the element type, the block size by its default, and a value
-- written as an expression.
kr.kernel("tile_copy"):apply("specialize", { args = "float, 2 * 32" })
