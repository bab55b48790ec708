// fi_bench: engine::fiCurve's speed on the case - a 50-point f-I curve of a 1000-neuron
// LIF layer over 1 s (1000 steps of 1 ms), target under 0.5 s on one core - and on a single
// LIFRefrac neuron at dt = 10 us (100 000 steps per current). Reports the best of --repeat runs,
// with and without the rheobase refinement (two more sweeps of 15 currents).
//   build/bench/fi_bench [--neurons N] [--count C] [--repeat R]
#include "engine/analysis/fi_curve.hpp"
#include "engine/neurons/lif.hpp"
#include "engine/neurons/lif_refrac.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>

using namespace spike::engine;  // NOLINT: benchmark program

namespace {

double bestSeconds(const Module& m, const FiOptions& o, int repeat, FiCurve& out)
{
    double best = 1e30;
    for (int r = 0; r < repeat; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        out = fiCurve(m, o);
        const auto t1 = std::chrono::steady_clock::now();
        best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
    }
    return best;
}

}  // namespace

int main(int argc, char** argv)
{
    CLI::App app{"fi_bench: f-I curve speed"};
    std::int64_t neurons = 1000;
    std::int64_t count = 50;
    int repeat = 3;
    app.add_option("--neurons", neurons, "LIF layer size")->check(CLI::Range(1, 100000));
    app.add_option("--count", count, "currents")->check(CLI::Range(1, 100000));
    app.add_option("--repeat", repeat, "runs; the best is reported")->check(CLI::Range(1, 100));
    CLI11_PARSE(app, argc, argv);

    const LIF lif(neurons, neurons);
    FiOptions o;
    o.start = 0.0;
    o.stop = 0.05;
    o.count = count;
    FiCurve c;
    o.refineRheobase = false;
    const double plain = bestSeconds(lif, o, repeat, c);
    o.refineRheobase = true;
    const double refined = bestSeconds(lif, o, repeat, c);
    const double steps = static_cast<double>(count) * static_cast<double>(neurons) *
                         static_cast<double>(c.steps);
    std::printf("LIF %lld neurons, %lld currents x %lld steps: %.3f s (%.3g neuron-steps/s); "
                "with the rheobase refined %.3f s (target < 0.5 s)\n",
                static_cast<long long>(neurons), static_cast<long long>(count),
                static_cast<long long>(c.steps), plain, steps / plain, refined);

    const LIFRefrac refrac(1, {{"dt", Tensor::scalar(1e-5F)}});
    o.stop = 0.01;
    const double single = bestSeconds(refrac, o, repeat, c);
    std::printf("LIFRefrac 1 neuron at dt 10 us, %lld currents x %lld steps: %.3f s\n",
                static_cast<long long>(count), static_cast<long long>(c.steps), single);
    return 0;
}
