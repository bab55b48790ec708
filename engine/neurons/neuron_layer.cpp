// NeuronLayer: the batch loop and the helpers shared by neuron populations. See neuron_layer.hpp.
#include "engine/neurons/neuron_layer.hpp"

#include "engine/core/node_runner.hpp"
#include "engine/core/thread_pool.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace spike::engine {

NeuronLayer::NeuronLayer(std::vector<std::int64_t> shape, bool spikingInput, bool spikingOutput)
    : Module(std::move(shape), spikingInput, spikingOutput)
{
}

std::vector<std::string> NeuronLayer::recordableSignals() const
{
    std::vector<std::string> out;
    for (const auto& t : traces()) {
        out.push_back(t.name);
    }
    if (spikingOutput()) {
        out.emplace_back("spikes");
    }
    return out;
}

std::vector<PortSpec> NeuronLayer::outputPorts() const
{
    if (!spikingOutput()) {
        return Module::outputPorts();
    }
    return {PortSpec{"spikes", 0, sizeOut(), true}};
}

void NeuronLayer::prepareEvolve() {}

void NeuronLayer::runRange(const float* input, std::int64_t steps, float* spikesOut,
                           const TraceTargets& traces, std::int64_t begin, std::int64_t end)
{
    static_cast<void>(begin);
    static_cast<void>(end);
    runBatch(input, steps, spikesOut, traces);
}

void NeuronLayer::beginRanges(int parts)
{
    static_cast<void>(parts);
}

void NeuronLayer::endRanges(std::int64_t steps)
{
    static_cast<void>(steps);
}

namespace {

/// Parts are whole multiples of this many neurons (the spike scan's 64-channel blocks, and
/// whole cache lines of every state array).
constexpr std::int64_t kRangeAlign = 64;

}  // namespace

/// The runtime's runner of a neuron layer: the batch loop of evolveImpl() cut open, so the
/// working arrays persist between run() calls and one step costs no allocation.
class NeuronRunner : public NodeRunner {
public:
    explicit NeuronRunner(NeuronLayer& layer) : NodeRunner(layer), m_layer(&layer)
    {
        for (const auto& t : layer.traces()) {
            m_traces.push_back({t.name, t.step.numel(), t.units});
        }
        m_channels.resize(m_traces.size());
        m_targets.resize(m_traces.size());
    }

    std::vector<TraceInfo> traces() const override { return m_traces; }

    bool selectTraceChannels(std::size_t trace, const std::vector<std::int64_t>& channels) override
    {
        m_channels.at(trace) = channels;
        return true;
    }

    void load() override
    {
        if (threadPool() != nullptr) {
            m_partCounts.assign(static_cast<std::size_t>(threadPool()->threads() *
                                                         threadPoolMaxSteps()), 0);
        }
        m_carried = m_layer->carriedStates();
        for (const auto& c : m_carried) {
            const Tensor& stored = m_layer->value(c.state);
            c.work->resize(stored.numel());
            std::copy(stored.data(), stored.data() + stored.numel(), c.work->data());
        }
        m_layer->prepareEvolve();
    }

    bool consumeInput() override
    {
        m_consume = m_layer->canConsumeInput();
        return m_consume;
    }

    void run(const float* in, std::int64_t steps, float* out,
             const std::vector<float*>& traceTargets) override
    {
        const ConsumingScope consuming(*m_layer, m_consume);
        setTargets(traceTargets);
        const int parts = partsFor(steps);
        if (parts == 1) {
            m_layer->runBatch(in, steps, out, m_targets);
        } else {
            const std::int64_t n = m_layer->sizeOut();
            m_layer->beginRanges(parts);
            threadPool()->run(parts, [&](int p) {
                const auto [begin, end] = ThreadPool::splitRange(n, parts, p, kRangeAlign);
                m_layer->runRange(in, steps, out, m_targets, begin, end);
            });
            m_layer->endRanges(steps);
        }
        m_layer->advanceSteps(steps);
    }

    /// Split: each part lists its own neurons' spikes of each step at the start of its range
    /// within the list row (room enough: a range lists at most its own width), then the parts'
    /// lists are moved together in part order, which gives the ascending list of one scan.
    void runListing(const float* in, std::int64_t steps, float* out,
                    const std::vector<float*>& traceTargets,
                    const SpikeListTargets& lists) override
    {
        const int parts = partsFor(steps);
        if (parts == 1) {
            NodeRunner::runListing(in, steps, out, traceTargets, lists);
            return;
        }
        const ConsumingScope consuming(*m_layer, m_consume);
        setTargets(traceTargets);
        const std::int64_t n = m_layer->sizeOut();
        m_layer->beginRanges(parts);
        threadPool()->run(parts, [&](int p) {
            const auto [begin, end] = ThreadPool::splitRange(n, parts, p, kRangeAlign);
            m_layer->runRange(in, steps, out, m_targets, begin, end);
            std::int32_t* counts = m_partCounts.data() + p * steps;
            for (std::int64_t t = 0; t < steps; ++t) {
                std::int32_t* row = lists.indices + t * lists.stride + begin;
                const std::int32_t c = listNonZero(out + t * n + begin, end - begin, row);
                for (std::int32_t k = 0; k < c; ++k) {
                    row[k] += static_cast<std::int32_t>(begin);
                }
                counts[t] = c;
            }
        });
        for (std::int64_t t = 0; t < steps; ++t) {
            std::int32_t* row = lists.indices + t * lists.stride;
            std::int32_t total = 0;
            for (int p = 0; p < parts; ++p) {
                const std::int64_t begin = ThreadPool::splitRange(n, parts, p, kRangeAlign).first;
                const std::int32_t c = m_partCounts[static_cast<std::size_t>(p * steps + t)];
                if (begin != total) {
                    std::copy(row + begin, row + begin + c, row + total);
                }
                total += c;
            }
            lists.counts[t] = total;
        }
        m_layer->endRanges(steps);
        m_layer->advanceSteps(steps);
    }

    /// Spikes are sparse: the executor lists them per step for event-driven delivery.
    bool listsSpikes() const override { return m_layer->spikingOutput(); }

    void store() override
    {
        for (const auto& c : m_carried) {
            Tensor& stored = m_layer->stateRef(c.state);
            std::copy(c.work->data(), c.work->data() + c.work->size(), stored.data());
        }
    }

    std::vector<StateArray> workingStates() const override
    {
        std::vector<StateArray> out;
        const auto views = m_layer->attributes();
        for (const auto& c : m_carried) {
            out.push_back({views[static_cast<std::size_t>(c.state.index)].spec->name,
                           c.work->data(), static_cast<std::int64_t>(c.work->size())});
        }
        return out;
    }

private:
    /// The layer's consumingInput() for the duration of one run (false again after it, also
    /// when it throws, so evolve() never writes its caller's input).
    struct ConsumingScope {
        ConsumingScope(NeuronLayer& layer, bool consume) : layer(layer) { layer.m_consumingInput = consume; }
        ~ConsumingScope() { layer.m_consumingInput = false; }
        ConsumingScope(const ConsumingScope&) = delete;
        ConsumingScope& operator=(const ConsumingScope&) = delete;
        NeuronLayer& layer;
    };

    void setTargets(const std::vector<float*>& traceTargets)
    {
        for (std::size_t k = 0; k < m_targets.size(); ++k) {
            const std::vector<std::int64_t>& channels = m_channels[k];
            m_targets[k] = {traceTargets[k], channels.empty() ? nullptr : channels.data(),
                            static_cast<std::int64_t>(channels.size())};
        }
    }

    /// Into how many neuron ranges this run() splits (1: on the caller, through runBatch()).
    int partsFor(std::int64_t steps) const
    {
        ThreadPool* pool = threadPool();
        if (pool == nullptr || pool->threads() < 2 || steps > threadPoolMaxSteps() ||
            !m_layer->runsInRanges()) {
            return 1;
        }
        const std::int64_t n = m_layer->sizeOut();
        const auto work = static_cast<std::int64_t>(static_cast<double>(n * steps) * m_layer->workPerNeuronStep());
        const int byWork = pool->partsFor(work, threadPoolMinWork());
        return std::min<int>(byWork, static_cast<int>(std::max<std::int64_t>(1, n / kRangeAlign)));
    }

    NeuronLayer* m_layer;
    std::vector<TraceInfo> m_traces;
    std::vector<std::vector<std::int64_t>> m_channels;  ///< per trace; empty = whole rows
    NeuronLayer::TraceTargets m_targets;                ///< scratch for runBatch()
    std::vector<NeuronLayer::CarriedState> m_carried;
    std::vector<std::int32_t> m_partCounts;  ///< threads × maxSteps: spikes per part and step
    bool m_consume = false;                  ///< consumeInput() was granted
};

std::unique_ptr<NodeRunner> NeuronLayer::makeRunner()
{
    return std::make_unique<NeuronRunner>(*this);
}

Tensor NeuronLayer::evolveImpl(const TensorView& input, const Recorder& recorder)
{
    const std::int64_t batches = input.dim(0);
    const std::int64_t steps = input.dim(1);
    const std::int64_t n = sizeOut();
    const std::int64_t nIn = sizeIn();
    Tensor output(Shape{batches, steps, n});

    const std::vector<Trace> offered = traces();
    std::vector<Tensor> recorded(offered.size());
    std::vector<bool> wanted(offered.size(), false);
    for (std::size_t k = 0; k < offered.size(); ++k) {
        if (recorder.wants(offered[k].name)) {
            wanted[k] = true;
            recorded[k] = Tensor(offered[k].step.prepended(steps).prepended(batches));
        }
    }

    const std::vector<CarriedState> carried = carriedStates();
    for (const auto& c : carried) {
        c.work->resize(value(c.state).numel());
    }
    prepareEvolve();

    std::vector<Tensor> finals(carried.size());
    TraceTargets targets(offered.size());
    for (std::int64_t b = 0; b < batches; ++b) {
        for (const auto& c : carried) {
            const Tensor& stored = value(c.state);
            std::copy(stored.data(), stored.data() + stored.numel(), c.work->data());
        }
        for (std::size_t k = 0; k < offered.size(); ++k) {
            targets[k].data = wanted[k]
                                  ? recorded[k].data() + b * steps * offered[k].step.numel()
                                  : nullptr;
        }
        runBatch(input.data() + b * steps * nIn, steps, output.data() + b * steps * n, targets);
        if (b == 0) {
            for (std::size_t k = 0; k < carried.size(); ++k) {
                const Eigen::ArrayXf& w = *carried[k].work;
                finals[k] = Tensor(value(carried[k].state).shape(),
                                   std::vector<float>(w.data(), w.data() + w.size()));
            }
        }
    }
    if (batches > 0) {
        for (std::size_t k = 0; k < carried.size(); ++k) {
            stateRef(carried[k].state) = std::move(finals[k]);
        }
    }

    for (std::size_t k = 0; k < offered.size(); ++k) {
        if (wanted[k]) {
            recorder.record(offered[k].name, std::move(recorded[k]), offered[k].units, false);
        }
    }
    if (spikingOutput() && recorder.wants("spikes")) {
        recorder.record("spikes", output, "", true);
    }
    return output;
}

std::vector<Shape> NeuronLayer::perNeuronShapes() const
{
    return {Shape{}, Shape{1}, Shape{sizeOut()}};
}

AttributeBuilder NeuronLayer::timeStepAttribute()
{
    return std::move(simulationParameter("dt").units("s").positive().initConstant(kDefaultTimeStep)
                         .doc("Simulation time step"));
}

void NeuronLayer::expandTo(const Tensor& t, std::int64_t n, std::int64_t nsyn, Eigen::ArrayXf& out)
{
    out.resize(n * nsyn);
    if (t.numel() == 1) {
        out.setConstant(t[0]);
    } else if (t.numel() == n) {
        for (std::int64_t i = 0; i < n; ++i) {
            out.segment(i * nsyn, nsyn).setConstant(t[i]);
        }
    } else {
        std::copy(t.data(), t.data() + n * nsyn, out.data());
    }
}

std::optional<float> NeuronLayer::wholeSteps(float time, float dt)
{
    const double ratio = static_cast<double>(time) / static_cast<double>(dt);
    const double steps = std::nearbyint(ratio);
    if (std::abs(ratio - steps) > 4.0 * FLT_EPSILON * std::max(std::abs(steps), 1.0)) {
        return std::nullopt;
    }
    return static_cast<float>(steps);
}

std::string NeuronLayer::number(double v)
{
    return describeValue(Tensor::scalar(static_cast<float>(v)));
}

bool NeuronLayer::allEqual(const Eigen::ArrayXf& a)
{
    return a.size() == 0 || (a == a[0]).all();
}

}  // namespace spike::engine
