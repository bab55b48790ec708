// Attribute values in model files: numbers, nested lists, {"shape", "data"} objects and .npy
// references to tensors, strings to enumeration values, and back (floats in their shortest form
// that reads back bit-exactly). See model_io.hpp and docs/model-format.md.
#include "engine/io/model_io.hpp"

#include "engine/io/json_pointer.hpp"
#include "engine/tensor/decimal.hpp"
#include "engine/tensor/npy.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>

namespace spike::engine {

namespace fs = std::filesystem;
using io_detail::fail;

namespace {

float toFloat32(const nlohmann::json& j, const std::string& pointer)
{
    if (j.is_boolean()) {
        return j.get<bool>() ? 1.0F : 0.0F;
    }
    if (!j.is_number()) {
        fail(pointer, std::string("expected a number, got ") +
                          (j.is_null() ? "null (NaN and Inf cannot be stored in JSON)"
                                       : std::string(j.type_name())));
    }
    const double d = j.get<double>();
    if (std::abs(d) > static_cast<double>(std::numeric_limits<float>::max())) {
        fail(pointer, "value " + j.dump() + " does not fit in float32");
    }
    return static_cast<float>(d);
}

/// Shape of a rectangular nested list; fails on ragged or too-deep lists.
void inferShape(const nlohmann::json& j, const std::string& pointer, std::size_t depth,
                std::vector<std::int64_t>& dims)
{
    if (!j.is_array()) {
        return;
    }
    if (depth >= static_cast<std::size_t>(Shape::kMaxRank)) {
        fail(pointer, "arrays have at most 4 dimensions");
    }
    if (dims.size() <= depth) {
        dims.push_back(static_cast<std::int64_t>(j.size()));
    } else if (dims[depth] != static_cast<std::int64_t>(j.size())) {
        fail(pointer, "ragged nested list: expected " + std::to_string(dims[depth]) +
                          " elements, got " + std::to_string(j.size()));
    }
    for (std::size_t i = 0; i < j.size(); ++i) {
        if (j[i].is_array() != j[0].is_array()) {
            fail(pointer + "/" + std::to_string(i), "mixes numbers and lists at one level");
        }
        inferShape(j[i], pointer + "/" + std::to_string(i), depth + 1, dims);
    }
}

void flattenInto(const nlohmann::json& j, const std::string& pointer, std::vector<float>& out)
{
    if (j.is_array()) {
        for (std::size_t i = 0; i < j.size(); ++i) {
            flattenInto(j[i], pointer + "/" + std::to_string(i), out);
        }
        return;
    }
    out.push_back(toFloat32(j, pointer));
}

/// JSON number that parses back to exactly `f` as float32, written in its shortest form.
nlohmann::json floatJson(float f)
{
    const double shortest = shortestDecimal(f);
    if (static_cast<float>(shortest) == f) {
        return shortest;
    }
    return static_cast<double>(f);
}

}  // namespace

AttributeValue attributeFromJson(const nlohmann::json& j, const std::string& pointer,
                                 const std::string& baseDir)
{
    if (j.is_string()) {
        return j.get<std::string>();
    }
    if (j.is_number() || j.is_boolean() || j.is_null()) {
        return Tensor::scalar(toFloat32(j, pointer));
    }
    if (j.is_array()) {
        std::vector<std::int64_t> dims;
        inferShape(j, pointer, 0, dims);
        std::vector<float> values;
        flattenInto(j, pointer, values);
        const Shape shape(dims);
        if (shape.numel() != static_cast<std::int64_t>(values.size())) {
            fail(pointer, "ragged nested list");
        }
        return Tensor(shape, values);
    }
    if (j.is_object()) {
        if (j.contains("npy")) {
            if (!j.at("npy").is_string()) {
                fail(pointer + "/npy", "expected the path of a .npy file");
            }
            const fs::path rel = j.at("npy").get<std::string>();
            const fs::path full = rel.is_absolute() ? rel : fs::path(baseDir) / rel;
            try {
                return npy::load(full.string());
            } catch (const Error& e) {
                fail(pointer + "/npy", e.what());
            }
        }
        if (j.contains("shape") && j.contains("data")) {
            const auto& s = j.at("shape");
            if (!s.is_array() || s.size() > 4) {
                fail(pointer + "/shape", "expected a list of at most 4 extents");
            }
            std::vector<std::int64_t> dims;
            for (std::size_t i = 0; i < s.size(); ++i) {
                if (!s[i].is_number_integer() || s[i].get<std::int64_t>() < 0) {
                    fail(pointer + "/shape/" + std::to_string(i), "expected a whole number >= 0");
                }
                dims.push_back(s[i].get<std::int64_t>());
            }
            const Shape shape(dims);
            const auto& d = j.at("data");
            if (!d.is_array()) {
                fail(pointer + "/data", "expected a flat list of numbers");
            }
            if (static_cast<std::int64_t>(d.size()) != shape.numel()) {
                fail(pointer + "/data", "shape " + shape.toString() + " needs " +
                                            std::to_string(shape.numel()) + " values, got " +
                                            std::to_string(d.size()));
            }
            std::vector<float> values;
            values.reserve(d.size());
            for (std::size_t i = 0; i < d.size(); ++i) {
                values.push_back(toFloat32(d[i], pointer + "/data/" + std::to_string(i)));
            }
            return Tensor(shape, values);
        }
        fail(pointer, "expected {\"shape\": [...], \"data\": [...]} or {\"npy\": \"file.npy\"}");
    }
    fail(pointer, std::string("unsupported value of type ") + j.type_name());
}

nlohmann::json attributeToJson(const AttributeValue& value)
{
    if (const auto* s = std::get_if<std::string>(&value)) {
        return *s;
    }
    const Tensor& t = std::get<Tensor>(value);
    if (t.isScalar()) {
        return floatJson(t[0]);
    }
    nlohmann::json data = nlohmann::json::array();
    for (std::int64_t i = 0; i < t.numel(); ++i) {
        data.push_back(floatJson(t[i]));
    }
    return {{"shape", t.shape().dims()}, {"data", std::move(data)}};
}

}  // namespace spike::engine
