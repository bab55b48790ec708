// ConfigureNodeCommand: changes the constructor settings of one graph node of a Network (a
// population resized, has_rec switched on, a kernel size changed) as one undo step.
//
// The node is rebuilt with engine::reconfigure() (which carries the attribute values that still
// fit, engine/io/reconfigure.hpp) and put back at the same index, with the same name and the same
// NodeId (so its position, selection keys and plots stay); every connection touching it is put
// back at its index with its name, ends, delayed flag and ConnectionId. A connection whose
// projection no longer fits the new port sizes gets its projection reconfigured to the new shape
// (keeping its projection NodeId). Refused, with the reason and nothing changed: a module that is
// not a graph node of a Network (a Sequential's child, a composite's internals, the root, a
// projection), a config the type refuses, a pass-through (identity) wire or a one-to-one
// projection whose two ends would then differ in size, a wire whose port is gone.
// Every check runs before the document is touched; the journal rolls back anything the document
// itself refuses afterwards. Thread: GUI thread only.
#pragma once

#include "ui/document/graph_commands.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace spike::ui {

/// Rebuilds graph node `node` with config `config`; see the file comment.
class ConfigureNodeCommand : public GraphCommand {
public:
    ConfigureNodeCommand(GraphDocument& doc, NodeId node, nlohmann::json config);
    void apply() override;
    /// What did not carry over unchanged, for users ("tau_mem: 1 value spread to 100 neurons",
    /// "wire 'a_to_b': weight: ..."); valid after apply().
    const std::vector<std::string>& notes() const { return m_notes; }
    /// The node (the same id before and after).
    NodeId node() const { return m_node; }

private:
    NodeId m_node;
    nlohmann::json m_config;
    std::vector<std::string> m_notes;
};

/// Why the settings of module `id` cannot be changed by ConfigureNodeCommand ("" when they
/// can): the root, a projection, a child of something other than a Network.
std::string configureRefusal(const GraphDocument& doc, NodeId id);

}  // namespace spike::ui
