# Preload test program: python3 starting subprocesses (posix_spawn/fork+exec), forking a
# child that exits normally, and printing what they said.
import os
import subprocess
import sys

out = subprocess.run(["/bin/sh", "-c", "echo from sh; exit 3"], capture_output=True, text=True)
print("sh said", out.stdout.strip(), "rc", out.returncode)
out = subprocess.run([sys.executable, "-c", "print(6 * 7)"], capture_output=True, text=True)
print("python child said", out.stdout.strip(), "rc", out.returncode)
sys.stdout.flush()
pid = os.fork()
if pid == 0:
    print("forked python child")
    sys.exit(4)
_, status = os.waitpid(pid, 0)
print("forked child rc", os.waitstatus_to_exitcode(status))
sys.exit(8)
