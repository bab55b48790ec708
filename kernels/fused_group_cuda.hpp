// A lock-step group's chunk as one kernel launch. On the GPU a small network is bound by launches,
// not arithmetic: CUBA-4000 launched a kernel per input row cleared, per sparse delivery and per
// population every 0.1 ms step and spent 38 µs per step on an H100 for work of a few
// microseconds. fusedGroupStepsCuda() runs a list of operations (FusedOp) for every step of a
// chunk inside one thread block, a __syncthreads() between consecutive operations, so one launch
// replaces steps × operations of them. Zero operations clear their rows of all steps at once
// before the first step (nothing else writes a step's input row before that step), so they cost
// no barrier per step. Each operation does exactly the per-element work its
// stand-alone kernel does (kernels/network_device.cuh), in the same order across operations, so
// the results equal the per-launch path's and the CPU's under network_cuda.hpp's contract.
//
// Rows: an operation's row t starts at base + t * stride (floats). Plain data; built by the
// device twins (engine/core/device_runner.hpp) and the CUDA executor. Errors:
// std::invalid_argument for a malformed list, std::runtime_error for a failed launch or copy.
// Thread: any thread, one executor's calls from one thread at a time.
#pragma once

#include "kernels/equation_cuda.hpp"
#include "kernels/network_cuda.hpp"

#include <cstdint>
#include <cstring>

namespace spike::kernels {

/// What a FusedOp does to row t of its buffers.
enum class FusedKind : std::int32_t {
    Zero,          ///< dst[t][0..width) = 0 (done for every row of the chunk before step 0)
    AddRows,       ///< dst[t][c] += src[t][c], c < width
    CopyRows,      ///< dst[t][c] = src[t][c], c < width
    Dense,         ///< dst[t][j] += sum_i src[t][i] * weight[i][j] (denseDeliverCuda)
    OneToOne,      ///< dst[t][j] += weight[j or 0] * src[t][j] (oneToOneDeliverCuda)
    SparseDrain,   ///< dst[t] += ring row (head0 + t) mod delay, which is then cleared
    SparseScatter, ///< the synapses of src[t]'s active channels add into dst[t] (delay 0) or
                   ///< into ring row (head0 + t) mod delay
    Lif,           ///< one LIF step: src row t in, dst row t spikes, traces row t
    LifRecurrent,  ///< irec = s @ w_rec of a recurrent LIF (before its Lif operation)
    LifRefrac,     ///< one LIFRefrac step
    Cuba,          ///< one CUBALIF step
    Equation,      ///< one step of an equation population (its traces in `equationTraces`)
};

/// One operation of a fused group; see FusedKind. Fill it through makeFusedOp() (all bytes
/// zeroed, so lists compare with memcmp).
struct FusedOp {
    FusedKind kind = FusedKind::Zero;
    float* dst = nullptr;
    std::int64_t dstStride = 0;
    const float* src = nullptr;
    std::int64_t srcStride = 0;
    std::int64_t width = 0;  ///< Zero, AddRows, CopyRows: channels; OneToOne: n
    // Dense, OneToOne
    const float* weight = nullptr;
    std::int64_t weightCount = 0;  ///< OneToOne: 1 or n
    std::int64_t nSrc = 0;         ///< Dense
    std::int64_t nDst = 0;         ///< Dense
    // SparseDrain, SparseScatter
    SparseDevice sparse;
    std::int64_t head = 0;  ///< ring row due at the chunk's first step
    // neurons: traces row t at trace[k] + t * traceWidth[k] (nullptr: not recorded)
    LifDevice lif;
    LifRefracDevice lifRefrac;
    CubaDevice cuba;
    EquationDevice equation;  ///< firstStep: the chunk's first step
    EquationTraces equationTraces;  ///< rows of the chunk, (steps, n) each
    float* trace[4] = {};
    std::int64_t traceWidth[4] = {};
};

/// The most operations one fused launch takes (they are kept in the block's shared memory).
inline constexpr int kFusedMaxOps = 48;

/// A FusedOp of `kind` with every byte, padding included, zeroed first.
inline FusedOp makeFusedOp(FusedKind kind)
{
    FusedOp op;
    std::memset(static_cast<void*>(&op), 0, sizeof(op));
    op.kind = kind;
    return op;
}

/// The elements one operation works on per step (the block's useful width).
inline std::int64_t fusedOpWidth(const FusedOp& op)
{
    switch (op.kind) {
    case FusedKind::Dense:
        return op.nDst;
    case FusedKind::SparseDrain:
        return op.sparse.nDst;
    case FusedKind::SparseScatter:
        return op.sparse.nSrc;
    case FusedKind::Lif:
        return op.lif.n;
    case FusedKind::LifRecurrent:
        return op.lif.n * op.lif.nSyn;
    case FusedKind::LifRefrac:
        return op.lifRefrac.n;
    case FusedKind::Cuba:
        return op.cuba.n;
    case FusedKind::Equation:
        return op.equation.n;
    default:
        return op.width;
    }
}

/// Runs `steps` steps of `count` operations in one block: for each step t, op 0 ... op count-1,
/// each followed by a barrier. `ops` is a device array. `width` (the largest fusedOpWidth())
/// sizes the block (32 to 1024 threads).
void fusedGroupStepsCuda(const FusedOp* ops, int count, std::int64_t steps, std::int64_t width);

}  // namespace spike::kernels
