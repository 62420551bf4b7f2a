/* search/candidate.h: a candidate made once (DESIGN.md, "Pipeline and folders"). A recipe file is
 * applied to a problem's source here, once, and the run it leaves (the rewritten text, the audit
 * record, each pass's launch changes and precision) is what verification, timing, the steps and the
 * profiler take (their `run` option); nothing in runtime/ applies a recipe. `krewrite verify`,
 * `bench`, `bench --steps`, `profile` and `optimize` make their candidates through this. */
#ifndef KR_CANDIDATE_H
#define KR_CANDIDATE_H

#include "recipes/recipe.h"
#include "runtime/spec.h"

/* Applies the recipe at `recipe_path` to the spec's source, with `opts` (-D values, limits; NULL:
 * the defaults) and the spec's build flags when opts gives none. On success *run holds the run
 * (free it with kr_recipe_run_free); a warning when none of its passes rewrote a kernel the spec
 * launches. KR_ERR, with the recipe's or the file's error in diags, otherwise. */
KrStatus kr_candidate_from_recipe(const KrSpec *spec, const char *recipe_path, const KrRecipeOptions *opts,
                                  KrArena *arena, KrRecipeRun **run, KrDiags *diags);

#endif
