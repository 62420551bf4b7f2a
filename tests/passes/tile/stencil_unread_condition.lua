kr.kernel("odd_rows"):apply("tile")
