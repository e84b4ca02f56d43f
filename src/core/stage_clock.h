// Host time per stage of a call, to find where the library's own per-call cost goes
// (bench/probes/probe_call_overhead.cpp, bench/results/h100-call-overhead-2026-11-22.md). Compiled in
// only with -DMYBLAS_STAGE_CLOCK=ON; otherwise the marks are empty. MYBLAS_STAGE(i) adds the time
// since the previous mark to stage i of this thread's current call; MYBLAS_STAGE_END(key) files
// the call under `key` (routine and shape), and the per-key medians are printed at exit.
#pragma once
#ifdef MYBLAS_STAGE_CLOCK
#include <string>
namespace myblas {
enum Stage { kStageLocate, kStageChoose, kStagePrepare, kStageHandle, kStageLaunch, kStageSync, kStageCount };
void stage_begin();
void stage_mark(Stage s);
void stage_end(const std::string& key);
}  // namespace myblas
#define MYBLAS_STAGE_BEGIN() ::myblas::stage_begin()
#define MYBLAS_STAGE(s) ::myblas::stage_mark(::myblas::s)
#define MYBLAS_STAGE_END(key) ::myblas::stage_end(key)
#else
#define MYBLAS_STAGE_BEGIN() ((void)0)
#define MYBLAS_STAGE(s) ((void)0)
#define MYBLAS_STAGE_END(key) ((void)0)
#endif
