#!/usr/bin/env python3
"""Thrust as the project's own headers, as CCCL's build compiles its tests (field class 5,
docs/field-test.md): host_vector's constructors are no device_vector construction, and the
device_vector built from a host_vector copies host data. Without the -I and
-D_CCCL_NO_SYSTEM_HEADER that make Thrust's headers the project's, their findings are not
shown at all, so the test first checks that some finding in Thrust's headers is.
  thrust_as_project_test.py LINT SOURCE CUDA_PATH"""
import json
import os
import subprocess
import sys
import tempfile

lint, source, cuda = sys.argv[1:4]
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: harness.py
from harness import check, finish  # noqa: E402


with tempfile.TemporaryDirectory() as work:
    report = os.path.join(work, "report.json")
    p = subprocess.run([lint, "--no-source", "--format=json", "-o", report, source, "--",
                        f"--cuda-path={cuda}", "--cuda-gpu-arch=sm_90", "-nocudalib",
                        f"-I{cuda}/include/cccl", "-D_CCCL_NO_SYSTEM_HEADER"],
                       capture_output=True, text=True, timeout=600)
    check("the lint ran (exit 0 or 1: findings)", p.returncode in (0, 1), p.stderr)
    findings = json.load(open(report))["findings"] if os.path.exists(report) else []

in_thrust = [f for f in findings if "/thrust/" in f["location"]["file"]]
check("Thrust's headers are the project's here: findings in them are reported", in_thrust, findings)
# (a host_vector built from the device_vector, `sorted = d_keys`, is a copy to the host made in
# host_vector.h: that one is right, and says so)
host_vector = [f for f in in_thrust if f["location"]["file"].endswith("thrust/host_vector.h")]
check("host_vector.h's constructors are no device_vector construction (std::allocator: host memory)",
      not any("'thrust::device_vector' constructed" in f["message"] or "device_vector' copy-constructed" in f["message"]
              for f in host_vector), host_vector)
check("the copy to the host in host_vector.h is reported as one",
      any("'thrust::host_vector' constructed from a device_vector" in f["message"] for f in host_vector), host_vector)
from_host = [f for f in in_thrust if f["location"]["file"].endswith("thrust/device_vector.h")]
check("device_vector built from a host_vector<thrust::pair> copies host data (not a device copy)",
      from_host and all("from host data" in f["message"] for f in from_host), from_host)
finish()
