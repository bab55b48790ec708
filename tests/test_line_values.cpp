// engine/equations/line_values: an equation line with one neuron's values put in. The value of
// a derivative's right-hand side is the rate the engine's own Euler step applies (Izhikevich,
// compiled and stepped once); the terms of "(v_rest - v + i_exc + i_inh) / tau_mem" are the leak
// and each input and add up to the whole; conditions are 1 or 0; a name without a value leaves
// the substituted names in place and no total; a line outside the language has no values.
#include "engine/equations/compiler.hpp"
#include "engine/equations/line_values.hpp"
#include "engine/equations/model.hpp"
#include "engine/equations/population.hpp"

#include <QtTest/QtTest>

#include <cmath>
#include <map>
#include <string>

using namespace spike::engine::equations;

namespace {

ValueLookup lookupIn(const std::map<std::string, double>& values)
{
    return [values](const std::string& name) -> std::optional<double> {
        const auto it = values.find(name);
        return it == values.end() ? std::nullopt : std::optional<double>(it->second);
    };
}

}  // namespace

class TestLineValues : public QObject {
    Q_OBJECT

private slots:
    void cubaDerivativeSplitsIntoLeakAndInputs()
    {
        const std::map<std::string, double> values{
            {"v_rest", -49.0}, {"v", -60.0}, {"i_exc", 3.0}, {"i_inh", -1.5}, {"tau_mem", 0.02}};
        const LineValues line = evaluateLine(
            "dv/dt = (v_rest - v + i_exc + i_inh) / tau_mem  # held while refractory", lookupIn(values));
        QVERIFY(line.parsed);
        QCOMPARE(QString::fromStdString(line.target), QString("dv/dt"));
        QCOMPARE(QString::fromStdString(line.op), QString("="));
        QVERIFY(!line.condition);
        QCOMPARE(QString::fromStdString(line.substituted),
                 QString("((-49) - (-60) + 3 + (-1.5))/0.02"));
        QVERIFY(line.value.has_value());
        QCOMPARE(*line.value, (-49.0 + 60.0 + 3.0 - 1.5) / 0.02);
        QCOMPARE(line.terms.size(), std::size_t{4});
        QCOMPARE(QString::fromStdString(line.terms[0].text), QString("v_rest/tau_mem"));
        QCOMPARE(QString::fromStdString(line.terms[1].text), QString("-(v/tau_mem)"));
        QCOMPARE(QString::fromStdString(line.terms[2].text), QString("i_exc/tau_mem"));
        QCOMPARE(QString::fromStdString(line.terms[3].text), QString("i_inh/tau_mem"));
        QCOMPARE(*line.terms[0].value, -49.0 / 0.02);
        QCOMPARE(*line.terms[1].value, 60.0 / 0.02);
        double sum = 0.0;
        for (const TermValue& t : line.terms) {
            sum += *t.value;
        }
        QVERIFY(std::fabs(sum - *line.value) <= 1e-9 * std::fabs(*line.value));
        QVERIFY(line.unknown.empty());
        QCOMPARE(line.valuesPutIn, 5);
    }

    void derivativeIsTheRateTheEngineSteps()
    {
        // Izhikevich in SI with units in the text; one Euler step of the compiled model moves v
        // by dt times the line's value.
        const std::string text = "dv/dt = (0.04*v**2/mV + 5*v + 140*mV - u + I) / ms : volt\n"
                                 "du/dt = a*(b*v - u) / ms : volt\n"
                                 "I = 10*mV : volt\n"
                                 "a = 0.02 : 1\n"
                                 "b = 0.2 : 1\n"
                                 "v(0) = -60*mV\n"
                                 "u(0) = b*v\n"
                                 "threshold: v >= 30*mV\n"
                                 "reset: v = -65*mV; u += 8*mV\n"
                                 "method: euler\n";
        const double dt = 1e-4;
        Population pop(compileModel(parseModel(text), dt), 1);
        pop.initialise();
        const double v0 = pop.state(0)[0];
        const double u0 = pop.state(1)[0];
        pop.step(nullptr, 0.0);
        const double v1 = pop.state(0)[0];
        const std::map<std::string, double> values{{"v", v0}, {"u", u0}, {"I", 10e-3}, {"a", 0.02}, {"b", 0.2}};
        const LineValues line =
            evaluateLine("dv/dt = (0.04*v**2/mV + 5*v + 140*mV - u + I) / ms : volt", lookupIn(values));
        QVERIFY(line.value.has_value());
        // float32 states: within a few ulps of v.
        QVERIFY2(std::fabs(v0 + dt * *line.value - v1) < 1e-6,
                 qPrintable(QString("v1 %1, from the line %2").arg(v1).arg(v0 + dt * *line.value)));
        // Unit names stay in the substituted text; the values put in are SI.
        QVERIFY2(QString::fromStdString(line.substituted).contains("/mV"), line.substituted.c_str());
        QVERIFY2(QString::fromStdString(line.substituted).startsWith("(0.04*(-0.06)**2/mV"),
                 line.substituted.c_str());
        QCOMPARE(line.terms.size(), std::size_t{5});
    }

    void conditionsAreOneOrZero()
    {
        const LineValues above = evaluateLine("v > v_th  # not while refractory", lookupIn({{"v", -49.0}, {"v_th", -50.0}}));
        QVERIFY(above.condition);
        QVERIFY(above.target.empty());
        QCOMPARE(*above.value, 1.0);
        QCOMPARE(QString::fromStdString(above.substituted), QString("(-49) > (-50)"));
        const LineValues below = evaluateLine("v >= threshold", lookupIn({{"v", 0.5}, {"threshold", 1.0}}));
        QCOMPARE(*below.value, 0.0);
        // "==" and "<=" are comparisons, not assignments.
        QVERIFY(evaluateLine("a == b", lookupIn({{"a", 1.0}, {"b", 1.0}})).condition);
        QVERIFY(evaluateLine("a <= b", lookupIn({{"a", 1.0}, {"b", 1.0}})).condition);
    }

    void assignmentsAndFunctions()
    {
        const LineValues alpha = evaluateLine("alpha = exp(-dt / tau_mem)", lookupIn({{"dt", 1e-3}, {"tau_mem", 0.02}}));
        QCOMPARE(QString::fromStdString(alpha.target), QString("alpha"));
        QCOMPARE(*alpha.value, std::exp(-1e-3 / 0.02));
        QVERIFY(alpha.terms.empty());  // one term
        const LineValues jump = evaluateLine("u += d", lookupIn({{"d", 8e-3}}));
        QCOMPARE(QString::fromStdString(jump.op), QString("+="));
        QCOMPARE(QString::fromStdString(jump.target), QString("u"));
        QCOMPARE(*jump.value, 8e-3);
        const LineValues clipped = evaluateLine("y = clip(x, 0, 1)", lookupIn({{"x", 3.0}}));
        QCOMPARE(*clipped.value, 1.0);
    }

    void unknownNamesLeaveNoTotal()
    {
        // The step's input x has no value: the known names are put in, x stays, no total.
        const LineValues line = evaluateLine("isyn = beta * (isyn + x)", lookupIn({{"beta", 0.5}, {"isyn", 2.0}}));
        QVERIFY(line.parsed);
        QVERIFY(!line.value.has_value());
        QCOMPARE(line.unknown, (std::vector<std::string>{"x"}));
        QCOMPARE(QString::fromStdString(line.substituted), QString("0.5*(2 + x)"));
        QCOMPARE(line.terms.size(), std::size_t{2});
        QCOMPARE(*line.terms[0].value, 1.0);
        QVERIFY(!line.terms[1].value.has_value());
    }

    void linesOutsideTheLanguageHaveNoValues()
    {
        for (const char* text : {"irec = spikes @ w_rec", "y = randn()", "spikes = min(floor(v), 3)", "= 3", ""}) {
            const LineValues line = evaluateLine(text, lookupIn({{"v", 1.0}}));
            QVERIFY2(!line.parsed, text);
            QVERIFY2(!line.value.has_value(), text);
        }
    }

    void siQuantitiesArePutInWithTheirUnit()
    {
        QCOMPARE(QString::fromStdString(*quantityText(-0.06532, "volt")), QString("-65.32*mV"));
        QCOMPARE(QString::fromStdString(*quantityText(0.02, "s")), QString("20*ms"));
        QCOMPARE(QString::fromStdString(*quantityText(2e-10, "farad")), QString("200*pF"));
        QCOMPARE(QString::fromStdString(*quantityText(1.0, "second")), QString("1*second"));
        QCOMPARE(QString::fromStdString(*quantityText(0.0, "volt")), QString("0*volt"));
        QCOMPARE(QString::fromStdString(*quantityText(5e-3, "siemens")), QString("5*mS"));
        QVERIFY(!quantityText(3.0, "mV").has_value());  // a module's own unit: a plain number
        QVERIFY(!quantityText(3.0, "").has_value());
        // The substituted line reads as the same SI values: evaluating it again gives the value.
        const std::map<std::string, double> values{{"v", -0.06532}, {"u", -0.006397}, {"a", 0.02}, {"b", 0.2}};
        const UnitsLookup units = [](const std::string& name) {
            return name == "v" || name == "u" ? std::string("volt") : std::string();
        };
        const LineValues line = evaluateLine("du/dt = a*(b*v - u) / ms", lookupIn(values), units);
        QCOMPARE(QString::fromStdString(line.substituted), QString("0.02*(0.2*(-65.32*mV) - (-6.397*mV))/ms"));
        const LineValues again = evaluateLine("x = " + line.substituted, lookupIn({}));
        QVERIFY(std::fabs(*again.value - *line.value) <= 1e-12 * std::fabs(*line.value));
    }

    void numbersAreShort()
    {
        QCOMPARE(QString::fromStdString(shortNumber(-65.0)), QString("-65"));
        QCOMPARE(QString::fromStdString(shortNumber(std::exp(-1.0))), QString("0.3679"));
        QCOMPARE(QString::fromStdString(shortNumber(2.5e-7)), QString("2.5e-07"));
        QCOMPARE(QString::fromStdString(shortNumber(1.5e9)), QString("1.5e+09"));
        QCOMPARE(QString::fromStdString(shortNumber(0.0)), QString("0"));
        QCOMPARE(QString::fromStdString(shortNumber(std::nan(""))), QString("nan"));
    }
};

QTEST_GUILESS_MAIN(TestLineValues)
#include "test_line_values.moc"
