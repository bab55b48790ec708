// ReplaceNodeCommand: puts a module of another type in the place of one graph node of a Network
// as one undo step (the Equations group's "Copy as custom neuron": a library model replaced by
// the user's own EquationNeuron with the same text). The new module takes the node's name, index
// and NodeId (so its position, selection and plots stay) and every wire touching the node goes
// back unchanged, with its projection, name, index and ConnectionId; the attribute values of the
// old module that the new one also has, with the same shape, are carried (derived ones are
// recomputed). Refused, with the reason and nothing changed: what configureRefusal() refuses, a
// type or config the factory refuses, a new module whose ports differ from the old one's (names,
// sizes or spiking). Thread: GUI thread only.
#pragma once

#include "ui/document/graph_commands.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace spike::ui {

/// Replaces graph node `node` by engine::createModule(type, config); see the file comment.
class ReplaceNodeCommand : public GraphCommand {
public:
    ReplaceNodeCommand(GraphDocument& doc, NodeId node, std::string type, nlohmann::json config);
    void apply() override;
    NodeId node() const { return m_node; }

private:
    NodeId m_node;
    std::string m_type;
    nlohmann::json m_config;
};

}  // namespace spike::ui
