/* frontend/model_print.c: the kernel model as text (for people) and JSON (for tools), the two
 * forms of `krewrite kernels`. The JSON shape is documented in docs/cli.md. */
#include "frontend/model.h"

#include <string.h>

static const char *loop_kind_name(KrLoopKind k) {
  switch (k) {
  case KR_LOOP_FOR: return "for";
  case KR_LOOP_WHILE: return "while";
  case KR_LOOP_DO: return "do";
  default: return "range-for";
  }
}

/* ---- Text ---------------------------------------------------------------------------------------- */

static void text_kernel(const KrKernel *k, const char *path, KrBuf *o) {
  kr_buf_printf(o, "%s:%u:%u: kernel %s", path, k->line, k->col, k->qualified_name);
  if (k->is_template) kr_buf_printf(o, " template<%s>", k->template_params ? k->template_params : "");
  if (k->extern_c) kr_buf_puts(o, " extern \"C\"");
  if (k->launch_bounds) kr_buf_printf(o, " __launch_bounds__(%s)", k->launch_bounds);
  if (k->cluster_dims) kr_buf_printf(o, " __cluster_dims__(%s)", k->cluster_dims);
  kr_buf_putc(o, '\n');
  for (size_t i = 0; i < k->params.len; i++) {
    const KrParam *p = &k->params.data[i];
    kr_buf_printf(o, "  param %u %s: %s\n", p->index, *p->name ? p->name : "(unnamed)", p->type);
  }
  for (size_t i = 0; i < k->shared.len; i++) {
    const KrShared *s = &k->shared.data[i];
    kr_buf_printf(o, "  shared %s: %s%s%s (line %u)\n", s->name, s->type, s->dims,
                  s->is_extern ? ", extern dynamic" : "", s->line);
  }
  for (size_t i = 0; i < k->loops.len; i++) {
    const KrLoop *l = &k->loops.data[i];
    kr_buf_printf(o, "  loop %s at %u:%u depth %u", loop_kind_name(l->kind), l->line, l->col,
                  l->depth);
    if (l->var) kr_buf_printf(o, " var %s", l->var);
    if (l->cond) kr_buf_printf(o, " cond (%s)", l->cond);
    if (l->step) kr_buf_printf(o, " step (%s)", l->step);
    if (l->pragma) kr_buf_printf(o, " #pragma %s", l->pragma);
    kr_buf_putc(o, '\n');
  }
}

static void text_launch(const KrLaunch *l, const char *path, KrBuf *o) {
  kr_buf_printf(o, "%s:%u:%u: launch %s", path, l->line, l->col, l->kernel);
  if (l->template_args) kr_buf_printf(o, "<%s>", l->template_args);
  kr_buf_printf(o, " grid (%s) block (%s)", l->grid, l->block);
  if (l->shmem) kr_buf_printf(o, " shmem (%s)", l->shmem);
  if (l->stream) kr_buf_printf(o, " stream (%s)", l->stream);
  kr_buf_puts(o, " args (");
  for (size_t i = 0; i < l->args.len; i++) kr_buf_printf(o, "%s%s", i ? ", " : "", l->args.data[i]);
  kr_buf_putc(o, ')');
  if (l->in_function) kr_buf_printf(o, " in %s", l->in_function);
  kr_buf_putc(o, '\n');
}

void kr_model_text(const KrModel *self, KrBuf *out) {
  const char *path = self->tree->src->path;
  for (size_t i = 0; i < self->kernels.len; i++) text_kernel(&self->kernels.data[i], path, out);
  for (size_t i = 0; i < self->launches.len; i++) text_launch(&self->launches.data[i], path, out);
  if (self->kernels.len == 0 && self->launches.len == 0)
    kr_buf_printf(out, "%s: no kernels and no launches\n", path);
}

/* ---- JSON ---------------------------------------------------------------------------------------- */

static void jstr(KrBuf *o, const char *key, const char *v) {
  kr_buf_printf(o, "\"%s\": ", key);
  kr_buf_json_str(o, v);
}

static void jbool(KrBuf *o, const char *key, bool v) {
  kr_buf_printf(o, "\"%s\": %s", key, v ? "true" : "false");
}

static void json_param(const void *item, KrBuf *o) {
  const KrParam *p = item;
  kr_buf_puts(o, "{");
  jstr(o, "name", p->name), kr_buf_puts(o, ", ");
  jstr(o, "type", p->type), kr_buf_puts(o, ", ");
  jstr(o, "base", p->base), kr_buf_puts(o, ", ");
  kr_buf_printf(o, "\"pointer_depth\": %d, ", p->pointer_depth);
  jbool(o, "const", p->is_const), kr_buf_puts(o, ", ");
  jbool(o, "const_pointer", p->is_const_ptr), kr_buf_puts(o, ", ");
  jbool(o, "restrict", p->is_restrict), kr_buf_puts(o, ", ");
  kr_buf_printf(o, "\"line\": %u, \"col\": %u}", p->line, p->col);
}

static void json_shared(const void *item, KrBuf *o) {
  const KrShared *s = item;
  kr_buf_puts(o, "{");
  jstr(o, "name", s->name), kr_buf_puts(o, ", ");
  jstr(o, "type", s->type), kr_buf_puts(o, ", ");
  jstr(o, "dims", s->dims), kr_buf_puts(o, ", ");
  jbool(o, "extern", s->is_extern), kr_buf_puts(o, ", ");
  kr_buf_printf(o, "\"line\": %u, \"col\": %u}", s->line, s->col);
}

static void json_loop(const void *item, KrBuf *o) {
  const KrLoop *l = item;
  kr_buf_puts(o, "{");
  jstr(o, "kind", loop_kind_name(l->kind)), kr_buf_puts(o, ", ");
  kr_buf_printf(o, "\"depth\": %u, \"parent\": %d, ", l->depth, l->parent);
  jstr(o, "var", l->var), kr_buf_puts(o, ", ");
  jstr(o, "init", l->init), kr_buf_puts(o, ", ");
  jstr(o, "cond", l->cond), kr_buf_puts(o, ", ");
  jstr(o, "step", l->step), kr_buf_puts(o, ", ");
  jstr(o, "pragma", l->pragma), kr_buf_puts(o, ", ");
  kr_buf_printf(o, "\"line\": %u, \"col\": %u}", l->line, l->col);
}

typedef void (*JsonItem)(const void *item, KrBuf *o);

static void json_list(KrBuf *o, const void *data, size_t len, size_t size, JsonItem fn) {
  kr_buf_putc(o, '[');
  for (size_t i = 0; i < len; i++) {
    if (i) kr_buf_puts(o, ", ");
    fn((const char *)data + i * size, o);
  }
  kr_buf_putc(o, ']');
}

#define JSON_LIST(o, vec, fn) json_list(o, (vec).data, (vec).len, sizeof *(vec).data, fn)

static void json_kernel(const void *item, KrBuf *o) {
  const KrKernel *k = item;
  kr_buf_puts(o, "\n    {");
  jstr(o, "name", k->name), kr_buf_puts(o, ", ");
  jstr(o, "qualified_name", k->qualified_name), kr_buf_puts(o, ", ");
  jbool(o, "extern_c", k->extern_c), kr_buf_puts(o, ", ");
  jbool(o, "template", k->is_template), kr_buf_puts(o, ", ");
  jstr(o, "template_params", k->template_params), kr_buf_puts(o, ", ");
  jstr(o, "launch_bounds", k->launch_bounds), kr_buf_puts(o, ", ");
  kr_buf_printf(o, "\"line\": %u, \"col\": %u,\n     \"params\": ", k->line, k->col);
  JSON_LIST(o, k->params, json_param);
  kr_buf_puts(o, ",\n     \"shared\": ");
  JSON_LIST(o, k->shared, json_shared);
  kr_buf_puts(o, ",\n     \"loops\": ");
  JSON_LIST(o, k->loops, json_loop);
  kr_buf_puts(o, "}");
}

static void json_str_item(const void *item, KrBuf *o) {
  const char *s = *(const char *const *)item;
  kr_buf_json_string(o, s, strlen(s));
}

static void json_launch(const void *item, KrBuf *o) {
  const KrLaunch *l = item;
  kr_buf_puts(o, "\n    {");
  jstr(o, "kernel", l->kernel), kr_buf_puts(o, ", ");
  jstr(o, "template_args", l->template_args), kr_buf_puts(o, ", ");
  jstr(o, "grid", l->grid), kr_buf_puts(o, ", ");
  jstr(o, "block", l->block), kr_buf_puts(o, ", ");
  jstr(o, "shmem", l->shmem), kr_buf_puts(o, ", ");
  jstr(o, "stream", l->stream), kr_buf_puts(o, ", ");
  kr_buf_puts(o, "\"args\": ");
  JSON_LIST(o, l->args, json_str_item);
  kr_buf_puts(o, ", ");
  jstr(o, "in_function", l->in_function), kr_buf_puts(o, ", ");
  kr_buf_printf(o, "\"line\": %u, \"col\": %u}", l->line, l->col);
}

void kr_model_json(const KrModel *self, KrBuf *out) {
  const char *path = self->tree->src->path;
  kr_buf_puts(out, "{\n  ");
  jstr(out, "file", path);
  kr_buf_puts(out, ",\n  \"kernels\": ");
  JSON_LIST(out, self->kernels, json_kernel);
  kr_buf_puts(out, ",\n  \"launches\": ");
  JSON_LIST(out, self->launches, json_launch);
  kr_buf_puts(out, "\n}\n");
}
