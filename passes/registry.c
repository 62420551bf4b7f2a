/* passes/registry.c: the table of passes built from passes.def, lookup, and the full description
 * behind `krewrite passes NAME`. */
#include "passes/pass.h"

#include <stdint.h>
#include <string.h>

#define KR_PASS_ENTRY(name) extern const KrPass kr_pass_##name;
#include "passes/passes.def"
#undef KR_PASS_ENTRY

static const KrPass *const registry[] = {
#define KR_PASS_ENTRY(name) &kr_pass_##name,
#include "passes/passes.def"
#undef KR_PASS_ENTRY
  NULL, /* keeps the table non-empty; not counted */
};

size_t kr_pass_count(void) { return sizeof registry / sizeof registry[0] - 1; }

const KrPass *kr_pass_at(size_t i) { return i < kr_pass_count() ? registry[i] : NULL; }

const KrPass *kr_pass_find(const char *name) {
  for (size_t i = 0; i < kr_pass_count(); i++)
    if (strcmp(registry[i]->name, name) == 0) return registry[i];
  return NULL;
}

const char *kr_pass_names(KrArena *arena) {
  KrBuf b = {0};
  for (size_t i = 0; i < kr_pass_count(); i++) {
    if (i) kr_buf_puts(&b, ", ");
    kr_buf_puts(&b, registry[i]->name);
  }
  char *s = kr_arena_strndup(arena, b.data ? b.data : "", b.len);
  kr_buf_free(&b);
  return s;
}

/* Levenshtein distance, for suggesting the name a misspelt one was meant to be. Names are
 * short, so the quadratic table is small; longer strings are not compared at all. */
static size_t edit_distance(const char *a, const char *b) {
  size_t n = strlen(a), m = strlen(b);
  if (n > 63 || m > 63) return SIZE_MAX;
  size_t row[64];
  for (size_t j = 0; j <= m; j++) row[j] = j;
  for (size_t i = 1; i <= n; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= m; j++) {
      size_t up = row[j];
      size_t best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best) best = up + 1;
      if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
      row[j] = best;
      diag = up;
    }
  }
  return row[m];
}

/* The known name closest to `s` when it is close enough to be a slip (at most a third of its
 * letters wrong, and at least one right), or NULL. */
const char *kr_pass_suggest(const char *s, const char *const *known) {
  const char *best = NULL;
  size_t bd = SIZE_MAX, len = strlen(s);
  for (const char *const *k = known; *k; k++) {
    size_t d = edit_distance(s, *k);
    if (d < bd) bd = d, best = *k;
  }
  return bd <= (len + 2) / 3 && bd < len ? best : NULL;
}

const char *kr_param_type_name(KrParamType t) {
  switch (t) {
  case KR_PARAM_INT: return "integer";
  case KR_PARAM_BOOL: return "boolean";
  case KR_PARAM_STRING: return "string";
  case KR_PARAM_NAMES: return "list of names";
  default: return "list of integers";
  }
}

void kr_pass_describe(const KrPass *p, KrBuf *out) {
  kr_buf_printf(out, "%s: %s\n\n", p->name, p->summary);
  if (p->doc) kr_buf_printf(out, "%s\n\n", p->doc);
  kr_buf_puts(out, "parameters:\n");
  if (p->nparams == 0) kr_buf_puts(out, "  (none)\n");
  for (size_t i = 0; i < p->nparams; i++) {
    const KrParamSpec *s = &p->params[i];
    kr_buf_printf(out, "  %-14s %s", s->name, kr_param_type_name(s->type));
    if (s->choices) kr_buf_printf(out, " (%s)", s->choices);
    if (s->min < s->max) kr_buf_printf(out, " in [%lld, %lld]", s->min, s->max);
    kr_buf_printf(out, ", default %s\n  %14s %s\n", s->def ? s->def : "(required)", "", s->doc);
  }
  if (p->precision == KR_PRECISION_EXACT)
    kr_buf_puts(out, "precision: exact\n");
  else
    kr_buf_printf(out, "precision: lowers (relative L2 tolerance %s); runs only after "
                       "kr.allow_lowering() in the recipe\n",
                  p->tolerance ? p->tolerance : "?");
  kr_buf_printf(out, "assumptions: %s\n", p->assumptions ? p->assumptions : "none");
}
