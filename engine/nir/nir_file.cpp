// Reading .nir files (nir_file.hpp says what the layout is and what older files may hold;
// writing is nir_file_write.cpp).
//
// The reader walks the file by link index (name order), opening each child by index so that a
// stored name is never parsed as a path, follows hard links only, and checks every size before
// HDF5 or this file allocates: an array's element count against Tensor::kMaxElements and its
// bytes against what its stored bytes could hold (deflate expands at most ~1032x), chunk shapes
// against the data's, a string type's character size, variable-length strings against their
// global heap (nir_vlen_check.hpp), nesting against 64 levels and the number of objects visited
// against a budget (a damaged file can make a group its own child). HDF5 1.10 crashes or stalls
// on several of these damages by itself (tests/test_nir_file.cpp keeps the bytes that showed it).
// Data kept outside the file (external raw files, virtual datasets) is refused. What HDF5 still
// crashes on is contained: a forked copy of the process reads each file first (nir_trial_read.hpp).
// Thread: every HDF5 call runs under detail::hdf5Mutex(); HDF5's automatic error printing is
// switched off under the same lock on every call.
#include "engine/nir/nir_file.hpp"

#include "engine/nir/nir_hdf5.hpp"
#include "engine/nir/nir_chunk_check.hpp"
#include "engine/nir/nir_read_strings.hpp"
#include "engine/nir/nir_trial_read.hpp"
#include "engine/tensor/error.hpp"
#include "engine/tensor/tensor.hpp"

#include <hdf5.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace spike::engine::nir {

namespace {

namespace fs = std::filesystem;
using detail::classText;
using detail::Handle;
using detail::Hdf5Failure;
using detail::kMaxDepth;
using detail::kMaxExpansion;
using detail::lastHdf5Failure;
using detail::osReason;
using detail::shapeText;

constexpr std::int64_t kMaxObjects = 1'000'000;  ///< groups and datasets visited per read

/// A POSIX file descriptor, closed when it goes out of scope.
struct FileDescriptor {
    explicit FileDescriptor(int descriptor) : fd(descriptor) {}
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    ~FileDescriptor()
    {
        if (fd >= 0) {
            ::close(fd);
        }
    }
    int fd = -1;
};

/// A shape and its element count, read from a dataspace.
struct Extent {
    std::vector<std::int64_t> shape;  ///< empty for a scalar
    std::int64_t count = 1;
};

class Reader {
public:
    /// Reads from `h5file`, which is `fileBytes` long and also open as `fd` (for the checks
    /// HDF5 does not make; nir_vlen_check.hpp).
    Reader(std::string file, hid_t h5file, int fd, std::uintmax_t fileBytes)
        : m_file(std::move(file)), m_h5file(h5file), m_fd(fd), m_fileBytes(fileBytes)
    {
    }

    [[noreturn]] void fail(const std::string& h5path, const std::string& what) const
    {
        throw Error(m_file + ": " + (h5path.empty() ? "" : h5path + ": ") + what);
    }
    [[noreturn]] void failHdf5(const std::string& h5path, const std::string& what) const
    {
        fail(h5path, what + " (damaged HDF5: " + lastHdf5Failure().reason + ")");
    }

    NirFile read(hid_t file)
    {
        NirFile out;
        out.version = readVersion(file);
        if (H5Lexists(file, "node", H5P_DEFAULT) <= 0) {
            fail("", "no /node group (not a NIR file)");
        }
        Handle node(H5Oopen(file, "node", H5P_DEFAULT), H5Oclose);
        if (!node.valid()) {
            failHdf5("/node", "cannot open the root graph");
        }
        if (H5Iget_type(node.get()) != H5I_GROUP) {
            fail("/node", "not a group (expected the root graph)");
        }
        std::vector<Child> children = listChildren(node.get(), "/node", 1);
        const std::string type = readType(children, "/node");
        if (type != "NIRGraph") {
            fail("/node", "a node of type '" + type + "' (expected a NIRGraph at the root)");
        }
        out.graph = readGraph(children, "/node", 1);
        return out;
    }

private:
    struct Child {
        std::string name;
        Handle object;
        H5I_type_t kind = H5I_BADID;
    };

    std::string readVersion(hid_t file)
    {
        if (H5Lexists(file, "version", H5P_DEFAULT) > 0) {
            Handle object(H5Oopen(file, "version", H5P_DEFAULT), H5Oclose);
            if (!object.valid()) {
                failHdf5("/version", "cannot open");
            }
            if (H5Iget_type(object.get()) != H5I_DATASET) {
                fail("/version", "not a dataset (expected the version string)");
            }
            const NirValue value = readDataset(object.get(), "/version");
            if (value.kind != NirValue::Kind::String) {
                fail("/version", "numbers (expected the version string)");
            }
            return value.text;
        }
        if (H5Aexists(file, "version") > 0) {  // older files kept it as an attribute of the root
            Handle attribute(H5Aopen(file, "version", H5P_DEFAULT), H5Aclose);
            Handle type(attribute.valid() ? H5Aget_type(attribute.get()) : H5I_INVALID_HID, H5Tclose);
            Handle space(attribute.valid() ? H5Aget_space(attribute.get()) : H5I_INVALID_HID, H5Sclose);
            if (!type.valid() || !space.valid()) {
                failHdf5("/ (attribute version)", "cannot open");
            }
            if (H5Tget_class(type.get()) != H5T_STRING) {
                fail("/ (attribute version)", "attribute of type " +
                     classText(H5Tget_class(type.get())) + " (expected the version string)");
            }
            const Extent extent = extentOf(space.get(), 1, H5Aget_storage_size(attribute.get()),
                                           "/ (attribute version)");
            const auto texts = readStrings(attribute.get(), true, type.get(), space.get(), extent,
                                           "/ (attribute version)");
            if (texts.size() != 1) {
                fail("/ (attribute version)", std::to_string(texts.size()) +
                     " strings (expected one version string)");
            }
            return texts[0];
        }
        return "";
    }

    /// The children of a group in name order, each opened (hard links only).
    std::vector<Child> listChildren(hid_t group, const std::string& path, int depth)
    {
        if (depth > kMaxDepth) {
            fail(path, "groups nested deeper than " + std::to_string(kMaxDepth) + " levels");
        }
        H5G_info_t info{};
        if (H5Gget_info(group, &info) < 0) {
            failHdf5(path, "cannot list the group");
        }
        if (static_cast<double>(info.nlinks) + static_cast<double>(m_objects) > kMaxObjects) {
            fail(path, "more than " + std::to_string(kMaxObjects) +
                 " groups and datasets (not a NIR file)");
        }
        m_objects += static_cast<std::int64_t>(info.nlinks);
        std::vector<Child> children;
        children.reserve(info.nlinks);
        for (hsize_t i = 0; i < info.nlinks; ++i) {
            const ssize_t length = H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, i,
                                                      nullptr, 0, H5P_DEFAULT);
            if (length < 0 || length > 65535) {
                failHdf5(path, "cannot read the name of entry " + std::to_string(i));
            }
            std::string name(static_cast<std::size_t>(length) + 1, '\0');
            if (H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, i, name.data(),
                                   name.size(), H5P_DEFAULT) < 0) {
                failHdf5(path, "cannot read the name of entry " + std::to_string(i));
            }
            name.resize(static_cast<std::size_t>(length));
            const std::string childPath = path + "/" + name;
            H5L_info_t link{};
            if (H5Lget_info_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, i, &link, H5P_DEFAULT) < 0) {
                failHdf5(childPath, "cannot read the link");
            }
            if (link.type != H5L_TYPE_HARD) {
                fail(childPath, "a soft or external link (expected a dataset or group)");
            }
            Child child;
            child.name = std::move(name);
            child.object = Handle(H5Oopen_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, i, H5P_DEFAULT),
                                  H5Oclose);
            if (!child.object.valid()) {
                failHdf5(childPath, "cannot open");
            }
            child.kind = H5Iget_type(child.object.get());
            if (child.kind != H5I_GROUP && child.kind != H5I_DATASET) {
                fail(childPath, "a named datatype (expected a dataset or group)");
            }
            children.push_back(std::move(child));
        }
        return children;
    }

    std::string readType(std::vector<Child>& children, const std::string& path)
    {
        for (auto& child : children) {
            if (child.name == "type") {
                const std::string typePath = path + "/type";
                if (child.kind != H5I_DATASET) {
                    fail(typePath, "a group (expected the node's type name as a string)");
                }
                const NirValue value = readDataset(child.object.get(), typePath);
                if (value.kind != NirValue::Kind::String) {
                    fail(typePath, "numbers (expected the node's type name as a string)");
                }
                return value.text;
            }
        }
        fail(path, "no type dataset (expected the node's type name)");
    }

    /// The graph held by a NIRGraph group whose children are listed.
    NirGraph readGraph(std::vector<Child>& children, const std::string& path, int depth)
    {
        NirGraph graph;
        for (auto& child : children) {
            const std::string childPath = path + "/" + child.name;
            if (child.name == "type") {
                continue;
            }
            if (child.name == "nodes") {
                if (child.kind != H5I_GROUP) {
                    fail(childPath, "a dataset (expected a group of nodes)");
                }
                for (auto& nodeChild : listChildren(child.object.get(), childPath, depth + 1)) {
                    graph.nodes.push_back(readNode(nodeChild, childPath + "/" + nodeChild.name, depth + 2));
                }
            } else if (child.name == "edges") {
                graph.edges = readEdges(child, childPath);
            } else {
                graph.params[child.name] = readValue(child, childPath, depth + 1);
            }
        }
        return graph;
    }

    NirNode readNode(Child& child, const std::string& path, int depth)
    {
        if (child.kind != H5I_GROUP) {
            fail(path, "a dataset (expected a node group)");
        }
        NirNode node;
        node.name = child.name;
        std::vector<Child> children = listChildren(child.object.get(), path, depth);
        node.type = readType(children, path);
        if (node.type == "NIRGraph") {
            node.graph = std::make_shared<NirGraph>(readGraph(children, path, depth));
            node.params = node.graph->params;
            return node;
        }
        for (auto& param : children) {
            if (param.name != "type") {
                node.params[param.name] = readValue(param, path + "/" + param.name, depth + 1);
            }
        }
        return node;
    }

    std::vector<NirEdge> readEdges(Child& child, const std::string& path)
    {
        if (child.kind != H5I_DATASET) {
            fail(path, "a group (expected an (E, 2) dataset of strings)");
        }
        const hid_t dataset = child.object.get();
        Handle type(H5Dget_type(dataset), H5Tclose);
        Handle space(H5Dget_space(dataset), H5Sclose);
        if (!type.valid() || !space.valid()) {
            failHdf5(path, "cannot read the dataset's type or shape");
        }
        const Extent extent = datasetExtent(dataset, type.get(), space.get(), path);
        if (extent.count == 0) {
            return {};  // an empty graph: older files wrote an empty array of any type
        }
        const H5T_class_t cls = H5Tget_class(type.get());
        if (cls != H5T_STRING) {
            fail(path, "dataset of type " + classText(cls) + " (expected (E, 2) strings)");
        }
        if (extent.shape.size() != 2 || extent.shape[1] != 2) {
            fail(path, "dataset of shape " + shapeText(extent.shape) + " (expected (E, 2) strings)");
        }
        const auto texts = readStrings(dataset, false, type.get(), space.get(), extent, path);
        std::vector<NirEdge> edges;
        edges.reserve(texts.size() / 2);
        for (std::size_t i = 0; i + 1 < texts.size(); i += 2) {
            edges.push_back({texts[i], texts[i + 1]});
        }
        return edges;
    }

    NirValue readValue(Child& child, const std::string& path, int depth)
    {
        if (child.kind == H5I_DATASET) {
            return readDataset(child.object.get(), path);
        }
        NirValue value;  // a group of further parameters (older files: input_type, metadata)
        value.kind = NirValue::Kind::Group;
        for (auto& member : listChildren(child.object.get(), path, depth)) {
            value.group[member.name] = readValue(member, path + "/" + member.name, depth + 1);
        }
        return value;
    }

    /// The shape of a dataspace whose data take `elementBytes` each in memory and `storedBytes`
    /// in the file, refused when the data could not come from that much storage.
    Extent extentOf(hid_t space, std::size_t elementBytes, std::uint64_t storedBytes,
                    const std::string& path) const
    {
        Extent extent;
        const H5S_class_t cls = H5Sget_simple_extent_type(space);
        if (cls == H5S_SCALAR) {
            return extent;
        }
        if (cls != H5S_SIMPLE) {
            fail(path, "an empty (null) dataspace (expected numbers or a string)");
        }
        const int rank = H5Sget_simple_extent_ndims(space);
        if (rank < 0 || rank > H5S_MAX_RANK) {
            failHdf5(path, "cannot read the shape");
        }
        std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
        if (H5Sget_simple_extent_dims(space, dims.data(), nullptr) < 0) {
            failHdf5(path, "cannot read the shape");
        }
        double count = 1.0;
        for (const hsize_t d : dims) {
            extent.shape.push_back(static_cast<std::int64_t>(std::min<hsize_t>(d, INT64_MAX)));
            count *= static_cast<double>(d);
        }
        if (count > static_cast<double>(Tensor::kMaxElements)) {
            fail(path, "array of shape " + shapeText(extent.shape) + " has more than " +
                 std::to_string(Tensor::kMaxElements) + " elements (the limit)");
        }
        const double stored = static_cast<double>(std::min<std::uint64_t>(storedBytes, m_fileBytes));
        if (count * static_cast<double>(elementBytes) > kMaxExpansion * stored + 65536.0) {
            fail(path, "array of shape " + shapeText(extent.shape) + " is larger than its " +
                 std::to_string(storedBytes) + " stored bytes can hold (damaged file)");
        }
        extent.count = static_cast<std::int64_t>(count);
        return extent;
    }

    /// The extent of a dataset, after checking its storage: data kept outside the file
    /// (external raw files, virtual datasets) is refused, and so are chunks larger than a
    /// fixed-size dataset (HDF5 1.10 reads such chunks past their buffers).
    Extent datasetExtent(hid_t dataset, hid_t type, hid_t space, const std::string& path) const
    {
        Handle plist(H5Dget_create_plist(dataset), H5Pclose);
        if (!plist.valid()) {
            failHdf5(path, "cannot read the dataset's storage");
        }
        const H5D_layout_t layout = H5Pget_layout(plist.get());
        if (layout != H5D_COMPACT && layout != H5D_CONTIGUOUS && layout != H5D_CHUNKED) {
            fail(path, "a virtual dataset (expected data stored in the file)");
        }
        if (H5Pget_external_count(plist.get()) > 0) {
            fail(path, "data stored in an external file (expected data stored in the file)");
        }
        const std::size_t elementBytes = std::max<std::size_t>(1, H5Tget_size(type));
        const Extent extent = extentOf(space, elementBytes, H5Dget_storage_size(dataset), path);
        if (layout == H5D_CHUNKED) {
            std::vector<hsize_t> chunk(H5S_MAX_RANK), maxDims(H5S_MAX_RANK);
            const int rank = H5Pget_chunk(plist.get(), H5S_MAX_RANK, chunk.data());
            if (rank != static_cast<int>(extent.shape.size()) ||
                H5Sget_simple_extent_dims(space, nullptr, maxDims.data()) < 0) {
                fail(path, "chunks of another rank than the data (damaged file)");
            }
            double chunkBytes = static_cast<double>(elementBytes);
            for (int i = 0; i < rank; ++i) {
                chunkBytes *= static_cast<double>(chunk[static_cast<std::size_t>(i)]);
                const hsize_t limit = maxDims[static_cast<std::size_t>(i)];
                if (chunk[static_cast<std::size_t>(i)] == 0 ||
                    (limit != H5S_UNLIMITED && chunk[static_cast<std::size_t>(i)] > limit)) {
                    fail(path, "chunks larger than the data (damaged file)");
                }
            }
            if (chunkBytes > 4294967295.0) {
                fail(path, "chunks of more than 4 GiB (damaged file)");
            }
        }
        return extent;
    }

    NirValue readDataset(hid_t dataset, const std::string& path)
    {
        Handle type(H5Dget_type(dataset), H5Tclose);
        Handle space(H5Dget_space(dataset), H5Sclose);
        if (!type.valid() || !space.valid()) {
            failHdf5(path, "cannot read the dataset's type or shape");
        }
        const Extent extent = datasetExtent(dataset, type.get(), space.get(), path);
        const H5T_class_t cls = H5Tget_class(type.get());
        const std::size_t size = std::max<std::size_t>(1, H5Tget_size(type.get()));
        if (cls == H5T_STRING) {
            auto texts = readStrings(dataset, false, type.get(), space.get(), extent, path);
            if (texts.size() != 1) {
                fail(path, "dataset of " + std::to_string(texts.size()) +
                     " strings (expected numbers or a string)");
            }
            return NirValue::ofString(std::move(texts[0]));
        }
        NirArray array;
        array.shape = extent.shape;
        const auto n = static_cast<std::size_t>(extent.count);
        if (cls == H5T_FLOAT && size == 4) {
            array.type = ArrayType::Float32;
            std::vector<float> values(n);
            readNumbers(dataset, H5T_NATIVE_FLOAT, values.data(), n, path);
            array.values.assign(values.begin(), values.end());
        } else if (cls == H5T_FLOAT) {
            array.type = ArrayType::Float64;
            array.values.resize(n);
            readNumbers(dataset, H5T_NATIVE_DOUBLE, array.values.data(), n, path);
        } else if (cls == H5T_INTEGER) {
            array.type = ArrayType::Int64;
            std::vector<std::int64_t> values(n);
            readNumbers(dataset, H5T_NATIVE_INT64, values.data(), n, path);
            array.values.assign(values.begin(), values.end());
        } else if (cls == H5T_ENUM && isIntegerEnum(type.get())) {
            array.type = ArrayType::Int64;  // h5py's bool: an enum over int8
            array.values = readEnum(dataset, type.get(), n, path);
        } else {
            fail(path, "dataset of type " + classText(cls) + " (expected numbers or a string)");
        }
        return NirValue::ofArray(std::move(array));
    }

    void readNumbers(hid_t dataset, hid_t memType, void* buffer, std::size_t n, const std::string& path) const
    {
        if (n > 0) {
            const std::string problem = detail::checkDeflateChunks(dataset, m_fileBytes);
            if (!problem.empty()) {
                fail(path, problem);
            }
        }
        if (n > 0 && H5Dread(dataset, memType, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer) < 0) {
            failHdf5(path, "cannot read the data");
        }
    }

    static bool isIntegerEnum(hid_t type)
    {
        Handle base(H5Tget_super(type), H5Tclose);
        return base.valid() && H5Tget_class(base.get()) == H5T_INTEGER && H5Tget_size(base.get()) <= 8;
    }

    /// An enum over integers, read as its integer values (HDF5 converts enums only to enums).
    std::vector<double> readEnum(hid_t dataset, hid_t fileType, std::size_t n, const std::string& path) const
    {
        Handle memType(H5Tget_native_type(fileType, H5T_DIR_ASCEND), H5Tclose);
        Handle base(memType.valid() ? H5Tget_super(memType.get()) : H5I_INVALID_HID, H5Tclose);
        if (!base.valid()) {
            failHdf5(path, "cannot read the enum type");
        }
        const std::size_t size = H5Tget_size(memType.get());
        const bool isSigned = H5Tget_sign(base.get()) == H5T_SGN_2;
        if (size == 0 || size > 8 || H5Tget_size(base.get()) != size) {
            fail(path, "an enum of " + std::to_string(size) + "-byte values (expected numbers or a string)");
        }
        std::vector<unsigned char> bytes(n * size);
        readNumbers(dataset, memType.get(), bytes.data(), n, path);
        std::vector<double> values(n);
        for (std::size_t i = 0; i < n; ++i) {
            std::uint64_t raw = 0;
            std::memcpy(&raw, bytes.data() + i * size, size);  // little-endian host
            if (isSigned && size < 8 && (raw >> (8 * size - 1)) != 0) {
                raw |= ~std::uint64_t{0} << (8 * size);
            }
            values[i] = isSigned ? static_cast<double>(static_cast<std::int64_t>(raw))
                                 : static_cast<double>(raw);
        }
        return values;
    }

    /// Every string of a string dataset or attribute (nir_read_strings.hpp).
    std::vector<std::string> readStrings(hid_t object, bool isAttribute, hid_t fileType, hid_t space,
                                         const Extent& extent, const std::string& path) const
    {
        const detail::StringSource source{m_h5file, m_fd, m_fileBytes,
                                          m_file + ": " + (path.empty() ? "" : path + ": ")};
        return detail::readStrings(object, isAttribute, fileType, space,
                                   static_cast<std::size_t>(extent.count), source);
    }

    std::string m_file;
    hid_t m_h5file = H5I_INVALID_HID;
    int m_fd = -1;
    std::uintmax_t m_fileBytes = 0;
    std::int64_t m_objects = 0;
};

/// Opens `path` (open as `fd`, `bytes` long) with HDF5 and reads it. The caller holds
/// detail::hdf5Mutex().
NirFile openAndRead(const std::string& path, int fd, std::uintmax_t bytes)
{
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    if (H5Fis_hdf5(path.c_str()) <= 0) {
        throw Error(path + ": not an HDF5 file");
    }
    Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!file.valid()) {
        const Hdf5Failure failure = lastHdf5Failure();
        if (failure.truncated) {
            throw Error(path + ": truncated HDF5: not a readable NIR file");
        }
        throw Error(path + ": damaged HDF5: not a readable NIR file (" + failure.reason + ")");
    }
    Reader reader(path, file.get(), fd, bytes);
    return reader.read(file.get());
}

}  // namespace

NirFile readNirFile(const std::string& path)
{
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (!fs::exists(status)) {
        throw Error(path + ": cannot open: no such file");
    }
    if (fs::is_directory(status)) {
        throw Error(path + ": cannot open: a folder, not a file");
    }
    const FileDescriptor fd{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
    if (fd.fd < 0) {
        throw Error(path + ": cannot open: " + osReason(errno));
    }
    const std::uintmax_t bytes = fs::file_size(path, ec);
    if (ec || bytes == 0) {
        throw Error(path + ": not an HDF5 file");
    }

    const std::lock_guard lock(detail::hdf5Mutex());
    // A copy of the process reads the file first (nir_trial_read.hpp): HDF5 may crash on it.
    const std::string contained = detail::readInChildFirst(
        [&] { (void)openAndRead(path, fd.fd, bytes); }, detail::trialReadLimit(bytes));
    if (!contained.empty()) {
        throw Error(path + ": damaged HDF5: not a readable NIR file: a trial read in a separate "
                    "process " + contained + "; the file was not opened");
    }
    return openAndRead(path, fd.fd, bytes);
}

}  // namespace spike::engine::nir
