// ProbeTarget resolution, the same for every backend. See probe_target.hpp.
#include "engine/runtime/probe_target.hpp"

#include <algorithm>
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

namespace {

/// Whether `module` has a descendant at the dotted `path` (non-empty).
bool hasDescendant(const Module& module, const std::string& path)
{
    const Module* at = &module;
    for (std::size_t start = 0; at != nullptr;) {
        const auto dot = path.find('.', start);
        at = at->findChild(path.substr(start, dot == std::string::npos ? dot : dot - start));
        if (dot == std::string::npos) {
            break;
        }
        start = dot + 1;
    }
    return at != nullptr;
}

}  // namespace

ProbeTarget resolveProbeTarget(const ExecutionPlan& plan,
                               const std::vector<std::vector<TraceInfo>>& traces,
                               const ProbeRequest& r)
{
    const std::string label =
        "probe '" + (r.path.empty() ? std::string("<root>") : r.path) + "." + r.signal + "'";
    const auto moduleNode = [&plan](const std::string& path) {
        const int i = plan.findNode(path);
        return i >= 0 && plan.nodes[static_cast<std::size_t>(i)].role == PlanNode::Role::Module ? i
                                                                                                : -1;
    };
    // A module inside a plan node (a composite's child, "dynamics.lstm") is read through the
    // traces its plan node's runner offers under the dotted rest of the path ("lstm.h").
    int node = moduleNode(r.path);
    std::string within;
    for (std::string prefix = r.path; node < 0 && !prefix.empty();) {
        const auto dot = prefix.rfind('.');
        prefix = dot == std::string::npos ? std::string() : prefix.substr(0, dot);
        node = moduleNode(prefix);
        if (node >= 0) {
            within = r.path.substr(prefix.empty() ? 0 : prefix.size() + 1);
            if (!hasDescendant(*plan.nodes[static_cast<std::size_t>(node)].module, within)) {
                node = -1;
                break;
            }
        }
    }
    if (node < 0) {
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
    const std::vector<PortSpec> ports =
        within.empty() ? p.module->outputPorts() : std::vector<PortSpec>{};
    const std::string traceName = within.empty() ? r.signal : within + "." + r.signal;
    for (const PortSpec& port : ports) {
        if (port.name == r.signal) {
            out.offset = port.offset;
            width = port.size;
            out.info.spikes = port.spiking;
        }
    }
    if (width < 0 && within.empty() && (r.signal == "out" || r.signal == "output" ||
                      (r.signal == "spikes" && p.module->spikingOutput()))) {
        width = p.sizeOut;
        out.info.spikes = p.module->spikingOutput();
    }
    if (width >= 0) {
        out.rowWidth = p.sizeOut;
    } else {
        for (std::size_t k = 0; k < nodeTraces.size(); ++k) {
            if (nodeTraces[k].name == traceName) {
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
            if (within.empty()) {
                names += (names.empty() ? "" : ", ") + t.name;
            } else if (t.name.compare(0, within.size() + 1, within + ".") == 0) {
                names += (names.empty() ? "" : ", ") + t.name.substr(within.size() + 1);
            }
        }
        const std::string owner = within.empty() ? p.module->className()
                                                 : "'" + within + "' in " + p.module->className() +
                                                       " '" + p.path + "'";
        throw Error(label + ": " + owner + " has no signal '" + r.signal + "' (signals: " +
                    (names.empty() ? std::string("none") : names) + ")");
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

void narrowTraceProbes(const std::vector<ProbeTarget*>& probes,
                       const std::function<bool(int, int, const std::vector<std::int64_t>&)>& select)
{
    const auto whole = [](const ProbeTarget& p) {
        return p.indices.empty() && p.offset == 0 && p.info.width == p.rowWidth;
    };
    for (std::size_t i = 0; i < probes.size(); ++i) {
        const ProbeTarget& first = *probes[i];
        if (first.trace < 0) {
            continue;
        }
        // Every probe of this trace; the first one found decides (earlier ones did).
        std::vector<std::size_t> same;
        bool anyWhole = false;
        bool seenBefore = false;
        for (std::size_t j = 0; j < probes.size(); ++j) {
            if (probes[j]->node == first.node && probes[j]->trace == first.trace) {
                seenBefore = seenBefore || j < i;
                anyWhole = anyWhole || whole(*probes[j]);
                same.push_back(j);
            }
        }
        if (seenBefore || anyWhole) {
            continue;
        }
        std::vector<std::int64_t> channels;
        for (const std::size_t j : same) {
            const std::vector<std::int64_t> c = probes[j]->channels();
            channels.insert(channels.end(), c.begin(), c.end());
        }
        std::sort(channels.begin(), channels.end());
        channels.erase(std::unique(channels.begin(), channels.end()), channels.end());
        if (!select(first.node, first.trace, channels)) {
            continue;
        }
        const auto width = static_cast<std::int64_t>(channels.size());
        for (const std::size_t j : same) {
            ProbeTarget& p = *probes[j];
            std::vector<std::int64_t> positions = p.channels();
            for (std::int64_t& c : positions) {
                c = std::lower_bound(channels.begin(), channels.end(), c) - channels.begin();
            }
            p.rowWidth = width;
            p.offset = 0;
            p.indices = std::move(positions);
            bool identity = p.info.width == width;
            for (std::int64_t k = 0; identity && k < width; ++k) {
                identity = p.indices[static_cast<std::size_t>(k)] == k;
            }
            if (identity) {
                p.indices.clear();
            }
        }
    }
}

}  // namespace spike::engine
