/* passes/driver.c: runs passes over a document. Validates arguments, calls check and apply,
 * refuses overlapping edits, applies them (re-indenting inserted lines), re-parses, and takes the
 * record that the audit log and replay are built from (DESIGN.md, "Text is the IR"). */
#include "passes/pass.h"

#include <stdlib.h>
#include <string.h>

#include "frontend/nest.h"

struct KrDoc {
  KrArena *arena;   /* source, model; replaced wholesale after each pass */
  KrSource src;
  KrTree *tree;
  KrModel *model;
  char *input_path; /* owned; the source path is "INPUT (after pass N, NAME)" once rewritten */
  unsigned passes;  /* passes applied so far */
  /* Kept across passes (reload moves them): the schedules of kernels a schedule pass has lifted,
   * and the kernels a text pass has changed (a schedule pass refuses those). */
  KrKernelSchedule *scheds;
  size_t nscheds;
  char **texted;
  size_t ntexted;
  const KrBuildFlags *build;   /* the defines every parse of the text uses (the caller's; NULL: none) */
};

/* ---- Documents ----------------------------------------------------------------------------------- */

/* Parses text into a fresh state (reusing `prev`'s tree for unchanged text when given); on syntax
 * errors returns KR_ERR with them in diags. */
static KrStatus load(KrDoc *doc, const char *path, const char *text, size_t len, const KrDoc *prev,
                     KrDiags *diags) {
  doc->arena = kr_arena_new();
  if (kr_source_from_text(&doc->src, path, text, len, doc->arena, diags) != KR_OK) return KR_ERR;
  kr_source_use(&doc->src, doc->build);
  size_t before = diags->nerrors;
  doc->tree = prev ? kr_tree_reparse(prev->tree, &doc->src, diags) : kr_tree_parse(&doc->src, diags);
  if (!doc->tree) return KR_ERR;
  if (diags->nerrors > before) return KR_ERR;
  doc->model = kr_model_new(doc->tree, doc->arena);
  return KR_OK;
}

static void unload(KrDoc *doc) {
  kr_tree_free(doc->tree);
  kr_arena_free(doc->arena);
  doc->tree = NULL, doc->arena = NULL, doc->model = NULL;
  memset(&doc->src, 0, sizeof doc->src);
}

KrDoc *kr_doc_new(const char *path, const char *text, size_t len, KrDiags *diags) {
  return kr_doc_new_built(path, text, len, NULL, diags);
}

KrDoc *kr_doc_new_built(const char *path, const char *text, size_t len, const KrBuildFlags *build, KrDiags *diags) {
  KrDoc *doc = calloc(1, sizeof *doc);
  if (!doc) return NULL;
  doc->build = build;
  if (load(doc, path, text, len, NULL, diags) != KR_OK) {
    unload(doc);
    free(doc);
    return NULL;
  }
  doc->input_path = strdup(path);
  return doc;
}

void kr_doc_free(KrDoc *self) {
  if (!self) return;
  unload(self);
  for (size_t i = 0; i < self->nscheds; i++) free(self->scheds[i].lifted_text), free((char *)self->scheds[i].kernel);
  free(self->scheds);
  for (size_t i = 0; i < self->ntexted; i++) free(self->texted[i]);
  free(self->texted);
  free(self->input_path);
  free(self);
}

/* The schedules and text marks of self into doc (empty), each string copied. */
static bool copy_state(KrDoc *doc, const KrDoc *self) {
  doc->scheds = calloc(self->nscheds + 1, sizeof *doc->scheds);
  doc->texted = calloc(self->ntexted + 1, sizeof *doc->texted);
  if (!doc->scheds || !doc->texted) return false;
  for (size_t i = 0; i < self->nscheds; i++, doc->nscheds++) {
    const KrKernelSchedule *from = &self->scheds[i];
    KrKernelSchedule *to = &doc->scheds[i];
    *to = *from;
    to->kernel = strdup(from->kernel);
    to->lifted_text = malloc(from->lifted_len + 1);
    if (!to->kernel || !to->lifted_text) {
      free((char *)to->kernel), free(to->lifted_text);
      return false;
    }
    memcpy(to->lifted_text, from->lifted_text, from->lifted_len + 1);
    for (int k = 0; k < to->s.nstage; k++) to->s.stage[k] = to->stage_names[k];   /* they pointed into from */
  }
  for (size_t i = 0; i < self->ntexted; i++, doc->ntexted++)
    if (!(doc->texted[i] = strdup(self->texted[i]))) return false;
  return true;
}

KrDoc *kr_doc_copy(const KrDoc *self, KrDiags *diags) {
  KrDoc *doc = calloc(1, sizeof *doc);
  if (!doc) return NULL;
  doc->build = self->build;
  doc->passes = self->passes;
  if (load(doc, self->src.path, self->src.text, self->src.len, NULL, diags) != KR_OK ||
      !(doc->input_path = strdup(self->input_path)) || !copy_state(doc, self)) {
    kr_doc_free(doc);
    return NULL;
  }
  return doc;
}

const KrSource *kr_doc_source(const KrDoc *self) { return &self->src; }
const KrModel *kr_doc_model(const KrDoc *self) { return self->model; }

/* ---- Argument validation ------------------------------------------------------------------------- */

static bool parse_int(const char *s, long long *out) {
  char *end;
  long long v = strtoll(s, &end, 0);
  if (end == s || *end) return false;
  *out = v;
  return true;
}

static const char *param_list(const KrPass *p, KrArena *a) {
  if (p->nparams == 0) return "it takes no parameters";
  KrBuf b = {0};
  kr_buf_puts(&b, "valid parameters: ");
  for (size_t i = 0; i < p->nparams; i++)
    kr_buf_printf(&b, "%s%s (%s)", i ? ", " : "", p->params[i].name,
                  kr_param_type_name(p->params[i].type));
  char *s = kr_arena_strndup(a, b.data, b.len);
  kr_buf_free(&b);
  return s;
}

static bool in_choices(const char *choices, const char *s) {
  size_t n = strlen(s);
  for (const char *c = choices; *c;) {
    const char *bar = strchr(c, '|');
    size_t len = bar ? (size_t)(bar - c) : strlen(c);
    if (len == n && strncmp(c, s, n) == 0) return true;
    if (!bar) break;
    c = bar + 1;
  }
  return false;
}

/* What a value was, for messages: 2.5, true, the string "4". */
static const char *got(const KrRawScalar *r, KrArena *a) {
  if (r->kind == KR_RAW_STRING) return kr_arena_printf(a, "the string \"%s\"", r->text);
  return r->text;
}

/* Converts one scalar to the parameter's type; returns an error message or NULL. A value out of
 * range is the recipe's mistake, not a kernel the pass does not fit, so it is an error here,
 * before check() runs, and k:try raises it like k:apply. */
static const char *set_scalar(const KrParamSpec *s, const KrRawScalar *r, KrValue *v, KrArena *a) {
  long long i;
  switch (s->type) {
  case KR_PARAM_INT:
  case KR_PARAM_INTS:
    if (r->kind != KR_RAW_INT || !parse_int(r->text, &i))
      return kr_arena_printf(a, "must be an integer, got %s", got(r, a));
    if (s->min < s->max && (i < s->min || i > s->max))
      return kr_arena_printf(a, "must be in [%lld, %lld], got %lld", s->min, s->max, i);
    if (s->choices && !in_choices(s->choices, kr_arena_printf(a, "%lld", i)))
      return kr_arena_printf(a, "must be one of %s, got %lld", s->choices, i);
    if (s->type == KR_PARAM_INT) v->i = i;
    else kr_vec_push(a, &v->ints, i);
    return NULL;
  case KR_PARAM_BOOL:
    if (r->kind != KR_RAW_BOOL) return kr_arena_printf(a, "must be true or false, got %s", got(r, a));
    v->i = strcmp(r->text, "true") == 0;
    return NULL;
  case KR_PARAM_STRING:
    if (r->kind != KR_RAW_STRING) return kr_arena_printf(a, "must be a string, got %s", got(r, a));
    if (s->choices && !in_choices(s->choices, r->text))
      return kr_arena_printf(a, "must be one of %s, got '%s'", s->choices, r->text);
    v->s = kr_arena_strdup(a, r->text);
    return NULL;
  case KR_PARAM_NAMES:
    if (r->kind != KR_RAW_STRING) return kr_arena_printf(a, "must be names (strings), got %s", got(r, a));
    kr_vec_push(a, &v->names, kr_arena_strdup(a, r->text));
    return NULL;
  }
  return "unknown parameter type";
}

static const char *set_value(const KrParamSpec *s, const KrRawArg *r, KrValue *v, KrArena *a) {
  bool list_type = s->type == KR_PARAM_NAMES || s->type == KR_PARAM_INTS;
  if (r->is_list && !list_type)
    return kr_arena_printf(a, "must be a single %s, got a list", kr_param_type_name(s->type));
  if (!r->is_list && r->items.len != 1) return "must have a value";
  for (size_t i = 0; i < r->items.len; i++) {
    const char *err = set_scalar(s, &r->items.data[i], v, a);
    if (err) return err;
  }
  return NULL;
}

/* Parses a default written in recipe syntax: "4", "true", "all"/"{}" (empty list), "fp32". */
static void set_default(const KrParamSpec *s, KrValue *v, KrArena *a) {
  const char *d = s->def;
  if (s->type == KR_PARAM_INT) parse_int(d, &v->i);
  else if (s->type == KR_PARAM_BOOL) v->i = strcmp(d, "true") == 0;
  else if (s->type == KR_PARAM_STRING) v->s = kr_arena_strdup(a, d);
  else if (s->type == KR_PARAM_INTS) {
    long long i;
    for (const char *p = d; *p; p++)
      if ((*p >= '0' && *p <= '9') && (p == d || !(p[-1] >= '0' && p[-1] <= '9'))) {
        if (parse_int(kr_arena_strndup(a, p, strspn(p, "0123456789")), &i)) kr_vec_push(a, &v->ints, i);
      }
  }
}

KrStatus kr_pass_validate(const KrPass *p, const KrRawArgs *raw, KrArena *arena, KrValue **out,
                          KrDiags *diags) {
  KrValue *v = kr_arena_alloc(arena, (p->nparams ? p->nparams : 1) * sizeof *v);
  for (size_t i = 0; i < p->nparams; i++) v[i].type = p->params[i].type;
  for (size_t k = 0; raw && k < raw->len; k++) {
    const KrRawArg *r = &raw->data[k];
    size_t i = 0;
    while (i < p->nparams && strcmp(p->params[i].name, r->key) != 0) i++;
    if (i == p->nparams) {
      const char **names = kr_arena_alloc(arena, (p->nparams + 1) * sizeof *names);
      for (size_t j = 0; j < p->nparams; j++) names[j] = p->params[j].name;
      const char *near = kr_pass_suggest(r->key, names);
      kr_diag_pos(diags, KR_DIAG_ERROR, NULL, 0, 0, "pass '%s' has no parameter '%s'%s; %s",
                  p->name, r->key,
                  near ? kr_arena_printf(arena, " (did you mean '%s'?)", near) : "",
                  param_list(p, arena));
      return KR_ERR;
    }
    const char *err = set_value(&p->params[i], r, &v[i], arena);
    if (err) {
      kr_diag_pos(diags, KR_DIAG_ERROR, NULL, 0, 0, "parameter '%s' of %s %s", r->key, p->name,
                  err);
      return KR_ERR;
    }
    v[i].given = true;
  }
  for (size_t i = 0; i < p->nparams; i++) {
    if (v[i].given) continue;
    if (!p->params[i].def) {
      kr_diag_pos(diags, KR_DIAG_ERROR, NULL, 0, 0, "pass '%s' needs parameter '%s' (%s)",
                  p->name, p->params[i].name, p->params[i].doc);
      return KR_ERR;
    }
    set_default(&p->params[i], &v[i], arena);
  }
  *out = v;
  return KR_OK;
}

/* The arguments as a JSON object: all of them (defaults filled in), or only those the recipe
 * gave, which is what replay passes back so that KrValue.given is the same as in the run. */
static void params_json(const KrPass *p, const KrValue *v, bool only_given, KrBuf *o) {
  kr_buf_putc(o, '{');
  bool first = true;
  for (size_t i = 0; i < p->nparams; i++) {
    if (only_given && !v[i].given) continue;
    if (!first) kr_buf_puts(o, ", ");
    first = false;
    kr_buf_printf(o, "\"%s\": ", p->params[i].name);
    const KrValue *x = &v[i];
    switch (x->type) {
    case KR_PARAM_INT: kr_buf_printf(o, "%lld", x->i); break;
    case KR_PARAM_BOOL: kr_buf_puts(o, x->i ? "true" : "false"); break;
    case KR_PARAM_STRING: kr_buf_json_string(o, x->s, strlen(x->s)); break;
    case KR_PARAM_NAMES:
      kr_buf_putc(o, '[');
      for (size_t k = 0; k < x->names.len; k++) {
        if (k) kr_buf_puts(o, ", ");
        kr_buf_json_string(o, x->names.data[k], strlen(x->names.data[k]));
      }
      kr_buf_putc(o, ']');
      break;
    case KR_PARAM_INTS:
      kr_buf_putc(o, '[');
      for (size_t k = 0; k < x->ints.len; k++) kr_buf_printf(o, "%s%lld", k ? ", " : "", x->ints.data[k]);
      kr_buf_putc(o, ']');
      break;
    }
  }
  kr_buf_putc(o, '}');
}

/* ---- Applying edits ------------------------------------------------------------------------------ */

static int edit_cmp(const void *a, const void *b) {
  const KrEdit *x = a, *y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return x->end < y->end ? -1 : x->end > y->end;
}

/* Applies sorted, non-overlapping edits to src. Returns KR_ERR (with a message naming both
 * edits) when two edits overlap. */
static KrStatus apply_edits(const KrSource *src, KrEdit *e, size_t n, const char *pass, KrBuf *o,
                            KrDiags *diags) {
  qsort(e, n, sizeof *e, edit_cmp);
  uint32_t at = 0;
  for (size_t i = 0; i < n; i++) {
    if (e[i].start < at || e[i].end > src->len || e[i].start > e[i].end) {
      kr_diag_at(diags, KR_DIAG_ERROR, src, e[i].start,
                 "pass '%s' produced overlapping or invalid edits (bytes %u-%u); this is a bug "
                 "in the pass", pass, e[i].start, e[i].end);
      return KR_ERR;
    }
    kr_buf_append(o, src->text + at, e[i].start - at);
    kr_buf_puts(o, e[i].text);
    at = e[i].end;
  }
  kr_buf_append(o, src->text + at, src->len - at);
  return KR_OK;
}

/* ---- Running a pass ------------------------------------------------------------------------------ */

static KrStatus find_kernel(KrDoc *doc, const KrPass *p, const char *kernel, const KrKernel **k,
                            KrArena *a, KrDiags *diags) {
  *k = kr_model_find_launch(doc->model, kernel);   /* "mm<float>": its explicit specialization, else mm */
  if (*k) return KR_OK;
  kr_diag_pos(diags, KR_DIAG_ERROR, doc->src.path, 0, 0,
              "pass '%s': no kernel '%s' in this file (kernels here: %s)", p->name, kernel,
              kr_model_kernel_names(doc->model, a));
  return KR_ERR;
}

static void take_record(KrPassCtx *cx, const KrValue *v, const KrBuf *after, KrArena *ra,
                        KrPassRecord *rec) {
  KrBuf pj = {0}, gj = {0};
  params_json(cx->pass, v, false, &pj);
  params_json(cx->pass, v, true, &gj);
  memset(rec, 0, sizeof *rec);
  rec->pass = cx->pass->name;
  rec->kernel = kr_arena_strdup(ra, cx->kernel->qualified_name);
  rec->params_json = kr_arena_strndup(ra, pj.data, pj.len);
  rec->given_json = kr_arena_strndup(ra, gj.data, gj.len);
  kr_buf_free(&pj);
  kr_buf_free(&gj);
  rec->precision = cx->precision;
  rec->tolerance = cx->tolerance ? kr_arena_strdup(ra, cx->tolerance) : cx->pass->tolerance;
  if (cx->pass->assumptions) kr_vec_push(ra, &rec->assumptions, cx->pass->assumptions);
  for (size_t i = 0; i < cx->assumptions.len; i++)
    kr_vec_push(ra, &rec->assumptions, kr_arena_strdup(ra, cx->assumptions.data[i]));
  for (size_t i = 0; i < cx->aligned.len; i++) {
    KrAligned al = {kr_arena_strdup(ra, cx->aligned.data[i].param), cx->aligned.data[i].bytes};
    kr_vec_push(ra, &rec->aligned, al);
  }
  for (size_t i = 0; i < cx->edits.len; i++) {
    KrEdit e = cx->edits.data[i];
    e.text = kr_arena_strdup(ra, e.text);
    kr_vec_push(ra, &rec->edits, e);
  }
  rec->before = kr_arena_strndup(ra, cx->src->text, cx->src->len);
  rec->before_len = cx->src->len;
  rec->after = kr_arena_strndup(ra, after->data ? after->data : "", after->len);
  rec->after_len = (uint32_t)after->len;
  if (cx->schedule) {
    KrBuf sj = {0};
    kr_schedule_json(cx->schedule, &sj);
    rec->schedule_json = kr_arena_strndup(ra, sj.data, sj.len);
    kr_buf_free(&sj);
  }
  const char **l[8] = {&rec->launch.grid, &rec->launch.block, &rec->launch.shmem, &rec->launch.workspace,
                       &rec->launch.args, &rec->launch.drops, &rec->launch.borrows, &rec->launch.fills};
  const char *c[8] = {cx->launch.grid, cx->launch.block, cx->launch.shmem, cx->launch.workspace, cx->launch.args,
                      cx->launch.drops, cx->launch.borrows, cx->launch.fills};
  for (int i = 0; i < 8; i++) *l[i] = c[i] ? kr_arena_strdup(ra, c[i]) : NULL;
}

/* Re-parses the rewritten text; a pass whose output does not parse has a bug, reported with the
 * syntax errors found in its output. */
static KrStatus reload(KrDoc *doc, const KrPass *p, const KrBuf *text, KrDiags *diags) {
  KrDoc next = {.build = doc->build};
  KrDiags *tmp = kr_diags_new();
  /* Later diagnostics point into the rewritten text, so its name says which text that is. */
  char label[4096];
  snprintf(label, sizeof label, "%s (after pass %u, %s)", doc->input_path, doc->passes + 1, p->name);
  KrStatus st = load(&next, label, text->data ? text->data : "", text->len, doc, tmp);
  if (st != KR_OK) {
    kr_diag_pos(diags, KR_DIAG_ERROR, doc->src.path, 0, 0,
                "pass '%s' produced text that does not parse; this is a bug in the pass", p->name);
    for (size_t i = 0; i < tmp->items.len; i++) {
      const KrDiag *d = &tmp->items.data[i];
      kr_diag_pos(diags, KR_DIAG_NOTE, d->path, d->line, d->col, "in the pass output: %s", d->message);
    }
    unload(&next);
  } else {
    unload(doc);
    next.input_path = doc->input_path;
    next.passes = doc->passes + 1;
    next.scheds = doc->scheds, next.nscheds = doc->nscheds;
    next.texted = doc->texted, next.ntexted = doc->ntexted;
    *doc = next;
    doc->tree->src = &doc->src; /* the tree was built against `next`'s source, now moved */
  }
  kr_diags_free(tmp);
  return st;
}

/* ---- Schedule passes ----------------------------------------------------------------------------- */

static KrKernelSchedule *sched_of(KrDoc *doc, const char *kernel) {
  for (size_t i = 0; i < doc->nscheds; i++)
    if (strcmp(doc->scheds[i].kernel, kernel) == 0) return &doc->scheds[i];
  return NULL;
}

static bool texted(const KrDoc *doc, const char *kernel) {
  for (size_t i = 0; i < doc->ntexted; i++)
    if (strcmp(doc->texted[i], kernel) == 0) return true;
  return false;
}

static void mark_texted(KrDoc *doc, const char *kernel) {
  if (texted(doc, kernel)) return;
  char **grown = realloc(doc->texted, (doc->ntexted + 1) * sizeof *grown);
  if (!grown) return;
  doc->texted = grown;
  doc->texted[doc->ntexted++] = strdup(kernel);
}

/* What a schedule pass works on, kept alive for the pass's run. */
typedef struct Lifted {
  KrSource src;
  KrTree *tree;
  KrModel *model;
  KrSchedule s;             /* the working copy the pass updates */
} Lifted;

/* Sets cx->nest, nest_tree and schedule for a schedule pass: the kernel's text as first lifted
 * (taken now if this is its first schedule pass) and its schedule so far. KR_SKIP when the nest
 * cannot be read; KR_ERR when a text pass already changed the kernel. */
static KrStatus lift(KrDoc *doc, KrPassCtx *cx, Lifted *lf, KrDiags *diags) {
  const char *name = cx->kernel->qualified_name;
  KrKernelSchedule *ks = sched_of(doc, name);
  if (!ks && texted(doc, name)) {
    kr_diag_at(diags, KR_DIAG_ERROR, &doc->src, ts_node_start_byte(cx->kernel->node),
               "schedule pass '%s' comes after a text pass that changed kernel '%s'; apply the "
               "schedule passes of a kernel first, then the text passes", cx->pass->name, name);
    return KR_ERR;
  }
  const char *text = ks ? ks->lifted_text : doc->src.text;
  size_t len = ks ? ks->lifted_len : doc->src.len;
  KrDiags *tmp = kr_diags_new();
  KrStatus st = KR_SKIP;
  if (kr_source_from_text(&lf->src, doc->input_path, text, len, cx->arena, tmp) != KR_OK ||
      (kr_source_use(&lf->src, doc->build), !(lf->tree = kr_tree_parse(&lf->src, tmp))))
    goto done;
  lf->model = kr_model_new(lf->tree, cx->arena);
  const KrKernel *k = kr_model_find(lf->model, name);
  const KrNest *n = k && !cx->pass->rows ? kr_nest_lift(lf->tree, k, cx->arena, tmp) : NULL;
  const KrRows *r = k && cx->pass->rows ? kr_rows_lift(lf->tree, k, cx->arena, tmp) : NULL;
  if (!n && !r) {
    const char *why = kr_diags_first_error(tmp);
    /* At the construct the lift names, when the text lifted is the document's own (this kernel's
     * first schedule pass); else at the kernel, as the construct is in the text first lifted. */
    uint32_t at = ts_node_start_byte(cx->kernel->node);
    if (!ks) at = kr_source_first_error_at(&doc->src, tmp, at);
    st = kr_pass_skip(cx, at, "%s", why ? why : "the kernel cannot be lifted");
    goto done;
  }
  cx->nest = n;
  cx->rows = r;
  cx->nest_tree = lf->tree;
  for (size_t i = 0; n && !ks && i < n->axes.len; i++) {   /* the kernel's own text: its thread maps */
    const KrNestAxis *x = &n->axes.data[i];
    if (x->kind == KR_AXIS_PARALLEL && x->dim >= 0 && x->block && strncmp(x->block, "blockDim.", 9) != 0)
      kr_pass_assume(cx, "%s: the original is launched with blockDim.%c == %s, the block size the thread map of '%s' "
                         "fixes (the rewrite covers '%s' whatever its launch's block)", cx->pass->name, "xyz"[x->dim],
                     x->block, x->name, x->name);
  }
  if (ks) lf->s = ks->s;
  else lf->s = (KrSchedule){.tm = 1, .tn = 1, .stages = 1};
  cx->schedule = &lf->s;
  st = KR_OK;
done:
  kr_diags_free(tmp);
  return st;
}

/* Keeps the schedule a pass built, and the lifted text on the kernel's first schedule pass. */
static void keep_schedule(KrDoc *doc, const KrPassCtx *cx, const char *text, size_t len) {
  const char *name = cx->kernel->qualified_name;
  KrKernelSchedule *ks = sched_of(doc, name);
  if (!ks) {
    KrKernelSchedule *grown = realloc(doc->scheds, (doc->nscheds + 1) * sizeof *grown);
    if (!grown) return;
    doc->scheds = grown;
    ks = &doc->scheds[doc->nscheds++];
    memset(ks, 0, sizeof *ks);
    ks->kernel = strdup(name);
    ks->lifted_text = malloc(len + 1);
    memcpy(ks->lifted_text, text, len);
    ks->lifted_text[len] = 0;
    ks->lifted_len = len;
  }
  char names[KR_SCHED_MAX_STAGE][64];   /* the stage names may point into ks itself */
  for (int i = 0; i < cx->schedule->nstage; i++) snprintf(names[i], sizeof names[i], "%s", cx->schedule->stage[i]);
  ks->s = *cx->schedule;
  for (int i = 0; i < ks->s.nstage; i++) {
    memcpy(ks->stage_names[i], names[i], sizeof names[i]);
    ks->s.stage[i] = ks->stage_names[i];
  }
}

KrStatus kr_doc_run_pass(KrDoc *doc, const KrPass *p, const char *kernel, const KrRawArgs *raw,
                         bool allow_lowering, KrArena *rec_arena, KrPassRecord *rec,
                         KrDiags *diags) {
  KrArena *scratch = kr_arena_new();
  KrStatus st = KR_ERR;
  KrBuf out = {0};
  Lifted lf = {0};
  KrPassCtx cx = {.pass = p, .src = &doc->src, .tree = doc->tree, .model = doc->model,
                  .arena = scratch, .diag = diags, .allow_lowering = allow_lowering,
                  .precision = p->precision == KR_PRECISION_PARAM ? KR_PRECISION_EXACT : p->precision};
  KrValue *v;
  if (kr_pass_validate(p, raw, scratch, &v, diags) != KR_OK) goto done;
  cx.args = v;
  if (find_kernel(doc, p, kernel, &cx.kernel, scratch, diags) != KR_OK) goto done;
  cx.named = kernel;
  if (p->precision == KR_PRECISION_LOWERS && !allow_lowering) {
    kr_diag_pos(diags, KR_DIAG_ERROR, NULL, 0, 0,
                "pass '%s' lowers precision (tolerance %s) and the recipe has not opted in; call "
                "kr.allow_lowering() first", p->name, p->tolerance ? p->tolerance : "?");
    goto done;
  }
  if (p->schedule && (st = lift(doc, &cx, &lf, diags)) != KR_OK) goto done;
  st = p->check(&cx);
  if (st == KR_OK) st = p->apply(&cx);
  if (st == KR_OK && cx.precision == KR_PRECISION_LOWERS && !allow_lowering) {   /* a pass's parameters chose it */
    kr_diag_pos(diags, KR_DIAG_ERROR, NULL, 0, 0,
                "pass '%s' lowers precision here (tolerance %s) and the recipe has not opted in; call "
                "kr.allow_lowering() first", p->name, cx.tolerance ? cx.tolerance : "?");
    st = KR_ERR;
    goto done;
  }
  if (st == KR_OK && cx.edits.len == 0)
    st = kr_pass_skip(&cx, ts_node_start_byte(cx.kernel->node),
                      "pass '%s' found nothing to change in kernel '%s'", p->name, kernel);
  if (st != KR_OK) goto done;
  st = apply_edits(&doc->src, cx.edits.data, cx.edits.len, p->name, &out, diags);
  if (st != KR_OK) goto done;
  take_record(&cx, v, &out, rec_arena, rec);
  {
    char *before = p->schedule ? kr_arena_strndup(scratch, doc->src.text, doc->src.len) : NULL;
    size_t before_len = doc->src.len;
    const char *name = kr_arena_strdup(scratch, cx.kernel->qualified_name);
    st = reload(doc, p, &out, diags);
    if (st == KR_OK && p->schedule) {
      cx.kernel = &(KrKernel){.qualified_name = name};
      keep_schedule(doc, &cx, sched_of(doc, name) ? NULL : before, before_len);
    } else if (st == KR_OK && !(p->before_schedule && !sched_of(doc, name))) {
      mark_texted(doc, name);
    }
  }
done:
  if (lf.tree) kr_tree_free(lf.tree);
  kr_buf_free(&out);
  kr_arena_free(scratch);
  return st;
}
