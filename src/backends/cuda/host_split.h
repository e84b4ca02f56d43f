// GEMM on host arrays across the GPUs a process uses (device_choice()): C's columns are cut into
// one contiguous block per GPU, and each block runs through the single-device pipeline
// (host_pipeline.h) on its own GPU, from its own host thread with its own streams, staging
// buffers and copy threads. Each GPU receives all of op(A) and its block's columns of op(B) and C;
// op(A) is copied out of the caller's memory once and sent to every GPU from the same pinned
// buffers before the blocks start (when it fits; else each block's pipeline stages it).
// A GPU that fails leaves its block's unfinished tiles to a GPU that did not fail; what no GPU
// could finish is returned to the caller, which computes it on the CPU.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "backends/cuda/host_pipeline.h"
#include "core/problem.h"

namespace myblas {

// The contract of pipeline_gemm: p has every operand in host memory, alpha != 0 and k > 0; on
// false, *unfinished lists the tiles of C not written (every other tile is final). Calls with
// m*n*k >= MYBLAS_SPLIT_MIN (2^33) and at least 64 columns per GPU are split over the chosen GPUs
// when there are several; every other call runs on the current device.
bool host_gemm(const PipelineGemm& p, std::vector<CTile>* unfinished, std::string* why);

// How a split call deals C's n columns to `gpus` GPUs: the first column of each block (and n at
// the end), blocks of equal width rounded to 64 columns; fewer blocks when n has fewer than 64
// columns per GPU. One block means no split.
std::vector<int> split_columns(int n, int gpus);

// The GPUs a host-array call of `macs` multiply-adds is split over: the chosen GPUs
// (device_choice()), the calling thread's current GPU first when it is one of them, if there are
// several and macs >= MYBLAS_SPLIT_MIN; else empty (the call runs on the current device alone).
// GEMM and the other Level-3 routines on host arrays share this policy.
std::vector<int> split_devices(double macs);

// Runs task(i) for every i < devices.size() at once and returns when all have returned:
// task(0) on the calling thread, each other on the host thread kept for devices[i] (made once
// per device and process, so that the streams and cuBLAS handles kept per thread and device are
// made once). A task selects its GPU and copy lane itself and must not throw.
void run_on_devices(const std::vector<int>& devices, const std::function<void(size_t)>& task);

}  // namespace myblas
