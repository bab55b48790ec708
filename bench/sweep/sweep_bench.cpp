// sweep_bench: engine::parameterSweep's wide population against one copy per grid point, on the
// issue's case: a 20 x 20 sweep (tau_mem x bias) of a 100-neuron LIF layer over 1 s (1000 steps of
// 1 ms) at a constant input. "One copy per point" is what the sweep falls back to (a clone with the
// point's values set, from rest, one evolve() each), written out here so both run the same
// numbers; the program checks that they agree bit for bit. Reports the best of --repeat runs and
// the ratio.
//   build/bench/sweep_bench [--neurons N] [--count C] [--repeat R]
#include "engine/analysis/parameter_sweep.hpp"
#include "engine/io/model_clone.hpp"
#include "engine/neurons/lif.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>

using namespace spike::engine;  // NOLINT: benchmark program

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// The rates of every grid point, one copy per point (what parameterSweep does without the
/// wide population).
std::vector<double> perPoint(const Module& m, const SweepResult& grid, const SweepOptions& o)
{
    std::vector<double> rates;
    const std::int64_t steps = *o.steps;
    const double dt = m.timeStep();
    const Tensor input(Shape{steps, m.sizeIn()}, static_cast<float>(o.current));
    for (double x : grid.x) {
        for (double y : grid.y) {
            auto copy = cloneModule(m);
            const Status s = copy->setAttributes(
                {{"", {{o.axes[0].attribute, Tensor::scalar(static_cast<float>(x))},
                       {o.axes[1].attribute, Tensor::scalar(static_cast<float>(y))}}}});
            if (!s.ok) {
                throw Error(s.message);
            }
            copy->resetState();
            const Tensor out = copy->evolve(input).output;
            double count = 0.0;
            for (std::int64_t i = 0; i < out.numel(); ++i) {
                count += out[i];
            }
            rates.push_back(count / (static_cast<double>(m.sizeOut()) *
                                     (static_cast<double>(steps) * dt)));
        }
    }
    return rates;
}

}  // namespace

int main(int argc, char** argv)
{
    CLI::App app{"sweep_bench: parameter sweep, wide population vs one copy per point"};
    std::int64_t neurons = 100;
    std::int64_t count = 20;
    int repeat = 3;
    app.add_option("--neurons", neurons, "LIF layer size")->check(CLI::Range(1, 100000));
    app.add_option("--count", count, "values per axis (count x count points)")
        ->check(CLI::Range(2, 300));
    app.add_option("--repeat", repeat, "runs; the best is reported")->check(CLI::Range(1, 100));
    CLI11_PARSE(app, argc, argv);

    const LIF lif(neurons, neurons);
    SweepOptions o;
    o.axes = {{"tau_mem", 0.01, 0.05, count}, {"bias", 0.0, 0.05, count}};
    o.current = 0.01;
    o.steps = 1000;
    SweepResult wide;
    std::vector<double> single;
    double bestWide = 1e30;
    double bestSingle = 1e30;
    for (int r = 0; r < repeat; ++r) {
        auto t0 = Clock::now();
        wide = parameterSweep(lif, o);
        bestWide = std::min(bestWide, seconds(t0));
        t0 = Clock::now();
        single = perPoint(lif, wide, o);
        bestSingle = std::min(bestSingle, seconds(t0));
    }
    const bool same = single == wide.values;
    const double neuronSteps = static_cast<double>(count * count * neurons) * 1000.0;
    std::printf("LIF %lld neurons, %lld x %lld points x 1000 steps (%s):\n",
                static_cast<long long>(neurons), static_cast<long long>(count),
                static_cast<long long>(count), wide.widePopulation ? "wide" : "NOT wide");
    std::printf("  wide population    %.3f s (%.3g neuron-steps/s)\n", bestWide,
                neuronSteps / bestWide);
    std::printf("  one copy per point %.3f s (%.3g neuron-steps/s)\n", bestSingle,
                neuronSteps / bestSingle);
    std::printf("  ratio %.2fx; rates %s\n", bestSingle / bestWide,
                same ? "identical" : "DIFFER (a bug)");
    return same ? 0 : 1;
}
