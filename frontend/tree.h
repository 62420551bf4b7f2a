/* frontend/tree.h: a parsed CUDA file. The source text is the program; the tree-sitter tree is a
 * view of it (DESIGN.md, "Text is the IR"). Node types are compared by cached symbol id. */
#ifndef KR_TREE_H
#define KR_TREE_H

#include <tree_sitter/api.h>

#include "base/kr.h"

/* Symbol ids of the node types the front end and passes look at, resolved once per language. */
#define KR_SYMBOLS(X)                                                                             \
  X(translation_unit) X(function_definition) X(declaration) X(parameter_declaration)             \
  X(parameter_list) X(function_declarator) X(pointer_declarator) X(reference_declarator)         \
  X(array_declarator) X(init_declarator) X(identifier) X(field_identifier)                        \
  X(type_qualifier) X(storage_class_specifier) X(primitive_type) X(type_identifier)              \
  X(sized_type_specifier) X(template_declaration) X(template_function) X(template_argument_list) \
  X(linkage_specification) X(declaration_list) X(compound_statement) X(for_statement)            \
  X(while_statement) X(do_statement) X(for_range_loop) X(call_expression) X(kernel_call_syntax)  \
  X(argument_list) X(attribute_specifier) X(comment) X(preproc_def) X(preproc_function_def)      \
  X(preproc_call) X(preproc_if) X(preproc_ifdef) X(preproc_include) X(assignment_expression)     \
  X(update_expression) X(subscript_expression) X(pointer_expression) X(field_expression)         \
  X(cast_expression) X(binary_expression) X(unary_expression) X(parenthesized_expression)        \
  X(number_literal) X(qualified_identifier) X(expression_statement) X(if_statement)              \
  X(return_statement) X(lambda_expression) X(gnu_asm_expression) X(namespace_definition)         \
  X(struct_specifier) X(class_specifier) X(field_declaration_list) X(condition_clause)           \
  X(init_statement) X(comma_expression) X(conditional_expression) X(sizeof_expression)           \
  X(abstract_pointer_declarator) X(template_type) X(optional_parameter_declaration)              \
  X(variadic_parameter_declaration) X(ms_declspec_modifier) X(break_statement)                 \
  X(continue_statement) X(goto_statement) X(labeled_statement) X(case_statement)                 \
  X(switch_statement) X(char_literal) X(type_descriptor) X(template_parameter_list)              \
  X(type_parameter_declaration) X(optional_type_parameter_declaration)                           \
  X(variadic_type_parameter_declaration) X(initializer_list) X(preproc_else) X(preproc_elif)     \
  X(gnu_asm_output_operand) X(placeholder_type_specifier) X(parenthesized_declarator) X(ERROR)

/* Named node types whose names are C keywords, by field name and spelling. */
#define KR_NAMED_WORDS(X) X(lit_true, "true") X(lit_false, "false")

/* Anonymous tokens (keywords) by field name and spelling. */
#define KR_KEYWORDS(X)                                                                            \
  X(kw_global, "__global__") X(kw_device, "__device__") X(kw_host, "__host__")                  \
  X(kw_shared, "__shared__") X(kw_extern, "extern") X(kw_const, "const")                        \
  X(kw_restrict, "__restrict__") X(kw_static, "static") X(kw_constant, "__constant__")

typedef struct KrSyms {
#define KR_SYM_FIELD(n) TSSymbol n;
  KR_SYMBOLS(KR_SYM_FIELD)
#undef KR_SYM_FIELD
#define KR_KW_FIELD(n, s) TSSymbol n;
  KR_KEYWORDS(KR_KW_FIELD)
  KR_NAMED_WORDS(KR_KW_FIELD)
#undef KR_KW_FIELD
} KrSyms;

typedef struct KrTree {
  const KrSource *src;
  TSTree *ts;      /* owned */
  char *view;      /* owned: the text the parser saw (tree.c, "Grammar workarounds") */
  KrSyms sym;
  size_t preproc_errors;   /* unbalanced conditionals found before parsing (preproc.h), already reported */
} KrTree;

const TSLanguage *kr_cuda_language(void);

/* Parses `src` and reports every ERROR and MISSING node into `diags`. The tree is returned even
 * when it has errors (so `krewrite parse` can show it); NULL only if the parser itself fails.
 * `src` must outlive the tree. */
KrTree *kr_tree_parse(const KrSource *src, KrDiags *diags);
/* Parses `src`, a changed version of the text `old` was parsed from, reusing `old`'s tree for the
 * unchanged prefix and suffix (tree-sitter's incremental parsing). Reports syntax errors like
 * kr_tree_parse. `old` is left as it was. */
KrTree *kr_tree_reparse(const KrTree *old, const KrSource *src, KrDiags *diags);
void kr_tree_free(KrTree *self);
size_t kr_tree_report_errors(const KrTree *self, KrDiags *diags);

TSNode kr_tree_root(const KrTree *self);
/* Node text as a new arena string. */
char *kr_node_text(const KrTree *self, TSNode n, KrArena *arena);
bool kr_node_text_is(const KrTree *self, TSNode n, const char *s);
/* Node text with each run of blanks and newlines folded to one space, for one-line display and
 * comparison of expressions that span lines. */
char *kr_node_text_flat(const KrTree *self, TSNode n, KrArena *arena);
/* The S-expression of the tree, one node per line, indented, with positions. */
void kr_tree_sexp(const KrTree *self, KrBuf *out);
/* Iterating the named children of a node in linear time (ts_node_named_child(n, i) walks from
 * the first child each time, which is quadratic over a file's top level):
 *   KrChildren it;
 *   for (TSNode c = kr_children_first(&it, n); !ts_node_is_null(c); c = kr_children_next(&it))
 *   kr_children_end(&it);    -- also after breaking out early */
typedef struct KrChildren {
  TSTreeCursor cur;
} KrChildren;

TSNode kr_children_first(KrChildren *it, TSNode parent);
TSNode kr_children_next(KrChildren *it);
void kr_children_end(KrChildren *it);

/* ---- Small questions about nodes, shared by the analyses and the passes ---------------------- */
/* A child by field name (a null node when there is none). */
TSNode kr_node_field(TSNode n, const char *name);
/* `n` with redundant parentheses removed: ((x)) is x. A null node stays null. */
TSNode kr_node_strip_parens(const KrTree *self, TSNode n);
/* The operator token of a binary, unary, update, assignment or pointer expression as a new arena
 * string; "" when the node has none. */
char *kr_node_operator(const KrTree *self, TSNode n, KrArena *arena);
/* True when the node's operator token is `op`. */
bool kr_node_operator_is(const KrTree *self, TSNode n, const char *op);
/* The callee's name when it is a plain identifier (or a template function's name), else NULL. */
const char *kr_node_callee(const KrTree *self, TSNode call, KrArena *arena);
/* The definition of the function `name` in this file (outside function bodies), or null. */
TSNode kr_tree_function(const KrTree *self, const char *name);
/* Why a call of function `fn` (its definition in this file) could do more than compute a value from
 * its arguments: a barrier, an atomic, a warp intrinsic or fence, inline assembly, a store other than
 * to its own value parameters and locals, or a call of a function of the file that does one of these
 * (followed to a depth); NULL for a pure helper (`__device__ float gelu(float)`), which an analysis
 * may treat as an expression. *collective: the effect needs the block's or the warp's threads
 * together (a barrier, a warp intrinsic or fence, asm, a call not read), not only memory. */
const char *kr_tree_function_effect(const KrTree *self, TSNode fn, bool *collective, KrArena *arena);
/* `s[0..n)` with every run of blanks, newlines and line continuations folded to one space,
 * trimmed, for messages and type names as written. */
char *kr_text_fold(KrArena *arena, const char *s, size_t n);
/* True for the characters of a C identifier. */
bool kr_ident_char(char c);

/* True when `n` lies within `outer` (false for a null `outer`). */
bool kr_node_within(TSNode n, TSNode outer);

#endif
