// runtime/emu/kr_emu_cluster.h: thread block clusters for the CPU emulator (included by
// kr_cuda_shim.h after the scheduler and the memory checker).
//
// Model. A kernel compiled with __cluster_dims__(X, Y, Z) (the emulator view tells the launch) runs
// cluster by cluster: the blocks of one cluster are live together, each with its own fibers and
// stacks, and the scheduler runs one block until none of its threads can go on (they wait at a
// cluster barrier, or at a block barrier or warp collective that only its own threads can open),
// then switches to another block of the cluster that can. cluster.sync() opens when every thread
// of every block of the cluster has arrived; a cluster whose blocks all wait on each other in some
// other way has deadlocked, which is reported.
//
// Shared memory. The memory checker knows one block's shared memory at a time (its static
// variables, the kr_shared section, the dynamic shared memory, and their shadow cells, at fixed
// addresses). So the block that runs has them in place, and each other block of the cluster has its
// copy in a save area of its own: switching blocks copies the running block's out and the next
// one's in. Distributed shared memory (cluster.map_shared_rank(p, r)) gives a pointer into block r's
// save area, which is where block r's shared memory is whenever the asking block runs. Accesses
// through such a pointer are not watched by the memory checker (no bounds, no races, and a write
// there is not known to r's record of which bytes it wrote: a later read by r itself of a byte only
// another block wrote is reported as uninitialised).
//
// Memory. Every thread of a cluster has its own stack (kStackBytes), so a cluster of 16 blocks of
// 1024 threads would need more address space than the emulator's child may map (4 GiB): clusters
// of up to 8 such blocks run; larger ones stop with "out of memory for … thread stacks".
#ifndef KR_EMU_CLUSTER_H
#define KR_EMU_CLUSTER_H

namespace kr_emu {

constexpr uint32_t kMaxCluster = 16;  // Hopper's largest (non-portable) cluster
constexpr uint32_t kMaxResident = 64; // blocks that wait on each other through memory, at once (kr_emu_resident.h)

// A block of the running cluster while another block of it runs.
struct BlockCtx {
  Fiber *fibers;
  uint32_t ndone, nbar, rq_head, rq_len;
  uint32_t *rq;
  uint3 idx;
  uint32_t seq, epoch;
  size_t arena_len;                 // the static variables' bytes saved (arena_used when it stopped)
  size_t arena_cap;                 // room in `arena` (and cells in `arena_cells`): grown as the arena grows
  unsigned char *arena, *section, *dyn;             // its shared memory, saved
  Cell *arena_cells, *section_cells, *dyn_cells;    // and the memory checker's cells of it
  uint32_t *vc;                     // the threads' warp clocks
};

struct Cluster {
  uint32_t dim[3] = {1, 1, 1};
  uint32_t size = 1;        // blocks in the running cluster; 1: not a cluster launch
  uint32_t cur = 0;         // the block that runs (its rank)
  uint32_t narrived = 0;    // threads at the cluster barrier
  uint32_t nsplit = 0;      // threads arrived at the split cluster barrier (barrier_arrive)
  uint32_t phase = 0;       // the split barrier's phase: the times it opened
  BlockCtx b[kMaxResident] = {};   // a cluster's blocks by rank, or the resident blocks by slot
  Fiber *fiber_pool = nullptr;
  size_t fiber_pool_n = 0;
};

KR_EMU_RT_VAR Cluster G;

KR_EMU_RT size_t section_bytes() {
  return __start_kr_shared && __stop_kr_shared > __start_kr_shared ? (size_t)(__stop_kr_shared - __start_kr_shared) : 0;
}

// One save area a block (a mapping of its own): the section, the dynamic shared memory, their
// cells, the clocks and the run queue. The static variables' copy is a mapping of its own, sized to
// what the arena holds (arena_room), so that a cluster of large blocks stays within the child's
// address-space limit.
KR_EMU_RT size_t save_stride() {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  size_t b = (section_bytes() + KR_EMU_MAX_DYN_SMEM) * (1 + sizeof(Cell)) + (size_t)kMaxThreads * 33 * sizeof(uint32_t) + 4 * 64;
  return (b + page - 1) / page * page;
}

// Room for `need` bytes of static variables (and their cells) in block c's save area.
KR_EMU_RT void arena_room(BlockCtx &c, size_t need) {
  if (need <= c.arena_cap) return;
  size_t cap = c.arena_cap ? c.arena_cap : 4096;
  while (cap < need) cap *= 2;
  void *a = mmap(nullptr, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  void *k = mmap(nullptr, cap * sizeof(Cell), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (a == MAP_FAILED || k == MAP_FAILED) fail("ran out of memory for a cluster's shared memory");
  if (c.arena_cap) {
    memcpy(a, c.arena, c.arena_len);
    memcpy(k, c.arena_cells, c.arena_len * sizeof(Cell));
    munmap(c.arena, c.arena_cap);
    munmap(c.arena_cells, c.arena_cap * sizeof(Cell));
  }
  c.arena = static_cast<unsigned char *>(a), c.arena_cells = static_cast<Cell *>(k), c.arena_cap = cap;
}

// Block c's save area: one mapping, made the first time a block of its rank or slot is needed.
KR_EMU_RT bool save_ready(BlockCtx &c) {
  if (c.section) return true;
  void *m = mmap(nullptr, save_stride(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return false;
  unsigned char *p = static_cast<unsigned char *>(m);
  c.section = p, p += section_bytes();
  c.dyn = p, p += KR_EMU_MAX_DYN_SMEM;
  p = reinterpret_cast<unsigned char *>(((uintptr_t)p + 63) & ~(uintptr_t)63);
  c.section_cells = reinterpret_cast<Cell *>(p), p += section_bytes() * sizeof(Cell);
  c.dyn_cells = reinterpret_cast<Cell *>(p), p += KR_EMU_MAX_DYN_SMEM * sizeof(Cell);
  c.vc = reinterpret_cast<uint32_t *>(p);
  c.rq = c.vc + (size_t)kMaxThreads * 32;
  return true;
}

KR_EMU_RT bool cluster_ready(uint32_t size, uint32_t n) {
  size_t need = (size_t)size * n;
  if (need > G.fiber_pool_n) {
    if (G.fiber_pool) munmap(G.fiber_pool, G.fiber_pool_n * sizeof(Fiber));
    void *p = mmap(nullptr, need * sizeof(Fiber), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return G.fiber_pool = nullptr, G.fiber_pool_n = 0, false;
    G.fiber_pool = static_cast<Fiber *>(p);
    G.fiber_pool_n = need;
  }
  for (uint32_t r = 0; r < size; r++)
    if (!save_ready(G.b[r])) return false;
  return true;
}

// The dynamic shared memory's cells, as the checker's span has them (check_begin).
KR_EMU_RT Cell *dyn_cells_now() { return CK.dyn_cells ? CK.dyn_cells + (S.dyn - S.dyn_region) : nullptr; }

// The running block (rank G.cur) stops: its scheduler state and shared memory go to its save area.
KR_EMU_RT void block_leave() {
  BlockCtx &c = G.b[G.cur];
  c.ndone = S.ndone, c.nbar = S.nbar, c.rq_head = S.rq_head, c.rq_len = S.rq_len;
  memcpy(c.rq, S.rq, S.n * sizeof(uint32_t));
  c.seq = CK.seq, c.epoch = CK.epoch;
  arena_room(c, CK.arena_used);
  c.arena_len = CK.arena_used;
  if (CK.arena_used) {
    memcpy(c.arena, CK.arena, CK.arena_used);
    memcpy(c.arena_cells, CK.arena_cells, CK.arena_used * sizeof(Cell));
  }
  if (size_t n = section_bytes()) {
    memcpy(c.section, __start_kr_shared, n);
    if (CK.static_cells) memcpy(c.section_cells, CK.static_cells, n * sizeof(Cell));
  }
  if (S.dyn_bytes) {
    memcpy(c.dyn, S.dyn, S.dyn_bytes);
    if (Cell *dc = dyn_cells_now()) memcpy(c.dyn_cells, dc, S.dyn_bytes * sizeof(Cell));
  }
  if (CK.vc) memcpy(c.vc, CK.vc, (size_t)S.n * 32 * sizeof(uint32_t));
}

// Block `r` runs next: its state and shared memory back in place. Static variables declared since
// it last ran (the arena grew) start poisoned, and their cells name another block, so they read as
// unwritten, as a fresh variable does.
KR_EMU_RT void block_enter(uint32_t r) {
  BlockCtx &c = G.b[r];
  G.cur = r;
  S.fibers = c.fibers;
  S.ndone = c.ndone, S.nbar = c.nbar, S.rq_head = c.rq_head, S.rq_len = c.rq_len;
  memcpy(S.rq, c.rq, S.n * sizeof(uint32_t));
  blockIdx = c.idx;
  CK.seq = c.seq, CK.epoch = c.epoch;
  if (c.arena_len) {
    memcpy(CK.arena, c.arena, c.arena_len);
    memcpy(CK.arena_cells, c.arena_cells, c.arena_len * sizeof(Cell));
  }
  if (CK.arena_used > c.arena_len) memset(CK.arena + c.arena_len, 0xff, CK.arena_used - c.arena_len);
  if (size_t n = section_bytes()) {
    memcpy(__start_kr_shared, c.section, n);
    if (CK.static_cells) memcpy(CK.static_cells, c.section_cells, n * sizeof(Cell));
  }
  if (S.dyn_bytes) {
    memcpy(S.dyn, c.dyn, S.dyn_bytes);
    if (Cell *dc = dyn_cells_now()) memcpy(dc, c.dyn_cells, S.dyn_bytes * sizeof(Cell));
  }
  if (CK.vc) memcpy(CK.vc, c.vc, (size_t)S.n * 32 * sizeof(uint32_t));
}

// Thread i of a cluster's block (fb: its fibers; cur: the block that runs) runnable again, at the
// end of its block's run queue.
KR_EMU_RT void wake(Fiber *fb, bool cur, BlockCtx &c, uint32_t i) {
  fb[i].state = F_RUNNABLE;
  if (cur) {
    rq_push(i);
  } else {
    c.rq[(c.rq_head + c.rq_len) % S.n] = i;
    c.rq_len++;
  }
}

// cluster.sync(): a barrier of every thread of every block of the cluster; for the memory checker,
// it orders each block's own threads as __syncthreads does. Outside a cluster launch, a block is
// a cluster of one.
KR_EMU_RT void cluster_barrier() {
  if (G.size <= 1) {
    block_barrier(1, "cluster.sync");
    return;
  }
  Fiber *f = S.cur;
  if (!f) fail("called cluster.sync() outside a kernel");
  f->state = F_BAR;
  f->op_name = "cluster.sync";
  f->bar_pred = 2;  // at the cluster barrier, not the block's
  if (++G.narrived == G.size * S.n) {
    G.narrived = 0;
    for (uint32_t r = 0; r < G.size; r++) {
      BlockCtx &c = G.b[r];
      Fiber *fb = r == G.cur ? S.fibers : c.fibers;
      for (uint32_t i = 0; i < S.n; i++) wake(fb, r == G.cur, c, i);
      if (r == G.cur) check_barrier();
      else c.epoch++;
    }
  }
  yield();
}

// The split cluster barrier (cluster_group::barrier_arrive, then barrier_wait): a thread arrives
// and goes on; its wait returns once every thread of every block of the cluster has arrived. For
// the memory checker the phase's opening orders each block's own threads as __syncthreads does (a
// thread's accesses between its arrive and its wait are taken as after it: races there may be
// missed). Outside a cluster launch the cluster is the block.
KR_EMU_RT void cluster_arrive() {
  Fiber *f = S.cur;
  if (!f) fail("called cluster.barrier_arrive() outside a kernel");
  if (f->cl_arrived) fail("called cluster.barrier_arrive() twice without barrier_wait() between");
  f->cl_arrived = true;
  f->cl_phase = G.phase;
  uint32_t blocks = G.size > 1 ? G.size : 1;
  if (++G.nsplit < blocks * S.n) return;
  G.nsplit = 0;
  G.phase++;
  for (uint32_t r = 0; r < blocks; r++) {
    bool cur = G.size <= 1 || r == G.cur;
    BlockCtx &c = G.b[r];
    Fiber *fb = cur ? S.fibers : c.fibers;
    for (uint32_t i = 0; i < S.n; i++)
      if (fb[i].state == F_BAR && fb[i].bar_pred == 3) wake(fb, cur, c, i);
    if (cur) check_barrier();
    else c.epoch++;
  }
}

KR_EMU_RT void cluster_wait() {
  Fiber *f = S.cur;
  if (!f) fail("called cluster.barrier_wait() outside a kernel");
  if (!f->cl_arrived) fail("called cluster.barrier_wait() without barrier_arrive() before it");
  f->cl_arrived = false;
  if (G.phase != f->cl_phase) return;   // every thread has arrived since
  f->state = F_BAR;
  f->op_name = "cluster.barrier_wait";
  f->bar_pred = 3;  // at the split cluster barrier
  yield();
}

// This block's rank in its cluster, and block r's shared memory as a pointer the running block
// may use (distributed shared memory).
KR_EMU_RT uint32_t cluster_rank() {
  return (blockIdx.x % G.dim[0]) + (blockIdx.y % G.dim[1]) * G.dim[0] + (blockIdx.z % G.dim[2]) * G.dim[0] * G.dim[1];
}

// The part of the running block's shared memory that p lies in (its static variables' arena, the
// kr_shared section, the dynamic shared memory; SH_NONE: none), and p's offset there. Every block
// of a cluster has its copy of each part at the same offsets.
enum SharedPart { SH_NONE, SH_ARENA, SH_SECTION, SH_DYN };

KR_EMU_RT SharedPart shared_part(const void *p, size_t *off) {
  uintptr_t a = (uintptr_t)p;
  if (CK.arena && a >= (uintptr_t)CK.arena && a < (uintptr_t)CK.arena + CK.arena_used)
    return *off = a - (uintptr_t)CK.arena, SH_ARENA;
  if (size_t n = section_bytes(); n && a >= (uintptr_t)__start_kr_shared && a < (uintptr_t)__start_kr_shared + n)
    return *off = a - (uintptr_t)__start_kr_shared, SH_SECTION;
  if (S.dyn_bytes && a >= (uintptr_t)S.dyn && a < (uintptr_t)S.dyn + S.dyn_bytes) return *off = a - (uintptr_t)S.dyn, SH_DYN;
  return SH_NONE;
}

KR_EMU_RT void *shared_of_rank(const void *p, uint32_t r) {
  if (r >= G.size) fail("called map_shared_rank with rank %u, but the cluster has %u blocks", r, G.size);
  if (r == G.cur) return const_cast<void *>(p);
  BlockCtx &c = G.b[r];
  size_t off;
  switch (shared_part(p, &off)) {
  case SH_ARENA:
    if (off >= c.arena_len) fail("read block %u's shared memory through map_shared_rank before that block declared it", r);
    return c.arena + off;
  case SH_SECTION: return c.section + off;
  case SH_DYN: return c.dyn + off;
  case SH_NONE: break;
  }
  fail("called map_shared_rank on an address that is not in this block's shared memory");
}

// split_rows' pushed exchange (kr_cluster_expect, kr_cluster_push, kr_cluster_wait, which the
// kernel's .cu defines with inline PTX for the GPU under #ifndef KR_CUDA_EMULATOR): a block's
// mbarrier is the count of bytes still to arrive, in its own 8 bytes of shared memory. A push
// copies its value into slot `slot` of block `rank` (distributed shared memory), records those
// bytes as written in that block's memory checker cells, ordered before its threads' later
// accesses (as the mbarrier's acquire orders them on the GPU: a read before the wait finds the
// bytes unwritten, a finding), and takes them off that block's count; at zero, that block's
// threads waiting on the mbarrier go on. A push past the count is a finding; a wait that no push
// ends is a deadlock, reported.
KR_EMU_RT void cluster_expect(unsigned long long *bar, unsigned bytes) {
  if (!S.cur) fail("called kr_cluster_expect outside a kernel");
  *bar = bytes;
}

// The memory checker's cells of byte p of block r's shared memory (nullptr: none kept), and that
// block's sequence number.
KR_EMU_RT Cell *shared_cells_of_rank(const void *p, uint32_t r, uint32_t *seq) {
  bool cur = G.size <= 1 || r == G.cur;
  BlockCtx &c = G.b[r];
  *seq = cur ? CK.seq : c.seq;
  size_t off;
  Cell *k = nullptr;
  switch (shared_part(p, &off)) {
  case SH_ARENA: k = cur ? CK.arena_cells : c.arena_cells; break;
  case SH_SECTION: k = cur ? CK.static_cells : c.section_cells; break;
  case SH_DYN: k = cur ? dyn_cells_now() : c.dyn_cells; break;
  case SH_NONE: break;
  }
  return k ? k + off : nullptr;
}

KR_EMU_RT void cluster_push_bytes(void *slot, unsigned long long *bar, uint32_t rank, const void *v, size_t n) {
  if (!S.cur) fail("called kr_cluster_push outside a kernel");
  uint32_t C = G.size > 1 ? G.size : 1;
  if (rank >= C) fail("called kr_cluster_push for block %u, but the cluster has %u blocks", rank, C);
  unsigned char *dst = static_cast<unsigned char *>(shared_of_rank(slot, rank));
  unsigned long long *count = static_cast<unsigned long long *>(shared_of_rank(bar, rank));
  if (*count < n)
    fail("kr_cluster_push brought %zu bytes to block %u's mbarrier, which expected %llu more", n, rank, *count);
  memcpy(dst, v, n);
  uint32_t seq;
  if (Cell *k = shared_cells_of_rank(slot, rank, &seq))
    for (size_t i = 0; i < n; i++) {
      Acc w{};
      w.seq = seq;
      w.epoch = ~0u;   // an epoch no access has: ordered with every access of the block's threads
      w.tid = 1;
      w.flags = KR_EMU_ACC_WRITE;
      k[i].w = w;
    }
  if ((*count -= n)) return;
  bool cur = C <= 1 || rank == G.cur;
  BlockCtx &c = G.b[rank];
  Fiber *fb = cur ? S.fibers : c.fibers;
  for (uint32_t i = 0; i < S.n; i++)
    if (fb[i].state == F_BAR && fb[i].bar_pred == 4 && fb[i].mb_addr == bar) wake(fb, cur, c, i);
}

KR_EMU_RT void cluster_wait_bytes(unsigned long long *bar) {
  Fiber *f = S.cur;
  if (!f) fail("called kr_cluster_wait outside a kernel");
  if (*bar == 0) return;
  f->state = F_BAR;
  f->op_name = "kr_cluster_wait";
  f->bar_pred = 4;
  f->mb_addr = bar;
  yield();
}

// Whether every fiber of the running block is finished or waits at the cluster barrier.
KR_EMU_RT bool block_idle() { return S.rq_len == 0; }

// The cluster's blocks in turn until all are done (true), something failed, or none can go on
// (a deadlock, reported).
KR_EMU_RT bool run_blocks(uint3 origin) {
  uint32_t n = S.n, C = G.size;
  G.nsplit = 0;
  for (;;) {
    if (block_idle()) {
      uint32_t done = 0, next = C;
      uint32_t start = S.shuffle ? (uint32_t)(next_random() % C) : G.cur + 1;
      block_leave();
      for (uint32_t k = 0; k < C; k++) {
        uint32_t r = (start + k) % C;
        if (G.b[r].ndone == n) done++;
        else if (G.b[r].rq_len && next == C) next = r;
      }
      if (done == C) return true;
      if (next == C) {   // nothing can run: report it against a block that has not finished
        for (uint32_t r = 0; r < C && next == C; r++)
          if (G.b[r].ndone < n) next = r;
        block_enter(next);
        report_deadlock();
        snprintf(S.result->message + strlen(S.result->message), sizeof S.result->message - strlen(S.result->message),
                 " (a cluster of %u blocks from block (%u,%u,%u))", C, origin.x, origin.y, origin.z);
        return false;
      }
      block_enter(next);
      continue;
    }
    if (!step()) return false;
  }
}

// Runs the cluster whose first block is `origin`: every block prepared, then the blocks in turn.
// With shuffle on, the next block is picked at random.
KR_EMU_RT bool run_cluster(uint3 origin) {
  uint32_t n = S.n, C = G.size;
  G.narrived = 0;
  for (uint32_t r = 0; r < C; r++) {
    BlockCtx &c = G.b[r];
    c.fibers = G.fiber_pool + (size_t)r * n;
    uint32_t x = r % G.dim[0], y = r / G.dim[0] % G.dim[1], z = r / (G.dim[0] * G.dim[1]);
    c.idx = uint3{origin.x + x, origin.y + y, origin.z + z};
    G.cur = r;
    S.fibers = c.fibers;
    blockIdx = c.idx;
    block_start((size_t)r * n);
    block_leave();
  }
  uint32_t last_seq = CK.seq;   // the cluster's blocks took the sequence numbers up to this one
  block_enter(0);
  bool ok = run_blocks(origin);
  CK.seq = last_seq;
  return ok;
}
}  // namespace kr_emu

// The kernel's split_rows helpers (their GPU definitions are left to the preprocessor).
#define KR_CLUSTER_PUSH 1
inline void kr_cluster_expect(unsigned long long *bar, unsigned bytes) { kr_emu::cluster_expect(bar, bytes); }
inline void kr_cluster_open() { kr_emu::cluster_arrive(); }
inline void kr_cluster_opened() { kr_emu::cluster_wait(); }
template <class T> inline void kr_cluster_push(T *slot, unsigned long long *bar, unsigned rank, T v) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "kr_cluster_push moves 4 or 8 bytes");
  kr_emu::cluster_push_bytes(slot, bar, rank, &v, sizeof(T));
}
inline void kr_cluster_wait(unsigned long long *bar) { kr_emu::cluster_wait_bytes(bar); }

#endif
