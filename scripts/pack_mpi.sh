#!/usr/bin/env bash
# Packs an MPI runtime for a machine that has none (the GPU machines): Debian's Open MPI
# (openmpi-bin, libopenmpi3), its PMIx, ScaLAPACK (libscalapack-openmpi) with the LAPACK and BLAS
# it links, and every library these need that is not glibc's or the C++ runtime's, into
#   <out>/mpi.tar.xz   a tree laid out as under /usr, unpacked to /tmp/mpi
#   <out>/env.sh       sourced there: unpacks it and sets the variables that make a relocated
#                      Open MPI (OPAL_PREFIX, OPAL_SYSCONFDIR) and PMIx (PMIX_PREFIX, PMIX_LIBDIR, PMIX_DATADIR) find
#                      their components and help files, with PATH and LD_LIBRARY_PATH
# Usage: scripts/pack_mpi.sh [out-dir (default .mpi)] [extra binaries whose libraries to add...]
# Needs: apt-get install openmpi-bin libopenmpi-dev libscalapack-openmpi-dev (scripts/packages.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/.mpi}
shift || true
arch=x86_64-linux-gnu
for f in /usr/bin/orterun /usr/lib/$arch/openmpi/lib/openmpi3 /usr/lib/$arch/pmix2/lib/pmix \
         /usr/lib/$arch/libscalapack-openmpi.so.2.2; do
  [ -e "$f" ] || { echo "pack_mpi: $f is missing (install openmpi-bin libopenmpi-dev libscalapack-openmpi-dev)" >&2; exit 1; }
done
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
pfx=$stage/mpi
lib=$pfx/lib/$arch
mkdir -p "$pfx/bin" "$lib" "$pfx/share" "$pfx/etc"
cp -L /usr/bin/orterun /usr/bin/orted "$pfx/bin/"
ln -s orterun "$pfx/bin/mpirun"
# Open MPI's own tree (its links to ../../libmpi.so.40 etc. land in $lib), PMIx's, help files, settings.
cp -a /usr/lib/$arch/openmpi "$lib/"
cp -a /usr/lib/$arch/pmix2 "$lib/"
cp -a /usr/share/openmpi "$pfx/share/"
cp -a /etc/openmpi "$pfx/etc/"
# Libraries: everything the programs, components and ScaLAPACK load, found by ldd (transitive),
# copied under their sonames; not glibc's, nor libstdc++/libgcc_s (the machine's own are newer).
skip='^(libc|libm|libdl|libpthread|librt|libresolv|libutil|ld-linux-x86-64|libstdc\+\+|libgcc_s)\.so'
objects=(/usr/bin/orterun /usr/bin/orted /usr/lib/$arch/libscalapack-openmpi.so.2.2
         /usr/lib/$arch/openmpi/lib/openmpi3/*.so /usr/lib/$arch/pmix2/lib/pmix/*.so "$@")
missing=0
for o in "${objects[@]}"; do
  while read -r name _ path _; do
    [ -n "${path:-}" ] || continue
    if [ "$path" = "not" ]; then
      echo "pack_mpi: $o needs $name, which is not installed here (left out)" >&2
      missing=1
      continue
    fi
    [[ "$name" =~ $skip ]] && continue
    [ -e "$lib/$name" ] || cp -L "$path" "$lib/$name"
  done < <(ldd "$o" | grep '=>')
done
# ScaLAPACK's liblapack.so.3 and libblas.so.3 are the alternatives' choice (here OpenBLAS's).
mkdir -p "$out"
tar -C "$stage" -cJf "$out/mpi.tar.xz" mpi
cat > "$out/env.sh" <<'EOF'
# Sourced on a machine without MPI: unpacks the runtime packed by scripts/pack_mpi.sh to
# /tmp/mpi and points Open MPI and PMIx at it.
_mpi_here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ -x /tmp/mpi/bin/orterun ] || tar -C /tmp -xJf "$_mpi_here/mpi.tar.xz"
export OPAL_PREFIX=/tmp/mpi
export OPAL_SYSCONFDIR=/tmp/mpi/etc/openmpi
export PMIX_PREFIX=/tmp/mpi/lib/x86_64-linux-gnu/pmix2
export PMIX_LIBDIR=$PMIX_PREFIX/lib PMIX_DATAROOTDIR=$PMIX_PREFIX/share PMIX_DATADIR=$PMIX_PREFIX/share
export PATH=/tmp/mpi/bin:$PATH
export LD_LIBRARY_PATH=/tmp/mpi/lib/x86_64-linux-gnu:/tmp/mpi/lib/x86_64-linux-gnu/openmpi/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# One host: shared memory only (no UCX or fabric probing; UCX's modules are not packed), without
# the cross-memory attach that containers often forbid.
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader OMPI_MCA_osc=^ucx
export OMPI_MCA_btl_vader_single_copy_mechanism=none
unset _mpi_here
EOF
echo "packed $(du -h "$out/mpi.tar.xz" | cut -f1) into $out (missing dependencies: $missing)"
