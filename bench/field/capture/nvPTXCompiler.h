// Stub for the field test: CUDA 13 on this machine lacks nvPTXCompiler.h (a separate CUDA
// component). Declares only what warp.cu uses (PTX JIT; no part of the capture code).
#pragma once
#include <stddef.h>
typedef struct nvPTXCompiler* nvPTXCompilerHandle;
typedef enum { NVPTXCOMPILE_SUCCESS = 0, NVPTXCOMPILE_ERROR_COMPILATION_FAILURE,NVPTXCOMPILE_ERROR_COMPILER_INVOCATION_INCOMPLETE,NVPTXCOMPILE_ERROR_INTERNAL,NVPTXCOMPILE_ERROR_INVALID_COMPILER_HANDLE,NVPTXCOMPILE_ERROR_INVALID_INPUT,NVPTXCOMPILE_ERROR_OUT_OF_MEMORY,NVPTXCOMPILE_ERROR_UNSUPPORTED_PTX_VERSION, } nvPTXCompileResult;
nvPTXCompileResult nvPTXCompilerCreate(nvPTXCompilerHandle*, size_t, const char*);
nvPTXCompileResult nvPTXCompilerCompile(nvPTXCompilerHandle, int, const char* const*);
nvPTXCompileResult nvPTXCompilerGetCompiledProgramSize(nvPTXCompilerHandle, size_t*);
nvPTXCompileResult nvPTXCompilerGetCompiledProgram(nvPTXCompilerHandle, void*);
nvPTXCompileResult nvPTXCompilerDestroy(nvPTXCompilerHandle*);
nvPTXCompileResult nvPTXCompilerGetErrorLogSize(nvPTXCompilerHandle, size_t*);
nvPTXCompileResult nvPTXCompilerGetErrorLog(nvPTXCompilerHandle, char*);
