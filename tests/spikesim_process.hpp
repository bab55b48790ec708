// Running the spikesim binary (SPIKESIM_PATH, set per test target) as a user would, through
// QProcess, for the tests of its commands (test_spikesim, test_spikesim_analyse).
#pragma once

#include <QProcess>
#include <QString>
#include <QStringList>

namespace spike::tests {

/// What one spikesim run printed and how it ended.
struct Outcome {
    int exitCode = -1;  ///< -2 when it crashed or did not finish within a minute
    QString out;
    QString err;
};

inline Outcome runSpikesim(const QStringList& args)
{
    QProcess p;
    p.start(QStringLiteral(SPIKESIM_PATH), args);
    p.waitForFinished(60000);
    Outcome o;
    o.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    o.out = QString::fromUtf8(p.readAllStandardOutput());
    o.err = QString::fromUtf8(p.readAllStandardError());
    return o;
}

/// resources/examples/NAME, found from the test data folder.
inline QString exampleModel(const char* name)
{
    return QStringLiteral(SPIKE_TEST_DATA_DIR "/../../resources/examples/") + QString::fromUtf8(name);
}

}  // namespace spike::tests
