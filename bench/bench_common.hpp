// bench_common: the small pieces the benchmark programs under bench/ share. Timing (steady
// clock, thread and process CPU time, load average), a reproducible generator for inputs, the
// PyTorch peer plumbing (popen of a shell command, shell quoting, "can this interpreter import
// torch", the peer's last-line JSON reply) and the fixed-width table formatting.
//
// Header-only; free functions without shared state. Each benchmark is one translation unit.
#pragma once

#include "engine/runtime/backend.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>

#include <time.h>

namespace spike::bench {

using Clock = std::chrono::steady_clock;

inline double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

/// CPU time of the calling thread [s]; compared with wall time it shows whether other
/// processes took the core during a measurement.
inline double threadCpuSeconds()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// CPU time of the whole process, all threads [s]; above wall time when more than one thread
/// worked, below it when other processes took the core.
inline double processCpuSeconds()
{
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

/// The 1-minute load average ("?" where /proc/loadavg cannot be read).
inline std::string loadAverage()
{
    std::ifstream in("/proc/loadavg");
    std::string first;
    return in >> first ? first : std::string("?");
}

/// SplitMix64: small, fast, reproducible generator for benchmark inputs.
class SplitMix64 {
public:
    explicit SplitMix64(std::uint64_t seed) : m_state(seed) {}
    std::uint64_t next()
    {
        std::uint64_t z = (m_state += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31U);
    }
    /// Uniform in [-1, 1), 24 random bits.
    float symmetric() { return static_cast<float>(next() >> 40U) * 0x1p-23F - 1.0F; }

private:
    std::uint64_t m_state;
};

/// Runs a shell command; returns its exit status and standard output.
inline std::pair<int, std::string> runCommand(const std::string& command)
{
    std::string output;
    FILE* pipe = popen(command.c_str(), "r");
    if (pipe == nullptr) {
        return {-1, output};
    }
    std::array<char, 4096> buffer{};
    std::size_t got = 0;
    while ((got = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) {
        output.append(buffer.data(), got);
    }
    const int status = pclose(pipe);
    return {status, output};
}

inline std::string shellQuoted(const std::string& s)
{
    std::string q = "'";
    for (char c : s) {
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return q + "'";
}

/// Whether `python` can import torch and `peerScript` exists. On success `info` is
/// "torch <version>"; otherwise it says what failed.
inline bool torchAvailable(const std::string& python, const std::string& peerScript,
                           std::string& info)
{
    const auto [status, out] = runCommand(
        shellQuoted(python) + " -c 'import torch; print(torch.__version__)' 2>/dev/null");
    if (status != 0) {
        info = python + " cannot import torch (Debian: apt-get install python3-torch)";
        return false;
    }
    std::ifstream script(peerScript);
    if (!script) {
        info = "peer script " + peerScript + " not found";
        return false;
    }
    info = "torch " + out.substr(0, out.find('\n'));
    return true;
}

/// Last non-empty line of `text` ("" when there is none).
inline std::string lastLine(const std::string& text)
{
    std::istringstream in(text);
    std::string line;
    std::string last;
    while (std::getline(in, line)) {
        if (line.find_first_not_of(" \t\r") != std::string::npos) {
            last = line;
        }
    }
    return last;
}

/// What a peer script answered: the JSON object on its last non-empty output line, or why
/// there is none.
struct PeerReply {
    std::optional<nlohmann::json> json;  ///< set when the peer succeeded
    std::string error;                   ///< the peer's "error", else "exit status N"
};

/// Runs a peer command. It succeeds when the command exits 0 and its last non-empty line is a
/// JSON object holding `requiredKey`; otherwise `error` carries the peer's own {"error": ...}
/// or the exit status.
inline PeerReply runPeer(const std::string& command, const std::string& requiredKey)
{
    const auto [status, out] = runCommand(command);
    const auto parsed = nlohmann::json::parse(lastLine(out), nullptr, false);
    PeerReply reply;
    if (status != 0 || parsed.is_discarded() || !parsed.is_object() ||
        !parsed.contains(requiredKey)) {
        reply.error = parsed.is_discarded() || !parsed.is_object() || !parsed.contains("error") ||
                              !parsed["error"].is_string()
                          ? "exit status " + std::to_string(status)
                          : parsed["error"].get<std::string>();
        return reply;
    }
    reply.json = parsed;
    return reply;
}

/// Fixed-width number formatting for the tables ("-" when absent).
inline std::string fmt(std::optional<double> v, int width, int precision)
{
    std::ostringstream os;
    os.setf(std::ios::fixed);
    os.precision(precision);
    os.width(width);
    if (v) {
        os << *v;
    } else {
        os << "-";
    }
    return os.str();
}

/// A JSON number, or null when absent.
inline nlohmann::json orNull(std::optional<double> v)
{
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

/// counts[i] += probe k's value of channel i, summed over `steps` rows of `width` channels:
/// through the executor's spike lists when it has them (their values when they carry them, so
/// the CUDA executor copies no dense rows), else over the dense rows. O(spikes) with lists.
template <typename Count>
void accumulateSpikes(const engine::Executor& exec, std::size_t k, std::int64_t steps,
                      std::int64_t width, Count* counts)
{
    if (const std::optional<engine::SpikeLists> lists = exec.probeSpikeLists(k)) {
        const float* rows = lists->values != nullptr ? nullptr : exec.probeData(k);
        for (std::int64_t t = 0; t < steps; ++t) {
            const std::int32_t* listed = lists->indices + t * lists->stride;
            for (std::int32_t j = 0; j < lists->counts[t]; ++j) {
                const float v = rows != nullptr ? rows[t * width + listed[j]] : lists->values[t * lists->stride + j];
                counts[listed[j]] += static_cast<Count>(v);
            }
        }
        return;
    }
    const float* __restrict rows = exec.probeData(k);
    for (std::int64_t t = 0; t < steps; ++t) {
        for (std::int64_t i = 0; i < width; ++i) {
            counts[i] += static_cast<Count>(rows[t * width + i]);
        }
    }
}

}  // namespace spike::bench
