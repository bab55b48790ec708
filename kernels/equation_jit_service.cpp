// The table of equation device code; see equation_jit_service.hpp.
#include "kernels/equation_jit_service.hpp"

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace spike::kernels::detail {

namespace {

struct Table {
    std::mutex mutex;
    std::condition_variable done;
    std::map<std::string, EquationJit> codes;  ///< by source; Pending while a thread builds it
};

Table& table()
{
    static Table* t = new Table;  // never destroyed: a build thread may still run at exit
    return *t;
}

std::atomic<std::int64_t>& launches()
{
    static std::atomic<std::int64_t> n{0};
    return n;
}

}  // namespace

EquationJit failedJit(std::string message)
{
    EquationJit j;
    j.kind = EquationJit::Kind::Failed;
    j.message = std::move(message);
    return j;
}

EquationJit equationJitCachedWith(const std::string& source, const std::string& cacheDir, EquationJitBuilder build)
{
    Table& t = table();
    {
        const std::lock_guard lock(t.mutex);
        if (const auto it = t.codes.find(source); it != t.codes.end()) {
            return it->second;
        }
    }
    EquationJit code;
    try {
        code = build(source, cacheDir, true);
    } catch (const std::exception&) {
        code = {};  // a cache that cannot be used is an empty one
    }
    if (code.kind != EquationJit::Kind::Ready) {
        return {};
    }
    const std::lock_guard lock(t.mutex);
    const EquationJit& known = t.codes.emplace(source, code).first->second;  // a build finished meanwhile wins
    return known.kind == EquationJit::Kind::Pending ? code : known;
}

EquationJit equationJitWith(const std::string& source, bool request, bool wait, const std::string& cacheDir,
                            EquationJitBuilder build)
{
    Table& t = table();
    std::unique_lock lock(t.mutex);
    auto it = t.codes.find(source);
    if (it == t.codes.end()) {
        if (!request) {
            return {};
        }
        t.codes[source].kind = EquationJit::Kind::Pending;
        const auto finish = [&t, source, cacheDir, build] {
            EquationJit code;
            try {
                code = build(source, cacheDir, false);
            } catch (const std::exception& e) {
                code = failedJit(e.what());
            }
            const std::lock_guard done(t.mutex);
            t.codes[source] = code;
            t.done.notify_all();
        };
        if (wait) {
            lock.unlock();
            finish();
            lock.lock();
        } else {
            std::thread(finish).detach();
        }
        return t.codes[source];
    }
    if (wait) {
        t.done.wait(lock, [&] { return t.codes[source].kind != EquationJit::Kind::Pending; });
    }
    return t.codes[source];
}

EquationJitArgs equationJitLaunch(const EquationJit& code, const EquationDevice& d, const float* in,
                                  std::int64_t steps, float* out, const EquationTraces& traces)
{
    if (code.kind != EquationJit::Kind::Ready || code.kernel == nullptr) {
        throw std::invalid_argument("equationStepsJit: the device code is not ready");
    }
    if (steps < 0 || d.traceCount > kEqMaxTraces) {
        throw std::invalid_argument("equationStepsJit: " + std::to_string(steps) + " steps, " +
                                    std::to_string(d.traceCount) + " traces");
    }
    EquationJitArgs a;
    a.table = d.table;
    a.in = in;
    a.out = out;
    for (int k = 0; k < d.traceCount; ++k) {
        a.rows[k] = traces.rows[k];
    }
    a.n = d.n;
    a.steps = steps;
    a.firstStep = d.firstStep;
    a.dt = d.dt;
    launches().fetch_add(1, std::memory_order_relaxed);
    return a;
}

}  // namespace spike::kernels::detail

namespace spike::kernels {

std::int64_t equationJitLaunches() { return detail::launches().load(std::memory_order_relaxed); }

}  // namespace spike::kernels
