// Tensor: the engine's dense float32 array (rank 0 to 4), contiguous, C (row-major) order.
//
// Owns its storage (16-byte aligned through Eigen's allocator) and hands out Eigen maps over it.
// A rank-0 tensor is a scalar holding one element. Copies are deep; moves are cheap.
// Not thread-safe: a tensor belongs to whichever thread owns the module that holds it.
#pragma once

#include "engine/tensor/tensor_memory.hpp"

#include <Eigen/Core>

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace spike::engine {

/// Shape of a tensor: up to four extents, each >= 0, whose non-zero extents multiply to at most
/// INT64_MAX. Rank 0 means a scalar (one element).
class Shape {
public:
    static constexpr int kMaxRank = 4;

    Shape() = default;
    /// Throws spike::engine::Error naming the shape when more than four extents or a negative
    /// extent is given, or when the non-zero extents multiply past INT64_MAX (even if another
    /// extent is 0), so numel() never overflows.
    Shape(std::initializer_list<std::int64_t> dims);
    /// Same checks as the initializer-list constructor.
    explicit Shape(const std::vector<std::int64_t>& dims);

    int rank() const { return m_rank; }
    std::int64_t operator[](int axis) const { return m_dims[static_cast<std::size_t>(axis)]; }
    /// Number of elements (1 for a scalar, 0 when any extent is 0); never overflows.
    std::int64_t numel() const;
    std::vector<std::int64_t> dims() const;
    /// This shape with an extra leading axis of extent n (throws beyond rank 4).
    Shape prepended(std::int64_t n) const;
    /// This shape without its first axis (rank must be >= 1).
    Shape withoutFirst() const;
    /// Python-style text: "()" , "(4,)", "(3, 4)".
    std::string toString() const;

    friend bool operator==(const Shape& a, const Shape& b);
    friend bool operator!=(const Shape& a, const Shape& b) { return !(a == b); }

private:
    std::array<std::int64_t, kMaxRank> m_dims{};
    int m_rank = 0;
};

class Tensor;

/// Non-owning read-only view of contiguous float32 data with a shape. Valid only while the
/// viewed storage lives; used to pass inputs down a module tree without copying them.
class TensorView {
public:
    TensorView(const float* data, const Shape& shape) : m_data(data), m_shape(shape) {}
    const float* data() const { return m_data; }
    const Shape& shape() const { return m_shape; }
    int rank() const { return m_shape.rank(); }
    std::int64_t dim(int axis) const { return m_shape[axis]; }
    std::int64_t numel() const { return m_shape.numel(); }
    float operator[](std::int64_t i) const { return m_data[i]; }
    /// Same data seen with another shape of equal numel; throws Error otherwise.
    TensorView reshaped(const Shape& shape) const;
    /// An owning copy.
    Tensor copy() const;

private:
    const float* m_data;
    Shape m_shape;
};

/// Dense float32 tensor with value semantics.
class Tensor {
public:
    using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    using MatrixMap = Eigen::Map<RowMatrix, Eigen::Aligned16>;
    using ConstMatrixMap = Eigen::Map<const RowMatrix, Eigen::Aligned16>;
    using ArrayMap = Eigen::Map<Eigen::ArrayXf, Eigen::Aligned16>;
    using ConstArrayMap = Eigen::Map<const Eigen::ArrayXf, Eigen::Aligned16>;

    /// An empty tensor: shape (0,), no elements. Distinct from a scalar.
    Tensor();
    /// A tensor of the given shape filled with `fill`. Throws Error for sizes over kMaxElements.
    explicit Tensor(const Shape& shape, float fill = 0.0F);
    /// A tensor of the given shape taking its values from `values` (size must equal numel).
    Tensor(const Shape& shape, const std::vector<float>& values);

    static Tensor scalar(float value);
    static Tensor zeros(const Shape& shape) { return Tensor(shape, 0.0F); }
    static Tensor full(const Shape& shape, float value) { return Tensor(shape, value); }

    /// Largest element count a single tensor may hold (2^31 - 1), so a typo cannot exhaust memory
    /// silently; larger requests throw an Error naming the shape.
    static constexpr std::int64_t kMaxElements = 2147483647;

    const Shape& shape() const { return m_shape; }
    int rank() const { return m_shape.rank(); }
    std::int64_t dim(int axis) const { return m_shape[axis]; }
    std::int64_t numel() const { return static_cast<std::int64_t>(m_data.size()); }
    bool isScalar() const { return m_shape.rank() == 0; }

    float* data() { return m_data.data(); }
    const float* data() const { return m_data.data(); }
    float& operator[](std::int64_t i) { return m_data[static_cast<std::size_t>(i)]; }
    float operator[](std::int64_t i) const { return m_data[static_cast<std::size_t>(i)]; }
    /// Element at a multi-index (bounds are the caller's responsibility).
    float at(std::initializer_list<std::int64_t> index) const;
    /// The single value of a scalar or one-element tensor; throws Error otherwise.
    float item() const;

    /// Non-owning view of this tensor (valid while it lives and is not resized).
    TensorView view() const { return {m_data.data(), m_shape}; }

    /// All elements as a flat array.
    ArrayMap flat();
    ConstArrayMap flat() const;
    /// View as a row-major matrix: rank 2 as is, rank 1 as a row (1, n), rank 3/4 as
    /// (dim0, rest). A scalar is (1, 1).
    MatrixMap matrix();
    ConstMatrixMap matrix() const;

    /// Same data, new shape of equal numel; throws Error naming both shapes otherwise.
    Tensor reshaped(const Shape& shape) const;
    void reshape(const Shape& shape);
    /// Resizes to `shape`, reusing storage when numel is unchanged; contents unspecified.
    void resize(const Shape& shape);
    void fill(float value);

    /// True when every element is finite (no NaN, no Inf).
    bool allFinite() const;
    /// Bit-exact equality of shape and contents.
    bool identical(const Tensor& other) const;

private:
    Shape m_shape;
    std::vector<float, TensorAllocator<float>> m_data;  ///< tensor_memory.hpp
};

/// Copies the leading block common to `from` and `to` (the same rank; extents may differ) from
/// `from` into `to`: entry (i, j, ...) for every i < min of the first extents, and so on; the
/// rest of `to` is left as it is. One copy per row of the block.
void copyLeadingBlock(const Tensor& from, Tensor& to);

}  // namespace spike::engine
