// GraphBreadcrumb: the bar above the canvas that says where the canvas is in the module tree
// ("model ▸ exc_group ▸ inner") and leads back out: one flat button per ancestor of the shown
// module, the shown one last and checked; clicking a button shows that module. It follows the
// canvas' networkChanged() and the document's renames; it never edits the document.
// Thread: GUI thread only.
#pragma once

#include "ui/document/graph_document.hpp"

#include <QPointer>
#include <QWidget>

class QHBoxLayout;
class QLabel;
class QToolButton;

namespace spike::ui {

class GraphCanvas;

/// Breadcrumb of the canvas' shown module; see the file comment.
class GraphBreadcrumb : public QWidget {
    Q_OBJECT

public:
    /// Follows `canvas` (not owned; it must outlive this widget or be destroyed with it).
    explicit GraphBreadcrumb(GraphCanvas* canvas, QWidget* parent = nullptr);

    /// The crumbs' texts, root first ("Network" for an unnamed root, then child names).
    QStringList crumbs() const;
    /// Shows the module of crumb `index` on the canvas (what clicking it does); false when out
    /// of range.
    bool activate(int index);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void refresh();
    /// Shows the hint elided to the room left beside the crumbs (full text in the tooltip).
    void fitHint();

    GraphCanvas* m_canvas;
    QPointer<GraphDocument> m_doc;
    QHBoxLayout* m_layout = nullptr;
    QLabel* m_hint = nullptr;
    QString m_hintText;  ///< the hint in full
    std::vector<NodeId> m_path;  ///< root first, the shown module last
    std::vector<QToolButton*> m_buttons;
};

}  // namespace spike::ui
