// Is this a CUDA process? CUPTI starts a thread as soon as a callback is enabled (measured
// on an H200: cuptiEnableCallback took a process from 1 thread to 2), and a preloaded
// library must not add threads to a shell, `ls` or pip (Python 3.12 warns at fork() in a
// multi-threaded process). So libsyncwatch.so subscribes only where CUDA is, or comes.
// libc only: these run at library load.
#pragma once

namespace syncwatch::runtime {

// At load: the CUDA runtime or driver is loaded (a program linked with the shared cudart),
// or a loaded ELF file carries GPU code (.nv_fatbin: nvcc's static cudart, the default).
bool cudaProgramAtLoad();

// Whether a CUDA runtime or driver library is loaded now (the full scan).
bool cudaLibraryPresent();

// Whether the ELF file carries GPU code (a .nv_fatbin section).
bool elfHasGpuCode(const char *Path);

// Cheap enough to ask at every Python->C call until it says yes: whether a CUDA runtime or
// driver library has been loaded since (torch's import, a CUDA extension module). Asks the
// loader for its load count first, and looks at the names only when it changed.
bool cudaLibraryLoaded();

} // namespace syncwatch::runtime
