/* base/diff.c: line-based unified diff. Common leading and trailing lines are trimmed first,
 * so the O(ND) search only sees the changed middle, which keeps memory small for the typical
 * pass (a few edits in a file of thousands of lines). */
#include "base/diff.h"

#include <stdlib.h>
#include <string.h>

typedef struct Line {
  const char *s;
  size_t n;      /* with the newline, when there is one */
} Line;

typedef struct Lines {
  Line *v;
  size_t n;
} Lines;

typedef enum { OP_EQ, OP_DEL, OP_INS } OpKind;

typedef struct Op {
  OpKind kind;
  size_t a, b;   /* line index in a (EQ, DEL) and in b (EQ, INS) */
} Op;

static Lines split(const char *s, size_t len) {
  Lines l = {0};
  size_t cap = 16;
  l.v = malloc(cap * sizeof *l.v);
  size_t at = 0;
  while (at < len) {
    const char *nl = memchr(s + at, '\n', len - at);
    size_t n = nl ? (size_t)(nl - (s + at)) + 1 : len - at;
    if (l.n == cap) l.v = realloc(l.v, (cap *= 2) * sizeof *l.v);
    l.v[l.n++] = (Line){s + at, n};
    at += n;
  }
  return l;
}

static bool same(const Line *x, const Line *y) {
  return x->n == y->n && memcmp(x->s, y->s, x->n) == 0;
}

/* Myers' greedy search over a[lo_a, hi_a) and b[lo_b, hi_b); appends the edit script to ops. */
static void myers(const Lines *a, const Lines *b, size_t lo_a, size_t hi_a, size_t lo_b,
                  size_t hi_b, Op **ops, size_t *nops) {
  long n = (long)(hi_a - lo_a), m = (long)(hi_b - lo_b), max = n + m;
  long width = 2 * max + 1;
  long *v = calloc((size_t)width + 2, sizeof *v);
  long **trace = calloc((size_t)max + 1, sizeof *trace);
  long d_end = 0;
  for (long d = 0; d <= max; d++) {
    trace[d] = malloc(((size_t)width + 2) * sizeof **trace);
    memcpy(trace[d], v, ((size_t)width + 2) * sizeof *v);
    bool done = false;
    for (long k = -d; k <= d; k += 2) {
      long x = (k == -d || (k != d && v[max + k - 1] < v[max + k + 1])) ? v[max + k + 1]
                                                                        : v[max + k - 1] + 1;
      long y = x - k;
      while (x < n && y < m && same(&a->v[lo_a + x], &b->v[lo_b + y])) x++, y++;
      v[max + k] = x;
      if (x >= n && y >= m) done = true;
    }
    if (done) {
      d_end = d;
      break;
    }
  }
  /* Walk back through the saved frontiers, collecting operations in reverse. */
  size_t cap = (size_t)(n + m) + 1, cnt = 0;
  Op *rev = malloc(cap * sizeof *rev);
  long x = n, y = m;
  for (long d = d_end; d >= 0; d--) {
    long *tv = trace[d];
    long k = x - y;
    long pk = (k == -d || (k != d && tv[max + k - 1] < tv[max + k + 1])) ? k + 1 : k - 1;
    long px = d ? tv[max + pk] : 0, py = d ? px - pk : 0;
    while (x > px && y > py) {
      x--, y--;
      rev[cnt++] = (Op){OP_EQ, lo_a + (size_t)x, lo_b + (size_t)y};
    }
    if (d == 0) break;
    if (x == px) rev[cnt++] = (Op){OP_INS, lo_a + (size_t)x, lo_b + (size_t)--y};
    else rev[cnt++] = (Op){OP_DEL, lo_a + (size_t)--x, lo_b + (size_t)y};
  }
  *ops = realloc(*ops, (*nops + cnt + 1) * sizeof **ops);
  for (size_t i = 0; i < cnt; i++) (*ops)[(*nops)++] = rev[cnt - 1 - i];
  free(rev);
  for (long d = 0; d <= max; d++) free(trace[d]);
  free(trace);
  free(v);
}

static void put_line(KrBuf *o, char tag, const Line *l) {
  kr_buf_putc(o, tag);
  kr_buf_append(o, l->s, l->n);
  if (l->n == 0 || l->s[l->n - 1] != '\n') kr_buf_puts(o, "\n\\ No newline at end of file\n");
}

/* Emits hunks: runs of changes with up to `ctx` equal lines around them, merged when close. */
static void hunks(const Op *ops, size_t n, const Lines *a, const Lines *b, int ctx, KrBuf *o) {
  size_t i = 0;
  while (i < n) {
    while (i < n && ops[i].kind == OP_EQ) i++;
    if (i == n) break;
    size_t start = i >= (size_t)ctx ? i - (size_t)ctx : 0, end = i;
    for (;;) { /* extend over changes separated by at most 2*ctx equal lines */
      while (end < n && ops[end].kind != OP_EQ) end++;
      size_t eq = end;
      while (eq < n && ops[eq].kind == OP_EQ && eq - end < (size_t)(2 * ctx)) eq++;
      if (eq < n && ops[eq].kind != OP_EQ) end = eq;
      else break;
    }
    size_t stop = end + (size_t)ctx < n ? end + (size_t)ctx : n;
    size_t na = 0, nb = 0;
    for (size_t k = start; k < stop; k++) na += ops[k].kind != OP_INS, nb += ops[k].kind != OP_DEL;
    size_t sa = ops[start].a + (na ? 1 : 0), sb = ops[start].b + (nb ? 1 : 0);
    kr_buf_printf(o, "@@ -%zu,%zu +%zu,%zu @@\n", sa, na, sb, nb);
    for (size_t k = start; k < stop; k++) {
      const Op *p = &ops[k];
      if (p->kind == OP_EQ) put_line(o, ' ', &a->v[p->a]);
      else if (p->kind == OP_DEL) put_line(o, '-', &a->v[p->a]);
      else put_line(o, '+', &b->v[p->b]);
    }
    i = stop;
  }
}

void kr_diff_unified(const char *a, size_t alen, const char *b, size_t blen, const char *label_a,
                     const char *label_b, int context, KrBuf *out) {
  if (alen == blen && memcmp(a, b, alen) == 0) return;
  Lines la = split(a, alen), lb = split(b, blen);
  size_t pre = 0;
  while (pre < la.n && pre < lb.n && same(&la.v[pre], &lb.v[pre])) pre++;
  size_t suf = 0;
  while (suf < la.n - pre && suf < lb.n - pre && same(&la.v[la.n - 1 - suf], &lb.v[lb.n - 1 - suf]))
    suf++;
  size_t nops = 0;
  Op *ops = malloc((pre + suf + 1) * sizeof *ops);
  for (size_t i = 0; i < pre; i++) ops[nops++] = (Op){OP_EQ, i, i};
  myers(&la, &lb, pre, la.n - suf, pre, lb.n - suf, &ops, &nops);
  ops = realloc(ops, (nops + suf + 1) * sizeof *ops);
  for (size_t i = suf; i > 0; i--) ops[nops++] = (Op){OP_EQ, la.n - i, lb.n - i};
  kr_buf_printf(out, "--- %s\n+++ %s\n", label_a, label_b);
  hunks(ops, nops, &la, &lb, context, out);
  free(ops);
  free(la.v);
  free(lb.v);
}
