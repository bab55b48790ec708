// Stimulus sources: the shared base (shape, dt, batching, recording), the waveforms and the
// spike generators. See sources.hpp for the definitions.
#include "engine/sources/sources.hpp"

#include "engine/tensor/npy.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <sstream>

namespace spike::engine {

namespace {

constexpr float kDefaultDt = 1e-3F;  // [s]
/// Most channels a source may have (as for LIF layers), so a typo cannot exhaust memory.
constexpr std::int64_t kMaxChannels = 100000000;
/// "Never" in steps: far beyond any run, small enough that sums of two cannot overflow.
constexpr std::int64_t kNever = std::int64_t{1} << 62;
/// rate · dt may exceed 1 by this much: float32 cannot hold dt = 1 ms exactly, and 1000 Hz at
/// 1 ms must be accepted as one spike per step.
constexpr double kRateSlack = 1e-6;

std::vector<Shape> perChannelShapes(std::int64_t n)
{
    return {Shape{}, Shape{1}, Shape{n}};
}

/// Expands a scalar, (1,) or (n,) attribute to n values.
template <typename T>
void perChannel(const Tensor& t, std::int64_t n, std::vector<T>& out)
{
    out.resize(static_cast<std::size_t>(n));
    for (std::int64_t c = 0; c < n; ++c) {
        out[static_cast<std::size_t>(c)] = static_cast<T>(t.numel() == 1 ? t[0] : t[c]);
    }
}

/// Seconds (>= 0) to the nearest whole step, capped at kNever.
std::int64_t toSteps(double seconds, double dt)
{
    const double x = seconds / dt;
    if (!(x < static_cast<double>(kNever))) {
        return kNever;
    }
    return std::max<std::int64_t>(0, std::llround(x));
}

std::string number(double v)
{
    std::ostringstream os;
    os.precision(7);
    os << v;
    return os.str();
}

/// Spike generators emit at most one spike per step: rate · dt <= 1 on every channel.
Status checkRateTimesDt(const std::string& where,
                        const std::function<const AttributeValue&(const std::string&)>& proposed)
{
    const Tensor& rate = std::get<Tensor>(proposed("rate"));
    const double dt = static_cast<double>(std::get<Tensor>(proposed("dt"))[0]);
    for (std::int64_t c = 0; c < rate.numel(); ++c) {
        const double p = static_cast<double>(rate[c]) * dt;
        if (p > 1.0 + kRateSlack) {
            return Status::failure(
                where + ": rate × dt must be <= 1 (at most one spike per step), got " +
                number(rate[c]) + " [Hz] × " + number(dt) + " [s] = " + number(p) +
                (rate.numel() > 1 ? " at channel " + std::to_string(c) : std::string()) +
                "; lower the rate or the time step");
        }
    }
    return Status::success();
}

/// Validates the channel count before the Module base is built.
std::vector<std::int64_t> sourceShape(const char* type, std::int64_t n)
{
    if (n < 1 || n > kMaxChannels) {
        throw Error(std::string(type) + ": " + std::to_string(n) +
                    " channels requested; expected a number in [1, " +
                    std::to_string(kMaxChannels) + "]");
    }
    return {0, n};
}

}  // namespace

// ---- Source ------------------------------------------------------------------------------

Source::Source(const char* type, std::int64_t n, bool spiking)
    : Module(sourceShape(type, n), false, spiking)
{
}

nlohmann::json Source::config() const
{
    return {{"shape", {channels()}}};
}

std::string Source::extraRepr() const
{
    return "shape=(" + std::to_string(channels()) + ",)";
}

std::vector<std::string> Source::recordableSignals() const
{
    return {"output"};
}

void Source::addTimeStep()
{
    m_dt = addAttribute(simulationParameter("dt").units("s").positive().initConstant(kDefaultDt)
                            .doc("Simulation time step"));
}

double Source::dt() const
{
    return static_cast<double>(value(m_dt)[0]);
}

Tensor Source::evolveImpl(const TensorView& input, const Recorder& recorder)
{
    const std::int64_t batches = input.dim(0);
    const std::int64_t steps = input.dim(1);
    const std::int64_t n = channels();
    Tensor output(Shape{batches, steps, n});
    const std::int64_t first = stepsElapsed();
    const std::int64_t perElement = steps * n;
    if (perBatch()) {
        for (std::int64_t b = 0; b < batches; ++b) {
            generate(first, steps, b, output.data() + b * perElement);
        }
    } else if (perElement > 0) {
        generate(first, steps, 0, output.data());
        for (std::int64_t b = 1; b < batches; ++b) {
            std::copy(output.data(), output.data() + perElement, output.data() + b * perElement);
        }
    }
    if (recorder.wants("output")) {
        recorder.record("output", output, "", spikingOutput());
    }
    return output;
}

// ---- ConstantCurrent ---------------------------------------------------------------------

ConstantCurrent::ConstantCurrent(std::int64_t n, const AttributeMap& initial)
    : Source("ConstantCurrent", n, false)
{
    addTimeStep();
    m_amplitude = addAttribute(parameter("amplitude").family("amplitudes")
                                   .shapes(perChannelShapes(n)).initConstant(1.0F)
                                   .doc("Output value of every step (scalar or per channel)"));
    finishRegistration(initial);
}

void ConstantCurrent::attributesChanged()
{
    perChannel(value(m_amplitude), channels(), m_amp);
}

void ConstantCurrent::generate(std::int64_t, std::int64_t steps, std::int64_t, float* out)
{
    const std::int64_t n = channels();
    for (std::int64_t t = 0; t < steps; ++t) {
        std::copy(m_amp.begin(), m_amp.end(), out + t * n);
    }
}

// ---- PulseTrain --------------------------------------------------------------------------

PulseTrain::PulseTrain(std::int64_t n, const AttributeMap& initial)
    : Source("PulseTrain", n, false)
{
    const auto shapes = perChannelShapes(n);
    addTimeStep();
    m_amplitude = addAttribute(parameter("amplitude").family("amplitudes").shapes(shapes)
                                   .initConstant(1.0F)
                                   .doc("Added to the baseline while a pulse is on"));
    m_baseline = addAttribute(parameter("baseline").family("offsets").shapes(shapes)
                                  .initConstant(0.0F).doc("Output between pulses"));
    m_onset = addAttribute(parameter("onset").family("times").shapes(shapes).units("s")
                               .nonNegative().initConstant(0.01F)
                               .doc("Start of the first pulse (rounded to a whole step)"));
    m_duration = addAttribute(parameter("duration").family("times").shapes(shapes).units("s")
                                  .nonNegative().initConstant(0.005F)
                                  .doc("Pulse width, at least one step; 0: on until the "
                                       "next period (or the end)"));
    m_period = addAttribute(parameter("period").family("times").shapes(shapes).units("s")
                                .nonNegative().initConstant(0.02F)
                                .doc("Time between pulse starts; 0: a single pulse or step"));
    finishRegistration(initial);
}

void PulseTrain::attributesChanged()
{
    const std::int64_t n = channels();
    const double step = dt();
    std::vector<float> amplitude;
    std::vector<float> onset;
    std::vector<float> duration;
    std::vector<float> period;
    perChannel(value(m_amplitude), n, amplitude);
    perChannel(value(m_baseline), n, m_low);
    perChannel(value(m_onset), n, onset);
    perChannel(value(m_duration), n, duration);
    perChannel(value(m_period), n, period);
    m_high.resize(static_cast<std::size_t>(n));
    m_onsetK.resize(static_cast<std::size_t>(n));
    m_widthK.resize(static_cast<std::size_t>(n));
    m_periodK.resize(static_cast<std::size_t>(n));
    for (std::size_t c = 0; c < static_cast<std::size_t>(n); ++c) {
        m_high[c] = m_low[c] + amplitude[c];
        m_onsetK[c] = toSteps(onset[c], step);
        m_widthK[c] =
            duration[c] == 0.0F ? kNever : std::max<std::int64_t>(1, toSteps(duration[c], step));
        m_periodK[c] =
            period[c] == 0.0F ? kNever : std::max<std::int64_t>(1, toSteps(period[c], step));
    }
}

void PulseTrain::generate(std::int64_t first, std::int64_t steps, std::int64_t, float* out)
{
    const auto n = static_cast<std::size_t>(channels());
    for (std::int64_t t = 0; t < steps; ++t) {
        const std::int64_t k = first + t;
        float* row = out + t * static_cast<std::int64_t>(n);
        for (std::size_t c = 0; c < n; ++c) {
            const std::int64_t d = k - m_onsetK[c];
            const bool on = d >= 0 && d % m_periodK[c] < m_widthK[c];
            row[c] = on ? m_high[c] : m_low[c];
        }
    }
}

// ---- SineCurrent -------------------------------------------------------------------------

SineCurrent::SineCurrent(std::int64_t n, const AttributeMap& initial)
    : Source("SineCurrent", n, false)
{
    const auto shapes = perChannelShapes(n);
    addTimeStep();
    m_amplitude = addAttribute(parameter("amplitude").family("amplitudes").shapes(shapes)
                                   .initConstant(1.0F).doc("Peak deviation from the offset"));
    m_frequency = addAttribute(parameter("frequency").family("frequencies").shapes(shapes)
                                   .units("Hz").nonNegative().initConstant(10.0F)
                                   .doc("Oscillation frequency"));
    m_phase = addAttribute(parameter("phase").family("phases").shapes(shapes).units("rad")
                               .initConstant(0.0F).doc("Phase at t = 0"));
    m_offset = addAttribute(parameter("offset").family("offsets").shapes(shapes)
                                .initConstant(0.0F).doc("Value the sine oscillates around"));
    finishRegistration(initial);
}

void SineCurrent::attributesChanged()
{
    constexpr double kTwoPi = 6.283185307179586476925;
    const std::int64_t n = channels();
    perChannel(value(m_amplitude), n, m_amp);
    perChannel(value(m_frequency), n, m_omega);
    perChannel(value(m_phase), n, m_phi);
    perChannel(value(m_offset), n, m_off);
    for (auto& w : m_omega) {
        w *= kTwoPi;
    }
}

void SineCurrent::generate(std::int64_t first, std::int64_t steps, std::int64_t, float* out)
{
    const auto n = static_cast<std::size_t>(channels());
    const double step = dt();
    for (std::int64_t t = 0; t < steps; ++t) {
        const double time = static_cast<double>(first + t) * step;  // [s]
        float* row = out + t * static_cast<std::int64_t>(n);
        for (std::size_t c = 0; c < n; ++c) {
            const double v = m_off[c] + m_amp[c] * std::sin(m_omega[c] * time + m_phi[c]);
            row[c] = static_cast<float>(v);
        }
    }
}

// ---- FileSource --------------------------------------------------------------------------

namespace {

/// Rows of a (T, N) array, checked before the module is built.
std::int64_t rowsOf(const Tensor& data)
{
    if (data.rank() != 2 || data.dim(0) < 1 || data.dim(1) < 1) {
        throw Error("FileSource: data must be a (T, N) array with T, N >= 1, got shape " +
                    data.shape().toString());
    }
    return data.dim(0);
}

}  // namespace

FileSource::FileSource(std::int64_t steps, std::int64_t n, const AttributeMap& initial)
    : Source("FileSource", n, false), m_length(steps)
{
    if (steps < 1 || steps > Tensor::kMaxElements / n) {
        throw Error("FileSource: " + std::to_string(steps) + " rows of " + std::to_string(n) +
                    " channels requested; expected at least one row and at most " +
                    std::to_string(Tensor::kMaxElements) + " values in all");
    }
    addTimeStep();
    m_data = addAttribute(simulationParameter("data").family("stimulus")
                              .shapes({Shape{steps, n}}).initConstant(0.0F)
                              .doc("Samples played row by row, (T, N); one row per step"));
    m_loop = addAttribute(simulationParameter("loop").boolean().initConstant(0.0F)
                              .doc("After the last row: start again from row 0 (else output 0)"));
    finishRegistration(initial);
}

FileSource::FileSource(const Tensor& data, bool loop)
    : FileSource(rowsOf(data), data.dim(1),
                 AttributeMap{{"data", data}, {"loop", Tensor::scalar(loop ? 1.0F : 0.0F)}})
{
}

std::unique_ptr<FileSource> FileSource::fromNpy(const std::string& path, bool loop)
{
    const Tensor data = npy::load(path);
    if (data.rank() != 2 || data.dim(0) < 1 || data.dim(1) < 1) {
        throw Error(path + ": a FileSource plays a (T, N) array with T, N >= 1, got shape " +
                    data.shape().toString());
    }
    return std::make_unique<FileSource>(data, loop);
}

nlohmann::json FileSource::config() const
{
    return {{"shape", {m_length, channels()}}};
}

std::string FileSource::extraRepr() const
{
    return "shape=(" + std::to_string(m_length) + ", " + std::to_string(channels()) +
           "), loop=" + (value(m_loop)[0] != 0.0F ? "True" : "False");
}

void FileSource::generate(std::int64_t first, std::int64_t steps, std::int64_t, float* out)
{
    const std::int64_t n = channels();
    const bool loop = value(m_loop)[0] != 0.0F;
    const float* data = value(m_data).data();
    for (std::int64_t t = 0; t < steps; ++t) {
        const std::int64_t k = first + t;
        float* row = out + t * n;
        if (k < m_length || loop) {
            const float* src = data + (k % m_length) * n;
            std::copy(src, src + n, row);
        } else {
            std::fill(row, row + n, 0.0F);
        }
    }
}

// ---- PoissonSource -----------------------------------------------------------------------

namespace {

/// Generator key of a PoissonSource seed: the seed in the high bits and a fixed tag in the low
/// ones, so a Poisson source and a LIF given the same seed (spikesim --seed sets every "seed")
/// draw from unrelated streams.
std::uint64_t poissonKey(float seed)
{
    return (static_cast<std::uint64_t>(seed) << 32U) ^ 0x504F4953ULL;  // "POIS"
}

}  // namespace

PoissonSource::PoissonSource(std::int64_t n, const AttributeMap& initial)
    : Source("PoissonSource", n, true)
{
    addTimeStep();
    m_rate = addAttribute(parameter("rate").family("rates").shapes(perChannelShapes(n))
                              .units("Hz").nonNegative().initConstant(10.0F)
                              .doc("Mean spike rate; rate × dt is the spike chance per step"));
    m_seed = addAttribute(simulationParameter("seed").integer().range(0, 16777216)
                              .initConstant(0.0F).live(false)
                              .doc("Seed of the spike generator (restarts it when changed)"));
    finishRegistration(initial);
}

Status PoissonSource::validateChange(const Lookup& proposed) const
{
    return checkRateTimesDt(where(), proposed);
}

void PoissonSource::attributesChanged()
{
    perChannel(value(m_rate), channels(), m_p);
    const double step = dt();
    for (auto& p : m_p) {
        p = std::min(1.0, p * step);
    }
    if (value(m_seed)[0] != m_seededWith) {
        reseed();
    }
}

void PoissonSource::onResetState()
{
    reseed();
}

void PoissonSource::reseed()
{
    m_seededWith = value(m_seed)[0];
    m_rng.reseed(poissonKey(m_seededWith));
}

void PoissonSource::generate(std::int64_t, std::int64_t steps, std::int64_t, float* out)
{
    const auto n = static_cast<std::size_t>(channels());
    for (std::int64_t t = 0; t < steps; ++t) {
        float* row = out + t * static_cast<std::int64_t>(n);
        for (std::size_t c = 0; c < n; ++c) {
            row[c] = m_rng.uniform() < m_p[c] ? 1.0F : 0.0F;
        }
    }
}

// ---- RegularSpikeTrain -------------------------------------------------------------------

RegularSpikeTrain::RegularSpikeTrain(std::int64_t n, const AttributeMap& initial)
    : Source("RegularSpikeTrain", n, true)
{
    const auto shapes = perChannelShapes(n);
    addTimeStep();
    m_rate = addAttribute(parameter("rate").family("rates").shapes(shapes).units("Hz")
                              .nonNegative().initConstant(10.0F)
                              .doc("Spikes per second: one every 1 / rate; 0 is silent"));
    m_onset = addAttribute(parameter("onset").family("times").shapes(shapes).units("s")
                               .nonNegative().initConstant(0.0F)
                               .doc("Time of the first spike (rounded to a whole step)"));
    finishRegistration(initial);
}

Status RegularSpikeTrain::validateChange(const Lookup& proposed) const
{
    return checkRateTimesDt(where(), proposed);
}

void RegularSpikeTrain::attributesChanged()
{
    const std::int64_t n = channels();
    const double step = dt();
    std::vector<double> rate;
    std::vector<double> onset;
    perChannel(value(m_rate), n, rate);
    perChannel(value(m_onset), n, onset);
    m_onsetK.resize(static_cast<std::size_t>(n));
    m_periodK.resize(static_cast<std::size_t>(n));
    m_periodReal.resize(static_cast<std::size_t>(n));
    for (std::size_t c = 0; c < static_cast<std::size_t>(n); ++c) {
        m_onsetK[c] = toSteps(onset[c], step);
        const double perStep = rate[c] * step;
        if (perStep == 0.0) {
            m_periodK[c] = 0;
            m_periodReal[c] = 0.0;
            continue;
        }
        const double period = 1.0 / perStep;  // [steps]
        const double whole = std::nearbyint(period);
        if (std::abs(period - whole) <= kRateSlack * period && whole >= 1.0 &&
            whole < static_cast<double>(kNever)) {
            m_periodK[c] = static_cast<std::int64_t>(whole);
            m_periodReal[c] = whole;
        } else {
            m_periodK[c] = 0;
            m_periodReal[c] = std::max(1.0, period);
        }
    }
}

void RegularSpikeTrain::generate(std::int64_t first, std::int64_t steps, std::int64_t, float* out)
{
    const auto n = static_cast<std::size_t>(channels());
    for (std::int64_t t = 0; t < steps; ++t) {
        const std::int64_t k = first + t;
        float* row = out + t * static_cast<std::int64_t>(n);
        for (std::size_t c = 0; c < n; ++c) {
            const std::int64_t d = k - m_onsetK[c];
            bool spike = false;
            if (d >= 0 && m_periodReal[c] > 0.0) {
                if (m_periodK[c] > 0) {
                    spike = d % m_periodK[c] == 0;
                } else {
                    // A spike at the first step at or after each multiple n · P: ⌈n · P⌉ = d.
                    const double p = m_periodReal[c];
                    spike = d == 0 || std::floor(static_cast<double>(d) / p) >
                                          std::floor(static_cast<double>(d - 1) / p);
                }
            }
            row[c] = spike ? 1.0F : 0.0F;
        }
    }
}

}  // namespace spike::engine
