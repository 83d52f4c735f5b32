#!/usr/bin/env bash
# opensearch.sh start [--nodes N] [--port P] [--transport-port T] [--fresh] | stop | status
#
# Runs a real OpenSearch 2.19.6 cluster on 127.0.0.1, assembled from Maven
# Central artifacts (server jar, netty4, analysis-common, lang-painless and
# k-NN as classpath plugins) and started by our own Launcher.java. Nothing is
# downloaded but Maven artifacts; every address is loopback.
#
#   start   resolve the jars (cached), compile the launcher (cached), start
#           N nodes (default 1) with HTTP ports P..P+N-1 (default 9200) and
#           transport ports T..T+N-1 (default P+100), wait for green and
#           print one URL per node (the first line is node 1's).
#   stop    end exactly the processes start started (pid files), wait for
#           them to exit and remove the pid files. Idempotent.
#   status  per node: running or not, then the cluster health. Exit 0 when
#           every node runs, 3 when none does, 2 when only some do.
#
# Environment:
#   BRAID_OPENSEARCH_HOME     state dir (pid files, node data, logs);
#                             default <repo>/.tools/opensearch
#   BRAID_OPENSEARCH_CACHE    jar and class cache, may be shared by several
#                             state dirs; default $BRAID_OPENSEARCH_HOME/cache
#   BRAID_OPENSEARCH_HEAP     heap per node (-Xms/-Xmx); default 512m
#   BRAID_OPENSEARCH_TIMEOUT  seconds start waits for green; default 300 (a
#                             busy machine may take minutes to start nodes)
#   BRAID_OPENSEARCH_JAVA_OPTS  extra JVM options for every node
#
# Progress and errors go to stderr; URLs (start) and the status report go
# to stdout. See docs/opensearch.md.
set -euo pipefail

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
repo_root=$(cd -- "$script_dir/.." && pwd -P)
src_dir=$script_dir/opensearch

work=${BRAID_OPENSEARCH_HOME:-$repo_root/.tools/opensearch}
cache=${BRAID_OPENSEARCH_CACHE:-$work/cache}
heap=${BRAID_OPENSEARCH_HEAP:-512m}
timeout=${BRAID_OPENSEARCH_TIMEOUT:-300}
run_dir=$work/run
nodes_dir=$work/nodes

die() {
	echo "opensearch.sh: $*" >&2
	exit 1
}

say() {
	echo "opensearch.sh: $*" >&2
}

usage() {
	cat >&2 <<-'EOF'
		usage: opensearch.sh start [--nodes N] [--port P] [--transport-port T] [--fresh]
		       opensearch.sh stop
		       opensearch.sh status
	EOF
	exit 1
}

need() {
	# need TOOL WHAT: fail in one line naming what to install.
	command -v "$1" >/dev/null 2>&1 || die "$1 not found: install $2 and put $1 on PATH"
}

# checksum FILE...: a short content key for cache directory names.
checksum() {
	cat "$@" | cksum | awk '{print $1 "-" $2}'
}

is_uint() {
	[[ $1 =~ ^[0-9]+$ ]]
}

# cmdline PID: the process's command line, empty when it is gone.
cmdline() {
	if [[ -r /proc/$1/cmdline ]]; then
		tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null || true
	else
		ps -o args= -p "$1" 2>/dev/null || true
	fi
}

# ours PID NODE_HOME: the PID is alive and still runs our launcher for that node.
ours() {
	local cl
	kill -0 "$1" 2>/dev/null || return 1
	cl=$(cmdline "$1")
	[[ $cl == *" Launcher "* && $cl == *"path.home=$2 "* ]]
}

# exec_pending PID: PID is alive and still the shell forked to start a
# node, before its exec of java: a check made right after the start can
# find it so on a busy machine, and must wait instead of calling the node
# dead. (A node that exited is gone, or a zombie, whose cmdline is empty.)
exec_pending() {
	local cl
	kill -0 "$1" 2>/dev/null || return 1
	cl=$(cmdline "$1")
	[[ -n ${cl// /} && $cl != *" Launcher "* ]]
}

# port_in_use PORT: something accepts connections on 127.0.0.1:PORT.
port_in_use() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

check_java() {
	need java "a JDK (11 or newer, e.g. openjdk-17-jdk)"
	local v major
	v=$(java -version 2>&1 | awk -F'"' '/version/ {print $2; exit}')
	major=${v%%.*}
	[[ $major == 1 ]] && major=$(echo "$v" | cut -d. -f2)
	if is_uint "$major" && ((major < 11)); then
		die "java $v is too old: OpenSearch 2.19 needs Java 11 or newer"
	fi
}

# install_dir TMP DEST: move a finished TMP into place unless another start
# (sharing the cache) got there first, in which case keep its copy.
install_dir() {
	if [[ -e $2 ]]; then
		rm -rf "$1"
	else
		mv "$1" "$2"
	fi
}

# resolve: set $jars to a complete jar directory for the current pom.xml,
# running Maven only when the cache lacks one.
resolve() {
	local key tmp
	key=$(checksum "$src_dir/pom.xml")
	jars=$cache/jars-$key
	[[ -d $jars/lib && -d $jars/knn ]] && return 0
	need mvn "Apache Maven (e.g. the maven package)"
	mkdir -p "$cache"
	tmp=$(mktemp -d "$cache/tmp.jars.XXXXXX")
	say "resolving OpenSearch jars from Maven into $jars (first start only)"
	local mvn_args=(-q -B -Dstyle.color=never -f "$src_dir/pom.xml" "-Dbraid.build.dir=$tmp/target")
	# Maven's output is shown only when it fails.
	if ! mvn "${mvn_args[@]}" dependency:copy-dependencies \
		-DincludeScope=runtime "-DoutputDirectory=$tmp/lib" >"$tmp/mvn.log" 2>&1 ||
		! mvn "${mvn_args[@]}" dependency:unpack "-DoutputDirectory=$tmp/knn" >>"$tmp/mvn.log" 2>&1; then
		tail -n 40 "$tmp/mvn.log" >&2
		rm -rf "$tmp"
		die "Maven could not resolve the OpenSearch artifacts (its output is above; MAVEN_OPTS and ~/.m2/settings.xml apply)"
	fi
	rm -f "$tmp/mvn.log"
	ls "$tmp"/knn/opensearch-knn-*.jar >/dev/null 2>&1 || {
		rm -rf "$tmp"
		die "the k-NN zip held no opensearch-knn jar"
	}
	rm -rf "$tmp/target"
	install_dir "$tmp" "$jars"
}

# compile: set $classes to the compiled launcher for the current sources.
compile() {
	local key tmp
	key=$(checksum "$src_dir/pom.xml" "$src_dir/Launcher.java")
	classes=$cache/classes-$key
	[[ -f $classes/Launcher.class ]] && return 0
	need javac "a JDK, not only a JRE (e.g. openjdk-17-jdk)"
	mkdir -p "$cache"
	tmp=$(mktemp -d "$cache/tmp.classes.XXXXXX")
	if ! javac -nowarn -d "$tmp" -cp "$jars/lib/*:$jars/knn/*" "$src_dir/Launcher.java" >&2; then
		rm -rf "$tmp"
		die "javac failed on $src_dir/Launcher.java"
	fi
	install_dir "$tmp" "$classes"
}

# pid_files: the pid files of the last start, in node order.
pid_files() {
	local f
	for f in "$run_dir"/node*.pid; do
		[[ -e $f ]] && echo "$f"
	done | sort
}

# node_home NAME: that node's path.home.
node_home() {
	echo "$nodes_dir/$1/home"
}

log_tail() {
	local name=$1 log=$nodes_dir/$1/logs/node.log
	[[ -f $log ]] || return 0
	echo "----- last 40 lines of $log -----" >&2
	tail -n 40 "$log" >&2
}

cmd_stop() {
	local f name pid pids=() names=()
	[[ -d $run_dir ]] || return 0
	while read -r f; do
		[[ -n $f ]] || continue
		name=$(basename "$f" .pid)
		pid=$(cat "$f" 2>/dev/null || true)
		if is_uint "$pid" && ours "$pid" "$(node_home "$name")"; then
			kill -TERM "$pid" 2>/dev/null || true
			pids+=("$pid")
			names+=("$name")
		else
			rm -f "$f"
		fi
	done < <(pid_files)
	local i deadline=$((SECONDS + 45)) left
	while :; do
		left=0
		for i in "${!pids[@]}"; do
			if ours "${pids[$i]}" "$(node_home "${names[$i]}")"; then
				left=1
			else
				rm -f "$run_dir/${names[$i]}.pid"
			fi
		done
		((left)) || break
		if ((SECONDS >= deadline)); then
			for i in "${!pids[@]}"; do
				if ours "${pids[$i]}" "$(node_home "${names[$i]}")"; then
					say "${names[$i]} (pid ${pids[$i]}) did not exit after SIGTERM; sending SIGKILL"
					kill -KILL "${pids[$i]}" 2>/dev/null || true
				fi
			done
			deadline=$((SECONDS + 10))
		fi
		sleep 0.3
	done
	((${#pids[@]} == 0)) || say "stopped ${names[*]}"
	rm -f "$run_dir/cluster"
}

# health PORT: one line of cluster health, empty when the node does not answer.
health() {
	curl -s -m 5 "http://127.0.0.1:$1/_cluster/health" 2>/dev/null || true
}

cmd_status() {
	need curl "curl"
	local f name pid port running=0 total=0 first_port=""
	if [[ ! -f $run_dir/cluster ]] && [[ -z $(pid_files) ]]; then
		echo "no cluster started from $work"
		return 3
	fi
	while read -r f; do
		[[ -n $f ]] || continue
		name=$(basename "$f" .pid)
		pid=$(cat "$f" 2>/dev/null || true)
		port=$(cat "$run_dir/$name.port" 2>/dev/null || echo "?")
		total=$((total + 1))
		if is_uint "$pid" && ours "$pid" "$(node_home "$name")"; then
			running=$((running + 1))
			[[ -n $first_port ]] || first_port=$port
			echo "$name running pid $pid http://127.0.0.1:$port"
		else
			echo "$name not running (pid file says ${pid:-nothing})"
		fi
	done < <(pid_files)
	if [[ -n $first_port ]]; then
		local h
		h=$(health "$first_port")
		echo "health ${h:-no answer from http://127.0.0.1:$first_port}"
	fi
	((total > 0 && running == total)) && return 0
	((running == 0)) && return 3
	return 2
}

cmd_start() {
	local nodes=1 port=9200 tport="" fresh=0
	while (($#)); do
		case $1 in
		--nodes) [[ $# -ge 2 ]] || usage; nodes=$2; shift 2 ;;
		--nodes=*) nodes=${1#*=}; shift ;;
		--port) [[ $# -ge 2 ]] || usage; port=$2; shift 2 ;;
		--port=*) port=${1#*=}; shift ;;
		--transport-port) [[ $# -ge 2 ]] || usage; tport=$2; shift 2 ;;
		--transport-port=*) tport=${1#*=}; shift ;;
		--fresh) fresh=1; shift ;;
		*) usage ;;
		esac
	done
	[[ -n $tport ]] || tport=$((port + 100))
	if ! is_uint "$nodes" || ((nodes < 1 || nodes > 9)); then
		die "--nodes must be 1..9, not $nodes"
	fi
	if ! is_uint "$port" || ((port < 1 || port + nodes > 65536)); then
		die "bad --port $port"
	fi
	if ! is_uint "$tport" || ((tport < 1 || tport + nodes > 65536)); then
		die "bad --transport-port $tport"
	fi

	check_java
	need curl "curl"

	# Refuse to start over a cluster this state dir already runs.
	local f name pid
	while read -r f; do
		[[ -n $f ]] || continue
		name=$(basename "$f" .pid)
		pid=$(cat "$f" 2>/dev/null || true)
		if is_uint "$pid" && ours "$pid" "$(node_home "$name")"; then
			die "$name is already running (pid $pid) from $work: run '$0 stop' first"
		fi
		rm -f "$f"
	done < <(pid_files)

	local i p
	for ((i = 0; i < nodes; i++)); do
		p=$((port + i))
		port_in_use "$p" && die "HTTP port $p on 127.0.0.1 is already in use (pick another with --port)"
		p=$((tport + i))
		port_in_use "$p" && die "transport port $p on 127.0.0.1 is already in use (pick another with --transport-port)"
	done

	# Parallel starts sharing one cache resolve and compile once.
	mkdir -p "$cache"
	if command -v flock >/dev/null 2>&1; then
		exec 9>"$cache/.lock"
		flock 9
	fi
	resolve
	compile
	exec 9>&- # the nodes must not inherit the lock

	mkdir -p "$run_dir" "$nodes_dir"
	# Data is kept across stop/start of the same shape; a new node count
	# (or --fresh) starts from empty data dirs, since a cluster formed by
	# other nodes would not re-form.
	local shape="nodes=$nodes"
	if ((fresh)) || [[ "$(cat "$work/shape" 2>/dev/null || true)" != "$shape" ]]; then
		rm -rf "$nodes_dir"
		mkdir -p "$nodes_dir"
	fi
	echo "$shape" >"$work/shape"

	local seeds="" masters=""
	for ((i = 1; i <= nodes; i++)); do
		seeds+="${seeds:+,}127.0.0.1:$((tport + i - 1))"
		masters+="${masters:+,}node$i"
	done
	local cluster_name="braid-opensearch-$port"
	printf 'nodes=%s port=%s transport_port=%s cluster=%s\n' "$nodes" "$port" "$tport" "$cluster_name" >"$run_dir/cluster"

	local cp="$classes:$jars/lib/*:$jars/knn/*"
	local -a jvm=(-Xms"$heap" -Xmx"$heap" -XX:+ExitOnOutOfMemoryError
		-Djava.awt.headless=true -Dfile.encoding=UTF-8
		-Dlog4j.shutdownHookEnabled=false -Dlog4j2.formatMsgNoLookups=true)
	if [[ -n ${BRAID_OPENSEARCH_JAVA_OPTS:-} ]]; then
		# shellcheck disable=SC2206 # word splitting is the point
		jvm+=($BRAID_OPENSEARCH_JAVA_OPTS)
	fi

	local started=()
	for ((i = 1; i <= nodes; i++)); do
		name=node$i
		local home data logs
		home=$(node_home "$name")
		data=$nodes_dir/$name/data
		logs=$nodes_dir/$name/logs
		mkdir -p "$home/config" "$data" "$logs"
		local -a settings=(
			"path.home=$home" "path.data=$data" "path.logs=$logs"
			"cluster.name=$cluster_name" "node.name=$name"
			"network.host=127.0.0.1"
			"http.port=$((port + i - 1))" "transport.port=$((tport + i - 1))"
			"cluster.routing.allocation.disk.threshold_enabled=false"
			"logger.level=INFO"
		)
		if ((nodes == 1)); then
			settings+=("discovery.type=single-node")
		else
			settings+=("discovery.seed_hosts=$seeds" "cluster.initial_cluster_manager_nodes=$masters")
		fi
		java "${jvm[@]}" -cp "$cp" Launcher "${settings[@]}" \
			</dev/null >"$logs/node.log" 2>&1 &
		pid=$!
		echo "$pid" >"$run_dir/$name.pid"
		echo "$((port + i - 1))" >"$run_dir/$name.port"
		started+=("$name")
		say "started $name (pid $pid) http://127.0.0.1:$((port + i - 1)) transport 127.0.0.1:$((tport + i - 1)), log $logs/node.log"
	done

	local deadline=$((SECONDS + timeout)) h failed=""
	while :; do
		for name in "${started[@]}"; do
			pid=$(cat "$run_dir/$name.pid")
			if ! ours "$pid" "$(node_home "$name")" && ! exec_pending "$pid"; then
				failed="$name (pid $pid) exited during start"
				break 2
			fi
		done
		h=$(curl -s -m 10 "http://127.0.0.1:$port/_cluster/health?wait_for_status=green&wait_for_nodes=$nodes&timeout=5s" 2>/dev/null || true)
		if [[ $h == *'"status":"green"'* && $h == *'"timed_out":false'* ]]; then
			break
		fi
		if ((SECONDS >= deadline)); then
			failed="cluster not green within ${timeout}s (last health: ${h:-no answer})"
			break
		fi
		sleep 1
	done
	if [[ -n $failed ]]; then
		say "$failed"
		for name in "${started[@]}"; do
			log_tail "$name"
		done
		cmd_stop
		exit 1
	fi
	say "cluster $cluster_name green with $nodes node(s) after ${SECONDS}s"
	for ((i = 0; i < nodes; i++)); do
		echo "http://127.0.0.1:$((port + i))"
	done
}

(($# >= 1)) || usage
cmd=$1
shift
case $cmd in
start) cmd_start "$@" ;;
stop) (($# == 0)) || usage; cmd_stop ;;
status) (($# == 0)) || usage; cmd_status ;;
*) usage ;;
esac
