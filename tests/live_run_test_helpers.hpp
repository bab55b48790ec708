// Shared by the LiveRun tests (test_live_run, test_live_run_rebuild, test_live_run_spikes): the
// bundled examples as modules, a small Poisson-driven network, the engine-only reference
// recording, and the comparison of a live series with rows of that reference.
#pragma once

#include "engine/neurons/lif.hpp"
#include "engine/io/model_io.hpp"
#include "engine/network/network.hpp"
#include "engine/core/recording.hpp"
#include "engine/sources/sources.hpp"

#include <QFile>
#include <QString>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstring>
#include <memory>

namespace spike::tests {

/// Longest wait for a LiveRun to become idle in a test.
inline constexpr auto kLiveRunWait = std::chrono::seconds(120);

/// A bundled example (":/examples/NAME") as JSON; null when it is missing.
inline nlohmann::json exampleJson(const QString& name)
{
    QFile file(QStringLiteral(":/examples/") + name);
    if (!file.open(QIODevice::ReadOnly)) {
        return {};
    }
    return nlohmann::json::parse(file.readAll().toStdString());
}

/// A bundled example as a module tree (throws engine::Error when it does not load).
inline std::unique_ptr<engine::Module> loadExample(const QString& name)
{
    return engine::modelFromJson(exampleJson(name), name.toStdString(), ".").root;
}

/// Poisson source "src" (6 channels, 300 Hz, seed 3) driving LIF "lif" one to one, in a Network.
inline std::unique_ptr<engine::Module> poissonNetwork()
{
    constexpr std::int64_t n = 6;
    auto net = std::make_unique<engine::Network>();
    net->addNode("src", std::make_unique<engine::PoissonSource>(
                            n, engine::AttributeMap{{"rate", engine::Tensor::scalar(300.0F)},
                                                    {"seed", engine::Tensor::scalar(3.0F)}}));
    net->addNode("lif", std::make_unique<engine::LIF>(
                            n, n, false, engine::AttributeMap{{"tau_syn", engine::Tensor::scalar(0.005F)}}));
    net->connect("src", "lif");
    return net;
}

/// What evolve() of `model` over `steps` steps of zero input records (everything).
inline engine::Recording evolveAll(std::unique_ptr<engine::Module> model, std::int64_t steps)
{
    return model->evolve(engine::Tensor(engine::Shape{steps, model->sizeIn()}), engine::RecordSpec(true))
        .record;
}

/// "" when `live` holds exactly rows [from, to) of `ref` (same shape, same bits, tStart and dt
/// of that span, same spikes flag); else what differs.
inline QString compareSeries(const engine::TimeSeries& live, const engine::TimeSeries& ref, std::int64_t from,
                             std::int64_t to)
{
    const std::int64_t width = ref.data.numel() / ref.data.dim(0);
    if (live.data.rank() != 2 || live.data.dim(0) != to - from || live.data.dim(1) != width) {
        return QStringLiteral("shape %1, expected (%2, %3)")
            .arg(QString::fromStdString(live.data.shape().toString()))
            .arg(to - from)
            .arg(width);
    }
    if (std::memcmp(live.data.data(), ref.data.data() + from * width,
                    static_cast<std::size_t>((to - from) * width) * sizeof(float)) != 0) {
        return QStringLiteral("values differ");
    }
    if (live.dt != ref.dt || live.tStart != static_cast<double>(from) * ref.dt || live.spikes != ref.spikes) {
        return QStringLiteral("time base %1 + %2 or spikes flag differ").arg(live.tStart).arg(live.dt);
    }
    return {};
}

}  // namespace spike::tests
