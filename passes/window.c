/* passes/window.c: a window consumer's read (a max-pool's) split digit by digit against its producer's
 * store (passes/window.h). */
#include "passes/window.h"

#include <stdarg.h>
#include <string.h>

static const char *fail(bool *producer, bool p, KrArena *a, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static const char *fail(bool *producer, bool p, KrArena *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char buf[1024];
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  *producer = p;
  return kr_arena_strdup(a, buf);
}

static bool syms_subset(const char *const *a, int na, const char *const *b, int nb) {
  for (int i = 0; i < na; i++) {
    bool found = false;
    for (int j = 0; j < nb && !found; j++) found = strcmp(a[i], b[j]) == 0;
    if (!found) return false;
  }
  return true;
}

const char *kr_window_consumer(const char *callee, bool *only) {
  *only = callee && strncmp(callee, KR_FUSE_ONLY, strlen(KR_FUSE_ONLY)) == 0;
  if (*only) return callee + strlen(KR_FUSE_ONLY);
  return callee && strncmp(callee, KR_FUSE, strlen(KR_FUSE)) == 0 ? callee + strlen(KR_FUSE) : NULL;
}

void kr_window_output(const KrNest *cn, const KrNestRef *out, KrArena *a, const char **flat, const char **cond,
                      const char **index) {
  *index = kr_nest_form_text(cn, &out->index, a);
  *flat = "";
  for (size_t i = 0; i < cn->axes.len && !**flat; i++)
    if (cn->axes.data[i].flat) *flat = kr_arena_printf(a, "const int %s = %s;", cn->axes.data[i].flat, *index);
  const char *c = "";
  for (size_t i = 0; i < cn->guards.len; i++)
    c = kr_arena_printf(a, "%s%s%s", c, *c ? " && " : "", cn->guards.data[i].text);
  *cond = c;
}

bool kr_window_forms_equal(const KrNestForm *a, const KrNestForm *b) {
  if (a->terms.len != b->terms.len) return false;
  for (size_t i = 0; i < a->terms.len; i++) {
    const KrNestTerm *x = &a->terms.data[i], *y = &b->terms.data[i];
    if (x->coef != y->coef || x->var != y->var || x->nsyms != y->nsyms) return false;
    for (int k = 0; k < x->nsyms; k++)
      if (strcmp(x->syms[k], y->syms[k]) != 0) return false;
  }
  return true;
}

const char *kr_window_split(const KrNest *cn, const KrNestForm *r, const char *array, const KrNest *pn,
                            const KrNestForm *w, KrWindowDigit **out, int *ndigits, bool *producer, KrArena *a) {
  KrWindowDigit *d = kr_arena_alloc(a, (r->terms.len + 1) * sizeof *d);
  int nd = 0;
  for (size_t i = 0; i < r->terms.len; i++) {
    const KrNestTerm *t = &r->terms.data[i];
    if (t->var < 0 || t->coef < 1)
      return fail(producer, false, a, "fuse: the consumer reads '%s' at %s, with an offset or a negative step; only a "
                  "parallel axis plus a loop, each times a positive stride, is a window", array,
                  kr_nest_form_text(cn, r, a));
    int k = 0;
    while (k < nd && !(d[k].nsyms == t->nsyms && syms_subset(d[k].syms, d[k].nsyms, t->syms, t->nsyms))) k++;
    if (k == nd) {
      memset(&d[nd], 0, sizeof d[nd]);
      d[nd].nsyms = t->nsyms, d[nd].axis = d[nd].loop = -1;
      for (int q = 0; q < t->nsyms; q++) d[nd].syms[q] = t->syms[q];
      nd++;
    }
    bool loop = cn->axes.data[t->var].kind == KR_AXIS_REDUCE;
    int *slot = loop ? &d[k].loop : &d[k].axis;
    if (*slot >= 0)
      return fail(producer, false, a, "fuse: the consumer's read of '%s' has two %s at one stride", array,
                  loop ? "loop axes" : "parallel axes");
    *slot = t->var;
    *(loop ? &d[k].lcoef : &d[k].coef) = t->coef;
  }
  /* Outermost first; each stride a multiple of the next. */
  for (int i = 0; i < nd; i++)
    for (int j = i + 1; j < nd; j++)
      if (d[j].nsyms > d[i].nsyms) {
        KrWindowDigit x = d[i];
        d[i] = d[j], d[j] = x;
      }
  for (int i = 0; i < nd; i++) {
    if (d[i].axis < 0)
      return fail(producer, false, a, "fuse: the consumer's read of '%s' has a loop without a parallel axis at one stride",
                  array);
    if (i + 1 < nd && !syms_subset(d[i + 1].syms, d[i + 1].nsyms, d[i].syms, d[i].nsyms))
      return fail(producer, false, a, "fuse: the strides of the consumer's read of '%s' do not divide one another", array);
  }
  for (size_t ax = 0; ax < cn->axes.len; ax++) {
    bool seen = false;
    for (int i = 0; i < nd; i++) seen = seen || d[i].axis == (int)ax || d[i].loop == (int)ax;
    if (!seen)
      return fail(producer, false, a, "fuse: the consumer's %s '%s' does not index '%s'",
                  cn->axes.data[ax].kind == KR_AXIS_REDUCE ? "loop" : "axis", cn->axes.data[ax].name, array);
  }
  /* The producer's terms, each at the largest stride it is a multiple of. */
  for (size_t i = 0; i < w->terms.len; i++) {
    const KrNestTerm *t = &w->terms.data[i];
    int k = 0;
    while (k < nd && !syms_subset(d[k].syms, d[k].nsyms, t->syms, t->nsyms)) k++;
    if (t->var < 0 || k == nd)
      return fail(producer, true, a, "fuse: the producer's index of '%s' has a part (%s) at "
                  "no stride of the consumer's read", array, kr_nest_form_text(pn, w, a));
    KrNestTerm rest = {.coef = t->coef, .var = t->var};
    for (int q = 0; q < t->nsyms; q++)
      if (!syms_subset(&t->syms[q], 1, d[k].syms, d[k].nsyms)) rest.syms[rest.nsyms++] = t->syms[q];
    kr_vec_push(a, &d[k].w.terms, rest);
  }
  /* Below the outermost digit, the producer's part must be one axis running over the digit's whole
   * range (the ratio of the strides), so that both indices are the same place value by value. */
  for (int i = 1; i < nd; i++) {
    const KrNestForm *x = &d[i].w;
    const KrNestAxis *ax = x->terms.len == 1 ? &pn->axes.data[x->terms.data[0].var] : NULL;
    const char *radix = NULL;
    for (int q = 0; q < d[i - 1].nsyms; q++)
      if (!syms_subset(&d[i - 1].syms[q], 1, d[i].syms, d[i].nsyms))
        radix = radix ? kr_arena_printf(a, "%s * %s", radix, d[i - 1].syms[q]) : d[i - 1].syms[q];
    if (!ax || x->terms.data[0].coef != 1 || x->terms.data[0].nsyms || !ax->hi || !radix || strcmp(ax->hi, radix) != 0)
    {
      const char *stride = NULL;
      for (int q = 0; q < d[i].nsyms; q++)
        stride = stride ? kr_arena_printf(a, "%s * %s", stride, d[i].syms[q]) : d[i].syms[q];
      const char *mine = d[i].coef == 1 ? cn->axes.data[d[i].axis].name
                                        : kr_arena_printf(a, "%lld * %s", d[i].coef, cn->axes.data[d[i].axis].name);
      if (d[i].loop >= 0)
        mine = d[i].lcoef == 1 ? kr_arena_printf(a, "%s + %s", mine, cn->axes.data[d[i].loop].name)
                               : kr_arena_printf(a, "%s + %lld * %s", mine, d[i].lcoef, cn->axes.data[d[i].loop].name);
      return fail(producer, true, a, "fuse: the producer stores '%s' in another layout than "
                  "the consumer reads it: at stride %s the consumer's index has %s, the producer's %s, not one "
                  "axis running below %s", array, stride ? stride : "1", mine,
                  x->terms.len ? kr_nest_form_text(pn, x, a) : "nothing", radix ? radix : "a symbol");
    }
  }
  *out = d, *ndigits = nd;
  return NULL;
}

