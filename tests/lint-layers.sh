#!/bin/sh
# make lint-layers: the wings of lib/ in one direction.
#   $1: the wings, lowest first; $2: a build folder holding their objects.
# A file of lib/<w>/ includes only its own wing's headers (<w>/<w>.h and
# the private <w>/*_int.h) and the faces
# (<v>/<v>.h) of the wings before it; cmd/ includes only faces, and the
# install wing's face only in the files of the commands the helper runs
# (HELPER_CMD in cmd/table.c); base/glibc_compat.h, which binds older
# glibc symbol versions in a release build, goes after <glob.h> in any
# wing. From the objects: no call into a later
# wing, and no cycle of calls between the files of lib/ (tsort).
set -u
wings=$1 build=$2 rc=0
rank() { i=0; for w in $wings; do [ "$w" = "$1" ] && echo $i && return; i=$((i + 1)); done; echo 99; }
for f in lib/*/*.[ch]; do
	w=${f#lib/}; w=${w%%/*}; r=$(rank "$w")
	for inc in $(sed -n 's/^#include "\(.*\)"/\1/p' "$f"); do
		case $inc in
		"$w/$w.h" | "$w/"*_int.h) continue ;;
		# symbol versions for the release build, after <glob.h>
		base/glibc_compat.h) continue ;;
		*/*.h) v=${inc%%/*} ;;
		*) v= ;;
		esac
		if [ -z "$v" ] || [ "$inc" != "$v/$v.h" ] || [ "$(rank "$v")" -ge "$r" ]; then
			echo "$f: includes \"$inc\": a $w file may include only $w's headers and the faces of the wings before it" >&2
			rc=1
		fi
	done
done
for f in cmd/*.[ch]; do
	for inc in $(sed -n 's/^#include "\(.*\)"/\1/p' "$f"); do
		case $inc in
		cmd.h | ui.h) ;;
		install/install.h)
			n=${f#cmd/}; n=${n%.c}
			grep -q "HELPER_CMD(cmd_$n)" cmd/table.c || {
				echo "$f: includes the install wing, but cmd_$n is not a helper command" >&2
				rc=1
			} ;;
		*/*_int.h | *[!a-z]*/*) echo "$f: includes \"$inc\": cmd/ includes only the wings' faces" >&2; rc=1 ;;
		*/*.h) [ "$inc" = "${inc%%/*}/${inc%%/*}.h" ] || { echo "$f: includes \"$inc\"" >&2; rc=1; } ;;
		*) echo "$f: includes \"$inc\": cmd/ includes only the wings' faces" >&2; rc=1 ;;
		esac
	done
done
# calls between files: "caller callee" for each symbol one file defines
# and another uses
edges=$(for o in "$build"/lib/*/*.o; do
	nm -P --defined-only "$o" | awk -v f="$o" '$2 ~ /^[TDBRC]$/ { print "D", $1, f }'
	nm -P -u "$o" | awk -v f="$o" '{ print "U", $1, f }'
done | awk '$1 == "D" { def[$2] = $3; next } { use[$3 " " $2] = 1 }
	END { for (k in use) { split(k, a, " "); if ((a[2] in def) && def[a[2]] != a[1]) print a[1], def[a[2]] } }' |
	sed "s|$build/lib/||g; s|\.o||g" | sort -u)
for e in $(echo "$edges" | tr ' ' ':'); do
	from=${e%%:*} to=${e#*:}
	if [ "$(rank "${to%%/*}")" -gt "$(rank "${from%%/*}")" ]; then
		echo "lib/$from.c calls into lib/$to.c, a later wing" >&2
		rc=1
	fi
done
echo "$edges" | tsort >/dev/null 2>"$build/lint-layers.tsort" || {
	echo "lib/ has a cycle of calls between files:" >&2
	sed 's/^tsort: //' "$build/lint-layers.tsort" >&2
	rc=1
}
exit $rc
