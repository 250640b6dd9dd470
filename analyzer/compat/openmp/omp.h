// Found last on the include path (-idirafter) when a target builds with -fopenmp and clang's
// resource dir has no omp.h (Debian's clang-22 ships none without libomp-22-dev): forwards
// to the omp.h of the GCC installation the build's host compiler uses, which syncwatch
// passes as SYNCWATCH_GCC_OMP_H. See docs/nvcc-compat.md.
#pragma clang system_header
#ifdef SYNCWATCH_GCC_OMP_H
#include SYNCWATCH_GCC_OMP_H
#else
#error "syncwatch: no omp.h found for this -fopenmp build (install libomp-dev or GCC's libgomp)"
#endif
