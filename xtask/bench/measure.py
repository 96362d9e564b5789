"""Runs one client of `cargo xtask bench sweep` and measures the whole process.

    measure.py PROGRAM [ARGS...]

Prints the program's own output, then `process_wall_s: N` (spawn to exit) and
`process_cpu_s: N` (user + system CPU of the program, from wait4: process start-up included,
this wrapper's own start-up not) and `process_exit_epoch_s: N` (when the program exited, Unix
time, to set beside the server's log). Exits with the program's status.
"""

import os
import sys
import time


def main(argv):
    started = time.perf_counter()
    pid = os.posix_spawnp(argv[0], argv, dict(os.environ))
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - started
    exited = time.time()
    sys.stdout.flush()
    print('process_wall_s: {0:.6f}'.format(wall))
    print('process_cpu_s: {0:.6f}'.format(usage.ru_utime + usage.ru_stime))
    print('process_exit_epoch_s: {0:.6f}'.format(exited))
    sys.exit(os.waitstatus_to_exitcode(status))


if __name__ == '__main__':
    main(sys.argv[1:])
