// The per-chunk State scans both executors share; see finite_scan.hpp.
#include "engine/runtime/finite_scan.hpp"

#include <variant>

namespace spike::engine {

std::optional<NonFinite> firstNonFiniteIn(const std::vector<StateArray>& arrays)
{
    for (const StateArray& s : arrays) {
        if (const std::int64_t k = firstNonFinite(s.data, s.size); k >= 0) {
            return NonFinite{{}, s.attribute, k, s.data[k]};
        }
    }
    return std::nullopt;
}

std::optional<NonFinite> firstNonFiniteState(const Module& module)
{
    for (const AttributeView& v : module.attributes()) {
        const auto* t = std::get_if<Tensor>(v.value);
        if (v.spec->kind != AttributeKind::State || t == nullptr) {
            continue;
        }
        if (const std::int64_t k = firstNonFinite(t->data(), t->numel()); k >= 0) {
            return NonFinite{{}, v.spec->name, k, (*t)[k]};
        }
    }
    return std::nullopt;
}

}  // namespace spike::engine
