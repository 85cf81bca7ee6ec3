// gbench_shim.cc - the only C++ in the harness: wraps Google Benchmark for C (gbench_shim.h).
#include "gbench_shim.h"

#include <benchmark/benchmark.h>

#include <mutex>

namespace {

// Swallows Google Benchmark's own console output: xpubench prints its own table.
class QuietReporter : public benchmark::BenchmarkReporter {
  public:
    bool ReportContext(const Context &) override { return true; }
    void ReportRuns(const std::vector<Run> &) override {}
};

std::once_flag init_once;

void init_gbench()
{
    // Google Benchmark wants Initialize() before use; give it an empty command line so it never
    // sees (or rejects) xpubench's flags.
    static char prog[] = "xpubench";
    static char *argv[] = {prog, nullptr};
    int argc = 1;
    benchmark::Initialize(&argc, argv);
}

} // namespace

extern "C" xpb_status xpb_gbench_measure(const char *name, xpb_timed_fn fn, void *user,
                                         const xpb_gbench_config *cfg, xpb_samples *samples,
                                         xpb_error *err)
{
    std::call_once(init_once, init_gbench);
    xpb_status status = XPB_OK;
    const double per_sample = cfg->launches_per_sample > 1 ? cfg->launches_per_sample : 1;
    benchmark::RegisterBenchmark(name, [&](benchmark::State &state) {
        for (auto _ : state) {
            double seconds = 0;
            if (status == XPB_OK)
                status = fn(user, &seconds, err);
            if (status != XPB_OK) {
                state.SkipWithError(err ? err->msg : "error");
                break;
            }
            state.SetIterationTime(seconds);
            if (xpb_samples_push(samples, seconds / per_sample) != 0) {
                status = xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of memory for samples");
                state.SkipWithError("out of memory");
                break;
            }
        }
    })
        ->UseManualTime()
        ->Repetitions(cfg->repetitions > 0 ? cfg->repetitions : 1)
        ->MinTime(cfg->min_time > 0 ? cfg->min_time : 0.01)
        ->Unit(benchmark::kMicrosecond);
    QuietReporter reporter;
    benchmark::RunSpecifiedBenchmarks(&reporter);
    benchmark::ClearRegisteredBenchmarks();
    return status;
}
