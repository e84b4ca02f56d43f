// The program-break test that lets dispatch skip the driver's pointer query
// (src/dispatch/program_break.h): memory inside the break is in, anything else is out.
#include "dispatch/program_break.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

namespace {

using myblas::in_program_break_area;
using myblas::program_break_start;

TEST(ProgramBreak, StartIsReadAndBelowTheBreak) {
  const uintptr_t start = program_break_start();
  ASSERT_NE(start, 0u) << "start_brk could not be read from /proc/self/stat";
  EXPECT_LE(start, reinterpret_cast<uintptr_t>(sbrk(0)));
}

// Memory the break itself grows over is in the area; once the break moves back below it, it
// is not (the kernel may hand that range to mmap again).
TEST(ProgramBreak, FollowsTheBreak) {
  ASSERT_NE(program_break_start(), 0u);
  char* grown = static_cast<char*>(sbrk(8192));
  ASSERT_NE(grown, reinterpret_cast<char*>(-1));
  const bool first = in_program_break_area(grown);
  const bool last = in_program_break_area(grown + 8191);
  const bool past = in_program_break_area(grown + 8192);
  ASSERT_NE(sbrk(-8192), reinterpret_cast<void*>(-1));
  const bool after_shrink = in_program_break_area(grown + 100);
  EXPECT_TRUE(first);
  EXPECT_TRUE(last);
  EXPECT_FALSE(past) << "the byte at the break is not part of the area";
  EXPECT_FALSE(after_shrink) << "memory above a lowered break must go back to the driver query";
}

TEST(ProgramBreak, MappedStackAndNullAreOut) {
  void* page = mmap(nullptr, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(page, MAP_FAILED);
  EXPECT_FALSE(in_program_break_area(page));
  EXPECT_FALSE(in_program_break_area(static_cast<char*>(page) + 4096));
  munmap(page, 1 << 20);
  int local = 0;
  EXPECT_FALSE(in_program_break_area(&local));
  EXPECT_FALSE(in_program_break_area(nullptr));
  EXPECT_FALSE(in_program_break_area(reinterpret_cast<void*>(program_break_start() - 1)));
}

}  // namespace

namespace {

// Dispatch reads the area once per call for all its operands: the snapshot agrees with the
// per-pointer test, and (like it) does not follow a break that moves after it was taken.
TEST(ProgramBreak, OneSnapshotPerCallAgreesWithThePerPointerTest) {
  ASSERT_NE(program_break_start(), 0u);
  char* grown = static_cast<char*>(sbrk(4096));
  ASSERT_NE(grown, reinterpret_cast<char*>(-1));
  const myblas::ProgramBreakArea area = myblas::program_break_area();
  int local = 0;
  for (const void* p : {static_cast<const void*>(grown), static_cast<const void*>(grown + 4095),
                        static_cast<const void*>(grown + 4096), static_cast<const void*>(&local),
                        static_cast<const void*>(nullptr)})
    EXPECT_EQ(area.contains(p), in_program_break_area(p)) << p;
  EXPECT_TRUE(area.contains(grown));
  EXPECT_FALSE(area.contains(grown + 4096));
  ASSERT_NE(sbrk(-4096), reinterpret_cast<void*>(-1));
  EXPECT_FALSE(myblas::program_break_area().contains(grown + 100)) << "a new snapshot sees the lowered break";
  EXPECT_FALSE(myblas::ProgramBreakArea{}.contains(grown)) << "an unknown area contains nothing";
}

}  // namespace
