// soak_bench: does a long run keep its memory flat? Two models run 10^6 steps each under the
// SimulationController (the GUI's and the headless runner's path: worker thread, chunks, probe
// buffers drained by a consumer as the plots drain them, the NaN scan), as fast as possible:
//   cuba   Brian2's CUBA network (bench/cuba/cuba_network.hpp: 4000 CUBALIF neurons, sparse
//          recurrent projections, dt 0.1 ms), probes on E's and I's spikes and 100 of E's v;
//   lif    a 10^5-neuron LIF layer driven by a ConstantCurrent (dt 1 ms), probes on its spikes
//          and 100 of its vmem.
// Every 10^5 steps it prints the resident memory (VmRSS of /proc/self/status) and the spikes the
// consumer drained; at the end the growth after warm-up (the first report) and whether it stays
// within --limit MiB (default 4). Exit status 1 when a model grew beyond it. No peer; the
// numbers are in bench/README.md. Not a test (it takes minutes).
#include "bench/cuba/cuba_network.hpp"

#include "engine/io/module_factory.hpp"
#include "engine/network/network.hpp"
#include "engine/runtime/simulation_controller.hpp"

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace spike;  // NOLINT: benchmark program

/// VmRSS of this process [MiB].
double residentMiB()
{
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key) {
        if (key == "VmRSS:") {
            double kib = 0.0;
            status >> kib;
            return kib / 1024.0;
        }
        status.ignore(1 << 12, '\n');
    }
    return 0.0;
}

std::unique_ptr<engine::Module> lifLayer(std::int64_t n)
{
    auto net = std::make_unique<engine::Network>(0, 0);
    auto current = engine::createModule("ConstantCurrent", {{"shape", {n}}});
    engine::Tensor amplitude(engine::Shape{n});
    for (std::int64_t i = 0; i < n; ++i) {
        amplitude[i] = 0.01F + 0.04F * static_cast<float>(i % 100) / 100.0F;
    }
    if (!current->setAttributes(engine::NestedAttributes{{"", {{"amplitude", amplitude}}}}).ok) {
        throw engine::Error("soak_bench: cannot set the current");
    }
    net->addNode("current", std::move(current));
    net->addNode("lif", engine::createModule("LIF", {{"shape", {n, n}}}));
    net->connect("current", "lif");
    return net;
}

struct Soak {
    std::string name;
    std::function<std::unique_ptr<engine::Module>()> build;
    std::vector<engine::ProbeRequest> probes;
};

/// Runs `s` for `steps`, reporting every `every`; returns the growth after the first report [MiB].
double soak(const Soak& s, std::int64_t steps, std::int64_t every)
{
    engine::SimulationController controller(s.build());
    std::vector<engine::ProbeId> probes;
    for (const auto& request : s.probes) {
        probes.push_back(controller.addProbe(request));
    }
    std::int64_t spikes = 0;
    std::int64_t rows = 0;
    std::int64_t dropped = 0;
    const auto drain = [&] {
        for (const auto id : probes) {
            if (auto snapshot = controller.takeProbe(id)) {
                spikes += static_cast<std::int64_t>(snapshot->events.size());
                rows += snapshot->values.empty() ? 0 : snapshot->steps;
                dropped += snapshot->dropped;
            }
        }
        for (const auto& event : controller.takeEvents()) {
            if (event.kind == engine::ControllerEvent::Kind::Error ||
                event.kind == engine::ControllerEvent::Kind::NonFinitePause) {
                throw engine::Error("soak_bench: " + s.name + ": " + event.message);
            }
        }
    };
    std::printf("%-5s %10s %10s %14s %12s %10s\n", "model", "step", "RSS MiB", "spikes", "rows",
                "wall s");
    const auto start = std::chrono::steady_clock::now();
    double first = 0.0;
    double last = 0.0;
    for (std::int64_t done = 0; done < steps; done += every) {
        controller.step(every);
        // Drain while it runs, as the plots do (every 20 ms), until the target is reached.
        while (controller.currentStep() < done + every) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            drain();
        }
        controller.waitIdle(std::chrono::milliseconds(10000));
        drain();
        last = residentMiB();
        if (done == 0) {
            first = last;
        }
        const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("%-5s %10lld %10.1f %14lld %12lld %10.1f\n", s.name.c_str(),
                    static_cast<long long>(done + every), last, static_cast<long long>(spikes),
                    static_cast<long long>(rows), wall);
        std::fflush(stdout);
    }
    std::printf("%-5s dropped by the bounded probe buffers: %lld\n", s.name.c_str(),
                static_cast<long long>(dropped));
    return last - first;
}

}  // namespace

int main(int argc, char** argv)
{
    CLI::App app{"soak_bench: resident memory over 10^6 steps under the SimulationController"};
    std::int64_t steps = 1000000;
    std::int64_t every = 100000;
    std::int64_t lifNeurons = 100000;
    double limit = 4.0;
    std::string only;
    app.add_option("--steps", steps, "Steps per model (default 10^6)")->check(CLI::PositiveNumber);
    app.add_option("--every", every, "Steps between reports (default 10^5)")->check(CLI::PositiveNumber);
    app.add_option("--lif-neurons", lifNeurons, "Size of the LIF layer (default 10^5)")->check(CLI::PositiveNumber);
    app.add_option("--limit", limit, "Largest growth after warm-up accepted [MiB] (default 4)");
    app.add_option("--only", only, "Run one model: cuba or lif")->check(CLI::IsMember({"cuba", "lif"}));
    CLI11_PARSE(app, argc, argv);

    std::vector<engine::ProbeRequest> lifProbes{{"lif", "spikes", {}}, {"lif", "vmem", {}}};
    for (std::int64_t i = 0; i < 100; ++i) {
        lifProbes[1].indices.push_back(i * (lifNeurons / 100));
    }
    std::vector<engine::ProbeRequest> cubaProbes{{"E", "spikes", {}}, {"I", "spikes", {}}, {"E", "v", {}}};
    for (std::int64_t i = 0; i < 100; ++i) {
        cubaProbes[2].indices.push_back(i * 32);
    }
    const std::vector<Soak> soaks{
        {"cuba", [] { return std::unique_ptr<engine::Module>(bench::cuba::buildNetwork(1, true)); }, cubaProbes},
        {"lif", [lifNeurons] { return lifLayer(lifNeurons); }, lifProbes},
    };
    int status = 0;
    for (const Soak& s : soaks) {
        if (!only.empty() && s.name != only) {
            continue;
        }
        const double growth = soak(s, steps, std::min(every, steps));
        const bool flat = growth <= limit;
        std::printf("%-5s growth after warm-up: %.1f MiB (limit %.1f): %s\n\n", s.name.c_str(), growth,
                    limit, flat ? "flat" : "GREW");
        status |= flat ? 0 : 1;
    }
    return status;
}
