// The CUDA emulator's thread order (cuda_runtime.h, setThreadOrder): a GPU runs a launch's
// blocks and a block's threads at the same time, in no order it promises; the emulator runs them
// one after another, in the order chosen here. Running the emulated tests once in each order
// shows a kernel whose result depends on it (tests/cuda_emulator/README.md).
#include "emulated_schedule.hpp"

#include "cuda_runtime.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <numeric>
#include <random>
#include <string>

namespace spike::cudaemu {
namespace {

std::once_flag g_environmentRead;
std::atomic<ThreadOrder> g_order{ThreadOrder::Forward};
std::atomic<unsigned long long> g_seed{1};
/// Bumped by every setThreadOrder: a host thread's generator restarts from the seed.
std::atomic<unsigned long long> g_generation{0};

struct Generator {
    unsigned long long generation = ~0ULL;
    std::mt19937_64 engine;
};
thread_local Generator t_generator;

/// SPIKE_CUDA_EMULATOR_ORDER: forward, reverse, shuffled or shuffled:SEED (a decimal number).
/// Anything else stops the process with a message naming the variable: a test run in an order
/// nobody asked for would prove nothing.
void readEnvironment()
{
    const char* value = std::getenv("SPIKE_CUDA_EMULATOR_ORDER");
    if (value == nullptr || *value == '\0') {
        return;
    }
    const std::string text = value;
    if (text == "forward") {
        g_order = ThreadOrder::Forward;
    } else if (text == "reverse") {
        g_order = ThreadOrder::Reverse;
    } else if (text == "shuffled") {
        g_order = ThreadOrder::Shuffled;
    } else if (text.rfind("shuffled:", 0) == 0 && text.size() > 9 &&
               text.find_first_not_of("0123456789", 9) == std::string::npos && text.size() < 29) {
        g_order = ThreadOrder::Shuffled;
        g_seed = std::stoull(text.substr(9));
    } else {
        std::fprintf(stderr,
                     "CUDA emulator: SPIKE_CUDA_EMULATOR_ORDER is \"%s\"; expected forward, "
                     "reverse, shuffled or shuffled:SEED (SEED a decimal number)\n",
                     value);
        std::exit(2);
    }
    ++g_generation;
}

}  // namespace

void setThreadOrder(ThreadOrder order, unsigned long long seed)
{
    std::call_once(g_environmentRead, readEnvironment);
    g_order = order;
    g_seed = seed;
    ++g_generation;
}

ThreadOrder threadOrder()
{
    std::call_once(g_environmentRead, readEnvironment);
    return g_order;
}

namespace detail {

void arrange(std::size_t count, std::vector<std::size_t>& order)
{
    order.resize(count);
    std::iota(order.begin(), order.end(), std::size_t{0});
    switch (threadOrder()) {
    case ThreadOrder::Forward:
        return;
    case ThreadOrder::Reverse:
        std::reverse(order.begin(), order.end());
        return;
    case ThreadOrder::Shuffled:
        break;
    }
    if (const unsigned long long generation = g_generation; t_generator.generation != generation) {
        t_generator.generation = generation;
        t_generator.engine.seed(g_seed);
    }
    std::shuffle(order.begin(), order.end(), t_generator.engine);
}

}  // namespace detail
}  // namespace spike::cudaemu
