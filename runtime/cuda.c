/* runtime/cuda.c: the CUDA driver backend (cuda.h): the driver opened with dlopen in a forked
 * child, kernel lookup by the name a launch writes (demangling the module's function names), one
 * verification run, and the probe. The parent never touches CUDA: it checks the launches, forks,
 * watches the child's records under a time limit and turns the outcome into one error. Timing
 * lives in runtime/cuda_bench.c and shares the child-side helpers declared in cuda_internal.h. */
#define _GNU_SOURCE /* pipe2 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include "base/proc.h"
#include "runtime/cuda_internal.h"
#include "runtime/sandbox.h"

/* From the C++ runtime (libstdc++); declared here so no C++ header is needed. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *n, int *status);

#define KR_CUDA_DEFAULT_TIMEOUT_S 60.0
#define KR_CUDA_PROBE_TIMEOUT_S 60.0

/* ---- Names -----------------------------------------------------------------------------------------
 * A launch writes "tk<float, 128>"; the demangler prints "void tk<float, 128>(float*)". Both are
 * cut to the qualified name with template arguments, split into tokens, rewritten to one
 * canonical spelling, and joined with a blank only between two words. */

typedef struct Tok {
  char *s;
  bool word;               /* identifier or number */
} Tok;

typedef KrVec(Tok) Toks;

static bool ident_start(char c) { return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
static bool ident_char(char c) { return ident_start(c) || (c >= '0' && c <= '9'); }
static bool digit(char c) { return c >= '0' && c <= '9'; }
static bool blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* The qualified name inside a function signature: [*b, *e) loses a trailing parameter list, a
 * return type in front and a leading "::". */
static void core_span(const char *s, size_t *b, size_t *e) {
  size_t lo = 0, hi = strlen(s);
  while (lo < hi && blank(s[lo])) lo++;
  while (hi > lo && blank(s[hi - 1])) hi--;
  if (hi > lo && s[hi - 1] == ')') {
    int depth = 0;
    for (size_t i = hi; i-- > lo;) {
      if (s[i] == ')') depth++;
      else if (s[i] == '(' && --depth == 0) {
        if (i > lo) hi = i;
        break;
      }
    }
    while (hi > lo && blank(s[hi - 1])) hi--;
  }
  /* A blank at depth 0 between a word (or '*', '&', '>') and an identifier ends a return type. */
  int depth = 0;
  size_t cut = lo;
  for (size_t i = lo; i < hi; i++) {
    char c = s[i];
    if (c == '<' || c == '(') depth++;
    else if ((c == '>' || c == ')') && depth > 0) depth--;
    else if (blank(c) && depth == 0) {
      size_t p = i, q = i;
      while (p > lo && blank(s[p - 1])) p--;
      while (q < hi && blank(s[q])) q++;
      if (p > lo && q < hi && ident_start(s[q]) &&
          (ident_char(s[p - 1]) || s[p - 1] == '*' || s[p - 1] == '&' || s[p - 1] == '>'))
        cut = q;
    }
  }
  lo = cut;
  if (hi - lo >= 2 && s[lo] == ':' && s[lo + 1] == ':') lo += 2;
  *b = lo;
  *e = hi;
}

/* An integer or character literal as a decimal number; false when it is neither. */
static bool literal_value(const char *p, size_t n, unsigned long long *v) {
  if (n >= 3 && p[0] == '\'' && p[n - 1] == '\'') {
    if (n == 3) {
      *v = (unsigned char)p[1];
      return true;
    }
    if (n == 4 && p[1] == '\\') {
      static const char from[] = "0ntr\\'\"", to[] = "\0\n\t\r\\'\"";
      const char *k = memchr(from, p[2], sizeof from - 1);
      if (!k) return false;
      *v = (unsigned char)to[k - from];
      return true;
    }
    return false;
  }
  size_t m = n;
  while (m > 0 && strchr("uUlL", p[m - 1])) m--;
  if (m == 0 || !digit(p[0])) return false;
  char tmp[32];
  if (m >= sizeof tmp) return false;
  memcpy(tmp, p, m);
  tmp[m] = 0;
  char *end;
  errno = 0;
  *v = strtoull(tmp, &end, 0);
  return *end == 0 && errno == 0;
}

static void push_tok(KrArena *a, Toks *t, const char *p, size_t n, bool word) {
  Tok k = {kr_arena_strndup(a, p, n), word};
  kr_vec_push(a, t, k);
}

static void tokenize(KrArena *a, const char *s, size_t b, size_t e, Toks *t) {
  size_t i = b;
  while (i < e) {
    char c = s[i];
    size_t j = i + 1;
    unsigned long long v;
    if (blank(c)) {
      i++;
      continue;
    }
    if (ident_start(c)) {
      while (j < e && ident_char(s[j])) j++;
      push_tok(a, t, s + i, j - i, true);
    } else if (digit(c) || c == '\'') {
      if (c == '\'') {
        while (j < e && s[j] != '\'') j += s[j] == '\\' ? 2 : 1;
        j = j < e ? j + 1 : e;
      } else {
        while (j < e && (ident_char(s[j]) || s[j] == '.')) j++;
      }
      if (literal_value(s + i, j - i, &v)) {
        char num[24];
        int k = snprintf(num, sizeof num, "%llu", v);
        push_tok(a, t, num, (size_t)k, true);
      } else {
        push_tok(a, t, s + i, j - i, true);
      }
    } else if (c == ':' && j < e && s[j] == ':') {
      push_tok(a, t, "::", 2, false);
      j++;
    } else {
      push_tok(a, t, s + i, 1, false);
    }
    i = j;
  }
}

static bool is(const Tok *t, const char *s) { return strcmp(t->s, s) == 0; }

static bool type_word(const Tok *t) { return t->word && !digit(t->s[0]); }

/* Rewrites tokens to one spelling: "(char)97" -> "97", "unsigned" -> "unsigned int",
 * "long int" -> "long", "short int" -> "short", "const T" -> "T const". */
static void canonical_tokens(KrArena *a, const Toks *in, Toks *out) {
  for (size_t i = 0; i < in->len; i++) {
    const Tok *t = &in->data[i];
    if (is(t, "(")) {                      /* a cast of a literal: (unsigned char)3 */
      size_t j = i + 1;
      while (j < in->len && type_word(&in->data[j])) j++;
      if (j > i + 1 && j + 1 < in->len && is(&in->data[j], ")") &&
          (digit(in->data[j + 1].s[0]) || is(&in->data[j + 1], "-"))) {
        i = j;
        continue;
      }
    }
    if (is(t, "int") && out->len > 0 &&
        (is(&out->data[out->len - 1], "long") || is(&out->data[out->len - 1], "short")))
      continue;
    if ((is(t, "const") || is(t, "volatile")) &&
        (out->len == 0 || is(&out->data[out->len - 1], "<") || is(&out->data[out->len - 1], ","))) {
      size_t j = i + 1;
      while (j < in->len && (type_word(&in->data[j]) || is(&in->data[j], "::"))) j++;
      if (j > i + 1 && (j == in->len || !is(&in->data[j], "<")) && !is(&in->data[j - 1], "::")) {
        for (size_t k = i + 1; k < j; k++) kr_vec_push(a, out, in->data[k]);
        kr_vec_push(a, out, *t);
        i = j - 1;
        continue;
      }
    }
    kr_vec_push(a, out, *t);
    if (is(t, "unsigned")) {
      const Tok *n = i + 1 < in->len ? &in->data[i + 1] : NULL;
      if (!n || !(is(n, "char") || is(n, "short") || is(n, "int") || is(n, "long"))) {
        Tok k = {"int", true};
        kr_vec_push(a, out, k);
      }
    }
  }
}

static char *canonical(KrArena *a, const char *s) {
  size_t b, e;
  core_span(s, &b, &e);
  Toks raw = {0}, can = {0};
  tokenize(a, s, b, e, &raw);
  canonical_tokens(a, &raw, &can);
  KrBuf out = {0};
  for (size_t i = 0; i < can.len; i++) {
    if (i > 0 && can.data[i].word && can.data[i - 1].word) kr_buf_putc(&out, ' ');
    kr_buf_puts(&out, can.data[i].s);
  }
  char *r = kr_arena_strdup(a, out.data ? out.data : "");
  kr_buf_free(&out);
  return r;
}

/* `name` without its last component's template arguments ("ns::tk<float, 4>" -> "ns::tk"). */
static char *without_template_args(KrArena *a, const char *name) {
  size_t n = strlen(name);
  if (n == 0 || name[n - 1] != '>') return kr_arena_strdup(a, name);
  int depth = 0;
  for (size_t i = n; i-- > 0;) {
    if (name[i] == '>') depth++;
    else if (name[i] == '<' && --depth == 0) return kr_arena_strndup(a, name, i);
  }
  return kr_arena_strdup(a, name);
}

static bool ends_with_scope(const char *s, const char *tail) {
  size_t n = strlen(s), m = strlen(tail);
  return n > m + 2 && strcmp(s + n - m, tail) == 0 && s[n - m - 1] == ':' && s[n - m - 2] == ':';
}

bool kr_cuda_name_matches(const char *demangled, const char *launch_name) {
  KrArena *a = kr_arena_new();
  bool same = strcmp(canonical(a, demangled), canonical(a, launch_name)) == 0;
  kr_arena_free(a);
  return same;
}

long kr_cuda_name_pick(const char *const *demangled, size_t n, const char *launch_name) {
  KrArena *a = kr_arena_new();
  const char *want = canonical(a, launch_name);
  bool deduced = strchr(want, '<') == NULL;
  long exact = -1, loose = -1;
  size_t nexact = 0, nloose = 0;
  for (size_t i = 0; i < n; i++) {
    const char *have = canonical(a, demangled[i]);
    if (strcmp(have, want) == 0) {
      exact = (long)i;
      nexact++;
      continue;
    }
    const char *bare = deduced ? without_template_args(a, have) : have;
    if (ends_with_scope(have, want) || strcmp(bare, want) == 0 || ends_with_scope(bare, want)) {
      loose = (long)i;
      nloose++;
    }
  }
  kr_arena_free(a);
  if (nexact == 1) return exact;
  if (nexact > 1) return -2;
  if (nloose == 1) return loose;
  return nloose > 1 ? -2 : -1;
}

/* ---- Cubins and arguments --------------------------------------------------------------------------- */

bool kr_cuda_is_library(const void *bytes, size_t size) {
  const unsigned char *p = bytes;
  if (!p || size < 64 || memcmp(p, "\177ELF", 4) != 0 || p[4] != 2 || p[5] != 1) return false;
  unsigned type = (unsigned)p[16] | (unsigned)p[17] << 8, machine = (unsigned)p[18] | (unsigned)p[19] << 8;
  return type == 3 /* ET_DYN */ && machine != 190 /* EM_CUDA */;
}

int kr_cuda_cubin_sm(const void *cubin, size_t size) {
  const unsigned char *p = cubin;
  if (!p || size < 64 || memcmp(p, "\177ELF", 4) != 0 || p[4] != 2 /* ELFCLASS64 */ ||
      p[5] != 1 /* little-endian */)
    return 0;
  unsigned machine = (unsigned)p[18] | (unsigned)p[19] << 8;
  if (machine != 190 /* EM_CUDA */) return 0;
  uint32_t flags = (uint32_t)p[48] | (uint32_t)p[49] << 8 | (uint32_t)p[50] << 16 |
                   (uint32_t)p[51] << 24;
  /* ELF ABI version 8 (CUDA 12.8 on) moved the SM number from bits 0-7 to bits 8-15. */
  return p[8] >= 8 ? (int)((flags >> 8) & 0xff) : (int)(flags & 0xff);
}

bool kr_cuda_args_translate(const KrCudaLaunch *l, const KrCudaBuffer *bufs, size_t nbufs,
                            const unsigned long long *dev, unsigned long long *slots, void **params,
                            char *err, size_t errn) {
  for (size_t i = 0; i < l->nargs; i++) {
    int b = l->arg_buffer ? l->arg_buffer[i] : -1;
    if (!l->args || !l->args[i]) {
      snprintf(err, errn, "argument %zu is NULL (args[i] must point to the value)", i);
      return false;
    }
    if (b < 0) {
      params[i] = l->args[i];
      continue;
    }
    if ((size_t)b >= nbufs) {
      snprintf(err, errn, "argument %zu is tied to buffer %d, but there are %zu buffers", i, b, nbufs);
      return false;
    }
    const void *host;
    memcpy(&host, l->args[i], sizeof host);
    uintptr_t h = (uintptr_t)host, base = (uintptr_t)bufs[b].host;
    if (!h || !base || h < base || h - base > bufs[b].bytes) {
      snprintf(err, errn, "argument %zu should point into buffer '%s' (%zu bytes at %p), but holds %p",
               i, bufs[b].name ? bufs[b].name : "?", bufs[b].bytes, bufs[b].host, host);
      return false;
    }
    slots[i] = dev[b] + (unsigned long long)(h - base);
    params[i] = &slots[i];
  }
  return true;
}

/* ---- Checks in the parent -------------------------------------------------------------------------- */

/* Whether [p, p+n) lies in shared mappings, from /proc/self/maps; true when that cannot be read. */
static bool host_is_shared(const void *p, size_t n) {
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f) return true;
  uintptr_t lo = (uintptr_t)p, hi = lo + (n ? n : 1), at = lo;
  char line[512];
  bool ok = false, seen = false;
  while (fgets(line, sizeof line, f)) {
    uintptr_t a, b;
    char perms[8] = "";
    if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR " %7s", &a, &b, perms) != 3) continue;
    if (at < a || at >= b) continue;
    seen = true;
    if (perms[3] != 's') break;
    at = b;
    if (at >= hi) {
      ok = true;
      break;
    }
  }
  fclose(f);
  return ok || !seen;
}

bool kr__cuda_check_buffers(const KrCudaBuffer *bufs, size_t nbufs, bool need_shared, KrDiags *d) {
  for (size_t i = 0; i < nbufs; i++) {
    const char *name = bufs[i].name ? bufs[i].name : "?";
    if (!bufs[i].host && bufs[i].bytes) {
      kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "buffer '%s' has no host memory", name);
      return false;
    }
    if (need_shared && bufs[i].bytes && !host_is_shared(bufs[i].host, bufs[i].bytes)) {
      kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0,
                  "buffer '%s' is not in shared memory, so the GPU child's results could not reach "
                  "it (allocate it with kr_emu_alloc)", name);
      return false;
    }
  }
  return true;
}

bool kr__cuda_check_launches(const KrCudaLaunch *ls, size_t n, const KrCudaBuffer *bufs,
                             size_t nbufs, const char *where, KrDiags *d) {
  for (size_t i = 0; i < n; i++) {
    const KrCudaLaunch *l = &ls[i];
    const char *k = l->kernel ? l->kernel : "(null)";
    if (!l->kernel || !*l->kernel) {
      kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "%slaunch %zu names no kernel", where, i + 1);
      return false;
    }
    KrDim3 g = l->grid, b = l->block;
    uint64_t threads = (uint64_t)b.x * b.y * b.z;
    const char *why = NULL;
    if (!g.x || !g.y || !g.z || !b.x || !b.y || !b.z) why = "a grid or block dimension is 0";
    else if (b.x > 1024 || b.y > 1024 || b.z > 64) why = "a block is at most 1024 x 1024 x 64";
    else if (threads > 1024) why = "a block has at most 1024 threads";
    else if (g.x > 2147483647u || g.y > 65535 || g.z > 65535) why = "a grid is at most 2^31-1 x 65535 x 65535";
    else if (l->shmem > 0x7fffffff) why = "the dynamic shared memory size is absurd";
    if (why) {
      kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0,
                  "%skernel '%s': launch <<<(%u,%u,%u), (%u,%u,%u), %zu>>> is invalid: %s", where,
                  k, g.x, g.y, g.z, b.x, b.y, b.z, l->shmem, why);
      return false;
    }
    unsigned long long *slots = calloc(l->nargs + 1, sizeof *slots);
    unsigned long long *dev = calloc(nbufs + 1, sizeof *dev);
    void **params = calloc(l->nargs + 1, sizeof *params);
    char err[512] = "out of memory";
    bool ok = slots && dev && params &&
              kr_cuda_args_translate(l, bufs, nbufs, dev, slots, params, err, sizeof err);
    free(slots);
    free(dev);
    free(params);
    if (!ok) {
      kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "%skernel '%s' (launch %zu): %s", where, k, i + 1, err);
      return false;
    }
  }
  return true;
}

/* ---- The driver (child only) ------------------------------------------------------------------------ */

typedef struct Sym {
  const char *name;        /* the name cuda.h maps the call to (the _v2 where there is one) */
  size_t offset;
  bool optional;
  const char *older;       /* the name older drivers export instead, or NULL */
} Sym;

static const Sym kSyms[] = {
  {"cuInit", offsetof(KrCudaDriver, Init), false, NULL},
  {"cuDriverGetVersion", offsetof(KrCudaDriver, DriverGetVersion), false, NULL},
  {"cuDeviceGetCount", offsetof(KrCudaDriver, DeviceGetCount), false, NULL},
  {"cuDeviceGet", offsetof(KrCudaDriver, DeviceGet), false, NULL},
  {"cuDeviceGetName", offsetof(KrCudaDriver, DeviceGetName), false, NULL},
  {"cuDeviceGetAttribute", offsetof(KrCudaDriver, DeviceGetAttribute), false, NULL},
  {"cuDevicePrimaryCtxRetain", offsetof(KrCudaDriver, DevicePrimaryCtxRetain), false, NULL},
  {"cuDevicePrimaryCtxRelease_v2", offsetof(KrCudaDriver, DevicePrimaryCtxRelease), false, NULL},
  {"cuCtxSetCurrent", offsetof(KrCudaDriver, CtxSetCurrent), false, NULL},
  {"cuCtxSynchronize", offsetof(KrCudaDriver, CtxSynchronize), false, NULL},
  {"cuModuleLoadData", offsetof(KrCudaDriver, ModuleLoadData), false, NULL},
  {"cuModuleUnload", offsetof(KrCudaDriver, ModuleUnload), false, NULL},
  {"cuModuleGetFunction", offsetof(KrCudaDriver, ModuleGetFunction), false, NULL},
  {"cuModuleGetFunctionCount", offsetof(KrCudaDriver, ModuleGetFunctionCount), true, NULL},
  {"cuModuleEnumerateFunctions", offsetof(KrCudaDriver, ModuleEnumerateFunctions), true, NULL},
  {"cuFuncGetName", offsetof(KrCudaDriver, FuncGetName), true, NULL},
  {"cuFuncGetParamInfo", offsetof(KrCudaDriver, FuncGetParamInfo), true, NULL},
  {"cuFuncSetAttribute", offsetof(KrCudaDriver, FuncSetAttribute), false, NULL},
  {"cuFuncGetAttribute", offsetof(KrCudaDriver, FuncGetAttribute), false, NULL},
  {"cuLaunchKernel", offsetof(KrCudaDriver, LaunchKernel), false, NULL},
  {"cuMemGetInfo_v2", offsetof(KrCudaDriver, MemGetInfo), true, NULL},
  {"cuMemAlloc_v2", offsetof(KrCudaDriver, MemAlloc), false, NULL},
  {"cuMemFree_v2", offsetof(KrCudaDriver, MemFree), false, NULL},
  {"cuMemcpyHtoD_v2", offsetof(KrCudaDriver, MemcpyHtoD), false, NULL},
  {"cuMemcpyDtoH_v2", offsetof(KrCudaDriver, MemcpyDtoH), false, NULL},
  {"cuMemcpyDtoD_v2", offsetof(KrCudaDriver, MemcpyDtoD), false, NULL},
  {"cuMemsetD8_v2", offsetof(KrCudaDriver, MemsetD8), false, NULL},
  {"cuMemsetD16_v2", offsetof(KrCudaDriver, MemsetD16), false, NULL},
  {"cuMemsetD32_v2", offsetof(KrCudaDriver, MemsetD32), false, NULL},
  {"cuEventCreate", offsetof(KrCudaDriver, EventCreate), false, NULL},
  {"cuEventRecord", offsetof(KrCudaDriver, EventRecord), false, NULL},
  {"cuEventSynchronize", offsetof(KrCudaDriver, EventSynchronize), false, NULL},
  {"cuEventElapsedTime_v2", offsetof(KrCudaDriver, EventElapsedTime), false, "cuEventElapsedTime"},
  {"cuEventDestroy_v2", offsetof(KrCudaDriver, EventDestroy), false, NULL},
  {"cuGetErrorName", offsetof(KrCudaDriver, GetErrorName), false, NULL},
  {"cuGetErrorString", offsetof(KrCudaDriver, GetErrorString), false, NULL},
};

/* Opens the driver library and resolves the entry points; false with the reason in err. */
static bool driver_open(KrCudaDriver *drv, char *err, size_t n) {
  memset(drv, 0, sizeof *drv);
  const char *path = getenv("KR_CUDA_LIB");
  if (!path || !*path) path = "libcuda.so.1";
  drv->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!drv->lib) {
    const char *why = dlerror();
    bool missing = why && strstr(why, "No such file");
    snprintf(err, n, "%s %s (%s)", path, missing ? "not found" : "cannot be opened",
             why ? why : "dlopen failed");
    return false;
  }
  for (size_t i = 0; i < sizeof kSyms / sizeof kSyms[0]; i++) {
    void *f = dlsym(drv->lib, kSyms[i].name);
    if (!f && kSyms[i].older) f = dlsym(drv->lib, kSyms[i].older);
    if (!f && !kSyms[i].optional) {
      snprintf(err, n, "%s has no %s (a driver older than CUDA 11?)", path, kSyms[i].name);
      return false;
    }
    memcpy((char *)drv + kSyms[i].offset, &f, sizeof f);  /* object to function pointer */
  }
  return true;
}

/* "CUDA_ERROR_X: description" for a driver result. */
static void error_text(const KrCudaDriver *drv, CUresult r, char *buf, size_t n) {
  const char *name = NULL, *desc = NULL;
  if (drv->GetErrorName && drv->GetErrorName(r, &name) != KR_CUDA_SUCCESS) name = NULL;
  if (drv->GetErrorString && drv->GetErrorString(r, &desc) != KR_CUDA_SUCCESS) desc = NULL;
  if (name && desc && strcmp(name, desc) != 0) snprintf(buf, n, "%s: %s", name, desc);
  else if (name) snprintf(buf, n, "%s", name);
  else snprintf(buf, n, "CUDA error %d", r);
}

/* ---- Records ------------------------------------------------------------------------------------------ */

static void put_record(int fd, const KrCudaRecord *r) {
  const char *p = (const char *)r;
  size_t n = sizeof *r;
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    p += w;
    n -= (size_t)w;
  }
}

_Static_assert(sizeof(KrCudaRecord) <= 4096, "a record must be written atomically to a pipe");

void kr__cuda_send(int fd, int kind, int v0, int v1, const char *fmt, ...) {
  KrCudaRecord r;
  memset(&r, 0, sizeof r);
  r.kind = kind;
  r.value[0] = v0;
  r.value[1] = v1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r.text, sizeof r.text, fmt, ap);
  va_end(ap);
  put_record(fd, &r);
}

/* The GPU child's record pipe, for its SIGSYS handler; set only in that child. */
static int g_confined_fd = -1;

/* Phrasing the call allocates, which a handler should not; the child ends right after, and under
 * the GPU policy no allocator call traps, so no allocator lock is held by this thread here. */
static void on_sigsys(int sig, siginfo_t *si, void *ctx) {
  (void)sig;
  KrSandboxTrap t;
  kr_sandbox_trap_read(si, ctx, &t);
  KrSandboxPolicy p = kr_sandbox_policy(KR_SANDBOX_GPU);
  KrArena *a = kr_arena_new();
  kr__cuda_send(g_confined_fd, KR_CREC_FAIL, 0, 0, "the GPU process tried to %s; the sandbox stopped it",
                kr_sandbox_trap_text(&t, &p, a));
  _exit(70);
}

bool kr__cuda_confine(KrCudaSession *s) {
  g_confined_fd = s->fd;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigsys;
  sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSYS, &sa, NULL);
  KrSandboxPolicy p = kr_sandbox_policy(KR_SANDBOX_GPU);
  char why[256];
  if (kr_sandbox_enter(&p, NULL, why, sizeof why) == KR_OK) return true;
  kr__cuda_send(s->fd, KR_CREC_FAIL, 0, 0, "%s", why);
  return false;
}

bool kr__cuda_ok(KrCudaSession *s, CUresult r, const char *fmt, ...) {
  if (r == KR_CUDA_SUCCESS) return true;
  char what[1024], err[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  error_text(&s->drv, r, err, sizeof err);
  kr__cuda_send(s->fd, KR_CREC_FAIL, r, 0, "%s, %s", err, what);
  return false;
}

/* ---- The session, modules and kernels (child only) ------------------------------------------------- */

bool kr__cuda_session_open(KrCudaSession *s, int fd) {
  memset(s, 0, sizeof *s);
  s->fd = fd;
  setenv("CUDA_MODULE_LOADING", "EAGER", 0);
  char err[512];
  if (!driver_open(&s->drv, err, sizeof err)) {
    kr__cuda_send(fd, KR_CREC_FAIL, 0, 0, "no GPU: %s", err);
    return false;
  }
  CUresult r = s->drv.Init(0);
  if (r != KR_CUDA_SUCCESS) {
    error_text(&s->drv, r, err, sizeof err);
    kr__cuda_send(fd, KR_CREC_FAIL, r, 0, "no GPU: cuInit failed: %s", err);
    return false;
  }
  int count = 0;
  if (!kr__cuda_ok(s, s->drv.DeviceGetCount(&count), "counting devices (cuDeviceGetCount)"))
    return false;
  if (count < 1) {
    kr__cuda_send(fd, KR_CREC_FAIL, 0, 0, "no GPU: the driver sees no CUDA device");
    return false;
  }
  return kr__cuda_ok(s, s->drv.DeviceGet(&s->dev, 0), "getting device 0 (cuDeviceGet)") &&
         kr__cuda_ok(s, s->drv.DeviceGetAttribute(&s->cc_major, KR_CU_DEVICE_ATTRIBUTE_CC_MAJOR, s->dev),
                     "reading the compute capability") &&
         kr__cuda_ok(s, s->drv.DeviceGetAttribute(&s->cc_minor, KR_CU_DEVICE_ATTRIBUTE_CC_MINOR, s->dev),
                     "reading the compute capability") &&
         kr__cuda_ok(s, s->drv.DeviceGetAttribute(&s->smem_optin, KR_CU_DEVICE_ATTRIBUTE_SMEM_OPTIN, s->dev),
                     "reading the opt-in shared memory limit") &&
         kr__cuda_ok(s, s->drv.DevicePrimaryCtxRetain(&s->ctx, s->dev),
                     "creating the context (cuDevicePrimaryCtxRetain)") &&
         kr__cuda_ok(s, s->drv.CtxSetCurrent(s->ctx), "making the context current");
}

static char *demangle(const char *mangled) {
  int status = -1;
  char *d = __cxa_demangle(mangled, NULL, NULL, &status);
  if (d && status == 0) return d;
  free(d);
  return strdup(mangled);
}

/* Lists the module's functions with their demangled names, when the driver can (CUDA 12.4+). */
static bool module_list(KrCudaSession *s, KrCudaModule *m, const char *what) {
  const KrCudaDriver *drv = &s->drv;
  if (!drv->ModuleGetFunctionCount || !drv->ModuleEnumerateFunctions || !drv->FuncGetName)
    return true;
  unsigned count = 0;
  if (!kr__cuda_ok(s, drv->ModuleGetFunctionCount(&count, m->mod), "counting the functions of %s", what))
    return false;
  m->fns = calloc(count + 1, sizeof *m->fns);
  m->names = calloc(count + 1, sizeof *m->names);
  if (!m->fns || !m->names) {
    kr__cuda_send(s->fd, KR_CREC_FAIL, 0, 0, "out of memory listing the functions of %s", what);
    return false;
  }
  if (!kr__cuda_ok(s, drv->ModuleEnumerateFunctions(m->fns, count, m->mod),
                   "listing the functions of %s", what))
    return false;
  for (unsigned i = 0; i < count; i++) {
    const char *name = NULL;
    if (!kr__cuda_ok(s, drv->FuncGetName(&name, m->fns[i]), "naming function %u of %s", i, what))
      return false;
    m->names[i] = demangle(name ? name : "");
    m->count = i + 1;
  }
  return true;
}

/* dlerror's text with an undefined symbol demangled: "…: undefined symbol: _Z5timerv" → "…:
 * undefined symbol: timer()". */
static void dl_error_text(const char *e, char *buf, size_t n) {
  const char *u = e ? strstr(e, "undefined symbol: ") : NULL;
  if (!u) {
    snprintf(buf, n, "%s", e ? e : "unknown error");
    return;
  }
  const char *sym = u + strlen("undefined symbol: ");
  size_t len = strcspn(sym, " ,(");
  char *mangled = strndup(sym, len);
  char *d = mangled ? demangle(mangled) : NULL;
  snprintf(buf, n, "undefined symbol '%s' (a host function the entry calls that the file declares but does not "
           "define)", d ? d : sym);
  free(d);
  free(mangled);
}

/* A host library (kr_cuda_is_library): written to a memfd (nothing on disk), opened, and its CUDA
 * runtime started on the session's context, all before the sandbox. The memfd stays open for the
 * process's life: dlopen knows a library by its path, /proc/self/fd/N, and a second library opened
 * at a reused descriptor number would be taken for the first (the candidate would run the
 * reference's code). */
static bool library_load(KrCudaSession *s, const void *bytes, size_t size, const char *what, KrCudaModule *m) {
  int fd = memfd_create("krewrite-entry", MFD_CLOEXEC);
  size_t done = 0;
  while (fd >= 0 && done < size) {
    ssize_t w = write(fd, (const char *)bytes + done, size - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    done += (size_t)w;
  }
  if (fd < 0 || done < size) {
    kr__cuda_send(s->fd, KR_CREC_FAIL, 0, 0, "cannot hold %s in memory: %s", what, strerror(errno));
    if (fd >= 0) close(fd);
    return false;
  }
  char path[64], err[1024] = "";
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  m->dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!m->dl) {
    close(fd);
    dl_error_text(dlerror(), err, sizeof err);
    kr__cuda_send(s->fd, KR_CREC_FAIL, 0, 0, "%s cannot be loaded: %s", what, err);
    return false;
  }
  int (*init)(char *, unsigned long) = (int (*)(char *, unsigned long))dlsym(m->dl, "kr_gpu_entry_init");
  m->call = (int (*)(void **, char *, unsigned long))dlsym(m->dl, "kr_gpu_entry_call");
  if (!init || !m->call) {
    kr__cuda_send(s->fd, KR_CREC_FAIL, 0, 0, "%s has no kr_gpu_entry_call: it is a shared object krewrite did not "
                  "build", what);
    return false;
  }
  if (init(err, sizeof err) != 0) {
    kr__cuda_send(s->fd, KR_CREC_FAIL, 0, 0, "%s: its CUDA runtime did not start on the GPU: %s", what, err);
    return false;
  }
  return true;
}

bool kr__cuda_module_load(KrCudaSession *s, const void *cubin, size_t size, const char *what,
                          KrCudaModule *m) {
  memset(m, 0, sizeof *m);
  if (kr_cuda_is_library(cubin, size)) return library_load(s, cubin, size, what, m);
  CUresult r = s->drv.ModuleLoadData(&m->mod, cubin);
  int sm = kr_cuda_cubin_sm(cubin, size), gpu = s->cc_major * 10 + s->cc_minor;
  if (r == KR_CUDA_ERROR_NO_BINARY_FOR_GPU && sm > 0 && sm != gpu) {
    kr__cuda_send(s->fd, KR_CREC_FAIL, r, 0,
                  "%s was built for sm_%d but the GPU is sm_%d (CUDA_ERROR_NO_BINARY_FOR_GPU)", what,
                  sm, gpu);
    return false;
  }
  if (!kr__cuda_ok(s, r, "loading %s (cuModuleLoadData; a cubin for sm_%d on an sm_%d GPU)", what,
                   sm, gpu))
    return false;
  return module_list(s, m, what);
}

static void list_names(const KrCudaModule *m, char *buf, size_t n) {
  size_t used = 0;
  buf[0] = 0;
  for (unsigned i = 0; i < m->count && used + 1 < n; i++) {
    int k = snprintf(buf + used, n - used, "%s'%s'", i ? ", " : "", m->names[i]);
    if (k < 0) break;
    used += (size_t)k;
  }
  if (m->count == 0) snprintf(buf, n, "no functions");
}

bool kr__cuda_kernel_find(KrCudaSession *s, KrCudaModule *m, const char *name, CUfunction *f) {
  if (!m->names) {
    CUresult r = s->drv.ModuleGetFunction(f, m->mod, name);
    if (r == KR_CUDA_ERROR_NOT_FOUND) {
      kr__cuda_send(s->fd, KR_CREC_FAIL, r, 0,
                    "kernel '%s' is not in the cubin (this driver cannot list a module's functions, "
                    "so only extern \"C\" kernels are found by name)", name);
      return false;
    }
    return kr__cuda_ok(s, r, "looking up kernel '%s'", name);
  }
  long i = kr_cuda_name_pick((const char *const *)m->names, m->count, name);
  if (i >= 0) {
    *f = m->fns[i];
    return true;
  }
  char have[1500];
  list_names(m, have, sizeof have);
  if (i == -2)
    kr__cuda_send(s->fd, KR_CREC_FAIL, 0, 0,
                  "kernel '%s' is ambiguous: the cubin has %s (name the namespace and template "
                  "arguments)", name, have);
  else
    kr__cuda_send(s->fd, KR_CREC_FAIL, 0, 0, "kernel '%s' is not in the cubin, which has %s", name, have);
  return false;
}

/* The sizes of the parameters the launch passes, via cuFuncGetParamInfo when the driver has it:
 * a buffer must go to an 8-byte parameter, and a launch with more arguments than the kernel has
 * parameters is refused. Only indices below the argument count are asked for, because asking
 * past the last parameter is an API error (which compute-sanitizer reports); the spec loader
 * has already matched the count against the kernel's declaration. */
static bool check_params(KrCudaSession *s, CUfunction f, const KrCudaLaunch *l, const char *where) {
  if (!s->drv.FuncGetParamInfo) return true;
  for (size_t i = 0; i < l->nargs; i++) {
    size_t off, size;
    CUresult r = s->drv.FuncGetParamInfo(f, i, &off, &size);
    if (r == KR_CUDA_ERROR_INVALID_VALUE) {
      kr__cuda_send(s->fd, KR_CREC_FAIL, 0, 0, "%s takes %zu argument%s, but the launch passes %zu",
                    where, i, i == 1 ? "" : "s", l->nargs);
      return false;
    }
    if (r != KR_CUDA_SUCCESS) return true; /* the driver cannot say; the launch will */
    int b = l->arg_buffer ? l->arg_buffer[i] : -1;
    if (b >= 0 && size != sizeof(CUdeviceptr)) {
      kr__cuda_send(s->fd, KR_CREC_FAIL, 0, 0,
                    "%s: argument %zu is tied to a buffer, but the kernel's parameter %zu is %zu "
                    "bytes, not a pointer", where, i, i, size);
      return false;
    }
  }
  return true;
}

bool kr__cuda_launch_prepare(KrCudaSession *s, CUfunction f, const KrCudaLaunch *l,
                             const char *where) {
  const KrCudaDriver *drv = &s->drv;
  int max_threads = 0, regs = 0, static_smem = 0, max_dyn = 0;
  if (!kr__cuda_ok(s, drv->FuncGetAttribute(&max_threads, KR_CU_FUNC_ATTRIBUTE_MAX_THREADS, f),
                   "reading the attributes of %s", where) ||
      !kr__cuda_ok(s, drv->FuncGetAttribute(&regs, KR_CU_FUNC_ATTRIBUTE_NUM_REGS, f),
                   "reading the attributes of %s", where) ||
      !kr__cuda_ok(s, drv->FuncGetAttribute(&static_smem, KR_CU_FUNC_ATTRIBUTE_SHARED_SIZE, f),
                   "reading the attributes of %s", where) ||
      !kr__cuda_ok(s, drv->FuncGetAttribute(&max_dyn, KR_CU_FUNC_ATTRIBUTE_MAX_DYN_SMEM, f),
                   "reading the attributes of %s", where))
    return false;
  uint64_t threads = (uint64_t)l->block.x * l->block.y * l->block.z;
  if (threads > (uint64_t)max_threads) {
    kr__cuda_send(s->fd, KR_CREC_FAIL, 0, 0,
                  "%s can run at most %d threads per block (it uses %d registers per thread), but "
                  "the launch asks for %" PRIu64, where, max_threads, regs, threads);
    return false;
  }
  if (l->shmem + (size_t)static_smem > (size_t)s->smem_optin) {
    kr__cuda_send(s->fd, KR_CREC_FAIL, 0, 0,
                  "%s asks for %zu bytes of dynamic shared memory (plus %d static), but the GPU "
                  "(sm_%d%d) allows at most %d bytes per block", where, l->shmem, static_smem,
                  s->cc_major, s->cc_minor, s->smem_optin);
    return false;
  }
  if (l->shmem > (size_t)max_dyn &&
      !kr__cuda_ok(s, drv->FuncSetAttribute(f, KR_CU_FUNC_ATTRIBUTE_MAX_DYN_SMEM, (int)l->shmem),
                   "raising the dynamic shared memory limit of %s to %zu bytes", where, l->shmem))
    return false;
  /* A kernel compiled for clusters of more than 8 blocks (__cluster_dims__, split_rows' cluster of
   * up to 16) runs only once it is allowed a non-portable cluster size (sm_90: up to 16). */
  int cluster_x = 0;
  if (drv->FuncGetAttribute(&cluster_x, KR_CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH, f) == KR_CUDA_SUCCESS && cluster_x > 8 &&
      !kr__cuda_ok(s, drv->FuncSetAttribute(f, KR_CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER, 1),
                   "allowing %s clusters of %d blocks (more than the portable 8)", where, cluster_x))
    return false;
  return check_params(s, f, l, where);
}

bool kr__cuda_launch_ready(KrCudaSession *s, KrCudaModule *m, const KrCudaLaunch *l, const char *where,
                           CUfunction *f) {
  *f = NULL;
  if (m->call) return true;
  return kr__cuda_kernel_find(s, m, l->kernel, f) && kr__cuda_launch_prepare(s, *f, l, where);
}

bool kr__cuda_launch_start(KrCudaSession *s, const KrCudaModule *m, CUfunction f, const KrCudaLaunch *l,
                           void **params, const char *where) {
  if (!m->call)
    return kr__cuda_ok(s, s->drv.LaunchKernel(f, l->grid.x, l->grid.y, l->grid.z, l->block.x, l->block.y,
                                              l->block.z, (unsigned)l->shmem, NULL, l->nargs ? params : NULL, NULL),
                       "launching %s", where);
  char err[512] = "";
  if (m->call(params, err, sizeof err) == 0) return true;
  kr__cuda_send(s->fd, KR_CREC_FAIL, 0, 0, "%s, in %s (the CUDA runtime's error once it returned)", err, where);
  return false;
}

/* ---- The child process and its watcher ------------------------------------------------------------------ */

/* Follows the child's records until it finishes; kills it when a phase (or, without per_phase,
 * the whole run) outlasts the timeout. */
static void watch(pid_t pid, int fd, double timeout, bool per_phase, KrCudaOutcome *o) {
  double deadline = kr_now_s() + timeout;
  KrCudaRecord r;
  for (;;) {
    int got = kr_proc_read_record(fd, &r, sizeof r, deadline);
    if (got < 0) {
      kill(pid, SIGKILL);
      if (got == KR_RECORD_INTERRUPTED) o->interrupted = true;
      else o->timed_out = true;
      break;
    }
    if (got == 0) break;
    if (r.kind == KR_CREC_PHASE) {
      o->phase = r;
      if (per_phase) deadline = kr_now_s() + timeout;
    } else if (r.kind == KR_CREC_INFO) {
      o->info = r;
    } else if (r.kind == KR_CREC_DONE) {
      o->done = true;
    } else if (r.kind == KR_CREC_FAIL && !o->failed) {
      o->fail = r;
      o->failed = true;
      deadline = kr_now_s() + 10.0;  /* the child exits at once; the driver may take a moment */
    }
  }
  while (waitpid(pid, &o->status, 0) < 0 && errno == EINTR) {}
}

KrStatus kr__cuda_fork(void (*fn)(void *ctx, int fd), void *ctx, double timeout_s, bool per_phase,
                       KrCudaOutcome *o, KrDiags *d) {
  memset(o, 0, sizeof *o);
  snprintf(o->phase.text, sizeof o->phase.text, "starting");
  int pid, fd;
  if (kr_proc_fork(fn, ctx, "run on the GPU", &pid, &fd, d) != KR_OK) return KR_ERR;
  watch(pid, fd, timeout_s, per_phase, o);
  close(fd);
  return KR_OK;
}

KrStatus kr__cuda_outcome(const KrCudaOutcome *o, double timeout_s, KrDiags *d) {
  if (o->interrupted) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "the GPU run was interrupted (Ctrl-C) while %s; its process was killed",
                o->phase.text);
  } else if (o->failed) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "%s", o->fail.text);
  } else if (o->timed_out) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0,
                "the GPU run did not finish within %g s while %s (a hang?); its process was killed",
                timeout_s, o->phase.text);
  } else if (WIFSIGNALED(o->status)) {
    int sig = WTERMSIG(o->status);
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0, "the GPU process was killed by signal %d (%s) while %s",
                sig, strsignal(sig), o->phase.text);
  } else if (!o->done || !WIFEXITED(o->status) || WEXITSTATUS(o->status) != 0) {
    kr_diag_pos(d, KR_DIAG_ERROR, NULL, 0, 0,
                "the GPU process ended (exit status %d) while %s, before it finished",
                WIFEXITED(o->status) ? WEXITSTATUS(o->status) : -1, o->phase.text);
  } else {
    return KR_OK;
  }
  return KR_ERR;
}

/* ---- Probe ----------------------------------------------------------------------------------------------- */

/* The SMs of the device the last successful probe found (0: none probed). */
static int g_probed_sms;

static void probe_child(void *ctx, int fd) {
  (void)ctx;
  KrCudaSession s;
  kr__cuda_send(fd, KR_CREC_PHASE, -1, 0, "opening the CUDA driver");
  if (!kr__cuda_session_open(&s, fd)) return;
  char name[256] = "";
  int sms = 0;
  if (!kr__cuda_ok(&s, s.drv.DeviceGetName(name, (int)sizeof name, s.dev), "naming device 0") ||
      !kr__cuda_ok(&s, s.drv.DeviceGetAttribute(&sms, KR_CU_DEVICE_ATTRIBUTE_SMS, s.dev), "counting the SMs of device 0"))
    return;
  KrCudaRecord r = {.kind = KR_CREC_INFO, .value = {s.cc_major, s.cc_minor, sms}};
  snprintf(r.text, sizeof r.text, "%s", name);
  put_record(fd, &r);
  kr__cuda_send(fd, KR_CREC_DONE, 0, 0, "done");
}

KrStatus kr_cuda_probe(char *name, size_t n, int *cc_major, int *cc_minor, KrDiags *d) {
  KrCudaOutcome o;
  if (kr__cuda_fork(probe_child, NULL, KR_CUDA_PROBE_TIMEOUT_S, false, &o, d) != KR_OK) return KR_ERR;
  if (kr__cuda_outcome(&o, KR_CUDA_PROBE_TIMEOUT_S, d) != KR_OK) return KR_ERR;
  if (name && n) snprintf(name, n, "%s", o.info.text);
  if (cc_major) *cc_major = o.info.value[0];
  if (cc_minor) *cc_minor = o.info.value[1];
  if (o.info.value[2] > 0) g_probed_sms = o.info.value[2];
  return KR_OK;
}

int kr_cuda_sms(void) {
  if (g_probed_sms <= 0) {
    KrDiags *d = kr_diags_new();
    if (kr_cuda_probe(NULL, 0, NULL, NULL, d) != KR_OK) g_probed_sms = KR_EMU_SMS;
    kr_diags_free(d);
  }
  return g_probed_sms;
}

/* ---- Run ------------------------------------------------------------------------------------------------- */

bool kr__cuda_launch_sync(KrCudaSession *s, const KrCudaModule *m, CUfunction f, const KrCudaLaunch *l,
                          const KrCudaBuffer *bufs, size_t nbufs, const CUdeviceptr *dev,
                          const char *where) {
  unsigned long long *slots = calloc(l->nargs + 1, sizeof *slots);
  void **params = calloc(l->nargs + 1, sizeof *params);
  char err[512] = "out of memory";
  bool ok = slots && params && kr_cuda_args_translate(l, bufs, nbufs, dev, slots, params, err, sizeof err);
  if (!ok) kr__cuda_send(s->fd, KR_CREC_FAIL, 0, 0, "%s: %s", where, err);
  ok = ok && kr__cuda_launch_start(s, m, f, l, params, where) && kr__cuda_ok(s, s->drv.CtxSynchronize(), "in %s", where);
  free(slots);
  free(params);
  return ok;
}

/* Frees what module_list allocated; the module itself is unloaded by the run, or with its context
 * when the process ends. */
void kr__cuda_module_release(KrCudaModule *m) {
  for (unsigned i = 0; m->names && i < m->count; i++) free(m->names[i]);
  free(m->names);
  free(m->fns);
  m->names = NULL, m->fns = NULL, m->count = 0;
}

/* Frees its own allocations on every path, because the launch-once run (cuda_once.c) calls it in a
 * process that goes on afterwards, not only in a child that exits. */
void kr__cuda_run_child(void *ctx, int fd) {
  const KrCudaRunJob *j = ctx;
  KrCudaSession s;
  KrCudaModule m = {0};
  CUfunction *fns = NULL;
  CUdeviceptr *dev = NULL;
  char **where = NULL;
  kr__cuda_send(fd, KR_CREC_PHASE, -1, 0, "setting up the GPU");
  if (!kr__cuda_session_open(&s, fd)) return;
  kr__cuda_send(fd, KR_CREC_PHASE, -1, 0, "loading the cubin");
  if (!kr__cuda_module_load(&s, j->cubin, j->size, "the cubin", &m)) goto done;
  fns = calloc(j->n + 1, sizeof *fns);
  dev = calloc(j->nbufs + 1, sizeof *dev);
  where = calloc(j->n + 1, sizeof *where);
  if (!fns || !dev || !where) {
    kr__cuda_send(fd, KR_CREC_FAIL, 0, 0, "out of memory in the GPU process");
    goto done;
  }
  for (size_t i = 0; i < j->n; i++) {
    const KrCudaLaunch *l = &j->launches[i];
    KrBuf b = {0};
    kr_buf_printf(&b, "%s '%s'", m.call ? "entry" : "kernel", l->kernel);
    if (j->n > 1) kr_buf_printf(&b, " (launch %zu of %zu)", i + 1, j->n);
    where[i] = kr_buf_steal(&b);
    if (!kr__cuda_launch_ready(&s, &m, l, where[i], &fns[i])) goto done;
  }
  if (j->confine && !kr__cuda_confine(&s)) goto done;
  kr__cuda_send(fd, KR_CREC_PHASE, -1, 0, "copying the buffers to the device");
  for (size_t i = 0; i < j->nbufs; i++) {
    const KrCudaBuffer *b = &j->bufs[i];
    size_t bytes = b->bytes ? b->bytes : 1;
    if (!kr__cuda_ok(&s, s.drv.MemAlloc(&dev[i], bytes), "allocating buffer '%s' (%zu bytes)",
                     b->name ? b->name : "?", b->bytes) ||
        (b->bytes && !kr__cuda_ok(&s, s.drv.MemcpyHtoD(dev[i], b->host, b->bytes),
                                  "copying buffer '%s' to the device", b->name ? b->name : "?")))
      goto done;
  }
  for (size_t i = 0; i < j->n; i++) {
    kr__cuda_send(fd, KR_CREC_PHASE, (int)i, 0, "running %s", where[i]);
    if (!kr__cuda_launch_sync(&s, &m, fns[i], &j->launches[i], j->bufs, j->nbufs, dev, where[i])) goto done;
  }
  kr__cuda_send(fd, KR_CREC_PHASE, -1, 0, "copying the buffers back");
  for (size_t i = 0; i < j->nbufs; i++) {
    const KrCudaBuffer *b = &j->bufs[i];
    if (b->bytes && !kr__cuda_ok(&s, s.drv.MemcpyDtoH(b->host, dev[i], b->bytes),
                                 "copying buffer '%s' back", b->name ? b->name : "?"))
      goto done;
    if (!kr__cuda_ok(&s, s.drv.MemFree(dev[i]), "freeing buffer '%s'", b->name ? b->name : "?")) goto done;
  }
  if (!m.call && !kr__cuda_ok(&s, s.drv.ModuleUnload(m.mod), "unloading the cubin")) goto done;
  kr__cuda_send(fd, KR_CREC_DONE, 0, 0, "done");
done:
  for (size_t i = 0; where && i < j->n; i++) free(where[i]);
  free(where);
  free(dev);
  free(fns);
  kr__cuda_module_release(&m);
}

KrStatus kr_cuda_run(const void *cubin, size_t size, const KrCudaLaunch *launches, size_t n,
                     KrCudaBuffer *bufs, size_t nbufs, double timeout_s, KrDiags *diags) {
  double timeout = timeout_s > 0 ? timeout_s : KR_CUDA_DEFAULT_TIMEOUT_S;
  if (!cubin || size == 0) {
    kr_diag_pos(diags, KR_DIAG_ERROR, NULL, 0, 0, "no cubin to run on the GPU");
    return KR_ERR;
  }
  if (!kr__cuda_check_launches(launches, n, bufs, nbufs, "", diags) ||
      !kr__cuda_check_buffers(bufs, nbufs, true, diags))
    return KR_ERR;
  KrCudaRunJob job = {cubin, size, launches, n, bufs, nbufs, .confine = true};
  KrCudaOutcome o;
  if (kr__cuda_fork(kr__cuda_run_child, &job, timeout, true, &o, diags) != KR_OK) return KR_ERR;
  return kr__cuda_outcome(&o, timeout, diags);
}
