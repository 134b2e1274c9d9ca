# Sourced by the wide-job tests (wide_hello.sh, wide_coll.sh): how many ranks this machine can
# hold. `wide_ranks N GIB PROCS` sets n to N, or to N/2 (and says so) when less than GIB GiB of
# memory is available or `ulimit -u` allows fewer than PROCS processes.
wide_ranks() {
    local avail_kb
    avail_kb=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
    n=$1
    if [ "${avail_kb:-0}" -lt $(($2 << 20)) ] ||
        [ "$(ulimit -u)" != unlimited -a "$(ulimit -u)" -lt "$3" ]; then
        n=$(($1 / 2))
        echo "note: ${avail_kb} KiB available, ulimit -u $(ulimit -u): running $n ranks"
    fi
}
