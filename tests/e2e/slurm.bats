#!/usr/bin/env bats
# Slurm: a one-node cluster on this machine (Debian's slurm-wlm and munge,
# loopback only, stopped at the end) runs a batch job that loads a
# cudnnvm module file and validates through srun, and a job array whose
# tasks run two versions with `cudnnvm exec`.
load helper

setup_file() {
	# one NVIDIA-shaped archive per stub: name version cuda
	stub_archives <<-EOF
		v9 9.19.0.56 13
		v8 8.9.7.29 12
	EOF
}

setup() {
	common_setup
	export CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda-nodev"
}

teardown() {
	local p pid i
	for p in slurmd slurmctld munged; do
		[ -f "$T/$p.pid" ] || continue
		pid=$(cat "$T/$p.pid")
		kill "$pid" 2>/dev/null || continue
		# slurmctld saves its state as it stops: wait for it to be gone
		# before bats removes the folder it writes into (at most 10 s)
		for i in $(seq 100); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
	done
	true
}

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# slurm_start: munged, slurmctld and slurmd on 127.0.0.1, all state in $T.
slurm_start() {
	[ "$(id -u)" -eq 0 ] || skip "needs root to run slurmd"
	local b
	for b in munged mungekey slurmctld slurmd sbatch srun squeue; do
		command -v "$b" >/dev/null ||
			skip "$b is not installed (apt-get install slurm-wlm munge)"
	done
	local host cpus mem
	host=$(hostname -s)
	cpus=$(nproc)
	mem=$(awk '/MemTotal/{print int($2/1024/2)}' /proc/meminfo)
	mkdir -p "$T/slurm/state" "$T/slurm/spool" "$T/munge"
	chmod 0700 "$T/munge"
	mungekey --create --keyfile="$T/munge/munge.key" >/dev/null 2>&1 || skip "mungekey failed"
	chmod 0400 "$T/munge/munge.key"
	munged --force --key-file="$T/munge/munge.key" --socket="$T/munge/munge.sock" \
		--pid-file="$T/munged.pid" --log-file="$T/munge/munged.log" \
		--seed-file="$T/munge/seed" 3>&- || skip "munged does not start here"
	cat >"$T/slurm/slurm.conf" <<-CONF
		ClusterName=cudnnvmtest
		SlurmctldHost=$host(127.0.0.1)
		SlurmctldPort=$(free_port)
		SlurmdPort=$(free_port)
		SrunPortRange=$(free_port)-$(($(free_port) + 0))
		AuthType=auth/munge
		AuthInfo=socket=$T/munge/munge.sock
		CredType=cred/munge
		SlurmUser=root
		SlurmdUser=root
		StateSaveLocation=$T/slurm/state
		SlurmdSpoolDir=$T/slurm/spool
		SlurmctldPidFile=$T/slurmctld.pid
		SlurmdPidFile=$T/slurmd.pid
		SlurmctldLogFile=$T/slurm/slurmctld.log
		SlurmdLogFile=$T/slurm/slurmd.log
		ProctrackType=proctrack/linuxproc
		TaskPlugin=task/none
		MpiDefault=none
		SchedulerType=sched/builtin
		SelectType=select/cons_tres
		SelectTypeParameters=CR_CPU
		JobAcctGatherType=jobacct_gather/none
		AccountingStorageType=accounting_storage/none
		ReturnToService=2
		NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
		PartitionName=test Nodes=$host Default=YES MaxTime=10 State=UP
	CONF
	export SLURM_CONF="$T/slurm/slurm.conf"
	slurmctld -i 3>&- || skip "slurmctld does not start: $(tail -3 "$T/slurm/slurmctld.log")"
	slurmd 3>&- || skip "slurmd does not start: $(tail -3 "$T/slurm/slurmd.log")"
	local i
	for i in $(seq 100); do
		sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed)' && return 0
		sleep 0.2
	done
	skip "the node did not come up: $(tail -3 "$T/slurm/slurmd.log")"
}

# wait_job ID: until it left the queue (at most 60 s)
wait_job() {
	local i
	for i in $(seq 300); do
		[ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0
		sleep 0.2
	done
	return 1
}

install_stubs() {
	local a s
	for s in v9 v8; do
		read -r a sha _ <"$STUBS/$s.arch"
		cudnnvm install --archive "$a" --sha256 "$sha" >/dev/null
	done
	V9=9.19.0.56-cuda13 V8=8.9.7.29-cuda12
}

@test "a batch job loads cudnn/<id> with Lmod and validates through srun" {
	[ -r /usr/share/lmod/lmod/init/bash ] || skip "lmod is not installed (apt-get install lmod)"
	slurm_start
	install_stubs
	cudnnvm modulefiles --format lua >/dev/null
	cat >"$T/job.sh" <<-JOB
		#!/bin/bash
		source /usr/share/lmod/lmod/init/bash
		module use "$CUDNNVM_STORE/modulefiles"
		module load cudnn/$V8
		srun cudnnvm validate --json
	JOB
	cd "$T"
	id=$(sbatch --parsable -o "$T/job.out" -e "$T/job.err" "$T/job.sh")
	wait_job "$id"
	cat "$T/job.out" "$T/job.err"
	python3 - "$T/job.out" "$V8" <<-'PY'
		import json, sys
		j = json.loads(open(sys.argv[1]).read())
		assert j["id"] == sys.argv[2], j
		steps = {s["name"]: s["status"] for s in j["steps"]}
		assert [steps[n] for n in ("files", "version", "provenance")] == ["pass"] * 3, j
	PY
}

@test "a job array runs two versions with cudnnvm exec" {
	slurm_start
	install_stubs
	cat >"$T/array.sh" <<-JOB
		#!/bin/bash
		versions=($V9 $V8)
		cudnnvm exec "\${versions[\$SLURM_ARRAY_TASK_ID]}" -- \
			sh -c 'echo "task \$SLURM_ARRAY_TASK_ID \$CUDNNVM_ACTIVE \${LD_LIBRARY_PATH%%:*}"'
	JOB
	cd "$T"
	id=$(sbatch --parsable --array=0-1 -o "$T/array-%a.out" -e "$T/array-%a.err" "$T/array.sh")
	wait_job "$id"
	cat "$T"/array-*
	[ "$(cat "$T/array-0.out")" = "task 0 $V9 $CUDNNVM_STORE/$V9/lib" ]
	[ "$(cat "$T/array-1.out")" = "task 1 $V8 $CUDNNVM_STORE/$V8/lib" ]
}
