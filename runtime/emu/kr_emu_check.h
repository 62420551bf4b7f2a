// runtime/emu/kr_emu_check.h: the memory checker of the CPU emulator, compiled into every
// emulator module (included by kr_cuda_shim.h after the scheduler).
//
// How it sees accesses. krewrite builds the module with -fsanitize=thread (runtime/emu.c), so g++
// calls __tsan_{read,write}{1,2,4,8,16}(addr) and __tsan_{read,write}_range(addr, n) before every
// load and store of the kernel code that may touch shared state (locals that never escape are
// left alone). No sanitizer runtime is linked: the callbacks are the shim's own, in the runtime
// object every module links (kr_emu_runtime.cc), over the functions here. ThreadSanitizer's
// instrumentation rather than AddressSanitizer's because the latter leaves out the store of a
// read-modify-write (`sum[0] += x`: one check per location and block) and constant-index accesses
// to visible variables (`s[0]` of a __shared__ array), which are what races and fresh shared
// memory are about. The shim's own machinery (scheduler, shuffles, atomics) is KR_EMU_NOSAN and
// tells the checker explicitly what it did (atomics, asynchronous copies).
//
// What it checks, for the running launch:
//   - bounds, to the byte: every live buffer's whole mapping (slack and guard pages included)
//     is watched, and an access outside [base, base + bytes) is refused;
//   - shared memory: static __shared__ variables (each in its own storage with redzones, from
//     shared_var; those the view could not rewrite in the kr_shared section) and the dynamic
//     shared memory are bounds-checked, poisoned (0xff) for every block, and reading a byte that
//     no thread of the block wrote is refused;
//   - races: each element of a buffer and each byte of shared memory remembers its last write and
//     a last read (block, thread, barrier epoch, warp clock, place). Two accesses by different
//     threads, at least one a write and not both atomic, conflict unless they are ordered:
//     threads of a block are ordered by __syncthreads (the block's epoch); lanes of one warp also
//     by any warp collective both took part in (__syncwarp, shuffles, votes: a rendezvous, tracked
//     with a vector clock per lane); different blocks of a launch are never ordered. A launch that
//     calls __threadfence is not checked across blocks (the fence-and-flag handshake of a
//     "last block" reduction is not modelled), only within them.
// The first finding stops the launch; the parent turns it into a message with file:line.
#ifndef KR_EMU_CHECK_H
#define KR_EMU_CHECK_H

// Static __shared__ variables live in this section so that the checker can poison and watch them.
extern "C" char __start_kr_shared[] __attribute__((weak, visibility("hidden")));
extern "C" char __stop_kr_shared[] __attribute__((weak, visibility("hidden")));
// The module's load address: places are reported as offsets from it (addr2line reads them).
extern "C" const char __ehdr_start[] __attribute__((visibility("hidden")));

namespace kr_emu {

// The last access of one kind to one element. tid is the thread's linear index + 1 (0: none).
// 16 bytes, so that a cell is half a cache line: the shadow's footprint is most of the cost.
struct Acc {
  uint32_t seq;     // the block's sequence number (unique across launches)
  uint32_t epoch;   // the block's barrier epoch at the access
  uint32_t pc;      // module offset of the access
  uint16_t clk;     // the thread's own warp clock at the access (compared modulo 2^16)
  uint16_t tid : 11, flags : 5;  // flags: KR_EMU_ACC_* of kr_emu_abi.h
};
struct alignas(32) Cell {
  Acc w, r;
};
static_assert(sizeof(Acc) == 16 && sizeof(Cell) == 32, "the shadow cells are packed");

struct Span {
  const char *name;     // a static shared variable's
  uintptr_t lo, hi;     // watched [lo, hi)
  uintptr_t base, end;  // in bounds [base, end)
  uint32_t shift;       // log2 of the element size tracked for races
  int space;            // KR_EMU_SPACE_*
  int64_t region;       // global: index in the launch's region table
  Cell *cells;          // one per element; NULL: no race tracking
  size_t cell_bytes;    // the mapping's size, when this span owns it
};

constexpr int kMaxSpans = 256;
constexpr int kMaxSharedVars = 128;
constexpr size_t kSharedArenaBytes = 4u << 20;  // static shared variables with their redzones

// A static __shared__ variable of the emulator view (shared_var): its storage in the arena.
struct SharedVar {
  const char *name;
  size_t offset, size, redzone;  // [offset, offset + size), redzone bytes on each side
};
constexpr uint32_t kMaxCellBytes = 1u << 30;  // no race shadow for buffers needing more
constexpr int kFastWindows = 4;

struct Check {
  // In-bounds windows of the buffers hit last that need no race tracking, the latest first: most
  // accesses end here, after a compare or two. Four, since a loop often reads two buffers and
  // updates a third (with two, every access of such a loop missed). Empty (len 0) outside a launch.
  uintptr_t fast_lo[kFastWindows] = {}, fast_len[kFastWindows] = {};
  bool on = false;      // a kernel thread is running under the checks
  bool race = false;         // shared memory's races
  bool race_global = false;  // global memory's
  int nspans = 0, last = 0;
  Span spans[kMaxSpans] = {};
  uintptr_t lo_all = 0, hi_all = 0;
  uint32_t seq = 0, first_seq = 0, epoch = 0;
  bool fenced = false;
  size_t stacks_len = 0;    // the fiber stacks' mapping, never watched
  uint32_t *vc = nullptr;   // kMaxThreads x 32: vc[t * 32 + l], thread t's view of lane l's clock
  Cell *static_cells = nullptr, *dyn_cells = nullptr;
  size_t static_cell_bytes = 0, dyn_cell_bytes = 0;
  size_t printf_bytes = 0;
  bool printf_cut = false;
  unsigned char *arena = nullptr;  // the static shared variables, and their cells
  Cell *arena_cells = nullptr;
  size_t arena_used = 0;
  int nvars = 0;
  SharedVar vars[kMaxSharedVars] = {};
};

KR_EMU_RT_VAR Check CK;

KR_EMU_RT uint32_t pc_of(const void *ra) {
  return ra ? (uint32_t)((const char *)ra - __ehdr_start - 1) : 0;
}

KR_EMU_RT void fill_access(KrEmuModAccess *a, const Acc &x) {
  a->pc = x.pc;
  a->rw = x.flags;
  uint32_t t = x.tid - 1u, bx = blockDim.x, by = blockDim.y;
  a->thread[0] = t % bx, a->thread[1] = (t / bx) % by, a->thread[2] = t / (bx * by);
}

// The block of sequence number `seq` in this launch, as (x, y, z).
KR_EMU_RT void block_of(uint32_t seq, uint32_t out[3]) {
  uint32_t b = seq - CK.first_seq, gx = gridDim.x, gy = gridDim.y;
  out[0] = b % gx, out[1] = (b / gx) % gy, out[2] = b / (gx * gy);
}

KR_EMU_RT Acc now_acc(uint16_t flags, uint32_t pc) {
  Fiber *f = S.cur;
  Acc a;
  a.seq = CK.seq;
  a.epoch = CK.epoch;
  a.clk = (uint16_t)(CK.vc ? CK.vc[f->linear * 32 + f->lane] : 0);
  a.pc = pc;
  a.tid = (uint16_t)(f->linear + 1) & 0x7ff;
  a.flags = flags & 0x1f;
  return a;
}

// Stops the launch with a finding; the parent writes the message.
[[noreturn]] KR_EMU_RT void stop(int kind, const Span &s, uintptr_t addr, size_t size,
                                 const Acc &now, const Acc *then) {
  KrEmuModResult *R = S.result;
  R->kind = kind;
  R->space = s.space;
  R->region = s.region;
  R->offset = (int64_t)(addr - s.base);
  R->size = size;
  R->extent = (uint64_t)(s.end - s.base);
  R->sym_offset = (uint64_t)((const char *)addr - __ehdr_start);
  if (s.name) snprintf(R->name, sizeof R->name, "%s", s.name);
  fill_access(&R->now, now);
  block_of(now.seq, R->now.block);
  if (then) {
    fill_access(&R->then, *then);
    block_of(then->seq, R->then.block);
  }
  snprintf(R->message, sizeof R->message, "stopped by the memory checker");
  CK.on = false;
  S.failed = true;
  to_main(S.cur);
  abort();
}

// True when access `p` (earlier) and the access being made now are ordered.
KR_EMU_RT bool ordered(const Acc &p, const Acc &now) {
  if (p.epoch != now.epoch) return true;
  uint32_t a = p.tid - 1u, b = now.tid - 1u;
  if (a / 32 != b / 32 || !CK.vc) return false;
  return (int16_t)(uint16_t)(CK.vc[b * 32 + (a % 32)] - p.clk) > 0;
}

// Whether `p` is an access of this launch (global) or block (shared) that may conflict.
KR_EMU_RT bool live(const Acc &p, const Span &s) {
  if (!p.tid) return false;
  return s.space == KR_EMU_SPACE_GLOBAL ? p.seq >= CK.first_seq : p.seq == CK.seq;
}

KR_EMU_RT bool conflict(const Acc &p, const Acc &now, const Span &s) {
  if (!live(p, s)) return false;
  // Two atomics never conflict; nor does an atomic with a plain read: the compare-and-swap loop
  // (`old = *p; do … atomicCAS(p, assumed, …)`) reads plainly and validates through the CAS.
  if ((p.flags | now.flags) & KR_EMU_ACC_ATOMIC) {
    bool pa = p.flags & KR_EMU_ACC_ATOMIC, na = now.flags & KR_EMU_ACC_ATOMIC;
    if (pa && na) return false;
    if (!((pa ? now.flags : p.flags) & KR_EMU_ACC_WRITE)) return false;
  }
  if (p.seq != now.seq) return !CK.fenced;  // different blocks of one launch
  if (p.tid == now.tid) return false;
  return !ordered(p, now);
}

KR_EMU_RT void race_one(const Span &s, uintptr_t addr, size_t size, Cell &c, const Acc &now) {
  bool write = now.flags & KR_EMU_ACC_WRITE;
  if (conflict(c.w, now, s)) stop(KR_EMU_FIND_RACE, s, addr, size, now, &c.w);
  if (write && conflict(c.r, now, s)) stop(KR_EMU_FIND_RACE, s, addr, size, now, &c.r);
  if (write) {
    c.w = now;
  } else if (!live(c.r, s) || c.r.tid == now.tid || c.r.seq != now.seq || ordered(c.r, now)) {
    c.r = now;  // else keep the earlier unordered reader: a later write conflicts with it too
  }
}

// Out of line: the callbacks inline only access() below, so that the runtime does not compile 30
// copies of this (which doubled its build time).
KR_EMU_RT_OUT void access_slow(Span &s, uintptr_t addr, size_t size, uint16_t flags, uint32_t pc);
#ifdef KR_EMU_RUNTIME_TU
KR_EMU_RT_OUT void access_slow(Span &s, uintptr_t addr, size_t size, uint16_t flags, uint32_t pc) {
  Acc now = now_acc(flags, pc);
  if (addr < s.base || addr + size > s.end || addr + size < addr)
    stop(KR_EMU_FIND_BOUNDS, s, addr < s.base || addr >= s.end ? addr : s.end, size, now, nullptr);
  if (!s.cells) return;
  bool write = flags & KR_EMU_ACC_WRITE;
  if (s.space != KR_EMU_SPACE_GLOBAL && (!write || (flags & KR_EMU_ACC_ATOMIC)))  // an atomic reads too
    for (uintptr_t b = addr; b < addr + size; b++) {
      const Acc &w = s.cells[b - s.base].w;
      if (!w.tid || w.seq != CK.seq) stop(KR_EMU_FIND_UNINIT, s, b, size, now, nullptr);
    }
  uintptr_t first = (addr - s.base) >> s.shift, last = (addr + size - 1 - s.base) >> s.shift;
  if (!CK.race) {
    if (write)  // shared memory: still needed to know what was written
      for (uintptr_t i = first; i <= last; i++) s.cells[i].w = now;
    return;
  }
  // The cells of one access mostly hold the same (shared memory keeps a cell per byte, and the
  // bytes of an element were written and read together): a cell equal to the first one as it was
  // gets the first one's outcome without the checks, which would find the same.
  Cell was = s.cells[first];
  race_one(s, addr, size, s.cells[first], now);
  for (uintptr_t i = first + 1; i <= last; i++) {
    Cell &c = s.cells[i];
    if (memcmp(&c, &was, sizeof c) == 0) c = s.cells[first];
    else race_one(s, addr, size, c, now);
  }
}
#endif

KR_EMU_RT void fast_install(const Span &s) {
  if (CK.fast_lo[0] == s.base) return;
  for (int i = kFastWindows - 1; i > 0; i--) CK.fast_lo[i] = CK.fast_lo[i - 1], CK.fast_len[i] = CK.fast_len[i - 1];
  CK.fast_lo[0] = s.base, CK.fast_len[0] = s.end - s.base;
}

KR_EMU_RT void fast_clear() {
  for (int i = 0; i < kFastWindows; i++) CK.fast_lo[i] = CK.fast_len[i] = 0;
}

KR_EMU_RT_OUT void access_span(uintptr_t addr, size_t size, uint16_t flags, const void *ra);

// Every instrumented access comes here: most are to a buffer hit lately, in bounds.
KR_EMU_RT void access(uintptr_t addr, size_t size, uint16_t flags, const void *ra) {
  for (int i = 0; i < kFastWindows; i++) {
    uintptr_t d = addr - CK.fast_lo[i];
    if (d < CK.fast_len[i] && size <= CK.fast_len[i] - d) return;
  }
  access_span(addr, size, flags, ra);
}

// The rest: which span, if any, and the checks.
#ifdef KR_EMU_RUNTIME_TU
KR_EMU_RT_OUT void access_span(uintptr_t addr, size_t size, uint16_t flags, const void *ra) {
  if (!CK.on || size == 0 || addr + size <= CK.lo_all || addr >= CK.hi_all || !S.cur) return;
  if (addr - (uintptr_t)S.stacks < CK.stacks_len) return;  // a thread's own escaped locals
  Span *s = &CK.spans[CK.last];
  if (!(addr + size > s->lo && addr < s->hi)) {
    s = nullptr;
    for (int i = 0; i < CK.nspans && !s; i++)
      if (addr + size > CK.spans[i].lo && addr < CK.spans[i].hi) s = &CK.spans[CK.last = i];
    if (!s) return;
  }
  if (!s->cells && addr >= s->base && addr + size <= s->end && addr + size > addr) {
    if (s->space == KR_EMU_SPACE_GLOBAL) fast_install(*s);
    return;
  }
  access_slow(*s, addr < s->lo ? s->lo : addr, size, flags, pc_of(ra));
}
#endif

// A load or store of a type (float4, uint4, double, a struct) at an address that is not a multiple
// of the type's alignment, into a buffer or shared memory: the GPU stops such a launch ("misaligned
// address"; a 16-byte vector access needs a 16-byte aligned address), so the emulator does too.
// The host would just do it, so -fsanitize=alignment asks here before every such access.
KR_EMU_RT_OUT void misaligned(uintptr_t addr, size_t align, uint16_t flags, const void *ra);
#ifdef KR_EMU_RUNTIME_TU
KR_EMU_RT_OUT void misaligned(uintptr_t addr, size_t align, uint16_t flags, const void *ra) {
  if (!CK.on || !S.cur || addr + align <= CK.lo_all || addr >= CK.hi_all) return;
  if (addr - (uintptr_t)S.stacks < CK.stacks_len) return;  // a thread's own locals
  for (int i = 0; i < CK.nspans; i++)
    if (addr + align > CK.spans[i].lo && addr < CK.spans[i].hi)
      stop(KR_EMU_FIND_MISALIGNED, CK.spans[i], addr, align, now_acc(flags, pc_of(ra)), nullptr);
}
#endif

// An atomic read-modify-write of `size` bytes at `p`, from the place `ra` (a return address).
KR_EMU_RT_OUT void check_atomic(const void *p, size_t size, const void *ra);
#ifdef KR_EMU_RUNTIME_TU
KR_EMU_RT_OUT void check_atomic(const void *p, size_t size, const void *ra) {
  access((uintptr_t)p, size, KR_EMU_ACC_WRITE | KR_EMU_ACC_ATOMIC, ra);
}
#endif

// An asynchronous copy completing: a read of `read` bytes of the source and a write of `size` bytes
// of the destination (the rest of them zero-filled), by the thread that issued it, placed where it
// was issued.
KR_EMU_RT void check_copy(const void *dst, const void *src, size_t read, size_t size, const void *ra) {
  if (!S.cur) return;
  if (read) access((uintptr_t)src, read, KR_EMU_ACC_ASYNC, ra);
  access((uintptr_t)dst, size, KR_EMU_ACC_WRITE | KR_EMU_ACC_ASYNC, ra);
}

KR_EMU_RT void check_fence() { CK.fenced = true; }

// A warp collective completed for the lanes of `group` in `warp`: each takes a step of its own
// clock, then all learn what any of them knew.
KR_EMU_RT void check_warp_sync(uint32_t warp, uint32_t group) {
  if (!CK.vc) return;
  uint32_t *base = CK.vc + (size_t)warp * 32 * 32, joined[32];
  for (uint32_t l = 0; l < 32; l++)
    if ((group >> l) & 1u) base[l * 32 + l]++;
  for (uint32_t k = 0; k < 32; k++) {
    uint32_t m = 0;
    for (uint32_t l = 0; l < 32; l++)
      if (((group >> l) & 1u) && base[l * 32 + k] > m) m = base[l * 32 + k];
    joined[k] = m;
  }
  for (uint32_t l = 0; l < 32; l++)
    if ((group >> l) & 1u) memcpy(base + l * 32, joined, sizeof joined);
}

KR_EMU_RT void check_barrier() { CK.epoch++; }

KR_EMU_RT Cell *cells_map(size_t bytes) {
  if (bytes == 0 || bytes > kMaxCellBytes) return nullptr;
  void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  return p == MAP_FAILED ? nullptr : static_cast<Cell *>(p);
}

KR_EMU_RT void add_span(const Span &s) {
  if (CK.nspans == kMaxSpans) return;
  CK.spans[CK.nspans++] = s;
  if (CK.nspans == 1 || s.lo < CK.lo_all) CK.lo_all = s.lo;
  if (CK.nspans == 1 || s.hi > CK.hi_all) CK.hi_all = s.hi;
}

// A variable's span: its bytes in bounds, half of each neighbouring redzone watched, so that an
// index a little past either end is reported against it.
KR_EMU_RT void add_var_span(const SharedVar &v) {
  Span s{};
  s.name = v.name;
  s.base = (uintptr_t)CK.arena + v.offset;
  s.end = s.base + v.size;
  s.lo = s.base - v.redzone / 2;
  s.hi = s.end + v.redzone / 2;
  s.space = KR_EMU_SPACE_SHARED;
  s.region = -1;
  s.cells = CK.arena_cells + v.offset;
  add_span(s);
}

// Storage for a static __shared__ variable, the first time a thread reaches its declaration:
// 16-byte aligned (or more), with a watched redzone of half the variable's size (32 B to 2 KiB)
// on each side, so an index a little past one array is not an index into the next.
KR_EMU_RT void *shared_alloc(size_t size, size_t align, const char *name) {
  if (!CK.arena) {
    // Placed as a GPU's shared window lays them out modulo its 256 KiB: the static variables from
    // where the dynamic shared memory ends (it sits at the end of its region), so that the low 18
    // bits of an address, all a wgmma descriptor keeps, name one place (kr_emu_ptx.h).
    constexpr size_t kWindow = 1u << 18;
    void *p = mmap(nullptr, kSharedArenaBytes + kWindow, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    CK.arena_cells = cells_map(kSharedArenaBytes * sizeof(Cell));
    if (p == MAP_FAILED || !CK.arena_cells) fail("ran out of memory for static shared memory");
    uintptr_t base = (uintptr_t)p, want = S.dyn_region ? (uintptr_t)S.dyn_region + S.dyn_region_bytes : base;
    CK.arena = reinterpret_cast<unsigned char *>(base + ((want - base) & (kWindow - 1)));
  }
  size_t red = size < 64 ? 64 : size > 4096 ? 4096 : (size + 15) & ~(size_t)15;
  if (align < 16) align = 16;
  // The watched halves of the redzones of this variable and of the one before must not overlap.
  size_t prev = CK.nvars ? CK.vars[CK.nvars - 1].redzone / 2 : 0;
  size_t off = (CK.arena_used + prev + red / 2 + align - 1) / align * align;
  if (CK.nvars == kMaxSharedVars || off + size + red > kSharedArenaBytes)
    fail("declares more static shared memory than the emulator holds (%zu variables, %zu KiB)",
         (size_t)kMaxSharedVars, kSharedArenaBytes >> 10);
  SharedVar &v = CK.vars[CK.nvars++];
  v = SharedVar{name, off, size, red};
  CK.arena_used = off + size;
  memset(CK.arena + off, 0xff, size);
  if (CK.on) add_var_span(v);
  return CK.arena + off;
}

// What a static __shared__ declaration of the emulator view refers to (emu_view.c): one variable
// per declaration (N) and template instance (T), as on the device.
template <class T, int N>
KR_EMU_NOSAN inline T &shared_var(const char *name) {
  static T *p = static_cast<T *>(shared_alloc(sizeof(T), alignof(T), name));
  return *p;
}

KR_EMU_RT uint32_t log2_of(uint64_t g) {
  return g == 2 ? 1 : g == 4 ? 2 : g == 8 ? 3 : g == 16 ? 4 : 0;
}

// Sets up the spans of a launch: the buffers, the static and the dynamic shared memory. Shared
// memory's cells are kept between launches (stale ones belong to an earlier block and read as
// unwritten); a buffer's are made for the launch.
KR_EMU_RT bool check_begin(const KrEmuModLaunch *L) {
  fast_clear();
  CK.nspans = 0;
  CK.last = 0;
  CK.lo_all = CK.hi_all = 0;
  CK.spans[0] = Span{};
  CK.race = L->race_check != KR_EMU_RACES_NONE;
  CK.race_global = L->race_check == KR_EMU_RACES_ALL;
  CK.fenced = false;
  CK.first_seq = CK.seq + 1;
  CK.printf_bytes = 0;
  CK.printf_cut = false;
  CK.stacks_len = (size_t)S.nstacks * (kStackBytes + (size_t)sysconf(_SC_PAGESIZE));
  if (!CK.vc) {
    CK.vc = static_cast<uint32_t *>(mmap(nullptr, kMaxThreads * 32 * sizeof(uint32_t),
                                         PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (CK.vc == MAP_FAILED) return CK.vc = nullptr, false;
  }
  for (size_t i = 0; i < L->nregions; i++) {
    const KrEmuModRegion &r = L->regions[i];
    Span s{};
    s.lo = r.map_lo, s.hi = r.map_hi, s.base = r.base, s.end = r.base + r.bytes;
    s.shift = log2_of(r.granule);
    s.space = KR_EMU_SPACE_GLOBAL;
    s.region = (int64_t)i;
    if (CK.race_global) {
      s.cell_bytes = ((r.bytes >> s.shift) + 1) * sizeof(Cell);
      s.cells = cells_map(s.cell_bytes);
      if (!s.cells) s.cell_bytes = 0;
    }
    add_span(s);
  }
  for (int i = 0; i < CK.nvars; i++) add_var_span(CK.vars[i]);
  size_t nstatic = (size_t)(__stop_kr_shared - __start_kr_shared);
  if (__start_kr_shared && nstatic) {
    if (!CK.static_cells) {
      CK.static_cell_bytes = nstatic * sizeof(Cell);
      CK.static_cells = cells_map(CK.static_cell_bytes);
      if (!CK.static_cells) return false;
    }
    Span s{};
    s.lo = s.base = (uintptr_t)__start_kr_shared;
    s.hi = s.end = (uintptr_t)__stop_kr_shared;
    s.space = KR_EMU_SPACE_SHARED;
    s.region = -1;
    s.cells = CK.static_cells;
    add_span(s);
  }
  if (L->shmem) {
    if (!CK.dyn_cells) {
      CK.dyn_cell_bytes = S.dyn_region_bytes * sizeof(Cell);
      CK.dyn_cells = cells_map(CK.dyn_cell_bytes);
      if (!CK.dyn_cells) return false;
    }
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    Span s{};
    s.lo = (uintptr_t)S.dyn_region;
    s.hi = (uintptr_t)S.dyn_region + S.dyn_region_bytes + page;
    s.base = (uintptr_t)S.dyn;
    s.end = (uintptr_t)S.dyn + S.dyn_bytes;
    s.space = KR_EMU_SPACE_DYNAMIC;
    s.region = -1;
    s.cells = CK.dyn_cells + (S.dyn - S.dyn_region);
    add_span(s);
  }
  return true;
}

KR_EMU_RT void check_end() {
  CK.on = false;
  fast_clear();
  for (int i = 0; i < CK.nspans; i++)
    if (CK.spans[i].cell_bytes) munmap(CK.spans[i].cells, CK.spans[i].cell_bytes);
  CK.nspans = 0;
}

// A new block: a fresh sequence number (every shared cell becomes stale), epoch 0, warp clocks 0,
// and poisoned static shared memory.
KR_EMU_RT void check_block(uint32_t nthreads) {
  CK.seq++;
  CK.epoch = 0;
  if (CK.vc && CK.race) memset(CK.vc, 0, (size_t)nthreads * 32 * sizeof(uint32_t));
  if (__start_kr_shared && __stop_kr_shared > __start_kr_shared)
    memset(__start_kr_shared, 0xff, (size_t)(__stop_kr_shared - __start_kr_shared));
  if (CK.arena_used) memset(CK.arena, 0xff, CK.arena_used);
}

}  // namespace kr_emu

#endif
