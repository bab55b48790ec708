// Instructions as C++ statements; see code_text.hpp.
#include "engine/equations/code_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace spike::engine::equations::code {

using kernels::EqOp;

std::string reg(int r)
{
    std::string s = std::to_string(r);
    s.insert(s.begin(), 'r');
    return s;
}

std::string floatLiteral(float v, Dialect dialect)
{
    char buf[64];
    if (!std::isfinite(v)) {
        if (dialect == Dialect::Device) {  // spike_f: the generated source's bits-to-float helper
            unsigned bits = 0;
            std::memcpy(&bits, &v, sizeof bits);
            std::snprintf(buf, sizeof buf, "spike_f(0x%08xu)", bits);
            return buf;
        }
        if (std::isnan(v)) {
            return "__builtin_nanf(\"\")";
        }
        return v > 0 ? "__builtin_inff()" : "(-__builtin_inff())";
    }
    std::snprintf(buf, sizeof buf, "%af", static_cast<double>(v));
    return buf;
}

std::string statement(const kernels::EqInstruction& ins, const std::vector<char>& perNeuron, Dialect dialect,
                      const std::string& dst, const std::vector<std::string>* names)
{
    const auto operand = [names](int r) {
        return r < 0 ? std::string("0.0f") : names != nullptr ? (*names)[static_cast<std::size_t>(r)] : reg(r);
    };
    const std::string d = !dst.empty() ? dst : ins.dst >= 0 ? reg(ins.dst) : "";
    const std::string a = operand(ins.a);
    const std::string b = operand(ins.b);
    const std::string c = operand(ins.c);
    const auto bin = [&](const char* op) { return d + " = " + a + " " + op + " " + b + ";"; };
    const auto cmp = [&](const char* op) { return d + " = " + a + " " + op + " " + b + " ? 1.0f : 0.0f;"; };
    const auto fn = [&](const char* f) { return d + " = " + f + "(" + a + ");"; };
    const std::string slot = std::to_string(ins.slot);
    // The device kernel applies kernels::eqApply to every arithmetic instruction: with the
    // operation a constant, the call folds to the same expression, so the bits are the kernel's.
    const std::string apply = d + " = K::eqApply(static_cast<K::EqOp>(" + std::to_string(static_cast<int>(ins.op)) +
                              "), " + a + ", " + b + ", " + c + ");";
    switch (ins.op) {
    case EqOp::Fill: return d + " = " + floatLiteral(ins.value, dialect) + ";";
    case EqOp::Load:
        return d + " = " + (perNeuron[static_cast<std::size_t>(ins.slot)] != 0 ? "s" + slot + "[i]" : "u" + slot) + ";";
    case EqOp::Store: return "s" + slot + "[i] = " + a + ";";
    case EqOp::Copy: return d + " = " + a + ";";
    default: break;
    }
    if (dialect == Dialect::Device) {
        return apply;
    }
    switch (ins.op) {
    case EqOp::Add: return bin("+");
    case EqOp::Sub: return bin("-");
    case EqOp::Mul: return bin("*");
    case EqOp::Div: return bin("/");
    case EqOp::Neg: return d + " = -" + a + ";";
    case EqOp::Exp: return fn("pm::exp");
    case EqOp::Sqrt: return fn("std::sqrt");
    case EqOp::Abs: return fn("std::fabs");
    case EqOp::Floor: return fn("std::floor");
    case EqOp::Trunc: return fn("std::trunc");
    case EqOp::Lt: return cmp("<");
    case EqOp::Le: return cmp("<=");
    case EqOp::Gt: return cmp(">");
    case EqOp::Ge: return cmp(">=");
    case EqOp::Eq: return cmp("==");
    case EqOp::Ne: return cmp("!=");
    case EqOp::And: return d + " = (" + a + " != 0.0f && " + b + " != 0.0f) ? 1.0f : 0.0f;";
    case EqOp::Or: return d + " = (" + a + " != 0.0f || " + b + " != 0.0f) ? 1.0f : 0.0f;";
    case EqOp::Not: return d + " = " + a + " != 0.0f ? 0.0f : 1.0f;";
    case EqOp::Select: return d + " = " + a + " != 0.0f ? " + b + " : " + c + ";";
    case EqOp::Max: return d + " = std::max(" + a + ", " + b + ");";
    default: return apply;
    }
}

std::vector<std::string> hoisted(const Program& program, const std::vector<char>& invariant,
                                 const std::vector<char>& perNeuron, Dialect dialect, std::vector<std::string>& once)
{
    std::vector<std::string> invariantName(static_cast<std::size_t>(std::max(program.registers, 0)));
    std::vector<std::string> body;
    for (std::size_t k = 0; k < program.code.size(); ++k) {
        const auto& ins = program.code[k];
        if (invariant[k] == 0) {
            body.push_back(statement(ins, perNeuron, dialect));
            continue;
        }
        const std::string name = "h" + std::to_string(k);  // "@ = " dropped from the statement
        once.push_back("const float " + name + " = " + statement(ins, perNeuron, dialect, "@", &invariantName).substr(4));
        invariantName[static_cast<std::size_t>(ins.dst)] = name;
        body.push_back(reg(ins.dst) + " = " + name + ";");
    }
    return body;
}

std::string hex(std::size_t h)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%016zx", h);
    return buf;
}

}  // namespace spike::engine::equations::code
