// in_one_mapping (src/dispatch/host_mapping.h): two addresses in one mapping of the process, read
// from /proc/self/maps, as dispatch uses it to locate a batch's evenly stepping host pointers with
// one look instead of a driver query per product. CPU only.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "dispatch/host_mapping.h"

namespace {

uintptr_t at(const void* p, size_t off = 0) { return reinterpret_cast<uintptr_t>(p) + off; }

TEST(HostMapping, OneMappingAndTwo) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  // Three pages: one mapping; then its middle page made inaccessible, which splits it in two
  // mappings (as a device allocation between two host blocks would separate them).
  char* p = static_cast<char*>(mmap(nullptr, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  ASSERT_NE(p, MAP_FAILED);
  EXPECT_TRUE(myblas::in_one_mapping(at(p), at(p, 3 * page - 1)));
  EXPECT_TRUE(myblas::in_one_mapping(at(p, 100), at(p, 2 * page)));
  ASSERT_EQ(mprotect(p + page, page, PROT_NONE), 0);
  EXPECT_FALSE(myblas::in_one_mapping(at(p), at(p, 2 * page)));
  EXPECT_TRUE(myblas::in_one_mapping(at(p), at(p, page - 1)));
  EXPECT_FALSE(myblas::in_one_mapping(at(p), at(p, 3 * page)));  // (one past the end)
  munmap(p, 3 * page);
  // Unmapped: no mapping holds it.
  EXPECT_FALSE(myblas::in_one_mapping(at(p), at(p)));
}

TEST(HostMapping, LongLinesAndMissingFile) {
  // A maps file with a line longer than the reader's buffer before the one that matters.
  char name[] = "/tmp/myblas_maps_XXXXXX";
  const int fd = mkstemp(name);
  ASSERT_GE(fd, 0);
  FILE* f = fdopen(fd, "w");
  std::fprintf(f, "1000-2000 r--p 00000000 00:00 0 %s\n", std::string(2000, 'x').c_str());
  std::fprintf(f, "3000-5000 rw-p 00000000 00:00 0\n");
  std::fclose(f);
  EXPECT_TRUE(myblas::in_one_mapping(0x3000, 0x4fff, name));
  EXPECT_FALSE(myblas::in_one_mapping(0x3000, 0x5000, name));
  EXPECT_TRUE(myblas::in_one_mapping(0x1000, 0x1fff, name));
  EXPECT_FALSE(myblas::in_one_mapping(0x1fff, 0x3000, name));
  std::remove(name);
  EXPECT_FALSE(myblas::in_one_mapping(0x3000, 0x3001, "/nonexistent/maps"));
}

}  // namespace
