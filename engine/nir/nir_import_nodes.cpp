// The NIR node types other than NIRGraph: their parameters read and checked, their sample
// shapes inferred, their modules built. See nir_import_detail.hpp.
#include "engine/nir/nir_import_detail.hpp"

#include "engine/io/module_factory.hpp"
#include "engine/nir/nir_types.hpp"

#include <algorithm>
#include <cmath>

namespace spike::engine::nir::import_detail {

std::int64_t product(const Dims& d)
{
    std::int64_t n = 1;
    for (const auto x : d) {
        n *= x;
    }
    return n;
}

std::string dimsText(const Dims& d)
{
    std::string s = "(";
    for (std::size_t i = 0; i < d.size(); ++i) {
        s += (i > 0 ? ", " : "") + std::to_string(d[i]);
    }
    return s + (d.size() == 1 ? ",)" : ")");
}

[[noreturn]] void fail(const Context& c, const std::string& path, const std::string& what)
{
    throw Error(c.source + ": node '" + path + "': " + what);
}

// ---- parameters -----------------------------------------------------------------------------

namespace {

const NirValue& param(const Context& c, const Item& it, const std::string& key)
{
    const auto found = it.node->params.find(key);
    if (found == it.node->params.end()) {
        fail(c, it.path, "missing parameter " + key);
    }
    return found->second;
}

bool has(const Item& it, const std::string& key)
{
    return it.node->params.count(key) > 0;
}

const NirArray& array(const Context& c, const Item& it, const std::string& key)
{
    const NirValue& v = param(c, it, key);
    if (v.kind != NirValue::Kind::Array) {
        fail(c, it.path, "parameter " + key + ": expected numbers, got " +
                             (v.kind == NirValue::Kind::String ? "a string" : "a group"));
    }
    if (v.array.values.empty()) {
        fail(c, it.path, "parameter " + key + ": expected at least one value, got none");
    }
    return v.array;
}

/// Whole numbers of an integer-valued parameter (a scalar gives one).
Dims ints(const Context& c, const Item& it, const std::string& key)
{
    const NirArray& a = array(c, it, key);
    Dims out;
    for (const double v : a.values) {
        if (!std::isfinite(v) || v != std::floor(v) || std::fabs(v) > 1e12) {
            fail(c, it.path, "parameter " + key + ": expected whole numbers, got " +
                                 std::to_string(v));
        }
        out.push_back(static_cast<std::int64_t>(v));
    }
    return out;
}

/// `key` as `count` whole numbers: a scalar or a one-value array is spread.
Dims intsOf(const Context& c, const Item& it, const std::string& key, std::size_t count,
            std::int64_t fallback, bool optional)
{
    if (optional && !has(it, key)) {
        return Dims(count, fallback);
    }
    Dims v = ints(c, it, key);
    if (v.size() == 1) {
        return Dims(count, v[0]);
    }
    if (v.size() != count) {
        fail(c, it.path, "parameter " + key + ": expected " + std::to_string(count) +
                             " whole numbers, got " + std::to_string(v.size()));
    }
    return v;
}

/// A float32 tensor of `key` with `numel` elements (a scalar or one value is spread), every
/// value finite; `positive` also requires > 0 ("tau must be > 0").
Tensor values(const Context& c, const Item& it, const std::string& key, std::int64_t numel,
              bool positive = false)
{
    const NirArray& a = array(c, it, key);
    if (a.numel() != 1 && a.numel() != numel) {
        fail(c, it.path, "parameter " + key + " has " + std::to_string(a.numel()) +
                             " values for " + std::to_string(numel) +
                             " neurons or channels (expected 1 or " + std::to_string(numel) + ")");
    }
    Tensor t(Shape{numel});
    for (std::int64_t i = 0; i < numel; ++i) {
        const double v = a.values[static_cast<std::size_t>(a.numel() == 1 ? 0 : i)];
        if (!std::isfinite(v) || std::fabs(v) > 3.4e38) {
            fail(c, it.path, "parameter " + key + "[" + std::to_string(i) +
                                 "] is not a finite float32 number");
        }
        if (positive && !(v > 0.0)) {
            fail(c, it.path, key + " must be > 0 (got " + std::to_string(v) + " at element " +
                                 std::to_string(i) + ")");
        }
        t[i] = static_cast<float>(v);
    }
    return t;
}

/// An array parameter kept with its own shape, as float32 (weights).
Tensor shaped(const Context& c, const Item& it, const std::string& key, const Dims& expected)
{
    const NirArray& a = array(c, it, key);
    if (a.shape != expected) {
        fail(c, it.path, "parameter " + key + " has shape " + dimsText(a.shape) + ", expected " +
                             dimsText(expected));
    }
    Tensor t(Shape(expected.empty() ? Dims{1} : expected));
    for (std::int64_t i = 0; i < a.numel(); ++i) {
        const double v = a.values[static_cast<std::size_t>(i)];
        if (!std::isfinite(v) || std::fabs(v) > 3.4e38) {
            fail(c, it.path, "parameter " + key + " holds a value that is not a finite float32 "
                                 "number at flat index " + std::to_string(i));
        }
        t[i] = static_cast<float>(v);
    }
    return t;
}

/// The sample shape an Input or Output node declares: "shape" (NIR 1.x), or "input_type" /
/// "output_type" (older files: an array, or a group holding one array).
Dims declaredShape(const Context& c, const Item& it, const std::string& oldKey)
{
    Dims d;
    if (has(it, "shape")) {
        d = ints(c, it, "shape");
    } else if (has(it, oldKey)) {
        const NirValue& v = it.node->params.at(oldKey);
        if (v.kind == NirValue::Kind::Array) {
            d = ints(c, it, oldKey);
        } else if (v.kind == NirValue::Kind::Group && v.group.size() == 1 &&
                   v.group.begin()->second.kind == NirValue::Kind::Array) {
            for (const double x : v.group.begin()->second.array.values) {
                d.push_back(static_cast<std::int64_t>(x));
            }
        } else {
            fail(c, it.path, "parameter " + oldKey + ": expected one shape array");
        }
    } else {
        fail(c, it.path, "missing parameter shape");
    }
    if (d.empty()) {
        d = {1};
    }
    for (const auto x : d) {
        if (x < 1 || x > Tensor::kMaxElements) {
            fail(c, it.path, "shape " + dimsText(d) + ": every extent must be at least 1");
        }
    }
    if (product(d) > Tensor::kMaxElements) {
        fail(c, it.path, "shape " + dimsText(d) + " is larger than the tensor limit");
    }
    return d;
}

// ---- the node types ---------------------------------------------------------------------------

}  // namespace

const std::vector<std::string>& supportedTypes()
{
    static const std::vector<std::string> types = [] {
        std::vector<std::string> all{"Input", "Output", "NIRGraph", "Affine", "Linear",
                                     "Flatten", "Conv1d", "Conv2d", "SumPool2d", "AvgPool2d"};
        for (const auto& t : elementTypes()) {
            all.push_back(t.nir);
        }
        return all;
    }();
    return types;
}

namespace {

/// Sample shape of the element-wise node: its parameters' common shape (a scalar: none).
Dims elementShape(const Context& c, const Item& it, const ElementType& t)
{
    Dims shape;
    for (const auto& p : t.params) {
        if (!has(it, p)) {
            continue;
        }
        const NirArray& a = array(c, it, p);
        if (a.numel() == 1) {
            continue;
        }
        if (shape.empty()) {
            shape = a.shape;
        } else if (product(shape) != a.numel()) {
            fail(c, it.path, "parameter " + p + " has shape " + dimsText(a.shape) +
                                 ", the others " + dimsText(shape));
        }
    }
    return shape;
}

/// 2-D window parameters of a conv or pooling node.
struct Window {
    Dims kernel, stride, padding, dilation;
};

/// Output extent of a window over `n` values; fails naming the node when it does not fit.
std::int64_t windowOut(const Context& c, const Item& it, std::int64_t n, std::int64_t k,
                       std::int64_t s, std::int64_t p, std::int64_t d)
{
    const std::int64_t span = d * (k - 1) + 1;
    if (k < 1 || s < 1 || p < 0 || d < 1 || n + 2 * p < span) {
        fail(c, it.path, "a kernel of " + std::to_string(k) + " (stride " + std::to_string(s) +
                             ", padding " + std::to_string(p) + ", dilation " + std::to_string(d) +
                             ") does not fit an input of " + std::to_string(n));
    }
    return (n + 2 * p - span) / s + 1;
}

/// Padding of a conv node: whole numbers, or "valid" / "same" (stride 1).
Dims convPadding(const Context& c, const Item& it, const Dims& kernel, const Dims& dilation)
{
    const std::size_t rank = kernel.size();
    if (!has(it, "padding")) {
        return Dims(rank, 0);
    }
    const NirValue& v = it.node->params.at("padding");
    if (v.kind == NirValue::Kind::String) {
        if (v.text == "valid") {
            return Dims(rank, 0);
        }
        if (v.text == "same") {
            Dims p(rank);
            for (std::size_t i = 0; i < rank; ++i) {
                const std::int64_t total = dilation[i] * (kernel[i] - 1);
                if (total % 2 != 0) {
                    fail(c, it.path, "padding 'same' with an even kernel needs asymmetric "
                                     "padding, which the engine's convolutions do not have");
                }
                p[i] = total / 2;
            }
            return p;
        }
        fail(c, it.path, "padding '" + v.text + "': expected whole numbers, 'valid' or 'same'");
    }
    return intsOf(c, it, "padding", rank, 0, false);
}

}  // namespace

Dims nodeShapes(const Context& c, Item& it, const Dims& given)
{
    const std::string& type = it.node->type;
    const auto need = [&](const std::string& what) -> const Dims& {
        if (given.empty()) {
            fail(c, it.path, "its input shape cannot be inferred: no edge reaches it from an "
                               "Input node (" + what + ")");
        }
        return given;
    };
    if (type == "Input") {
        it.in = declaredShape(c, it, "input_type");
        return it.in;
    }
    if (type == "Output") {
        const Dims declared = has(it, "shape") || has(it, "output_type")
                                  ? declaredShape(c, it, "output_type")
                                  : Dims{};
        it.in = given.empty() ? declared : given;
        if (it.in.empty()) {
            need("an Output node takes its size from its source");
        }
        return it.in;
    }
    if (type == "Affine" || type == "Linear") {
        const NirArray& w = array(c, it, "weight");
        if (w.shape.size() != 2) {
            fail(c, it.path, "weight has shape " + dimsText(w.shape) + ", expected (out, in)");
        }
        it.in = {w.shape[1]};
        if (!given.empty() && product(given) != w.shape[1]) {
            it.in = given;  // reported by the edge check, naming both ends
        }
        return {w.shape[0]};
    }
    if (type == "Flatten") {
        Dims in = given;
        if (has(it, "input_type")) {
            const NirValue& v = it.node->params.at("input_type");
            Dims declared;
            if (v.kind == NirValue::Kind::Array) {
                declared = ints(c, it, "input_type");
            } else if (v.kind == NirValue::Kind::Group && v.group.size() == 1) {
                for (const double x : v.group.begin()->second.array.values) {
                    declared.push_back(static_cast<std::int64_t>(x));
                }
            }
            if (in.empty() || product(in) == product(declared)) {
                in = declared;
            }
        }
        if (in.empty()) {
            need("Flatten");
        }
        it.in = in;
        const auto rank = static_cast<std::int64_t>(in.size());
        std::int64_t start = has(it, "start_dim") ? ints(c, it, "start_dim").front() : 0;
        std::int64_t end = has(it, "end_dim") ? ints(c, it, "end_dim").front() : -1;
        start = start < 0 ? start + rank : start;
        end = end < 0 ? end + rank : end;
        if (start < 0 || end >= rank || start > end) {
            fail(c, it.path, "cannot flatten axes " + std::to_string(start) + ".." +
                                   std::to_string(end) + " of an input " + dimsText(in));
        }
        Dims out(in.begin(), in.begin() + start);
        std::int64_t merged = 1;
        for (std::int64_t a = start; a <= end; ++a) {
            merged *= in[static_cast<std::size_t>(a)];
        }
        out.push_back(merged);
        out.insert(out.end(), in.begin() + end + 1, in.end());
        return out;
    }
    if (type == "Conv1d" || type == "Conv2d") {
        const std::size_t rank = type == "Conv1d" ? 1 : 2;
        const NirArray& w = array(c, it, "weight");
        if (w.shape.size() != rank + 2) {
            fail(c, it.path, "weight has shape " + dimsText(w.shape) + ", expected (out, in / groups, " +
                                   (rank == 1 ? "k)" : "kh, kw)"));
        }
        const std::int64_t groups = has(it, "groups") ? ints(c, it, "groups").front() : 1;
        if (groups < 1 || w.shape[0] % groups != 0) {
            fail(c, it.path, "groups " + std::to_string(groups) + " must divide the " +
                                   std::to_string(w.shape[0]) + " output channels");
        }
        Dims spatial;
        if (has(it, "input_shape")) {
            spatial = intsOf(c, it, "input_shape", rank, 0, false);
        } else if (given.size() == rank + 1) {
            spatial.assign(given.begin() + 1, given.end());
        } else {
            fail(c, it.path, "missing parameter input_shape");
        }
        const std::int64_t channels = w.shape[1] * groups;
        it.in = {channels};
        it.in.insert(it.in.end(), spatial.begin(), spatial.end());
        const Dims kernel(w.shape.begin() + 2, w.shape.end());
        const Dims stride = intsOf(c, it, "stride", rank, 1, true);
        const Dims dilation = intsOf(c, it, "dilation", rank, 1, true);
        const Dims padding = convPadding(c, it, kernel, dilation);
        Dims out{w.shape[0]};
        for (std::size_t a = 0; a < rank; ++a) {
            out.push_back(windowOut(c, it, spatial[a], kernel[a], stride[a], padding[a], dilation[a]));
        }
        return out;
    }
    if (type == "SumPool2d" || type == "AvgPool2d") {
        const Dims& in = need(type + " takes (C, H, W)");
        if (in.size() != 3) {
            fail(c, it.path, "expected a (C, H, W) input, got " + dimsText(in));
        }
        it.in = in;
        const Dims kernel = intsOf(c, it, "kernel_size", 2, 1, false);
        const Dims stride = intsOf(c, it, "stride", 2, 0, true);
        const Dims padding = intsOf(c, it, "padding", 2, 0, true);
        Dims out{in[0]};
        for (std::size_t a = 0; a < 2; ++a) {
            const std::int64_t s = stride[a] == 0 ? kernel[a] : stride[a];
            out.push_back(windowOut(c, it, in[a + 1], kernel[a], s, padding[a], 1));
        }
        return out;
    }
    const ElementType* t = elementTypeByNir(type);
    Dims shape = elementShape(c, it, *t);
    if (shape.empty()) {
        shape = given.empty() ? need(type + " with scalar parameters takes its size from its source")
                              : given;
    }
    it.in = shape;
    return shape;
}

std::unique_ptr<Module> nodeModule(const Context& c, const Item& it)
{
    const std::string& type = it.node->type;
    const auto build = [&](const std::string& engineType, const nlohmann::json& config,
                           const AttributeMap& values) {
        std::unique_ptr<Module> m;
        try {
            m = createModule(engineType, config);
        } catch (const Error& e) {
            fail(c, it.path, "cannot build a " + engineType + ": " + e.what());
        }
        if (!values.empty()) {
            if (const Status s = m->setAttributes(NestedAttributes{{"", values}}); !s.ok) {
                fail(c, it.path, s.message);
            }
        }
        return m;
    };
    if (type == "Input" || type == "Output") {
        return build("Identity", {{"shape", {product(it.in)}}}, {});
    }
    if (type == "Affine" || type == "Linear") {
        const NirArray& w = array(c, it, "weight");
        AttributeMap v{{"weight", shaped(c, it, "weight", w.shape)}};
        const bool bias = type == "Affine";
        if (bias) {
            v["bias"] = values(c, it, "bias", w.shape[0]);
        }
        return build("Linear", {{"in_features", w.shape[1]}, {"out_features", w.shape[0]}, {"bias", bias}},
                     v);
    }
    if (type == "Flatten") {
        // Samples are flat vectors in the engine (C order), so every Flatten is the identity on
        // them: it keeps the node (and its name) and flattens all axes. A partial flatten (some
        // axes kept) computes the same; only its output shape differs, which is noted.
        const auto rank = static_cast<std::int64_t>(it.in.size());
        std::int64_t start = has(it, "start_dim") ? ints(c, it, "start_dim").front() : 0;
        std::int64_t end = has(it, "end_dim") ? ints(c, it, "end_dim").front() : -1;
        start = start < 0 ? start + rank : start;
        end = end < 0 ? end + rank : end;
        if (start != 0 || end != rank - 1) {
            c.notes->push_back("node '" + it.path + "': Flatten over axes " + std::to_string(start) +
                               ".." + std::to_string(end) + " of " + dimsText(it.in) +
                               " runs as a full flatten (samples are flat here; same values)");
        }
        return build("Flatten", {{"shape", {product(it.in)}}, {"start_dim", 1}, {"end_dim", -1}}, {});
    }
    if (type == "Conv1d" || type == "Conv2d") {
        const bool two = type == "Conv2d";
        const std::size_t rank = two ? 2 : 1;
        const NirArray& w = array(c, it, "weight");
        const std::int64_t groups = has(it, "groups") ? ints(c, it, "groups").front() : 1;
        const Dims kernel(w.shape.begin() + 2, w.shape.end());
        const Dims stride = intsOf(c, it, "stride", rank, 1, true);
        const Dims dilation = intsOf(c, it, "dilation", rank, 1, true);
        const Dims padding = convPadding(c, it, kernel, dilation);
        const Dims spatial(it.in.begin() + 1, it.in.end());
        const auto pairOrOne = [two](const Dims& d) {
            return two ? nlohmann::json(d) : nlohmann::json(d.front());
        };
        AttributeMap v{{"weight", shaped(c, it, "weight", w.shape)}};
        const bool bias = has(it, "bias");
        if (bias) {
            v["bias"] = values(c, it, "bias", w.shape[0]);
        }
        return build(type,
                     {{"in_channels", it.in.front()}, {"out_channels", w.shape[0]},
                      {"kernel_size", pairOrOne(kernel)}, {"stride", pairOrOne(stride)},
                      {"padding", pairOrOne(padding)}, {"dilation", pairOrOne(dilation)},
                      {"groups", groups}, {"bias", bias}, {"input_size", pairOrOne(spatial)}},
                     v);
    }
    if (type == "SumPool2d" || type == "AvgPool2d") {
        const Dims kernel = intsOf(c, it, "kernel_size", 2, 1, false);
        Dims stride = intsOf(c, it, "stride", 2, 0, true);
        for (std::size_t a = 0; a < 2; ++a) {
            stride[a] = stride[a] == 0 ? kernel[a] : stride[a];
        }
        const Dims padding = intsOf(c, it, "padding", 2, 0, true);
        return build(type,
                     {{"channels", it.in[0]}, {"kernel_size", kernel}, {"stride", stride},
                      {"padding", padding}, {"input_size", {it.in[1], it.in[2]}}},
                     {});
    }
    const ElementType& t = *elementTypeByNir(type);
    const std::int64_t n = product(it.in);
    AttributeMap v;
    for (const auto& p : t.params) {
        if (!has(it, p) && t.defaults.count(p) > 0) {
            Tensor fill(Shape{n});
            fill.flat().setConstant(static_cast<float>(t.defaults.at(p)));
            v[p] = fill;
            c.notes->push_back("node '" + it.path + "': no " + p + " in the file (older NIR), " +
                                 "using " + std::to_string(t.defaults.at(p)));
            continue;
        }
        const bool positive = std::find(t.positive.begin(), t.positive.end(), p) != t.positive.end();
        v[p] = values(c, it, p, n, positive);
    }
    if (type == "Delay") {
        for (std::int64_t i = 0; i < n; ++i) {
            if (std::get<Tensor>(v["delay"])[i] < 0.0F) {
                fail(c, it.path, "delay must be >= 0 (got " +
                                       std::to_string(std::get<Tensor>(v["delay"])[i]) +
                                       " at element " + std::to_string(i) + ")");
            }
        }
    }
    inSeconds(c, it, v);
    if (c.options.discretisation == "rockpool" && type == "CubaLIF") {
        return rockpoolLif(c, it, v, n);
    }
    if (t.timed) {
        v["dt"] = Tensor(Shape{}, std::vector<float>{static_cast<float>(c.options.dt)});
    }
    if (t.discretised) {
        const std::string& d = c.options.discretisation;
        v["discretisation"] = d != "rockpool" ? d : type == "LI" ? "impulse" : "exact";
    }
    return build(t.engine, {{"shape", {n}}}, v);
}

}  // namespace spike::engine::nir::import_detail
