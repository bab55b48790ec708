// The blocks of tensor_memory.hpp.
#include "engine/tensor/tensor_memory.hpp"

#include <sys/mman.h>

#include <cstdlib>

namespace spike::engine::tensor_memory {

void* allocate(std::size_t bytes)
{
    const bool large = bytes >= kLargePageBytes;
    const std::size_t alignment = large ? kLargePageBytes : 64;
    // Whole huge pages, so the advice covers the block's last page too.
    const std::size_t size = large ? (bytes + kLargePageBytes - 1) / kLargePageBytes * kLargePageBytes
                                   : (bytes == 0 ? alignment : bytes);
    void* block = nullptr;
    if (posix_memalign(&block, alignment, size) != 0 || block == nullptr) {
        throw std::bad_alloc();
    }
    if (large) {
        (void)::madvise(block, size, MADV_HUGEPAGE);  // advice: ignored where huge pages are off
    }
    return block;
}

void release(void* block) noexcept
{
    std::free(block);  // NOLINT: posix_memalign's blocks are freed with free()
}

}  // namespace spike::engine::tensor_memory
