// Whether a pointer lies in the process's program-break area, [start_brk, current break): the
// heap that glibc's malloc grows with sbrk for the main arena (small and mid-sized blocks, e.g.
// the matrices of a 64 x 64 or 128 x 128 SGEMV). The kernel keeps that range for the break
// alone: mmap, which is how the CUDA driver reserves device, managed and page-locked memory,
// never places a mapping inside it. So a pointer there is host memory, and dispatch can skip
// the driver query (about 100-200 ns per operand once a CUDA context exists) without ever
// calling device or managed memory host.
#pragma once
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace myblas {

// start_brk of this process (field 47 of /proc/self/stat), read once; 0 if it cannot be read,
// and then no pointer is taken to be in the area.
inline uintptr_t program_break_start() {
  static const uintptr_t start = [] {
    uintptr_t value = 0;
    FILE* f = std::fopen("/proc/self/stat", "r");
    if (!f) return value;
    char buf[2048];
    const size_t got = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[got] = '\0';
    // Field 2 (the command name) may hold spaces and parentheses: count from the last ')'.
    const char* s = std::strrchr(buf, ')');
    if (!s) return value;
    int field = 2;
    for (++s; *s && field < 47; ++s)
      if (*s == ' ') ++field;
    unsigned long long v = 0;
    if (field == 47 && std::sscanf(s, "%llu", &v) == 1) value = uintptr_t(v);
    return value;
  }();
  return start;
}

// The area [start_brk, current break) at one moment: a call reads it once for all its operands
// (one sbrk(0) instead of one per operand). Empty when start_brk is unknown.
struct ProgramBreakArea {
  uintptr_t lo = 0, hi = 0;
  bool contains(const void* p) const {
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    return a >= lo && a < hi;
  }
};

// The area from a start_brk the caller already holds (program_break_start()'s value).
inline ProgramBreakArea program_break_area(uintptr_t start) {
  ProgramBreakArea area;
  if (start == 0) return area;
  void* brk_now = sbrk(0);  // glibc's cached break: no system call
  if (brk_now == reinterpret_cast<void*>(-1)) return area;
  area.lo = start;
  area.hi = reinterpret_cast<uintptr_t>(brk_now);
  return area;
}

inline ProgramBreakArea program_break_area() { return program_break_area(program_break_start()); }

inline bool in_program_break_area(const void* p) { return program_break_area().contains(p); }

}  // namespace myblas
