// Which GPUs a process's host-array calls use: MYBLAS_DEVICES, else the share of the GPUs that
// an MPI launcher's local rank gives the process, else every visible GPU. A pure function of the
// environment's values and the device count, so that it is tested without GPUs or launchers.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace myblas {

// The environment variables the choice reads (nullptr: unset).
struct DeviceEnv {
  const char* devices = nullptr;     // MYBLAS_DEVICES: comma list of ordinals, or "all"
  const char* split_min = nullptr;   // MYBLAS_SPLIT_MIN: m*n*k from which a call is split
  const char* ompi_rank = nullptr;   // OMPI_COMM_WORLD_LOCAL_RANK (Open MPI)
  const char* ompi_size = nullptr;   // OMPI_COMM_WORLD_LOCAL_SIZE
  const char* mpich_rank = nullptr;  // MPI_LOCALRANKID (MPICH's Hydra launcher)
  const char* mpich_size = nullptr;  // MPI_LOCALNRANKS
  const char* slurm_rank = nullptr;  // SLURM_LOCALID (srun)
  const char* slurm_node = nullptr;  // SLURM_NODEID: this node's place in the per-node lists
  const char* slurm_step_tasks = nullptr;  // SLURM_STEP_TASKS_PER_NODE: e.g. "2(x3),1"
  const char* slurm_tasks = nullptr;       // SLURM_TASKS_PER_NODE: the same form, for the job
  const char* slurm_ntasks = nullptr;      // SLURM_NTASKS_PER_NODE: one count (--ntasks-per-node)
};

// Reads DeviceEnv from the process environment.
DeviceEnv device_env();

struct DeviceChoice {
  // The GPUs host-array calls may use; calls split across GPUs use all of them, and the others
  // run on devices[0] when `chosen`. Empty only without GPUs.
  std::vector<int> devices;
  // True when MYBLAS_DEVICES or a launcher decided: host-array calls run on devices[0], and a
  // thread that has not picked a GPU itself is left on devices[0]. False (the default): a
  // host-array call that is not split runs on the calling thread's current GPU, as any CUDA
  // program's work does.
  bool chosen = false;
  uint64_t split_min = uint64_t(1) << 33;  // host-array GEMM with m*n*k >= this is split
  std::string reason;   // why these GPUs, for the MYBLAS_VERBOSE line
  std::string warning;  // a bad value that was ignored (printed once); empty if none
};

// The choice for `device_count` visible GPUs. Rank r of s local ranks on g GPUs takes GPU r mod g
// when s >= g, else the g/s GPUs [r*g/s, (r+1)*g/s) (every GPU taken by one rank). A value that
// cannot be used (unparsable, out of range, a rank outside its local size) is named in `warning`
// and the choice is made as if that variable were unset.
DeviceChoice choose_devices(const DeviceEnv& env, int device_count);

// Number of tasks on node `node` from a Slurm per-node list such as "2(x3),1" (three nodes of
// two, then one of one); -1 if the list is malformed or has no such node.
int slurm_tasks_on_node(const char* list, int node);

// "0,2,3": the list as MYBLAS_DEVICES writes it.
std::string device_list_text(const std::vector<int>& devices);

}  // namespace myblas
