/* passes/pass.c: the helpers pass files use to produce edits, assumptions and reasons, and the
 * analyses of the kernel, built once per pass run and shared by check and apply. */
#include "passes/pass.h"

#include "frontend/access.h"
#include "frontend/affine.h"
#include "frontend/loops.h"
#include "frontend/uniform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kr_pass_replace(KrPassCtx *cx, uint32_t start, uint32_t end, const char *text) {
  KrEdit e = {.start = start, .end = end, .text = kr_arena_strdup(cx->arena, text)};
  kr_vec_push(cx->arena, &cx->edits, e);
}

void kr_pass_replace_node(KrPassCtx *cx, TSNode n, const char *text) {
  kr_pass_replace(cx, ts_node_start_byte(n), ts_node_end_byte(n), text);
}

void kr_pass_assume(KrPassCtx *cx, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const char *s = kr_arena_vprintf(cx->arena, fmt, ap);
  va_end(ap);
  for (size_t i = 0; i < cx->assumptions.len; i++)
    if (strcmp(cx->assumptions.data[i], s) == 0) return;
  kr_vec_push(cx->arena, &cx->assumptions, s);
}

void kr_pass_assume_aligned(KrPassCtx *cx, const char *param, int bytes) {
  for (size_t i = 0; i < cx->aligned.len; i++)
    if (strcmp(cx->aligned.data[i].param, param) == 0) {
      if (bytes > cx->aligned.data[i].bytes) cx->aligned.data[i].bytes = bytes;
      return;
    }
  KrAligned al = {kr_arena_strdup(cx->arena, param), bytes};
  kr_vec_push(cx->arena, &cx->aligned, al);
}

const char *kr_precision_name(KrPrecision p) {
  return p == KR_PRECISION_EXACT ? "exact" : p == KR_PRECISION_LOWERS ? "lowers" : "by its parameters";
}

KrStatus kr_pass_skip(KrPassCtx *cx, uint32_t at, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kr_diag_vat(cx->diag, KR_DIAG_NOTE, cx->src, at, fmt, ap);
  va_end(ap);
  return KR_SKIP;
}

void kr_pass_settle_string(KrPassCtx *cx, const char *name, const char *value) {
  KrValue *v = (KrValue *)kr_pass_arg(cx, name);   /* cx->args is the driver's scratch copy */
  v->s = kr_arena_strdup(cx->arena, value);
  v->given = true;
}

const KrValue *kr_pass_arg(const KrPassCtx *cx, const char *name) {
  for (size_t i = 0; i < cx->pass->nparams; i++)
    if (strcmp(cx->pass->params[i].name, name) == 0) return &cx->args[i];
  /* A name the pass does not declare is krewrite's own mistake, never the recipe's (the recipe's
   * arguments were validated against the declarations): unit.pass_args finds it in the sources. */
  fprintf(stderr, "krewrite: internal error: pass '%s' reads an argument '%s' it does not declare\n", cx->pass->name, name);
  abort();
}

void kr_pass_remove_statement(KrPassCtx *cx, TSNode n) {
  const char *t = cx->src->text;
  uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n), ls = s, le = e;
  while (ls > 0 && (t[ls - 1] == ' ' || t[ls - 1] == '\t')) ls--;
  while (le < cx->src->len && (t[le] == ' ' || t[le] == '\t')) le++;
  if ((ls == 0 || t[ls - 1] == '\n') && (le == cx->src->len || t[le] == '\n')) {
    s = ls;
    e = le < cx->src->len ? le + 1 : le;
  }
  kr_pass_replace(cx, s, e, "");
}

char *kr_pass_text(const KrPassCtx *cx, TSNode n) { return kr_node_text(cx->tree, n, cx->arena); }

const char *kr_pass_indent_at(const KrPassCtx *cx, uint32_t at) {
  uint32_t line = kr_source_line_of(cx->src, at);
  uint32_t s = cx->src->line_starts[line], e = s;
  while (e < cx->src->len && (cx->src->text[e] == ' ' || cx->src->text[e] == '\t')) e++;
  return kr_arena_strndup(cx->arena, cx->src->text + s, e - s);
}

bool kr_pass_names_has(const KrValue *v, const char *name) {
  if (v->names.len == 0) return true;
  for (size_t i = 0; i < v->names.len; i++)
    if (strcmp(v->names.data[i], name) == 0) return true;
  return false;
}

/* ---- The analyses ---------------------------------------------------------------------------- */

KrScope *kr_pass_scope(KrPassCtx *cx) {
  if (!cx->an.scope) cx->an.scope = kr_scope_new(cx->tree, cx->kernel, cx->arena);
  return cx->an.scope;
}

KrLoops *kr_pass_loops(KrPassCtx *cx) {
  if (!cx->an.loops)
    cx->an.loops = kr_loops_new_in(cx->tree, cx->kernel, kr_pass_scope(cx), cx->arena);
  return cx->an.loops;
}

KrAffineCtx *kr_pass_affine(KrPassCtx *cx) {
  if (!cx->an.affine) cx->an.affine = kr_affine_ctx_new(cx->tree, cx->kernel, cx->arena);
  return cx->an.affine;
}

KrAccess *kr_pass_access(KrPassCtx *cx) {
  if (!cx->an.access) cx->an.access = kr_access_new(cx->tree, cx->kernel, cx->arena);
  return cx->an.access;
}

const KrNest *kr_pass_nest(KrPassCtx *cx, const char **why) {
  if (!cx->an.nest_tried) {
    cx->an.nest_tried = true;
    KrDiags *d = kr_diags_new();
    cx->an.nest = kr_nest_lift(cx->tree, cx->kernel, cx->arena, d);
    const char *m = kr_diags_first_error(d);
    cx->an.nest_why = kr_arena_strdup(cx->arena, m ? m : "the kernel cannot be lifted into a nest");
    cx->an.nest_at = kr_source_first_error_at(cx->src, d, ts_node_start_byte(cx->kernel->node));
    kr_diags_free(d);
  }
  *why = cx->an.nest_why;
  return cx->an.nest;
}

KrUniform *kr_pass_uniform(KrPassCtx *cx) {
  if (!cx->an.uniform) cx->an.uniform = kr_uniform_new(cx->tree, cx->kernel, cx->arena);
  return cx->an.uniform;
}

/* ---- Launch changes ------------------------------------------------------------------------------ */

size_t kr_launch_args_count(const char *args) {
  if (!args || !*args) return 0;
  size_t n = 1;
  for (const char *p = args; *p; p++) n += *p == ';';
  return n;
}

const char *kr_launch_arg(const char *args, size_t i, KrArena *arena) {
  const char *p = args;
  for (; i > 0 && p; i--) p = strchr(p, ';'), p = p ? p + 1 : NULL;
  if (!p) return NULL;
  while (*p == ' ') p++;
  size_t n = strcspn(p, ";");
  while (n > 0 && p[n - 1] == ' ') n--;
  return kr_arena_strndup(arena, p, n);
}
