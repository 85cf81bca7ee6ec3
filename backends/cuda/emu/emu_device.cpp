/* emu/emu_device.cpp - runs a CUDA grid on the CPU: blocks one after another (x fastest, then y,
 * then z), the threads of a block as ucontext coroutines switched at barriers and shuffles (see
 * cuda_runtime.h here). */
#include "cuda_runtime.h"

#include <ucontext.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

uint3 threadIdx, blockIdx;
dim3 blockDim, gridDim;

namespace {

struct emu_thread {
    ucontext_t ctx;
    std::vector<char> stack;
    uint3 tid;
    bool done;
};

std::vector<emu_thread> threads;
ucontext_t scheduler;
int current;
int nthreads;
unsigned block_gen, block_arrived;
std::vector<unsigned> warp_gen, warp_arrived;
std::vector<float> warp_slot;
const std::function<void()> *body;
long long progress; /* arrivals at barriers and finished threads: a pass without any = deadlock */

void yield_to_scheduler()
{
    swapcontext(&threads[current].ctx, &scheduler);
    threadIdx = threads[current].tid;
}

void thread_entry()
{
    (*body)();
    threads[current].done = true;
    progress++;
    swapcontext(&threads[current].ctx, &scheduler);
}

/* Waits until `members` threads have arrived at the barrier counted by (gen, arrived). */
void barrier(unsigned &gen, unsigned &arrived, unsigned members)
{
    const unsigned my_gen = gen;
    progress++;
    if (++arrived == members) {
        arrived = 0;
        gen++;
    }
    while (gen == my_gen)
        yield_to_scheduler();
}

unsigned warp_members(int w) { return (unsigned)(nthreads - w * 32 < 32 ? nthreads - w * 32 : 32); }

} // namespace

int emu_lane() { return current % 32; }

void emu_syncthreads() { barrier(block_gen, block_arrived, (unsigned)nthreads); }

float emu_shfl(float v, int src_lane)
{
    const int w = current / 32;
    warp_slot[current] = v;
    barrier(warp_gen[w], warp_arrived[w], warp_members(w));
    const int src = w * 32 + src_lane;
    if (src >= nthreads) {
        fprintf(stderr, "emu: shuffle from lane %d, which this block does not have\n", src_lane);
        abort();
    }
    const float r = warp_slot[src];
    barrier(warp_gen[w], warp_arrived[w], warp_members(w)); /* everyone has read before reuse */
    return r;
}

void emu_run_grid(dim3 grid, dim3 block, const std::function<void()> &kernel_body)
{
    const unsigned n = block.x * block.y * block.z;
    if (grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.y > 65535 || grid.z > 65535 || n == 0 ||
        n > 1024) {
        fprintf(stderr, "emu: invalid launch: grid (%u, %u, %u), block (%u, %u, %u)\n", grid.x,
                grid.y, grid.z, block.x, block.y, block.z);
        abort();
    }
    body = &kernel_body;
    gridDim = grid;
    blockDim = block;
    nthreads = (int)n;
    threads.assign(n, emu_thread());
    warp_slot.assign(n, 0.0f);
    const unsigned long long blocks = (unsigned long long)grid.x * grid.y * grid.z;
    for (unsigned long long b = 0; b < blocks; b++) {
        blockIdx = make_uint3((unsigned)(b % grid.x), (unsigned)(b / grid.x % grid.y),
                              (unsigned)(b / ((unsigned long long)grid.x * grid.y)));
        block_gen = block_arrived = 0;
        warp_gen.assign((n + 31) / 32, 0);
        warp_arrived.assign((n + 31) / 32, 0);
        for (unsigned i = 0; i < n; i++) {
            emu_thread &t = threads[i];
            t.done = false;
            t.tid = make_uint3(i % block.x, i / block.x % block.y, i / (block.x * block.y));
            t.stack.resize(256 * 1024);
            getcontext(&t.ctx);
            t.ctx.uc_stack.ss_sp = t.stack.data();
            t.ctx.uc_stack.ss_size = t.stack.size();
            t.ctx.uc_link = nullptr;
            makecontext(&t.ctx, thread_entry, 0);
        }
        for (bool alive = true; alive;) {
            alive = false;
            const long long before = progress;
            for (int i = 0; i < nthreads; i++) {
                if (threads[i].done)
                    continue;
                alive = true;
                current = i;
                threadIdx = threads[i].tid;
                swapcontext(&scheduler, &threads[i].ctx);
            }
            if (alive && progress == before) {
                fprintf(stderr, "emu: deadlock in block (%u, %u, %u): a barrier or shuffle that "
                                "not every thread of the block/warp reaches\n",
                        blockIdx.x, blockIdx.y, blockIdx.z);
                abort();
            }
        }
    }
}
