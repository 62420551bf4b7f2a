/* passes/specialize.c: a template kernel written out for one set of template arguments.
 *
 * Before:  template <typename T, int BS>
 *          __global__ void scale(T *y, const T *x, T a, int n) {
 *            int i = blockIdx.x * BS + threadIdx.x; …
 * After:   (the template as it was, then)
 *          template <>
 *          __global__ void scale<float, 128>(float *y, const float *x, float a, int n) {
 *            int i = blockIdx.x * 128 + threadIdx.x; …
 *
 * Kernels people write are often templates over the element type or a block size. The nest reads
 * one instantiation, with its types and sizes known, so it refuses a template that is still
 * generic, and the schedule passes with it. This pass adds, after the template, its explicit
 * specialization for the arguments given: the definition with each template parameter replaced by
 * its argument (a type as written, a value parenthesized unless it is a single token) and the name
 * followed by the arguments. A launch of `scale<float, 128>` then runs the specialization, which
 * the passes after this one rewrite (named `scale<float, 128>`), while every other instantiation
 * runs the template, unchanged.
 *
 * Requires: the kernel is a template still generic (not itself an explicit specialization); its
 * parameters are types or values (no template template parameter, no pack); the arguments are as
 * many as the parameters, or fewer where the rest have defaults; the file does not specialize the
 * kernel for them already. A program that uses `scale<float, 128>` before the template's definition
 * ends is not seen here (nvcc refuses such a specialization).
 * Params: args (the template arguments, "float, 128"; default: those the kernel is named with,
 * kr.kernel("scale<float, 128>")). Precision: exact. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/types.h"
#include "passes/pass.h"

static const KrParamSpec params[] = {
  {.name = "args", .type = KR_PARAM_STRING, .def = "",
   .doc = "the template arguments, as in \"float, 128\" (default: those the kernel is named with, "
          "kr.kernel(\"scale<float, 128>\"))"},
};

enum { MAX_PARAMS = 16 };

typedef struct TParam {
  const char *name;     /* NULL: unnamed */
  const char *def;      /* the default argument, or NULL */
  bool type;            /* typename / class */
} TParam;

/* The entries of a template list (frontend/types.h), at most MAX_PARAMS; -1 when there are more. */
static int entries(const char *list, const char **out, KrArena *a) {
  int n = 0;
  const char *e;
  for (int i = 0; (e = kr_type_template_arg(list, i, a)) != NULL; i++) {
    while (*e && isspace((unsigned char)*e)) e++;
    if (!*e && i == 0) break;   /* an empty list */
    if (n == MAX_PARAMS) return -1;
    out[n++] = e;
  }
  return n;
}

/* One template parameter: "typename T", "class U = float", "int BS = 128"; the reason when it is not
 * one this pass substitutes. */
static const char *read_param(const char *text, TParam *tp, KrArena *a) {
  *tp = (TParam){0};
  if (strstr(text, "...")) return "a parameter pack";
  if (strncmp(text, "template", 8) == 0 && !kr_ident_char(text[8])) return "a template template parameter";
  const char *eq = strchr(text, '=');
  const char *end = eq ? eq : text + strlen(text);
  if (eq) {
    const char *d = eq + 1;
    while (isspace((unsigned char)*d)) d++;
    tp->def = kr_arena_strdup(a, d);
  }
  while (end > text && isspace((unsigned char)end[-1])) end--;
  const char *b = end;
  while (b > text && kr_ident_char(b[-1])) b--;
  const char *word = kr_arena_strndup(a, b, (size_t)(end - b));
  tp->type = strncmp(text, "typename", 8) == 0 || strncmp(text, "class", 5) == 0;
  bool keyword_only = b == text || strcmp(word, "typename") == 0 || strcmp(word, "class") == 0;
  tp->name = keyword_only ? NULL : word;
  return NULL;
}

/* Whether identifier `word` appears in text s as a whole word. */
static bool has_word(const char *s, const char *word) {
  size_t n = strlen(word);
  for (const char *p = strstr(s, word); p; p = strstr(p + 1, word))
    if ((p == s || !kr_ident_char(p[-1])) && !kr_ident_char(p[n])) return true;
  return false;
}

static bool single_token(const char *s) {
  for (const char *p = s; *p; p++)
    if (!kr_ident_char(*p) && *p != '.') return false;
  return *s != '\0';
}

typedef struct Sub {
  uint32_t start, end;
  const char *text;
} Sub;

typedef KrVec(Sub) Subs;

static int sub_cmp(const void *x, const void *y) {
  const Sub *a = x, *b = y;
  return a->start < b->start ? -1 : a->start > b->start;
}

typedef struct Plan {
  const char *args;     /* normalised: "float, 128" */
  const char *text;     /* the specialization */
  uint32_t at;          /* where it goes: after the template's definition */
} Plan;

/* Every identifier or type name in n that names a template parameter, with its argument. */
static void collect(KrPassCtx *cx, TSNode n, const TParam *tp, const char *const *value, int np, Subs *subs,
                    int depth) {
  const KrSyms *s = &cx->tree->sym;
  if (depth > 512) return;
  TSSymbol y = ts_node_symbol(n);
  if (y == s->identifier || y == s->type_identifier) {
    for (int i = 0; i < np; i++)
      if (tp[i].name && kr_node_text_is(cx->tree, n, tp[i].name)) {
        Sub sub = {ts_node_start_byte(n), ts_node_end_byte(n), value[i]};
        kr_vec_push(cx->arena, subs, sub);
      }
    return;
  }
  for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) collect(cx, ts_node_named_child(n, i), tp, value, np, subs, depth + 1);
}

static KrStatus plan(KrPassCtx *cx, Plan *out) {
  const KrKernel *k = cx->kernel;
  if (!k->is_template)
    return kr_pass_skip(cx, k->span.start, "kernel '%s' is not a template", k->qualified_name);
  if (!kr_kernel_generic(k))
    return kr_pass_skip(cx, k->span.start, "kernel '%s' is an explicit specialization already", k->qualified_name);
  const KrValue *given = kr_pass_arg(cx, "args");
  const char *args = given->s && given->s[0] ? given->s : NULL;
  const char *lt = cx->named ? strchr(cx->named, '<') : NULL;
  bool from_name = !args && lt;
  if (from_name) {
    const char *gt = strrchr(lt, '>');
    if (!gt || gt < lt) return kr_pass_skip(cx, k->span.start, "kernel name '%s' does not close its '<'", cx->named);
    args = kr_arena_strndup(cx->arena, lt + 1, (size_t)(gt - lt - 1));
  }
  if (!args)
    return kr_pass_skip(cx, k->span.start, "kernel '%s' is a template <%s>: name the template arguments, "
                        "kr.kernel(\"%s<…>\") or { args = \"…\" }", k->qualified_name, k->template_params, k->name);
  const char *ptext[MAX_PARAMS], *atext[MAX_PARAMS];
  int np = entries(k->template_params ? k->template_params : "", ptext, cx->arena);
  int na = entries(args, atext, cx->arena);
  if (np < 0 || na < 0)
    return kr_pass_skip(cx, k->span.start, "kernel '%s': more than %d template parameters or arguments", k->qualified_name,
                        MAX_PARAMS);
  TParam tp[MAX_PARAMS];
  for (int i = 0; i < np; i++) {
    const char *why = read_param(ptext[i], &tp[i], cx->arena);
    if (why)
      return kr_pass_skip(cx, k->span.start, "kernel '%s': template parameter '%s' is %s, which this pass does not write "
                          "out", k->qualified_name, ptext[i], why);
  }
  if (na > np)
    return kr_pass_skip(cx, k->span.start, "kernel '%s' takes %d template argument%s (<%s>), and '%s' gives %d",
                        k->qualified_name, np, np == 1 ? "" : "s", k->template_params, args, na);
  const char *value[MAX_PARAMS];
  KrBuf norm = {0};
  for (int i = 0; i < np; i++) {
    const char *v = i < na ? atext[i] : tp[i].def;
    if (!v) {
      kr_buf_free(&norm);
      return kr_pass_skip(cx, k->span.start, "kernel '%s': no argument for template parameter '%s', which has no default",
                          k->qualified_name, ptext[i]);
    }
    for (int j = 0; i >= na && j < np; j++)
      if (tp[j].name && has_word(v, tp[j].name)) {
        kr_buf_free(&norm);
        return kr_pass_skip(cx, k->span.start, "kernel '%s': the default of template parameter '%s' names '%s' (give "
                            "every argument)", k->qualified_name, ptext[i], tp[j].name);
      }
    kr_buf_printf(&norm, "%s%s", i ? ", " : "", v);
    value[i] = tp[i].type || single_token(v) ? v : kr_arena_printf(cx->arena, "(%s)", v);
  }
  out->args = kr_type_template_args_normal(norm.data ? norm.data : "", cx->arena);
  kr_buf_free(&norm);
  const char *full = kr_arena_printf(cx->arena, "%s<%s>", k->qualified_name, out->args);
  const KrKernel *have = kr_model_find_launch(cx->model, full);
  if (have && have != k)
    return kr_pass_skip(cx, have->span.start, "the file specializes '%s' already (line %u)", full, have->line);
  /* The definition with the parameters replaced, and the name given the arguments. */
  Subs subs = {0};
  collect(cx, k->node, tp, value, np, &subs, 0);
  TSNode fd = k->node;
  for (TSNode d = kr_node_field(k->node, "declarator"); !ts_node_is_null(d); d = kr_node_field(d, "declarator"))
    if (ts_node_symbol(d) == cx->tree->sym.function_declarator) {
      fd = kr_node_field(d, "declarator");
      break;
    }
  if (ts_node_eq(fd, k->node))
    return kr_pass_skip(cx, k->span.start, "kernel '%s': its declarator is not one this pass reads", k->qualified_name);
  Sub name = {ts_node_end_byte(fd), ts_node_end_byte(fd), kr_arena_printf(cx->arena, "<%s>", out->args)};
  kr_vec_push(cx->arena, &subs, name);
  uint32_t s = ts_node_start_byte(k->node), e = ts_node_end_byte(k->node);
  KrBuf b = {0};
  kr_buf_printf(&b, "\n\n// krewrite specialize: %s for <%s>%s\ntemplate <>\n", k->name, out->args,
                from_name ? " (the arguments it is named with)" : "");
  qsort(subs.data, subs.len, sizeof *subs.data, sub_cmp);
  uint32_t at = s;
  for (size_t i = 0; i < subs.len; i++) {
    kr_buf_append(&b, cx->src->text + at, subs.data[i].start - at);
    kr_buf_puts(&b, subs.data[i].text);
    at = subs.data[i].end;
  }
  kr_buf_append(&b, cx->src->text + at, e - at);
  out->text = kr_arena_strndup(cx->arena, b.data, b.len);
  kr_buf_free(&b);
  TSNode tmpl = ts_node_parent(k->node);
  out->at = !ts_node_is_null(tmpl) && ts_node_symbol(tmpl) == cx->tree->sym.template_declaration ? ts_node_end_byte(tmpl) : e;
  if (from_name) kr_pass_settle_string(cx, "args", out->args);
  return KR_OK;
}

static KrStatus check(KrPassCtx *cx) {
  Plan p;
  return plan(cx, &p);
}

static KrStatus apply(KrPassCtx *cx) {
  Plan p;
  KrStatus st = plan(cx, &p);
  if (st != KR_OK) return st;
  kr_pass_replace(cx, p.at, p.at, p.text);
  return KR_OK;
}

const KrPass kr_pass_specialize = {
  .name = "specialize",
  .summary = "a template kernel's explicit specialization for one set of template arguments (scale<float, 128>)",
  .doc = "Adds, after a template kernel, its explicit specialization for the arguments given (or those it is "
         "named with, kr.kernel(\"scale<float, 128>\")): the definition with each template parameter replaced by "
         "its argument. Launches of that instantiation run it, and the passes after this one rewrite it, named "
         "scale<float, 128>; the template stays. Refuses parameter packs, template template parameters, "
         "missing arguments without defaults, and a specialization the file writes already.",
  .params = params,
  .nparams = sizeof params / sizeof *params,
  .precision = KR_PRECISION_EXACT,
  .before_schedule = true,
  .search = {.prepares = true},
  .check = check,
  .apply = apply,
};
