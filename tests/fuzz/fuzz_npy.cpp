// libFuzzer target: .npy files and, for inputs starting "PK", .npz archives.
// What one input does is spike::fuzz::npyOrNpz (fuzz_inputs.hpp), shared with the regression test.
#include "tests/fuzz/fuzz_inputs.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text = spike::fuzz::asText(data, size);
    (void)spike::fuzz::npyOrNpz(text, spike::fuzz::scratchDir());
    return 0;
}
