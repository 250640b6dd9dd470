"""``syncwatch`` / ``python -m syncwatch``: the bundled command, with CUPTI found.

Every argument goes to the C++ ``syncwatch`` command unchanged (``run``, ``replay``,
``calibrate``, ``--help``, ``--version``); its exit code is this one's.
"""
import os
import sys

from . import environment, executable


def main(argv=None):
    args = sys.argv[1:] if argv is None else list(argv)
    exe = executable()
    if not os.access(exe, os.X_OK):
        sys.stderr.write("syncwatch: error: %s is missing from this install\n" % exe)
        return 2
    # exec, not a subprocess: signals, the exit code and the terminal stay the job's own.
    os.execve(exe, [exe] + args, environment())


if __name__ == "__main__":
    sys.exit(main())
