#!/usr/bin/env bats
# global --system: /etc/ld.so.conf.d/cudnnvm.conf + ldconfig, tested for
# real as root inside a private mount namespace, so the machine's own
# loader configuration is never touched.
load helper

setup_file() {
	# one NVIDIA-shaped archive per stub: name version cuda
	stub_archives <<-EOF
		v9 9.19.0.56 13
		wrongver 9.14.0.60 13
		v8 8.9.7.29 12
	EOF
	# a cuDNN-named library that declares zlib's SONAME beside the stub:
	# ldconfig files a library under its SONAME, whatever its name
	mkdir -p "$STUBS/evil/lib"
	cp -a "$STUBS/v9/lib/." "$STUBS/evil/lib/"
	echo 'int cudnnvm_not_zlib;' >"$STUBS/evil.c"
	cc -shared -fPIC -Wl,-soname,libz.so.1 -o "$STUBS/evil/lib/libcudnn_evil.so.9" "$STUBS/evil.c"
	python3 "$FIXTURES/mkarchive.py" nvidia --out "$STUBS/arch-evil" \
		--version 9.20.0.1 --cuda 13 --libdir "$STUBS/evil/lib" --preset 0 |
		python3 -c 'import json,sys; j=json.load(sys.stdin)
print("%s %s %s" % (j["path"], j["sha256"], j["id"]))' >"$STUBS/evil.arch"
}

setup() { common_setup; }

# the probe: opens libcudnn.so.9 by name and says which file answered
PROBE='import ctypes
l = ctypes.CDLL("libcudnn.so.9")
p = [x.split()[-1] for x in open("/proc/self/maps") if "libcudnn.so.9" in x]
print("loaded", l.cudnnGetVersion(), p[0])'

@test "global --system: the loader answers libcudnn.so.9 from the store, --unset restores" {
	needs_namespace
	read -r v9 v9sha _ <"$STUBS/v9.arch"
	printf '%s\n' "$PROBE" >"$T/probe.py"
	in_namespace "
python3 '$T/probe.py' 2>&1 | sed 's/^/before: /'
cudnnvm install --no-validate --archive '$v9' --sha256 $v9sha >/dev/null
cudnnvm global --system --no-validate 9.19 || echo FAILED
cat /etc/ld.so.conf.d/cudnnvm.conf
python3 '$T/probe.py' | sed 's/^/during: /'
cudnnvm doctor | grep -i 'system mode'
cudnnvm global --system --unset || echo FAILED
[ -e /etc/ld.so.conf.d/cudnnvm.conf ] && echo STILL-THERE
readlink /mnt/store/current
python3 '$T/probe.py' 2>&1 | sed 's/^/after: /'"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output != *FAILED* && $output != *STILL-THERE* ]]
	[[ $output == *"/mnt/store/current/lib"* ]]
	[[ $output == *"during: loaded 91900 /mnt/store/"*"/lib/libcudnn.so.9"* ]]
	[[ $output == *"system mode is on"* ]]
	before=$(grep '^before: ' <<<"$output" | sed 's/^before: //')
	after=$(grep '^after: ' <<<"$output" | sed 's/^after: //')
	[ -n "$before" ]
	[ "$before" = "$after" ]
}

@test "doctor names a copy the loader cache picks before the store's" {
	needs_namespace
	read -r v9 v9sha _ <"$STUBS/v9.arch"
	printf '%s\n' "$PROBE" >"$T/probe.py"
	in_namespace "
mkdir -p /mnt/hand && cp -a '$STUBS/wrongver/lib/.' /mnt/hand/
echo /mnt/hand >/etc/ld.so.conf.d/00-hand.conf
cudnnvm install --no-validate --archive '$v9' --sha256 $v9sha >/dev/null
cudnnvm global --system --no-validate 9.19 || echo FAILED
python3 '$T/probe.py'
cudnnvm doctor"
	echo "$output"
	[[ $output != *FAILED* ]]
	if [[ $output == *"loaded 91400 /mnt/hand/"* ]]; then
		[[ $output == *"the loader picks /mnt/hand/libcudnn.so.9 for libcudnn.so.9 before the store's /mnt/store/current/lib"* ]]
	else
		# this glibc orders the cache the other way: no warning then
		[[ $output != *"the loader picks"* ]]
	fi
}

@test "global --system refuses a conf file it did not write, and a user-writable store" {
	needs_namespace
	read -r v9 v9sha _ <"$STUBS/v9.arch"
	in_namespace "
cudnnvm install --no-validate --archive '$v9' --sha256 $v9sha >/dev/null
echo /somewhere >/etc/ld.so.conf.d/cudnnvm.conf
cudnnvm global --system --no-validate 9.19; echo rc=\$?
cudnnvm global --system --unset; echo rc=\$?
cat /etc/ld.so.conf.d/cudnnvm.conf
rm /etc/ld.so.conf.d/cudnnvm.conf
chmod 0777 /mnt/store
cudnnvm global --system --no-validate 9.19; echo rc=\$?
[ -e /etc/ld.so.conf.d/cudnnvm.conf ] && echo WRITTEN"
	echo "$output"
	[[ $output == *"cudnnvm: '/etc/ld.so.conf.d/cudnnvm.conf' was not written by cudnnvm"*"rc=73"*"rc=73"*"/somewhere"* ]]
	# every command refuses such a store now, before system mode's own check
	[[ $output == *"cudnnvm: '/mnt/store' is writable by every user"*"rc=73"* ]]
	[[ $output != *WRITTEN* ]]
}

@test "global --system as a non-root user: exit 77 with the sudo line" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to switch to an unprivileged user"
	command -v setpriv >/dev/null || skip "setpriv is not installed (util-linux)"
	chmod 0755 "$T" "$BATS_TEST_TMPDIR" 2>/dev/null || true
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		env HOME=/nonexistent CUDNNVM_STORE="$T/nobody" "$CUDNNVM_BIN" global --system 9
	[ "$status" -eq 77 ]
	[ "${#stderr_lines[@]}" -eq 2 ]
	[[ ${stderr_lines[0]} == "cudnnvm: "*"needs root" ]]
	[ "${stderr_lines[1]}" = "hint: sudo cudnnvm global --system 9" ]
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		env HOME=/nonexistent CUDNNVM_STORE="$T/nobody" "$CUDNNVM_BIN" global --system --unset
	[ "$status" -eq 77 ]
	[[ $stderr == *"sudo cudnnvm global --system --unset"* ]]
}

@test "global --system refuses a version whose lib/ holds another library's SONAME; a plain global to it too" {
	needs_namespace
	read -r v9 v9sha _ <"$STUBS/v9.arch"
	read -r evil evilsha _ <"$STUBS/evil.arch"
	in_namespace "
cudnnvm install --no-validate --archive '$v9' --sha256 $v9sha >/dev/null
cudnnvm install --no-validate --archive '$evil' --sha256 $evilsha >/dev/null
cudnnvm global --system --no-validate 9.20; echo rc=\$?
[ -e /etc/ld.so.conf.d/cudnnvm.conf ] && echo WRITTEN
cudnnvm global --system --no-validate 9.19 || echo FAILED
cudnnvm global --no-validate 9.20; echo rc=\$?
readlink /mnt/store/current
ldconfig -p | grep -F 'libz.so.1 ' | head -1
python3 -c 'import zlib; print(\"zlib loads\")'"
	echo "$output"
	[[ $output == *"cudnnvm: '/mnt/store/9.20.0.1-cuda13/lib/libcudnn_evil.so"*"' is the library 'libz.so.1', not cuDNN"*"rc=73"* ]]
	[[ $output != *WRITTEN* && $output != *FAILED* ]]
	[ "$(grep -c 'rc=73' <<<"$output")" -eq 2 ]
	[[ $output == *$'\n'9.19.0.56-cuda13$'\n'* ]]
	[[ $output != *"libz.so.1 "*"/mnt/store"* ]]
	[[ $output == *"zlib loads"* ]]
}

@test "system mode: ldconfig makes no link in the store, and a plain global reloads the cache" {
	needs_namespace
	read -r v9 v9sha id9 <"$STUBS/v9.arch"
	read -r v8 v8sha _ <"$STUBS/v8.arch"
	in_namespace "
cudnnvm install --no-validate --archive '$v9' --sha256 $v9sha >/dev/null
cudnnvm install --no-validate --archive '$v8' --sha256 $v8sha >/dev/null
# a version missing its soname link: ldconfig would make one without -X
rm /mnt/store/$id9/lib/libcudnn.so.9
find /mnt/store -type l ! -path /mnt/store/current | sort >/mnt/links.before
cudnnvm global --system --no-validate 9.19 || echo FAILED
cudnnvm global --no-validate 8-cuda12 || echo FAILED
python3 -c 'import ctypes; print(\"loaded8\", ctypes.CDLL(\"libcudnn.so.8\").cudnnGetVersion())'
ldconfig -p | grep -F 'libcudnn.so.9 ' | grep -F /mnt/store || echo no-store-libcudnn9
cudnnvm global --system --unset || echo FAILED
find /mnt/store -type l ! -path /mnt/store/current | sort >/mnt/links.after
diff /mnt/links.before /mnt/links.after && echo SAME-LINKS"
	echo "$output"
	[[ $output != *FAILED* ]]
	[[ $output == *"loaded8 8907"* ]]
	[[ $output == *no-store-libcudnn9* ]]
	[[ $output == *SAME-LINKS* ]]
}
