// ProbeTarget resolution, the same for every backend. See probe_target.hpp.
#include "probe_target.hpp"

#include <string>

namespace spike::engine {

std::vector<std::int64_t> ProbeTarget::channels() const
{
    if (!indices.empty()) {
        return indices;
    }
    std::vector<std::int64_t> out(static_cast<std::size_t>(info.width));
    for (std::int64_t k = 0; k < info.width; ++k) {
        out[static_cast<std::size_t>(k)] = offset + k;
    }
    return out;
}

ProbeTarget resolveProbeTarget(const ExecutionPlan& plan,
                               const std::vector<std::vector<TraceInfo>>& traces,
                               const ProbeRequest& r)
{
    const std::string label =
        "probe '" + (r.path.empty() ? std::string("<root>") : r.path) + "." + r.signal + "'";
    const int node = plan.findNode(r.path);
    if (node < 0 || plan.nodes[static_cast<std::size_t>(node)].role != PlanNode::Role::Module) {
        std::string paths;
        for (const PlanNode& p : plan.nodes) {
            if (p.role == PlanNode::Role::Module) {
                paths += (paths.empty() ? "'" : ", '") + p.path + "'";
            }
        }
        throw Error(label + ": no module at path '" + r.path +
                    "' that runs in this network (modules: " + paths + ")");
    }
    const PlanNode& p = plan.nodes[static_cast<std::size_t>(node)];
    const std::vector<TraceInfo>& nodeTraces = traces.at(static_cast<std::size_t>(node));
    ProbeTarget out;
    out.node = node;
    std::int64_t width = -1;
    const std::vector<PortSpec> ports = p.module->outputPorts();
    for (const PortSpec& port : ports) {
        if (port.name == r.signal) {
            out.offset = port.offset;
            width = port.size;
            out.info.spikes = port.spiking;
        }
    }
    if (width < 0 && (r.signal == "out" || r.signal == "output" ||
                      (r.signal == "spikes" && p.module->spikingOutput()))) {
        width = p.sizeOut;
        out.info.spikes = p.module->spikingOutput();
    }
    if (width >= 0) {
        out.rowWidth = p.sizeOut;
    } else {
        for (std::size_t k = 0; k < nodeTraces.size(); ++k) {
            if (nodeTraces[k].name == r.signal) {
                out.trace = static_cast<int>(k);
                width = nodeTraces[k].width;
                out.rowWidth = width;
                out.info.units = nodeTraces[k].units;
            }
        }
    }
    if (width < 0) {
        std::string names;
        for (const PortSpec& port : ports) {
            names += (names.empty() ? "" : ", ") + port.name;
        }
        for (const TraceInfo& t : nodeTraces) {
            names += (names.empty() ? "" : ", ") + t.name;
        }
        throw Error(label + ": " + p.module->className() + " has no signal '" + r.signal +
                    "' (signals: " + (names.empty() ? std::string("none") : names) + ")");
    }
    out.info.width = width;
    if (!r.indices.empty()) {
        for (const std::int64_t i : r.indices) {
            if (i < 0 || i >= width) {
                throw Error(label + ": index " + std::to_string(i) + " is outside [0, " +
                            std::to_string(width) + ")");
            }
            out.indices.push_back(out.offset + i);
        }
        out.info.width = static_cast<std::int64_t>(r.indices.size());
    }
    return out;
}

}  // namespace spike::engine
