/* frameworks.c: which deep-learning frameworks the Python environment in
 * play holds, which cuDNN each of them can load, and whether a version
 * fits. Only files are read (no Python is started), so the check is cheap
 * enough to sit in front of every activation:
 *
 *  - pip environments: <site-packages>/<name>-<ver>.dist-info/METADATA,
 *    its Requires-Dist lines naming nvidia-cudnn-cuNN. Only the folders of
 *    known frameworks are read; every other METADATA is read only when an
 *    nvidia-cudnn wheel is installed that no known framework asked for,
 *    so an unknown framework that needs it is still found.
 *  - files where a build records its cuDNN (TensorFlow's build_info.py,
 *    ONNX Runtime's build_and_package_info.py);
 *  - conda environments: conda-meta/<name>-<ver>-<build>.json, `depends`
 *    naming cudnn (and cuda-version / cudatoolkit for the CUDA major).
 *
 * The rules are the ones the frameworks enforce when they load cuDNN
 * (torch's _cudnn version check, TensorFlow's and XLA's
 * CudnnSupport::Init): the same major, a runtime minor at least the one
 * the build was compiled with, a build for the same CUDA major; plus an
 * upper bound or exclusion when the metadata states one. */
#include "base/base.h"
#include "machine/machine.h"
#include "python/python_int.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Distribution names (normalised: lower case, '-' and '.' as '_') whose
 * METADATA is always read. */
static const char *const known_pip[] = {
	"torch",
	"tensorflow",
	"tensorflow_gpu",
	"tf_nightly",
	"jax_cuda",
	"jaxlib",
	"jax",
	"onnxruntime_gpu",
	"onnxruntime",
	"paddlepaddle",
	"mxnet",
	"cupy_cuda",
	"tensorrt",
	"nvidia_cudnn",
	"nvidia_dali",
	"torchvision",
	"torchaudio",
	"ctranslate2",
	"cupy",
	NULL,
};
/* conda package names whose record is read. */
static const char *const known_conda[] = {
	"pytorch",
	"libtorch",
	"tensorflow",
	"tensorflow-base",
	"libtensorflow",
	"jaxlib",
	"onnxruntime",
	"paddlepaddle",
	"cupy",
	"cudnn",
	"ctranslate2",
	"tensorrt",
	NULL,
};

static int
starts_with(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static int
is_dir(const char *p)
{
	struct cv_stat sb;
	return cv_os_stat(p, &sb) == 0 && sb.kind == CV_KIND_DIR;
}

static int
is_file(const char *p)
{
	struct cv_stat sb;
	return cv_os_stat(p, &sb) == 0 && sb.kind == CV_KIND_FILE;
}

/* The scan sits in front of every activation and in the prompt hook, so
 * it keeps to a budget whatever the environment holds: each file is
 * opened without blocking and read only when regular (a FIFO named like a
 * record cannot hang it), up to a cap; the whole scan reads at most
 * SCAN_BYTES and stops reading at SCAN_SECONDS, and says so
 * (cv_fw_env.incomplete). conda's records of real frameworks are under
 * 5 MB (every file of the package is listed in them). */
#define SCAN_BYTES       (64u << 20)
#define SCAN_SECONDS     1
#define CONDA_RECORD_MAX (8u << 20)

static int
scan_spent(struct cv_fw_env *e)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (e->read_bytes < SCAN_BYTES && (now.tv_sec < e->deadline.tv_sec ||
					   (now.tv_sec == e->deadline.tv_sec &&
					    now.tv_nsec < e->deadline.tv_nsec)))
		return 0;
	e->incomplete = 1;
	return 1;
}

/* At most `max` bytes of the regular file at path (xmalloc'd, NUL-ended,
 * its length in *len), or NULL: absent, not a regular file, over the
 * budget, or (whole) larger than max. */
static char *
read_file(struct cv_fw_env *e, const char *path, size_t max, int whole,
	  int nofollow, size_t *len)
{
	char *buf;
	ssize_t got;

	if (scan_spent(e))
		return NULL;
	buf = xmalloc(max + 2);
	got = cv_fs_read_head(CV_AT_CWD, path, nofollow, buf,
			      whole ? max + 2 : max + 1);
	if (got >= 0)
		e->read_bytes += (size_t)got;
	if (got < 0 || (whole && (size_t)got > max)) {
		/* a file where a record should be that cannot be read as one
		 * (a FIFO, a device, a giant): its framework goes unseen */
		if (got >= 0 || errno == EINVAL || errno == ELOOP)
			e->incomplete = 1;
		free(buf);
		return NULL;
	}
	if (len != NULL)
		*len = (size_t)got;
	return buf;
}

static char *
read_head(struct cv_fw_env *e, const char *path, size_t max)
{
	return read_file(e, path, max, 0, 0, NULL);
}

/* "nvidia-cudnn-cu12", "nvidia_cudnn_cu12", "Nvidia.Cudnn.Cu12": the CUDA
 * major named, *rest after the name; 0 when s does not start with it. */
static int
cudnn_wheel_name(const char *s, const char **rest)
{
	static const char *const parts[] = { "nvidia", "cudnn", "cu" };
	const char *p = s;
	char *end;
	long cuda;

	for (int i = 0; i < 3; i++) {
		size_t n = strlen(parts[i]);
		if (strncasecmp(p, parts[i], n) != 0)
			return 0;
		p += n;
		if (i < 2) {
			if (*p != '-' && *p != '_' && *p != '.')
				return 0;
			p++;
		}
	}
	if (*p < '0' || *p > '9')
		return 0;
	cuda = strtol(p, &end, 10);
	if (cuda <= 0 || cuda > 999 ||
	    (*end != '\0' && strchr(" (;<>=!~[,", *end) == NULL &&
	     *end != '\t'))
		return 0;
	if (rest)
		*rest = end;
	return (int)cuda;
}

/* The leading numeric parts of a PEP 440 / conda version ("10.0a0" ->
 * 10.0, "9.*" -> 9). 0 when there is none. */
static int
parse_loose(const char *s, struct cv_version *v)
{
	memset(v, 0, sizeof *v);
	while (*s == ' ')
		s++;
	while (v->nparts < CV_VERSION_MAXPARTS && *s >= '0' && *s <= '9') {
		char *end;
		v->part[v->nparts++] = strtoul(s, &end, 10);
		s = end;
		if (*s != '.' || s[1] < '0' || s[1] > '9')
			break;
		s++;
	}
	return v->nparts > 0;
}

static void
need_min(struct cv_fw_need *n, const struct cv_version *v)
{
	if (n->min.nparts == 0 || cv_version_cmp(v, &n->min) > 0)
		n->min = *v;
}

static void
need_max(struct cv_fw_need *n, const struct cv_version *v, int incl)
{
	if (n->max.nparts == 0 || cv_version_cmp(v, &n->max) < 0) {
		n->max = *v;
		n->max_incl = incl;
	}
}

/* Fold one specifier list ("==9.1.0.70", ">=9.3.0.75,<10.0", "(>=9.1)",
 * ">=9.1.0.70,<10.0a0", "~=9.5") into n. */
static void
parse_specifiers(struct cv_fw_need *n, const char *s)
{
	while (*s) {
		char op[4] = "";
		size_t k = 0;
		struct cv_version v;

		while (*s == ' ' || *s == '(' || *s == ',' || *s == ')')
			s++;
		while (k < 3 && *s && strchr("<>=!~", *s))
			op[k++] = *s++;
		op[k] = '\0';
		if (!parse_loose(s, &v)) {
			while (*s && *s != ',')
				s++;
			continue;
		}
		while (*s && *s != ',' && *s != ')')
			s++;
		if (strcmp(op, "==") == 0 || strcmp(op, "===") == 0 ||
		    strcmp(op, "") == 0 || strcmp(op, ">=") == 0 ||
		    strcmp(op, ">") == 0) {
			/* the version the build was made against: a floor,
			 * never a ceiling (frameworks accept newer minors) */
			need_min(n, &v);
		} else if (strcmp(op, "~=") == 0) {
			struct cv_version up = v;
			need_min(n, &v);
			if (up.nparts >= 2) {
				up.nparts--;
				up.part[up.nparts - 1]++;
				for (int i = up.nparts; i < CV_VERSION_MAXPARTS;
				     i++)
					up.part[i] = 0;
				need_max(n, &up, 0);
			}
		} else if (strcmp(op, "<") == 0) {
			need_max(n, &v, 0);
		} else if (strcmp(op, "<=") == 0) {
			need_max(n, &v, 1);
		} else if (strcmp(op, "!=") == 0 &&
			   n->nexclude < CV_FW_MAXEXCLUDE) {
			n->exclude[n->nexclude++] = v;
		}
	}
}

/* Environment markers: keep the requirement unless a marker names another
 * operating system or machine. `extra == ...` keeps it: the build was
 * compiled against the library whether or not the extra is installed. */
static int
marker_applies(const char *m)
{
	char machine[65];
	const char *p;

	if (m == NULL)
		return 1;
	if (strstr(m, "Windows") || strstr(m, "win32") || strstr(m, "Darwin") ||
	    strstr(m, "darwin"))
		if (!strstr(m, "!="))
			return 0;
	p = strstr(m, "platform_machine");
	if (p != NULL && cv_os_machine(machine, sizeof machine) == 0) {
		const char *q = p + strlen("platform_machine");
		while (*q == ' ')
			q++;
		if (q[0] == '=' && q[1] == '=') {
			char want[64];
			size_t k = 0;
			q += 2;
			while (*q == ' ' || *q == '"' || *q == '\'')
				q++;
			while (k < sizeof want - 1 && *q && *q != '"' &&
			       *q != '\'')
				want[k++] = *q++;
			want[k] = '\0';
			if (strcmp(want, machine) != 0)
				return 0;
		}
	}
	return 1;
}

static void
set_source(struct cv_fw_need *n, const char *path, const char *text)
{
	snprintf(n->source, sizeof n->source, "%s", path);
	snprintf(n->text, sizeof n->text, "%s", text);
	n->have = 1;
}

int
cv_fw_requires_dist(struct cv_fw_need *n, const char *value, const char *path)
{
	const char *rest, *semi;
	char *spec;
	size_t len;
	int cuda = cudnn_wheel_name(value, &rest);

	if (cuda == 0)
		return 0;
	semi = strchr(rest, ';');
	if (!marker_applies(semi))
		return 0;
	if (*rest == '[') /* extras of the cuDNN wheel itself */
		rest = strchr(rest, ']') ? strchr(rest, ']') + 1 : rest;
	/* all of it: a bound cut at a buffer's end ("<10" as "<1") would be
	 * another bound; a ']' past the marker leaves no specifiers */
	len = semi == NULL  ? strlen(rest)
	      : semi > rest ? (size_t)(semi - rest)
			    : 0;
	spec = xstrndup(rest, len);
	n->cuda = cuda;
	parse_specifiers(n, spec);
	free(spec);
	if (!n->have)
		set_source(n, path, value);
	n->have = 1;
	snprintf(n->via, sizeof n->via, "Requires-Dist");
	return 1;
}

static struct cv_framework *
add_framework(struct cv_fw_env *e, const char *name, const char *version,
	      const char *where)
{
	struct cv_framework *f;

	e->fw = xrealloc(e->fw, (e->n + 1) * sizeof *e->fw);
	f = &e->fw[e->n++];
	memset(f, 0, sizeof *f);
	snprintf(f->name, sizeof f->name, "%s", name);
	snprintf(f->version, sizeof f->version, "%s", version);
	snprintf(f->location, sizeof f->location, "%s", where);
	return f;
}

/* "torch-2.4.0.dist-info" -> name "torch", version "2.4.0". */
static int
split_dist_info(const char *dname, char *name, size_t nn, char *ver, size_t vn)
{
	size_t len = strlen(dname);
	const char *dash;

	if (len <= 10 || strcmp(dname + len - 10, ".dist-info") != 0)
		return 0;
	dash = memchr(dname, '-', len - 10);
	if (dash == NULL)
		return 0;
	snprintf(name, nn, "%.*s", (int)(dash - dname), dname);
	snprintf(ver, vn, "%.*s", (int)(dname + len - 10 - dash - 1), dash + 1);
	for (char *p = name; *p; p++) {
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
		else if (*p == '-' || *p == '.')
			*p = '_';
	}
	return 1;
}

static int
known_dist(const char *name)
{
	/* a whole name or a name part: jax and jax_cuda12_plugin, not
	 * jaxtyping; cupy_cuda13x, not cupyx */
	for (int i = 0; known_pip[i]; i++) {
		size_t n = strlen(known_pip[i]);
		if (starts_with(name, known_pip[i]) &&
		    (name[n] == '\0' || name[n] == '_' ||
		     (name[n] >= '0' && name[n] <= '9')))
			return 1;
	}
	return 0;
}

/* Read one METADATA; add a framework when it requires a cuDNN wheel, or
 * when it is a known framework (listed, not blocking). Returns 1 when it
 * required cuDNN. */
static int
scan_metadata(struct cv_fw_env *e, const char *sp, const char *dname,
	      const char *name, const char *ver, int list_anyway)
{
	char path[PATH_MAX];
	struct cv_fw_need need;
	char *buf, *line, *next;
	int found = 0;

	snprintf(path, sizeof path, "%s/%s/METADATA", sp, dname);
	/* Requires-Dist lines sit in the header, before the description */
	buf = read_head(e, path, 64 * 1024);
	if (buf == NULL)
		return 0;
	memset(&need, 0, sizeof need);
	for (line = buf; *line; line = next) {
		char *nl = strchr(line, '\n');
		next = nl ? nl + 1 : line + strlen(line);
		if (nl)
			*nl = '\0';
		if (nl > line && nl[-1] == '\r')
			nl[-1] = '\0';
		if (*line == '\0')
			break; /* end of the header */
		if (strncasecmp(line, "Requires-Dist:", 14) == 0) {
			const char *v = line + 14;
			while (*v == ' ')
				v++;
			found |= cv_fw_requires_dist(&need, v, path);
		}
	}
	free(buf);
	if (found || list_anyway) {
		char where[PATH_MAX];
		struct cv_framework *f;
		snprintf(where, sizeof where, "%s/%s", sp, dname);
		f = add_framework(e, name, ver, where);
		f->need = need;
		if (!found)
			snprintf(f->need.source, sizeof f->need.source, "%s",
				 path);
	}
	return found;
}

/* A file where the build recorded its cuDNN: `'cudnn_version': '8'`
 * (TensorFlow) or `cudnn_version = "9"` (ONNX Runtime). */
static void
scan_build_file(struct cv_fw_env *e, struct cv_framework *f, const char *path)
{
	char *buf = read_head(e, path, 64 * 1024);
	const char *p, *q;
	struct cv_version v;

	if (buf == NULL)
		return;
	p = strstr(buf, "cudnn_version");
	if (p != NULL) {
		p += strlen("cudnn_version");
		while (*p && strchr("'\" :=", *p))
			p++;
		/* Windows builds write '64_8' (the DLL's suffix) */
		if (strchr(p, '_') != NULL &&
		    strchr(p, '_') < p + strcspn(p, "'\"\n"))
			p = strchr(p, '_') + 1;
		if (parse_loose(p, &v)) {
			f->need.have = 1;
			snprintf(f->need.via, sizeof f->need.via, "build file");
			need_min(&f->need, &v);
			snprintf(f->need.source, sizeof f->need.source, "%s",
				 path);
			snprintf(f->need.text, sizeof f->need.text,
				 "cudnn_version %.*s", (int)strcspn(p, "'\"\n"),
				 p);
		}
	}
	q = strstr(buf, "cuda_version");
	if (q != NULL && f->need.cuda == 0) {
		q += strlen("cuda_version");
		while (*q && strchr("'\" :=", *q))
			q++;
		if (strchr(q, '_') != NULL &&
		    strchr(q, '_') < q + strcspn(q, "'\"\n"))
			q = strchr(q, '_') + 1;
		/* a CUDA major alone still rules out builds for another */
		if (parse_loose(q, &v) && v.part[0] >= 7) {
			f->need.cuda = (int)v.part[0];
			if (!f->need.have) {
				f->need.have = 1;
				snprintf(f->need.via, sizeof f->need.via,
					 "build file");
				snprintf(f->need.source, sizeof f->need.source,
					 "%s", path);
				snprintf(f->need.text, sizeof f->need.text,
					 "cuda_version %.*s",
					 (int)strcspn(q, "'\"\n"), q);
			}
		}
	}
	free(buf);
}

/* What one DT_NEEDED name says: libcudnn.so.N and libcudnn_*.so.N give
 * the cuDNN major, libcudart.so.N or libcublas.so.N the CUDA major;
 * auditwheel's renamed
 * copies (libcudnn-463fd6d5.so.8.9.7 in CTranslate2 4.4's wheel, whose
 * front library then loads its sub-libraries by name) count too. */
struct elf_needs {
	int cudnn, cuda;
	char name[64];
};

static void
elf_name(void *payload, const char *name)
{
	struct elf_needs *x = payload;
	const char *so = strstr(name, ".so.");
	long major;
	char *end;

	if (so == NULL)
		return;
	major = strtol(so + 4, &end, 10);
	if (major <= 0 || major > 99 || (*end != '\0' && *end != '.'))
		return;
	if (x->cudnn == 0 && strncmp(name, "libcudnn", 8) == 0 &&
	    strchr("._-", name[8]) != NULL) {
		x->cudnn = (int)major;
		snprintf(x->name, sizeof x->name, "%s", name);
	} else if (x->cuda == 0 && ((strncmp(name, "libcudart", 9) == 0 &&
				     strchr(".-", name[9]) != NULL) ||
				    (strncmp(name, "libcublas", 9) == 0 &&
				     strchr(".-", name[9]) != NULL)))
		x->cuda = (int)major;
}

/* A shared object of RECORD's line `line` (its path, relative to sp): 1
 * with its path in out. */
static int
record_so(const char *sp, const char *line, char *out, size_t n)
{
	size_t len = strcspn(line, ",");
	const char *so;

	if (len == 0 || len >= PATH_MAX || line[0] == '/' ||
	    cv_memmem(line, len, "..", 2) != NULL)
		return 0;
	so = cv_memmem(line, len, ".so", 3);
	if (so == NULL || (so + 3 != line + len && so[3] != '.'))
		return 0;
	snprintf(out, n, "%s/%.*s", sp, (int)len, line);
	return 1;
}

#define ELF_FILES_MAX 64

/* A framework whose metadata names no cuDNN: the DT_NEEDED entries of the
 * shared objects its RECORD lists (read without loading them) give the
 * major, or show that it needs none. */
static void
scan_elf(struct cv_fw_env *e, struct cv_framework *f, const char *sp,
	 const char *dname)
{
	char path[PATH_MAX + 64], so[PATH_MAX * 2];
	struct elf_needs x = { 0, 0, "" };
	char *buf, *line, *next;
	size_t len;
	int files = 0;

	snprintf(path, sizeof path, "%s/%s/RECORD", sp, dname);
	buf = read_file(e, path, 4u << 20, 0, 1, &len);
	if (buf == NULL)
		return;
	buf[len] = '\0';
	for (line = buf; *line && files < ELF_FILES_MAX && !x.cudnn;
	     line = next) {
		char *nl = strchr(line, '\n');
		int fd;
		next = nl ? nl + 1 : line + strlen(line);
		if (!record_so(sp, line, so, sizeof so) || scan_spent(e))
			continue;
		/* never blocks (a FIFO), never follows a link out */
		fd = cv_os_open(
			so, CV_OPEN_READ | CV_OPEN_NONBLOCK | CV_OPEN_NOFOLLOW,
			0);
		if (fd < 0)
			continue;
		files++;
		if (cv_elf_needed(fd, elf_name, &x) >= 0 && x.cudnn)
			snprintf(f->need.source, sizeof f->need.source, "%s",
				 so);
		cv_os_close(fd);
	}
	free(buf);
	if (files == 0)
		return;
	if (x.cudnn) {
		f->need.have = 1;
		f->need.min.nparts = 1;
		f->need.min.part[0] = (unsigned long)x.cudnn;
		if (x.cuda)
			f->need.cuda = x.cuda;
		snprintf(f->need.text, sizeof f->need.text, "DT_NEEDED %s",
			 x.name);
		snprintf(f->need.via, sizeof f->need.via, "DT_NEEDED");
	} else if (!f->need.have) {
		snprintf(f->need.text, sizeof f->need.text,
			 "its %d shared objects name no cuDNN", files);
		snprintf(f->need.via, sizeof f->need.via, "DT_NEEDED: none");
	}
}

static void
note_bundled_pip(struct cv_fw_env *e, const char *sp, const char *name,
		 const char *ver)
{
	char dir[PATH_MAX];
	int cuda = cudnn_wheel_name(name, NULL);

	snprintf(dir, sizeof dir, "%s/nvidia/cudnn/lib", sp);
	if (!is_dir(dir))
		return;
	snprintf(e->bundled_dir, sizeof e->bundled_dir, "%s", dir);
	snprintf(e->bundled_via, sizeof e->bundled_via, "nvidia-cudnn wheel");
	snprintf(e->bundled_version, sizeof e->bundled_version, "%s%s%d", ver,
		 cuda ? "-cuda" : "", cuda);
	if (!cuda)
		e->bundled_version[strlen(ver)] = '\0';
}

static void
scan_site_packages(struct cv_fw_env *e, const char *sp)
{
	struct cv_dir *d = cv_dir_open(sp);
	const char *de;
	char **others = NULL, name[128], ver[64];
	size_t nothers = 0;
	int wheel = 0, claimed = 0;

	if (d == NULL)
		return;
	while (!scan_spent(e) && (de = cv_dir_next(d, NULL)) != NULL) {
		if (!split_dist_info(de, name, sizeof name, ver, sizeof ver))
			continue;
		if (cudnn_wheel_name(name, NULL)) {
			wheel = 1;
			note_bundled_pip(e, sp, name, ver);
			continue;
		}
		if (known_dist(name)) {
			size_t before = e->n;
			char file[PATH_MAX];
			int is_framework =
				starts_with(name, "torch") &&
						strcmp(name, "torch") != 0
					? 0
					: 1;
			if (strcmp(name, "jax") == 0)
				is_framework = 0; /* its plugin says it */
			claimed |= scan_metadata(e, sp, de, name, ver,
						 is_framework);
			if (e->n == before)
				continue;
			if (starts_with(name, "tensorflow") ||
			    starts_with(name, "tf_nightly")) {
				snprintf(
					file, sizeof file,
					"%s/tensorflow/python/platform/build_info.py",
					sp);
				scan_build_file(e, &e->fw[e->n - 1], file);
			} else if (starts_with(name, "onnxruntime")) {
				snprintf(
					file, sizeof file,
					"%s/onnxruntime/capi/build_and_package_info.py",
					sp);
				scan_build_file(e, &e->fw[e->n - 1], file);
			}
			/* a build file may name the CUDA major alone */
			if (e->fw[e->n - 1].need.min.nparts == 0)
				scan_elf(e, &e->fw[e->n - 1], sp, de);
			continue;
		}
		others = xrealloc(others, (nothers + 1) * sizeof *others);
		others[nothers++] = xstrdup(de);
	}
	cv_dir_close(d);
	/* an installed cuDNN wheel that no known framework asked for: find
	 * who did */
	for (size_t i = 0; i < nothers; i++) {
		if (wheel && !claimed &&
		    split_dist_info(others[i], name, sizeof name, ver,
				    sizeof ver))
			scan_metadata(e, sp, others[i], name, ver, 0);
		free(others[i]);
	}
	free(others);
}

/* conda-meta/<name>-<version>-<build>.json: the package name is the part
 * before the last two dashes. */
static int
conda_name(const char *file, char *name, size_t n)
{
	size_t len = strlen(file);
	const char *d1, *d2 = NULL;

	if (len < 6 || strcmp(file + len - 5, ".json") != 0)
		return 0;
	d1 = cv_memrchr(file, '-', len - 5);
	if (d1 != NULL)
		d2 = cv_memrchr(file, '-', (size_t)(d1 - file));
	if (d2 == NULL)
		return 0;
	snprintf(name, n, "%.*s", (int)(d2 - file), file);
	return 1;
}

int
cv_fw_conda_depend(struct cv_fw_need *n, const char *s, const char *path)
{
	struct cv_fw_need c;

	if (strncmp(s, "cudnn ", 6) == 0 || strcmp(s, "cudnn") == 0) {
		parse_specifiers(n, s + 5);
		if (!n->have)
			set_source(n, path, s);
		snprintf(n->via, sizeof n->via, "conda depends");
		return 1;
	}
	if (strncmp(s, "cuda-version ", 13) == 0 ||
	    strncmp(s, "cudatoolkit ", 12) == 0) {
		memset(&c, 0, sizeof c);
		parse_specifiers(&c, strchr(s, ' '));
		if (c.min.nparts && c.min.part[0] <= 999)
			n->cuda = (int)c.min.part[0];
	}
	return 0;
}

/* The value of member `key` of the top level of the JSON object text s
 * (parsed by cv_json), or NULL. conda's records list every file of the
 * package (megabytes) beside the two members read here, so the record is
 * only scanned: strings skipped, brackets counted. */
static struct cv_json *
json_member(const char *s, size_t n, const char *key)
{
	size_t klen = strlen(key), i = 0, start = 0;
	int depth = 0, taking = 0;

	while (i < n) {
		char c = s[i];
		if (c == '"') {
			size_t b = ++i, end;
			while (i < n && s[i] != '"')
				i += s[i] == '\\' ? 2 : 1;
			if (i >= n)
				return NULL;
			end = i++;
			if (depth != 1 || taking)
				continue;
			while (i < n && (s[i] == ' ' || s[i] == '\t' ||
					 s[i] == '\r' || s[i] == '\n'))
				i++;
			if (i < n && s[i] == ':' && end - b == klen &&
			    memcmp(s + b, key, klen) == 0) {
				taking = 1;
				start = ++i;
			}
			continue;
		}
		if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (depth == 1 && taking)
				break;
			depth--;
		} else if (c == ',' && depth == 1 && taking) {
			break;
		}
		i++;
	}
	if (!taking || i >= n)
		return NULL;
	return cv_json_loadb(s + start, i - start, CV_JSON_DECODE_ANY, NULL);
}

/* One conda-meta record of a known package. */
static void
scan_conda_record(struct cv_fw_env *e, const char *prefix, const char *path,
		  const char *name)
{
	struct cv_fw_need need;
	struct cv_framework *f;
	struct cv_json *version, *deps;
	const char *ver;
	char *buf;
	size_t len;
	int found = 0;

	buf = read_file(e, path, CONDA_RECORD_MAX, 1, 1, &len);
	if (buf == NULL)
		return;
	version = json_member(buf, len, "version");
	deps = json_member(buf, len, "depends");
	free(buf);
	ver = cv_json_string_value(version) ? cv_json_string_value(version)
					    : "";
	if (strcmp(name, "cudnn") == 0) {
		snprintf(e->bundled_dir, sizeof e->bundled_dir, "%s/lib",
			 prefix);
		snprintf(e->bundled_via, sizeof e->bundled_via,
			 "conda cudnn package");
		snprintf(e->bundled_version, sizeof e->bundled_version, "%s",
			 ver);
	} else {
		memset(&need, 0, sizeof need);
		for (size_t i = 0; i < cv_json_array_size(deps); i++) {
			const char *s = cv_json_string_value(
				cv_json_array_get(deps, i));
			if (s != NULL)
				found |= cv_fw_conda_depend(&need, s, path);
		}
		if (!found)
			need.cuda = 0;
		f = add_framework(e, name, ver, path);
		f->need = need;
		if (!found)
			snprintf(f->need.source, sizeof f->need.source, "%s",
				 path);
	}
	cv_json_decref(version);
	cv_json_decref(deps);
}

static void
scan_conda(struct cv_fw_env *e, const char *prefix)
{
	char dir[PATH_MAX], path[PATH_MAX * 2], name[128];
	struct cv_dir *d;
	const char *de;

	snprintf(dir, sizeof dir, "%s/conda-meta", prefix);
	d = cv_dir_open(dir);
	if (d == NULL)
		return;
	while (!scan_spent(e) && (de = cv_dir_next(d, NULL)) != NULL) {
		int k;
		if (!conda_name(de, name, sizeof name))
			continue;
		for (k = 0; known_conda[k]; k++)
			if (strcmp(name, known_conda[k]) == 0)
				break;
		if (known_conda[k] == NULL)
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de);
		scan_conda_record(e, prefix, path, name);
	}
	cv_dir_close(d);
}

/* site-packages folders of a prefix: lib/python3.*\/site-packages (and
 * lib64), Debian's lib/python3/dist-packages and local/lib/.../dist-packages.
 */
static void
scan_prefix(struct cv_fw_env *e, const char *prefix)
{
	static const char *const libs[] = { "lib", "lib64", "local/lib", NULL };
	char dir[PATH_MAX], sp[PATH_MAX * 2];

	for (int i = 0; libs[i]; i++) {
		struct cv_dir *d;
		const char *de;
		char real[PATH_MAX];

		snprintf(dir, sizeof dir, "%s/%s", prefix, libs[i]);
		/* lib64 is often a link to lib: read it once */
		if (i == 1 && cv_os_realpath(dir, real, sizeof real) != NULL) {
			char lib[PATH_MAX + 8], rl[PATH_MAX];
			snprintf(lib, sizeof lib, "%s/lib", prefix);
			if (cv_os_realpath(lib, rl, sizeof rl) != NULL &&
			    strcmp(rl, real) == 0)
				continue;
		}
		d = cv_dir_open(dir);
		if (d == NULL)
			continue;
		while (!scan_spent(e) && (de = cv_dir_next(d, NULL)) != NULL) {
			if (!starts_with(de, "python3"))
				continue;
			snprintf(sp, sizeof sp, "%s/%s/site-packages", dir, de);
			scan_site_packages(e, sp);
			snprintf(sp, sizeof sp, "%s/%s/dist-packages", dir, de);
			scan_site_packages(e, sp);
		}
		cv_dir_close(d);
	}
	snprintf(dir, sizeof dir, "%s/conda-meta", prefix);
	if (is_dir(dir))
		scan_conda(e, prefix);
}

/* pyvenv.cfg's `home = /usr/bin` and `include-system-site-packages`. */
static void
read_pyvenv(struct cv_fw_env *e, const char *prefix, char *home, size_t n,
	    int *system_site)
{
	char path[PATH_MAX];
	char *buf, *line, *next;

	*home = '\0';
	*system_site = 0;
	snprintf(path, sizeof path, "%s/pyvenv.cfg", prefix);
	buf = read_head(e, path, 16 * 1024);
	if (buf == NULL)
		return;
	for (line = buf; *line; line = next) {
		char *nl = strchr(line, '\n'), *eq, *k, *v;
		next = nl ? nl + 1 : line + strlen(line);
		if (nl)
			*nl = '\0';
		eq = strchr(line, '=');
		if (eq == NULL)
			continue;
		*eq = '\0';
		k = line;
		v = eq + 1;
		while (*k == ' ')
			k++;
		for (char *t = eq - 1; t >= k && *t == ' '; t--)
			*t = '\0';
		while (*v == ' ')
			v++;
		for (char *t = v + strlen(v);
		     t > v && (t[-1] == ' ' || t[-1] == '\r'); t--)
			t[-1] = '\0';
		if (strcmp(k, "home") == 0)
			snprintf(home, n, "%s", v);
		else if (strcmp(k, "include-system-site-packages") == 0)
			*system_site = strcmp(v, "true") == 0;
	}
	free(buf);
}

/* The prefix of the first python3 on PATH: a venv or conda env holding it,
 * else the prefix of the interpreter it links to. */
static int
python_prefix(char *out, size_t n)
{
	const char *path = getenv("PATH");
	char cand[PATH_MAX], real[PATH_MAX];

	if (path == NULL)
		return 0;
	for (const char *p = path; *p;) {
		size_t len = strcspn(p, ":");
		if (len > 0 && len < PATH_MAX - 16 && p[0] == '/') {
			snprintf(cand, sizeof cand, "%.*s/python3", (int)len,
				 p);
			if (cv_os_access(cand, CV_ACCESS_EXEC) == 0 &&
			    is_file(cand)) {
				char up[PATH_MAX + 16];
				/* <prefix>/bin/python3 */
				snprintf(up, sizeof up, "%.*s/../pyvenv.cfg",
					 (int)len, p);
				if (!is_file(up))
					snprintf(up, sizeof up,
						 "%.*s/../conda-meta", (int)len,
						 p);
				if (is_file(up) || is_dir(up)) {
					snprintf(up, sizeof up, "%.*s/..",
						 (int)len, p);
					if (cv_os_realpath(up, out, n) == NULL)
						return 0;
					return 1;
				}
				if (cv_os_realpath(cand, real, sizeof real) ==
				    NULL)
					return 0;
				/* /usr/bin/python3.11 -> /usr */
				for (int i = 0; i < 2; i++) {
					char *s = strrchr(real, '/');
					if (s == NULL || s == real)
						return 0;
					*s = '\0';
				}
				snprintf(out, n, "%s", real);
				return 1;
			}
		}
		p += len;
		if (*p == ':')
			p++;
	}
	return 0;
}

/* <dir>/.venv of the working folder or the nearest parent that has one
 * (a venv: its pyvenv.cfg), as uv and Poetry find the project's
 * environment that nobody activated. */
static int
dot_venv(char *out, size_t n)
{
	char dir[PATH_MAX], cfg[PATH_MAX + 32], *wd = cv_os_getcwd();

	if (wd == NULL || strlen(wd) >= sizeof dir) {
		free(wd);
		return 0;
	}
	snprintf(dir, sizeof dir, "%s", wd);
	free(wd);
	for (;;) {
		char *slash = strrchr(dir, '/');
		snprintf(cfg, sizeof cfg, "%s/.venv/pyvenv.cfg",
			 strcmp(dir, "/") == 0 ? "" : dir);
		if (is_file(cfg)) {
			snprintf(out, n, "%s/.venv",
				 strcmp(dir, "/") == 0 ? "" : dir);
			/* another user's environment decides nothing here */
			if (!cv_fs_project_foreign(CV_AT_CWD, out, "pyvenv.cfg",
						   out))
				return 1;
		}
		if (slash == NULL || strcmp(dir, "/") == 0)
			return 0;
		slash[slash == dir] = '\0';
	}
}

int
cv_fw_env_in_play(char *out, size_t n, char how[32])
{
	const char *v;

	if ((v = getenv("VIRTUAL_ENV")) != NULL && *v == '/') {
		snprintf(out, n, "%s", v);
		snprintf(how, 32, "$VIRTUAL_ENV");
	} else if ((v = getenv("CONDA_PREFIX")) != NULL && *v == '/') {
		snprintf(out, n, "%s", v);
		snprintf(how, 32, "$CONDA_PREFIX");
	} else if (dot_venv(out, n)) {
		snprintf(how, 32, ".venv, not activated");
	} else if (python_prefix(out, n)) {
		snprintf(how, 32, "python3 on PATH");
	} else {
		return 0;
	}
	return 1;
}

int
cv_frameworks_find(struct cv_fw_env *out, const char *prefix,
		   struct cv_err *err)
{
	char home[PATH_MAX], base[PATH_MAX];
	int system_site;

	memset(out, 0, sizeof *out);
	clock_gettime(CLOCK_MONOTONIC, &out->deadline);
	out->deadline.tv_sec += SCAN_SECONDS;
	if (prefix != NULL && *prefix) {
		snprintf(out->prefix, sizeof out->prefix, "%s", prefix);
		snprintf(out->how, sizeof out->how, "given");
	} else if (!cv_fw_env_in_play(out->prefix, sizeof out->prefix,
				      out->how)) {
		return 0; /* no Python: nothing to find */
	}
	scan_prefix(out, out->prefix);
	read_pyvenv(out, out->prefix, home, sizeof home, &system_site);
	if (system_site && home[0] == '/') {
		snprintf(base, sizeof base, "%s", home);
		char *s = strrchr(base, '/');
		if (s != NULL && s != base) {
			*s = '\0';
			scan_prefix(out, base);
		}
	}
	(void)err;
	return 0;
}

/* The program execvp would run for `cmd` (PATH searched when it has no
 * '/'), in out; 0 when there is none. */
static int
find_program(const char *cmd, char *out, size_t n)
{
	const char *path = getenv("PATH");

	if (strchr(cmd, '/') != NULL) {
		snprintf(out, n, "%s", cmd);
		return is_file(out);
	}
	for (const char *p = path ? path : ""; *p;) {
		size_t len = strcspn(p, ":");
		snprintf(out, n, "%.*s/%s", (int)len, len ? p : ".", cmd);
		if (cv_os_access(out, CV_ACCESS_EXEC) == 0 && is_file(out))
			return 1;
		p += len + (p[len] == ':');
	}
	return 0;
}

/* Whether program path is a python* of <prefix>/bin (the folder compared
 * resolved; the file not: a venv's python links to the system's). */
static int
is_env_python(const struct cv_fw_env *e, const char *path)
{
	char dir[PATH_MAX], rdir[PATH_MAX], bin[PATH_MAX + 8], rbin[PATH_MAX];
	const char *base = strrchr(path, '/');

	if (base == NULL || strncmp(base + 1, "python", 6) != 0)
		return 0;
	snprintf(dir, sizeof dir, "%.*s", (int)(base - path), path);
	snprintf(bin, sizeof bin, "%s/bin", e->prefix);
	return cv_os_realpath(dir[0] ? dir : "/", rdir, sizeof rdir) != NULL &&
	       cv_os_realpath(bin, rbin, sizeof rbin) != NULL &&
	       strcmp(rdir, rbin) == 0;
}

int
cv_fw_env_runs(const struct cv_fw_env *e, const char *cmd)
{
	char path[PATH_MAX], head[512], word[PATH_MAX];
	const char *p;
	ssize_t got;

	if (e->prefix[0] == '\0' || !find_program(cmd, path, sizeof path))
		return 0;
	if (is_env_python(e, path))
		return 1;
	/* a script: its "#!" line names the interpreter, directly or
	 * through env (`#!/usr/bin/env python3`, found on PATH) */
	got = cv_fs_read_head(CV_AT_CWD, path, 0, head, sizeof head - 1);
	if (got < 2 || head[0] != '#' || head[1] != '!')
		return 0;
	head[got] = '\0';
	head[strcspn(head, "\r\n")] = '\0';
	for (p = head + 2; *p == ' ' || *p == '\t'; p++)
		;
	snprintf(word, sizeof word, "%.*s", (int)strcspn(p, " \t"), p);
	p += strcspn(p, " \t");
	if (strcmp(word, "/usr/bin/env") == 0 ||
	    strcmp(word, "/bin/env") == 0) {
		/* its options (-S) are passed by */
		for (;;) {
			while (*p == ' ' || *p == '\t')
				p++;
			if (*p != '-')
				break;
			p += strcspn(p, " \t");
		}
		snprintf(word, sizeof word, "%.*s", (int)strcspn(p, " \t"), p);
		if (word[0] == '\0' || !find_program(word, path, sizeof path))
			return 0;
		return is_env_python(e, path);
	}
	return word[0] == '/' && is_env_python(e, word);
}

void
cv_fw_env_release(struct cv_fw_env *e)
{
	free(e->fw);
	e->fw = NULL;
	e->n = 0;
}

int
cv_fw_env_uses_cudnn(const struct cv_fw_env *e)
{
	int uses = e->bundled_dir[0] != '\0';

	for (size_t i = 0; i < e->n; i++)
		uses |= e->fw[i].need.have;
	return uses;
}

void
cv_framework_need_text(const struct cv_framework *f, char *buf, size_t n)
{
	const struct cv_fw_need *nd = &f->need;
	size_t len;

	if (!nd->have || nd->min.nparts == 0) {
		snprintf(buf, n, "any cuDNN");
	} else if (nd->min.nparts == 1) {
		snprintf(buf, n, "cuDNN %lu.x", nd->min.part[0]);
	} else {
		snprintf(buf, n, "cuDNN %lu.x \u2265 %lu.%lu", nd->min.part[0],
			 nd->min.part[0], nd->min.part[1]);
	}
	len = strlen(buf);
	if (nd->max.nparts && len < n) {
		char m[64];
		cv_version_format(&nd->max, m, sizeof m);
		snprintf(buf + len, n - len, ", %s %s",
			 nd->max_incl ? "\u2264" : "<", m);
	}
	for (int i = 0; i < nd->nexclude; i++) {
		char m[64];
		len = strlen(buf);
		cv_version_format(&nd->exclude[i], m, sizeof m);
		if (len < n)
			snprintf(buf + len, n - len, ", not %s", m);
	}
	len = strlen(buf);
	if (nd->cuda && len < n)
		snprintf(buf + len, n - len, " built for CUDA %d", nd->cuda);
}

int
cv_framework_fits(const struct cv_framework *f, const struct cv_version *v)
{
	const struct cv_fw_need *nd = &f->need;

	if (!nd->have)
		return 1;
	if (nd->cuda && v->cuda && nd->cuda != v->cuda)
		return 0;
	if (nd->min.nparts >= 1) {
		if (v->part[0] != nd->min.part[0])
			return 0;
		if (nd->min.nparts >= 2 && v->part[1] < nd->min.part[1])
			return 0;
	}
	if (nd->max.nparts) {
		/* "< 10.0" excludes 10.0.0.1 too: compare the stated parts */
		struct cv_version t = *v;
		int c;
		t.nparts = nd->max.nparts;
		c = cv_version_cmp(&t, &nd->max);
		if (c > 0 || (c == 0 && !nd->max_incl))
			return 0;
	}
	for (int i = 0; i < nd->nexclude; i++)
		if (cv_version_matches(&nd->exclude[i], v))
			return 0;
	return 1;
}

void
cv_framework_install_spec(const struct cv_framework *f, char *buf, size_t n)
{
	const struct cv_fw_need *nd = &f->need;

	if (nd->min.nparts >= 2)
		snprintf(buf, n, "%lu.%lu", nd->min.part[0], nd->min.part[1]);
	else if (nd->min.nparts == 1)
		snprintf(buf, n, "%lu", nd->min.part[0]);
	else
		snprintf(buf, n, "9");
}

void
cv_framework_install_hint(const struct cv_framework *f, char *buf, size_t n)
{
	cv_framework_install_spec(f, buf, n);
	if (f->need.cuda) {
		size_t len = strlen(buf);
		snprintf(buf + len, n - len, " --cuda %d", f->need.cuda);
	}
}
