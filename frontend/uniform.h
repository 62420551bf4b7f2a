/* frontend/uniform.h: is an expression the same for every thread of the launch? Passes that let
 * one thread do another thread's work (vectorize) or that stage data a whole block shares need
 * to know that the values they read do not depend on the thread.
 *
 *   KrUniform *u = kr_uniform_new(tree, kernel, arena);
 *   TSNode culprit;
 *   if (!kr_uniform(u, expr, &culprit)) ... culprit is the first construct that is not ...
 *
 * Conservative: literals, blockDim/gridDim, scalar parameters and globals never assigned in the
 * kernel, locals defined once from such values, loads from such addresses, arithmetic on them and
 * math functions of them are uniform. threadIdx, blockIdx, lambda parameters, anything assigned,
 * incremented or address-taken in the kernel, calls with no arguments (clock(),
 * __activemask()), warp operations and functions of this file are not.
 *
 * Allocated from the arena given to kr_uniform_new; nothing here prints or exits. */
#ifndef KR_UNIFORM_H
#define KR_UNIFORM_H

#include "frontend/scope.h"

typedef struct KrUniform KrUniform;

KrUniform *kr_uniform_new(const KrTree *tree, const KrKernel *kernel, KrArena *arena);
/* True when `expr` is uniform; on false *culprit (may be NULL) is the innermost construct that
 * is not. */
bool kr_uniform(KrUniform *self, TSNode expr, TSNode *culprit);
/* The same, with the variable of binding `varying` also taken to differ between threads (a
 * pass's element or lane variable). */
bool kr_uniform_except(KrUniform *self, TSNode expr, KrBinding varying, TSNode *culprit);
/* Warp and block collective operations (__syncthreads, __shfl_*, __ballot_sync, …), by name. */
bool kr_uniform_collective(const char *name);

#endif
