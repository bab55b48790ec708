// kernels/cuda_device.cu compiled as C++ against the CUDA emulator (this directory's cuda_runtime.h).
#include "kernels/cuda_device.cu"
