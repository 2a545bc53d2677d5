/* DWARF unwinding of a sample's user stack (perf record --call-graph dwarf: PERF_SAMPLE_REGS_USER and
 * PERF_SAMPLE_STACK_USER), with libdwfl as perfparser and perf's unwind-libdw.c do: one Dwfl per process
 * with its mapped ELF files reported at their load bias, attached once; each sample sets the thread's
 * registers from the sample's and serves memory reads from the sample's copy of the stack. x86_64 only
 * (the registers' mapping); other machines get no unwinding (their user frames stay what perf wrote). */
#include "symbols/symbolizer-private.h"

#include <elfutils/libdwfl.h>
#include <string.h>

struct rsp_unwinder {
  Dwfl *dwfl;
  bool attached;
  int32_t pid;
  /* the sample being unwound */
  int32_t tid;
  const uint64_t *regs;
  uint64_t mask;
  const uint8_t *stack;
  uint64_t stack_size, sp;
};

/* perf's x86 register numbers (arch/x86/include/uapi/asm/perf_regs.h) */
enum { PR_AX, PR_BX, PR_CX, PR_DX, PR_SI, PR_DI, PR_BP, PR_SP, PR_IP, PR_FLAGS, PR_R8 = 16 };
/* DWARF's x86_64 numbering 0..16: rax rdx rcx rbx rsi rdi rbp rsp r8..r15 rip */
static const int dwarf_to_perf[17] = { PR_AX, PR_DX, PR_CX, PR_BX, PR_SI, PR_DI, PR_BP, PR_SP,
                                       PR_R8, PR_R8 + 1, PR_R8 + 2, PR_R8 + 3, PR_R8 + 4, PR_R8 + 5, PR_R8 + 6,
                                       PR_R8 + 7, PR_IP };

static bool perf_reg(const rsp_unwinder *u, int idx, uint64_t *out)
{
  if (idx < 0 || idx > 63 || !(u->mask & (1ull << idx)))
    return false;
  *out = u->regs[__builtin_popcountll(u->mask & ((1ull << idx) - 1))];
  return true;
}

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
  (void)dwfl;
  rsp_unwinder *u = arg;
  if (*thread_argp)
    return 0;
  *thread_argp = u;
  return u->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
  (void)dwfl;
  (void)tid;
  *thread_argp = arg;
  return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
  (void)dwfl;
  rsp_unwinder *u = arg;
  if (addr < u->sp || addr - u->sp > u->stack_size || u->stack_size - (addr - u->sp) < 8)
    return false; /* outside the copy: perf's own unwinder reads no further either */
  memcpy(result, u->stack + (addr - u->sp), 8);
  return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
  rsp_unwinder *u = arg;
  Dwarf_Word regs[17];
  for (int i = 0; i < 17; i++) {
    uint64_t v = 0;
    perf_reg(u, dwarf_to_perf[i], &v);
    regs[i] = v;
  }
  return dwfl_thread_state_registers(thread, 0, 17, regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
  .next_thread = next_thread,
  .get_thread = get_thread,
  .memory_read = memory_read,
  .set_initial_registers = set_initial_registers,
};

static char *debuginfo_path;
static const Dwfl_Callbacks offline_callbacks = {
  .find_elf = dwfl_build_id_find_elf,
  .find_debuginfo = rsp_debug_cache_find_debuginfo,
  .section_address = dwfl_offline_section_address,
  .debuginfo_path = &debuginfo_path,
};

rsp_unwinder *rsp_unwinder_new(int32_t pid, const char *const *paths, const uint64_t *bases, unsigned n)
{
  rsp_unwinder *u = g_new0(rsp_unwinder, 1);
  u->pid = pid;
  u->dwfl = dwfl_begin(&offline_callbacks);
  if (!u->dwfl)
    return u;
  dwfl_report_begin(u->dwfl);
  unsigned reported = 0;
  for (unsigned i = 0; i < n; i++)
    reported += dwfl_report_elf(u->dwfl, paths[i], paths[i], -1, bases[i], false) != NULL;
  dwfl_report_end(u->dwfl, NULL, NULL);
  if (reported)
    u->attached = dwfl_attach_state(u->dwfl, NULL, pid, &thread_callbacks, u);
  return u;
}

void rsp_unwinder_free(rsp_unwinder *u)
{
  if (!u)
    return;
  if (u->dwfl)
    dwfl_end(u->dwfl);
  g_free(u);
}

typedef struct collect {
  uint64_t *pcs;
  unsigned n, max;
} collect;

static int frame_cb(Dwfl_Frame *frame, void *arg)
{
  collect *c = arg;
  Dwarf_Addr pc;
  bool activation = false;
  if (!dwfl_frame_pc(frame, &pc, &activation) || pc == 0)
    return DWARF_CB_ABORT;
  /* a return address, not the call: as a frame-pointer chain has it (the caller's symbol holds it) */
  c->pcs[c->n++] = pc;
  return c->n < c->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

unsigned rsp_unwinder_unwind(rsp_unwinder *u, int32_t tid, const uint64_t *regs, unsigned n_regs, uint64_t mask,
                             const uint8_t *stack, uint64_t stack_size, uint64_t *pcs, unsigned max)
{
  if (!u || !u->attached || !regs || (unsigned)__builtin_popcountll(mask) != n_regs || max == 0)
    return 0;
  u->tid = tid;
  u->regs = regs;
  u->mask = mask;
  u->stack = stack;
  u->stack_size = stack ? stack_size : 0;
  if (!perf_reg(u, PR_SP, &u->sp) || !perf_reg(u, PR_IP, &(uint64_t){ 0 }))
    return 0;
  collect c = { .pcs = pcs, .max = max };
  dwfl_getthread_frames(u->dwfl, tid, frame_cb, &c);
  return c.n;
}
