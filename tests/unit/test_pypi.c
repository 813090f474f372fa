/* test_pypi.c: reading a simple index's project page (PEP 691 JSON and
 * PEP 503 HTML): which files are NVIDIA's cuDNN wheels, yanked files,
 * hashes, links that leave https, and wheel file names. */
#include "base/base.h"
#include "install/install_int.h"
#include "release/release.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAGE "https://idx.example/simple/nvidia-cudnn-cu12/"
#define H1   "1111111111111111111111111111111111111111111111111111111111111111"
#define H2   "2222222222222222222222222222222222222222222222222222222222222222"

static struct cv_wheel *w;
static size_t n;
static struct cv_err last;

static int
parse(const char *doc, int cuda, const char *platform)
{
	cv_wheels_free(w, n);
	w = NULL;
	n = 0;
	last = (struct cv_err)CV_ERR_INIT;
	return cv_pypi_parse(PAGE, doc, strlen(doc), cuda, platform, &w, &n,
			     &last);
}

int
main(void)
{
	struct cv_artifact art;
	char id[64];

	/* JSON: relative URL resolved, yanked (true or a reason) skipped,
	 * other platforms and projects left out, size kept */
	CHECK(parse("{\"files\":["
		    "{\"filename\":\"nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux2014_x86_64.whl\","
		    "\"url\":\"../../f/a.whl\",\"hashes\":{\"sha256\":\"" H1
		    "\"},\"size\":42},"
		    "{\"filename\":\"nvidia_cudnn_cu12-9.2.0.82-py3-none-manylinux2014_x86_64.whl\","
		    "\"url\":\"b.whl\",\"hashes\":{\"sha256\":\"" H2
		    "\"},\"yanked\":\"bad\"},"
		    "{\"filename\":\"nvidia_cudnn_cu12-9.3.0.75-py3-none-manylinux2014_x86_64.whl\","
		    "\"url\":\"c.whl\",\"hashes\":{\"sha256\":\"" H2
		    "\"},\"yanked\":true},"
		    "{\"filename\":\"nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux2014_aarch64.whl\","
		    "\"url\":\"d.whl\",\"hashes\":{\"sha256\":\"" H2 "\"}},"
		    "{\"filename\":\"nvidia_cudnn_cu12-9.1.0.70-py3-none-win_amd64.whl\","
		    "\"url\":\"e.whl\",\"hashes\":{\"sha256\":\"" H2 "\"}},"
		    "{\"filename\":\"nvidia_cudnn_cu12-9.1.0.70.tar.gz\","
		    "\"url\":\"f.tgz\",\"hashes\":{\"sha256\":\"" H2 "\"}}"
		    "]}",
		    12, "linux-x86_64") == 0);
	CHECK(n == 1);
	CHECK(n == 1 && strcmp(w[0].url, "https://idx.example/f/a.whl") == 0);
	CHECK(n == 1 && w[0].size == 42 && strcmp(w[0].sha256, H1) == 0);
	cv_version_format_id(&w[0].version, id, sizeof id);
	CHECK(strcmp(id, "9.1.0.70-cuda12") == 0);
	/* aarch64 wheels are the sbsa builds */
	CHECK(parse("{\"files\":[{\"filename\":\"nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux_2_27_aarch64.manylinux2014_aarch64.whl\","
		    "\"url\":\"d.whl\",\"hashes\":{\"sha256\":\"" H2 "\"}}]}",
		    0, NULL) == 0);
	CHECK(n == 1 && strcmp(w[0].platform, "linux-sbsa") == 0);
	/* no sha256: never installed */
	CHECK(parse("{\"files\":[{\"filename\":\"nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux2014_x86_64.whl\","
		    "\"url\":\"a.whl\",\"hashes\":{}}]}",
		    12, NULL) == 0 &&
	      n == 0);
	/* a link that leaves https fails the page */
	CHECK(parse("{\"files\":[{\"filename\":\"nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux2014_x86_64.whl\","
		    "\"url\":\"http://evil.example/a.whl\",\"hashes\":{\"sha256\":\"" H1
		    "\"}}]}",
		    12, NULL) == CV_EDATA);
	CHECK(strstr(last.msg, "insecure") != NULL);
	CHECK(parse("{\"files\":[{\"filename\":\"nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux2014_x86_64.whl\","
		    "\"url\":\"file:///etc/passwd\",\"hashes\":{\"sha256\":\"" H1
		    "\"}}]}",
		    12, NULL) == CV_EDATA);
	CHECK(parse("{\"files\":", 12, NULL) == CV_EDATA);

	/* HTML: entities, #sha256=, data-yanked, other projects' names */
	CHECK(parse("<html><body>\n"
		    "<a href=\"https://files.example/p/x.whl?a=1&amp;b=2#sha256=" H1
		    "\">"
		    "nvidia_cudnn_cu12-8.9.7.29-py3-none-manylinux1_x86_64.whl</a><br/>\n"
		    "<a href=\"y.whl#sha256=" H2 "\" data-yanked=\"\">"
		    "nvidia_cudnn_cu12-9.0.0.312-py3-none-manylinux1_x86_64.whl</a>\n"
		    "<a href=\"z.whl#sha256=" H2 "\">"
		    "nvidia_cudnn_cu11-9.0.0.312-py3-none-manylinux1_x86_64.whl</a>\n"
		    "<a href=\"q.whl#md5=00\">"
		    "nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux1_x86_64.whl</a>\n"
		    "</body></html>",
		    12, NULL) == 0);
	CHECK(n == 1 &&
	      strcmp(w[0].url, "https://files.example/p/x.whl?a=1&b=2") == 0);
	CHECK(n == 1 && strcmp(w[0].sha256, H1) == 0 && w[0].size == 0);
	/* PEP 592: data-yanked with no value, the last attribute, yanks */
	CHECK(parse("<a href=\"y.whl#sha256=" H2 "\" data-yanked>"
		    "nvidia_cudnn_cu12-9.0.0.312-py3-none-manylinux1_x86_64.whl</a>\n"
		    "<a href=\"z.whl#sha256=" H1 "\"\ndata-yanked\n>"
		    "nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux1_x86_64.whl</a>\n"
		    "<a href=\"q.whl#sha256=" H1 "\" DATA-YANKED/>"
		    "nvidia_cudnn_cu12-9.1.1.17-py3-none-manylinux1_x86_64.whl</a>\n"
		    "<a href=\"u.whl#sha256=" H1 "\" data-yanked=old>"
		    "nvidia_cudnn_cu12-9.1.1.18-py3-none-manylinux1_x86_64.whl</a>\n"
		    "<a href=\"k.whl#sha256=" H1 "\" data-yankedx>"
		    "nvidia_cudnn_cu12-9.2.0.82-py3-none-manylinux1_x86_64.whl</a>\n",
		    12, NULL) == 0);
	CHECK(n == 1 && strstr(w[0].url, "/k.whl") != NULL);
	CHECK(parse("<a href=\"x.whl\">nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux1_x86_64.whl",
		    12, NULL) == CV_EDATA);

	/* file names */
	memset(&art, 0, sizeof art);
	CHECK(cv_wheel_from_filename(
		      &art,
		      "/tmp/Nvidia_CUDNN_cu13-9.19.0.56-py3-none-manylinux_2_27_x86_64.whl") ==
	      0);
	CHECK(art.wheel == 1 && art.version.cuda == 13 &&
	      strcmp(art.platform, "linux-x86_64") == 0);
	CHECK(cv_wheel_from_filename(
		      &art,
		      "nvidia_cudnn_cu12-9.1-py3-none-manylinux1_x86_64.whl") <
	      0);
	CHECK(cv_wheel_from_filename(
		      &art,
		      "nvidia_cudnn_frontend-9.1.0.70-py3-none-manylinux1_x86_64.whl") <
	      0);
	CHECK(cv_wheel_from_filename(
		      &art,
		      "nvidia_cudnn_cu12-9.1.0.70-py3-none-manylinux1_x86_64.zip") <
	      0);
	cv_wheels_free(w, n);
	return TEST_DONE();
}
