"""Timing for the bench scripts: a command's best wall time over several runs, and the peak RSS of that run."""
import subprocess
import sys

# One command in a fresh python child, so that RUSAGE_CHILDREN's ru_maxrss is that command's alone.
CHILD = ('import resource,subprocess,sys,time;t=time.monotonic();'
         'p=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL);'
         'print(time.monotonic()-t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, p.returncode)')


def measure(cmd, runs):
    """(best wall seconds, peak RSS KB of that run) over RUNS runs; exits when the command fails."""
    best = None
    for _ in range(runs):
        o = subprocess.run([sys.executable, '-c', CHILD, *cmd], stdout=subprocess.PIPE, text=True,
                           check=True).stdout.split()
        wall, rss, status = float(o[0]), int(o[1]), int(o[2])
        if status != 0:
            sys.exit('%s exited with status %d' % (' '.join(cmd), status))
        if best is None or wall < best[0]:
            best = (wall, rss)
    return best
