# Sourced by setup-and-demo.sh and test.sh: the Debian packages myblas needs to build and
# test, and how to install them. The CUDA toolkit is not among them: it comes from
# NVIDIA's repository or installer and is expected at /usr/local/cuda (or nvcc on PATH).
#   cmake g++ pkg-config   build; pkg-config for the abi.pkgconfig test
#   gfortran               abi.fortran test (and the runtime of the netlib testers)
#   libopenblas-dev        the CPU BLAS libmyblas loads at run time (libopenblas.so.0)
#   libblas3 libblas-test  reference BLAS/CBLAS and Debian's netlib testers (tests/netlib)
#   libgtest-dev           GoogleTest for the unit tests
#   openmpi-bin libopenmpi-dev libscalapack-openmpi-dev
#                          ScaLAPACK under mpirun with myblas preloaded (tests/mpi), and the MPI
#                          runtime scripts/pack_mpi.sh packs for machines without one
MYBLAS_PACKAGES="cmake g++ gfortran pkg-config libopenblas-dev libblas3 libblas-test libgtest-dev clang libclang-rt-14-dev openmpi-bin libopenmpi-dev libscalapack-openmpi-dev"

# Runs a command as root: directly when we are root, else through sudo.
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

install_packages() {
  as_root apt-get update
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y $MYBLAS_PACKAGES
}

# Installs only when something is missing, so an offline machine that has everything
# (such as CI) never touches the network.
install_missing_packages() {
  local missing="" p
  for p in $MYBLAS_PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
  done
  if [ -n "$missing" ]; then
    echo "== installing missing packages:$missing"
    install_packages
  fi
}

# CMake finds nvcc through CUDACXX or PATH; the toolkit's default home is not on PATH.
find_nvcc() {
  if [ -z "${CUDACXX:-}" ] && ! command -v nvcc >/dev/null 2>&1; then
    if [ -x /usr/local/cuda/bin/nvcc ]; then
      export CUDACXX=/usr/local/cuda/bin/nvcc
    else
      echo "error: nvcc not found: install the CUDA toolkit (expected in /usr/local/cuda)" >&2
      exit 1
    fi
  fi
}
