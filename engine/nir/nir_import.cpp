// NIR graph -> module tree; see nir_import.hpp. One pass per graph: resolve the edges, order the
// nodes (depth-first from the inputs, marking cycle-closing edges), infer every node's sample
// shape along the forward edges, build each node's module with its parameters, then wire.
#include "engine/nir/nir_import.hpp"

#include "engine/io/model_io.hpp"
#include "engine/network/network.hpp"
#include "engine/nir/nir_file.hpp"
#include "engine/nir/nir_import_detail.hpp"
#include "engine/tensor/tensor.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <sstream>

namespace spike::engine::nir {

using namespace import_detail;  // NOLINT: this file is the detail's one user besides its own

namespace {
// ---- the graph --------------------------------------------------------------------------------

/// An edge end: the node's index in the graph, and the port inside a nested graph ("" = whole).
struct End {
    std::size_t node = 0;
    std::string port;
};

class GraphImporter {
public:
    GraphImporter(const Context& c, const NirGraph& g, std::string prefix)
        : m_c(c), m_g(g), m_prefix(std::move(prefix))
    {
    }

    /// The graph as a Network; `inputDims` (by Input node name) seeds the inputs' shapes when
    /// this is a nested graph fed from outside.
    std::unique_ptr<Network> build();
    /// Sample shapes of the Input and Output nodes, by node name, in file order.
    std::vector<std::pair<std::string, Dims>> inputs() const { return boundary("Input"); }
    std::vector<std::pair<std::string, Dims>> outputs() const { return boundary("Output"); }
    /// Runs everything up to shape inference (for nested graphs, whose size the parent needs).
    void analyse();

private:
    std::vector<std::pair<std::string, Dims>> boundary(const std::string& type) const;
    End resolve(const std::string& text, bool asSource, std::size_t edge) const;
    void order();
    void infer(std::size_t i);
    std::unique_ptr<Module> makeModule(std::size_t index);
    Dims graphShapes(std::size_t i);
    /// The engine name of NIR node `nirName` of this graph.
    std::string engineName(const std::string& nirName) const;
    std::string endpoint(const End& e, bool asSource) const;
    std::string uniqueName(const std::string& nirName);

    const Context& m_c;
    const NirGraph& m_g;
    std::string m_prefix;
    std::vector<Item> m_items;
    std::vector<std::pair<End, End>> m_edges;
    std::vector<bool> m_back;          ///< per edge: closes a cycle (delivers the last step)
    std::vector<std::size_t> m_order;  ///< node indices, inputs first
    std::map<std::size_t, std::unique_ptr<GraphImporter>> m_nested;
    std::set<std::string> m_names;
    bool m_analysed = false;
};

std::string GraphImporter::uniqueName(const std::string& nirName)
{
    std::string name = nirName;
    std::replace(name.begin(), name.end(), '.', '_');
    if (name.empty()) {
        name = "node";
    }
    if (name == "in" || name == "out") {
        name += "_";
    }
    const std::string base = name;
    for (int k = 2; m_names.count(name) > 0; ++k) {
        name = base + "_" + std::to_string(k);
    }
    m_names.insert(name);
    if (name != nirName) {
        m_c.notes->push_back("node '" + m_prefix + nirName + "' is called '" + name +
                             "' here (names may not contain '.' or be 'in' / 'out')");
    }
    return name;
}

std::vector<std::pair<std::string, Dims>> GraphImporter::boundary(const std::string& type) const
{
    std::vector<std::pair<std::string, Dims>> out;
    for (const auto& it : m_items) {
        if (it.node->type == type) {
            out.emplace_back(it.name, it.out);
        }
    }
    return out;
}

End GraphImporter::resolve(const std::string& text, bool asSource, std::size_t edge) const
{
    const NirEdge& e = m_g.edges[edge];
    const auto missing = [&]() -> Error {
        return Error(m_c.source + ": " + (m_prefix.empty() ? "" : "graph '" + m_prefix.substr(0, m_prefix.size() - 1) + "': ") +
                    "edge " + e.source + " -> " + e.target + " names a node that does not exist ('" +
                    text + "')");
    };
    for (std::size_t i = 0; i < m_g.nodes.size(); ++i) {
        if (m_g.nodes[i].name == text) {
            return {i, ""};
        }
    }
    // "sub.input" / "sub.output": a port of a nested graph (NIR 1.x edges may name one).
    for (std::size_t dot = text.find('.'); dot != std::string::npos; dot = text.find('.', dot + 1)) {
        const std::string head = text.substr(0, dot);
        const std::string tail = text.substr(dot + 1);
        for (std::size_t i = 0; i < m_g.nodes.size(); ++i) {
            const NirNode& n = m_g.nodes[i];
            if (n.name != head || !n.graph) {
                continue;
            }
            const NirNode* port = n.graph->find(tail);
            if (port == nullptr || port->type != (asSource ? "Output" : "Input")) {
                throw Error(m_c.source + ": edge " + e.source + " -> " + e.target + ": graph '" +
                            m_prefix + head + "' has no " + (asSource ? "Output" : "Input") +
                            " node '" + tail + "'");
            }
            return {i, tail};
        }
    }
    throw missing();
}

void GraphImporter::order()
{
    const std::size_t n = m_items.size();
    std::vector<std::vector<std::size_t>> outgoing(n);
    for (std::size_t k = 0; k < m_edges.size(); ++k) {
        outgoing[m_edges[k].first.node].push_back(k);
    }
    // Depth-first from the inputs (file order), then from any node not reached; an edge into a
    // node still on the stack closes a cycle.
    std::vector<int> state(n, 0);  // 0 new, 1 on the stack, 2 done
    m_back.assign(m_edges.size(), false);
    const std::function<void(std::size_t)> visit = [&](std::size_t v) {
        state[v] = 1;
        for (const std::size_t k : outgoing[v]) {
            const std::size_t w = m_edges[k].second.node;
            if (state[w] == 1) {
                m_back[k] = true;
            } else if (state[w] == 0) {
                visit(w);
            }
        }
        state[v] = 2;
    };
    for (std::size_t v = 0; v < n; ++v) {
        if (m_items[v].node->type == "Input" && state[v] == 0) {
            visit(v);
        }
    }
    for (std::size_t v = 0; v < n; ++v) {
        if (state[v] == 0) {
            visit(v);
        }
    }
    // Topological order of the forward edges (Kahn, lowest index first: stable).
    std::vector<int> indegree(n, 0);
    for (std::size_t k = 0; k < m_edges.size(); ++k) {
        if (!m_back[k]) {
            ++indegree[m_edges[k].second.node];
        }
    }
    std::set<std::size_t> ready;
    for (std::size_t v = 0; v < n; ++v) {
        if (indegree[v] == 0) {
            ready.insert(v);
        }
    }
    while (!ready.empty()) {
        const std::size_t v = *ready.begin();
        ready.erase(ready.begin());
        m_order.push_back(v);
        for (const std::size_t k : outgoing[v]) {
            if (!m_back[k] && --indegree[m_edges[k].second.node] == 0) {
                ready.insert(m_edges[k].second.node);
            }
        }
    }
}

void GraphImporter::analyse()
{
    if (m_analysed) {
        return;
    }
    m_analysed = true;
    for (const NirNode& node : m_g.nodes) {
        Item it;
        it.node = &node;
        it.path = m_prefix + node.name;
        it.name = uniqueName(node.name);
        const auto& types = supportedTypes();
        if (std::find(types.begin(), types.end(), node.type) == types.end()) {
            std::string list;
            for (const auto& t : types) {
                list += (list.empty() ? "" : ", ") + t;
            }
            fail(m_c, it.path, "has unknown type '" + node.type + "' (this version reads " + list +
                                   ")");
        }
        if (node.type == "NIRGraph" && !node.graph) {
            fail(m_c, it.path, "is a NIRGraph without nodes");
        }
        m_items.push_back(it);
    }
    for (std::size_t i = 0; i < m_items.size(); ++i) {
        if (m_items[i].node->type == "NIRGraph") {
            auto nested = std::make_unique<GraphImporter>(m_c, *m_items[i].node->graph,
                                                          m_items[i].path + ".");
            nested->analyse();
            m_nested[i] = std::move(nested);
        }
    }
    for (std::size_t k = 0; k < m_g.edges.size(); ++k) {
        m_edges.emplace_back(resolve(m_g.edges[k].source, true, k),
                             resolve(m_g.edges[k].target, false, k));
    }
    order();
    for (const std::size_t i : m_order) {
        infer(i);
    }
    for (std::size_t i = 0; i < m_items.size(); ++i) {
        if (!m_items[i].known) {
            fail(m_c, m_items[i].path, "its input size cannot be inferred (no edge reaches it "
                                       "from an Input node and its parameters do not say)");
        }
    }
    // Every edge, back edges included, must carry what its target takes.
    for (std::size_t k = 0; k < m_edges.size(); ++k) {
        const auto& [from, to] = m_edges[k];
        const Item& a = m_items[from.node];
        const Item& b = m_items[to.node];
        Dims given = a.out;
        if (!from.port.empty()) {
            for (const auto& [name, dims] : m_nested.at(from.node)->outputs()) {
                if (m_items[from.node].node->graph->find(from.port) != nullptr && name == from.port) {
                    given = dims;
                }
            }
        }
        Dims taken = b.in;
        if (!to.port.empty()) {
            for (const auto& [name, dims] : m_nested.at(to.node)->inputs()) {
                if (name == to.port) {
                    taken = dims;
                }
            }
        }
        if (product(given) != product(taken)) {
            throw Error(m_c.source + ": edge " + m_g.edges[k].source + " -> " +
                        m_g.edges[k].target + ": sizes do not agree (" + a.path + " gives " +
                        std::to_string(product(given)) + " values " + dimsText(given) + ", " +
                        b.path + " takes " + std::to_string(product(taken)) + " " +
                        dimsText(taken) + ")");
        }
    }
}

void GraphImporter::infer(std::size_t i)
{
    Item& it = m_items[i];
    // The input: what the first forward edge into it carries (a nested graph's port: its
    // Input's shape), or what its own parameters declare.
    Dims in;
    for (std::size_t k = 0; k < m_edges.size() && in.empty(); ++k) {
        const auto& [from, to] = m_edges[k];
        if (to.node != i || m_back[k] || !m_items[from.node].known) {
            continue;
        }
        in = m_items[from.node].out;
        if (!from.port.empty()) {
            for (const auto& [name, dims] : m_nested.at(from.node)->outputs()) {
                if (name == from.port) {
                    in = dims;
                }
            }
        }
    }
    it.out = it.node->type == "NIRGraph" ? graphShapes(i) : nodeShapes(m_c, it, in);
    it.known = true;
}

Dims GraphImporter::graphShapes(std::size_t i)
{
    // A nested graph takes its Input nodes' values (side by side when several) and gives its
    // Output nodes'.
    Item& it = m_items[i];
    const auto total = [](const std::vector<std::pair<std::string, Dims>>& ports) {
        if (ports.size() == 1) {
            return ports.front().second;
        }
        std::int64_t n = 0;
        for (const auto& p : ports) {
            n += product(p.second);
        }
        return Dims{n};
    };
    it.in = total(m_nested.at(i)->inputs());
    return total(m_nested.at(i)->outputs());
}

std::unique_ptr<Module> GraphImporter::makeModule(std::size_t index)
{
    if (m_items[index].node->type == "NIRGraph") {
        return m_nested.at(index)->build();
    }
    return nodeModule(m_c, m_items[index]);
}

std::string GraphImporter::engineName(const std::string& nirName) const
{
    for (const auto& it : m_items) {
        if (it.node->name == nirName) {
            return it.name;
        }
    }
    return nirName;
}

std::string GraphImporter::endpoint(const End& e, bool asSource) const
{
    const Item& it = m_items[e.node];
    if (e.port.empty()) {
        return it.name;
    }
    const GraphImporter& nested = *m_nested.at(e.node);
    const auto ports = asSource ? nested.outputs() : nested.inputs();
    return ports.size() == 1 ? it.name : it.name + "." + nested.engineName(e.port);
}

std::unique_ptr<Network> GraphImporter::build()
{
    analyse();
    const auto side = [](const std::vector<std::pair<std::string, Dims>>& ports,
                         const std::string& whole) {
        std::vector<BoundaryPort> out;
        for (const auto& [name, dims] : ports) {
            out.push_back({name, product(dims)});
        }
        if (out.size() == 1) {
            out.front().name = whole;
        }
        return out;
    };
    const auto ins = inputs();
    const auto outs = outputs();
    auto net = std::make_unique<Network>(side(ins, "in"), side(outs, "out"));
    for (const std::size_t i : m_order) {
        net->addNode(m_items[i].name, makeModule(i));
    }
    for (const std::size_t i : m_order) {
        const Item& it = m_items[i];
        if (it.node->type == "Input") {
            net->connect(ins.size() == 1 ? "in" : "in." + it.name, it.name, nullptr, {}, false);
        } else if (it.node->type == "Output") {
            net->connect(it.name, outs.size() == 1 ? "out" : "out." + it.name, nullptr, {}, false);
        }
    }
    for (const bool back : {false, true}) {
        for (std::size_t k = 0; k < m_edges.size(); ++k) {
            if (m_back[k] != back) {
                continue;
            }
            try {
                net->connect(endpoint(m_edges[k].first, true), endpoint(m_edges[k].second, false),
                             nullptr, {}, back);
            } catch (const Error& e) {
                throw Error(m_c.source + ": edge " + m_g.edges[k].source + " -> " +
                            m_g.edges[k].target + ": " + e.what());
            }
        }
    }
    return net;
}

}  // namespace

const std::vector<std::string>& discretisations()
{
    static const std::vector<std::string> all{"euler", "exact", "rockpool"};
    return all;
}

const std::vector<std::string>& timeUnits()
{
    static const std::vector<std::string> all{"s", "steps"};
    return all;
}

double rockpoolDt(double tau, double r)
{
    if (!(r > 0.0) || !(tau > 0.0) || !std::isfinite(r)) {
        return 0.0;
    }
    // u = dt / tau solves u e^u = 1 / r (Lambert W0); Halley's iteration from log1p(1 / r).
    const double x = 1.0 / r;
    double w = std::log1p(x);
    for (int k = 0; k < 50; ++k) {
        const double ew = std::exp(w);
        const double f = w * ew - x;
        const double step = f / (ew * (w + 1.0) - (w + 2.0) * f / (2.0 * w + 2.0));
        w -= step;
        if (std::abs(step) <= 1e-15 * (1.0 + std::abs(w))) {
            break;
        }
    }
    return tau * w;
}

NirImport importNir(const NirFile& file, const std::string& sourceName,
                    const NirImportOptions& options)
{
    if (!(options.dt > 0.0) || !std::isfinite(options.dt) || options.dt > 1e6) {
        throw Error(sourceName + ": dt must be a positive number of seconds, got " +
                    std::to_string(options.dt));
    }
    const auto& known = discretisations();
    if (std::find(known.begin(), known.end(), options.discretisation) == known.end()) {
        throw Error(sourceName + ": discretisation '" + options.discretisation +
                    "': expected euler, exact or rockpool");
    }
    const auto& units = timeUnits();
    if (std::find(units.begin(), units.end(), options.timeUnit) == units.end()) {
        throw Error(sourceName + ": time unit '" + options.timeUnit + "': expected s or steps");
    }
    // Versions 0.x and 1.x are read; a later major version may mean other layouts.
    const std::string& v = file.version;
    if (!v.empty()) {
        const auto major = std::strtol(v.c_str(), nullptr, 10);
        if (major >= 2) {
            throw Error(sourceName + ": written by NIR " + v +
                        ", newer than this version reads (NIR 0.x and 1.x)");
        }
    }
    NirImport result;
    result.version = file.version;
    Context c{sourceName, options, &result.notes};
    GraphImporter root(c, file.graph, "");
    try {
        result.root = root.build();
    } catch (const Error& e) {
        // What the engine refuses (a size past its limits) is said with the file too.
        const std::string message = e.what();
        if (message.rfind(sourceName + ": ", 0) == 0) {
            throw;
        }
        throw Error(sourceName + ": " + message);
    }
    return result;
}

NirImport loadNir(const std::string& path, const NirImportOptions& options)
{
    return importNir(readNirFile(path), path, options);
}

std::unique_ptr<Module> loadAnyModel(const std::string& path, const NirImportOptions& options,
                                     std::vector<std::string>* notes)
{
    if (!isNirPath(path)) {
        return loadModel(path);
    }
    NirImport imported = loadNir(path, options);
    if (notes != nullptr) {
        notes->insert(notes->end(), imported.notes.begin(), imported.notes.end());
    }
    return std::move(imported.root);
}

bool isNirPath(const std::string& path)
{
    if (path.size() < 4) {
        return false;
    }
    std::string ext = path.substr(path.size() - 4);
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    return ext == ".nir";
}

}  // namespace spike::engine::nir
