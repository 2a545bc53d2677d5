"""Timing for the bench scripts: a command's best wall time over several runs, and the peak RSS of that run."""
import statistics
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


def measure_alternated(cmds, rounds):
    """Per command of CMDS: (best wall seconds, median wall seconds, peak RSS KB of the best run), the commands run
    one of each per round for ROUNDS rounds, so that a shared machine's drift (this VM's times vary by a third from
    minute to minute) falls on all of them alike; exits when one fails."""
    walls = [[] for _ in cmds]
    rss = [0] * len(cmds)
    for _ in range(rounds):
        for i, cmd in enumerate(cmds):
            wall, kb = measure(cmd, 1)
            if not walls[i] or wall < min(walls[i]):
                rss[i] = kb
            walls[i].append(wall)
    return [(min(w), statistics.median(w), rss[i]) for i, w in enumerate(walls)]
