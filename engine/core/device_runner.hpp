// Device faces of modules: the bases the CUDA executor drives, DeviceNeuron (a neuron population
// advanced by device kernels, the GPU counterpart of a NodeRunner) and DeviceProjection (a
// projection delivered by device kernels), plus the upload helpers their implementations share.
// A module that has kernels returns its twin from Module::makeDeviceNeuron() or
// Projection::makeDeviceProjection() (default: none); each twin lives beside its model
// (engine/neurons/*_device.cpp, engine/network/projections_device.cpp), so the runtime names no
// model and a new model brings its own twin.
//
// A twin owns the device copies of its module's parameters (expanded per neuron, as the CPU
// caches them) and working States, reads the module only through its public attribute API on
// load(), and writes the States back on store(). Between load() and store() the device copy is
// the truth and the module's stored States may be stale, as with a NodeRunner. Modules without a
// twin run on the host. Uses kernels/network_cuda.hpp only, never CUDA headers. Thread: the
// executor's thread (the module tree's owner).
#pragma once

#include "engine/core/module.hpp"
#include "engine/core/node_runner.hpp"
#include "engine/core/projection.hpp"
#include "engine/tensor/tensor.hpp"

#include "kernels/fused_group_cuda.hpp"
#include "kernels/network_cuda.hpp"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace spike::engine {

/// A NaN or infinity found in a device array.
struct DeviceNonFinite {
    std::string attribute;   ///< State attribute name
    std::int64_t index = 0;  ///< element index
    float value = 0.0F;
};

/// The per-chunk NaN / infinity check of many twins' device States at once
/// (kernels::firstNonFiniteEach: one launch and one copy of the results for all arrays, and no
/// allocation once its buffers have grown). The executor lists the arrays in the order it reports
/// in, then runs the scan. Thread: the executor's thread.
class DeviceStateScan {
public:
    /// A non-finite value found, with the owner its array was listed under.
    struct Found {
        int owner = 0;
        DeviceNonFinite where;
    };

    /// Starts a new list (the buffers stay).
    void clear();
    /// Lists State `attribute` (a string that outlives the scan) of `owner`: `count` device
    /// floats at `data`.
    void add(int owner, std::string_view attribute, const float* data, std::int64_t count);
    /// The first non-finite value of the first listed array that has one, if any.
    std::optional<Found> run();

private:
    std::vector<kernels::ScanSpan> m_spans;
    std::vector<int> m_owners;
    std::vector<std::string_view> m_attributes;
    std::vector<std::int64_t> m_first;
    kernels::DeviceArray<unsigned long long> m_scratch;
};

/// A neuron population advanced by device kernels (Module::makeDeviceNeuron()); see the file
/// comment.
class DeviceNeuron {
public:
    virtual ~DeviceNeuron() = default;
    DeviceNeuron(const DeviceNeuron&) = delete;
    DeviceNeuron& operator=(const DeviceNeuron&) = delete;

    /// Empty when the kernels can run the module's current attributes, else why not (e.g. a
    /// LIF with membrane noise, whose random draws only the CPU makes).
    virtual std::string unsupportedReason() const { return {}; }
    /// Uploads parameters and working States from the module (after any attribute change).
    void load();
    /// Advances `steps` steps over device rows: `in` (steps, sizeIn), `out` (steps, sizeOut);
    /// `traceTargets` has one entry per trace of the module's runner, in that order (device
    /// rows (steps, width), or nullptr). Advances the module's elapsed-step counter.
    void run(const float* in, std::int64_t steps, float* out,
             const std::vector<float*>& traceTargets);
    /// Writes the device States into the module's States through its runner (`runner` must be
    /// the module's own), exactly as the runner's store() would write its working arrays.
    void store(NodeRunner& runner) const;
    /// Lists every working State's device array for the non-finite check, under `owner`.
    void listStates(DeviceStateScan& scan, int owner) const;

    /// Appends the operations of one step of this population to a fused lock-step group
    /// (kernels/fused_group_cuda.hpp), with run()'s arguments for the chunk's first row (row t
    /// follows one row width later). Returns false, appending nothing, when its kernels do not
    /// fuse (the executor then launches run() step by step).
    virtual bool appendFusedStep(const float* /*in*/, float* /*out*/,
                                 const std::vector<float*>& /*traceTargets*/,
                                 std::vector<kernels::FusedOp>& /*ops*/)
    {
        return false;
    }
    /// After a fused launch advanced `steps` steps: counts them, as run() does.
    void fusedStepsRan(std::int64_t steps);

protected:
    DeviceNeuron(Module& module, std::vector<std::string> stateNames);

    /// A fused operation of `kind` reading input rows `in` of `inWidth` floats and writing
    /// output rows `out` of `outWidth`, with trace k's rows (traceWidths[k] floats) at
    /// traceTargets[k].
    static kernels::FusedOp fusedNeuronOp(kernels::FusedKind kind, const float* in,
                                          std::int64_t inWidth, float* out, std::int64_t outWidth,
                                          const std::vector<float*>& traceTargets,
                                          std::initializer_list<std::int64_t> traceWidths);

    Module& module() const { return *m_module; }
    /// Device array of State k (in the constructor's order), sized by the last load().
    float* state(std::size_t k) { return m_states[k].data.data(); }
    /// Uploads the parameters (expanded per neuron) from the module.
    virtual void loadParameters() = 0;
    /// Launches the kernels for `steps` steps; see run().
    virtual void launch(const float* in, std::int64_t steps, float* out,
                        const std::vector<float*>& traceTargets) = 0;

private:
    struct State {
        std::string name;
        kernels::DeviceFloats data;
    };
    Module* m_module;
    std::vector<State> m_states;
};

/// A projection delivered by device kernels (Projection::makeDeviceProjection()); see the file
/// comment.
class DeviceProjection {
public:
    virtual ~DeviceProjection() = default;
    DeviceProjection(const DeviceProjection&) = delete;
    DeviceProjection& operator=(const DeviceProjection&) = delete;

    /// Uploads weights, connectivity and delay States from the projection.
    virtual void load() = 0;
    /// Projection::deliver() over device rows.
    virtual void deliver(const float* pre, std::int64_t preStride, std::int64_t steps, float* post,
                         std::int64_t postStride) = 0;
    /// Writes device States back into the projection (nothing for stateless types).
    virtual void store() {}
    /// Lists the device arrays of its States for the non-finite check, under `owner` (nothing
    /// for stateless types).
    virtual void listStates(DeviceStateScan& /*scan*/, int /*owner*/) const {}
    /// Appends deliver()'s work for one step to a fused lock-step group, with deliver()'s
    /// arguments for the chunk's first row. Returns false, appending nothing, when it does not
    /// fuse.
    virtual bool appendFusedDelivery(const float* /*pre*/, std::int64_t /*preStride*/,
                                     float* /*post*/, std::int64_t /*postStride*/,
                                     std::vector<kernels::FusedOp>& /*ops*/)
    {
        return false;
    }
    /// After a fused launch delivered `steps` steps: moves any state deliver() moves (the ring
    /// head of a delayed sparse projection).
    virtual void fusedDeliveriesRan(std::int64_t /*steps*/) {}

protected:
    DeviceProjection() = default;
};

/// Upload helpers shared by the twins. Parameters are expanded exactly as the CPU caches them
/// (NeuronLayer::expandTo: a scalar to every neuron, a per-neuron value to each of its synapses),
/// so the kernels see bit-identical inputs.
namespace twins {

/// A scalar / (1,) / (n,) / (n, nsyn) attribute as n * nsyn values, neuron-major (the CPU's
/// NeuronLayer::expandTo).
std::vector<float> expanded(const Tensor& t, std::int64_t n, std::int64_t nsyn);

/// Uploads `count` host values into `dev`, reallocating when the size changed.
template <typename T>
void upload(kernels::DeviceArray<T>& dev, const T* host, std::size_t count, const char* what)
{
    if (dev.size() != count) {
        dev = kernels::DeviceArray<T>(count, what);
    }
    kernels::copyBytes(dev.data(), host, count * sizeof(T), kernels::CopyKind::HostToDevice);
}

template <typename T>
void upload(kernels::DeviceArray<T>& dev, const std::vector<T>& host, const char* what)
{
    upload(dev, host.data(), host.size(), what);
}

/// Uploads a whole tensor.
void upload(kernels::DeviceFloats& dev, const Tensor& host, const char* what);

/// Per-neuron parameters packed as consecutive blocks of n floats in one device array, uploaded
/// once per load().
class PackedParameters {
public:
    /// Starts a new packing of `blocks` blocks of `n` floats.
    void reset(std::int64_t n, std::size_t blocks)
    {
        m_n = n;
        m_host.assign(static_cast<std::size_t>(n) * blocks, 0.0F);
    }
    float* block(std::size_t k) { return m_host.data() + k * static_cast<std::size_t>(m_n); }
    void upload(const char* what) { twins::upload(m_device, m_host, what); }
    const float* device(std::size_t k) const
    {
        return m_device.data() + k * static_cast<std::size_t>(m_n);
    }

private:
    std::int64_t m_n = 0;
    std::vector<float> m_host;
    kernels::DeviceFloats m_device;
};

inline void copyInto(float* dst, const std::vector<float>& src)
{
    std::copy(src.begin(), src.end(), dst);
}

}  // namespace twins

}  // namespace spike::engine
