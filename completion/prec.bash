# SPDX-License-Identifier: MIT
# bash completion for prec: subcommands, each subcommand's options (the lists
# below, checked against `prec CMD --help` by tests/e2e/completion.sh), event
# names for -e, directories for -d, recordings for merge/info/dump/archive.
# Installed as /usr/share/bash-completion/completions/prec; by hand:
#   . completion/prec.bash
# bash only (mapfile, compopt): zsh's bashcompinit lacks them.
# shellcheck shell=bash

_prec_commands="record merge info dump mark archive version help"

# Every option of each subcommand, as its --help prints them (not record's
# --no-NAME negations, which its --help gives as one rule).
_prec_opts_record="-d --dir -o --output --keep-shards --timestamp-filename
	-e --event --pfm-events --filter --exclude-perf --group -F --freq -c --count
	-P --period -g --call-graph --kernel-callchains --user-callchains
	-b --branch-any -j --branch-filter -I --intr-regs --user-regs -W --weight
	--transaction --phys-data --data-page-size --code-page-size -R --raw-samples
	-n --no-samples --no-buffering --running-time -s --stat --strict-freq
	-T --timestamp --sample-cpu --sample-identifier --timestamp-boundary --buildid-all
	-a --all-cpus -C --cpu -G --cgroup
	--all-cgroups --data -p --pid -u --uid -t --tid
	-i --no-inherit --off-cpu --switch-events --namespaces --synth --dry-run
	--aio --threads --mmap-flush --num-thread-synthesize --per-thread --vmlinux
	--debuginfod --clang-path --clang-opt -B --no-buildid
	-N --no-buildid-cache --buildid-mmap --no-bpf-event --all-user --all-kernel
	--max-size --max-disk -m --mmap-pages -k --clockid --round-ms -f --force --copy
	--no-copy --no-direct-io --max-staging -r --realtime --affinity --compress
	-z --compression-level --user --aux-size --markers --overwrite --control
	--switch-output --switch-output-event --tail-synthesize --proc-map-timeout
	-S --snapshot --aux-sample --kcore --switch-max-files
	-D --delay -v --verbose -q --quiet -h --help"
_prec_opts_merge="-o --output --time -C --cpu --salvage -f --force -z
	--compression-level --no-compression-level --follow -q --quiet -h --help"
_prec_opts_info="--json --check --timeline -f --force -h --help"
_prec_opts_dump="-t --time -C --cpu --salvage -f --force -h --help"
_prec_opts_mark="-d --dir -h --help"
_prec_opts_archive="-o --output -f --force -a --all --max-size -h --help"

# The options that take a value (the next word, or --opt=value). Those
# whose value is optional (-z, -I, --user-regs, --aio, --threads,
# --debuginfod, --switch-output, -S, --aux-sample) take it only attached, so
# are not here.
_prec_args_record="-d --dir -o --output -e --event --pfm-events --filter -F --freq -c --count
	--call-graph -j --branch-filter -C --cpu -G --cgroup -p --pid -u --uid -t --tid
	--synth --mmap-flush --num-thread-synthesize --vmlinux --clang-path --clang-opt
	--max-size --max-disk --max-staging -m --mmap-pages
	-k --clockid --round-ms -r --realtime --affinity
	--user --aux-size --control --switch-output-event --proc-map-timeout
	--switch-max-files -D --delay"
_prec_args_merge="-o --output --time -C --cpu --compression-level"
_prec_args_info=""
_prec_args_dump="-t --time -C --cpu"
_prec_args_mark="-d --dir"
_prec_args_archive="-o --output --max-size"

# The events -e names without a source to read (src/record/event_parse.c).
_prec_named_events="cpu-clock task-clock page-faults faults context-switches cs
	cpu-migrations migrations minor-faults major-faults alignment-faults
	emulation-faults dummy cycles cpu-cycles instructions cache-references
	cache-misses branches branch-instructions branch-misses bus-cycles
	stalled-cycles-frontend stalled-cycles-backend ref-cycles
	duration_time user_time system_time"

# _prec_has WORD LIST: WORD is one of LIST's words.
_prec_has()
{
	local w
	for w in $2; do [ "$w" = "$1" ] && return 0; done
	return 1
}

# The tracefs events directory, if this user can read it.
_prec_tracefs_events()
{
	local d
	for d in /sys/kernel/tracing/events /sys/kernel/debug/tracing/events; do
		if [ -r "$d" ] && [ -x "$d" ] && [ -e "$d/enable" ]; then
			echo "$d"
			return
		fi
	done
}

# Candidates for one event (the last item of a comma list): named events and
# "sys:" for each tracepoint system, or with "sys:" typed, that system's
# tracepoints, read from tracefs only when asked for.
_prec_events()
{
	local cur=$1 ev sys d
	ev=$(_prec_tracefs_events)
	if [[ $cur == *:* ]]; then
		sys=${cur%%:*}
		[ -n "$ev" ] && [ -d "$ev/$sys" ] || return
		for d in "$ev/$sys"/*/; do
			d=${d%/}
			echo "$sys:${d##*/}"
		done
		return
	fi
	# shellcheck disable=SC2086 # a word list
	printf '%s\n' $_prec_named_events
	if [ -n "$ev" ]; then
		for d in "$ev"/*/; do
			d=${d%/}
			echo "${d##*/}:"
		done
	fi
}

# Recordings: directories holding a manifest. With none matching, plain
# directories ending in '/' so that one can walk down to a recording.
_prec_recordings()
{
	local cur=$1 d found=0
	while IFS= read -r d; do
		[ -f "$d/manifest" ] || continue
		echo "$d"
		found=1
	done < <(compgen -d -- "$cur")
	[ "$found" = 1 ] && return
	compgen -d -- "$cur" | while IFS= read -r d; do echo "$d/"; done
}

# A value for option $2 of command $1, the value typed so far being $3.
_prec_values()
{
	local cmd=$1 opt=$2 cur=$3
	case "$cmd:$opt" in
	record:-d | record:--dir)
		compgen -d -- "$cur" ;;
	record:-o | record:--output | record:--vmlinux | record:--clang-path)
		compgen -f -- "$cur" ;;
	mark:-d | mark:--dir)
		_prec_recordings "$cur" ;;
	merge:-o | merge:--output | archive:-o | archive:--output)
		compgen -f -- "$cur" ;;
	record:-e | record:--event | record:--switch-output-event)
		local head=""
		if [[ $cur == *,* ]]; then head=${cur%,*},; cur=${cur##*,}; fi
		_prec_events "$cur" | while IFS= read -r e; do
			[[ $e == "$cur"* ]] && echo "$head$e"
		done ;;
	record:--call-graph) compgen -W "fp dwarf dwarf, lbr" -- "$cur" ;;
	record:-j | record:--branch-filter | record:--synth)
		local head="" w
		if [[ $cur == *,* ]]; then head=${cur%,*},; cur=${cur##*,}; fi
		w="no all task mmap cgroup"
		[ "$opt" = --synth ] || w="any any_call any_ret ind_call ind_jmp call cond
			abort_tx in_tx no_tx save_type stack priv u k hv"
		compgen -W "$w" -- "$cur" | while IFS= read -r e; do echo "$head$e"; done ;;
	record:-k | record:--clockid)
		compgen -W "monotonic monotonic_raw realtime boottime tai perf" -- "$cur" ;;
	record:--affinity) compgen -W "auto cpu node others package none" -- "$cur" ;;
	record:-F | record:--freq) compgen -W "max" -- "$cur" ;;
	record:--control) compgen -W "fifo: fd:" -- "$cur" ;;
	record:--user | record:-u | record:--uid) compgen -u -- "$cur" ;;
	record:-p | record:--pid | record:-t | record:--tid)
		compgen -W "$(cd /proc && echo [0-9]*)" -- "$cur" ;;
	esac
}

_prec()
{
	local line=${COMP_LINE:0:COMP_POINT} word cur prev before cmd i opts args
	local vhead="" out=() c brk=""
	COMPREPLY=()
	# Words by whitespace only: ':' and '=' break COMP_WORDS apart, and an
	# event (sched:sched_switch) or --opt=value is one word here.
	word=${line##*[[:space:]]}
	before=${line%"$word"}
	before=${before%"${before##*[![:space:]]}"}
	prev=${before##*[[:space:]]}
	cur=$word
	cmd=${COMP_WORDS[1]:-}

	if [ "$COMP_CWORD" -le 1 ] || [ "$before" = "${before%%[[:space:]]*}" ]; then
		if [[ $cur == -* ]]; then
			mapfile -t out < <(compgen -W "--help --version" -- "$cur")
		else
			mapfile -t out < <(compgen -W "$_prec_commands" -- "$cur")
		fi
		COMPREPLY=("${out[@]}")
		return
	fi

	case "$cmd" in
	record | merge | info | dump | mark | archive) ;;
	*) return ;;
	esac
	opts=_prec_opts_$cmd args=_prec_args_$cmd
	opts=${!opts} args=${!args}

	# After record's "--": the workload's command line.
	if [ "$cmd" = record ]; then
		for ((i = 2; i < COMP_CWORD; i++)); do
			[ "${COMP_WORDS[i]}" = -- ] || continue
			if declare -F _command_offset >/dev/null; then
				_command_offset $((i + 1))
			elif [ $((i + 1)) = "$COMP_CWORD" ]; then
				mapfile -t COMPREPLY < <(compgen -c -- "$cur")
			else
				mapfile -t COMPREPLY < <(compgen -f -- "$cur")
			fi
			return
		done
	fi

	if [[ $cur == --*=* ]]; then
		prev=${cur%%=*}
		vhead=$prev=
		cur=${cur#*=}
		_prec_has "$prev" "$args" || return
	fi
	if [ -n "$vhead" ] || _prec_has "$prev" "$args"; then
		mapfile -t out < <(_prec_values "$cmd" "$prev" "$cur")
	elif [[ $cur == -* ]]; then
		mapfile -t out < <(compgen -W "$opts" -- "$cur")
	else
		case "$cmd" in
		merge | info | dump | archive) mapfile -t out < <(_prec_recordings "$cur") ;;
		esac
	fi

	# Readline replaces only the text after the word's last ':' or '='
	# (when COMP_WORDBREAKS has them): give it just that part.
	[[ $COMP_WORDBREAKS == *:* ]] && brk+=:
	[[ $COMP_WORDBREAKS == *=* ]] && brk+='='
	word=$vhead$cur
	if [ -n "$brk" ] && [[ $word == *["$brk"]* ]]; then
		brk=${word%"${word##*["$brk"]}"}
	else
		brk=""
	fi
	for c in "${out[@]}"; do
		c=$vhead$c
		COMPREPLY+=("${c#"$brk"}")
		# A partial item (sys:, fifo:, a directory to walk, a list) goes on
		# without a space.
		case "$c" in
		*: | */ | *,) compopt -o nospace 2>/dev/null ;;
		esac
	done
	case "$cmd:$prev" in
	record:-d | record:--dir | record:-o | record:--output | record:--vmlinux | \
	record:--clang-path | merge:-o | merge:--output | archive:-o | archive:--output)
		compopt -o filenames 2>/dev/null ;;
	esac
	return 0
}
complete -F _prec prec
