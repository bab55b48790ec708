// Where a Tensor's elements live. Small tensors get 64-byte aligned blocks (whole cache lines,
// any SIMD width); blocks of at least kLargePageBytes start on a 2 MiB boundary and are marked
// for transparent huge pages (madvise MADV_HUGEPAGE), so a freshly allocated large output is
// faulted in 2 MiB at a time instead of 4 KiB: bench/lif_layer's 10^5-neuron layer went from 3.5x
// to about 1.2x its memory-bandwidth floor (bench/README.md). On a kernel with huge pages off the
// advice is ignored and nothing else changes. Any thread.
#pragma once

#include <cstddef>
#include <limits>
#include <new>

namespace spike::engine {

namespace tensor_memory {

inline constexpr std::size_t kLargePageBytes = std::size_t{2} << 20;  ///< 2 MiB, x86-64's huge page

/// `bytes` bytes (64-byte aligned; 2 MiB aligned with huge-page advice from kLargePageBytes on).
/// Throws std::bad_alloc when there is no memory.
void* allocate(std::size_t bytes);
/// Frees what allocate() gave.
void release(void* block) noexcept;

}  // namespace tensor_memory

/// The std::vector allocator of Tensor's elements (tensor_memory above).
template <typename T>
struct TensorAllocator {
    using value_type = T;

    TensorAllocator() noexcept = default;
    template <typename U>
    TensorAllocator(const TensorAllocator<U>& /*other*/) noexcept  // NOLINT: allocator rebind
    {
    }

    T* allocate(std::size_t n)
    {
        if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) {
            throw std::bad_array_new_length();
        }
        return static_cast<T*>(tensor_memory::allocate(n * sizeof(T)));
    }
    void deallocate(T* p, std::size_t /*n*/) noexcept { tensor_memory::release(p); }

    template <typename U>
    bool operator==(const TensorAllocator<U>& /*other*/) const noexcept
    {
        return true;
    }
};

}  // namespace spike::engine
