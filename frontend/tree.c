/* frontend/tree.c: parsing with tree-sitter's runtime and the CUDA grammar, syntax diagnostics,
 * and the S-expression dump behind `krewrite parse`. */
#include "frontend/tree.h"
#include "frontend/preproc.h"

#include <stdlib.h>
#include <string.h>

const TSLanguage *tree_sitter_cuda(void);

const TSLanguage *kr_cuda_language(void) { return tree_sitter_cuda(); }

static void resolve_symbols(KrSyms *s, const TSLanguage *lang) {
#define KR_SYM_RESOLVE(n) s->n = ts_language_symbol_for_name(lang, #n, sizeof #n - 1, true);
  KR_SYMBOLS(KR_SYM_RESOLVE)
#undef KR_SYM_RESOLVE
#define KR_KW_RESOLVE(n, str) s->n = ts_language_symbol_for_name(lang, str, sizeof str - 1, false);
  KR_KEYWORDS(KR_KW_RESOLVE)
#undef KR_KW_RESOLVE
#define KR_NAMED_RESOLVE(n, str) s->n = ts_language_symbol_for_name(lang, str, sizeof str - 1, true);
  KR_NAMED_WORDS(KR_NAMED_RESOLVE)
#undef KR_NAMED_RESOLVE
  s->ERROR = (TSSymbol)-1; /* ts_builtin_sym_error */
}

TSNode kr_tree_root(const KrTree *self) { return ts_tree_root_node(self->ts); }

static TSNode named_from_here(KrChildren *it) {
  do {
    TSNode c = ts_tree_cursor_current_node(&it->cur);
    if (ts_node_is_named(c)) return c;
  } while (ts_tree_cursor_goto_next_sibling(&it->cur));
  return (TSNode){0};
}

TSNode kr_children_first(KrChildren *it, TSNode parent) {
  it->cur = ts_tree_cursor_new(parent);
  if (!ts_tree_cursor_goto_first_child(&it->cur)) return (TSNode){0};
  return named_from_here(it);
}

TSNode kr_children_next(KrChildren *it) {
  if (!ts_tree_cursor_goto_next_sibling(&it->cur)) return (TSNode){0};
  return named_from_here(it);
}

void kr_children_end(KrChildren *it) { ts_tree_cursor_delete(&it->cur); }


bool kr_node_within(TSNode n, TSNode outer) {
  return !ts_node_is_null(outer) && ts_node_start_byte(n) >= ts_node_start_byte(outer) &&
         ts_node_end_byte(n) <= ts_node_end_byte(outer);
}

char *kr_node_text(const KrTree *self, TSNode n, KrArena *arena) {
  uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
  return kr_arena_strndup(arena, self->src->text + s, e - s);
}

char *kr_node_text_flat(const KrTree *self, TSNode n, KrArena *arena) {
  char *s = kr_node_text(self, n, arena);
  char *w = s;
  bool space = false;
  for (char *r = s; *r; r++) {
    if (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r') {
      space = w != s;
      continue;
    }
    if (space) *w++ = ' ';
    space = false;
    *w++ = *r;
  }
  *w = 0;
  return s;
}

bool kr_node_text_is(const KrTree *self, TSNode n, const char *s) {
  uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
  size_t len = strlen(s);
  return b - a == len && memcmp(self->src->text + a, s, len) == 0;
}

/* A short, printable excerpt of the text at an error, for the message. */
static const char *excerpt(const KrTree *self, uint32_t s, uint32_t e, KrArena *arena) {
  const char *t = self->src->text;
  while (s < e && (t[s] == ' ' || t[s] == '\t' || t[s] == '\n' || t[s] == '\r')) s++;
  uint32_t stop = s;
  while (stop < e && t[stop] != '\n' && stop - s < 32) stop++;
  return kr_arena_strndup(arena, t + s, stop - s);
}

/* An error at the first token of a line, after a line that ends without ';', '{', '}', ',' or
 * ':', is most often a missing semicolon on that earlier line: say so, as compilers do. */
static void hint_semicolon(const KrTree *self, uint32_t at, KrDiags *diags) {
  const char *t = self->src->text;
  uint32_t line = kr_source_line_of(self->src, at);
  uint32_t k = self->src->line_starts[line];
  while (k < at && (t[k] == ' ' || t[k] == '\t')) k++;
  if (k != at || line == 0) return;
  long p = (long)self->src->line_starts[line] - 1;
  while (p >= 0 && (t[p] == ' ' || t[p] == '\t' || t[p] == '\n' || t[p] == '\r')) p--;
  if (p < 0 || strchr(";{},:\\/", t[p])) return;
  uint32_t pl = kr_source_line_of(self->src, (uint32_t)p);
  const char *first = t + self->src->line_starts[pl];
  while (*first == ' ' || *first == '\t') first++;
  if (*first == '#') return; /* preprocessor lines end without ';' */
  kr_diag_at(diags, KR_DIAG_NOTE, self->src, (uint32_t)p + 1, "is a ';' missing at the end of line %u?", pl + 1);
}

/* Whether an error at n can touch device code: n lies in a __global__ or __device__ function, or its
 * own text holds one of those words (an error region that swallowed a kernel's head). An error
 * elsewhere is in host code, which krewrite does not read: nvcc decides about it. */
static bool in_device_code(const KrTree *self, TSNode n) {
  for (TSNode p = n; !ts_node_is_null(p); p = ts_node_parent(p)) {
    if (ts_node_symbol(p) != self->sym.function_definition) continue;
    uint32_t k = ts_node_child_count(p);
    for (uint32_t i = 0; i < k; i++) {
      TSSymbol c = ts_node_symbol(ts_node_child(p, i));
      if (c == self->sym.kw_global || c == self->sym.kw_device) return true;
    }
  }
  uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
  const char *t = self->src->text;
  for (uint32_t i = s; i + 10 <= e; i++)
    if (t[i] == '_' && (memcmp(t + i, "__global__", 10) == 0 || memcmp(t + i, "__device__", 10) == 0)) return true;
  return false;
}

static size_t report(const KrTree *self, TSNode n, KrDiags *diags) {
  if ((ts_node_is_missing(n) || ts_node_is_error(n)) && !in_device_code(self, n)) {
    /* host code: a warning with its place; the kernels around it are still read */
    uint32_t s = ts_node_start_byte(n);
    const char *what = ts_node_is_missing(n) ? NULL : excerpt(self, s, ts_node_end_byte(n), diags->arena);
    kr_diag_at(diags, KR_DIAG_WARNING, self->src, s,
               "host code krewrite cannot parse%s%s%s (its kernels are read; nvcc decides about the host code)",
               what && *what ? " near '" : "", what && *what ? what : "", what && *what ? "'" : "");
    return 0;
  }
  if (ts_node_is_missing(n)) {
    const char *type = ts_node_type(n);
    bool named = ts_node_is_named(n);
    if (!named && strcmp(type, "#endif") == 0) {
      /* the conditionals balance (or their error was reported): the branches of a group left in the
       * view (its condition unknown) do not parse together */
      if (self->preproc_errors) return 0;
      kr_diag_at(diags, KR_DIAG_ERROR, self->src, ts_node_start_byte(n),
                 "syntax error: the branches of a conditional group around here do not parse together (its "
                 "condition depends on a header or a define krewrite was not given: give it with --define)");
      return 1;
    }
    kr_diag_at(diags, KR_DIAG_ERROR, self->src, ts_node_start_byte(n),
               named ? "syntax error: expected %s here" : "syntax error: missing '%s'", type);
    return 1;
  }
  if (ts_node_is_error(n)) {
    uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
    const char *what = excerpt(self, s, e, diags->arena);
    if (*what)
      kr_diag_at(diags, KR_DIAG_ERROR, self->src, s, "syntax error near '%s'", what);
    else
      kr_diag_at(diags, KR_DIAG_ERROR, self->src, s, "syntax error: unexpected end of input");
    hint_semicolon(self, s, diags);
    return 1; /* one report per error region */
  }
  if (!ts_node_has_error(n)) return 0;
  size_t count = 0;
  uint32_t k = ts_node_child_count(n);
  for (uint32_t i = 0; i < k; i++) count += report(self, ts_node_child(n, i), diags);
  return count;
}

size_t kr_tree_report_errors(const KrTree *self, KrDiags *diags) {
  return report(self, kr_tree_root(self), diags);
}

/* ---- Grammar workarounds -----------------------------------------------------------------------
 * tree-sitter-cuda 0.21.1 rejects a few constructs nvcc accepts. The parser is given a copy of the
 * text in which those constructs are blanked out (every byte but newlines becomes a space), so
 * byte offsets, lines and columns still match the real text, which is what passes read and edit.
 * Blanked: __align__(…) and __cluster_dims__(…) anywhere; the third argument of
 * __launch_bounds__(a, b, c); __device__/__host__ after a lambda's capture list; a #pragma line
 * between a control header and its unbraced body (`for (…)\n#pragma unroll\nfor …`); the `*`s of
 * an array new of pointers (`new int*[rows]` reads as `new int [rows]`); and a preprocessor line
 * inside a braced list (`= {\n#include "table.inc"\n}`: the grammar takes directives only
 * between declarations and statements). */

static bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static void blank(char *t, uint32_t s, uint32_t e) {
  for (uint32_t i = s; i < e; i++)
    if (t[i] != '\n') t[i] = ' ';
}

/* The offset just past the parenthesised group starting at t[at] == '(', or `at` if unbalanced. */
static uint32_t skip_parens(const char *t, uint32_t len, uint32_t at) {
  int depth = 0;
  for (uint32_t i = at; i < len; i++) {
    if (t[i] == '(') depth++;
    else if (t[i] == ')' && --depth == 0) return i + 1;
  }
  return at;
}

static uint32_t skip_blanks(const char *t, uint32_t len, uint32_t i) {
  while (i < len && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r')) i++;
  return i;
}

static bool word_at(const char *t, uint32_t len, uint32_t i, const char *w) {
  size_t n = strlen(w);
  return i + n <= len && memcmp(t + i, w, n) == 0 && (i == 0 || !ident_char(t[i - 1])) &&
         (i + n == len || !ident_char(t[i + n]));
}

/* Blanks the third argument of __launch_bounds__(a, b, c) starting at t[open] == '('. */
static void blank_third_bound(char *t, uint32_t open, uint32_t close) {
  int depth = 0, commas = 0;
  for (uint32_t i = open; i < close; i++) {
    if (t[i] == '(') depth++;
    else if (t[i] == ')') depth--;
    else if (t[i] == ',' && depth == 1 && ++commas == 2) {
      blank(t, i, close - 1);
      return;
    }
  }
}

/* The last non-blank byte before i that is not inside a line comment, or -1. */
static long prev_code_char(const char *t, uint32_t i) {
  long k = (long)i - 1;
  while (k >= 0 && (t[k] == ' ' || t[k] == '\t' || t[k] == '\n' || t[k] == '\r')) k--;
  return k;
}

/* After `new` at t[from]: a type name (identifiers, `::`, template arguments), then `*`s, then `[`:
 * the `*`s are blanked, an array of pointers read as an array of the type. */
static void blank_new_stars(char *t, uint32_t len, uint32_t from) {
  uint32_t i = skip_blanks(t, len, from), start = i;
  int angle = 0;
  while (i < len && (ident_char(t[i]) || t[i] == ':' || t[i] == ' ' || t[i] == '\t' || t[i] == '<' || t[i] == '>' ||
                     (angle > 0 && t[i] == ','))) {
    angle += t[i] == '<' ? 1 : t[i] == '>' ? -1 : 0;
    if (angle < 0) return;
    i++;
  }
  if (i == start || angle != 0) return;
  uint32_t stars = i;
  while (i < len && (t[i] == '*' || t[i] == ' ' || t[i] == '\t')) i++;
  if (i == stars || i >= len || t[i] != '[' || !memchr(t + stars, '*', i - stars)) return;
  for (uint32_t k = stars; k < i; k++)
    if (t[k] == '*') t[k] = ' ';
}

/* The last code byte of the lines before the one holding t[i]: blank lines and a line's `//` comment
 * skipped; -1 when there is none. */
static long prev_line_code_char(const char *t, uint32_t i) {
  long end = (long)i;
  while (end > 0 && t[end - 1] != '\n') end--;   /* the start of t[i]'s line */
  while (end > 0) {
    long start = end - 1;                          /* the previous line is [start, end - 1) */
    while (start > 0 && t[start - 1] != '\n') start--;
    long stop = end - 1;
    for (long k = start; k + 1 < end - 1; k++)
      if (t[k] == '/' && t[k + 1] == '/') {
        stop = k;
        break;
      }
    while (stop > start && (t[stop - 1] == ' ' || t[stop - 1] == '\t' || t[stop - 1] == '\r')) stop--;
    if (stop > start) return stop - 1;
    end = start;
  }
  return -1;
}

/* Whether the preprocessor line at t[i] == '#' sits inside a braced list: the code before it ends in
 * `,`, or in a `{` that follows `=`, `,` or another `{` (an initializer, not a block). */
static bool in_braced_list(const char *t, uint32_t i) {
  long p = prev_line_code_char(t, i);
  if (p < 0) return false;
  if (t[p] == ',') return true;
  if (t[p] != '{') return false;
  long q = prev_code_char(t, (uint32_t)p);
  return q >= 0 && (t[q] == '=' || t[q] == ',' || t[q] == '{');
}

static void mask_at(char *t, uint32_t len, uint32_t i, uint32_t *next) {
  static const char *const groups[] = {"__align__", "__cluster_dims__"};
  for (size_t g = 0; g < 2; g++) {
    if (!word_at(t, len, i, groups[g])) continue;
    uint32_t open = skip_blanks(t, len, i + (uint32_t)strlen(groups[g]));
    uint32_t end = open < len && t[open] == '(' ? skip_parens(t, len, open) : open;
    blank(t, i, end);
    *next = end;
    return;
  }
  if (word_at(t, len, i, "__launch_bounds__")) {
    uint32_t open = skip_blanks(t, len, i + 17);
    if (open < len && t[open] == '(') blank_third_bound(t, open, skip_parens(t, len, open));
  } else if ((word_at(t, len, i, "__device__") || word_at(t, len, i, "__host__"))) {
    long p = prev_code_char(t, i);
    if (p >= 0 && t[p] == ']') blank(t, i, i + (uint32_t)strlen(t[i + 2] == 'd' ? "__device__" : "__host__"));
  } else if (word_at(t, len, i, "new")) {
    blank_new_stars(t, len, i + 3);
  } else if (t[i] == '#' && word_at(t, len, skip_blanks(t, len, i + 1), "pragma")) {
    long p = prev_code_char(t, i);
    uint32_t e = i;
    while (e < len && t[e] != '\n') e++;
    if (p >= 0 && t[p] == ')') blank(t, i, e);
    *next = e;
  } else if (t[i] == '#' && in_braced_list(t, i)) {
    uint32_t e = i;
    while (e < len && t[e] != '\n') e++;
    blank(t, i, e);
    *next = e;
  }
}

/* A copy of the text with the constructs above blanked; comments and literals are left alone. */
static char *grammar_view(const KrSource *src, KrDiags *diags, size_t *pp_errors) {
  char *t = malloc(src->len + 1);
  if (!t) return NULL;
  memcpy(t, src->text, src->len + 1);
  *pp_errors = kr_preproc_view(t, src->len, src, diags);   /* the conditionals' branches not taken, first */
  uint32_t len = src->len, i = 0;
  while (i < len) {
    if (t[i] == '/' && i + 1 < len && t[i + 1] == '/') {
      while (i < len && t[i] != '\n') i++;
    } else if (t[i] == '/' && i + 1 < len && t[i + 1] == '*') {
      const char *e = strstr(t + i + 2, "*/");
      i = e ? (uint32_t)(e - t) + 2 : len;
    } else if (t[i] == '"' || t[i] == '\'') {
      char q = t[i++];
      while (i < len && t[i] != q && t[i] != '\n') i += t[i] == '\\' ? 2 : 1;
      i++;
    } else {
      uint32_t next = i + 1;
      if (t[i] == '_' || t[i] == '#' || t[i] == 'n') mask_at(t, len, i, &next);
      i = next > i ? next : i + 1;
    }
  }
  return t;
}

static TSPoint point_at(const char *t, uint32_t n) {
  TSPoint p = {0, 0};
  for (uint32_t i = 0; i < n; i++) {
    if (t[i] == '\n') p.row++, p.column = 0;
    else p.column++;
  }
  return p;
}

/* Describes the change from the old view to the new one as a single edit covering everything
 * between the common prefix and the common suffix, so the old tree is only reused where the
 * parser's input is truly unchanged. */
static TSInputEdit view_edit(const char *a, uint32_t alen, const char *b, uint32_t blen) {
  uint32_t pre = 0;
  while (pre < alen && pre < blen && a[pre] == b[pre]) pre++;
  uint32_t suf = 0;
  while (suf < alen - pre && suf < blen - pre && a[alen - 1 - suf] == b[blen - 1 - suf]) suf++;
  TSInputEdit e = {.start_byte = pre, .old_end_byte = alen - suf, .new_end_byte = blen - suf};
  e.start_point = point_at(a, pre);
  e.old_end_point = point_at(a, alen - suf);
  e.new_end_point = point_at(b, blen - suf);
  return e;
}

static KrTree *parse_view(const KrSource *src, const KrTree *old, KrDiags *diags) {
  TSParser *p = ts_parser_new();
  if (!p) return NULL;
  KrTree *t = NULL;
  TSTree *prev = NULL;
  const TSLanguage *lang = kr_cuda_language();
  size_t pp_errors = 0;
  char *view = grammar_view(src, diags, &pp_errors);
  if (!view) goto out;
  if (!ts_parser_set_language(p, lang)) {
    kr_diag_pos(diags, KR_DIAG_ERROR, NULL, 0, 0, "the CUDA grammar's ABI does not match the runtime");
    goto out;
  }
  if (old) {
    prev = ts_tree_copy(old->ts);
    TSInputEdit e = view_edit(old->view, old->src->len, view, src->len);
    ts_tree_edit(prev, &e);
  }
  TSTree *ts = ts_parser_parse_string(p, prev, view, src->len);
  if (!ts) goto out;
  t = calloc(1, sizeof *t);
  if (!t) {
    ts_tree_delete(ts);
    goto out;
  }
  t->src = src;
  t->ts = ts;
  t->view = view;
  t->preproc_errors = pp_errors;
  view = NULL;
  resolve_symbols(&t->sym, lang);
  kr_tree_report_errors(t, diags);
out:
  free(view);
  if (prev) ts_tree_delete(prev);
  ts_parser_delete(p);
  return t;
}

KrTree *kr_tree_parse(const KrSource *src, KrDiags *diags) { return parse_view(src, NULL, diags); }

KrTree *kr_tree_reparse(const KrTree *old, const KrSource *src, KrDiags *diags) {
  return parse_view(src, old, diags);
}

void kr_tree_free(KrTree *self) {
  if (!self) return;
  ts_tree_delete(self->ts);
  free(self->view);
  free(self);
}

/* ---- S-expression dump -------------------------------------------------------------------------- */

static void sexp(const KrTree *self, TSTreeCursor *c, KrBuf *out, int depth) {
  TSNode n = ts_tree_cursor_current_node(c);
  const char *field = ts_tree_cursor_current_field_name(c);
  if (ts_node_is_named(n) || ts_node_is_missing(n)) {
    TSPoint a = ts_node_start_point(n), b = ts_node_end_point(n);
    kr_buf_printf(out, "%*s", depth * 2, "");
    if (field) kr_buf_printf(out, "%s: ", field);
    kr_buf_printf(out, "(%s%s [%u:%u-%u:%u]", ts_node_is_missing(n) ? "MISSING " : "",
                  ts_node_type(n), a.row + 1, a.column + 1, b.row + 1, b.column + 1);
    if (ts_node_named_child_count(n) == 0) {
      uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
      if (e - s <= 40 && !memchr(self->src->text + s, '\n', e - s)) {
        kr_buf_putc(out, ' ');
        kr_buf_json_string(out, self->src->text + s, e - s);
      }
    }
    kr_buf_puts(out, ")\n");
    depth++;
  }
  if (ts_tree_cursor_goto_first_child(c)) {
    do sexp(self, c, out, depth);
    while (ts_tree_cursor_goto_next_sibling(c));
    ts_tree_cursor_goto_parent(c);
  }
}

void kr_tree_sexp(const KrTree *self, KrBuf *out) {
  TSTreeCursor c = ts_tree_cursor_new(kr_tree_root(self));
  sexp(self, &c, out, 0);
  ts_tree_cursor_delete(&c);
}

/* ---- Small questions about nodes ------------------------------------------------------------- */

TSNode kr_node_field(TSNode n, const char *name) {
  return ts_node_child_by_field_name(n, name, (uint32_t)strlen(name));
}

TSNode kr_node_strip_parens(const KrTree *self, TSNode n) {
  while (!ts_node_is_null(n) && ts_node_symbol(n) == self->sym.parenthesized_expression &&
         ts_node_named_child_count(n) == 1)
    n = ts_node_named_child(n, 0);
  return n;
}

char *kr_node_operator(const KrTree *self, TSNode n, KrArena *arena) {
  TSNode o = kr_node_field(n, "operator");
  return ts_node_is_null(o) ? "" : kr_node_text(self, o, arena);
}

bool kr_node_operator_is(const KrTree *self, TSNode n, const char *op) {
  TSNode o = kr_node_field(n, "operator");
  return !ts_node_is_null(o) && kr_node_text_is(self, o, op);
}

const char *kr_node_callee(const KrTree *self, TSNode call, KrArena *arena) {
  TSNode f = kr_node_field(call, "function");
  if (ts_node_is_null(f)) return NULL;
  if (ts_node_symbol(f) == self->sym.template_function) f = kr_node_field(f, "name");
  if (ts_node_is_null(f) || ts_node_symbol(f) != self->sym.identifier) return NULL;
  return kr_node_text(self, f, arena);
}

char *kr_text_fold(KrArena *arena, const char *s, size_t n) {
  char *out = kr_arena_alloc(arena, n + 1), *w = out;
  bool space = false;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\\') {
      space = w != out;
      continue;
    }
    if (space) *w++ = ' ';
    space = false;
    *w++ = c;
  }
  *w = 0;
  return out;
}

/* Function definitions are found at the top level and inside namespaces, extern "C" blocks and
 * class bodies, never inside another function's body. */
static TSNode function_in(const KrTree *t, TSNode n, const char *name) {
  const KrSyms *s = &t->sym;
  TSSymbol sym = ts_node_symbol(n);
  TSNode none = {0};
  if (sym == s->function_definition) {
    TSNode d = kr_node_field(n, "declarator");
    while (!ts_node_is_null(d) && ts_node_symbol(d) != s->function_declarator)
      d = kr_node_field(d, "declarator");
    return !ts_node_is_null(d) && kr_node_text_is(t, kr_node_field(d, "declarator"), name) ? n
                                                                                           : none;
  }
  if (sym == s->compound_statement) return none;
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
    TSNode f = function_in(t, ts_node_named_child(n, i), name);
    if (!ts_node_is_null(f)) return f;
  }
  return none;
}

TSNode kr_tree_function(const KrTree *self, const char *name) {
  return function_in(self, kr_tree_root(self), name);
}

/* ---- What a function of the file may do -------------------------------------------------------- */

typedef KrVec(const char *) Names;

/* Calls with an effect: the first kCollective of them need the block's or the warp's threads together
 * (a barrier, a warp intrinsic); the rest touch memory or the outside world. */
static const char *const kEffects[] = {"__syncthreads", "__syncwarp", "__shfl", "__ballot", "__any", "__all",
                                       "cooperative_groups", "__activemask", "__reduce", "__threadfence",
                                       "atomic", "__trap", "printf", "malloc", "free", "memcpy", "memset"};
enum { kCollective = 10 };

/* The names a function's body may assign: its value parameters (not pointers or references) and the
 * scalar locals it declares (a store into a local array is counted as a store). */
static void own_names(const KrTree *t, TSNode n, Names *names, KrArena *a, int depth) {
  const KrSyms *s = &t->sym;
  if (depth > 256) return;
  TSSymbol y = ts_node_symbol(n);
  if (y == s->parameter_declaration || y == s->declaration) {
    for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
      TSNode d = ts_node_named_child(n, i);
      if (ts_node_symbol(d) == s->init_declarator) d = kr_node_field(d, "declarator");
      if (ts_node_symbol(d) == s->identifier) kr_vec_push(a, names, kr_node_text(t, d, a));
    }
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) own_names(t, ts_node_named_child(n, i), names, a, depth + 1);
}

static const char *effect_of(const KrTree *t, TSNode fn, TSNode n, const Names *own, KrArena *a, int depth, int calls,
                             bool *collective) {
  const KrSyms *s = &t->sym;
  TSSymbol y = ts_node_symbol(n);
  if (depth > 256) return *collective = true, "it nests too deep to read";
  if (y == s->gnu_asm_expression) return *collective = true, "it holds inline assembly";
  if (y == s->subscript_expression || (y == s->pointer_expression && kr_node_operator_is(t, n, "*")) ||
      (y == s->field_expression && kr_node_operator_is(t, n, "->")))   /* what it reads is not seen */
    return kr_arena_printf(a, "it reads memory ('%s')", kr_node_text(t, n, a));
  if (y == s->assignment_expression || y == s->update_expression) {
    TSNode tg = kr_node_strip_parens(t, kr_node_field(n, y == s->update_expression ? "argument" : "left"));
    bool mine = false;
    for (size_t i = 0; ts_node_symbol(tg) == s->identifier && i < own->len; i++) mine |= kr_node_text_is(t, tg, own->data[i]);
    if (!mine) return kr_arena_printf(a, "it stores to '%s'", kr_node_text(t, tg, a));
  }
  if (y == s->call_expression) {
    TSNode f = kr_node_field(n, "function");
    const char *callee = kr_node_text(t, f, a);
    if (ts_node_symbol(f) == s->field_expression || ts_node_symbol(f) == s->qualified_identifier)
      return *collective = true,
             kr_arena_printf(a, "it calls '%s', a member or namespaced function whose effects are not read", callee);
    for (size_t i = 0; i < sizeof kEffects / sizeof kEffects[0]; i++)
      if (strncmp(callee, kEffects[i], strlen(kEffects[i])) == 0)
        return *collective = i < kCollective, kr_arena_printf(a, "it calls '%s'", callee);
    const char *name = kr_node_callee(t, n, a);
    TSNode g = name ? kr_tree_function(t, name) : (TSNode){0};
    if (!ts_node_is_null(g)) {
      if (ts_node_eq(g, fn)) return *collective = true, "it calls itself";
      if (calls >= 8) return *collective = true, "its calls nest too deep to read";
      Names mine = {0};
      own_names(t, g, &mine, a, 0);
      const char *w = effect_of(t, g, kr_node_field(g, "body"), &mine, a, 0, calls + 1, collective);
      if (w) return kr_arena_printf(a, "it calls '%s', and %s", name, w);
    }
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
    const char *w = effect_of(t, fn, ts_node_named_child(n, i), own, a, depth + 1, calls, collective);
    if (w) return w;
  }
  return NULL;
}

const char *kr_tree_function_effect(const KrTree *self, TSNode fn, bool *collective, KrArena *arena) {
  Names own = {0};
  *collective = false;
  own_names(self, fn, &own, arena, 0);
  TSNode body = kr_node_field(fn, "body");
  if (ts_node_is_null(body)) return *collective = true, "its body is not in this file";
  return effect_of(self, fn, body, &own, arena, 0, 0, collective);
}

bool kr_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}
