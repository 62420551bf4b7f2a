/* base/source.c: loading source text (with the checks that keep binary or huge files out of
 * the parser), line lookup for diagnostics, atomic file writes and SHA-256 for the audit log. */
#include "base/kr.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Returns the offset of the first byte that breaks UTF-8, or len when the text is valid. */
static size_t utf8_invalid_at(const unsigned char *s, size_t len) {
  size_t i = 0;
  while (i < len) {
    unsigned char c = s[i];
    size_t n;
    uint32_t cp;
    if (c < 0x80) { i++; continue; }
    else if ((c & 0xE0) == 0xC0) n = 1, cp = c & 0x1F;
    else if ((c & 0xF0) == 0xE0) n = 2, cp = c & 0x0F;
    else if ((c & 0xF8) == 0xF0) n = 3, cp = c & 0x07;
    else return i;
    for (size_t k = 1; k <= n; k++) {
      if (i + k >= len || (s[i + k] & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    /* Overlong forms, surrogates and values past U+10FFFF are not UTF-8. */
    static const uint32_t min[4] = {0, 0x80, 0x800, 0x10000};
    if (cp < min[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += n + 1;
  }
  return len;
}

static void index_lines(KrSource *src, KrArena *arena) {
  uint32_t n = 1;
  for (uint32_t i = 0; i < src->len; i++)
    if (src->text[i] == '\n') n++;
  src->line_starts = kr_arena_alloc(arena, n * sizeof *src->line_starts);
  src->nlines = n;
  uint32_t k = 0;
  src->line_starts[k++] = 0;
  for (uint32_t i = 0; i < src->len; i++)
    if (src->text[i] == '\n') src->line_starts[k++] = i + 1;
}

KrStatus kr_source_from_text(KrSource *out, const char *path, const char *text, size_t len,
                             KrArena *arena, KrDiags *diags) {
  memset(out, 0, sizeof *out);
  out->path = kr_arena_strdup(arena, path);
  if (len > KR_SOURCE_MAX_BYTES) {
    kr_diag_pos(diags, KR_DIAG_ERROR, path, 0, 0,
                "file is %zu bytes, over the limit of %u bytes for a source file", len,
                KR_SOURCE_MAX_BYTES);
    return KR_ERR;
  }
  char *copy = kr_arena_strndup(arena, text, len);
  out->text = copy;
  out->len = (uint32_t)len;
  index_lines(out, arena);
  const char *nul = memchr(text, 0, len);
  if (nul) {
    uint32_t at = (uint32_t)(nul - text);
    uint32_t line = kr_source_line_of(out, at);
    kr_diag_pos(diags, KR_DIAG_ERROR, path, line + 1, at - out->line_starts[line] + 1,
                "binary file: NUL byte at offset %u; krewrite reads CUDA source text", at);
    return KR_ERR;
  }
  size_t bad = utf8_invalid_at((const unsigned char *)text, len);
  if (bad < len) {
    uint32_t line = kr_source_line_of(out, (uint32_t)bad);
    kr_diag_pos(diags, KR_DIAG_ERROR, path, line + 1, (uint32_t)bad - out->line_starts[line] + 1,
                "not UTF-8 text: invalid byte 0x%02x at offset %zu", (unsigned char)text[bad],
                bad);
    return KR_ERR;
  }
  return KR_OK;
}

KrStatus kr_file_read(const char *path, KrArena *arena, char **data, size_t *len, KrDiags *diags) {
  struct stat st;
  if (stat(path, &st) != 0) {
    kr_diag_pos(diags, KR_DIAG_ERROR, path, 0, 0, "cannot open: %s", strerror(errno));
    return KR_ERR;
  }
  if (S_ISDIR(st.st_mode)) {
    kr_diag_pos(diags, KR_DIAG_ERROR, path, 0, 0, "is a directory, not a file");
    return KR_ERR;
  }
  if (!S_ISREG(st.st_mode)) {
    kr_diag_pos(diags, KR_DIAG_ERROR, path, 0, 0, "not a regular file");
    return KR_ERR;
  }
  if ((uint64_t)st.st_size > KR_SOURCE_MAX_BYTES) {
    kr_diag_pos(diags, KR_DIAG_ERROR, path, 0, 0,
                "file is %lld bytes, over the limit of %u bytes", (long long)st.st_size,
                KR_SOURCE_MAX_BYTES);
    return KR_ERR;
  }
  FILE *f = fopen(path, "rb");
  if (!f) {
    kr_diag_pos(diags, KR_DIAG_ERROR, path, 0, 0, "cannot open: %s", strerror(errno));
    return KR_ERR;
  }
  size_t cap = (size_t)st.st_size;
  char *buf = kr_arena_alloc(arena, cap + 1);
  size_t n = fread(buf, 1, cap, f);
  int err = ferror(f);
  fclose(f);
  if (err) {
    kr_diag_pos(diags, KR_DIAG_ERROR, path, 0, 0, "read error");
    return KR_ERR;
  }
  buf[n] = 0;
  *data = buf;
  *len = n;
  return KR_OK;
}

KrStatus kr_source_read(KrSource *out, const char *path, KrArena *arena, KrDiags *diags) {
  char *data;
  size_t len;
  if (kr_file_read(path, arena, &data, &len, diags) != KR_OK) return KR_ERR;
  return kr_source_from_text(out, path, data, len, arena, diags);
}

uint32_t kr_source_line_of(const KrSource *self, uint32_t at) {
  uint32_t lo = 0, hi = self->nlines;  /* last line start <= at */
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (self->line_starts[mid] <= at) lo = mid;
    else hi = mid;
  }
  return lo;
}

uint32_t kr_source_first_error_at(const KrSource *self, const KrDiags *d, uint32_t fallback) {
  for (size_t i = 0; i < d->items.len; i++) {
    const KrDiag *x = &d->items.data[i];
    if (x->severity != KR_DIAG_ERROR) continue;
    if (x->line < 1 || x->line > self->nlines || x->col < 1) return fallback;
    uint32_t b = self->line_starts[x->line - 1] + x->col - 1;
    return b < self->len ? b : fallback;
  }
  return fallback;
}

const char *kr_source_line_text(const KrSource *self, uint32_t line, KrArena *arena) {
  if (line >= self->nlines) return "";
  uint32_t s = self->line_starts[line];
  uint32_t e = s;
  while (e < self->len && self->text[e] != '\n') e++;
  if (e > s && self->text[e - 1] == '\r') e--;
  return kr_arena_strndup(arena, self->text + s, e - s);
}

/* ---- Atomic writes ------------------------------------------------------------------------------ */

static bool write_all(int fd, const char *data, size_t len) {
  size_t off = 0;
  while (off < len) {
    ssize_t w = write(fd, data + off, len - off);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) return false;
    off += (size_t)w;
  }
  return true;
}

KrStatus kr_file_write_atomic(const char *path, const char *data, size_t len, KrDiags *diags) {
  /* A device or a pipe (-o /dev/null, -o /dev/stdout) is written in place: renaming a file over
   * it would replace the device with a plain file. */
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) {
      kr_diag_pos(diags, KR_DIAG_ERROR, path, 0, 0, "cannot write: it is a folder");
      return KR_ERR;
    }
    int dfd = open(path, O_WRONLY | O_CLOEXEC);
    bool ok = dfd >= 0 && write_all(dfd, data, len);
    int e = errno;
    if (dfd >= 0 && close(dfd) != 0 && ok) ok = false, e = errno;
    if (ok) return KR_OK;
    kr_diag_pos(diags, KR_DIAG_ERROR, path, 0, 0, "cannot write: %s", strerror(e));
    return KR_ERR;
  }
  size_t n = strlen(path);
  char *tmp = malloc(n + 16);
  if (!tmp) return KR_ERR;
  snprintf(tmp, n + 16, "%s.tmpXXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    kr_diag_pos(diags, KR_DIAG_ERROR, path, 0, 0, "cannot write: %s", strerror(errno));
    free(tmp);
    return KR_ERR;
  }
  if (!write_all(fd, data, len)) goto fail;
  if (fchmod(fd, 0644) != 0 || fsync(fd) != 0) goto fail;
  if (close(fd) != 0) {
    fd = -1;
    goto fail;
  }
  fd = -1;
  if (rename(tmp, path) != 0) goto fail;
  free(tmp);
  return KR_OK;
fail:
  kr_diag_pos(diags, KR_DIAG_ERROR, path, 0, 0, "cannot write: %s", strerror(errno));
  if (fd >= 0) close(fd);
  unlink(tmp);
  free(tmp);
  return KR_ERR;
}

/* ---- SHA-256 (FIPS 180-4), for input/output fingerprints in the audit log ---------------------- */

static const uint32_t K256[64] = {
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha256_block(uint32_t h[8], const unsigned char *p) {
  uint32_t w[64];
  for (int i = 0; i < 16; i++)
    w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 |
           p[4 * i + 3];
  for (int i = 16; i < 64; i++) {
    uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
  for (int i = 0; i < 64; i++) {
    uint32_t t1 = hh + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K256[i] + w[i];
    uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
  }
  h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
}

void kr_sha256_hex(const void *data, size_t len, char out[65]) {
  uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const unsigned char *p = data;
  size_t full = len / 64;
  for (size_t i = 0; i < full; i++) sha256_block(h, p + 64 * i);
  unsigned char tail[128] = {0};
  size_t rest = len % 64;
  memcpy(tail, p + 64 * full, rest);
  tail[rest] = 0x80;
  size_t tlen = rest < 56 ? 64 : 128;
  uint64_t bits = (uint64_t)len * 8;
  for (int i = 0; i < 8; i++) tail[tlen - 1 - i] = (unsigned char)(bits >> (8 * i));
  sha256_block(h, tail);
  if (tlen == 128) sha256_block(h, tail + 64);
  for (int i = 0; i < 8; i++) snprintf(out + 8 * i, 9, "%08x", h[i]);
}

/* ---- Where text can go before a statement ----------------------------------------------------- */

static bool blank_line(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++;
  return p == end;
}

static bool pragma_line(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\t')) p++;
  return end - p >= 7 && strncmp(p, "#pragma", 7) == 0;
}

uint32_t kr_source_head(const KrSource *self, uint32_t start, bool *own_line) {
  uint32_t line = kr_source_line_of(self, start);
  *own_line = blank_line(self->text + self->line_starts[line], self->text + start);
  if (!*own_line) return start;
  uint32_t head = self->line_starts[line];
  while (line > 0) {
    line--;
    const char *s = self->text + self->line_starts[line];
    const char *e = self->text + self->line_starts[line + 1];
    if (blank_line(s, e)) continue;
    if (!pragma_line(s, e)) break;
    head = self->line_starts[line];
  }
  return head;
}

/* ---- How a source is built ------------------------------------------------------------------------ */

KrStatus kr_build_define(KrBuildFlags *f, const char *def, const char *what, KrArena *arena, KrDiags *diags) {
  const char *eq = strchr(def, '=');
  size_t n = eq ? (size_t)(eq - def) : strlen(def);
  bool ok = n > 0 && !(def[0] >= '0' && def[0] <= '9');
  for (size_t i = 0; i < n && ok; i++) {
    char c = def[i];
    ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  }
  if (!ok || strchr(def, '\n')) {
    kr_diag_pos(diags, KR_DIAG_ERROR, NULL, 0, 0, "%s expects NAME or NAME=VALUE with an identifier for the name, got '%s'",
                what, def);
    return KR_ERR;
  }
  for (size_t i = 0; i < f->defines.len; i++) {   /* the same name again: the later value */
    const char *o = f->defines.data[i], *oeq = strchr(o, '=');
    size_t on = oeq ? (size_t)(oeq - o) : strlen(o);
    if (on == n && memcmp(o, def, n) == 0) {
      f->defines.data[i] = kr_arena_strdup(arena, def);
      return KR_OK;
    }
  }
  kr_vec_push(arena, &f->defines, kr_arena_strdup(arena, def));
  return KR_OK;
}

KrStatus kr_build_include(KrBuildFlags *f, const char *dir, const char *what, KrArena *arena, KrDiags *diags) {
  struct stat st;
  int r = stat(dir, &st);
  if (r != 0 || !S_ISDIR(st.st_mode)) {
    const char *colon = strstr(what, ": ");   /* "spec.lua: include[2]": reported against the spec */
    kr_diag_pos(diags, KR_DIAG_ERROR, colon ? kr_arena_strndup(arena, what, (size_t)(colon - what)) : NULL, 0, 0,
                "%s: the include folder '%s' %s", colon ? colon + 2 : what, dir,
                r != 0 ? kr_arena_printf(arena, "cannot be read: %s", strerror(errno)) : "is not a folder");
    return KR_ERR;
  }
  kr_vec_push(arena, &f->include_dirs, kr_arena_strdup(arena, dir));
  return KR_OK;
}

void kr_build_merge(KrBuildFlags *f, const KrBuildFlags *add, KrArena *arena) {
  if (!add) return;
  if (!f->source_dir) f->source_dir = add->source_dir;
  for (size_t i = 0; i < add->include_dirs.len; i++) kr_vec_push(arena, &f->include_dirs, add->include_dirs.data[i]);
  KrDiags *quiet = kr_diags_new();   /* the defines were checked when they were added */
  for (size_t i = 0; i < add->defines.len; i++) kr_build_define(f, add->defines.data[i], "", arena, quiet);
  kr_diags_free(quiet);
}

const char *kr_path_dir(const char *path, KrArena *arena) {
  const char *s = strrchr(path, '/');
  if (!s) return ".";
  return s == path ? "/" : kr_arena_strndup(arena, path, (size_t)(s - path));
}

const char *kr_build_source_dir(const KrBuildFlags *f, const char *path, KrArena *arena) {
  return f && f->source_dir ? f->source_dir : kr_path_dir(path, arena);
}

size_t kr_build_args(const KrBuildFlags *f, const char **argv) {
  size_t n = 0;
  if (!f) return 0;
  for (size_t i = 0; i < f->include_dirs.len; i++) argv[n++] = "-I", argv[n++] = f->include_dirs.data[i];
  for (size_t i = 0; i < f->defines.len; i++) argv[n++] = "-D", argv[n++] = f->defines.data[i];
  return n;
}

void kr_source_use(KrSource *src, const KrBuildFlags *f) {
  src->defines = f ? f->defines.data : NULL;
  src->ndefines = f ? f->defines.len : 0;
}
