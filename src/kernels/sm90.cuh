// Host-side support of the kernels that need sm_90a code (the tensor memory accelerator,
// setmaxnreg, wgmma): whether this build carries such code for the current device and it runs
// there, and 2-D tensor maps (CUtensorMap) for the bulk copies. Shared by the SGEMM small-k
// warp-specialised kernel (sgemm/smallk_ws_128x256x64.cu) and the HGEMM wgmma kernel.
#pragma once
#include <cuda.h>  // CUtensorMap and its enums (types only; the driver is reached through cudart)
#include <cuda_runtime.h>

#include <cstdint>

namespace myblas {

// True when the current device has compute capability 9.0 and this build's sm_90a code runs on
// it (a one-thread probe kernel, compiled only for sm_90a, writes 1), and the driver offers
// cuTensorMapEncodeTiled. Probed once per device; a transient failure is not cached. *sms, if
// given, receives the device's SM count.
bool sm90a_ready(int* sms = nullptr);

// A 2-D tensor map over `base`: `inner` contiguous elements per line, `outer` lines `ld` elements
// apart, boxes of box_inner x box_outer elements; reads outside the extent are zero-filled.
// False if the driver refuses it (alignment: base 16-byte aligned, ld * elem_bytes a multiple of
// 16; box sides <= 256).
bool make_tensor_map_2d(CUtensorMap* map, CUtensorMapDataType type, int elem_bytes, const void* base, uint64_t inner,
                        uint64_t outer, int64_t ld, uint32_t box_inner, uint32_t box_outer,
                        CUtensorMapSwizzle swizzle);

}  // namespace myblas
