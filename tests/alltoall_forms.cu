// alltoall_forms.cu - NCCL's all_to_all in its two forms, timed the same way side by side: the
// grouped ncclSend/ncclRecv pairs that backends/cuda/collectives/collectives.c issues (nccl-tests'
// form, and torch.distributed's before NCCL 2.28), and ncclAlltoAll, the library's own call since
// NCCL 2.28. It asks whether the collectives' all_to_all at 64 MiB, 0.954 - 0.998 of
// torch.distributed's bus bandwidth with bimodal rounds (docs/multi-gpu.md, "Not yet"), is the
// form, the harness or NCCL itself.
//
// One process, every visible GPU a rank (at least 2), each rank's launches from its own host
// thread. For each size (bytes a rank sends in all, split evenly over the ranks), ROUNDS rounds
// alternate the forms (pairs native native pairs ...); a round is a warm-up of 5 launches, then
// ITERS back-to-back launches between CUDA events on every rank, the slowest rank's time over
// ITERS. Bus bandwidth as nccl-tests: algbw = bytes / time, busbw = algbw (P - 1) / P. Before
// timing, each form's output is checked once: rank r's chunk from q holds r + q P + the index.
// Usage: alltoall_forms [ROUNDS [ITERS [MIB...]]] (default 6 20 16 64 256). Exit 77 with fewer
// than 2 GPUs; the native form is said to be missing where NCCL is older than 2.28.
#include <stdio.h>
#include <stdlib.h>

#include <thread>
#include <vector>

#include <cuda_runtime.h>
#include <nccl.h>

#define MAXR 8
#define HAVE_NATIVE (NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 0))

#define GPU_TOOL "alltoall_forms"
#include "gpu_tool_check.cuh"

__global__ void fill(float *x, size_t chunk, int p, int r)
{
    const size_t n = chunk * (size_t)p;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = (float)(r * p + (int)(i / chunk)) + (float)(i % chunk % 1024); // to rank i / chunk
}

// One launch of form f (0 pairs, 1 native) on rank r.
static void issue(int f, const float *send, float *recv, size_t chunk, int p, ncclComm_t comm, cudaStream_t s)
{
    if (f == 1) {
#if HAVE_NATIVE
        NCHECK(ncclAlltoAll(send, recv, chunk, ncclFloat, comm, s));
#endif
        return;
    }
    NCHECK(ncclGroupStart());
    for (int q = 0; q < p; q++) {
        NCHECK(ncclSend(send + (size_t)q * chunk, chunk, ncclFloat, q, comm, s));
        NCHECK(ncclRecv(recv + (size_t)q * chunk, chunk, ncclFloat, q, comm, s));
    }
    NCHECK(ncclGroupEnd());
}

int main(int argc, char **argv)
{
    int p = 0;
    if (cudaGetDeviceCount(&p) != cudaSuccess || p < 2) {
        printf("alltoall_forms: needs 2 or more GPUs (%d visible)\n", p);
        return 77;
    }
    p = p > MAXR ? MAXR : p;
    const int rounds = argc > 1 ? atoi(argv[1]) : 6, iters = argc > 2 ? atoi(argv[2]) : 20;
    std::vector<double> mib;
    for (int i = 3; i < argc; i++)
        mib.push_back(atof(argv[i]));
    if (mib.empty())
        mib = {16, 64, 256};
    const int forms = HAVE_NATIVE ? 2 : 1;
    if (!HAVE_NATIVE)
        printf("alltoall_forms: NCCL %d has no ncclAlltoAll (2.28 added it): pairs only\n", NCCL_VERSION_CODE);
    ncclComm_t comm[MAXR];
    int devs[MAXR];
    cudaStream_t s[MAXR];
    cudaEvent_t e0[MAXR], e1[MAXR];
    for (int r = 0; r < p; r++) {
        devs[r] = r;
        CHECK(cudaSetDevice(r));
        CHECK(cudaStreamCreateWithFlags(&s[r], cudaStreamNonBlocking));
        CHECK(cudaEventCreate(&e0[r]));
        CHECK(cudaEventCreate(&e1[r]));
    }
    NCHECK(ncclCommInitAll(comm, p, devs));
    int bad = 0;
    for (double m : mib) {
        const size_t chunk = (size_t)(m * 1048576.0 / 4.0) / (size_t)p, bytes = chunk * (size_t)p * 4;
        float *send[MAXR], *recv[MAXR];
        for (int r = 0; r < p; r++) {
            CHECK(cudaSetDevice(r));
            CHECK(cudaMalloc(&send[r], bytes));
            CHECK(cudaMalloc(&recv[r], bytes));
            fill<<<264, 256, 0, s[r]>>>(send[r], chunk, p, r);
            CHECK(cudaGetLastError());
        }
        // each form's output checked once: rank r's chunk from q is q's chunk to r
        std::vector<float> h(chunk * (size_t)p);
        for (int f = 0; f < forms; f++) {
            NCHECK(ncclGroupStart());
            for (int r = 0; r < p; r++) {
                CHECK(cudaSetDevice(r));
                CHECK(cudaMemsetAsync(recv[r], 0xff, bytes, s[r]));
                issue(f, send[r], recv[r], chunk, p, comm[r], s[r]);
            }
            NCHECK(ncclGroupEnd());
            for (int r = 0; r < p; r++) {
                CHECK(cudaSetDevice(r));
                CHECK(cudaMemcpyAsync(h.data(), recv[r], bytes, cudaMemcpyDeviceToHost, s[r]));
                CHECK(cudaStreamSynchronize(s[r]));
                for (size_t i = 0; i < h.size(); i++)
                    if (h[i] != (float)((int)(i / chunk) * p + r) + (float)(i % chunk % 1024) && bad++ < 5)
                        printf("alltoall_forms: %s, rank %d, element %zu: %g\n", f ? "native" : "pairs", r, i,
                               (double)h[i]);
            }
        }
        // timed rounds, forms alternated (ABBA ...)
        std::vector<double> us[2];
        for (int round = 0; round < rounds; round++)
            for (int k = 0; k < forms; k++) {
                const int f = forms == 1 ? 0 : (round % 2 == 0 ? k : 1 - k);
                float ms[MAXR];
                std::vector<std::thread> team;
                for (int r = 0; r < p; r++)
                    team.emplace_back([&, r] {
                        CHECK(cudaSetDevice(r));
                        for (int i = 0; i < 5; i++)
                            issue(f, send[r], recv[r], chunk, p, comm[r], s[r]);
                        CHECK(cudaEventRecord(e0[r], s[r]));
                        for (int i = 0; i < iters; i++)
                            issue(f, send[r], recv[r], chunk, p, comm[r], s[r]);
                        CHECK(cudaEventRecord(e1[r], s[r]));
                        CHECK(cudaEventSynchronize(e1[r]));
                        CHECK(cudaEventElapsedTime(&ms[r], e0[r], e1[r]));
                    });
                for (auto &t : team)
                    t.join();
                float worst = 0;
                for (int r = 0; r < p; r++)
                    worst = ms[r] > worst ? ms[r] : worst;
                us[f].push_back(worst * 1e3 / iters);
            }
        for (int f = 0; f < forms; f++) {
            printf("alltoall_forms: %d GPUs %7.1f MiB %-6s us a launch, round by round:", p, bytes / 1048576.0,
                   f ? "native" : "pairs");
            double best = 1e30;
            for (double u : us[f])
                printf(" %.1f", u), best = u < best ? u : best;
            printf(" | best busbw %.1f GB/s\n", bytes / (best * 1e-6) / 1e9 * (p - 1) / p);
        }
        for (int r = 0; r < p; r++) {
            CHECK(cudaSetDevice(r));
            CHECK(cudaFree(send[r]));
            CHECK(cudaFree(recv[r]));
        }
    }
    for (int r = 0; r < p; r++)
        NCHECK(ncclCommDestroy(comm[r]));
    printf("alltoall_forms: %s\n", bad ? "WRONG output (above)" : "every form's output checked");
    return bad ? 1 : 0;
}
