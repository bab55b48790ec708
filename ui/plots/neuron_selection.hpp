// Which neurons a trace shows, as a person types it: "all", a range "100-199", a list
// "0, 5, 7-9", or "random 20" (optionally "random 20 seed 3"): k distinct neurons drawn with a
// seeded generator, so the same text always picks the same neurons.
// Thread: any (no widgets).
#pragma once

#include <QString>

#include <cstdint>
#include <optional>
#include <vector>

namespace spike::ui {

/// Most neurons one selection may name.
constexpr std::int64_t kMaxSelectedNeurons = 100000;

/// The ascending, distinct neuron indices `text` names among `count` neurons; an empty vector
/// means all of them. nullopt with a one-line reason in `error` for text it cannot read or an
/// index outside [0, count).
std::optional<std::vector<std::int64_t>> parseNeuronSelection(const QString& text, std::int64_t count,
                                                              QString* error = nullptr);

}  // namespace spike::ui
