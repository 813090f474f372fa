/* junction_win32.c: a folder junction (an NTFS mount point), what the
 * Windows store's `current` is: any user may make one (a symbolic link
 * needs a privilege or Developer Mode), it names an absolute folder, and
 * programs given <store>\current\bin on PATH follow it. Windows renames
 * nothing over a folder (MoveFileExW refuses a folder target even with
 * MOVEFILE_REPLACE_EXISTING), so a switch rewrites the junction's target
 * in place instead: one FSCTL_SET_REPARSE_POINT on the open junction,
 * which the file system applies whole, so a reader sees the old target
 * or the new one, never none. A new junction is made under a temporary
 * name and renamed into place (the name appears whole or not at all). */
#ifdef _WIN32
#include "base/base.h"
#include "base/base_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <windows.h>

#include <winioctl.h>

/* the mount-point form of the reparse buffer (mingw leaves it to the
 * DDK): tag, length, then the substitute and print names */
struct mount_point {
	ULONG tag;
	USHORT len, reserved;
	USHORT sub_off, sub_len, print_off, print_len;
	WCHAR path[1];
};

static int
fail_win(void)
{
	DWORD e = GetLastError();

	errno = e == ERROR_NOT_SUPPORTED || e == ERROR_INVALID_FUNCTION ||
				e == ERROR_INVALID_PARAMETER
			? ENOSYS
		: e == ERROR_ALREADY_EXISTS || e == ERROR_FILE_EXISTS ? EEXIST
		: e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND
			? ENOENT
		: e == ERROR_ACCESS_DENIED ? EACCES
					   : EIO;
	return -1;
}

/* path, full, with the \\?\ prefix that lifts MAX_PATH (xmalloc'd) */
static wchar_t *
long_path(const char *path)
{
	wchar_t *w = cv_win_widen(path), *full, *out;
	DWORD n;

	if (w == NULL)
		return NULL;
	for (wchar_t *p = w; *p; p++)
		if (*p == L'/')
			*p = L'\\';
	full = xmalloc(32768 * sizeof *full);
	n = GetFullPathNameW(w, 32768, full, NULL);
	free(w);
	if (n == 0 || n >= 32768 - 8) {
		free(full);
		errno = ENAMETOOLONG;
		return NULL;
	}
	if (wcsncmp(full, L"\\\\", 2) == 0)
		return full; /* already \\?\ or a share */
	out = xmalloc((n + 5) * sizeof *out);
	wcscpy(out, L"\\\\?\\");
	wcscat(out, full);
	free(full);
	return out;
}

/* the target into the junction open on h */
static int
set_target(HANDLE h, const wchar_t *target)
{
	/* the substitute name is the NT path (\??\C:\...), the print name
	 * the Win32 one; both NUL-ended inside the buffer */
	const wchar_t *plain =
		wcsncmp(target, L"\\\\?\\", 4) == 0 ? target + 4 : target;
	size_t tl = wcslen(plain), size;
	struct mount_point *m;
	DWORD got;
	BOOL ok;

	if (tl > 16000) {
		SetLastError(ERROR_FILENAME_EXCED_RANGE);
		return 0;
	}
	size = sizeof *m + (4 + tl + 1 + tl + 1) * sizeof(WCHAR);
	m = xcalloc(1, size);
	m->tag = IO_REPARSE_TAG_MOUNT_POINT;
	m->sub_off = 0;
	m->sub_len = (USHORT)((4 + tl) * sizeof(WCHAR));
	m->print_off = (USHORT)(m->sub_len + sizeof(WCHAR));
	m->print_len = (USHORT)(tl * sizeof(WCHAR));
	memcpy(m->path, L"\\??\\", 4 * sizeof(WCHAR));
	memcpy(m->path + 4, plain, tl * sizeof(WCHAR));
	memcpy(m->path + 4 + tl + 1, plain, tl * sizeof(WCHAR));
	m->len = (USHORT)(4 * sizeof(USHORT) + m->print_off + m->print_len +
			  sizeof(WCHAR));
	ok = DeviceIoControl(h, FSCTL_SET_REPARSE_POINT, m, 8 + m->len, NULL, 0,
			     &got, NULL);
	free(m);
	return ok;
}

static HANDLE
open_junction(const wchar_t *p)
{
	return CreateFileW(p, GENERIC_WRITE, 0, NULL, OPEN_EXISTING,
			   FILE_FLAG_OPEN_REPARSE_POINT |
				   FILE_FLAG_BACKUP_SEMANTICS,
			   NULL);
}

int
cv_os_junction(const char *path, const char *target, int retarget)
{
	wchar_t *p = long_path(path), *t = long_path(target);
	DWORD attrs;
	HANDLE h;
	int r = -1;

	if (p == NULL || t == NULL)
		goto out;
	attrs = GetFileAttributesW(t);
	if (attrs == INVALID_FILE_ATTRIBUTES ||
	    !(attrs & FILE_ATTRIBUTE_DIRECTORY)) {
		errno = attrs == INVALID_FILE_ATTRIBUTES ? ENOENT : ENOTDIR;
		goto out;
	}
	if (retarget) {
		attrs = GetFileAttributesW(p);
		if (attrs == INVALID_FILE_ATTRIBUTES ||
		    !(attrs & FILE_ATTRIBUTE_REPARSE_POINT)) {
			errno = attrs == INVALID_FILE_ATTRIBUTES ? ENOENT
								 : EINVAL;
			goto out;
		}
	} else if (!CreateDirectoryW(p, NULL)) {
		fail_win();
		goto out;
	}
	h = open_junction(p);
	if (h == INVALID_HANDLE_VALUE || !set_target(h, t)) {
		int e = (fail_win(), errno);
		if (h != INVALID_HANDLE_VALUE)
			CloseHandle(h);
		if (!retarget)
			RemoveDirectoryW(p);
		errno = e;
		goto out;
	}
	CloseHandle(h);
	r = 0;
out:
	free(p);
	free(t);
	return r;
}
#endif
