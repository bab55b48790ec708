// Projections on wires: kinds, summaries and the commands of graph_projection.hpp.
// Thread: GUI thread only.
#include "ui/document/graph_projection.hpp"

#include "engine/core/projection.hpp"
#include "engine/io/model_io.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/network/projections.hpp"

#include <QLocale>

#include <algorithm>
#include <cmath>

namespace spike::ui {

using engine::Error;

const std::vector<ProjectionKind>& projectionKinds()
{
    static const std::vector<ProjectionKind> kinds{
        {"", QStringLiteral("None (identity)")},
        {"OneToOneProjection", QStringLiteral("One-to-one")},
        {"DenseProjection", QStringLiteral("Dense")},
        {"SparseProjection", QStringLiteral("Sparse random")},
    };
    return kinds;
}

QString projectionLabel(const std::string& type)
{
    for (const ProjectionKind& k : projectionKinds()) {
        if (k.type == type) {
            return k.label;
        }
    }
    return QString::fromStdString(type);
}

std::pair<std::int64_t, std::int64_t> wireSizes(const GraphDocument& doc, NodeId network,
                                                const std::string& from, const std::string& to)
{
    const engine::Network* net = doc.network(network);
    if (net == nullptr) {
        throw Error("wires live in Networks");
    }
    return {net->resolve(from, true).second.size, net->resolve(to, false).second.size};
}

QString projectionRefusal(const std::string& type, std::int64_t nSource, std::int64_t nTarget)
{
    if ((type.empty() || type == "OneToOneProjection") && nSource != nTarget) {
        return QStringLiteral("%1 needs equal sizes, but this wire goes from %2 to %3 channels; "
                              "choose Dense or Sparse random")
            .arg(type.empty() ? QStringLiteral("a wire without projection")
                              : QStringLiteral("a one-to-one projection"))
            .arg(nSource)
            .arg(nTarget);
    }
    return {};
}

std::unique_ptr<engine::Module> makeProjection(const std::string& type, std::int64_t nSource,
                                               std::int64_t nTarget)
{
    const nlohmann::json shape = type == "OneToOneProjection" ? nlohmann::json::array({nSource})
                                                              : nlohmann::json::array({nSource, nTarget});
    const nlohmann::json config{{"shape", shape}};
    std::unique_ptr<engine::Module> made = engine::createModule(type, config);
    if (dynamic_cast<engine::Projection*>(made.get()) == nullptr) {
        throw Error(type + " is not a projection (expected DenseProjection, OneToOneProjection or "
                           "SparseProjection)");
    }
    const nlohmann::json start = engine::startValues(type, config);
    engine::AttributeMap values;
    for (const auto& [name, value] : start.items()) {
        if (made->hasAttribute(name)) {
            values.emplace(name, engine::attributeFromJson(value, "/attributes/" + name, "."));
        }
    }
    if (!values.empty()) {
        if (engine::Status s = made->setAttributes({{"", values}}); !s.ok) {
            throw Error(type + " start values: " + s.message);
        }
    }
    return made;
}

namespace {

/// min, max and mean of a numeric attribute, when the module has it.
bool tensorStats(const engine::Module& m, const char* name, double& lo, double& hi, double& mean)
{
    if (!m.hasAttribute(name)) {
        return false;
    }
    const auto* t = std::get_if<engine::Tensor>(&m.attribute(name));
    if (t == nullptr || t->numel() == 0) {
        return false;
    }
    const float* p = t->data();
    const std::int64_t n = t->numel();
    float a = p[0], b = p[0];
    double sum = 0.0;
    for (std::int64_t i = 0; i < n; ++i) {
        a = std::min(a, p[i]);
        b = std::max(b, p[i]);
        sum += p[i];
    }
    lo = a;
    hi = b;
    mean = sum / static_cast<double>(n);
    return true;
}

std::string enumValue(const engine::Module& m, const char* name)
{
    if (!m.hasAttribute(name)) {
        return {};
    }
    const auto* s = std::get_if<std::string>(&m.attribute(name));
    return s != nullptr ? *s : std::string();
}

double scalar(const engine::Module& m, const char* name, double otherwise)
{
    if (!m.hasAttribute(name)) {
        return otherwise;
    }
    const auto* t = std::get_if<engine::Tensor>(&m.attribute(name));
    return t != nullptr && t->numel() > 0 ? (*t)[0] : otherwise;
}

}  // namespace

WireSummary summarizeWire(const GraphDocument& doc, ConnectionId id)
{
    WireSummary s;
    const auto info = doc.connection(id);
    if (!info) {
        return s;
    }
    s.delayed = info->delayed;
    try {
        std::tie(s.source, s.target) = wireSizes(doc, info->network, info->from.toString(), info->to.toString());
    } catch (const Error&) {
        return s;
    }
    const engine::Module* m = doc.module(info->projection);
    if (m == nullptr) {
        s.weightMin = s.weightMax = s.weightMean = 1.0;
        s.expectedSynapses = static_cast<double>(s.source);
        return s;
    }
    s.type = m->className();
    tensorStats(*m, "weight", s.weightMin, s.weightMax, s.weightMean);
    if (const auto* sparse = dynamic_cast<const engine::SparseProjection*>(m)) {
        s.delay = static_cast<std::int64_t>(scalar(*m, "delay", 0.0));
        if (sparse->synapsesDrawn()) {
            s.synapses = sparse->synapseCount();
        }
        s.expectedSynapses = enumValue(*m, "rule") == "in_degree"
                                 ? scalar(*m, "in_degree", 0.0) * static_cast<double>(s.target)
                                 : scalar(*m, "p", 0.0) * static_cast<double>(s.source) * static_cast<double>(s.target);
        // A drawn distribution around the mean (weight_dist, weight_spread) may cross zero
        // unless keep_sign clips the drawn weights to the mean's sign.
        const std::string dist = enumValue(*m, "weight_dist");
        const double spread = scalar(*m, "weight_spread", 0.0);
        if (!dist.empty() && dist != "constant" && spread > 0.0) {
            const double half = dist == "uniform" ? spread : 4.0 * spread;
            if (scalar(*m, "keep_sign", 1.0) != 0.0) {
                s.weightMin = s.weightMean >= 0.0 ? std::max(0.0, s.weightMean - half) : s.weightMean - half;
                s.weightMax = s.weightMean <= 0.0 ? std::min(0.0, s.weightMean + half) : s.weightMean + half;
            } else {
                s.weightMin = s.weightMean - half;
                s.weightMax = s.weightMean + half;
            }
        }
    } else if (s.type == "OneToOneProjection") {
        s.expectedSynapses = static_cast<double>(s.source);
    } else {
        s.expectedSynapses = static_cast<double>(s.source) * static_cast<double>(s.target);
    }
    if (s.weightMin >= 0.0 && s.weightMax > 0.0) {
        s.sign = WireSummary::Sign::Excitatory;
    } else if (s.weightMax <= 0.0 && s.weightMin < 0.0) {
        s.sign = WireSummary::Sign::Inhibitory;
    } else if (s.weightMin < 0.0 && s.weightMax > 0.0) {
        s.sign = WireSummary::Sign::Mixed;
    }
    return s;
}

QString sparseStartText(std::int64_t nSource, std::int64_t nTarget)
{
    const nlohmann::json start =
        engine::startValues("SparseProjection", {{"shape", nlohmann::json::array({nSource, nTarget})}});
    const auto get = [&start](const char* key, double otherwise) {
        return start.contains(key) && start[key].is_number() ? start[key].get<double>() : otherwise;
    };
    const bool inDegree = start.value("rule", std::string("in_degree")) == "in_degree";
    const QString connectivity = inDegree ? QStringLiteral("%1 sources per target").arg(get("in_degree", 1.0))
                                          : QStringLiteral("p = %1").arg(get("p", 0.1));
    return QStringLiteral("%1, weight %2").arg(connectivity).arg(get("weight", 1.0));
}

QString wireLabel(const WireSummary& s)
{
    if (s.type.empty()) {
        return s.source > 0 ? QStringLiteral("×%1").arg(s.source) : QString();
    }
    if (s.type == "OneToOneProjection") {
        return QStringLiteral("1:1 ×%1").arg(s.source);
    }
    const QString kind = s.type == "DenseProjection" ? QStringLiteral("Dense")
                         : s.type == "SparseProjection" ? QStringLiteral("Sparse")
                                                        : QString::fromStdString(s.type);
    return QStringLiteral("%1 %2→%3").arg(kind).arg(s.source).arg(s.target);
}

QString wireDescription(const WireSummary& s)
{
    const QLocale c = QLocale::c();
    QStringList lines;
    lines << QStringLiteral("%1, %2 → %3 channels").arg(projectionLabel(s.type)).arg(s.source).arg(s.target);
    if (s.type == "SparseProjection") {
        lines << (s.synapses >= 0 ? QStringLiteral("%1 synapses").arg(c.toString(s.synapses))
                                  : QStringLiteral("≈ %1 synapses (drawn when the run starts)")
                                        .arg(c.toString(std::llround(s.expectedSynapses))));
        lines << QStringLiteral("delay %1 steps").arg(s.delay);
    } else if (!s.type.empty()) {
        lines << QStringLiteral("%1 synapses").arg(c.toString(std::llround(s.expectedSynapses)));
    }
    if (!s.type.empty()) {
        const QString sign = s.sign == WireSummary::Sign::Excitatory   ? QStringLiteral("excitatory")
                             : s.sign == WireSummary::Sign::Inhibitory ? QStringLiteral("inhibitory")
                             : s.sign == WireSummary::Sign::Mixed      ? QStringLiteral("mixed signs")
                                                                       : QStringLiteral("all zero");
        lines << (s.weightMin == s.weightMax
                      ? QStringLiteral("weight %1 (%2)").arg(s.weightMin, 0, 'g', 4).arg(sign)
                      : QStringLiteral("weights %1 … %2, mean %3 (%4)")
                            .arg(s.weightMin, 0, 'g', 4)
                            .arg(s.weightMax, 0, 'g', 4)
                            .arg(s.weightMean, 0, 'g', 4)
                            .arg(sign));
    } else {
        lines << QStringLiteral("values pass through unchanged");
    }
    if (s.delayed) {
        lines << QStringLiteral("delayed: delivers the previous step's value");
    }
    return lines.join(QLatin1Char('\n'));
}

// ---- commands ------------------------------------------------------------------------------

namespace {

struct Wire {
    ConnectionInfo info;
    std::int64_t source = 0, target = 0;
    std::size_t index = 0;
};

Wire requireWire(const GraphDocument& doc, ConnectionId id)
{
    const auto info = doc.connection(id);
    if (!info) {
        throw Error("no such wire");
    }
    Wire w{*info};
    std::tie(w.source, w.target) = wireSizes(doc, info->network, info->from.toString(), info->to.toString());
    w.index = doc.connectionIndex(id);
    return w;
}

}  // namespace

SetProjectionCommand::SetProjectionCommand(GraphDocument& doc, ConnectionId connection, std::string type)
    : GraphCommand(doc, QStringLiteral("Projection: %1").arg(projectionLabel(type))),
      m_connection(connection),
      m_type(std::move(type))
{
}

void SetProjectionCommand::apply()
{
    const Wire w = requireWire(m_doc, m_connection);
    const engine::Module* old = m_doc.module(w.info.projection);
    if ((old == nullptr ? std::string() : old->className()) == m_type) {
        throw Error("wire '" + w.info.name + "' already has " + projectionLabel(m_type).toStdString());
    }
    if (const QString why = projectionRefusal(m_type, w.source, w.target); !why.isEmpty()) {
        throw Error("wire '" + w.info.name + "': " + why.toStdString());
    }
    auto fresh = std::make_shared<EditJournal::ConnectionSlot>();
    if (!m_type.empty()) {
        fresh->held.projection.module = makeProjection(m_type, w.source, w.target);
    }
    fresh->held.id = m_connection;  // the wire keeps its id: selections and views follow it
    m_journal.takeConnection(m_connection);
    m_journal.putConnection(fresh, w.info.network, w.index, w.info.name, w.info.from.toString(),
                            w.info.to.toString(), w.info.delayed);
}

SetDelayedCommand::SetDelayedCommand(GraphDocument& doc, ConnectionId connection, bool delayed)
    : GraphCommand(doc, delayed ? QStringLiteral("Delay wire") : QStringLiteral("Undelay wire")),
      m_connection(connection),
      m_delayed(delayed)
{
}

void SetDelayedCommand::apply()
{
    const Wire w = requireWire(m_doc, m_connection);
    if (w.info.delayed == m_delayed) {
        throw Error("wire '" + w.info.name + "' is already " + (m_delayed ? "delayed" : "undelayed"));
    }
    auto slot = m_journal.takeConnection(m_connection);
    m_journal.putConnection(slot, w.info.network, w.index, w.info.name, w.info.from.toString(),
                            w.info.to.toString(), m_delayed);
}

ConnectWithProjectionCommand::ConnectWithProjectionCommand(GraphDocument& doc, NodeId network,
                                                           std::string from, std::string to,
                                                           std::string type)
    : GraphCommand(doc, QStringLiteral("Connect (%1)").arg(projectionLabel(type))),
      m_network(network),
      m_from(std::move(from)),
      m_to(std::move(to)),
      m_type(std::move(type))
{
}

void ConnectWithProjectionCommand::apply()
{
    const auto [source, target] = wireSizes(m_doc, m_network, m_from, m_to);
    if (const QString why = projectionRefusal(m_type, source, target); !why.isEmpty()) {
        throw Error(why.toStdString());
    }
    auto slot = std::make_shared<EditJournal::ConnectionSlot>();
    if (!m_type.empty()) {
        slot->held.projection.module = makeProjection(m_type, source, target);
    }
    m_connection = m_journal.putConnection(slot, m_network, m_doc.network(m_network)->connections().size(),
                                           {}, m_from, m_to, std::nullopt);
}

}  // namespace spike::ui
