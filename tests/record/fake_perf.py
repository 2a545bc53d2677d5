#!/usr/bin/env python3
"""A `perf` for rsp-record's cleanup tests, put first in PATH as bin/perf (a sh that execs this).

rsp-record runs against a fake tracefs root (RSP_TRACEFS) whose kprobe_events/uprobe_events are
plain files: the probes it writes there never become kernel events, so the real perf could not
open them. For `perf record` and `perf stat`, this wrapper
  - logs its pid (the real perf's, after exec), its arguments and a copy of the fake
    kprobe_events/uprobe_events as they are at perf's start (the probes made for the recording)
    into RSP_FAKE_PERF_LOG/<pid>.json;
  - drops the rsp_* probe events from every -e list;
then execs the real perf (RSP_REAL_PERF, default /usr/bin/perf) with the same pid, so that
rsp-record's signals, control pipes and PR_SET_PDEATHSIG reach perf itself.
Anything else (perf --version) goes straight to the real perf.
"""
import json
import os
import sys

REAL = os.environ.get("RSP_REAL_PERF", "/usr/bin/perf")


def strip_probes(events):
    kept = [e for e in events.split(",") if e and not e.split(":", 1)[0].startswith("rsp_")]
    return ",".join(kept)


def main():
    args = sys.argv[1:]
    if args and args[0] in ("record", "stat"):
        out = []
        dropped = []
        i = 0
        while i < len(args):
            a = args[i]
            if a == "-e" and i + 1 < len(args):
                kept = strip_probes(args[i + 1])
                dropped += [e for e in args[i + 1].split(",") if e not in kept.split(",")]
                if kept:
                    out += ["-e", kept]
                i += 2
                continue
            if a.startswith("--event="):
                kept = strip_probes(a[len("--event="):])
                if kept:
                    out.append("--event=" + kept)
                i += 1
                continue
            out.append(a)
            i += 1
        logdir = os.environ.get("RSP_FAKE_PERF_LOG")
        root = os.environ.get("RSP_TRACEFS")
        if logdir:
            files = {}
            for f in ("kprobe_events", "uprobe_events"):
                try:
                    with open(os.path.join(root or "/nonexistent", f)) as fh:
                        files[f] = fh.read()
                except OSError:
                    files[f] = None
            with open(os.path.join(logdir, f"{os.getpid()}.json"), "w") as fh:
                json.dump({"pid": os.getpid(), "argv": args, "exec": out, "dropped": dropped,
                           "files": files}, fh)
        args = out
    os.execv(REAL, ["perf", *args])


if __name__ == "__main__":
    main()
