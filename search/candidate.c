/* search/candidate.c: a candidate made once (search/candidate.h). */
#include "search/candidate.h"

#include "runtime/verify.h"

KrStatus kr_candidate_from_recipe(const KrSpec *spec, const char *recipe_path, const KrRecipeOptions *opts,
                                  KrArena *a, KrRecipeRun **run, KrDiags *d) {
  KrRecipeOptions ro;
  kr_recipe_options_init(&ro, a);
  if (opts) ro = *opts;
  if (!ro.build) ro.build = &spec->build;
  char *src, *recipe;
  size_t src_len, recipe_len;
  *run = NULL;
  if (kr_file_read(spec->source, a, &src, &src_len, d) != KR_OK ||
      kr_file_read(recipe_path, a, &recipe, &recipe_len, d) != KR_OK ||
      kr_recipe_apply(recipe_path, recipe, recipe_len, spec->source, src, src_len, &ro, run, d) != KR_OK) {
    *run = NULL;
    return KR_ERR;
  }
  kr_verify_warn_unlaunched(spec, *run, a, d);
  return KR_OK;
}
