// Device building blocks of the CUDA network executor, behind a plain C++ interface (no CUDA
// syntax here; the kernels live in network_cuda.cu, and cuda_unavailable.cpp implements the same
// functions in a build without CUDA, each throwing "built without CUDA").
//
// Owns nothing but what a DeviceArray holds: every other function works on device pointers the
// caller owns. All work goes to the calling thread's current device on the default stream, in
// call order; copies to or from the host wait for the work queued before them. Rows are
// row-major float32 with a pitch (the distance between row starts) in floats.
//
// The neuron kernels run one thread per neuron over a span of steps, built from the same
// kernels/lif_math.hpp functions, in the same order, as the CPU runners (engine/neurons/lif.cpp,
// engine/neurons/lif_refrac.cpp, engine/neurons/cuba_lif.cpp) and compiled with --fmad=false, so each neuron's
// arithmetic rounds exactly as on the CPU. Sums over several terms keep the CPU's order where
// one thread forms them (a neuron's synapses, a dense projection's column, a recurrent LIF's
// spikes @ w_rec). The sparse projection scatters with atomicAdd: several synapses onto one
// target in one step are summed in an unspecified order. That is still bit-identical to the CPU
// whenever every value delivered to one target in one step is equal (0/1 spikes times one
// shared weight: any order adds the same value to the same running sums); otherwise (spike
// counts above 1, graded presynaptic values, or per-synapse weights) the sums agree to float32
// rounding only.
//
// Errors: std::invalid_argument for malformed arguments, std::runtime_error (message naming the
// operation and the CUDA error) for failed allocations, launches and copies. Thread: any thread,
// but one executor's calls must come from one thread at a time.
#pragma once

#include "kernels/lif_math.hpp"

#include <cstddef>
#include <cstdint>
#include <utility>

namespace spike::kernels {

// ---- memory -------------------------------------------------------------------------------

/// `bytes` of zero-filled device memory (nullptr for 0 bytes). `what` names the buffer in the
/// error a failed allocation throws.
void* deviceAllocate(std::size_t bytes, const char* what);
/// Frees memory from deviceAllocate (nullptr is ignored). Never throws.
void deviceRelease(void* ptr) noexcept;

/// An owning, zero-initialised device array of `T` (float, std::int32_t, std::int64_t...).
/// Move-only; frees its memory when destroyed.
template <typename T>
class DeviceArray {
public:
    DeviceArray() = default;
    DeviceArray(std::size_t count, const char* what)
        : m_data(static_cast<T*>(deviceAllocate(count * sizeof(T), what))), m_count(count)
    {
    }
    ~DeviceArray() { deviceRelease(m_data); }
    DeviceArray(DeviceArray&& other) noexcept
        : m_data(std::exchange(other.m_data, nullptr)), m_count(std::exchange(other.m_count, 0))
    {
    }
    DeviceArray& operator=(DeviceArray&& other) noexcept
    {
        if (this != &other) {
            deviceRelease(m_data);
            m_data = std::exchange(other.m_data, nullptr);
            m_count = std::exchange(other.m_count, 0);
        }
        return *this;
    }
    DeviceArray(const DeviceArray&) = delete;
    DeviceArray& operator=(const DeviceArray&) = delete;

    T* data() { return m_data; }
    const T* data() const { return m_data; }
    std::size_t size() const { return m_count; }

private:
    T* m_data = nullptr;
    std::size_t m_count = 0;
};

using DeviceFloats = DeviceArray<float>;

/// Direction of a copy.
enum class CopyKind {
    HostToDevice,
    DeviceToHost,
    DeviceToDevice,
};

/// Copies `bytes` bytes (a no-op for 0).
void copyBytes(void* dst, const void* src, std::size_t bytes, CopyKind kind);
/// Copies `rows` rows of `width` floats between pitched buffers (pitches in floats, >= width).
void copyRows(float* dst, std::int64_t dstPitch, const float* src, std::int64_t srcPitch,
              std::int64_t width, std::int64_t rows, CopyKind kind);
/// Sets `count` device floats to +0.
void zeroFloats(float* dst, std::int64_t count);
/// Waits for all queued device work; throws std::runtime_error naming `what` on a device error.
void deviceSynchronize(const char* what);

// ---- row arithmetic -----------------------------------------------------------------------

/// dst[r][c] += src[r][c] for r < rows, c < width (device rows, pitches in floats).
void addRows(float* dst, std::int64_t dstPitch, const float* src, std::int64_t srcPitch,
             std::int64_t width, std::int64_t rows);
/// dst[r][k] = src[r][columns[k]] for r < rows, k < count: `dst` is (rows, count) contiguous,
/// `columns` a device array of count channel indices.
void gatherColumns(const float* src, std::int64_t srcPitch, std::int64_t rows,
                   const std::int64_t* columns, std::int64_t count, float* dst);
/// A device float array for firstNonFiniteEach().
struct ScanSpan {
    const float* data = nullptr;
    std::int64_t count = 0;
};
/// first[k] = the index of the first NaN or infinity among spans[k]'s floats, or -1 when they are
/// all finite, for k < count. One clear, one launch and one copy of the results per 64 spans,
/// whatever their sizes (the per-chunk health check of every device State at once); `scratch`
/// holds the device results, grown on demand: keep it between calls. Synchronous.
void firstNonFiniteEach(const ScanSpan* spans, std::size_t count, std::int64_t* first,
                        DeviceArray<unsigned long long>& scratch);
/// A device buffer of (steps + 1) rows of `width` floats (a node's output rows).
struct CarriedRows {
    float* rows = nullptr;
    std::int64_t width = 0;
};
/// For each entry: row `steps` is copied to row 0 (a chunk's last row becomes the next chunk's
/// row 0), one launch per 64 entries.
void carryLastRows(const CarriedRows* list, std::size_t count, std::int64_t steps);

// ---- neurons ------------------------------------------------------------------------------
// Each *StepsCuda() runs `steps` steps: input row t at in + t * nIn (nIn as below), spike row t
// at out + t * n, and each trace target, when not nullptr, receives (steps, width) contiguous
// rows. States are device arrays updated in place; `s` receives the last step's spikes.

/// A LIF population (engine/neurons/lif.hpp, noise_std 0). nIn = n * nSyn; input channel j feeds
/// neuron j / nSyn. Parameters are expanded per neuron (per synapse for beta).
struct LifDevice {
    std::int64_t n = 0;                ///< neurons
    std::int64_t nSyn = 1;             ///< synapses per neuron
    float maxSpikes = 1.0F;            ///< max_spikes_per_dt
    const float* alpha = nullptr;      ///< (n) membrane decay per step
    const float* beta = nullptr;       ///< (n * nSyn) synaptic decay per step
    const float* bias = nullptr;       ///< (n)
    const float* threshold = nullptr;  ///< (n)
    const float* wRec = nullptr;       ///< (n, n * nSyn) recurrent weights; nullptr: none
    float* v = nullptr;                ///< (n) state vmem
    float* isyn = nullptr;             ///< (n * nSyn) state isyn, neuron-major
    float* s = nullptr;                ///< (n) state spikes (of the last step)
    float* irec = nullptr;             ///< (n * nSyn) scratch for spikes @ w_rec (recurrent only)
};

/// Runs a LIF population; traces vmem (n), isyn (n * nSyn) and irec (n * nSyn, recurrent only).
/// A recurrent population costs two launches per step (irec = s @ w_rec summed in neuron
/// order, silent neurons skipped, then the update), a feed-forward one a single launch.
void lifStepsCuda(const LifDevice& layer, const float* in, std::int64_t steps, float* out,
                  float* recVmem, float* recIsyn, float* recIrec);

/// A LIFRefrac population (engine/neurons/lif_refrac.hpp); nIn = n. Parameters expanded per neuron.
struct LifRefracDevice {
    std::int64_t n = 0;
    const float* dtTauMemInv = nullptr;  ///< (n) dt * tau_mem_inv, a float32 product
    const float* dtTauSynInv = nullptr;  ///< (n) dt * tau_syn_inv
    const float* vLeak = nullptr;        ///< (n)
    const float* vTh = nullptr;          ///< (n)
    const float* vReset = nullptr;       ///< (n)
    const float* rhoReset = nullptr;     ///< (n) [steps]
    float* v = nullptr;                  ///< (n) state
    float* i = nullptr;                  ///< (n) state
    float* rho = nullptr;                ///< (n) state [steps]
    float* s = nullptr;                  ///< (n) state spikes (of the last step)
};

/// Runs a LIFRefrac population; traces v, i and rho, each (n).
void lifRefracStepsCuda(const LifRefracDevice& layer, const float* in, std::int64_t steps,
                        float* out, float* recV, float* recI, float* recRho);

/// A CUBA LIF population (engine/neurons/cuba_lif.hpp); nIn = 2n, input row [exc n | inh n].
struct CubaDevice {
    std::int64_t n = 0;
    const CubaPropagators* propagators = nullptr;  ///< (n) per-neuron propagators
    const float* vRest = nullptr;                  ///< (n)
    const float* vTh = nullptr;                    ///< (n)
    const float* vReset = nullptr;                 ///< (n)
    const float* refracSteps = nullptr;            ///< (n) [steps] refractory period
    float* v = nullptr;                            ///< (n) state
    float* iExc = nullptr;                         ///< (n) state
    float* iInh = nullptr;                         ///< (n) state
    float* refrac = nullptr;                       ///< (n) state [steps] remaining refractory steps
    float* s = nullptr;  ///< (n) state spikes of the last step; nullptr: not kept
};

/// Runs a CUBA population; traces v, i_exc, i_inh and refrac, each (n).
void cubaStepsCuda(const CubaDevice& layer, const float* in, std::int64_t steps, float* out,
                   float* recV, float* recIExc, float* recIInh, float* recRefrac);

// ---- projections --------------------------------------------------------------------------
// Each *DeliverCuda() adds `steps` steps: presynaptic row t at pre + t * preStride, postsynaptic
// row t at post + t * postStride (accumulated, +=), as engine/network/projections.hpp's deliver().

/// post[t][j] += sum_i pre[t][i] * weight[i][j], one thread per (t, j) adding the terms of the
/// non-zero presynaptic values to post[t][j] one by one in ascending channel order (the CPU's
/// order, so the same rounding).
void denseDeliverCuda(const float* weight, std::int64_t nSrc, std::int64_t nDst, const float* pre,
                      std::int64_t preStride, std::int64_t steps, float* post,
                      std::int64_t postStride);

/// post[t][j] += weight[j or 0] * pre[t][j]; `weightCount` is 1 (shared) or n.
void oneToOneDeliverCuda(const float* weight, std::int64_t weightCount, std::int64_t n,
                         const float* pre, std::int64_t preStride, std::int64_t steps, float* post,
                         std::int64_t postStride);

/// A sparse projection in CSR by presynaptic channel, with a shared weight or one weight per
/// synapse, and a delay ring.
struct SparseDevice {
    std::int64_t nSrc = 0;
    std::int64_t nDst = 0;
    const std::int64_t* rowStart = nullptr;  ///< (nSrc + 1)
    const std::int32_t* targets = nullptr;   ///< (synapses)
    float weight = 0.0F;                     ///< every synapse's weight when `weights` is null
    const float* weights = nullptr;          ///< (synapses) per-synapse weights, or nullptr
    std::int64_t delay = 0;    ///< [steps]
    float* pending = nullptr;  ///< (delay, nDst) ring of deliveries not yet due (delay >= 1)
};

/// Event-driven delivery, step after step: with delay d >= 1, ring row `head` (due this step)
/// is added to post[t] and cleared, then every synapse (i -> j) of a presynaptic channel with
/// pre[t][i] != 0 adds pre[t][i] * weights[s] (or pre[t][i] * weight, one product per channel,
/// when weights is null) into that row (due d steps later), and head moves on
/// (head = (head + 1) mod d; returned). With d = 0 the synapses add into post[t] directly.
/// One warp per presynaptic channel scans its synapses; targets accumulate with atomicAdd.
std::int64_t sparseDeliverCuda(const SparseDevice& projection, std::int64_t head, const float* pre,
                               std::int64_t preStride, std::int64_t steps, float* post,
                               std::int64_t postStride);

}  // namespace spike::kernels
