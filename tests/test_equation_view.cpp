// The Equations tab: Brian2-style lines become readable mathematics (subscripts, Greek letters,
// superscripts, upright functions, ≤ and ≥, d v / d t); every type with equations renders and
// explains each of its symbols; the attributes among them are links with the attribute's doc,
// unit and value as tooltip, and a real click on one shows and focuses its Inspector row; no
// developer notes reach the user; random garbage renders without crashing; at 300 px nothing
// scrolls sideways.
#include "engine/io/module_factory.hpp"
#include "engine/neurons/model_library.hpp"
#include "ui/document/graph_document.hpp"
#include "tests/graph_test_models.hpp"
#include "ui/inspector/equation_text.hpp"
#include "ui/inspector/equation_view.hpp"
#include "ui/inspector/inspector.hpp"
#include "ui/window/main_window.hpp"

#include "inspector_input_helpers.hpp"
#include "real_input.hpp"

#include <QAbstractTextDocumentLayout>
#include <QDockWidget>
#include <QHelpEvent>
#include <QScrollBar>
#include <QTextBlock>
#include <QToolTip>
#include <QtTest/QtTest>

#include <memory>
#include <random>

using namespace spike::ui;
using spike::tests::documentOf;
using spike::engine::ModelEquations;
using spike::engine::ModuleTypeInfo;
using Json = nlohmann::json;

namespace {

/// Every run of text of the view's document with its format.
std::vector<std::pair<QString, QTextCharFormat>> fragments(const QTextBrowser& view)
{
    std::vector<std::pair<QString, QTextCharFormat>> out;
    for (QTextBlock b = view.document()->begin(); b.isValid(); b = b.next()) {
        for (auto it = b.begin(); !it.atEnd(); ++it) {
            out.emplace_back(it.fragment().text(), it.fragment().charFormat());
        }
    }
    return out;
}

/// "τ_mem" for a τ followed by a subscript "mem": each subscript with the character before it.
QStringList subscripts(const QTextBrowser& view)
{
    QStringList out;
    const auto all = fragments(view);
    for (std::size_t i = 1; i < all.size(); ++i) {
        if (all[i].second.verticalAlignment() == QTextCharFormat::AlignSubScript && !all[i - 1].first.isEmpty()) {
            out << all[i - 1].first.right(1) + QLatin1Char('_') + all[i].first;
        }
    }
    return out;
}

/// The link targets ("symbol:tau_mem") in the view's document.
QStringList anchors(const QTextBrowser& view)
{
    QStringList out;
    for (const auto& [text, format] : fragments(view)) {
        if (format.isAnchor() && !out.contains(format.anchorHref())) {
            out << format.anchorHref();
        }
    }
    return out;
}

/// A point of the viewport over the link to `name`, found as a person's eye would: by looking
/// at what is under each point (QTextEdit::anchorAt); null when it is not on screen.
QPoint linkPosition(const EquationView& view, const QString& name)
{
    const QString href = QString::fromLatin1(kSymbolLinkScheme) + name;
    for (int y = 1; y < view.viewport()->height(); y += 2) {
        for (int x = 1; x < view.viewport()->width(); x += 2) {
            if (view.anchorAt(QPoint(x, y)) == href) {
                return {x + 1, y};
            }
        }
    }
    return {};
}

/// Every symbol the lines of `equations` use that apply to `module`, in their order.
QStringList symbolsUsed(const ModelEquations& equations, const spike::engine::Module& module)
{
    QStringList out;
    for (const auto& line : equations.lines) {
        const bool negated = !line.onlyWith.empty() && line.onlyWith.front() == '!';
        const std::string needed = negated ? line.onlyWith.substr(1) : line.onlyWith;
        if (!needed.empty() && module.hasAttribute(needed) == negated) {
            continue;
        }
        for (const QString& s : renderEquation(QString::fromStdString(line.text)).symbols) {
            if (!out.contains(s)) {
                out << s;
            }
        }
    }
    return out;
}

}  // namespace

class TestEquationView : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void linesBecomeMathematics()
    {
        const RenderedEquation d = renderEquation(
            QStringLiteral("dv/dt = (v_rest - v) / tau_mem : volt (unless refractory)  # leak"));
        QVERIFY2(d.math.startsWith(QStringLiteral("d<i>v</i>/d<i>t</i>")), qPrintable(d.math));
        QVERIFY2(d.math.contains(QStringLiteral("<i>τ</i><sub>mem</sub>")), qPrintable(d.math));
        QVERIFY2(d.math.contains(QStringLiteral("<i>v</i><sub>rest</sub> − <i>v</i>")), qPrintable(d.math));
        QCOMPARE(d.note, QStringLiteral(": volt (unless refractory) — leak"));
        QCOMPARE(d.symbols, (QStringList{QStringLiteral("v"), QStringLiteral("v_rest"), QStringLiteral("tau_mem")}));

        const QString power = renderEquation(QStringLiteral("alpha = 1 - 2**(-dash_mem) + x^2")).math;
        QVERIFY2(power.contains(QStringLiteral("<i>α</i> = 1 − 2<sup>−<i>dash_mem</i></sup> + <i>x</i><sup>2</sup>")),
                 qPrintable(power));
        const QString functions = renderEquation(QStringLiteral("y = exp(-t/tau) * sqrt(dt) * log(2)")).math;
        QVERIFY2(functions.contains(QStringLiteral("exp(−<i>t</i>/<i>τ</i>) · √(<i>dt</i>) · log(2)")), qPrintable(functions));
        QCOMPARE(renderEquation(QStringLiteral("a <= b >= c != d")).math,
                 QStringLiteral("<i>a</i> ≤ <i>b</i> ≥ <i>c</i> ≠ <i>d</i>"));
        QCOMPARE(renderEquation(QStringLiteral("on = a and (b % c)")).math,
                 QStringLiteral("<i>on</i> = <i>a</i>  and  (<i>b</i>  mod  <i>c</i>)"));
        QCOMPARE(renderEquation(QStringLiteral("w = 1e-3")).math, QStringLiteral("<i>w</i> = 10<sup>−3</sup>"));
        QCOMPARE(renderEquation(QStringLiteral("post_j += v0")).math,
                 QStringLiteral("<i>post</i><sub><i>j</i></sub> += <i>v</i><sub>0</sub>"));
        // Links only where the test says so.
        const RenderedEquation linked = renderEquation(QStringLiteral("v > v_th"), [](const QString& s) {
            return s == QLatin1String("v_th");
        });
        QCOMPARE(linked.math, QStringLiteral("<i>v</i> &gt; <a href=\"symbol:v_th\"><i>v</i><sub>th</sub></a>"));
        // What is not understood is shown as typed, escaped.
        QCOMPARE(renderEquation(QStringLiteral("x <b>&amp; ¿")).math, QStringLiteral("<i>x</i> &lt;<i>b</i>&gt;&amp;<i>amp</i>; ¿"));
    }

    void lifAndCubaReadAsMathematicsWithoutDeveloperNotes()
    {
        for (const auto& [typeName, config] : {std::pair<std::string, Json>{"LIF", {{"shape", {2, 2}}}},
                                               std::pair<std::string, Json>{"CUBALIF", {{"shape", {2}}}}}) {
            const QString type = QString::fromStdString(typeName);
            auto doc = documentOf(typeName, config);
            EquationView view;
            view.setGraphDocument(doc.get());
            view.showNode(doc->rootId());
            const QString text = view.toPlainText();
            const QStringList subs = subscripts(view);
            QVERIFY2(subs.contains(QStringLiteral("τ_mem")), qPrintable(type + ": " + subs.join(' ')));
            if (type == QLatin1String("LIF")) {
                QVERIFY2(subs.contains(QStringLiteral("τ_syn")), qPrintable(subs.join(' ')));
                QVERIFY(text.contains(QStringLiteral("α")) && text.contains(QStringLiteral("β")));
                QVERIFY2(text.contains(QStringLiteral("vmem ≥ threshold")), qPrintable(text));
                QVERIFY(!text.contains(QStringLiteral("w_rec")));  // only with has_rec
            } else {
                for (const char* s : {"v_th", "v_rest", "v_reset", "i_exc", "i_inh", "τ_exc", "τ_inh"}) {
                    QVERIFY2(subs.contains(QString::fromUtf8(s)), qPrintable(QString::fromUtf8(s) + ": " + subs.join(' ')));
                }
                QVERIFY2(text.contains(QStringLiteral("dv/dt")), qPrintable(text));
                QVERIFY2(text.contains(QStringLiteral("v > v")), qPrintable(text));  // v > v_th
            }
            QVERIFY(text.contains(QStringLiteral("Each time step")));
            QVERIFY(text.contains(QStringLiteral("where")));
            for (const char* word : {"Thread", "thread", "allocates", "float32", "evolve()", "fused"}) {
                QVERIFY2(!text.contains(QLatin1String(word)), qPrintable(type + ": " + QLatin1String(word) + " in " + text));
            }
            // A proportional face for the text, wrapped to the width.
            QCOMPARE(view.lineWrapMode(), QTextEdit::WidgetWidth);
            QVERIFY(!QFontInfo(view.font()).fixedPitch());
        }
        // With recurrence the recurrent line appears.
        auto rec = documentOf("LIF", {{"shape", {2, 2}}, {"has_rec", true}});
        EquationView view;
        view.setGraphDocument(rec.get());
        view.showNode(rec->rootId());
        QVERIFY(view.linkedSymbols().contains(QStringLiteral("w_rec")));
        QVERIFY(view.toPlainText().contains(QStringLiteral("irec")));
    }

    void everyTypeWithEquationsRendersAndExplainsItsSymbols()
    {
        int withEquations = 0;
        for (const ModuleTypeInfo& info : spike::engine::moduleTypes()) {
            const QString type = QString::fromStdString(info.type);
            const bool dynamic = info.category == "neurons" || info.category == "sources" || info.category == "projections";
            QVERIFY2(dynamic == !info.equations.empty(), qPrintable(type + ": equations expected exactly for models with dynamics"));
            auto doc = documentOf(info.type, info.exampleConfig);
            EquationView view;
            view.setGraphDocument(doc.get());
            view.showNode(doc->rootId());
            const QString text = view.toPlainText();
            if (info.equations.empty()) {
                QVERIFY2(text.contains(QStringLiteral("no update equations")), qPrintable(type + ": " + text));
                QVERIFY(view.linkedSymbols().isEmpty());
                continue;
            }
            ++withEquations;
            QVERIFY2(text.contains(QString::fromStdString(info.equations.description).left(20)), qPrintable(type));
            QVERIFY2(!view.linkedSymbols().isEmpty(), qPrintable(type));
            // Every symbol of the equations is explained: an attribute, a declared symbol or t/dt.
            const QStringList used = symbolsUsed(info.equations, doc->root());
            QVERIFY2(!used.isEmpty(), qPrintable(type));
            for (const QString& s : used) {
                QVERIFY2(view.whereSymbols().contains(s),
                         qPrintable(type + ": symbol " + s + " is neither an attribute nor declared"));
            }
            // The "where" list reads the registry: the attribute's own doc.
            for (const QString& s : view.linkedSymbols()) {
                const std::string doc1 = doc->root().spec(s.toStdString()).doc;
                QVERIFY2(text.contains(QString::fromStdString(doc1)), qPrintable(type + ": " + s));
            }
        }
        QCOMPARE(withEquations, 18 + static_cast<int>(spike::engine::libraryModels().size()) + 1);  // + the equation models
    }

    void attributeSymbolsAreLinksWithTheirDocUnitAndValue()
    {
        auto doc = documentOf("LIF", {{"shape", {2, 2}}});
        EquationView view;
        view.setGraphDocument(doc.get());
        view.showNode(doc->rootId());
        const QStringList links = anchors(view);
        for (const char* name : {"tau_mem", "tau_syn", "alpha", "beta", "dash_mem", "bias", "threshold", "vmem",
                                 "isyn", "dt", "noise_std", "max_spikes_per_dt", "spikes"}) {
            const QString n = QString::fromLatin1(name);
            QVERIFY2(view.linkedSymbols().contains(n), name);
            QVERIFY2(links.contains(QStringLiteral("symbol:") + n), qPrintable(n + " is not a link: " + links.join(' ')));
        }
        // x is not an attribute: explained in the "where" list, but no link.
        QVERIFY(!links.contains(QStringLiteral("symbol:x")));
        QVERIFY(view.whereSymbols().contains(QStringLiteral("x")));
        QVERIFY(!view.symbolToolTip(QStringLiteral("tau_mem")).isEmpty());
        QVERIFY(doc->setAttributes(doc->rootId(), {{"tau_mem", spike::engine::Tensor::scalar(0.037F)}}).ok);
        const QString tip = view.symbolToolTip(QStringLiteral("tau_mem"));
        QVERIFY2(tip.contains(QStringLiteral("Membrane time constant")) && tip.contains(QStringLiteral("[s]")) &&
                     tip.contains(QStringLiteral("0.037")),
                 qPrintable(tip));
        QVERIFY(view.symbolToolTip(QStringLiteral("x")).isEmpty());

        // The tooltip a person sees when the mouse rests on the link.
        view.resize(420, 700);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        const QPoint at = linkPosition(view, QStringLiteral("tau_mem"));
        QVERIFY(!at.isNull());
        QHelpEvent help(QEvent::ToolTip, at, view.viewport()->mapToGlobal(at));
        QApplication::sendEvent(view.viewport(), &help);
        QTRY_VERIFY2(QToolTip::text().contains(QStringLiteral("0.037")), qPrintable(QToolTip::text()));
        QToolTip::hideText();
    }

    void clickingASymbolFocusesItsInspectorRow()
    {
        MainWindow w;
        spike::tests::showMainWindow(w);
        w.resize(1024, 700);
        QString error;
        QVERIFY2(w.openModel(QStringLiteral(":/examples/lif_current_step.json"), &error), qPrintable(error));
        QVERIFY(w.selectModule(QStringLiteral("lif")));
        EquationView* view = w.equationsView();
        auto* equationsDock = w.findChild<QDockWidget*>(QStringLiteral("equationsDock"));
        QVERIFY(equationsDock != nullptr);
        // The family filter hides the row: the click shows it anyway.
        w.inspector()->setFamilyFilter(QStringLiteral("taus"));
        QVERIFY(!w.inspector()->rowVisible(QStringLiteral("max_spikes_per_dt")));
        for (const QString& name : {QStringLiteral("max_spikes_per_dt"), QStringLiteral("threshold")}) {
            equationsDock->raise();
            spike::tests::settle();
            // Tabbed docks: the hidden tab's widget stays "visible" but shows nothing.
            QVERIFY(!view->visibleRegion().isEmpty());
            QVERIFY(w.inspector()->visibleRegion().isEmpty());
            QPoint at = linkPosition(*view, name);
            for (int i = 0; i < 20 && at.isNull(); ++i) {  // scroll down to it, as a reader would
                spike::tests::wheel(view->viewport(), -1);
                at = linkPosition(*view, name);
            }
            QVERIFY2(!at.isNull(), qPrintable(name + QStringLiteral(" has no link on screen")));
            QTest::mouseClick(view->viewport(), Qt::LeftButton, Qt::NoModifier, at);
            spike::tests::settle();
            QVERIFY2(!w.inspector()->visibleRegion().isEmpty(), qPrintable(name + QStringLiteral(": the Inspector tab is not shown")));
            QVERIFY(view->visibleRegion().isEmpty());
            QWidget* editor = w.inspector()->editorFor(name);
            QVERIFY(editor != nullptr);
            QVERIFY2(w.inspector()->rowVisible(name), qPrintable(name));
            QVERIFY2(!editor->visibleRegion().isEmpty(), qPrintable(name + QStringLiteral(" is scrolled out of view")));
            QWidget* focus = QApplication::focusWidget();
            QVERIFY2(focus != nullptr && (focus == editor || editor->isAncestorOf(focus)),
                     qPrintable(name + QStringLiteral(": focus on ") +
                                (focus != nullptr ? QString::fromLatin1(focus->metaObject()->className()) : QStringLiteral("nothing"))));
        }
        QVERIFY(!w.inspector()->focusRow(QStringLiteral("no_such_attribute")));
    }

    void garbageRendersWithoutCrashing()
    {
        std::mt19937 rng(20261125);
        const QStringList pieces = {
            QStringLiteral("**"), QStringLiteral("^"), QStringLiteral("("), QStringLiteral(")"), QStringLiteral("d"),
            QStringLiteral("/dt"), QStringLiteral("dv"), QStringLiteral("="), QStringLiteral("_"), QStringLiteral("tau_mem"),
            QStringLiteral("v_th"), QStringLiteral("<"), QStringLiteral(">="), QStringLiteral("&"), QStringLiteral("#"),
            QStringLiteral(":"), QStringLiteral(" "), QStringLiteral("1e"), QStringLiteral("-"), QStringLiteral("3"),
            QStringLiteral("."), QStringLiteral("sqrt"), QStringLiteral("[" ), QStringLiteral("]"), QStringLiteral("\""),
            QStringLiteral("é"), QStringLiteral("😀"), QString(QChar(0xD800)), QStringLiteral("\t"), QStringLiteral("\n"),
            QStringLiteral("<a href='x'>"), QStringLiteral("%"), QStringLiteral("@"), QStringLiteral("and"), QStringLiteral("pi"),
        };
        EquationView view;
        auto doc = documentOf("LIF", {{"shape", {2, 2}}});
        view.setGraphDocument(doc.get());
        view.showNode(doc->rootId());
        const auto isLink = [](const QString& s) { return s == QLatin1String("tau_mem"); };
        for (int round = 0; round < 3000; ++round) {
            QString line;
            const int n = static_cast<int>(rng() % 60);
            for (int i = 0; i < n; ++i) {
                line += pieces[static_cast<int>(rng() % pieces.size())];
            }
            const RenderedEquation r = renderEquation(line, isLink);
            QVERIFY(!r.math.contains(QStringLiteral("<a href='x'>")));  // input never becomes markup
            if (round % 50 == 0) {
                view.showEquations({"garbage", {{spike::engine::EquationRole::Update, line.toStdString()}}, {}});
                QVERIFY(view.toPlainText().startsWith(QStringLiteral("garbage")));
            }
        }
        // Pathological nesting and sizes.
        const QStringList extremes = {
            QString(), QStringLiteral("_"), QStringLiteral("__"), QStringLiteral("d/dt ="), QStringLiteral("dv/dt"),
            QStringLiteral("2") + QStringLiteral("**(").repeated(2000), QStringLiteral("^").repeated(2000),
            QStringLiteral("(").repeated(3000), QStringLiteral("x**2").repeated(500), QStringLiteral("a_").repeated(2000),
            QStringLiteral("1e-3e-3e"), QStringLiteral("#").repeated(100), QStringLiteral(":").repeated(100),
        };
        for (const QString& line : extremes) {
            renderEquation(line, isLink);
            view.showEquations({"", {{spike::engine::EquationRole::Threshold, line.toStdString()}}, {}});
        }
        QCOMPARE(renderEquation(QStringLiteral("x <b>y</b>")).math.count(QStringLiteral("&lt;")), 2);
        QVERIFY(view.toPlainText().contains(QStringLiteral(":")));  // the last line, as typed
    }

    void noSideScrollingAt300Pixels()
    {
        EquationView view;
        view.resize(300, 500);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        for (const ModuleTypeInfo& info : spike::engine::moduleTypes()) {
            if (info.equations.empty()) {
                continue;
            }
            auto doc = documentOf(info.type, info.exampleConfig);
            view.setGraphDocument(doc.get());
            view.showNode(doc->rootId());
            spike::tests::settle();
            QVERIFY2(view.horizontalScrollBar()->maximum() == 0,
                     qPrintable(QString::fromStdString(info.type) + QStringLiteral(": %1 px wider than the view")
                                                                        .arg(view.horizontalScrollBar()->maximum())));
            QVERIFY2(view.document()->size().width() <= view.viewport()->width() + 1, info.type.c_str());
            view.setGraphDocument(nullptr);
        }
        // Not even one long word.
        view.showEquations({"", {{spike::engine::EquationRole::Update, "y = " + std::string(400, 'w')}}, {}});
        spike::tests::settle();
        QCOMPARE(view.horizontalScrollBar()->maximum(), 0);
    }
};

QTEST_MAIN(TestEquationView)
#include "test_equation_view.moc"
