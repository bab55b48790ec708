// Writing .nir files in the NIR library's layout (nir_file.hpp describes it). h5dump of a file
// written here and of one written by nir.write show the same types, shapes, dataspaces, chunking
// (h5py's guess), compression and fill settings, with one exception: nir.write stores Python
// tuples (Conv2d's stride, padding, dilation, input_shape) contiguous and uncompressed, and a
// NirArray does not say whether it was a tuple, so every array of rank >= 1 is written as numpy
// arrays are. Each value is checked as it is written; a failure anywhere removes the temporary
// file, so the caller sees the old file or the complete new one (temporary, fsync, rename).
// Thread: every HDF5 call runs under detail::hdf5Mutex(); errno-level file work runs outside it.
#include "engine/nir/nir_file.hpp"

#include "engine/nir/nir_hdf5.hpp"
#include "engine/tensor/error.hpp"
#include "engine/tensor/tensor.hpp"

#include <hdf5.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace spike::engine::nir {

namespace {

namespace fs = std::filesystem;
using detail::Handle;
using detail::kMaxDepth;
using detail::lastHdf5Failure;
using detail::osReason;
using detail::shapeText;

/// h5py's chunk guess (its filters.guess_chunk): halve the axes in turn until a chunk is near a
/// target that grows with the dataset (8 KiB to 1 MiB); small arrays are one chunk.
std::vector<hsize_t> guessChunk(const std::vector<std::int64_t>& shape, std::size_t typeSize)
{
    std::vector<double> chunk(shape.begin(), shape.end());
    const auto product = [&] {
        double p = 1.0;
        for (const double c : chunk) {
            p *= c;
        }
        return p;
    };
    constexpr double kBase = 16.0 * 1024, kMin = 8.0 * 1024, kMax = 1024.0 * 1024;
    const double datasetBytes = product() * static_cast<double>(typeSize);
    const double target = std::clamp(kBase * std::pow(2.0, std::log10(datasetBytes / (1024.0 * 1024.0))),
                                     kMin, kMax);
    for (std::size_t i = 0;; ++i) {
        const double chunkBytes = product() * static_cast<double>(typeSize);
        if ((chunkBytes < target || std::abs(chunkBytes - target) / target < 0.5) && chunkBytes < kMax) {
            break;
        }
        if (product() == 1.0) {
            break;
        }
        double& axis = chunk[i % chunk.size()];
        axis = std::ceil(axis / 2.0);
    }
    return {chunk.begin(), chunk.end()};
}

class Writer {
public:
    explicit Writer(std::string file) : m_file(std::move(file)) {}

    [[noreturn]] void fail(const std::string& h5path, const std::string& what) const
    {
        throw Error(m_file + ": cannot write: " + (h5path.empty() ? "" : h5path + ": ") + what);
    }
    [[noreturn]] void failHdf5(const std::string& h5path, const std::string& what) const
    {
        fail(h5path, what + " (HDF5: " + lastHdf5Failure().reason + ")");
    }

    void write(hid_t file, const NirFile& content)
    {
        writeString(file, "version", content.version.empty() ? kDefaultNirVersion : content.version,
                    "/version");
        Handle node = createGroup(file, "node", "/node", 1);
        writeGraph(node.get(), content.graph, content.graph.params, "/node", 1);
    }

private:
    void checkName(const std::string& name, const std::string& path) const
    {
        if (name.empty() || name == "." || name.find('/') != std::string::npos ||
            name.find('\0') != std::string::npos) {
            fail(path, "the name '" + name + "' cannot be an HDF5 name (empty, '.', or with '/')");
        }
    }

    /// A new group `depth` groups deep ("/node" being 1; the reader takes at most kMaxDepth).
    Handle createGroup(hid_t parent, const std::string& name, const std::string& path, int depth) const
    {
        checkName(name, path);
        if (depth > kMaxDepth) {
            fail(path, "groups nested deeper than " + std::to_string(kMaxDepth) + " levels");
        }
        Handle gcpl(H5Pcreate(H5P_GROUP_CREATE), H5Pclose);
        if (!gcpl.valid() || H5Pset_obj_track_times(gcpl.get(), 0) < 0) {
            failHdf5(path, "cannot create the group");
        }
        Handle group(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, gcpl.get(), H5P_DEFAULT), H5Gclose);
        if (!group.valid()) {
            failHdf5(path, "cannot create the group");
        }
        return group;
    }

    /// A dataset creation list as h5py makes it: no timestamps; ALLOC fill time for all but
    /// numeric scalars.
    Handle datasetPlist(bool fillAtAllocation, const std::string& path) const
    {
        Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
        if (!dcpl.valid() || H5Pset_obj_track_times(dcpl.get(), 0) < 0 ||
            (fillAtAllocation && H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_ALLOC) < 0)) {
            failHdf5(path, "cannot set up the dataset");
        }
        return dcpl;
    }

    /// Strings as h5py's string_dtype(): variable-length, NUL-terminated, UTF-8.
    static Handle stringType()
    {
        Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
        if (type.valid()) {
            H5Tset_size(type.get(), H5T_VARIABLE);
            H5Tset_cset(type.get(), H5T_CSET_UTF8);
        }
        return type;
    }

    void writeStrings(hid_t parent, const std::string& name, const std::vector<hsize_t>& dims,
                      const std::vector<std::string>& texts, const std::string& path) const
    {
        checkName(name, path);
        std::vector<const char*> pointers;
        for (const auto& text : texts) {
            if (text.find('\0') != std::string::npos) {
                fail(path, "a string holds a NUL character");
            }
            pointers.push_back(text.c_str());
        }
        Handle type = stringType();
        Handle space(dims.empty() ? H5Screate(H5S_SCALAR)
                                  : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                     H5Sclose);
        Handle dcpl = datasetPlist(true, path);
        if (!type.valid() || !space.valid()) {
            failHdf5(path, "cannot set up the dataset");
        }
        Handle dataset(H5Dcreate2(parent, name.c_str(), type.get(), space.get(), H5P_DEFAULT,
                                  dcpl.get(), H5P_DEFAULT), H5Dclose);
        if (!dataset.valid()) {
            failHdf5(path, "cannot create the dataset");
        }
        if (!pointers.empty() &&
            H5Dwrite(dataset.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, pointers.data()) < 0) {
            failHdf5(path, "cannot write the strings");
        }
    }

    void writeString(hid_t parent, const std::string& name, const std::string& text,
                     const std::string& path) const
    {
        writeStrings(parent, name, {}, {text}, path);
    }

    void writeArray(hid_t parent, const std::string& name, const NirArray& array, const std::string& path) const
    {
        checkName(name, path);
        double count = 1.0;
        for (const auto d : array.shape) {
            if (d < 0) {
                fail(path, "array of shape " + shapeText(array.shape) + " has a negative size");
            }
            count *= static_cast<double>(d);
        }
        if (count > static_cast<double>(Tensor::kMaxElements)) {
            fail(path, "array of shape " + shapeText(array.shape) + " has more than " +
                 std::to_string(Tensor::kMaxElements) + " elements (the limit)");
        }
        if (static_cast<double>(array.values.size()) != count) {
            fail(path, "array of shape " + shapeText(array.shape) + " holds " +
                 std::to_string(array.values.size()) + " values (expected " +
                 std::to_string(static_cast<std::int64_t>(count)) + ")");
        }
        std::vector<float> floats;
        std::vector<std::int64_t> ints;
        hid_t fileType = H5T_IEEE_F64LE, memType = H5T_NATIVE_DOUBLE;
        const void* data = array.values.data();
        std::size_t typeSize = 8;
        if (array.type == ArrayType::Float32) {
            floats.assign(array.values.begin(), array.values.end());
            fileType = H5T_IEEE_F32LE, memType = H5T_NATIVE_FLOAT, data = floats.data(), typeSize = 4;
        } else if (array.type == ArrayType::Int64) {
            ints.reserve(array.values.size());
            for (std::size_t i = 0; i < array.values.size(); ++i) {
                const double v = array.values[i];
                if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0) || v != std::trunc(v)) {
                    char text[32];
                    std::snprintf(text, sizeof text, "%.17g", v);
                    fail(path, "value " + std::string(text) + " at index " + std::to_string(i) +
                         " is not an integer (the array is Int64)");
                }
                ints.push_back(static_cast<std::int64_t>(v));
            }
            fileType = H5T_STD_I64LE, memType = H5T_NATIVE_INT64, data = ints.data();
        }
        std::vector<hsize_t> dims(array.shape.begin(), array.shape.end());
        Handle space(dims.empty() ? H5Screate(H5S_SCALAR)
                                  : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                     H5Sclose);
        // h5py: a 0-d value is a plain scalar dataset; an array is chunked and gzip-4 compressed.
        Handle dcpl = datasetPlist(!dims.empty(), path);
        if (!dims.empty() && count > 0) {
            const std::vector<hsize_t> chunk = guessChunk(array.shape, typeSize);
            if (H5Pset_chunk(dcpl.get(), static_cast<int>(chunk.size()), chunk.data()) < 0 ||
                H5Pset_deflate(dcpl.get(), 4) < 0) {
                failHdf5(path, "cannot set up compression");
            }
        }
        if (!space.valid()) {
            failHdf5(path, "cannot set up the dataset");
        }
        Handle dataset(H5Dcreate2(parent, name.c_str(), fileType, space.get(), H5P_DEFAULT, dcpl.get(),
                                  H5P_DEFAULT), H5Dclose);
        if (!dataset.valid()) {
            failHdf5(path, "cannot create the dataset");
        }
        if (count > 0 && H5Dwrite(dataset.get(), memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
            failHdf5(path, "cannot write the data");
        }
    }

    void writeValue(hid_t parent, const std::string& name, const NirValue& value, const std::string& path,
                    int depth) const
    {
        switch (value.kind) {
        case NirValue::Kind::Array: writeArray(parent, name, value.array, path); break;
        case NirValue::Kind::String: writeString(parent, name, value.text, path); break;
        case NirValue::Kind::Group: {
            Handle group = createGroup(parent, name, path, depth);
            for (const auto& [key, member] : value.group) {
                writeValue(group.get(), key, member, path + "/" + key, depth + 1);
            }
            break;
        }
        }
    }

    /// Fills an open group (`depth` groups deep, "/node" being 1) with a graph: "type", "nodes",
    /// "edges" and the params.
    void writeGraph(hid_t group, const NirGraph& graph, const std::map<std::string, NirValue>& params,
                    const std::string& path, int depth) const
    {
        writeString(group, "type", "NIRGraph", path + "/type");
        Handle nodes = createGroup(group, "nodes", path + "/nodes", depth + 1);
        for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
            const NirNode& node = graph.nodes[i];
            for (std::size_t j = 0; j < i; ++j) {
                if (graph.nodes[j].name == node.name) {
                    fail(path + "/nodes", "two nodes are named '" + node.name + "'");
                }
            }
            writeNode(nodes.get(), node, path + "/nodes/" + node.name, depth + 2);
        }
        std::vector<std::string> texts;
        for (const auto& edge : graph.edges) {
            texts.push_back(edge.source);
            texts.push_back(edge.target);
        }
        writeStrings(group, "edges", {graph.edges.size(), 2}, texts, path + "/edges");
        for (const auto& [key, value] : params) {
            if (key == "type" || key == "nodes" || key == "edges") {
                fail(path + "/" + key, "a graph parameter may not be called '" + key + "'");
            }
            writeValue(group, key, value, path + "/" + key, depth + 1);
        }
    }

    void writeNode(hid_t nodes, const NirNode& node, const std::string& path, int depth) const
    {
        Handle group = createGroup(nodes, node.name, path, depth);
        if (node.graph) {
            if (node.type != "NIRGraph") {
                fail(path, "the node holds a graph but its type is '" + node.type + "'");
            }
            auto params = node.params;  // a nested graph's params live in both; the node's win
            params.insert(node.graph->params.begin(), node.graph->params.end());
            writeGraph(group.get(), *node.graph, params, path, depth);
            return;
        }
        writeString(group.get(), "type", node.type, path + "/type");
        for (const auto& [key, value] : node.params) {
            if (key == "type") {
                fail(path + "/type", "a parameter may not be called 'type'");
            }
            writeValue(group.get(), key, value, path + "/" + key, depth + 1);
        }
    }

    std::string m_file;
};

/// Creates "<path>.tmp-<pid>-<n>" beside `path` (new, with the usual umask), or throws.
std::string createTemporary(const std::string& path)
{
    static std::atomic<unsigned> counter{0};
    const fs::path target(path);
    const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::error_code ec;
    if (!fs::is_directory(folder, ec)) {
        throw Error(path + ": cannot write: the folder " + folder.string() + " does not exist");
    }
    for (int attempt = 0;; ++attempt) {
        const std::string tmp = path + ".tmp-" + std::to_string(::getpid()) + "-" +
                                std::to_string(counter.fetch_add(1));
        const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) {
            ::close(fd);
            return tmp;
        }
        if (errno != EEXIST || attempt >= 100) {
            throw Error(path + ": cannot write: " + osReason(errno));
        }
    }
}

}  // namespace

void writeNirFile(const std::string& path, const NirFile& file)
{
    const std::string tmp = createTemporary(path);
    const auto removeTemporary = [&] {
        std::error_code ignored;
        fs::remove(tmp, ignored);
    };
    try {
        {
            const std::lock_guard lock(detail::hdf5Mutex());
            H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
            Writer writer(path);
            Handle out(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
            if (!out.valid()) {
                writer.failHdf5("", "cannot create " + tmp);
            }
            writer.write(out.get(), file);
            if (H5Fflush(out.get(), H5F_SCOPE_LOCAL) < 0 || !out.close()) {
                writer.failHdf5("", "cannot finish the file");
            }
        }
        const int fd = ::open(tmp.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0 || ::fsync(fd) != 0) {
            const int err = errno;
            if (fd >= 0) {
                ::close(fd);
            }
            throw Error(path + ": cannot write: " + osReason(err));
        }
        ::close(fd);
        std::error_code ec;
        fs::rename(tmp, path, ec);
        if (ec) {
            throw Error(path + ": cannot write: " + osReason(ec.value()));
        }
    } catch (...) {
        removeTemporary();
        throw;
    }
}

}  // namespace spike::engine::nir
