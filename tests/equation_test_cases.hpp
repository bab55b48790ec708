// What the generated-code tests of equation programs share (test_equation_native: native code
// for the CPU; test_equation_device_code: device code for CUDA): a text that uses every function
// the language has (and t), and each library model's input scale and time step, as
// test_equation_parity drives them. Header-only; tests only.
#pragma once

#include <string>

namespace spike::tests {

/// Every function, comparison and logical operator, t, a refractory period.
inline const char* const kEveryFunction =
    "dv/dt = (v_rest - v + I + f) / tau + 0.1*mV/ms*sin(t/ms) : volt (unless refractory)\n"
    "I : volt (input)\ntau = 10*ms : second\nv_rest = -70*mV : volt\nx = v / mV : 1\n"
    "f = 0.1*mV*(sin(x) + cos(x) + tan(x/10) + sinh(x/50) + cosh(x/50) + tanh(x) + arcsin(tanh(x/10))"
    " + arccos(tanh(x/10)) + arctan(x) + exp(x/20) + log(1 + abs(x)) + log10(1 + abs(x))"
    " + exprel(x/10) + (abs(x)/100)**1.7 + sign(x) + floor(x/7) + ceil(x/9) + int(x/11)"
    " + clip(x, -65, -55) + sqrt(abs(x)) + int(x > -60 and not (x < -80 or x == -75))) : volt\n"
    "v(0) = v_rest\nthreshold: v > -50*mV and v != -49*mV\nreset: v = v_rest\nrefractory: 2*ms\n";

/// The input scale of a library model's ports [SI].
inline float equationDriveOf(const std::string& name)
{
    if (name == "Izhikevich") return 0.012F;
    if (name == "AdEx") return 6e-10F;
    if (name == "HodgkinHuxley") return 0.12F;
    if (name == "QIF") return 0.01F;
    if (name == "FitzHughNagumo") return 0.8F;
    if (name == "COBALIF") return 0.3F;  // conductance increments relative to the leak
    return 0.04F;
}

/// The time step a library model is tested at [s].
inline double equationDtOf(const std::string& name)
{
    if (name == "HodgkinHuxley") return 1e-5;
    if (name == "FitzHughNagumo") return 5e-5;
    return 1e-4;
}

}  // namespace spike::tests
