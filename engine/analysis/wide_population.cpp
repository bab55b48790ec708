// widePopulation(): an element-wise neuron population built again with blocks x N neurons and
// every settable attribute of the original tiled over the blocks (wide_population.hpp).
// Thread: whichever thread calls it; it reads the original only.
#include "engine/analysis/wide_population.hpp"

#include "engine/io/module_factory.hpp"
#include "engine/tensor/error.hpp"

#include <algorithm>
#include <set>
#include <variant>

namespace spike::engine {

namespace {

bool accepts(const AttributeSpec& spec, const Shape& shape)
{
    return std::find(spec.shapes.begin(), spec.shapes.end(), shape) != spec.shapes.end();
}

/// `t` (leading axis n) repeated `blocks` times along its leading axis.
Tensor tiled(const Tensor& t, std::int64_t blocks)
{
    std::vector<std::int64_t> dims = t.shape().dims();
    dims[0] *= blocks;
    Tensor out{Shape(dims)};
    for (std::int64_t b = 0; b < blocks; ++b) {
        std::copy(t.data(), t.data() + t.numel(), out.data() + b * t.numel());
    }
    return out;
}

/// The neuron types whose neurons never interact (no recurrence, no shared random stream), so
/// a block of neurons in a wider copy steps exactly as a separate copy would.
bool elementWiseType(const Module& m)
{
    static const std::set<std::string> kTypes{"LIF", "LIFRefrac", "CUBALIF", "LI", "NIRLIF",
                                              "NIRCubaLI", "NIRCubaLIF", "Integrator", "IF"};
    if (kTypes.count(m.className()) == 0 || m.childCount() > 0 || m.hasAttribute("w_rec")) {
        return false;
    }
    if (m.hasAttribute("noise_std")) {
        const Tensor& noise = m.tensor("noise_std");
        for (std::int64_t i = 0; i < noise.numel(); ++i) {
            if (noise[i] != 0.0F) {
                return false;  // one generator draws for all neurons: the blocks would differ
            }
        }
    }
    return true;
}

/// The name of the size setting of `m`'s type ("" when it has none).
std::string sizeSetting(const Module& m)
{
    const ModuleTypeInfo* info = findModuleType(m.className());
    if (info == nullptr) {
        return {};
    }
    for (const ConfigSetting& s : info->settings) {
        if (s.size) {
            return s.name;
        }
    }
    return {};
}

}  // namespace

bool canRunWide(const Module& m, const std::vector<std::string>& perNeuron)
{
    if (!elementWiseType(m) || sizeSetting(m).empty()) {
        return false;
    }
    const std::int64_t n = m.sizeOut();
    for (const std::string& name : perNeuron) {
        if (!accepts(m.spec(name), Shape{n})) {
            return false;
        }
    }
    for (const AttributeView& v : m.attributes()) {
        if (v.derived || v.spec->kind == AttributeKind::State) {
            continue;
        }
        const auto* t = std::get_if<Tensor>(v.value);
        if (t == nullptr) {
            continue;
        }
        const Shape& s = t->shape();
        const bool scalar = s.rank() == 0 || (s.rank() == 1 && s[0] == 1);
        if (!scalar && !(s.rank() >= 1 && s[0] == n)) {
            return false;
        }
    }
    return true;
}

std::unique_ptr<Module> widePopulation(const Module& neuron, std::int64_t blocks,
                                       const AttributeMap& overrides, Status& status)
{
    const std::string type = neuron.className();
    auto wide = createModule(type, configWithSetting(type, neuron.config(), sizeSetting(neuron),
                                                     neuron.sizeOut() * blocks));
    AttributeMap values;
    for (const AttributeView& v : neuron.attributes()) {
        if (v.derived || v.spec->kind == AttributeKind::State) {
            continue;  // States start at rest below
        }
        const auto* t = std::get_if<Tensor>(v.value);
        if (t == nullptr || accepts(wide->spec(v.spec->name), t->shape())) {
            values.emplace(v.spec->name, *v.value);
        } else {
            values.emplace(v.spec->name, tiled(*t, blocks));
        }
    }
    for (const auto& [name, value] : overrides) {
        values[name] = value;
    }
    status = wide->setAttributes({{"", values}});
    if (!status.ok) {
        return nullptr;
    }
    wide->resetState();
    wide->eval();
    return wide;
}

Tensor neuronRow(const Tensor& t, std::int64_t n, std::int64_t k)
{
    std::vector<std::int64_t> dims = t.shape().dims();
    dims[0] = 1;
    Tensor out{Shape(dims)};
    const std::int64_t width = t.numel() / n;
    std::copy(t.data() + k * width, t.data() + (k + 1) * width, out.data());
    return out;
}

std::optional<Tensor> oneNeuronValue(const Module& single, const AttributeSpec& spec,
                                     const Tensor& t, std::int64_t n, std::int64_t k)
{
    const bool fits = accepts(single.spec(spec.name), t.shape());
    if (t.shape().rank() >= 1 && t.shape()[0] == n && (n > 1 || !fits)) {
        return neuronRow(t, n, k);
    }
    if (fits) {
        return t;
    }
    return std::nullopt;
}

std::unique_ptr<Module> oneNeuronCopy(const Module& m, std::int64_t k, const std::string& who)
{
    const std::string type = m.className();
    const std::int64_t n = m.sizeOut();
    const std::string setting = sizeSetting(m);
    if (setting.empty()) {
        throw Error(who + ": " + type + " cannot be built one neuron at a time");
    }
    auto single = createModule(type, configWithSetting(type, m.config(), setting, 1));
    AttributeMap values;
    for (const AttributeView& v : m.attributes()) {
        if (v.derived || v.spec->kind == AttributeKind::State) {
            continue;
        }
        const auto* t = std::get_if<Tensor>(v.value);
        if (t == nullptr) {
            values.emplace(v.spec->name, *v.value);
            continue;
        }
        std::optional<Tensor> value = oneNeuronValue(*single, *v.spec, *t, n, k);
        if (!value) {
            throw Error(who + ": " + type + "'s " + v.spec->name + " of shape " +
                        t->shape().toString() + " couples the neurons; the analysis needs "
                        "neurons that step independently");
        }
        values.emplace(v.spec->name, std::move(*value));
    }
    const Status status = single->setAttributes({{"", values}});
    if (!status.ok) {
        throw Error(who + ": " + status.message);
    }
    single->resetState();
    single->eval();
    return single;
}

}  // namespace spike::engine
