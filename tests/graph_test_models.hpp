// Shared by the editor tests (document, canvas, module tree, inspector, equations): the sample
// network they edit, a document of one factory-built module, and the helper that pushes a command
// that must succeed.
#pragma once

#include "ui/document/graph_commands.hpp"
#include "ui/document/graph_document.hpp"

#include "engine/io/module_factory.hpp"

#include <QtTest/QtTest>

#include <nlohmann/json.hpp>

#include <memory>
#include <string>

namespace spike::tests {

/// A document whose root is a module of `type` built by the factory from `config`.
inline std::unique_ptr<ui::GraphDocument> documentOf(const std::string& type, const nlohmann::json& config)
{
    auto doc = std::make_unique<ui::GraphDocument>();
    doc->reset(engine::createModule(type, config));
    return doc;
}

/// drive (Poisson 4) → E (CUBALIF 4) ⇄ I (CUBALIF 3), E → L (LIF 4), bias (constant 4) → L,
/// L → out; the I → E wire is delayed (a cycle). Every node has a grid-aligned, non-overlapping
/// position. Projections carry their default weights.
inline nlohmann::json sampleGraphModel()
{
    using Json = nlohmann::json;
    auto proj = [](const char* type, Json shape) { return Json{{"type", type}, {"config", {{"shape", shape}}}}; };
    Json model{
        {"type", "Network"},
        {"config", {{"input_size", 0}, {"output_size", 4}}},
        {"children",
         {{{"name", "drive"}, {"type", "PoissonSource"}, {"config", {{"shape", {4}}}}},
          {{"name", "E"}, {"type", "CUBALIF"}, {"config", {{"shape", {4}}}}},
          {{"name", "I"}, {"type", "CUBALIF"}, {"config", {{"shape", {3}}}}},
          {{"name", "bias"}, {"type", "ConstantCurrent"}, {"config", {{"shape", {4}}}}},
          {{"name", "L"}, {"type", "LIF"}, {"config", {{"shape", {4, 4}}, {"has_rec", false}}}}}},
        {"connections",
         {{{"name", "drive_to_E"}, {"from", "drive.out"}, {"to", "E.exc"}, {"projection", proj("OneToOneProjection", {4})}},
          {{"name", "E_to_I"}, {"from", "E.spikes"}, {"to", "I.exc"}, {"projection", proj("DenseProjection", {4, 3})}},
          {{"name", "I_to_E"}, {"from", "I.spikes"}, {"to", "E.inh"}, {"delayed", true},
           {"projection", proj("DenseProjection", {3, 4})}},
          {{"name", "E_to_L"}, {"from", "E.spikes"}, {"to", "L.in"}, {"projection", proj("OneToOneProjection", {4})}},
          {{"name", "bias_to_L"}, {"from", "bias.out"}, {"to", "L.in"}},
          {{"name", "L_to_out"}, {"from", "L.spikes"}, {"to", "out"}}}}};
    return Json{{"format", "spikestudio.model"}, {"version", 1}, {"model", model},
                {"layout", {{"drive", {0.0, 0.0}}, {"E", {300.0, 0.0}}, {"I", {600.0, 0.0}},
                            {"bias", {0.0, 200.0}}, {"L", {600.0, 200.0}}}}};
}

/// Pushes `command` and requires that the document accepted it.
inline void pushOk(ui::GraphDocument& doc, std::unique_ptr<ui::GraphCommand> command)
{
    const engine::Status s = ui::pushCommand(doc, std::move(command));
    QVERIFY2(s.ok, s.message.c_str());
}

}  // namespace spike::tests
