// The cuBLAS handle's update plan (src/backends/cuda/handle_plan.h): which setters run per call.
#include "backends/cuda/handle_plan.h"

#include <gtest/gtest.h>

namespace myblas {
namespace {

const void* const kStream = reinterpret_cast<const void*>(0x1000);
const void* const kOther = reinterpret_cast<const void*>(0x2000);

// Runs one call's plan and returns the new state (the workspace setter succeeds).
HandleState call(const HandleState& s, const void* stream, int math, bool have, HandleUpdate* u) {
  *u = plan_handle_update(s, stream, math, have);
  return after_handle_update(s, *u, stream, math, true);
}

TEST(HandlePlan, FirstCallSetsEverythingThenNothing) {
  HandleUpdate u;
  HandleState s = call(HandleState{}, nullptr, 2, true, &u);
  EXPECT_TRUE(u.math && u.stream && u.workspace);
  EXPECT_TRUE(s.own_workspace);
  for (int i = 0; i < 3; ++i) {  // repeated calls: no cuBLAS setter at all
    s = call(s, nullptr, 2, true, &u);
    EXPECT_EQ(u.calls(), 0);
    EXPECT_TRUE(s.own_workspace);
  }
}

TEST(HandlePlan, MathChangeKeepsWorkspace) {
  HandleUpdate u;
  HandleState s = call(HandleState{}, nullptr, 2, true, &u);
  s = call(s, nullptr, 0, true, &u);  // sgemm (pedantic) then hgemm (default math)
  EXPECT_TRUE(u.math);
  EXPECT_FALSE(u.stream);
  EXPECT_FALSE(u.workspace);  // cublasSetMathMode leaves the workspace alone
  EXPECT_TRUE(s.own_workspace);
}

TEST(HandlePlan, ProgramStreamUsesPoolAndBackResetsWorkspace) {
  HandleUpdate u;
  HandleState s = call(HandleState{}, nullptr, 2, true, &u);
  s = call(s, kStream, 2, true, &u);
  EXPECT_TRUE(u.stream);
  EXPECT_FALSE(u.workspace);  // not shared with a program's stream
  EXPECT_FALSE(s.own_workspace);  // cublasSetStream gave the handle the pool's buffer
  s = call(s, kStream, 2, true, &u);
  EXPECT_EQ(u.calls(), 0);
  s = call(s, kOther, 2, true, &u);
  EXPECT_TRUE(u.stream);
  EXPECT_FALSE(u.workspace);
  s = call(s, nullptr, 2, true, &u);  // back on the default stream: set it again
  EXPECT_TRUE(u.stream);
  EXPECT_TRUE(u.workspace);
  EXPECT_TRUE(s.own_workspace);
}

TEST(HandlePlan, NoWorkspaceAvailable) {
  HandleUpdate u;
  HandleState s = call(HandleState{}, nullptr, 2, false, &u);
  EXPECT_FALSE(u.workspace);
  EXPECT_FALSE(s.own_workspace);
  s = call(s, nullptr, 2, false, &u);
  EXPECT_EQ(u.calls(), 0);
}

TEST(HandlePlan, FailedWorkspaceSetIsRetriedNextCall) {
  HandleState s;
  HandleUpdate u = plan_handle_update(s, nullptr, 2, true);
  s = after_handle_update(s, u, nullptr, 2, false);  // cublasSetWorkspace refused
  EXPECT_FALSE(s.own_workspace);
  u = plan_handle_update(s, nullptr, 2, true);
  EXPECT_TRUE(u.workspace);
  EXPECT_FALSE(u.stream);
}

}  // namespace
}  // namespace myblas
