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
# Every OS call of lib/ is base's: a wing above it that links against one
# of these symbols names it here, file and symbol, so that another platform
# is one more set of base's *_posix.c files and nothing else. The list is
# the OS's own face: files, folders, links, locks, processes, users,
# dynamic loading and the environment (glibc's __xstat family, what stat
# is in a release build's older glibc, included). Standard C stays
# allowed: stdio (fopen, snprintf), getenv, time; rename and remove are
# standard C too but mean other things on Windows, so they are listed.
# Threads (pthread_*) and clocks (clock_gettime, nanosleep) are not in
# the list yet.
os_syms='open open64 openat openat64 creat close read write pread pread64
pwrite pwrite64 lseek lseek64 ftruncate ftruncate64 truncate fsync fdatasync
sync_file_range stat stat64 lstat lstat64 fstat fstat64 fstatat fstatat64
__xstat __xstat64 __lxstat __lxstat64 __fxstat __fxstat64 __fxstatat
__fxstatat64 statx access faccessat euidaccess mkdir mkdirat rmdir unlink
unlinkat rename renameat renameat2 remove link linkat symlink symlinkat
readlink readlinkat chmod fchmod fchmodat chown fchown lchown fchownat umask
utime utimes utimensat futimens opendir fdopendir readdir readdir64
readdir_r closedir rewinddir seekdir telldir dirfd scandir scandir64 nftw
nftw64 ftw glob glob64 globfree globfree64 realpath getcwd chdir fchdir
mkstemp mkstemp64 mkostemp mkdtemp tmpnam tempnam flock fcntl fcntl64 lockf
dup dup2 dup3 pipe pipe2 fork vfork execl execlp execv execve execvp
execvpe fexecve posix_spawn posix_spawnp waitpid wait wait4 kill killpg
getpid getppid getuid geteuid getgid getegid getpwuid getpwuid_r getpwnam
getpwnam_r dlopen dlsym dlvsym dlclose dlerror dladdr dl_iterate_phdr
isatty ttyname poll select uname sysconf statfs statfs64 statvfs
statvfs64 fstatfs mmap mmap64 munmap syscall setenv unsetenv putenv
sched_getaffinity'
# Files not yet moved onto base's face, each with the OS symbols it may
# still use (one line: the file, then its symbols): a new one fails as in
# any other file, and so does one listed that the file no longer needs.
os_exempt=$(sed 's/#.*//' <<'EOF'
# none left: every file of lib/ outside base is on base's face
EOF
)
syms_file=$build/lint-layers.os
echo "$os_syms" | tr ' ' '\n' | sed '/^$/d' | sort -u >"$syms_file"
hits=$build/lint-layers.hits allowed=$build/lint-layers.allowed
for o in "$build"/lib/*/*.o; do
	n=${o#"$build"/lib/}; n=${n%.o}
	[ "${n%%/*}" = base ] && continue
	nm -P -u "$o" | awk '{ print $1 }' | sed 's/@.*//' | sort -u |
		comm -12 - "$syms_file" >"$hits"
	echo "$os_exempt" | awk -v f="$n" '$1 == f { for (i = 2; i <= NF; i++) print $i }' |
		sort -u >"$allowed"
	for s in $(comm -23 "$hits" "$allowed"); do
		echo "lib/$n.c calls $s: OS calls belong to base (lib/base/base.h, the cv_os_* and cv_dir_* calls)" >&2
		rc=1
	done
	for s in $(comm -13 "$hits" "$allowed"); do
		echo "lib/$n.c no longer calls $s: take it out of os_exempt in $0" >&2
		rc=1
	done
done
exit $rc
