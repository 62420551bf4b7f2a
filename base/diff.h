/* base/diff.h: unified diffs of two texts, line by line (Myers' O(ND) algorithm). Used by
 * `krewrite apply --diff`, the audit log's per-pass diffs and reports. DESIGN.md puts diffs in
 * backend/; they live in base/ because the audit trail in recipes/ needs them and dependencies
 * point one way (base ← frontend ← passes ← recipes). */
#ifndef KR_DIFF_H
#define KR_DIFF_H

#include "base/kr.h"

/* Appends a unified diff (`--- a`, `+++ b`, `@@` hunks with `context` lines around changes) to
 * out. Equal texts give no output. */
void kr_diff_unified(const char *a, size_t alen, const char *b, size_t blen, const char *label_a,
                     const char *label_b, int context, KrBuf *out);

#endif
