// responsiveness_bench: how long SpikeStudio's window stops answering during its long
// operations, offscreen (QT_QPA_PLATFORM=offscreen). A heartbeat timer fires every millisecond
// on the GUI thread; the longest gap between two beats while an operation runs is the longest
// time the event loop was blocked (a user's click or a repaint waited that long). Operations,
// each started from the event loop the way the menus start them, and followed for 300 ms after
// it reports done (work it left to the event loop counts too):
//   open <example>   File ▸ Examples for every bundled example (dynamics_network.json, 426 kB,
//                    is the largest file);
//   open big         a generated model: 10,000 CUBALIF neurons and a recurrent SparseProjection
//                    with in_degree --in-degree (default 100: 10^6 synapses; 1000 gives 10^7);
//   open dense       a model whose DenseProjection holds a 6000 x 6000 weight matrix in a
//                    .npy file beside it (144 MB: parsing, reading and building it takes
//                    seconds);
//   run cuba / big   Run pressed on the CUBA example and on the big model, until the first
//                    steps arrive (building the run: copying the model, the synapses, the
//                    worker's execution plan);
//   backend          the backend switched to CUDA and back (CUDA is refused at once where no
//                    device is present; the row says so).
// Prints, per operation, the wall time until done and the longest block, against the target of
// 100 ms (issue #21). No assertions; results are in bench/README.md.
#include "ui/window/main_window.hpp"

#include "engine/tensor/npy.hpp"
#include "engine/tensor/tensor.hpp"

#include <CLI/CLI.hpp>

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTimer>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>

using spike::ui::MainWindow;

namespace {

constexpr double kTargetMs = 100.0;
constexpr int kSettleMs = 300;

/// The longest gap between beats of a 1 ms timer since reset().
class Heartbeat {
public:
    Heartbeat()
    {
        m_timer.setTimerType(Qt::PreciseTimer);
        m_timer.setInterval(1);
        QObject::connect(&m_timer, &QTimer::timeout, [this] { beat(); });
        m_timer.start();
        m_clock.start();
    }
    void reset()
    {
        m_last = m_clock.nsecsElapsed();
        m_maxGapNs = 0;
    }
    double maxGapMs() const { return static_cast<double>(m_maxGapNs) * 1e-6; }

private:
    void beat()
    {
        const qint64 now = m_clock.nsecsElapsed();
        m_maxGapNs = std::max(m_maxGapNs, now - m_last);
        m_last = now;
    }
    QTimer m_timer;
    QElapsedTimer m_clock;
    qint64 m_last = 0;
    qint64 m_maxGapNs = 0;
};

/// Starts `start` from the event loop, spins it until `done` says so (or 60 s), then 300 ms
/// more; prints the wall time to done and the longest block.
void measure(Heartbeat& beat, const char* name, const std::function<void()>& start,
             const std::function<bool()>& done, const char* note = "")
{
    QElapsedTimer wall;
    beat.reset();
    wall.start();
    QTimer::singleShot(0, start);
    while (!done() && wall.elapsed() < 60000) {
        QApplication::processEvents(QEventLoop::AllEvents, 5);
    }
    const double toDone = static_cast<double>(wall.nsecsElapsed()) * 1e-6;
    QElapsedTimer settle;
    settle.start();
    while (settle.elapsed() < kSettleMs) {
        QApplication::processEvents(QEventLoop::AllEvents, 5);
    }
    const double block = beat.maxGapMs();
    std::printf("%-44s %10.1f %12.1f   %s%s\n", name, toDone, block, block <= kTargetMs ? "met" : "MISSED", note);
}

/// 10,000 CUBALIF neurons driven by 200 Poisson channels at 20 Hz and a recurrent
/// SparseProjection with in_degree `inDegree` (10^4 x inDegree synapses, weight 50 / inDegree).
nlohmann::json bigModel(int inDegree)
{
    using J = nlohmann::json;
    J model{{"type", "Network"}};
    model["children"] = J::array({{{"name", "drive"}, {"type", "PoissonSource"}, {"config", {{"shape", {200}}}},
                                   {"attributes", {{"rate", 20.0}}}},
                                  {{"name", "E"}, {"type", "CUBALIF"}, {"config", {{"shape", {10000}}}}}});
    const auto sparse = [](int from, int to, int inDegree, double weight, int seed) {
        return J{{"type", "SparseProjection"}, {"config", {{"shape", {from, to}}}},
                 {"attributes", {{"rule", "in_degree"}, {"in_degree", inDegree}, {"weight", weight}, {"seed", seed}}}};
    };
    model["connections"] = J::array(
        {{{"name", "drive_to_E"}, {"from", "drive.out"}, {"to", "E.exc"}, {"projection", sparse(200, 10000, 10, 2.0, 1)}},
         {{"name", "E_to_E"}, {"from", "E.spikes"}, {"to", "E.exc"}, {"delayed", true},
          {"projection", sparse(10000, 10000, inDegree, 50.0 / inDegree, 2)}}});
    return J{{"format", "spikestudio.model"}, {"version", 1}, {"model", model}};
}

}  // namespace

int main(int argc, char** argv)
{
    CLI::App cli{"responsiveness_bench: the longest event-loop block of SpikeStudio's long operations"};
    int inDegree = 100;
    cli.add_option("--in-degree", inDegree, "Sources per neuron of the big model's projection (10^4 x this synapses)")
        ->check(CLI::Range(1, 10000));
    CLI11_PARSE(cli, argc, argv);
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("SpikeStudioBench"));
    QTemporaryDir dir;
    const QString big = dir.filePath(QStringLiteral("big_network.json"));
    {
        QFile f(big);
        if (!f.open(QIODevice::WriteOnly) || f.write(QByteArray::fromStdString(bigModel(inDegree).dump())) < 0) {
            std::fprintf(stderr, "responsiveness_bench: cannot write %s\n", qPrintable(big));
            return 1;
        }
    }
    // 6000 LIF neurons into 6000 through a dense 6000 x 6000 projection, weights from a .npy.
    const QString dense = dir.filePath(QStringLiteral("dense_network.json"));
    {
        constexpr std::int64_t n = 6000;
        spike::engine::Tensor weights(spike::engine::Shape{n, n});
        for (std::int64_t i = 0; i < weights.numel(); ++i) {
            weights[i] = 1e-3F * static_cast<float>((i * 7919) % 13 - 6);
        }
        spike::engine::npy::save(dir.filePath(QStringLiteral("w.npy")).toStdString(), weights);
        using J = nlohmann::json;
        J model{{"type", "Network"}};
        model["children"] = J::array({{{"name", "A"}, {"type", "LIF"}, {"config", {{"shape", {n, n}}}}},
                                      {{"name", "B"}, {"type", "LIF"}, {"config", {{"shape", {n, n}}}}}});
        model["connections"] = J::array({{{"name", "A_to_B"}, {"from", "A.spikes"}, {"to", "B.in"},
                                          {"projection", {{"type", "DenseProjection"}, {"config", {{"shape", {n, n}}}},
                                                          {"attributes", {{"weight", {{"npy", "w.npy"}}}}}}}}});
        QFile f(dense);
        const J file{{"format", "spikestudio.model"}, {"version", 1}, {"model", model}};
        if (!f.open(QIODevice::WriteOnly) || f.write(QByteArray::fromStdString(file.dump())) < 0) {
            std::fprintf(stderr, "responsiveness_bench: cannot write %s\n", qPrintable(dense));
            return 1;
        }
    }
    MainWindow w;
    w.resize(1400, 900);
    w.show();
    Heartbeat beat;
    std::printf("Longest event-loop block per operation (target <= %.0f ms), offscreen\n", kTargetMs);
    std::printf("%-44s %10s %12s\n", "operation", "done [ms]", "block [ms]");

    const auto opened = [&w](const QString& path) {
        return [&w, path] { return w.modelSource() == path; };
    };
    const char* examples[] = {"lif_current_step", "lif_vs_lifrefrac", "poisson_feedforward", "two_layer_lif",
                              "cuba_network", "dynamics_network_driven", "dynamics_network"};
    for (const char* name : examples) {
        const QString path = QStringLiteral(":/examples/%1.json").arg(QLatin1String(name));
        measure(beat, qPrintable(QStringLiteral("open %1").arg(QLatin1String(name))),
                [&w, path] { w.openModel(path); }, opened(path));
    }
    const auto runUntilSteps = [&](const char* label, const QString& path) {
        QString error;
        measure(beat, qPrintable(QStringLiteral("open %1").arg(QLatin1String(label))),
                [&w, path, &error] {
                    if (!w.openModel(path, &error)) {
                        std::fprintf(stderr, "responsiveness_bench: %s\n", qPrintable(error));
                    }
                },
                [&] { return !error.isEmpty() || w.modelSource() == path; });
        if (!error.isEmpty()) {
            return;
        }
        measure(beat, qPrintable(QStringLiteral("run %1 to its first steps").arg(QLatin1String(label))),
                [&w] { w.action(QStringLiteral("action.run"))->trigger(); },
                [&w] { return w.simulatedSteps() > 0; });
        if (w.isRunning()) {
            w.action(QStringLiteral("action.run"))->trigger();  // pause
        }
    };
    runUntilSteps("cuba", QStringLiteral(":/examples/cuba_network.json"));
    runUntilSteps("dense (6000 x 6000 weights, 144 MB)", dense);
    const std::string bigLabel = "big (" + std::to_string(10000LL * inDegree) + " synapses)";
    runUntilSteps(bigLabel.c_str(), big);

    QComboBox* backend = w.backendComboBox();
    const int cuda = backend->findText(QStringLiteral("CUDA"));
    const bool cudaUsable = cuda >= 0 && (backend->model()->flags(backend->model()->index(cuda, 0)) & Qt::ItemIsEnabled);
    if (cudaUsable) {
        measure(beat, "backend CPU -> CUDA", [backend, cuda] { backend->setCurrentIndex(cuda); },
                [backend, cuda] { return backend->currentIndex() == cuda; });
        measure(beat, "backend CUDA -> CPU", [backend] { backend->setCurrentIndex(0); },
                [backend] { return backend->currentIndex() == 0; });
    } else {
        std::printf("%-44s %10s %12s   no CUDA device here: the choice is disabled\n", "backend switch", "-", "-");
    }
    return 0;
}
