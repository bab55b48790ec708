// The fused lock-step group kernel; see fused_group_cuda.hpp. One block runs every step of the
// chunk: the operations are copied into shared memory once, then for each step each operation
// spreads its elements over the block's threads (element e on thread e mod blockDim) and a
// barrier follows it. Built with --fmad=false, like network_cuda.cu.
#include "kernels/fused_group_cuda.hpp"

#include <cuda_runtime.h>

#include "kernels/cuda_compat.hpp"
#include "kernels/cuda_helpers.cuh"
#include "kernels/equation_device.cuh"
#include "kernels/network_device.cuh"

#include <stdexcept>
#include <string>

namespace spike::kernels {

namespace {

constexpr int kLanes = 32;
/// Active presynaptic channels a sparse scatter lists per step for its warps; a channel past
/// the list is scattered by the thread that found it.
constexpr int kListCapacity = 2048;

static_assert(sizeof(FusedOp) % sizeof(long long) == 0, "FusedOp is copied in 8-byte words");
static_assert(kFusedMaxOps * sizeof(FusedOp) + (2 + kListCapacity) * sizeof(int) <= 48 * 1024,
              "a fused launch's shared memory stays within the 48 KiB every GPU grants");

__device__ inline float* traceRow(const FusedOp& op, int k, long long t)
{
    return op.trace[k] != nullptr ? op.trace[k] + t * op.traceWidth[k] : nullptr;
}

/// The active channels of presynaptic row `x` add their synapses into `target`: every thread
/// lists the channels it finds active (tid, tid + blockDim, ...), then each warp takes listed
/// channels and spreads their synapses over its lanes. One barrier, between the two; the caller's
/// barrier after the operation ends it. Consecutive scatters alternate between two counters
/// (counts[0] and [1], by `slot`): each clears the other one, which every thread read before
/// this scatter's barrier, so no barrier is needed for the clearing.
__device__ void sparseScatter(const SparseDevice& p, const float* x, float* target, int* counts,
                              int slot, int* list)
{
    int* listCount = counts + slot;
    const long long tid = threadIdx.x;
    const long long threads = blockDim.x;
    const auto* rowStart = reinterpret_cast<const long long*>(p.rowStart);
    for (long long c = tid; c < p.nSrc; c += threads) {
        const float xc = x[c];
        if (xc != 0.0F) {
            const int at = atomicAdd(listCount, 1);
            if (at < kListCapacity) {
                list[at] = static_cast<int>(c);
            } else {
                scatterSynapses(rowStart, p.targets, p.weight, p.weights, c, xc, target, 0, 1);
            }
        }
    }
    __syncthreads();
    const int listed = *listCount < kListCapacity ? *listCount : kListCapacity;
    if (tid == 0) {
        counts[1 - slot] = 0;
    }
    const long long lane = tid % kLanes;
    for (long long k = tid / kLanes; k < listed; k += threads / kLanes) {
        const long long c = list[k];
        scatterSynapses(rowStart, p.targets, p.weight, p.weights, c, x[c], target, lane, kLanes);
    }
}

/// Step t of one operation, on this thread's elements; `slot` is the next scatter's counter.
__device__ void runOp(const FusedOp& op, long long t, int* counts, int& slot, int* list)
{
    const long long tid = threadIdx.x;
    const long long threads = blockDim.x;
    float* dst = op.dst + t * op.dstStride;
    const float* src = op.src != nullptr ? op.src + t * op.srcStride : nullptr;
    const long long ringRow = op.sparse.delay > 0 ? (op.head + t) % op.sparse.delay : 0;
    float* ring = op.sparse.pending != nullptr ? op.sparse.pending + ringRow * op.sparse.nDst
                                               : nullptr;
    switch (op.kind) {
    case FusedKind::Zero:  // done for the whole chunk before the first step
        break;
    case FusedKind::AddRows:
        for (long long c = tid; c < op.width; c += threads) {
            dst[c] += src[c];
        }
        break;
    case FusedKind::CopyRows:
        for (long long c = tid; c < op.width; c += threads) {
            dst[c] = src[c];
        }
        break;
    case FusedKind::Dense:
        for (long long j = tid; j < op.nDst; j += threads) {
            denseColumn(op.weight, op.nSrc, op.nDst, src, j, dst);
        }
        break;
    case FusedKind::OneToOne:
        for (long long j = tid; j < op.width; j += threads) {
            dst[j] += op.weight[op.weightCount == 1 ? 0 : j] * src[j];
        }
        break;
    case FusedKind::SparseDrain:
        for (long long j = tid; j < op.sparse.nDst; j += threads) {
            dst[j] += ring[j];
            ring[j] = 0.0F;
        }
        break;
    case FusedKind::SparseScatter:
        sparseScatter(op.sparse, src, op.sparse.delay > 0 ? ring : dst, counts, slot, list);
        slot = 1 - slot;
        break;
    case FusedKind::Lif:
        for (long long i = tid; i < op.lif.n; i += threads) {
            lifNeuron(op.lif, i, src, 1, dst, traceRow(op, 0, t), traceRow(op, 1, t),
                      traceRow(op, 2, t));
        }
        break;
    case FusedKind::LifRecurrent: {
        const long long nIn = op.lif.n * op.lif.nSyn;
        for (long long j = tid; j < nIn; j += threads) {
            lifRecurrentInput(op.lif.s, op.lif.wRec, op.lif.n, nIn, j, op.lif.irec);
        }
        break;
    }
    case FusedKind::LifRefrac:
        for (long long i = tid; i < op.lifRefrac.n; i += threads) {
            lifRefracNeuron(op.lifRefrac, i, src, 1, dst, traceRow(op, 0, t), traceRow(op, 1, t),
                            traceRow(op, 2, t));
        }
        break;
    case FusedKind::Cuba:
        for (long long i = tid; i < op.cuba.n; i += threads) {
            cubaNeuron(op.cuba, i, src, 1, dst, traceRow(op, 0, t), traceRow(op, 1, t),
                       traceRow(op, 2, t), traceRow(op, 3, t));
        }
        break;
    case FusedKind::Equation:
        for (long long i = tid; i < op.equation.n; i += threads) {
            equationNeuron(op.equation, i, op.src, t, 1, op.dst, op.equationTraces);
        }
        break;
    }
}

// At most 1024 threads per block: __launch_bounds__ keeps the compiler within the 64 registers
// per thread that a full block may use, so the launch cannot fail for want of registers.
__global__ void __launch_bounds__(1024) fusedGroupKernel(const FusedOp* ops, int count, long long steps)
{
    SPIKE_DYNAMIC_SHARED(long long, shared);
    auto* local = reinterpret_cast<FusedOp*>(shared);
    int* counts = reinterpret_cast<int*>(local + count);  // two list counters
    int* list = counts + 2;
    const long long words = static_cast<long long>(count) * sizeof(FusedOp) / sizeof(long long);
    const auto* from = reinterpret_cast<const long long*>(ops);
    for (long long w = threadIdx.x; w < words; w += blockDim.x) {
        shared[w] = from[w];
    }
    if (threadIdx.x == 0) {
        counts[0] = 0;
        counts[1] = 0;
    }
    __syncthreads();
    // The clears of every step first: step t's input rows are written only at step t.
    for (int k = 0; k < count; ++k) {
        const FusedOp& op = local[k];
        if (op.kind == FusedKind::Zero && op.width > 0) {
            for (long long e = threadIdx.x; e < op.width * steps; e += blockDim.x) {
                const long long r = e / op.width;
                op.dst[r * op.dstStride + (e - r * op.width)] = 0.0F;
            }
        }
    }
    __syncthreads();
    int slot = 0;
    for (long long t = 0; t < steps; ++t) {
        for (int k = 0; k < count; ++k) {
            if (local[k].kind != FusedKind::Zero) {
                runOp(local[k], t, counts, slot, list);
                __syncthreads();
            }
        }
    }
}

}  // namespace

void fusedGroupStepsCuda(const FusedOp* ops, int count, std::int64_t steps, std::int64_t width)
{
    requireNonNegative(steps, "fusedGroupStepsCuda steps");
    if (count < 0 || count > kFusedMaxOps) {
        throw std::invalid_argument("CUDA kernels: a fused group takes 0 to " +
                                    std::to_string(kFusedMaxOps) + " operations, got " +
                                    std::to_string(count));
    }
    if (steps == 0 || count == 0) {
        return;
    }
    long long threads = (width + kLanes - 1) / kLanes * kLanes;
#if defined(SPIKE_CUDA_EMULATOR)
    // The emulator runs every thread of a block with barriers as a fiber and switches through all
    // of them at each barrier; two warps keep the tests fast. The operations loop over their
    // elements in strides of the block size, so any multiple of 32 threads gives the same results.
    const long long maxThreads = 2 * kLanes;
#else
    const long long maxThreads = 1024;
#endif
    threads = threads < kLanes ? kLanes : (threads > maxThreads ? maxThreads : threads);
    const std::size_t shared = static_cast<std::size_t>(count) * sizeof(FusedOp) +
                               (2 + static_cast<std::size_t>(kListCapacity)) * sizeof(int);
    SPIKE_LAUNCH(fusedGroupKernel, 1, static_cast<unsigned>(threads), shared)(ops, count, steps);
    checkLaunch("fusedGroupKernel");
}

}  // namespace spike::kernels
