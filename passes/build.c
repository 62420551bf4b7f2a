/* passes/build.c: the code builder (build.h). Every pass writes new code through it, so the
 * indentation, newline style, fresh names and splicing of existing statements are decided in
 * one place instead of once per pass. */
#include "passes/build.h"

#include "frontend/scope.h"

#include <stdarg.h>
#include <string.h>

/* ---- The place ------------------------------------------------------------------------------- */

const char *kr_code_indent_unit(KrPassCtx *cx) {
  TSNode first = ts_node_named_child(cx->kernel->body, 0);
  uint32_t outer = ts_node_start_point(cx->kernel->node).column;
  uint32_t inner = ts_node_is_null(first) ? outer + 2 : ts_node_start_point(first).column;
  if (ts_node_is_null(first) || inner <= outer || inner - outer > 8) return "  ";
  const char *t = cx->src->text + ts_node_start_byte(first) - (inner - outer);
  /* A tab-indented file steps by a tab; anything else by as many spaces as the body is in. */
  if (t[0] == '\t') return "\t";
  return kr_arena_strndup(cx->arena, "        ", inner - outer);
}

const char *kr_code_newline_at(const KrPassCtx *cx, uint32_t at) {
  const char *t = cx->src->text, *nl = strchr(t + at, '\n');
  return nl && nl > t && nl[-1] == '\r' ? "\r\n" : "\n";
}

void kr_code_at(KrCode *c, KrPassCtx *cx, uint32_t at) {
  memset(c, 0, sizeof *c);
  c->cx = cx;
  c->indent = kr_pass_indent_at(cx, at);
  c->unit = kr_code_indent_unit(cx);
  c->nl = kr_code_newline_at(cx, at);
  c->at_bol = at == cx->src->line_starts[kr_source_line_of(cx->src, at)];
}

/* ---- Writing --------------------------------------------------------------------------------- */

void kr_code_indent(KrCode *c) {
  if (!c->at_bol) return;
  kr_buf_puts(&c->buf, c->indent);
  for (int i = 0; i < c->depth; i++) kr_buf_puts(&c->buf, c->unit);
  c->at_bol = false;
}

void kr_code_newline(KrCode *c) {
  kr_buf_puts(&c->buf, c->nl);
  c->at_bol = true;
}

void kr_code_puts(KrCode *c, const char *text) {
  if (!*text) return;
  kr_code_indent(c);
  kr_buf_puts(&c->buf, text);
  c->at_bol = text[strlen(text) - 1] == '\n';
}

void kr_code_raw(KrCode *c, const char *text) {
  if (!*text) return;
  kr_buf_puts(&c->buf, text);
  c->at_bol = text[strlen(text) - 1] == '\n';
}

static void vline(KrCode *c, const char *suffix, const char *fmt, va_list ap) {
  kr_code_indent(c);
  kr_buf_vprintf(&c->buf, fmt, ap);
  kr_buf_puts(&c->buf, suffix);
  kr_code_newline(c);
}

void kr_code_printf(KrCode *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const char *s = kr_arena_vprintf(c->cx->arena, fmt, ap);
  va_end(ap);
  kr_code_puts(c, s);
}

void kr_code_line(KrCode *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vline(c, "", fmt, ap);
  va_end(ap);
}

void kr_code_open(KrCode *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vline(c, " {", fmt, ap);
  va_end(ap);
  c->depth++;
}

void kr_code_block(KrCode *c) {
  kr_code_indent(c);
  kr_buf_putc(&c->buf, '{');
  kr_code_newline(c);
  c->depth++;
}

void kr_code_close(KrCode *c) {
  if (c->depth > 0) c->depth--;
  kr_code_indent(c);
  kr_buf_putc(&c->buf, '}');
  kr_code_newline(c);
}

void kr_code_trim(KrCode *c) {
  size_t n = strlen(c->nl);
  if (c->buf.len >= n && memcmp(c->buf.data + c->buf.len - n, c->nl, n) == 0) {
    c->buf.len -= n;
    c->buf.data[c->buf.len] = 0;
    c->at_bol = false;
  }
}

/* The column (in bytes of blanks) of the line holding `at`, up to `at`. */
static uint32_t column_of(const KrSource *src, uint32_t at) {
  return at - src->line_starts[kr_source_line_of(src, at)];
}

void kr_code_splice_range(KrCode *c, uint32_t start, uint32_t end, const KrSubst *subst,
                          size_t n) {
  const char *t = c->cx->src->text;
  /* The common indentation of the lines after the first (at most the first line's column) is
   * what they have beyond the place; it is replaced by the current depth's. */
  uint32_t strip = column_of(c->cx->src, start);
  for (uint32_t i = start; i < end; i++)
    if (t[i] == '\n') {
      uint32_t k = i + 1, w = 0;
      while (k < end && (t[k] == ' ' || t[k] == '\t')) k++, w++;
      if (k < end && t[k] != '\n' && t[k] != '\r' && w < strip) strip = w;
    }
  kr_code_indent(c);
  size_t next = 0;
  uint32_t at = start;
  while (at < end) {
    if (next < n && subst[next].start == at) {
      kr_buf_puts(&c->buf, subst[next].text);
      at = subst[next++].end;
      continue;
    }
    if (t[at] == '\r' && at + 1 < end && t[at + 1] == '\n') {
      at++;
      continue;
    }
    if (t[at] != '\n') {
      kr_buf_putc(&c->buf, t[at++]);
      continue;
    }
    kr_code_newline(c);
    uint32_t k = at + 1, w = 0;
    while (k < end && w < strip && (t[k] == ' ' || t[k] == '\t')) k++, w++;
    if (k < end && t[k] != '\n' && t[k] != '\r') kr_code_indent(c);
    at = k;
  }
  kr_code_newline(c);
}

void kr_code_splice(KrCode *c, TSNode stmt, const KrSubst *subst, size_t n) {
  kr_code_splice_range(c, ts_node_start_byte(stmt), ts_node_end_byte(stmt), subst, n);
}

void kr_code_affine(KrCode *c, const KrAffine *a, const char *var, const char *text) {
  kr_code_puts(c, kr_affine_text_with(a, var, kr_arena_printf(c->cx->arena, "(%s)", text),
                                      c->cx->arena));
}

/* ---- Names ----------------------------------------------------------------------------------- */

const char *kr_code_fresh(KrPassCtx *cx, KrNameSet *taken, const char *base) {
  KrScope *sc = kr_pass_scope(cx);
  const char *name = base;
  for (int k = 1; kr_scope_name_in_code(sc, name) || kr_names_has(taken, name); k++)
    name = kr_arena_printf(cx->arena, "%s_%d", base, k);
  kr_vec_push(cx->arena, &taken->names, name);
  return name;
}

/* ---- Ending ---------------------------------------------------------------------------------- */

const char *kr_code_text(KrCode *c) {
  const char *s = kr_arena_strndup(c->cx->arena, c->buf.data ? c->buf.data : "", c->buf.len);
  kr_buf_free(&c->buf);
  return s;
}

void kr_code_replace(KrCode *c, uint32_t start, uint32_t end) {
  KrPassCtx *cx = c->cx;
  kr_pass_replace(cx, start, end, kr_code_text(c));
}

void kr_code_free(KrCode *c) { kr_buf_free(&c->buf); }

void kr_code_before(KrPassCtx *cx, TSNode stmt, const char *const *lines, size_t n) {
  if (n == 0) return;
  uint32_t start = ts_node_start_byte(stmt);
  bool own_line;
  uint32_t at = kr_source_head(cx->src, start, &own_line);
  TSNode parent = ts_node_parent(stmt);
  bool block = !ts_node_is_null(parent) &&
               ts_node_symbol(parent) == cx->tree->sym.compound_statement;
  KrCode c;
  kr_code_at(&c, cx, start);
  c.at_bol = own_line;
  if (!block) kr_code_puts(&c, "{ ");
  for (size_t i = 0; i < n; i++) {
    kr_code_puts(&c, lines[i]);
    if (own_line) kr_code_newline(&c);
    else kr_code_puts(&c, " ");
  }
  kr_code_replace(&c, at, at);
  if (!block) kr_pass_replace(cx, ts_node_end_byte(stmt), ts_node_end_byte(stmt), " }");
}
