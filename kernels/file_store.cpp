// See file_store.hpp.
#include "kernels/file_store.hpp"

#include <atomic>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include <unistd.h>

namespace spike::kernels {

namespace fs = std::filesystem;

std::string readWholeFile(const fs::path& p)
{
    std::ifstream in(p, std::ios::binary);
    std::ostringstream os;
    os << in.rdbuf();
    return os.str();
}

std::string uniqueFileSuffix()
{
    static std::atomic<unsigned> counter{0};
    return std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
}

void writeFileAtomically(const fs::path& p, const std::string& text)
{
    std::error_code ec;
    if (fs::exists(p, ec) && readWholeFile(p) == text) {
        return;
    }
    const fs::path tmp = p.string() + "." + uniqueFileSuffix() + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << text;
        if (!out) {
            fs::remove(tmp, ec);
            throw std::runtime_error("cannot write " + tmp.string());
        }
    }
    fs::rename(tmp, p, ec);
    if (ec) {
        fs::remove(tmp, ec);
        throw std::runtime_error("cannot write " + p.string());
    }
}

}  // namespace spike::kernels
