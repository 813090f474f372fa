#!/usr/bin/env python3
"""pkg/wheel.py: zip a staged wheel tree (cudnnvm-V.data/...) into a wheel,
adding its .dist-info (METADATA, WHEEL, RECORD), reproducibly: entries
sorted, every time stamp SOURCE_DATE_EPOCH, modes 0755 or 0644 only.

usage: pkg/wheel.py --root DIR --version V --tag py3-none-linux_x86_64 --out DIR
"""
import argparse
import base64
import hashlib
import os
import time
import zipfile

SUMMARY = "A version manager for NVIDIA cuDNN"
DESCRIPTION = """\
cudnnvm installs NVIDIA cuDNN versions side by side from NVIDIA's redistrib
manifests or its nvidia-cudnn wheels, switches them per machine, project or
shell, and proves that each activation really loads and computes on the GPU.

This wheel holds the native `cudnnvm` binary (on PATH once installed) and
its helper with the libraries it needs; no Python module is imported.
"""


def record_hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", required=True)
    ap.add_argument("--version", required=True)
    ap.add_argument("--tag", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()

    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))
    stamp = time.gmtime(max(epoch, 315532800))[:6]  # zip starts at 1980
    info = "cudnnvm-%s.dist-info" % a.version
    files = {}
    for dirpath, _, names in os.walk(a.root):
        for n in names:
            p = os.path.join(dirpath, n)
            rel = os.path.relpath(p, a.root).replace(os.sep, "/")
            with open(p, "rb") as f:
                files[rel] = (f.read(), 0o755 if os.access(p, os.X_OK) else 0o644)
    files[info + "/METADATA"] = (
        (
            "Metadata-Version: 2.1\nName: cudnnvm\nVersion: %s\nSummary: %s\n"
            "Requires-Python: >=3.7\nDescription-Content-Type: text/markdown\n\n%s"
            % (a.version, SUMMARY, DESCRIPTION)
        ).encode(),
        0o644,
    )
    files[info + "/WHEEL"] = (
        (
            "Wheel-Version: 1.0\nGenerator: cudnnvm pkg/wheel.py\n"
            "Root-Is-Purelib: false\nTag: %s\n" % a.tag
        ).encode(),
        0o644,
    )
    record = "".join(
        "%s,%s,%d\n" % (n, record_hash(d), len(d)) for n, (d, _) in sorted(files.items())
    )
    files[info + "/RECORD"] = ((record + info + "/RECORD,,\n").encode(), 0o644)

    out = os.path.join(a.out, "cudnnvm-%s-%s.whl" % (a.version, a.tag))
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name in sorted(files):
            data, mode = files[name]
            zi = zipfile.ZipInfo(name, date_time=stamp)
            zi.external_attr = (0o100000 | mode) << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data, compresslevel=9)
    print(out)


if __name__ == "__main__":
    main()
