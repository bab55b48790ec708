// Population: storage and stepping of a compiled model. See population.hpp.
#include "engine/equations/population.hpp"

#include "engine/equations/linear.hpp"
#include "engine/tensor/error.hpp"

#include <algorithm>

namespace spike::engine::equations {

namespace {

/// The work of one instruction per neuron, in arithmetic operations of native code: a library
/// function (exp, log, a power, the trigonometric ones; kernels/portable_math.hpp, in double
/// precision and not vectorised) costs about 100 of them. Measured 2026-12-01 on the 2-core
/// Intel guest (native code, 4096 neurons): Izhikevich 0.57 ns per neuron-step (about 45
/// instructions, none a function), HodgkinHuxley 26 to 31 ns, COBALIF 2.7 ns (one exp per neuron;
/// its two shared ones run once per step), AdEx 2.5 to 3.5 ns; a hand-written LIF 1.1 ns.
double instructionWork(kernels::EqOp op)
{
    using kernels::EqOp;
    switch (op) {
    case EqOp::Exp: case EqOp::Log: case EqOp::Log10: case EqOp::Sin: case EqOp::Cos: case EqOp::Tan:
    case EqOp::Sinh: case EqOp::Cosh: case EqOp::Tanh: case EqOp::Asin: case EqOp::Acos: case EqOp::Atan:
    case EqOp::Exprel: case EqOp::Pow:
        return 100.0;
    default:
        return 1.0;
    }
}

/// The work of a LIF neuron-step in those operations (a hand-written LIF costs 1 in
/// costPerNeuronStep()): Izhikevich then costs 1, AdEx and COBALIF 3 and HodgkinHuxley about 29.
constexpr double kLifWork = 50.0;

}  // namespace

Population::Population(CompiledModel model, std::int64_t n) : m_model(std::move(model)), m_n(n)
{
    if (n <= 0) {
        throw Error("an equation population needs at least one neuron, got " + std::to_string(n));
    }
    const auto un = static_cast<std::size_t>(n);
    m_arrays.resize(m_model.slotInfo.size());
    m_bind.resize(m_model.slotInfo.size());
    for (std::size_t s = 0; s < m_model.slotInfo.size(); ++s) {
        const SlotKind kind = m_model.slotInfo[s].kind;
        const bool shared = kind == SlotKind::Parameter || kind == SlotKind::Time ||
                            kind == SlotKind::Matrix || kind == SlotKind::Propagator;
        m_arrays[s].assign(shared ? 1 : un, 0.0F);
        m_bind[s] = {m_arrays[s].data(), !shared};
    }
    for (std::size_t k = 0; k < m_model.model.parameters.size(); ++k) {
        const auto slot = static_cast<std::size_t>(m_model.parameterSlots[k]);
        m_arrays[slot][0] = static_cast<float>(m_model.model.parameters[k].value);
        if (!m_model.model.parameters[k].input) {
            m_parameterIndex.emplace(m_model.model.parameters[k].name, k);
        }
    }
    for (const std::string& input : m_model.model.inputs) {
        for (std::size_t s = 0; s < m_model.slotInfo.size(); ++s) {
            if (m_model.slotInfo[s].kind == SlotKind::Input &&
                (m_model.slotInfo[s].name == input || m_model.slotInfo[s].name == "in_" + input)) {
                m_inputSlots.push_back(s);
            }
        }
    }
    m_zeros.assign(un, 0.0F);
    for (const kernels::EqInstruction& ins : m_model.step.code) {
        if (ins.op == kernels::EqOp::Store && !m_bind[static_cast<std::size_t>(ins.slot)].perNeuron) {
            m_storesPerNeuronOnly = false;
        }
    }
    m_slotData.assign(m_bind.size(), nullptr);
    m_nativeLayout.assign(m_bind.size(), 0);
    const int registers = std::max({m_model.init.registers, m_model.step.registers, m_model.matrix.registers, 1});
    m_registers.assign(static_cast<std::size_t>(registers) * static_cast<std::size_t>(kBlock), 0.0F);
    parametersChanged();
}

void Population::setParameter(const std::string& name, const float* values, std::int64_t count)
{
    const auto it = m_parameterIndex.find(name);
    if (it == m_parameterIndex.end()) {
        throw Error("'" + name + "' is not a parameter of this model");
    }
    if (count != 1 && count != m_n) {
        throw Error("parameter '" + name + "': expected 1 or " + std::to_string(m_n) + " values, got " +
                    std::to_string(count));
    }
    const auto slot = static_cast<std::size_t>(m_model.parameterSlots[it->second]);
    m_arrays[slot].assign(values, values + count);
    m_bind[slot] = {m_arrays[slot].data(), count != 1};
}

void Population::estimateCost()
{
    // What native code computes per neuron under the current layout: the invariant
    // instructions run once per call (invariantInstructions()).
    std::vector<char> layout(m_bind.size());
    for (std::size_t s = 0; s < m_bind.size(); ++s) {
        layout[s] = static_cast<char>(m_bind[s].perNeuron);
    }
    const std::vector<char> invariant = invariantInstructions(m_model.step, layout);
    double work = 0.0;
    for (std::size_t k = 0; k < m_model.step.code.size(); ++k) {
        work += invariant[k] != 0 ? 0.0 : instructionWork(m_model.step.code[k].op);
    }
    m_cost = std::max(1.0, work / kLifWork);
}

void Population::parametersChanged()
{
    estimateCost();
    if (m_model.method != "exact") {
        return;
    }
    // M per neuron when any parameter is, else once for all.
    bool perNeuron = false;
    for (const int slot : m_model.parameterSlots) {
        perNeuron = perNeuron || m_bind[static_cast<std::size_t>(slot)].perNeuron;
    }
    const std::int64_t count = perNeuron ? m_n : 1;
    for (const auto& group : {m_model.matrixSlots, m_model.phiSlots, m_model.gammaSlots}) {
        for (const int slot : group) {
            auto& a = m_arrays[static_cast<std::size_t>(slot)];
            a.assign(static_cast<std::size_t>(count), 0.0F);
            m_bind[static_cast<std::size_t>(slot)] = {a.data(), perNeuron};
        }
    }
    executeAll(m_model.matrix, m_bind.data(), count, m_registers.data());
    const auto n = static_cast<int>(m_model.model.states.size());
    std::vector<double> mat(static_cast<std::size_t>(n * n));
    std::vector<double> phi;
    std::vector<double> gamma;
    for (std::int64_t i = 0; i < count; ++i) {
        for (std::size_t k = 0; k < mat.size(); ++k) {
            mat[k] = m_arrays[static_cast<std::size_t>(m_model.matrixSlots[k])][static_cast<std::size_t>(i)];
        }
        propagators(mat, n, m_model.dt, phi, gamma);
        for (std::size_t k = 0; k < mat.size(); ++k) {
            m_arrays[static_cast<std::size_t>(m_model.phiSlots[k])][static_cast<std::size_t>(i)] = static_cast<float>(phi[k]);
            m_arrays[static_cast<std::size_t>(m_model.gammaSlots[k])][static_cast<std::size_t>(i)] = static_cast<float>(gamma[k]);
        }
    }
}

void Population::initialise()
{
    executeAll(m_model.init, m_bind.data(), m_n, m_registers.data());
    if (float* r = refractory()) {
        std::fill(r, r + m_n, refractoryStart());
    }
    auto& spikes = m_arrays[static_cast<std::size_t>(m_model.spikeSlot)];
    std::fill(spikes.begin(), spikes.end(), 0.0F);
}

float* Population::refractory()
{
    return m_model.refractorySlot < 0 ? nullptr : m_bind[static_cast<std::size_t>(m_model.refractorySlot)].data;
}

void Population::bindState(std::size_t i, float* data)
{
    const auto slot = static_cast<std::size_t>(m_model.stateSlots.at(i));
    m_bind[slot].data = data != nullptr ? data : m_arrays[slot].data();
}

void Population::bindSpikes(float* data)
{
    const auto slot = static_cast<std::size_t>(m_model.spikeSlot);
    m_bind[slot].data = data != nullptr ? data : m_arrays[slot].data();
}

void Population::bindRefractory(float* data)
{
    if (m_model.refractorySlot >= 0) {
        const auto slot = static_cast<std::size_t>(m_model.refractorySlot);
        m_bind[slot].data = data != nullptr ? data : m_arrays[slot].data();
    }
}

float Population::refractoryStart() const
{
    return m_model.model.refractoryIsTime ? 0.0F : 1.0F;
}

void Population::step(const float* const* inputs, double t)
{
    for (std::size_t k = 0; k < m_inputSlots.size(); ++k) {
        const float* row = inputs != nullptr && inputs[k] != nullptr ? inputs[k] : m_zeros.data();
        m_bind[m_inputSlots[k]] = {const_cast<float*>(row), true};
    }
    m_arrays[static_cast<std::size_t>(m_model.timeSlot)][0] = static_cast<float>(t);
    const bool native = m_native.kind == NativeCode::Kind::Ready && nativeMatches();
    runStep(m_bind.data(), m_slotData.data(), m_registers.data(), 0, m_n);
    if (!native) {
        considerNative();
    }
}

void Population::runStep(const SlotBinding* bind, float** slotData, float* registers,
                         std::int64_t begin, std::int64_t end) const
{
    if (m_native.kind == NativeCode::Kind::Ready && nativeMatches()) {
        for (std::size_t s = 0; s < m_bind.size(); ++s) {
            slotData[s] = bind[s].data;
        }
        m_native.fn(slotData, begin, end);
        return;
    }
    for (std::int64_t b = begin; b < end; b += kBlock) {
        execute(m_model.step, bind, b, std::min(kBlock, end - b), registers);
    }
    if (m_consumeInputs) {
        for (const std::size_t slot : m_inputSlots) {
            if (bind[slot].data != m_zeros.data()) {  // m_zeros stays zero
                std::fill(bind[slot].data + begin, bind[slot].data + end, 0.0F);
            }
        }
    }
}

void Population::prepareFrame(Frame& frame) const
{
    frame.bind = m_bind;
    frame.slotData.resize(m_bind.size());
    frame.inputRows.resize(m_inputSlots.size());
    frame.registers.resize(m_registers.size());
    frame.bind[static_cast<std::size_t>(m_model.timeSlot)] = {&frame.time, false};
}

void Population::stepRange(Frame& frame, float* spikes, double t, std::int64_t begin, std::int64_t end) const
{
    for (std::size_t k = 0; k < m_inputSlots.size(); ++k) {
        const float* row = frame.inputRows[k] != nullptr ? frame.inputRows[k] : m_zeros.data();
        frame.bind[m_inputSlots[k]] = {const_cast<float*>(row), true};
    }
    frame.bind[static_cast<std::size_t>(m_model.spikeSlot)].data = spikes;
    frame.time = static_cast<float>(t);
    runStep(frame.bind.data(), frame.slotData.data(), frame.registers.data(), begin, end);
}

void Population::countRangeSteps(std::int64_t steps)
{
    if (m_native.kind == NativeCode::Kind::Ready && nativeMatches()) {
        return;
    }
    for (std::int64_t k = 0; k < steps; ++k) {
        considerNative();
    }
}

bool Population::setConsumeInputs(bool consume)
{
    if (consume && !canConsumeInputs()) {
        return false;
    }
    m_consumeInputs = consume;
    return consume;
}

bool Population::nativeMatches() const
{
    if (m_nativeConsumes != m_consumeInputs) {
        return false;
    }
    for (std::size_t s = 0; s < m_bind.size(); ++s) {
        if (static_cast<char>(m_bind[s].perNeuron) != m_nativeLayout[s]) {
            return false;
        }
    }
    return true;
}

void Population::considerNative()
{
    const NativeMode mode = nativeMode();
    if (mode == NativeMode::Off) {
        return;
    }
    ++m_interpretedSteps;
    if (!nativeMatches()) {  // the first step, or a parameter became per-neuron or shared
        for (std::size_t s = 0; s < m_bind.size(); ++s) {
            m_nativeLayout[s] = static_cast<char>(m_bind[s].perNeuron);
        }
        m_nativeConsumes = m_consumeInputs;
        std::vector<int> zeroAfter;
        if (m_consumeInputs) {
            zeroAfter.assign(m_inputSlots.begin(), m_inputSlots.end());
        }
        try {
            m_nativeSource = nativeSource(m_model.step, m_nativeLayout, zeroAfter);
        } catch (const std::exception& e) {  // a layout the program cannot run natively: interpret
            m_native = NativeCode{NativeCode::Kind::Failed, nullptr, e.what()};
            return;
        }
        // Code compiled before (in this process or into the disk cache) is used at once.
        m_native = nativeCode(m_nativeSource, false);
        return;
    }
    switch (m_native.kind) {
    case NativeCode::Kind::Ready:
    case NativeCode::Kind::Failed:
        return;
    case NativeCode::Kind::Pending:
        if (m_interpretedSteps % 64 == 0) {  // a lookup hashes the source: not every step
            m_native = nativeCode(m_nativeSource, false);
        }
        return;
    case NativeCode::Kind::Absent:
        if (mode == NativeMode::Async && m_interpretedSteps * m_n < kNativeAfterNeuronSteps) {
            return;
        }
        m_native = nativeCode(m_nativeSource, true);
        return;
    }
}

std::string Population::executionStatus() const
{
    switch (m_native.kind) {
    case NativeCode::Kind::Ready:
        return nativeMatches() ? "native code" : "interpreted (native code for a new layout not asked for yet)";
    case NativeCode::Kind::Pending:
        return "interpreted (native code compiling)";
    case NativeCode::Kind::Failed:
        return "interpreted: " + m_native.message;
    case NativeCode::Kind::Absent:
        break;
    }
    if (nativeMode() == NativeMode::Off) {
        return "interpreted (native code off)";
    }
    return "interpreted (native code is compiled after " + std::to_string(kNativeAfterNeuronSteps) +
           " neuron-steps)";
}

}  // namespace spike::engine::equations
