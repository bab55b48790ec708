// Helpers for the tests of engine/nir/nir_file.hpp (and of what builds on it): reading and
// writing raw bytes, one-line Error checks, deep bit-exact comparisons of NIR graphs (as stored,
// and what an export must keep of an imported graph), capturing
// stderr, counting open HDF5 objects, raw HDF5 writing for files the engine would never write,
// and the storage facts of every dataset of a file (type, dataspace, layout, filters, fill).
#pragma once

#include "engine/nir/nir_graph.hpp"
#include "engine/tensor/error.hpp"

#include <hdf5.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace spike::tests {

using engine::Error;
using engine::nir::ArrayType;
using engine::nir::NirArray;
using engine::nir::NirGraph;
using engine::nir::NirNode;
using engine::nir::NirValue;

inline std::string readBytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void writeBytes(const std::string& path, const std::string& bytes)
{
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// The bits of `v` as a float32 (what the file stores).
inline std::uint32_t bits(double v)
{
    return std::bit_cast<std::uint32_t>(static_cast<float>(v));
}

/// The message `fn` throws as Error, or "" when it returns (any other exception fails the test).
template <typename Fn>
inline std::string errorOf(Fn fn)
{
    try {
        fn();
    } catch (const Error& e) {
        return e.what();
    }
    return {};
}

/// Whether `message` is one line holding every one of `parts`.
inline bool says(const std::string& message, const std::vector<std::string>& parts)
{
    if (message.empty() || message.find('\n') != std::string::npos) {
        return false;
    }
    for (const auto& part : parts) {
        if (message.find(part) == std::string::npos) {
            return false;
        }
    }
    return true;
}

inline const NirValue& param(const NirNode& node, const std::string& name)
{
    const auto it = node.params.find(name);
    if (it == node.params.end()) {
        throw std::runtime_error("node " + node.name + " has no parameter " + name);
    }
    return it->second;
}

inline const NirArray& array(const NirNode& node, const std::string& name)
{
    return param(node, name).array;
}

inline std::vector<std::string> nodeNames(const NirGraph& graph)
{
    std::vector<std::string> names;
    for (const auto& n : graph.nodes) {
        names.push_back(n.name);
    }
    return names;
}

inline std::vector<std::string> edgeTexts(const NirGraph& graph)
{
    std::vector<std::string> texts;
    for (const auto& e : graph.edges) {
        texts.push_back(e.source + "->" + e.target);
    }
    return texts;
}

// Deep comparison: the first difference, or "" when equal (float32 values bit for bit).
inline std::string diffValue(const NirValue& a, const NirValue& b, const std::string& where)
{
    if (a.kind != b.kind) {
        return where + ": kind differs";
    }
    if (a.kind == NirValue::Kind::String) {
        return a.text == b.text ? "" : where + ": '" + a.text + "' vs '" + b.text + "'";
    }
    if (a.kind == NirValue::Kind::Group) {
        if (a.group.size() != b.group.size()) {
            return where + ": group sizes differ";
        }
        for (const auto& [key, value] : a.group) {
            const auto other = b.group.find(key);
            if (other == b.group.end()) {
                return where + "/" + key + ": missing";
            }
            if (auto d = diffValue(value, other->second, where + "/" + key); !d.empty()) {
                return d;
            }
        }
        return "";
    }
    if (a.array.type != b.array.type || a.array.shape != b.array.shape ||
        a.array.values.size() != b.array.values.size()) {
        return where + ": type, shape or size differs";
    }
    for (std::size_t i = 0; i < a.array.values.size(); ++i) {
        const double x = a.array.values[i], y = b.array.values[i];
        const bool same = a.array.type == ArrayType::Float32
                              ? bits(x) == bits(y)
                              : std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(y);
        if (!same) {
            return where + "[" + std::to_string(i) + "] differs";
        }
    }
    return "";
}

inline std::string diffParams(const std::map<std::string, NirValue>& a, const std::map<std::string, NirValue>& b,
                       const std::string& where)
{
    NirValue ga, gb;
    ga.kind = gb.kind = NirValue::Kind::Group;
    ga.group = a;
    gb.group = b;
    return diffValue(ga, gb, where);
}

inline std::string diffGraph(const NirGraph& a, const NirGraph& b, const std::string& where)
{
    if (nodeNames(a) != nodeNames(b)) {
        return where + ": node names differ";
    }
    if (edgeTexts(a) != edgeTexts(b)) {
        return where + ": edges differ";
    }
    if (auto d = diffParams(a.params, b.params, where + " params"); !d.empty()) {
        return d;
    }
    for (std::size_t i = 0; i < a.nodes.size(); ++i) {
        const NirNode& x = a.nodes[i];
        const NirNode& y = b.nodes[i];
        const std::string at = where + "/" + x.name;
        if (x.type != y.type || bool(x.graph) != bool(y.graph)) {
            return at + ": type or graph differs";
        }
        if (auto d = diffParams(x.params, y.params, at); !d.empty()) {
            return d;
        }
        if (x.graph) {
            if (auto d = diffGraph(*x.graph, *y.graph, at); !d.empty()) {
                return d;
            }
        }
    }
    return "";
}

/// What an export of an imported graph `b` must keep of the original `a`: every node of `a`
/// (found by name, any order) with its type and every array parameter bit for bit, shape and
/// element type included (parameters the exporter adds, such as a Conv's input_shape, may be
/// extra), nested graphs likewise, and every edge of `a`. The first difference, or "".
inline std::string diffKept(const NirGraph& a, const NirGraph& b, const std::string& where)
{
    if (a.nodes.size() != b.nodes.size()) {
        return where + ": " + std::to_string(b.nodes.size()) + " nodes, not " +
               std::to_string(a.nodes.size());
    }
    for (const auto& na : a.nodes) {
        const NirNode* nb = b.find(na.name);
        if (nb == nullptr) {
            return where + na.name + ": missing";
        }
        if (nb->type != na.type || bool(na.graph) != bool(nb->graph)) {
            return where + na.name + ": type " + nb->type + ", not " + na.type;
        }
        if (na.graph) {
            if (auto d = diffKept(*na.graph, *nb->graph, where + na.name + "."); !d.empty()) {
                return d;
            }
            continue;
        }
        for (const auto& [key, value] : na.params) {
            if (value.kind != NirValue::Kind::Array) {
                continue;
            }
            const auto other = nb->params.find(key);
            if (other == nb->params.end()) {
                return where + na.name + "." + key + ": missing";
            }
            if (auto d = diffValue(value, other->second, where + na.name + "." + key); !d.empty()) {
                return d;
            }
        }
    }
    if (a.edges.size() != b.edges.size()) {
        return where + ": " + std::to_string(b.edges.size()) + " edges, not " +
               std::to_string(a.edges.size());
    }
    for (const auto& e : a.edges) {
        const bool found = std::any_of(b.edges.begin(), b.edges.end(), [&](const auto& f) {
            return f.source == e.source && f.target == e.target;
        });
        if (!found) {
            return where + e.source + " -> " + e.target + ": missing";
        }
    }
    return "";
}

/// Redirects the process's stderr into a file while alive; text() says what was written.
class StderrCapture {
public:
    explicit StderrCapture(const std::string& path) : m_path(path)
    {
        std::fflush(stderr);
        m_saved = ::dup(2);
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ::dup2(fd, 2);
        ::close(fd);
    }
    ~StderrCapture() { restore(); }
    std::string text()
    {
        restore();
        return readBytes(m_path);
    }

private:
    void restore()
    {
        if (m_saved >= 0) {
            std::fflush(stderr);
            ::dup2(m_saved, 2);
            ::close(m_saved);
            m_saved = -1;
        }
    }
    std::string m_path;
    int m_saved = -1;
};

/// HDF5 files, groups, datasets, types and attributes open anywhere in the process.
inline long openHdf5Objects()
{
    return static_cast<long>(H5Fget_obj_count(static_cast<hid_t>(H5F_OBJ_ALL), H5F_OBJ_ALL));
}

/// Temporary files ("*.tmp-*") in a folder.
inline std::vector<std::string> temporaries(const std::string& folder)
{
    std::vector<std::string> found;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) {
        if (entry.path().filename().string().find(".tmp-") != std::string::npos) {
            found.push_back(entry.path().string());
        }
    }
    return found;
}

// Raw HDF5 for the files of older layouts and of broken structure -----------------------------

/// An HDF5 id closed at scope end (test-side; the engine has its own).
struct H5Id {
    hid_t id;
    herr_t (*close)(hid_t);
    ~H5Id()
    {
        if (id >= 0) {
            close(id);
        }
    }
    operator hid_t() const { return id; }  // NOLINT: test convenience
};

inline void fixedString(hid_t loc, const char* name, const std::vector<std::string>& texts,
                 std::vector<hsize_t> dims, std::size_t size, H5T_str_t pad = H5T_STR_NULLPAD)
{
    H5Id type{H5Tcopy(H5T_C_S1), H5Tclose};
    H5Tset_size(type, size);
    H5Tset_strpad(type, pad);
    std::string bytes;
    for (const auto& t : texts) {
        std::string padded = t;
        padded.resize(size, pad == H5T_STR_SPACEPAD ? ' ' : '\0');
        bytes += padded;
    }
    H5Id space{dims.empty() ? H5Screate(H5S_SCALAR) : H5Screate_simple(int(dims.size()), dims.data(), nullptr),
               H5Sclose};
    H5Id ds{H5Dcreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose};
    H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data());
}

inline void numbers(hid_t loc, const char* name, hid_t fileType, hid_t memType, const void* data,
             std::vector<hsize_t> dims)
{
    H5Id space{dims.empty() ? H5Screate(H5S_SCALAR) : H5Screate_simple(int(dims.size()), dims.data(), nullptr),
               H5Sclose};
    H5Id ds{H5Dcreate2(loc, name, fileType, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose};
    H5Dwrite(ds, memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
}

inline hid_t group(hid_t loc, const char* name)
{
    return H5Gcreate2(loc, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
}

/// A file with a root graph (vlen "type") and what `fill` adds to /node.
template <typename Fill>
inline void writeRawFile(const std::string& path, Fill fill)
{
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    H5Id file{H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose};
    H5Id node{group(file, "node"), H5Gclose};
    fixedString(node, "type", {"NIRGraph"}, {}, 8);
    fill(static_cast<hid_t>(file), static_cast<hid_t>(node));
}

// The layout of every dataset of a file, for comparing ours with the NIR library's ----------------

struct DatasetFacts {
    std::string type;    ///< class, size, order, sign, vlen, cset, pad
    std::string space;   ///< SCALAR or the dims
    std::string layout;  ///< contiguous / chunked dims + filters + fill time
};

inline std::map<std::string, DatasetFacts> datasetFacts(const std::string& path)
{
    std::map<std::string, DatasetFacts> facts;
    H5Id file{H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
    struct Walk {
        hid_t file;
        std::map<std::string, DatasetFacts>* out;
    } walk{file, &facts};
    const auto visit = [](hid_t, const char* name, const H5O_info_t* info, void* data) -> herr_t {
        auto* w = static_cast<Walk*>(data);
        if (info->type != H5O_TYPE_DATASET) {
            (*w->out)[std::string("group ") + name] = {};
            return 0;
        }
        H5Id ds{H5Dopen2(w->file, name, H5P_DEFAULT), H5Dclose};
        H5Id type{H5Dget_type(ds), H5Tclose};
        H5Id space{H5Dget_space(ds), H5Sclose};
        H5Id dcpl{H5Dget_create_plist(ds), H5Pclose};
        DatasetFacts f;
        const H5T_class_t cls = H5Tget_class(type);
        f.type = std::to_string(cls) + " size " + std::to_string(H5Tget_size(type));
        if (cls == H5T_STRING) {
            f.type += " vlen " + std::to_string(H5Tis_variable_str(type)) + " cset " +
                      std::to_string(H5Tget_cset(type)) + " pad " + std::to_string(H5Tget_strpad(type));
        } else {
            f.type += " order " + std::to_string(H5Tget_order(type));
            if (cls == H5T_INTEGER) {
                f.type += " sign " + std::to_string(H5Tget_sign(type));
            }
        }
        if (H5Sget_simple_extent_type(space) == H5S_SCALAR) {
            f.space = "SCALAR";
        } else {
            hsize_t dims[32], maxDims[32];
            const int rank = H5Sget_simple_extent_dims(space, dims, maxDims);
            for (int i = 0; i < rank; ++i) {
                f.space += std::to_string(dims[i]) + "/" + std::to_string(maxDims[i]) + " ";
            }
        }
        const H5D_layout_t layout = H5Pget_layout(dcpl);
        f.layout = std::to_string(layout);
        if (layout == H5D_CHUNKED) {
            hsize_t chunk[32];
            const int rank = H5Pget_chunk(dcpl, 32, chunk);
            for (int i = 0; i < rank; ++i) {
                f.layout += " " + std::to_string(chunk[i]);
            }
        }
        for (int i = 0; i < H5Pget_nfilters(dcpl); ++i) {
            unsigned flags = 0, values[8] = {};
            std::size_t count = 8;
            const H5Z_filter_t filter = H5Pget_filter2(dcpl, unsigned(i), &flags, &count, values, 0,
                                                       nullptr, nullptr);
            f.layout += " filter " + std::to_string(filter) + " level " + std::to_string(values[0]);
        }
        H5D_fill_time_t fillTime{};
        H5Pget_fill_time(dcpl, &fillTime);
        f.layout += " fill " + std::to_string(fillTime);
        (*w->out)[name] = f;
        return 0;
    };
    H5Ovisit(file, H5_INDEX_NAME, H5_ITER_INC, visit, &walk);
    return facts;
}

/// What the reader must take from NIR 0.2 / 1.0 era files (h5py 2 and 3, numpy bytes).
inline void writeLegacyFile(const std::string& path)
{
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    H5Id file{H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose};
    {  // the version as a fixed-length string attribute of the root
        H5Id type{H5Tcopy(H5T_C_S1), H5Tclose};
        H5Tset_size(type, 5);
        H5Id space{H5Screate(H5S_SCALAR), H5Sclose};
        H5Id attribute{H5Acreate2(file, "version", type, space, H5P_DEFAULT, H5P_DEFAULT), H5Aclose};
        H5Awrite(attribute, type, "0.2.0");
    }
    H5Id node{group(file, "node"), H5Gclose};
    fixedString(node, "type", {"NIRGraph"}, {}, 8);
    fixedString(node, "edges", {"input", "lif", "lif", "empty"}, {2, 2}, 8);
    {
        H5Id metadata{group(node, "metadata"), H5Gclose};
        fixedString(metadata, "author", {"abc"}, {}, 6, H5T_STR_SPACEPAD);
    }
    H5Id nodes{group(node, "nodes"), H5Gclose};
    {
        H5Id input{group(nodes, "input"), H5Gclose};
        fixedString(input, "type", {"Input"}, {1}, 5);  // a 1-element array of one string
        const std::int32_t shape[1] = {3};
        numbers(input, "shape", H5T_STD_I32LE, H5T_NATIVE_INT32, shape, {1});
        H5Id inputType{group(input, "input_type"), H5Gclose};
        numbers(inputType, "input", H5T_STD_I32BE, H5T_NATIVE_INT32, shape, {1});
    }
    {
        H5Id lif{group(nodes, "lif"), H5Gclose};
        fixedString(lif, "type", {"LIF"}, {}, 3);
        const double tau[3] = {0.1, 0.02, 1e-3};
        numbers(lif, "tau", H5T_IEEE_F64BE, H5T_NATIVE_DOUBLE, tau, {3});
        const std::uint8_t threshold[3] = {1, 2, 255};
        numbers(lif, "v_threshold", H5T_STD_U8LE, H5T_NATIVE_UINT8, threshold, {3});
        const std::int32_t count = -7;
        numbers(lif, "count", H5T_STD_I32LE, H5T_NATIVE_INT32, &count, {});
        // float16 (IEEE half) from float32 values exactly representable in it
        H5Id half{H5Tcopy(H5T_IEEE_F32LE), H5Tclose};
        H5Tset_fields(half, 15, 10, 5, 0, 10);
        H5Tset_size(half, 2);
        H5Tset_ebias(half, 15);
        const float r[3] = {0.5f, 1.5f, -2.0f};
        numbers(lif, "r", half, H5T_NATIVE_FLOAT, r, {3});
        // h5py's bool: an enum over int8 {FALSE = 0, TRUE = 1}
        H5Id boolType{H5Tenum_create(H5T_NATIVE_INT8), H5Tclose};
        const std::int8_t no = 0, yes = 1;
        H5Tenum_insert(boolType, "FALSE", &no);
        H5Tenum_insert(boolType, "TRUE", &yes);
        const std::int8_t flags[3] = {1, 0, 1};
        numbers(lif, "spiking", boolType, boolType, flags, {3});
    }
    {  // an empty graph written without "nodes" or "edges"
        H5Id empty{group(nodes, "empty"), H5Gclose};
        fixedString(empty, "type", {"NIRGraph"}, {}, 8);
    }
    {  // an empty graph whose edges are an empty float64 array (numpy's np.array([]))
        H5Id bare{group(nodes, "bare"), H5Gclose};
        fixedString(bare, "type", {"NIRGraph"}, {}, 8);
        H5Id bareNodes{group(bare, "nodes"), H5Gclose};
        numbers(bare, "edges", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, nullptr, {0});
    }
}

}  // namespace spike::tests
