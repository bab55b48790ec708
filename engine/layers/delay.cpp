// Delay: the steps of each channel, the ring's checks and reshaping, and the per-step copy.
// See delay.hpp for the definition.
#include "engine/layers/delay.hpp"

#include "engine/tensor/decimal.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace spike::engine {

namespace {

/// Default time step [s], as the neuron populations'.
constexpr float kDefaultTimeStep = 1e-3F;

/// The steps of every channel, their maximum, or what is wrong with them.
struct Steps {
    std::vector<std::int64_t> perChannel;
    std::int64_t longest = 0;
    std::string problem;  ///< "" when the delays are usable
};

std::string number(double v)
{
    std::ostringstream os;
    os << std::setprecision(9) << v;
    return os.str();
}

/// A whole number of steps as digits ("2000000", not "2e+06").
std::string stepsText(double steps)
{
    return steps < 1e15 ? std::to_string(static_cast<std::int64_t>(steps)) : number(steps);
}

/// d_j = floor(delay_j / dt + 1/2), see delay.hpp; `problem` set for a value that is not finite,
/// negative, over Delay::kMaxSteps steps, or a ring over Delay::kMaxRingValues.
Steps stepsOf(const Tensor& delay, float dtValue)
{
    Steps s;
    const double dt = shortestDecimal(dtValue);
    if (!(dt > 0.0) || !std::isfinite(dt)) {
        s.problem = "attribute 'dt': expected a finite time step > 0 [s], got " + number(dt);
        return s;
    }
    const std::int64_t n = delay.numel();
    s.perChannel.resize(static_cast<std::size_t>(n));
    for (std::int64_t j = 0; j < n; ++j) {
        const double d = shortestDecimal(delay[j]);
        if (!std::isfinite(d) || d < 0.0) {
            s.problem = "attribute 'delay': expected finite values >= 0 [s], got " + number(d) +
                        " at channel " + std::to_string(j);
            return s;
        }
        const double exact = d / dt;
        const double rounded = std::floor(exact + 0.5 + 1e-9);
        if (rounded > static_cast<double>(Delay::kMaxSteps)) {
            s.problem = "attribute 'delay': " + number(d) + " s at dt = " + number(dt) + " s is " +
                        stepsText(rounded) + " steps at channel " + std::to_string(j) +
                        "; at most " + std::to_string(Delay::kMaxSteps) + " steps (" +
                        number(static_cast<double>(Delay::kMaxSteps) * dt) + " s) are allowed";
            return s;
        }
        const auto steps = static_cast<std::int64_t>(rounded);
        s.perChannel[static_cast<std::size_t>(j)] = steps;
        s.longest = std::max(s.longest, steps);
    }
    if (n > 0 && s.longest > Delay::kMaxRingValues / n) {
        s.problem = "attribute 'delay': the longest delay, " + std::to_string(s.longest) +
                    " steps, x " + std::to_string(n) + " channels needs a ring of " +
                    std::to_string(s.longest * n) + " values; at most " +
                    std::to_string(Delay::kMaxRingValues) + " (512 MiB): use a shorter delay (at most " +
                    std::to_string(Delay::kMaxRingValues / n) + " steps for " + std::to_string(n) +
                    " channels)";
    }
    return s;
}

std::int64_t checkedChannels(std::int64_t channels)
{
    if (channels < 1) {
        throw Error("Delay: shape must be >= 1 channel, got " + std::to_string(channels));
    }
    return channels;
}

}  // namespace

Delay::Delay(std::int64_t channels, const AttributeMap& initial)
    : Module({checkedChannels(channels)}, false, false)
{
    m_delay = addAttribute(parameter("delay").family("delays").shapes({Shape{channels}}).units("s")
                               .nonNegative().initConstant(0.0F).live(false)
                               .doc("Delay per channel: y[t] = x[t - round(delay / dt)]"));
    m_dt = addAttribute(simulationParameter("dt").units("s").positive()
                            .initConstant(kDefaultTimeStep).live(false)
                            .doc("Simulation time step"));
    m_buffer = addAttribute(
        stateVariable("buffer").family("delays").shapes({})
            .init([](const Module& m) -> AttributeValue {
                // Unusable delays (checked after every init) get an empty ring here, so the
                // refusal is validateChange()'s message, not an allocation.
                const Steps s = stepsOf(m.tensor("delay"), m.tensor("dt")[0]);
                return Tensor(Shape{s.problem.empty() ? s.longest : 0, m.sizeIn()});
            })
            .doc("The last D inputs, a ring of (D, N) rows, D the longest delay in steps"));
    m_head = addAttribute(stateVariable("buffer_head").family("delays").integer()
                              .range(0, kMaxSteps).initConstant(0.0F)
                              .doc("Ring row holding the oldest input (below max(D, 1))"));
    finishRegistration(initial);
}

nlohmann::json Delay::config() const
{
    return {{"shape", {sizeIn()}}};
}

std::string Delay::extraRepr() const
{
    return "shape=(" + std::to_string(sizeIn()) + ",), steps=" + std::to_string(m_longest);
}

Status Delay::validateChange(const Lookup& proposed) const
{
    const Steps s = stepsOf(std::get<Tensor>(proposed("delay")), std::get<Tensor>(proposed("dt"))[0]);
    if (!s.problem.empty()) {
        return Status::failure(where() + ": " + s.problem);
    }
    // The registry hands back the stored value itself for an attribute the change leaves out,
    // so an address comparison tells whether the change gives a ring or head of its own. A ring
    // left out is rebuilt empty by attributesChanged() when the delays change its shape.
    const AttributeValue& buffer = proposed("buffer");
    const bool bufferGiven = &buffer != &attribute("buffer");
    const bool headGiven = &proposed("buffer_head") != &attribute("buffer_head");
    const Shape ring{s.longest, sizeIn()};
    if (bufferGiven && std::get<Tensor>(buffer).shape() != ring) {
        return Status::failure(where() + ": attribute 'buffer': expected shape " + ring.toString() +
                               " (longest delay in steps, channels), got " +
                               std::get<Tensor>(buffer).shape().toString());
    }
    const auto head = static_cast<std::int64_t>(std::get<Tensor>(proposed("buffer_head"))[0]);
    if ((bufferGiven || headGiven) && head >= std::max<std::int64_t>(s.longest, 1)) {
        return Status::failure(where() + ": attribute 'buffer_head': expected a ring row below " +
                               std::to_string(std::max<std::int64_t>(s.longest, 1)) +
                               " (max(D, 1), D the longest delay in steps), got " +
                               std::to_string(head));
    }
    return Status::success();
}

void Delay::attributesChanged()
{
    Steps s = stepsOf(value(m_delay), value(m_dt)[0]);
    if (!s.problem.empty()) {
        throw Error(where() + ": " + s.problem);  // validateChange() refused these already
    }
    m_longest = s.longest;
    m_delaySteps = std::move(s.perChannel);
    m_rowOffset.resize(m_delaySteps.size());
    for (std::size_t j = 0; j < m_delaySteps.size(); ++j) {
        m_rowOffset[j] = m_delaySteps[j] == 0 ? -1 : m_longest - m_delaySteps[j];
    }
    // A ring of the wrong shape is emptied; an empty ring reads the same from any row, so a head
    // that fits it stays (one carried with the delays before the ring, as reconfigure() does).
    const Shape ring{m_longest, sizeIn()};
    if (value(m_buffer).shape() != ring) {
        stateRef(m_buffer) = Tensor(ring);
    }
    if (static_cast<std::int64_t>(value(m_head)[0]) >= std::max<std::int64_t>(m_longest, 1)) {
        stateRef(m_head) = Tensor::scalar(0.0F);
    }
}

std::int64_t Delay::runSteps(const float* x, float* y, std::int64_t steps, float* ring,
                             std::int64_t head) const
{
    const std::int64_t n = sizeIn();
    const std::int64_t rows = m_longest;
    const std::int64_t* __restrict offset = m_rowOffset.data();
    for (std::int64_t t = 0; t < steps; ++t) {
        const float* __restrict xt = x + t * n;
        float* __restrict yt = y + t * n;
        float* __restrict oldest = ring + head * n;
        for (std::int64_t j = 0; j < n; ++j) {
            if (offset[j] < 0) {
                yt[j] = xt[j];
            } else {
                std::int64_t row = head + offset[j];
                row = row >= rows ? row - rows : row;
                yt[j] = ring[row * n + j];  // read before the write below: row = head when d_j = D
            }
            oldest[j] = xt[j];
        }
        head = head + 1 == rows ? 0 : head + 1;
    }
    return head;
}

Tensor Delay::evolveImpl(const TensorView& input, const Recorder& recorder)
{
    const std::int64_t batches = input.dim(0);
    const std::int64_t steps = input.dim(1);
    const std::int64_t n = sizeIn();
    Tensor out(Shape{batches, steps, n});
    if (m_longest == 0) {
        std::copy_n(input.data(), input.numel(), out.data());
    } else {
        const auto head0 = static_cast<std::int64_t>(value(m_head)[0]);
        Tensor& ring = stateRef(m_buffer);
        // Batch elements after the first start from the stored ring too: keep a copy of it and
        // work on a scratch ring; element 0 runs in place and is what stays stored.
        const Tensor start = batches > 1 ? ring : Tensor();
        Tensor scratch = batches > 1 ? Tensor(ring.shape()) : Tensor();
        std::int64_t headAfter = head0;
        for (std::int64_t b = 0; b < batches; ++b) {
            const float* x = input.data() + b * steps * n;
            float* y = out.data() + b * steps * n;
            if (b == 0) {
                headAfter = runSteps(x, y, steps, ring.data(), head0);
            } else {
                std::copy_n(start.data(), start.numel(), scratch.data());
                runSteps(x, y, steps, scratch.data(), head0);
            }
        }
        stateRef(m_head) = Tensor::scalar(static_cast<float>(headAfter));
    }
    if (recorder.wants("output")) {
        recorder.record("output", out, "", spikingOutput());
    }
    return out;
}

}  // namespace spike::engine
