// NodeRunner's default runListing() and GenericRunner (any module advanced through
// forwardBatched()). See node_runner.hpp.
#include "engine/core/node_runner.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <utility>

namespace spike::engine {

void NodeRunner::runListing(const float* in, std::int64_t steps, float* out,
                            const std::vector<float*>& traceTargets,
                            const SpikeListTargets& lists)
{
    run(in, steps, out, traceTargets);
    const std::int64_t width = m_module->sizeOut();
    listNonZeroRows(out, width, width, steps, lists);
}

GenericRunner::GenericRunner(Module& module, std::vector<TraceInfo> recorded)
    : NodeRunner(module)
{
    for (const auto& [path, sub] : module.namedModules()) {
        for (const AttributeView& view : sub->attributes()) {
            if (view.spec->kind != AttributeKind::State) {
                continue;
            }
            if (const auto* t = std::get_if<Tensor>(view.value)) {
                const std::string& attr = view.spec->name;
                m_traces.push_back({path.empty() ? attr : path + "." + attr, t->numel(),
                                    view.spec->units});
                m_sources.push_back({sub, attr});
            }
        }
    }
    for (TraceInfo& info : recorded) {
        m_sources.push_back({nullptr, info.name});
        m_traces.push_back(std::move(info));
    }
}

void GenericRunner::run(const float* in, std::int64_t steps, float* out,
                        const std::vector<float*>& traceTargets)
{
    Module& m = module();
    const std::int64_t nIn = m.sizeIn();
    const std::int64_t nOut = m.sizeOut();
    bool sampled = false;
    std::set<std::string> wanted;
    for (std::size_t k = 0; k < m_traces.size(); ++k) {
        if (traceTargets[k] == nullptr) {
            continue;
        }
        sampled = true;
        if (m_sources[k].module == nullptr) {
            wanted.insert(m_sources[k].name);
        }
    }
    const std::int64_t stride = sampled ? 1 : steps;
    const RecordSpec record(std::move(wanted));
    for (std::int64_t t0 = 0; t0 < steps; t0 += stride) {
        // An owning (aligned) copy: modules may map their input with aligned Eigen maps, and
        // the executor's rows start at arbitrary offsets.
        Tensor input(Shape{1, stride, nIn});
        std::copy(in + t0 * nIn, in + (t0 + stride) * nIn, input.data());
        Recording recording;
        const Tensor output = m.forwardBatched(input.view(), Recorder(record, recording));
        std::copy(output.data(), output.data() + stride * nOut, out + t0 * nOut);
        if (!sampled) {
            continue;
        }
        for (std::size_t k = 0; k < m_traces.size(); ++k) {
            if (traceTargets[k] == nullptr) {
                continue;
            }
            const TraceSource& source = m_sources[k];
            const std::int64_t width = m_traces[k].width;
            const Tensor* values = nullptr;
            if (source.module != nullptr) {
                values = &source.module->tensor(source.name);
            } else {
                const auto level = recording.find("");
                if (level != recording.end()) {
                    const auto series = level->second.find(source.name);
                    values = series == level->second.end() ? nullptr : &series->second.data;
                }
                if (values == nullptr) {
                    throw Error(m.className() + " '" + m.fullName() + "' did not record '" +
                                source.name + "'");
                }
            }
            if (values->numel() != width) {
                throw Error(m.className() + " '" + m.fullName() + "': '" + m_traces[k].name +
                            "' has " + std::to_string(values->numel()) + " values per step, " +
                            "expected " + std::to_string(width));
            }
            std::copy(values->data(), values->data() + width, traceTargets[k] + t0 * width);
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
