#!/usr/bin/env bats
# The release files of `make dist` (pkg/dist.sh): run by `make check-dist`,
# which builds them twice from this commit into $CUDNNVM_DIST and
# $CUDNNVM_DIST2. Each way in that README's "Install" gives (the .deb, the
# wheel in every layout a Python installer makes, the binary archive, the
# .rpm) installs from the test mirror, activates and validates; the wheel,
# the binary archive and the .rpm do so in the Debian 11 root they were
# built in (glibc 2.31, older than this machine's), and no ELF file in them
# needs a glibc newer than 2.28 (doc/reliability.md R1-R4). The files are
# byte-identical between the two builds, SHA256SUMS covers them and
# verifies with minisign as the README says, the SBOM names every library.
load ../e2e/remote

# the floor the wheel, the binary archive and the .rpm keep to
FLOOR=2.28

setup_file() {
	[ -s "${CUDNNVM_DIST:-}/SHA256SUMS" ] || {
		echo "CUDNNVM_DIST names no release files; run: make check-dist" >&2
		return 1
	}
	mirror_start
	export STUBS="$BATS_FILE_TMPDIR/stubs"
	"$FIXTURES/build_stubs.sh" "$STUBS" >/dev/null
	python3 "$FIXTURES/mkarchive.py" nvidia --out "$STUBS/arch" \
		--version 9.19.0.56 --cuda 13 --libdir "$STUBS/v9/lib" --preset 0 >"$STUBS/v9.json"
	D=$CUDNNVM_DIST
	V=$(sed -n 's/^#define CV_VERSION_STRING "\(.*\)"$/\1/p' "$REPO_ROOT/lib/base/base.h")
	WHL=$(ls "$D"/cudnnvm-"$V"-py3-none-manylinux_*.whl)
	DEB=$(ls "$D"/cudnnvm_"$V"-1_*.deb)
	RPM=$(ls "$D"/cudnnvm-"$V"-1.*.rpm)
	OLDROOT=${OLDROOT:-$("$REPO_ROOT/pkg/oldroot.sh")}
	export D V WHL DEB RPM OLDROOT
	# the stub cuDNN again, built in the Debian 11 root: this machine's
	# needs its newer glibc
	export STUBS_OLD="$BATS_FILE_TMPDIR/stubs-old"
	in_old_root "$FIXTURES/build_stubs.sh" "$STUBS_OLD" >/dev/null
	python3 "$FIXTURES/mkarchive.py" nvidia --out "$STUBS_OLD/arch" \
		--version 9.19.0.56 --cuda 13 --libdir "$STUBS_OLD/v9/lib" --preset 0 >"$STUBS_OLD/v9.json"
}

# old_root_setup: the stubs built in the root, for a test run there
old_root_setup() {
	export STUBS=$STUBS_OLD CUDNNVM_TEST_CUDA_LIBDIRS=$STUBS_OLD/cuda-nodev
}

# in_old_root CMD...: CMD in the Debian 11 build root (pkg/oldroot.sh),
# with this environment and this run's temporary files at their own paths
in_old_root() {
	"$REPO_ROOT/pkg/oldroot.sh" run --bind "$BATS_RUN_TMPDIR" --bind "$REPO_ROOT" \
		${CUDNNVM_DIST_BUILD:+--bind "$CUDNNVM_DIST_BUILD"} "$@"
}

# glibc_floor DIR: the highest GLIBC_2.N any ELF file under DIR needs
glibc_floor() {
	find "$1" -type f -exec sh -c 'file -b "$1" | grep -q ^ELF && objdump -T "$1"' _ {} \; |
		grep -o 'GLIBC_2\.[0-9]*' | sort -uV | tail -1
}

# unpack_binary_archive: the binary archive under $T/opt, its top folder
# stripped
unpack_binary_archive() {
	mkdir "$T/opt"
	tar -xzf "$D/cudnnvm-$V-linux-x86_64.tar.gz" -C "$T/opt" --strip-components=1
}

setup() {
	remote_setup
	export CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda-nodev"
}

# end_to_end BIN: --version, install (an archive, validated, and a release
# from the mirror), use in a project, env, validate without a GPU; each
# command through $E2E_IN (in_old_root: in the Debian 11 root) when set
end_to_end() {
	local bin=$1 w=${E2E_IN:-}
	run $w "$bin" --version
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "cudnnvm $V"* ]]
	sed -i 's/^validate = no$/validate = yes/' "$XDG_CONFIG_HOME/cudnnvm/config.ini"
	run $w "$bin" install --archive "$(stub v9 path)" --sha256 "$(stub v9 sha256)"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"validated 9.19.0.56-cuda13: files, version and library provenance pass"* ]]
	run $w "$bin" list-remote 9.13 --cuda 12
	[ "$status" -eq 0 ]
	[[ "$output" == *9.13.0.50* ]]
	run $w "$bin" install 9.13 --cuda 12 --no-validate
	[ "$status" -eq 0 ]
	[[ "$output" == *"installed cuDNN 9.13.0.50-cuda12"* ]]
	mkdir -p "$T/project"
	cd "$T/project"
	run $w "$bin" use 9.19.0.56-cuda13
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cat .cudnn-version)" = 9.19.0.56-cuda13 ]
	run $w "$bin" current
	[ "$status" -eq 0 ]
	[[ "$output" == *9.19.0.56-cuda13* ]]
	run $w "$bin" env
	[ "$status" -eq 0 ]
	[[ "$output" == *"$CUDNNVM_STORE/9.19.0.56-cuda13"* ]]
	run $w "$bin" validate --no-gpu
	echo "$output"
	[ "$status" -eq 0 ]
	cd "$T"
}

@test "two builds of one commit give byte-identical release files" {
	[ -s "${CUDNNVM_DIST2:-}/SHA256SUMS" ]
	run diff <(cd "$D" && ls) <(cd "$CUDNNVM_DIST2" && ls)
	[ "$status" -eq 0 ]
	run cmp "$D/SHA256SUMS" "$CUDNNVM_DIST2/SHA256SUMS"
	[ "$status" -eq 0 ]
	for f in "$D"/*; do cmp "$f" "$CUDNNVM_DIST2/${f##*/}"; done
}

@test "SHA256SUMS covers every release file and each checks out" {
	run bash -c "cd '$D' && sha256sum -c --strict SHA256SUMS"
	[ "$status" -eq 0 ]
	[ "$(wc -l <"$D/SHA256SUMS")" -eq "$(find "$D" -maxdepth 1 -type f ! -name 'SHA256SUMS*' | wc -l)" ]
	for suffix in .tar.gz -linux-x86_64.tar.gz .spdx.json -1.x86_64.rpm; do
		grep -q "  cudnnvm-$V$suffix\$" "$D/SHA256SUMS"
	done
	grep -q "  ${WHL##*/}\$" "$D/SHA256SUMS"
	grep -q "  ${DEB##*/}\$" "$D/SHA256SUMS"
}

@test "the archives: sorted entries, owner 0, every mtime SOURCE_DATE_EPOCH, one top folder" {
	local epoch f
	epoch=${SOURCE_DATE_EPOCH:-$(git -C "$REPO_ROOT" log -1 --format=%ct)}
	for f in "$D/cudnnvm-$V.tar.gz" "$D/cudnnvm-$V-linux-x86_64.tar.gz"; do
		tar -tzf "$f" >"$T/names"
		# each folder's entries in name order: "/" sorts before any other byte
		tr / '\001' <"$T/names" | LC_ALL=C sort -c
		[ "$(cut -d/ -f1 "$T/names" | sort -u | wc -l)" -eq 1 ]
		python3 - "$f" "$epoch" <<'EOF'
import sys, tarfile
epoch = int(sys.argv[2])
for m in tarfile.open(sys.argv[1]):
    assert m.uid == 0 and m.gid == 0, (m.name, m.uid, m.gid)
    assert m.uname in ("", "root") and m.gname in ("", "root"), m.name
    assert int(m.mtime) == epoch, (m.name, m.mtime, epoch)
EOF
	done
	# the binary archive holds what the README's Install section says
	tar -tzf "$D/cudnnvm-$V-linux-x86_64.tar.gz" >"$T/names"
	for p in bin/cudnnvm libexec/cudnnvm/cudnnvm-helper share/man/man1/cudnnvm.1 \
		share/man/man5/cudnnvm.ini.5 share/bash-completion/completions/cudnnvm \
		share/zsh/site-functions/_cudnnvm share/fish/vendor_completions.d/cudnnvm.fish \
		share/cudnnvm/shims/hook.bash "cudnnvm-$V.spdx.json"; do
		grep -qx "cudnnvm-$V-linux-x86_64/$p" "$T/names"
	done
}

@test "SHA256SUMS signed with minisign (throwaway key): the README's command verifies it, and a changed file does not" {
	local cmd
	cp -r "$D" "$T/dist"
	minisign -G -W -p "$T/key.pub" -s "$T/key.sec" >/dev/null
	run make -C "$REPO_ROOT" -s sign DISTDIR="$T/dist" MINISIGN_KEY="$T/key.sec" MINISIGN_PUB="$T/key.pub"
	[ "$status" -eq 0 ]
	# the signature and the public key lie beside the sums
	[ -s "$T/dist/SHA256SUMS.minisig" ]
	cmp "$T/key.pub" "$T/dist/minisign.pub"
	# the README's Install command, as printed, in the download folder
	cmd=$(grep -m1 '^minisign -V' "$REPO_ROOT/README.md")
	[ -n "$cmd" ]
	cd "$T/dist"
	run sh -c "$cmd"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Trusted comment: cudnnvm $V"* ]]
	[[ "$output" == *"${WHL##*/}: OK"* ]]
	sed -i '1s/^./0/' SHA256SUMS
	run sh -c "$cmd"
	[ "$status" -ne 0 ]
	cd "$T"
	# the project's public key is a minisign key
	[ "$(sed -n 1p "$REPO_ROOT/pkg/minisign.pub")" = "untrusted comment: minisign public key $(sed -n 2p "$REPO_ROOT/pkg/minisign.pub" | base64 -d | tail -c +3 | head -c 8 | od -An -tx8 | tr -d ' ' | tr a-f A-F)" ]
}

@test "the SBOM is SPDX 2.3 and names, with its version, every library linked or bundled" {
	local sbom=$D/cudnnvm-$V.spdx.json b=$CUDNNVM_DIST_BUILD/bundle/build
	[ -x "$b/cudnnvm-helper" ]
	mkdir "$T/whl"
	python3 -m zipfile -e "$WHL" "$T/whl"
	{
		# what the release build's binaries load in the root they were
		# built in, and what the wheel carries
		for f in "$b/cudnnvm" "$b/cudnnvm-helper"; do
			in_old_root ldd "$f" | awk '$2 == "=>" {print $1} $1 ~ /^\// {sub(".*/", "", $1); print $1}'
		done
		# auditwheel names each copy NAME-HASH.so.N.M after the file NAME.so.N.M
		ls "$T/whl/cudnnvm-$V.data/data/libexec/cudnnvm.libs"
		echo libinih.a
		echo libjansson.a
		echo libarchive.a
	} | sort -u >"$T/want"
	[ "$(grep -c . "$T/want")" -gt 30 ]
	python3 - "$sbom" "$T/want" <<'EOF'
import json, re, sys
doc = json.load(open(sys.argv[1]))
assert doc["spdxVersion"] == "SPDX-2.3" and doc["SPDXID"] == "SPDXRef-DOCUMENT"
ids = {p["SPDXID"] for p in doc["packages"]}
named = {}
for p in doc["packages"][1:]:
    assert p["versionInfo"], p
    assert p["externalRefs"][0]["referenceLocator"].startswith("pkg:deb/debian/" + p["name"] + "@")
    assert "distro=debian-11" in p["externalRefs"][0]["referenceLocator"], p
    for f in re.match(r"files: ([^;]*);", p["comment"]).group(1).split(", "):
        named[f] = p
for r in doc["relationships"]:
    assert r["spdxElementId"] in ids | {"SPDXRef-DOCUMENT"} and r["relatedSpdxElement"] in ids
kinds = {r["relationshipType"] for r in doc["relationships"]}
assert {"STATIC_LINK", "DYNAMIC_LINK", "CONTAINS"} <= kinds, kinds
for want in open(sys.argv[2]).read().split():
    # the wheel's grafted copies carry their own SONAME: NAME-HASH.so.N
    plain = re.sub(r"-[0-9a-f]{8}(?=\.)", "", want, count=1)
    assert plain in named, "SBOM lacks " + want
print("ok")
EOF
	# libarchive is linked from Debian 11's static archive, with its version
	grep -q '"name": "libarchive-dev"' "$sbom"
	grep -q "\"versionInfo\": \"$(in_old_root dpkg-query -W -f '${Version}' libarchive-dev)\"" "$sbom"
}

@test "deb: Debian places, dependencies from dpkg-shlibdeps, lintian clean" {
	run dpkg-deb -f "$DEB" Package Version Depends Static-Built-Using
	[ "$status" -eq 0 ]
	[[ "$output" == *"Version: $V-1"* ]]
	[[ "$output" == *"libarchive13 (>= "* ]]
	[[ "$output" == *"libcurl4 (>= "* ]]
	[[ "$output" == *"libc6 (>= "* ]]
	[[ "$output" == *"Static-Built-Using: libinih (= "*"jansson (= "* ]]
	run dpkg-deb -c "$DEB"
	for p in ./usr/bin/cudnnvm ./usr/libexec/cudnnvm/cudnnvm-helper \
		./usr/share/man/man1/cudnnvm.1.gz ./usr/share/man/man5/cudnnvm.ini.5.gz \
		./usr/share/bash-completion/completions/cudnnvm \
		./usr/share/zsh/vendor-completions/_cudnnvm \
		./usr/share/fish/vendor_completions.d/cudnnvm.fish \
		./usr/share/doc/cudnnvm/copyright ./usr/share/doc/cudnnvm/changelog.Debian.gz; do
		[[ "$output" == *" $p"$'\n'* || "$output" == *" $p" ]]
	done
	[[ "$output" == *"root/root"* ]]
	[[ "$output" != *"usr/local"* ]]
	# every tag it would show is either absent or overridden in
	# pkg/debian/lintian-overrides, which says why
	run lintian --fail-on error,warning,info "$DEB"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "deb: the unpacked package installs, activates and validates" {
	mkdir "$T/root"
	dpkg-deb -x "$DEB" "$T/root"
	end_to_end "$T/root/usr/bin/cudnnvm"
	# the man page is the one of the source
	cmp <(gzip -dc "$T/root/usr/share/man/man1/cudnnvm.1.gz") "$REPO_ROOT/man/cudnnvm.1"
}

# doc/reliability.md R4. The measured floor of each file is printed to the
# TAP stream: find DIR -type f -exec sh -c 'file -b "$1" | grep -q ^ELF &&
# objdump -T "$1"' _ {} \; | grep -o 'GLIBC_2\.[0-9]*' | sort -uV | tail -1
@test "every ELF file in the wheel, the binary archive and the .rpm needs at most GLIBC_2.28, the wheel's tag no less than its files" {
	local floor tag f
	mkdir "$T/whl" "$T/tgz" "$T/rpm"
	python3 -m zipfile -e "$WHL" "$T/whl"
	tar -xzf "$D/cudnnvm-$V-linux-x86_64.tar.gz" -C "$T/tgz"
	(cd "$T/rpm" && rpm2cpio "$RPM" | cpio -idm --quiet)
	for f in whl tgz rpm; do
		floor=$(glibc_floor "$T/$f")
		echo "# floor of the $f: $floor" >&3
		[ -n "$floor" ]
		[ "$(printf '%s\n' "$floor" "GLIBC_$FLOOR" | sort -V | tail -1)" = "GLIBC_$FLOOR" ]
	done
	for f in "$T"/whl/cudnnvm-"$V".data/scripts/cudnnvm "$T"/whl/cudnnvm-"$V".data/data/libexec/cudnnvm/cudnnvm-helper; do
		echo "# floor of ${f##*/}: $(objdump -T "$f" | grep -o 'GLIBC_2\.[0-9]*' | sort -uV | tail -1)" >&3
	done
	# the front binary starts on glibc 2.17 (lib/base/glibc_compat.h) and says,
	# in one line, that the helper's libraries need 2.28
	f=$(objdump -T "$T/whl/cudnnvm-$V.data/scripts/cudnnvm" | grep -o 'GLIBC_2\.[0-9]*' | sort -uV | tail -1)
	[ "$(printf '%s\n' "$f" GLIBC_2.17 | sort -V | tail -1)" = GLIBC_2.17 ]
	strings "$T/whl/cudnnvm-$V.data/scripts/cudnnvm" | grep -q "needs glibc $FLOOR or newer; this system has"
	floor=$(glibc_floor "$T/whl")
	tag=${WHL##*-py3-none-}
	tag=${tag%.whl}
	echo "# wheel tag: $tag" >&3
	[[ "$tag" =~ ^manylinux_2_([0-9]+)_$(uname -m)$ ]]
	[ "${BASH_REMATCH[1]}" -ge "${floor#GLIBC_2.}" ]
	[ "${BASH_REMATCH[1]}" -le "${FLOOR#2.}" ]
	grep -qx "Tag: py3-none-$tag" "$T"/whl/cudnnvm-"$V".dist-info/WHEEL
	# the front binary needs libc alone; the helper links libarchive from
	# its static archive (no libxml2: its xar format is left out) and the
	# rest travels beside it
	readelf -d "$T/whl/cudnnvm-$V.data/scripts/cudnnvm" | grep NEEDED >"$T/needed"
	! grep -v -E '\[(libc\.so\.6|ld-linux[^]]*)\]' "$T/needed"
	readelf -d "$T/whl/cudnnvm-$V.data/data/libexec/cudnnvm/cudnnvm-helper" >"$T/needed"
	! grep -E 'NEEDED.*lib(archive|xml2)' "$T/needed"
	grep -q 'R.*PATH.*\$ORIGIN/\.\./cudnnvm\.libs' "$T/needed"
	ls "$T"/whl/cudnnvm-"$V".data/data/libexec/cudnnvm.libs/libcurl-*.so* \
		"$T"/whl/cudnnvm-"$V".data/data/libexec/cudnnvm.libs/libinih-*.so*
	! ls "$T"/whl/cudnnvm-"$V".data/data/libexec/cudnnvm.libs/libxml2-*
	# nothing but the one command in scripts/, no Python launcher anywhere
	[ "$(ls "$T/whl/cudnnvm-$V.data/scripts")" = cudnnvm ]
	[ ! -e "$T/whl/cudnnvm.scripts" ]
	! find "$T/whl" -name '*.py' | grep .
}

@test "wheel: pip install --no-index into a fresh venv gives a cudnnvm that installs, activates, validates; man finds its page; pip uninstall removes it" {
	python3 -m venv "$T/venv"
	run "$T/venv/bin/pip" install --no-index --no-cache-dir "$WHL"
	[ "$status" -eq 0 ]
	[ -x "$T/venv/bin/cudnnvm" ]
	[ ! -e "$T/venv/bin/cudnnvm-helper" ]
	# the helper it runs loads the libraries the wheel carries
	run ldd "$T/venv/libexec/cudnnvm/cudnnvm-helper"
	[[ "$output" == *"libcurl-"*" => $T/venv/libexec/cudnnvm/../cudnnvm.libs/libcurl-"* ]]
	end_to_end "$T/venv/bin/cudnnvm"
	[ -f "$T/venv/share/man/man1/cudnnvm.1" ]
	# man-db finds a page beside the bin/ folder on PATH
	if command -v man >/dev/null; then
		[ "$(PATH="$T/venv/bin:/usr/bin:/bin" MANPATH='' man -w cudnnvm)" = "$T/venv/share/man/man1/cudnnvm.1" ]
	fi
	run "$T/venv/bin/pip" uninstall -y cudnnvm
	[ "$status" -eq 0 ]
	[ ! -e "$T/venv/bin/cudnnvm" ]
	[ ! -e "$T/venv/libexec/cudnnvm/cudnnvm-helper" ]
}

# doc/reliability.md R1, R2: the layouts whose launcher used to look in the
# system's site-packages, one under a path with a space and non-ASCII bytes
@test "wheel: pip install --user, --target and --prefix (a path with a space and é): only cudnnvm on PATH, and it installs, activates, validates" {
	local bins=() b
	PYTHONUSERBASE="$T/user base" python3 -m pip install -q --user --break-system-packages \
		--no-index --no-cache-dir --no-warn-script-location "$WHL"
	bins+=("$T/user base/bin")
	python3 -m pip install -q --target "$T/target" --no-index --no-cache-dir "$WHL"
	bins+=("$T/target/bin")
	python3 -m pip install -q --prefix "$T/pre fix/é" --break-system-packages \
		--no-index --no-cache-dir --no-warn-script-location "$WHL"
	bins+=("$T/pre fix/é/bin")
	for b in "${bins[@]}"; do
		[ "$(ls "$b")" = cudnnvm ]
		# nothing of Python on the way: this bin/ folder and the system's
		PATH="$b:/usr/bin:/bin" run cudnnvm list-remote 9.13 --cuda 12
		echo "$output"
		[ "$status" -eq 0 ]
		[[ "$output" == *9.13.0.50* ]]
		# no man on that PATH: help goes on with the page's own words
		PATH="$b" run cudnnvm help install
		[ "$status" -eq 0 ]
		[[ "$output" == *"from cudnnvm(1):"*"     cudnnvm install [<spec>]"* ]]
		rm -rf "$CUDNNVM_STORE" "$T/project"
		end_to_end "$b/cudnnvm"
	done
}

@test "wheel: uv tool install (offline) puts a working cudnnvm on the tool bin folder; uv tool uninstall removes it" {
	local uv=${UV:-$(command -v uv || echo "${CUDNNVM_TOOLS:-/opt/cudnnvm-tools}/bin/uv")}
	export UV_TOOL_DIR="$T/uv-tools" UV_TOOL_BIN_DIR="$T/uv-bin" UV_CACHE_DIR="$T/uv-cache"
	run "$uv" tool install --offline "$WHL"
	[ "$status" -eq 0 ]
	# a link into the tool's venv: the front binary finds the helper
	# beside the file it really is
	[ -L "$T/uv-bin/cudnnvm" ]
	end_to_end "$T/uv-bin/cudnnvm"
	run "$uv" tool uninstall cudnnvm
	[ "$status" -eq 0 ]
	[ ! -e "$T/uv-bin/cudnnvm" ]
}

@test "wheel: pipx install (offline) gives a working cudnnvm; pipx uninstall removes it" {
	export PIPX_HOME="$T/pipx" PIPX_BIN_DIR="$T/pipx-bin" PIPX_MAN_DIR="$T/pipx-man"
	run pipx install --pip-args=--no-index "$WHL"
	[ "$status" -eq 0 ]
	end_to_end "$T/pipx-bin/cudnnvm"
	run pipx uninstall cudnnvm
	[ "$status" -eq 0 ]
	[ ! -e "$T/pipx-bin/cudnnvm" ]
}

@test "binary archive: unpacked under a prefix, it installs, activates and validates with its own libraries" {
	unpack_binary_archive
	run ldd "$T/opt/libexec/cudnnvm/cudnnvm-helper"
	[[ "$output" == *"libcurl-"*" => $T/opt/libexec/cudnnvm/../cudnnvm.libs/libcurl-"* ]]
	end_to_end "$T/opt/bin/cudnnvm"
}

# many_block_archive: $MANY, the stub cuDNN 9.19 (padded to 4 MiB) written
# in 64 KiB xz blocks, as xz -T2 and NVIDIA's tools write it; $MSHA, $MSIZE
many_block_archive() {
	python3 "$FIXTURES/mkarchive.py" nvidia --out "$T/pad" --version 9.19.0.56 \
		--cuda 12 --libdir "$STUBS/v9/lib" --pad-mb 4 --preset 0 >/dev/null
	MANY=$T/many.tar.xz
	xz -dc "$T"/pad/*.tar.xz | xz -T2 -0 --block-size=64KiB >"$MANY"
	[ "$(xz -lv --robot "$MANY" | grep -c '^block')" -gt 32 ]
	MSHA=$(sha256sum "$MANY" | cut -d' ' -f1)
	MSIZE=$(stat -c %s "$MANY")
}

# threads_mid_install BIN JOBS: prints "threads=N lzma=PATHS" for the
# helper while it installs $MANY from a FIFO with --jobs JOBS and waits
# for the archive's second half (its threads have settled by then), then
# "rc=N" once the rest is in
threads_mid_install() {
	local bin=$1 jobs=$2 fifo=$T/many.fifo pid n i
	rm -f "$fifo" && mkfifo "$fifo"
	CUDNNVM_STORE=$T/store-j$jobs "$bin" -q install --no-validate --deps never \
		--archive "$fifo" --sha256 "$MSHA" --version 9.19.0.56 --cuda 12 --jobs "$jobs" &
	pid=$!
	exec 3>"$fifo"
	head -c $((MSIZE / 2)) "$MANY" >&3
	for i in $(seq 100); do
		n=$(ls "/proc/$pid/task" | wc -l)
		[ "$n" -lt $((jobs + 3)) ] || break
		sleep 0.1
	done
	sleep 0.5
	echo "threads=$(ls "/proc/$pid/task" | wc -l) lzma=$(grep -o '/[^ ]*liblzma[^ ]*' "/proc/$pid/maps" | sort -u | tr '\n' ' ')"
	tail -c +$((MSIZE / 2 + 1)) "$MANY" >&3
	exec 3>&-
	wait "$pid"
	echo "rc=$?"
}

@test "binary archive: its helper, built against Debian 11's liblzma 5.2, decodes a many-block tar.xz on --jobs threads through this machine's newer liblzma" {
	nm -D --defined-only "$(ldconfig -p | awk '$1 == "liblzma.so.5" { print $NF; exit }')" |
		grep -q ' lzma_stream_decoder_mt@' || skip "this machine's liblzma has no threaded decoder (before 5.4)"
	unpack_binary_archive
	# the archive's own liblzma is 5.2: no threaded decoder in it
	ls "$T"/opt/libexec/cudnnvm.libs/liblzma-*.so.5.2.*
	many_block_archive
	one=$(threads_mid_install "$T/opt/bin/cudnnvm" 1)
	four=$(threads_mid_install "$T/opt/bin/cudnnvm" 4)
	echo "--jobs 1: $one"
	echo "--jobs 4: $four"
	[[ "$one" == *"rc=0"* && "$four" == *"rc=0"* ]]
	# three more decoding threads, and the machine's liblzma mapped beside
	# the bundled one
	n1=$(sed -n 's/^threads=\([0-9]*\) .*/\1/p' <<<"$one")
	n4=$(sed -n 's/^threads=\([0-9]*\) .*/\1/p' <<<"$four")
	[ "$n4" -eq $((n1 + 3)) ]
	[[ "$four" == *"lzma="*"cudnnvm.libs/liblzma-"* ]]
	grep -o 'lzma=.*' <<<"$four" | tr ' ' '\n' | grep -v cudnnvm.libs | grep -q '/liblzma\.so\.5'
	[ -f "$T/store-j4/9.19.0.56-cuda12/lib/libcudnn.so.9.19.0" ]
}

@test "Debian 11 (liblzma 5.2 only): the binary archive's helper decodes the many-block tar.xz on one thread, the same files" {
	[ "$(in_old_root cut -d. -f1 /etc/debian_version)" = 11 ]
	unpack_binary_archive
	many_block_archive
	old_root_setup
	run in_old_root "$T/opt/bin/cudnnvm" install --no-validate --deps never \
		--archive "$MANY" --sha256 "$MSHA" --version 9.19.0.56 --cuda 12 --jobs 4
	echo "$output"
	[ "$status" -eq 0 ]
	[ -f "$CUDNNVM_STORE/9.19.0.56-cuda12/lib/libcudnn.so.9.19.0" ]
}

@test "Debian 11 (glibc 2.31): the binary archive, unpacked, installs, activates and validates" {
	[ "$(in_old_root cut -d. -f1 /etc/debian_version)" = 11 ]
	unpack_binary_archive
	old_root_setup
	E2E_IN=in_old_root end_to_end "$T/opt/bin/cudnnvm"
}

@test "Debian 11: its pip (20.3) takes the manylinux_2_28 wheel into a venv; that cudnnvm installs, activates and validates" {
	cp "$WHL" "$T/"
	in_old_root python3 -m venv "$T/venv"
	run in_old_root "$T/venv/bin/pip" install --no-index --no-cache-dir "$T/${WHL##*/}"
	echo "$output"
	[ "$status" -eq 0 ]
	old_root_setup
	E2E_IN=in_old_root end_to_end "$T/venv/bin/cudnnvm"
}

@test "rpm: Fedora's places, requirements only glibc's (at most GLIBC_2.28) and zlib; unpacked by rpm2cpio | cpio it runs in Debian 11" {
	local top
	run rpm -qp --qf '%{NAME} %{VERSION}-%{RELEASE} %{ARCH}\n' "$RPM"
	[ "$output" = "cudnnvm $V-1 $(uname -m)" ]
	run rpm -qpl "$RPM"
	for p in /usr/bin/cudnnvm /usr/libexec/cudnnvm/cudnnvm-helper /usr/share/man/man1/cudnnvm.1.gz \
		/usr/share/man/man5/cudnnvm.ini.5.gz /usr/share/bash-completion/completions/cudnnvm \
		/usr/share/zsh/site-functions/_cudnnvm /usr/share/fish/vendor_completions.d/cudnnvm.fish \
		/usr/share/cudnnvm/shims/hook.bash; do
		[[ $'\n'"$output"$'\n' == *$'\n'"$p"$'\n'* ]]
	done
	[[ "$output" == *"/usr/libexec/cudnnvm.libs/libcurl-"* ]]
	[[ "$output" != *build-id* && "$output" != *usr/local* ]]
	run rpm -qpR "$RPM"
	echo "$output"
	[ "$status" -eq 0 ]
	# what RHEL 8 has in its base: glibc's libraries and zlib; the bundled
	# copies (NAME-HASH.so) require nothing outside
	! grep -v -E '^(rpmlib\(|rtld\(GNU_HASH\)$|ld-linux-x86-64\.so\.2|lib(c|dl|pthread|resolv|rt|m|z)\.so\.[0-9]+\()' <<<"$output"
	grep -q '^libc\.so\.6(GLIBC_2\.[0-9]*)(64bit)$' <<<"$output"
	top=$(grep -o 'GLIBC_2\.[0-9]*' <<<"$output" | sort -uV | tail -1)
	[ "$(printf '%s\n' "$top" "GLIBC_$FLOOR" | sort -V | tail -1)" = "GLIBC_$FLOOR" ]
	run rpm -qpP "$RPM"
	[[ "$output" != *".so"* ]]
	mkdir "$T/rpmroot"
	(cd "$T/rpmroot" && rpm2cpio "$RPM" | cpio -idm --quiet)
	old_root_setup
	E2E_IN=in_old_root end_to_end "$T/rpmroot/usr/bin/cudnnvm"
	cmp <(gzip -dc "$T/rpmroot/usr/share/man/man1/cudnnvm.1.gz") "$REPO_ROOT/man/cudnnvm.1"
}
