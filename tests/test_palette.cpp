// PaletteWidget: one entry per registered node type under its category in registry order
// (projections left out), filtering by typed words, requests by double-click, Enter on an entry
// and quick-add from the search field, keyboard hand-over from the field to the list, and the
// drag payload (MIME round trip and the tree's own mimeData).
#include "ui/editor/palette_widget.hpp"

#include "engine/io/module_factory.hpp"

#include <QLineEdit>
#include <QMimeData>
#include <QSignalSpy>
#include <QTreeWidget>
#include <QtTest/QtTest>

#include <memory>

using namespace spike::ui;

namespace {

/// The registry's node types (every type outside "projections"), in registry order.
QStringList registryNodeTypes()
{
    QStringList types;
    for (const auto& info : spike::engine::moduleTypes()) {
        if (info.category != "projections") {
            types << QString::fromStdString(info.type);
        }
    }
    return types;
}

/// Node types whose type, category or doc contains every word of `words` (case-insensitive),
/// computed from the registry independently of the widget.
QStringList expectedMatches(const QStringList& words)
{
    QStringList types;
    for (const auto& info : spike::engine::moduleTypes()) {
        if (info.category == "projections") {
            continue;
        }
        const QString fields[] = {QString::fromStdString(info.type), QString::fromStdString(info.category),
                                  QString::fromStdString(info.doc)};
        bool all = true;
        for (const QString& word : words) {
            bool any = false;
            for (const QString& field : fields) {
                any = any || field.contains(word, Qt::CaseInsensitive);
            }
            all = all && any;
        }
        if (all) {
            types << fields[0];
        }
    }
    return types;
}

/// The entry item of `type`, or nullptr.
QTreeWidgetItem* entryItem(const PaletteWidget& palette, const QString& type)
{
    QTreeWidget* tree = palette.tree();
    for (int c = 0; c < tree->topLevelItemCount(); ++c) {
        QTreeWidgetItem* category = tree->topLevelItem(c);
        for (int i = 0; i < category->childCount(); ++i) {
            if (category->child(i)->text(0) == type) {
                return category->child(i);
            }
        }
    }
    return nullptr;
}

/// What the window system delivers for a double-click at `pos` of `viewport`: press, release,
/// double-click, release (QTest::mouseDClick on a widget sends the double-click event alone).
void doubleClick(QWidget* viewport, QPoint pos)
{
    QTest::mousePress(viewport, Qt::LeftButton, Qt::NoModifier, pos);
    QTest::mouseRelease(viewport, Qt::LeftButton, Qt::NoModifier, pos);
    QTest::mouseDClick(viewport, Qt::LeftButton, Qt::NoModifier, pos);
    QTest::mouseRelease(viewport, Qt::LeftButton, Qt::NoModifier, pos);
}

/// Titles of the category items not hidden, in order.
QStringList visibleCategoryTitles(const PaletteWidget& palette)
{
    QStringList titles;
    for (int c = 0; c < palette.tree()->topLevelItemCount(); ++c) {
        if (!palette.tree()->topLevelItem(c)->isHidden()) {
            titles << palette.tree()->topLevelItem(c)->text(0);
        }
    }
    return titles;
}

}  // namespace

class TestPalette : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void listsEveryNodeTypeOnceUnderItsCategory();
    void filterShowsMatchingTypesAndHidesEmptyCategories();
    void multiWordFilterNeedsEveryWord();
    void typingInTheSearchFieldFilters();
    void doubleClickOnEntryRequestsIt();
    void doubleClickOnCategoryRequestsNothing();
    void enterInSearchFieldAddsTheOnlyMatch();
    void enterOnEntryRequestsIt();
    void downArrowMovesToFirstVisibleEntry();
    void mimeRoundTrip();
    void treeMimeDataCarriesTheSelectedType();
};

void TestPalette::listsEveryNodeTypeOnceUnderItsCategory()
{
    PaletteWidget palette;
    QTreeWidget* tree = palette.tree();

    QStringList categoriesInOrder;
    for (const auto& info : spike::engine::moduleTypes()) {
        const QString category = QString::fromStdString(info.category);
        if (category != QLatin1String("projections") && !categoriesInOrder.contains(category)) {
            categoriesInOrder << category;
        }
    }
    QCOMPARE(tree->topLevelItemCount(), categoriesInOrder.size());

    QStringList allEntries;
    for (int c = 0; c < tree->topLevelItemCount(); ++c) {
        QTreeWidgetItem* categoryItem = tree->topLevelItem(c);
        const QString category = categoriesInOrder[c];
        QCOMPARE(categoryItem->text(0), category.left(1).toUpper() + category.mid(1));
        QVERIFY(categoryItem->isExpanded());
        QVERIFY(!(categoryItem->flags() & Qt::ItemIsDragEnabled));

        QStringList expected;
        for (const auto& info : spike::engine::moduleTypes()) {
            if (QString::fromStdString(info.category) == category) {
                expected << QString::fromStdString(info.type);
            }
        }
        QStringList shown;
        for (int i = 0; i < categoryItem->childCount(); ++i) {
            QTreeWidgetItem* item = categoryItem->child(i);
            shown << item->text(0);
            QVERIFY(item->flags() & Qt::ItemIsDragEnabled);
            const auto* info = spike::engine::findModuleType(item->text(0).toStdString());
            QVERIFY(info != nullptr);
            QVERIFY(item->toolTip(0).contains(QString::fromStdString(info->doc)));
            QVERIFY(item->toolTip(0).contains(categoryItem->text(0)));
        }
        QCOMPARE(shown, expected);
        allEntries << shown;
    }
    QCOMPARE(allEntries, registryNodeTypes());
    QCOMPARE(palette.visibleTypes(), registryNodeTypes());
    QVERIFY(entryItem(palette, QStringLiteral("DenseProjection")) == nullptr);
    QVERIFY(entryItem(palette, QStringLiteral("ResBlock")) != nullptr);
    QVERIFY(entryItem(palette, QStringLiteral("DynamicsNetwork")) != nullptr);
}

void TestPalette::filterShowsMatchingTypesAndHidesEmptyCategories()
{
    PaletteWidget palette;
    palette.setFilter(QStringLiteral("lif"));
    const QStringList expected = expectedMatches({QStringLiteral("lif")});
    QVERIFY(expected.contains(QStringLiteral("LIF")));
    QVERIFY(expected.size() < registryNodeTypes().size());
    QCOMPARE(palette.visibleTypes(), expected);
    QCOMPARE(palette.searchField()->text(), QStringLiteral("lif"));

    QStringList expectedCategories;
    for (const QString& type : expected) {
        const QString category = QString::fromStdString(spike::engine::findModuleType(type.toStdString())->category);
        const QString title = category.left(1).toUpper() + category.mid(1);
        if (!expectedCategories.contains(title)) {
            expectedCategories << title;
        }
    }
    QCOMPARE(visibleCategoryTitles(palette), expectedCategories);
    QVERIFY(!visibleCategoryTitles(palette).contains(QStringLiteral("Activations")));

    // A category name matches every type in it; a doc-only word finds types by description.
    palette.setFilter(QStringLiteral("SOURCES"));
    QCOMPARE(palette.visibleTypes(), expectedMatches({QStringLiteral("sources")}));
    QVERIFY(palette.visibleTypes().contains(QStringLiteral("PoissonSource")));
    palette.setFilter(QStringLiteral("torch.nn"));
    QCOMPARE(palette.visibleTypes(), expectedMatches({QStringLiteral("torch.nn")}));
    QVERIFY(palette.visibleTypes().contains(QStringLiteral("Conv2d")));

    palette.setFilter(QStringLiteral("no-such-module-anywhere"));
    QVERIFY(palette.visibleTypes().isEmpty());
    QVERIFY(visibleCategoryTitles(palette).isEmpty());

    palette.setFilter(QString());
    QCOMPARE(palette.visibleTypes(), registryNodeTypes());
    QCOMPARE(visibleCategoryTitles(palette).size(), palette.tree()->topLevelItemCount());
}

void TestPalette::multiWordFilterNeedsEveryWord()
{
    PaletteWidget palette;
    palette.setFilter(QStringLiteral("  leaky   REFRACTORY "));
    QCOMPARE(palette.visibleTypes(), expectedMatches({QStringLiteral("leaky"), QStringLiteral("refractory")}));
    QCOMPARE(palette.visibleTypes(), QStringList{QStringLiteral("LIFRefrac")});

    // Each word may match a different field: "neurons" the category, "cuba" the type.
    palette.setFilter(QStringLiteral("neurons cuba"));
    QCOMPARE(palette.visibleTypes(), expectedMatches({QStringLiteral("neurons"), QStringLiteral("cuba")}));
    QVERIFY(palette.visibleTypes().contains(QStringLiteral("CUBALIF")));

    palette.setFilter(QStringLiteral("leaky poisson"));
    QCOMPARE(palette.visibleTypes(), expectedMatches({QStringLiteral("leaky"), QStringLiteral("poisson")}));
    QVERIFY(palette.visibleTypes().isEmpty());
}

void TestPalette::typingInTheSearchFieldFilters()
{
    PaletteWidget palette;
    QTest::keyClicks(palette.searchField(), QStringLiteral("lif"));
    QCOMPARE(palette.visibleTypes(), expectedMatches({QStringLiteral("lif")}));

    QTest::keyClicks(palette.searchField(), QStringLiteral(" refr"));
    QCOMPARE(palette.visibleTypes(), expectedMatches({QStringLiteral("lif"), QStringLiteral("refr")}));

    palette.searchField()->clear();
    QCOMPARE(palette.visibleTypes(), registryNodeTypes());
}

void TestPalette::doubleClickOnEntryRequestsIt()
{
    PaletteWidget palette;
    palette.resize(250, 600);
    palette.show();
    QVERIFY(QTest::qWaitForWindowExposed(&palette));
    QSignalSpy spy(&palette, &PaletteWidget::moduleRequested);

    QTreeWidgetItem* item = entryItem(palette, QStringLiteral("CUBALIF"));
    QVERIFY(item != nullptr);
    const QRect rect = palette.tree()->visualItemRect(item);
    QVERIFY(rect.isValid());
    doubleClick(palette.tree()->viewport(), rect.center());
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toString(), QStringLiteral("CUBALIF"));
}

void TestPalette::doubleClickOnCategoryRequestsNothing()
{
    PaletteWidget palette;
    palette.resize(250, 600);
    palette.show();
    QVERIFY(QTest::qWaitForWindowExposed(&palette));
    QSignalSpy spy(&palette, &PaletteWidget::moduleRequested);

    QTreeWidgetItem* category = palette.tree()->topLevelItem(0);
    const QRect rect = palette.tree()->visualItemRect(category);
    QVERIFY(rect.isValid());
    doubleClick(palette.tree()->viewport(), rect.center());
    QCOMPARE(spy.count(), 0);
    Q_EMIT palette.tree()->itemDoubleClicked(category, 0);
    QCOMPARE(spy.count(), 0);
}

void TestPalette::enterInSearchFieldAddsTheOnlyMatch()
{
    PaletteWidget palette;
    QSignalSpy spy(&palette, &PaletteWidget::moduleRequested);

    palette.setFilter(QStringLiteral("lif"));
    QVERIFY(palette.visibleTypes().size() > 1);
    QTest::keyClick(palette.searchField(), Qt::Key_Return);
    QCOMPARE(spy.count(), 0);

    palette.setFilter(QStringLiteral("no-such-module-anywhere"));
    QTest::keyClick(palette.searchField(), Qt::Key_Return);
    QCOMPARE(spy.count(), 0);

    palette.setFilter(QStringLiteral("poisson"));
    QCOMPARE(palette.visibleTypes(), QStringList{QStringLiteral("PoissonSource")});
    QTest::keyClick(palette.searchField(), Qt::Key_Enter);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toString(), QStringLiteral("PoissonSource"));
}

void TestPalette::enterOnEntryRequestsIt()
{
    PaletteWidget palette;
    QSignalSpy spy(&palette, &PaletteWidget::moduleRequested);

    palette.tree()->setCurrentItem(palette.tree()->topLevelItem(0));
    QTest::keyClick(palette.tree(), Qt::Key_Return);
    QCOMPARE(spy.count(), 0);

    palette.tree()->setCurrentItem(entryItem(palette, QStringLiteral("Sequential")));
    QTest::keyClick(palette.tree(), Qt::Key_Return);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toString(), QStringLiteral("Sequential"));
}

void TestPalette::downArrowMovesToFirstVisibleEntry()
{
    PaletteWidget palette;
    palette.show();
    QVERIFY(QTest::qWaitForWindowExposed(&palette));
    palette.setFilter(QStringLiteral("sine"));
    const QStringList expected = expectedMatches({QStringLiteral("sine")});
    QVERIFY(!expected.isEmpty());

    palette.searchField()->setFocus();
    QTest::keyClick(palette.searchField(), Qt::Key_Down);
    QVERIFY(palette.tree()->currentItem() != nullptr);
    QCOMPARE(palette.tree()->currentItem()->text(0), expected.front());
    QCOMPARE(palette.focusWidget(), static_cast<QWidget*>(palette.tree()));
}

void TestPalette::mimeRoundTrip()
{
    for (const QString& type : registryNodeTypes()) {
        const std::unique_ptr<QMimeData> mime(PaletteWidget::mimeDataFor(type));
        QVERIFY(mime->hasFormat(PaletteWidget::mimeType()));
        QCOMPARE(mime->data(PaletteWidget::mimeType()), type.toUtf8());
        QCOMPARE(PaletteWidget::typeFromMime(mime.get()), type);
    }

    QMimeData text;
    text.setText(QStringLiteral("LIF"));
    QVERIFY(PaletteWidget::typeFromMime(&text).isNull());
    QVERIFY(PaletteWidget::typeFromMime(nullptr).isNull());

    const std::unique_ptr<QMimeData> unknown(PaletteWidget::mimeDataFor(QStringLiteral("NoSuchType")));
    QVERIFY(PaletteWidget::typeFromMime(unknown.get()).isNull());
    const std::unique_ptr<QMimeData> projection(PaletteWidget::mimeDataFor(QStringLiteral("DenseProjection")));
    QVERIFY(PaletteWidget::typeFromMime(projection.get()).isNull());
}

void TestPalette::treeMimeDataCarriesTheSelectedType()
{
    PaletteWidget palette;
    QTreeWidget* tree = palette.tree();
    QVERIFY(tree->dragEnabled());
    QVERIFY(tree->model()->mimeTypes().contains(PaletteWidget::mimeType()));

    QTreeWidgetItem* item = entryItem(palette, QStringLiteral("ResBlock"));
    QVERIFY(item != nullptr);
    tree->setCurrentItem(item);
    QVERIFY(item->isSelected());
    const QModelIndexList selected = tree->selectionModel()->selectedIndexes();
    QCOMPARE(selected.size(), 1);
    const std::unique_ptr<QMimeData> mime(tree->model()->mimeData(selected));
    QVERIFY(mime != nullptr);
    QCOMPARE(PaletteWidget::typeFromMime(mime.get()), QStringLiteral("ResBlock"));

    const QModelIndex categoryIndex = tree->model()->index(0, 0);
    const std::unique_ptr<QMimeData> none(tree->model()->mimeData({categoryIndex}));
    QVERIFY(PaletteWidget::typeFromMime(none.get()).isNull());
}

QTEST_MAIN(TestPalette)
#include "test_palette.moc"
