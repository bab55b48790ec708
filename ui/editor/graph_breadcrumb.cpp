// GraphBreadcrumb. See graph_breadcrumb.hpp.
#include "ui/editor/graph_breadcrumb.hpp"

#include "ui/editor/graph_canvas.hpp"

#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

#include <algorithm>

namespace spike::ui {

GraphBreadcrumb::GraphBreadcrumb(GraphCanvas* canvas, QWidget* parent)
    : QWidget(parent), m_canvas(canvas)
{
    m_layout = new QHBoxLayout(this);
    m_layout->setContentsMargins(6, 2, 6, 2);
    m_layout->setSpacing(0);
    m_hint = new QLabel(this);
    m_hint->setStyleSheet(QStringLiteral("color: palette(mid); padding-left: 12px;"));
    // Takes what room is left, elided: a long hint never widens the window's centre.
    m_hint->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    setAutoFillBackground(true);
    connect(canvas, &GraphCanvas::networkChanged, this, &GraphBreadcrumb::refresh);
    refresh();
}

QStringList GraphBreadcrumb::crumbs() const
{
    QStringList out;
    for (const QToolButton* b : m_buttons) {
        out.push_back(b->text());
    }
    return out;
}

bool GraphBreadcrumb::activate(int index)
{
    if (index < 0 || static_cast<std::size_t>(index) >= m_path.size()) {
        return false;
    }
    m_canvas->setNetwork(m_path[static_cast<std::size_t>(index)]);
    return true;
}

void GraphBreadcrumb::refresh()
{
    GraphDocument* doc = m_canvas->document();
    if (doc != m_doc) {
        if (m_doc != nullptr) {
            disconnect(m_doc, nullptr, this, nullptr);
        }
        m_doc = doc;
        if (doc != nullptr) {
            connect(doc, &GraphDocument::nodeRenamed, this, &GraphBreadcrumb::refresh);
        }
    }
    // A crumb's click opens another network, which refreshes the crumbs while that button's
    // click is still being handled: the old buttons go once control is back in the event loop.
    while (QLayoutItem* item = m_layout->takeAt(0)) {
        if (QWidget* w = item->widget(); w != nullptr && w != m_hint) {
            w->hide();
            w->disconnect(this);
            w->deleteLater();
        }
        delete item;
    }
    m_buttons.clear();
    m_path.clear();
    if (doc != nullptr && doc->contains(m_canvas->network())) {
        for (NodeId n = m_canvas->network(); n.valid(); n = doc->parentOf(n)) {
            m_path.insert(m_path.begin(), n);
        }
    }
    for (std::size_t i = 0; i < m_path.size(); ++i) {
        if (i > 0) {
            auto* sep = new QLabel(QStringLiteral(" ▸ "), this);
            m_layout->addWidget(sep);
        }
        const NodeId id = m_path[i];
        const QString name = doc->nodeData(id, NodeRole::Name).toString();
        const QString type = doc->nodeData(id, NodeRole::Type).toString();
        auto* button = new QToolButton(this);
        button->setAutoRaise(true);
        button->setText(name.isEmpty() ? type : name);
        button->setToolTip(tr("%1 (%2): show it on the canvas")
                               .arg(i == 0 ? tr("the model's root") : doc->nodeData(id, NodeRole::Path).toString(), type));
        const bool last = i + 1 == m_path.size();
        button->setCheckable(true);
        button->setChecked(last);
        QFont f = button->font();
        f.setBold(last);
        button->setFont(f);
        const int index = static_cast<int>(i);
        connect(button, &QToolButton::clicked, this, [this, index] { activate(index); });
        m_layout->addWidget(button);
        m_buttons.push_back(button);
    }
    if (!m_path.empty()) {
        m_hintText = m_canvas->isEditable()
                         ? tr("double-click a group to open it")
                         : tr("read-only: %1 builds these children from its configuration")
                               .arg(doc->nodeData(m_path.back(), NodeRole::Type).toString());
    } else {
        m_hintText.clear();
    }
    m_layout->addWidget(m_hint, 1);
    fitHint();
}

void GraphBreadcrumb::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    fitHint();
}

void GraphBreadcrumb::fitHint()
{
    int crumbs = 0;
    for (const QToolButton* b : m_buttons) {
        crumbs += b->sizeHint().width();
    }
    const int padding = 12 + 16;  // the style sheet's left padding, and the layout's margins
    const int room = std::max(0, width() - crumbs - padding - 12 * static_cast<int>(m_buttons.size()));
    m_hint->setText(m_hint->fontMetrics().elidedText(m_hintText, Qt::ElideRight, room));
    m_hint->setToolTip(m_hint->text() == m_hintText ? QString() : m_hintText);
}

}  // namespace spike::ui
