// The name table every kernel family's registry keeps (sgemm, sgemv, hgemm): each kernel's name,
// as MYBLAS_*_KERNEL and the benchmarks spell it, and whether dispatch may choose it.
#pragma once
#include <cstddef>
#include <cstring>

namespace myblas {

template <class K>
struct KernelEntry {
  K kernel;
  const char* name;
  bool production;  // dispatch may choose it (the others are ladder rungs for the benchmarks)
};

template <class K, size_t N>
const char* kernel_table_name(const KernelEntry<K> (&table)[N], K k) {
  for (const KernelEntry<K>& e : table)
    if (e.kernel == k) return e.name;
  return "unknown";
}

template <class K, size_t N>
bool kernel_table_from_name(const KernelEntry<K> (&table)[N], const char* name, K* out) {
  if (!name) return false;
  for (const KernelEntry<K>& e : table)
    if (!std::strcmp(e.name, name)) {
      *out = e.kernel;
      return true;
    }
  return false;
}

template <class K, size_t N>
bool kernel_table_production(const KernelEntry<K> (&table)[N], K k) {
  for (const KernelEntry<K>& e : table)
    if (e.kernel == k) return e.production;
  return false;
}

}  // namespace myblas
