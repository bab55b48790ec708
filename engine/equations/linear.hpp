// Linear structure of equations, for the exponential-Euler and exact integrators: splitting an
// expression into A*x + B, substituting subexpressions, and the matrix exponential that integrates
// a linear system exactly over one step. Pure functions; any thread.
#pragma once

#include "engine/equations/model.hpp"

#include <optional>
#include <utility>
#include <vector>

namespace spike::engine::equations {

/// `e` with every subexpression of `model` replaced by its definition (recursively).
ExprPtr inlineSubexpressions(const EquationModel& model, const ExprPtr& e);

/// Writes e = A * x + B with A and B free of `x`; nullopt when `e` is not linear in `x`. A null
/// pointer stands for zero.
std::optional<std::pair<ExprPtr, ExprPtr>> splitLinear(const ExprPtr& e, const std::string& x);

/// exp(M dt) and the integral of exp(M s) over [0, dt], for an n x n row-major matrix M, in
/// double (scaling and squaring of the augmented matrix [[M, I], [0, 0]] dt).
void propagators(const std::vector<double>& m, int n, double dt, std::vector<double>& phi,
                 std::vector<double>& gamma);

}  // namespace spike::engine::equations
