// Kernel launches and dynamic shared memory, written once for the two compilers of kernels/*.cu:
// nvcc, and the test suite's CUDA emulator (tests/cuda_emulator/), which compiles the same files
// as plain C++ and runs every kernel thread on the CPU so the kernels' indexing, chunking and
// copies are checked against the CPU backend on machines without a GPU.
//
//     SPIKE_LAUNCH(kernel, grid, block, sharedBytes)(args...);   // kernel<<<grid, block, shared>>>
//     SPIKE_DYNAMIC_SHARED(float, name);                          // extern __shared__ float name[]
#pragma once

#if defined(__CUDACC__)
#define SPIKE_LAUNCH(kernel, grid, block, sharedBytes) kernel<<<(grid), (block), (sharedBytes)>>>
#define SPIKE_DYNAMIC_SHARED(type, name) extern __shared__ type name[]
#elif !defined(SPIKE_CUDA_EMULATOR)
#error "kernels/*.cu are compiled by nvcc or, in the tests, by the CUDA emulator"
#endif
