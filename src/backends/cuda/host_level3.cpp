// Level 3 on host arrays on the GPU, overlapped, for every routine but GEMM (which has its own
// pipeline, host_pipeline.h). The operands every part of the result needs are made resident on
// the GPU once: A (only its referenced triangle for symm/hemm/trmm/trsm), and B too for
// syr2k/her2k. The output is cut into panels that need nothing but those and themselves:
//   symm/hemm, trmm/trsm, side L: column panels of C (or B); side R: row panels;
//   the rank-k updates: column panels of C's triangle, each a rank-k update of its diagonal
//   block plus a GEMM for the rest of the panel (below it for uplo L, above for U).
// Each panel is a list of sub-calls written in the caller's host coordinates (a BlasProblem
// each), with the host rectangles it reads and the one it writes. On the GPU the rectangles are
// staged through pinned buffers and the sub-calls run on cuBLAS against the device copies, the
// panels taking turns on three streams, so the host copies, both copy engines and the work of
// neighbouring panels overlap. If the GPU fails part-way, the panels it finished are final and
// the others untouched (their outputs are staged back only once complete), so exactly those
// sub-calls run on the CPU.
// Across GPUs (host_split.h's policy: the chosen GPUs, calls of MYBLAS_SPLIT_MIN multiply-adds
// and more), twice as many panels per GPU are cut and dealt to the GPUs by their cost
// (deal_panels); each GPU makes its own resident copy of the shared operands and runs its panels
// exactly as one GPU runs all of them, with its own streams, buffers and copy threads. A GPU that
// fails leaves its unfinished panels to one that did not, else to the CPU.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <vector>

#include "backends/cpu/cpu_backend.h"
#include "backends/cuda/cublas_api.h"
#include "backends/cuda/cublas_backend.h"
#include "backends/cuda/gpu_call.h"
#include "backends/cuda/host_level3_plan.h"
#include "backends/cuda/host_pipeline.h"
#include "backends/cuda/host_split.h"
#include "core/log.h"
#include "core/stage_clock.h"
#include "core/thread_pool.h"

namespace myblas {

namespace {

// A device copy of a host block: where its element (0, 0) went and with which leading dimension.
struct Mapped {
  Rect r;
  char* dev = nullptr;
  int64_t dld = 1;
};

// The device address and leading dimension of host address x, inside one of the mapped blocks.
bool translate(const std::vector<Mapped>& maps, const void* x, size_t es, const void** dev, int64_t* dld) {
  const auto* px = static_cast<const unsigned char*>(x);
  for (const Mapped& m : maps) {
    const auto* base = static_cast<const unsigned char*>(m.r.host);
    if (px < base) continue;
    const size_t off = size_t(px - base) / es;
    const int64_t j = int64_t(off / size_t(m.r.ld)), i = int64_t(off % size_t(m.r.ld));
    if (j >= m.r.cols || i >= m.r.rows) continue;
    *dev = m.dev + (size_t(i) + size_t(j) * size_t(m.dld)) * es;
    *dld = m.dld;
    return true;
  }
  return false;
}

constexpr int kSlots = 3;

struct Slot {
  cudaStream_t stream = nullptr;
  cudaEvent_t done = nullptr;
  Pinned pin, pout;
  DeviceBuffer buf;     // the panel's input blocks, packed, then its output block
  int panel = -1;       // in flight, its output in pout
};

// The shared operands (resident_blocks) of a split call on every GPU, staged from the caller's
// memory once: each chunk is copied into a pinned buffer once and sent from there to every GPU.
// Staged by each GPU's own run, they would cost the host one pass per GPU, and on multi-GPU hosts
// the host's memory bandwidth, not PCIe, bounds host-array calls. Empty when they do not fit in
// 40% of a GPU's free memory or a step fails: each GPU then stages its own, as one GPU does.
class SharedOperands {
 public:
  SharedOperands() = default;
  SharedOperands(const SharedOperands&) = delete;
  SharedOperands& operator=(const SharedOperands&) = delete;
  ~SharedOperands() { release(); }

  // From the calling thread (its copy threads copy); restores the current device.
  void upload(const BlasProblem& p, const std::vector<int>& devices) {
    const size_t es = p.elem_size(), g = devices.size();
    int saved = -1;
    if (cudaGetDevice(&saved) != cudaSuccess) {
      cudaGetLastError();
      return;
    }
    std::vector<Rect> whole, chunks;
    resident_blocks(p, &whole, &chunks);
    size_t bytes = 0, biggest = 0;
    for (const Rect& r : whole) bytes += size_t(r.rows) * size_t(r.cols) * es;
    for (const Rect& r : chunks) biggest = std::max(biggest, size_t(r.rows) * size_t(r.cols) * es);
    devices_ = devices;
    bufs_.assign(g, {});
    maps_.assign(g, {});
    std::vector<cudaStream_t> streams(g, nullptr);
    std::vector<cudaEvent_t> sent[2] = {std::vector<cudaEvent_t>(g, nullptr), std::vector<cudaEvent_t>(g, nullptr)};
    bool ok = true;
    for (size_t i = 0; ok && i < g; ++i) {
      size_t free_b = 0, total = 0;
      ok = cudaSetDevice(devices[i]) == cudaSuccess && cudaMemGetInfo(&free_b, &total) == cudaSuccess &&
           bytes <= free_b / 10 * 4 &&
           cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking) == cudaSuccess &&
           cudaEventCreateWithFlags(&sent[0][i], cudaEventDisableTiming) == cudaSuccess &&
           cudaEventCreateWithFlags(&sent[1][i], cudaEventDisableTiming) == cudaSuccess;
      for (size_t w = 0; ok && w < whole.size(); ++w) {
        void* d = nullptr;
        ok = cudaMalloc(&d, size_t(whole[w].rows) * size_t(whole[w].cols) * es) == cudaSuccess;
        if (ok) {
          bufs_[i].push_back(d);
          maps_[i].push_back({whole[w], static_cast<char*>(d), whole[w].rows});
        }
      }
    }
    Pinned stage[2];
    for (Pinned& st : stage)
      if (ok) ok = st.acquire(biggest) == cudaSuccess;
    for (size_t c = 0; ok && c < chunks.size(); ++c) {
      const Rect& r = chunks[c];
      const int b = int(c % 2);
      for (size_t i = 0; ok && c >= 2 && i < g; ++i) ok = cudaEventSynchronize(sent[b][i]) == cudaSuccess;
      if (!ok) break;
      host_copy(stage[b].get(), r.rows, r.host, r.ld, r.rows, r.cols, es);
      for (size_t i = 0; ok && i < g; ++i) {
        const void* d = nullptr;
        int64_t dld = 0;
        ok = translate(maps_[i], r.host, es, &d, &dld) && cudaSetDevice(devices[i]) == cudaSuccess &&
             cudaMemcpy2DAsync(const_cast<void*>(d), size_t(dld) * es, stage[b].get(), size_t(r.rows) * es,
                               size_t(r.rows) * es, size_t(r.cols), cudaMemcpyHostToDevice, streams[i]) == cudaSuccess &&
             cudaEventRecord(sent[b][i], streams[i]) == cudaSuccess;
      }
    }
    for (size_t i = 0; i < g; ++i)  // (also: no copy still reads the pinned buffers)
      if (streams[i] && cudaStreamSynchronize(streams[i]) != cudaSuccess) ok = false;
    for (size_t i = 0; i < g; ++i) {
      for (int b = 0; b < 2; ++b)
        if (sent[b][i]) cudaEventDestroy(sent[b][i]);
      if (streams[i]) cudaStreamDestroy(streams[i]);
    }
    if (!ok) {
      cudaGetLastError();  // (each GPU stages its own; a sticky error shows again there)
      release();
    }
    cudaSetDevice(saved);
  }
  // GPU i's device copies, or nullptr when the upload did not happen.
  const std::vector<Mapped>* on(size_t i) const { return maps_.empty() ? nullptr : &maps_[i]; }
  void release() {
    int saved = -1;
    if (cudaGetDevice(&saved) != cudaSuccess) cudaGetLastError();
    for (size_t i = 0; i < bufs_.size(); ++i)
      for (void* d : bufs_[i])
        if (!gpu_lost() && cudaSetDevice(devices_[i]) == cudaSuccess) cudaFree(d);
    if (saved >= 0) cudaSetDevice(saved);
    bufs_.clear();
    maps_.clear();
  }

 private:
  std::vector<int> devices_;
  std::vector<std::vector<void*>> bufs_;   // [GPU i][block]: the shared blocks, packed
  std::vector<std::vector<Mapped>> maps_;  // [GPU i]: where each block went
};

// Runs panels[t] for every t in `mine` on GPU `dev` (the calling thread's current device is the
// same afterwards), from the calling thread with its copy lane; marks in *finished the panels
// whose output is final in the caller's memory. False, with *why, if the GPU failed: the panels
// of `mine` not marked are untouched. `shared`: the shared operands already on this GPU
// (SharedOperands), else nullptr (they are staged here, overlapped with the first panels).
bool run_panels(const BlasProblem& p, const std::vector<Panel>& all_panels, const std::vector<size_t>& mine, int dev,
                const std::vector<Mapped>* shared, std::vector<char>* finished_out, std::string* why) {
  const size_t es = p.elem_size();
  const CublasApi* api = cublas_api(why);
  if (!api) return false;
  int saved = -1;
  if (cudaGetDevice(&saved) != cudaSuccess) {
    *why = note_cuda_error(cudaGetLastError(), "cudaGetDevice");
    return false;
  }
  if (saved != dev) {
    const cudaError_t e = cudaSetDevice(dev);
    if (e != cudaSuccess) {
      *why = note_cuda_error(e, "cudaSetDevice");
      return false;
    }
  }
  struct Restore {
    int saved, dev;
    ~Restore() {
      if (saved != dev) cudaSetDevice(saved);
    }
  } restore{saved, dev};
  auto panel = [&](size_t t) -> const Panel& { return all_panels[mine[t]]; };  // this GPU's t-th
  PoolAwake copy_threads_awake;
  bool ok = true;
  int issued = 0;  // panels queued for their download on this GPU
  // Test-only MYBLAS_TEST_FAULT: the step's point fails it at once; "pipeline" fails the download
  // of this GPU's fourth panel, when its first is final (as the GEMM pipeline's does).
  auto check = [&](const char* point, cudaError_t e, const char* what) {
    const bool injected = (fault_injected_on(point, dev) || (issued >= 3 && std::strcmp(what, "download") == 0 &&
                                                            fault_injected_on("pipeline", dev))) &&
                          e == cudaSuccess;
    if (ok && (injected || e != cudaSuccess))
      *why = injected ? std::string("injected fault at ") + point + " (" + what + ")" : note_cuda_error(e, what);
    if (injected || e != cudaSuccess) ok = false;
    return ok;
  };

  // The thread's kept streams and events (host_pipeline.h): a slot each, and the resident
  // operands' staging events.
  static_assert(kSlots <= PipelineStreams::kStreams, "a kept stream per slot");
  Slot slots[kSlots];
  PipelineStreams* kept = nullptr;
  if (check("alloc", acquire_streams(dev, &kept), "cudaStreamCreate"))
    for (int i = 0; i < kSlots; ++i) {
      slots[i].stream = kept->stream[i];
      slots[i].done = kept->done[i];
    }
  // The resident operands: one device block each, filled chunk by chunk on the first stream
  // through two pinned buffers taking turns.
  std::vector<Rect> whole, chunks;
  resident_blocks(p, &whole, &chunks);
  std::vector<DeviceBuffer> resident(shared ? 0 : whole.size());
  std::vector<Mapped> maps;
  if (shared) maps = *shared;
  cudaEvent_t resident_done = kept ? kept->staged[2] : nullptr;
  // (MYBLAS_STAGE_CLOCK builds: where a host Level-3 call's host time goes, per stage: prepare =
  // streams, buffers, the panel plan before this; launch = host copies and enqueued work; handle
  // = cuBLAS handle updates; sync = waits for the GPU, each panel's retirement included.)
  MYBLAS_STAGE(kStagePrepare);
  for (size_t i = 0; ok && i < resident.size(); ++i) {
    if (!check("alloc", resident[i].allocate(size_t(whole[i].rows) * size_t(whole[i].cols) * es, slots[0].stream),
               "device memory for A"))
      break;
    maps.push_back({whole[i], static_cast<char*>(resident[i].get()), whole[i].rows});
  }
  {
    Pinned stage[2];
    cudaEvent_t staged[2] = {kept ? kept->staged[0] : nullptr, kept ? kept->staged[1] : nullptr};
    size_t biggest = 0;
    for (const Rect& r : chunks) biggest = std::max(biggest, size_t(r.rows) * size_t(r.cols) * es);
    for (Pinned& s : stage)
      if (ok && !shared) check("pin", s.acquire(biggest), "pinned memory");
    for (size_t c = 0; ok && !shared && c < chunks.size(); ++c) {
      const Rect& r = chunks[c];
      const int b = int(c % 2);
      if (c >= 2 && !check("sync", cudaEventSynchronize(staged[b]), "staging A")) break;
      host_copy(stage[b].get(), r.rows, r.host, r.ld, r.rows, r.cols, es);
      const void* d = nullptr;
      int64_t dld = 0;
      translate(maps, r.host, es, &d, &dld);
      if (!check("copy", cudaMemcpy2DAsync(const_cast<void*>(d), size_t(dld) * es, stage[b].get(), size_t(r.rows) * es,
                                           size_t(r.rows) * es, size_t(r.cols), cudaMemcpyHostToDevice, slots[0].stream),
                 "upload of A") ||
          !check("copy", cudaEventRecord(staged[b], slots[0].stream), "cudaEventRecord"))
        break;
    }
    if (ok) check("copy", cudaEventRecord(resident_done, slots[0].stream), "cudaEventRecord");
    MYBLAS_STAGE(kStageLaunch);
    for (cudaEvent_t e : staged)
      if (e) cudaEventSynchronize(e);  // (the pinned buffers go back to the cache)
  }

  // Copies a finished panel's output out of its slot into the caller's memory.
  auto retire = [&](Slot& s) {
    if (s.panel < 0) return;
    const int t = s.panel;
    s.panel = -1;
    if (!check("sync", cudaEventSynchronize(s.done), "the panel on the GPU")) return;
    const Rect& o = panel(size_t(t)).out;
    host_copy(const_cast<void*>(o.host), o.ld, s.pout.get(), o.rows, o.rows, o.cols, es);
    (*finished_out)[mine[size_t(t)]] = 1;
  };
  // Each slot's pinned buffers, once, for the largest panel it will run: panels differ in size, and
  // a buffer taken anew per panel would allocate and free pinned memory (milliseconds per hundred
  // MB, and cudaFreeHost waits for the device) whenever the cache cannot hold what a call needs.
  auto panel_elems = [&](size_t t, size_t* in, size_t* out) {
    *in = 0;
    for (const Rect& r : panel(t).in) *in += size_t(r.rows) * size_t(r.cols);
    *out = size_t(panel(t).out.rows) * size_t(panel(t).out.cols);
  };
  for (size_t first = 0; ok && first < std::min(mine.size(), size_t(kSlots)); ++first) {
    size_t most_in = 1, most_out = 1;  // (at least one element: a zero-byte request allocates nothing)
    for (size_t t = first; t < mine.size(); t += kSlots) {
      size_t in = 0, out = 0;
      panel_elems(t, &in, &out);
      most_in = std::max(most_in, in);
      most_out = std::max(most_out, out);
    }
    check("pin", slots[first].pin.acquire(most_in * es), "pinned memory") &&
        check("pin", slots[first].pout.acquire(most_out * es), "pinned memory");
  }
  for (size_t t = 0; ok && t < mine.size(); ++t) {
    Slot& s = slots[t % kSlots];
    retire(s);
    MYBLAS_STAGE(kStageSync);
    if (!ok) break;
    const Panel& pan = panel(t);
    size_t in_elems = 0, out_elems = 0;
    panel_elems(t, &in_elems, &out_elems);
    // Device: the output block first (an input that is the output block is staged into it), then
    // the other inputs. (The slot's previous panel is retired: its buffer goes, stream-ordered.)
    s.buf.release();
    if (!check("alloc", s.buf.allocate((out_elems + in_elems) * es, s.stream), "device memory for a panel") ||
        !check("sync", cudaStreamWaitEvent(s.stream, resident_done, 0), "cudaStreamWaitEvent"))
      break;
    std::vector<Mapped> pmaps = maps;
    char* dout = static_cast<char*>(s.buf.get());
    const Mapped out_map{pan.out, dout, pan.out.rows};
    pmaps.push_back(out_map);
    size_t pin_off = 0, dev_off = out_elems * es;
    for (const Rect& r : pan.in) {
      char* pinned = static_cast<char*>(s.pin.get()) + pin_off;
      host_copy(pinned, r.rows, r.host, r.ld, r.rows, r.cols, es);
      const void* target = nullptr;
      int64_t tld = 0;
      const bool inside_out = translate({out_map}, r.host, es, &target, &tld);
      if (!inside_out) {
        target = dout + dev_off;
        tld = r.rows;
        pmaps.push_back({r, dout + dev_off, r.rows});
        dev_off += size_t(r.rows) * size_t(r.cols) * es;
      }
      if (!check("copy", cudaMemcpy2DAsync(const_cast<void*>(target), size_t(tld) * es, pinned, size_t(r.rows) * es,
                                           size_t(r.rows) * es, size_t(r.cols), cudaMemcpyHostToDevice, s.stream),
                 "upload"))
        break;
      pin_off += size_t(r.rows) * size_t(r.cols) * es;
    }
    if (!ok) break;
    MYBLAS_STAGE(kStageLaunch);
    cublasHandle_t h = cublas_handle(dev, s.stream, math_mode(p.type), why);
    MYBLAS_STAGE(kStageHandle);
    if (!h) {
      ok = false;
      break;
    }
    for (const BlasProblem& q : pan.calls) {
      const void *da = nullptr, *db = nullptr, *dc = nullptr;
      int64_t la = 1, lb = 1, lc = 1;
      const bool mapped = translate(pmaps, q.a, es, &da, &la) && (!q.b || translate(pmaps, q.b, es, &db, &lb)) &&
                          translate(pmaps, q.c, es, &dc, &lc);
      void* fn = api->routines[int(q.routine())];
      if (!mapped || !fn) {
        *why = std::string("host ") + routine_name(p.routine()) + ": a panel's operand was not staged";
        ok = false;
        break;
      }
      const cublasStatus_t st =
          fault_injected_on("cublas", dev)
              ? CUBLAS_STATUS_EXECUTION_FAILED
              : call_cublas(fn, h, q, int(q.m), int(q.n), int(q.k), q.beta, da, int(la), db, int(lb),
                            const_cast<void*>(dc), int(lc));
      if (st != CUBLAS_STATUS_SUCCESS) {
        *why = std::string("cuBLAS ") + routine_name(q.routine()) + " failed: " + api->status_string(st);
        ok = false;
        break;
      }
    }
    if (!ok) break;
    if (!check("copy", cudaMemcpy2DAsync(s.pout.get(), size_t(pan.out.rows) * es, dout, size_t(pan.out.rows) * es,
                                         size_t(pan.out.rows) * es, size_t(pan.out.cols), cudaMemcpyDeviceToHost,
                                         s.stream),
               "download") ||
        !check("copy", cudaEventRecord(s.done, s.stream), "cudaEventRecord"))
      break;
    s.panel = int(t);
    ++issued;
    MYBLAS_STAGE(kStageLaunch);
  }
  for (Slot& s : slots) retire(s);
  for (Slot& s : slots) {
    if (s.stream) cudaStreamSynchronize(s.stream);  // nothing may still touch the caller's memory
    s.buf.release();
  }
  MYBLAS_STAGE(kStageSync);
  for (DeviceBuffer& r : resident) r.release();
  if (kept && !ok) {  // idle now; a failed call leaves nothing behind for the next
    for (Slot& s : slots) cudaStreamSynchronize(s.stream);
    discard_streams(dev);
  }
  cudaGetLastError();
  return ok;
}

// One GPU's part of a split call.
struct Share {
  int device = 0;
  std::vector<size_t> panels;
  bool ok = false;
  std::string why;
  std::exception_ptr error;
};

// The panels not marked finished among `of`.
std::vector<size_t> unfinished(const std::vector<size_t>& of, const std::vector<char>& finished) {
  std::vector<size_t> left;
  for (size_t t : of)
    if (!finished[t]) left.push_back(t);
  return left;
}

}  // namespace

bool host_level3(const BlasProblem& p, std::string* why) {
  std::vector<int> devices = split_devices(p.macs());
  std::vector<Panel> panels = make_panels(p, 256, 8 * int(std::max<size_t>(1, devices.size())));
  if (panels.empty()) {
    *why = std::string("no panel plan for ") + routine_name(p.routine());
    return false;
  }
  std::vector<Share> shares;
  if (devices.size() >= 2) {
    std::vector<std::vector<size_t>> lists = deal_panels(panels, devices.size());
    for (size_t i = 0; i < lists.size(); ++i)
      if (!lists[i].empty()) shares.push_back({devices[i], std::move(lists[i])});
  }
  std::vector<char> finished(panels.size(), 0);
  bool ok = false;
  if (shares.size() < 2) {  // one GPU (or one panel): all panels on the current device
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) {
      *why = note_cuda_error(cudaGetLastError(), "cudaGetDevice");
      return false;
    }
    std::vector<size_t> all(panels.size());
    for (size_t t = 0; t < all.size(); ++t) all[t] = t;
    ok = run_panels(p, panels, all, dev, nullptr, &finished, why);
  } else {
    const size_t g = shares.size();
    std::vector<int> used;
    for (const Share& s : shares) used.push_back(s.device);
    SharedOperands shared;
    {
      PoolAwake copy_threads_awake;
      shared.upload(p, used);
    }
    if (verbose()) {
      std::string deal;
      for (const Share& s : shares) {
        deal += strformat("%s%d:", deal.empty() ? "" : " ", s.device);
        for (size_t k = 0; k < s.panels.size(); ++k) deal += strformat("%s%zu", k ? "," : "", s.panels[k]);
      }
      log_line(strformat("%s m=%lld n=%lld k=%lld split over %zu GPUs (GPU:panels %s of %zu; shared operands %s)",
                         routine_name(p.routine()), (long long)p.m, (long long)p.n, (long long)p.k, g, deal.c_str(),
                         panels.size(), shared.on(0) ? "staged once for all" : "staged by each"));
    }
    run_on_devices(used, [&](size_t i) {
      Share& s = shares[i];
      try {
        CopyLane copy_lane(i + 1, g);
        s.ok = run_panels(p, panels, s.panels, s.device, shared.on(i), &finished, &s.why);
      } catch (...) {
        s.error = std::current_exception();
      }
    });
    for (const Share& s : shares)
      if (s.error) std::rethrow_exception(s.error);
    // A failed GPU's unfinished panels go to the first GPU that did not fail.
    const Share* failed = nullptr;
    const Share* healthy = nullptr;
    std::vector<size_t> left;
    for (const Share& s : shares) {
      if (s.ok && !healthy) healthy = &s;
      if (!s.ok && !failed) failed = &s;
      if (!s.ok) {
        const std::vector<size_t> l = unfinished(s.panels, finished);
        left.insert(left.end(), l.begin(), l.end());
      }
    }
    ok = !failed;
    if (failed) {
      *why = failed->why;
      if (healthy) {
        std::sort(left.begin(), left.end());
        warn_once("split:" + failed->why, strformat("%s on GPU %d: %s; its unfinished part runs on GPU %d",
                                                    routine_name(p.routine()), failed->device, failed->why.c_str(),
                                                    healthy->device));
        ok = run_panels(p, panels, left, healthy->device, shared.on(size_t(healthy - shares.data())), &finished, why);
      }
    }
  }
  if (ok) return true;
  size_t left = 0;
  for (char f : finished) left += f ? 0 : 1;
  if (left == panels.size()) return false;  // nothing written: the caller redoes the whole call
  warn_once("host-l3:" + *why, std::string(routine_name(p.routine())) + " on the GPU: " + *why +
                                   "; completing the unfinished panels on the CPU");
  std::string ignored;
  for (size_t t = 0; t < panels.size(); ++t)
    if (!finished[t])
      for (const BlasProblem& q : panels[t].calls) {
        BlasProblem h = q;
        h.mem_a = h.mem_b = h.mem_c = Mem::host;
        cpu_blas_problem(h, &ignored);
      }
  return true;
}

}  // namespace myblas
