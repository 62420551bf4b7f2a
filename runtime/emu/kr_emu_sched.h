// runtime/emu/kr_emu_sched.h: the CPU emulator's scheduler, in every emulator module (included by
// kr_cuda_shim.h; C++17). Its functions are compiled once, into the runtime object each module
// links (kr_emu_runtime.cc); the kernel's code sees their bodies for inlining (KR_EMU_RT).
//
// Model. Blocks run one after another; the threads of a block run as fibers on one OS thread.
// A fiber runs until it blocks: at __syncthreads (a barrier of the whole block), at a warp
// collective (__shfl_sync, __ballot_sync, __syncwarp, …: a rendezvous of the lanes named in the
// mask), or when it returns. The scheduler then picks the next runnable fiber: the lowest thread
// first, or, with shuffle on, a random one (seeded), so that a missing __syncthreads shows up as a
// wrong result. When no fiber can run and some have not finished, the block has deadlocked; that
// is reported with who waits where, never left to hang.
//
// Since blocks never overlap, __shared__ variables can simply be static (in their own section,
// poisoned for every block by the memory checker). Since fibers only switch inside these calls,
// atomics are plain read-modify-writes (that tell the checker they were atomic).
//
// Everything here is KR_EMU_NOSAN: the memory checker (kr_emu_check.h) watches the kernel's
// accesses, not the scheduler's.
//
// Stacks: each thread gets kStackBytes from one mmap, with a PROT_NONE guard page below, reused
// by the next block. The context switch is a few instructions of assembly on x86-64 (glibc's
// swapcontext makes a system call per switch); other machines use ucontext.
#ifndef KR_EMU_SCHED_H
#define KR_EMU_SCHED_H

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

namespace kr_emu {

constexpr uint32_t kStackBytes = 256u * 1024u;
constexpr uint32_t kMaxThreads = 1024;
constexpr int kMaxCopies = 64;       // pending __pipeline_memcpy_async copies per thread
constexpr int kWarpBytes = 32;       // the largest value a warp shuffle carries
constexpr int kMmaBytes = 1024;      // the largest WMMA accumulator tile (kr_emu_wmma.h)
constexpr int kPtxWords = 10;        // a lane's part of a warp-wide PTX instruction (kr_emu_ptx.h)
constexpr int kMaxWgmma = 32;        // wgmma products in flight per thread (kr_emu_ptx.h)

enum : uint8_t { F_RUNNABLE, F_BAR, F_WARP, F_DONE, F_NAP };   // F_NAP: at __nanosleep (kr_emu_resident.h)

enum WarpOp : uint8_t {
  W_SYNC, W_SHFL_IDX, W_SHFL_UP, W_SHFL_DOWN, W_SHFL_XOR, W_BALLOT, W_ANY, W_ALL, W_MATCH_ANY,
  W_MATCH_ALL, W_RED_ADD, W_RED_MIN, W_RED_MAX, W_RED_UMIN, W_RED_UMAX, W_RED_AND, W_RED_OR,
  W_RED_XOR, W_PTX   // W_PTX: a warp-wide PTX instruction (kr_emu_ptx.h), named by op_name
};

// A wgmma product issued and not yet waited for (kr_emu_ptx.h): B's descriptor and the hash of what
// this lane's part read of it, checked again when its commit group completes.
struct WgPending {
  uint8_t op, nd;
  uint32_t group;              // 0: not committed yet
  uint64_t desc, hash;
};

struct Copy {
  void *dst;
  const void *src;
  uint32_t size, zfill;
  uint64_t batch;
  const void *ra;              // where it was issued, for the memory checker
};

struct Fiber {
  void *sp;                    // saved stack pointer (x86-64 switch)
#if !defined(__x86_64__)
  ucontext_t uc;
#endif
  char *stack;                 // lowest usable byte; the guard page is just below
  uint3 tid;
  uint32_t linear, lane, warp;
  uint8_t state, op;
  const char *op_name;         // where it waits, for deadlock reports
  uint32_t mask;               // warp collective: the lanes named
  int arg, width;
  uint32_t size;
  alignas(16) unsigned char val[kWarpBytes];
  alignas(16) unsigned char res[kWarpBytes];
  uint32_t res_mask;
  int res_pred;
  int bar_pred, bar_res;       // bar_pred 3: at the split cluster barrier; 4: at a kr_cluster_wait (mb_addr)
  const void *mb_addr;         // the mbarrier a kr_cluster_wait waits on (kr_emu_cluster.h)
  bool cl_arrived;             // at the split cluster barrier: arrived, not yet waited
  uint32_t cl_phase;           // the cluster barrier's phase it arrived in
  uint32_t ncopies;
  uint64_t committed;          // __pipeline_commit count
  Copy copies[kMaxCopies];
  alignas(16) unsigned char mma[kMmaBytes];   // a warp's product, in its first live lane (kr_emu_wmma.h)
  uint32_t ptx_count;                   // warp-wide PTX instructions run (kr_emu_ptx.h)
  uint32_t ptx_part[2][kPtxWords];      // this lane's part of the last two, by ptx_count's parity
  uint32_t nwg, wg_groups;              // wgmma products in flight; commit groups closed so far
  WgPending wg[kMaxWgmma];
};

struct State {
  Fiber *fibers = nullptr;     // kMaxThreads of them, mmap'd once
  char *stacks = nullptr;
  uint32_t nstacks = 0;
  uint32_t n = 0;              // threads per block in this launch
  uint32_t ndone = 0, nbar = 0;
  uint32_t rq[kMaxThreads] = {};
  uint32_t rq_head = 0, rq_len = 0;
  Fiber *cur = nullptr;
  void *main_sp = nullptr;
#if !defined(__x86_64__)
  ucontext_t main_uc;
#endif
  bool shuffle = false;
  uint64_t rng = 0;
  void (*entry)(void **) = nullptr;
  void **args = nullptr;
  bool failed = false;
  KrEmuModResult *result = nullptr;
  unsigned char *dyn_region = nullptr;  // KR_EMU_MAX_DYN_SMEM (page-rounded) + a guard page
  size_t dyn_region_bytes = 0;
  unsigned char *dyn = nullptr;         // this launch's dynamic shared memory
  size_t dyn_bytes = 0;
  uint64_t clock = 0;
  uint64_t progress = 0;       // fiber turns that ended other than in a nap (kr_emu_resident.h)
};

KR_EMU_RT_VAR State S;

}  // namespace kr_emu

// The built-in index variables. The scheduler copies the running fiber's index into threadIdx
// before switching to it; the compiler reloads it after every call that may switch.
KR_EMU_RT_VAR uint3 threadIdx;
KR_EMU_RT_VAR uint3 blockIdx;
KR_EMU_RT_VAR dim3 blockDim;
KR_EMU_RT_VAR dim3 gridDim;
constexpr int warpSize = 32;

// ---- Context switch --------------------------------------------------------------------------

#if defined(__x86_64__)
extern "C" __attribute__((visibility("hidden"))) void kr_emu_swap(void **save, void *to);
// Saves the callee-saved registers on the current stack, stores the stack pointer in *save,
// loads `to` and restores the registers saved there. A new fiber's stack is prepared so that
// this "returns" into its entry function (kr_emu::fiber_start). Assembled once, in the runtime
// object (kr_emu_runtime.cc).
#ifdef KR_EMU_RUNTIME_TU
__asm__(
    ".pushsection .text\n"
    ".p2align 4\n"
    ".globl kr_emu_swap\n"
    ".hidden kr_emu_swap\n"
    ".type kr_emu_swap,@function\n"
    "kr_emu_swap:\n"
    "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
    "  movq %rsp, (%rdi)\n"
    "  movq %rsi, %rsp\n"
    "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
    "  ret\n"
    ".size kr_emu_swap, .-kr_emu_swap\n"
    ".popsection\n");
#endif
#endif

namespace kr_emu {

[[noreturn]] KR_EMU_RT void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
KR_EMU_RT void fiber_finish(Fiber *f);
// The memory checker's hooks (kr_emu_check.h): what orders the threads, and asynchronous copies.
KR_EMU_RT void check_barrier();
KR_EMU_RT void check_warp_sync(uint32_t warp, uint32_t group);
KR_EMU_RT void check_block(uint32_t nthreads);
KR_EMU_RT void check_copy(const void *dst, const void *src, size_t read, size_t size, const void *ra);

KR_EMU_RT void to_main(Fiber *f) {
#if defined(__x86_64__)
  kr_emu_swap(&f->sp, S.main_sp);
#else
  swapcontext(&f->uc, &S.main_uc);
#endif
}

KR_EMU_RT void to_fiber(Fiber *f) {
#if defined(__x86_64__)
  kr_emu_swap(&S.main_sp, f->sp);
#else
  swapcontext(&S.main_uc, &f->uc);
#endif
}

// A fiber's first frame: run the kernel for this thread, then finish and never come back.
KR_EMU_RT_OUT void fiber_start();
#ifdef KR_EMU_RUNTIME_TU
KR_EMU_RT_OUT void fiber_start() {
  Fiber *f = S.cur;
  S.entry(S.args);
  fiber_finish(f);
  to_main(f);
  __builtin_trap();  // a finished fiber is never resumed
}
#endif

KR_EMU_RT void fiber_prepare(Fiber *f) {
  char *top = f->stack + kStackBytes;
#if defined(__x86_64__)
  void **sp = reinterpret_cast<void **>(top);
  *--sp = nullptr;                                          // fiber_start's return address
  *--sp = reinterpret_cast<void *>(&fiber_start);           // where kr_emu_swap's ret goes
  for (int i = 0; i < 6; i++) *--sp = nullptr;              // rbp rbx r12 r13 r14 r15
  f->sp = sp;
#else
  getcontext(&f->uc);
  f->uc.uc_stack.ss_sp = f->stack;
  f->uc.uc_stack.ss_size = kStackBytes;
  f->uc.uc_link = nullptr;
  makecontext(&f->uc, (void (*)())fiber_start, 0);
#endif
}

// ---- Random order ------------------------------------------------------------------------------

KR_EMU_RT uint64_t next_random() {  // xorshift64*
  uint64_t x = S.rng;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  S.rng = x;
  return x * 0x2545F4914F6CDD1Dull;
}

KR_EMU_RT void rq_push(uint32_t i) {
  S.rq[(S.rq_head + S.rq_len) % S.n] = i;
  S.rq_len++;
}

KR_EMU_RT uint32_t rq_pick() {
  if (S.shuffle && S.rq_len > 1) {
    uint32_t k = (uint32_t)(next_random() % S.rq_len);
    uint32_t a = S.rq_head, b = (S.rq_head + k) % S.n;
    uint32_t t = S.rq[a];
    S.rq[a] = S.rq[b];
    S.rq[b] = t;
  }
  uint32_t i = S.rq[S.rq_head];
  S.rq_head = (S.rq_head + 1) % S.n;
  S.rq_len--;
  return i;
}

// Gives the processor back to the scheduler; returns when this fiber is picked again.
KR_EMU_RT void yield() {
  Fiber *f = S.cur;
  if (!f) fail("called a block-level operation outside a kernel");
  to_main(f);
}

// __nanosleep in a kernel: the thread naps, out of the run queue, until its block has nothing else
// to run and has had its turn among the resident blocks (kr_emu_resident.h): a thread that polls
// memory another block writes lets that block run. In host code it returns at once.
KR_EMU_RT void nap() {
  Fiber *f = S.cur;
  if (!f) return;
  f->state = F_NAP;
  f->op_name = "__nanosleep";
  yield();
}

KR_EMU_RT bool napping() {
  for (uint32_t i = 0; i < S.n; i++)
    if (S.fibers[i].state == F_NAP) return true;
  return false;
}

// The running block's napping threads back in its run queue, to poll again.
KR_EMU_RT void wake_naps() {
  for (uint32_t i = 0; i < S.n; i++)
    if (S.fibers[i].state == F_NAP) S.fibers[i].state = F_RUNNABLE, rq_push(i);
}

// ---- Barriers ------------------------------------------------------------------------------------

// __syncthreads and its _count/_and/_or forms: the count of threads whose predicate was true.
// The barrier opens only when every thread of the block has arrived; a thread that has returned
// never arrives, so waiting for it is a deadlock (reported when nothing else can run).
KR_EMU_RT int block_barrier(int pred, const char *name) {
  Fiber *f = S.cur;
  if (!f) fail("called %s outside a kernel", name);
  f->bar_pred = pred != 0;
  f->state = F_BAR;
  f->op_name = name;
  if (++S.nbar == S.n) {
    int count = 0;
    for (uint32_t i = 0; i < S.n; i++) count += S.fibers[i].bar_pred;
    for (uint32_t i = 0; i < S.n; i++) {
      S.fibers[i].bar_res = count;
      S.fibers[i].state = F_RUNNABLE;
      rq_push(i);
    }
    S.nbar = 0;
    check_barrier();
  }
  yield();
  return f->bar_res;
}

// ---- Warp collectives ----------------------------------------------------------------------------

KR_EMU_RT bool lane_waits(const Fiber &g, uint32_t mask) {
  return g.state == F_WARP && g.mask == mask;
}

// The lanes of the mask in `warp` that take part: those that exist and have not returned.
KR_EMU_RT uint32_t group_of(uint32_t warp, uint32_t mask) {
  uint32_t group = 0;
  for (uint32_t l = 0; l < 32; l++) {
    uint32_t i = warp * 32 + l;
    if (i < S.n && ((mask >> l) & 1u) && S.fibers[i].state != F_DONE) group |= 1u << l;
  }
  return group;
}

KR_EMU_RT bool shfl_source(const Fiber &g, int *src) {
  int lane = (int)g.lane, w = g.width;
  if (w <= 0 || w > 32 || (w & (w - 1)))
    fail("used a warp shuffle width of %d, which is not a power of two from 1 to 32", w);
  int seg = lane & ~(w - 1);
  switch (g.op) {
  case W_SHFL_IDX: *src = seg + (g.arg & (w - 1)); return true;
  case W_SHFL_UP:
    if ((unsigned)g.arg > 31u || lane - seg - g.arg < 0) return false;
    *src = lane - g.arg;
    return true;
  case W_SHFL_DOWN:
    if ((unsigned)g.arg > 31u || lane - seg + g.arg >= w) return false;
    *src = lane + g.arg;
    return true;
  default:  // W_SHFL_XOR: lanes of later segments are out of reach
    *src = lane ^ g.arg;
    return *src >= 0 && *src < seg + w && *src < 32;
  }
}

KR_EMU_RT void warp_results(uint32_t warp, uint32_t group) {
  Fiber *base = &S.fibers[warp * 32];
  uint32_t first = (uint32_t)__builtin_ctz(group);
  uint8_t op = base[first].op;
  for (uint32_t l = 0; l < 32; l++)
    if (((group >> l) & 1u) && (base[l].op != op || (op == W_PTX && base[l].op_name != base[first].op_name)))
      fail("reached different warp operations in lanes %u (%s) and %u (%s) of warp %u", first,
           base[first].op_name, l, base[l].op_name, warp);
  uint32_t votes = 0;
  for (uint32_t l = 0; l < 32; l++)
    if (((group >> l) & 1u) && base[l].arg) votes |= 1u << l;
  for (uint32_t l = 0; l < 32; l++) {
    if (!((group >> l) & 1u)) continue;
    Fiber &g = base[l];
    switch (op) {
    case W_SYNC: break;
    case W_PTX: g.res_mask = group; break;   // the lanes that met, which must be all 32
    case W_SHFL_IDX: case W_SHFL_UP: case W_SHFL_DOWN: case W_SHFL_XOR: {
      int src;
      if (!shfl_source(g, &src)) memcpy(g.res, g.val, g.size);
      else if ((group >> src) & 1u) memcpy(g.res, base[src].val, g.size);
      else memset(g.res, 0xff, g.size);  // a lane outside the mask or gone: undefined, poisoned
      break;
    }
    case W_BALLOT: g.res_mask = votes; break;
    case W_ANY: g.res_pred = votes != 0; break;
    case W_ALL: g.res_pred = votes == group; break;
    case W_MATCH_ANY: case W_MATCH_ALL: {
      uint32_t same = 0;
      for (uint32_t k = 0; k < 32; k++)
        if (((group >> k) & 1u) && memcmp(base[k].val, g.val, g.size) == 0) same |= 1u << k;
      g.res_pred = same == group;
      g.res_mask = op == W_MATCH_ANY ? same : (same == group ? group : 0);
      break;
    }
    default: {  // __reduce_*_sync over 32-bit values
      uint32_t acc = 0;
      bool started = false;
      for (uint32_t k = 0; k < 32; k++) {
        if (!((group >> k) & 1u)) continue;
        uint32_t v;
        memcpy(&v, base[k].val, 4);
        if (!started) { acc = v; started = true; continue; }
        switch (op) {
        case W_RED_ADD: acc += v; break;
        case W_RED_MIN: acc = (int32_t)v < (int32_t)acc ? v : acc; break;
        case W_RED_MAX: acc = (int32_t)v > (int32_t)acc ? v : acc; break;
        case W_RED_UMIN: acc = v < acc ? v : acc; break;
        case W_RED_UMAX: acc = v > acc ? v : acc; break;
        case W_RED_AND: acc &= v; break;
        case W_RED_OR: acc |= v; break;
        default: acc ^= v; break;
        }
      }
      memcpy(g.res, &acc, 4);
    }
    }
  }
  check_warp_sync(warp, group);
  for (uint32_t l = 0; l < 32; l++)
    if ((group >> l) & 1u) {
      base[l].state = F_RUNNABLE;
      rq_push(warp * 32 + l);
    }
}

// Whether every live lane of the mask in `warp` waits at its collective. Looked for from the lane
// after `from` on, round the warp: lanes mostly arrive in order, and the first one not there ends
// the search.
KR_EMU_RT bool warp_ready(uint32_t warp, uint32_t mask, uint32_t from) {
  for (uint32_t k = 1; k <= 32; k++) {
    uint32_t l = (from + k) & 31u, i = warp * 32 + l;
    if (i >= S.n || !((mask >> l) & 1u)) continue;
    const Fiber &g = S.fibers[i];
    if (g.state != F_DONE && !lane_waits(g, mask)) return false;
  }
  return true;
}

// Completes the collective of `mask` in `warp` if every live lane of the mask has arrived (lane
// `from` has just arrived or returned).
KR_EMU_RT void warp_try(uint32_t warp, uint32_t mask, uint32_t from) {
  if (!warp_ready(warp, mask, from)) return;
  uint32_t group = group_of(warp, mask);
  if (group) warp_results(warp, group);
}

// A lane arrives at a warp collective with its value; returns when the collective completed.
KR_EMU_RT Fiber *warp_arrive(uint8_t op, const char *name, uint32_t mask, int arg, int width,
                             const void *val, uint32_t size) {
  Fiber *f = S.cur;
  if (!f) fail("called %s outside a kernel", name);
  if (!((mask >> f->lane) & 1u))
    fail("called %s in lane %u with mask 0x%08x, which leaves that lane out", name, f->lane, mask);
  f->op = op;
  f->op_name = name;
  f->mask = mask;
  f->arg = arg;
  f->width = width;
  f->size = size;
  if (size) memcpy(f->val, val, size);
  f->state = F_WARP;
  warp_try(f->warp, mask, f->lane);
  yield();
  return f;
}

// The lanes of the running thread's warp that exist and have not returned.
KR_EMU_RT uint32_t live_lanes() {
  Fiber *f = S.cur;
  if (!f) return 0xffffffffu;
  uint32_t m = 0;
  for (uint32_t l = 0; l < 32; l++) {
    uint32_t i = f->warp * 32 + l;
    if (i < S.n && S.fibers[i].state != F_DONE) m |= 1u << l;
  }
  return m;
}

// The buffer a warp's WMMA product is shared through: its first live lane's.
KR_EMU_RT unsigned char *mma_buffer() {
  Fiber *f = S.cur;
  return S.fibers[f->warp * 32 + (uint32_t)__builtin_ctz(live_lanes())].mma;
}

// ---- Asynchronous copies ---------------------------------------------------------------------------
// __pipeline_memcpy_async is deferred: the copy happens when a __pipeline_wait_prior covers its
// batch (or when the thread returns), so reading the destination before waiting sees stale data,
// as it may on the device.

KR_EMU_RT void copy_do(const Copy &c) {
  check_copy(c.dst, c.src, c.size - c.zfill, c.size, c.ra);
  memcpy(c.dst, c.src, c.size - c.zfill);
  memset(static_cast<char *>(c.dst) + (c.size - c.zfill), 0, c.zfill);
}

KR_EMU_RT void copies_complete(Fiber *f, uint64_t upto) {  // batches < upto
  uint32_t keep = 0;
  for (uint32_t i = 0; i < f->ncopies; i++) {
    if (f->copies[i].batch < upto) copy_do(f->copies[i]);
    else f->copies[keep++] = f->copies[i];
  }
  f->ncopies = keep;
}

KR_EMU_RT_OUT void copy_async(void *dst, const void *src, size_t size, size_t zfill);
#ifdef KR_EMU_RUNTIME_TU
KR_EMU_RT_OUT void copy_async(void *dst, const void *src, size_t size, size_t zfill) {
  const void *ra = __builtin_return_address(0);
  Fiber *f = S.cur;
  if (zfill > size) fail("called __pipeline_memcpy_async with zfill %zu, larger than its size %zu", zfill, size);
  if (!f) {
    copy_do(Copy{dst, src, (uint32_t)size, (uint32_t)zfill, 0, ra});
    return;
  }
  if (f->ncopies == kMaxCopies) {  // finishing the oldest early is a schedule the device may pick
    copy_do(f->copies[0]);
    memmove(f->copies, f->copies + 1, (kMaxCopies - 1) * sizeof(Copy));
    f->ncopies--;
  }
  f->copies[f->ncopies++] = Copy{dst, src, (uint32_t)size, (uint32_t)zfill, f->committed, ra};
}
#endif

KR_EMU_RT void copy_commit() {
  if (S.cur) S.cur->committed++;
}

KR_EMU_RT void copy_wait_prior(size_t n) {
  Fiber *f = S.cur;
  if (f && f->committed > n) copies_complete(f, f->committed - n);
}

// ---- Finishing, failing, deadlocks -------------------------------------------------------------------

KR_EMU_RT void fiber_finish(Fiber *f) {
  copies_complete(f, UINT64_MAX);
  f->state = F_DONE;
  S.ndone++;
  // Lanes waiting at a collective may have waited only for this one.
  for (uint32_t l = 0; l < 32; l++) {
    uint32_t i = f->warp * 32 + l;
    if (i < S.n && S.fibers[i].state == F_WARP) warp_try(f->warp, S.fibers[i].mask, l);
  }
}

[[noreturn]] KR_EMU_RT void fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *m = S.result ? S.result->message : nullptr;
  size_t cap = sizeof(KrEmuModResult::message);
  if (m) {
    int k = vsnprintf(m, cap, fmt, ap);
    if (S.cur && k >= 0 && (size_t)k < cap)
      snprintf(m + k, cap - (size_t)k, " (block (%u,%u,%u), thread (%u,%u,%u))", blockIdx.x,
               blockIdx.y, blockIdx.z, S.cur->tid.x, S.cur->tid.y, S.cur->tid.z);
  }
  va_end(ap);
  S.failed = true;
  if (S.cur) to_main(S.cur);  // never resumed: the launch ends here
  abort();
}

struct Text {
  char *p;
  size_t cap, len;
  void put(const char *fmt, ...) __attribute__((format(printf, 2, 3))) {
    va_list ap;
    va_start(ap, fmt);
    if (len < cap) {
      int k = vsnprintf(p + len, cap - len, fmt, ap);
      if (k > 0) len = len + (size_t)k < cap ? len + (size_t)k : cap - 1;
    }
    va_end(ap);
  }
};

// "0-15, 17, 20-31" of the threads (linear index in the block) that satisfy `pick`.
template <class Pick>
KR_EMU_NOSAN inline bool put_ranges(Text &t, Pick pick) {
  bool any = false;
  for (uint32_t i = 0; i < S.n;) {
    if (!pick(S.fibers[i])) {
      i++;
      continue;
    }
    uint32_t j = i;
    while (j + 1 < S.n && pick(S.fibers[j + 1])) j++;
    t.put(any ? ", %u" : "%u", i);
    if (j > i) t.put("-%u", j);
    any = true;
    i = j + 1;
  }
  return any;
}

KR_EMU_RT void report_deadlock() {
  Text t{S.result->message, sizeof(KrEmuModResult::message), 0};
  t.put("deadlocked in block (%u,%u,%u): ", blockIdx.x, blockIdx.y, blockIdx.z);
  bool first = true;
  const char *seen[8];
  int nseen = 0;
  for (uint32_t i = 0; i < S.n; i++) {
    const Fiber &f = S.fibers[i];
    if (f.state != F_BAR && f.state != F_WARP && f.state != F_NAP) continue;
    bool dup = false;
    for (int k = 0; k < nseen; k++) dup |= seen[k] == f.op_name;
    if (dup || nseen == 8) continue;
    seen[nseen++] = f.op_name;
    const char *name = f.op_name;
    t.put(first ? "threads " : "; threads ");
    put_ranges(t, [name](const Fiber &g) {
      return (g.state == F_BAR || g.state == F_WARP || g.state == F_NAP) && g.op_name == name;
    });
    if (f.state == F_WARP) t.put(" wait at %s (mask 0x%08x)", name, f.mask);
    else t.put(" wait at %s", name);
    first = false;
  }
  if (S.ndone) {
    t.put(" while threads ");
    put_ranges(t, [](const Fiber &g) { return g.state == F_DONE; });
    t.put(" have exited");
  }
  if (blockDim.y > 1 || blockDim.z > 1) t.put(" (threads by linear index x + y*%u + z*%u)", blockDim.x,
                                             blockDim.x * blockDim.y);
  S.failed = true;
}

// ---- Running a launch ---------------------------------------------------------------------------------

KR_EMU_RT bool pools_ready() {
  if (S.fibers) return true;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t fb = (sizeof(Fiber) * kMaxThreads + page - 1) / page * page;
  void *p = mmap(nullptr, fb, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return false;
  S.fibers = static_cast<Fiber *>(p);
  size_t dyn = (KR_EMU_MAX_DYN_SMEM + page - 1) / page * page;
  void *d = mmap(nullptr, dyn + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (d == MAP_FAILED) return false;
  mprotect(static_cast<char *>(d) + dyn, page, PROT_NONE);
  S.dyn_region = static_cast<unsigned char *>(d);
  S.dyn_region_bytes = dyn;
  return true;
}

KR_EMU_RT bool stacks_ready(uint32_t n) {
  if (n <= S.nstacks) return true;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t one = kStackBytes + page;
  void *p = mmap(nullptr, one * n, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return false;
  if (S.stacks) munmap(S.stacks, (kStackBytes + page) * S.nstacks);
  S.stacks = static_cast<char *>(p);
  S.nstacks = n;
  for (uint32_t i = 0; i < n; i++) mprotect(S.stacks + one * i, page, PROT_NONE);
  return true;
}

// A block's fibers (S.fibers, on the stacks from number `stack0` on) ready to start, all in the run
// queue; fresh shared memory for the memory checker.
KR_EMU_RT void block_start(size_t stack0) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  uint32_t bx = blockDim.x, by = blockDim.y;
  for (uint32_t i = 0; i < S.n; i++) {
    Fiber *f = &S.fibers[i];
    f->stack = S.stacks + (stack0 + i) * (kStackBytes + page) + page;
    f->tid = uint3{i % bx, (i / bx) % by, i / (bx * by)};
    f->linear = i;
    f->lane = i % 32;
    f->warp = i / 32;
    f->state = F_RUNNABLE;
    f->op_name = "";
    f->ncopies = 0;
    f->committed = 0;
    f->ptx_count = 0;
    f->nwg = 0;
    f->wg_groups = 0;
    f->bar_pred = 0;
    f->cl_arrived = false;
    fiber_prepare(f);
  }
  S.rq_head = 0;
  S.rq_len = 0;
  for (uint32_t i = 0; i < S.n; i++) rq_push(i);
  S.ndone = 0;
  S.nbar = 0;
  check_block(S.n);
  if (S.dyn_bytes) memset(S.dyn, 0xff, S.dyn_bytes);  // uninitialised shared memory reads as NaN
}

// Runs the next fiber of the run queue until it blocks or returns; false when the launch failed.
KR_EMU_RT bool step() {
  Fiber *f = &S.fibers[rq_pick()];
  S.cur = f;
  threadIdx = f->tid;
  to_fiber(f);
  S.cur = nullptr;
  if (f->state != F_NAP) S.progress++;
  return !S.failed;
}

enum BlockEnd { B_FAILED, B_DONE, B_NAPS };   // B_NAPS: nothing of it can run, and some threads nap

// The running block until it is done, fails, or stalls with napping threads (they wait on memory
// that another block is to write: kr_emu_resident.h runs the others).
KR_EMU_RT BlockEnd run_on() {
  while (S.ndone < S.n) {
    if (S.rq_len == 0) {
      if (napping()) return B_NAPS;
      report_deadlock();
      return B_FAILED;
    }
    if (!step()) return B_FAILED;
  }
  return B_DONE;
}

KR_EMU_RT BlockEnd run_block() {
  block_start(0);
  return run_on();
}

}  // namespace kr_emu

#endif
