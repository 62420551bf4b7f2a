/* frontend/headers.c: a compiler's "header not found", read from its output and said the same way
 * for every build (headers.h). Reading is gcc's and clang's formats, which nvcc's host pass shares;
 * the report reads the #include lines themselves, so that the chain shows each header as its
 * includer spells it, and the caret lands on the name whatever unit the compiler counts columns in. */
#define _GNU_SOURCE /* memmem */
#include "frontend/headers.h"

#include <stdlib.h>
#include <string.h>

/* ---- Reading the compiler's output ----------------------------------------------------------------- */

static bool digit(char c) { return c >= '0' && c <= '9'; }

/* The number that ends at *e (moved to its first digit), after a ':'; false when there is none. */
static bool number_before(const char *s, const char **e, long *v) {
  const char *p = *e;
  while (p > s && digit(p[-1])) p--;
  if (p == *e || p - 1 <= s || p[-1] != ':') return false;
  *v = strtol(p, NULL, 10);
  *e = p - 1;
  return true;
}

/* "FILE:LINE" or "FILE:LINE:COL", the whole of [s, e). */
static bool site(const char *s, const char *e, KrArena *a, KrHeaderSite *out) {
  long line, before;
  const char *p = e;
  if (!number_before(s, &p, &line)) return false;
  const char *q = p;
  if (number_before(s, &q, &before)) {   /* FILE:LINE:COL */
    line = before;
    p = q;
  }
  if (line < 1) return false;
  *out = (KrHeaderSite){kr_arena_strndup(a, s, (size_t)(p - s)), (uint32_t)line};
  return true;
}

typedef enum { NOT_FROM, FROM_FIRST, FROM_MORE } From;

/* What follows `prefix` at s, or NULL. */
static const char *after(const char *s, const char *e, const char *prefix) {
  size_t n = strlen(prefix);
  return (size_t)(e - s) > n && memcmp(s, prefix, n) == 0 ? s + n : NULL;
}

/* "In file included from FILE:LINE," and gcc's continuation "                 from FILE:LINE:". */
static From included_from(const char *s, const char *e, KrArena *a, KrHeaderSite *out) {
  while (s < e && *s == ' ') s++;
  const char *first = after(s, e, "In file included from "), *more = first ? NULL : after(s, e, "from ");
  if (e > s && (e[-1] == ',' || e[-1] == ':')) e--;
  if (!(first || more) || !site(first ? first : more, e, a, out)) return NOT_FROM;
  return first ? FROM_FIRST : FROM_MORE;
}

/* "FILE:LINE:COL: fatal error: NAME: No such file or directory" (gcc) or "…: fatal error: 'NAME'
 * file not found" (clang): the #include's site and the header's name. */
static bool not_found(const char *s, const char *e, KrArena *a, KrHeaderSite *at, const char **name) {
  static const char fatal[] = ": fatal error: ", gcc[] = ": No such file or directory", clang[] = "' file not found";
  size_t n = (size_t)(e - s);
  const char *f = memmem(s, n, fatal, sizeof fatal - 1);
  if (!f || !site(s, f, a, at)) return false;
  const char *m = f + sizeof fatal - 1;
  size_t mn = (size_t)(e - m), gn = sizeof gcc - 1, cn = sizeof clang - 1;
  if (mn > gn && memcmp(e - gn, gcc, gn) == 0) *name = kr_arena_strndup(a, m, mn - gn);
  else if (mn > cn + 1 && *m == '\'' && memcmp(e - cn, clang, cn) == 0) *name = kr_arena_strndup(a, m + 1, mn - cn - 1);
  else return false;
  return true;
}

const char *kr_header_included(const char *line, size_t *len) {
  const char *p = line;
  while (*p == ' ' || *p == '\t') p++;
  if (*p++ != '#') return NULL;
  while (*p == ' ' || *p == '\t') p++;
  if (strncmp(p, "include", 7) != 0) return NULL;
  for (p += 7; *p == ' ' || *p == '\t'; p++) {}
  const char *close = *p == '"' ? strchr(p + 1, '"') : *p == '<' ? strchr(p + 1, '>') : NULL;
  const char *nl = strchr(p, '\n');
  if (!close || (nl && close > nl)) return NULL;
  *len = (size_t)(close + 1 - p);
  return p;
}

/* gcc lists the includers innermost first, one "In file included from" and then "from" lines;
 * clang outermost first, an "In file included from" each. */
bool kr_header_missing_find(const char *log, KrArena *arena, KrMissingHeader *out) {
  KrVec(KrHeaderSite) from = {0};
  size_t begin = 0;
  bool outermost_first = false;
  for (const char *s = log ? log : ""; *s;) {
    const char *nl = strchr(s, '\n'), *e = nl ? nl : s + strlen(s);
    const char *t = e;
    while (t > s && t[-1] == '\r') t--;
    KrHeaderSite at;
    const char *name;
    From kind = included_from(s, t, arena, &at);
    if (kind != NOT_FROM) {
      if (!from.len) {
        begin = (size_t)(s - log);
        outermost_first = false;
      } else if (kind == FROM_FIRST) {
        outermost_first = true;
      }
      kr_vec_push(arena, &from, at);
    } else if (not_found(s, t, arena, &at, &name)) {
      *out = (KrMissingHeader){.name = name, .begin = from.len ? begin : (size_t)(s - log),
                               .end = (size_t)(e - log) + (nl != NULL)};
      for (size_t i = 0; i < from.len; i++)
        kr_vec_push(arena, &out->chain, from.data[outermost_first ? i : from.len - 1 - i]);
      kr_vec_push(arena, &out->chain, at);
      return true;
    } else {
      from.len = 0;
    }
    s = e + (nl != NULL);
  }
  return false;
}

/* ---- The report --------------------------------------------------------------------------------------- */

/* One link of the chain, as the report shows it. */
typedef struct Link {
  const char *path;        /* the user's name for the file */
  bool is_src;             /* the file built (its folder is a temporary one; its text is src's) */
  const KrSource *text;    /* NULL when the file cannot be read */
  uint32_t line;
  const char *spelled;     /* "sub/b.cuh" or <cuda.h>, delimiters included; NULL: not found */
  uint32_t at;             /* the byte of the name's opening delimiter */
} Link;

/* The name the #include on the link's line spells. */
static void spelling(Link *k, KrArena *a) {
  if (!k->text || k->line > k->text->nlines) return;
  uint32_t start = k->text->line_starts[k->line - 1];
  size_t n;
  const char *name = kr_header_included(k->text->text + start, &n);
  if (!name) return;
  k->spelled = kr_arena_strndup(a, name, n);
  k->at = (uint32_t)(name - k->text->text);
}

static Link link_of(const KrHeaderSite *site, const KrHeaderSearch *s, KrArena *a) {
  Link k = {.path = site->file, .line = site->line};
  k.is_src = (s->tmp_path && strcmp(site->file, s->tmp_path) == 0) || strcmp(site->file, s->src->path) == 0;
  if (k.is_src) {
    k.path = s->src->path;
    k.text = s->src;
  } else {
    KrSource *src = kr_arena_alloc(a, sizeof *src);
    KrDiags *quiet = kr_diags_new();
    if (kr_source_read(src, site->file, a, quiet) == KR_OK) k.text = src;
    kr_diags_free(quiet);
  }
  spelling(&k, a);
  return k;
}

static const char *base(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

/* The same file or folder, also by another name ("./a" and "a"). */
static bool same_file(const char *x, const char *y) {
  if (strcmp(x, y) == 0) return true;
  char *rx = realpath(x, NULL), *ry = realpath(y, NULL);
  bool same = rx && ry && strcmp(rx, ry) == 0;
  free(rx);
  free(ry);
  return same;
}

/* Pairs: a folder (NULL for one named in words only) and why it was searched. */
typedef KrVec(const char *) Folders;

/* Adds DIR and why; a folder already there (also by another name) gets the new reason instead. */
static void searched(Folders *v, const char *dir, const char *why, KrArena *a) {
  for (size_t i = 0; i < v->len; i += 2) {
    if (!v->data[i] || !same_file(v->data[i], dir)) continue;
    v->data[i + 1] = kr_arena_printf(a, "%s; %s", v->data[i + 1], why);
    return;
  }
  kr_vec_push(a, v, dir);
  kr_vec_push(a, v, why);
}

/* "searched for NAME, in order: DIR (why), …, then LAST", in the compiler's order: the includer's
 * folder (for a quoted name), the source's, the stand-ins, each -I. */
static const char *search_list(const Link *includer, const char *spelled, const KrHeaderSearch *s, KrArena *a) {
  bool angled = spelled[0] == '<';
  Folders v = {0};
  if (!includer->is_src && !angled)
    searched(&v, kr_path_dir(includer->path, a), kr_arena_printf(a, "beside %s", base(includer->path)), a);
  if (!angled || !s->source_dir_quoted_only)
    searched(&v, kr_build_source_dir(s->flags, s->src->path, a), "the source's folder", a);
  if (s->stand_ins) {
    kr_vec_push(a, &v, (const char *)NULL);
    kr_vec_push(a, &v, s->stand_ins);
  }
  for (size_t i = 0; s->flags && i < s->flags->include_dirs.len; i++)
    searched(&v, s->flags->include_dirs.data[i], "-I", a);
  KrBuf b = {0};
  kr_buf_printf(&b, "searched for %s, in order: ", spelled);
  for (size_t i = 0; i < v.len; i += 2) {
    if (v.data[i]) kr_buf_printf(&b, "%s (%s), ", v.data[i], v.data[i + 1]);
    else kr_buf_printf(&b, "%s, ", v.data[i + 1]);
  }
  kr_buf_printf(&b, "then %s", s->last ? s->last : "the compiler's own folders");
  const char *text = kr_arena_strdup(a, b.data);
  kr_buf_free(&b);
  return text;
}

/* Whether `next` was found where its includer's name for it says, beside the includer (the source's
 * folder for the file built): no need to name the place it was found then. */
static bool beside(const Link *includer, const Link *next, const KrHeaderSearch *s, KrArena *a) {
  const char *dir = includer->is_src ? kr_build_source_dir(s->flags, s->src->path, a) : kr_path_dir(includer->path, a);
  const char *sp = includer->spelled;
  if (sp[0] != '"') return false;
  return same_file(kr_arena_printf(a, "%s/%.*s", dir, (int)strlen(sp) - 2, sp + 1), next->path);
}

void kr_header_missing_report(const KrMissingHeader *m, const KrHeaderSearch *s, KrDiags *diags) {
  KrArena *a = kr_arena_new();
  size_t n = m->chain.len;
  Link *links = kr_arena_alloc(a, (n + 1) * sizeof *links);
  for (size_t i = 0; i < n; i++) links[i] = link_of(&m->chain.data[i], s, a);
  Link *last = &links[n - 1];
  const char *name = last->spelled ? last->spelled : kr_arena_printf(a, "\"%s\"", m->name);
  if (last->spelled) kr_diag_at(diags, KR_DIAG_ERROR, last->text, last->at, "header %s not found", name);
  else kr_diag_pos(diags, KR_DIAG_ERROR, last->path, last->line, 0, "header %s not found", name);
  for (size_t i = 0; n > 1 && i < n; i++) {
    const char *what = links[i].spelled ? links[i].spelled : i + 1 < n ? links[i + 1].path : name;
    const char *found = "";
    if (i + 1 == n) found = ", which is not found";
    else if (links[i].spelled && !beside(&links[i], &links[i + 1], s, a))
      found = kr_arena_printf(a, ", found as %s", links[i + 1].path);
    kr_diag_pos(diags, KR_DIAG_NOTE, links[i].path, links[i].line, 0, "includes %s%s", what, found);
  }
  kr_diag_pos(diags, KR_DIAG_NOTE, NULL, 0, 0, "%s", search_list(last, name, s, a));
  kr_diag_pos(diags, KR_DIAG_NOTE, NULL, 0, 0,
              "if the header is elsewhere, add -I DIR, with DIR/%s its path (or DIR to the problem spec's "
              "include = { ... })",
              m->name);
  kr_arena_free(a);
}
