// EquationView: rendering a module's ModelEquations as rich text, the "where" list, tooltips
// and links. See equation_view.hpp; the line rendering is equation_text.cpp's.
// Thread: GUI thread only.
#include "ui/inspector/equation_view.hpp"

#include "ui/inspector/equation_text.hpp"

#include "engine/equations/line_values.hpp"

#include <QColor>
#include <QHelpEvent>
#include <QScrollBar>
#include <QTextDocument>
#include <QToolTip>

#include <algorithm>
#include <array>
#include <utility>

namespace spike::ui {

namespace {

/// The symbol names of Brian2 that mean the same in every model, for the "where" list when
/// the model neither has them as attributes nor declares them.
QString builtinMeaning(const QString& symbol)
{
    if (symbol == QLatin1String("t")) {
        return EquationView::tr("Time [s]");
    }
    if (symbol == QLatin1String("dt")) {
        return EquationView::tr("Simulation time step [s]");
    }
    if (symbol == QLatin1String("xi")) {
        return EquationView::tr("Gaussian white noise [1/√s]");
    }
    return {};
}

/// Section titles, in the order the sections are shown.
const std::array<std::pair<engine::EquationRole, const char*>, 5>& sections()
{
    static const std::array<std::pair<engine::EquationRole, const char*>, 5> all = {{
        {engine::EquationRole::Event, QT_TRANSLATE_NOOP("spike::ui::EquationView", "When input arrives")},
        {engine::EquationRole::Update, QT_TRANSLATE_NOOP("spike::ui::EquationView", "Each time step")},
        {engine::EquationRole::Threshold, QT_TRANSLATE_NOOP("spike::ui::EquationView", "Spike when")},
        {engine::EquationRole::Reset, QT_TRANSLATE_NOOP("spike::ui::EquationView", "After a spike")},
        {engine::EquationRole::Definition, QT_TRANSLATE_NOOP("spike::ui::EquationView", "with")},
    }};
    return all;
}

/// Whether `line` applies to `module` (EquationLine::onlyWith; "!name": only without it).
bool applies(const engine::EquationLine& line, const engine::Module* module)
{
    if (line.onlyWith.empty()) {
        return true;
    }
    const bool negated = line.onlyWith.front() == '!';
    const std::string name = negated ? line.onlyWith.substr(1) : line.onlyWith;
    const bool has = module != nullptr && module->hasAttribute(name);
    return negated ? !has : has;
}

QString unitSuffix(const std::string& units)
{
    return units.empty() ? QString() : QStringLiteral(" [%1]").arg(QString::fromStdString(units));
}

}  // namespace

EquationView::EquationView(QWidget* parent) : QTextBrowser(parent)
{
    setOpenLinks(false);
    setOpenExternalLinks(false);
    setLineWrapMode(QTextEdit::WidgetWidth);
    // Long words break too, so nothing is ever wider than the dock.
    setWordWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    document()->setDefaultStyleSheet(QStringLiteral("a { text-decoration: none; }"));
    connect(this, &QTextBrowser::anchorClicked, this, [this](const QUrl& url) {
        const QString href = url.toString();
        if (href.startsWith(QLatin1String(kSymbolLinkScheme))) {
            emit symbolActivated(href.mid(static_cast<qsizetype>(qstrlen(kSymbolLinkScheme))));
        }
    });
    showNode({});
}

void EquationView::setGraphDocument(GraphDocument* doc)
{
    if (m_doc != nullptr) {
        disconnect(m_doc, nullptr, this, nullptr);
    }
    m_doc = doc;
    if (doc != nullptr) {
        // The module shown may go; anything else changes nothing shown (values are read when a
        // tooltip asks).
        connect(doc, &GraphDocument::documentReset, this, [this] { showNode({}); });
        connect(doc, &GraphDocument::nodeRemoved, this, [this] { showNode(m_node); });
        connect(doc, &GraphDocument::subtreeRemoved, this, [this] { showNode(m_node); });
    }
    showNode({});
}

const engine::Module* EquationView::module() const
{
    return m_doc != nullptr ? m_doc->module(m_node) : nullptr;
}

void EquationView::showNode(NodeId id)
{
    m_node = m_doc != nullptr && m_doc->contains(id) ? id : NodeId{};
    const engine::Module* m = module();
    if (m == nullptr) {
        showMessage(tr("Select a module to see its equations."));
        return;
    }
    // A user-written EquationNeuron's own equations, every other module its type's.
    engine::ModelEquations equations = engine::modelEquationsOf(*m);
    if (equations.empty()) {
        showMessage(tr("%1 has no update equations of its own: layers and activations compute their torch "
                       "function, containers and templates their children.")
                        .arg(QString::fromStdString(m->className())));
        return;
    }
    showEquations(equations);
}

void EquationView::showEquations(const engine::ModelEquations& equations)
{
    m_shown = equations;
    m_hasEquations = true;
    render(m_shown);
}

void EquationView::setValues(std::optional<EquationValues> values)
{
    m_values = std::move(values);
    if (m_hasEquations) {
        render(m_shown);
    } else {
        m_valueLines.clear();
    }
}

QString EquationView::valuesHtml(const engine::EquationLine& line, const EquationValues& values, const QString& colour)
{
    namespace eq = engine::equations;
    const eq::LineValues v = eq::evaluateLine(
        line.text,
        [&values](const std::string& name) -> std::optional<double> {
            const auto it = values.values.find(name);
            return it == values.values.end() ? std::nullopt : std::optional<double>(it->second);
        },
        [&values](const std::string& name) {
            const auto it = values.units.find(name);
            return it == values.units.end() ? std::string() : it->second;
        });
    if (!v.parsed) {
        return {};
    }
    // Only a line with something put in says more than the line itself.
    if (v.valuesPutIn == 0 && !v.value) {
        return {};
    }
    // The result in the target's units: a state's rate of change per second for "dX/dt".
    const bool derivative = v.target.size() > 4 && v.target.front() == 'd' && v.target.ends_with("/dt");
    const std::string targetName = derivative ? v.target.substr(1, v.target.size() - 4) : v.target;
    const auto unitsIt = values.units.find(targetName);
    const std::string units = unitsIt == values.units.end() ? std::string() : unitsIt->second;
    const auto withUnits = [&](double x) {
        QString text;
        if (const std::optional<std::string> q = eq::quantityText(x, units)) {
            text = QString::fromStdString(*q).replace(QLatin1Char('*'), QLatin1Char(' '));
        } else {
            text = QString::fromStdString(eq::shortNumber(x));
            if (!units.empty()) {
                text += QLatin1Char(' ') + QString::fromStdString(units);
            }
        }
        if (derivative) {
            text += units.empty() ? QStringLiteral(" /s") : QStringLiteral("/s");
        }
        return text;
    };
    QString plain = QString::fromStdString(v.target.empty() ? std::string() : v.target + " " + v.op + " ") +
                    QString::fromStdString(v.substituted);
    if (v.value) {
        plain += v.condition ? (*v.value != 0.0 ? tr("  → true") : tr("  → false"))
                             : QStringLiteral(" = ") + withUnits(*v.value);
    } else if (!v.unknown.empty()) {
        plain += tr("  (no value for %1)").arg(QString::fromStdString(v.unknown.front()));
    }
    m_valueLines << plain;
    QString html = QStringLiteral("<br><span style=\"color:%1; font-family:monospace;\">%2</span>")
                       .arg(colour, plain.toHtmlEscaped());
    if (!v.terms.empty()) {
        QStringList terms;
        for (const eq::TermValue& term : v.terms) {
            terms << QString::fromStdString(term.text) + QStringLiteral(" = ") +
                         (term.value ? withUnits(*term.value) : QStringLiteral("?"));
        }
        const QString termText = tr("terms: %1").arg(terms.join(QStringLiteral(";  ")));
        m_valueLines << termText;
        html += QStringLiteral("<br><span style=\"color:%1; font-family:monospace;\">%2</span>")
                    .arg(colour, termText.toHtmlEscaped());
    }
    return html;
}

void EquationView::showMessage(const QString& text)
{
    m_hasEquations = false;
    m_valueLines.clear();
    m_shown = {};
    m_linked.clear();
    m_where.clear();
    setHtml(QStringLiteral("<p>%1</p>").arg(text.toHtmlEscaped()));
}

void EquationView::render(const engine::ModelEquations& equations)
{
    const engine::Module* m = module();
    m_linked.clear();
    m_where.clear();
    m_valueLines.clear();
    // The definitions first ("alpha = exp(-dt / tau_mem)"): the lines that use them evaluate too.
    // The first definition of a name that evaluates wins (LIF defines alpha per leak mode).
    std::optional<EquationValues> values = m_values;
    if (values) {
        for (const engine::EquationLine& line : equations.lines) {
            if (line.role != engine::EquationRole::Definition || !applies(line, m)) {
                continue;
            }
            const auto v = engine::equations::evaluateLine(line.text, [&values](const std::string& name) -> std::optional<double> {
                const auto it = values->values.find(name);
                return it == values->values.end() ? std::nullopt : std::optional<double>(it->second);
            });
            if (v.value && !v.target.empty() && v.op == "=" && values->values.count(v.target) == 0) {
                values->values.emplace(v.target, *v.value);
            }
        }
    }
    const int scrolled = verticalScrollBar()->value();
    const SymbolLinkTest isLink = [m](const QString& name) {
        return m != nullptr && m->hasAttribute(name.toStdString());
    };
    // The notes in grey: text and background mixed (the palette's placeholder colour may be
    // translucent, which HTML colours are not).
    const QColor text = palette().color(QPalette::Text);
    const QColor base = palette().color(QPalette::Base);
    const QString grey = QColor::fromRgbF(0.6F * text.redF() + 0.4F * base.redF(), 0.6F * text.greenF() + 0.4F * base.greenF(),
                                          0.6F * text.blueF() + 0.4F * base.blueF())
                             .name();
    // A serif face for the mathematics, a little larger than the text around it.
    const QString mathStyle = QStringLiteral("font-family:'DejaVu Serif','Cambria Math','Times New Roman',serif; "
                                             "font-size:%1pt;")
                                  .arg(font().pointSizeF() * 1.15, 0, 'f', 1);
    // The values in the palette's link colour, told apart from the notes.
    const QString valueColour = palette().color(QPalette::Link).name();
    const QString lineStyle = QStringLiteral("margin-left:12px; margin-top:3px; margin-bottom:3px;");
    const QString headingStyle = QStringLiteral("margin-top:10px; margin-bottom:2px;");

    QString html = QStringLiteral("<p>%1</p>").arg(QString::fromStdString(equations.description).toHtmlEscaped());
    QStringList symbols;
    for (const auto& [role, title] : sections()) {
        QString body;
        for (const engine::EquationLine& line : equations.lines) {
            if (line.role != role || !applies(line, m)) {
                continue;
            }
            const RenderedEquation r = renderEquation(QString::fromStdString(line.text), isLink);
            for (const QString& s : r.symbols) {
                if (!symbols.contains(s)) {
                    symbols << s;
                }
            }
            body += QStringLiteral("<p style=\"%1\"><span style=\"%2\">%3</span>").arg(lineStyle, mathStyle, r.math);
            if (!r.note.isEmpty()) {
                body += QStringLiteral("<br><span style=\"color:%1;\">%2</span>").arg(grey, r.note);
            }
            if (values) {
                body += valuesHtml(line, *values, valueColour);
            }
            body += QStringLiteral("</p>");
        }
        if (!body.isEmpty()) {
            html += QStringLiteral("<p style=\"%1\"><b>%2</b></p>").arg(headingStyle, tr(title)) + body;
        }
    }

    QString where;
    for (const QString& s : symbols) {
        const QString meaning = meaningOf(s, equations);
        if (meaning.isEmpty()) {
            continue;
        }
        m_where << s;
        QString symbol = symbolHtml(s);
        if (isLink(s)) {
            m_linked << s;
            symbol = QStringLiteral("<a href=\"%1%2\">%3</a>").arg(QLatin1String(kSymbolLinkScheme), s, symbol);
        }
        where += QStringLiteral("<p style=\"%1\"><span style=\"%2\">%3</span> — %4</p>")
                     .arg(lineStyle, mathStyle, symbol, meaning.toHtmlEscaped());
    }
    for (const QString& s : symbols) {
        if (isLink(s) && !m_linked.contains(s)) {
            m_linked << s;  // a link in the equations even without a "where" entry
        }
    }
    if (!where.isEmpty()) {
        html += QStringLiteral("<p style=\"%1\"><b>%2</b></p>").arg(headingStyle, tr("where")) + where;
    }
    if (!m_linked.isEmpty()) {
        html += QStringLiteral("<p style=\"margin-top:10px; color:%1;\">%2</p>")
                    .arg(grey, tr("Click a linked symbol to edit it in the Inspector.").toHtmlEscaped());
    }
    setHtml(html);
    verticalScrollBar()->setValue(scrolled);  // live values re-render several times a second
}

QString EquationView::meaningOf(const QString& symbol, const engine::ModelEquations& equations) const
{
    const std::string name = symbol.toStdString();
    if (const engine::Module* m = module(); m != nullptr && m->hasAttribute(name)) {
        const engine::AttributeSpec& spec = m->spec(name);
        return QString::fromStdString(spec.doc) + unitSuffix(spec.units);
    }
    for (const engine::EquationSymbol& declared : equations.symbols) {
        if (declared.name == name) {
            return QString::fromStdString(declared.meaning) + unitSuffix(declared.units);
        }
    }
    return builtinMeaning(symbol);
}

QString EquationView::symbolToolTip(const QString& name) const
{
    const engine::Module* m = module();
    const std::string key = name.toStdString();
    if (m == nullptr || !m->hasAttribute(key)) {
        return {};
    }
    const engine::AttributeSpec& spec = m->spec(key);
    QString tip = QStringLiteral("%1%2\n%3").arg(name, unitSuffix(spec.units), QString::fromStdString(spec.doc));
    tip += tr("\nValue: %1").arg(QString::fromStdString(engine::describeValue(m->attribute(key))));
    if (m->isDerived(key)) {
        tip += tr(" (derived)");
    }
    tip += tr("\nClick to show it in the Inspector");
    return tip;
}

QString EquationView::symbolAt(const QPoint& pos) const
{
    const QString href = anchorAt(pos);
    return href.startsWith(QLatin1String(kSymbolLinkScheme))
               ? href.mid(static_cast<qsizetype>(qstrlen(kSymbolLinkScheme)))
               : QString();
}

bool EquationView::viewportEvent(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(event);
        const QString tip = symbolToolTip(symbolAt(help->pos()));
        if (tip.isEmpty()) {
            QToolTip::hideText();
        } else {
            QToolTip::showText(help->globalPos(), tip, viewport());
        }
        return true;
    }
    return QTextBrowser::viewportEvent(event);
}

void EquationView::changeEvent(QEvent* event)
{
    QTextBrowser::changeEvent(event);
    if ((event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange) && m_hasEquations) {
        render(m_shown);  // the grey and the sizes are written into the HTML
    }
}

}  // namespace spike::ui
