// Network container: nodes, connections, endpoint resolution, cycle marking and evolve() through
// the CPU executor and the run loop (engine/runtime/run_loop.hpp). See network.hpp.
#include "engine/network/network.hpp"

#include "engine/runtime/backend.hpp"
#include "engine/runtime/run_loop.hpp"

#include <algorithm>
#include <set>
#include <sstream>

namespace spike::engine {

namespace {

constexpr std::int64_t kMaxBoundary = 100000000;

std::string portList(const std::vector<PortSpec>& ports)
{
    std::string out;
    for (const auto& p : ports) {
        out += (out.empty() ? "'" : ", '") + p.name + "'";
    }
    return out.empty() ? std::string("none") : out;
}

std::vector<std::int64_t> boundaryShape(std::int64_t in, std::int64_t out)
{
    return in == out ? std::vector<std::int64_t>{in} : std::vector<std::int64_t>{in, out};
}

}  // namespace

Network::Network(std::int64_t inputSize, std::int64_t outputSize)
    : Module(boundaryShape(inputSize, outputSize), false, false)
{
    for (const auto& [what, n] : {std::pair{"input_size", inputSize}, {"output_size", outputSize}}) {
        if (n < 0 || n > kMaxBoundary) {
            throw Error(std::string("Network: ") + what + " must be in [0, " +
                        std::to_string(kMaxBoundary) + "], got " + std::to_string(n));
        }
    }
}

namespace {

std::int64_t checkedPorts(const std::vector<BoundaryPort>& ports, const char* side)
{
    std::int64_t total = 0;
    std::set<std::string> seen;
    for (const BoundaryPort& p : ports) {
        if (p.name.empty() || p.name.find('.') != std::string::npos || !seen.insert(p.name).second) {
            throw Error(std::string("Network: ") + side + " port '" + p.name +
                        "': names must be non-empty, without '.', and unique on their side");
        }
        if (p.size < 1 || p.size > kMaxBoundary) {
            throw Error(std::string("Network: ") + side + " port '" + p.name + "' must have 1 to " +
                        std::to_string(kMaxBoundary) + " channels, got " + std::to_string(p.size));
        }
        total += p.size;
    }
    if (total > kMaxBoundary) {
        throw Error(std::string("Network: the ") + side + " ports add up to " + std::to_string(total) +
                    " channels, more than " + std::to_string(kMaxBoundary));
    }
    return total;
}

nlohmann::json portsJson(const std::vector<BoundaryPort>& ports)
{
    nlohmann::json out = nlohmann::json::array();
    for (const BoundaryPort& p : ports) {
        out.push_back({{"name", p.name}, {"size", p.size}});
    }
    return out;
}

std::vector<PortSpec> portSpecs(const std::vector<BoundaryPort>& ports, const std::string& whole,
                                std::int64_t size)
{
    if (ports.empty()) {
        return {PortSpec{whole, 0, size, false}};
    }
    std::vector<PortSpec> out;
    std::int64_t offset = 0;
    for (const BoundaryPort& p : ports) {
        out.push_back(PortSpec{p.name, offset, p.size, false});
        offset += p.size;
    }
    return out;
}

}  // namespace

Network::Network(std::vector<BoundaryPort> inputs, std::vector<BoundaryPort> outputs)
    : Network(checkedPorts(inputs, "input"), checkedPorts(outputs, "output"))
{
    // One port named after its side is the unsplit side.
    const auto whole = [](const std::vector<BoundaryPort>& ports, const char* side) {
        return ports.size() == 1 && ports.front().name == side;
    };
    for (const auto& [ports, side] : {std::pair{&inputs, "in"}, {&outputs, "out"}}) {
        if (!whole(*ports, side)) {
            for (const BoundaryPort& p : *ports) {
                if (p.name == "in" || p.name == "out") {
                    throw Error(std::string("Network: a port may be called '") + p.name +
                                "' only when it is its side's only port");
                }
            }
        }
    }
    if (!whole(inputs, "in")) {
        m_inPorts = std::move(inputs);
    }
    if (!whole(outputs, "out")) {
        m_outPorts = std::move(outputs);
    }
}

nlohmann::json Network::config() const
{
    nlohmann::json out = nlohmann::json::object();
    if (m_inPorts.empty()) {
        out["input_size"] = sizeIn();
    } else {
        out["input_ports"] = portsJson(m_inPorts);
    }
    if (m_outPorts.empty()) {
        out["output_size"] = sizeOut();
    } else {
        out["output_ports"] = portsJson(m_outPorts);
    }
    return out;
}

std::string Network::extraRepr() const
{
    return "input_size=" + std::to_string(sizeIn()) + ", output_size=" +
           std::to_string(sizeOut()) + ", connections=" + std::to_string(m_connections.size());
}

std::vector<PortSpec> Network::inputPorts() const
{
    return portSpecs(m_inPorts, "in", sizeIn());
}

std::vector<PortSpec> Network::outputPorts() const
{
    return portSpecs(m_outPorts, "out", sizeOut());
}

Module& Network::addNode(const std::string& name, std::unique_ptr<Module> node)
{
    if (!node) {
        throw Error(where() + ": cannot add an empty node '" + name + "'");
    }
    if (name == "in" || name == "out") {
        throw Error(where() + ": a node may not be called '" + name +
                    "' (it names the network's own " + (name == "in" ? "input" : "output") + ")");
    }
    if (findConnection(name) != nullptr) {
        throw Error(where() + ": '" + name + "' already names a connection");
    }
    return addModule(name, std::move(node));
}

Module& Network::insertNode(std::size_t index, const std::string& name,
                            std::unique_ptr<Module>&& node)
{
    const auto list = nodes();
    if (index > list.size()) {
        throw Error(where() + ": cannot insert node '" + name + "' at position " +
                    std::to_string(index) + " (it has " + std::to_string(list.size()) + " nodes)");
    }
    if (!node) {
        throw Error(where() + ": cannot add an empty node '" + name + "'");
    }
    checkNewName(name, "node");
    const std::size_t at = index == list.size() ? childCount() : childIndex(list[index].first);
    return insertModule(at, name, std::move(node));
}

void Network::checkNewName(const std::string& name, const std::string& what) const
{
    if (name.empty() || name.find('.') != std::string::npos || name == "in" || name == "out") {
        throw Error(where() + ": invalid " + what + " name '" + name +
                    "' (non-empty, no '.', not 'in' or 'out')");
    }
    if (nameTaken(name)) {
        throw Error(where() + ": the name '" + name + "' is taken");
    }
}

void Network::renameNode(const std::string& from, const std::string& to)
{
    if (findConnection(from) != nullptr) {
        throw Error(where() + ": '" + from + "' is a connection's projection, not a node");
    }
    (void)childIndex(from);  // throws naming the missing node
    if (to == from) {
        return;
    }
    checkNewName(to, "node");
    m_index.renameNode(from, to);
    for (auto& c : m_connections) {
        for (Endpoint* e : {&c.from, &c.to}) {
            if (e->node == from) {
                e->node = to;
            }
        }
    }
    renameChild(from, to);
}

void Network::renameConnection(const std::string& from, const std::string& to)
{
    const std::size_t index = connectionIndex(from);
    if (to == from) {
        return;
    }
    checkNewName(to, "connection");
    Connection& c = m_connections[index];
    if (c.hasProjection) {
        renameChild(from, to);
    }
    m_index.renameConnection(from, to);
    c.name = to;
    if (const auto it = m_delayedValues.find(from); it != m_delayedValues.end()) {
        std::vector<float> value = std::move(it->second);
        m_delayedValues.erase(it);
        m_delayedValues[to] = std::move(value);
    }
}

std::size_t Network::connectionIndex(const std::string& name) const
{
    if (const std::ptrdiff_t at = m_index.find(name); at >= 0) {
        return static_cast<std::size_t>(at);
    }
    throw Error(where() + ": no connection '" + name + "'");
}

std::unique_ptr<Module> Network::removeNode(const std::string& name)
{
    if (findConnection(name) != nullptr) {
        throw Error(where() + ": '" + name + "' is a connection's projection, not a node; " +
                    "disconnect it instead");
    }
    (void)getSubmodule(name);  // throws naming the missing node
    std::vector<std::string> touching;
    for (const auto& c : m_connections) {
        if (c.from.node == name || c.to.node == name) {
            touching.push_back(c.name);
        }
    }
    for (const auto& c : touching) {
        disconnect(c);
    }
    return removeModule(name);
}

std::vector<std::pair<std::string, Module*>> Network::nodes() const
{
    std::vector<std::pair<std::string, Module*>> out;
    for (const auto& [name, child] : namedChildren()) {
        if (findConnection(name) == nullptr) {
            out.emplace_back(name, child);
        }
    }
    return out;
}

const Connection* Network::findConnection(const std::string& name) const
{
    const std::ptrdiff_t at = m_index.find(name);
    return at < 0 ? nullptr : &m_connections[static_cast<std::size_t>(at)];
}

Projection* Network::projection(const std::string& name) const
{
    const Connection* c = findConnection(name);
    if (c == nullptr || !c->hasProjection) {
        return nullptr;
    }
    return dynamic_cast<Projection*>(&getSubmodule(name));
}

std::pair<Endpoint, PortSpec> Network::resolve(const std::string& text, bool asSource) const
{
    const std::string role = asSource ? "source" : "target";
    const auto dot = text.find('.');
    const std::string node = text.substr(0, dot);
    if (node == "in" || node == "out") {
        return resolveBoundary(text, asSource);
    }
    const std::string port = dot == std::string::npos ? "" : text.substr(dot + 1);
    if (node.empty()) {
        throw Error(where() + ": connection " + role + " '" + text +
                    "' must be 'node.port', 'node', 'in' or 'out'");
    }
    // Direct lookup (linear in children and connections, not their product: files with
    // thousands of connections load in linear time per connection).
    Module* m = findConnection(node) == nullptr ? findChild(node) : nullptr;
    if (m == nullptr) {
        std::string names;
        for (const auto& [n, child] : nodes()) {
            names += (names.empty() ? "'" : ", '") + n + "'";
        }
        throw Error(where() + ": connection " + role + " '" + text + "': no node '" + node +
                    "' (nodes: " + (names.empty() ? std::string("none") : names) + ")");
    }
    const std::vector<PortSpec> ports = asSource ? m->outputPorts() : m->inputPorts();
    const std::string kind = asSource ? "output" : "input";
    if (port.empty()) {
        if (ports.size() != 1) {
            throw Error(where() + ": connection " + role + " '" + text + "': " + m->className() +
                        " '" + node + "' has " + std::to_string(ports.size()) + " " + kind +
                        " ports (" + portList(ports) + "); name one as '" + node + ".port'");
        }
        return {Endpoint{node, ports.front().name}, ports.front()};
    }
    for (const auto& p : ports) {
        if (p.name == port) {
            return {Endpoint{node, port}, p};
        }
    }
    throw Error(where() + ": connection " + role + " '" + text + "': " + m->className() + " '" +
                node + "' has no " + kind + " port '" + port + "' (" + kind +
                " ports: " + portList(ports) + ")");
}

std::pair<Endpoint, PortSpec> Network::resolveBoundary(const std::string& text, bool asSource) const
{
    const auto dot = text.find('.');
    const std::string side = text.substr(0, dot);
    const bool input = side == "in";
    if (input != asSource) {
        throw Error(where() + ": '" + text + "' is the network's own " +
                    (input ? "input; it can only be a connection's source"
                           : "output; it can only be a connection's target"));
    }
    const std::int64_t size = input ? sizeIn() : sizeOut();
    if (size == 0) {
        throw Error(where() + ": the network has no " + (input ? "input" : "output") +
                    " channels (" + (input ? "input_size" : "output_size") + " is 0)");
    }
    if (dot == std::string::npos) {
        return {Endpoint{"", text}, PortSpec{text, 0, size, false}};
    }
    const std::string name = text.substr(dot + 1);
    const std::vector<BoundaryPort>& ports = input ? m_inPorts : m_outPorts;
    std::int64_t offset = 0;
    std::string names;
    for (const BoundaryPort& p : ports) {
        if (p.name == name) {
            return {Endpoint{"", text}, PortSpec{text, offset, p.size, false}};
        }
        offset += p.size;
        names += (names.empty() ? "'" : ", '") + p.name + "'";
    }
    throw Error(where() + ": the network has no " + (input ? "input" : "output") + " port '" + name +
                "' (" + (input ? "input" : "output") + " ports: " +
                (names.empty() ? std::string("none; '") + side + "' is its only one" : names) + ")");
}

bool Network::nameTaken(const std::string& name) const
{
    return m_index.find(name) >= 0 || findChild(name) != nullptr;
}

const Connection& Network::connect(const std::string& from, const std::string& to,
                                   std::unique_ptr<Projection> projection,
                                   const std::string& name, std::optional<bool> delayed)
{
    return insertConnection(m_connections.size(), from, to, std::move(projection), name, delayed);
}

const Connection& Network::insertConnection(std::size_t index, const std::string& from,
                                            const std::string& to,
                                            std::unique_ptr<Projection>&& projection,
                                            const std::string& name, std::optional<bool> delayed)
{
    if (index > m_connections.size()) {
        throw Error(where() + ": cannot insert a connection at position " + std::to_string(index) +
                    " (it has " + std::to_string(m_connections.size()) + " connections)");
    }
    const auto [src, srcPort] = resolve(from, true);
    const auto [dst, dstPort] = resolve(to, false);
    std::ostringstream endsText;
    endsText << "'" << src.toString() << "' (size " << srcPort.size << ") to '" << dst.toString()
             << "' (size " << dstPort.size << ")";
    const std::string ends = endsText.str();
    if (projection) {
        if (projection->sizeSource() != srcPort.size || projection->sizeTarget() != dstPort.size) {
            throw Error(where() + ": cannot connect " + ends + " through " +
                        projection->className() + " of shape (" +
                        std::to_string(projection->sizeSource()) + ", " +
                        std::to_string(projection->sizeTarget()) + "); expected shape (" +
                        std::to_string(srcPort.size) + ", " + std::to_string(dstPort.size) + ")");
        }
    } else if (srcPort.size != dstPort.size) {
        throw Error(where() + ": cannot connect " + ends +
                    " directly: sizes differ (use a projection to map between them)");
    }

    std::string connName = name;
    if (connName.empty()) {
        const std::string base = (src.node.empty() ? "in" : src.node) + "_to_" +
                                 (dst.node.empty() ? "out" : dst.node);
        connName = base;
        for (int k = 2; nameTaken(connName); ++k) {
            connName = base + "_" + std::to_string(k);
        }
    } else if (nameTaken(connName)) {
        throw Error(where() + ": cannot name the connection " + ends + " '" + connName +
                    "': the name is taken");
    } else if (connName.find('.') != std::string::npos || connName == "in" || connName == "out") {
        throw Error(where() + ": invalid connection name '" + connName +
                    "' (no '.', not 'in' or 'out')");
    }

    const bool closesCycle =
        !src.node.empty() && !dst.node.empty() && m_index.reaches(dst.node, src.node);
    if (delayed.has_value() && !*delayed && closesCycle) {
        throw Error(where() + ": connection '" + connName + "' from " + ends +
                    " closes a cycle and must be delayed by one step");
    }
    Connection c;
    c.name = connName;
    c.from = src;
    c.to = dst;
    c.delayed = delayed.value_or(closesCycle);
    c.hasProjection = projection != nullptr;
    if (projection) {
        addModule(connName, std::move(projection));
    }
    const auto it =
        m_connections.insert(m_connections.begin() + static_cast<std::ptrdiff_t>(index), c);
    m_index.inserted(m_connections, index);
    return *it;
}

const std::vector<float>* Network::delayedValue(const std::string& connection) const
{
    const auto it = m_delayedValues.find(connection);
    return it == m_delayedValues.end() ? nullptr : &it->second;
}

void Network::setDelayedValue(const std::string& connection, std::vector<float> value)
{
    m_delayedValues[connection] = std::move(value);
}

void Network::onResetState()
{
    m_delayedValues.clear();
}

std::unique_ptr<Projection> Network::disconnect(const std::string& name)
{
    const std::ptrdiff_t found = m_index.find(name);
    if (found < 0) {
        std::string names;
        for (const auto& c : m_connections) {
            names += (names.empty() ? "'" : ", '") + c.name + "'";
        }
        throw Error(where() + ": no connection '" + name + "' (connections: " +
                    (names.empty() ? std::string("none") : names) + ")");
    }
    const auto at = static_cast<std::size_t>(found);
    const Connection removed = m_connections[at];
    m_connections.erase(m_connections.begin() + found);
    m_index.erased(m_connections, at, removed);
    // From here `removed.name`: `name` may have been the erased connection's own.
    m_delayedValues.erase(removed.name);
    if (!removed.hasProjection) {
        return nullptr;
    }
    std::unique_ptr<Module> child = removeModule(removed.name);
    return std::unique_ptr<Projection>(static_cast<Projection*>(child.release()));
}

Tensor Network::evolveImpl(const TensorView& input, const Recorder& recorder)
{
    const std::int64_t batches = input.dim(0);
    const std::int64_t steps = input.dim(1);
    const std::int64_t nIn = sizeIn();
    const std::int64_t nOut = sizeOut();
    Tensor output(Shape{batches, steps, nOut});

    // Probes for every signal the recorder asks of any leaf module of the plan.
    const ExecutionPlan plan = compilePlan(*this);
    std::vector<ProbeRequest> requests;
    std::vector<Recorder> targets;
    for (const PlanNode& node : plan.nodes) {
        if (node.role != PlanNode::Role::Module) {
            continue;
        }
        Recorder r = recorder;
        std::string rest = node.path;
        while (!rest.empty()) {
            const auto dot = rest.find('.');
            r = r.child(rest.substr(0, dot));
            rest = dot == std::string::npos ? "" : rest.substr(dot + 1);
        }
        std::vector<std::string> signals = node.module->recordableSignals();
        if (std::find(signals.begin(), signals.end(), "spikes") == signals.end() &&
            std::find(signals.begin(), signals.end(), "output") == signals.end()) {
            signals.emplace_back("out");
        }
        for (const auto& s : signals) {
            if (r.wants(s)) {
                requests.push_back({node.path, s, {}});
                targets.push_back(r);
            }
        }
    }

    const NestedAttributes initial = state();
    const std::int64_t initialSteps = stepsElapsed();
    NestedAttributes firstFinal;
    std::vector<Tensor> recorded(requests.size());
    std::vector<ProbeInfo> infos;
    for (std::int64_t b = 0; b < batches; ++b) {
        if (b > 0) {
            if (Status s = setAttributes(initial); !s.ok) {
                throw Error(where() + ": cannot restore the state for batch element " +
                            std::to_string(b) + ": " + s.message);
            }
            setStepsElapsed(initialSteps);
        }
        ExecutorOptions options;
        options.maxChunkSteps = std::max<std::int64_t>(1, std::min<std::int64_t>(steps, 1024));
        auto executor = makeCpuExecutor(*this, options);
        infos = executor->setProbes(requests);
        if (b == 0) {
            for (std::size_t k = 0; k < requests.size(); ++k) {
                recorded[k] = Tensor(Shape{batches, steps, infos[k].width});
            }
        }
        const RunRows rows{input.data() + b * steps * nIn, nIn, output.data() + b * steps * nOut, nOut};
        RunLoop loop;  // as fast as possible, chunks of maxChunkSteps
        loop.runTo(*executor, 0, steps, rows, [&](std::int64_t t0, std::int64_t n) {
            for (std::size_t k = 0; k < requests.size(); ++k) {
                const float* data = executor->probeData(k);
                const std::int64_t w = infos[k].width;
                std::copy(data, data + n * w, recorded[k].data() + (b * steps + t0) * w);
            }
        });
        executor->storeStates();
        if (b == 0 && batches > 1) {
            firstFinal = state();
        }
    }
    if (batches > 1) {
        if (Status s = setAttributes(firstFinal); !s.ok) {
            throw Error(where() + ": cannot keep batch element 0's state: " + s.message);
        }
    }
    // The runners advanced the leaves; every descendant ends `steps` further on, the network's
    // own counter is advanced by forwardBatched().
    for (const auto& [name, child] : namedChildren()) {
        child->setStepsElapsed(initialSteps + steps);
    }
    for (std::size_t k = 0; k < requests.size(); ++k) {
        targets[k].record(requests[k].signal, std::move(recorded[k]), infos[k].units,
                          infos[k].spikes);
    }
    return output;
}

}  // namespace spike::engine
