// The host BLAS, loaded at run time with dlopen (MYBLAS_CPU_BLAS, default OpenBLAS).
// Its symbols are looked up in its own handle, so a call never loops back into
// libmyblas, also when libmyblas is LD_PRELOADed over the same library.
#pragma once
#include <string>

namespace myblas {

using sgemm_fn = void (*)(const char*, const char*, const int*, const int*, const int*,
                          const float*, const float*, const int*, const float*, const int*,
                          const float*, float*, const int*, size_t, size_t);
using sgemv_fn = void (*)(const char*, const int*, const int*, const float*, const float*,
                          const int*, const float*, const int*, const float*, float*, const int*,
                          size_t);

struct CpuBlas {
  sgemm_fn sgemm = nullptr;  // never null: the built-in loops stand in if loading failed
  sgemv_fn sgemv = nullptr;
  std::string name;          // the library file, or "built-in" when none could be loaded
};

const CpuBlas& cpu_blas();

}  // namespace myblas
