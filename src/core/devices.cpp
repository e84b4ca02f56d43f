#include "core/devices.h"

#include <cctype>
#include <cstdlib>
#include <cstring>
#include <string>

namespace myblas {

namespace {

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// A non-negative decimal integer that fits an int, surrounded by nothing but blanks.
bool parse_count(const std::string& text, int* out) {
  const std::string s = trim(text);
  if (s.empty() || s.size() > 9) return false;
  int v = 0;
  for (char ch : s) {
    if (!std::isdigit(static_cast<unsigned char>(ch))) return false;
    v = v * 10 + (ch - '0');
  }
  *out = v;
  return true;
}

bool parse_u64(const std::string& text, uint64_t* out) {
  const std::string s = trim(text);
  if (s.empty() || s.size() > 19) return false;
  uint64_t v = 0;
  for (char ch : s) {
    if (!std::isdigit(static_cast<unsigned char>(ch))) return false;
    v = v * 10 + uint64_t(ch - '0');
  }
  *out = v;
  return true;
}

// MYBLAS_DEVICES: "all" or a comma list of distinct ordinals below `count`. Empty: error text.
std::string parse_device_list(const std::string& value, int count, std::vector<int>* out) {
  std::string lower = trim(value);
  for (char& ch : lower) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  out->clear();
  if (lower == "all") {
    for (int d = 0; d < count; ++d) out->push_back(d);
    return {};
  }
  size_t start = 0;
  for (;;) {
    const size_t end = value.find(',', start);
    const std::string item = value.substr(start, end == std::string::npos ? std::string::npos : end - start);
    int d = 0;
    if (!parse_count(item, &d)) return "'" + trim(item) + "' is not a device ordinal";
    if (d >= count) return "there is no GPU " + std::to_string(d) + " (" + std::to_string(count) + " visible)";
    for (int seen : *out)
      if (seen == d) return "GPU " + std::to_string(d) + " is listed twice";
    out->push_back(d);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return {};
}

// A launcher's local rank and local size, or its name and an error.
struct Launcher {
  const char* name = nullptr;  // nullptr: no launcher
  int rank = 0, size = 0;
  std::string error;
};

Launcher detect_launcher(const DeviceEnv& env) {
  Launcher l;
  auto take = [&l](const char* name, const char* rank_var, const char* rank, const char* size_var,
                   const char* size) {
    l.name = name;
    if (!parse_count(rank, &l.rank)) {
      l.error = std::string(rank_var) + "='" + rank + "' is not a rank";
    } else if (!size) {
      l.error = std::string(size_var) + " is not set";
    } else if (!parse_count(size, &l.size) || l.size < 1) {
      l.error = std::string(size_var) + "='" + size + "' is not a count of ranks";
    } else if (l.rank >= l.size) {
      l.error = "local rank " + std::to_string(l.rank) + " is not below the local size " + std::to_string(l.size);
    }
  };
  // Open MPI's and Hydra's own variables first: an mpirun inside a Slurm allocation sets them
  // while the Slurm ones describe the allocation's batch step.
  if (env.ompi_rank) {
    take("Open MPI", "OMPI_COMM_WORLD_LOCAL_RANK", env.ompi_rank, "OMPI_COMM_WORLD_LOCAL_SIZE", env.ompi_size);
  } else if (env.mpich_rank) {
    take("MPICH", "MPI_LOCALRANKID", env.mpich_rank, "MPI_LOCALNRANKS", env.mpich_size);
  } else if (env.slurm_rank) {
    // Slurm gives no local size directly: the step's (else the job's) tasks on this node, from
    // the per-node list at SLURM_NODEID, else SLURM_NTASKS_PER_NODE.
    l.name = "Slurm";
    int node = 0;
    if (!parse_count(env.slurm_rank, &l.rank)) {
      l.error = std::string("SLURM_LOCALID='") + env.slurm_rank + "' is not a rank";
      return l;
    }
    if (env.slurm_node && !parse_count(env.slurm_node, &node)) {
      l.error = std::string("SLURM_NODEID='") + env.slurm_node + "' is not a node index";
      return l;
    }
    const char* list_var = env.slurm_step_tasks ? "SLURM_STEP_TASKS_PER_NODE" : "SLURM_TASKS_PER_NODE";
    const char* list = env.slurm_step_tasks ? env.slurm_step_tasks : env.slurm_tasks;
    if (list) {
      l.size = slurm_tasks_on_node(list, node);
      if (l.size < 1) l.error = std::string(list_var) + "='" + list + "' gives no task count for node " + std::to_string(node);
    } else if (env.slurm_ntasks) {
      if (!parse_count(env.slurm_ntasks, &l.size) || l.size < 1)
        l.error = std::string("SLURM_NTASKS_PER_NODE='") + env.slurm_ntasks + "' is not a count of tasks";
    } else {
      l.error = "none of SLURM_STEP_TASKS_PER_NODE, SLURM_TASKS_PER_NODE, SLURM_NTASKS_PER_NODE is set";
    }
    if (l.error.empty() && l.rank >= l.size)
      l.error = "local rank " + std::to_string(l.rank) + " is not below the local size " + std::to_string(l.size);
  }
  return l;
}

}  // namespace

std::string device_list_text(const std::vector<int>& devices) {
  std::string s;
  for (int d : devices) s += (s.empty() ? "" : ",") + std::to_string(d);
  return s;
}

int slurm_tasks_on_node(const char* list, int node) {
  if (!list || node < 0) return -1;
  const std::string s(list);
  size_t start = 0;
  int first = 0;  // index of the first node the current item covers
  for (;;) {
    const size_t end = s.find(',', start);
    const std::string item = trim(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
    int tasks = 0, repeat = 1;
    const size_t paren = item.find('(');
    if (paren == std::string::npos) {
      if (!parse_count(item, &tasks)) return -1;
    } else {
      // "N(xR)"
      if (item.size() < paren + 4 || item.back() != ')' || item[paren + 1] != 'x' ||
          !parse_count(item.substr(0, paren), &tasks) ||
          !parse_count(item.substr(paren + 2, item.size() - paren - 3), &repeat) || repeat < 1)
        return -1;
    }
    if (node < first + repeat) return tasks;
    first += repeat;
    if (end == std::string::npos) return -1;
    start = end + 1;
  }
}

DeviceEnv device_env() {
  DeviceEnv e;
  e.devices = std::getenv("MYBLAS_DEVICES");
  e.split_min = std::getenv("MYBLAS_SPLIT_MIN");
  e.ompi_rank = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK");
  e.ompi_size = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  e.mpich_rank = std::getenv("MPI_LOCALRANKID");
  e.mpich_size = std::getenv("MPI_LOCALNRANKS");
  e.slurm_rank = std::getenv("SLURM_LOCALID");
  e.slurm_node = std::getenv("SLURM_NODEID");
  e.slurm_step_tasks = std::getenv("SLURM_STEP_TASKS_PER_NODE");
  e.slurm_tasks = std::getenv("SLURM_TASKS_PER_NODE");
  e.slurm_ntasks = std::getenv("SLURM_NTASKS_PER_NODE");
  return e;
}

DeviceChoice choose_devices(const DeviceEnv& env, int count) {
  DeviceChoice c;
  auto warn = [&c](const std::string& w) { c.warning += (c.warning.empty() ? "" : "; ") + w; };
  if (env.split_min && !trim(env.split_min).empty()) {
    uint64_t v = 0;
    if (parse_u64(env.split_min, &v) && v > 0)
      c.split_min = v;
    else
      warn(std::string("MYBLAS_SPLIT_MIN='") + env.split_min + "' is not a positive integer; using 2^33");
  }
  if (count <= 0) {
    c.reason = "no GPU";
    return c;
  }
  const std::string count_text = std::to_string(count) + (count == 1 ? " GPU" : " GPUs");
  if (env.devices && !trim(env.devices).empty()) {
    const std::string problem = parse_device_list(env.devices, count, &c.devices);
    if (problem.empty()) {
      c.chosen = true;
      c.reason = std::string("MYBLAS_DEVICES=") + trim(env.devices) + " of " + count_text;
      return c;
    }
    warn(std::string("MYBLAS_DEVICES='") + env.devices + "': " + problem + "; ignored");
    c.devices.clear();
  }
  const Launcher l = detect_launcher(env);
  if (l.name && !l.error.empty()) {
    warn(std::string(l.name) + " launcher: " + l.error + "; ignored");
  } else if (l.name) {
    c.chosen = true;
    const std::string who = std::string(l.name) + " local rank " + std::to_string(l.rank) + " of " +
                            std::to_string(l.size) + " on " + count_text;
    if (l.size >= count) {
      c.devices.push_back(l.rank % count);
      c.reason = who + ": GPU = rank mod GPUs";
    } else {
      const int lo = int(int64_t(l.rank) * count / l.size), hi = int(int64_t(l.rank + 1) * count / l.size);
      for (int d = lo; d < hi; ++d) c.devices.push_back(d);
      c.reason = who + ": this rank's " + std::to_string(hi - lo) + " of them";
    }
    return c;
  }
  for (int d = 0; d < count; ++d) c.devices.push_back(d);
  c.reason = count == 1 ? "the only GPU"
                        : "no MYBLAS_DEVICES and no MPI launcher: calls run on the thread's current GPU, "
                          "split calls on all " + count_text;
  return c;
}

}  // namespace myblas
