// Model files and state-dict folders. See model_io.hpp and docs/model-format.md.
#include "engine/io/model_io.hpp"

#include "engine/io/json_pointer.hpp"
#include "engine/io/module_factory.hpp"
#include "engine/network/network.hpp"
#include "engine/tensor/npy.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <csignal>
#include <unistd.h>

namespace spike::engine {

namespace fs = std::filesystem;

using io_detail::escapePointerToken;
using io_detail::fail;
using io_detail::moduleDepth;

namespace {

constexpr const char* kFormatName = "spikestudio.model";

/// A parser's reason as one printable line: the quoted excerpt of what it last read ("last read:
/// '...'") cut to its last 16 characters, and every byte outside printable ASCII shown as '?', so
/// that a binary file's bytes never reach a terminal or a dialog.
std::string printableReason(std::string reason)
{
    const std::string marker = "last read: '";
    const auto start = reason.find(marker);
    if (start != std::string::npos && reason.size() > start + marker.size() && reason.back() == '\'') {
        const std::size_t from = start + marker.size();
        const std::size_t length = reason.size() - 1 - from;
        constexpr std::size_t kShown = 16;
        if (length > kShown) {
            reason = reason.substr(0, from) + "..." + reason.substr(reason.size() - 1 - kShown);
        }
    }
    for (char& c : reason) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte > 0x7e) {
            c = '?';
        }
    }
    return reason;
}

std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        throw Error(path + ": cannot open: " + std::strerror(errno));
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// Writes `text` to `path` through a temporary file and rename.
void writeAtomically(const std::string& path, const std::string& text)
{
    const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) {
            throw Error(path + ": cannot write: " + std::strerror(errno));
        }
        out << text;
        out.flush();
        if (!out) {
            std::error_code ec;
            fs::remove(tmp, ec);
            throw Error(path + ": write failed: " + std::strerror(errno));
        }
    }
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec) {
        fs::remove(tmp, ec);
        throw Error(path + ": cannot replace file: " + ec.message());
    }
}

/// Removes the temporaries "<name>.tmp-<pid>" that writeAtomically() and npy::save() left in
/// `dir` when their process was killed mid-write (the pid names no living process), for names
/// starting with `prefix`. Another process's save in progress, or this process's, is left alone.
void removeStaleTemporaries(const fs::path& dir, const std::string& prefix)
{
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        const std::size_t at = name.rfind(".tmp-");
        if (at == std::string::npos || name.compare(0, prefix.size(), prefix) != 0) {
            continue;
        }
        const char* digits = name.c_str() + at + 5;
        long pid = 0;
        const auto [end, err] = std::from_chars(digits, name.c_str() + name.size(), pid);
        if (err != std::errc() || *end != '\0' || pid <= 0 || pid == ::getpid()) {
            continue;
        }
        const bool gone = pid > std::numeric_limits<pid_t>::max() ||
                          (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH);
        if (gone && entry.is_regular_file(ec)) {
            fs::remove(entry.path(), ec);
        }
    }
}

/// Checks the keys of a module object and returns its "type".
std::string moduleType(const nlohmann::json& j, const std::string& pointer)
{
    if (!j.is_object()) {
        fail(pointer, std::string("expected a module object, got ") + j.type_name());
    }
    for (const auto& [key, value] : j.items()) {
        if (key != "type" && key != "config" && key != "attributes" && key != "children" &&
            key != "name" && key != "connections") {
            fail(pointer + "/" + escapePointerToken(key),
                 "unknown key (expected type, config, attributes, children, connections, name)");
        }
    }
    if (!j.contains("type")) {
        fail(pointer, "missing \"type\" (the module type, e.g. \"LIF\")");
    }
    if (!j.at("type").is_string()) {
        fail(pointer + "/type", "expected a string naming the module type");
    }
    return j.at("type").get<std::string>();
}

std::unique_ptr<Module> buildModule(const nlohmann::json& j, const std::string& pointer,
                                    const std::string& baseDir);

void applyToBuiltChild(Module& child, const nlohmann::json& j, const std::string& pointer,
                       const std::string& baseDir);

void applyConnections(Module& module, const nlohmann::json& j, const std::string& pointer,
                      const std::string& baseDir);

/// Sets the file's attributes on `module`, then its children. `fixedChildren`: the children
/// were built by a constructor (a composite such as DynamicsNetwork), so the file's children are
/// matched onto them by name and their attributes set; otherwise they are built and attached.
void applyModuleJson(Module& module, const nlohmann::json& j, const std::string& pointer,
                     const std::string& baseDir, bool fixedChildren)
{
    const std::string type = module.className();
    if (j.contains("attributes")) {
        const auto& attrs = j.at("attributes");
        const std::string attrPointer = pointer + "/attributes";
        if (!attrs.is_object()) {
            fail(attrPointer, "expected an object mapping attribute names to values");
        }
        AttributeMap values;
        for (const auto& [name, value] : attrs.items()) {
            const std::string p = attrPointer + "/" + escapePointerToken(name);
            if (!module.hasAttribute(name)) {
                std::string names;
                for (const auto& v : module.attributes()) {
                    names += (names.empty() ? "" : ", ") + v.spec->name;
                }
                fail(p, "unknown attribute for " + type + " (attributes: " +
                            (names.empty() ? std::string("none") : names) + ")");
            }
            AttributeValue decoded = attributeFromJson(value, p, baseDir);
            if (Status s = module.spec(name).validate(decoded, type); !s.ok) {
                fail(p, s.message);
            }
            values.emplace(name, std::move(decoded));
        }
        if (Status s = module.setAttributes({{"", values}}); !s.ok) {
            fail(attrPointer, s.message);
        }
    }

    if (!j.contains("children")) {
        applyConnections(module, j, pointer, baseDir);
        return;
    }
    const auto& children = j.at("children");
    if (!children.is_array()) {
        fail(pointer + "/children", "expected a list of modules");
    }
    const ModuleTypeInfo* info = findModuleType(type);
    if (!fixedChildren && (info == nullptr || !info->container) && !children.empty()) {
        fail(pointer + "/children", type + " cannot hold child modules");
    }
    std::vector<std::string> seen;
    for (std::size_t i = 0; i < children.size(); ++i) {
        const std::string p = pointer + "/children/" + std::to_string(i);
        const auto& c = children[i];
        std::string name = std::to_string(i);
        if (c.is_object() && c.contains("name")) {
            if (!c.at("name").is_string()) {
                fail(p + "/name", "expected a string");
            }
            name = c.at("name").get<std::string>();
        }
        if (fixedChildren) {
            if (std::find(seen.begin(), seen.end(), name) != seen.end()) {
                fail(p + "/name", "child '" + name + "' of " + type + " appears twice");
            }
            seen.push_back(name);
            Module* target = nullptr;
            std::string names;
            for (const auto& [n, m] : module.namedChildren()) {
                names += (names.empty() ? "'" : ", '") + n + "'";
                if (n == name) {
                    target = m;
                }
            }
            if (target == nullptr) {
                fail(c.is_object() && c.contains("name") ? p + "/name" : p,
                     type + " builds its children from its config and has no child named '" +
                         name + "' (children: " + (names.empty() ? std::string("none") : names) +
                         ")");
            }
            applyToBuiltChild(*target, c, p, baseDir);
            continue;
        }
        std::unique_ptr<Module> child = buildModule(c, p, baseDir);
        try {
            attachChild(module, name, std::move(child));
        } catch (const Error& e) {
            fail(p, e.what());
        }
    }
    applyConnections(module, j, pointer, baseDir);
}

/// Reads a Network's "connections" list (after its nodes): {"name", "from", "to", "delayed",
/// "projection": module object}. Any other module type may not have the key.
void applyConnections(Module& module, const nlohmann::json& j, const std::string& pointer,
                      const std::string& baseDir)
{
    if (!j.contains("connections")) {
        return;
    }
    const std::string listPointer = pointer + "/connections";
    auto* net = dynamic_cast<Network*>(&module);
    if (net == nullptr) {
        fail(listPointer, module.className() + " has no connections (only a Network does)");
    }
    const auto& list = j.at("connections");
    if (!list.is_array()) {
        fail(listPointer, "expected a list of connections");
    }
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string p = listPointer + "/" + std::to_string(i);
        const auto& c = list[i];
        if (!c.is_object()) {
            fail(p, std::string("expected a connection object, got ") + c.type_name());
        }
        for (const auto& [key, value] : c.items()) {
            if (key != "name" && key != "from" && key != "to" && key != "delayed" &&
                key != "projection") {
                fail(p + "/" + escapePointerToken(key),
                     "unknown key (expected from, to, name, delayed, projection)");
            }
        }
        auto text = [&](const char* key, bool required) -> std::string {
            if (!c.contains(key)) {
                if (required) {
                    fail(p, std::string("missing \"") + key + "\" (an endpoint such as \"exc.spikes\")");
                }
                return {};
            }
            if (!c.at(key).is_string()) {
                fail(p + "/" + key, "expected a string");
            }
            return c.at(key).get<std::string>();
        };
        const std::string from = text("from", true);
        const std::string to = text("to", true);
        const std::string name = text("name", false);
        std::optional<bool> delayed;
        if (c.contains("delayed")) {
            if (!c.at("delayed").is_boolean()) {
                fail(p + "/delayed", "expected true or false");
            }
            delayed = c.at("delayed").get<bool>();
        }
        std::unique_ptr<Projection> projection;
        if (c.contains("projection")) {
            std::unique_ptr<Module> built = buildModule(c.at("projection"), p + "/projection", baseDir);
            if (dynamic_cast<Projection*>(built.get()) == nullptr) {
                fail(p + "/projection/type", built->className() +
                                                 " is not a projection (expected DenseProjection, "
                                                 "OneToOneProjection or SparseProjection)");
            }
            projection.reset(static_cast<Projection*>(built.release()));
        }
        try {
            net->connect(from, to, std::move(projection), name, delayed);
        } catch (const Error& e) {
            fail(p, e.what());
        }
    }
}

/// Applies a file's module object to a child its parent's constructor built: the type must be
/// the built one, config entries given must equal the built child's, then attributes and
/// children are set as for any module (the child's own children are fixed too).
void applyToBuiltChild(Module& child, const nlohmann::json& j, const std::string& pointer,
                       const std::string& baseDir)
{
    const std::string type = moduleType(j, pointer);
    const std::string parent = child.parent() != nullptr ? child.parent()->className() : "";
    if (type != child.className()) {
        fail(pointer + "/type", parent + " builds its child '" + child.name() + "' as " +
                                    child.className() + ", not " + type);
    }
    if (j.contains("config")) {
        const auto& config = j.at("config");
        if (!config.is_object()) {
            fail(pointer + "/config", "expected an object");
        }
        const nlohmann::json built = child.config();
        for (const auto& [key, value] : config.items()) {
            const std::string p = pointer + "/config/" + escapePointerToken(key);
            if (!built.is_object() || !built.contains(key)) {
                fail(p, "unknown config key for " + type);
            }
            if (built.at(key) != value) {
                fail(p, parent + " builds its child '" + child.name() + "' with " + key + " = " +
                            built.at(key).dump() + " (from its own config), not " + value.dump());
            }
        }
    }
    applyModuleJson(child, j, pointer, baseDir, true);
}

std::unique_ptr<Module> buildModule(const nlohmann::json& j, const std::string& pointer,
                                    const std::string& baseDir)
{
    if (moduleDepth(pointer) > kMaxModuleDepth) {
        fail(pointer, "modules nested more than " + std::to_string(kMaxModuleDepth) +
                          " levels deep (children of children ...); this build reads at most that");
    }
    const std::string type = moduleType(j, pointer);
    std::unique_ptr<Module> module;
    const nlohmann::json config = j.value("config", nlohmann::json::object());
    try {
        if (findModuleType(type) == nullptr) {
            (void)createModule(type, config);  // throws the "unknown type" message
        }
        module = createModule(type, config);
    } catch (const Error& e) {
        fail(pointer + (findModuleType(type) == nullptr ? "/type" : "/config"), e.what());
    }
    // A module whose constructor built children (a composite) keeps them.
    const bool fixedChildren = module->childCount() > 0;
    applyModuleJson(*module, j, pointer, baseDir, fixedChildren);
    return module;
}

nlohmann::json moduleJson(const Module& m, const std::string& path, const SaveOptions& options,
                          const std::string& baseDir, const std::string& arrayDir)
{
    nlohmann::json j;
    j["type"] = m.className();
    const nlohmann::json config = m.config();
    if (!config.empty()) {
        j["config"] = config;
    }
    nlohmann::json attrs = nlohmann::json::object();
    for (const auto& view : m.attributes()) {
        if (view.derived) {
            continue;
        }
        const auto* t = std::get_if<Tensor>(view.value);
        if (t != nullptr && !arrayDir.empty() && options.inlineLimit >= 0 &&
            t->numel() > options.inlineLimit) {
            const std::string file =
                (path.empty() ? std::string("root") : path) + "." + view.spec->name + ".npy";
            fs::create_directories(arrayDir);
            npy::save((fs::path(arrayDir) / file).string(), *t);
            const std::string rel =
                fs::relative(fs::path(arrayDir) / file, baseDir.empty() ? "." : baseDir)
                    .generic_string();
            attrs[view.spec->name] = {{"npy", rel}};
        } else {
            attrs[view.spec->name] = attributeToJson(*view.value);
        }
    }
    if (!attrs.empty()) {
        j["attributes"] = attrs;
    }
    const auto* net = dynamic_cast<const Network*>(&m);
    const auto children = net != nullptr ? net->nodes() : m.namedChildren();
    if (!children.empty()) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& [name, child] : children) {
            nlohmann::json cj = moduleJson(*child, path.empty() ? name : path + "." + name,
                                           options, baseDir, arrayDir);
            cj["name"] = name;
            list.push_back(std::move(cj));
        }
        j["children"] = std::move(list);
    }
    if (net != nullptr && !net->connections().empty()) {
        nlohmann::json list = nlohmann::json::array();
        for (const Connection& c : net->connections()) {
            nlohmann::json cj{{"name", c.name},
                              {"from", c.from.toString()},
                              {"to", c.to.toString()},
                              {"delayed", c.delayed}};
            if (c.hasProjection) {
                cj["projection"] = moduleJson(*net->projection(c.name),
                                              path.empty() ? c.name : path + "." + c.name,
                                              options, baseDir, arrayDir);
            }
            list.push_back(std::move(cj));
        }
        j["connections"] = std::move(list);
    }
    return j;
}

}  // namespace

ModelDocument modelFromJson(const nlohmann::json& doc, const std::string& sourceName,
                            const std::string& baseDir)
{
    try {
        if (!doc.is_object()) {
            fail("", "expected a JSON object with \"format\", \"version\" and \"model\"");
        }
        if (!doc.contains("format") || doc.at("format") != kFormatName) {
            fail("/format", std::string("expected \"") + kFormatName + "\"" +
                                (doc.contains("format") ? ", got " + doc.at("format").dump()
                                                        : " (missing)"));
        }
        if (!doc.contains("version") || !doc.at("version").is_number_integer()) {
            fail("/version", "expected the format version as a whole number");
        }
        const int version = doc.at("version").get<int>();
        if (version < 1 || version > kModelFormatVersion) {
            fail("/version", "version " + std::to_string(version) +
                                 " is not supported; this build reads versions 1 to " +
                                 std::to_string(kModelFormatVersion));
        }
        if (!doc.contains("model")) {
            fail("/model", "missing (the root module)");
        }
        ModelDocument out;
        out.root = buildModule(doc.at("model"), "/model", baseDir);
        for (const auto& [key, value] : doc.items()) {
            if (key != "format" && key != "version" && key != "model") {
                out.extras[key] = value;
            }
        }
        return out;
    } catch (const Error& e) {
        throw Error(sourceName + ": " + e.what());
    }
}

ModelDocument loadModelDocument(const std::string& path)
{
    const std::string text = readFile(path);
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error& e) {
        std::size_t line = 1;
        std::size_t column = 1;
        for (std::size_t i = 0; i + 1 < e.byte && i < text.size(); ++i) {
            if (text[i] == '\n') {
                ++line;
                column = 1;
            } else {
                ++column;
            }
        }
        // "[json.exception.parse_error.101] parse error at line 1, column 1: syntax error ...":
        // the reason is what follows the position.
        std::string reason = e.what();
        const auto position = reason.find("column ");
        const auto colon = reason.find(": ", position == std::string::npos ? 0 : position);
        if (colon != std::string::npos) {
            reason = reason.substr(colon + 2);
        }
        reason = printableReason(reason);
        throw Error(path + ": invalid JSON at line " + std::to_string(line) + ", column " +
                    std::to_string(column) + ": " + reason);
    } catch (const nlohmann::json::out_of_range& e) {
        // "[json.exception.out_of_range.406] number overflow parsing '1e912'": a number past a
        // double's range (the parser gives no position for it); the number cut to 16 characters.
        const std::string what = e.what();
        const auto quote = what.find('\'');
        std::string number = quote == std::string::npos ? std::string() : what.substr(quote);
        if (number.size() > 18) {
            number = number.substr(0, 17) + "...'";
        }
        throw Error(path + ": invalid JSON: number " + printableReason(number) +
                    " is too large (beyond a double's range)");
    }
    const std::string base = fs::path(path).parent_path().string();
    return modelFromJson(doc, path, base.empty() ? "." : base);
}

std::unique_ptr<Module> loadModel(const std::string& path)
{
    return loadModelDocument(path).root;
}

nlohmann::json modelToJson(const Module& root, const SaveOptions& options,
                           const std::string& baseDir, const std::string& arrayDir,
                           const nlohmann::json& extras)
{
    nlohmann::json doc;
    doc["format"] = kFormatName;
    doc["version"] = kModelFormatVersion;
    doc["model"] = moduleJson(root, "", options, baseDir, arrayDir);
    // Array temporaries of a save killed mid-write (the GUI's saves come through here too).
    if (std::error_code ec; !arrayDir.empty() && fs::is_directory(arrayDir, ec)) {
        removeStaleTemporaries(arrayDir, "");
    }
    for (const auto& [key, value] : extras.items()) {
        if (key != "format" && key != "version" && key != "model") {
            doc[key] = value;
        }
    }
    return doc;
}

void saveModel(const std::string& path, const Module& root, const SaveOptions& options,
               const nlohmann::json& extras)
{
    const fs::path p(path);
    const fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
    if (!fs::is_directory(dir)) {
        throw Error(path + ": cannot write: folder " + dir.string() + " does not exist");
    }
    const fs::path arrayDir = dir / (p.stem().string() + ".arrays");
    nlohmann::json doc;
    try {
        doc = modelToJson(root, options, dir.string(), arrayDir.string(), extras);
    } catch (const std::exception& e) {
        throw Error(path + ": " + e.what());
    }
    writeAtomically(path, doc.dump(2) + "\n");
    // What a save killed mid-write left behind (the old file stayed intact) goes now.
    removeStaleTemporaries(dir, p.filename().string() + ".tmp-");
}

StateDict loadStateDictFolder(const std::string& dir)
{
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) {
        throw Error(dir + ": not a folder of <key>.npy files");
    }
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        if (entry.is_regular_file() && entry.path().extension() == ".npy") {
            files.push_back(entry.path());
        }
    }
    if (ec) {
        throw Error(dir + ": cannot list folder: " + ec.message());
    }
    if (files.empty()) {
        throw Error(dir + ": contains no .npy files (expected one <key>.npy per state-dict key)");
    }
    std::sort(files.begin(), files.end());
    StateDict out;
    for (const auto& f : files) {
        out.emplace_back(f.stem().string(), npy::load(f.string()));
    }
    return out;
}

void saveStateDictFolder(const std::string& dir, const StateDict& dict)
{
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
        throw Error(dir + ": cannot create folder: " + ec.message());
    }
    for (const auto& [key, value] : dict) {
        npy::save((fs::path(dir) / (key + ".npy")).string(), value);
    }
}

}  // namespace spike::engine
