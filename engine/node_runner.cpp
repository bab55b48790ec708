// NodeRunner's default runListing() and GenericRunner (any module advanced through
// forwardBatched()). See node_runner.hpp.
#include "node_runner.hpp"

#include <algorithm>

namespace spike::engine {

void NodeRunner::runListing(const float* in, std::int64_t steps, float* out,
                            const std::vector<float*>& traceTargets,
                            const SpikeListTargets& lists)
{
    run(in, steps, out, traceTargets);
    const std::int64_t width = m_module->sizeOut();
    listNonZeroRows(out, width, width, steps, lists);
}

GenericRunner::GenericRunner(Module& module) : NodeRunner(module)
{
    for (const AttributeView& view : module.attributes()) {
        if (view.spec->kind != AttributeKind::State) {
            continue;
        }
        if (const auto* t = std::get_if<Tensor>(view.value)) {
            m_traces.push_back({view.spec->name, t->numel(), view.spec->units});
        }
    }
}

void GenericRunner::run(const float* in, std::int64_t steps, float* out,
                        const std::vector<float*>& traceTargets)
{
    Module& m = module();
    const std::int64_t nIn = m.sizeIn();
    const std::int64_t nOut = m.sizeOut();
    const bool sampled = std::any_of(traceTargets.begin(), traceTargets.end(),
                                     [](const float* p) { return p != nullptr; });
    const std::int64_t stride = sampled ? 1 : steps;
    const RecordSpec none;
    for (std::int64_t t0 = 0; t0 < steps; t0 += stride) {
        // An owning (aligned) copy: modules may map their input with aligned Eigen maps, and
        // the executor's rows start at arbitrary offsets.
        Tensor input(Shape{1, stride, nIn});
        std::copy(in + t0 * nIn, in + (t0 + stride) * nIn, input.data());
        Recording ignored;
        const Tensor output = m.forwardBatched(input.view(), Recorder(none, ignored));
        std::copy(output.data(), output.data() + stride * nOut, out + t0 * nOut);
        if (!sampled) {
            continue;
        }
        for (std::size_t k = 0; k < m_traces.size(); ++k) {
            if (traceTargets[k] == nullptr) {
                continue;
            }
            const Tensor& state = m.tensor(m_traces[k].name);
            std::copy(state.data(), state.data() + state.numel(),
                      traceTargets[k] + t0 * m_traces[k].width);
        }
    }
}

std::vector<StateArray> GenericRunner::workingStates() const
{
    std::vector<StateArray> out;
    for (const auto& [path, sub] : module().namedModules()) {
        for (const AttributeView& view : sub->attributes()) {
            if (view.spec->kind != AttributeKind::State) {
                continue;
            }
            if (const auto* t = std::get_if<Tensor>(view.value)) {
                out.push_back({path.empty() ? view.spec->name : path + "." + view.spec->name,
                               t->data(), t->numel()});
            }
        }
    }
    return out;
}

}  // namespace spike::engine
