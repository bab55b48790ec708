// ConnectionPanel: the selected wire's projection kind, delayed flag, weight initialisation and
// delay in milliseconds, above the projection's own attributes. See connection_panel.hpp.
// Thread: GUI thread only.
#include "ui/inspector/connection_panel.hpp"

#include "ui/document/graph_commands.hpp"
#include "ui/document/graph_projection.hpp"

#include "engine/network/network.hpp"
#include "engine/network/weight_init.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QSignalBlocker>
#include <QStandardItemModel>
#include <QTimer>
#include <QVBoxLayout>

#include <cmath>

namespace spike::ui {

namespace {

/// A number typed by the user (C locale, as the inspector's fields), or nullopt.
std::optional<double> parseNumber(const QString& text)
{
    bool ok = false;
    const double v = QLocale::c().toDouble(text.trimmed(), &ok);
    return ok && std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

QString number(double v)
{
    return QLocale::c().toString(v, 'g', 6);
}

QLabel* smallGrey(const QString& text, QWidget* parent)
{
    auto* label = new QLabel(text, parent);
    label->setWordWrap(true);
    QPalette pal = label->palette();
    pal.setColor(QPalette::WindowText, QColor(0x60, 0x66, 0x70));
    label->setPalette(pal);
    return label;
}

}  // namespace

ConnectionPanel::ConnectionPanel(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_title = new QLabel(this);
    m_title->setWordWrap(true);
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    layout->addWidget(m_title);
    m_summary = smallGrey({}, this);
    layout->addWidget(m_summary);

    auto* form = new QGridLayout;
    form->setColumnStretch(1, 1);
    form->addWidget(new QLabel(tr("Projection"), this), 0, 0);
    m_kind = new QComboBox(this);
    m_kind->setObjectName(QStringLiteral("projectionKind"));
    m_kind->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_kind->setMinimumContentsLength(10);
    for (const ProjectionKind& kind : projectionKinds()) {
        m_kind->addItem(kind.label, QString::fromStdString(kind.type));
    }
    m_kind->setToolTip(tr("How the source's channels reach the target's: unchanged (identity, equal sizes), "
                          "channel by channel, through a full weight matrix, or through random synapses"));
    form->addWidget(m_kind, 0, 1);
    m_delayed = new QCheckBox(tr("Delayed (delivers the previous step's value)"), this);
    m_delayed->setObjectName(QStringLiteral("wireDelayed"));
    m_delayed->setToolTip(tr("A wire that closes a cycle must be delayed; any other may be"));
    form->addWidget(m_delayed, 1, 0, 1, 2);
    layout->addLayout(form);
    connect(m_kind, &QComboBox::activated, this, &ConnectionPanel::setKind);
    connect(m_delayed, &QCheckBox::clicked, this, &ConnectionPanel::setDelayed);

    // Dense: initialise the weight matrix.
    m_init = new QGroupBox(tr("Initialise weights"), this);
    auto* init = new QGridLayout(m_init);
    init->setContentsMargins(4, 4, 4, 4);
    init->setColumnStretch(1, 1);
    init->setColumnStretch(3, 1);
    m_scheme = new QComboBox(m_init);
    m_scheme->setObjectName(QStringLiteral("initScheme"));
    m_scheme->addItem(tr("Constant"), QStringLiteral("constant"));
    m_scheme->addItem(tr("Uniform"), QStringLiteral("uniform"));
    m_scheme->addItem(tr("Normal"), QStringLiteral("normal"));
    m_scheme->addItem(tr("Kaiming uniform"), QStringLiteral("kaiming_uniform"));
    m_scheme->setCurrentIndex(2);
    m_scheme->setToolTip(tr("Kaiming uniform: U(-b, b), b = gain·sqrt(3 / Nsrc); the default gain 0.577 "
                            "gives b = 1/sqrt(Nsrc), torch.nn.Linear's default"));
    init->addWidget(m_scheme, 0, 0, 1, 4);
    m_paramALabel = new QLabel(m_init);
    m_paramBLabel = new QLabel(m_init);
    m_paramA = new QLineEdit(m_init);
    m_paramB = new QLineEdit(m_init);
    m_paramA->setObjectName(QStringLiteral("initParamA"));
    m_paramB->setObjectName(QStringLiteral("initParamB"));
    for (QLineEdit* e : {m_paramA, m_paramB}) {
        e->setMinimumWidth(40);
    }
    init->addWidget(m_paramALabel, 1, 0);
    init->addWidget(m_paramA, 1, 1);
    init->addWidget(m_paramBLabel, 1, 2);
    init->addWidget(m_paramB, 1, 3);
    init->addWidget(new QLabel(tr("seed"), m_init), 2, 0);
    m_seed = new QLineEdit(QStringLiteral("0"), m_init);
    m_seed->setObjectName(QStringLiteral("initSeed"));
    m_seed->setMinimumWidth(40);
    init->addWidget(m_seed, 2, 1);
    m_apply = new QPushButton(tr("Apply"), m_init);
    m_apply->setObjectName(QStringLiteral("initApply"));
    m_apply->setToolTip(tr("Sets every weight from the scheme (one undo step)"));
    init->addWidget(m_apply, 2, 2, 1, 2);
    layout->addWidget(m_init);
    connect(m_scheme, &QComboBox::currentIndexChanged, this, &ConnectionPanel::refreshInitParams);
    connect(m_apply, &QPushButton::clicked, this, &ConnectionPanel::applyInitialisation);
    refreshInitParams();

    // Sparse: the delay in milliseconds.
    m_delayRow = new QWidget(this);
    auto* delay = new QGridLayout(m_delayRow);
    delay->setContentsMargins(0, 0, 0, 0);
    delay->setColumnStretch(1, 1);
    delay->addWidget(new QLabel(tr("Delay [ms]"), m_delayRow), 0, 0);
    m_delayMs = new QLineEdit(m_delayRow);
    m_delayMs->setObjectName(QStringLiteral("delayMs"));
    m_delayMs->setToolTip(tr("Synaptic delay in milliseconds, rounded to whole time steps"));
    delay->addWidget(m_delayMs, 0, 1);
    m_delaySteps = smallGrey({}, m_delayRow);
    delay->addWidget(m_delaySteps, 1, 0, 1, 2);
    layout->addWidget(m_delayRow);
    connect(m_delayMs, &QLineEdit::returnPressed, this, &ConnectionPanel::applyDelayMs);

    m_message = new QLabel(this);
    m_message->setWordWrap(true);
    m_message->setStyleSheet(QStringLiteral("color: #b00020;"));
    m_message->hide();
    layout->addWidget(m_message);

    m_identityNote = smallGrey(tr("Values pass through unchanged. Choose a projection to weight them."), this);
    layout->addWidget(m_identityNote);
    m_inspector = new Inspector(this);
    layout->addWidget(m_inspector, 1);
    // A pass-through wire hides the inspector: the rows stay at the top instead of spreading
    // down the dock (the inspector's stretch takes the space whenever it shows).
    layout->addStretch(0);
    refresh();
}

void ConnectionPanel::setDocument(GraphDocument* doc)
{
    for (const auto& c : m_connections) {
        disconnect(c);
    }
    m_connections.clear();
    m_doc = doc;
    m_connection = {};
    m_inspector->setDocument(doc);
    if (doc != nullptr) {
        const auto mine = [this](ConnectionId id) { return id == m_connection; };
        m_connections.push_back(connect(doc, &GraphDocument::connectionAdded, this, [this, mine](ConnectionId id) {
            if (mine(id)) {
                refresh();
            }
        }));
        // A kind change takes the wire out and puts it back in one command: look again once it
        // is done rather than showing an empty panel in between.
        m_connections.push_back(connect(doc, &GraphDocument::connectionRemoved, this, [this, mine](ConnectionId id) {
            if (mine(id)) {
                QTimer::singleShot(0, this, [this] { refresh(); });
            }
        }));
        m_connections.push_back(connect(doc, &GraphDocument::connectionRenamed, this, [this, mine](ConnectionId id) {
            if (mine(id)) {
                refresh();
            }
        }));
        m_connections.push_back(connect(doc, &GraphDocument::nodeRenamed, this, [this] { refresh(); }));
        m_connections.push_back(connect(doc, &GraphDocument::attributeChanged, this, [this](NodeId id, const QString&) {
            const auto info = m_doc->connection(m_connection);
            if (info && (id == info->projection || m_doc->parentOf(id) == info->network)) {
                refresh();  // the summary, the delay in ms (a node's dt)
            }
        }));
        m_connections.push_back(connect(doc, &GraphDocument::documentReset, this, [this] { showConnection({}); }));
    }
    refresh();
}

void ConnectionPanel::showConnection(ConnectionId id)
{
    if (id != m_connection) {
        showMessage({});
    }
    m_connection = id;
    refresh();
}

void ConnectionPanel::setEditGate(Inspector::EditGate gate)
{
    m_gate = gate;
    m_inspector->setEditGate(std::move(gate));
}

QString ConnectionPanel::title() const
{
    return m_title->text();
}

QString ConnectionPanel::summary() const
{
    return m_summary->text();
}

QString ConnectionPanel::delayText() const
{
    return m_delaySteps->text();
}

NodeId ConnectionPanel::projectionNode() const
{
    const auto info = m_doc != nullptr ? m_doc->connection(m_connection) : std::nullopt;
    return info ? info->projection : NodeId{};
}

double ConnectionPanel::timeStep(const ConnectionInfo& info) const
{
    const engine::Network* net = m_doc->network(info.network);
    for (const engine::Endpoint* end : {&info.to, &info.from}) {
        const engine::Module* node = net != nullptr && !end->node.empty() ? net->findChild(end->node) : nullptr;
        if (node != nullptr && node->hasAttribute("dt")) {
            const auto* t = std::get_if<engine::Tensor>(&node->attribute("dt"));
            if (t != nullptr && t->numel() > 0 && (*t)[0] > 0.0F) {
                return (*t)[0];
            }
        }
    }
    return 1e-3;
}

void ConnectionPanel::refresh()
{
    const auto info = m_doc != nullptr ? m_doc->connection(m_connection) : std::nullopt;
    setEnabled(info.has_value());
    if (!info) {
        m_title->setText(tr("No wire selected"));
        m_summary->clear();
        m_init->hide();
        m_delayRow->hide();
        m_identityNote->hide();
        m_inspector->showNode({});
        return;
    }
    const WireSummary s = summarizeWire(*m_doc, m_connection);
    m_title->setText(tr("Wire %1 (%2) → %3 (%4)")
                         .arg(QString::fromStdString(info->from.toString()))
                         .arg(s.source)
                         .arg(QString::fromStdString(info->to.toString()))
                         .arg(s.target));
    m_title->setToolTip(tr("Connection '%1'").arg(QString::fromStdString(info->name)));
    m_summary->setText(wireDescription(s).replace(QLatin1Char('\n'), QStringLiteral(" · ")));
    {
        const QSignalBlocker block(m_kind);
        auto* model = qobject_cast<QStandardItemModel*>(m_kind->model());
        for (int k = 0; k < m_kind->count(); ++k) {
            const std::string type = m_kind->itemData(k).toString().toStdString();
            const QString why = type == s.type ? QString() : projectionRefusal(type, s.source, s.target);
            if (model != nullptr) {
                model->item(k)->setEnabled(why.isEmpty());
                model->item(k)->setToolTip(why);
            }
            if (type == s.type) {
                m_kind->setCurrentIndex(k);
            }
        }
    }
    {
        const QSignalBlocker block(m_delayed);
        m_delayed->setChecked(info->delayed);
    }
    m_init->setVisible(s.type == "DenseProjection");
    const bool sparse = s.type == "SparseProjection";
    m_delayRow->setVisible(sparse);
    if (sparse) {
        const double dtMs = timeStep(*info) * 1e3;
        const double ms = static_cast<double>(s.delay) * dtMs;
        if (!m_delayMs->hasFocus() || m_delayMs->text().isEmpty()) {
            m_delayMs->setText(number(ms));
        }
        const QString steps = s.delay == 1 ? tr("1 step") : tr("%1 steps").arg(s.delay);
        m_delaySteps->setText(tr("%1 = %2 ms at dt %3 ms").arg(steps, number(ms), number(dtMs)));
    }
    m_identityNote->setVisible(s.type.empty());
    if (m_inspector->node() != info->projection) {
        m_inspector->showNode(info->projection);
    }
    m_inspector->setVisible(info->projection.valid());
}

void ConnectionPanel::refreshInitParams()
{
    const QString scheme = m_scheme->currentData().toString();
    const auto set = [](QLabel* label, QLineEdit* edit, const QString& name, const QString& value) {
        label->setText(name);
        label->setVisible(!name.isEmpty());
        edit->setVisible(!name.isEmpty());
        edit->setText(value);
    };
    const engine::WeightInitParams d;
    if (scheme == QLatin1String("constant")) {
        set(m_paramALabel, m_paramA, tr("value"), number(d.value));
        set(m_paramBLabel, m_paramB, {}, {});
    } else if (scheme == QLatin1String("uniform")) {
        set(m_paramALabel, m_paramA, tr("low"), number(d.low));
        set(m_paramBLabel, m_paramB, tr("high"), number(d.high));
    } else if (scheme == QLatin1String("normal")) {
        set(m_paramALabel, m_paramA, tr("mean"), number(d.mean));
        set(m_paramBLabel, m_paramB, tr("std"), number(d.std));
    } else {
        set(m_paramALabel, m_paramA, tr("gain"), number(d.gain));
        set(m_paramBLabel, m_paramB, {}, {});
    }
}

void ConnectionPanel::showMessage(const QString& message)
{
    m_lastMessage = message;
    m_message->setText(message);
    m_message->setVisible(!message.isEmpty());
}

bool ConnectionPanel::gateAllows(NodeId node, const std::string& attribute)
{
    const engine::Module* m = m_doc->module(node);
    if (!m_gate || m == nullptr || !m->hasAttribute(attribute)) {
        return true;
    }
    const QString why = m_gate(node, m->spec(attribute));
    if (!why.isEmpty()) {
        showMessage(why);
        return false;
    }
    return true;
}

bool ConnectionPanel::pushAttribute(NodeId node, const std::string& attribute, engine::AttributeValue value)
{
    if (!gateAllows(node, attribute)) {
        return false;
    }
    return push(std::make_unique<SetAttributeCommand>(*m_doc, node, attribute, std::move(value)));
}

bool ConnectionPanel::push(std::unique_ptr<GraphCommand> command)
{
    const engine::Status status = pushCommand(*m_doc, std::move(command));
    showMessage(status.ok ? QString() : QString::fromStdString(status.message));
    if (status.ok) {
        Q_EMIT edited(m_connection);
    }
    return status.ok;
}

void ConnectionPanel::setKind(int index)
{
    if (m_doc == nullptr || index < 0) {
        return;
    }
    const std::string type = m_kind->itemData(index).toString().toStdString();
    const WireSummary s = summarizeWire(*m_doc, m_connection);
    if (type == s.type) {
        return;
    }
    push(std::make_unique<SetProjectionCommand>(*m_doc, m_connection, type));
    refresh();
}

void ConnectionPanel::setDelayed(bool on)
{
    if (m_doc == nullptr) {
        return;
    }
    push(std::make_unique<SetDelayedCommand>(*m_doc, m_connection, on));
    refresh();
}

void ConnectionPanel::applyInitialisation()
{
    const NodeId node = projectionNode();
    const engine::Module* m = m_doc != nullptr ? m_doc->module(node) : nullptr;
    if (m == nullptr || m->className() != "DenseProjection") {
        return;
    }
    const QString schemeName = m_scheme->currentData().toString();
    engine::WeightInitParams p;
    const auto read = [this](QLineEdit* edit, const QLabel* label, double& into) {
        const auto v = parseNumber(edit->text());
        if (!v) {
            showMessage(tr("%1: '%2' is not a number").arg(label->text(), edit->text()));
            return false;
        }
        into = *v;
        return true;
    };
    bool ok = true;
    if (schemeName == QLatin1String("constant")) {
        ok = read(m_paramA, m_paramALabel, p.value);
    } else if (schemeName == QLatin1String("uniform")) {
        ok = read(m_paramA, m_paramALabel, p.low) && read(m_paramB, m_paramBLabel, p.high);
    } else if (schemeName == QLatin1String("normal")) {
        ok = read(m_paramA, m_paramALabel, p.mean) && read(m_paramB, m_paramBLabel, p.std);
    } else {
        ok = read(m_paramA, m_paramALabel, p.gain);
    }
    if (!ok) {
        return;
    }
    bool seedOk = false;
    const qulonglong seed = m_seed->text().trimmed().toULongLong(&seedOk);
    if (!seedOk) {
        showMessage(tr("seed: '%1' is not a whole number >= 0").arg(m_seed->text()));
        return;
    }
    try {
        engine::Tensor w = engine::initialWeights(engine::weightInitFromName(schemeName.toStdString()), p,
                                                  m->sizeIn(), m->sizeOut(), seed);
        pushAttribute(node, "weight", std::move(w));
    } catch (const engine::Error& e) {
        showMessage(QString::fromUtf8(e.what()));
    }
}

void ConnectionPanel::applyDelayMs()
{
    const NodeId node = projectionNode();
    const auto info = m_doc != nullptr ? m_doc->connection(m_connection) : std::nullopt;
    if (!info || m_doc->module(node) == nullptr || !m_doc->module(node)->hasAttribute("delay")) {
        return;
    }
    const auto ms = parseNumber(m_delayMs->text());
    if (!ms) {
        showMessage(tr("Delay: '%1' is not a number of milliseconds").arg(m_delayMs->text()));
        return;
    }
    if (*ms < 0.0) {
        showMessage(tr("Delay: %1 ms is negative; a synapse cannot deliver before the spike").arg(number(*ms)));
        refresh();
        return;
    }
    const double dtMs = timeStep(*info) * 1e3;
    const double steps = std::round(*ms / dtMs);
    if (steps > 16777216.0) {
        showMessage(tr("Delay: %1 ms is %2 steps at dt %3 ms, more than the 2^24 steps a delay may have")
                        .arg(number(*ms), number(steps), number(dtMs)));
        return;
    }
    m_delayMs->clearFocus();
    pushAttribute(node, "delay", engine::Tensor::scalar(static_cast<float>(steps)));
    refresh();
}

}  // namespace spike::ui
