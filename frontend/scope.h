/* frontend/scope.h: what a name inside a kernel refers to. Two views, one unit:
 *
 * - Resolution (kr_resolve): which declaration an identifier node refers to, by C++ block
 *   scoping: declarations earlier in an enclosing compound statement, a for loop's own
 *   initializer, a lambda's or the kernel's parameters. The affine forms, the read/write sets and
 *   the code builder's fresh names use it.
 * - The declaration table (KrScope): every name the kernel can see, by spelling: kernel and
 *   template parameters, locals of the kernel, file-scope variables and functions, macros and
 *   #undefs. Constant evaluation (consteval.h), types (types.h) and the loop analyses read it;
 *   a name declared more than once is ambiguous to them, never guessed.
 *
 *   KrScope *sc = kr_scope_new(tree, kernel, arena);
 *   const KrDecl *d = kr_scope_lookup(sc, "n");          // NULL: none, or declared twice
 *   if (kr_scope_name_used(sc, "tmp")) ...               // pick another fresh name
 *
 * Everything is allocated from the arena given to kr_scope_new; TSNode members are valid while
 * the tree is alive. The table is read-only once built. Nothing here prints or exits. */
#ifndef KR_SCOPE_H
#define KR_SCOPE_H

#include "frontend/model.h"
#include "frontend/types.h"

/* ---- Resolution ------------------------------------------------------------------------------ */
typedef enum {
  KR_BIND_NONE,    /* not declared in the kernel: a global, macro, builtin or template parameter */
  KR_BIND_PARAM,   /* a parameter of the kernel */
  KR_BIND_LOCAL,   /* a local declaration (including a for loop's initializer) */
  KR_BIND_LAMBDA,  /* a parameter of a lambda inside the kernel */
} KrBindKind;

typedef struct KrBinding {
  KrBindKind kind;
  TSNode decl;      /* the declaration / parameter_declaration; null for KR_BIND_NONE */
  TSNode name;      /* the identifier in the declarator; null for KR_BIND_NONE */
  TSNode value;     /* the initializer expression (init_declarator value), or null */
  int param;        /* the parameter's index for KR_BIND_PARAM, else -1 */
} KrBinding;

/* Resolves identifier `id` (an `identifier` node inside kernel k's body). */
KrBinding kr_resolve(const KrTree *tree, const KrKernel *k, TSNode id);
/* True when two bindings are the same declaration (and not both KR_BIND_NONE). */
bool kr_binding_same(KrBinding a, KrBinding b);
/* True when declaration `decl` declares name[0..len); fills b's decl, name and initializer. */
bool kr_declaration_declares(const KrTree *tree, TSNode decl, const char *name, size_t len,
                             KrBinding *b);
/* The identifier a declarator declares (through init/pointer/reference/array declarators), or a
 * null node. */
TSNode kr_declarator_name(const KrTree *tree, TSNode declarator);

/* ---- The declaration table ------------------------------------------------------------------- */
/* One declared name the kernel can see: a kernel or template parameter, a local of the kernel, or
 * a file-scope variable. */
typedef struct KrDecl {
  const char *name;
  const char *type;     /* the type as written, whitespace folded ("unsigned int") */
  KrType ty;
  bool is_const;        /* const or constexpr value (a pointer to const is not) */
  bool is_ref;          /* a reference declarator */
  bool is_memory;       /* static, __shared__, volatile or extern: others may change it */
  bool in_kernel;       /* declared in the kernel (parameters included) */
  bool is_param;        /* a kernel parameter */
  bool is_template;     /* a non-type template parameter of the kernel */
  TSNode value;         /* the initializer, or a null node */
  uint32_t at;
} KrDecl;

typedef struct KrMacro {
  const char *name;
  const char *body;     /* NULL for function-like macros */
  uint32_t at;
  bool conditional;     /* inside #if/#ifdef/#else */
} KrMacro;

typedef struct KrFunc {
  const char *name;
  TSNode params;        /* parameter_list */
  KrType ret;
} KrFunc;

struct KrScope {
  const KrTree *t;
  const KrKernel *k;
  KrArena *a;
  KrVec(KrDecl) decls;
  KrVec(KrMacro) macros;
  KrVec(const char *) undefs;
  KrVec(const char *) type_params;   /* template type parameter names: their types are unknown */
  KrVec(KrFunc) funcs;
};

KrScope *kr_scope_new(const KrTree *tree, const KrKernel *kernel, KrArena *arena);
/* The one declaration of `name`; NULL when there is none or more than one. */
const KrDecl *kr_scope_lookup(KrScope *self, const char *name);
/* True when the file #defines `name` (object-like or function-like, anywhere); *out is the one
 * definition, or NULL when there are several. */
bool kr_scope_macro(KrScope *self, const char *name, const KrMacro **out);
/* True when the file #undefs `name` somewhere. */
bool kr_scope_undefined(KrScope *self, const char *name);
/* True when the file #defines `name`. */
bool kr_scope_is_macro(KrScope *self, const char *name);
/* True when `name` occurs as an identifier (of any kind) or a macro name anywhere in the file:
 * a name for new code must not, or it could capture or be captured. */
bool kr_scope_name_used(KrScope *self, const char *name);
/* The same, not counting comments, string literals and the bodies of other functions (whose
 * locals the kernel cannot meet; a global or macro they use is declared outside them too): the
 * names a fresh name for this kernel must avoid (passes/build.h, kr_code_fresh). Macro bodies
 * count, since they are text the parser does not look into. */
bool kr_scope_name_in_code(KrScope *self, const char *name);
/* Could call `call` modify a variable passed bare as its argument number `i`? Unknown callees
 * could; functions of the file could when that parameter is a non-const reference; the CUDA and
 * C math functions take values. *callee names the function for messages. */
bool kr_scope_call_may_modify(KrScope *self, TSNode call, uint32_t i, const char **callee);
/* The identifier a declarator declares, counting pointer and array levels into *depth and
 * noting a reference declarator in *is_ref; *value (may be NULL) gets an initializer. */
TSNode kr_scope_declarator(KrScope *self, TSNode d, int *depth, bool *is_ref, TSNode *value);
/* True when declaration `decl` carries the qualifier or storage class `word` ("const"). */
bool kr_scope_has_word(KrScope *self, TSNode decl, const char *word);

#endif
