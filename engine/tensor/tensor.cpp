// Tensor and Shape implementation. See tensor.hpp.
#include "engine/tensor/tensor.hpp"

#include "engine/tensor/error.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>

namespace spike::engine {

namespace {
/// Python-style text of raw extents, for messages about shapes that could not be constructed.
std::string tupleText(const std::int64_t* dims, std::size_t n)
{
    std::string s = "(";
    for (std::size_t i = 0; i < n; ++i) {
        s += (i > 0 ? ", " : "") + std::to_string(dims[i]);
    }
    return s + (n == 1 ? ",)" : ")");
}

/// Rejects more than kMaxRank extents, negative extents, and extents whose product overflows
/// int64. Zero extents are left out of the product, so (2^40, 2^40, 0) is refused too: its
/// element count is 0 but strides over it would overflow.
void checkDims(const std::int64_t* dims, std::size_t n)
{
    if (n > static_cast<std::size_t>(Shape::kMaxRank)) {
        throw Error("a tensor has at most 4 dimensions, got " + std::to_string(n) + " in shape " +
                    tupleText(dims, n));
    }
    for (std::size_t i = 0; i < n; ++i) {
        if (dims[i] < 0) {
            throw Error("tensor extents must be >= 0, got " + std::to_string(dims[i]) + " on axis " +
                        std::to_string(i) + " of shape " + tupleText(dims, n));
        }
    }
    std::int64_t product = 1;
    for (std::size_t i = 0; i < n; ++i) {
        if (dims[i] != 0 && __builtin_mul_overflow(product, dims[i], &product)) {
            throw Error("tensor shape " + tupleText(dims, n) +
                        " is too large: its non-zero extents multiply past 2^63 - 1");
        }
    }
}
}  // namespace

Shape::Shape(std::initializer_list<std::int64_t> dims)
{
    checkDims(dims.begin(), dims.size());
    std::copy(dims.begin(), dims.end(), m_dims.begin());
    m_rank = static_cast<int>(dims.size());
}

Shape::Shape(const std::vector<std::int64_t>& dims)
{
    checkDims(dims.data(), dims.size());
    std::copy(dims.begin(), dims.end(), m_dims.begin());
    m_rank = static_cast<int>(dims.size());
}

std::int64_t Shape::numel() const
{
    // checkDims() guaranteed the product of the non-zero extents fits, and a zero only lowers it.
    std::int64_t n = 1;
    for (int i = 0; i < m_rank; ++i) {
        n *= m_dims[static_cast<std::size_t>(i)];
    }
    return n;
}

std::vector<std::int64_t> Shape::dims() const
{
    return {m_dims.begin(), m_dims.begin() + m_rank};
}

Shape Shape::prepended(std::int64_t n) const
{
    std::vector<std::int64_t> d{n};
    const auto rest = dims();
    d.insert(d.end(), rest.begin(), rest.end());
    return Shape(d);
}

Shape Shape::withoutFirst() const
{
    if (m_rank == 0) {
        throw Error("cannot drop the first axis of a scalar shape");
    }
    const auto d = dims();
    return Shape(std::vector<std::int64_t>(d.begin() + 1, d.end()));
}

std::string Shape::toString() const
{
    std::ostringstream os;
    os << '(';
    for (int i = 0; i < m_rank; ++i) {
        if (i > 0) {
            os << ", ";
        }
        os << m_dims[static_cast<std::size_t>(i)];
    }
    if (m_rank == 1) {
        os << ',';
    }
    os << ')';
    return os.str();
}

bool operator==(const Shape& a, const Shape& b)
{
    if (a.m_rank != b.m_rank) {
        return false;
    }
    for (int i = 0; i < a.m_rank; ++i) {
        if (a.m_dims[static_cast<std::size_t>(i)] != b.m_dims[static_cast<std::size_t>(i)]) {
            return false;
        }
    }
    return true;
}

TensorView TensorView::reshaped(const Shape& shape) const
{
    if (shape.numel() != m_shape.numel()) {
        throw Error("cannot view a tensor of shape " + m_shape.toString() + " as " +
                    shape.toString());
    }
    return {m_data, shape};
}

Tensor TensorView::copy() const
{
    Tensor t(m_shape);
    std::copy(m_data, m_data + m_shape.numel(), t.data());
    return t;
}

Tensor::Tensor() : m_shape({0}) {}

Tensor::Tensor(const Shape& shape, float fill) : m_shape(shape)
{
    const std::int64_t n = shape.numel();
    if (n > kMaxElements) {
        throw Error("tensor of shape " + shape.toString() + " has " + std::to_string(n) +
                    " elements, more than the limit of " + std::to_string(kMaxElements));
    }
    m_data.assign(static_cast<std::size_t>(n), fill);
}

Tensor::Tensor(const Shape& shape, const std::vector<float>& values) : Tensor(shape)
{
    if (static_cast<std::int64_t>(values.size()) != shape.numel()) {
        throw Error("tensor of shape " + shape.toString() + " needs " +
                    std::to_string(shape.numel()) + " values, got " + std::to_string(values.size()));
    }
    std::copy(values.begin(), values.end(), m_data.begin());
}

Tensor Tensor::scalar(float value)
{
    return Tensor(Shape{}, value);
}

float Tensor::at(std::initializer_list<std::int64_t> index) const
{
    std::int64_t flatIndex = 0;
    int axis = 0;
    for (const std::int64_t i : index) {
        flatIndex = flatIndex * m_shape[axis] + i;
        ++axis;
    }
    return m_data[static_cast<std::size_t>(flatIndex)];
}

float Tensor::item() const
{
    if (m_data.size() != 1) {
        throw Error("expected a single value, got a tensor of shape " + m_shape.toString());
    }
    return m_data[0];
}

Tensor::ArrayMap Tensor::flat()
{
    return {m_data.data(), static_cast<Eigen::Index>(m_data.size())};
}

Tensor::ConstArrayMap Tensor::flat() const
{
    return {m_data.data(), static_cast<Eigen::Index>(m_data.size())};
}

namespace {
std::pair<Eigen::Index, Eigen::Index> matrixExtents(const Shape& s)
{
    if (s.rank() == 0) {
        return {1, 1};
    }
    if (s.rank() == 1) {
        return {1, s[0]};
    }
    return {s[0], s.numel() / std::max<std::int64_t>(s[0], 1)};
}
}  // namespace

Tensor::MatrixMap Tensor::matrix()
{
    const auto [r, c] = matrixExtents(m_shape);
    return {m_data.data(), r, c};
}

Tensor::ConstMatrixMap Tensor::matrix() const
{
    const auto [r, c] = matrixExtents(m_shape);
    return {m_data.data(), r, c};
}

Tensor Tensor::reshaped(const Shape& shape) const
{
    Tensor t(*this);
    t.reshape(shape);
    return t;
}

void Tensor::reshape(const Shape& shape)
{
    if (shape.numel() != m_shape.numel()) {
        throw Error("cannot reshape a tensor of shape " + m_shape.toString() + " to " +
                    shape.toString());
    }
    m_shape = shape;
}

void Tensor::resize(const Shape& shape)
{
    const std::int64_t n = shape.numel();
    if (n > kMaxElements) {
        throw Error("tensor of shape " + shape.toString() + " is too large");
    }
    m_shape = shape;
    m_data.resize(static_cast<std::size_t>(n));
}

void Tensor::fill(float value)
{
    std::fill(m_data.begin(), m_data.end(), value);
}

bool Tensor::allFinite() const
{
    return std::all_of(m_data.begin(), m_data.end(), [](float v) { return std::isfinite(v); });
}

bool Tensor::identical(const Tensor& other) const
{
    return m_shape == other.m_shape && m_data.size() == other.m_data.size() &&
           (m_data.empty() ||
            std::memcmp(m_data.data(), other.m_data.data(), m_data.size() * sizeof(float)) == 0);
}

void copyLeadingBlock(const Tensor& from, Tensor& to)
{
    const int rank = from.rank();
    std::vector<std::int64_t> common(static_cast<std::size_t>(rank));
    for (int a = 0; a < rank; ++a) {
        common[static_cast<std::size_t>(a)] = std::min(from.dim(a), to.dim(a));
    }
    const std::int64_t inner = rank == 0 ? 1 : common.back();
    if (inner == 0) {
        return;
    }
    // Rows of the common block, walked as a multi-index over all axes but the last.
    std::int64_t rows = 1;
    for (int a = 0; a + 1 < rank; ++a) {
        rows *= common[static_cast<std::size_t>(a)];
    }
    std::vector<std::int64_t> index(static_cast<std::size_t>(std::max(rank - 1, 0)), 0);
    for (std::int64_t r = 0; r < rows; ++r) {
        std::int64_t src = 0;
        std::int64_t dst = 0;
        for (int a = 0; a + 1 < rank; ++a) {
            src = src * from.dim(a) + index[static_cast<std::size_t>(a)];
            dst = dst * to.dim(a) + index[static_cast<std::size_t>(a)];
        }
        if (rank > 0) {
            src *= from.dim(rank - 1);
            dst *= to.dim(rank - 1);
        }
        std::copy_n(from.data() + src, inner, to.data() + dst);
        for (int a = rank - 2; a >= 0; --a) {
            if (++index[static_cast<std::size_t>(a)] < common[static_cast<std::size_t>(a)]) {
                break;
            }
            index[static_cast<std::size_t>(a)] = 0;
        }
    }
}

}  // namespace spike::engine
