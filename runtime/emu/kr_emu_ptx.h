// runtime/emu/kr_emu_ptx.h: the inline PTX the CPU emulator runs (included by kr_cuda_shim.h after
// half and WMMA). krewrite's view of the .cu (runtime/emu_view.c) parses each asm statement of
// device code and, when every instruction in it is one of those below, rewrites it into
//     kr_emu::ptx({{kr_emu::PTX_CVT_RNA_TF32_F32, {0, 1}}}, kr_emu::ptx_out<'r'>(t), kr_emu::ptx_in<'f'>(x))
// for `asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(t) : "f"(x))`: one PtxInstr per instruction, naming
// its operands by GCC's numbers (%N), then the asm's operands in GCC's order, outputs first. Each
// operand gets a register from its constraint (r 32-bit, f float, l 64-bit, d double, h 16-bit, n
// an immediate; of the types nvcc takes for it), inputs and "+" outputs with their values; the
// instructions run on the registers, and the outputs go back to their lvalues. Any other asm is
// refused there, with its place and the instruction's name.
//
// The instructions, with the device's semantics (PTX ISA, "Warp-level matrix instructions"); lane l
// of a warp is in group g = l / 4, at t = l % 4 in it:
//   - mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 and m16n8k16.row.col.f32.{f16,bf16}x2.f32:
//     D (16x8) = A (16xK, row-major) * B (Kx8) + C, each fragment spread over the lanes as the ISA
//     lays it out. tf32 operands drop their low 13 bits, as the tensor cores do; f16 and bf16 ones
//     convert exactly. The products (exact) and c are summed and the sum rounded toward zero, as the
//     tensor cores truncate (kr_emu::tc_round in kr_emu_wmma.h).
//   - ldmatrix.sync.aligned.m8n8.{x1,x2,x4}{.trans}{.shared{::cta}}.b16: lanes 8i..8i+7 name the
//     rows of matrix i (16 bytes each); lane l gets in register i the elements (l/4, 2(l%4)) and
//     (l/4, 2(l%4)+1) of matrix i, or with .trans (2(l%4), l/4) and (2(l%4)+1, l/4), the first in
//     the low half. The address is the generic one (the emulator's __cvta_generic_to_shared is the
//     identity); a 32-bit one ("r", the low half of it) is found again in the block's shared memory.
//   - cvt.rna.tf32.f32: to tf32 (10 mantissa bits), to nearest, ties away from zero (infinities and
//     NaNs just lose the low 13 bits).
//   - wgmma.mma_async.sync.aligned.m64nNk8.f32.tf32.tf32 and m64nNk16.f32.{f16.f16,bf16.bf16} with A in
//     registers: D (64 x N) += A (64 x K) * B (K x N) for a warpgroup; warp w of the group holds rows
//     16w..16w+15 of A and D, A as mma.sync's A fragment of the same type (m16n8k8 tf32, m16n8k16 f16
//     or bf16), D's register 4i + v of lane 4g + t at row g + 8(v / 2), column 8i + 2t + v % 2. B is
//     read from shared memory through its descriptor (start address, leading and stride byte offsets,
//     swizzle: none or 128 bytes; K-major: imm-trans-b 0 for f16 and bf16), when the instruction runs. A
//     warp's rows depend on its own A only, so each warp runs it as a warp-wide instruction: the
//     product is in the registers when it returns (ptxas makes a use of them before the wait wait for
//     it, warning C7517). It stays in flight until a wgmma.wait_group completes its commit group, and
//     then B is read again: a kernel that changed it in between (a race with the tensor cores' read)
//     stops with the reason. wgmma.fence and fence.proxy.async have nothing to order. The memory
//     checker sees each lane's reads of B, placed at the asm, as the lane's own reads at the issue.
// ldmatrix and cvt give an H200's results bit for bit (checked over random inputs); mma.sync gives
// the same products within a few ulps, the tensor cores summing them in their own way.
//
// mma and ldmatrix are warp-wide (.aligned): the 32 lanes run them together. Each lane leaves its
// part (its registers; for ldmatrix the row its address names, read here in the kernel's code, so
// that the memory checker sees the lane read it at the asm's line) in its fiber, the lanes meet
// (W_PTX, a rendezvous of the whole warp that also orders their memory accesses), and each lane
// computes its own results from every lane's part. One rendezvous is enough because the parts
// alternate between two slots: a lane can write the slot of instruction n + 2 only after every
// lane has met it at instruction n + 1, that is, after every lane has finished reading instruction
// n's. A warp that is not whole or not converged there stops the launch with the instruction's name.
#ifndef KR_EMU_PTX_H
#define KR_EMU_PTX_H

namespace kr_emu {

enum PtxOp : uint8_t {
  PTX_MMA_M16N8K8_TF32, PTX_MMA_M16N8K16_F16, PTX_MMA_M16N8K16_BF16,
  PTX_LDMATRIX_X1, PTX_LDMATRIX_X2, PTX_LDMATRIX_X4,
  PTX_LDMATRIX_X1_TRANS, PTX_LDMATRIX_X2_TRANS, PTX_LDMATRIX_X4_TRANS,
  PTX_CVT_RNA_TF32_F32,
  PTX_WGMMA_TF32, PTX_WGMMA_F16, PTX_WGMMA_BF16, PTX_WGMMA_FENCE, PTX_WGMMA_COMMIT, PTX_WGMMA_WAIT, PTX_FENCE_PROXY_ASYNC,
};

// For messages and deadlock reports; also what tells two warp-wide instructions apart.
inline const char *const kPtxNames[] = {
  "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
  "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32",
  "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
  "ldmatrix.sync.aligned.m8n8.x1.shared.b16",
  "ldmatrix.sync.aligned.m8n8.x2.shared.b16",
  "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
  "ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16",
  "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16",
  "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16",
  "cvt.rna.tf32.f32",
  "wgmma.mma_async.sync.aligned.m64nNk8.f32.tf32.tf32",
  "wgmma.mma_async.sync.aligned.m64nNk16.f32.f16.f16",
  "wgmma.mma_async.sync.aligned.m64nNk16.f32.bf16.bf16",
  "wgmma.fence.sync.aligned",
  "wgmma.commit_group.sync.aligned",
  "wgmma.wait_group.sync.aligned",
  "fence.proxy.async.shared::cta",
};

// One instruction: its operands in the order PTX writes them, flattened ({d0,d1}, {a0} -> d0 d1
// a0), as indices into the asm's operands.
struct PtxInstr {
  PtxOp op;
  uint8_t reg[134];   // wgmma m64n256: 128 accumulators, A's 4 registers, B's descriptor
  uint8_t nd;         // wgmma: its accumulators (N / 2); wgmma.wait_group: its n
};

// ---- Operands -----------------------------------------------------------------------------------------

template <char K>
constexpr int ptx_bytes = K == 'h' ? 2 : (K == 'r' || K == 'f') ? 4 : 8;

template <char K>
constexpr uint64_t ptx_mask = ptx_bytes<K> == 8 ? ~0ull : (1ull << (8 * ptx_bytes<K>)) - 1;

// The types nvcc takes for each constraint (it refuses the others, a float in "r" as well).
template <char K, class T>
constexpr bool ptx_takes =
    K == 'f' ? std::is_same_v<T, float>
  : K == 'd' ? std::is_same_v<T, double>
  : K == 'n' ? std::is_integral_v<T> || std::is_enum_v<T>
  : (K == 'l' && std::is_pointer_v<T>) ||
    ((std::is_integral_v<T> || std::is_enum_v<T>) && sizeof(T) == ptx_bytes<K>);

#define KR_PTX_TAKES(K, T)                                                                         \
  static_assert(ptx_takes<K, T>, "an asm operand of a type its constraint does not take (r: a 32-bit integer, " \
                                 "l: a 64-bit integer or a pointer, h: a 16-bit integer, f: float, d: double)")

// A value's register: its bits, zero-extended.
template <char K, class T>
inline uint64_t ptx_bits(const T &v) {
  KR_PTX_TAKES(K, T);
  if constexpr (K == 'f' || K == 'd') return bits<std::conditional_t<K == 'f', uint32_t, uint64_t>>(v);
  else if constexpr (std::is_pointer_v<T>) return (uint64_t)(uintptr_t)v;
  else return (uint64_t)v & ptx_mask<K>;
}

// A register back into an output.
template <char K, class T>
inline void ptx_store(T &lv, uint64_t b) {
  KR_PTX_TAKES(K, T);
  if constexpr (K == 'f') lv = bits<float>((uint32_t)b);
  else if constexpr (K == 'd') lv = bits<double>(b);
  else if constexpr (std::is_pointer_v<T>) lv = reinterpret_cast<T>((uintptr_t)b);
  else lv = T(b & ptx_mask<K>);
}
#undef KR_PTX_TAKES

template <char K, class T>
struct PtxIn {
  static constexpr int bytes = ptx_bytes<K>;
  T v;
  uint64_t load() const { return ptx_bits<K>(v); }
  void store(uint64_t) const {}
};

template <char K, class T>
struct PtxOut {
  static constexpr int bytes = ptx_bytes<K>;
  T &lv;
  bool read;   // "+": the instruction reads it too
  uint64_t load() const { return read ? ptx_bits<K>(lv) : 0; }
  void store(uint64_t b) const { ptx_store<K>(lv, b); }
};

template <char K, class T>
inline PtxIn<K, std::decay_t<T>> ptx_in(const T &v) {
  return {v};
}
template <char K, class T>
inline PtxOut<K, T> ptx_out(T &lv) {
  return {lv, false};
}
template <char K, class T>
inline PtxOut<K, T> ptx_inout(T &lv) {
  return {lv, true};
}

// ---- Warp-wide instructions ----------------------------------------------------------------------------

// The lanes of the running thread's warp, at a warp-wide instruction whose part this lane left in
// its fiber: after the rendezvous, every lane's fiber, and the slot the parts are in.
KR_EMU_RT Fiber *ptx_meet(PtxOp op, uint32_t *slot) {
  Fiber *f = S.cur;
  *slot = f->ptx_count & 1u;
  f->ptx_count++;
  uint32_t live = warp_arrive(W_PTX, kPtxNames[op], 0xffffffffu, 0, 32, nullptr, 0)->res_mask;
  if (live != 0xffffffffu)
    fail("ran %s with %d of the 32 lanes of warp %u (mask 0x%08x): the instruction is .aligned, for the whole "
         "warp together", kPtxNames[op], __builtin_popcount(live), f->warp, live);
  return &S.fibers[f->warp * 32];
}

KR_EMU_RT uint32_t *ptx_part(PtxOp op) {
  if (!S.cur) fail("ran %s outside a kernel", kPtxNames[op]);
  return S.cur->ptx_part[S.cur->ptx_count & 1u];
}

// (The machinery is KR_EMU_NOSAN, and the shim's other helpers are not: they would be calls, not
// inlined, so the few conversions needed here are written out.)
KR_EMU_RT float f32_of(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

// The operand (tf32) or two (bf16, f16: the low half first) that a fragment's register holds.
KR_EMU_RT void mma_operands(PtxOp op, uint32_t u, float *out) {
  if (op == PTX_MMA_M16N8K8_TF32) {
    out[0] = f32_of(u & 0xffffe000u);
  } else if (op == PTX_MMA_M16N8K16_BF16) {
    out[0] = f32_of(u << 16), out[1] = f32_of(u & 0xffff0000u);
  } else {
    out[0] = h2f((unsigned short)u), out[1] = h2f((unsigned short)(u >> 16));
  }
}

// Row `row` of A (a0..a3, words 0-3 of the lanes' parts) and column `n` of B (b0 b1, words 4-5), of
// Per operands a register: register j of lane 4g + t holds k = Per * t + 4 * Per * (j / 2 or j - 4).
template <int Per>
KR_EMU_NOSAN inline void mma_row(const Fiber *w, uint32_t s, PtxOp op, int row, float *out) {
  for (int k = 0; k < 8 * Per; k += Per)
    mma_operands(op, w[4 * (row % 8) + k % (4 * Per) / Per].ptx_part[s][row / 8 + 2 * (k / (4 * Per))], out + k);
}

template <int Per>
KR_EMU_NOSAN inline void mma_col(const Fiber *w, uint32_t s, PtxOp op, int n, float *out) {
  for (int k = 0; k < 8 * Per; k += Per)
    mma_operands(op, w[4 * n + k % (4 * Per) / Per].ptx_part[s][4 + k / (4 * Per)], out + k);
}

// mma.sync: d0..d3 and c0..c3 of this lane are (g, 2t), (g, 2t+1), (g+8, 2t), (g+8, 2t+1).
KR_EMU_RT_OUT void ptx_mma(const PtxInstr &i, uint64_t *r);
#ifdef KR_EMU_RUNTIME_TU
KR_EMU_RT_OUT void ptx_mma(const PtxInstr &i, uint64_t *r) {
  uint32_t *part = ptx_part(i.op);
  for (int k = 0; k < kPtxWords; k++) part[k] = (uint32_t)r[i.reg[4 + k]];
  uint32_t s;
  const Fiber *w = ptx_meet(i.op, &s);
  int kdim = i.op == PTX_MMA_M16N8K8_TF32 ? 8 : 16, g = (int)S.cur->lane / 4, t = (int)S.cur->lane % 4;
  float a[2][16], b[2][16];
  for (int h = 0; h < 2; h++) {
    if (kdim == 8) mma_row<1>(w, s, i.op, g + 8 * h, a[h]), mma_col<1>(w, s, i.op, 2 * t + h, b[h]);
    else mma_row<2>(w, s, i.op, g + 8 * h, a[h]), mma_col<2>(w, s, i.op, 2 * t + h, b[h]);
  }
  for (int e = 0; e < 4; e++) {
    double sum = f32_of(part[6 + e]);
    for (int k = 0; k < kdim; k++) sum += (double)(a[e / 2][k] * b[e % 2][k]);
    float acc = tc_round(sum);
    uint32_t d;
    memcpy(&d, &acc, 4);
    r[i.reg[e]] = d;
  }
}
#endif

KR_EMU_RT int ldmatrix_count(PtxOp op) {
  int x = (op - PTX_LDMATRIX_X1) % 3;
  return x == 2 ? 4 : x + 1;
}

KR_EMU_RT bool is_ldmatrix(PtxOp op) { return op >= PTX_LDMATRIX_X1 && op <= PTX_LDMATRIX_X4_TRANS; }

// The 16-bit element c of the row lane `l` gave (matrix l / 8, row l % 8).
KR_EMU_RT uint32_t row_element(const Fiber *w, uint32_t s, int l, int c) {
  return (w[l].ptx_part[s][c / 2] >> (16 * (c % 2))) & 0xffffu;
}

// The 16 bytes of the row a lane names (ldmatrix_row), as it read them.
struct alignas(16) PtxRow {
  uint32_t w[4];
};

// ldmatrix, with this lane's row (if it names one).
KR_EMU_RT_OUT void ptx_ldmatrix(const PtxInstr &i, uint64_t *r, PtxRow row);
#ifdef KR_EMU_RUNTIME_TU
KR_EMU_RT_OUT void ptx_ldmatrix(const PtxInstr &i, uint64_t *r, PtxRow row) {
  memcpy(ptx_part(i.op), row.w, sizeof row.w);
  uint32_t s;
  const Fiber *w = ptx_meet(i.op, &s);
  int l = (int)S.cur->lane, n = ldmatrix_count(i.op);
  bool trans = i.op >= PTX_LDMATRIX_X1_TRANS;
  for (int m = 0; m < n; m++) {
    uint32_t lo, hi;
    if (trans) {
      lo = row_element(w, s, 8 * m + 2 * (l % 4), l / 4);
      hi = row_element(w, s, 8 * m + 2 * (l % 4) + 1, l / 4);
    } else {
      lo = row_element(w, s, 8 * m + l / 4, 2 * (l % 4));
      hi = row_element(w, s, 8 * m + l / 4, 2 * (l % 4) + 1);
    }
    r[i.reg[m]] = lo | hi << 16;
  }
}
#endif

// The running block's shared memory, [lo, hi) three times: the static variables' arena, the
// kr_shared section (variables from macros), the dynamic shared memory's region.
KR_EMU_RT void shared_regions(uintptr_t lo[3], uintptr_t hi[3]) {
  lo[0] = (uintptr_t)CK.arena, hi[0] = CK.arena ? lo[0] + kSharedArenaBytes : 0;
  lo[1] = (uintptr_t)__start_kr_shared, hi[1] = (uintptr_t)__stop_kr_shared;
  lo[2] = (uintptr_t)S.dyn_region, hi[2] = lo[2] + S.dyn_region_bytes;
}

// The pointer a 32-bit shared address (the low half of a generic one, as `(unsigned)
// __cvta_generic_to_shared(p)` gives) stands for: the one place in shared memory with those low
// 32 bits.
// The pointers in [lo[k], hi[k]) whose bits under `mask` are those of `low`: how many regions hold
// one, and the last found.
KR_EMU_RT int shared_from_low_bits(uint64_t low, uint64_t mask, const uintptr_t lo[3], const uintptr_t hi[3],
                                   uintptr_t *found) {
  int nfound = 0;
  for (int k = 0; k < 3; k++) {
    uintptr_t p = lo[k] + (uintptr_t)((low - (uint64_t)lo[k]) & mask);
    if (lo[k] && p < hi[k]) *found = p, nfound++;
  }
  return nfound;
}

KR_EMU_RT uintptr_t shared_from_low32(uint32_t low, PtxOp op) {
  uintptr_t lo[3], hi[3], found = 0;
  shared_regions(lo, hi);
  int nfound = shared_from_low_bits(low, 0xffffffffu, lo, hi, &found);
  if (nfound != 1)
    fail("gave %s the 32-bit address 0x%08x, which the emulator cannot map back to %s shared memory: in emulated "
         "code, pass the address as a 64-bit (\"l\") operand, __cvta_generic_to_shared(p) itself",
         kPtxNames[op], low, nfound ? "one place of" : "this block's");
  return found;
}

// The row this lane names, or null for a lane past the matrices (its address is ignored). The
// device reads it from the block's shared memory whatever the address, so another one is an error.
KR_EMU_RT const void *ldmatrix_row(const PtxInstr &i, const uint64_t *r, int addr_bytes) {
  if (!S.cur) fail("ran %s outside a kernel", kPtxNames[i.op]);
  if (S.cur->lane >= 8u * (uint32_t)ldmatrix_count(i.op)) return nullptr;
  uint64_t a = r[i.reg[ldmatrix_count(i.op)]];
  uintptr_t p = addr_bytes == 4 ? shared_from_low32((uint32_t)a, i.op) : (uintptr_t)a, lo[3], hi[3];
  shared_regions(lo, hi);
  for (int k = 0; k < 3; k++)
    if (p >= lo[k] && p < hi[k]) return (const void *)p;
  fail("gave %s the address %p, which is not in the block's shared memory", kPtxNames[i.op], (void *)p);
}

// A row read in the kernel's code: not KR_EMU_NOSAN and inlined into the asm's place, so that the
// memory checker sees the lane read it there (and a misaligned row stops the launch, as on the GPU).
__attribute__((always_inline)) inline PtxRow read_row(const void *p) { return *static_cast<const PtxRow *>(p); }

KR_EMU_RT void ptx_cvt(const PtxInstr &i, uint64_t *r) {
  r[i.reg[0]] = bits<uint32_t>(nvcuda::wmma::__float_to_tf32(bits<float>((uint32_t)r[i.reg[1]])));
}

// The host pointer of the shared-memory address a wgmma descriptor names (its bits 4..17): the one
// place in the block's shared memory with those low 18 bits.
KR_EMU_RT uintptr_t shared_from_desc(uint32_t low18, PtxOp op) {
  // The parts in use: the static variables so far, the macros' section, this launch's dynamic
  // shared memory (the arena is placed so that they do not meet modulo 256 KiB: kr_emu_check.h).
  uintptr_t lo[3] = {(uintptr_t)CK.arena, (uintptr_t)__start_kr_shared, (uintptr_t)S.dyn}, found = 0;
  uintptr_t hi[3] = {(uintptr_t)CK.arena + CK.arena_used, (uintptr_t)__stop_kr_shared, (uintptr_t)S.dyn + S.dyn_bytes};
  int nfound = shared_from_low_bits(low18, 0x3ffffu, lo, hi, &found);
  if (nfound != 1)
    fail("gave %s a descriptor whose address 0x%05x the emulator cannot map back to %s shared memory",
         kPtxNames[op], low18, nfound ? "one place of" : "this block's");
  return found;
}

// The address of element (k, col) of the K x N tile B that descriptor `desc` names, K-major: column
// col's K elements along k, of `e` bytes each (4: tf32, 2: f16 and bf16). Without swizzle, core
// matrices of 8 columns by 16 bytes along k, LBO apart along k and SBO apart along the columns; with
// the 128-byte swizzle, each column a 128-byte row, 8-row groups SBO apart, the 16-byte groups of a
// row permuted by the address bits above them (bits 4-6 ^= bits 7-9). Either way each 16 bytes along
// k are contiguous. The `bytes` from there must be in the block's shared memory.
KR_EMU_RT uintptr_t wgmma_addr(uint64_t desc, uintptr_t start, int k, int col, PtxOp op, int bytes) {
  uint64_t lbo = ((desc >> 16) & 0x3fff) << 4, sbo = ((desc >> 32) & 0x3fff) << 4;
  int mode = (int)(desc >> 62), e = op == PTX_WGMMA_TF32 ? 4 : 2, per = 16 / e;
  uintptr_t p;
  if (mode == 0) {
    p = start + (uintptr_t)(col / 8) * sbo + (uintptr_t)(k / per) * lbo + (uintptr_t)(col % 8) * 16 +
        (uintptr_t)(k % per) * e;
  } else if (mode == 1) {
    p = start + (uintptr_t)(col / 8) * sbo + (uintptr_t)(col % 8) * 128 + (uintptr_t)k * e;
    p ^= ((p >> 7) & 7) << 4;
  } else {
    fail("ran %s with a descriptor in swizzle mode %d; the emulator runs none (0) and 128 bytes (1)", kPtxNames[op],
         mode);
  }
  uintptr_t lo[3], hi[3];
  shared_regions(lo, hi);
  bool inside = false;
  for (int r = 0; r < 3; r++) inside = inside || (lo[r] && p >= lo[r] && p + bytes <= hi[r]);
  if (!inside)
    fail("ran %s on a descriptor whose tile reaches past the block's shared memory (column %d, k %d)", kPtxNames[op],
         col, k);
  return p;
}

// A wgmma's k (8 for tf32, 16 for f16 and bf16), and the column of B (and D) that this lane's
// accumulator e belongs to, t = lane % 4.
KR_EMU_RT int wgmma_k(PtxOp op) { return op == PTX_WGMMA_TF32 ? 8 : 16; }
KR_EMU_RT int wgmma_col(int e, int t) { return 8 * (e / 4) + 2 * t + e % 2; }

// Elements k0 .. k0 + 16 / e - 1 of column col of B (k0 a multiple of 16 / e; wgmma_addr: they are
// contiguous), as the tensor cores take them: tf32 without its low 13 bits.
KR_EMU_RT void wgmma_b16(uint64_t desc, uintptr_t start, int k0, int col, PtxOp op, float *out) {
  const char *p = (const char *)wgmma_addr(desc, start, k0, col, op, 16);
  if (op == PTX_WGMMA_TF32) {
    for (int j = 0; j < 4; j++) {
      uint32_t u;
      memcpy(&u, p + 4 * j, 4);
      out[j] = f32_of(u & 0xffffe000u);
    }
    return;
  }
  for (int j = 0; j < 8; j++) {
    unsigned short h;
    memcpy(&h, p + 2 * j, 2);
    out[j] = op == PTX_WGMMA_BF16 ? f32_of((uint32_t)h << 16) : h2f(h);
  }
}

// wgmma m64nNk8 tf32 (m64nNk16 f16, bf16) for this lane: its nd accumulators d[] += its warp's A rows
// (each lane's registers `a`, exchanged at a rendezvous of the warp) times B, read through the
// descriptor; returns a hash of the B elements it read (wgmma_b_hash).
KR_EMU_RT_OUT uint64_t wgmma_compute(PtxOp op, const uint32_t *a, uint64_t desc, int nd, float *d, const void *ra);
// The hash of the B elements this lane's nd accumulators read, read again now.
KR_EMU_RT_OUT uint64_t wgmma_b_hash(PtxOp op, uint64_t desc, int nd);
#ifdef KR_EMU_RUNTIME_TU
KR_EMU_RT uint64_t hash_step(uint64_t h, float v) { return (h ^ bits<uint32_t>(v)) * 0x100000001b3ull; }

KR_EMU_RT_OUT uint64_t wgmma_compute(PtxOp op, const uint32_t *a, uint64_t desc, int nd, float *d, const void *ra) {
  uint32_t *part = ptx_part(op);
  for (int k = 0; k < 4; k++) part[k] = a[k];
  uint32_t s;
  const Fiber *w = ptx_meet(op, &s);
  int g = (int)S.cur->lane / 4, t = (int)S.cur->lane % 4, kdim = wgmma_k(op);
  PtxOp frag = op == PTX_WGMMA_TF32 ? PTX_MMA_M16N8K8_TF32 : op == PTX_WGMMA_F16 ? PTX_MMA_M16N8K16_F16
                                                                                 : PTX_MMA_M16N8K16_BF16;
  uintptr_t start = shared_from_desc((uint32_t)((desc & 0x3fff) << 4), op);
  float arow[2][16];
  for (int h = 0; h < 2; h++) {
    if (kdim == 8) mma_row<1>(w, s, frag, g + 8 * h, arow[h]);
    else mma_row<2>(w, s, frag, g + 8 * h, arow[h]);
  }
  // The memory checker sees B read, 16 bytes at a time, by the first lane of each group of lanes that
  // shares columns (lanes t, t + 4, ... read the same ones), placed at the asm: its columns are those
  // of accumulators 4i and 4i + 1.
  for (int e = 0; ra && g == 0 && e < nd; e += e % 4 ? 3 : 1)
    for (int k = 0; k < kdim; k += kdim / 2)   // 2 x 16 bytes along k, whatever the type
      access(wgmma_addr(desc, start, k, wgmma_col(e, t), op, 16), 16, 0, ra);
  uint64_t hash = 0xcbf29ce484222325ull;
  int per = kdim / 2;   // elements in 16 bytes
  for (int e = 0; e < nd; e++) {
    int col = wgmma_col(e, t);
    double sum = d[e];
    for (int k0 = 0; k0 < kdim; k0 += per) {
      float b[8];
      wgmma_b16(desc, start, k0, col, op, b);
      for (int j = 0; j < per; j++) {
        hash = hash_step(hash, b[j]);
        sum += (double)(arow[(e % 4) / 2][k0 + j] * b[j]);
      }
    }
    d[e] = tc_round(sum);
  }
  return hash;
}

KR_EMU_RT_OUT uint64_t wgmma_b_hash(PtxOp op, uint64_t desc, int nd) {
  int t = (int)S.cur->lane % 4, kdim = wgmma_k(op);
  uintptr_t start = shared_from_desc((uint32_t)((desc & 0x3fff) << 4), op);
  uint64_t hash = 0xcbf29ce484222325ull;
  for (int e = 0; e < nd; e++)
    for (int k0 = 0; k0 < kdim; k0 += kdim / 2) {
      float b[8];
      wgmma_b16(desc, start, k0, wgmma_col(e, t), op, b);
      for (int j = 0; j < kdim / 2; j++) hash = hash_step(hash, b[j]);
    }
  return hash;
}
#endif

// A wgmma issued: its product is computed now, into the asm's registers (ptxas makes a use of them
// before the wait wait for it), and kept in flight until a wgmma.wait_group completes its commit
// group. The tensor cores read B at some time in between, so B must not change until then: at the
// completion it is read again, and a change stops the launch.
KR_EMU_RT_OUT void ptx_wgmma_issue(const PtxInstr &i, uint64_t *r);
// wgmma.commit_group: the products issued since the last one form a group.
KR_EMU_RT_OUT void ptx_wgmma_commit();
// wgmma.wait_group n: every committed group but the n most recent completes, in issue order.
KR_EMU_RT_OUT void ptx_wgmma_wait(int n);
#ifdef KR_EMU_RUNTIME_TU
KR_EMU_RT_OUT void ptx_wgmma_issue(const PtxInstr &i, uint64_t *r) {
  const void *ra = __builtin_return_address(0);   // in the kernel's code: the asm's place
  Fiber *f = S.cur;
  if (!f) fail("ran %s outside a kernel", kPtxNames[i.op]);
  uint32_t a[4];
  for (int k = 0; k < 4; k++) a[k] = (uint32_t)r[i.reg[i.nd + k]];
  uint64_t desc = r[i.reg[i.nd + 4]];
  float t[128];
  for (int e = 0; e < i.nd; e++) t[e] = f32_of((uint32_t)r[i.reg[e]]);
  uint64_t hash = wgmma_compute(i.op, a, desc, i.nd, t, ra);
  for (int e = 0; e < i.nd; e++) r[i.reg[e]] = bits<uint32_t>(t[e]);
  if (f->nwg == (uint32_t)kMaxWgmma)
    fail("issued more than %d wgmma products without waiting for them (wgmma.wait_group), the emulator's limit",
         kMaxWgmma);
  f->wg[f->nwg++] = WgPending{(uint8_t)i.op, i.nd, 0, desc, hash};
}

KR_EMU_RT_OUT void ptx_wgmma_commit() {
  Fiber *f = S.cur;
  if (!f) return;
  f->wg_groups++;
  for (uint32_t j = 0; j < f->nwg; j++)
    if (!f->wg[j].group) f->wg[j].group = f->wg_groups;
}

KR_EMU_RT_OUT void ptx_wgmma_wait(int n) {
  Fiber *f = S.cur;
  if (!f) return;
  uint32_t upto = f->wg_groups > (uint32_t)n ? f->wg_groups - (uint32_t)n : 0, keep = 0;
  for (uint32_t j = 0; j < f->nwg; j++) {
    WgPending p = f->wg[j];
    if (!p.group || p.group > upto) {
      f->wg[keep++] = p;
    } else if (wgmma_b_hash((PtxOp)p.op, p.desc, p.nd) != p.hash) {
      fail("changed the shared memory that a wgmma product reads through its descriptor (shared address 0x%05x) "
           "after issuing it and before wgmma.wait_group completed it: the tensor cores read it in between",
           (unsigned)((p.desc & 0x3fff) << 4));
    }
  }
  f->nwg = keep;
}
#endif

// Inlined into the kernel for read_row's sake; the rest runs in the functions above.
__attribute__((always_inline)) inline void ptx_run(const PtxInstr &i, uint64_t *r, const uint8_t *bytes) {
  if (is_ldmatrix(i.op)) {
    const void *p = ldmatrix_row(i, r, bytes[i.reg[ldmatrix_count(i.op)]]);
    ptx_ldmatrix(i, r, p ? read_row(p) : PtxRow{});
  } else if (i.op == PTX_CVT_RNA_TF32_F32) {
    ptx_cvt(i, r);
  } else if (i.op == PTX_WGMMA_TF32 || i.op == PTX_WGMMA_F16 || i.op == PTX_WGMMA_BF16) {
    ptx_wgmma_issue(i, r);
  } else if (i.op == PTX_WGMMA_COMMIT) {
    ptx_wgmma_commit();
  } else if (i.op == PTX_WGMMA_WAIT) {
    ptx_wgmma_wait(i.nd);
  } else if (i.op >= PTX_WGMMA_FENCE) {
    // wgmma.fence, fence.proxy.async: nothing to order (see the top of this file)
  } else {
    ptx_mma(i, r);
  }
}

// An asm statement of device code, as the emulator view writes it (see the top of this file).
template <class... Ops>
__attribute__((always_inline)) inline void ptx(std::initializer_list<PtxInstr> code, const Ops &...ops) {
  uint64_t r[sizeof...(Ops) + 1] = {ops.load()...};
  const uint8_t bytes[sizeof...(Ops) + 1] = {(uint8_t)Ops::bytes...};
  for (const PtxInstr &i : code) ptx_run(i, r, bytes);
  size_t k = 0;
  (ops.store(r[k++]), ...);
}

}  // namespace kr_emu

// The emulator's shared and global memory are in one address space: the "shared window" address of
// a pointer is the pointer itself (which ldmatrix above reads as such).
inline size_t __cvta_generic_to_shared(const void *p) { return (size_t)(uintptr_t)p; }
inline size_t __cvta_generic_to_global(const void *p) { return (size_t)(uintptr_t)p; }
inline void *__cvta_shared_to_generic(size_t a) { return (void *)(uintptr_t)a; }
inline void *__cvta_global_to_generic(size_t a) { return (void *)(uintptr_t)a; }

#endif
