// Runs the attn4j kernels on the CPU for testing without a GPU: every CUDA thread of a block is a std::thread,
// __syncthreads() is a block barrier and warp shuffles exchange values through a per-warp slot array.
// Blocks run one after another, so __shared__ variables become function-local statics.
#ifndef ATTN4J_CUDA_EMU_H
#define ATTN4J_CUDA_EMU_H

#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __forceinline__ inline
#define __noinline__
#define __restrict__ __restrict
#define __shared__ static
#define __launch_bounds__(...)

using std::max;
using std::min;

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
};

struct float4 {
    float x, y, z, w;
};

struct uint2 {
    unsigned int x, y;
};

inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fadd_rn(float a, float b) { return a + b; }

inline float __int_as_float(int i) {
    float f;
    std::memcpy(&f, &i, sizeof f);
    return f;
}

namespace emu {
struct BlockSync {
    explicit BlockSync(int threads) : block(threads), slots((threads + 31) / 32 * 32) {
        for (int w = 0; w < (threads + 31) / 32; ++w) warps.push_back(std::make_unique<std::barrier<>>(32));
    }
    std::barrier<> block;
    std::vector<std::unique_ptr<std::barrier<>>> warps;
    std::vector<float> slots;
};
inline thread_local dim3 thread_idx, block_idx;
inline dim3 block_dim, grid_dim;
inline thread_local BlockSync* sync;

inline float exchange(float v, int src_lane) {
    int warp = thread_idx.x / 32, lane = thread_idx.x % 32;
    sync->slots[warp * 32 + lane] = v;
    sync->warps[warp]->arrive_and_wait();
    float r = sync->slots[warp * 32 + (src_lane & 31)];
    sync->warps[warp]->arrive_and_wait();
    return r;
}

// Runs body() as every thread of every block of the grid; blockDim.x must be a multiple of 32.
template <class F>
void launch(dim3 grid, dim3 block, F body) {
    block_dim = block;
    grid_dim = grid;
    for (unsigned z = 0; z < grid.z; ++z)
        for (unsigned y = 0; y < grid.y; ++y)
            for (unsigned x = 0; x < grid.x; ++x) {
                BlockSync s(block.x);
                std::vector<std::thread> threads;
                for (unsigned t = 0; t < block.x; ++t)
                    threads.emplace_back([&, t] {
                        thread_idx = {t, 0, 0};
                        block_idx = {x, y, z};
                        sync = &s;
                        body();
                    });
                for (auto& th : threads) th.join();
            }
}
}  // namespace emu

#define threadIdx emu::thread_idx
#define blockIdx emu::block_idx
#define blockDim emu::block_dim
#define gridDim emu::grid_dim

inline void __syncthreads() { emu::sync->block.arrive_and_wait(); }
inline float __shfl_sync(unsigned, float v, int lane) { return emu::exchange(v, lane); }
inline float __shfl_xor_sync(unsigned, float v, int mask) {
    return emu::exchange(v, (emu::thread_idx.x % 32) ^ mask);
}

#endif
