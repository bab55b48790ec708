// LSTM. See lstm.hpp for the equations, the two calls and the padding invariant.
#include "engine/layers/lstm.hpp"

#include "engine/layers/init.hpp"

#include <algorithm>

namespace spike::engine {

namespace {

using RowMatrix = Tensor::RowMatrix;
using ConstRowMap = Eigen::Map<const RowMatrix>;

/// Elementwise logistic function on a gate slice, in place.
void sigmoidInPlace(float* data, std::int64_t n)
{
    Eigen::Map<Eigen::ArrayXf> a(data, n);
    a = (1.0F + (-a).exp()).inverse();
}

}  // namespace

LSTM::LSTM(std::int64_t inputSize, std::int64_t hiddenSize, std::int64_t numLayers, bool bias,
           bool batchFirst, const AttributeMap& initial)
    : Layer(Shape{inputSize}, Shape{hiddenSize}),
      m_numLayers(numLayers),
      m_hasBias(bias),
      m_batchFirst(batchFirst)
{
    if (inputSize < 1 || hiddenSize < 1 || numLayers < 1) {
        throw Error("LSTM: input_size, hidden_size and num_layers must be >= 1, got (" +
                    std::to_string(inputSize) + ", " + std::to_string(hiddenSize) + ", " +
                    std::to_string(numLayers) + ")");
    }
    const std::int64_t gates = 4 * hiddenSize;
    if (gates > Tensor::kMaxElements / std::max(inputSize, hiddenSize)) {
        throw Error("LSTM: a (" + std::to_string(gates) + ", " +
                    std::to_string(std::max(inputSize, hiddenSize)) +
                    ") weight matrix is larger than the tensor limit");
    }
    m_seed = addAttribute(simulationParameter("seed").integer().range(0, 16777216)
                              .initConstant(0.0F).live(false)
                              .doc("Seed of the weight initialisation (used by resetParameters)"));
    for (std::int64_t k = 0; k < numLayers; ++k) {
        const std::string layer = std::to_string(k);
        const std::int64_t in = k == 0 ? inputSize : hiddenSize;
        const auto stream = static_cast<std::uint64_t>(4 * k);
        LayerIds ids;
        ids.weightIh = addAttribute(
            parameter("weight_ih_l" + layer).family("weights").shapes({Shape{gates, in}})
                .init(uniformInit(Shape{gates, in}, hiddenSize, stream + 1))
                .doc("Input-to-hidden weights of layer " + layer +
                     ", gates i, f, g, o stacked (4*hidden_size, " +
                     (k == 0 ? "input_size)" : "hidden_size)")));
        ids.weightHh = addAttribute(
            parameter("weight_hh_l" + layer).family("weights")
                .shapes({Shape{gates, hiddenSize}})
                .init(uniformInit(Shape{gates, hiddenSize}, hiddenSize, stream + 2))
                .doc("Hidden-to-hidden weights of layer " + layer +
                     ", gates i, f, g, o stacked (4*hidden_size, hidden_size)"));
        if (bias) {
            ids.biasIh = addAttribute(
                parameter("bias_ih_l" + layer).family("biases").shapes({Shape{gates}})
                    .init(uniformInit(Shape{gates}, hiddenSize, stream + 3))
                    .doc("Input-to-hidden bias of layer " + layer + " (4*hidden_size,)"));
            ids.biasHh = addAttribute(
                parameter("bias_hh_l" + layer).family("biases").shapes({Shape{gates}})
                    .init(uniformInit(Shape{gates}, hiddenSize, stream + 4))
                    .doc("Hidden-to-hidden bias of layer " + layer + " (4*hidden_size,)"));
        }
        m_layers.push_back(ids);
    }
    m_h = addAttribute(stateVariable("h").family("hidden").shapes({Shape{numLayers, hiddenSize}})
                           .initConstant(0.0F).inStateDict(false)
                           .doc("Hidden state of every layer, carried across evolve() calls "
                                "(num_layers, hidden_size)"));
    m_c = addAttribute(stateVariable("c").family("cell").shapes({Shape{numLayers, hiddenSize}})
                           .initConstant(0.0F).inStateDict(false)
                           .doc("Cell state of every layer, carried across evolve() calls "
                                "(num_layers, hidden_size)"));
    finishRegistration(initial);
}

std::string LSTM::extraRepr() const
{
    std::string s = std::to_string(inputSize()) + ", " + std::to_string(hiddenSize());
    if (m_numLayers != 1) {
        s += ", num_layers=" + std::to_string(m_numLayers);
    }
    if (!m_hasBias) {
        s += ", bias=False";
    }
    if (m_batchFirst) {
        s += ", batch_first=True";
    }
    return s;
}

nlohmann::json LSTM::config() const
{
    return {{"input_size", inputSize()},
            {"hidden_size", hiddenSize()},
            {"num_layers", m_numLayers},
            {"bias", m_hasBias},
            {"batch_first", m_batchFirst}};
}

std::pair<std::int64_t, std::int64_t> LSTM::checkInput(const Shape& x, bool& unbatched) const
{
    const std::string in = std::to_string(inputSize());
    if (x.rank() != 2 && x.rank() != 3) {
        throw Error(where() + ": input " + x.toString() + " must be " +
                    (m_batchFirst ? "(N, L, " + in + ") (batch, sequence, input_size)"
                                  : "(L, N, " + in + ") (sequence, batch, input_size)") +
                    " or unbatched (L, " + in + ")");
    }
    if (x[x.rank() - 1] != inputSize()) {
        throw Error(where() + ": input " + x.toString() + " has " +
                    std::to_string(x[x.rank() - 1]) + " features in its last axis, expected " +
                    "input_size " + in);
    }
    if (x.numel() == 0) {
        throw Error(where() + ": input " + x.toString() +
                    " is empty; expected at least one time step and one batch element");
    }
    unbatched = x.rank() == 2;
    if (unbatched) {
        return {x[0], 1};
    }
    return m_batchFirst ? std::pair{x[1], x[0]} : std::pair{x[0], x[1]};
}

void LSTM::checkState(const char* what, const Tensor& t, std::int64_t batch, bool unbatched) const
{
    const Shape expected = unbatched ? Shape{m_numLayers, hiddenSize()}
                                     : Shape{m_numLayers, batch, hiddenSize()};
    if (t.shape() != expected) {
        throw Error(where() + ": " + what + " has shape " + t.shape().toString() + ", expected " +
                    expected.toString() +
                    (unbatched ? " (num_layers, hidden_size) for an unbatched input"
                               : " (num_layers, batch, hidden_size)"));
    }
}

void LSTM::run(const Run& r) const
{
    const std::int64_t hidden = hiddenSize();
    const std::int64_t gates = 4 * hidden;
    const std::int64_t steps = r.steps;
    const std::int64_t batch = r.batch;
    const std::int64_t rows = steps * batch;
    const std::int64_t padded = (rows + kProjectionRows - 1) / kProjectionRows * kProjectionRows;

    // Scratch for the whole call: the projected inputs of one layer, the recurrent gates of one
    // step, the running states, a zero-padded copy of x when needed and, between layers, the
    // previous layer's h sequence (its padding rows stay zero).
    RowMatrix igates(padded, gates);
    RowMatrix hgates(batch, gates);
    RowMatrix h(batch, hidden);
    RowMatrix c(batch, hidden);
    RowMatrix xPadded;
    RowMatrix between;
    const float* layerInput = r.x;
    if (padded != rows) {
        xPadded.setZero(padded, inputSize());
        std::copy(r.x, r.x + rows * inputSize(), xPadded.data());
        layerInput = xPadded.data();
    }
    if (m_numLayers > 1) {
        between.setZero(padded, hidden);
    }
    const auto rowOf = [&](std::int64_t t, std::int64_t n) {
        return r.batchMajor ? n * steps + t : t * batch + n;
    };

    for (std::int64_t k = 0; k < m_numLayers; ++k) {
        const LayerIds& ids = m_layers[static_cast<std::size_t>(k)];
        const std::int64_t in = k == 0 ? inputSize() : hidden;
        const Tensor& wih = value(ids.weightIh);
        const Tensor& whh = value(ids.weightHh);
        const ConstRowMap wihMap(wih.data(), gates, in);
        const ConstRowMap whhMap(whh.data(), gates, hidden);
        igates.noalias() = ConstRowMap(layerInput, padded, in) * wihMap.transpose();
        if (m_hasBias) {
            igates.rowwise() += Eigen::Map<const Eigen::RowVectorXf>(value(ids.biasIh).data(), gates);
        }
        const float* biasHh = m_hasBias ? value(ids.biasHh).data() : nullptr;

        for (std::int64_t n = 0; n < batch; ++n) {
            for (RowMatrix* state : {&h, &c}) {
                const float* init = state == &h ? r.h0 : r.c0;
                float* dst = state->row(n).data();
                if (init == nullptr) {
                    std::fill(dst, dst + hidden, 0.0F);
                } else {
                    const float* src = init + k * r.layerStride + n * r.batchStride;
                    std::copy(src, src + hidden, dst);
                }
            }
        }

        const bool last = k == m_numLayers - 1;
        float* layerOutput = last ? r.output : between.data();
        for (std::int64_t t = 0; t < steps; ++t) {
            hgates.noalias() = h * whhMap.transpose();
            for (std::int64_t n = 0; n < batch; ++n) {
                float* g = hgates.row(n).data();
                const float* ig = igates.row(rowOf(t, n)).data();
                Eigen::Map<Eigen::ArrayXf> all(g, gates);
                if (biasHh != nullptr) {
                    all += Eigen::Map<const Eigen::ArrayXf>(biasHh, gates);
                }
                all = Eigen::Map<const Eigen::ArrayXf>(ig, gates) + all;
                sigmoidInPlace(g, 2 * hidden);  // i, f
                Eigen::Map<Eigen::ArrayXf> gi(g, hidden);
                Eigen::Map<Eigen::ArrayXf> gf(g + hidden, hidden);
                Eigen::Map<Eigen::ArrayXf> gg(g + 2 * hidden, hidden);
                Eigen::Map<Eigen::ArrayXf> go(g + 3 * hidden, hidden);
                gg = gg.tanh();
                sigmoidInPlace(g + 3 * hidden, hidden);  // o
                Eigen::Map<Eigen::ArrayXf> cn(c.row(n).data(), hidden);
                Eigen::Map<Eigen::ArrayXf> hn(h.row(n).data(), hidden);
                cn = gf * cn + gi * gg;
                hn = go * cn.tanh();
                std::copy(hn.data(), hn.data() + hidden, layerOutput + rowOf(t, n) * hidden);
                if (r.hTrace != nullptr) {
                    const std::int64_t at = ((n * steps + t) * m_numLayers + k) * hidden;
                    std::copy(hn.data(), hn.data() + hidden, r.hTrace + at);
                    std::copy(cn.data(), cn.data() + hidden, r.cTrace + at);
                }
            }
        }
        for (std::int64_t n = 0; n < batch; ++n) {
            const std::int64_t at = (k * batch + n) * hidden;
            std::copy(h.row(n).data(), h.row(n).data() + hidden, r.hN + at);
            std::copy(c.row(n).data(), c.row(n).data() + hidden, r.cN + at);
        }
        layerInput = between.data();
    }
}

LstmResult LSTM::runTorch(const TensorView& x, const Tensor* h0, const Tensor* c0) const
{
    bool unbatched = false;
    const auto [steps, batch] = checkInput(x.shape(), unbatched);
    if (h0 != nullptr) {
        checkState("h0", *h0, batch, unbatched);
    }
    if (c0 != nullptr) {
        checkState("c0", *c0, batch, unbatched);
    }
    const std::int64_t hidden = hiddenSize();
    LstmResult result;
    result.output = Tensor(unbatched    ? Shape{steps, hidden}
                           : m_batchFirst ? Shape{batch, steps, hidden}
                                          : Shape{steps, batch, hidden});
    const Shape stateShape = unbatched ? Shape{m_numLayers, hidden}
                                       : Shape{m_numLayers, batch, hidden};
    result.h = Tensor(stateShape);
    result.c = Tensor(stateShape);
    Run r;
    r.x = x.data();
    r.steps = steps;
    r.batch = batch;
    r.batchMajor = !unbatched && m_batchFirst;
    r.h0 = h0 != nullptr ? h0->data() : nullptr;
    r.c0 = c0 != nullptr ? c0->data() : nullptr;
    r.layerStride = batch * hidden;
    r.batchStride = hidden;
    r.output = result.output.data();
    r.hN = result.h.data();
    r.cN = result.c.data();
    run(r);
    return result;
}

LstmResult LSTM::forwardWithState(const Tensor& x, const Tensor* h0, const Tensor* c0)
{
    bool unbatched = false;
    (void)checkInput(x.shape(), unbatched);
    LstmResult result;
    result.output = runWithHooks(x.view(), [&](const TensorView& in) {
        LstmResult r = runTorch(in, h0, c0);
        result.h = std::move(r.h);
        result.c = std::move(r.c);
        return std::move(r.output);
    });
    return result;
}

Tensor LSTM::compute(const TensorView& input) const
{
    return runTorch(input, nullptr, nullptr).output;
}

Tensor LSTM::evolveImpl(const TensorView& input, const Recorder& recorder)
{
    const std::int64_t batch = input.dim(0);
    const std::int64_t steps = input.dim(1);
    const std::int64_t hidden = hiddenSize();
    Tensor output(Shape{batch, steps, hidden});
    Tensor hN(Shape{m_numLayers, batch, hidden});
    Tensor cN(Shape{m_numLayers, batch, hidden});
    const bool traced = recorder.wants("h") || recorder.wants("c");
    Tensor hTrace;
    Tensor cTrace;
    if (traced) {
        hTrace = Tensor(Shape{batch, steps, m_numLayers, hidden});
        cTrace = Tensor(Shape{batch, steps, m_numLayers, hidden});
    }
    Run r;
    r.x = input.data();
    r.steps = steps;
    r.batch = batch;
    r.batchMajor = true;
    r.h0 = value(m_h).data();
    r.c0 = value(m_c).data();
    r.layerStride = hidden;
    r.batchStride = 0;
    r.output = output.data();
    r.hN = hN.data();
    r.cN = cN.data();
    r.hTrace = traced ? hTrace.data() : nullptr;
    r.cTrace = traced ? cTrace.data() : nullptr;
    run(r);

    // The stored state afterwards is batch element 0's.
    Tensor& h = stateRef(m_h);
    Tensor& c = stateRef(m_c);
    for (std::int64_t k = 0; k < m_numLayers; ++k) {
        std::copy(hN.data() + k * batch * hidden, hN.data() + (k * batch + 1) * hidden,
                  h.data() + k * hidden);
        std::copy(cN.data() + k * batch * hidden, cN.data() + (k * batch + 1) * hidden,
                  c.data() + k * hidden);
    }
    if (recorder.wants("output")) {
        recorder.record("output", output, "", false);
    }
    if (recorder.wants("h")) {
        recorder.record("h", std::move(hTrace), "", false);
    }
    if (recorder.wants("c")) {
        recorder.record("c", std::move(cTrace), "", false);
    }
    return output;
}

}  // namespace spike::engine
