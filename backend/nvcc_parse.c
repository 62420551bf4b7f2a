/* backend/nvcc_parse.c: reading what nvcc prints (nvcc.h): its error and warning messages, mapped
 * from the temporary copy of the source back onto the user's file, and the ptxas -v resource
 * report. The formats were taken from real CUDA 13.0 output (the .log files in tests/fixtures/nvcc/); the
 * parsers also accept the older wordings (no "used N barriers", a "cmem[0]" item). */
#define _GNU_SOURCE /* memmem */
#include <stdlib.h>
#include <string.h>

#include "backend/nvcc.h"
#include "frontend/headers.h"

/* From the C++ runtime (libstdc++); returns malloc'd text, or NULL with *status set. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* ---- Lines ------------------------------------------------------------------------------------------ */

typedef struct Line {
  const char *s;
  size_t n;
} Line;

typedef KrVec(Line) Lines;

static Lines split_lines(const char *log, KrArena *a) {
  Lines v = {0};
  for (const char *p = log; *p;) {
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    Line l = {p, n};
    while (l.n && l.s[l.n - 1] == '\r') l.n--;
    kr_vec_push(a, &v, l);
    p += n + (e ? 1 : 0);
  }
  return v;
}

static bool starts(Line l, const char *prefix) {
  size_t k = strlen(prefix);
  return l.n >= k && memcmp(l.s, prefix, k) == 0;
}

static bool blank(Line l) {
  for (size_t i = 0; i < l.n; i++)
    if (l.s[i] != ' ' && l.s[i] != '\t') return false;
  return true;
}

static Line trim(Line l) {
  while (l.n && (l.s[0] == ' ' || l.s[0] == '\t')) l.s++, l.n--;
  while (l.n && (l.s[l.n - 1] == ' ' || l.s[l.n - 1] == '\t')) l.n--;
  return l;
}

static bool is_word(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Reads a decimal number at *p (advancing it); false when there is none. */
static bool number(const char **p, const char *end, long *v) {
  const char *s = *p;
  long x = 0;
  while (s < end && *s >= '0' && *s <= '9' && x < 1000000000L) x = x * 10 + (*s++ - '0');
  if (s == *p) return false;
  *v = x;
  *p = s;
  return true;
}

/* ---- Demangling ------------------------------------------------------------------------------------- */

/* "tk<float, 128>(float const*, float*, int)": __cxa_demangle without the "void " that template
 * functions carry; the name itself when it is not mangled (extern "C"). */
static const char *demangle(const char *name, KrArena *a) {
  int status = -1;
  char *d = strncmp(name, "_Z", 2) == 0 ? __cxa_demangle(name, NULL, NULL, &status) : NULL;
  if (!d || status != 0) {
    free(d);
    return name;
  }
  const char *s = strncmp(d, "void ", 5) == 0 ? d + 5 : d;
  const char *out = kr_arena_strdup(a, s);
  free(d);
  return out;
}

/* ptxas quotes mangled names; this adds the readable form after each: '_Z3bigPf' (big(float*)). */
static const char *with_demangled(Line l, KrArena *a) {
  KrBuf b = {0};
  const char *p = l.s, *end = l.s + l.n;
  while (p < end) {
    const char *q = memchr(p, '\'', (size_t)(end - p));
    const char *close = q ? memchr(q + 1, '\'', (size_t)(end - q - 1)) : NULL;
    if (!close) break;
    kr_buf_append(&b, p, (size_t)(close + 1 - p));
    const char *name = kr_arena_strndup(a, q + 1, (size_t)(close - q - 1));
    const char *d = demangle(name, a);
    if (d != name) kr_buf_printf(&b, " (%s)", d);
    p = close + 1;
  }
  kr_buf_append(&b, p, (size_t)(end - p));
  const char *s = kr_arena_strndup(a, b.data ? b.data : "", b.len);
  kr_buf_free(&b);
  return s;
}

/* ---- Error messages ------------------------------------------------------------------------------------ */

typedef struct Header {
  const char *file;        /* as printed */
  long line, col;          /* col 0: none given */
  KrSeverity sev;
  const char *code;        /* "#177-D", or NULL */
  const char *message;
  bool gcc;                /* "file:line:col: sev: msg" (the host preprocessor) */
} Header;

static bool severity_word(const char *s, size_t n, KrSeverity *sev) {
  if (n >= 5 && memcmp(s + n - 5, "error", 5) == 0) *sev = KR_DIAG_ERROR;       /* catastrophic, fatal */
  else if (n == 7 && memcmp(s, "warning", 7) == 0) *sev = KR_DIAG_WARNING;
  else if ((n == 6 && memcmp(s, "remark", 6) == 0) || (n == 4 && memcmp(s, "note", 4) == 0))
    *sev = KR_DIAG_NOTE;
  else return false;
  return true;
}

/* "error: msg", "warning #177-D: msg", "fatal error: msg", after the location. */
static bool read_severity(const char *p, const char *end, Header *h, KrArena *a) {
  const char *colon = memchr(p, ':', (size_t)(end - p));
  if (!colon || colon + 1 >= end || colon[1] != ' ') return false;
  const char *hash = memchr(p, '#', (size_t)(colon - p));
  const char *word_end = hash ? hash : colon;
  while (word_end > p && word_end[-1] == ' ') word_end--;
  if (!severity_word(p, (size_t)(word_end - p), &h->sev)) return false;
  if (hash) h->code = kr_arena_strndup(a, hash, (size_t)(colon - hash));
  h->message = kr_arena_strndup(a, colon + 2, (size_t)(end - colon - 2));
  return true;
}

/* nvcc's front end: "FILE(LINE): SEV: MSG". */
static bool nvcc_header(Line l, Header *h, KrArena *a) {
  const char *end = l.s + l.n;
  for (const char *p = l.s; (p = memchr(p, '(', (size_t)(end - p))) != NULL; p++) {
    const char *q = p + 1;
    long line;
    if (p == l.s || !number(&q, end, &line) || end - q < 3 || memcmp(q, "): ", 3) != 0) continue;
    *h = (Header){.file = kr_arena_strndup(a, l.s, (size_t)(p - l.s)), .line = line};
    if (read_severity(q + 3, end, h, a)) return true;
  }
  return false;
}

/* The host compiler (it preprocesses for nvcc): "FILE:LINE:COL: SEV: MSG". */
static bool gcc_header(Line l, Header *h, KrArena *a) {
  const char *end = l.s + l.n;
  for (const char *p = l.s; (p = memchr(p, ':', (size_t)(end - p))) != NULL; p++) {
    const char *q = p + 1;
    long line, col = 0;
    if (p == l.s || !number(&q, end, &line)) continue;
    if (q < end && *q == ':' && q + 1 < end && q[1] >= '0' && q[1] <= '9') {
      q++;
      number(&q, end, &col);
    }
    if (end - q < 2 || memcmp(q, ": ", 2) != 0) continue;
    *h = (Header){.file = kr_arena_strndup(a, l.s, (size_t)(p - l.s)), .line = line, .col = col,
                  .gcc = true};
    if (read_severity(q + 2, end, h, a)) return true;
  }
  return false;
}

/* The column of nvcc's caret: its echo of the line is the preprocessed text ("__global__" shows
 * as "__attribute__((global))", a tab as one space) indented by two, so the caret's token is
 * found in the real line by counting its whole-word occurrences before the caret. 0: unknown. */
static uint32_t caret_col(Line echo, size_t caret, const char *src_line) {
  if (echo.n < 2 || caret < 2 || caret - 2 >= echo.n - 2) return 0;
  const char *e = echo.s + 2;
  size_t en = echo.n - 2, at = caret - 2, tn = 1;
  if (is_word(e[at]))
    while (at + tn < en && is_word(e[at + tn])) tn++;
  size_t k = 0;
  for (size_t i = 0; i < at; i++)
    if (memcmp(e + i, e + at, tn) == 0 && (i == 0 || !is_word(e[i - 1]) || !is_word(e[at])) &&
        (!is_word(e[at]) || i + tn >= en || !is_word(e[i + tn])))
      k++;
  size_t sn = strlen(src_line);
  for (size_t i = 0; i + tn <= sn; i++) {
    if (memcmp(src_line + i, e + at, tn) != 0) continue;
    if (is_word(e[at]) && ((i && is_word(src_line[i - 1])) || (i + tn < sn && is_word(src_line[i + tn]))))
      continue;
    if (k-- == 0) return (uint32_t)i + 1;
  }
  return 0;
}

/* gcc counts display columns (a tab advances to the next multiple of 8); this is the byte. */
static uint32_t display_to_byte(const char *src_line, long col) {
  long disp = 1;
  for (uint32_t i = 0; src_line[i]; i++) {
    if (disp >= col) return i + 1;
    disp = src_line[i] == '\t' ? ((disp - 1) / 8 + 1) * 8 + 1 : disp + 1;
  }
  return 0;
}

static bool is_caret_line(Line l) {
  bool caret = false;
  for (size_t i = 0; i < l.n; i++) {
    if (l.s[i] == '^') caret = true;
    else if (l.s[i] != ' ' && l.s[i] != '~') return false;
  }
  return caret;
}

/* gcc's source excerpt: "    3 | #include ..." and "      |          ^~~~". */
static bool is_gutter_line(Line l) {
  size_t i = 0;
  while (i < l.n && (l.s[i] == ' ' || (l.s[i] >= '0' && l.s[i] <= '9'))) i++;
  return i > 0 && i < l.n && l.s[i] == '|';
}

/* Replaces every occurrence of the temporary path by the user's. */
static const char *unmap(Line l, const char *tmp_path, const char *path, KrArena *a) {
  KrBuf b = {0};
  size_t tn = tmp_path ? strlen(tmp_path) : 0;
  for (size_t i = 0; i < l.n;) {
    if (tn && i + tn <= l.n && memcmp(l.s + i, tmp_path, tn) == 0) {
      kr_buf_puts(&b, path);
      i += tn;
    } else {
      kr_buf_putc(&b, l.s[i++]);
    }
  }
  const char *s = kr_arena_strndup(a, b.data ? b.data : "", b.len);
  kr_buf_free(&b);
  return s;
}

typedef struct Mapper {
  const char *tmp_path;
  const KrSource *src;
  KrDiags *d;
  KrArena *a;
} Mapper;

static void emit_header(Mapper *m, const Header *h, Line *echo, size_t caret) {
  const char *msg = h->code ? kr_arena_printf(m->a, "%s [%s]", h->message, h->code) : h->message;
  msg = unmap((Line){msg, strlen(msg)}, m->tmp_path, m->src->path, m->a);
  bool ours = m->tmp_path && strcmp(h->file, m->tmp_path) == 0;
  if (!ours || h->line < 1 || (uint32_t)h->line > m->src->nlines) {
    kr_diag_pos(m->d, h->sev, ours ? m->src->path : h->file, (uint32_t)(h->line > 0 ? h->line : 0),
                (uint32_t)h->col, "%s", msg);
    return;
  }
  uint32_t line = (uint32_t)h->line - 1;
  const char *text = kr_source_line_text(m->src, line, m->a);
  uint32_t col = h->gcc ? display_to_byte(text, h->col) : (echo ? caret_col(*echo, caret, text) : 0);
  if (col == 0)  /* unknown: point at the line's first character */
    while (text[col] == ' ' || text[col] == '\t') col++;
  else col--;
  kr_diag_at(m->d, h->sev, m->src, m->src->line_starts[line] + col, "%s", msg);
}

/* "ptxas error   : msg", "nvcc fatal   : msg", "ptxas warning : msg"; info lines are not
 * diagnostics (they are the resource report). */
static bool tool_line(Mapper *m, Line l) {
  const char *tool = starts(l, "ptxas ") ? "ptxas" : starts(l, "nvcc ") ? "nvcc" : NULL;
  const char *colon = tool ? memchr(l.s, ':', l.n) : NULL;
  if (!colon) return false;
  Line word = trim((Line){l.s + strlen(tool) + 1, (size_t)(colon - l.s) - strlen(tool) - 1});
  KrSeverity sev;
  if (word.n == 4 && memcmp(word.s, "info", 4) == 0) return true;
  if (word.n == 5 && memcmp(word.s, "fatal", 5) == 0) sev = KR_DIAG_ERROR;
  else if (!severity_word(word.s, word.n, &sev)) return false;
  Line msg = trim((Line){colon + 1, l.n - (size_t)(colon + 1 - l.s)});
  kr_diag_pos(m->d, sev, m->src->path, 0, 0, "%s: %s", tool, with_demangled(msg, m->a));
  return true;
}

/* Lines that only repeat what the diagnostics already say, or belong to the resource report. */
static bool noise(Line l) {
  Line t = trim(l);
  return blank(l) || is_gutter_line(l) || is_caret_line(l) ||
         starts(t, "Remark: The warnings can be suppressed") || starts(t, "compilation terminated.") ||
         ((t.n > 30 && memmem(t.s, t.n, " detected in the compilation of ", 32) != NULL)) ||
         memmem(t.s, t.n, " bytes stack frame", 18) != NULL;
}

/* A note; "at line N" (nvcc's instantiation context) points it at that line of the user's file. */
static void emit_note(Mapper *m, Line l) {
  Line t = trim(l);
  const char *msg = unmap(t, m->tmp_path, m->src->path, m->a);
  const char *at = strstr(msg, " at line ");
  const char *p = at ? at + 9 : NULL;
  long line;
  if (p && number(&p, p + strlen(p), &line) && *p == '\0' && line >= 1 &&
      (uint32_t)line <= m->src->nlines) {
    const char *text = m->src->text + m->src->line_starts[line - 1];
    uint32_t col = 0;
    while (text[col] == ' ' || text[col] == '\t') col++;
    kr_diag_at(m->d, KR_DIAG_NOTE, m->src, m->src->line_starts[line - 1] + col, "%s", msg);
  } else {
    kr_diag_pos(m->d, KR_DIAG_NOTE, m->src->path, 0, 0, "%s", msg);
  }
}

/* A header the host preprocessor could not find: reported with its include chain and the folders
 * nvcc searched (frontend/headers.h), in place of its lines of the log. */
static void missing_header(Mapper *m, const KrMissingHeader *h, const KrBuildFlags *build) {
  KrHeaderSearch s = {.src = m->src, .tmp_path = m->tmp_path, .flags = build,
                      .last = "nvcc's CUDA headers and the host compiler's system folders"};
  kr_header_missing_report(h, &s, m->d);
}

void kr_nvcc_parse_errors(const char *log, const char *tmp_path, const KrSource *src, const KrBuildFlags *build,
                          KrDiags *diags) {
  KrArena *a = kr_arena_new();
  Mapper m = {tmp_path, src, diags, a};
  log = log ? log : "";
  KrMissingHeader miss;
  bool missing = kr_header_missing_find(log, a, &miss);
  Lines lines = split_lines(log, a);
  for (size_t i = 0; i < lines.len; i++) {
    Line l = lines.data[i];
    size_t at = (size_t)(l.s - log);
    Header h;
    if (missing && at >= miss.begin && at < miss.end) {
      if (at == miss.begin) missing_header(&m, &miss, build);
    } else if (nvcc_header(l, &h, a)) {
      Line *echo = NULL;
      size_t caret = 0;
      if (i + 2 < lines.len && !blank(lines.data[i + 1]) && is_caret_line(lines.data[i + 2])) {
        echo = &lines.data[i + 1];
        caret = (size_t)((const char *)memchr(lines.data[i + 2].s, '^', lines.data[i + 2].n) -
                         lines.data[i + 2].s);
        i += 2;
      }
      emit_header(&m, &h, echo, caret);
    } else if (gcc_header(l, &h, a)) {
      emit_header(&m, &h, NULL, 0);
    } else if (!tool_line(&m, l) && !noise(l)) {
      emit_note(&m, l);
    }
  }
  kr_arena_free(a);
}

/* ---- The ptxas -v report ------------------------------------------------------------------------------ */

/* Reads "N bytes smem, N bytes cmem[0], ..." / "Used N registers, used N barriers, ..." items
 * into the kernel; unknown items are skipped (the wording grows between versions), false when no
 * item could be read at all. */
static bool read_items(Line l, KrKernelResources *k) {
  const char *p = l.s, *end = l.s + l.n;
  bool any = false;
  while (p < end) {
    const char *comma = memchr(p, ',', (size_t)(end - p));
    Line item = trim((Line){p, (size_t)((comma ? comma : end) - p)});
    p = comma ? comma + 1 : end;
    if (starts(item, "Used ") || starts(item, "used ")) item.s += 5, item.n -= 5;
    const char *q = item.s, *ie = item.s + item.n;
    long v;
    if (!number(&q, ie, &v) || q >= ie || *q != ' ') continue;
    Line unit = {q + 1, (size_t)(ie - q - 1)};
    int *slot = starts(unit, "register") ? &k->registers
                : starts(unit, "barrier") ? &k->barriers
                : starts(unit, "bytes smem") ? &k->smem
                : starts(unit, "bytes cmem[0]") ? &k->cmem
                : starts(unit, "bytes stack frame") ? &k->stack_frame
                : starts(unit, "bytes spill stores") ? &k->spill_stores
                : starts(unit, "bytes spill loads") ? &k->spill_loads
                : NULL;
    if (slot) *slot = (int)v;
    any = true;
  }
  return any;
}

/* The text between the first pair of single quotes, or after `prefix` to the end. */
static const char *quoted_or_rest(Line l, size_t skip, KrArena *a) {
  const char *q = memchr(l.s + skip, '\'', l.n - skip);
  const char *close = q ? memchr(q + 1, '\'', l.n - (size_t)(q + 1 - l.s)) : NULL;
  if (close) return kr_arena_strndup(a, q + 1, (size_t)(close - q - 1));
  Line rest = trim((Line){l.s + skip, l.n - skip});
  return kr_arena_strndup(a, rest.s, rest.n);
}

KrStatus kr_ptxas_parse(const char *log, KrArena *arena, KrCubin *out) {
  KrArena *scratch = kr_arena_new();
  Lines lines = split_lines(log ? log : "", scratch);
  KrKernelResources *cur = NULL;   /* the entry being reported */
  KrKernelResources *props = NULL; /* the entry a "Function properties" block belongs to */
  KrStatus st = KR_OK;
  for (size_t i = 0; i < lines.len && st == KR_OK; i++) {
    Line l = lines.data[i];
    if (!starts(l, "ptxas info")) {
      if (props && memmem(l.s, l.n, "bytes stack frame", 17) && !read_items(l, props)) st = KR_ERR;
      if (!blank(l)) props = NULL;
      continue;
    }
    const char *colon = memchr(l.s, ':', l.n);
    if (!colon) continue;
    Line body = trim((Line){colon + 1, l.n - (size_t)(colon + 1 - l.s)});
    if (starts(body, "Compiling entry function ")) {
      KrKernelResources k = {.name = quoted_or_rest(body, 25, arena)};
      k.demangled = demangle(k.name, arena);
      kr_vec_push(arena, &out->kernels, k);
      cur = &out->kernels.data[out->kernels.len - 1];
      props = NULL;
    } else if (starts(body, "Function properties for ")) {
      const char *name = quoted_or_rest(body, 24, scratch);
      props = cur && strcmp(cur->name, name) == 0 ? cur : NULL;
    } else if (starts(body, "Used ")) {
      if (!cur || !read_items(body, cur)) st = KR_ERR;
    }
  }
  kr_arena_free(scratch);
  return st;
}

/* ---- Reports ------------------------------------------------------------------------------------------ */

void kr_cubin_resources_json(const KrCubin *c, KrBuf *out) {
  kr_buf_puts(out, "{\"arch\": ");
  kr_buf_json_string(out, c->arch ? c->arch : "", c->arch ? strlen(c->arch) : 0);
  kr_buf_puts(out, ", \"nvcc\": ");
  kr_buf_json_string(out, c->nvcc_version ? c->nvcc_version : "",
                     c->nvcc_version ? strlen(c->nvcc_version) : 0);
  kr_buf_printf(out, ", \"from_cache\": %s, \"cubin_bytes\": %zu, \"kernels\": [",
                c->from_cache ? "true" : "false", c->size);
  for (size_t i = 0; i < c->kernels.len; i++) {
    const KrKernelResources *k = &c->kernels.data[i];
    kr_buf_puts(out, i ? ", {\"name\": " : "{\"name\": ");
    kr_buf_json_string(out, k->name, strlen(k->name));
    kr_buf_puts(out, ", \"demangled\": ");
    kr_buf_json_string(out, k->demangled, strlen(k->demangled));
    kr_buf_printf(out,
                  ", \"registers\": %d, \"barriers\": %d, \"stack_frame\": %d, \"spill_stores\": %d, "
                  "\"spill_loads\": %d, \"smem\": %d, \"cmem\": %d}",
                  k->registers, k->barriers, k->stack_frame, k->spill_stores, k->spill_loads,
                  k->smem, k->cmem);
  }
  kr_buf_puts(out, "]}");
}

void kr_cubin_resources_text(const KrCubin *c, KrBuf *out) {
  for (size_t i = 0; i < c->kernels.len; i++) {
    const KrKernelResources *k = &c->kernels.data[i];
    kr_buf_printf(out, "%s: %d registers, %d barrier%s, %d B smem, %d B cmem[0], %d B stack, "
                  "%d B spill stores, %d B spill loads\n",
                  k->demangled, k->registers, k->barriers, k->barriers == 1 ? "" : "s", k->smem,
                  k->cmem, k->stack_frame, k->spill_stores, k->spill_loads);
  }
}
