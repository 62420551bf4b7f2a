/* base/diag.c: collected diagnostics, formatted as compilers do:
 *   path:line:col: error: message
 *     source line
 *         ^
 * Library code only collects; the CLI decides where the text goes. */
#include "base/kr.h"

#include <string.h>

KrDiags *kr_diags_new(void) {
  KrArena *a = kr_arena_new();
  KrDiags *d = kr_arena_alloc(a, sizeof *d);
  d->arena = a;
  return d;
}

void kr_diags_free(KrDiags *self) {
  if (self) kr_arena_free(self->arena);
}

static void push(KrDiags *self, KrDiag d) {
  if (d.severity == KR_DIAG_ERROR) self->nerrors++;
  kr_vec_push(self->arena, &self->items, d);
}

void kr_diag_vat(KrDiags *self, KrSeverity sev, const KrSource *src, uint32_t at, const char *fmt,
                 va_list ap) {
  KrDiag d = {.severity = sev};
  d.message = kr_arena_vprintf(self->arena, fmt, ap);
  if (src) {
    d.path = kr_arena_strdup(self->arena, src->path);
    if (at > src->len) at = src->len;
    uint32_t line = kr_source_line_of(src, at);
    d.line = line + 1;
    d.col = at - src->line_starts[line] + 1;
    d.source_line = kr_source_line_text(src, line, self->arena);
  }
  push(self, d);
}

void kr_diag_at(KrDiags *self, KrSeverity sev, const KrSource *src, uint32_t at, const char *fmt,
                ...) {
  va_list ap;
  va_start(ap, fmt);
  kr_diag_vat(self, sev, src, at, fmt, ap);
  va_end(ap);
}

void kr_diag_pos(KrDiags *self, KrSeverity sev, const char *path, uint32_t line, uint32_t col,
                 const char *fmt, ...) {
  KrDiag d = {.severity = sev, .line = line, .col = col};
  if (path) d.path = kr_arena_strdup(self->arena, path);
  va_list ap;
  va_start(ap, fmt);
  d.message = kr_arena_vprintf(self->arena, fmt, ap);
  va_end(ap);
  push(self, d);
}

static const char *severity_name(KrSeverity s) {
  switch (s) {
  case KR_DIAG_ERROR: return "error";
  case KR_DIAG_WARNING: return "warning";
  default: return "note";
  }
}

void kr_diag_format(const KrDiag *d, KrBuf *out) {
  if (d->path) {
    kr_buf_puts(out, d->path);
    if (d->line) kr_buf_printf(out, ":%u", d->line);
    if (d->line && d->col) kr_buf_printf(out, ":%u", d->col);
    kr_buf_puts(out, ": ");
  } else {
    kr_buf_puts(out, "krewrite: ");
  }
  kr_buf_printf(out, "%s: %s\n", severity_name(d->severity), d->message);
  if (!d->source_line) return;
  /* The caret line copies tabs from the source so the caret stays under its column. */
  kr_buf_printf(out, "  %s\n  ", d->source_line);
  size_t n = strlen(d->source_line);
  for (uint32_t i = 0; i + 1 < d->col && i < n; i++)
    kr_buf_putc(out, d->source_line[i] == '\t' ? '\t' : ' ');
  kr_buf_puts(out, "^\n");
}

void kr_diags_format(const KrDiags *self, KrBuf *out) {
  for (size_t i = 0; i < self->items.len; i++) kr_diag_format(&self->items.data[i], out);
}

const char *kr_diags_first_error(const KrDiags *self) {
  for (size_t i = 0; i < self->items.len; i++)
    if (self->items.data[i].severity == KR_DIAG_ERROR) return self->items.data[i].message;
  return self->items.len ? self->items.data[0].message : NULL;
}
