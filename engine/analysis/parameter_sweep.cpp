// parameterSweep(): the options, the grid, its chunks run as one wide population
// (wide_population.hpp) or one copy per grid point, and the measures (parameter_sweep.hpp).
// Thread: whichever thread calls it; it touches only its own copies of the module.
#include "engine/analysis/parameter_sweep.hpp"

#include "engine/analysis/driven_port.hpp"
#include "engine/analysis/range_text.hpp"

#include "engine/analysis/spike_statistics.hpp"
#include "engine/analysis/wide_population.hpp"
#include "engine/core/node_runner.hpp"
#include "engine/io/model_clone.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace spike::engine {

namespace {

/// Most step-channels one grid point may run (warm-up and measured steps x channels), as fiCurve.
constexpr std::int64_t kMaxStepChannels = 100000000;
/// Chunks a sweep is split into at most (progress reports and cancel points).
constexpr std::int64_t kChunks = 10;
/// Most spikes of one grid point the cv measure reads: spikeStatistics() keeps every interval
/// (8 bytes each), and a LIF may emit up to max_spikes_per_dt spikes per neuron and step.
constexpr double kMaxCvSpikes = 5e7;
/// Values per step buffer (input, spikes, trace) of one run slice: 256 KiB, cache-resident.
constexpr std::int64_t kSliceFloats = std::int64_t{1} << 16;

enum class Measure { Rate, Cv, Spikes, Peak };

[[noreturn]] void refuse(const std::string& what)
{
    throw Error("parameter sweep: " + what);
}

std::string joined(const std::vector<std::string>& names)
{
    std::string out;
    for (const std::string& n : names) {
        out += (out.empty() ? "" : ", ") + n;
    }
    return out.empty() ? std::string("none") : out;
}

bool accepts(const AttributeSpec& spec, const Shape& shape)
{
    return std::find(spec.shapes.begin(), spec.shapes.end(), shape) != spec.shapes.end();
}

/// Why the attribute `view` of `m` cannot be swept; "" when it can.
std::string whyNotSweepable(const Module& m, const AttributeView& view)
{
    const AttributeSpec& s = *view.spec;
    if (s.kind == AttributeKind::State) {
        return "a State";
    }
    if (s.kind == AttributeKind::SimulationParameter) {
        return "a simulation parameter";
    }
    if (view.derived) {
        return "derived from other attributes in the module's current mode";
    }
    if (s.type == ValueType::Enum) {
        return "not a number";
    }
    if (!accepts(s, Shape{}) && !accepts(s, Shape{1}) && !accepts(s, Shape{m.sizeOut()})) {
        return "of shape " + s.shapesToString() + ", neither one number nor one per neuron";
    }
    return {};
}

/// The view of attribute `name` of `m`, or nullopt.
std::optional<AttributeView> viewOf(const Module& m, const std::string& name)
{
    for (const AttributeView& v : m.attributes()) {
        if (v.spec->name == name) {
            return v;
        }
    }
    return std::nullopt;
}

/// `count` values evenly spaced over [start, stop] as numpy.linspace(start, stop, count) gives
/// them: start + k (stop - start) / (count - 1), the last exactly stop.
std::vector<double> axisValues(const SweepAxis& a)
{
    std::vector<double> out;
    out.reserve(static_cast<std::size_t>(a.count));
    const double step = a.count > 1 ? (a.stop - a.start) / static_cast<double>(a.count - 1) : 0.0;
    for (std::int64_t k = 0; k < a.count; ++k) {
        out.push_back(k > 0 && k == a.count - 1 ? a.stop : a.start + static_cast<double>(k) * step);
    }
    return out;
}

/// `v` in the simplest shape `spec` accepts for a module of `n` neurons: (), (1,) or (n,).
Tensor uniformValue(const AttributeSpec& spec, std::int64_t n, float v)
{
    if (accepts(spec, Shape{})) {
        return Tensor::scalar(v);
    }
    if (accepts(spec, Shape{1})) {
        return Tensor(Shape{1}, v);
    }
    return Tensor(Shape{n}, v);
}

/// The sum of n spike counts in double, over eight interleaved lanes so that it vectorises. The
/// counts are whole numbers, so every partial sum is exact and the result is the exact total in
/// any order (below 2^53): the same as a plain running sum.
double rowSum(const float* x, std::int64_t n)
{
    constexpr std::int64_t kLanes = 8;
    double lane[kLanes] = {};
    std::int64_t j = 0;
    for (; j + kLanes <= n; j += kLanes) {
        for (std::int64_t k = 0; k < kLanes; ++k) {
            lane[k] += static_cast<double>(x[j + k]);
        }
    }
    double sum = 0.0;
    for (; j < n; ++j) {
        sum += static_cast<double>(x[j]);
    }
    for (double l : lane) {
        sum += l;
    }
    return sum;
}

/// Everything parameterSweep() resolved from its options before running.
struct Plan {
    std::vector<std::vector<double>> values;  ///< per axis
    std::int64_t points = 0;
    std::int64_t ny = 1;  ///< points per x value
    Measure measure = Measure::Rate;
    std::string inPort;
    std::string state;  ///< "peak" only
    std::int64_t warmup = 0;
    std::int64_t steps = 0;
    double dt = 0.0;
    float current = 0.0F;
    bool wide = false;
};

/// Runs the grid in chunks; one value per grid point.
class GridSweep {
public:
    GridSweep(const Module& neuron, const SweepOptions& options, const Plan& plan)
        : m_neuron(neuron), m_options(options), m_plan(plan)
    {
    }

    /// The measure at every grid point (x-major); `unit` gets the peak state's units.
    std::vector<double> run(std::string& unit) const
    {
        const std::int64_t total = m_plan.warmup + m_plan.steps;
        const std::int64_t width = std::max(m_neuron.sizeIn(), m_neuron.sizeOut()) *
                                   (m_plan.measure == Measure::Peak ? 2 : 1);
        const std::int64_t points = m_plan.points;
        const std::int64_t perChunk = std::max<std::int64_t>(
            1, std::min(kSweepChunkFloats / (total * width), (points + kChunks - 1) / kChunks));
        std::vector<double> values(static_cast<std::size_t>(points));
        for (std::int64_t first = 0; first < points; first += perChunk) {
            if (m_options.cancel != nullptr && m_options.cancel->load()) {
                throw SweepCancelled();
            }
            const std::int64_t count = std::min(perChunk, points - first);
            if (m_plan.wide) {
                const auto wide = wideCopy(first, count);
                runAndMeasure(*wide, first, count, values.data() + first, unit);
            } else {
                for (std::int64_t k = 0; k < count; ++k) {
                    const auto copy = pointCopy(first + k);
                    runAndMeasure(*copy, first + k, 1, values.data() + first + k, unit);
                }
            }
            if (m_options.progress) {
                m_options.progress(static_cast<double>(first + count) /
                                   static_cast<double>(points));
            }
        }
        return values;
    }

    /// A resting copy with grid point `point`'s values set; throws Error naming the point.
    std::unique_ptr<Module> pointCopy(std::int64_t point) const
    {
        auto copy = cloneModule(m_neuron);
        AttributeMap changes;
        for (std::size_t a = 0; a < m_options.axes.size(); ++a) {
            const std::string& name = m_options.axes[a].attribute;
            changes[name] = uniformValue(copy->spec(name), copy->sizeOut(),
                                         static_cast<float>(axisValue(a, point)));
        }
        if (const Status s = copy->setAttributes({{"", changes}}); !s.ok) {
            refuse("grid point " + pointText(point) + ": " + s.message);
        }
        copy->resetState();
        copy->eval();
        return copy;
    }

private:
    double axisValue(std::size_t axis, std::int64_t point) const
    {
        const auto& v = m_plan.values[axis];
        return v[static_cast<std::size_t>(axis == 0 ? point / m_plan.ny : point % m_plan.ny)];
    }

    /// "tau_mem=0.01, bias=0.5".
    std::string pointText(std::int64_t point) const
    {
        std::string out;
        for (std::size_t a = 0; a < m_options.axes.size(); ++a) {
            out += (a == 0 ? "" : ", ") + m_options.axes[a].attribute + "=" +
                   numberText(axisValue(a, point));
        }
        return out;
    }

    /// A resting copy of `blocks` x N neurons: block b holds grid point first + b.
    std::unique_ptr<Module> wideCopy(std::int64_t first, std::int64_t blocks) const
    {
        const std::int64_t n = m_neuron.sizeOut();
        AttributeMap values;
        for (std::size_t a = 0; a < m_options.axes.size(); ++a) {
            Tensor perNeuron(Shape{n * blocks});
            for (std::int64_t b = 0; b < blocks; ++b) {
                std::fill(perNeuron.data() + b * n, perNeuron.data() + (b + 1) * n,
                          static_cast<float>(axisValue(a, first + b)));
            }
            values[m_options.axes[a].attribute] = std::move(perNeuron);
        }
        Status status;
        auto wide = widePopulation(m_neuron, blocks, values, status);
        if (!wide) {
            // Name the first grid point whose own copy refuses its values.
            for (std::int64_t b = 0; b < blocks; ++b) {
                pointCopy(first + b);
            }
            refuse("grid points " + pointText(first) + " to " + pointText(first + blocks - 1) +
                   ": " + status.message);
        }
        return wide;
    }

    /// Runs `m` (`blocks` grid points of N neurons each, from point `first` on) from rest under
    /// the constant input and writes each block's measure to out[block]. Steps through the
    /// module's runner (what evolve() runs, node_runner.hpp) in slices of at most kSliceFloats
    /// values per buffer, so input, spikes and trace stay in cache and nothing is allocated per
    /// step; only cv keeps the measured spike rows (spikeStatistics() reads them whole).
    void runAndMeasure(Module& m, std::int64_t first, std::int64_t blocks, double* out,
                       std::string& unit) const
    {
        const std::int64_t total = m_plan.warmup + m_plan.steps;
        const std::int64_t nin = m.sizeIn();
        const std::int64_t nout = m.sizeOut();
        PortSpec in;
        for (const PortSpec& p : m.inputPorts()) {
            if (p.name == m_plan.inPort) {
                in = p;
            }
        }
        PortSpec spikesPort;
        for (const PortSpec& p : m.outputPorts()) {
            if (p.name == "spikes") {
                spikesPort = p;
            }
        }
        const std::int64_t n = spikesPort.size / blocks;

        const auto runner = m.makeRunner();
        const std::vector<TraceInfo> traces = runner->traces();
        std::vector<float*> targets(traces.size(), nullptr);
        std::int64_t traceWidth = 0;
        std::size_t traceIndex = traces.size();
        if (m_plan.measure == Measure::Peak) {
            for (std::size_t k = 0; k < traces.size(); ++k) {
                if (traces[k].name == m_plan.state) {
                    traceIndex = k;
                }
            }
            if (traceIndex == traces.size()) {
                refuse(m.className() + " does not trace '" + m_plan.state + "' while it runs");
            }
            traceWidth = traces[traceIndex].width;
            unit = traces[traceIndex].units;
        }
        const std::int64_t slice = std::clamp<std::int64_t>(
            kSliceFloats / std::max({nin, nout, traceWidth, std::int64_t{1}}), 1, total);
        std::vector<float> input(static_cast<std::size_t>(slice * nin), 0.0F);
        for (std::int64_t t = 0; t < slice; ++t) {
            float* row = input.data() + t * nin;
            std::fill(row + in.offset, row + in.offset + in.size, m_plan.current);
        }
        std::vector<float> spikes(static_cast<std::size_t>(slice * nout));
        std::vector<float> trace(static_cast<std::size_t>(slice * traceWidth));
        if (traceWidth > 0) {
            targets[traceIndex] = trace.data();
        }
        const bool cv = m_plan.measure == Measure::Cv;
        std::vector<float> rows(cv ? static_cast<std::size_t>(blocks * m_plan.steps * n) : 0);
        std::vector<double> counts(static_cast<std::size_t>(blocks), 0.0);
        std::vector<float> peaks(static_cast<std::size_t>(blocks),
                                 -std::numeric_limits<float>::infinity());
        const std::int64_t w = traceWidth / blocks;

        runner->load();
        for (std::int64_t t0 = 0; t0 < total; t0 += slice) {
            const std::int64_t steps = std::min(slice, total - t0);
            runner->run(input.data(), steps, spikes.data(), targets);
            for (std::int64_t s = std::max<std::int64_t>(0, m_plan.warmup - t0); s < steps; ++s) {
                const float* row = spikes.data() + s * nout + spikesPort.offset;
                const float* traced = trace.data() + s * traceWidth;
                const std::int64_t measured = t0 + s - m_plan.warmup;
                for (std::int64_t b = 0; b < blocks; ++b) {
                    const float* block = row + b * n;
                    counts[static_cast<std::size_t>(b)] += rowSum(block, n);
                    if (cv) {
                        std::copy(block, block + n,
                                  rows.data() + (b * m_plan.steps + measured) * n);
                    }
                    float& peak = peaks[static_cast<std::size_t>(b)];
                    for (std::int64_t j = 0; j < w; ++j) {
                        const float v = traced[b * w + j];
                        peak = v > peak ? v : peak;
                    }
                }
            }
        }

        const double seconds = static_cast<double>(m_plan.steps) * m_plan.dt;
        for (std::int64_t b = 0; b < blocks; ++b) {
            const auto ub = static_cast<std::size_t>(b);
            switch (m_plan.measure) {
            case Measure::Rate:
                out[b] = counts[ub] / (static_cast<double>(n) * seconds);
                break;
            case Measure::Spikes:
                out[b] = counts[ub];
                break;
            case Measure::Cv: {
                if (counts[ub] > kMaxCvSpikes) {
                    refuse("grid point " + pointText(first + b) + ": " + numberText(counts[ub]) +
                           " spikes are too many intervals for cv (at most " +
                           numberText(kMaxCvSpikes) + ")");
                }
                const SpikeStatistics st = spikeStatistics(
                    rows.data() + b * m_plan.steps * n, m_plan.steps, n, m_plan.dt);
                out[b] = st.cvNeurons > 0 ? st.meanCv : std::numeric_limits<double>::quiet_NaN();
                break;
            }
            case Measure::Peak:
                out[b] = static_cast<double>(peaks[ub]);
                break;
            }
        }
    }

    const Module& m_neuron;
    const SweepOptions& m_options;
    const Plan& m_plan;
};

/// Checks the options that do not depend on the module; fills plan.values, points, measure.
void validateOptions(const SweepOptions& o, Plan& plan)
{
    if (o.axes.empty() || o.axes.size() > 2) {
        refuse("give one or two axes (parameters to sweep), got " +
               std::to_string(o.axes.size()));
    }
    if (o.axes.size() == 2 && o.axes[0].attribute == o.axes[1].attribute) {
        refuse("the attribute '" + o.axes[0].attribute + "' is swept twice; give two different "
               "attributes");
    }
    std::int64_t points = 1;
    for (const SweepAxis& a : o.axes) {
        const std::string axis = "axis '" + a.attribute + "': ";
        if (a.count < 1 || a.count > kSweepMaxPoints) {
            refuse(axis + "count " + std::to_string(a.count) + " is out of range (1 to " +
                   std::to_string(kSweepMaxPoints) + " values)");
        }
        if (!std::isfinite(a.start) || !std::isfinite(a.stop)) {
            refuse(axis + "the range " + numberText(a.start) + ":" + numberText(a.stop) +
                   " is not finite");
        }
        constexpr double kFloatMax = std::numeric_limits<float>::max();
        if (std::abs(a.start) > kFloatMax || std::abs(a.stop) > kFloatMax) {
            refuse(axis + "the range " + numberText(a.start) + ":" + numberText(a.stop) +
                   " lies outside float32's range (attribute values are float32)");
        }
        if (points > kSweepMaxPoints / a.count) {
            refuse("the grid of " + std::to_string(o.axes[0].count) + " x " +
                   std::to_string(o.axes[1].count) + " points exceeds " +
                   std::to_string(kSweepMaxPoints) + " points");
        }
        points *= a.count;
    }
    plan.points = points;
    plan.ny = o.axes.size() == 2 ? o.axes[1].count : 1;
    for (const SweepAxis& a : o.axes) {
        plan.values.push_back(axisValues(a));
    }
    const auto& names = sweepMeasures();
    const auto it = std::find(names.begin(), names.end(), o.measure);
    if (it == names.end()) {
        refuse("unknown measure '" + o.measure + "' (one of " + joined(names) + ")");
    }
    plan.measure = static_cast<Measure>(it - names.begin());
    if (o.steps && *o.steps < 1) {
        refuse("steps " + std::to_string(*o.steps) + " must be at least 1");
    }
    if (o.warmupSteps < 0) {
        refuse("warm-up " + std::to_string(o.warmupSteps) + " steps must not be negative");
    }
    if (!std::isfinite(o.current) ||
        std::abs(o.current) > static_cast<double>(std::numeric_limits<float>::max())) {
        refuse("the current " + numberText(o.current) +
               " is not a finite float32 number (the engine's input is float32)");
    }
    plan.current = static_cast<float>(o.current);
}

}  // namespace

const std::vector<std::string>& sweepMeasures()
{
    static const std::vector<std::string> names{"rate", "cv", "spikes", "peak"};
    return names;
}

std::vector<std::string> sweepableAttributes(const Module& neuron)
{
    std::vector<std::string> out;
    for (const AttributeView& v : neuron.attributes()) {
        if (whyNotSweepable(neuron, v).empty()) {
            out.push_back(v.spec->name);
        }
    }
    return out;
}

SweepResult parameterSweep(const Module& neuron, const SweepOptions& options)
{
    Plan plan;
    validateOptions(options, plan);
    const std::string type = neuron.className();

    std::optional<PortSpec> spikes;
    for (const PortSpec& p : neuron.outputPorts()) {
        if (p.name == "spikes") {
            spikes = p;
        }
    }
    if (!spikes || spikes->size < 1) {
        refuse(type + " has no spikes output (a sweep needs a spiking neuron population such "
               "as LIF, LIFRefrac, CUBALIF or NIRLIF)");
    }
    if (const std::optional<PortSpec> in = drivenInputPort(neuron)) {
        plan.inPort = in->name;
    } else {
        refuse(type + " has no input port to drive (it declares no input: an equation model "
               "needs a line such as 'I : amp (input)')");
    }

    std::vector<std::string> swept;
    for (const SweepAxis& a : options.axes) {
        const auto view = viewOf(neuron, a.attribute);
        if (!view) {
            refuse(type + " has no attribute '" + a.attribute + "' (sweepable: " +
                   joined(sweepableAttributes(neuron)) + ")");
        }
        if (const std::string why = whyNotSweepable(neuron, *view); !why.empty()) {
            refuse(type + "'s '" + a.attribute + "' cannot be swept: it is " + why +
                   " (sweepable: " + joined(sweepableAttributes(neuron)) + ")");
        }
        swept.push_back(a.attribute);
    }

    SweepResult result;
    if (plan.measure == Measure::Peak) {
        plan.state = options.state.empty() ? neuron.membraneSignal() : options.state;
        std::vector<std::string> states = neuron.recordableSignals();
        states.erase(std::remove(states.begin(), states.end(), "spikes"), states.end());
        if (plan.state.empty()) {
            refuse(type + " declares no membrane state; name the state for peak (one of " +
                   joined(states) + ")");
        }
        if (std::find(states.begin(), states.end(), plan.state) == states.end()) {
            refuse(type + " has no recordable state '" + plan.state + "' for peak (one of " +
                   joined(states) + ")");
        }
        result.state = plan.state;
    }

    plan.dt = neuron.timeStep();
    if (!(plan.dt > 0.0) || !std::isfinite(plan.dt)) {
        refuse(type + ": the time step " + numberText(plan.dt) + " s is not positive");
    }
    plan.steps = options.steps ? *options.steps
                               : std::max<std::int64_t>(1, std::llround(1.0 / plan.dt));
    plan.warmup = options.warmupSteps;
    const std::int64_t width = std::max(neuron.sizeIn(), neuron.sizeOut());
    if (plan.steps > kMaxStepChannels || plan.warmup > kMaxStepChannels) {  // before adding them
        refuse(std::to_string(plan.steps) + " measured and " + std::to_string(plan.warmup) +
               " warm-up steps is too long a run (at most " + std::to_string(kMaxStepChannels) +
               " steps each)");
    }
    if ((plan.steps + plan.warmup) * width > kMaxStepChannels) {
        refuse(std::to_string(plan.steps + plan.warmup) + " steps x " + std::to_string(width) +
               " channels is too long a run (at most " + std::to_string(kMaxStepChannels) +
               " step-channels per grid point)");
    }

    // Each axis value alone on a copy: a value the attribute refuses is named before any run.
    for (std::size_t a = 0; a < options.axes.size(); ++a) {
        const std::string& name = options.axes[a].attribute;
        auto probe = cloneModule(neuron);
        for (double v : plan.values[a]) {
            const Tensor value =
                uniformValue(probe->spec(name), probe->sizeOut(), static_cast<float>(v));
            if (const Status s = probe->setAttribute(name, value); !s.ok) {
                refuse("grid point " + name + "=" + numberText(v) + ": " + s.message);
            }
        }
    }

    plan.wide = canRunWide(neuron, swept);
    const GridSweep sweep(neuron, options, plan);
    result.values = sweep.run(result.unit);
    result.axes = options.axes;
    result.x = plan.values[0];
    if (plan.values.size() == 2) {
        result.y = plan.values[1];
    }
    result.measure = options.measure;
    if (plan.measure == Measure::Rate) {
        result.unit = "Hz";
    } else if (plan.measure != Measure::Peak) {
        result.unit.clear();
    }
    result.port = plan.inPort;
    result.neurons = spikes->size;
    result.steps = plan.steps;
    result.warmupSteps = plan.warmup;
    result.dt = plan.dt;
    result.widePopulation = plan.wide;
    return result;
}

void parseSweepAxis(const std::string& text, SweepAxis& axis)
{
    const std::string shape = "--param '" + text + "' is not NAME=START:STOP:COUNT";
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0) {
        throw Error(shape);
    }
    const std::string name = text.substr(0, eq);
    const RangeText r = parseRangeText(text.substr(eq + 1), "--param " + name, shape);
    axis.attribute = name;
    axis.start = r.start;
    axis.stop = r.stop;
    axis.count = r.count;
}

}  // namespace spike::engine
