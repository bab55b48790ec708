// Linear splitting and the matrix exponential. See linear.hpp.
#include "engine/equations/linear.hpp"

#include <algorithm>
#include <cmath>

namespace spike::engine::equations {

ExprPtr inlineSubexpressions(const EquationModel& model, const ExprPtr& e)
{
    if (e->kind == NodeKind::Name) {
        if (const Subexpression* s = model.subexpression(e->name)) {
            return inlineSubexpressions(model, s->expr);
        }
        return e;
    }
    if (e->args.empty()) {
        return e;
    }
    auto copy = std::make_shared<Expr>(*e);
    copy->depth = 1;
    for (auto& a : copy->args) {
        a = inlineSubexpressions(model, a);
        copy->depth = std::max(copy->depth, 1 + a->depth);
    }
    return copy;
}

namespace {

bool isNumber(const ExprPtr& e, double v)
{
    return e && e->kind == NodeKind::Number && e->value == v;
}

ExprPtr add(const ExprPtr& a, const ExprPtr& b)
{
    if (!a) return b;
    if (!b) return a;
    return Expr::binary(Op::Add, a, b, a->position, a->length);
}

ExprPtr negate(const ExprPtr& a)
{
    if (!a) return nullptr;
    return Expr::unary(Op::Neg, a, a->position, a->length);
}

ExprPtr mul(const ExprPtr& a, const ExprPtr& b)
{
    if (!a || !b) return nullptr;
    if (isNumber(a, 1.0)) return b;
    if (isNumber(b, 1.0)) return a;
    return Expr::binary(Op::Mul, a, b, a->position, a->length);
}

ExprPtr div(const ExprPtr& a, const ExprPtr& b)
{
    if (!a) return nullptr;
    return Expr::binary(Op::Div, a, b, a->position, a->length);
}

}  // namespace

std::optional<std::pair<ExprPtr, ExprPtr>> splitLinear(const ExprPtr& e, const std::string& x)
{
    using Split = std::pair<ExprPtr, ExprPtr>;
    if (!mentions(e, x)) {
        return Split{nullptr, e};
    }
    if (e->kind == NodeKind::Name) {
        return Split{Expr::number(1.0, e->position, e->length), nullptr};
    }
    if (e->kind == NodeKind::Unary && e->op == Op::Neg) {
        const auto s = splitLinear(e->args[0], x);
        if (!s) return std::nullopt;
        return Split{negate(s->first), negate(s->second)};
    }
    if (e->kind != NodeKind::Binary) {
        return std::nullopt;
    }
    const ExprPtr& l = e->args[0];
    const ExprPtr& r = e->args[1];
    switch (e->op) {
    case Op::Add:
    case Op::Sub: {
        const auto a = splitLinear(l, x);
        const auto b = splitLinear(r, x);
        if (!a || !b) return std::nullopt;
        if (e->op == Op::Add) {
            return Split{add(a->first, b->first), add(a->second, b->second)};
        }
        return Split{add(a->first, negate(b->first)), add(a->second, negate(b->second))};
    }
    case Op::Mul:
        if (!mentions(l, x)) {
            const auto b = splitLinear(r, x);
            if (!b) return std::nullopt;
            return Split{mul(l, b->first), mul(l, b->second)};
        }
        if (!mentions(r, x)) {
            const auto a = splitLinear(l, x);
            if (!a) return std::nullopt;
            return Split{mul(a->first, r), mul(a->second, r)};
        }
        return std::nullopt;
    case Op::Div:
        if (!mentions(r, x)) {
            const auto a = splitLinear(l, x);
            if (!a) return std::nullopt;
            return Split{div(a->first, r), div(a->second, r)};
        }
        return std::nullopt;
    default:
        return std::nullopt;
    }
}

void propagators(const std::vector<double>& m, int n, double dt, std::vector<double>& phi,
                 std::vector<double>& gamma)
{
    const int k = 2 * n;
    std::vector<double> a(static_cast<std::size_t>(k * k), 0.0);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            a[static_cast<std::size_t>(i * k + j)] = m[static_cast<std::size_t>(i * n + j)] * dt;
        }
        a[static_cast<std::size_t>(i * k + n + i)] = dt;
    }
    double norm = 0.0;
    for (int i = 0; i < k; ++i) {
        double row = 0.0;
        for (int j = 0; j < k; ++j) {
            row += std::abs(a[static_cast<std::size_t>(i * k + j)]);
        }
        norm = std::max(norm, row);
    }
    int squarings = 0;
    if (norm > 0.5) {
        squarings = static_cast<int>(std::ceil(std::log2(norm / 0.5)));
    }
    const double scale = std::ldexp(1.0, -squarings);
    for (auto& v : a) {
        v *= scale;
    }
    const auto matmul = [k](const std::vector<double>& x, const std::vector<double>& y) {
        std::vector<double> z(static_cast<std::size_t>(k * k), 0.0);
        for (int i = 0; i < k; ++i) {
            for (int l = 0; l < k; ++l) {
                const double xil = x[static_cast<std::size_t>(i * k + l)];
                if (xil == 0.0) continue;
                for (int j = 0; j < k; ++j) {
                    z[static_cast<std::size_t>(i * k + j)] += xil * y[static_cast<std::size_t>(l * k + j)];
                }
            }
        }
        return z;
    };
    // Taylor series to order 20: with norm <= 0.5 the remainder is far below double precision.
    std::vector<double> result(static_cast<std::size_t>(k * k), 0.0);
    std::vector<double> term(static_cast<std::size_t>(k * k), 0.0);
    for (int i = 0; i < k; ++i) {
        result[static_cast<std::size_t>(i * k + i)] = 1.0;
        term[static_cast<std::size_t>(i * k + i)] = 1.0;
    }
    for (int order = 1; order <= 20; ++order) {
        term = matmul(term, a);
        for (auto& v : term) {
            v /= order;
        }
        for (std::size_t i = 0; i < result.size(); ++i) {
            result[i] += term[i];
        }
    }
    for (int s = 0; s < squarings; ++s) {
        result = matmul(result, result);
    }
    phi.assign(static_cast<std::size_t>(n * n), 0.0);
    gamma.assign(static_cast<std::size_t>(n * n), 0.0);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            phi[static_cast<std::size_t>(i * n + j)] = result[static_cast<std::size_t>(i * k + j)];
            gamma[static_cast<std::size_t>(i * n + j)] = result[static_cast<std::size_t>(i * k + n + j)];
        }
    }
}

}  // namespace spike::engine::equations
