// What a cached cuBLAS handle needs before a call: which of cublasSetMathMode, cublasSetStream
// and cublasSetWorkspace must run. Pure (no CUDA), so the CPU tests check it.
//
// Why the library gives its handles a workspace of their own: cuBLAS's default workspace comes
// from a pool shared by the process's handles, whose few large buffers go to the handles
// created first; a program that made its own handles before its first BLAS call (as any cuBLAS
// program does) left the library's handle a small buffer, and cuBLAS then cannot take the
// split-K GEMM and split GEMV kernels that need workspace (small m and n with large k, GEMV N
// with many columns), on the order of 2x slower. The library's handle on the default stream
// gets its own buffer, set once: each thread's handle uses it only on the default stream, so
// every use is ordered on that one stream. cublasSetStream resets a handle's workspace to the
// pool, so each change of stream back to the default stream sets it again; on a stream the
// program chose, cuBLAS's pool serves, because a kept buffer shared between streams could still
// be in use by another stream's last call.
#pragma once

namespace myblas {

struct HandleState {
  bool bound = false;           // stream and math mode were set at least once
  const void* stream = nullptr;  // the stream last set
  int math = 0;                  // the cublasMath_t last set
  bool own_workspace = false;    // the library's buffer is the handle's workspace now
};

struct HandleUpdate {
  bool math = false, stream = false, workspace = false;
  int calls() const { return int(math) + int(stream) + int(workspace); }
};

// `have_workspace`: a buffer of the library's own exists (or can be made) for this thread and device.
inline HandleUpdate plan_handle_update(const HandleState& s, const void* stream, int math, bool have_workspace) {
  HandleUpdate u;
  u.math = !s.bound || s.math != math;
  u.stream = !s.bound || s.stream != stream;
  u.workspace = have_workspace && stream == nullptr && (u.stream || !s.own_workspace);
  return u;
}

// The state after the update ran (workspace_ok: cublasSetWorkspace succeeded).
inline HandleState after_handle_update(const HandleState& s, const HandleUpdate& u, const void* stream, int math,
                                       bool workspace_ok) {
  HandleState n;
  n.bound = true;
  n.stream = stream;
  n.math = math;
  n.own_workspace = stream == nullptr && (u.workspace ? workspace_ok : (s.own_workspace && !u.stream));
  return n;
}

}  // namespace myblas
