# SPDX-License-Identifier: GPL-2.0
#
# pickstates.awk: which entries of a dm-log-writes log the crash-point
# test (tests/vm/suite/21-crashpoints.sh) replays to and checks.
#
#   awk -v n=STATES -v ls=LOG_START -f pickstates.awk MARKS ENTRIES
#
# MARKS: the test's marks file (a mark's name first on each line; marks
# it does not name, such as the one dm-log-writes adds at its end, are
# not used).  ENTRIES: `lwlog list` of the log.  LOG_START: the store's
# first log unit (units 2 .. LOG_START - 1 are the checkpoint slots).
#
# A state is a flush or FUA entry with data (a power cut right after it;
# dm splits a preflush write into an empty flush, then the write); in order
# of priority, and always every state of the first class:
#   at-MARK   the last entry before each mark: every operation acknowledged
#             before that mark is in it (nothing was written between)
#   last      the last flush/FUA entry of the log
#   pre-ckpt  the entry just before each checkpoint write (each cleaner
#   ckpt      pass ends with one), and that write's last entry
#   in-ckpt   the entries inside a checkpoint write (it was torn)
#   spread    evenly spread over the rest
# The second and third classes are thinned evenly (pre-ckpt and ckpt in
# pairs) when they do not fit in n, the spread ones fill up to n.
#
# Prints "ENTRY ACKMARK BOUNDMARK KIND" in log order ("-": no mark):
# ACKMARK is the latest mark whose acknowledged operations are all in the
# state (the last mark before the entry, or the next one when nothing was
# written between), BOUNDMARK the mark after the first mark after the
# entry (no write of an operation attempted after it can be in the
# state; "-": every operation counts).  Counts go to stderr.

FNR == NR { known[$1] = 1; next }
FNR == 1 { next }
$4 ~ /M/ {
	if (!known[$5])
		next
	mk[++nm] = $5
	mi[nm] = $1
	lastw_mark[nm] = lastw
	next
}
# An empty flush changes nothing: the state after it is the one before.
$3 == 0 { next }
{ lastw = $1 }
$4 ~ /[FU]/ {
	c[++nc] = $1
	# A checkpoint slot: 512-byte sectors 16 .. LOG_START * 8.
	if ($2 < ls * 8 && $2 + $3 > 16) {
		if (!inck) {
			ng++
			gpre[ng] = nc > 1 ? c[nc - 1] : 0
			gfirst[ng] = nc
		}
		glast[ng] = nc
		inck = 1
	} else {
		inck = 0
	}
}

function pick(e, k) {
	if (e && !(e in kind)) {
		kind[e] = k
		npicked++
	}
}

END {
	for (j = 1; j <= nm; j++)
		if (lastw_mark[j] != "")
			pick(lastw_mark[j], "at-" mk[j])
	if (nc)
		pick(c[nc], "last")
	# Checkpoints: all pairs when they fit, else evenly spread ones.
	room = int((n - npicked) / 2)
	take = ng <= room ? ng : room
	for (j = 0; j < take; j++) {
		g = 1 + int(j * ng / take)
		pick(gpre[g], "pre-ckpt")
		pick(c[glast[g]], "ckpt")
	}
	if (take == ng)
		for (g = 1; g <= ng && npicked < n; g++)
			for (j = gfirst[g]; j < glast[g] && npicked < n; j++)
				pick(c[j], "in-ckpt")
	room = n - npicked
	if (room >= nc - npicked) {
		for (j = 1; j <= nc; j++)
			pick(c[j], "spread")
	} else {
		for (j = 0; j < room; j++)
			pick(c[1 + int(j * nc / room)], "spread")
	}
	printf "# %d flush/FUA entries, %d marks, %d checkpoint writes (%d taken), %d states\n",
		nc, nm, ng, take, npicked > "/dev/stderr"
	m = 1
	for (j = 1; j <= nc; j++) {
		e = c[j]
		if (!(e in kind))
			continue
		while (m <= nm && mi[m] < e)
			m++
		# mk[m - 1]: the last mark before e; mk[m]: the first after.
		a = m > 1 ? mk[m - 1] : "-"
		if (m <= nm && lastw_mark[m] == e)
			a = mk[m]
		b = m + 1 <= nm ? mk[m + 1] : "-"
		print e, a, b, kind[e]
	}
}
