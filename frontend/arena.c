/* frontend/arena.c: the arena, growable arrays and the string buffer of kr.h. */
#include "frontend/kr.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_MIN (64u << 10)

typedef struct Chunk {
  struct Chunk *next;
  size_t size, used;
  _Alignas(16) unsigned char data[];
} Chunk;

struct KrArena {
  Chunk *head;
  size_t total;
};

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fputs("krewrite: out of memory\n", stderr);
    abort();
  }
  return p;
}

KrArena *kr_arena_new(void) {
  KrArena *a = xmalloc(sizeof *a);
  a->head = NULL;
  a->total = 0;
  return a;
}

void kr_arena_reset(KrArena *self) {
  Chunk *c = self->head;
  while (c) {
    Chunk *next = c->next;
    free(c);
    c = next;
  }
  self->head = NULL;
  self->total = 0;
}

void kr_arena_free(KrArena *self) {
  if (!self) return;
  kr_arena_reset(self);
  free(self);
}

void *kr_arena_alloc(KrArena *self, size_t size) {
  size = (size + 15) & ~(size_t)15;
  Chunk *c = self->head;
  if (!c || c->size - c->used < size) {
    size_t cap = size > CHUNK_MIN ? size : CHUNK_MIN;
    c = xmalloc(sizeof *c + cap);
    c->size = cap;
    c->used = 0;
    c->next = self->head;
    self->head = c;
  }
  void *p = c->data + c->used;
  c->used += size;
  self->total += size;
  memset(p, 0, size);
  return p;
}

size_t kr_arena_used(const KrArena *self) { return self->total; }

char *kr_arena_strndup(KrArena *self, const char *s, size_t n) {
  char *p = kr_arena_alloc(self, n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

char *kr_arena_strdup(KrArena *self, const char *s) {
  return kr_arena_strndup(self, s, strlen(s));
}

char *kr_arena_vprintf(KrArena *self, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) n = 0;
  char *p = kr_arena_alloc(self, (size_t)n + 1);
  vsnprintf(p, (size_t)n + 1, fmt, ap);
  return p;
}

char *kr_arena_printf(KrArena *self, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *p = kr_arena_vprintf(self, fmt, ap);
  va_end(ap);
  return p;
}

void kr__vec_grow(KrArena *arena, void **data, size_t *cap, size_t elem, size_t need) {
  size_t ncap = *cap ? *cap * 2 : 8;
  while (ncap < need) ncap *= 2;
  void *p = kr_arena_alloc(arena, ncap * elem);
  if (*data) memcpy(p, *data, *cap * elem);
  *data = p;
  *cap = ncap;
}

/* ---- KrBuf ------------------------------------------------------------------------------------- */

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
