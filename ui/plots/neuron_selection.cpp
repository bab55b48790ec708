// Neuron selections. See neuron_selection.hpp.
#include "ui/plots/neuron_selection.hpp"

#include <QObject>
#include <QRegularExpression>
#include <QStringList>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

namespace spike::ui {

std::optional<std::vector<std::int64_t>> parseNeuronSelection(const QString& text, std::int64_t count,
                                                              QString* error)
{
    const auto fail = [error](const QString& why) -> std::optional<std::vector<std::int64_t>> {
        if (error != nullptr) {
            *error = why;
        }
        return std::nullopt;
    };
    const QString t = text.trimmed().toLower();
    if (t.isEmpty() || t == QLatin1String("all")) {
        return std::vector<std::int64_t>{};
    }
    static const QRegularExpression random(QStringLiteral("^random\\s+(\\d+)(?:\\s+seed\\s+(\\d+))?$"));
    if (const auto m = random.match(t); m.hasMatch()) {
        bool ok = false;
        const qlonglong k = m.captured(1).toLongLong(&ok);
        if (!ok || k < 1 || k > count || k > kMaxSelectedNeurons) {
            return fail(QObject::tr("'%1': random needs 1 to %2 neurons").arg(text).arg(std::min(count, kMaxSelectedNeurons)));
        }
        const unsigned seed = m.captured(2).isEmpty() ? 1U : m.captured(2).toUInt();
        std::vector<std::int64_t> all(static_cast<std::size_t>(count));
        std::iota(all.begin(), all.end(), std::int64_t{0});
        std::mt19937 rng(seed);
        std::shuffle(all.begin(), all.end(), rng);
        all.resize(static_cast<std::size_t>(k));
        std::sort(all.begin(), all.end());
        return all;
    }
    std::set<std::int64_t> chosen;
    for (const QString& part : t.split(QLatin1Char(','))) {
        const QStringList ends = part.trimmed().split(QLatin1Char('-'));
        bool okA = false;
        bool okB = true;
        const qlonglong a = ends.value(0).trimmed().toLongLong(&okA);
        const qlonglong b = ends.size() == 2 ? ends[1].trimmed().toLongLong(&okB) : a;
        if (ends.size() > 2 || !okA || !okB) {
            return fail(QObject::tr("'%1': expected all, a range such as 0-99, a list such as 1, 5, 7-9, or random 20")
                            .arg(part.trimmed()));
        }
        if (a < 0 || b >= count || a > b) {
            return fail(QObject::tr("'%1': neurons are numbered 0 to %2").arg(part.trimmed()).arg(count - 1));
        }
        if (static_cast<std::int64_t>(chosen.size()) + (b - a + 1) > kMaxSelectedNeurons) {
            return fail(QObject::tr("'%1' names more than %2 neurons").arg(text).arg(kMaxSelectedNeurons));
        }
        for (qlonglong i = a; i <= b; ++i) {
            chosen.insert(i);
        }
    }
    return std::vector<std::int64_t>(chosen.begin(), chosen.end());
}

}  // namespace spike::ui
