/* base/buf.c: the string buffer of kr.h (KrBuf, on the heap, owned by its caller) and its JSON
 * writers for strings and numbers, which the --json output, the audit log and the reports share. */
#include "base/kr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void buf_reserve(KrBuf *self, size_t extra) {
  if (self->len + extra + 1 <= self->cap) return;
  size_t ncap = self->cap ? self->cap * 2 : 256;
  while (ncap < self->len + extra + 1) ncap *= 2;
  char *p = realloc(self->data, ncap);
  if (!p) {
    fputs("krewrite: out of memory\n", stderr);
    abort();
  }
  self->data = p;
  self->cap = ncap;
}

void kr_buf_append(KrBuf *self, const char *s, size_t n) {
  buf_reserve(self, n);
  if (n) memcpy(self->data + self->len, s, n);
  self->len += n;
  self->data[self->len] = 0;
}

void kr_buf_puts(KrBuf *self, const char *s) { kr_buf_append(self, s, strlen(s)); }

void kr_buf_putc(KrBuf *self, char c) { kr_buf_append(self, &c, 1); }

void kr_buf_vprintf(KrBuf *self, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n <= 0) return;
  buf_reserve(self, (size_t)n);
  vsnprintf(self->data + self->len, (size_t)n + 1, fmt, ap);
  self->len += (size_t)n;
}

void kr_buf_printf(KrBuf *self, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kr_buf_vprintf(self, fmt, ap);
  va_end(ap);
}

void kr_buf_json_string(KrBuf *self, const char *s, size_t n) {
  kr_buf_putc(self, '"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    switch (c) {
    case '"': kr_buf_puts(self, "\\\""); break;
    case '\\': kr_buf_puts(self, "\\\\"); break;
    case '\n': kr_buf_puts(self, "\\n"); break;
    case '\r': kr_buf_puts(self, "\\r"); break;
    case '\t': kr_buf_puts(self, "\\t"); break;
    default:
      if (c < 0x20) kr_buf_printf(self, "\\u%04x", c);
      else kr_buf_putc(self, (char)c);
    }
  }
  kr_buf_putc(self, '"');
}

void kr_buf_json_str(KrBuf *self, const char *s) {
  if (s) kr_buf_json_string(self, s, strlen(s));
  else kr_buf_puts(self, "null");
}

void kr_buf_json_num(KrBuf *self, double v) {
  if (isfinite(v)) kr_buf_printf(self, "%.6g", v);
  else kr_buf_puts(self, "null");
}

char *kr_buf_steal(KrBuf *self) {
  if (!self->data) buf_reserve(self, 0), self->data[0] = 0;
  char *p = self->data;
  self->data = NULL;
  self->len = self->cap = 0;
  return p;
}

void kr_buf_free(KrBuf *self) {
  free(self->data);
  self->data = NULL;
  self->len = self->cap = 0;
}
