// The forked trial read of nir_trial_read.hpp.
#include "engine/nir/nir_trial_read.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/syscall.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <thread>

// Under AddressSanitizer or UndefinedBehaviorSanitizer a report ends in the sanitizer's death
// callbacks (libFuzzer's writes its "crash-" input there); the copy replaces them with a plain
// exit, so a fault the copy contains is not reported as the process's own. Absent (null) in
// builds without a sanitizer.
extern "C" void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

namespace spike::engine::nir::detail {

namespace {

constexpr int kStoppedInCopy = 70;  ///< the copy's exit status after a sanitizer report

[[noreturn]] void endCopyAfterReport()
{
    ::_exit(kStoppedInCopy);
}

/// In the copy: nothing on the process's stdout and stderr, crashes end the copy by their
/// signal and leave no core file.
void prepareCopy()
{
    const rlimit noCore{0, 0};
    ::setrlimit(RLIMIT_CORE, &noCore);
    const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null >= 0) {
        ::dup2(null, STDERR_FILENO);
        ::dup2(null, STDOUT_FILENO);
        ::close(null);
    }
    for (const int signal : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) {
        ::signal(signal, SIG_DFL);
    }
    if (__sanitizer_set_death_callback != nullptr) {
        __sanitizer_set_death_callback(endCopyAfterReport);
    }
}

std::string describe(int status)
{
    if (WIFSIGNALED(status)) {
        const int signal = WTERMSIG(status);
        const char* name = ::strsignal(signal);
        return "crashed (signal " + std::to_string(signal) +
               (name != nullptr ? std::string(", ") + name : std::string()) + ")";
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == kStoppedInCopy) {
        return "was stopped by a memory-safety report";
    }
    if (WIFEXITED(status)) {
        return "was stopped (exit status " + std::to_string(WEXITSTATUS(status)) + ")";
    }
    return "ended abnormally";
}

/// "30 s" (whole seconds from 10 s on), "1.5 s", "0.3 s".
std::string secondsText(std::chrono::milliseconds limit)
{
    const auto ms = limit.count();
    if (ms >= 10'000) {
        return std::to_string((ms + 500) / 1000) + " s";
    }
    return std::to_string(ms / 1000) + "." + std::to_string(ms % 1000 / 100) + " s";
}

}  // namespace

std::chrono::milliseconds trialReadLimit(std::uint64_t fileBytes)
{
    return std::chrono::milliseconds(30'000 + fileBytes / 10'000);
}

std::string readInChildFirst(const std::function<void()>& read, std::chrono::milliseconds limit)
{
    const pid_t child = ::fork();
    if (child < 0) {
        return {};  // no copy (ENOMEM, EAGAIN): read in-process, as without this check
    }
    if (child == 0) {
        prepareCopy();
        try {
            read();
        } catch (...) {
            // A refusal by the reader's own checks: the process gives the same message.
        }
        ::_exit(0);
    }

    using Clock = std::chrono::steady_clock;
    const Clock::time_point deadline = Clock::now() + limit;
    // A pidfd becomes readable when the copy ends (Linux 5.3); without one, waitpid is polled.
    const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, child, 0));
    auto pause = std::chrono::microseconds(100);
    for (;;) {
        int status = 0;
        const pid_t done = ::waitpid(child, &status, WNOHANG);
        if (done == child) {
            if (pidfd >= 0) {
                ::close(pidfd);
            }
            return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? std::string() : describe(status);
        }
        if (done < 0 && errno != EINTR) {
            if (pidfd >= 0) {
                ::close(pidfd);
            }
            return {};  // the copy was reaped elsewhere (a SIGCHLD set to SIG_IGN): read in-process
        }
        const Clock::time_point now = Clock::now();
        if (now >= deadline) {
            ::kill(child, SIGKILL);
            while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
            }
            if (pidfd >= 0) {
                ::close(pidfd);
            }
            return "did not finish within " + secondsText(limit);
        }
        if (pidfd >= 0) {
            pollfd ended{pidfd, POLLIN, 0};
            const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now);
            ::poll(&ended, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
        } else {
            std::this_thread::sleep_for(pause);
            pause = std::min(pause * 2, std::chrono::microseconds(20'000));
        }
    }
}

}  // namespace spike::engine::nir::detail
