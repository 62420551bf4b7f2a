/* passes/ldg.c: route read-only global loads through the read-only data cache.
 *
 * Before:  acc += w[k] * x[i + k];          v = *p;
 * After:   acc += __ldg(&w[k]) * __ldg(&x[i + k]);   v = __ldg(p);
 *
 * Requires: the pointer is never written in the kernel, by any alias, cast, atomic or helper,
 * and the read/write sets (frontend/access.h) are sure of it; otherwise the pass refuses and
 * names the write ("pointer 'x' is written at 12:9, so ldg cannot apply") or the use it could not
 * follow. The read-only cache is not coherent with writes, so this also assumes no *other*
 * pointer writes the same memory during the kernel (recorded as an assumption).
 * Rewritten: plain loads `p[i]` and `*p` (also through aliases and casts) whose element type
 * __ldg has an overload for: char, signed/unsigned char, short, int, long, long long and their
 * unsigned forms, float, double, the 2- and 4-wide vectors of those (char2 … ulonglong2, float2,
 * float4, double2) and __half, __half2, __nv_bfloat16, __nv_bfloat162 (with the typedefs half,
 * half2, size_t, intN_t/uintN_t), also when the file spells them through a #define, typedef or
 * using, or as a template type parameter that every launch of the kernel in the file instantiates
 * with such a type (recorded as an assumption). Not rewritten: loads whose type is unknown here (a
 * template parameter the file never launches), structs, members through `->`, loads inside helpers, `volatile` pointers, and
 * loads that are already __ldg calls. A load that is written (`x[i] += …`) or whose address is
 * taken (`&x[i]`) is never a candidate: the pointer would count as written or the address is
 * not a load.
 * Params: params (names; default: every pointer that qualifies). Precision: exact. */
#include <string.h>

#include "frontend/access.h"
#include "frontend/types.h"
#include "passes/pass.h"

static const KrParamSpec params[] = {
  {.name = "params", .type = KR_PARAM_NAMES, .def = "all",
   .doc = "pointers whose loads go through __ldg (default: every read-only pointer)"},
};

/* ---- Helpers --------------------------------------------------------------------------------- */

/* Whether __ldg has an overload for a load of element type `t` as the file spells it: through its
 * aliases (#define, typedef, using), or, for a template type parameter of the kernel, in every
 * instantiation the file launches (`k<float><<<…>>>`): then *via says which ("T is float in every
 * launch of 'k' here"). */
static bool ldg_type(KrPassCtx *cx, const char *t, const char **via) {
  if (via) *via = NULL;
  if (!t) return false;
  if (kr_type_has_ldg(kr_type_unalias(cx->tree, t, cx->arena))) return true;
  const KrKernel *k = cx->kernel;
  int idx = kr_type_template_param(k->template_params, t, true);
  if (idx < 0) return false;
  KrBuf seen = {0};
  size_t n = 0;
  bool ok = true;
  for (size_t i = 0; i < cx->model->launches.len && ok; i++) {
    const KrLaunch *l = &cx->model->launches.data[i];
    const char *base = strrchr(l->kernel, ':');
    if (strcmp(base ? base + 1 : l->kernel, k->name) != 0) continue;
    const char *arg = kr_type_template_arg(l->template_args, idx, cx->arena);
    ok = arg && kr_type_has_ldg(kr_type_unalias(cx->tree, arg, cx->arena));
    if (ok && !(seen.data && strstr(seen.data, arg))) kr_buf_printf(&seen, "%s%s", n++ ? ", " : "", arg);
  }
  ok = ok && n > 0;
  if (ok && via)
    *via = kr_arena_printf(cx->arena, "the template parameter %s is %s in every launch of '%s' in this file", t,
                           seen.data, k->name);
  kr_buf_free(&seen);
  return ok;
}

/* A site that can become __ldg: a plain load of one element through `[]` or `*`. */
static bool candidate(KrPassCtx *cx, const KrAccessSite *s) {
  if (s->kind != KR_ACCESS_READ || ts_node_is_null(s->elem)) return false;
  TSSymbol sym = ts_node_symbol(s->elem);
  return (sym == cx->tree->sym.subscript_expression || sym == cx->tree->sym.pointer_expression) &&
         ldg_type(cx, s->elem_type, NULL);
}

static const KrParam *param_named(const KrKernel *k, const char *name) {
  for (size_t i = 0; i < k->params.len; i++)
    if (strcmp(k->params.data[i].name, name) == 0) return &k->params.data[i];
  return NULL;
}

/* Why pointer `pa` cannot use __ldg (located at *at), or NULL when it can. */
static const char *why_not(KrPassCtx *cx, const KrPtrAccess *pa, uint32_t *at) {
  const char *n = pa->param->name;
  *at = pa->param->span.start;
  if (pa->is_volatile)
    return kr_arena_printf(cx->arena, "pointer '%s' is volatile, so ldg cannot apply", n);
  if (!pa->sure) {
    *at = pa->unsure_at;
    return kr_arena_printf(cx->arena, "pointer '%s' cannot be analysed (%s), so ldg cannot apply",
                           n, pa->unsure_why);
  }
  const KrAccessSite *w = kr_access_first_write(pa);
  if (w) {
    *at = ts_node_start_byte(w->node);
    if (w->via)
      return kr_arena_printf(cx->arena, "pointer '%s' is written at %u:%u (through %s), so ldg "
                                        "cannot apply", n, w->line, w->col, w->via);
    return kr_arena_printf(cx->arena, "pointer '%s' is written at %u:%u, so ldg cannot apply", n,
                           w->line, w->col);
  }
  const KrAccessSite *typed_out = NULL;
  for (size_t i = 0; i < pa->sites.len; i++) {
    if (candidate(cx, &pa->sites.data[i])) return NULL;
    if (!ldg_type(cx, pa->sites.data[i].elem_type, NULL)) typed_out = &pa->sites.data[i];
  }
  if (typed_out) {
    *at = ts_node_start_byte(typed_out->node);
    const char *t = typed_out->elem_type;
    if (t && kr_type_template_param(cx->kernel->template_params, t, true) >= 0)
      return kr_arena_printf(cx->arena, "pointer '%s' is loaded as the template parameter '%s', which not every launch "
                                        "of '%s' in this file instantiates with a type __ldg has an overload for", n, t,
                             cx->kernel->name);
    return kr_arena_printf(cx->arena, "pointer '%s' is only loaded as '%s', which __ldg has no "
                                      "overload for", n, t ? t : "an unknown type");
  }
  return kr_arena_printf(cx->arena, "pointer '%s' has no plain loads in kernel '%s' to route "
                                    "through __ldg", n, cx->kernel->name);
}

/* ---- Check and apply ------------------------------------------------------------------------- */

static KrStatus check(KrPassCtx *cx) {
  const KrKernel *k = cx->kernel;
  const KrValue *names = kr_pass_arg(cx, "params");
  KrAccess *acc = kr_pass_access(cx);
  const char *ptrs = kr_access_names(acc, cx->arena);
  uint32_t at;
  for (size_t i = 0; i < names->names.len; i++) {
    const char *n = names->names.data[i];
    const KrParam *p = param_named(k, n);
    if (!p || !kr_access_find(acc, n))
      return kr_pass_skip(cx, p ? p->span.start : k->span.start,
                          "kernel '%s' has no pointer parameter '%s' (its pointer parameters: %s)",
                          k->name, n, *ptrs ? ptrs : "none");
    const char *why = why_not(cx, kr_access_find(acc, n), &at);
    if (why) return kr_pass_skip(cx, at, "%s", why);
  }
  if (names->names.len) return KR_OK;
  if (acc->ptrs.len == 0)
    return kr_pass_skip(cx, k->span.start, "kernel '%s' has no pointer parameters", k->name);
  for (size_t i = 0; i < acc->ptrs.len; i++)
    if (!why_not(cx, &acc->ptrs.data[i], &at)) return KR_OK;
  /* No pointer qualifies: say why for each. */
  for (size_t i = 0; i < acc->ptrs.len; i++) {
    const char *why = why_not(cx, &acc->ptrs.data[i], &at);
    kr_pass_skip(cx, at, "%s", why);
  }
  return KR_SKIP;
}

/* `x[i]` -> `__ldg(&x[i])`; `*p` -> `__ldg(p)`. Insertions only, so nested loads (x[y[i]])
 * compose. */
static void rewrite(KrPassCtx *cx, TSNode elem) {
  uint32_t s = ts_node_start_byte(elem), e = ts_node_end_byte(elem);
  if (ts_node_symbol(elem) == cx->tree->sym.subscript_expression) {
    kr_pass_replace(cx, s, s, "__ldg(&");
  } else {
    TSNode op = ts_node_child_by_field_name(elem, "operator", 8);
    kr_pass_replace(cx, ts_node_start_byte(op), ts_node_end_byte(op), "__ldg(");
  }
  kr_pass_replace(cx, e, e, ")");
}

static KrStatus apply(KrPassCtx *cx) {
  const KrValue *names = kr_pass_arg(cx, "params");
  KrAccess *acc = kr_pass_access(cx);
  uint32_t at;
  for (size_t i = 0; i < acc->ptrs.len; i++) {
    const KrPtrAccess *pa = &acc->ptrs.data[i];
    if (!kr_pass_names_has(names, pa->param->name) || why_not(cx, pa, &at)) continue;
    bool noted = false;
    for (size_t j = 0; j < pa->sites.len; j++) {
      const KrAccessSite *site = &pa->sites.data[j];
      if (!candidate(cx, site)) continue;
      rewrite(cx, site->elem);
      const char *via;
      if (!noted && ldg_type(cx, site->elem_type, &via) && via) {
        kr_pass_assume(cx, "'%s': %s (another instantiation must have an element type __ldg takes)", pa->param->name, via);
        noted = true;
      }
    }
    kr_pass_assume(cx, "no other pointer writes the memory '%s' points to while the kernel runs "
                       "(the read-only cache is not coherent with writes)", pa->param->name);
  }
  return KR_OK;
}

const KrPass kr_pass_ldg = {
  .name = "ldg",
  .summary = "read-only loads through the read-only data cache (__ldg)",
  .doc = "Rewrites plain loads x[i] / *p of pointers the kernel never writes (read/write sets "
         "sure) as __ldg(&x[i]) / __ldg(p), for the element types __ldg supports. Refuses a "
         "pointer that is written, or whose uses cannot all be followed, naming the place.",
  .params = params,
  .nparams = sizeof params / sizeof *params,
  .precision = KR_PRECISION_EXACT,
  .search = {
    .reason = "route the read-only loads of %s through the read-only data cache",
    .points = {{"defaults", "{}"}},
    .rank = {[KR_SEARCH_MEMORY] = 140, [KR_SEARCH_COMPUTE] = 160, [KR_SEARCH_LATENCY] = 150},
  },
  .check = check,
  .apply = apply,
};
