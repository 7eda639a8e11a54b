# SPDX-License-Identifier: GPL-2.0
# bash completion for scalioctl(8); installed as
# /usr/share/bash-completion/completions/scalioctl.
#
# Commands and options come from scalioctl's own help (`scalioctl help`,
# `scalioctl CMD --help`), so they never drift from the binary; store
# names from the target's configfs or the host's /dev/scalio.

_scalioctl_stores()
{
	local d
	for d in /sys/kernel/config/scalio/stores/* /dev/scalio/*; do
		[ -e "$d" ] && printf '%s\n' "${d##*/}"
	done | sort -u
}

_scalioctl()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local ctl=${COMP_WORDS[0]} cmd i

	if [ "$COMP_CWORD" -eq 1 ]; then
		mapfile -t COMPREPLY < <(compgen -W "$("$ctl" help 2>/dev/null |
			awk '/^Commands:/ { c = 1; next } c && /^  [a-z]/ { print $1 } c && /^$/ { c = 0 }')
			help --help --version" -- "$cur")
		return
	fi
	cmd=${COMP_WORDS[1]}
	case $prev in
	-o|--output)
		mapfile -t COMPREPLY < <(compgen -W "$("$ctl" "$cmd" --help 2>/dev/null |
			sed -n 's/.*\[-o \([a-z|]*\)\].*/\1/p; s/.*-o \([a-z|]*\) .*/\1/p' |
			tr '|' '\n' | sort -u)" -- "$cur")
		return
		;;
	--store)
		mapfile -t COMPREPLY < <(compgen -W "$(_scalioctl_stores)" -- "$cur")
		return
		;;
	--key-file|--hosts-file)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return
		;;
	--textfile)
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
		return
		;;
	--addr|--port|--nvme-port|--nblocks|--slots|--batch-max|\
	--batch-timeout-us|--offload-read|--inline-cache|--lease-ms|\
	--seg-cache-mb|--kato-ms|--timeout-ms|--fast-io-fail-ms|--hostnqn|\
	--hostid|--allow-host)
		return	# a value of the user's
		;;
	esac
	if [ "${cur#-}" != "$cur" ]; then
		mapfile -t COMPREPLY < <(compgen -W "$("$ctl" "$cmd" --help 2>/dev/null |
			grep -oE -- '(^|[ [])--?[a-zA-Z][a-z0-9-]*' | tr -d ' [' | sort -u)" -- "$cur")
		return
	fi
	case $cmd in
	help)
		[ "$COMP_CWORD" -eq 2 ] && mapfile -t COMPREPLY < <(compgen -W "$("$ctl" help 2>/dev/null |
			awk '/^Commands:/ { c = 1; next } c && /^  [a-z]/ { print $1 } c && /^$/ { c = 0 }')" -- "$cur")
		;;
	save|restore)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		;;
	export|import)
		# NAME, then FILE (import --check: FILE only).
		local words=0
		for ((i = 2; i < COMP_CWORD; i++)); do
			case ${COMP_WORDS[i]} in
			--check) words=$((words + 1)) ;;
			-*) ;;
			*) words=$((words + 1)) ;;
			esac
		done
		if [ "$words" -eq 0 ]; then
			mapfile -t COMPREPLY < <(compgen -W "$(_scalioctl_stores)" -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		fi
		;;
	target-setup)
		mapfile -t COMPREPLY < <(compgen -W "$(ls -d /dev/nvme*n* /dev/disk/by-id/* 2>/dev/null)" -- "$cur")
		;;
	attach|detach|put|get|del|stats|allow-host|deny-host)
		# The store is the first word that is no option or its value.
		for ((i = 2; i < COMP_CWORD; i++)); do
			case ${COMP_WORDS[i]} in
			-o|--output|--textfile|--addr|--port|--nvme-port|--timeout-ms|\
			--fast-io-fail-ms|--hostnqn|--hostid|--key-file) i=$((i + 1)) ;;
			-*) ;;
			*) return ;;
			esac
		done
		mapfile -t COMPREPLY < <(compgen -W "$(_scalioctl_stores)" -- "$cur")
		;;
	esac
}

complete -F _scalioctl scalioctl
