// kernels/fused_group_cuda.cu compiled as C++ against the CUDA emulator (this directory's cuda_runtime.h).
#include "kernels/fused_group_cuda.cu"
