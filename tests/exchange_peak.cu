// exchange_peak.cu - how fast the sharded burst's exchange could be on this machine's GPUs: every
// rank's slot of fired bits to every rank, once a burst, in a chain (a burst's exchange starts
// only after the one before arrived everywhere), as backends/cuda/burst/burst_sharded.cu runs it.
// It decides whether an exchange without NCCL is worth building (docs/multi-gpu.md, "What 3.4x
// at 5M x 100 would take": NCCL's all_gather is ~12 of the ~31 us a burst adds on 4 GPUs).
//
// One process, every visible GPU a rank (at least 2) launched from its own host thread, WORDS
// 32-bit words a rank (default 5M neurons' bits: 5000000 / 32 / P), ITERS exchanges timed by CUDA
// events on each rank after a warm-up, the slowest rank's time divided by ITERS:
//   nccl  ncclAllGather in place, each rank's thread its communicator (what the burst calls);
//   push  one kernel a rank: wait until every peer's previous exchange arrived (a flag in this
//         GPU's memory, read with ld.acquire.sys), store its slot into every GPU's buffer over
//         peer access (double-buffered by parity: a peer's buffer of exchange i - 2 was read before
//         the peer's exchange i - 1, which this rank waited for), then the grid's last block
//         publishes its flag to every peer (fence.sc.sys, then st.release.sys).
//   sym   ncclAllGather in place on a buffer from ncclMemAlloc registered on every rank as a
//         symmetric window (ncclCommWindowRegister, NCCL_WIN_COLL_SYMMETRIC; NCCL 2.27+), which
//         lets NCCL run its symmetric kernels, made for small and medium messages on NVLink;
//         skipped, with the reason printed, where the build's NCCL or the machine lacks them.
//         Its slots are whole 16-byte groups of words (WORDS rounded up to a multiple of 4), as
//         the burst's are (XPB_BURST_SHARD_WORDS): NCCL's symmetric all_gather (library 2.28.3 on
//         the lent H200 hosts) delivered wrong words for slots that are not, at 313, 1025 and 4097
//         words on 2 and 4 H200s, and right ones at 312, 1024, 4096, 4100 and 39063
//         (results/nvidia-h200-x4/2026-11-28-s21-exchange-symmetric-alignment.txt); a third
//         argument `exact` keeps WORDS.
// push checks every word it receives (each exchange's values differ) and prints the mismatches; a
// wait that lasts about a second counts 2^20 of them and goes on, so a bug ends the run, not hangs.
// nccl and sym: every rank's slot holds a pattern of its own, and after the timed exchanges every
// rank's gathered buffer must hold every slot's; the wrong words are printed a mode.
// Usage: exchange_peak [WORDS [ITERS [exact]]]. Exit 77 with fewer than 2 GPUs or no peer access.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <thread>
#include <vector>

#include <cuda_runtime.h>
#include <nccl.h>

#define MAXR 8

#define GPU_TOOL "exchange_peak"
#include "gpu_tool_check.cuh"

struct push_args {
    unsigned *buf[MAXR];   // every rank's buffer: 2 parities x P slots x words
    unsigned *flag[MAXR];  // every rank's flags: P words, flag[q][r] = the last exchange r delivered to q
    unsigned *done;        // this rank's block counter (the grid's last block publishes)
    unsigned *bad;         // this rank's count of wrong words received
    int p, r;
    size_t words;
};

__device__ __forceinline__ unsigned load_acquire(const unsigned *a)
{
    unsigned v;
    asm volatile("ld.acquire.sys.global.u32 %0, [%1];" : "=r"(v) : "l"(a) : "memory");
    return v;
}

__device__ __forceinline__ void store_release(unsigned *a, unsigned v)
{
    asm volatile("st.release.sys.global.u32 [%0], %1;" ::"l"(a), "r"(v) : "memory");
}

__host__ __device__ __forceinline__ unsigned value(unsigned it, int r, size_t w)
{
    return it * 2654435761u ^ (unsigned)r * 40503u ^ (unsigned)w;
}

// Exchange it (1, 2, ...): wait for exchange it - 1 from every peer, check what it delivered, push
// this rank's slot of exchange it, publish.
__global__ void push(push_args a, unsigned it)
{
    __shared__ bool last;
    if (*(volatile unsigned *)a.bad >= (1u << 20))
        return; // a wait timed out before: the run is failed, finish it fast
    if (threadIdx.x == 0)
        for (int q = 0; q < a.p; q++) {
            // a bound on the wait (about a second at Hopper's clocks): a protocol bug ends the
            // run with an error (counted as wrong words) instead of hanging the GPU
            const long long t0 = clock64();
            while (q != a.r && load_acquire(&a.flag[a.r][q]) < it - 1)
                if (clock64() - t0 > 2000000000LL) {
                    atomicAdd(a.bad, 1u << 20);
                    break;
                }
        }
    __syncthreads();
    const size_t slot = a.words, stride = (size_t)gridDim.x * blockDim.x;
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned *mine = a.buf[a.r];
    unsigned bad = 0;
    if (it > 1) // exchange it - 1 as received, in parity (it - 1) & 1
        for (int q = 0; q < a.p; q++)
            for (size_t w = first; w < slot; w += stride)
                bad += mine[((it - 1) & 1) * a.p * slot + q * slot + w] != value(it - 1, q, w);
    if (bad)
        atomicAdd(a.bad, bad);
    for (size_t w = first; w < slot; w += stride) {
        const unsigned v = value(it, a.r, w);
        for (int q = 0; q < a.p; q++)
            a.buf[q][(it & 1) * a.p * slot + a.r * slot + w] = v;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence_system();
        last = atomicAdd(a.done, 1) == gridDim.x - 1;
    }
    __syncthreads();
    if (last && threadIdx.x == 0) {
        *a.done = 0;
        __threadfence_system();
        for (int q = 0; q < a.p; q++)
            store_release(&a.flag[q][a.r], it);
    }
}

static int cmp(const void *x, const void *y)
{
    const float a = *(const float *)x, b = *(const float *)y;
    return (a > b) - (a < b);
}

int main(int argc, char **argv)
{
    int p = 0;
    if (cudaGetDeviceCount(&p) != cudaSuccess || p < 2) {
        printf("exchange_peak: needs 2 or more GPUs (%d)\n", p);
        return 77;
    }
    p = p > MAXR ? MAXR : p;
    const size_t words = argc > 1 ? strtoull(argv[1], NULL, 10) : (5000000 / 32 + p - 1) / p;
    const int iters = argc > 2 ? atoi(argv[2]) : 2000, warm = 200;
    const bool exact = argc > 3 && strcmp(argv[3], "exact") == 0;
    const size_t swords = exact ? words : (words + 3) / 4 * 4; // the symmetric window's slot
    for (int i = 0; i < p; i++)
        for (int j = 0; j < p; j++) {
            int can = 0;
            CHECK(cudaDeviceCanAccessPeer(&can, i, j));
            if (i != j && !can) {
                printf("exchange_peak: GPU %d cannot access GPU %d\n", i, j);
                return 77;
            }
        }
    push_args a[MAXR];
    cudaStream_t s[MAXR];
    cudaEvent_t e0[MAXR], e1[MAXR];
    unsigned *gather[MAXR];
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    for (int r = 0; r < p; r++) {
        CHECK(cudaSetDevice(r));
        for (int q = 0; q < p; q++)
            if (q != r) {
                cudaError_t e = cudaDeviceEnablePeerAccess(q, 0);
                if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled)
                    CHECK(e);
            }
        (void)cudaGetLastError();
        CHECK(cudaStreamCreateWithFlags(&s[r], cudaStreamNonBlocking));
        CHECK(cudaEventCreate(&e0[r]));
        CHECK(cudaEventCreate(&e1[r]));
        CHECK(cudaMalloc(&a[0].buf[r], 2 * (size_t)p * words * 4));
        CHECK(cudaMalloc(&a[0].flag[r], MAXR * 4));
        CHECK(cudaMemset(a[0].flag[r], 0, MAXR * 4));
        CHECK(cudaMalloc(&gather[r], (size_t)p * words * 4));
        CHECK(cudaMemset(gather[r], 0, (size_t)p * words * 4));
    }
    for (int r = 0; r < p; r++) {
        a[r] = a[0];
        a[r].p = p, a[r].r = r, a[r].words = words;
        CHECK(cudaSetDevice(r));
        CHECK(cudaMalloc(&a[r].done, 4));
        CHECK(cudaMemset(a[r].done, 0, 4));
        CHECK(cudaMalloc(&a[r].bad, 4));
        CHECK(cudaMemset(a[r].bad, 0, 4));
    }
    for (int r = 0; r < p; r++) {
        CHECK(cudaSetDevice(r));
        CHECK(cudaDeviceSynchronize());
    }
    ncclComm_t comm[MAXR];
    int devs[MAXR];
    for (int r = 0; r < p; r++)
        devs[r] = r;
    NCHECK(ncclCommInitAll(comm, p, devs));
    printf("exchange_peak: %d GPUs, %zu words a rank (%.1f KB gathered), %d exchanges timed\n", p, words,
           (double)p * words * 4 / 1e3, iters);

    // sym: the gathered buffer from ncclMemAlloc, registered as a symmetric window on every rank
    // (a collective call: one NCCL group over this process's communicators)
    unsigned *symbuf[MAXR] = {};
    bool sym = false;
#if defined(NCCL_WIN_COLL_SYMMETRIC)
    ncclWindow_t win[MAXR] = {};
    {
        bool ok = true;
        for (int r = 0; r < p && ok; r++) {
            CHECK(cudaSetDevice(r));
            ok = ncclMemAlloc((void **)&symbuf[r], (size_t)p * swords * 4) == ncclSuccess;
        }
        if (ok) {
            NCHECK(ncclGroupStart());
            for (int r = 0; r < p && ok; r++) {
                CHECK(cudaSetDevice(r));
                ok = ncclCommWindowRegister(comm[r], symbuf[r], (size_t)p * swords * 4, &win[r], NCCL_WIN_COLL_SYMMETRIC) ==
                     ncclSuccess;
            }
            ok = ncclGroupEnd() == ncclSuccess && ok;
            for (int r = 0; r < p && ok; r++) // a transport that cannot expose the memory leaves no window
                ok = win[r] != NULL;
        }
        sym = ok;
        if (!ok)
            printf("exchange_peak: sym skipped: ncclMemAlloc or ncclCommWindowRegister failed (%s)\n",
                   ncclGetLastError(comm[0]));
    }
#else
    printf("exchange_peak: sym skipped: this NCCL (%d.%d) has no symmetric windows (2.27+)\n", NCCL_MAJOR, NCCL_MINOR);
#endif
    // each rank's own slot of the gathered buffers: its pattern, which every exchange sends again
    {
        std::vector<unsigned> pat(words);
        for (int r = 0; r < p; r++) {
            for (size_t w = 0; w < words; w++)
                pat[w] = value(0x5eed, r, w);
            CHECK(cudaSetDevice(r));
            CHECK(cudaMemcpy(gather[r] + (size_t)r * words, pat.data(), words * 4, cudaMemcpyHostToDevice));
            if (sym)
                CHECK(cudaMemcpy(symbuf[r] + (size_t)r * swords, pat.data(), words * 4, cudaMemcpyHostToDevice));
        }
    }

    // push: at most one block a SM, 256 threads. Each rank's launches come from its own host
    // thread, as the burst's (XPB_CUDA_SHARDED_LAUNCH=threads): one thread issuing every rank's
    // launches would time the host.
    const int threads = 256;
    int blocks = (int)((words + threads - 1) / threads);
    blocks = blocks < 1 ? 1 : blocks > sms ? sms : blocks;
    float us[3][MAXR] = {};
    unsigned base = 0; // exchanges of push so far
    for (int mode = 0; mode < 3; mode++) {
        if (mode == 2 && !sym)
            break;
        for (int phase = 0; phase < 2; phase++) { // warm-up, then timed
            const int n = phase ? iters : warm;
            std::vector<std::thread> team;
            for (int r = 0; r < p; r++)
                team.emplace_back([&, r] {
                    CHECK(cudaSetDevice(r));
                    if (phase)
                        CHECK(cudaEventRecord(e0[r], s[r]));
                    for (int i = 0; i < n; i++) {
                        if (mode != 1) {
                            unsigned *g = mode == 0 ? gather[r] : symbuf[r];
                            const size_t n = mode == 0 ? words : swords;
                            NCHECK(ncclAllGather(g + (size_t)r * n, g, n, ncclUint32, comm[r], s[r]));
                        } else {
                            push<<<blocks, threads, 0, s[r]>>>(a[r], base + (unsigned)i + 1);
                            CHECK(cudaGetLastError());
                        }
                    }
                    if (phase)
                        CHECK(cudaEventRecord(e1[r], s[r]));
                    CHECK(cudaStreamSynchronize(s[r]));
                });
            for (auto &t : team)
                t.join();
            if (mode == 1)
                base += (unsigned)n;
        }
        for (int r = 0; r < p; r++) {
            float ms = 0;
            CHECK(cudaEventElapsedTime(&ms, e0[r], e1[r]));
            us[mode][r] = ms * 1e3f / (float)iters;
        }
    }
    // wrong words a mode, so a failure names the exchange that delivered them
    unsigned bad_mode[3] = {0, 0, 0};
    for (int r = 0; r < p; r++) {
        unsigned bad = 0;
        CHECK(cudaSetDevice(r));
        CHECK(cudaMemcpy(&bad, a[r].bad, 4, cudaMemcpyDeviceToHost));
        bad_mode[1] += bad;
    }
    // what the all_gathers left: every slot's pattern on every rank
    for (int mode = 0; mode < 3; mode += 2) {
        if (mode == 2 && !sym)
            break;
        const size_t slot = mode == 0 ? words : swords;
        std::vector<unsigned> got((size_t)p * slot);
        for (int r = 0; r < p; r++) {
            CHECK(cudaSetDevice(r));
            CHECK(cudaMemcpy(got.data(), mode == 0 ? gather[r] : symbuf[r], got.size() * 4, cudaMemcpyDeviceToHost));
            for (int q = 0; q < p; q++)
                for (size_t w = 0; w < words; w++)
                    bad_mode[mode] += got[(size_t)q * slot + w] != value(0x5eed, q, w);
        }
    }
    const char *name[3] = {"nccl all_gather (in place)", "push (peer stores + flags)", "nccl all_gather, symmetric"};
    for (int mode = 0; mode < 3; mode++) {
        if (mode == 2 && !sym)
            break;
        float sorted[MAXR];
        memcpy(sorted, us[mode], sizeof(float) * (size_t)p);
        qsort(sorted, (size_t)p, sizeof(float), cmp);
        printf("exchange_peak: %-28s %.2f us an exchange (slowest rank; fastest %.2f)\n", name[mode], sorted[p - 1],
               sorted[0]);
    }
    const unsigned bad_total = bad_mode[0] + bad_mode[1] + bad_mode[2];
    printf("exchange_peak: wrong words: %u in place (gathered buffers after its all_gathers), %u push (over %u "
           "exchanges), %u symmetric (gathered buffers after its all_gathers)\n",
           bad_mode[0], bad_mode[1], base, bad_mode[2]);
#if defined(NCCL_WIN_COLL_SYMMETRIC)
    if (sym) {
        NCHECK(ncclGroupStart());
        for (int r = 0; r < p; r++)
            NCHECK(ncclCommWindowDeregister(comm[r], win[r]));
        NCHECK(ncclGroupEnd());
        for (int r = 0; r < p; r++) {
            CHECK(cudaSetDevice(r));
            NCHECK(ncclMemFree(symbuf[r]));
        }
    }
#endif
    for (int r = 0; r < p; r++)
        NCHECK(ncclCommDestroy(comm[r]));
    return bad_total ? 1 : 0;
}
