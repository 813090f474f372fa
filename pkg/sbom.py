#!/usr/bin/env python3
"""pkg/sbom.py: the SPDX 2.3 SBOM (JSON) of a cudnnvm release, on stdout.

Lists every library the release links or carries, each as the Debian
package it came from, with that package's version:
  - linked statically into the front binary (inih, jansson: the static
    archives it was linked with, Makefile FRONT_STATIC) or into the helper
    (--static-lib: libarchive in the release build, pkg/dist.sh);
  - linked dynamically by the front binary or the helper (what the loader
    maps for them here: ldd);
  - bundled in the wheel and the binary archive (the files auditwheel
    grafted into cudnnvm.libs/, named by the SONAME they had).
Deterministic: no clock but SOURCE_DATE_EPOCH, packages sorted by name.

usage: pkg/sbom.py --version V --commit C --front BIN --helper BIN [--wheel WHL]
                   [--static-lib NAME]...
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time
import urllib.parse
import zipfile

CC = os.environ.get("CC", "cc")


def sh(*argv):
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout


def deb_package(path):
    """The installed Debian package that owns `path` (usr-merged or not)."""
    real = os.path.realpath(path)
    tries = [path, real]
    for p in (path, real):
        if p.startswith("/usr/"):
            tries.append(p[4:])
        else:
            tries.append("/usr" + p)
    for p in tries:
        r = subprocess.run(["dpkg", "-S", p], capture_output=True, text=True)
        if r.returncode == 0:
            return r.stdout.split(":")[0].strip()
    sys.exit("sbom: no Debian package owns %s" % path)


def ldd(binary):
    """SONAME -> path of every library the loader maps for `binary`."""
    libs = {}
    for line in sh("ldd", binary).splitlines():
        m = re.match(r"\s*(\S+) => (\S+) \(", line)
        if m:
            libs[m.group(1)] = m.group(2)
            continue
        m = re.match(r"\s*(/\S+) \(", line)  # the loader itself
        if m:
            libs[os.path.basename(m.group(1))] = m.group(1)
    return libs


def bundled(wheel):
    """SONAMEs of the libraries auditwheel grafted into the wheel: it names
    file NAME.so.N.M it copied NAME-HASH.so.N.M."""
    out = {}
    with zipfile.ZipFile(wheel) as z:
        for n in z.namelist():
            # the wheel's data/libexec/cudnnvm.libs/ (pkg/dist.sh)
            if "cudnnvm.libs/" in n and not n.endswith("/"):
                f = n.rsplit("/", 1)[1]
                out[re.sub(r"-[0-9a-f]{8}(?=\.)", "", f, count=1)] = n
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--version", required=True)
    ap.add_argument("--commit", required=True)
    ap.add_argument("--front", required=True)
    ap.add_argument("--helper", required=True)
    ap.add_argument("--wheel")
    ap.add_argument("--static-lib", action="append", default=[])
    a = ap.parse_args()

    arch = sh("dpkg", "--print-architecture").strip()
    distro = "debian-" + open("/etc/debian_version").read().strip().split(".")[0]
    # Debian package -> {"sonames", "how"}
    pkgs = {}

    def add(pkg, how, soname=None):
        e = pkgs.setdefault(pkg, {"sonames": set(), "how": set()})
        e["how"].add(how)
        if soname:
            e["sonames"].add(soname)

    for lib in ["inih", "jansson"] + a.static_lib:
        a_file = sh(CC, "-print-file-name=lib%s.a" % lib).strip()
        add(deb_package(a_file), "STATIC_LINK", "lib%s.a" % lib)
    dynamic = {}
    for binary in (a.front, a.helper):
        dynamic.update(ldd(binary))
    for soname, path in dynamic.items():
        pkg = deb_package(path)
        add(pkg, "DYNAMIC_LINK", soname)
        # and the file it names (what the wheel's copy is called after)
        add(pkg, "DYNAMIC_LINK", os.path.basename(os.path.realpath(path)))
    if a.wheel:
        by_file = {os.path.basename(os.path.realpath(p)): s for s, p in dynamic.items()}
        for name, member in bundled(a.wheel).items():
            if name not in by_file:
                sys.exit("sbom: the wheel carries %s, which the helper does not load" % member)
            soname = by_file[name]
            add(deb_package(dynamic[soname]), "CONTAINS", soname)

    doc = {
        "spdxVersion": "SPDX-2.3",
        "dataLicense": "CC0-1.0",
        "SPDXID": "SPDXRef-DOCUMENT",
        "name": "cudnnvm-%s" % a.version,
        "documentNamespace": "https://spdx.org/spdxdocs/cudnnvm-%s-%s" % (a.version, a.commit),
        "creationInfo": {
            "created": time.strftime(
                "%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(os.environ.get("SOURCE_DATE_EPOCH", "0")))
            ),
            "creators": ["Tool: cudnnvm pkg/sbom.py"],
        },
        "packages": [
            {
                "name": "cudnnvm",
                "SPDXID": "SPDXRef-cudnnvm",
                "versionInfo": a.version,
                "downloadLocation": "NOASSERTION",
                "filesAnalyzed": False,
                "licenseConcluded": "NOASSERTION",
                "licenseDeclared": "NOASSERTION",
                "copyrightText": "NOASSERTION",
                "comment": "built from commit %s; the front binary cudnnvm and "
                "its helper libexec/cudnnvm/cudnnvm-helper" % a.commit,
                "primaryPackagePurpose": "APPLICATION",
            }
        ],
        "relationships": [
            {
                "spdxElementId": "SPDXRef-DOCUMENT",
                "relationshipType": "DESCRIBES",
                "relatedSpdxElement": "SPDXRef-cudnnvm",
            }
        ],
    }
    says = {
        "STATIC_LINK": "linked from its static archive (inih and jansson into the "
        "front binary; any other into the helper)",
        "DYNAMIC_LINK": "loaded at run time by the Debian package's binaries",
        "CONTAINS": "bundled in the wheel, the binary archive and the .rpm "
        "(libexec/cudnnvm.libs/)",
    }
    for pkg in sorted(pkgs):
        e = pkgs[pkg]
        q = "${Version}\t${source:Package}\t${source:Version}"
        version, src, src_version = sh("dpkg-query", "-W", "-f", q, pkg).split("\t")
        ident = "SPDXRef-deb-" + re.sub(r"[^A-Za-z0-9.-]", "-", pkg)
        upstream = re.sub(r"^\d+:", "", src_version).rsplit("-", 1)[0]
        purl = "pkg:deb/debian/%s@%s?arch=%s&distro=%s" % (
            pkg,
            urllib.parse.quote(version, safe=""),
            arch,
            distro,
        )
        doc["packages"].append(
            {
                "name": pkg,
                "SPDXID": ident,
                "versionInfo": version,
                "supplier": "Organization: Debian",
                "downloadLocation": "NOASSERTION",
                "filesAnalyzed": False,
                "licenseConcluded": "NOASSERTION",
                "licenseDeclared": "NOASSERTION",
                "copyrightText": "NOASSERTION",
                "sourceInfo": "Debian source package %s %s (upstream %s)"
                % (src, src_version, upstream),
                "comment": "files: %s; %s"
                % (", ".join(sorted(e["sonames"])), "; ".join(says[h] for h in sorted(e["how"]))),
                "externalRefs": [
                    {
                        "referenceCategory": "PACKAGE-MANAGER",
                        "referenceType": "purl",
                        "referenceLocator": purl,
                    }
                ],
                "primaryPackagePurpose": "LIBRARY",
            }
        )
        for how in sorted(e["how"]):
            doc["relationships"].append(
                {
                    "spdxElementId": "SPDXRef-cudnnvm",
                    "relationshipType": how,
                    "relatedSpdxElement": ident,
                }
            )
    json.dump(doc, sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
