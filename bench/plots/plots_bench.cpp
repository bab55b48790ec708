// plots_bench: the live plots under load, offscreen (QT_QPA_PLATFORM=offscreen). One LIF layer
// of --neurons neurons (default 10^5), no input, a per-neuron bias spread above and below the
// threshold and membrane noise, so they fire irregularly; dt = 1 ms. Three runs of --steps steps
// as fast as possible, each from the same initial state:
//   engine  the SimulationController alone, no probes (what spikesim does without recording);
//   drain   a LiveRun recording the layer's spikes and the membrane of --traces neurons into
//           its rolling window every --refresh-ms, nothing drawn;
//   gui     the same LiveRun with a spike raster and a trace pane of the --traces membranes in a
//           shown window, redrawn whenever new samples were drained (LiveRun::updated).
// Prints steps/s of each run, frames per second and frame times of the gui run, and the
// slowdown of drain and gui against engine. No assertions; results are in bench/README.md.
#include "ui/run/live_run.hpp"
#include "ui/window/plot_sources.hpp"
#include "ui/plots/raster_plot.hpp"
#include "ui/plots/trace_plot.hpp"

#include "engine/io/model_io.hpp"
#include "engine/runtime/simulation_controller.hpp"

#include <CLI/CLI.hpp>

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QVBoxLayout>
#include <QWidget>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

using namespace spike;
using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point a, Clock::time_point b)
{
    return std::chrono::duration<double>(b - a).count();
}

/// The benchmark's model: LIF layer "layer" of `neurons` neurons in a Network, biases drawn
/// (seeded) from [0.04, 0.06] (the membrane settles at about 20 x bias: rates from noise-driven
/// to about 30 Hz, 10-15 Hz on average), noise 0.3, dt 1 ms.
std::unique_ptr<engine::Module> benchModel(int neurons)
{
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> bias(0.04F, 0.06F);
    Json biases = Json::array();
    for (int i = 0; i < neurons; ++i) {
        biases.push_back(bias(rng));
    }
    Json layer{{"name", "layer"},
               {"type", "LIF"},
               {"config", {{"shape", {neurons}}, {"has_rec", false}}},
               {"attributes",
                {{"tau_mem", 0.02}, {"tau_syn", 0.005}, {"threshold", 1.0}, {"dt", 0.001},
                 {"noise_std", 0.3}, {"bias", {{"shape", {neurons}}, {"data", biases}}}}}};
    Json model{{"type", "Network"}, {"config", {{"input_size", 0}, {"output_size", 0}}},
               {"children", {layer}}, {"connections", Json::array()}};
    const Json file{{"format", "spikestudio.model"}, {"version", 1}, {"model", model}};
    return engine::modelFromJson(file, "plots_bench model", ".").root;
}

/// The engine alone: steps/s over `steps` steps.
double engineRate(int neurons, std::int64_t steps)
{
    engine::SimulationController controller(benchModel(neurons));
    const auto t0 = Clock::now();
    controller.step(steps);
    controller.waitIdle(std::chrono::minutes(30));
    return static_cast<double>(controller.currentStep()) / seconds(t0, Clock::now());
}

struct GuiResult {
    double stepsPerSecond = 0.0;
    int frames = 0;
    double wall = 0.0;
    double frameMean = 0.0;  ///< [ms] showSpikes + showTraces + replot
    double frameMax = 0.0;
    double rasterMs = 0.0;   ///< [ms] mean RasterPlot::showSpikes
    double tracesMs = 0.0;   ///< [ms] mean TracePlot::showTraces
    double replotMs = 0.0;   ///< [ms] mean replot of both
    std::int64_t dropped = 0;
    std::int64_t window = 0;
    std::int64_t spikeSteps = 0;   ///< steps of the layer's spike window at the end
    std::int64_t spikeEvents = 0;  ///< events in it
};

/// A LiveRun over `steps` steps; drawn when `draw`.
GuiResult liveRate(int neurons, int traces, std::int64_t steps, int refreshMs, bool draw)
{
    ui::LiveRunOptions options;
    options.refreshIntervalMs = refreshMs;
    ui::LiveRun run(benchModel(neurons), QStringLiteral("layer"), options);
    std::vector<std::int64_t> traced(static_cast<std::size_t>(traces));
    std::iota(traced.begin(), traced.end(), 0);
    run.setTrace(QStringLiteral("layer"), "vmem", traced);

    QWidget window;
    auto* layout = new QVBoxLayout(&window);
    auto* raster = new ui::RasterPlot;
    auto* trace = new ui::TracePlot;
    layout->addWidget(raster, 1);
    layout->addWidget(trace, 1);
    window.resize(1400, 900);
    if (draw) {
        window.show();
    }
    GuiResult result;
    std::vector<double> frameMs;
    QEventLoop loop;
    QObject::connect(&run, &ui::LiveRun::updated, [&] {
        if (run.currentStep() >= steps) {
            loop.quit();
        }
        if (!draw) {
            return;
        }
        QElapsedTimer frame;
        frame.start();
        raster->showSpikes(spike::ui::rasterModulesOf(run.plotModel()), run.spikeWindows(), run.timeStep());
        const qint64 tRaster = frame.nsecsElapsed();
        if (const engine::TimeSeries* series = run.traceSeries(run.primaryTraceId())) {
            trace->showTraces(spike::ui::traceSourceOf(run.plotModel().getSubmodule("layer")), QStringLiteral("layer"),
                              QStringLiteral("vmem"), *series, true, traced);
        }
        const qint64 tTraces = frame.nsecsElapsed();
        trace->xAxis->setRange(raster->xAxis->range());
        raster->replot();
        trace->replot();
        const qint64 tEnd = frame.nsecsElapsed();
        result.rasterMs += static_cast<double>(tRaster) * 1e-6;
        result.tracesMs += static_cast<double>(tTraces - tRaster) * 1e-6;
        result.replotMs += static_cast<double>(tEnd - tTraces) * 1e-6;
        frameMs.push_back(static_cast<double>(tEnd) * 1e-6);
    });
    const auto t0 = Clock::now();
    run.run();
    loop.exec();
    const auto t1 = Clock::now();
    run.pause();
    result.wall = seconds(t0, t1);
    result.stepsPerSecond = static_cast<double>(run.currentStep()) / result.wall;
    result.frames = static_cast<int>(frameMs.size());
    if (!frameMs.empty()) {
        const auto frames = static_cast<double>(frameMs.size());
        result.rasterMs /= frames;
        result.tracesMs /= frames;
        result.replotMs /= frames;
        result.frameMean = std::accumulate(frameMs.begin(), frameMs.end(), 0.0) / static_cast<double>(frameMs.size());
        result.frameMax = *std::max_element(frameMs.begin(), frameMs.end());
    }
    result.dropped = run.droppedSamples();
    result.window = run.window();
    for (const engine::NamedSpikeWindow& named : run.spikeWindows()) {
        result.spikeSteps += named.window->steps();
        result.spikeEvents += named.window->eventCount();
    }
    return result;
}

}  // namespace

int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    CLI::App cli{"Live plots under load: frames per second and simulation slowdown (offscreen)"};
    int neurons = 100000;
    int traces = 1000;
    std::int64_t steps = 20000;
    int refreshMs = 16;
    cli.add_option("--neurons", neurons, "neurons in the layer (raster rows)")->check(CLI::Range(1000, 10000000));
    cli.add_option("--traces", traces, "membrane traces streamed")->check(CLI::Range(1, 100000));
    cli.add_option("--steps", steps, "steps per run (dt = 1 ms)")->check(CLI::Range(100, 100000000));
    cli.add_option("--refresh-ms", refreshMs, "GUI drain and redraw period [ms]")->check(CLI::Range(1, 1000));
    CLI11_PARSE(cli, argc, argv);
    traces = std::min(traces, neurons);
    QApplication app(argc, argv);

    try {
        std::printf("LIF layer of %d neurons, %d membrane traces, %lld steps (dt = 1 ms), redraw every %d ms\n",
                    neurons, traces, static_cast<long long>(steps), refreshMs);
        const double engine = engineRate(neurons, steps);
        std::printf("engine alone          %10.0f steps/s\n", engine);
        const GuiResult drain = liveRate(neurons, traces, steps, refreshMs, false);
        std::printf("recorded, not drawn   %10.0f steps/s   slowdown %5.1f %%   window %lld steps, dropped %lld\n",
                    drain.stepsPerSecond, 100.0 * (1.0 - drain.stepsPerSecond / engine),
                    static_cast<long long>(drain.window), static_cast<long long>(drain.dropped));
        const GuiResult gui = liveRate(neurons, traces, steps, refreshMs, true);
        std::printf("recorded and drawn    %10.0f steps/s   slowdown %5.1f %%   window %lld steps, dropped %lld\n",
                    gui.stepsPerSecond, 100.0 * (1.0 - gui.stepsPerSecond / engine),
                    static_cast<long long>(gui.window), static_cast<long long>(gui.dropped));
        std::printf("spike window          %10lld steps, %lld events at the end of the gui run (mean rate %.1f Hz)\n",
                    static_cast<long long>(gui.spikeSteps), static_cast<long long>(gui.spikeEvents),
                    gui.spikeSteps > 0 ? static_cast<double>(gui.spikeEvents) /
                                             (static_cast<double>(gui.spikeSteps) * 1e-3 * neurons)
                                       : 0.0);
        std::printf("frames                %10d in %.2f s = %.1f fps   frame mean %.2f ms, max %.2f ms\n", gui.frames,
                    gui.wall, gui.frames / gui.wall, gui.frameMean, gui.frameMax);
        std::printf("frame parts (mean)    raster %.2f ms, traces %.2f ms, replot %.2f ms\n", gui.rasterMs,
                    gui.tracesMs, gui.replotMs);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "plots_bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
