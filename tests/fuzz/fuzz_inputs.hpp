// What each fuzz target does with one input, as functions the libFuzzer targets
// (tests/fuzz/fuzz_*.cpp) and the regular regression test (tests/test_fuzz_regressions.cpp)
// share, so a committed finding replays exactly as the fuzzer ran it. Each returns the outcome
// as text: one line per step that was tried, the engine::Error message of a refused input
// (which names the file, JSON pointer, line or option at fault) or "ok". Files are written into
// `dir` under fixed names (model.json, input.npz, state/<key>.npy, input.nir), so messages name
// <dir>/<file>. Anything other than an engine::Error (or CLI11's ParseError for option values)
// escapes: a crash, a sanitizer report or another exception is a finding. Single thread.
#pragma once

#include "engine/analysis/fi_curve.hpp"
#include "engine/analysis/parameter_sweep.hpp"
#include "engine/analysis/phase_plane.hpp"
#include "engine/analysis/range_text.hpp"
#include "engine/equations/compiler.hpp"
#include "engine/equations/model.hpp"
#include "engine/equations/population.hpp"
#include "engine/io/model_clone.hpp"
#include "engine/io/model_io.hpp"
#include "engine/nir/nir_import.hpp"
#include "engine/tensor/error.hpp"
#include "engine/tensor/npy.hpp"
#include "engine/tensor/npz.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace spike::fuzz {

/// Writes `bytes` to `path` (replacing it); aborts when it cannot, since every later input would
/// then test nothing.
inline void writeFile(const std::filesystem::path& path, std::string_view bytes)
{
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    f.flush();
    if (!f) {
        std::abort();
    }
}

/// Evolves `root` for two steps of zero input when its input is small; "ok" or the message.
inline std::string evolveTwoSteps(engine::Module& root)
{
    const std::int64_t n = root.sizeIn();
    if (n <= 0 || n > (1 << 16)) {
        return "ok (not evolved: input size " + std::to_string(n) + ")";
    }
    try {
        (void)root.evolve(engine::Tensor(engine::Shape({1, 2, n}), 0.0f));
        return "ok";
    } catch (const engine::Error& e) {
        return e.what();
    }
}

// ---- JSON model files -----------------------------------------------------------------------

/// Product of the whole numbers in [2, 1e8] anywhere inside `j`.
inline double sizeProduct(const nlohmann::json& j)
{
    if (j.is_number()) {
        const double v = std::fabs(j.get<double>());
        return v >= 2 && v <= 1e8 && v == std::floor(v) ? v : 1.0;
    }
    double p = 1.0;
    if (j.is_structured()) {
        for (const auto& item : j) {
            p *= sizeProduct(item);
        }
    }
    return p;
}

/// Sum of sizeProduct over every "config" object inside `j`.
inline double requestedValues(const nlohmann::json& j)
{
    double sum = 0.0;
    if (j.is_object()) {
        for (const auto& [key, value] : j.items()) {
            sum += key == "config" ? sizeProduct(value) : requestedValues(value);
        }
    } else if (j.is_array()) {
        for (const auto& item : j) {
            sum += requestedValues(item);
        }
    }
    return sum;
}

/// The harness's size cap (not the engine's): a valid model may ask for up to
/// Tensor::kMaxElements values per tensor, more than a fuzzing process holds under
/// -rss_limit_mb=2048. A text whose "config" objects ask for over 2^22 values in all (product
/// of the whole numbers 2..1e8 in each config, summed) is skipped; numbers above the engine's
/// per-size guard (1e8) do not count, so inputs the guard must refuse still run.
inline bool modelTooBigToFuzz(std::string_view text)
{
    const auto parsed = nlohmann::json::parse(text, nullptr, false);
    return !parsed.is_discarded() && requestedValues(parsed) > double(1 << 22);
}

/// <dir>/model.json read by engine::loadModelDocument (the GUI's Open, `spikesim info/run`);
/// a model that loads is cloned, serialised again and evolved two steps.
inline std::string modelJson(std::string_view bytes, const std::filesystem::path& dir)
{
    const auto path = dir / "model.json";
    writeFile(path, bytes);
    try {
        engine::ModelDocument doc = engine::loadModelDocument(path.string());
        const auto copy = engine::cloneModule(*doc.root);
        (void)engine::modelToJson(*copy).dump();
        return evolveTwoSteps(*doc.root);
    } catch (const engine::Error& e) {
        return e.what();
    }
}

// ---- .npy and .npz --------------------------------------------------------------------------

/// npy::parse of the bytes ("input.npy" in messages); a tensor that parses is serialised and
/// must read back with its shape. Bytes starting "PK" are also written as <dir>/input.npz and
/// read by npz::load (a second line).
inline std::string npyOrNpz(std::string_view bytes, const std::filesystem::path& dir)
{
    std::string out;
    try {
        const engine::Tensor t = engine::npy::parse(std::string(bytes), "input.npy");
        const engine::Tensor back = engine::npy::parse(engine::npy::serialize(t), "again.npy");
        if (back.shape() != t.shape()) {
            std::abort();  // a written file must read back as itself
        }
        out = "ok";
    } catch (const engine::Error& e) {
        out = e.what();
    }
    if (bytes.size() >= 2 && bytes[0] == 'P' && bytes[1] == 'K') {
        const auto path = dir / "input.npz";
        writeFile(path, bytes);
        try {
            (void)engine::npz::load(path.string());
            out += "\nok";
        } catch (const engine::Error& e) {
            out += "\n" + std::string(e.what());
        }
    }
    return out;
}

// ---- state-dict folders ---------------------------------------------------------------------

/// A state-dict folder loaded into a small fixed model (Linear 4 -> 3, LIF of 3, LSTM 3 -> 2).
/// The bytes are split before every .npy magic ("\x93NUMPY") after the first byte; each piece
/// becomes <dir>/state/<key>.npy, keys taken in turn from the model's own state dict (from index
/// size modulo their count), then "extra_<i>". The folder is read (engine::loadStateDictFolder,
/// `spikesim run --state-dict`) and loaded, strictly for an even size; then two steps evolve.
inline std::string stateDict(std::string_view bytes, const std::filesystem::path& dir)
{
    namespace fs = std::filesystem;
    static const char* const kModel = R"({"format": "spikestudio.model", "version": 1, "model":
      {"type": "Sequential", "children": [
        {"name": "fc", "type": "Linear", "config": {"in_features": 4, "out_features": 3}},
        {"name": "lif", "type": "LIF", "config": {"shape": [3]}},
        {"name": "rnn", "type": "LSTM", "config": {"input_size": 3, "hidden_size": 2}}]}})";
    auto model = engine::modelFromJson(nlohmann::json::parse(kModel), "fixed", ".");
    std::vector<std::string> keys;
    for (const auto& [key, value] : model.root->stateDict()) {
        keys.push_back(key);
    }
    std::vector<std::string_view> pieces;
    const std::string_view magic("\x93NUMPY", 6);
    std::size_t start = 0;
    for (std::size_t at = bytes.find(magic, 1); at != std::string_view::npos; at = bytes.find(magic, at + 1)) {
        pieces.push_back(bytes.substr(start, at - start));
        start = at;
    }
    pieces.push_back(bytes.substr(start));
    const fs::path folder = dir / "state";
    std::error_code ec;
    fs::remove_all(folder, ec);
    fs::create_directory(folder);
    const std::size_t first = bytes.size() % keys.size();
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        const std::string key = i < keys.size() ? keys[(first + i) % keys.size()] : "extra_" + std::to_string(i);
        writeFile(folder / (key + ".npy"), pieces[i]);
    }
    try {
        const engine::StateDict dict = engine::loadStateDictFolder(folder.string());
        const auto result = model.root->loadStateDict(dict, bytes.size() % 2 == 0);
        if (!result.status.ok) {
            if (result.status.message.empty()) {
                std::abort();  // a refusal must say why
            }
            return result.status.message;
        }
        return evolveTwoSteps(*model.root);
    } catch (const engine::Error& e) {
        return e.what();
    }
}

// ---- spikesim's option values ---------------------------------------------------------------

/// The input's lines (at most 64).
inline std::vector<std::string> lines(std::string_view text)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    while (out.size() < 64) {
        const std::size_t end = text.find('\n', start);
        out.emplace_back(text.substr(start, end == std::string_view::npos ? text.npos : end - start));
        if (end == std::string_view::npos) {
            break;
        }
        start = end + 1;
    }
    return out;
}

/// Every line through the engine's parsers of option values (parseCurrentRange for
/// `fi --current`, parseSweepAxis for `sweep --param`, parsePhaseRange for `phase --range`; one
/// outcome line each), then all lines as argv to a CLI11 app with spikesim's numeric options,
/// same types and checks as app/spikesim_main.cpp (declared again: spikesim's main() is not a
/// library); its outcome is the last line, "ok" or CLI11's message (what spikesim prints).
inline std::string cliValues(std::string_view bytes, const std::filesystem::path& /*dir*/)
{
    using namespace spike::engine;
    const std::vector<std::string> args = lines(bytes);
    std::string out;
    const auto attempt = [&out](auto&& parse) {
        try {
            parse();
            out += "ok\n";
        } catch (const Error& e) {
            out += std::string(e.what()) + "\n";
        }
    };
    for (const auto& line : args) {
        attempt([&] { FiOptions o; parseCurrentRange(line, o); });
        attempt([&] {
            SweepAxis axis;
            parseSweepAxis(line, axis);
            if (axis.attribute.empty()) {
                std::abort();  // NAME= must name something
            }
        });
        attempt([&] { PhasePlaneOptions o; parsePhaseRange(line, o); });
    }
    CLI::App app{"spikesim option values"};
    std::int64_t steps = 0;
    std::int64_t seed = -1;
    std::int64_t grid = 21;
    double realtime = 0.0;
    double current = 0.0;
    std::vector<std::string> params;
    nir::NirImportOptions nirOptions;
    app.add_option("--steps", steps)->check(CLI::Range(std::int64_t{1}, std::int64_t{1000000000}));
    app.add_option("--seed", seed)->check(CLI::Range(std::int64_t{0}, std::int64_t{16777216}));
    app.add_option("--grid", grid);
    app.add_option("--realtime", realtime)->check(CLI::Range(1e-6, 1e6));
    app.add_option("--current", current);
    app.add_option("--param", params);
    app.add_option("--dt", nirOptions.dt)->check(CLI::Range(1e-9, 1e3));
    app.add_option("--discretisation", nirOptions.discretisation)->check(CLI::IsMember(nir::discretisations()));
    app.add_option("--time-unit", nirOptions.timeUnit)->check(CLI::IsMember(nir::timeUnits()));
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes argv reversed
    try {
        app.parse(reversed);
        out += "ok";
    } catch (const CLI::ParseError& e) {
        out += e.what();
    }
    return out;
}

// ---- .nir files -----------------------------------------------------------------------------

/// <dir>/input.nir read by nir::loadNir (readNirFile, then importNir: the GUI's Open,
/// `spikesim info/run/convert`), the last byte choosing discretisation and time unit; a graph
/// that imports evolves two steps. HDF5 is not instrumented: a crash inside it is a finding too.
inline std::string nirFile(std::string_view bytes, const std::filesystem::path& dir)
{
    const auto path = dir / "input.nir";
    writeFile(path, bytes);
    engine::nir::NirImportOptions options;
    const unsigned pick = bytes.empty() ? 0U : static_cast<unsigned char>(bytes.back());
    const auto& ways = engine::nir::discretisations();
    const auto& units = engine::nir::timeUnits();
    options.discretisation = ways[pick % ways.size()];
    options.timeUnit = units[(pick / 8) % units.size()];
    try {
        engine::nir::NirImport imported = engine::nir::loadNir(path.string(), options);
        return evolveTwoSteps(*imported.root);
    } catch (const engine::Error& e) {
        return e.what();
    }
}

// ---- equation texts -------------------------------------------------------------------------

/// The text parsed and checked (equations::parseModel, the GUI's equation editor and .model
/// files); a model that passes is compiled at its own dt (or 0.1 ms) with the default method and
/// then each applicable one, and each compiled model runs five steps on two neurons with every
/// input port at 1e-3. One outcome line for the parse, one per method tried.
inline std::string equationText(std::string_view bytes, const std::filesystem::path& /*dir*/)
{
    using namespace spike::engine::equations;
    EquationModel model;
    try {
        model = parseModel(std::string(bytes));
    } catch (const engine::Error& e) {
        return e.what();
    }
    std::string out = "ok";
    const double dt = model.dt > 0.0 && model.dt <= 1.0 ? model.dt : 1e-4;
    std::vector<std::string> methods{""};
    for (const auto& m : applicableMethods(model)) {
        methods.push_back(m);
    }
    for (const auto& method : methods) {
        try {
            Population pop(compileModel(model, dt, method), 2);
            pop.parametersChanged();
            pop.initialise();
            const std::vector<float> drive(2, 1e-3f);
            const std::vector<const float*> inputs(model.inputs.size(), drive.data());
            for (int k = 0; k < 5; ++k) {
                pop.step(inputs.empty() ? nullptr : inputs.data(), k * dt);
            }
            out += "\nok";
        } catch (const engine::Error& e) {
            out += "\n" + std::string(e.what());
        }
    }
    return out;
}

}  // namespace spike::fuzz
