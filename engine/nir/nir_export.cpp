// Module tree -> NIR graph; see nir_export.hpp. Per graph: find the boundary Identity nodes,
// infer every node's sample shape along the undelayed wires, write each node's parameters, then
// the edges (projections on wires become nodes of their own).
#include "engine/nir/nir_export.hpp"

#include "engine/layers/layer.hpp"
#include "engine/io/model_clone.hpp"
#include "engine/network/probeable_tree.hpp"
#include "engine/network/network.hpp"
#include "engine/nir/nir_file.hpp"
#include "engine/nir/nir_types.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>
#include <set>

namespace spike::engine::nir {

namespace {

using Dims = std::vector<std::int64_t>;

std::int64_t product(const Dims& d)
{
    std::int64_t n = 1;
    for (const auto x : d) {
        n *= x;
    }
    return n;
}

NirValue floats(const Tensor& t, const Dims& shape)
{
    NirArray a;
    a.type = ArrayType::Float32;
    a.shape = shape;
    a.values.assign(t.data(), t.data() + t.numel());
    return NirValue::ofArray(std::move(a));
}

NirValue integers(const Dims& values, bool scalar = false)
{
    NirArray a;
    a.type = ArrayType::Int64;
    if (!scalar) {
        a.shape = {static_cast<std::int64_t>(values.size())};
    }
    a.values.assign(values.begin(), values.end());
    return NirValue::ofArray(std::move(a));
}

/// A config entry as whole numbers: [h, w], one number spread to `count`, or a fallback.
Dims configInts(const nlohmann::json& config, const std::string& key, std::size_t count,
                std::int64_t fallback)
{
    if (!config.contains(key)) {
        return Dims(count, fallback);
    }
    const auto& v = config.at(key);
    if (v.is_array()) {
        Dims d;
        for (const auto& x : v) {
            d.push_back(x.get<std::int64_t>());
        }
        return d;
    }
    return Dims(count, v.get<std::int64_t>());
}

/// The NIR node of one module, or the reason it has none.
struct Converted {
    NirNode node;
    std::string why;  ///< non-empty: left out, for this reason
};

/// `t` (one value or n) as n values.
Tensor perNeuron(const Tensor& t, std::int64_t n)
{
    Tensor out(Shape{n});
    for (std::int64_t i = 0; i < n; ++i) {
        out[i] = t[t.numel() == n ? i : 0];
    }
    return out;
}

/// The engine's LIF (Rockpool's LIFTorch) as Rockpool's to_nir writes it: a CubaLIF with
/// r = tau_mem exp(-dt / tau_mem) / dt, w_in = 1, v_reset = 0 and v_leak = bias (Rockpool
/// writes 0 there and so loses the bias; its from_nir reads v_leak as the bias). With has_rec,
/// a NIRGraph input -> lif -> output with a Linear "w_rec" (w_rec transposed) from lif back to
/// lif: the form Rockpool's from_nir reads as a recurrent LIFTorch. What NIR cannot hold
/// (membrane noise, a spike limit other than Rockpool's) is added to `leftOut`.
Converted rockpoolLif(const Module& m, const std::string& path, std::vector<std::string>& leftOut)
{
    Converted r;
    const std::int64_t n = m.sizeOut();
    if (m.sizeIn() != n) {
        r.why = "n_synapses = " + std::to_string(m.sizeIn() / n) +
                ": NIR's CubaLIF has one synaptic current per neuron (Rockpool's to_nir refuses "
                "it too)";
        return r;
    }
    if (m.tensor("noise_std")[0] > 0.0F) {
        leftOut.push_back(path + ".noise_std: membrane noise (NIR has none; exported without it)");
    }
    if (m.tensor("max_spikes_per_dt")[0] != 65536.0F) {
        leftOut.push_back(path + ".max_spikes_per_dt: " +
                          std::to_string(static_cast<long long>(m.tensor("max_spikes_per_dt")[0])) +
                          " (NIR has no spike limit; Rockpool and this importer use 65536)");
    }
    const float dt = m.tensor("dt")[0];
    const Tensor tauMem = perNeuron(m.tensor("tau_mem"), n);
    Tensor gain(Shape{n});
    for (std::int64_t i = 0; i < n; ++i) {
        gain[i] = tauMem[i] * std::exp(-dt / tauMem[i]) / dt;
    }
    Tensor ones(Shape{n});
    ones.flat().setConstant(1.0F);
    NirNode lif;
    lif.type = "CubaLIF";
    lif.params["tau_mem"] = floats(tauMem, {n});
    lif.params["tau_syn"] = floats(perNeuron(m.tensor("tau_syn"), n), {n});
    lif.params["r"] = floats(gain, {n});
    lif.params["v_leak"] = floats(perNeuron(m.tensor("bias"), n), {n});
    lif.params["v_threshold"] = floats(perNeuron(m.tensor("threshold"), n), {n});
    lif.params["v_reset"] = floats(Tensor(Shape{n}), {n});
    lif.params["w_in"] = floats(ones, {n});
    if (!m.hasAttribute("w_rec")) {
        r.node = std::move(lif);
        return r;
    }
    const Tensor& w = m.tensor("w_rec");
    Tensor transposed(Shape{n, n});
    for (std::int64_t i = 0; i < n; ++i) {
        for (std::int64_t j = 0; j < n; ++j) {
            transposed[j * n + i] = w[i * n + j];
        }
    }
    auto g = std::make_shared<NirGraph>();
    NirNode in;
    in.name = "input";
    in.type = "Input";
    in.params["shape"] = integers({n});
    NirNode out = in;
    out.name = "output";
    out.type = "Output";
    NirNode rec;
    rec.name = "w_rec";
    rec.type = "Linear";
    rec.params["weight"] = floats(transposed, {n, n});
    lif.name = "lif";
    g->nodes = {in, lif, rec, out};
    g->edges = {{"input", "lif"}, {"lif", "w_rec"}, {"w_rec", "lif"}, {"lif", "output"}};
    r.node.type = "NIRGraph";
    r.node.graph = std::move(g);
    return r;
}

struct GraphResult {
    NirGraph graph;
    std::map<std::string, std::string> inputNode;   ///< boundary port -> Input node name
    std::map<std::string, std::string> outputNode;  ///< boundary port -> Output node name
};

class Exporter {
public:
    explicit Exporter(std::vector<std::string>& leftOut) : m_leftOut(leftOut) {}

    GraphResult network(const Network& net, const std::string& prefix);

private:
    Converted convert(const Module& m, const std::string& path, const Dims& in);
    Dims outputDims(const Module& m, const Dims& in) const;

    std::vector<std::string>& m_leftOut;
    std::map<std::string, GraphResult> m_nested;  ///< by path: nested graphs' port names
};

Dims Exporter::outputDims(const Module& m, const Dims& in) const
{
    const std::string type = m.className();
    if (type == "Flatten") {
        return {product(in)};
    }
    if (type == "Identity" || elementTypeByEngine(type) != nullptr) {
        return product(in) == m.sizeOut() ? in : Dims{m.sizeOut()};
    }
    if (const auto* layer = dynamic_cast<const Layer*>(&m)) {
        return layer->sampleOutputShape().dims();
    }
    return {m.sizeOut()};
}

Converted Exporter::convert(const Module& m, const std::string& path, const Dims& in)
{
    Converted r;
    NirNode& n = r.node;
    const std::string type = m.className();
    const nlohmann::json config = m.config();
    if (const ElementType* t = elementTypeByEngine(type)) {
        n.type = t->nir;
        const Dims shape = product(in) == m.sizeOut() ? in : Dims{m.sizeOut()};
        for (const auto& p : t->params) {
            n.params[p] = floats(m.tensor(p), shape);
        }
        return r;
    }
    if (type == "Linear") {
        const Tensor& w = m.tensor("weight");
        const bool bias = config.value("bias", true);
        n.type = bias ? "Affine" : "Linear";
        n.params["weight"] = floats(w, {w.dim(0), w.dim(1)});
        if (bias) {
            n.params["bias"] = floats(m.tensor("bias"), {w.dim(0)});
        }
        return r;
    }
    if (type == "Conv2d" || type == "Conv1d") {
        const bool two = type == "Conv2d";
        const std::size_t rank = two ? 2 : 1;
        n.type = type;
        const Tensor& w = m.tensor("weight");
        n.params["weight"] = floats(w, w.shape().dims());
        const std::int64_t outChannels = w.dim(0);
        if (config.value("bias", true)) {
            n.params["bias"] = floats(m.tensor("bias"), {outChannels});
        } else {
            n.params["bias"] = floats(Tensor(Shape{outChannels}), {outChannels});
        }
        n.params["stride"] = integers(configInts(config, "stride", rank, 1));
        n.params["padding"] = integers(configInts(config, "padding", rank, 0));
        n.params["dilation"] = integers(configInts(config, "dilation", rank, 1));
        n.params["groups"] = integers({config.value("groups", std::int64_t{1})}, true);
        n.params["input_shape"] = integers(configInts(config, "input_size", rank, 1));
        return r;
    }
    if (type == "SumPool2d" || type == "AvgPool2d") {
        n.type = type;
        n.params["kernel_size"] = integers(configInts(config, "kernel_size", 2, 1));
        n.params["stride"] = integers(configInts(config, "stride", 2, 1));
        n.params["padding"] = integers(configInts(config, "padding", 2, 0));
        return r;
    }
    if (type == "Flatten") {
        // Samples are flat here, so a Flatten flattens every axis of what reaches it.
        n.type = "Flatten";
        n.params["start_dim"] = integers({0}, true);
        n.params["end_dim"] = integers({-1}, true);
        n.params["input_type"] = integers(in);
        return r;
    }
    if (type == "Identity") {
        // NIR has no identity node: a Scale of ones computes the same.
        n.type = "Scale";
        Tensor ones(Shape{m.sizeOut()});
        ones.flat().setConstant(1.0F);
        n.params["scale"] = floats(ones, product(in) == m.sizeOut() ? in : Dims{m.sizeOut()});
        return r;
    }
    if (type == "LIF") {
        return rockpoolLif(m, path, m_leftOut);
    }
    if (const auto* net = dynamic_cast<const Network*>(&m)) {
        GraphResult nested = network(*net, path + ".");
        n.type = "NIRGraph";
        n.graph = std::make_shared<NirGraph>(nested.graph);
        m_nested[path] = std::move(nested);
        return r;
    }
    const std::string category = [&] {
        if (type == "LIFRefrac" || type == "CUBALIF") {
            return std::string("a neuron whose discretisation NIR's LIF and CubaLIF do not "
                               "express; use NIRLIF or NIRCubaLIF");
        }
        if (m.sizeIn() == 0) {
            return std::string("a stimulus source; NIR graphs take their input from outside");
        }
        return std::string("no NIR node type holds it");
    }();
    r.why = category;
    return r;
}

GraphResult Exporter::network(const Network& net, const std::string& prefix)
{
    GraphResult out;
    NirGraph& g = out.graph;
    const auto nodes = net.nodes();
    const auto& wires = net.connections();
    std::set<std::string> names;
    for (const auto& [name, m] : nodes) {
        names.insert(name);
    }
    const auto freshName = [&](std::string base) {
        std::string name = base;
        for (int k = 2; names.count(name) > 0; ++k) {
            name = base + "_" + std::to_string(k);
        }
        names.insert(name);
        return name;
    };
    const auto portSize = [&](const std::string& port, bool input) {
        for (const auto& p : input ? net.inputPorts() : net.outputPorts()) {
            if (p.name == port) {
                return p.size;
            }
        }
        return std::int64_t{0};
    };
    // A boundary endpoint's port is "in" / "out" (the whole side) or "in.exc" / "out.rate" (a
    // named port): the port's name, as inputPorts() and outputPorts() list it, follows the dot.
    const auto portKey = [](const std::string& port) {
        const auto dot = std::find(port.begin(), port.end(), '.');
        return dot == port.end() ? port : std::string(dot + 1, port.end());
    };
    // Identity nodes fed only by the boundary, or feeding only it, stand for Input / Output.
    std::map<std::string, std::string> inputAlias;   // node -> boundary port
    std::map<std::string, std::string> outputAlias;  // node -> boundary port
    for (const auto& [name, m] : nodes) {
        if (m->className() != "Identity") {
            continue;
        }
        std::vector<const Connection*> into;
        std::vector<const Connection*> from;
        for (const auto& c : wires) {
            if (c.to.node == name) {
                into.push_back(&c);
            }
            if (c.from.node == name) {
                from.push_back(&c);
            }
        }
        const bool boundaryPort = into.size() == 1 && into[0]->from.node.empty() &&
                                  !into[0]->hasProjection &&
                                  out.inputNode.count(portKey(into[0]->from.port)) == 0 &&
                                  portSize(portKey(into[0]->from.port), true) > 0;
        if (boundaryPort) {
            inputAlias[name] = portKey(into[0]->from.port);
            out.inputNode[portKey(into[0]->from.port)] = name;
        } else if (from.size() == 1 && from[0]->to.node.empty() && !from[0]->hasProjection &&
                   out.outputNode.count(portKey(from[0]->to.port)) == 0 &&
                   portSize(portKey(from[0]->to.port), false) > 0) {
            outputAlias[name] = portKey(from[0]->to.port);
            out.outputNode[portKey(from[0]->to.port)] = name;
        }
    }
    for (const auto& p : net.inputPorts()) {
        if (out.inputNode.count(p.name) == 0) {
            out.inputNode[p.name] = freshName(p.name == "in" ? "input" : p.name);
        }
    }
    for (const auto& p : net.outputPorts()) {
        if (out.outputNode.count(p.name) == 0) {
            out.outputNode[p.name] = freshName(p.name == "out" ? "output" : p.name);
        }
    }

    // Sample shapes along the undelayed wires: an Input takes the shape its first consumer
    // declares (a Conv2d's (C, H, W)), every other node what its first source gives.
    std::map<std::string, Dims> outDims;  // node (or "" + port for the boundary) -> dims
    // (An Identity passes its input on: what its consumers declare counts.)
    const std::function<Dims(const std::string&, std::int64_t, int)> consumerShape =
        [&](const std::string& source, std::int64_t size, int depth) -> Dims {
        for (const auto& c : wires) {
            if (c.from.node != source || c.hasProjection || c.to.node.empty() || depth > 64) {
                continue;
            }
            const Module* target = &net.getSubmodule(c.to.node);
            if (target->className() == "Identity") {
                const Dims through = consumerShape(c.to.node, size, depth + 1);
                if (through.size() > 1) {
                    return through;
                }
                continue;
            }
            if (const auto* layer = dynamic_cast<const Layer*>(target)) {
                if (layer->sampleInputShape().numel() == size) {
                    return layer->sampleInputShape().dims();
                }
            }
        }
        return {size};
    };
    for (const auto& p : net.inputPorts()) {
        outDims["/" + p.name] = consumerShape("", p.size, 0);
    }
    std::map<std::string, Dims> inDims;
    for (std::size_t round = 0; round <= nodes.size(); ++round) {
        for (const auto& [name, m] : nodes) {
            if (outDims.count(name) > 0) {
                continue;
            }
            Dims in;
            bool ready = false;
            for (const auto& c : wires) {
                if (c.to.node != name || c.delayed) {
                    continue;
                }
                const std::string key = c.from.node.empty() ? std::string("/").append(portKey(c.from.port)) : c.from.node;
                if (outDims.count(key) > 0 && !c.hasProjection) {
                    in = outDims.at(key);
                    ready = true;
                    break;
                }
                ready = ready || c.hasProjection;
            }
            const std::string& node = name;  // clang 14 cannot capture a structured binding
            const bool fedOnlyByDelayed = std::none_of(wires.begin(), wires.end(), [&](const Connection& c) {
                return c.to.node == node && !c.delayed;
            });
            if (!ready && !fedOnlyByDelayed && round < nodes.size()) {
                continue;
            }
            if (in.empty() || product(in) != m->sizeIn()) {
                in = m->sizeIn() > 0 ? consumerShape(name, m->sizeIn(), 0) : Dims{};
                if (const auto* layer = dynamic_cast<const Layer*>(m)) {
                    in = layer->sampleInputShape().dims();
                } else if (m->sizeIn() > 0) {
                    in = {m->sizeIn()};
                }
            }
            if (inputAlias.count(name) > 0) {
                in = outDims.at("/" + inputAlias.at(name));
            }
            inDims[name] = in;
            outDims[name] = outputDims(*m, in);
        }
    }

    // Nodes: Input / Output for each boundary port, then each module.
    for (const auto& p : net.inputPorts()) {
        NirNode n;
        n.name = out.inputNode.at(p.name);
        n.type = "Input";
        n.params["shape"] = integers(outDims.at("/" + p.name));
        g.nodes.push_back(std::move(n));
    }
    std::set<std::string> dropped;
    for (const auto& [name, m] : nodes) {
        if (inputAlias.count(name) > 0) {
            continue;
        }
        const std::string path = prefix + name;
        if (outputAlias.count(name) > 0) {
            NirNode n;
            n.name = name;
            n.type = "Output";
            n.params["shape"] = integers(inDims.at(name));
            g.nodes.push_back(std::move(n));
            continue;
        }
        Converted c = convert(*m, path, inDims.at(name));
        if (!c.why.empty()) {
            m_leftOut.push_back(path + ": " + m->className() + " (" + c.why + ")");
            dropped.insert(name);
            continue;
        }
        c.node.name = name;
        g.nodes.push_back(std::move(c.node));
    }
    for (const auto& p : net.outputPorts()) {
        const std::string& name = out.outputNode.at(p.name);
        if (std::any_of(g.nodes.begin(), g.nodes.end(), [&](const NirNode& n) { return n.name == name; })) {
            continue;
        }
        NirNode n;
        n.name = name;
        n.type = "Output";
        Dims shape{portSize(p.name, false)};
        for (const auto& c : wires) {
            if (c.to.node.empty() && portKey(c.to.port) == p.name && !c.from.node.empty() &&
                outDims.count(c.from.node) > 0 && product(outDims.at(c.from.node)) == shape[0]) {
                shape = outDims.at(c.from.node);
            }
        }
        n.params["shape"] = integers(shape);
        g.nodes.push_back(std::move(n));
    }

    // Edges; a projection becomes a node between its ends.
    const auto sourceName = [&](const Endpoint& e) -> std::string {
        if (e.node.empty()) {
            const auto it = out.inputNode.find(portKey(e.port));
            return it == out.inputNode.end() ? std::string() : it->second;
        }
        const auto nested = m_nested.find(prefix + e.node);
        if (nested != m_nested.end() && nested->second.outputNode.size() > 1) {
            const auto it = nested->second.outputNode.find(e.port);
            return it == nested->second.outputNode.end() ? std::string() : e.node + "." + it->second;
        }
        return e.node;
    };
    const auto targetName = [&](const Endpoint& e) -> std::string {
        if (e.node.empty()) {
            const auto it = out.outputNode.find(portKey(e.port));
            return it == out.outputNode.end() ? std::string() : it->second;
        }
        const auto nested = m_nested.find(prefix + e.node);
        if (nested != m_nested.end() && nested->second.inputNode.size() > 1) {
            const auto it = nested->second.inputNode.find(e.port);
            return it == nested->second.inputNode.end() ? std::string() : e.node + "." + it->second;
        }
        return e.node;
    };
    for (const auto& c : wires) {
        if (inputAlias.count(c.to.node) > 0 || outputAlias.count(c.from.node) > 0) {
            continue;  // the boundary wire of an Input / Output node
        }
        if (dropped.count(c.from.node) > 0 || dropped.count(c.to.node) > 0) {
            continue;
        }
        const std::string from = inputAlias.count(c.from.node) > 0 ? c.from.node : sourceName(c.from);
        const std::string to = outputAlias.count(c.to.node) > 0 ? c.to.node : targetName(c.to);
        if (from.empty() || to.empty()) {
            // The whole boundary of a network split into named ports ("in" beside "in.exc"):
            // a NIR edge starts or ends at one Input or Output node.
            m_leftOut.push_back(prefix + c.name + ": the wire " + c.from.toString() + " -> " +
                                c.to.toString() + " (it spans several boundary ports; NIR "
                                "edges join single nodes)");
            continue;
        }
        if (!c.hasProjection) {
            g.edges.push_back({from, to});
            continue;
        }
        const Projection* p = net.projection(c.name);
        const std::string type = p->className();
        NirNode n;
        n.name = freshName(c.name);
        if (type == "DenseProjection") {
            // post += pre @ W with W (Nsrc, Ndst): NIR's Linear holds W^T (Ndst, Nsrc).
            const Tensor& w = p->tensor("weight");
            Tensor t(Shape{w.dim(1), w.dim(0)});
            for (std::int64_t i = 0; i < w.dim(0); ++i) {
                for (std::int64_t j = 0; j < w.dim(1); ++j) {
                    t[j * w.dim(0) + i] = w[i * w.dim(1) + j];
                }
            }
            n.type = "Linear";
            n.params["weight"] = floats(t, {w.dim(1), w.dim(0)});
        } else if (type == "OneToOneProjection") {
            const Tensor& w = p->tensor("weight");
            const std::int64_t size = p->sizeOut();
            Tensor s(Shape{size});
            for (std::int64_t i = 0; i < size; ++i) {
                s[i] = w[w.numel() == 1 ? 0 : i];
            }
            n.type = "Scale";
            n.params["scale"] = floats(s, {size});
        } else {
            m_leftOut.push_back(prefix + c.name + ": " + type + " on the wire " +
                                c.from.toString() + " -> " + c.to.toString() +
                                " (no NIR node type holds it; the wire is left out)");
            continue;
        }
        g.nodes.push_back(n);
        g.edges.push_back({from, n.name});
        g.edges.push_back({n.name, to});
    }
    return out;
}

}  // namespace

NirExport exportNir(const Module& root)
{
    // A Sequential exports as its chain and any other module as input -> module -> output:
    // both as the Network that wires them (on a copy; `root` is not changed).
    std::unique_ptr<Module> tree = asProbeableTree(cloneModule(root));
    if (dynamic_cast<const Network*>(tree.get()) == nullptr) {
        if (tree->childCount() > 0) {
            throw Error("NIR export: a " + tree->className() +
                        " root that is not a chain has no NIR form; export a Network");
        }
        std::string name = tree->className();
        std::transform(name.begin(), name.end(), name.begin(),
                       [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
        auto net = std::make_unique<Network>(tree->sizeIn(), tree->sizeOut());
        const std::int64_t nIn = tree->sizeIn();
        const std::int64_t nOut = tree->sizeOut();
        net->addNode(name, std::move(tree));
        if (nIn > 0) {
            net->connect("in", name);
        }
        if (nOut > 0) {
            net->connect(name, "out");
        }
        tree = std::move(net);
    }
    NirExport result;
    Exporter exporter(result.leftOut);
    GraphResult g = exporter.network(dynamic_cast<const Network&>(*tree), "");
    result.file.version = kDefaultNirVersion;
    result.file.graph = std::move(g.graph);
    if (std::none_of(result.file.graph.nodes.begin(), result.file.graph.nodes.end(),
                     [](const NirNode& n) { return n.type != "Input" && n.type != "Output"; })) {
        std::string list;
        for (const auto& what : result.leftOut) {
            list += (list.empty() ? "" : "; ") + what;
        }
        throw Error("NIR export: nothing of the model can be expressed in NIR (left out: " +
                    (list.empty() ? std::string("everything") : list) + ")");
    }
    return result;
}

std::vector<std::string> saveNir(const std::string& path, const Module& root)
{
    NirExport e = exportNir(root);
    writeNirFile(path, e.file);
    return e.leftOut;
}

}  // namespace spike::engine::nir
