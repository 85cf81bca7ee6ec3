// emu.cc - emu.h's launch loop and the globals it declares.
#include "emu.h"
#include <cstdio>
#include <cstdlib>

thread_local emu_dim threadIdx, blockIdx;
emu_dim blockDim, gridDim;
alignas(256) unsigned char emu_dyn_smem[EMU_SMEM_OPTIN];
thread_local emu_block *emu_cur;
std::function<void(unsigned)> emu_after_block;

void emu_run(unsigned grid, unsigned block, const std::function<void()> &body)
{
    blockDim.x = block, gridDim.x = grid;
    for (unsigned b = 0; b < grid; b++) {
        memset(emu_dyn_smem, 0xa5, sizeof emu_dyn_smem); /* no block sees another's shared memory */
        emu_block blk((int)block);
        std::vector<std::thread> threads;
        for (unsigned t = 0; t < block; t++)
            threads.emplace_back([&, t] {
                emu_cur = &blk;
                threadIdx.x = t, blockIdx.x = b;
                body();
            });
        for (auto &th : threads)
            th.join();
        if (emu_after_block)
            emu_after_block(b);
    }
}

int emu_cases_main(int argc, char **argv, int count, int (*run_case)(int), const char *fail, const char *pass)
{
    int fails = 0;
    if (argc < 2)
        for (int ci = 0; ci < count; ci++)
            fails += run_case(ci);
    for (int i = 1; i < argc; i++) {
        const int ci = atoi(argv[i]);
        if (ci < 0 || ci >= count) {
            printf("no case %s (0 .. %d)\n", argv[i], count - 1);
            return 2;
        }
        fails += run_case(ci);
    }
    printf("%s\n", fails ? fail : pass);
    return fails != 0;
}

xpb_status xpb_fail(xpb_error *err, xpb_status st, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return st;
}
