#!/bin/sh
# Installs what Ferry needs from Debian, idempotently. `build`: compilers and build tools, and
# libpmix-dev (the PMIx header: libmpi opens libpmix itself only under a PMIx launcher),
# libotf2-trace-dev and zlib (ferry-otf2 writes OTF2 traces, ferry view deflates its data);
# `test`: also the reference MPIs (MPICH, Open MPI) for differential and interop tests, and
# python3-venv for the mpi4py test, and Slurm with munge (tests/slurm: the tests start the daemons
# themselves, with their own configuration), otf2-tools (otf2-print reads our traces in the
# tests) and chromium (the tests of ferry view's page, driven by Playwright from PyPI);
# `bench`: those and iperf3 (the link's limit between the test hosts, bench/hosts.sh) and GNU
# parallel (bench/farm.sh compares ferry farm with it). `portal` is what the web portal needs from
# Debian (bubblewrap, its jobs' sandbox); `test` and `bench` include it (scripts/install-portal.sh
# installs the rest, from PyPI and npm).
# Does nothing for packages already present.
set -e
want="build-essential cmake ninja-build python3 pkg-config libpmix-dev libotf2-trace-dev zlib1g-dev"
slurm="slurmctld slurmd slurm-client munge"
portal="bubblewrap"
case "${1:-build}" in
  test) want="$want mpich libmpich-dev openmpi-bin libopenmpi-dev python3-venv python3-pip $slurm otf2-tools chromium $portal" ;;
  portal) want="$want $portal" ;;
  bench) want="$want mpich libmpich-dev openmpi-bin libopenmpi-dev python3-venv python3-pip $slurm iperf3 parallel otf2-tools chromium $portal" ;;
esac
missing=""
for p in $want; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "install-deps: installing$missing"
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq $missing
