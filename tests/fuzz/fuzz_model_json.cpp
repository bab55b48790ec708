// libFuzzer target: the JSON model format (docs/model-format.md) as a file a user opens.
// What one input does is spike::fuzz::modelJson (fuzz_inputs.hpp), shared with the regression test.
#include "tests/fuzz/fuzz_inputs.hpp"
#include "tests/fuzz/fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text = spike::fuzz::asText(data, size);
    if (spike::fuzz::modelTooBigToFuzz(text)) {
        return -1;  // valid but beyond the fuzzer's memory (fuzz_inputs.hpp): not kept in the corpus
    }
    (void)spike::fuzz::modelJson(text, spike::fuzz::scratchDir());
    return 0;
}
