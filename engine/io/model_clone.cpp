// cloneModule: the in-memory twin of buildModule() in model_io.cpp. See model_clone.hpp.
#include "engine/io/model_clone.hpp"

#include "engine/io/module_factory.hpp"
#include "engine/network/network.hpp"

#include <utility>

namespace spike::engine {

namespace {

std::string describe(const Module& module)
{
    const std::string path = module.fullName();
    return module.className() + (path.empty() ? std::string(" (the root)") : " '" + path + "'");
}

/// Sets the settable attributes of `from` on `to`, then copies the children: onto the ones the
/// constructor of `to` already built (a composite), or as clones attached in order; last a
/// Network's connections.
void copyInto(const Module& from, Module& to)
{
    AttributeMap values;
    for (const AttributeView& view : from.attributes()) {
        if (!view.derived) {
            values.emplace(view.spec->name, *view.value);
        }
    }
    if (!values.empty()) {
        if (const Status status = to.setAttributes({{"", values}}); !status.ok) {
            throw Error("cannot copy " + describe(from) + ": " + status.message);
        }
    }

    const auto* net = dynamic_cast<const Network*>(&from);
    const auto children = net != nullptr ? net->nodes() : from.namedChildren();
    const bool fixedChildren = to.childCount() > 0;
    for (const auto& [name, child] : children) {
        if (fixedChildren) {
            Module* built = to.findChild(name);
            if (built == nullptr || built->className() != child->className()) {
                throw Error("cannot copy " + describe(from) + ": its constructor does not build the child '" +
                            name + "' (" + child->className() + ")");
            }
            copyInto(*child, *built);
        } else {
            attachChild(to, name, cloneModule(*child));
        }
    }
    if (net == nullptr) {
        return;
    }
    auto& toNet = dynamic_cast<Network&>(to);
    for (const Connection& connection : net->connections()) {
        std::unique_ptr<Projection> projection;
        if (connection.hasProjection) {
            std::unique_ptr<Module> copy = cloneModule(*net->projection(connection.name));
            projection.reset(static_cast<Projection*>(copy.release()));
        }
        toNet.connect(connection.from.toString(), connection.to.toString(), std::move(projection),
                      connection.name, connection.delayed);
    }
}

}  // namespace

std::unique_ptr<Module> cloneModule(const Module& source)
{
    std::unique_ptr<Module> copy;
    try {
        copy = createModule(source.className(), source.config());
    } catch (const Error& e) {
        throw Error("cannot copy " + describe(source) + ": " + e.what());
    }
    copyInto(source, *copy);
    return copy;
}

}  // namespace spike::engine
