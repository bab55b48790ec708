// LSTM: long short-term memory layers with torch.nn.LSTM's semantics, names and gate order.
//
// Per layer k (input x = the sequence for k = 0, the previous layer's h sequence otherwise), per
// time step t, in the order the code runs (float32):
//
//     igates = x[t] W_ih^T + b_ih                 all steps of layer k at once (one GEMM)
//     hgates = h W_hh^T + b_hh                    (N, 4H), h = this layer's previous h
//     gates  = igates + hgates                    split into i, f, g, o (PyTorch order)
//     i = sigmoid(i), f = sigmoid(f), g = tanh(g), o = sigmoid(o)
//     c = f * c + i * g
//     h = o * tanh(c)                             the layer's output at step t
//
// Owns: weight_ih_l{k} (4H, in_k), weight_hh_l{k} (4H, H), bias_ih_l{k}, bias_hh_l{k} (4H,)
// (Parameters, drawn from U(+-1/sqrt(H)) seeded by "seed"), and States "h", "c" (num_layers, H)
// that evolve() carries from one call to the next (not in the state dict, as in PyTorch).
// Two calls: forward() / forwardWithState() are the torch call over a whole sequence
// ((L, N, Hin), (N, L, Hin) with batch_first, or unbatched (L, Hin)) from a given or zero
// initial state, leaving the stored States alone; evolve() runs a (B, T, Hin) series with T as
// the sequence axis, each batch element starting from the stored States, and stores batch
// element 0's final state afterwards (as the neuron layers do).
// Invariant: the input projection gives every row the same bits wherever it sits in the GEMM
// (rows are padded to a multiple of kProjectionRows), so evolving in chunks is bit-identical to
// one call and evolve() equals forwardWithState() on the same data.
// Thread: owned by whichever thread evolves it; a call allocates its scratch once, never per step.
#pragma once

#include "engine/layers/layer.hpp"

namespace spike::engine {

/// Result of LSTM::forwardWithState.
struct LstmResult {
    Tensor output;  ///< last layer's h at every step: (L, N, H), (N, L, H) batch_first, (L, H)
    Tensor h;       ///< final h of every layer: (num_layers, N, H), or (num_layers, H) unbatched
    Tensor c;       ///< final c of every layer, shaped like h
};

/// Multi-layer LSTM (torch.nn.LSTM without dropout, projections or bidirectionality).
class LSTM : public Layer {
public:
    /// Throws Error for sizes < 1 or a weight larger than the tensor limit.
    LSTM(std::int64_t inputSize, std::int64_t hiddenSize, std::int64_t numLayers = 1,
         bool bias = true, bool batchFirst = false, const AttributeMap& initial = {});

    std::string className() const override { return "LSTM"; }
    std::string extraRepr() const override;
    nlohmann::json config() const override;
    /// "output" (B, T, H); "h" and "c" (B, T, num_layers, H): every layer's state at each step.
    std::vector<std::string> recordableSignals() const override { return {"output", "h", "c"}; }

    /// The torch call `lstm(x, (h0, c0))`, with forward hooks on x and the output. h0 and c0 are
    /// (num_layers, N, H), or (num_layers, H) for an unbatched x; zeros when null. The stored
    /// States are neither read nor changed. Throws Error naming the module and the expected
    /// shape when x, h0 or c0 does not fit.
    LstmResult forwardWithState(const Tensor& x, const Tensor* h0 = nullptr,
                                const Tensor* c0 = nullptr);

    std::int64_t inputSize() const { return sizeIn(); }
    std::int64_t hiddenSize() const { return sizeOut(); }
    std::int64_t numLayers() const { return m_numLayers; }
    bool hasBias() const { return m_hasBias; }
    bool batchFirst() const { return m_batchFirst; }

    /// Rows of the input-projection GEMM are padded to a multiple of this (a multiple of
    /// Eigen's largest row panel on SSE, AVX and AVX-512), so that a row's result does not
    /// depend on its position or on how many rows share the call.
    static constexpr std::int64_t kProjectionRows = 48;

protected:
    /// forward(x): the output from a zero initial state.
    Tensor compute(const TensorView& input) const override;
    /// evolve over (B, T, Hin): T is the sequence axis; the States h and c carry over.
    Tensor evolveImpl(const TensorView& input, const Recorder& recorder) override;

private:
    /// Per-layer parameter ids.
    struct LayerIds {
        AttributeId weightIh, weightHh, biasIh, biasHh;
    };
    /// Where the sequence and the states live for one run.
    struct Run {
        const float* x = nullptr;   ///< rows of Hin values, (L, N) or (N, L) order
        std::int64_t steps = 0;     ///< L
        std::int64_t batch = 0;     ///< N
        bool batchMajor = false;    ///< rows in (N, L) order
        const float* h0 = nullptr;  ///< initial h of layer k, element n at k*layerStride +
        const float* c0 = nullptr;  ///< n*batchStride; null: zeros
        std::int64_t layerStride = 0;
        std::int64_t batchStride = 0;  ///< 0 gives every batch element the same initial state
        float* output = nullptr;       ///< rows of H values, same order as x
        float* hN = nullptr;           ///< (num_layers, N, H)
        float* cN = nullptr;
        float* hTrace = nullptr;  ///< optional (N, L, num_layers, H)
        float* cTrace = nullptr;
    };

    /// Checks an x layout and returns (L, N); `unbatched` tells which layout was seen.
    std::pair<std::int64_t, std::int64_t> checkInput(const Shape& x, bool& unbatched) const;
    /// Checks h0 / c0 against the expected (num_layers, N, H) or (num_layers, H).
    void checkState(const char* what, const Tensor& t, std::int64_t batch, bool unbatched) const;
    /// The recurrence over all layers.
    void run(const Run& r) const;
    /// One call of the torch form on an already validated x.
    LstmResult runTorch(const TensorView& x, const Tensor* h0, const Tensor* c0) const;

    std::int64_t m_numLayers;
    bool m_hasBias;
    bool m_batchFirst;
    std::vector<LayerIds> m_layers;
    AttributeId m_seed, m_h, m_c;
};

}  // namespace spike::engine
