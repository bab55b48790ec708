// nir_bench: opening a NIR file as the issue sizes it - a 10^6-weight Affine (100 inputs x 10^4)
// feeding a 10^4-neuron LIF, target under one second from file to runnable network - and the way
// back (export + write). The peer reads the same file the way the NIR library's nir.read does
// (h5py, every dataset into numpy; bench/nir/h5py_peer.py), in the same run, when python3-h5py
// is installed. Reports the best of --repeat runs.
//   build/bench/nir_bench [--inputs N] [--neurons N] [--repeat R]
#include "bench_common.hpp"

#include "engine/nir/nir_export.hpp"
#include "engine/nir/nir_file.hpp"
#include "engine/nir/nir_import.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include <unistd.h>

using namespace spike::engine;  // NOLINT: benchmark program
namespace fs = std::filesystem;

namespace {

nir::NirValue floats(std::vector<std::int64_t> shape, std::int64_t n, spike::bench::SplitMix64& rng)
{
    nir::NirArray a;
    a.type = nir::ArrayType::Float32;
    a.shape = std::move(shape);
    a.values.resize(static_cast<std::size_t>(n));
    for (auto& v : a.values) {
        v = static_cast<float>(rng.symmetric());
    }
    return nir::NirValue::ofArray(std::move(a));
}

nir::NirValue constant(std::int64_t n, double value)
{
    nir::NirArray a;
    a.type = nir::ArrayType::Float32;
    a.shape = {n};
    a.values.assign(static_cast<std::size_t>(n), value);
    return nir::NirValue::ofArray(std::move(a));
}

nir::NirValue shapeOf(std::int64_t n)
{
    nir::NirArray a;
    a.type = nir::ArrayType::Int64;
    a.shape = {1};
    a.values = {static_cast<double>(n)};
    return nir::NirValue::ofArray(std::move(a));
}

nir::NirFile makeFile(std::int64_t inputs, std::int64_t neurons)
{
    spike::bench::SplitMix64 rng(7);
    nir::NirFile f;
    f.version = nir::kDefaultNirVersion;
    nir::NirNode in{"input", "Input", {{"shape", shapeOf(inputs)}}, nullptr};
    nir::NirNode fc{"fc", "Affine",
                    {{"weight", floats({neurons, inputs}, neurons * inputs, rng)},
                     {"bias", floats({neurons}, neurons, rng)}},
                    nullptr};
    nir::NirNode lif{"lif", "LIF",
                     {{"tau", constant(neurons, 0.02)}, {"r", constant(neurons, 1.0)},
                      {"v_leak", constant(neurons, 0.0)}, {"v_threshold", constant(neurons, 1.0)},
                      {"v_reset", constant(neurons, 0.0)}},
                     nullptr};
    nir::NirNode out{"output", "Output", {{"shape", shapeOf(neurons)}}, nullptr};
    f.graph.nodes = {fc, in, lif, out};
    f.graph.edges = {{"input", "fc"}, {"fc", "lif"}, {"lif", "output"}};
    return f;
}

template <typename F>
double best(int repeat, F&& f)
{
    double b = 1e30;
    for (int r = 0; r < repeat; ++r) {
        const auto t0 = spike::bench::Clock::now();
        f();
        b = std::min(b, spike::bench::secondsSince(t0));
    }
    return b;
}

}  // namespace

int main(int argc, char** argv)
{
    CLI::App app{"nir_bench: opening and writing NIR files"};
    std::int64_t inputs = 100;
    std::int64_t neurons = 10000;
    int repeat = 5;
    app.add_option("--inputs", inputs, "Affine inputs")->check(CLI::Range(1, 100000));
    app.add_option("--neurons", neurons, "LIF neurons (Affine outputs)")->check(CLI::Range(1, 1000000));
    app.add_option("--repeat", repeat, "runs; the best is reported")->check(CLI::Range(1, 100));
    CLI11_PARSE(app, argc, argv);

    const fs::path dir = fs::temp_directory_path() / ("nir_bench_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string path = (dir / "model.nir").string();
    nir::writeNirFile(path, makeFile(inputs, neurons));
    const auto size = fs::file_size(path);

    nir::NirFile file;
    const double read = best(repeat, [&] { file = nir::readNirFile(path); });
    std::unique_ptr<Module> root;
    const double import = best(repeat, [&] { root = nir::importNir(file, path).root; });
    const double open = best(repeat, [&] { root = nir::loadNir(path).root; });
    const std::string back = (dir / "back.nir").string();
    const double save = best(repeat, [&] { nir::saveNir(back, *root); });

    std::printf("NIR file: Affine %lld x %lld (%lld weights) -> LIF %lld, %.1f MiB, load %s\n",
                static_cast<long long>(neurons), static_cast<long long>(inputs),
                static_cast<long long>(neurons * inputs), static_cast<long long>(neurons),
                static_cast<double>(size) / (1024.0 * 1024.0), spike::bench::loadAverage().c_str());
    std::printf("  read (HDF5 -> NIR graph)      %8.4f s\n", read);
    std::printf("  import (graph -> network)     %8.4f s\n", import);
    std::printf("  open (both, as File > Open)   %8.4f s   target < 1 s\n", open);
    std::printf("  export + write                %8.4f s\n", save);

    const std::string peer = std::string("python3 ") + SPIKE_BENCH_DIR "/nir/h5py_peer.py " + path +
                             " " + std::to_string(repeat) + " 2>&1";
    const auto [status, text] = spike::bench::runCommand(peer);
    if (status == 0) {
        const double h5py = std::stod(text);
        std::printf("  peer: h5py reading every dataset as nir.read does  %8.4f s  (read ratio %.2fx)\n",
                    h5py, h5py / read);
    } else {
        std::printf("  peer: h5py not run (%s)\n", text.substr(0, text.find('\n')).c_str());
    }
    fs::remove_all(dir);
    return 0;
}
