/* runtime/emu_view.c: the emulator view of a .cu file, the text g++ compiles for the CPU emulator
 * (emu_internal.h). The source is parsed with the front end and changed by byte-range edits that
 * keep every line on its line, so g++'s line numbers are the .cu file's:
 *   - each k<<<…>>>(…) launch becomes ((void)0): host code is compiled, never run;
 *   - `extern __shared__ T name[];` becomes `T (*const &name) = kr_emu::dyn_smem<…>();`, a
 *     reference to the running launch's dynamic shared memory (valid at file scope too);
 *   - `__shared__ T name…;` becomes `typedef T kr_sh_name…; auto &name = kr_emu::shared_var<
 *     kr_sh_name, N>("name");` (`static` dropped): storage the memory checker gives each variable
 *     with a redzone around it, poisons for every block and knows by name (kr_emu_check.h); a
 *     __shared__ the tree does not show (from a macro) is static in the shim's checked section;
 *   - `__noinline__` is spelled __attribute__((noinline)) (as a macro it would break libstdc++);
 *   - inline PTX (asm) and kernel launches in __device__/__global__ code (dynamic parallelism)
 *     are refused with located errors.
 * Then one KR_EMU_ENTRY per kernel name, each under a #line naming the kernel, so that a g++
 * error there reads as being about that kernel, and a KR_EMU_CLUSTER with the arguments of its
 * __cluster_dims__ for a kernel that has them (its launches run cluster by cluster). */
#include <stdlib.h>
#include <string.h>

#include "frontend/model.h"
#include "runtime/emu_internal.h"

typedef struct Edit {
  uint32_t start, end;
  const char *text;
} Edit;

typedef struct View {
  const KrTree *t;
  const KrSyms *s;
  const KrSource *src;
  KrArena *a;
  KrDiags *diags;
  KrVec(Edit) edits;
  size_t errors;
  uint32_t nshared;         /* static __shared__ variables so far: each gets its own number */
} View;

static void edit(View *v, uint32_t start, uint32_t end, const char *text) {
  Edit e = {start, end, text};
  kr_vec_push(v->a, &v->edits, e);
}

/* `repl` followed by as many newlines as [start, end) holds, so the lines after stay in place. */
static const char *keep_lines(View *v, uint32_t start, uint32_t end, const char *repl) {
  KrBuf b = {0};
  kr_buf_puts(&b, repl);
  for (uint32_t i = start; i < end; i++)
    if (v->src->text[i] == '\n') kr_buf_putc(&b, '\n');
  char *s = kr_arena_strndup(v->a, b.data, b.len);
  kr_buf_free(&b);
  return s;
}

/* Blanks [start, end), newlines kept. */
static void blank(View *v, uint32_t start, uint32_t end) {
  char *s = kr_arena_alloc(v->a, end - start + 1);
  for (uint32_t i = start; i < end; i++) s[i - start] = v->src->text[i] == '\n' ? '\n' : ' ';
  edit(v, start, end, s);
}

static bool has_token(View *v, TSNode n, TSSymbol sym) {
  uint32_t k = ts_node_child_count(n);
  for (uint32_t i = 0; i < k; i++)
    if (ts_node_symbol(ts_node_child(n, i)) == sym) return true;
  return false;
}

/* ---- Shared memory -------------------------------------------------------------------------------- */

static TSNode child_spelled(View *v, TSNode n, TSSymbol sym, const char *word) {
  uint32_t k = ts_node_child_count(n);
  for (uint32_t i = 0; i < k; i++) {
    TSNode c = ts_node_child(n, i);
    if (ts_node_symbol(c) == sym && kr_node_text_is(v->t, c, word)) return c;
  }
  return (TSNode){0};
}

/* One declarator of an extern __shared__ declaration: name[] -> (*const &name) = dyn_smem(). */
static void rewrite_dynamic(View *v, TSNode d) {
  TSNode innermost = {0}, name = {0};
  for (TSNode n = d; !ts_node_is_null(n);) {
    TSSymbol sym = ts_node_symbol(n);
    if (sym == v->s->identifier) {
      name = n;
      break;
    }
    if (sym == v->s->array_declarator) innermost = n;
    else if (ts_node_named_child_count(n) == 0) break;
    TSNode next = ts_node_child_by_field_name(n, "declarator", 10);
    n = ts_node_is_null(next) ? ts_node_named_child(n, 0) : next;
  }
  if (ts_node_is_null(innermost) || ts_node_is_null(name)) {
    kr_diag_at(v->diags, KR_DIAG_ERROR, v->src, ts_node_start_byte(d),
               "extern __shared__ declaration is not an array: the CPU emulator supports "
               "`extern __shared__ T name[];`");
    v->errors++;
    return;
  }
  const char *id = kr_node_text(v->t, name, v->a);
  edit(v, ts_node_start_byte(innermost), ts_node_end_byte(innermost),
       keep_lines(v, ts_node_start_byte(innermost), ts_node_end_byte(innermost),
                  kr_arena_printf(v->a, "(*const &%s)", id)));
  uint32_t end = ts_node_end_byte(d);
  edit(v, end, end, kr_arena_printf(v->a, " = kr_emu::dyn_smem<decltype(%s)>()", id));
}

/* The identifier a declarator declares (through arrays and pointers), or a null node. */
static TSNode declared_name(View *v, TSNode d) {
  for (TSNode n = d; !ts_node_is_null(n);) {
    if (ts_node_symbol(n) == v->s->identifier) return n;
    if (ts_node_named_child_count(n) == 0) break;
    TSNode next = ts_node_child_by_field_name(n, "declarator", 10);
    n = ts_node_is_null(next) ? ts_node_named_child(n, 0) : next;
  }
  return (TSNode){0};
}

static bool in_function(TSNode n, TSSymbol function_definition) {
  for (TSNode p = ts_node_parent(n); !ts_node_is_null(p); p = ts_node_parent(p))
    if (ts_node_symbol(p) == function_definition) return true;
  return false;
}

/* `[static] __shared__ T a[4], b;` -> `typedef T kr_sh_a[4], kr_sh_b; auto &a = …; auto &b = …;`
 * on the same line (static at namespace scope, where the references are initialised at load). */
static void rewrite_static(View *v, TSNode decl, TSNode shared) {
  TSNode st = child_spelled(v, decl, v->s->storage_class_specifier, "static");
  if (!ts_node_is_null(st)) blank(v, ts_node_start_byte(st), ts_node_end_byte(st));
  edit(v, ts_node_start_byte(shared), ts_node_end_byte(shared), "typedef");
  const char *storage = in_function(decl, v->s->function_definition) ? "" : "static ";
  KrBuf refs = {0};
  uint32_t k = ts_node_child_count(decl);
  for (uint32_t i = 0; i < k; i++) {
    const char *f = ts_node_field_name_for_child(decl, i);
    TSNode name = f && strcmp(f, "declarator") == 0 ? declared_name(v, ts_node_child(decl, i)) : (TSNode){0};
    if (ts_node_is_null(name)) continue;
    const char *id = kr_node_text(v->t, name, v->a);
    edit(v, ts_node_start_byte(name), ts_node_end_byte(name), kr_arena_printf(v->a, "kr_sh_%s", id));
    kr_buf_printf(&refs, " %sauto &%s = kr_emu::shared_var<kr_sh_%s, %u>(\"%s\");", storage, id, id,
                  v->nshared++, id);
  }
  uint32_t end = ts_node_end_byte(decl);
  if (refs.len) edit(v, end, end, kr_arena_strndup(v->a, refs.data, refs.len));
  kr_buf_free(&refs);
}

static void rewrite_shared(View *v, TSNode decl) {
  TSNode shared = child_spelled(v, decl, v->s->type_qualifier, "__shared__");
  if (ts_node_is_null(shared)) return;
  TSNode ext = child_spelled(v, decl, v->s->storage_class_specifier, "extern");
  if (ts_node_is_null(ext)) {
    rewrite_static(v, decl, shared);
    return;
  }
  blank(v, ts_node_start_byte(ext), ts_node_end_byte(ext));
  blank(v, ts_node_start_byte(shared), ts_node_end_byte(shared));
  uint32_t k = ts_node_child_count(decl);
  for (uint32_t i = 0; i < k; i++) {
    const char *f = ts_node_field_name_for_child(decl, i);
    if (f && strcmp(f, "declarator") == 0) rewrite_dynamic(v, ts_node_child(decl, i));
  }
}

/* ---- Inline PTX ------------------------------------------------------------------------------------- */

/* Is `n` inside device code: a __device__ or __global__ function, or a __device__ lambda? */
static bool in_device_code(View *v, TSNode n) {
  for (TSNode p = ts_node_parent(n); !ts_node_is_null(p); p = ts_node_parent(p)) {
    TSSymbol sym = ts_node_symbol(p);
    if (sym == v->s->lambda_expression && has_token(v, p, v->s->kw_device)) return true;
    if (sym == v->s->function_definition)
      return has_token(v, p, v->s->kw_device) || has_token(v, p, v->s->kw_global);
  }
  return false;
}

static void check_asm(View *v, TSNode n) {
  if (!in_device_code(v, n)) return;
  kr_diag_at(v->diags, KR_DIAG_ERROR, v->src, ts_node_start_byte(n),
             "inline PTX asm is not supported by the CPU emulator");
  v->errors++;
}

/* One walk over the whole tree for declarations (shared memory) and asm expressions. */
static void walk(View *v) {
  TSTreeCursor c = ts_tree_cursor_new(kr_tree_root(v->t));
  for (;;) {
    TSNode n = ts_tree_cursor_current_node(&c);
    TSSymbol sym = ts_node_symbol(n);
    if (sym == v->s->declaration) rewrite_shared(v, n);
    else if (sym == v->s->gnu_asm_expression) check_asm(v, n);
    bool leaf = sym == v->s->gnu_asm_expression || sym == v->s->comment;
    if (!leaf && ts_tree_cursor_goto_first_child(&c)) continue;
    while (!ts_tree_cursor_goto_next_sibling(&c))
      if (!ts_tree_cursor_goto_parent(&c)) goto done;
  }
done:
  ts_tree_cursor_delete(&c);
}

/* ---- Lexical pass: __noinline__ and launches the tree did not show ----------------------------------- */

static bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The end of the comment or literal starting at i, or i when there is none there. */
static uint32_t skip_opaque(const char *t, uint32_t n, uint32_t i) {
  if (t[i] == '/' && i + 1 < n && t[i + 1] == '/') {
    while (i < n && t[i] != '\n') i++;
    return i;
  }
  if (t[i] == '/' && i + 1 < n && t[i + 1] == '*') {
    const char *e = strstr(t + i + 2, "*/");
    return e ? (uint32_t)(e - t) + 2 : n;
  }
  bool digit_sep = t[i] == '\'' && i > 0 && ident_char(t[i - 1]);  /* 1'000'000 */
  if ((t[i] == '"' || t[i] == '\'') && !digit_sep) {
    char q = t[i++];
    while (i < n && t[i] != q && t[i] != '\n') i += t[i] == '\\' ? 2 : 1;
    return i < n ? i + 1 : n;
  }
  return i;
}

static bool inside_edit(View *v, uint32_t at) {
  for (size_t i = 0; i < v->edits.len; i++)
    if (at >= v->edits.data[i].start && at < v->edits.data[i].end) return true;
  return false;
}

static void lexical(View *v) {
  const char *t = v->src->text;
  uint32_t n = v->src->len;
  static const char noinline[] = "__noinline__";
  for (uint32_t i = 0; i < n;) {
    uint32_t j = skip_opaque(t, n, i);
    if (j != i) {
      i = j;
      continue;
    }
    if (t[i] == '_' && (i == 0 || !ident_char(t[i - 1])) && n - i >= sizeof noinline - 1 &&
        memcmp(t + i, noinline, sizeof noinline - 1) == 0 &&
        !ident_char(t[i + sizeof noinline - 1])) {
      edit(v, i, i + sizeof noinline - 1, "__attribute__((noinline))");
      i += sizeof noinline - 1;
      continue;
    }
    if (t[i] == '<' && n - i >= 3 && t[i + 1] == '<' && t[i + 2] == '<' && !inside_edit(v, i)) {
      /* A launch in a macro body or a spot the parser missed: drop the <<<…>>> configuration,
       * leaving a plain call that compiles and never runs. */
      const char *close = strstr(t + i + 3, ">>>");
      if (close) {
        uint32_t e = (uint32_t)(close - t) + 3;
        blank(v, i, e);
        i = e;
        continue;
      }
    }
    i++;
  }
}

/* ---- Applying the edits --------------------------------------------------------------------------- */

static int by_position(const void *a, const void *b) {
  const Edit *x = a, *y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return x->end < y->end ? -1 : x->end > y->end;
}

static void apply(View *v, KrBuf *out) {
  if (v->edits.len) qsort(v->edits.data, v->edits.len, sizeof(Edit), by_position);
  uint32_t at = 0;
  for (size_t i = 0; i < v->edits.len; i++) {
    const Edit *e = &v->edits.data[i];
    if (e->start < at) continue;  /* overlaps an earlier edit */
    kr_buf_append(out, v->src->text + at, e->start - at);
    kr_buf_puts(out, e->text);
    at = e->end;
  }
  kr_buf_append(out, v->src->text + at, v->src->len - at);
}

/* ---- Kernel entries ----------------------------------------------------------------------------------- */

char *kr__emu_norm_name(KrArena *arena, const char *name) {
  size_t n = strlen(name);
  char *out = kr_arena_alloc(arena, n + 1), *w = out;
  for (size_t i = 0; i < n; i++) {
    char c = name[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      size_t j = i;
      while (j < n && (name[j] == ' ' || name[j] == '\t' || name[j] == '\n' || name[j] == '\r')) j++;
      if (w > out && j < n && ident_char(w[-1]) && ident_char(name[j])) *w++ = ' ';
      i = j - 1;
      continue;
    }
    *w++ = c;
  }
  *w = 0;
  return out;
}

/* The expression naming kernel `name` at file scope: "&ns::tk<float,4>". */
static const char *entry_expr(View *v, const KrModel *m, const char *path, const char *name, const KrKernel **kernel) {
  const char *lt = strchr(name, '<');
  const char *base = lt ? kr_arena_strndup(v->a, name, (size_t)(lt - name)) : name;
  if (strncmp(base, "::", 2) == 0) base += 2;
  const KrKernel *k = kr_model_find(m, base);
  if (!k) {
    kr_diag_pos(v->diags, KR_DIAG_ERROR, path, 0, 0, "no kernel '%s' in this file (kernels here: %s)",
                base, kr_model_kernel_names(m, v->a));
    return NULL;
  }
  if (k->is_template && !lt) {
    kr_diag_pos(v->diags, KR_DIAG_ERROR, path, k->line, k->col,
                "kernel '%s' is a template <%s>: name its template arguments, as in '%s<…>'",
                base, k->template_params ? k->template_params : "", base);
    return NULL;
  }
  if (!k->is_template && lt) {
    kr_diag_pos(v->diags, KR_DIAG_ERROR, path, k->line, k->col,
                "kernel '%s' is not a template, but is named with template arguments: '%s'", base,
                name);
    return NULL;
  }
  const char *qual = strstr(base, "::") ? base : k->qualified_name;
  *kernel = k;
  return kr_arena_printf(v->a, "&%s%s", qual, lt ? lt : "");
}

static void put_line_directive(KrBuf *out, const char *file) {
  kr_buf_puts(out, "#line 1 \"");
  for (const char *p = file; *p; p++) {
    if (*p == '"' || *p == '\\') kr_buf_putc(out, '\\');
    kr_buf_putc(out, *p == '\n' ? ' ' : *p);
  }
  kr_buf_puts(out, "\"\n");
}

static KrStatus add_entries(View *v, const KrModel *m, const char *path, const char *const *kernels,
                            size_t nkernels, KrEmuView *out, KrBuf *text) {
  out->names = kr_arena_alloc(v->a, (nkernels + 1) * sizeof *out->names);
  KrStatus st = KR_OK;
  for (size_t i = 0; i < nkernels; i++) {
    const char *norm = kr__emu_norm_name(v->a, kernels[i]);
    bool seen = false;
    for (size_t j = 0; j < out->nnames && !seen; j++) seen = strcmp(out->names[j], norm) == 0;
    if (seen) continue;
    const KrKernel *k = NULL;
    const char *expr = entry_expr(v, m, path, norm, &k);
    if (!expr) {
      st = KR_ERR;
      continue;
    }
    put_line_directive(text, kr_arena_printf(v->a, "<emulator entry for kernel '%s'>", norm));
    kr_buf_printf(text, "KR_EMU_ENTRY(%zu, %s)\n", out->nnames, expr);
    if (k->cluster_dims) kr_buf_printf(text, "KR_EMU_CLUSTER(%zu, %s)\n", out->nnames, k->cluster_dims);
    out->names[out->nnames++] = norm;
  }
  return st;
}

/* ---- Entry point ---------------------------------------------------------------------------------------- */

KrStatus kr__emu_view(const char *path, const char *text, size_t len, const char *const *kernels,
                      size_t nkernels, KrArena *arena, KrEmuView *out, KrDiags *diags) {
  memset(out, 0, sizeof *out);
  KrSource *src = kr_arena_alloc(arena, sizeof *src);
  if (kr_source_from_text(src, path, text, len, arena, diags) != KR_OK) return KR_ERR;
  out->src = src;
  out->syntax = kr_diags_new();
  KrTree *tree = kr_tree_parse(src, out->syntax);
  if (!tree) {
    kr_diag_pos(diags, KR_DIAG_ERROR, path, 0, 0, "the CUDA parser failed on this file");
    return KR_ERR;
  }
  View v = {.t = tree, .s = &tree->sym, .src = src, .a = arena, .diags = diags};
  KrModel *m = kr_model_build(tree, arena);
  for (size_t i = 0; i < m->launches.len; i++) {
    const KrLaunch *l = &m->launches.data[i];
    if (in_device_code(&v, l->node)) {
      kr_diag_at(diags, KR_DIAG_ERROR, src, l->span.start,
                 "a kernel launch in device code (dynamic parallelism) is not supported by the "
                 "CPU emulator");
      v.errors++;
      continue;
    }
    edit(&v, l->span.start, l->span.end, keep_lines(&v, l->span.start, l->span.end, "((void)0)"));
  }
  walk(&v);
  lexical(&v);
  KrBuf b = {0};
  put_line_directive(&b, path);
  apply(&v, &b);
  kr_buf_putc(&b, '\n');
  KrStatus st = add_entries(&v, m, path, kernels, nkernels, out, &b);
  if (v.errors) st = KR_ERR;
  out->len = b.len;
  out->text = kr_arena_strndup(arena, b.data ? b.data : "", b.len);
  kr_buf_free(&b);
  kr_tree_free(tree);
  return st;
}

void kr__emu_view_free(KrEmuView *view) {
  if (view && view->syntax) kr_diags_free(view->syntax);
  if (view) view->syntax = NULL;
}
