#!/usr/bin/env bats
# The release files of `make dist` (pkg/dist.sh): run by `make check-dist`,
# which builds them twice from this commit into $CUDNNVM_DIST and
# $CUDNNVM_DIST2. Each way in that README's "Install" gives (the .deb, the
# wheel in a fresh venv, the binary archive) installs from the test mirror,
# activates and validates; the files are byte-identical between the two
# builds, SHA256SUMS covers them and verifies with minisign, the SBOM names
# every library, the wheel's tag is the glibc its files need.
load ../e2e/remote

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
	export D V WHL DEB
}

setup() {
	remote_setup
	export CUDNNVM_TEST_CUDA_LIBDIRS="$STUBS/cuda-nodev"
}

# end_to_end BIN: --version, install (an archive, validated, and a release
# from the mirror), use in a project, validate without a GPU
end_to_end() {
	local bin=$1
	run "$bin" --version
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "cudnnvm $V"* ]]
	sed -i 's/^validate = no$/validate = yes/' "$XDG_CONFIG_HOME/cudnnvm/config.ini"
	run "$bin" install --archive "$(stub v9 path)" --sha256 "$(stub v9 sha256)"
	[ "$status" -eq 0 ]
	[[ "$output" == *"validated 9.19.0.56-cuda13: files, version and library provenance pass"* ]]
	run "$bin" list-remote 9.13 --cuda 12
	[ "$status" -eq 0 ]
	[[ "$output" == *9.13.0.50* ]]
	run "$bin" install 9.13 --cuda 12 --no-validate
	[ "$status" -eq 0 ]
	[[ "$output" == *"installed cuDNN 9.13.0.50-cuda12"* ]]
	mkdir -p "$T/project"
	cd "$T/project"
	run "$bin" use 9.19.0.56-cuda13
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(cat .cudnn-version)" = 9.19.0.56-cuda13 ]
	run "$bin" current
	[ "$status" -eq 0 ]
	[[ "$output" == *9.19.0.56-cuda13* ]]
	run "$bin" validate --no-gpu
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
	for suffix in .tar.gz -linux-x86_64.tar.gz .spdx.json; do
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

@test "SHA256SUMS signed with minisign (throwaway key): verifies, and a changed file does not" {
	cp -r "$D" "$T/dist"
	minisign -G -W -p "$T/key.pub" -s "$T/key.sec" >/dev/null
	run make -C "$REPO_ROOT" -s sign DISTDIR="$T/dist" MINISIGN_KEY="$T/key.sec"
	[ "$status" -eq 0 ]
	run minisign -V -p "$T/key.pub" -m "$T/dist/SHA256SUMS"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Trusted comment: cudnnvm $V"* ]]
	sed -i '1s/^./0/' "$T/dist/SHA256SUMS"
	run minisign -V -p "$T/key.pub" -m "$T/dist/SHA256SUMS"
	[ "$status" -ne 0 ]
	# the project's public key is a minisign key
	[ "$(sed -n 1p "$REPO_ROOT/pkg/minisign.pub")" = "untrusted comment: minisign public key $(sed -n 2p "$REPO_ROOT/pkg/minisign.pub" | base64 -d | tail -c +3 | head -c 8 | od -An -tx8 | tr -d ' ' | tr a-f A-F)" ]
}

@test "the SBOM is SPDX 2.3 and names, with its version, every library linked or bundled" {
	local sbom=$D/cudnnvm-$V.spdx.json
	mkdir "$T/deb" "$T/whl"
	dpkg-deb -x "$DEB" "$T/deb"
	python3 -m zipfile -e "$WHL" "$T/whl"
	{
		# what the Debian package's binaries load, and what the wheel carries
		for b in "$T/deb/usr/bin/cudnnvm" "$T/deb/usr/libexec/cudnnvm/cudnnvm-helper"; do
			ldd "$b" | awk '$2 == "=>" {print $1} $1 ~ /^\// {sub(".*/", "", $1); print $1}'
		done
		# auditwheel names each copy NAME-HASH.so.N.M after the file NAME.so.N.M
		ls "$T/whl/cudnnvm.libs"
		echo libinih.a
		echo libjansson.a
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
	grep -q '"name": "libarchive13"' "$sbom"
	grep -q "\"versionInfo\": \"$(dpkg-query -W -f '${Version}' libarchive13)\"" "$sbom"
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

@test "wheel: tagged manylinux with the highest GLIBC_ version of every ELF in it" {
	local floor tag
	mkdir "$T/whl"
	python3 -m zipfile -e "$WHL" "$T/whl"
	floor=$(find "$T/whl" -type f -exec sh -c 'file -b "$1" | grep -q ^ELF && objdump -T "$1"' _ {} \; |
		grep -o 'GLIBC_2\.[0-9]*' | sort -uV | tail -1)
	[ -n "$floor" ]
	tag=${WHL##*-py3-none-}
	tag=${tag%.whl}
	echo "floor $floor, tag $tag"
	[ "$tag" = "manylinux_2_${floor#GLIBC_2.}_$(uname -m)" ]
	grep -qx "Tag: py3-none-$tag" "$T"/whl/cudnnvm-"$V".dist-info/WHEEL
	# the front binary needs libc alone; the helper's libraries travel inside
	readelf -d "$T/whl/cudnnvm-$V.data/scripts/cudnnvm" | grep NEEDED >"$T/needed"
	! grep -v -E '\[(libc\.so\.6|ld-linux[^]]*)\]' "$T/needed"
	ls "$T"/whl/cudnnvm.libs/libarchive-*.so* "$T"/whl/cudnnvm.libs/libinih-*.so* \
		"$T"/whl/cudnnvm.libs/libcurl-*.so*
}

@test "wheel: pip install --no-index into a fresh venv gives a cudnnvm that installs, activates, validates; pip uninstall removes it" {
	python3 -m venv "$T/venv"
	run "$T/venv/bin/pip" install --no-index --no-cache-dir "$WHL"
	[ "$status" -eq 0 ]
	[ -x "$T/venv/bin/cudnnvm" ]
	# the helper it runs loads the libraries the wheel carries
	run ldd "$(ls "$T"/venv/lib/python3*/site-packages/cudnnvm.scripts/cudnnvm-helper)"
	[[ "$output" == *"libarchive-"*" => $T/venv/lib/python3"*"/site-packages/cudnnvm.scripts/../cudnnvm.libs/libarchive-"* ]]
	end_to_end "$T/venv/bin/cudnnvm"
	[ -f "$T/venv/share/man/man1/cudnnvm.1" ]
	run "$T/venv/bin/pip" uninstall -y cudnnvm
	[ "$status" -eq 0 ]
	[ ! -e "$T/venv/bin/cudnnvm" ]
	[ ! -e "$T/venv/bin/cudnnvm-helper" ]
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
	mkdir "$T/opt"
	tar -xzf "$D/cudnnvm-$V-linux-x86_64.tar.gz" -C "$T/opt" --strip-components=1
	run ldd "$T/opt/libexec/cudnnvm/cudnnvm-helper"
	[[ "$output" == *"libarchive-"*" => $T/opt/libexec/cudnnvm/../cudnnvm.libs/libarchive-"* ]]
	end_to_end "$T/opt/bin/cudnnvm"
}
