// traceSourceOf and rasterModulesOf. See plot_sources.hpp.
#include "ui/window/plot_sources.hpp"

#include <variant>

namespace spike::ui {

TraceSource traceSourceOf(const engine::Module& module)
{
    TraceSource source;
    source.className = QString::fromStdString(module.className());
    source.neuronLayer = module.attributeWithRole(engine::Role::Membrane).has_value();
    if (const auto threshold = module.attributeWithRole(engine::Role::Threshold)) {
        if (const auto* value = std::get_if<engine::Tensor>(threshold->value)) {
            source.threshold = *value;
        }
    }
    source.size = module.sizeOut();
    return source;
}

std::vector<RasterModule> rasterModulesOf(const engine::Module& root)
{
    std::vector<RasterModule> modules;
    for (const auto& [path, module] : root.namedModules()) {
        modules.push_back({path, QString::fromStdString(module->className())});
    }
    return modules;
}

}  // namespace spike::ui
