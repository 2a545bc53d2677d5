/* A trace builder for the model's unit tests: fabricates the rsp_event structs the reader would
 * hand out (switch records, sched tracepoints with their real field layout, cpu-clock samples,
 * COMM/FORK/EXIT/LOST records) and feeds them, in the order written, to the model's internal
 * entry point. The tests write the truth of each scenario by hand and compare it with the model.
 * Times are nanoseconds (the tests write them as N * US). */
#pragma once

#include "model/model-private.h"

#define US 1000ull

typedef struct tb tb;

/* SWITCH_RECORDS: build runs from PERF_RECORD_SWITCH_CPU_WIDE (perf record --switch-events), else
 * from sched:sched_switch. */
tb *tb_new(bool switch_records);
tb *tb_new_with(const rsp_model_options *options, bool switch_records);
/* Feeds nothing more, builds the model and frees TB. */
rsp_model *tb_finish(tb *t);
/* The ordinal the next fed event gets (rsp_sleep.switch_event). */
uint64_t tb_next_event(const tb *t);
/* Declares TID a thread of process PID (by default a task's pid is its tid). */
void tb_thread(tb *t, int32_t pid, int32_t tid);
/* perf's HEADER_CMDLINE (NULL-terminated), as rsp_model_build passes it from the file's header. */
void tb_cmdline(tb *t, const char *const *argv);
/* Marks the sched_switch tracepoint sampled (freq mode): the model must say so. */
void tb_sample_tracepoints(tb *t);

/* PERF_RECORD_SWITCH_CPU_WIDE. TID -1 on an OUT is perf's exited task. */
void tb_switch_in(tb *t, uint64_t ns, int32_t cpu, int32_t tid, int32_t prev_tid);
void tb_switch_out(tb *t, uint64_t ns, int32_t cpu, int32_t tid, int32_t next_tid, bool preempt);
/* sched:sched_switch in PREV's context; STATE is prev_state as perf prints it: "R" "R+" "S" "D"
 * "T" "t" "X" "Z" "P" "I". Returns the event's ordinal. */
uint64_t tb_sched_switch(tb *t, uint64_t ns, int32_t cpu, int32_t prev, const char *state, int32_t next);
/* sched:sched_waking / sched:sched_wakeup of TARGET onto TARGET_CPU, fired in WAKER's context
 * (0: on the idle task, from an interrupt). */
void tb_waking(tb *t, uint64_t ns, int32_t cpu, int32_t waker, int32_t target, int32_t target_cpu);
void tb_wakeup(tb *t, uint64_t ns, int32_t cpu, int32_t waker, int32_t target, int32_t target_cpu);
/* A cpu-clock sample (TID 0: idle). */
void tb_sample(tb *t, uint64_t ns, int32_t cpu, int32_t tid);
/* Some other tracepoint fired in TID's context (a syscall's, say). */
void tb_tracepoint(tb *t, uint64_t ns, int32_t cpu, int32_t tid);
/* Records written in the context of the task concerned (the parent for FORK). NS 0: synthesized. */
void tb_comm(tb *t, uint64_t ns, int32_t cpu, int32_t tid, const char *comm, bool exec);
void tb_fork(tb *t, uint64_t ns, int32_t cpu, int32_t ptid, int32_t tid);
void tb_exit(tb *t, uint64_t ns, int32_t cpu, int32_t tid);
void tb_lost(tb *t, uint64_t ns, uint64_t lost);
void tb_lost_samples(tb *t, uint64_t ns, uint64_t lost);

/* The next sample fed (tracepoint or cpu-clock) carries this callchain: kernel function names,
 * innermost first, comma-separated ("hrtimer_wakeup,__hrtimer_run_queues"); a name after a "|" is
 * a user frame. The model resolves them through the builder's test symbolizer; a name beginning
 * with "?" stays unresolved (its own address, in no mapping: dso "[unknown]"). */
void tb_next_stack(tb *t, const char *frames);
/* block:block_rq_insert / issue / complete in TID's context (0: an interrupt on an idle cpu). */
typedef enum { TB_INSERT, TB_ISSUE, TB_COMPLETE } tb_block_kind;
void tb_block(tb *t, tb_block_kind kind, uint64_t ns, int32_t cpu, int32_t tid, uint32_t dev, uint64_t sector,
              uint32_t bytes);
/* sock:sock_send_length / sock_recv_length / sk_data_ready on socket SK in TID's context; or
 * rsp-record's kprobes rsp_net:tcp_data_tx (tcp_sendmsg) / rsp_net:tcp_data_rx (tcp_rcv_established). */
typedef enum { TB_SEND, TB_RECV, TB_DATA_READY, TB_KPROBE_TX, TB_KPROBE_RX } tb_sock_kind;
void tb_sock(tb *t, tb_sock_kind kind, uint64_t ns, int32_t cpu, int32_t tid, uint64_t sk);
/* irq:irq_handler_entry / irq_handler_exit / softirq_entry / softirq_exit on CPU, in TID's context
 * (the task the interrupt hit; 0: idle). VEC: the irq number or softirq vector. */
typedef enum { TB_IRQ_ENTRY, TB_IRQ_EXIT, TB_SOFTIRQ_ENTRY, TB_SOFTIRQ_EXIT } tb_irq_kind;
void tb_irq(tb *t, tb_irq_kind kind, uint64_t ns, int32_t cpu, int32_t tid, uint32_t vec);
/* sock:inet_sock_set_state of SK (IPv4) to ESTABLISHED with these ports and remote address. */
void tb_sock_state(tb *t, uint64_t ns, int32_t cpu, int32_t tid, uint64_t sk, uint16_t sport, uint16_t dport,
                   const uint8_t daddr[4]);
