// Stimulus sources: modules without input that generate currents or spike trains from time
// alone, for the editor's palette and for driving a network without an input file.
//
// A source has shape (0, N): it is evolved like any module, with an input of shape (T, 0) or
// (B, T, 0), and returns (T, N) or (B, T, N). Step k counts from construction or the last
// resetState() (k = stepsElapsed() + t inside a call) and stands for time t_k = k · dt, so
// evolving in chunks gives bit-identical output to one call. Every batch element receives the
// same output, except PoissonSource's: it draws element 0's steps, then element 1's, … from one
// continuing stream, as LIF's noise does. Each source records "output" (B, T, N) on request.
//
// Times in seconds (onset, duration, period) become whole steps by rounding to the nearest:
// K(x) = round(x / dt). Per step, for each channel, in the order the code computes them:
//
//   ConstantCurrent    y[k] = amplitude
//   PulseTrain         on[k] = k ≥ K(onset) and (k − K(onset)) mod P < W
//                      W = ∞ when duration = 0, else max(1, K(duration))   (pulse width)
//                      P = ∞ when period = 0, else max(1, K(period))       (repetition)
//                      y[k] = on[k] ? baseline + amplitude : baseline
//   SineCurrent        y[k] = offset + amplitude · sin(2π · frequency · k·dt + phase)
//                      (evaluated in double, then rounded to float32)
//   PoissonSource      p = rate · dt (must be ≤ 1); u = uniform [0, 1) draw; y[k] = u < p
//                      (one draw per channel per step whatever the rate, channel-major)
//   RegularSpikeTrain  P = 1 / (rate · dt) steps, snapped to the nearest whole number when
//                      within 1e-6 · P of it (dt = 1 ms is not exact in float32);
//                      y[k] = 1 at k = K(onset) + ⌈n · P⌉, n = 0, 1, 2, …; silent for rate 0
//   FileSource         y[k] = data[k] for k < T; data[k mod T] if loop; 0 otherwise
//
// Thread: owned by whichever thread evolves it, like every module. evolve() allocates its
// output per call, never per step.
#pragma once

#include "engine/core/module.hpp"
#include "engine/tensor/random.hpp"

#include <memory>
#include <string>
#include <vector>

namespace spike::engine {

/// Base of the stimulus sources: shape (0, N), input (B, T, 0), output (B, T, N).
class Source : public Module {
public:
    /// Number of output channels N.
    std::int64_t channels() const { return sizeOut(); }

    /// {"shape": [N]}.
    nlohmann::json config() const override;
    /// "shape=(N,)".
    std::string extraRepr() const override;
    /// {"output"}.
    std::vector<std::string> recordableSignals() const override;

protected:
    /// `type` names the class in the error thrown when n is not in [1, 10^8]; `spiking`: the
    /// output is spikes (0/1 per step) rather than a current.
    Source(const char* type, std::int64_t n, bool spiking);

    /// Registers the "dt" simulation parameter every source has (call first when registering).
    void addTimeStep();
    /// Time step [s] as a double.
    double dt() const;

    /// Writes steps [first, first + steps) of batch element `batch` into `out`, (steps, N) in C
    /// order. Called for batch element 0 only, unless perBatch().
    virtual void generate(std::int64_t first, std::int64_t steps, std::int64_t batch,
                          float* out) = 0;
    /// True when batch elements differ (random draws); otherwise element 0 is copied to all.
    virtual bool perBatch() const { return false; }

    Tensor evolveImpl(const TensorView& input, const Recorder& recorder) override;

private:
    AttributeId m_dt;
};

/// A constant current: y = amplitude (scalar or per channel).
class ConstantCurrent : public Source {
public:
    /// n channels; `initial` overrides initial attribute values (validated; throws Error).
    explicit ConstantCurrent(std::int64_t n, const AttributeMap& initial = {});
    std::string className() const override { return "ConstantCurrent"; }

protected:
    void attributesChanged() override;
    void generate(std::int64_t first, std::int64_t steps, std::int64_t batch, float* out) override;

private:
    AttributeId m_amplitude;
    std::vector<float> m_amp;
};

/// A step or a pulse train: baseline, plus amplitude while a pulse is on. A step current is
/// period = 0 and duration = 0 (on from onset to the end).
class PulseTrain : public Source {
public:
    explicit PulseTrain(std::int64_t n, const AttributeMap& initial = {});
    std::string className() const override { return "PulseTrain"; }

protected:
    void attributesChanged() override;
    void generate(std::int64_t first, std::int64_t steps, std::int64_t batch, float* out) override;

private:
    AttributeId m_amplitude, m_baseline, m_onset, m_duration, m_period;
    std::vector<float> m_high, m_low;                        ///< per channel, on and off values
    std::vector<std::int64_t> m_onsetK, m_widthK, m_periodK;  ///< per channel, in steps
};

/// A sine current: offset + amplitude · sin(2π · frequency · t + phase).
class SineCurrent : public Source {
public:
    explicit SineCurrent(std::int64_t n, const AttributeMap& initial = {});
    std::string className() const override { return "SineCurrent"; }

protected:
    void attributesChanged() override;
    void generate(std::int64_t first, std::int64_t steps, std::int64_t batch, float* out) override;

private:
    AttributeId m_amplitude, m_frequency, m_phase, m_offset;
    std::vector<double> m_amp, m_omega, m_phi, m_off;  ///< per channel; omega = 2π · frequency
};

/// Bernoulli spikes with probability rate · dt per step and channel (the discrete Poisson
/// process), from a seeded generator.
class PoissonSource : public Source {
public:
    explicit PoissonSource(std::int64_t n, const AttributeMap& initial = {});
    std::string className() const override { return "PoissonSource"; }

protected:
    Status validateChange(const Lookup& proposed) const override;
    void attributesChanged() override;
    void onResetState() override;
    bool perBatch() const override { return true; }
    void generate(std::int64_t first, std::int64_t steps, std::int64_t batch, float* out) override;

private:
    void reseed();

    AttributeId m_rate, m_seed;
    std::vector<double> m_p;  ///< spike probability per step, per channel
    Random m_rng;
    float m_seededWith = -1.0F;  ///< seed the generator was last started from
};

/// Exactly one spike per period 1 / rate, the first at onset.
class RegularSpikeTrain : public Source {
public:
    explicit RegularSpikeTrain(std::int64_t n, const AttributeMap& initial = {});
    std::string className() const override { return "RegularSpikeTrain"; }

protected:
    Status validateChange(const Lookup& proposed) const override;
    void attributesChanged() override;
    void generate(std::int64_t first, std::int64_t steps, std::int64_t batch, float* out) override;

private:
    AttributeId m_rate, m_onset;
    std::vector<std::int64_t> m_onsetK;
    std::vector<std::int64_t> m_periodK;  ///< whole-step period, or 0 when not whole
    std::vector<double> m_periodReal;     ///< period in steps; 0 for a silent channel
};

/// Plays a (T, N) array row by row: the "data" attribute, which model files store like any
/// large array ({"npy": "stimulus.npy"} beside the model file).
class FileSource : public Source {
public:
    /// A source of `steps` rows and `n` channels whose data start at zero.
    FileSource(std::int64_t steps, std::int64_t n, const AttributeMap& initial = {});
    /// A source playing `data`, which must be (T, N) with T, N >= 1.
    explicit FileSource(const Tensor& data, bool loop = false);
    /// Reads a (T, N) .npy file (absolute, or relative to the working directory); throws Error
    /// naming the file.
    static std::unique_ptr<FileSource> fromNpy(const std::string& path, bool loop = false);

    std::string className() const override { return "FileSource"; }
    /// {"shape": [T, N]}.
    nlohmann::json config() const override;
    /// "shape=(T, N), loop=False".
    std::string extraRepr() const override;
    /// Rows T of the data.
    std::int64_t length() const { return m_length; }

protected:
    void generate(std::int64_t first, std::int64_t steps, std::int64_t batch, float* out) override;

private:
    std::int64_t m_length = 0;
    AttributeId m_data, m_loop;
};

}  // namespace spike::engine
