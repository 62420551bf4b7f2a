/* frontend/types.h: scalar types of kernel expressions, for the passes that must know whether an
 * expression is an integer, a float or a pointer (fast_math, vectorize, index_precompute, ldg).
 *
 *   KrScope *sc = kr_scope_new(tree, kernel, arena);
 *   KrType t = kr_type_of(sc, expr);
 *   if (t.cls == KR_TY_FLOAT && t.depth == 0) ...      // a float value
 *
 * Types come from the declarations the scope can see (parameters, locals, file-scope variables,
 * macros, CUDA built-ins, casts, literals, math functions); a name declared more than once with
 * different types, a template type parameter, or anything else unclear is KR_TY_UNKNOWN, and
 * callers must treat unknown as "do not touch". Nothing here prints or exits. */
#ifndef KR_TYPES_H
#define KR_TYPES_H

#include "frontend/model.h"

typedef struct KrScope KrScope;

/* Classes after the usual promotions: char/short/bool compute as int. LONG is a signed 64-bit
 * integer (long, long long, int64_t), ULONG an unsigned one (size_t, uint64_t). OTHER is a known
 * type that is none of these (half, structs, vectors used whole). */
typedef enum {
  KR_TY_UNKNOWN,
  KR_TY_INT,
  KR_TY_UINT,
  KR_TY_LONG,
  KR_TY_ULONG,
  KR_TY_FLOAT,
  KR_TY_DOUBLE,
  KR_TY_OTHER,
} KrTyClass;

typedef struct KrType {
  KrTyClass cls;  /* of the scalar (or of the element, for pointers and arrays) */
  int depth;      /* pointer or array levels above the scalar: 0 for a scalar value */
  bool vector;    /* a CUDA vector type (float4, uint3, dim3): .x/.y/.z/.w give cls */
} KrType;

bool kr_ty_is_integer(KrTyClass c);
/* The C spelling of an integer or floating class ("int", "unsigned int", "long long", "size_t",
 * "float", "double"); NULL for UNKNOWN and OTHER. */
const char *kr_ty_spelling(KrTyClass c);
/* The type a type name as written denotes, qualifiers and storage classes dropped ("const
 * unsigned int" is UINT, "float4" a FLOAT vector); depth is 0. UNKNOWN for anything else. */
KrType kr_type_of_name(const char *written);
/* The type of a name as the scope sees it: a CUDA built-in, a macro with a constant or literal
 * body, or every declaration of the name agreeing on one type. */
KrType kr_type_of_ident(KrScope *sc, const char *name);
/* The type of an expression of the scope's kernel. */
KrType kr_type_of(KrScope *sc, TSNode expr);
/* True for the names of functions that return float whatever their arguments (expf, __expf,
 * __int_as_float, …). */
bool kr_type_returns_float(const char *name);

/* ---- Types written as text ------------------------------------------------------------------- */
/* The pointee of a type written as text ("const float4 *" -> "float4"; *is_const tells whether
 * it is const); NULL when the text has no '*'. */
const char *kr_type_pointee_text(const char *ty, bool *is_const, KrArena *arena);
/* Could a type written as text be an integer type? Floating, half, bfloat16, fp8, bool and the
 * vector types (float4, int2, …) are not; unknown names (size_t, T, index_t) may be, which suits
 * callers that have other evidence of an integer (an affine initializer). */
bool kr_type_text_maybe_integer(const char *ty);
/* True when CUDA has an __ldg overload for the element type written `t` ("float4", "int"). */
bool kr_type_has_ldg(const char *t);
/* Template lists as the model keeps them (KrKernel.template_params "typename T, int BS",
 * KrLaunch.template_args "float, 128"): the index of the parameter named `name` (the identifier
 * that ends its entry, before a default; with type_only, a `typename` or `class` one only), or -1
 * (also for NULL params); and entry `index` of a launch's arguments, trimmed, or NULL (NULL args, a
 * negative index, past the end). Commas inside <> and () do not split entries. So the argument a
 * launch binds to T is kr_type_template_arg(args, kr_type_template_param(params, "T", …), arena). */
int kr_type_template_param(const char *params, const char *name, bool type_only);
const char *kr_type_template_arg(const char *args, int index, KrArena *arena);
/* A template list with its entries trimmed and joined by ", " ("float,128 " -> "float, 128"): the
 * spelling specialize gives a specialization's arguments, so that names compare as strings. */
const char *kr_type_template_args_normal(const char *args, KrArena *arena);
/* The type a name spelled through the file's aliases stands for: `#define real float`, `typedef
 * float real;`, `using real = float;` (at file scope, in namespaces and extern "C" blocks, followed
 * through chains of them); the name itself when it is none of those. */
const char *kr_type_unalias(const KrTree *tree, const char *name, KrArena *arena);

#endif
