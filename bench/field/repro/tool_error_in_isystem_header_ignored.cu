// Not a finding, a reporting gap: a compile error inside a FUNCTION BODY of a header found
// through -isystem is not a parse failure for syncwatch-lint ("1 file(s) analyzed, no
// findings", exit 0), while clang++-22 -fsyntax-only on the same command fails (exit 1,
// "use of undeclared identifier"). Cause: analyzer/unit/UnitParse.cpp's SystemBodySkipper skips
// system-header function bodies on purpose (speed), so their errors are never seen. Errors
// outside bodies (#error, bad declarations) in system headers are still reported.
// Run (from /tmp/field/repro):
//   syncwatch-lint tool_error_in_isystem_header_ignored.cu -- --cuda-gpu-arch=sm_90 -nocudalib -isystem sys
//   (with -Isys instead: "could not be parsed ... ", exit 2, as expected)
// Field case: HOOMD-blue with CUDA 13: hoomd/extern/HIP/include/hip/nvcc_detail/hip_runtime_api.h
// (-isystem) uses cudaDeviceProp::clockRate and cuCtxCreate's old signature, both gone in CUDA 13:
// nvcc and clang reject every unit including it; syncwatch-lint "analyzed" 142 of them.
#include <bad.h>
int main() { return g(); }
