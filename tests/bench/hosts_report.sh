#!/usr/bin/env bash
# timeout: 60
# compare.py's "Between hosts (TCP)" section (bench/hosts.sh's rows): known rows in, known cells,
# ratios and verdicts of the issue-12 targets out; Ferry n/a (with its launcher's error) when its
# launch across hosts failed; net./link. rows stay out of the machine's own summary and tables.
set -u
S=$FY_SRC
fail=0
bad() { echo "FAIL: $*"; fail=1; }
cat >meta.txt <<'META'
cpu_model=Test CPU
cpus=2
hosts_n=4
hosts_net=10.77.9.0/24 on bridge fybtest
hosts_status_ferry=ok
hosts_status_mpich=ok
hosts_status_openmpi=ok
hosts_cmd_mpich=mpiexec.mpich -launcher-exec AGENT PROG
META
# latency p50: Ferry 5 / MPICH 8 / Open MPI 10 at 8 B (0.625 <= 0.8: met; vs socket 4: 1.25 <= 1.5:
# met), at 1 KiB Ferry 9 / best 10 (0.9: not met) / socket 5 (1.8: not met). Bandwidth at 1 MiB
# Ferry 2000 / best 1800 / iperf3 2000 (1.0 >= 0.9), 4 MiB 1500 / 1800 (not met) / 0.75 of iperf3.
cat >results.csv <<'CSV'
seq,impl,program,np,bench,ranks,size,rep,value,unit,status,extra,wall_s
1,link,sockpp,2,link.pingpong.poll,2,8,1,4,us,ok,p10=3;p50=4;p90=9,1
2,link,sockpp,2,link.pingpong.poll,2,1024,1,5,us,ok,p10=4;p50=5;p90=9,1
3,link,sockpp,2,link.pingpong.block,2,8,1,12,us,ok,p10=11;p50=12;p90=13,1
4,link,iperf3,2,link.iperf3,2,0,1,2000,MBps,ok,streams=1,5
5,link,sockpp,2,link.stream,2,1048576,1,2100,MBps,ok,,1
10,ferry,hosts/latency,2,net.latency,2,8,1,50,us,ok,p10=4;p50=5;p90=7;layout=2x1,1
11,mpich,hosts/latency,2,net.latency,2,8,1,9,us,ok,p10=7;p50=8;p90=9;layout=2x1,1
12,openmpi,hosts/latency,2,net.latency,2,8,1,4000,us,ok,p10=9;p50=10;p90=4000;layout=2x1,1
13,ferry,hosts/latency,2,net.latency,2,1024,1,9,us,ok,p10=8;p50=9;p90=10;layout=2x1,1
14,mpich,hosts/latency,2,net.latency,2,1024,1,10,us,ok,p10=9;p50=10;p90=11;layout=2x1,1
20,ferry,hosts/bandwidth,2,net.bandwidth,2,1048576,1,2000,MBps,ok,layout=2x1,1
21,mpich,hosts/bandwidth,2,net.bandwidth,2,1048576,1,1800,MBps,ok,layout=2x1,1
22,openmpi,hosts/bandwidth,2,net.bandwidth,2,1048576,1,500,MBps,ok,layout=2x1,1
23,ferry,hosts/bandwidth,2,net.bandwidth,2,4194304,1,1500,MBps,ok,layout=2x1,1
24,mpich,hosts/bandwidth,2,net.bandwidth,2,4194304,1,1800,MBps,ok,layout=2x1,1
30,ferry,hosts/imb,4,net.imb.allreduce,4,8,1,40,us,ok,layout=2x2,1
31,mpich,hosts/imb,4,net.imb.allreduce,4,8,1,50,us,ok,layout=2x2,1
32,openmpi,hosts/imb,4,net.imb.allreduce,4,8,1,45,us,ok,layout=2x2,1
33,ferry,hosts/imb,4,net.imb.allreduce,4,1048576,1,900,us,ok,layout=2x2,1
34,mpich,hosts/imb,4,net.imb.allreduce,4,1048576,1,1000,us,ok,layout=2x2,1
40,ferry,hosts/startup,4,net.startup,4,0,1,250,ms,ok,layout=4x1,1
41,mpich,hosts/startup,4,net.startup,4,0,1,200,ms,ok,layout=4x1,1
42,mpich,hosts/startup,4,net.startup,4,*,2,,,exit_hang,layout=4x1,1
50,ferry,latency,2,latency,2,8,1,0.2,us,ok,p10=0.1;p50=0.2;p90=0.3,1
51,mpich,latency,2,latency,2,8,1,0.4,us,ok,p10=0.3;p50=0.4;p90=0.5,1
CSV
python3 "$S/bench/compare.py" --csv results.csv --meta meta.txt --json results.json \
    --report report.md || { echo "FAIL: compare.py"; exit 1; }
want() { grep -qF -- "$1" report.md || bad "no line with: $1"; }
want '## Between hosts (TCP)'
want '| latency at 8 B and 1 KiB ≤ 0.8× best peer (p50) | 1 of 2 sizes | not met | 0.90 (1 KiB) |'
want '| latency at 8 B and 1 KiB ≤ 1.5× socket ping-pong, polling (p50) | 1 of 2 sizes | not met | 1.80 (1 KiB) |'
want '| bandwidth at 1 MiB and 4 MiB ≥ 1.0× best peer | 1 of 2 sizes | not met | 0.83 (4 MiB) |'
want '| bandwidth at 1 MiB and 4 MiB ≥ 0.9× iperf3 | 1 of 2 sizes | not met | 0.75 (4 MiB) |'
want '| Allreduce, 2 hosts × 2 ranks, 8 B–1 MiB ≤ 1.0× best peer | 2 of 2 sizes | **met** | 0.90 (1 MiB) |'
want '| Bcast, 2 hosts × 2 ranks, 8 B–1 MiB ≤ 1.0× best peer | not measured | | |'
want '| startup ≤ 1.0× best peer | 0 of 1 sizes | not met | 1.25 (0 B) |'
want '| startup ≤ 0.3 s (ratio to 300 ms) | 1 of 1 sizes | **met** | 0.83 (0 B) |'
# Cells: latency p50 / p90 with the limits beside them; bandwidth in GB/s with iperf3's one number.
want '| 8 B | **5.000** / 7.000 | **8.000** / 9.000 | **10.00** / 4,000 | 0.62 | **4.000** / 9.000 | **12.00** / 13.00 | 2.00 | 0.67 |'
want '| 1 MiB | 2.000 | 1.800 | 0.500 | 1.11 | 2.100 | 2.000 | 0.86 | 0.90 |'
want '| 4 MiB | 1.500 | 1.800 | – | 0.83 | – | 2.000 | – | 0.90 |'
want '- MPICH `hosts/startup` -n 4: exit_hang in repetition(s) 2'
# The machine's own summary has latency, not the rows between hosts.
sed -n '/^## Summary/,/^## /p' report.md >summary.txt
grep -q '^| latency | 2 |' summary.txt || bad "the summary lost the machine's latency"
grep -q 'net\.\|link\.' summary.txt && bad "rows between hosts in the machine's summary"
grep -q '^### net\.' report.md && bad "a detailed table of a net. benchmark"

# Ferry that could not launch across hosts: n/a cells, targets not measured, its error shown.
sed -i 's/^hosts_status_ferry=ok$/hosts_status_ferry=n\/a (mpiexec: unknown option '"'"'-launcher-exec'"'"')/' meta.txt
python3 "$S/bench/compare.py" --csv results.csv --meta meta.txt --report report2.md ||
    { echo "FAIL: compare.py (Ferry n/a)"; exit 1; }
grep -qF '| Ferry | n/a (mpiexec: unknown option '"'"'-launcher-exec'"'"') |' report2.md || bad "Ferry's error not shown"
grep -qF '| latency at 8 B and 1 KiB ≤ 0.8× best peer (p50) | Ferry n/a | not measured | |' report2.md ||
    bad "a target evaluated without Ferry"
grep -qF '| 8 B | n/a | **8.000** / 9.000 |' report2.md || bad "Ferry's latency cell is not n/a"

# Skipped (not root): the section says why.
printf 'cpus=2\nhosts_skipped=not root (the test hosts are network namespaces)\n' >meta3.txt
head -n 1 results.csv >empty.csv
python3 "$S/bench/compare.py" --csv empty.csv --meta meta3.txt --report report3.md ||
    { echo "FAIL: compare.py (skipped)"; exit 1; }
grep -qF '**Skipped**: not root' report3.md || bad "a skipped run does not say why"
[ $fail = 0 ] && echo "No Errors"
exit $fail
