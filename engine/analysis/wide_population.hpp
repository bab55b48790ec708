// Wide populations: one copy of an element-wise neuron population with `blocks` times its
// neurons, block b a stand-in for a separate copy of the original (parameter_sweep.hpp runs its
// grid points so). Neuron k of block b computes, operation for operation, what neuron k of a
// separate copy with block b's parameter values computes, when the neurons never interact (no
// recurrence, no random stream shared by all neurons) and read only their own entry of every
// per-neuron parameter: LIF without w_rec or membrane noise, LIFRefrac, CUBALIF and NIR's LI,
// NIRLIF, NIRCubaLI, NIRCubaLIF, Integrator, IF. The copy is built as a model file builds a module
// of another size (the type's size setting, module_factory.hpp), every settable attribute of the
// original tiled over the blocks. Engine only; any thread (reads the original only).
#pragma once

#include "engine/core/module.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace spike::engine {

/// Whether `neuron` may run as a wide population whose attributes `perNeuron` differ between
/// the blocks: an element-wise type (see the file comment) with a size setting, each of
/// `perNeuron` accepting one value per neuron (shape (N,)), and every other settable numeric
/// attribute one number or one per neuron (leading axis N), so that it tiles.
bool canRunWide(const Module& neuron, const std::vector<std::string>& perNeuron);

/// A copy of `neuron` (canRunWide()) with blocks x N neurons: every settable attribute of
/// `neuron`, per-neuron ones repeated block after block, then `overrides` (values of shape
/// (blocks N,) for the attributes that differ between blocks), validated and set as one change;
/// States at rest, eval mode. nullptr with `status` holding the module's message when the change
/// is refused. Throws Error when the type cannot be built at that size.
std::unique_ptr<Module> widePopulation(const Module& neuron, std::int64_t blocks,
                                       const AttributeMap& overrides, Status& status);

/// Row `k` of `t` (leading axis n) as a tensor with leading axis 1.
Tensor neuronRow(const Tensor& t, std::int64_t n, std::int64_t k);

/// What attribute `spec` of a population of `n` neurons holding `t` becomes in `single`, its
/// one-neuron copy for neuron `k`: row k of a per-neuron value, `t` itself when `single` takes
/// it as it is (one value for all), nullopt when it is neither (a value that couples neurons).
std::optional<Tensor> oneNeuronValue(const Module& single, const AttributeSpec& spec,
                                     const Tensor& t, std::int64_t n, std::int64_t k);

/// A one-neuron copy of population `neuron` built as a model file builds a module of another
/// size, with neuron k's parameters (oneNeuronValue) and every other setting as it is; States
/// at rest, eval mode. Throws Error "<who>: ..." when the type has no size setting, a
/// parameter couples the neurons, or the copy refuses a value. Any element-wise type, equation
/// models included (unlike widePopulation, it never puts two neurons side by side).
std::unique_ptr<Module> oneNeuronCopy(const Module& neuron, std::int64_t k, const std::string& who);

}  // namespace spike::engine
