// compareSpikeStatistics(): every number of two engine::SpikeStatistics equal, bit for bit (the
// engine's dense and event inputs, the GUI's live statistics against a headless run). Uses
// QCOMPARE: the caller checks QTest::currentTestFailed() after it.
#pragma once

#include "engine/analysis/spike_statistics.hpp"

#include <QtTest/QtTest>

namespace spike::tests {

inline void compareSpikeStatistics(const engine::SpikeStatistics& got, const engine::SpikeStatistics& expected)
{
    QCOMPARE(got.neurons, expected.neurons);
    QCOMPARE(got.steps, expected.steps);
    QCOMPARE(got.spikes, expected.spikes);
    QCOMPARE(got.rateHz, expected.rateHz);
    QCOMPARE(got.meanRateHz, expected.meanRateHz);
    QCOMPARE(got.intervals, expected.intervals);
    QCOMPARE(got.isiMean, expected.isiMean);
    QCOMPARE(got.isiCv, expected.isiCv);
    QCOMPARE(got.meanCv, expected.meanCv);
    QCOMPARE(got.cvNeurons, expected.cvNeurons);
    QCOMPARE(got.meanFano, expected.meanFano);
    QCOMPARE(got.fanoNeurons, expected.fanoNeurons);
    QCOMPARE(got.window, expected.window);
    QCOMPARE(got.isiHistogram.edges, expected.isiHistogram.edges);
    QCOMPARE(got.isiHistogram.counts, expected.isiHistogram.counts);
    QCOMPARE(got.rateHistogram.edges, expected.rateHistogram.edges);
    QCOMPARE(got.rateHistogram.counts, expected.rateHistogram.counts);
}

}  // namespace spike::tests
