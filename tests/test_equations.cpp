// The equation language (engine/equations): parsing and unit checks with messages at the
// character, the integration methods against analytic solutions (exponential decay, a harmonic
// oscillator, a linear two-state system), threshold / reset / refractoriness with Brian2's
// timing, random and mutated texts that must give an error or a model, never a crash, and texts
// nested or expanding beyond the parser's limits, refused at the character.
#include "engine/equations/compiler.hpp"
#include "engine/equations/model.hpp"
#include "engine/equations/population.hpp"
#include "engine/tensor/random.hpp"

#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

using namespace spike::engine::equations;

namespace {

const char* kIzhikevich = R"(name: Izhikevich
dv/dt = (0.04*v**2/mV + 5*v + 140*mV - u + I) / ms : volt  # membrane
du/dt = a*(b*v - u) / ms : volt
I : volt (input)
a = 0.02 : 1
b = 0.2 : 1
c = -65*mV : volt
d = 8*mV : volt
v(0) = -65*mV
u(0) = b*v
threshold: v >= 30*mV
reset: v = c; u += d
)";

/// The error a text gives ("" when it parses and compiles).
std::string errorOf(const std::string& text, int* position = nullptr)
{
    try {
        compileModel(parseModel(text), 1e-4);
    } catch (const EquationError& e) {
        if (position != nullptr) {
            *position = e.position();
        }
        return e.what();
    }
    return {};
}

/// Steps a one-neuron population and returns state 0 after each step.
std::vector<double> trace(const std::string& text, const std::string& method, double dt, int steps)
{
    Population pop(compileModel(parseModel(text), dt, method), 1);
    pop.initialise();
    std::vector<double> out;
    for (int k = 0; k < steps; ++k) {
        pop.step(nullptr, k * dt);
        out.push_back(pop.state(0)[0]);
    }
    return out;
}

}  // namespace

class TestEquations : public QObject {
    Q_OBJECT

private slots:
    void parsesAModel()
    {
        const EquationModel m = parseModel(kIzhikevich);
        QCOMPARE(m.name, std::string("Izhikevich"));
        QCOMPARE(m.states.size(), std::size_t(2));
        QCOMPARE(m.states[0].doc, std::string("membrane"));
        QCOMPARE(m.parameters.size(), std::size_t(5));
        QCOMPARE(m.inputs, std::vector<std::string>{"I"});
        QVERIFY(m.parameter("c") != nullptr);
        QCOMPARE(m.parameter("c")->value, -0.065);
        QVERIFY(m.parameter("c")->dim == dims::volt());
        QCOMPARE(m.reset.size(), std::size_t(2));
        QCOMPARE(defaultMethod(m), std::string("euler"));  // v**2: not linear
    }

    void unitNames()
    {
        QCOMPARE(namedUnit("mV")->value, 1e-3);
        QVERIFY(namedUnit("nS")->dim == dims::siemens());
        QCOMPARE(namedUnit("pF")->value, 1e-12);
        QCOMPARE(namedUnit("cm2")->value, 1e-4);
        QVERIFY(namedUnit("msiemens")->dim == dims::siemens());
        QVERIFY(!namedUnit("m"));  // free for a gate variable
        QVERIFY(!namedUnit("s"));
        QCOMPARE(dimensionName(dims::volt() / dims::second()), std::string("volt/second"));
        QCOMPARE(dimensionName(dims::ampere() / dims::metre().pow(2)), std::string("amp/metre**2"));
    }

    void mistakesAreShownAtTheirCharacter_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::addColumn<QString>("at");  // the text at the reported position
        QTest::newRow("syntax") << "dv/dt = (v + * 2) / ms : 1\nv(0) = 0" << "expected a value" << "*";
        QTest::newRow("unknown name") << "dv/dt = -v/tau : volt\nv(0) = 0*mV" << "unknown name 'tau'" << "tau";
        QTest::newRow("mixed units") << "dv/dt = (1*mV - I) / ms : volt\nI = 1*nA : amp\nv(0) = 0*mV"
                                     << "cannot subtract amp from volt" << "1*mV - I";
        QTest::newRow("derivative units") << "dv/dt = -v : volt\nv(0) = 0*mV" << "must be in volt/second" << "-v";
        QTest::newRow("no initial value") << "dv/dt = -v/ms : volt" << "has no initial value" << "v";
        QTest::newRow("constant zero") << "dv/dt = -v/(0*ms) : volt\nv(0) = 0*mV" << "division by zero" << "0*ms";
        QTest::newRow("caret") << "dv/dt = -v^2/ms : 1\nv(0) = 0" << "write x**2" << "^";
        QTest::newRow("prefixed unit") << "dv/dt = -v/ms : mV\nv(0) = 0*mV" << "write volt, not mV" << "mV";
        QTest::newRow("exp of volts") << "dv/dt = exp(v)/ms : 1\nv(0) = 0\nw = 1*mV : volt\nthreshold: exp(w) > 1"
                                      << "takes a number without units" << "w";
        QTest::newRow("parameter without value") << "dv/dt = -v/tau : volt\ntau : second\nv(0) = 0*mV"
                                                 << "has no value" << "tau";
        QTest::newRow("unknown method") << "dv/dt = -v/ms : volt\nv(0) = 0*mV\nmethod: leapfrog"
                                        << "unknown method 'leapfrog'" << "leapfrog";
        QTest::newRow("exponential euler nonlinear") << "dv/dt = -v**2/(ms*mV) : volt\nv(0) = 0*mV\nmethod: exponential_euler"
                                                     << "not linear in v" << "exponential_euler";
        QTest::newRow("threshold not a condition") << "dv/dt = -v/ms : volt\nv(0) = 0*mV\nthreshold: v + 1*mV"
                                                   << "must be a condition" << "v + 1*mV";
        QTest::newRow("reset of a parameter") << "dv/dt = -v/ms : volt\nc = 1*mV : volt\nv(0) = 0*mV\nreset: c = 0*mV"
                                              << "'c' is not a state" << "c";
        QTest::newRow("refractory units") << "dv/dt = -v/ms : volt\nv(0) = 0*mV\nrefractory: 2*mV"
                                          << "expected a time" << "2*mV";
        QTest::newRow("negative refractory") << "dv/dt = -v/ms : volt\nv(0) = 0*mV\nrefractory: -5*ms"
                                             << "the period must not be negative, got -5 ms" << "-5*ms";
        QTest::newRow("dt not a time") << "dv/dt = -v/ms : volt\nv(0) = 0*mV\ndt: 2*mV" << "expected a time step" << "2*mV";
        QTest::newRow("duplicate") << "dv/dt = -v/ms : volt\nv = 1*mV : volt\nv(0) = 0*mV" << "declared twice" << "v";
        QTest::newRow("cycle") << "dv/dt = -x/ms : volt\nx = y : volt\ny = x : volt\nv(0) = 0*mV"
                               << "in terms of itself" << "x";
    }
    void mistakesAreShownAtTheirCharacter()
    {
        QFETCH(QString, text);
        QFETCH(QString, message);
        QFETCH(QString, at);
        int position = -1;
        const std::string what = errorOf(text.toStdString(), &position);
        QVERIFY2(what.find(message.toStdString()) != std::string::npos, what.c_str());
        QVERIFY2(what.rfind("line ", 0) == 0, what.c_str());
        const std::string t = text.toStdString();
        QVERIFY2(position >= 0 && t.compare(static_cast<std::size_t>(position), at.size(), at.toStdString()) == 0,
                 (what + " at " + std::to_string(position)).c_str());
    }

    void methodsAgainstExponentialDecay()
    {
        // dv/dt = -v/tau from 1: v(t) = exp(-t/tau). Euler is (1 - dt/tau)^k exactly.
        const std::string text = "dv/dt = -v/tau : 1\ntau = 10*ms : second\nv(0) = 1";
        const double dt = 1e-4;
        const auto euler = trace(text, "euler", dt, 200);
        const auto rk2 = trace(text, "rk2", dt, 200);
        const auto rk4 = trace(text, "rk4", dt, 200);
        const auto expEuler = trace(text, "exponential_euler", dt, 200);
        const auto exact = trace(text, "exact", dt, 200);
        for (int k : {0, 49, 199}) {
            const double t = (k + 1) * dt;
            const double truth = std::exp(-t / 0.01);
            QVERIFY(std::abs(euler[k] - std::pow(1.0 - dt / 0.01, k + 1)) < 2e-6);
            QVERIFY(std::abs(exact[k] - truth) < 2e-6);
            QVERIFY(std::abs(expEuler[k] - truth) < 2e-6);
            QVERIFY(std::abs(rk4[k] - truth) < 2e-6);
            const double h = dt / 0.01;  // the midpoint rule's own factor per step
            QVERIFY(std::abs(rk2[k] - std::pow(1.0 - h + h * h / 2.0, k + 1)) < 2e-6);
        }
        // Euler's error is first order: clearly larger than the others at the end.
        QVERIFY(std::abs(euler[199] - std::exp(-2.0)) > 1e-4);
        QCOMPARE(defaultMethod(parseModel(text)), std::string("exact"));
    }

    void divisionByAConstantMultipliesByItsReciprocal()
    {
        // Izhikevich's ".../mV ... / ms" compiles without a division (a division costs several
        // multiplications per vector; Brian2's code multiplies by its loop-invariant constants too).
        const auto divisions = [](const Program& p) {
            return std::count_if(p.code.begin(), p.code.end(),
                                 [](const spike::kernels::EqInstruction& i) { return i.op == spike::kernels::EqOp::Div; });
        };
        QCOMPARE(divisions(compileModel(parseModel(kIzhikevich), 1e-4, "euler").step), 0);
        // x / c is x times the reciprocal of c rounded once to float, bit for bit, at every step.
        const std::string byConstant = "dv/dt = k / (3*ms) - v / (7*ms) : 1\nk = 0.7 : 1\nv(0) = 0.3";
        const std::string byReciprocal =
            "dv/dt = k * (1 / (3*ms)) - v * (1 / (7*ms)) : 1\nk = 0.7 : 1\nv(0) = 0.3";
        const auto a = trace(byConstant, "euler", 1e-4, 50);
        QCOMPARE(a, trace(byReciprocal, "euler", 1e-4, 50));
        const float first = 0.3F + static_cast<float>(1e-4) * (0.7F * static_cast<float>(1.0 / 3e-3) -
                                                               0.3F * static_cast<float>(1.0 / 7e-3));
        QVERIFY(static_cast<float>(a[0]) == first);  // exactly (QCOMPARE of floats is fuzzy)
        // A parameter stays a divisor (it may be edited while running), and so does a state.
        const std::string byParameter = "dv/dt = -v / tau : 1\ntau = 10*ms : second\nv(0) = 1";
        QCOMPARE(divisions(compileModel(parseModel(byParameter), 1e-4, "euler").step), 1);
        const std::string byState = "dv/dt = 1 / (v * second) : 1\nv(0) = 1";
        QCOMPARE(divisions(compileModel(parseModel(byState), 1e-4, "euler").step), 1);
        // So does a constant whose reciprocal would overflow float or lose precision below it.
        for (const char* divisor : {"1e-39*second", "1e39*second"}) {
            const std::string text = std::string("dv/dt = -v / (") + divisor + ") : 1\nv(0) = 1";
            QCOMPARE(divisions(compileModel(parseModel(text), 1e-4, "euler").step), 1);
        }
        const auto p = trace(byParameter, "euler", 1e-4, 1);
        QVERIFY(static_cast<float>(p[0]) == 1.0F + static_cast<float>(1e-4) * (-1.0F / 0.01F));
    }

    void exactSolvesACoupledLinearSystem()
    {
        // Harmonic oscillator x'' = -w^2 x with a drive: exact with propagators, and rk4 close.
        const std::string text =
            "dx/dt = y/ms : 1\ndy/dt = (-x + I)/ms : 1\nI = 0.5 : 1\nx(0) = 1\ny(0) = 0";
        const double dt = 1e-4;
        const auto exact = trace(text, "exact", dt, 3000);
        const auto rk4 = trace(text, "rk4", dt, 3000);
        for (int k : {10, 1000, 2999}) {
            const double t = (k + 1) * dt / 1e-3;  // in units of ms
            const double truth = 0.5 + 0.5 * std::cos(t);
            QVERIFY2(std::abs(exact[k] - truth) < 2e-5, std::to_string(exact[k] - truth).c_str());
            QVERIFY(std::abs(rk4[k] - truth) < 5e-4);  // float32 rounding of 3000 small steps
        }
    }

    void thresholdResetAndRefractoryFollowBrian2()
    {
        // A ramp of 1 per ms from 0, threshold 0.95, reset to 0, 2 ms refractory (20 steps at
        // 0.1 ms). Brian2: not_refractory = timestep(t - lastspike) >= 20, so after a spike in
        // step s the membrane is held through step s + 19 and moves again in step s + 20; it
        // needs 10 steps to cross: spikes at 9, 38, 67, 96.
        const std::string text = "dv/dt = 1/ms : 1 (unless refractory)\nv(0) = 0\n"
                                 "threshold: v > 0.95\nreset: v = 0\nrefractory: 2*ms";
        Population pop(compileModel(parseModel(text), 1e-4), 1);
        pop.initialise();
        std::vector<int> spikes;
        for (int k = 0; k < 100; ++k) {
            pop.step(nullptr, k * 1e-4);
            if (pop.spikes()[0] != 0.0F) {
                spikes.push_back(k);
            }
        }
        QCOMPARE(spikes, (std::vector<int>{9, 38, 67, 96}));
    }

    void conditionRefractoryCountsCrossings()
    {
        // A sine above 0.5 for a stretch: one spike per upward crossing, not one per step.
        const std::string text = "dx/dt = y/ms : 1\ndy/dt = -x/ms : 1\nx(0) = 0\ny(0) = 1\n"
                                 "threshold: x > 0.5\nrefractory: x > 0.5\nmethod: rk4";
        Population pop(compileModel(parseModel(text), 1e-4), 1);
        pop.initialise();
        int count = 0;
        for (int k = 0; k < 2000; ++k) {  // 200 ms; x = sin(t / ms) crosses 0.5 upwards at
                                          // t = pi/6 + 2 pi k ms: 32 times
            pop.step(nullptr, k * 1e-4);
            count += pop.spikes()[0] != 0.0F ? 1 : 0;
        }
        QCOMPARE(count, 32);
    }

    void inputsAndPerNeuronParameters()
    {
        const std::string text = "dv/dt = (-v + I)/tau : volt\ndg/dt = -g/tau : volt (input)\n"
                                 "I : volt (input)\ntau = 10*ms : second\nv(0) = 0*mV\ng(0) = 0*mV";
        Population pop(compileModel(parseModel(text), 1e-3), 3);
        const float taus[3] = {0.01F, 0.02F, 0.04F};
        pop.setParameter("tau", taus, 3);
        pop.parametersChanged();
        pop.initialise();
        const float current[3] = {1.0F, 1.0F, 1.0F};
        const float jump[3] = {0.0F, 0.5F, 0.0F};
        const float* inputs[2] = {jump, current};  // model.inputs order: g, then I
        QCOMPARE(pop.compiled().model.inputs, (std::vector<std::string>{"g", "I"}));
        pop.step(inputs, 0.0);
        for (int i = 0; i < 3; ++i) {
            QVERIFY(std::abs(pop.state(0)[i] - (1.0 - std::exp(-1e-3 / taus[i]))) < 1e-6);
        }
        QVERIFY(std::abs(pop.state(1)[1] - 0.5 * std::exp(-1e-3 / 0.02)) < 1e-6);
        QCOMPARE(pop.state(1)[0], 0.0F);
        QVERIFY_EXCEPTION_THROWN(pop.setParameter("I", taus, 3), spike::engine::Error);
        QVERIFY_EXCEPTION_THROWN(pop.setParameter("tau", taus, 2), spike::engine::Error);
    }

    void manyParametersAreEachFoundByName()
    {
        // 3000 declared parameters (found by name through an index, not a search per name):
        // setting the last one by name drives v, setting another leaves v alone.
        std::string text = "dv/dt = (p2999 - v)/(10*ms) : volt\nv(0) = 0*mV\nmethod: euler\n";
        for (int i = 0; i < 3000; ++i) {
            text += "p" + std::to_string(i) + " = " + std::to_string(i) + "*mV : volt\n";
        }
        Population pop(compileModel(parseModel(text), 1e-3), 2);
        const float drive[2] = {1.0F, -1.0F};
        const float other[2] = {5.0F, 5.0F};
        pop.setParameter("p2999", drive, 2);
        pop.setParameter("p1500", other, 2);
        pop.parametersChanged();
        pop.initialise();
        pop.step(nullptr, 0.0);
        QVERIFY(std::abs(pop.state(0)[0] - 0.1F) < 1e-7F);  // euler: 0 + 1 ms x (1 - 0) / 10 ms
        QVERIFY(std::abs(pop.state(0)[1] + 0.1F) < 1e-7F);
        QVERIFY_EXCEPTION_THROWN(pop.setParameter("p3000", drive, 2), spike::engine::Error);
    }

    void manyStatesAreCheckedAndFoundByName()
    {
        // 300 states, each looked up by name through the model's index: an initial value that
        // uses later states names the first of them in declaration order, whatever order the
        // expression writes them in.
        std::string text = "dv/dt = -v/(10*ms) : volt\nv(0) = 0*mV\nmethod: euler\n";
        std::string later;  // x5(0) uses states declared after x5
        std::string earlier;  // x5(0) uses one declared before
        for (int i = 0; i < 300; ++i) {
            const std::string x = "x" + std::to_string(i);
            text += "d" + x + "/dt = -" + x + "/(10*ms) : 1\n";
            later += x + "(0) = " + (i == 5 ? "x200 + x9 + x7 + x3" : "0") + "\n";
            earlier += x + "(0) = " + (i == 5 ? "x3 + 1" : "0") + "\n";
        }
        const std::string what = errorOf(text + later);
        QVERIFY2(what.find("x5(0) uses x7, whose initial value is set after it") != std::string::npos, what.c_str());

        EquationModel m = parseModel(text + earlier);
        QCOMPARE(m.states.size(), std::size_t{301});
        QCOMPARE(m.stateIndex("x299"), std::ptrdiff_t{300});
        QCOMPARE(m.kindOf("x150"), NameKind::State);
        QCOMPARE(m.kindOf("mV"), NameKind::Unit);
        QCOMPARE(m.kindOf("x300"), NameKind::Unknown);
        QVERIFY(m.parameter("x150") == nullptr);
        // Lists edited after parsing: a state added is found by searching until indexNames(); a
        // state renamed in place is found under its new name once indexed again.
        StateVariable late = m.states.back();
        late.name = "late";
        m.states.push_back(late);
        QCOMPARE(m.stateIndex("late"), std::ptrdiff_t{301});
        m.states[1].name = "renamed";
        m.indexNames();
        QCOMPARE(m.stateIndex("renamed"), std::ptrdiff_t{1});
        QVERIFY(m.state("x0") == nullptr);
        QCOMPARE(m.kindOf("late"), NameKind::State);
    }

    void deepAndExplodingTextsAreRefused()
    {
        // Pasted or generated texts thousands of levels deep once overflowed the stack (a crash
        // that lost the document) and subexpressions that use each other twice ran for hours:
        // each is refused at once with a message at the character, and the deepest accepted
        // texts still compute what they say.
        const auto refused = [](const std::string& text, const std::string& message, std::size_t at) {
            int position = -1;
            const std::string what = errorOf(text, &position);
            QVERIFY2(what.find(message) != std::string::npos, what.c_str());
            QCOMPARE(position, static_cast<int>(at));
        };
        const std::string tail = "/ms : 1\nv(0) = 1\n";
        const std::string head = "dv/dt = ";
        refused(head + std::string(100000, '(') + "-v" + std::string(100000, ')') + tail,
                "nest more than 200 levels", head.size() + kMaxNesting);
        refused(head + std::string(100000, '-') + "v" + tail, "nest more than 200 levels", head.size() + kMaxNesting);
        std::string power = "v";
        std::string calls = "v";
        std::string sum = "-(v";
        for (int k = 0; k < 10000; ++k) {
            power += "**v";
            calls = "abs(" + calls + ")";
            sum += "+v";
        }
        refused(head + power + tail, "nest more than 200 levels", head.size() + 1 + 3 * kMaxNesting);
        refused(head + calls + tail, "nest more than 200 levels", head.size() + 4 * kMaxNesting + 3);
        refused(head + sum + ")" + tail, "more than 500 operations deep", head.size() + 2);
        std::string nots = "dv/dt = -v/ms : 1\nv(0) = 1\nthreshold: ";
        for (int k = 0; k < 10000; ++k) {
            nots += "not ";
        }
        refused(nots + "v > 2\n", "nest more than 200 levels", nots.find("not") + 4 * kMaxNesting);
        // x1 = x0 + x0, x2 = x1 + x1, ...: 2^60 terms substituted, refused without building them.
        std::string doubling = "dv/dt = -x60/ms : 1\nv(0) = 1\nx0 = v : 1\n";
        for (int k = 1; k <= 60; ++k) {
            doubling += "x" + std::to_string(k) + " = x" + std::to_string(k - 1) + " + x" + std::to_string(k - 1) + " : 1\n";
        }
        refused(doubling, "grows to more than 100000 terms", head.size());
        // 3000 subexpressions, each the one before plus one: too deep once substituted.
        std::string chain = "dv/dt = -x3000/ms : 1\nv(0) = 1\nx0 = v : 1\n";
        for (int k = 1; k <= 3000; ++k) {
            chain += "x" + std::to_string(k) + " = x" + std::to_string(k - 1) + " + 1 : 1\n";
        }
        const std::string deep = errorOf(chain);
        QVERIFY2(deep.find("more than 1000 operations deep with its subexpressions substituted") != std::string::npos,
                 deep.c_str());
        // Three chains of 400, each starting from the top of the one before, used in that order:
        // each subexpression is typed once, so no walk goes 1000 deep, yet substituted the last
        // chain is 1200 levels deep. Measured, not walked: refused all the same.
        std::string staged = "dv/dt = -(a400 + b400 + c400)/ms : 1\nv(0) = 1\n";
        for (const auto& [stage, from] : std::vector<std::pair<std::string, std::string>>{{"a", "v"}, {"b", "a400"}, {"c", "b400"}}) {
            staged += stage + "0 = " + from + " : 1\n";
            for (int k = 1; k <= 400; ++k) {
                staged += stage + std::to_string(k) + " = " + stage + std::to_string(k - 1) + " + 1 : 1\n";
            }
        }
        refused(staged, "dv/dt is more than 1000 operations deep with its subexpressions substituted", head.size());

        // At the limits: 199 brackets, a 400-term sum and a 300-subexpression chain compute the
        // decay dv/dt = -v/ms exactly as the plain text does (the same float operations).
        const std::vector<double> plain = trace("dv/dt = -v/ms : 1\nv(0) = 1\n", "euler", 1e-4, 20);
        const std::vector<double> brackets =
            trace(head + std::string(199, '(') + "-v" + std::string(199, ')') + tail, "euler", 1e-4, 20);
        QCOMPARE(brackets, plain);
        std::string terms = "(v";
        for (int k = 1; k < 400; ++k) {
            terms += "+0*v";  // adds exact zeros: the sum is v in every bit
        }
        QCOMPARE(trace(head + "-" + terms + ")" + tail, "euler", 1e-4, 20), plain);
        std::string named = "dv/dt = -x300/ms : 1\nv(0) = 1\nx0 = v : 1\n";
        for (int k = 1; k <= 300; ++k) {
            named += "x" + std::to_string(k) + " = x" + std::to_string(k - 1) + " : 1\n";
        }
        QCOMPARE(trace(named, "euler", 1e-4, 20), plain);
    }

    void exactRefusesProductsOfStates()
    {
        // COBA's dv/dt = (ge*(Ee - v) + ...) / taum is linear in v and in ge apart, not together:
        // v's coefficient holds the state ge. Exact integration once accepted it, with propagators
        // computed as if ge were 0, and v never left El; Brian2's exact (linear) refuses it too.
        const EquationModel coba = parseModel(
            "dv/dt = (ge*(Ee - v) - (v - El)) / taum : volt\ndge/dt = -ge / taue : 1 (input)\n"
            "taum = 20*ms : second\ntaue = 5*ms : second\nEl = -60*mV : volt\nEe = 0*mV : volt\n"
            "v(0) = El\nge(0) = 0\n");
        const std::string why = methodRefusal(coba, "exact");
        QVERIFY2(why.find("dv/dt multiplies v by the state ge, so the system is not linear") != std::string::npos,
                 why.c_str());
        const std::vector<std::string> methods = applicableMethods(coba);
        QVERIFY(std::find(methods.begin(), methods.end(), "exact") == methods.end());
        QVERIFY(std::find(methods.begin(), methods.end(), "exponential_euler") != methods.end());
        QCOMPARE(defaultMethod(coba), std::string("euler"));
        // A coupled linear system with constant coefficients is still exact's.
        QVERIFY(methodRefusal(parseModel("dx/dt = y/ms : 1\ndy/dt = -x/ms - y/(10*ms) : 1\nx(0) = 1\ny(0) = 0\n"),
                              "exact")
                    .empty());
    }

    void exactIntegrationTakesAtMost32States()
    {
        // 5000 linear states once made exact integration build 75 million matrix slots (40 s and
        // gigabytes before a step): past kMaxExactStates it is refused, and the default is euler.
        const auto decoupled = [](int states) {
            std::string text;
            for (int k = 0; k < states; ++k) {
                const std::string x = "x" + std::to_string(k);
                text += "d" + x + "/dt = -" + x + "/ms : 1\n" + x + "(0) = 1\n";
            }
            return parseModel(text);
        };
        QCOMPARE(defaultMethod(decoupled(kMaxExactStates)), std::string("exact"));
        const EquationModel wide = decoupled(kMaxExactStates + 1);
        QCOMPARE(defaultMethod(wide), std::string("euler"));
        const std::string why = methodRefusal(wide, "exact");
        QVERIFY2(why.find("33 x 33") != std::string::npos && why.find("at most 32 states") != std::string::npos,
                 why.c_str());
        const std::vector<std::string> methods = applicableMethods(wide);
        QVERIFY(std::find(methods.begin(), methods.end(), "exact") == methods.end());
        const std::vector<double> euler = trace("dv/dt = -v/ms : 1\nv(0) = 1\n", "euler", 1e-4, 10);
        Population pop(compileModel(wide, 1e-4), 1);
        pop.initialise();
        for (int k = 0; k < 10; ++k) {
            pop.step(nullptr, k * 1e-4);
        }
        QCOMPARE(static_cast<double>(pop.state(kMaxExactStates)[0]), euler.back());
    }

    void randomAndMutatedTextsNeverCrash()
    {
        // Mutations of a valid model (deleted, doubled and replaced characters) and random
        // token soups: each parses and compiles or throws EquationError; never anything else.
        spike::engine::Random rng(17);
        const std::string base = kIzhikevich;
        const std::string alphabet = "dvtu/=*+-()#:;.,0123456789e vIabcdmV_<>!\n";
        int errors = 0;
        for (int trial = 0; trial < 3000; ++trial) {
            std::string text = base;
            const int edits = 1 + static_cast<int>(rng.uniform(0.0, 4.0));
            for (int e = 0; e < edits && !text.empty(); ++e) {
                const auto at = static_cast<std::size_t>(rng.uniform(0.0, static_cast<double>(text.size())));
                const char c = alphabet[static_cast<std::size_t>(rng.uniform(0.0, static_cast<double>(alphabet.size())))];
                switch (static_cast<int>(rng.uniform(0.0, 3.0))) {
                case 0: text.erase(at, 1); break;
                case 1: text.insert(at, 1, c); break;
                default: text[at] = c; break;
                }
            }
            if (trial % 3 == 0) {
                text.clear();
                const int len = static_cast<int>(rng.uniform(0.0, 60.0));
                for (int k = 0; k < len; ++k) {
                    text += alphabet[static_cast<std::size_t>(rng.uniform(0.0, static_cast<double>(alphabet.size())))];
                }
            }
            try {
                const CompiledModel c = compileModel(parseModel(text), 1e-4);
                Population pop(c, 2);
                pop.initialise();
                pop.step(nullptr, 0.0);
            } catch (const EquationError& e) {
                ++errors;
                QVERIFY(e.position() >= 0 && e.position() <= static_cast<int>(text.size()));
            }
        }
        QVERIFY(errors > 1000);
    }
};

QTEST_GUILESS_MAIN(TestEquations)
#include "test_equations.moc"
