// Projections on wires: the undo commands that give a connection another projection kind
// (none / one-to-one / dense / sparse), switch its delayed flag or make a new wire with a
// projection, and the read-only summary of a wire (kind, sizes, weight sign, synapses) that the
// canvas draws and the connection panel titles.
//
// A projection chosen here is built by engine::createModule(type, {"shape": [Nsrc, Ndst]}, or
// [N] for OneToOneProjection) and starts with engine::startValues(type) as attributes. The
// commands take the connection out and put it back at the same index with the same name,
// endpoints, flag and ConnectionId (so a selection survives), recorded in the EditJournal:
// undo brings the old projection back with its values, states and NodeIds (a sparse
// projection's seed, so the same synapses). Each is one undo step; a refusal (sizes that do not
// fit, an undelayed cycle) rolls back and is never pushed.
// Thread: GUI thread only.
#pragma once

#include "ui/document/graph_commands.hpp"

#include <QString>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace spike::ui {

/// A projection kind a wire may carry: `type` is "" (identity: values pass through),
/// "OneToOneProjection", "DenseProjection" or "SparseProjection".
struct ProjectionKind {
    std::string type;
    QString label;  ///< "None (identity)", "One-to-one", "Dense", "Sparse random"
};

/// The kinds, in menu order (identity first).
const std::vector<ProjectionKind>& projectionKinds();

/// The label of `type` in projectionKinds(); the type itself for another.
QString projectionLabel(const std::string& type);

/// Source and target sizes of a wire from `from` to `to` in `network` [channels]. Throws
/// engine::Error naming the endpoint that does not resolve.
std::pair<std::int64_t, std::int64_t> wireSizes(const GraphDocument& doc, NodeId network,
                                                const std::string& from, const std::string& to);

/// Why a wire of these sizes cannot carry `type` ("" when it can): identity and one-to-one need
/// equal sizes.
QString projectionRefusal(const std::string& type, std::int64_t nSource, std::int64_t nTarget);

/// A new projection of `type` for a (nSource, nTarget) wire with its start values; throws
/// engine::Error for a type that is not a projection or sizes it refuses.
std::unique_ptr<engine::Module> makeProjection(const std::string& type, std::int64_t nSource,
                                               std::int64_t nTarget);

/// How a new sparse projection of a (nSource, nTarget) wire starts, for menus: "10 sources per
/// target, weight 0.08" or "p = 0.1, weight 0.5" (engine::startValues()).
QString sparseStartText(std::int64_t nSource, std::int64_t nTarget);

/// What the canvas and the panel show of a wire.
struct WireSummary {
    enum class Sign { Neutral, Excitatory, Inhibitory, Mixed };
    std::string type;              ///< "" for identity
    std::int64_t source = 0;       ///< Nsrc
    std::int64_t target = 0;       ///< Ndst
    Sign sign = Sign::Neutral;     ///< Neutral: identity, or all weights 0
    double weightMin = 0.0;        ///< over the weights (identity: 1)
    double weightMax = 0.0;
    double weightMean = 0.0;
    std::int64_t synapses = -1;    ///< sparse: the drawn count; -1 when not drawn yet
    double expectedSynapses = 0.0; ///< sparse: p Nsrc Ndst or in_degree Ndst; others Nsrc Ndst / N
    std::int64_t delay = 0;        ///< sparse: [steps]
    bool delayed = false;          ///< the connection's flag
};

/// The summary of connection `id` (O(weights) for a dense matrix: cache it). Never draws a sparse
/// projection's synapses. A default summary when `id` is not in the document.
WireSummary summarizeWire(const GraphDocument& doc, ConnectionId id);

/// The wire label: "Sparse 100→50", "Dense 100→50", "1:1 ×100", "×100" for identity.
QString wireLabel(const WireSummary& s);

/// Several lines for a tooltip: kind, shape, synapses, weights, delay, delayed.
QString wireDescription(const WireSummary& s);

/// Gives a connection a projection of another kind (see the file comment).
class SetProjectionCommand : public GraphCommand {
public:
    SetProjectionCommand(GraphDocument& doc, ConnectionId connection, std::string type);
    void apply() override;

private:
    ConnectionId m_connection;
    std::string m_type;
};

/// Sets a connection's delayed flag (the engine refuses an undelayed cycle with its reason).
class SetDelayedCommand : public GraphCommand {
public:
    SetDelayedCommand(GraphDocument& doc, ConnectionId connection, bool delayed);
    void apply() override;

private:
    ConnectionId m_connection;
    bool m_delayed;
};

/// Connects two ports of a Network through a new projection of `type` with its start values
/// (the kind menu of a wire dragged between ports of different sizes).
class ConnectWithProjectionCommand : public GraphCommand {
public:
    ConnectWithProjectionCommand(GraphDocument& doc, NodeId network, std::string from,
                                 std::string to, std::string type);
    void apply() override;
    ConnectionId connection() const { return m_connection; }

private:
    NodeId m_network;
    std::string m_from, m_to, m_type;
    ConnectionId m_connection;
};

}  // namespace spike::ui
