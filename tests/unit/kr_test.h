/* tests/unit/kr_test.h: the fixture the analysis tests share: a text parsed without syntax
 * errors and its kernel model. Include after <cmocka.h>. */
#ifndef KR_TEST_H
#define KR_TEST_H

#include <string.h>

#include "frontend/model.h"

typedef struct KrTestDoc {
  KrArena *arena;
  KrDiags *diags;
  KrSource src;
  KrTree *tree;
  KrModel *model;
} KrTestDoc;

static inline void kr_test_parse(KrTestDoc *d, const char *text) {
  d->arena = kr_arena_new();
  d->diags = kr_diags_new();
  assert_int_equal(kr_source_from_text(&d->src, "t.cu", text, strlen(text), d->arena, d->diags),
                   KR_OK);
  d->tree = kr_tree_parse(&d->src, d->diags);
  assert_non_null(d->tree);
  assert_int_equal(d->diags->nerrors, 0);
  d->model = kr_model_new(d->tree, d->arena);
}

static inline void kr_test_free(KrTestDoc *d) {
  kr_tree_free(d->tree);
  kr_diags_free(d->diags);
  kr_arena_free(d->arena);
}

#endif
