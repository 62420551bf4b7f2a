/* base/arena.c: the arena and the growable arrays of kr.h (bump allocation in chunks, freed all at
 * once; KrVec storage comes from it). */
#include "base/kr.h"

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
  memset(p, 0, size);
  return p;
}


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
