/* runtime/emu_view.c: the emulator view of a .cu file, the text g++ compiles for the CPU emulator
 * (emu_internal.h). The source is parsed with the front end and changed by byte-range edits that
 * keep every line on its line, so g++'s line numbers are the .cu file's:
 *   - each k<<<…>>>(…) launch becomes ((void)0): host code is compiled, never run;
 *   - `extern __shared__ T name[];` becomes `T (*const &name) = kr_emu::dyn_smem<…>();`, a
 *     reference to the running launch's dynamic shared memory (valid at file scope too);
 *   - `__shared__ T name…;` becomes `typedef T kr_sh_name…; auto &name = kr_emu::shared_var<
 *     kr_sh_name, N>("name");` (`static` dropped): storage the memory checker gives each variable
 *     with a redzone around it, poisons for every block and knows by name (kr_emu_check.h); a
 *     __shared__ the tree does not show (from a macro) is static in the shim's checked section;
 *   - `__noinline__` is spelled __attribute__((noinline)) (as a macro it would break libstdc++);
 *   - an asm statement in __device__/__global__ code whose instructions the shim runs (mma.sync
 *     m16n8k8 tf32 and m16n8k16 f16/bf16, ldmatrix, cvt.rna.tf32.f32: kr_emu_ptx.h) becomes
 *     `kr_emu::ptx({{kr_emu::PTX_…, {operand numbers}}, …}, kr_emu::ptx_out<'f'>(d0), …,
 *     kr_emu::ptx_in<'r'>(a0), …)`, each operand's expression on its line; any other asm there is
 *     refused with a located error naming the instruction (asm in host code is left alone);
 *   - kernel launches in device code (dynamic parallelism) are refused with located errors;
 *   - with a host entry point (a spec's `entry`), the entry's body and those of the host functions
 *     it calls are kept, and each launch in kept host code becomes a call of kr_emu::host_launch
 *     (kr_emu_entry.h) that runs it through the child, its kernel exported like a spec's.
 * Then one KR_EMU_ENTRY per kernel name, each under a #line naming the kernel, so that a g++
 * error there reads as being about that kernel, and a KR_EMU_CLUSTER with the arguments of its
 * __cluster_dims__ for a kernel that has them (its launches run cluster by cluster). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frontend/model.h"
#include "runtime/emu_internal.h"

typedef struct Edit {
  uint32_t start, end;
  const char *text;
} Edit;

typedef struct View {
  const KrTree *t;
  const KrSyms *s;
  const KrSource *src;
  KrArena *a;
  KrDiags *diags;
  KrVec(Edit) edits;
  size_t errors;
  uint32_t nshared;         /* static __shared__ variables so far: each gets its own number */
  TSSymbol string_literal, concatenated_string, escape_sequence;   /* asm text's (not in KrSyms) */
  KrSpan *drop;             /* host function bodies left out (kr_model_host_bodies): no edit inside */
  KrVec(KrSpan) gpu_only;   /* #ifndef KR_CUDA_EMULATOR blocks, blanked (gpu_only_regions) */
  size_t ndrop;
} View;

static void edit(View *v, uint32_t start, uint32_t end, const char *text) {
  for (size_t i = 0; i < v->ndrop; i++)
    if (start >= v->drop[i].start && end <= v->drop[i].end && !(start == v->drop[i].start && end == v->drop[i].end))
      return;   /* inside a body that is left out */
  Edit e = {start, end, text};
  kr_vec_push(v->a, &v->edits, e);
}

/* As many newlines as the source's [start, end) holds. */
static void put_newlines(View *v, KrBuf *b, uint32_t start, uint32_t end) {
  for (uint32_t i = start; i < end; i++)
    if (v->src->text[i] == '\n') kr_buf_putc(b, '\n');
}

/* `repl` followed by as many newlines as [start, end) holds, so the lines after stay in place. */
static const char *keep_lines(View *v, uint32_t start, uint32_t end, const char *repl) {
  KrBuf b = {0};
  kr_buf_puts(&b, repl);
  put_newlines(v, &b, start, end);
  char *s = kr_arena_strndup(v->a, b.data, b.len);
  kr_buf_free(&b);
  return s;
}

/* Blanks [start, end), newlines kept. */
static void blank(View *v, uint32_t start, uint32_t end) {
  char *s = kr_arena_alloc(v->a, end - start + 1);
  for (uint32_t i = start; i < end; i++) s[i - start] = v->src->text[i] == '\n' ? '\n' : ' ';
  edit(v, start, end, s);
}

static TSSymbol named_symbol(const char *name) {
  return ts_language_symbol_for_name(kr_cuda_language(), name, (uint32_t)strlen(name), true);
}

/* ---- Shared memory -------------------------------------------------------------------------------- */

static TSNode child_spelled(View *v, TSNode n, TSSymbol sym, const char *word) {
  uint32_t k = ts_node_child_count(n);
  for (uint32_t i = 0; i < k; i++) {
    TSNode c = ts_node_child(n, i);
    if (ts_node_symbol(c) == sym && kr_node_text_is(v->t, c, word)) return c;
  }
  return (TSNode){0};
}

/* One declarator of an extern __shared__ declaration: name[] -> (*const &name) = dyn_smem(). */
static void rewrite_dynamic(View *v, TSNode d) {
  TSNode innermost = {0}, name = {0};
  for (TSNode n = d; !ts_node_is_null(n);) {
    TSSymbol sym = ts_node_symbol(n);
    if (sym == v->s->identifier) {
      name = n;
      break;
    }
    if (sym == v->s->array_declarator) innermost = n;
    else if (ts_node_named_child_count(n) == 0) break;
    TSNode next = ts_node_child_by_field_name(n, "declarator", 10);
    n = ts_node_is_null(next) ? ts_node_named_child(n, 0) : next;
  }
  if (ts_node_is_null(innermost) || ts_node_is_null(name)) {
    kr_diag_at(v->diags, KR_DIAG_ERROR, v->src, ts_node_start_byte(d),
               "extern __shared__ declaration is not an array: the CPU emulator supports "
               "`extern __shared__ T name[];`");
    v->errors++;
    return;
  }
  const char *id = kr_node_text(v->t, name, v->a);
  edit(v, ts_node_start_byte(innermost), ts_node_end_byte(innermost),
       keep_lines(v, ts_node_start_byte(innermost), ts_node_end_byte(innermost),
                  kr_arena_printf(v->a, "(*const &%s)", id)));
  uint32_t end = ts_node_end_byte(d);
  edit(v, end, end, kr_arena_printf(v->a, " = kr_emu::dyn_smem<decltype(%s)>()", id));
}

/* The identifier a declarator declares (through arrays and pointers), or a null node. */
static TSNode declared_name(View *v, TSNode d) {
  for (TSNode n = d; !ts_node_is_null(n);) {
    if (ts_node_symbol(n) == v->s->identifier) return n;
    if (ts_node_named_child_count(n) == 0) break;
    TSNode next = ts_node_child_by_field_name(n, "declarator", 10);
    n = ts_node_is_null(next) ? ts_node_named_child(n, 0) : next;
  }
  return (TSNode){0};
}

static bool in_function(TSNode n, TSSymbol function_definition) {
  for (TSNode p = ts_node_parent(n); !ts_node_is_null(p); p = ts_node_parent(p))
    if (ts_node_symbol(p) == function_definition) return true;
  return false;
}

/* `[static] __shared__ T a[4], b;` -> `typedef T kr_sh_a[4], kr_sh_b; auto &a = …; auto &b = …;`
 * on the same line (static at namespace scope, where the references are initialised at load). */
static void rewrite_static(View *v, TSNode decl, TSNode shared) {
  TSNode st = child_spelled(v, decl, v->s->storage_class_specifier, "static");
  if (!ts_node_is_null(st)) blank(v, ts_node_start_byte(st), ts_node_end_byte(st));
  edit(v, ts_node_start_byte(shared), ts_node_end_byte(shared), "typedef");
  const char *storage = in_function(decl, v->s->function_definition) ? "" : "static ";
  KrBuf refs = {0};
  uint32_t k = ts_node_child_count(decl);
  for (uint32_t i = 0; i < k; i++) {
    const char *f = ts_node_field_name_for_child(decl, i);
    TSNode name = f && strcmp(f, "declarator") == 0 ? declared_name(v, ts_node_child(decl, i)) : (TSNode){0};
    if (ts_node_is_null(name)) continue;
    const char *id = kr_node_text(v->t, name, v->a);
    edit(v, ts_node_start_byte(name), ts_node_end_byte(name), kr_arena_printf(v->a, "kr_sh_%s", id));
    kr_buf_printf(&refs, " %sauto &%s = kr_emu::shared_var<kr_sh_%s, %u>(\"%s\");", storage, id, id,
                  v->nshared++, id);
  }
  uint32_t end = ts_node_end_byte(decl);
  if (refs.len) edit(v, end, end, kr_arena_strndup(v->a, refs.data, refs.len));
  kr_buf_free(&refs);
}

static void rewrite_shared(View *v, TSNode decl) {
  TSNode shared = child_spelled(v, decl, v->s->type_qualifier, "__shared__");
  if (ts_node_is_null(shared)) return;
  TSNode ext = child_spelled(v, decl, v->s->storage_class_specifier, "extern");
  if (ts_node_is_null(ext)) {
    rewrite_static(v, decl, shared);
    return;
  }
  blank(v, ts_node_start_byte(ext), ts_node_end_byte(ext));
  blank(v, ts_node_start_byte(shared), ts_node_end_byte(shared));
  uint32_t k = ts_node_child_count(decl);
  for (uint32_t i = 0; i < k; i++) {
    const char *f = ts_node_field_name_for_child(decl, i);
    if (f && strcmp(f, "declarator") == 0) rewrite_dynamic(v, ts_node_child(decl, i));
  }
}

/* ---- Inline PTX ------------------------------------------------------------------------------------- */

/* Is `n` inside device code: a __device__ or __global__ function, or a __device__ lambda? */

/* One operand of an asm statement, in GCC's order (outputs first): its constraint's register
 * letter (r, l, f, d, h, n: the ones nvcc takes), whether it is an output ("=", or "+" when the
 * asm reads it too), and its expression. */
typedef struct AsmOperand {
  char letter;
  bool out, read;
  TSNode value;
} AsmOperand;

enum { KR_ASM_MAX_OPERANDS = 160 };   /* GCC's limit is 30; nvcc takes more (wgmma's 128 accumulators and its inputs) */

typedef struct Asm {
  TSNode node;
  long literal;           /* the last integer literal operand read (wgmma.wait_group's n) */
  AsmOperand ops[KR_ASM_MAX_OPERANDS];
  int nops, nout;
  KrBuf code;             /* the instructions, as kr_emu::PtxInstr initializers */
  const char *why;        /* the first reason it cannot run, for the diagnostic */
} Asm;

/* The instructions the emulator runs (runtime/emu/kr_emu_ptx.h): the opcode (ldmatrix's qualifiers
 * in this order, see ldmatrix_name), its kr_emu::PtxOp, and its operands in order: Dn a braced list
 * of n registers it writes, Sn one it reads, d and s a single register, a an address [%N], l a 64-bit
 * register it reads, i an integer literal, 1 and 0 those literals. wgmma.mma_async's forms, one per width,
 * are made by wgmma_form. */
static const struct PtxForm {
  const char *opcode, *op, *operands;
  int nd;   /* wgmma: its accumulators */
} kPtxForms[] = {
  {"mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", "PTX_MMA_M16N8K8_TF32", "D4 S4 S2 S4", 0},
  {"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "PTX_MMA_M16N8K16_F16", "D4 S4 S2 S4", 0},
  {"mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "PTX_MMA_M16N8K16_BF16", "D4 S4 S2 S4", 0},
  {"ldmatrix.sync.aligned.m8n8.x1.shared.b16", "PTX_LDMATRIX_X1", "D1 a", 0},
  {"ldmatrix.sync.aligned.m8n8.x2.shared.b16", "PTX_LDMATRIX_X2", "D2 a", 0},
  {"ldmatrix.sync.aligned.m8n8.x4.shared.b16", "PTX_LDMATRIX_X4", "D4 a", 0},
  {"ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16", "PTX_LDMATRIX_X1_TRANS", "D1 a", 0},
  {"ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16", "PTX_LDMATRIX_X2_TRANS", "D2 a", 0},
  {"ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16", "PTX_LDMATRIX_X4_TRANS", "D4 a", 0},
  {"cvt.rna.tf32.f32", "PTX_CVT_RNA_TF32_F32", "d s", 0},
  {"wgmma.fence.sync.aligned", "PTX_WGMMA_FENCE", "", 0},
  {"wgmma.commit_group.sync.aligned", "PTX_WGMMA_COMMIT", "", 0},
  {"wgmma.wait_group.sync.aligned", "PTX_WGMMA_WAIT", "i", 0},
  {"fence.proxy.async.shared::cta", "PTX_FENCE_PROXY_ASYNC", "", 0},
};

#define KR_PTX_RUNS "mma.sync m16n8k8 tf32, m16n8k16 f16/bf16, ldmatrix, cvt.rna.tf32.f32, wgmma.mma_async " \
                    "m64nNk8 tf32 and m64nNk16 f16/bf16 with A in registers and B K-major, "                \
                    "wgmma.fence/commit_group/wait_group, fence.proxy.async"

static bool refuse(Asm *a, const char *why) {
  if (!a->why) a->why = why;
  return false;
}

/* Appends the escape sequence `e` ("\n", "\\", …) decoded; false for one that is not a single
 * character (octal, hex, universal names: not in PTX text). */
static bool put_escape(KrBuf *out, const char *e, size_t n) {
  static const char from[] = "ntrvfab\\\"'?", to[] = "\n\t\r\v\f\a\b\\\"'?";
  const char *c = n == 2 ? strchr(from, e[1]) : NULL;
  if (!c || !*c) return false;
  kr_buf_putc(out, to[c - from]);
  return true;
}

/* The text of a string literal, or of several written one after another, decoded; false for
 * anything else (a macro, a raw string). */
static bool literal_text(View *v, TSNode n, KrBuf *out) {
  TSSymbol sym = ts_node_symbol(n);
  uint32_t k = ts_node_named_child_count(n);
  if (sym == v->concatenated_string) {
    for (uint32_t i = 0; i < k; i++) {
      TSNode c = ts_node_named_child(n, i);
      if (ts_node_symbol(c) != v->s->comment && !literal_text(v, c, out)) return false;
    }
    return true;
  }
  if (sym != v->string_literal) return false;
  for (uint32_t i = 0; i < k; i++) {
    TSNode c = ts_node_named_child(n, i);
    const char *t = v->src->text + ts_node_start_byte(c);
    size_t len = ts_node_end_byte(c) - ts_node_start_byte(c);
    if (ts_node_symbol(c) == v->escape_sequence) {
      if (!put_escape(out, t, len)) return false;
    } else {
      kr_buf_append(out, t, len);
    }
  }
  return true;
}

/* One operand's constraint: "=r", "+f", "=&r" for an output, "r", "l", … for an input. */
static bool read_constraint(Asm *a, const char *c, AsmOperand *o, KrArena *arena) {
  if (o->out) {
    if (*c != '=' && *c != '+')
      return refuse(a, kr_arena_printf(arena, "output constraint \"%s\" starts with neither '=' nor '+'", c));
    o->read = *c++ == '+';
    if (*c == '&') c++;
  }
  if (!*c || c[1] || !strchr(o->out ? "rlfdh" : "rlfdhn", *c))
    return refuse(a, kr_arena_printf(arena, "constraint \"%s\" is not one it reads (r, l, f, d, h, n)", c));
  o->letter = *c;
  return true;
}

/* The operands of one list (output_operands or input_operands) into a->ops. */
static bool read_operands(View *v, Asm *a, TSNode list, bool out) {
  uint32_t k = ts_node_is_null(list) ? 0 : ts_node_named_child_count(list);
  for (uint32_t i = 0; i < k; i++) {
    TSNode op = ts_node_named_child(list, i), constraint = kr_node_field(op, "constraint");
    if (ts_node_is_null(constraint)) continue;  /* a comment */
    if (!ts_node_is_null(kr_node_field(op, "symbol"))) return refuse(a, "it names an operand ([name])");
    if (a->nops == KR_ASM_MAX_OPERANDS) return refuse(a, "it has more than 30 operands");
    AsmOperand *o = &a->ops[a->nops];
    *o = (AsmOperand){.out = out, .value = kr_node_field(op, "value")};
    KrBuf c = {0};
    bool ok = literal_text(v, constraint, &c) && !ts_node_is_null(o->value);
    if (ok) ok = read_constraint(a, c.data ? c.data : "", o, v->a);
    else refuse(a, "an operand is not \"constraint\"(expression)");
    kr_buf_free(&c);
    if (!ok) return false;
    a->nops++;
    if (out) a->nout++;
  }
  return true;
}

/* ---- PTX text ---- */

static const char *skip_blanks(const char *p) {
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
  return p;
}

/* ldmatrix's qualifiers in kPtxForms's order, whatever order they were written in (ptxas takes
 * .x4.m8n8 as well as .m8n8.x4): .shared::cta is .shared, and so is no state space (a generic
 * address, which the emulator's shared memory is too). NULL when they are not ldmatrix's. */
static const char *ldmatrix_name(const char *opcode, KrArena *arena) {
  static const char *const words[] = {"sync", "aligned", "m8n8", "x1", "x2", "x4", "trans", "shared",
                                      "shared::cta", "b16"};
  enum { NWORDS = sizeof words / sizeof *words };
  bool seen[NWORDS] = {false};
  int x = -1;   /* log2 of the matrices' count; 9 when two counts are written */
  for (const char *p = opcode + strlen("ldmatrix"); *p == '.';) {
    const char *e = strchr(p + 1, '.');
    size_t n = e ? (size_t)(e - p - 1) : strlen(p + 1);
    int w = 0;
    while (w < NWORDS && !(strlen(words[w]) == n && strncmp(words[w], p + 1, n) == 0)) w++;
    if (w == NWORDS || seen[w]) return NULL;
    seen[w] = true;
    if (w >= 3 && w <= 5) x = x < 0 ? w - 3 : 9;
    p = e ? e : p + 1 + n;
  }
  if (!seen[0] || !seen[1] || !seen[2] || !seen[9] || x < 0 || x > 2 || (seen[7] && seen[8])) return NULL;
  return kr_arena_printf(arena, "ldmatrix.sync.aligned.m8n8.x%d%s.shared.b16", 1 << x, seen[6] ? ".trans" : "");
}

/* wgmma.mma_async.sync.aligned.m64nNk8.f32.tf32.tf32 and m64nNk16.f32.{f16.f16,bf16.bf16} with A in
 * registers: N / 2 accumulators, A's 4 registers, B's descriptor, scale-d and the scales of A and B
 * (1: the emulator runs d += a * b), and for the 16-bit types imm-trans-b (0: B K-major). */
static const struct PtxForm *wgmma_form(const char *opcode, KrArena *arena) {
  static const struct { const char *types, *op; int k; } kinds[] = {
    {"tf32.tf32", "PTX_WGMMA_TF32", 8}, {"f16.f16", "PTX_WGMMA_F16", 16}, {"bf16.bf16", "PTX_WGMMA_BF16", 16}};
  int n = 0, k = 0, used = 0;
  if (sscanf(opcode, "wgmma.mma_async.sync.aligned.m64n%dk%d.f32.%n", &n, &k, &used) != 2 || n < 8 || n > 256 || n % 8)
    return NULL;
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
    if (kinds[i].k != k || strcmp(opcode + used, kinds[i].types) != 0) continue;
    struct PtxForm *f = kr_arena_alloc(arena, sizeof *f);
    *f = (struct PtxForm){.opcode = kr_arena_strdup(arena, opcode), .op = kinds[i].op, .nd = n / 2,
                          .operands = kr_arena_printf(arena, "D%d S4 l 1 1 1%s", n / 2, k == 16 ? " 0" : "")};
    return f;
  }
  return NULL;
}

static const struct PtxForm *ptx_form(const char *opcode, KrArena *arena) {
  if (strncmp(opcode, "wgmma.mma_async.", 16) == 0) return wgmma_form(opcode, arena);
  if (strncmp(opcode, "ldmatrix.", 9) == 0) opcode = ldmatrix_name(opcode, arena);
  for (size_t i = 0; opcode && i < sizeof kPtxForms / sizeof *kPtxForms; i++)
    if (strcmp(kPtxForms[i].opcode, opcode) == 0) return &kPtxForms[i];
  return NULL;
}

/* One register %N at *p, its use checked against the operand's constraint: `role` is 'D' or 'd'
 * (written), 'S' or 's' (read), 'a' (an address). */
static bool ptx_register(Asm *a, const char **p, char role, KrBuf *regs, KrArena *arena) {
  const char *q = skip_blanks(*p);
  if (*q != '%' || q[1] < '0' || q[1] > '9') return refuse(a, "an operand of the instruction is not written %N");
  char *end;
  long n = strtol(q + 1, &end, 10);
  *p = end;
  if (n >= a->nops)
    return refuse(a, kr_arena_printf(arena, "'%%%ld' names no operand (the asm has %d)", n, a->nops));
  const AsmOperand *o = &a->ops[n];
  bool written = role == 'D' || role == 'd';
  if (written && !o->out)
    return refuse(a, kr_arena_printf(arena, "the instruction writes '%%%ld', an input of the asm", n));
  if (role == 'a' && o->letter != 'l' && o->letter != 'r')
    return refuse(a, kr_arena_printf(arena, "the address '%%%ld' has constraint '%c', where \"l\" (or \"r\") goes",
                                     n, o->letter));
  if (role == 'l' && o->letter != 'l')
    return refuse(a, kr_arena_printf(arena, "'%%%ld' has constraint '%c', where a 64-bit register (\"l\") goes", n,
                                     o->letter));
  if (role != 'a' && role != 'l' && o->letter != 'r' && o->letter != 'f')
    return refuse(a, kr_arena_printf(arena, "'%%%ld' has constraint '%c', where a 32-bit register (\"r\" or "
                                            "\"f\") goes", n, o->letter));
  kr_buf_printf(regs, regs->len ? ", %ld" : "%ld", n);
  return true;
}

/* After the instruction's operands: one group of `spec` ("D4", "s", "a") at *p. */
static bool ptx_group(Asm *a, const char **p, const char *spec, KrBuf *regs, KrArena *arena) {
  const char *q = skip_blanks(*p);
  if (spec[0] == 'a') {
    if (*q != '[') return refuse(a, "its address is not written [%N]");
    q++;
    if (!ptx_register(a, &q, 'a', regs, arena)) return false;
    if (*(q = skip_blanks(q)) != ']') return refuse(a, "its address is not written [%N]");
    *p = q + 1;
    return true;
  }
  if (spec[0] == 'i' || spec[0] == '1' || spec[0] == '0') {   /* an integer literal, or exactly 1 or 0 */
    char *end;
    long x = strtol(q, &end, 10);
    if (end == q) return refuse(a, "an operand that must be an integer literal is not one");
    if (spec[0] == '1' && x != 1)
      return refuse(a, kr_arena_printf(arena, "the emulator runs wgmma with scale-d and the scales 1, not %ld", x));
    if (spec[0] == '0' && x != 0)
      return refuse(a, kr_arena_printf(arena, "the emulator runs wgmma with B K-major (imm-trans-b 0), not %ld", x));
    if (x < 0 || x > 255) return refuse(a, kr_arena_printf(arena, "the integer operand %ld is out of range", x));
    a->literal = x;
    *p = end;
    return true;
  }
  int count = spec[1] >= '1' && spec[1] <= '9' ? (int)strtol(spec + 1, NULL, 10) : 0;
  if (count == 0 || (count == 1 && *q == '%')) return ptx_register(a, p, spec[0], regs, arena);
  if (*q != '{')
    return refuse(a, kr_arena_printf(arena, "an operand is not a list of %d registers {%%N, …}", count));
  q++;
  for (int i = 0; i < count; i++) {
    if (i && *(q = skip_blanks(q)) != ',')
      return refuse(a, kr_arena_printf(arena, "a list holds fewer than %d registers", count));
    if (i) q++;
    if (!ptx_register(a, &q, spec[0], regs, arena)) return false;
  }
  if (*(q = skip_blanks(q)) != '}')
    return refuse(a, kr_arena_printf(arena, "a list holds more than %d registers", count));
  *p = q + 1;
  return true;
}

/* The instruction at *p (its opcode read already) into a->code. */
static bool ptx_instruction(Asm *a, const char **p, const struct PtxForm *form, KrArena *arena) {
  KrBuf regs = {0};
  bool ok = true;
  const char *spec = form->operands;
  for (int g = 0; ok && *spec; g++) {
    if (g && *(*p = skip_blanks(*p)) != ',') ok = refuse(a, "it has fewer operands than the instruction takes");
    else if (g) ++*p;
    ok = ok && ptx_group(a, p, spec, &regs, arena);
    spec += strcspn(spec, " ");
    spec += *spec == ' ';
  }
  if (ok && *(*p = skip_blanks(*p)) != ';')
    ok = refuse(a, "the instruction does not end with ';' after its operands");
  int nd = strcmp(form->op, "PTX_WGMMA_WAIT") == 0 ? (int)a->literal : form->nd;   /* wait_group's n */
  if (ok)
    kr_buf_printf(&a->code, "%s{kr_emu::%s, {%s}%s}", a->code.len ? ", " : "", form->op, regs.data ? regs.data : "",
                  nd ? kr_arena_printf(arena, ", %d", nd) : "");
  kr_buf_free(&regs);
  *p += ok;
  return ok;
}

/* The name to show for the instruction at p: its opcode, or the statement for one that does not
 * start with a word (a { } scope, a predicate). */
static const char *ptx_name(const char *p, KrArena *arena) {
  size_t n = strcspn(p, " \t\r\n;");
  if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))) n = strcspn(p, ";\n");
  while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r')) n--;
  return kr_arena_strndup(arena, p, n);
}

/* The first instruction of the text that the emulator does not run, or NULL. */
static const char *unsupported(const char *text, KrArena *arena) {
  for (const char *p = skip_blanks(text); *p;) {
    const char *name = ptx_name(p, arena);
    if (!ptx_form(name, arena)) return name;
    p += strcspn(p, ";");
    p = skip_blanks(p + (*p == ';'));
  }
  return NULL;
}

/* Every instruction of the asm's text (each one the emulator runs); *name is the one that stopped
 * it. */
static bool parse_ptx(Asm *a, const char *text, const char **name, KrArena *arena) {
  for (const char *p = skip_blanks(text); *p; p = skip_blanks(p)) {
    *name = ptx_name(p, arena);
    const struct PtxForm *form = ptx_form(*name, arena);
    p += strlen(*name);
    if (!ptx_instruction(a, &p, form, arena)) return false;
  }
  return true;
}

/* ---- The rewrite ---- */

/* The asm as a call of kr_emu::ptx (kr_emu_ptx.h), each operand's expression on its line. */
static void emit_asm(View *v, const Asm *a) {
  KrBuf b = {0};
  uint32_t at = ts_node_start_byte(a->node), end = ts_node_end_byte(a->node);
  kr_buf_printf(&b, "kr_emu::ptx({%s}", a->code.data ? a->code.data : "");
  for (int i = 0; i < a->nops; i++) {
    const AsmOperand *o = &a->ops[i];
    uint32_t s = ts_node_start_byte(o->value), e = ts_node_end_byte(o->value);
    kr_buf_putc(&b, ',');
    put_newlines(v, &b, at, s);
    kr_buf_printf(&b, " kr_emu::ptx_%s<'%c'>(", o->out ? (o->read ? "inout" : "out") : "in", o->letter);
    kr_buf_append(&b, v->src->text + s, e - s);
    kr_buf_putc(&b, ')');
    at = e;
  }
  put_newlines(v, &b, at, end);
  kr_buf_putc(&b, ')');
  edit(v, ts_node_start_byte(a->node), end, kr_arena_strndup(v->a, b.data, b.len));
  kr_buf_free(&b);
}

static void refuse_asm(View *v, TSNode n, const char *name, const char *why) {
  if (!why)
    kr_diag_at(v->diags, KR_DIAG_ERROR, v->src, ts_node_start_byte(n),
               "inline PTX '%s' is not one the CPU emulator runs (it runs " KR_PTX_RUNS ")", name);
  else if (name)
    kr_diag_at(v->diags, KR_DIAG_ERROR, v->src, ts_node_start_byte(n),
               "inline PTX '%s' is not written as the CPU emulator reads it: %s", name, why);
  else
    kr_diag_at(v->diags, KR_DIAG_ERROR, v->src, ts_node_start_byte(n),
               "inline PTX asm is not read by the CPU emulator: %s", why);
  v->errors++;
}

/* An asm statement of device code: rewritten into a call of the shim when the emulator runs every
 * instruction in it, else refused with its place and what stopped it (the instruction first). */
static void rewrite_asm(View *v, TSNode n) {
  if (!kr_model_in_device(v->t, n)) return;
  Asm a = {.node = n};
  KrBuf text = {0};
  const char *name = NULL;
  bool ok = ts_node_is_null(kr_node_field(n, "goto_labels")) || refuse(&a, "it is an asm goto");
  ok = ok && (literal_text(v, kr_node_field(n, "assembly_code"), &text) ||
              refuse(&a, "its text is not a string literal"));
  kr_buf_putc(&text, '\0');
  if (ok && (name = unsupported(text.data, v->a))) {
    refuse_asm(v, n, name, NULL);
  } else {
    if (ok && *skip_blanks(text.data)) name = ptx_name(skip_blanks(text.data), v->a);
    ok = ok && read_operands(v, &a, kr_node_field(n, "output_operands"), true) &&
         read_operands(v, &a, kr_node_field(n, "input_operands"), false) && parse_ptx(&a, text.data, &name, v->a);
    if (ok) emit_asm(v, &a);
    else refuse_asm(v, n, name, a.why);
  }
  kr_buf_free(&text);
  kr_buf_free(&a.code);
}

static bool ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* `#ifndef KR_CUDA_EMULATOR … #endif` with no #else: code for the GPU alone (krewrite's own
 * device functions whose inline PTX the shim runs as functions of its own, such as split_rows'
 * kr_cluster_*), blanked here as the preprocessor would drop it under the shim. Found in the text,
 * directive by directive (the tree may not hold the block as one node). */
static void gpu_only_regions(View *v) {
  const char *t = v->src->text;
  uint32_t n = (uint32_t)v->src->len, i = 0, start = 0;
  int depth = 0;
  bool open = false;
  while (i < n) {
    uint32_t line = i, e = i;
    while (e < n && t[e] != '\n') e++;
    uint32_t k = i;
    while (k < e && (t[k] == ' ' || t[k] == '\t')) k++;
    if (k < e && t[k] == '#') {
      k++;
      while (k < e && (t[k] == ' ' || t[k] == '\t')) k++;
      const char *d = t + k;
      size_t left = e - k;
      bool is_if = left >= 2 && !strncmp(d, "if", 2), is_end = left >= 5 && !strncmp(d, "endif", 5);
      bool is_else = (left >= 4 && !strncmp(d, "else", 4)) || (left >= 4 && !strncmp(d, "elif", 4));
      if (!open && left >= 6 && !strncmp(d, "ifndef", 6)) {
        uint32_t m = k + 6;
        while (m < e && (t[m] == ' ' || t[m] == '\t')) m++;
        uint32_t id = m;
        while (m < e && ident_char(t[m])) m++;
        if (m - id == 16 && !strncmp(t + id, "KR_CUDA_EMULATOR", 16)) open = true, start = line, depth = 0;
      }
      if (open) {
        if (is_if) depth++;
        else if (is_else && depth == 1) open = false;   /* an #else: not for the GPU alone */
        else if (is_end && --depth == 0) {
          KrSpan r = {start, e};
          kr_vec_push(v->a, &v->gpu_only, r);
          blank(v, start, e);
          open = false;
        }
      }
    }
    i = e < n ? e + 1 : n;
  }
}

/* Whether node n lies wholly in such a block. */
static bool in_gpu_only(View *v, TSNode n) {
  uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
  for (size_t i = 0; i < v->gpu_only.len; i++)
    if (a >= v->gpu_only.data[i].start && b <= v->gpu_only.data[i].end) return true;
  return false;
}

/* One walk over the whole tree for declarations (shared memory) and asm expressions. */
static void walk(View *v) {
  TSTreeCursor c = ts_tree_cursor_new(kr_tree_root(v->t));
  for (;;) {
    TSNode n = ts_tree_cursor_current_node(&c);
    TSSymbol sym = ts_node_symbol(n);
    bool skip = in_gpu_only(v, n);
    if (skip) ;
    else if (sym == v->s->declaration) rewrite_shared(v, n);
    else if (sym == v->s->gnu_asm_expression) rewrite_asm(v, n);
    bool leaf = skip || sym == v->s->gnu_asm_expression || sym == v->s->comment;
    if (!leaf && ts_tree_cursor_goto_first_child(&c)) continue;
    while (!ts_tree_cursor_goto_next_sibling(&c))
      if (!ts_tree_cursor_goto_parent(&c)) goto done;
  }
done:
  ts_tree_cursor_delete(&c);
}

/* ---- Lexical pass: __noinline__ and launches the tree did not show ----------------------------------- */


/* The end of the comment or literal starting at i, or i when there is none there. */
static uint32_t skip_opaque(const char *t, uint32_t n, uint32_t i) {
  if (t[i] == '/' && i + 1 < n && t[i + 1] == '/') {
    while (i < n && t[i] != '\n') i++;
    return i;
  }
  if (t[i] == '/' && i + 1 < n && t[i + 1] == '*') {
    const char *e = strstr(t + i + 2, "*/");
    return e ? (uint32_t)(e - t) + 2 : n;
  }
  bool digit_sep = t[i] == '\'' && i > 0 && ident_char(t[i - 1]);  /* 1'000'000 */
  if ((t[i] == '"' || t[i] == '\'') && !digit_sep) {
    char q = t[i++];
    while (i < n && t[i] != q && t[i] != '\n') i += t[i] == '\\' ? 2 : 1;
    return i < n ? i + 1 : n;
  }
  return i;
}

static bool inside_edit(View *v, uint32_t at) {
  for (size_t i = 0; i < v->edits.len; i++)
    if (at >= v->edits.data[i].start && at < v->edits.data[i].end) return true;
  return false;
}

static void lexical(View *v) {
  const char *t = v->src->text;
  uint32_t n = v->src->len;
  static const char noinline[] = "__noinline__";
  for (uint32_t i = 0; i < n;) {
    uint32_t j = skip_opaque(t, n, i);
    if (j != i) {
      i = j;
      continue;
    }
    if (t[i] == '_' && (i == 0 || !ident_char(t[i - 1])) && n - i >= sizeof noinline - 1 &&
        memcmp(t + i, noinline, sizeof noinline - 1) == 0 &&
        !ident_char(t[i + sizeof noinline - 1])) {
      edit(v, i, i + sizeof noinline - 1, "__attribute__((noinline))");
      i += sizeof noinline - 1;
      continue;
    }
    if (t[i] == '<' && n - i >= 3 && t[i + 1] == '<' && t[i + 2] == '<' && !inside_edit(v, i)) {
      /* A launch in a macro body or a spot the parser missed: drop the <<<…>>> configuration,
       * leaving a plain call that compiles and never runs. */
      const char *close = strstr(t + i + 3, ">>>");
      if (close) {
        uint32_t e = (uint32_t)(close - t) + 3;
        blank(v, i, e);
        i = e;
        continue;
      }
    }
    i++;
  }
}

/* ---- Applying the edits --------------------------------------------------------------------------- */

static int by_position(const void *a, const void *b) {
  const Edit *x = a, *y = b;
  if (x->start != y->start) return x->start < y->start ? -1 : 1;
  return x->end < y->end ? -1 : x->end > y->end;
}

static void apply(View *v, KrBuf *out) {
  if (v->edits.len) qsort(v->edits.data, v->edits.len, sizeof(Edit), by_position);
  uint32_t at = 0;
  for (size_t i = 0; i < v->edits.len; i++) {
    const Edit *e = &v->edits.data[i];
    if (e->start < at) continue;  /* overlaps an earlier edit */
    kr_buf_append(out, v->src->text + at, e->start - at);
    kr_buf_puts(out, e->text);
    at = e->end;
  }
  kr_buf_append(out, v->src->text + at, v->src->len - at);
}

/* ---- Kernel entries ----------------------------------------------------------------------------------- */

char *kr__emu_norm_name(KrArena *arena, const char *name) {
  size_t n = strlen(name);
  char *out = kr_arena_alloc(arena, n + 1), *w = out;
  for (size_t i = 0; i < n; i++) {
    char c = name[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      size_t j = i;
      while (j < n && (name[j] == ' ' || name[j] == '\t' || name[j] == '\n' || name[j] == '\r')) j++;
      if (w > out && j < n && ident_char(w[-1]) && ident_char(name[j])) *w++ = ' ';
      i = j - 1;
      continue;
    }
    *w++ = c;
  }
  *w = 0;
  return out;
}

/* The expression naming kernel `name` at file scope: "&ns::tk<float,4>". */
static const char *entry_expr(View *v, const KrModel *m, const char *path, const char *name, const KrKernel **kernel) {
  const char *lt = strchr(name, '<');
  const char *base = lt ? kr_arena_strndup(v->a, name, (size_t)(lt - name)) : name;
  if (strncmp(base, "::", 2) == 0) base += 2;
  const KrKernel *k = kr_model_find(m, base);
  if (!k) {
    kr_diag_pos(v->diags, KR_DIAG_ERROR, path, 0, 0, "no kernel '%s' in this file (kernels here: %s)",
                base, kr_model_kernel_names(m, v->a));
    return NULL;
  }
  if (k->is_template && !lt) {
    kr_diag_pos(v->diags, KR_DIAG_ERROR, path, k->line, k->col,
                "kernel '%s' is a template <%s>: name its template arguments, as in '%s<…>'",
                base, k->template_params ? k->template_params : "", base);
    return NULL;
  }
  if (!k->is_template && lt) {
    kr_diag_pos(v->diags, KR_DIAG_ERROR, path, k->line, k->col,
                "kernel '%s' is not a template, but is named with template arguments: '%s'", base,
                name);
    return NULL;
  }
  const char *qual = strstr(base, "::") ? base : k->qualified_name;
  const KrKernel *special = lt ? kr_model_find_launch(m, name) : NULL;   /* `template <> … tk<float>(…)` */
  *kernel = special ? special : k;
  return kr_arena_printf(v->a, "&%s%s", qual, lt ? lt : "");
}

static void put_line_directive(KrBuf *out, const char *file) {
  kr_buf_puts(out, "#line 1 \"");
  for (const char *p = file; *p; p++) {
    if (*p == '"' || *p == '\\') kr_buf_putc(out, '\\');
    kr_buf_putc(out, *p == '\n' ? ' ' : *p);
  }
  kr_buf_puts(out, "\"\n");
}

static KrStatus add_entries(View *v, const KrModel *m, const char *path, const char *const *kernels,
                            size_t nkernels, KrEmuView *out, KrBuf *text) {
  out->names = kr_arena_alloc(v->a, (nkernels + 1) * sizeof *out->names);
  KrStatus st = KR_OK;
  for (size_t i = 0; i < nkernels; i++) {
    const char *norm = kr__emu_norm_name(v->a, kernels[i]);
    bool seen = false;
    for (size_t j = 0; j < out->nnames && !seen; j++) seen = strcmp(out->names[j], norm) == 0;
    if (seen) continue;
    const KrKernel *k = NULL;
    const char *expr = entry_expr(v, m, path, norm, &k);
    if (!expr) {
      st = KR_ERR;
      continue;
    }
    put_line_directive(text, kr_arena_printf(v->a, "<emulator entry for kernel '%s'>", norm));
    kr_buf_printf(text, "KR_EMU_ENTRY(%zu, %s)\n", out->nnames, expr);
    if (k->cluster_dims) kr_buf_printf(text, "KR_EMU_CLUSTER(%zu, %s)\n", out->nnames, k->cluster_dims);
    out->names[out->nnames++] = norm;
  }
  return st;
}

/* ---- Launches in kept host code (a host entry point, kr_emu_entry.h) ---------------------------------- */

/* The name a launch exports its kernel under: "k", "tk<float,128>" (normalised). */
static const char *launch_name(View *v, const KrLaunch *l) {
  const char *n = l->template_args ? kr_arena_printf(v->a, "%s<%s>", l->kernel, l->template_args) : l->kernel;
  return kr__emu_norm_name(v->a, n);
}

static bool dropped(const View *v, uint32_t at) {
  for (size_t i = 0; i < v->ndrop; i++)
    if (at >= v->drop[i].start && at < v->drop[i].end) return true;
  return false;
}

/* The kernels to export: those asked for, then those the kept host code launches (with an entry),
 * each once, in the order add_entries numbers them. */
static const char **export_names(View *v, const KrModel *m, const char *const *kernels, size_t nkernels, bool entry,
                                 size_t *n) {
  const char **names = kr_arena_alloc(v->a, (nkernels + m->launches.len + 1) * sizeof *names);
  *n = 0;
  for (size_t i = 0; i < nkernels + m->launches.len; i++) {
    const char *k;
    if (i < nkernels) {
      k = kr__emu_norm_name(v->a, kernels[i]);
    } else {
      const KrLaunch *l = &m->launches.data[i - nkernels];
      if (!entry || !kr_model_launch_kept(v->t, l, v->drop, v->ndrop)) continue;
      k = launch_name(v, l);
    }
    bool seen = false;
    for (size_t j = 0; j < *n && !seen; j++) seen = strcmp(names[j], k) == 0;
    if (!seen) names[(*n)++] = k;
  }
  return names;
}

/* A launch in kept host code, `k<<<cfg>>>(args…)` -> `kr_emu::host_launch(kr_entry_<i>, &k, <line>,
 * cfg)(args…)` (kr_emu_entry.h): the arguments and the configuration keep their text and lines. */
static void rewrite_host_launch(View *v, const KrLaunch *l, const char *const *names, size_t nnames) {
  const char *k = launch_name(v, l);
  size_t idx = 0;
  while (idx < nnames && strcmp(names[idx], k) != 0) idx++;
  TSNode callee = ts_node_child_by_field_name(l->node, "function", 8), cfg = {0};
  uint32_t nc = ts_node_child_count(l->node);
  for (uint32_t i = 0; i < nc; i++)
    if (ts_node_symbol(ts_node_child(l->node, i)) == v->s->kernel_call_syntax) cfg = ts_node_child(l->node, i);
  if (ts_node_is_null(callee) || ts_node_is_null(cfg)) return;
  uint32_t cs = ts_node_start_byte(cfg), ce = ts_node_end_byte(cfg);
  const char *t = v->src->text;
  const char *open = strstr(t + cs, "<<<"), *close = ce >= 3 ? t + ce - 3 : NULL;
  if (!open || !close || open + 3 > close || strncmp(close, ">>>", 3) != 0) return;
  uint32_t ks = ts_node_start_byte(callee), ke = ts_node_end_byte(callee);
  const char *text = kr_arena_printf(v->a, "kr_emu::host_launch(kr_entry_%zu, &%s, %u, %.*s)", idx,
                                     keep_lines(v, ks, ke, kr_node_text_flat(v->t, callee, v->a)), l->line,
                                     (int)(close - open - 3), open + 3);
  edit(v, ks, ce, kr_arena_strdup(v->a, text));
}

/* ---- Entry point ---------------------------------------------------------------------------------------- */

KrStatus kr__emu_view(const char *path, const char *text, size_t len, const KrBuildFlags *build, const char *const *kernels,
                      size_t nkernels, const char *entry, KrArena *arena, KrEmuView *out, KrDiags *diags) {
  memset(out, 0, sizeof *out);
  KrSource *src = kr_arena_alloc(arena, sizeof *src);
  if (kr_source_from_text(src, path, text, len, arena, diags) != KR_OK) return KR_ERR;
  kr_source_use(src, build);
  out->src = src;
  out->syntax = kr_diags_new();
  KrTree *tree = kr_tree_parse(src, out->syntax);
  if (!tree) {
    kr_diag_pos(diags, KR_DIAG_ERROR, path, 0, 0, "the CUDA parser failed on this file");
    return KR_ERR;
  }
  View v = {.t = tree, .s = &tree->sym, .src = src, .a = arena, .diags = diags};
  v.string_literal = named_symbol("string_literal");
  v.concatenated_string = named_symbol("concatenated_string");
  v.escape_sequence = named_symbol("escape_sequence");
  KrModel *m = kr_model_new(tree, arena);
  /* Host functions' bodies are left out (but those the file's global initialisers need, and with an
   * entry point the entry and what it calls): the kernels never run them, and the GPU build leaves
   * out the same (prun.c, kr__gpu_text). */
  kr_model_host_bodies(tree, entry ? &entry : NULL, entry ? 1 : 0, arena, &v.drop, &v.ndrop);
  size_t nnames;
  const char **names = export_names(&v, m, kernels, nkernels, entry != NULL, &nnames);
  for (size_t i = 0; i < v.ndrop; i++)
    edit(&v, v.drop[i].start, v.drop[i].end, keep_lines(&v, v.drop[i].start, v.drop[i].end, ";"));
  for (size_t i = 0; i < m->launches.len; i++) {
    const KrLaunch *l = &m->launches.data[i];
    if (kr_model_in_device(tree, l->node)) {
      kr_diag_at(diags, KR_DIAG_ERROR, src, l->span.start,
                 "a kernel launch in device code (dynamic parallelism) is not supported by the "
                 "CPU emulator");
      v.errors++;
      continue;
    }
    if (entry && !dropped(&v, l->span.start)) rewrite_host_launch(&v, l, names, nnames);
    else edit(&v, l->span.start, l->span.end, keep_lines(&v, l->span.start, l->span.end, "((void)0)"));
  }
  gpu_only_regions(&v);
  walk(&v);
  lexical(&v);
  KrBuf b = {0};
  for (size_t i = 0; entry && i < nnames; i++) kr_buf_printf(&b, "extern \"C\" void kr_entry_%zu(void **);\n", i);
  put_line_directive(&b, path);
  apply(&v, &b);
  kr_buf_putc(&b, '\n');
  KrStatus st = add_entries(&v, m, path, names, nnames, out, &b);
  if (entry) {
    put_line_directive(&b, kr_arena_printf(arena, "<emulator entry point '%s'>", entry));
    kr_buf_printf(&b, "KR_EMU_HOST_RUNTIME\nKR_EMU_CALL_ENTRY(%s)\n", entry);
  }
  if (v.errors) st = KR_ERR;
  out->len = b.len;
  out->text = kr_arena_strndup(arena, b.data ? b.data : "", b.len);
  kr_buf_free(&b);
  kr_tree_free(tree);
  return st;
}

void kr__emu_view_free(KrEmuView *view) {
  if (view && view->syntax) kr_diags_free(view->syntax);
  if (view) view->syntax = NULL;
}
