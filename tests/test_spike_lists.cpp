// Spike lists (engine/tensor/spike_lists.hpp): the listing of a row's non-zero channels, event-driven
// delivery from the lists (SparseProjection::deliverListed() and clearListed()) against the scan
// of the dense rows, the CPU executor with lists against the executor without them (the same
// spikes, traces, outputs and states bit for bit, for any chunking and schedule), the probes'
// spike lists, and ProbeBuffer events found from lists against those found by a scan.
#include "engine/core/thread_pool.hpp"
#include "engine/runtime/backend.hpp"
#include "engine/neurons/cuba_lif.hpp"
#include "engine/neurons/lif.hpp"
#include "engine/network/network.hpp"
#include "engine/runtime/probe_buffer.hpp"
#include "engine/network/projections.hpp"
#include "engine/tensor/random.hpp"
#include "engine/sources/sources.hpp"
#include "engine/tensor/spike_lists.hpp"

#include <QtTest/QtTest>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

using namespace spike::engine;  // NOLINT: test file

namespace {

Tensor scalar(float v)
{
    return Tensor::scalar(v);
}

/// Whether two float arrays hold the same bits (NaN and the sign of zero included).
bool sameBits(const std::vector<float>& a, const std::vector<float>& b)
{
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

/// (steps, stride) rows of presynaptic values in channels [0, n): mostly 0, some 1, some 2 or 3
/// (several spikes in a step), some graded values of either sign; the padding beyond n is 7.
std::vector<float> presynapticRows(std::int64_t steps, std::int64_t n, std::int64_t stride,
                                   std::uint64_t seed)
{
    Random rng(seed);
    std::vector<float> rows(static_cast<std::size_t>(steps * stride), 7.0F);
    for (std::int64_t t = 0; t < steps; ++t) {
        for (std::int64_t i = 0; i < n; ++i) {
            const double u = rng.uniform();
            const auto graded = static_cast<float>(rng.uniform(-1.5, 1.5));
            rows[static_cast<std::size_t>(t * stride + i)] =
                u < 0.85 ? 0.0F : u < 0.93 ? 1.0F : u < 0.96 ? 2.0F : u < 0.98 ? 3.0F : graded;
        }
    }
    return rows;
}

/// The spike lists of `rows` (stride n + padding) for channels [0, n), by a plain scan.
struct Lists {
    std::vector<std::int32_t> indices;
    std::vector<std::int32_t> counts;
    std::int64_t stride = 0;
    SpikeLists view(std::int64_t t = 0) const
    {
        return SpikeLists{indices.data(), counts.data(), stride}.from(t);
    }
};

Lists listRows(const std::vector<float>& rows, std::int64_t steps, std::int64_t n,
               std::int64_t rowStride)
{
    Lists l;
    l.stride = n;
    l.indices.assign(static_cast<std::size_t>(steps * n), -1);
    l.counts.assign(static_cast<std::size_t>(steps), 0);
    for (std::int64_t t = 0; t < steps; ++t) {
        for (std::int64_t i = 0; i < n; ++i) {
            if (rows[static_cast<std::size_t>(t * rowStride + i)] != 0.0F) {
                std::int32_t& count = l.counts[static_cast<std::size_t>(t)];
                l.indices[static_cast<std::size_t>(t * n + count++)] = static_cast<std::int32_t>(i);
            }
        }
    }
    return l;
}

std::unique_ptr<SparseProjection> sparse(std::int64_t nSrc, std::int64_t nDst,
                                         const std::string& rule, float delay, float seed)
{
    return std::make_unique<SparseProjection>(
        nSrc, nDst, AttributeMap{{"rule", rule}, {"p", scalar(0.3F)}, {"in_degree", scalar(9.0F)},
                                 {"weight", scalar(0.37F)}, {"delay", scalar(delay)},
                                 {"seed", scalar(seed)}});
}

/// The stored "pending" ring and head of a projection, as floats.
std::vector<float> ringState(const SparseProjection& p)
{
    const Tensor& ring = p.tensor("pending");
    std::vector<float> out(ring.data(), ring.data() + ring.numel());
    out.push_back(p.tensor("pending_head")[0]);
    return out;
}

/// Mini CUBA network: Poisson drive into E, E and I CUBALIF populations wired by sparse
/// projections (delayed edges without projection delay, as bench/cuba, and one with a
/// three-step delay ring), and a feed-forward multi-spike LIF readout of E.
std::unique_ptr<Network> cubaLike()
{
    auto net = std::make_unique<Network>(0, 12);
    net->addNode("drive", std::make_unique<PoissonSource>(
                              40, AttributeMap{{"rate", scalar(400.0F)}, {"seed", scalar(2.0F)}}));
    const auto population = [](std::int64_t n) {
        return std::make_unique<CUBALIF>(
            n, AttributeMap{{"dt", scalar(1e-4F)}, {"refractory_time", scalar(2e-4F)},
                            {"v_rest", scalar(-45.0F)}});
    };
    net->addNode("E", population(150));
    net->addNode("I", population(40));
    net->addNode("L", std::make_unique<LIF>(12, 12, false,
                                            AttributeMap{{"threshold", scalar(0.05F)},
                                                         {"max_spikes_per_dt", scalar(4.0F)}}));
    const auto connect = [&](const char* name, const char* from, const char* to, std::int64_t nSrc,
                             std::int64_t nDst, float weight, float delay, float seed) {
        net->connect(from, to,
                     std::make_unique<SparseProjection>(
                         nSrc, nDst,
                         AttributeMap{{"rule", std::string("probability")}, {"p", scalar(0.1F)},
                                      {"weight", scalar(weight)}, {"delay", scalar(delay)},
                                      {"seed", scalar(seed)}}),
                     name, true);
    };
    connect("DE", "drive", "E.exc", 40, 150, 2.0F, 0.0F, 1.0F);
    connect("EE", "E.spikes", "E.exc", 150, 150, 1.6F, 0.0F, 2.0F);
    connect("EI", "E.spikes", "I.exc", 150, 40, 1.6F, 0.0F, 3.0F);
    connect("IE", "I.spikes", "E.inh", 40, 150, -9.0F, 3.0F, 4.0F);
    connect("II", "I.spikes", "I.inh", 40, 40, -9.0F, 0.0F, 5.0F);
    net->connect("E.spikes", "L",
                 std::make_unique<SparseProjection>(
                     150, 12, AttributeMap{{"p", scalar(0.2F)}, {"weight", scalar(0.9F)},
                                           {"rule", std::string("probability")}}));
    net->connect("L", "out");
    return net;
}

struct Run {
    std::vector<float> output;
    std::vector<std::vector<float>> probes;
    std::vector<std::vector<float>> states;  ///< every State of every module, in tree order
    std::int64_t listedSpikes = 0;           ///< spikes seen through probeSpikeLists()
    bool listsMatchRows = true;              ///< every probe list named exactly its row's non-zeros
};

/// Runs cubaLike() for `steps` steps in chunks of `chunk`, handing over to a new executor before
/// the first chunk that starts in the second half.
Run runCuba(std::int64_t steps, std::int64_t chunk, bool lockStep, bool spikeLists)
{
    auto net = cubaLike();
    ExecutorOptions options;
    options.maxChunkSteps = chunk;
    options.plan.lockStepAll = lockStep;
    options.spikeLists = spikeLists;
    auto ex = makeCpuExecutor(*net, options);
    const std::vector<ProbeRequest> requests{{"E", "spikes", {}}, {"I", "spikes", {}},
                                             {"L", "spikes", {}}, {"E", "i_inh", {}},
                                             {"I", "spikes", {1, 3}}};
    const auto infos = ex->setProbes(requests);
    Run r;
    r.output.resize(static_cast<std::size_t>(steps * 12));
    r.probes.resize(requests.size());
    bool reloaded = false;
    for (std::int64_t t0 = 0; t0 < steps; t0 += chunk) {
        const std::int64_t n = std::min(chunk, steps - t0);
        if (!reloaded && t0 >= steps / 2) {
            // A new executor on the stored tree picks the delayed edges' last row up from the
            // network: its spikes must be listed too.
            ex->storeStates();
            ex = makeCpuExecutor(*net, options);
            ex->setProbes(requests);
            reloaded = true;
        }
        ex->advance(n, nullptr, r.output.data() + t0 * 12);
        for (std::size_t k = 0; k < requests.size(); ++k) {
            const float* d = ex->probeData(k);
            const std::int64_t w = infos[k].width;
            r.probes[k].insert(r.probes[k].end(), d, d + n * w);
            const std::optional<SpikeLists> lists = ex->probeSpikeLists(k);
            if (!lists) {
                continue;
            }
            for (std::int64_t t = 0; t < n; ++t) {
                const Lists expected =
                    listRows(std::vector<float>(d + t * w, d + (t + 1) * w), 1, w, w);
                const std::int32_t count = lists->counts[t];
                r.listedSpikes += count;
                r.listsMatchRows =
                    r.listsMatchRows && count == expected.counts[0] &&
                    std::equal(expected.indices.begin(), expected.indices.begin() + count,
                               lists->indices + t * lists->stride);
            }
        }
    }
    ex->storeStates();
    for (const auto& [path, attrs] : net->state()) {
        for (const auto& [name, value] : attrs) {
            if (const auto* t = std::get_if<Tensor>(&value)) {
                r.states.emplace_back(t->data(), t->data() + t->numel());
            }
        }
    }
    return r;
}

bool identical(const Run& a, const Run& b)
{
    if (!sameBits(a.output, b.output) || a.probes.size() != b.probes.size() ||
        a.states.size() != b.states.size()) {
        return false;
    }
    for (std::size_t k = 0; k < a.probes.size(); ++k) {
        if (!sameBits(a.probes[k], b.probes[k])) {
            return false;
        }
    }
    for (std::size_t k = 0; k < a.states.size(); ++k) {
        if (!sameBits(a.states[k], b.states[k])) {
            return false;
        }
    }
    return true;
}

std::int64_t nonZero(const std::vector<float>& v)
{
    std::int64_t n = 0;
    for (float x : v) {
        n += x != 0.0F ? 1 : 0;
    }
    return n;
}

}  // namespace

class TestSpikeLists : public QObject {
    Q_OBJECT

private slots:
    void listNamesExactlyTheNonZeroChannels()
    {
        // 203 channels: three whole blocks of 64 and a tail; -0 is zero, NaN is not.
        const float nan = std::numeric_limits<float>::quiet_NaN();
        const float inf = std::numeric_limits<float>::infinity();
        const float tiny = std::numeric_limits<float>::denorm_min();
        std::vector<float> row(203, 0.0F);
        row[5] = -0.0F;
        row[0] = 1.0F;
        row[63] = 2.0F;
        row[64] = nan;
        row[100] = -0.0F;
        row[127] = -inf;
        row[128] = tiny;
        row[191] = -3.5F;
        row[192] = 1.0F;
        row[202] = -0.0F;
        row[201] = 4.0F;
        std::vector<std::int32_t> got(row.size(), -1);
        const std::int32_t count =
            listNonZero(row.data(), static_cast<std::int64_t>(row.size()), got.data());
        const std::vector<std::int32_t> expected{0, 63, 64, 127, 128, 191, 192, 201};
        QCOMPARE(count, static_cast<std::int32_t>(expected.size()));
        QCOMPARE(std::vector<std::int32_t>(got.begin(), got.begin() + count), expected);
        QCOMPARE(listNonZero(row.data(), 5, got.data()), 1);  // a row shorter than a block

        // Several rows at a stride, as a runner lists a chunk.
        const std::vector<float> rows = presynapticRows(9, 150, 160, 3);
        const Lists reference = listRows(rows, 9, 150, 160);
        Lists lists;
        lists.stride = 150;
        lists.indices.assign(9 * 150, -1);
        lists.counts.assign(9, -1);
        listNonZeroRows(rows.data(), 160, 150, 9, {lists.indices.data(), lists.counts.data(), 150});
        QCOMPARE(lists.counts, reference.counts);
        for (std::size_t t = 0; t < 9; ++t) {
            const auto first = static_cast<std::ptrdiff_t>(t * 150);
            QVERIFY(std::equal(reference.indices.begin() + first,
                               reference.indices.begin() + first + reference.counts[t],
                               lists.indices.begin() + first));
        }
    }

    void everyCompiledScanListsTheSameChannels()
    {
        // Each scan this build contains (portable, SSE2, AVX2, AVX-512) against a channel-by-channel
        // reference, on rows of every width around the 64-channel blocks, from empty to full,
        // with NaN, infinities, denormals, negative values and -0 in every lane position; the
        // entries past the count stay untouched. Then once more with denormals-are-zero and
        // flush-to-zero set: a denormal still counts.
        using Scan = std::int32_t (*)(const float*, std::int64_t, std::int32_t*);
        std::vector<std::pair<const char*, Scan>> scans{{"portable", detail::listNonZeroPortable}};
#if defined(__SSE2__)
        scans.emplace_back("sse2", detail::listNonZeroSse2);
#endif
#if defined(__AVX2__)
        scans.emplace_back("avx2", detail::listNonZeroAvx2);
#endif
#if defined(__AVX512F__)
        scans.emplace_back("avx512", detail::listNonZeroAvx512);
#endif
        const float specials[] = {1.0F, -2.5F, std::numeric_limits<float>::quiet_NaN(),
                                  -std::numeric_limits<float>::infinity(),
                                  std::numeric_limits<float>::denorm_min(), -0.0F};
        std::uint32_t seed = 12345;
        const auto next = [&seed] { return seed = seed * 1664525U + 1013904223U; };
        const auto check = [&](const char* phase) {
            for (const std::int64_t n : {0, 1, 7, 63, 64, 65, 127, 128, 129, 200, 1000, 8000}) {
                for (const std::uint32_t perMille : {0U, 2U, 50U, 500U, 1000U}) {
                    std::vector<float> row(static_cast<std::size_t>(n), 0.0F);
                    std::vector<std::int32_t> expected;
                    for (std::int64_t i = 0; i < n; ++i) {
                        if (next() % 1000U < perMille) {
                            row[static_cast<std::size_t>(i)] = specials[next() % 6U];
                        }
                        if ((std::bit_cast<std::uint32_t>(row[static_cast<std::size_t>(i)]) & 0x7FFFFFFFU) != 0) {
                            expected.push_back(static_cast<std::int32_t>(i));
                        }
                    }
                    for (const auto& [name, scan] : scans) {
                        std::vector<std::int32_t> got(static_cast<std::size_t>(n) + 16, -7);
                        const std::int32_t count = scan(row.data(), n, got.data());
                        const QString where = QStringLiteral("%1: %2, width %3, %4 per mille")
                                                  .arg(phase, name).arg(n).arg(perMille);
                        QVERIFY2(count == static_cast<std::int32_t>(expected.size()), qPrintable(where));
                        QVERIFY2(std::equal(expected.begin(), expected.end(), got.begin()), qPrintable(where));
                        QVERIFY2(std::all_of(got.begin() + count, got.end(), [](std::int32_t v) { return v == -7; }),
                                 qPrintable(where));
                    }
                }
            }
        };
        check("default");
#if defined(__SSE2__)
        const unsigned int csr = _mm_getcsr();
        _mm_setcsr(csr | 0x8040U);  // flush-to-zero and denormals-are-zero
        check("denormals are zero");
        _mm_setcsr(csr);
#endif
    }

    void listedDeliveryEqualsDenseDelivery()
    {
        // Strided rows (the source's output is wider than the port, the target's input holds
        // other values), graded and multi-spike values, delays 0, 1 and 3, chunk boundaries
        // cutting through the delay ring: the same rows and ring, bit for bit.
        const std::int64_t steps = 60;
        const std::int64_t nSrc = 150;  // two blocks of 64 and a tail
        const std::int64_t nDst = 90;
        const std::int64_t preStride = 157;
        const std::int64_t postStride = 95;
        const std::vector<std::int64_t> chunks{1, 4, 7, 13, 2};
        for (const std::string rule : {"probability", "in_degree"}) {
            for (const float delay : {0.0F, 1.0F, 3.0F}) {
                const std::vector<float> pre = presynapticRows(steps, nSrc, preStride, 11);
                const Lists lists = listRows(pre, steps, nSrc, preStride);
                auto dense = sparse(nSrc, nDst, rule, delay, 6.0F);
                auto listed = sparse(nSrc, nDst, rule, delay, 6.0F);
                QVERIFY(dense->synapseCount() > 500);
                std::vector<float> postDense(static_cast<std::size_t>(steps * postStride));
                for (std::size_t i = 0; i < postDense.size(); ++i) {
                    postDense[i] = 0.1F * static_cast<float>(i % 17);
                }
                std::vector<float> postListed = postDense;
                std::int64_t t0 = 0;
                for (std::size_t k = 0; t0 < steps; ++k) {
                    const std::int64_t n = std::min(chunks[k % chunks.size()], steps - t0);
                    dense->deliver(pre.data() + t0 * preStride, preStride, n,
                                   postDense.data() + t0 * postStride + 2, postStride);
                    listed->deliverListed(pre.data() + t0 * preStride, preStride, lists.view(t0), n,
                                          postListed.data() + t0 * postStride + 2, postStride);
                    t0 += n;
                }
                const std::string what = rule + ", delay " + std::to_string(delay);
                QVERIFY2(sameBits(postDense, postListed), what.c_str());
                QVERIFY2(sameBits(ringState(*dense), ringState(*listed)), what.c_str());
                QVERIFY2(postDense != std::vector<float>(postDense.size(), 0.0F), what.c_str());
            }
        }
    }

    void largeProjectionsDeliverAndClearAlike()
    {
        // 3000 -> 2000 with 150 synapses onto each target: 300,000 synapses, a CSR large enough
        // for the listed walks to prefetch ahead (about 450 listed channels per step). Constant
        // and per-synapse weights: the listed delivery equals the dense scan bit for bit, split
        // over two threads too, and the clearing zeroes every entry it reached.
        const std::int64_t steps = 3;
        const std::int64_t nSrc = 3000;
        const std::int64_t nDst = 2000;
        const std::vector<float> pre = presynapticRows(steps, nSrc, nSrc, 21);
        const Lists lists = listRows(pre, steps, nSrc, nSrc);
        ThreadPool pool(2);
        for (const std::string dist : {"constant", "uniform"}) {
            const auto make = [&] {
                return std::make_unique<SparseProjection>(
                    nSrc, nDst,
                    AttributeMap{{"rule", std::string("in_degree")}, {"in_degree", scalar(150.0F)},
                                 {"weight", scalar(0.37F)}, {"weight_dist", dist},
                                 {"weight_spread", scalar(0.2F)}, {"seed", scalar(3.0F)}});
            };
            auto dense = make();
            auto listed = make();
            auto split = make();
            QCOMPARE(dense->synapseCount(), std::int64_t{300000});
            std::vector<float> postDense(static_cast<std::size_t>(steps * nDst), 0.0F);
            std::vector<float> postListed = postDense;
            std::vector<float> postSplit = postDense;
            dense->deliver(pre.data(), nSrc, steps, postDense.data(), nDst);
            listed->deliverListed(pre.data(), nSrc, lists.view(), steps, postListed.data(), nDst);
            split->deliverListedOn(pool, 1, pre.data(), nSrc, lists.view(), steps, postSplit.data(), nDst);
            QVERIFY2(sameBits(postDense, postListed), dist.c_str());
            QVERIFY2(sameBits(postDense, postSplit), dist.c_str());
            QVERIFY(std::count(postDense.begin(), postDense.end(), 0.0F) < nDst / 10);
            QVERIFY(listed->clearListed(lists.view(), steps, postListed.data(), nDst));
            QVERIFY(split->clearListedOn(pool, 1, lists.view(), steps, postSplit.data(), nDst));
            const std::vector<float> zeros(postDense.size(), 0.0F);
            QVERIFY2(sameBits(postListed, zeros), dist.c_str());
            QVERIFY2(sameBits(postSplit, zeros), dist.c_str());
        }
    }

    void deliveryAddressesEveryTargetOnBothSidesOf65536()
    {
        // Up to 65536 targets the CPU walks a 16-bit copy of the targets, from 65537 on the 32-bit
        // CSR: both deliveries (scan, lists, split over two threads) equal a plain loop over
        // targets(), and the last targets (65535 and 65536) are among those reached.
        const std::int64_t nSrc = 70;
        const std::vector<float> pre = presynapticRows(2, nSrc, nSrc, 31);
        const Lists lists = listRows(pre, 2, nSrc, nSrc);
        ThreadPool pool(2);
        for (const std::int64_t nDst : {std::int64_t{65536}, std::int64_t{65537}}) {
            const auto make = [&] {
                return std::make_unique<SparseProjection>(
                    nSrc, nDst, AttributeMap{{"rule", std::string("probability")}, {"p", scalar(0.08F)},
                                             {"weight", scalar(0.37F)}, {"seed", scalar(5.0F)}});
            };
            auto scan = make();
            auto listed = make();
            auto split = make();
            std::vector<float> expected(static_cast<std::size_t>(2 * nDst), 0.0F);
            for (std::int64_t t = 0; t < 2; ++t) {
                for (std::int64_t i = 0; i < nSrc; ++i) {
                    const float x = pre[static_cast<std::size_t>(t * nSrc + i)];
                    for (std::int64_t s = scan->rowStart()[static_cast<std::size_t>(i)];
                         x != 0.0F && s < scan->rowStart()[static_cast<std::size_t>(i + 1)]; ++s) {
                        expected[static_cast<std::size_t>(t * nDst + scan->targets()[static_cast<std::size_t>(s)])] +=
                            x * 0.37F;
                    }
                }
            }
            QVERIFY(expected[static_cast<std::size_t>(nDst - 1)] != 0.0F ||
                    expected[static_cast<std::size_t>(2 * nDst - 1)] != 0.0F);
            std::vector<float> postScan(expected.size(), 0.0F);
            std::vector<float> postListed = postScan;
            std::vector<float> postSplit = postScan;
            scan->deliver(pre.data(), nSrc, 2, postScan.data(), nDst);
            listed->deliverListed(pre.data(), nSrc, lists.view(), 2, postListed.data(), nDst);
            split->deliverListedOn(pool, 1, pre.data(), nSrc, lists.view(), 2, postSplit.data(), nDst);
            const std::string what = std::to_string(nDst) + " targets";
            QVERIFY2(sameBits(postScan, expected), what.c_str());
            QVERIFY2(sameBits(postListed, expected), what.c_str());
            QVERIFY2(sameBits(postSplit, expected), what.c_str());
            QVERIFY(listed->clearListed(lists.view(), 2, postListed.data(), nDst));
            QVERIFY(split->clearListedOn(pool, 1, lists.view(), 2, postSplit.data(), nDst));
            QVERIFY2(sameBits(postListed, std::vector<float>(expected.size(), 0.0F)), what.c_str());
            QVERIFY2(sameBits(postSplit, std::vector<float>(expected.size(), 0.0F)), what.c_str());
        }
    }

    void clearListedUndoesExactlyItsDeliveries()
    {
        const std::int64_t nSrc = 150;
        const std::int64_t nDst = 90;
        const std::vector<float> pre = presynapticRows(3, nSrc, nSrc, 5);
        const Lists lists = listRows(pre, 3, nSrc, nSrc);
        auto p = sparse(nSrc, nDst, "probability", 0.0F, 8.0F);
        // Entries no listed channel reaches keep their value; every target of one is zeroed.
        std::vector<bool> reached(static_cast<std::size_t>(3 * nDst), false);
        for (std::int64_t t = 0; t < 3; ++t) {
            for (std::int32_t k = 0; k < lists.counts[static_cast<std::size_t>(t)]; ++k) {
                const std::int32_t i = lists.indices[static_cast<std::size_t>(t * nSrc + k)];
                for (std::int64_t s = p->rowStart()[static_cast<std::size_t>(i)];
                     s < p->rowStart()[static_cast<std::size_t>(i + 1)]; ++s) {
                    const std::int32_t j = p->targets()[static_cast<std::size_t>(s)];
                    reached[static_cast<std::size_t>(t * nDst + j)] = true;
                }
            }
        }
        std::vector<float> post(static_cast<std::size_t>(3 * nDst), 0.25F);
        p->deliverListed(pre.data(), nSrc, lists.view(), 3, post.data(), nDst);
        QVERIFY(p->clearListed(lists.view(), 3, post.data(), nDst));
        std::int64_t zeroed = 0;
        for (std::size_t j = 0; j < post.size(); ++j) {
            const float expected = reached[j] ? 0.0F : 0.25F;
            QVERIFY(std::memcmp(&post[j], &expected, sizeof(float)) == 0);
            zeroed += reached[j] ? 1 : 0;
        }
        QVERIFY(zeroed > 20);
        // With a delay the ring adds whole rows: nothing is cleared and the caller must memset.
        auto delayed = sparse(nSrc, nDst, "probability", 2.0F, 8.0F);
        std::vector<float> row(static_cast<std::size_t>(nDst), 0.5F);
        QVERIFY(!delayed->clearListed(lists.view(), 1, row.data(), nDst));
        QVERIFY(row == std::vector<float>(static_cast<std::size_t>(nDst), 0.5F));
        // Projections without an event-driven path never clear.
        DenseProjection full(nSrc, nDst);
        QVERIFY(!full.clearListed(lists.view(), 1, row.data(), nDst));
    }

    void executorWithListsEqualsExecutorWithout()
    {
        const std::int64_t steps = 400;
        const Run base = runCuba(steps, 32, false, false);
        QVERIFY2(nonZero(base.probes[0]) > 200, "E must spike");
        QVERIFY2(nonZero(base.probes[1]) > 50, "I must spike");
        QVERIFY2(nonZero(base.probes[2]) > 20, "the readout must spike");
        bool multiSpike = false;
        for (float x : base.probes[2]) {
            multiSpike = multiSpike || x > 1.0F;
        }
        QVERIFY2(multiSpike, "the readout must emit several spikes in some step");
        for (const auto& [chunk, lockStep] : {std::pair<std::int64_t, bool>{32, false}, {1, false},
                                              {7, false}, {400, false}, {13, true}}) {
            const Run withLists = runCuba(steps, chunk, lockStep, true);
            const std::string what =
                "chunk " + std::to_string(chunk) + (lockStep ? " lock-step" : "");
            QVERIFY2(identical(base, withLists), what.c_str());
            QVERIFY2(withLists.listsMatchRows, what.c_str());
            // The whole-row spike probes of E, I and L have lists; the trace and the channel
            // selection do not.
            QCOMPARE(withLists.listedSpikes,
                     nonZero(base.probes[0]) + nonZero(base.probes[1]) + nonZero(base.probes[2]));
            const Run without = runCuba(steps, chunk, lockStep, false);
            QVERIFY2(identical(base, without), what.c_str());
            QCOMPARE(without.listedSpikes, std::int64_t{0});
        }
    }

    void probeBufferEventsFromListsEqualScannedEvents()
    {
        // Multi-spike counts and graded values, several pushes, and a capacity small enough to
        // drop the oldest events: the same snapshots either way.
        const std::int64_t width = 150;
        const std::int64_t steps = 12;
        for (const std::int64_t capacity : {std::int64_t{1000}, std::int64_t{40}}) {
            ProbeBuffer scanned(width, true, capacity);
            ProbeBuffer listed(width, true, capacity);
            for (std::uint64_t push = 0; push < 3; ++push) {
                const std::vector<float> rows = presynapticRows(steps, width, width, 20 + push);
                const Lists lists = listRows(rows, steps, width, width);
                const auto first = static_cast<std::int64_t>(push) * steps;
                scanned.push(first, steps, rows.data());
                listed.push(first, steps, rows.data(), lists.view());
            }
            const ProbeSnapshot a = scanned.take();
            const ProbeSnapshot b = listed.take();
            QVERIFY(a.events.size() > 20);
            QVERIFY(a.events == b.events);
            QCOMPARE(b.dropped, a.dropped);
            QCOMPARE(b.firstStep, a.firstStep);
            QCOMPARE(b.steps, a.steps);
        }
    }
};

QTEST_GUILESS_MAIN(TestSpikeLists)
#include "test_spike_lists.moc"
