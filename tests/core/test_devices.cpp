// The device choice (core/devices.h) with faked device counts and launcher variables: no GPU
// and no launcher is needed, so this runs in CI.
#include "core/devices.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using myblas::choose_devices;
using myblas::DeviceChoice;
using myblas::DeviceEnv;

std::vector<int> range(int lo, int hi) {
  std::vector<int> v;
  for (int d = lo; d < hi; ++d) v.push_back(d);
  return v;
}

DeviceEnv ompi(const char* rank, const char* size) {
  DeviceEnv e;
  e.ompi_rank = rank;
  e.ompi_size = size;
  return e;
}

TEST(Devices, DefaultIsEveryGpuNotChosen) {
  for (int g : {1, 2, 8}) {
    const DeviceChoice c = choose_devices(DeviceEnv{}, g);
    EXPECT_EQ(c.devices, range(0, g)) << g;
    EXPECT_FALSE(c.chosen) << g;
    EXPECT_TRUE(c.warning.empty()) << c.warning;
    EXPECT_FALSE(c.reason.empty());
    EXPECT_EQ(c.split_min, uint64_t(1) << 33);
  }
}

TEST(Devices, NoGpu) {
  const DeviceChoice c = choose_devices(ompi("1", "2"), 0);
  EXPECT_TRUE(c.devices.empty());
  EXPECT_FALSE(c.chosen);
}

TEST(Devices, ExplicitList) {
  DeviceEnv e;
  e.devices = " 3, 1 ,2";
  const DeviceChoice c = choose_devices(e, 4);
  EXPECT_EQ(c.devices, (std::vector<int>{3, 1, 2}));
  EXPECT_TRUE(c.chosen);
  EXPECT_TRUE(c.warning.empty()) << c.warning;
  EXPECT_NE(c.reason.find("MYBLAS_DEVICES=3, 1 ,2"), std::string::npos) << c.reason;
  e.devices = "ALL";
  EXPECT_EQ(choose_devices(e, 3).devices, range(0, 3));
  EXPECT_TRUE(choose_devices(e, 3).chosen);
  e.devices = "1";
  EXPECT_EQ(choose_devices(e, 2).devices, std::vector<int>{1});
}

// MYBLAS_DEVICES wins over a launcher.
TEST(Devices, ExplicitListOverLauncher) {
  DeviceEnv e = ompi("0", "2");
  e.devices = "1";
  const DeviceChoice c = choose_devices(e, 2);
  EXPECT_EQ(c.devices, std::vector<int>{1});
  EXPECT_NE(c.reason.find("MYBLAS_DEVICES"), std::string::npos);
}

// A bad MYBLAS_DEVICES warns once (one warning text) and falls back to what applies without it.
TEST(Devices, BadListWarnsAndFallsBack) {
  struct Case {
    const char* value;
    const char* says;
  } cases[] = {{"0,2", "no GPU 2"},      {"1,1", "listed twice"}, {"x", "'x' is not"},
               {"0,", "'' is not"},      {"-1", "'-1' is not"},    {"1.5", "'1.5' is not"},
               {"99999999999", "is not"}, {"al", "'al' is not"}};
  for (const Case& k : cases) {
    DeviceEnv e;
    e.devices = k.value;
    DeviceChoice c = choose_devices(e, 2);
    EXPECT_EQ(c.devices, range(0, 2)) << k.value;
    EXPECT_FALSE(c.chosen) << k.value;
    EXPECT_NE(c.warning.find("MYBLAS_DEVICES"), std::string::npos) << k.value << ": " << c.warning;
    EXPECT_NE(c.warning.find(k.says), std::string::npos) << k.value << ": " << c.warning;
    // ... to the launcher's share when there is a launcher
    e.ompi_rank = "1";
    e.ompi_size = "2";
    c = choose_devices(e, 2);
    EXPECT_EQ(c.devices, std::vector<int>{1}) << k.value;
    EXPECT_TRUE(c.chosen);
    EXPECT_FALSE(c.warning.empty());
  }
  DeviceEnv blank;
  blank.devices = "  ";  // blank: as if unset, no warning
  EXPECT_TRUE(choose_devices(blank, 2).warning.empty());
  EXPECT_FALSE(choose_devices(blank, 2).chosen);
}

// Rank r of s on g GPUs: r mod g when s >= g; else the g/s GPUs [r*g/s, (r+1)*g/s).
TEST(Devices, RankMapping) {
  struct Case {
    int rank, size, gpus;
    std::vector<int> want;
  } cases[] = {
      {0, 2, 2, {0}},       {1, 2, 2, {1}},    {0, 4, 2, {0}},    {3, 4, 2, {1}},       {2, 4, 2, {0}},
      {5, 8, 3, {2}},       {6, 8, 3, {0}},    {0, 1, 4, {0, 1, 2, 3}}, {0, 2, 4, {0, 1}}, {1, 2, 4, {2, 3}},
      {0, 2, 3, {0}},       {1, 2, 3, {1, 2}}, {2, 3, 8, {5, 6, 7}}, {0, 3, 8, {0, 1}},  {0, 1, 1, {0}},
      {3, 4, 1, {0}},
  };
  for (const Case& k : cases) {
    const std::string r = std::to_string(k.rank), s = std::to_string(k.size);
    const DeviceChoice c = choose_devices(ompi(r.c_str(), s.c_str()), k.gpus);
    EXPECT_EQ(c.devices, k.want) << "rank " << k.rank << " of " << k.size << " on " << k.gpus;
    EXPECT_TRUE(c.chosen);
    EXPECT_TRUE(c.warning.empty()) << c.warning;
    EXPECT_NE(c.reason.find("Open MPI local rank " + r + " of " + s), std::string::npos) << c.reason;
  }
}

// Every GPU is taken, and by one rank only, when there are fewer ranks than GPUs; with more
// ranks, the ranks per GPU differ by at most one.
TEST(Devices, SharesCoverTheGpus) {
  for (int g = 1; g <= 9; ++g)
    for (int s = 1; s <= 12; ++s) {
      std::vector<int> taken(size_t(g), 0);
      for (int r = 0; r < s; ++r) {
        const std::string rs = std::to_string(r), ss = std::to_string(s);
        for (int d : choose_devices(ompi(rs.c_str(), ss.c_str()), g).devices) ++taken[size_t(d)];
      }
      int lo = s, hi = 0;
      for (int t : taken) lo = std::min(lo, t), hi = std::max(hi, t);
      if (s <= g) {
        EXPECT_EQ(lo, 1) << s << " ranks, " << g << " GPUs";
        EXPECT_EQ(hi, 1) << s << " ranks, " << g << " GPUs";
      } else {
        EXPECT_LE(hi - lo, 1) << s << " ranks, " << g << " GPUs";
      }
    }
}

TEST(Devices, Mpich) {
  DeviceEnv e;
  e.mpich_rank = "3";
  e.mpich_size = "4";
  const DeviceChoice c = choose_devices(e, 2);
  EXPECT_EQ(c.devices, std::vector<int>{1});
  EXPECT_NE(c.reason.find("MPICH"), std::string::npos);
}

// Open MPI's variables are read before Hydra's and Slurm's (mpirun inside a Slurm allocation).
TEST(Devices, LauncherPrecedence) {
  DeviceEnv e = ompi("1", "2");
  e.mpich_rank = "0";
  e.mpich_size = "2";
  e.slurm_rank = "0";
  e.slurm_ntasks = "2";
  EXPECT_EQ(choose_devices(e, 2).devices, std::vector<int>{1});
  e.ompi_rank = e.ompi_size = nullptr;
  e.mpich_rank = "1";
  EXPECT_EQ(choose_devices(e, 2).devices, std::vector<int>{1});
  EXPECT_NE(choose_devices(e, 2).reason.find("MPICH"), std::string::npos);
}

TEST(Devices, SlurmTaskLists) {
  using myblas::slurm_tasks_on_node;
  EXPECT_EQ(slurm_tasks_on_node("4", 0), 4);
  EXPECT_EQ(slurm_tasks_on_node("4", 1), -1);
  EXPECT_EQ(slurm_tasks_on_node("2(x3),1", 0), 2);
  EXPECT_EQ(slurm_tasks_on_node("2(x3),1", 2), 2);
  EXPECT_EQ(slurm_tasks_on_node("2(x3),1", 3), 1);
  EXPECT_EQ(slurm_tasks_on_node("2(x3),1", 4), -1);
  EXPECT_EQ(slurm_tasks_on_node("1,3(x2),8", 3), 8);
  EXPECT_EQ(slurm_tasks_on_node("1,3(x2),8", 2), 3);
  for (const char* bad : {"", "x", "2(x)", "2(3)", "2(x0)", "2(x3", ",2", "2(y3)", "(x2)", "2(x-1)"})
    EXPECT_EQ(slurm_tasks_on_node(bad, 0), -1) << bad;
  EXPECT_EQ(slurm_tasks_on_node("2(x3),", 3), -1);  // a trailing empty item
  EXPECT_EQ(slurm_tasks_on_node(nullptr, 0), -1);
  EXPECT_EQ(slurm_tasks_on_node("2", -1), -1);
}

TEST(Devices, Slurm) {
  DeviceEnv e;
  e.slurm_rank = "1";
  e.slurm_node = "3";
  e.slurm_tasks = "4(x3),2";  // node 3 runs 2 tasks
  DeviceChoice c = choose_devices(e, 4);
  EXPECT_EQ(c.devices, (std::vector<int>{2, 3})) << c.reason << c.warning;
  EXPECT_NE(c.reason.find("Slurm local rank 1 of 2"), std::string::npos) << c.reason;
  e.slurm_step_tasks = "4(x4)";  // the step's list wins over the job's
  c = choose_devices(e, 4);
  EXPECT_EQ(c.devices, std::vector<int>{1}) << c.reason << c.warning;
  DeviceEnv n;
  n.slurm_rank = "0";
  n.slurm_ntasks = "2";  // no node list: --ntasks-per-node
  EXPECT_EQ(choose_devices(n, 4).devices, (std::vector<int>{0, 1}));
}

// Launcher values that cannot be used: one warning, and the default (every GPU, not chosen).
TEST(Devices, BadLauncherValues) {
  std::vector<DeviceEnv> bad;
  bad.push_back(ompi("2", "2"));
  bad.push_back(ompi("one", "2"));
  bad.push_back(ompi("0", nullptr));
  bad.push_back(ompi("0", "0"));
  bad.push_back(ompi("0", "2x"));
  DeviceEnv m;
  m.mpich_rank = "0";
  bad.push_back(m);
  DeviceEnv s;
  s.slurm_rank = "0";  // no task counts at all
  bad.push_back(s);
  s.slurm_tasks = "2(x2)";
  s.slurm_node = "5";  // beyond the list
  bad.push_back(s);
  s.slurm_node = "n1";
  bad.push_back(s);
  s.slurm_node = "0";
  s.slurm_rank = "2";  // rank 2 of 2
  bad.push_back(s);
  for (size_t i = 0; i < bad.size(); ++i) {
    const DeviceChoice c = choose_devices(bad[i], 2);
    EXPECT_EQ(c.devices, range(0, 2)) << i;
    EXPECT_FALSE(c.chosen) << i;
    EXPECT_NE(c.warning.find("launcher"), std::string::npos) << i << ": " << c.warning;
    EXPECT_EQ(c.warning.find(';'), c.warning.rfind(';')) << "one warning: " << c.warning;
  }
}

TEST(Devices, SplitMin) {
  DeviceEnv e;
  e.split_min = "1048576";
  EXPECT_EQ(choose_devices(e, 2).split_min, uint64_t(1048576));
  EXPECT_TRUE(choose_devices(e, 2).warning.empty());
  for (const char* bad : {"0", "-5", "1e9", "big"}) {
    e.split_min = bad;
    const DeviceChoice c = choose_devices(e, 2);
    EXPECT_EQ(c.split_min, uint64_t(1) << 33) << bad;
    EXPECT_NE(c.warning.find("MYBLAS_SPLIT_MIN"), std::string::npos) << bad;
  }
}

TEST(Devices, ListText) {
  EXPECT_EQ(myblas::device_list_text({0, 2, 3}), "0,2,3");
  EXPECT_EQ(myblas::device_list_text({}), "");
}

}  // namespace
