/* fuzz_index.c: a package index's project page, PEP 691 JSON or PEP 503
 * HTML (cv_pypi_parse), on any bytes.
 *
 * Each input is read as the page of an https:// index and of a file://
 * one, for every CUDA major and for one, for every platform and for one.
 * Oracles, none of them from the parser: errors are one line of
 * CV_EDATA; every wheel listed has a name ending in .whl with no '/' and
 * a sha256 of 64 lower-case hex digits, both found in the page as they
 * are (when the page escapes nothing: no '&', no '\'), a link that is
 * https, or file:// on a file:// page, with no fragment; it is of the
 * CUDA major and platform asked for; a page with no <a and no "files"
 * lists nothing, nor does an HTML page whose every <a tag has a
 * data-yanked attribute. */
#include "fuzz.h"
#include "install/install_int.h"

#include <strings.h>

static const char *const pages[] = {
	"https://idx.example/simple/nvidia-cudnn-cu12/",
	"file:///srv/simple/nvidia-cudnn-cu12/",
};

/* `needle` in [hay, hay + n), case folded when `fold`. */
static int
found(const char *hay, size_t n, const char *needle, int fold)
{
	size_t k = strlen(needle);

	for (size_t i = 0; k <= n && i <= n - k; i++)
		if ((fold ? strncasecmp(hay + i, needle, k)
			  : strncmp(hay + i, needle, k)) == 0)
			return 1;
	return 0;
}

/* 1 when the page is HTML (it does not start with '{') and every <a tag
 * in it carries a data-yanked attribute (PEP 592: present, with a value
 * or not, means yanked), read here with a scan of its own. */
static int
all_yanked(const char *d, size_t n)
{
	size_t i = 0, anchors = 0;

	while (i < n && strchr(" \t\r\n", d[i]) != NULL && d[i] != '\0')
		i++;
	if (i < n && d[i] == '{')
		return 0;
	for (; i + 3 < n; i++) {
		const char *gt;
		int yanked = 0;

		if (d[i] != '<' || (d[i + 1] != 'a' && d[i + 1] != 'A') ||
		    strchr(" \t\r\n", d[i + 2]) == NULL || d[i + 2] == '\0')
			continue;
		anchors++;
		gt = memchr(d + i, '>', n - i);
		if (gt == NULL)
			return 0;
		for (const char *p = d + i + 2; p + 12 <= gt; p++)
			/* a NUL ends no attribute name (strchr would find the
			 * terminator of its own set) */
			if (strchr(" \t\r\n", p[0]) != NULL && p[0] != '\0' &&
			    strncasecmp(p + 1, "data-yanked", 11) == 0 &&
			    p[12] != '\0' &&
			    strchr("= \t\r\n/>", p[12]) != NULL)
				yanked = 1;
		if (!yanked)
			return 0;
	}
	return anchors > 0;
}

static void
check(const char *page, const char *d, size_t size, int cuda,
      const char *platform)
{
	struct cv_wheel *w = NULL;
	struct cv_err err = CV_ERR_INIT;
	size_t n = 0;
	int file_page = strncmp(page, "file://", 7) == 0;
	int plain =
		memchr(d, '&', size) == NULL && memchr(d, '\\', size) == NULL;
	int rc = cv_pypi_parse(page, d, size, cuda, platform, &w, &n, &err);

	fuzz_check_err(rc, &err);
	FUZZ_CHECK(rc == 0 || rc == CV_EDATA, "code %d: %s", rc, err.msg);
	if (rc < 0)
		return;
	FUZZ_CHECK(n == 0 || found(d, size, "<a", 1) ||
			   found(d, size, "files", 0),
		   "%zu wheels from a page without <a or \"files\"", n);
	FUZZ_CHECK(n == 0 || !all_yanked(d, size),
		   "%zu wheels from a page whose every link is yanked", n);
	for (size_t i = 0; i < n; i++) {
		const struct cv_wheel *x = &w[i];
		size_t fl = strlen(x->filename);

		FUZZ_CHECK(fl > 4 &&
				   strcmp(x->filename + fl - 4, ".whl") == 0 &&
				   strchr(x->filename, '/') == NULL,
			   "file name '%s'", x->filename);
		FUZZ_CHECK(fuzz_lower_hex64(x->sha256), "sha256 '%s'",
			   x->sha256);
		FUZZ_CHECK(!plain || found(d, size, x->filename, 0),
			   "'%s' is not in the page", x->filename);
		FUZZ_CHECK(!plain || found(d, size, x->sha256, 1),
			   "sha256 %s is not in the page", x->sha256);
		FUZZ_CHECK(x->url != NULL &&
				   (strncasecmp(x->url, "https://", 8) == 0 ||
				    (file_page &&
				     strncasecmp(x->url, "file://", 7) == 0)),
			   "link '%s' from %s", x->url ? x->url : "(none)",
			   page);
		FUZZ_CHECK(strchr(x->url, '#') == NULL, "fragment in '%s'",
			   x->url);
		FUZZ_CHECK(cuda == 0 || x->version.cuda == cuda,
			   "cuda%d wheel '%s' for cuda%d", x->version.cuda,
			   x->filename, cuda);
		FUZZ_CHECK(platform == NULL ||
				   strcmp(x->platform, platform) == 0,
			   "%s wheel for %s", x->platform, platform);
		FUZZ_CHECK(x->version.nparts == 4, "version of '%s'",
			   x->filename);
	}
	cv_wheels_free(w, n);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *d = fuzz_cstr(data, size);

	for (size_t p = 0; p < sizeof pages / sizeof pages[0]; p++) {
		check(pages[p], d, size, 0, NULL);
		check(pages[p], d, size, 12, "linux-x86_64");
	}
	free(d);
	return 0;
}
