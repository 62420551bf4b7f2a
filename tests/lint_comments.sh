#!/usr/bin/env sh
# tests/lint_comments.sh SOURCE_DIR: the code and docs name no issue of the tracker by its number
# (the word, then the number): a comment says what the code does and why, which outlives the tracker.
# bench/results/ is exempt (measurement records name what they measured for).
cd "$1" || exit 2
hits=$(grep -rnE "[Ii]ssues? #?[0-9]+" --include='*.c' --include='*.h' --include='*.cc' --include='*.cu' \
  --include='*.lua' --include='*.sh' --include='*.py' --include='*.md' --include='*.txt' --include='*.def' \
  --include='Makefile' --exclude-dir=build --exclude-dir=.git --exclude-dir=results --exclude-dir=optimize-out . )
[ -z "$hits" ] && exit 0
echo "issue numbers in comments or docs (say what the code does instead):"
echo "$hits"
exit 1
