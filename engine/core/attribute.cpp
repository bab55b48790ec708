// Attribute specs: validation and the declaration builder. See attribute.hpp.
#include "engine/core/attribute.hpp"

#include <cmath>
#include <iomanip>
#include <sstream>

namespace spike::engine {

std::string toString(AttributeKind kind)
{
    switch (kind) {
    case AttributeKind::Parameter: return "Parameter";
    case AttributeKind::SimulationParameter: return "SimulationParameter";
    case AttributeKind::State: return "State";
    }
    return "?";
}

std::string toString(ValueType type)
{
    switch (type) {
    case ValueType::Real: return "real";
    case ValueType::Integer: return "integer";
    case ValueType::Boolean: return "boolean";
    case ValueType::Enum: return "enum";
    }
    return "?";
}

namespace {
std::string number(double v)
{
    // Whole numbers as they are (16777216, not 1.677722e+07); others to 7 digits.
    constexpr double kExact = 9007199254740992.0;  // 2^53: every whole double below is exact
    std::ostringstream os;
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < kExact && std::fabs(v) >= 1e7) {
        os << std::fixed << std::setprecision(0) << v;
    } else {
        os << std::setprecision(7) << v;
    }
    return os.str();
}
}  // namespace

std::string describeValue(const AttributeValue& value)
{
    if (const auto* s = std::get_if<std::string>(&value)) {
        return "'" + *s + "'";
    }
    const Tensor& t = std::get<Tensor>(value);
    if (t.numel() == 1) {
        return t.rank() == 0 ? number(t[0]) : t.shape().toString() + " [" + number(t[0]) + "]";
    }
    if (t.numel() == 0) {
        return t.shape().toString() + " []";
    }
    const auto [mn, mx] = std::minmax_element(t.data(), t.data() + t.numel());
    return t.shape().toString() + " [" + number(*mn) + " … " + number(*mx) + "]";
}

bool Bounds::contains(double v) const
{
    const bool lowOk = lowerInclusive ? v >= lower : v > lower;
    const bool highOk = upperInclusive ? v <= upper : v < upper;
    return lowOk && highOk;
}

bool Bounds::bounded() const
{
    return std::isfinite(lower) || std::isfinite(upper);
}

std::string Bounds::toString() const
{
    const bool lo = std::isfinite(lower);
    const bool hi = std::isfinite(upper);
    if (lo && hi) {
        return std::string("in ") + (lowerInclusive ? "[" : "(") + number(lower) + ", " +
               number(upper) + (upperInclusive ? "]" : ")");
    }
    if (lo) {
        return (lowerInclusive ? ">= " : "> ") + number(lower);
    }
    if (hi) {
        return (upperInclusive ? "<= " : "< ") + number(upper);
    }
    return "";
}

std::string AttributeSpec::shapesToString() const
{
    std::string out;
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        if (i > 0) {
            out += " or ";
        }
        out += shapes[i].toString();
    }
    return out;
}

Status AttributeSpec::validate(const AttributeValue& value, const std::string& where) const
{
    const std::string prefix = where + ": attribute '" + name + "': ";
    if (type == ValueType::Enum) {
        const auto* s = std::get_if<std::string>(&value);
        std::string options;
        for (const auto& c : choices) {
            options += (options.empty() ? "'" : ", '") + c + "'";
        }
        if (s == nullptr) {
            return Status::failure(prefix + "expected one of " + options + ", got a number");
        }
        if (std::find(choices.begin(), choices.end(), *s) == choices.end()) {
            return Status::failure(prefix + "expected one of " + options + ", got '" + *s + "'");
        }
        return Status::success();
    }
    const auto* t = std::get_if<Tensor>(&value);
    if (t == nullptr) {
        return Status::failure(prefix + "expected a number or array, got the text '" +
                               std::get<std::string>(value) + "'");
    }
    if (!shapes.empty() &&
        std::find(shapes.begin(), shapes.end(), t->shape()) == shapes.end()) {
        return Status::failure(prefix + "expected shape " + shapesToString() + ", got " +
                               t->shape().toString());
    }
    const std::string unitText = units.empty() ? "" : " [" + units + "]";
    for (std::int64_t i = 0; i < t->numel(); ++i) {
        const float v = (*t)[i];
        const std::string at = t->numel() > 1 ? " at flat index " + std::to_string(i) : "";
        if (!std::isfinite(v)) {
            return Status::failure(prefix + "expected finite values, got " + number(v) + at);
        }
        if (type == ValueType::Integer && std::nearbyint(v) != v) {
            return Status::failure(prefix + "expected whole numbers, got " + number(v) + at);
        }
        if (type == ValueType::Boolean && v != 0.0F && v != 1.0F) {
            return Status::failure(prefix + "expected 0 or 1 (false/true), got " + number(v) + at);
        }
        if (!bounds.contains(v)) {
            return Status::failure(prefix + "expected values " + bounds.toString() + unitText +
                                   ", got " + number(v) + at);
        }
    }
    return Status::success();
}

AttributeBuilder::AttributeBuilder(std::string name, AttributeKind kind)
{
    m_spec.name = std::move(name);
    m_spec.kind = kind;
    m_spec.inStateDict = kind != AttributeKind::SimulationParameter;
    m_spec.shapes = {Shape{}};
}

AttributeBuilder& AttributeBuilder::family(std::string f)
{
    m_spec.family = std::move(f);
    return *this;
}

AttributeBuilder& AttributeBuilder::role(Role r)
{
    m_spec.role = r;
    return *this;
}

AttributeBuilder& AttributeBuilder::shapes(std::vector<Shape> s)
{
    m_spec.shapes = std::move(s);
    return *this;
}

AttributeBuilder& AttributeBuilder::units(std::string u)
{
    m_spec.units = std::move(u);
    return *this;
}

AttributeBuilder& AttributeBuilder::bounds(Bounds b)
{
    m_spec.bounds = b;
    return *this;
}

AttributeBuilder& AttributeBuilder::positive()
{
    m_spec.bounds.lower = 0.0;
    m_spec.bounds.lowerInclusive = false;
    return *this;
}

AttributeBuilder& AttributeBuilder::nonNegative()
{
    m_spec.bounds.lower = 0.0;
    m_spec.bounds.lowerInclusive = true;
    return *this;
}

AttributeBuilder& AttributeBuilder::range(double lower, double upper)
{
    m_spec.bounds.lower = lower;
    m_spec.bounds.upper = upper;
    return *this;
}

AttributeBuilder& AttributeBuilder::doc(std::string d)
{
    m_spec.doc = std::move(d);
    return *this;
}

AttributeBuilder& AttributeBuilder::integer()
{
    m_spec.type = ValueType::Integer;
    return *this;
}

AttributeBuilder& AttributeBuilder::boolean()
{
    m_spec.type = ValueType::Boolean;
    return *this;
}

AttributeBuilder& AttributeBuilder::choices(std::vector<std::string> options)
{
    m_spec.type = ValueType::Enum;
    m_spec.choices = std::move(options);
    m_spec.shapes.clear();
    return *this;
}

AttributeBuilder& AttributeBuilder::live(bool editable)
{
    m_spec.liveEditable = editable;
    return *this;
}

AttributeBuilder& AttributeBuilder::inStateDict(bool included)
{
    m_spec.inStateDict = included;
    return *this;
}

AttributeBuilder& AttributeBuilder::optionalOnLoad(bool optional)
{
    m_spec.optionalOnLoad = optional;
    return *this;
}

AttributeBuilder& AttributeBuilder::keepOnResetState(bool keep)
{
    m_spec.keepOnResetState = keep;
    return *this;
}

AttributeBuilder& AttributeBuilder::initConstant(float value)
{
    const Shape canonical = m_spec.shapes.empty() ? Shape{} : m_spec.shapes.front();
    m_spec.init = [canonical, value](const Module&) -> AttributeValue {
        return Tensor(canonical, value);
    };
    return *this;
}

AttributeBuilder& AttributeBuilder::initEnum(std::string value)
{
    m_spec.init = [value](const Module&) -> AttributeValue { return value; };
    return *this;
}

AttributeBuilder& AttributeBuilder::init(InitFunction f)
{
    m_spec.init = std::move(f);
    return *this;
}

AttributeBuilder parameter(std::string name)
{
    return {std::move(name), AttributeKind::Parameter};
}

AttributeBuilder simulationParameter(std::string name)
{
    return {std::move(name), AttributeKind::SimulationParameter};
}

AttributeBuilder stateVariable(std::string name)
{
    return {std::move(name), AttributeKind::State};
}

}  // namespace spike::engine
