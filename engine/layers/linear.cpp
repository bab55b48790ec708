// Linear, Flatten, Identity. See linear.hpp.
#include "engine/layers/linear.hpp"

#include "engine/layers/init.hpp"

namespace spike::engine {

Linear::Linear(std::int64_t inFeatures, std::int64_t outFeatures, bool bias,
               const AttributeMap& initial)
    : Layer(Shape{inFeatures}, Shape{outFeatures}), m_hasBias(bias)
{
    if (inFeatures < 1 || outFeatures < 1) {
        throw Error("Linear: in_features and out_features must be >= 1, got (" +
                    std::to_string(inFeatures) + ", " + std::to_string(outFeatures) + ")");
    }
    m_seed = addAttribute(simulationParameter("seed").integer().range(0, 16777216)
                              .initConstant(0.0F).live(false)
                              .doc("Seed of the weight initialisation (used by resetParameters)"));
    m_weight = addAttribute(parameter("weight").family("weights")
                                .shapes({Shape{outFeatures, inFeatures}})
                                .init(uniformInit(Shape{outFeatures, inFeatures}, inFeatures, 1))
                                .doc("Weights (out_features, in_features)"));
    if (bias) {
        m_bias = addAttribute(parameter("bias").family("biases").shapes({Shape{outFeatures}})
                                  .init(uniformInit(Shape{outFeatures}, inFeatures, 2))
                                  .doc("Bias (out_features,)"));
    }
    finishRegistration(initial);
}

std::string Linear::extraRepr() const
{
    return "in_features=" + std::to_string(sizeIn()) + ", out_features=" +
           std::to_string(sizeOut()) + ", bias=" + (m_hasBias ? "True" : "False");
}

nlohmann::json Linear::config() const
{
    return {{"in_features", sizeIn()}, {"out_features", sizeOut()}, {"bias", m_hasBias}};
}

Tensor Linear::compute(const TensorView& input) const
{
    const std::int64_t in = sizeIn();
    if (input.dim(input.rank() - 1) != in) {
        throw Error(where() + ": input " + input.shape().toString() + " has " +
                    std::to_string(input.dim(input.rank() - 1)) +
                    " features in its last axis, expected " + std::to_string(in));
    }
    const std::int64_t rows = input.numel() / in;
    std::vector<std::int64_t> outDims = input.shape().dims();
    outDims.back() = sizeOut();
    Tensor out{Shape(outDims)};
    const Eigen::Map<const Tensor::RowMatrix> x(input.data(), rows, in);
    Eigen::Map<Tensor::RowMatrix> y(out.data(), rows, sizeOut());
    y.noalias() = x * value(m_weight).matrix().transpose();
    if (m_hasBias) {
        y.rowwise() += Eigen::Map<const Eigen::RowVectorXf>(value(m_bias).data(), sizeOut());
    }
    return out;
}

Flatten::Flatten(std::int64_t size, int startDim, int endDim)
    : Layer(Shape{size}, Shape{size}), m_startDim(startDim), m_endDim(endDim)
{
    finishRegistration();
}

std::string Flatten::extraRepr() const
{
    return "start_dim=" + std::to_string(m_startDim) + ", end_dim=" + std::to_string(m_endDim);
}

nlohmann::json Flatten::config() const
{
    return {{"shape", {sizeIn()}}, {"start_dim", m_startDim}, {"end_dim", m_endDim}};
}

Tensor Flatten::compute(const TensorView& input) const
{
    const int rank = input.rank();
    const int start = m_startDim < 0 ? m_startDim + rank : m_startDim;
    const int end = m_endDim < 0 ? m_endDim + rank : m_endDim;
    if (rank == 0 || start < 0 || end >= rank || start > end) {
        throw Error(where() + ": cannot flatten axes " + std::to_string(m_startDim) + ".." +
                    std::to_string(m_endDim) + " of an input " + input.shape().toString());
    }
    std::vector<std::int64_t> dims;
    std::int64_t merged = 1;
    for (int a = 0; a < rank; ++a) {
        if (a < start || a > end) {
            dims.push_back(input.dim(a));
        } else {
            merged *= input.dim(a);
            if (a == end) {
                dims.push_back(merged);
            }
        }
    }
    Tensor out = input.copy();
    out.reshape(Shape(dims));
    return out;
}

Identity::Identity(std::int64_t size) : Layer(Shape{size}, Shape{size})
{
    finishRegistration();
}

nlohmann::json Identity::config() const
{
    return {{"shape", {sizeIn()}}};
}

Tensor Identity::compute(const TensorView& input) const
{
    return input.copy();
}

}  // namespace spike::engine
