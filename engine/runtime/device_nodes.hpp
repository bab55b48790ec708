// Device twins of the modules the CUDA executor keeps on the GPU: neuron populations (LIF,
// LIFRefrac, CUBALIF) and projections (Dense, OneToOne, Sparse).
//
// A twin owns the device copies of its module's parameters (expanded per neuron, as the CPU
// caches them) and working States, reads the module only through its public attribute API on
// load(), and writes the States back on store(). Between load() and store() the device copy is
// the truth and the module's stored States may be stale, as with a NodeRunner. Modules of other
// types have no twin (make() returns nullptr) and run on the host. Uses kernels/network_cuda.hpp
// only, never CUDA headers. Thread: the executor's thread (the module tree's owner).
#pragma once

#include "engine/core/module.hpp"
#include "engine/core/node_runner.hpp"
#include "engine/core/projection.hpp"

#include "kernels/network_cuda.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace spike::engine {

/// A NaN or infinity found in a device array.
struct DeviceNonFinite {
    std::string attribute;   ///< State attribute name
    std::int64_t index = 0;  ///< element index
    float value = 0.0F;
};

/// A neuron population advanced by device kernels; see the file comment.
class DeviceNeuron {
public:
    virtual ~DeviceNeuron() = default;
    DeviceNeuron(const DeviceNeuron&) = delete;
    DeviceNeuron& operator=(const DeviceNeuron&) = delete;

    /// The device twin of `module` when a kernel exists for its type, else nullptr.
    static std::unique_ptr<DeviceNeuron> make(Module& module);

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
    /// The first non-finite working State value, if any.
    std::optional<DeviceNonFinite> findNonFinite() const;

protected:
    DeviceNeuron(Module& module, std::vector<std::string> stateNames);

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

/// A projection delivered by device kernels; see the file comment.
class DeviceProjection {
public:
    virtual ~DeviceProjection() = default;
    DeviceProjection(const DeviceProjection&) = delete;
    DeviceProjection& operator=(const DeviceProjection&) = delete;

    /// The device twin of `projection` when a kernel exists for its type, else nullptr.
    static std::unique_ptr<DeviceProjection> make(Projection& projection);

    /// Uploads weights, connectivity and delay States from the projection.
    virtual void load() = 0;
    /// Projection::deliver() over device rows.
    virtual void deliver(const float* pre, std::int64_t preStride, std::int64_t steps, float* post,
                         std::int64_t postStride) = 0;
    /// Writes device States back into the projection (nothing for stateless types).
    virtual void store() {}
    /// The first non-finite State value, if any.
    virtual std::optional<DeviceNonFinite> findNonFinite() const { return std::nullopt; }

protected:
    DeviceProjection() = default;
};

}  // namespace spike::engine
