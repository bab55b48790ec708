// HeadlessRun: chunk sizing, probes (recordings and spike counters), the run loop with its
// non-finite check, and the O(spikes) spike count. See headless_run.hpp.
#include "engine/runtime/headless_run.hpp"

#include <algorithm>
#include <cstdint>

namespace spike::engine {

namespace {

/// Adds row t's listed entries of (steps, width) rows to `sum`, in row and list order: the
/// lists' own values when they carry them (then `rows` is not read), else the rows' entries.
double addListed(double sum, const float* rows, const SpikeLists& lists, std::int64_t steps,
                 std::int64_t width)
{
    for (std::int64_t t = 0; t < steps; ++t) {
        const std::int32_t* listed = lists.indices + t * lists.stride;
        if (lists.values != nullptr) {
            const float* values = lists.values + t * lists.stride;
            for (std::int32_t k = 0; k < lists.counts[t]; ++k) {
                sum += values[k];
            }
            continue;
        }
        const float* row = rows + t * width;
        for (std::int32_t k = 0; k < lists.counts[t]; ++k) {
            sum += row[listed[k]];
        }
    }
    return sum;
}

/// Whether any of x[0..n) is non-zero (NaN counts). Branch-free so the compiler vectorises it.
bool anyNonZero(const float* __restrict x, std::int64_t n)
{
    int any = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        any |= static_cast<int>(x[i] != 0.0F);
    }
    return any != 0;
}

/// Adds every entry of `count` floats to `sum` in order, skipping blocks of 64 that are all zero
/// (spikes are rare): the same sum as adding every entry (a zero adds nothing to a double) and as
/// addListed(), with the serial chain of double adds run over the blocks with spikes only.
double addAll(double sum, const float* data, std::int64_t count)
{
    constexpr std::int64_t kBlock = 64;
    for (std::int64_t i0 = 0; i0 < count; i0 += kBlock) {
        const std::int64_t n = std::min(kBlock, count - i0);
        if (!anyNonZero(data + i0, n)) {
            continue;
        }
        for (std::int64_t i = i0; i < i0 + n; ++i) {
            sum += data[i];
        }
    }
    return sum;
}

}  // namespace

HeadlessRun::HeadlessRun(Module& root, const HeadlessRunOptions& options)
    : m_root(root), m_options(options)
{
    std::int64_t chunk = options.speed.paced() ? 1024 : 32;
    if (options.progress && options.steps > 0) {
        chunk = std::clamp<std::int64_t>(options.steps / 100, 1, chunk);
    }
    ExecutorOptions executorOptions;
    executorOptions.maxChunkSteps =
        options.steps > 0 ? std::min(chunk, options.steps) : chunk;
    if (!options.speed.paced() && !options.progress) {
        executorOptions.deviceMaxChunkSteps =
            options.steps > 0 ? std::min<std::int64_t>(256, options.steps) : 256;
    }
    executorOptions.spikeLists = options.spikeLists;
    executorOptions.threads = options.threads;
    m_executor = makeExecutor(root, options.backend, executorOptions, &m_note);
}

HeadlessRun::~HeadlessRun() = default;

std::vector<ProbeInfo> HeadlessRun::record(const std::vector<ProbeRequest>& requests)
{
    // The recordings, then one spike counter per neuron population (spiking modules that take
    // input; stimulus sources have none), each reading the population's whole output.
    std::vector<ProbeRequest> all = requests;
    std::int64_t neurons = 0;
    for (const PlanNode& node : m_executor->plan().nodes) {
        if (node.role == PlanNode::Role::Module && node.module->spikingOutput() &&
            node.sizeIn > 0) {
            all.push_back({node.path, "out", {}});
            neurons += node.sizeOut;
        }
    }
    std::vector<ProbeInfo> infos = m_executor->setProbes(all);
    m_requests = std::move(all);
    m_recorded = requests.size();
    m_infos = infos;
    m_neurons = neurons;
    m_probesSet = true;
    infos.resize(m_recorded);
    return infos;
}

HeadlessRunResult HeadlessRun::run(const float* input, std::int64_t steps,
                                   const Progress& progress)
{
    if (!m_probesSet) {
        record({});
    }
    HeadlessRunResult result;
    result.neurons = m_neurons;
    result.recordings.resize(m_recorded);
    const std::int64_t nIn = m_root.sizeIn();
    RunLoopOptions loopOptions;
    loopOptions.speed = m_options.speed;
    loopOptions.checkFinite = true;
    RunLoop loop(loopOptions);
    double spikes = 0.0;
    const auto start = RunLoop::Clock::now();
    const RunOutcome outcome = loop.runTo(
        *m_executor, 0, steps, RunRows{nIn > 0 ? input : nullptr, nIn, nullptr, 0},
        [&](std::int64_t t0, std::int64_t n) {
            for (std::size_t k = 0; k < m_requests.size(); ++k) {
                const std::int64_t width = m_infos[k].width;
                if (k < m_recorded) {
                    const float* data = m_executor->probeData(k);
                    result.recordings[k].insert(result.recordings[k].end(), data,
                                                data + n * width);
                } else if (const std::optional<SpikeLists> lists = m_executor->probeSpikeLists(k)) {
                    // Lists with values (CUDA) need no dense rows: none are fetched.
                    const float* data = lists->values != nullptr ? nullptr : m_executor->probeData(k);
                    spikes = addListed(spikes, data, *lists, n, width);
                } else {
                    spikes = addAll(spikes, m_executor->probeData(k), n * width);
                }
            }
            if (progress) {
                progress(t0 + n);
            }
        });
    result.seconds = std::chrono::duration<double>(RunLoop::Clock::now() - start).count();
    result.steps = outcome.steps;
    result.spikes = spikes;
    result.nonFinite = outcome.nonFinite;
    return result;
}

}  // namespace spike::engine
