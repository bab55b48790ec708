// The attribute registry's vocabulary: what a module declares about each of its attributes.
//
// A module registers every attribute once (name, kind, family, accepted shapes, units, bounds,
// doc, init function, live-editability). Everything downstream (inspector, JSON, state dicts,
// `spikesim info`) reads these specs; no list of attribute names is written anywhere else.
// Values are either numeric tensors or, for enumerations, strings.
#pragma once

#include "engine/tensor/error.hpp"
#include "engine/tensor/tensor.hpp"

#include <functional>
#include <limits>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace spike::engine {

class Module;

/// What an attribute is, after Rockpool's Parameter / SimulationParameter / State.
enum class AttributeKind {
    Parameter,            ///< Trainable or user-set model parameter (in the state dict).
    SimulationParameter,  ///< Affects simulation only (dt, noise, surrogate...). Not in the state dict.
    State,                ///< Dynamical state, reset by resetState() (in the state dict, like torch buffers).
};

/// Value type carried by an attribute.
enum class ValueType {
    Real,     ///< float32 tensor
    Integer,  ///< float32 tensor whose elements must be integral
    Boolean,  ///< float32 tensor whose elements must be 0 or 1
    Enum,     ///< string, one of AttributeSpec::choices
};

/// What an attribute means to viewers, declared with the attribute so that no viewer matches
/// names or families: the trace a neuron population shows by default is its Membrane State,
/// and a trace of it draws the Threshold attribute as a line. A model that declares neither
/// has no default trace (the plots say so) and no threshold line; its signals can still be
/// traced by name.
enum class Role {
    None,       ///< no special meaning
    Membrane,   ///< the membrane potential State (recordable): the default trace
    Threshold,  ///< the firing threshold (scalar or per neuron), drawn over membrane traces
};

/// A numeric tensor or an enumeration value.
using AttributeValue = std::variant<Tensor, std::string>;
/// Attribute values of one module, keyed by attribute name.
using AttributeMap = std::map<std::string, AttributeValue>;
/// Attribute values of a module tree, keyed by module path ("" is the root, "0.lif" a descendant).
using NestedAttributes = std::map<std::string, AttributeMap>;

std::string toString(AttributeKind kind);
std::string toString(ValueType type);
/// Short human text of a value: "0.02", "(4,) [0.02 … 0.05]", "'taus'".
std::string describeValue(const AttributeValue& value);

/// Inclusive or exclusive numeric bounds applied element-wise.
struct Bounds {
    double lower = -std::numeric_limits<double>::infinity();
    double upper = std::numeric_limits<double>::infinity();
    bool lowerInclusive = true;
    bool upperInclusive = true;

    bool contains(double v) const;
    bool bounded() const;
    /// "> 0", "in [0, 1]", "in (0, 1)", "" when unbounded.
    std::string toString() const;
};

/// Function producing an attribute's initial value for a given module.
using InitFunction = std::function<AttributeValue(const Module&)>;

/// Declaration of one attribute.
struct AttributeSpec {
    std::string name;
    AttributeKind kind = AttributeKind::Parameter;
    std::string family;         ///< "taus", "weights", "biases", "thresholds", ... ("" when none)
    Role role = Role::None;     ///< what viewers make of it (see Role)
    std::vector<Shape> shapes;  ///< Accepted shapes (alternatives); the first is canonical.
    std::string units;          ///< "s", "V", "" for dimensionless
    Bounds bounds;
    std::string doc;            ///< One line.
    ValueType type = ValueType::Real;
    std::vector<std::string> choices;  ///< For ValueType::Enum.
    bool liveEditable = true;   ///< May change while a simulation runs (else needs a rebuild).
    bool inStateDict = true;    ///< Appears in stateDict() (false for simulation parameters).
    /// A state dict may lack this key without it counting as missing (PyTorch tolerates old
    /// checkpoints without BatchNorm's num_batches_tracked the same way).
    bool optionalOnLoad = false;
    /// A State that resetState() leaves alone: learned statistics such as BatchNorm's running
    /// mean, which are torch buffers but not dynamical state between simulation runs.
    bool keepOnResetState = false;
    InitFunction init;          ///< Initial / reset value.

    /// Checks `value` against type, shape alternatives, finiteness, integrality and bounds.
    /// `where` prefixes the message (e.g. "lif (LIF)").
    Status validate(const AttributeValue& value, const std::string& where) const;
    /// "() or (1,) or (4,)".
    std::string shapesToString() const;
};

/// Fluent builder used by modules to declare attributes in their constructors.
class AttributeBuilder {
public:
    AttributeBuilder(std::string name, AttributeKind kind);

    AttributeBuilder& family(std::string f);
    AttributeBuilder& role(Role r);
    AttributeBuilder& shapes(std::vector<Shape> s);
    AttributeBuilder& units(std::string u);
    AttributeBuilder& bounds(Bounds b);
    /// Strictly positive (> 0).
    AttributeBuilder& positive();
    /// >= 0.
    AttributeBuilder& nonNegative();
    AttributeBuilder& range(double lower, double upper);
    AttributeBuilder& doc(std::string d);
    AttributeBuilder& integer();
    AttributeBuilder& boolean();
    AttributeBuilder& choices(std::vector<std::string> options);
    AttributeBuilder& live(bool editable);
    AttributeBuilder& inStateDict(bool included);
    AttributeBuilder& optionalOnLoad(bool optional = true);
    AttributeBuilder& keepOnResetState(bool keep = true);
    /// Initial value: a constant filling the canonical shape.
    AttributeBuilder& initConstant(float value);
    AttributeBuilder& initEnum(std::string value);
    AttributeBuilder& init(InitFunction f);

    const AttributeSpec& spec() const { return m_spec; }
    AttributeSpec take() { return std::move(m_spec); }

private:
    AttributeSpec m_spec;
};

/// Declares a Parameter.
AttributeBuilder parameter(std::string name);
/// Declares a SimulationParameter (not in the state dict by default).
AttributeBuilder simulationParameter(std::string name);
/// Declares a State.
AttributeBuilder stateVariable(std::string name);

/// Strong index of an attribute within its module's registry.
struct AttributeId {
    int index = -1;
    bool valid() const { return index >= 0; }
};

}  // namespace spike::engine
