/* rsp-record: record the whole system with perf while a command runs, for rsp.
 * Options and help here; the collector is src/record/ (record.c puts its pieces together). */
#include "record/record.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char summary[] =
    "Records the whole system with perf while COMMAND runs (or -a for a duration, or until\n"
    "process PID ends), for rsp to model runs, sleeps, wakeups and I/O across processes.\n"
    "\n"
    "What is recorded (the probe set, probes/default.probes):\n"
    "  scheduler   sched_switch, sched_wakeup, sched_waking, sched_wakeup_new, process\n"
    "              fork/exec/exit, and perf's own context-switch records (--switch-events)\n"
    "  block I/O   block_rq_insert, block_rq_issue, block_rq_complete\n"
    "  interrupts  irq_handler_entry/exit, softirq_entry/exit\n"
    "  network     kprobes on tcp/udp transmit and receive (socket address), where the kernel\n"
    "              has kprobes; else the sock:/tcp: tracepoints\n"
    "  CPU samples cycles (cpu-clock without a PMU) at -F Hz, with call stacks\n"
    "Every tracepoint is kept (period 1), most with their call stacks, on CLOCK_MONOTONIC.\n"
    "Events perf drops in interrupt context on idle CPUs are captured beside it by an ftrace\n"
    "instance (FILE.ftrace/). A perf stat over the same events checks what was lost.\n"
    "\n"
    "Why root: recording every CPU's tracepoints needs root (or kernel.perf_event_paranoid\n"
    "= -1), and the ftrace instance and probes live in /sys/kernel/tracing, which is root's.\n"
    "Everything rsp-record creates there is removed at the end, on Ctrl-C and on errors.";

static const char description[] =
    "Files: FILE (perf.data), FILE.kallsyms.zst (kernel symbols), FILE.meta (how it was\n"
    "recorded, skipped events, the loss check), FILE.ftrace/ (the ftrace capture). An existing\n"
    "FILE and its side files are renamed to FILE.old first.\n"
    "\n"
    "Exit status: the command's own (128+N when signal N killed it: 130 after Ctrl-C, 137\n"
    "after kill -9); 0 with -a or -p; 125 if rsp-record fails, 126/127 if the command cannot\n"
    "be run or is not found, 2 for bad options.\n"
    "\n"
    "Examples:\n"
    "  sudo rsp-record -- make -j2\n"
    "  sudo rsp-record -o boot.data -a --duration 5\n"
    "  sudo rsp-record --probes sched -p 1234\n"
    "See rsp-record(1).";

static bool parse_call_graph(const char *s, rsp_call_graph *out)
{
  if (strcmp(s, "fp") == 0)
    *out = RSP_CALL_GRAPH_FP;
  else if (strcmp(s, "dwarf") == 0)
    *out = RSP_CALL_GRAPH_DWARF;
  else if (strcmp(s, "none") == 0 || strcmp(s, "no") == 0)
    *out = RSP_CALL_GRAPH_NONE;
  else
    return false;
  return true;
}

int main(int argc, char **argv)
{
  setlocale(LC_ALL, "");
  char *output = NULL, *call_graph = NULL, *probes = NULL, *ftrace_stats = NULL;
  int freq = 0, pid = 0, ftrace_kb = 0, mmap_pages = 0;
  double duration = 0;
  gboolean all = FALSE, libc = FALSE, no_ftrace = FALSE, no_loss = FALSE, quiet = FALSE;
  gboolean list = FALSE, version = FALSE, dry_run = FALSE;
  GOptionEntry entries[] = {
      {"output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write to FILE (default perf.data)", "FILE"},
      {"call-graph", 'g', 0, G_OPTION_ARG_STRING, &call_graph,
       "Call stacks: fp (frame pointers, default), dwarf (copies of the user stack; big), none", "fp|dwarf|none"},
      {"freq", 'F', 0, G_OPTION_ARG_INT, &freq, "CPU sampling frequency in Hz, on the sampling event alone (default 997)", "FREQ"},
      {"probes", 0, 0, G_OPTION_ARG_STRING, &probes,
       "Event set: a name (default, sched, minimal, ...: see --list-probes) or a .probes file", "SET"},
      {"all-cpus", 'a', 0, G_OPTION_ARG_NONE, &all, "No command: record until Ctrl-C or --duration", NULL},
      {"duration", 0, 0, G_OPTION_ARG_DOUBLE, &duration, "Stop after SECONDS (with -a or -p)", "SECONDS"},
      {"pid", 'p', 0, G_OPTION_ARG_INT, &pid, "Record (system-wide) until process PID exits", "PID"},
      {"libc-probes", 0, 0, G_OPTION_ARG_NONE, &libc,
       "Also the libc uprobes (poll, select, ...) that repair broken user stacks, where the kernel has uprobes", NULL},
      {"no-ftrace", 0, 0, G_OPTION_ARG_NONE, &no_ftrace, "No ftrace capture beside perf", NULL},
      {"no-loss-check", 0, 0, G_OPTION_ARG_NONE, &no_loss, "No perf stat beside perf record", NULL},
      {"ftrace-buffer", 0, 0, G_OPTION_ARG_INT, &ftrace_kb, "ftrace ring buffer per CPU, in KiB (default 4096)", "KB"},
      {"mmap-pages", 'm', 0, G_OPTION_ARG_INT, &mmap_pages, "perf record's buffer per CPU, in pages (default 1024)", "PAGES"},
      {"quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, "Only errors", NULL},
      {"dry-run", 'n', 0, G_OPTION_ARG_NONE, &dry_run,
       "Check everything, print the events and the perf command, record nothing", NULL},
      {"list-probes", 0, 0, G_OPTION_ARG_NONE, &list, "List the probe sets and exit", NULL},
      {"ftrace-stats", 0, 0, G_OPTION_ARG_FILENAME, &ftrace_stats,
       "Decode FILE.ftrace/ and print its events per name, then exit", "FILE"},
      {"version", 0, 0, G_OPTION_ARG_NONE, &version, "Print the version and exit", NULL},
      {NULL, 0, 0, 0, NULL, NULL, NULL},
  };
  GOptionContext *ctx = g_option_context_new("[-- COMMAND [ARGS...]]");
  g_option_context_set_summary(ctx, summary);
  g_option_context_set_description(ctx, description);
  g_option_context_add_main_entries(ctx, entries, NULL);
  g_option_context_set_strict_posix(ctx, TRUE); /* options stop at COMMAND: rsp-record make -j2 */
  GError *e = NULL;
  int status = 0;
  if (!g_option_context_parse(ctx, &argc, &argv, &e)) {
    fprintf(stderr, "rsp-record: %s (see rsp-record --help)\n", e->message);
    g_error_free(e);
    status = RSP_RECORD_EXIT_USAGE;
    goto out;
  }
  if (version) {
    printf("rsp-record %s\n", RSP_VERSION);
    goto out;
  }
  if (list) {
    status = rsp_record_list_probes();
    goto out;
  }
  if (ftrace_stats) {
    status = rsp_record_ftrace_stats(ftrace_stats);
    goto out;
  }
  /* argv[1..] is the command; GOption leaves a "--" in place */
  char **command = NULL;
  int first = 1;
  if (first < argc && strcmp(argv[first], "--") == 0)
    first++;
  if (first < argc)
    command = argv + first;

  rsp_record_options o = {0};
  o.output = output ? output : "perf.data";
  o.call_graph = RSP_CALL_GRAPH_FP;
  const char *usage = NULL;
  if (call_graph && !parse_call_graph(call_graph, &o.call_graph))
    usage = "--call-graph: fp, dwarf or none";
  else if (freq < 0 || freq > 100000)
    usage = "-F: a frequency in 1..100000 Hz";
  else if (duration < 0)
    usage = "--duration: seconds > 0";
  else if (pid < 0)
    usage = "-p: a process id";
  else if (ftrace_kb < 0 || mmap_pages < 0)
    usage = "--ftrace-buffer, -m: positive numbers";
  else if (command && pid > 0)
    usage = "-p PID and a command exclude each other";
  else if (command && duration > 0)
    usage = "--duration goes with -a or -p; with a command the recording lasts as long as the command";
  else if (!command && !all && pid <= 0)
    usage = "nothing to record: give a command (rsp-record -- COMMAND), -a, or -p PID";
  else if (strcmp(o.output, "-") == 0)
    usage = "-o -: rsp-record writes files beside the recording, it cannot write to a pipe";
  if (usage) {
    fprintf(stderr, "rsp-record: %s (see rsp-record --help)\n", usage);
    status = RSP_RECORD_EXIT_USAGE;
    goto out;
  }
  o.freq = (unsigned)freq;
  o.probes = probes ? probes : "default";
  o.all = all;
  o.duration = duration;
  o.pid = pid;
  o.command = command;
  o.libc_probes = libc;
  o.no_ftrace = no_ftrace;
  o.no_loss_check = no_loss;
  o.quiet = quiet;
  o.dry_run = dry_run;
  o.ftrace_buffer_kb = (unsigned)ftrace_kb;
  o.mmap_pages = (unsigned)mmap_pages;
  status = rsp_record_run(&o);
out:
  g_option_context_free(ctx);
  g_free(output);
  g_free(call_graph);
  g_free(probes);
  g_free(ftrace_stats);
  return status;
}
