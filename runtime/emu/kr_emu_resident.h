// runtime/emu/kr_emu_resident.h: blocks that wait for each other through memory, for the CPU
// emulator (included by kr_cuda_shim.h after kr_emu_cluster.h, whose save areas it shares).
//
// Model. Blocks run one after another (kr_emu_sched.h) until one stalls: none of its threads can
// run, and some nap at __nanosleep, as a thread does that polls memory another block is to write
// (split_rows' resident parts, a hand-written grid barrier, a lock). The block then stays resident
// and the next blocks of the grid start beside it, as on a GPU that holds many blocks at once. The
// resident blocks take turns: each, its napping threads woken, runs until none of its threads can
// go on. After a round of turns in which no thread did anything but nap again, the next block of
// the grid starts; when none is left to start, or kMaxResident blocks (fewer for large blocks:
// their stacks must fit the child's address space) are resident already, the napping threads wait
// for something no block will do, and that is reported as a deadlock, with who waits where.
//
// A grid whose blocks never nap runs as before, one block at a time. Shared memory is saved and
// restored per block as for a cluster; each resident block has its own fibers and stacks (slot 0,
// the block that stalled first, those of a plain launch).
#ifndef KR_EMU_RESIDENT_H
#define KR_EMU_RESIDENT_H

namespace kr_emu {

constexpr size_t kResidentStackBytes = (size_t)2 << 30;   // all resident blocks' stacks together

struct Slot {
  Fiber *fibers = nullptr;
  char *stacks = nullptr;
  uint32_t n = 0;            // the threads its mappings hold
};

KR_EMU_RT_VAR Slot RS[kMaxResident];

// Slot r (1 and up) ready for a block of n threads: fibers, stacks with their guard pages, and
// the save area of its shared memory.
KR_EMU_RT bool slot_ready(uint32_t r, uint32_t n) {
  Slot &s = RS[r];
  size_t page = (size_t)sysconf(_SC_PAGESIZE), one = kStackBytes + page;
  if (s.n < n) {
    if (s.n) munmap(s.fibers, s.n * sizeof(Fiber)), munmap(s.stacks, one * s.n);
    s.n = 0;
    void *f = mmap(nullptr, n * sizeof(Fiber), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    void *k = mmap(nullptr, one * n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (f == MAP_FAILED || k == MAP_FAILED) return false;
    s.fibers = static_cast<Fiber *>(f), s.stacks = static_cast<char *>(k), s.n = n;
    for (uint32_t i = 0; i < n; i++) mprotect(s.stacks + one * i, page, PROT_NONE);
  }
  return save_ready(G.b[r]);
}

// Block `b` (a linear index of the grid) starts in slot r, and its state goes to the slot's save
// area; its sequence number for the memory checker follows the last one taken (*seq).
KR_EMU_RT void slot_start(uint32_t r, uint3 b, uint32_t *seq) {
  BlockCtx &c = G.b[r];
  c.fibers = RS[r].fibers;
  c.idx = b;
  G.cur = r;
  S.fibers = c.fibers;
  blockIdx = b;
  CK.seq = *seq;
  char *keep = S.stacks;
  S.stacks = RS[r].stacks;
  block_start(0);
  S.stacks = keep;
  *seq = CK.seq;
  block_leave();
}

// The block that just stalled (in the plain launch's fibers and stacks) resident, and the grid's
// blocks from *next on beside it as the naps call for them: until every resident block is done
// (true; the caller goes on from *next), one fails, or they deadlock (reported).
KR_EMU_RT bool run_resident(uint64_t *next, uint64_t total, uint3 (*index)(uint64_t)) {
  uint32_t n = S.n;
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  uint32_t cap = (uint32_t)(kResidentStackBytes / ((kStackBytes + page) * n));
  if (cap > kMaxResident) cap = kMaxResident;
  if (cap < 2) cap = 2;
  RS[0].fibers = S.fibers, RS[0].stacks = S.stacks;
  if (!save_ready(G.b[0])) fail("ran out of memory for a resident block's shared memory");
  bool used[kMaxResident] = {true};
  uint32_t nused = 1, r = 0, idle = 0, seq = CK.seq;
  G.cur = 0;
  G.b[0].fibers = S.fibers;
  G.b[0].idx = blockIdx;
  block_leave();
  for (;;) {
    if (idle >= nused) {   // a whole round of naps: another block may be what they wait for
      idle = 0;
      uint32_t s = 0;
      while (s < cap && used[s]) s++;
      if (*next < total && s < cap) {
        if (!slot_ready(s, n)) fail("ran out of memory for the stacks of %u resident blocks", nused + 1);
        slot_start(s, index((*next)++), &seq);
        used[s] = true, nused++;
        continue;
      }
      while (!used[r]) r = (r + 1) % kMaxResident;
      block_enter(r);
      report_deadlock();
      Text t{S.result->message, sizeof(KrEmuModResult::message), strlen(S.result->message)};
      t.put(" (%u blocks resident, waiting on each other through memory; %s)", nused,
            *next < total ? "the emulator holds no more blocks of this size at once"
                          : "no block of the grid is left to start");
      G.cur = 0, S.fibers = RS[0].fibers;
      return false;
    }
    do r = (r + 1) % kMaxResident; while (!used[r]);
    block_enter(r);
    wake_naps();
    uint64_t before = S.progress;
    BlockEnd end = run_on();
    if (end == B_FAILED) return G.cur = 0, S.fibers = RS[0].fibers, false;
    if (end == B_DONE) used[r] = false, nused--;
    else block_leave();
    idle = S.progress != before ? 0 : idle + 1;
    if (nused == 0) break;   // the rest of the grid one block at a time again
  }
  CK.seq = seq;
  G.cur = 0, S.fibers = RS[0].fibers;
  return true;
}

}  // namespace kr_emu

#endif
