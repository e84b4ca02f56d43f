#include "iface_common.h"

#include <cctype>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>

#include "common/reference.h"

namespace iface {

bool row_major(Api api) { return api == Api::cblas_row; }

CBLAS_TRANSPOSE cblas_trans(char c) {
  switch (c) {
    case 'N': case 'n': return CblasNoTrans;
    case 'T': case 't': return CblasTrans;
    default: return CblasConjTrans;
  }
}

char normal_trans(char c) { return (c == 'N' || c == 'n') ? 'N' : 'T'; }
bool is_trans(char c) { return normal_trans(c) == 'T'; }

uint16_t random_half(std::mt19937_64& rng) {
  uint16_t h;
  do h = myblas_float_to_half(mbtest::uniform(rng));
  while ((h & 0x7fffu) == 0);  // a value below 2^-25 would round to zero
  return h;
}

HalfMatrix::HalfMatrix(int r, int c, int l, std::mt19937_64& rng) : rows(r), cols(c), ld(l) {
  buf.assign(size_t(kPad) * 2 + size_t(ld) * size_t(cols), mbtest::kGuardHalf);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) at(i, j) = random_half(rng);
}

void HalfMatrix::fill_nan() {
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) at(i, j) = 0x7e00;
}

int64_t HalfMatrix::damaged_guards() const {
  int64_t bad = 0;
  for (int i = 0; i < kPad; ++i) {
    bad += buf[size_t(i)] != mbtest::kGuardHalf;
    bad += buf[buf.size() - 1 - size_t(i)] != mbtest::kGuardHalf;
  }
  for (int j = 0; j < cols; ++j)
    for (int i = rows; i < ld; ++i) bad += at(i, j) != mbtest::kGuardHalf;
  return bad;
}

uint16_t float_to_bf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  return uint16_t((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
}

float bf16_to_float(uint16_t h) {
  const uint32_t x = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &x, sizeof f);
  return f;
}

Bf16Matrix::Bf16Matrix(int r, int c, int l, std::mt19937_64& rng) {
  rows = r;
  cols = c;
  ld = l;
  buf.assign(size_t(kPad) * 2 + size_t(ld) * size_t(cols), mbtest::kGuardHalf);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) at(i, j) = float_to_bf16(mbtest::uniform(rng));
}

void Bf16Matrix::fill_nan() {
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) at(i, j) = 0x7fc0;
}

std::vector<float> abs_of(std::vector<float> v) {
  for (float& x : v) x = std::fabs(x);
  return v;
}

DeviceMirror::DeviceMirror(const void* host, size_t bytes) : bytes_(bytes) {
  status_ = cudaMalloc(&ptr_, bytes_ > 0 ? bytes_ : 1);
  if (status_ == cudaSuccess) status_ = cudaMemcpy(ptr_, host, bytes_, cudaMemcpyHostToDevice);
}

DeviceMirror::~DeviceMirror() {
  if (ptr_) cudaFree(ptr_);
}

bool DeviceMirror::copy_back(void* host) {
  // The library may have left work on the legacy stream; this copy waits for it.
  status_ = cudaMemcpy(host, ptr_, bytes_, cudaMemcpyDeviceToHost);
  return status_ == cudaSuccess;
}

std::string backend_env() {
  const char* v = std::getenv("MYBLAS_BACKEND");
  std::string b = v ? v : "";
  for (char& c : b) c = char(std::tolower(static_cast<unsigned char>(c)));
  return b;
}

::testing::AssertionResult path_ok(bool quick_return, bool device_operands, bool cpu_only) {
  const std::string got = myblas_last_path();
  const std::string b = backend_env();
  std::vector<std::string> allowed;
  if (quick_return) allowed = {"none"};
  else if (b == "cpu" || cpu_only || !myblas_gpu_available()) allowed = {"cpu"};
  // An injected GPU fault (MYBLAS_TEST_FAULT) completes the call on the CPU.
  else if (std::getenv("MYBLAS_TEST_FAULT")) allowed = {"cpu", "cublas", "kernels"};
  else if (b == "cublas") allowed = {"cublas"};
  else if (b == "kernels") {
    // Routines with kernels of ours must take them (the ctest entry says so); the others run
    // on cuBLAS until theirs exist.
    if (std::getenv("MYBLAS_TEST_EXPECT_KERNELS")) allowed = {"kernels"};
    else allowed = {"kernels", "cublas"};
  }
  // auto: device operands go to the GPU, to cuBLAS or to our kernel by the measured table;
  // host arrays to the CPU, or to the GPU pipeline where the measured host table says so.
  else if (device_operands) allowed = {"cublas", "kernels"};
  else allowed = {"cpu", "cublas"};
  for (const std::string& a : allowed)
    if (got == a) return ::testing::AssertionSuccess();
  std::string want;
  for (const std::string& a : allowed) want += (want.empty() ? "" : " or ") + a;
  return ::testing::AssertionFailure()
         << "myblas_last_path() is \"" << got << "\", expected \"" << want << "\" (MYBLAS_BACKEND="
         << (b.empty() ? "<unset>" : b) << ", gpu=" << myblas_gpu_available()
         << (quick_return ? ", quick return" : "") << (device_operands ? ", device operands" : "")
         << ")";
}

std::string run_context() {
  const std::string b = backend_env();
  const unsigned long long seed = (unsigned long long)mbtest::test_seed();
  return fmt("backend=%s seed=%llu (rerun with MYBLAS_TEST_SEED=%llu) reference=%s",
             b.empty() ? "<unset>" : b.c_str(), seed, seed, mbtest::ref_name());
}

bool no_gpu_reason(std::string* why) {
  if (myblas_gpu_available()) return false;
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  *why = e != cudaSuccess ? std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e)
                          : "cudaGetDeviceCount() found " + std::to_string(count) + " devices";
  cudaGetLastError();
  return true;
}

std::string fmt(const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  char small[512];
  const int n = std::vsnprintf(small, sizeof small, format, ap);
  va_end(ap);
  if (n < int(sizeof small)) return small;
  std::string big(size_t(n) + 1, '\0');
  va_start(ap, format);
  std::vsnprintf(&big[0], big.size(), format, ap);
  va_end(ap);
  big.resize(size_t(n));
  return big;
}

}  // namespace iface
