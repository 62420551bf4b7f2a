/* recipes/recipe_state.h: what the kr module's C functions share with recipe.c (private to
 * recipes/). */
#ifndef KR_RECIPE_STATE_H
#define KR_RECIPE_STATE_H

#include "recipes/recipe.h"

struct KrRecipeState {
  KrRecipeRun *run;
  KrDoc *doc;
};

/* Converts the Lua value at `idx` (nil or a table of parameters) to raw arguments, sorted by
 * name. Raises a Lua error naming the pass and the parameter on a value of the wrong shape. */
void kr__lua_raw_args(lua_State *L, int idx, const char *pass, KrArena *arena, KrRawArgs *out);
/* Joins the messages in diags into one line: "file:12:9: reason; file:14:3: reason". */
const char *kr__diags_join(const KrDiags *d, KrArena *arena);

#endif
