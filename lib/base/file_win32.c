/* file_win32.c: the files, folders and links of base's face (cv_os_*,
 * cv_dir_*) on Win32, the twin of file_posix.c. Paths cross the face in
 * UTF-8 and the system in UTF-16 (the W calls), with the \\?\ prefix past
 * MAX_PATH. base's handles are ints, so the HANDLEs live in a table here
 * and an int is a slot of it; a folder handle keeps its full path too, as
 * the Win32 calls that act on a name take a path, not a folder handle.
 * What the POSIX side's race-safety rests on is kept where Windows can:
 * links, junctions among them, are never followed where POSIX would
 * refuse them (FILE_FLAG_OPEN_REPARSE_POINT), and a folder handle is opened
 * without FILE_SHARE_DELETE, so that while it is held the folder cannot be
 * renamed or removed and its path keeps naming the same folder. Concepts
 * without a Windows meaning are said at each function. */
#ifdef _WIN32
/* rand_s, for cv_os_mkstemp */
#define _CRT_RAND_S
#include "base/base_int.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* windows.h before the headers that need its types */
#include <windows.h>

#include <io.h>

#include <aclapi.h>
#include <sddl.h>

/* Windows epoch (1601) to the Unix one, in 100 ns ticks */
#define EPOCH_DIFF 116444736000000000LL

/* mingw's headers leave the reparse buffer to the DDK */
struct reparse {
	ULONG tag;
	USHORT len, reserved;
	USHORT sub_off, sub_len, print_off, print_len;
	ULONG flags; /* symbolic links only: a junction's path starts here */
	WCHAR path[1];
};

/* ---- errors and paths ------------------------------------------------- */

static int
errno_of(DWORD e)
{
	switch (e) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
	case ERROR_INVALID_DRIVE:
	case ERROR_BAD_NETPATH:
	case ERROR_MOD_NOT_FOUND:
		return ENOENT;
	case ERROR_FILE_EXISTS:
	case ERROR_ALREADY_EXISTS:
		return EEXIST;
	case ERROR_ACCESS_DENIED:
	case ERROR_SHARING_VIOLATION:
	case ERROR_LOCK_VIOLATION:
	case ERROR_WRITE_PROTECT:
		return EACCES;
	case ERROR_PRIVILEGE_NOT_HELD:
		return EPERM;
	case ERROR_INVALID_HANDLE:
		return EBADF;
	case ERROR_DIR_NOT_EMPTY:
		return ENOTEMPTY;
	case ERROR_DIRECTORY:
		return ENOTDIR;
	case ERROR_FILENAME_EXCED_RANGE:
	case ERROR_BUFFER_OVERFLOW:
		return ENAMETOOLONG;
	case ERROR_DISK_FULL:
	case ERROR_HANDLE_DISK_FULL:
		return ENOSPC;
	case ERROR_NOT_SAME_DEVICE:
		return EXDEV;
	case ERROR_NOT_SUPPORTED:
	case ERROR_CALL_NOT_IMPLEMENTED:
		return ENOSYS;
	case ERROR_CANT_RESOLVE_FILENAME:
		return ELOOP;
	case ERROR_NOT_ENOUGH_MEMORY:
	case ERROR_OUTOFMEMORY:
		return ENOMEM;
	default:
		return EINVAL;
	}
}

static int
fail_win(void)
{
	errno = errno_of(GetLastError());
	return -1;
}

static int
fail(int e)
{
	errno = e;
	return -1;
}

wchar_t *
cv_win_widen(const char *s)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL,
				    0);
	wchar_t *w;

	if (n <= 0) {
		errno = EINVAL;
		return NULL;
	}
	w = xmalloc((size_t)n * sizeof *w);
	MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n);
	return w;
}

#define widen cv_win_widen

/* UTF-16 (wlen units, -1: up to its NUL) into buf as UTF-8: its length,
 * -1 with ENAMETOOLONG when it does not fit in n-1 bytes */
static long
narrow_into(const wchar_t *w, int wlen, char *buf, size_t n)
{
	int len;

	if (wlen < 0)
		wlen = (int)wcslen(w);
	len = wlen == 0 ? 0
			: WideCharToMultiByte(CP_UTF8, 0, w, wlen, NULL, 0,
					      NULL, NULL);

	if (len < 0 || (size_t)len >= n || n > INT_MAX) {
		if (n > 0)
			buf[0] = '\0';
		return fail(ENAMETOOLONG);
	}
	WideCharToMultiByte(CP_UTF8, 0, w, wlen, buf, (int)n, NULL, NULL);
	buf[len] = '\0';
	return len;
}

static char *
narrow(const wchar_t *w)
{
	int len = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
	char *s = xmalloc(len > 0 ? (size_t)len : 1);

	s[0] = '\0';
	if (len > 0)
		WideCharToMultiByte(CP_UTF8, 0, w, -1, s, len, NULL, NULL);
	return s;
}

static int
is_absolute(const char *p)
{
	return p[0] == '/' || p[0] == '\\' ||
	       (p[0] != '\0' && p[1] == ':' && (p[2] == '/' || p[2] == '\\'));
}

/* ---- the handle table ------------------------------------------------- */

/* Where cv_os_lock's byte lies: LockFileEx's locks are mandatory for the
 * range they cover, so it is one byte far past any data (2^62), and a
 * lock file can still be read and written by anyone. */
#define LOCK_AT 0x40000000u

struct slot {
	HANDLE h;
	wchar_t *path; /* full path, folders only */
	int used, is_dir;
	int locked;   /* cv_os_lock holds LOCK_AT, given back at the close */
	HANDLE mutex; /* a folder's lock (cv_os_lock), owned */
};

#define FIRST_FD 3 /* 0..2 stay the C library's standard streams */
/* each slot allocated once and reused, never moved: a thread holding one
 * is not left pointing into a table another thread grew */
static struct slot **slots;
static size_t nslots;
static SRWLOCK slots_lock = SRWLOCK_INIT;

static int
slot_add(HANDLE h, wchar_t *path, int is_dir)
{
	size_t i;

	AcquireSRWLockExclusive(&slots_lock);
	for (i = 0; i < nslots && slots[i]->used; i++)
		;
	if (i == nslots) {
		size_t j;
		nslots = nslots ? nslots * 2 : 16;
		slots = xrealloc(slots, nslots * sizeof *slots);
		for (j = i; j < nslots; j++)
			slots[j] = xcalloc(1, sizeof **slots);
	}
	slots[i]->h = h;
	slots[i]->path = path;
	slots[i]->used = 1;
	slots[i]->is_dir = is_dir;
	ReleaseSRWLockExclusive(&slots_lock);
	return (int)i + FIRST_FD;
}

/* the slot of fd, or NULL with EBADF */
static struct slot *
slot_of(int fd)
{
	struct slot *s = NULL;

	AcquireSRWLockShared(&slots_lock);
	if (fd >= FIRST_FD && (size_t)(fd - FIRST_FD) < nslots &&
	    slots[fd - FIRST_FD]->used)
		s = slots[fd - FIRST_FD];
	ReleaseSRWLockShared(&slots_lock);
	if (s == NULL)
		errno = EBADF;
	return s;
}

static HANDLE
handle_of(int fd)
{
	struct slot *s;

	/* the standard streams' handles, as the C library holds them (a
	 * child's JSON lines go to fd 1) */
	if (fd >= 0 && fd < FIRST_FD) {
		intptr_t h = _get_osfhandle(fd);

		if (h == -1 || h == -2) {
			errno = EBADF;
			return INVALID_HANDLE_VALUE;
		}
		return (HANDLE)h;
	}
	s = slot_of(fd);

	return s != NULL ? s->h : INVALID_HANDLE_VALUE;
}

/* The full path of `name` of folder handle dir, normalized by
 * GetFullPathNameW and long-path prefixed where it needs it (xmalloc'd);
 * NULL with errno. */
static wchar_t *
full_path(int dir, const char *name)
{
	wchar_t *w, *joined, *full;
	DWORD n;
	size_t len;

	if (name == NULL || name[0] == '\0') {
		errno = ENOENT;
		return NULL;
	}
	if ((w = widen(name)) == NULL)
		return NULL;
	if (dir != CV_AT_CWD && !is_absolute(name)) {
		struct slot *s = slot_of(dir);
		if (s == NULL || !s->is_dir) {
			free(w);
			if (s != NULL)
				errno = ENOTDIR;
			return NULL;
		}
		len = wcslen(s->path) + wcslen(w) + 2;
		joined = xmalloc(len * sizeof *joined);
		swprintf(joined, len, L"%ls\\%ls", s->path, w);
		free(w);
		w = joined;
	}
	n = GetFullPathNameW(w, 0, NULL, NULL);
	if (n == 0) {
		free(w);
		fail_win();
		return NULL;
	}
	full = xmalloc(((size_t)n + 8) * sizeof *full);
	if (GetFullPathNameW(w, n, full, NULL) == 0) {
		free(w);
		free(full);
		fail_win();
		return NULL;
	}
	free(w);
	len = wcslen(full);
	/* past MAX_PATH only the \\?\ form reaches the file (a UNC path as
	 * \\?\UNC\server\share) */
	if (len >= MAX_PATH - 12 && wcsncmp(full, L"\\\\?\\", 4) != 0) {
		int unc = full[0] == L'\\' && full[1] == L'\\';
		wchar_t *p = xmalloc((len + 10) * sizeof *p);
		if (unc)
			swprintf(p, len + 10, L"\\\\?\\UNC%ls", full + 1);
		else
			swprintf(p, len + 10, L"\\\\?\\%ls", full);
		free(full);
		full = p;
	}
	return full;
}

/* ---- stat ------------------------------------------------------------- */

static int64_t
ticks_of(FILETIME ft)
{
	return (int64_t)(((uint64_t)ft.dwHighDateTime << 32) |
			 ft.dwLowDateTime) -
	       EPOCH_DIFF;
}

/* Set the access and write times of h to *t: FileBasicInfo's zeros
 * leave creation, change times and attributes as they are */
static int
set_times(HANDLE h, const struct timespec *t)
{
	FILE_BASIC_INFO bi;

	memset(&bi, 0, sizeof bi);
	bi.LastWriteTime.QuadPart =
		(int64_t)t->tv_sec * 10000000 + t->tv_nsec / 100 + EPOCH_DIFF;
	bi.LastAccessTime = bi.LastWriteTime;
	if (!SetFileInformationByHandle(h, FileBasicInfo, &bi, sizeof bi))
		return fail_win();
	return 0;
}

/* The token's user SID of this process, read once (NULL when it cannot
 * be read). */
static PSID
token_user(void)
{
	static char buf[256];
	static PSID sid;
	HANDLE tok;
	DWORD got;

	if (sid != NULL)
		return sid;
	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &tok))
		return NULL;
	if (GetTokenInformation(tok, TokenUser, buf, sizeof buf, &got))
		sid = ((TOKEN_USER *)(void *)buf)->User.Sid;
	CloseHandle(tok);
	return sid;
}

static int
is_well_known(PSID sid, WELL_KNOWN_SID_TYPE type)
{
	return IsWellKnownSid(sid, type) != 0;
}

/* Windows has no uid: the owner is a SID. What the face's callers ask of
 * uid is "this user, root, or another": this user's SID maps to
 * cv_os_uid() (its relative id), SYSTEM and Administrators, who can do
 * anything root can, to 0, any other SID to its own relative id, or -2
 * where that would be taken for ours. */
static long
uid_of_sid(PSID sid)
{
	PSID me = token_user();
	long rid;

	if (sid == NULL || !IsValidSid(sid))
		return -2;
	if (me != NULL && EqualSid(sid, me))
		return cv_os_uid();
	if (is_well_known(sid, WinLocalSystemSid) ||
	    is_well_known(sid, WinBuiltinAdministratorsSid))
		return 0;
	rid = (long)*GetSidSubAuthority(sid,
					*GetSidSubAuthorityCount(sid) - 1u);
	return rid == cv_os_uid() || rid == 0 ? -2 : rid;
}

#define WRITE_RIGHTS                                                        \
	(FILE_WRITE_DATA | FILE_APPEND_DATA | GENERIC_WRITE | GENERIC_ALL | \
	 WRITE_DAC | WRITE_OWNER | DELETE | FILE_DELETE_CHILD)

/* The group/other write bits (022) a caller's trust check reads: the DACL
 * allows writing to a SID other than the owner, SYSTEM, Administrators,
 * CREATOR OWNER or OWNER RIGHTS (Windows does not tell group from other: both
 * bits). A missing DACL grants everyone everything. */
static unsigned
foreign_write_bits(PACL dacl, PSID owner)
{
	ACL_SIZE_INFORMATION info;
	DWORD i;

	if (dacl == NULL)
		return 022;
	if (!GetAclInformation(dacl, &info, sizeof info, AclSizeInformation))
		return 022;
	for (i = 0; i < info.AceCount; i++) {
		ACCESS_ALLOWED_ACE *ace;
		PSID sid;
		if (!GetAce(dacl, i, (void **)&ace) ||
		    ace->Header.AceType != ACCESS_ALLOWED_ACE_TYPE ||
		    (ace->Header.AceFlags & INHERIT_ONLY_ACE) ||
		    !(ace->Mask & WRITE_RIGHTS))
			continue;
		sid = (PSID)&ace->SidStart;
		if ((owner != NULL && EqualSid(sid, owner)) ||
		    is_well_known(sid, WinLocalSystemSid) ||
		    is_well_known(sid, WinBuiltinAdministratorsSid) ||
		    is_well_known(sid, WinCreatorOwnerSid) ||
		    is_well_known(sid, WinCreatorOwnerRightsSid))
			continue;
		return 022;
	}
	return 0;
}

/* Windows has no mode bits. perm is what they would say here: the owner
 * may read, may write unless the file is read-only, may run a folder or
 * a program (.exe, .com, .bat, .cmd); 022 where the DACL lets another
 * write; the rest (read by others, setuid, sticky) is left out as no
 * caller judges a Windows file by it. */
static unsigned
perm_of(HANDLE h, DWORD attrs, int kind, const wchar_t *name, long *uid)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	PSID owner = NULL;
	PACL dacl = NULL;
	unsigned perm = 0400;
	size_t len = name != NULL ? wcslen(name) : 0;

	if (!(attrs & FILE_ATTRIBUTE_READONLY) || kind == CV_KIND_DIR)
		perm |= 0200;
	if (kind == CV_KIND_DIR ||
	    (len > 4 && (_wcsicmp(name + len - 4, L".exe") == 0 ||
			 _wcsicmp(name + len - 4, L".com") == 0 ||
			 _wcsicmp(name + len - 4, L".bat") == 0 ||
			 _wcsicmp(name + len - 4, L".cmd") == 0)))
		perm |= 0100;
	*uid = -2;
	if (GetSecurityInfo(h, SE_FILE_OBJECT,
			    OWNER_SECURITY_INFORMATION |
				    DACL_SECURITY_INFORMATION,
			    &owner, NULL, &dacl, NULL, &sd) == ERROR_SUCCESS) {
		*uid = uid_of_sid(owner);
		perm |= foreign_write_bits(dacl, owner);
		LocalFree(sd);
	}
	return perm;
}

static DWORD
reparse_tag(HANDLE h)
{
	FILE_ATTRIBUTE_TAG_INFO tag;

	if (!GetFileInformationByHandleEx(h, FileAttributeTagInfo, &tag,
					  sizeof tag))
		return 0;
	return (tag.FileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)
		       ? tag.ReparseTag
		       : 0;
}

/* A junction (a mount point) is a link too: any user may make one, and
 * it sends a name elsewhere as a symbolic link does, so whatever refuses
 * links refuses it. */
static int
is_link_tag(DWORD tag)
{
	return tag == IO_REPARSE_TAG_SYMLINK ||
	       tag == IO_REPARSE_TAG_MOUNT_POINT;
}

static int
kind_of(HANDLE h, DWORD attrs)
{
	if ((attrs & FILE_ATTRIBUTE_REPARSE_POINT) &&
	    is_link_tag(reparse_tag(h)))
		return CV_KIND_LINK;
	if (attrs & FILE_ATTRIBUTE_DIRECTORY)
		return CV_KIND_DIR;
	if (attrs & FILE_ATTRIBUTE_DEVICE)
		return CV_KIND_OTHER;
	return CV_KIND_FILE;
}

/* identity: the volume's serial and the file's index, what Windows
 * gives as dev and ino. A handle without by-handle information is not a
 * volume's file (a console, a pipe); GetFileType is asked only then, as
 * under wine it reads the file, which on a relatime mount moves the
 * access time just set. */
static int
stat_handle(HANDLE h, const wchar_t *name, struct cv_stat *st)
{
	BY_HANDLE_FILE_INFORMATION fi;
	int64_t t;

	memset(st, 0, sizeof *st);
	if (!GetFileInformationByHandle(h, &fi)) {
		DWORD e = GetLastError();
		if (GetFileType(h) == FILE_TYPE_DISK) {
			SetLastError(e);
			return fail_win();
		}
		/* a console or pipe: no identity on a volume */
		st->kind = CV_KIND_OTHER;
		st->perm = 0600;
		st->uid = cv_os_uid();
		return 0;
	}
	st->kind = kind_of(h, fi.dwFileAttributes);
	st->size = ((uint64_t)fi.nFileSizeHigh << 32) | fi.nFileSizeLow;
	t = ticks_of(fi.ftLastWriteTime);
	st->mtime = t / 10000000;
	st->mtime_ns = (long)(t % 10000000) * 100;
	st->atime = ticks_of(fi.ftLastAccessTime) / 10000000;
	st->dev = fi.dwVolumeSerialNumber;
	st->ino = ((uint64_t)fi.nFileIndexHigh << 32) | fi.nFileIndexLow;
	st->perm = perm_of(h, fi.dwFileAttributes, st->kind, name, &st->uid);
	return 0;
}

/* a handle to look at the file by (never to read it): the link itself
 * with nofollow */
static HANDLE
open_meta(const wchar_t *p, int nofollow, DWORD access)
{
	return CreateFileW(
		p, access | FILE_READ_ATTRIBUTES | READ_CONTROL,
		FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
		OPEN_EXISTING,
		FILE_FLAG_BACKUP_SEMANTICS |
			(nofollow ? FILE_FLAG_OPEN_REPARSE_POINT : 0),
		NULL);
}

int
cv_os_stat_at(int dir, const char *name, int nofollow, struct cv_stat *st)
{
	wchar_t *p = full_path(dir, name);
	HANDLE h;
	int r;

	if (p == NULL)
		return -1;
	h = open_meta(p, nofollow, 0);
	if (h == INVALID_HANDLE_VALUE) {
		free(p);
		return fail_win();
	}
	r = stat_handle(h, p, st);
	CloseHandle(h);
	free(p);
	return r;
}

int
cv_os_stat(const char *path, struct cv_stat *st)
{
	return cv_os_stat_at(CV_AT_CWD, path, 0, st);
}

int
cv_os_lstat(const char *path, struct cv_stat *st)
{
	return cv_os_stat_at(CV_AT_CWD, path, 1, st);
}

int
cv_os_fstat(int fd, struct cv_stat *st)
{
	struct slot *s = slot_of(fd);
	wchar_t name[MAX_PATH];

	if (s == NULL)
		return -1;
	name[0] = L'\0';
	GetFinalPathNameByHandleW(s->h, name, MAX_PATH, FILE_NAME_NORMALIZED);
	return stat_handle(s->h, name, st);
}

int
cv_os_same_file(const struct cv_stat *a, const struct cv_stat *b)
{
	return a->dev == b->dev && a->ino == b->ino;
}

/* ---- open, read, write ------------------------------------------------ */

static DWORD
disposition(unsigned flags)
{
	if ((flags & CV_OPEN_CREATE) && (flags & CV_OPEN_EXCL))
		return CREATE_NEW;
	if ((flags & CV_OPEN_CREATE) && (flags & CV_OPEN_TRUNC))
		return CREATE_ALWAYS;
	if (flags & CV_OPEN_CREATE)
		return OPEN_ALWAYS;
	if (flags & CV_OPEN_TRUNC)
		return TRUNCATE_EXISTING;
	return OPEN_EXISTING;
}

static DWORD
access_of(unsigned flags)
{
	DWORD a = 0;

	if (flags & CV_OPEN_PATH)
		return FILE_READ_ATTRIBUTES | READ_CONTROL;
	if (flags & CV_OPEN_READ)
		a |= GENERIC_READ;
	/* APPEND: every write at the end, Windows' own way of it */
	if (flags & CV_OPEN_APPEND)
		a |= FILE_APPEND_DATA | FILE_WRITE_ATTRIBUTES | READ_CONTROL |
		     SYNCHRONIZE;
	else if (flags & CV_OPEN_WRITE)
		a |= GENERIC_WRITE;
	if (!(flags & (CV_OPEN_READ | CV_OPEN_WRITE | CV_OPEN_APPEND)))
		a |= GENERIC_READ;
	if (flags & CV_OPEN_TRUNC)
		a |= GENERIC_WRITE;
	return a | FILE_READ_ATTRIBUTES;
}

/* NONBLOCK and NOCTTY have nothing to do on Windows: no FIFO lives among
 * a volume's files (pipes are under \\.\pipe\) and a process takes no
 * controlling terminal by opening one. A folder is opened for its handle
 * (BACKUP_SEMANTICS) and shared without DELETE: see the top. */
int
cv_os_open_at(int dir, const char *name, unsigned flags, unsigned mode)
{
	wchar_t *p = full_path(dir, name);
	int want_dir = (flags & CV_OPEN_DIR) != 0;
	DWORD share = FILE_SHARE_READ | FILE_SHARE_WRITE |
		      (want_dir ? 0 : FILE_SHARE_DELETE);
	DWORD attr = FILE_ATTRIBUTE_NORMAL | FILE_FLAG_BACKUP_SEMANTICS;
	BY_HANDLE_FILE_INFORMATION fi;
	HANDLE h;

	if (p == NULL)
		return -1;
	if ((flags & CV_OPEN_CREATE) && !(mode & 0200))
		attr |= FILE_ATTRIBUTE_READONLY;
	if (flags & CV_OPEN_NOFOLLOW)
		attr |= FILE_FLAG_OPEN_REPARSE_POINT;
	h = CreateFileW(p, access_of(flags), share, NULL, disposition(flags),
			attr, NULL);
	if (h == INVALID_HANDLE_VALUE) {
		DWORD e = GetLastError();
		DWORD a = GetFileAttributesW(p);
		free(p);
		/* a folder asked for as a file */
		if (e == ERROR_ACCESS_DENIED && !want_dir &&
		    a != INVALID_FILE_ATTRIBUTES &&
		    (a & FILE_ATTRIBUTE_DIRECTORY))
			return fail(EISDIR);
		SetLastError(e);
		return fail_win();
	}
	if (!GetFileInformationByHandle(h, &fi)) {
		if (GetFileType(h) != FILE_TYPE_DISK && !want_dir) {
			free(p);
			return slot_add(h, NULL, 0);
		}
		CloseHandle(h);
		free(p);
		return fail_win();
	}
	if ((flags & CV_OPEN_NOFOLLOW) &&
	    kind_of(h, fi.dwFileAttributes) == CV_KIND_LINK) {
		CloseHandle(h);
		free(p);
		return fail(ELOOP);
	}
	if (want_dir && !(fi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)) {
		CloseHandle(h);
		free(p);
		return fail(ENOTDIR);
	}
	/* a folder is never opened to be written, as on POSIX */
	if (!want_dir && (fi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) &&
	    (flags & (CV_OPEN_WRITE | CV_OPEN_APPEND | CV_OPEN_TRUNC))) {
		CloseHandle(h);
		free(p);
		return fail(EISDIR);
	}
	if (!(fi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) &&
	    !(flags & CV_OPEN_PATH) && (flags & CV_OPEN_APPEND)) {
		LARGE_INTEGER zero = { 0 };
		SetFilePointerEx(h, zero, NULL, FILE_END);
	}
	if (fi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)
		return slot_add(h, p, 1);
	free(p);
	return slot_add(h, NULL, 0);
}

int
cv_os_open(const char *path, unsigned flags, unsigned mode)
{
	return cv_os_open_at(CV_AT_CWD, path, flags, mode);
}

long
cv_os_read(int fd, void *buf, size_t n)
{
	HANDLE h = handle_of(fd);
	DWORD got;

	if (h == INVALID_HANDLE_VALUE)
		return -1;
	if (n > 0x40000000)
		n = 0x40000000;
	if (!ReadFile(h, buf, (DWORD)n, &got, NULL)) {
		/* the writer of a pipe has gone: the end */
		if (GetLastError() == ERROR_BROKEN_PIPE)
			return 0;
		return fail_win();
	}
	return (long)got;
}

/* pread without moving the offset, as POSIX's: ReadFile at an offset
 * moves a synchronous handle's, so it is put back */
/* pread(2)/pwrite(2): an OVERLAPPED offset moves the file pointer of a
 * synchronous handle, so it is put back, as POSIX leaves it */
static long
positioned(int fd, void *buf, size_t n, uint64_t off, int write)
{
	HANDLE h = handle_of(fd);
	LARGE_INTEGER zero = { 0 }, here;
	OVERLAPPED ov;
	DWORD moved;
	BOOL ok;

	if (h == INVALID_HANDLE_VALUE)
		return -1;
	if (n == 0)
		return 0;
	if (n > 0x40000000)
		n = 0x40000000;
	if (!SetFilePointerEx(h, zero, &here, FILE_CURRENT))
		return fail_win();
	memset(&ov, 0, sizeof ov);
	ov.Offset = (DWORD)(off & 0xffffffffu);
	ov.OffsetHigh = (DWORD)(off >> 32);
	ok = write ? WriteFile(h, buf, (DWORD)n, &moved, &ov)
		   : ReadFile(h, buf, (DWORD)n, &moved, &ov);
	if (!ok && !write && GetLastError() == ERROR_HANDLE_EOF)
		ok = TRUE, moved = 0;
	if (!ok) {
		DWORD e = GetLastError();
		SetFilePointerEx(h, here, NULL, FILE_BEGIN);
		SetLastError(e);
		return fail_win();
	}
	SetFilePointerEx(h, here, NULL, FILE_BEGIN);
	return (long)moved;
}

long
cv_os_pread(int fd, void *buf, size_t n, uint64_t off)
{
	return positioned(fd, buf, n, off, 0);
}

long
cv_os_write(int fd, const void *buf, size_t n)
{
	HANDLE h = handle_of(fd);
	DWORD put;

	if (h == INVALID_HANDLE_VALUE)
		return -1;
	if (n > 0x40000000)
		n = 0x40000000;
	if (!WriteFile(h, buf, (DWORD)n, &put, NULL))
		return fail_win();
	return (long)put;
}

long
cv_os_pwrite(int fd, const void *buf, size_t n, uint64_t off)
{
	return positioned(fd, (void *)buf, n, off, 1);
}

int
cv_os_close(int fd)
{
	struct slot *s = slot_of(fd);
	BOOL ok;

	if (s == NULL)
		return -1;
	AcquireSRWLockExclusive(&slots_lock);
	if (s->locked) {
		/* at once: a lock left to the close goes "when the system
		 * gets to it", and the next taker must not wait for that */
		OVERLAPPED ov;
		memset(&ov, 0, sizeof ov);
		ov.OffsetHigh = LOCK_AT;
		UnlockFileEx(s->h, 0, 1, 0, &ov);
	}
	if (s->mutex != NULL) {
		ReleaseMutex(s->mutex);
		CloseHandle(s->mutex);
	}
	ok = CloseHandle(s->h);
	free(s->path);
	memset(s, 0, sizeof *s);
	ReleaseSRWLockExclusive(&slots_lock);
	return ok ? 0 : fail_win();
}

/* A folder's names are NTFS's journaled metadata, and a folder handle
 * opened to read cannot be flushed (FlushFileBuffers wants write access):
 * there is nothing to wait for, as the face's callers sync a folder to
 * make its names last. */
int
cv_os_sync(int fd)
{
	struct slot *s = slot_of(fd);

	if (s == NULL)
		return -1;
	if (s->is_dir)
		return 0;
	if (FlushFileBuffers(s->h))
		return 0;
	/* FlushFileBuffers wants write access, which fsync(2) does not:
	 * a handle opened to read flushes through a second one of the file
	 * opened to write (refused for a read-only file) */
	if (GetLastError() == ERROR_ACCESS_DENIED) {
		HANDLE w = ReOpenFile(s->h, GENERIC_WRITE,
				      FILE_SHARE_READ | FILE_SHARE_WRITE |
					      FILE_SHARE_DELETE,
				      0);
		BOOL ok;
		if (w == INVALID_HANDLE_VALUE)
			return fail_win();
		ok = FlushFileBuffers(w);
		CloseHandle(w);
		return ok ? 0 : fail_win();
	}
	return fail_win();
}

/* Windows starts no write-back on request: a no-op, as the face allows */
void
cv_os_writeback(int fd, uint64_t off, uint64_t len)
{
	(void)fd, (void)off, (void)len;
}

/* ftruncate: SetEndOfFile cuts at the file pointer, so the pointer is
 * moved to len and put back after, as ftruncate leaves the offset */
int
cv_os_truncate(int fd, uint64_t len)
{
	HANDLE h = handle_of(fd);
	LARGE_INTEGER zero = { 0 }, here, to;
	BOOL ok;

	if (h == INVALID_HANDLE_VALUE)
		return -1;
	if (len > (uint64_t)INT64_MAX)
		return fail(EFBIG);
	if (!SetFilePointerEx(h, zero, &here, FILE_CURRENT))
		return fail_win();
	to.QuadPart = (LONGLONG)len;
	ok = SetFilePointerEx(h, to, NULL, FILE_BEGIN) && SetEndOfFile(h);
	if (!ok) {
		DWORD e = GetLastError();
		SetFilePointerEx(h, here, NULL, FILE_BEGIN);
		SetLastError(e);
		return fail_win();
	}
	SetFilePointerEx(h, here, NULL, FILE_BEGIN);
	return 0;
}

int
cv_os_seek(int fd, uint64_t off)
{
	HANDLE h = handle_of(fd);
	LARGE_INTEGER to;

	if (h == INVALID_HANDLE_VALUE)
		return -1;
	if (off > (uint64_t)INT64_MAX)
		return fail(EINVAL);
	to.QuadPart = (LONGLONG)off;
	return SetFilePointerEx(h, to, NULL, FILE_BEGIN) ? 0 : fail_win();
}

/* ---- names ------------------------------------------------------------ */

int
cv_os_remove_at(int dir, const char *name, int is_dir)
{
	wchar_t *p = full_path(dir, name);
	BOOL ok;

	if (p == NULL)
		return -1;
	ok = is_dir ? RemoveDirectoryW(p) : DeleteFileW(p);
	free(p);
	return ok ? 0 : fail_win();
}

int
cv_os_unlink(const char *path)
{
	return cv_os_remove_at(CV_AT_CWD, path, 0);
}

int
cv_os_rmdir(const char *path)
{
	return cv_os_remove_at(CV_AT_CWD, path, 1);
}

/* mode: a new folder takes its parent's inherited DACL, which is what
 * Windows has in place of the mode */
int
cv_os_mkdir_at(int dir, const char *name, unsigned mode)
{
	wchar_t *p = full_path(dir, name);
	BOOL ok;

	(void)mode;
	if (p == NULL)
		return -1;
	ok = CreateDirectoryW(p, NULL);
	free(p);
	return ok ? 0 : fail_win();
}

int
cv_os_mkdir(const char *path, unsigned mode)
{
	return cv_os_mkdir_at(CV_AT_CWD, path, mode);
}

static int
move(int fromdir, const char *from, int todir, const char *to, DWORD how)
{
	wchar_t *f = full_path(fromdir, from), *t;
	BOOL ok;

	if (f == NULL)
		return -1;
	if ((t = full_path(todir, to)) == NULL) {
		free(f);
		return -1;
	}
	ok = MoveFileExW(f, t, how | MOVEFILE_WRITE_THROUGH);
	free(f);
	free(t);
	return ok ? 0 : fail_win();
}

int
cv_os_rename_at(int fromdir, const char *from, int todir, const char *to)
{
	return move(fromdir, from, todir, to, MOVEFILE_REPLACE_EXISTING);
}

/* MoveFileEx without REPLACE_EXISTING is one rename in the file system,
 * which fails where `to` is there */
int
cv_os_rename_noreplace(int fromdir, const char *from, int todir, const char *to)
{
	return move(fromdir, from, todir, to, 0);
}

/* Windows has no atomic swap of two names: ENOSYS, as the face says of a
 * system that cannot do it, once both are known to be there. */
int
cv_os_rename_exchange(int fromdir, const char *from, int todir, const char *to)
{
	struct cv_stat st;

	if (cv_os_stat_at(fromdir, from, 1, &st) != 0 ||
	    cv_os_stat_at(todir, to, 1, &st) != 0)
		return -1;
	return fail(ENOSYS);
}

/* 0 when the link at p (freed) is there: a Windows layer whose
 * CreateSymbolicLinkW is a stub that says yes and makes nothing (wine 8)
 * has no links, ENOSYS, rather than a success that is not one */
static int
link_made(wchar_t *p)
{
	HANDLE h = open_meta(p, 1, 0);
	DWORD tag;

	free(p);
	if (h == INVALID_HANDLE_VALUE)
		return fail(ENOSYS);
	tag = reparse_tag(h);
	CloseHandle(h);
	return tag == IO_REPARSE_TAG_SYMLINK ? 0 : fail(ENOSYS);
}

/* A link's target is kept as Windows writes paths (backslashes); one
 * naming a folder must be made a folder link, so the target is looked at
 * from the link's own folder. Unprivileged creation needs Developer Mode
 * (else EPERM). */
int
cv_os_symlink_at(const char *target, int dir, const char *name)
{
	wchar_t *p = full_path(dir, name), *t, *slash, *seen;
	DWORD flags = SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE;
	DWORD attrs;
	size_t len;
	BOOLEAN ok;

	if (p == NULL)
		return -1;
	if ((t = widen(target)) == NULL) {
		free(p);
		return -1;
	}
	for (slash = t; *slash; slash++)
		if (*slash == L'/')
			*slash = L'\\';
	if (is_absolute(target)) {
		seen = xmalloc((wcslen(t) + 1) * sizeof *seen);
		wcscpy(seen, t);
	} else {
		len = wcslen(p) + wcslen(t) + 2;
		seen = xmalloc(len * sizeof *seen);
		wcscpy(seen, p);
		slash = wcsrchr(seen, L'\\');
		if (slash != NULL)
			slash[1] = L'\0';
		wcscat(seen, t);
	}
	attrs = GetFileAttributesW(seen);
	free(seen);
	if (attrs != INVALID_FILE_ATTRIBUTES &&
	    (attrs & FILE_ATTRIBUTE_DIRECTORY))
		flags |= SYMBOLIC_LINK_FLAG_DIRECTORY;
	ok = CreateSymbolicLinkW(p, t, flags);
	if (!ok && GetLastError() == ERROR_INVALID_PARAMETER)
		/* a Windows before Developer Mode's flag */
		ok = CreateSymbolicLinkW(
			p, t,
			flags & ~SYMBOLIC_LINK_FLAG_ALLOW_UNPRIVILEGED_CREATE);
	free(t);
	if (!ok) {
		free(p);
		return fail_win();
	}
	return link_made(p);
}

/* The target as the link (or junction) holds it, '\' written '/' as lib/
 * joins paths with '/', and an absolute one without its \??\ prefix. */
long
cv_os_readlink_at(int dir, const char *name, char *buf, size_t n)
{
	wchar_t *p;
	HANDLE h;
	union {
		struct reparse r;
		char bytes[MAXIMUM_REPARSE_DATA_BUFFER_SIZE];
	} u;
	DWORD got;
	char *base;
	WCHAR *w;
	int wlen;
	long len;
	long i;

	if (n < 2)
		return fail(ENAMETOOLONG);
	if ((p = full_path(dir, name)) == NULL)
		return -1;
	h = open_meta(p, 1, 0);
	free(p);
	if (h == INVALID_HANDLE_VALUE)
		return fail_win();
	if (!DeviceIoControl(h, FSCTL_GET_REPARSE_POINT, NULL, 0, &u, sizeof u,
			     &got, NULL)) {
		DWORD e = GetLastError();
		CloseHandle(h);
		return fail(e == ERROR_NOT_A_REPARSE_POINT ? EINVAL
							   : errno_of(e));
	}
	CloseHandle(h);
	if (!is_link_tag(u.r.tag))
		return fail(EINVAL);
	base = u.r.tag == IO_REPARSE_TAG_SYMLINK ? (char *)u.r.path
						 : (char *)&u.r.flags;
	/* the name must lie inside what the file system gave */
	if (base + u.r.sub_off + u.r.sub_len > u.bytes + got)
		return fail(EINVAL);
	w = (WCHAR *)(void *)(base + u.r.sub_off);
	wlen = u.r.sub_len / (int)sizeof(WCHAR);
	if (wlen >= 4 && wcsncmp(w, L"\\??\\", 4) == 0)
		w += 4, wlen -= 4;
	if ((len = narrow_into(w, wlen, buf, n)) < 0)
		return -1;
	for (i = 0; i < len; i++)
		if (buf[i] == '\\')
			buf[i] = '/';
	return len;
}

long
cv_os_readlink(const char *path, char *buf, size_t n)
{
	return cv_os_readlink_at(CV_AT_CWD, path, buf, n);
}

/* Of the mode only the owner's write bit has a Windows meaning, the
 * read-only attribute of a file; a folder's is not a permission there
 * (Explorer reads it as "customized"), so taking the write bit from a
 * folder is refused (ENOTSUP) rather than pretended. */
static int
chmod_handle(HANDLE h, unsigned perm)
{
	FILE_BASIC_INFO bi;

	if (!GetFileInformationByHandleEx(h, FileBasicInfo, &bi, sizeof bi))
		return fail_win();
	if (bi.FileAttributes & FILE_ATTRIBUTE_DIRECTORY)
		return (perm & 0200) ? 0 : fail(ENOTSUP);
	if (perm & 0200)
		bi.FileAttributes &= ~(DWORD)FILE_ATTRIBUTE_READONLY;
	else
		bi.FileAttributes |= FILE_ATTRIBUTE_READONLY;
	if (bi.FileAttributes == 0)
		bi.FileAttributes = FILE_ATTRIBUTE_NORMAL;
	memset(&bi.CreationTime, 0, sizeof bi.CreationTime);
	memset(&bi.LastAccessTime, 0, sizeof bi.LastAccessTime);
	memset(&bi.LastWriteTime, 0, sizeof bi.LastWriteTime);
	memset(&bi.ChangeTime, 0, sizeof bi.ChangeTime);
	if (!SetFileInformationByHandle(h, FileBasicInfo, &bi, sizeof bi))
		return fail_win();
	return 0;
}

int
cv_os_chmod_at(int dir, const char *name, unsigned perm, int nofollow)
{
	wchar_t *p = full_path(dir, name);
	HANDLE h;
	int r;

	if (p == NULL)
		return -1;
	h = open_meta(p, nofollow, FILE_WRITE_ATTRIBUTES);
	free(p);
	if (h == INVALID_HANDLE_VALUE)
		return fail_win();
	r = chmod_handle(h, perm);
	CloseHandle(h);
	return r;
}

int
cv_os_fchmod(int fd, unsigned perm)
{
	HANDLE h = handle_of(fd);

	return h == INVALID_HANDLE_VALUE ? -1 : chmod_handle(h, perm);
}

int
cv_os_set_times_at(int dir, const char *name, const struct timespec *t,
		   int nofollow)
{
	wchar_t *p = full_path(dir, name);
	HANDLE h;
	int r;

	if (p == NULL)
		return -1;
	h = open_meta(p, nofollow, FILE_WRITE_ATTRIBUTES);
	free(p);
	if (h == INVALID_HANDLE_VALUE)
		return fail_win();
	r = set_times(h, t);
	CloseHandle(h);
	return r;
}

int
cv_os_fset_times(int fd, const struct timespec *t)
{
	HANDLE h = handle_of(fd);

	return h == INVALID_HANDLE_VALUE ? -1 : set_times(h, t);
}

/* The name from the system's random numbers (RtlGenRandom, as rand_s),
 * the file made with CREATE_NEW, which is O_EXCL and never follows a link
 * at the name. */
int
cv_os_mkstemp(char *tmpl)
{
	static const char set[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	size_t len = strlen(tmpl);
	int tries, i;

	if (len < 6 || strcmp(tmpl + len - 6, "XXXXXX") != 0)
		return fail(EINVAL);
	for (tries = 0; tries < 100; tries++) {
		int fd;
		for (i = 0; i < 6; i++) {
			unsigned r;
			if (rand_s(&r) != 0)
				return fail(EIO);
			tmpl[len - 6 + (size_t)i] = set[r % (sizeof set - 1)];
		}
		fd = cv_os_open(tmpl,
				CV_OPEN_READ | CV_OPEN_WRITE | CV_OPEN_CREATE |
					CV_OPEN_EXCL,
				0600);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return fail(EEXIST);
}

/* Windows' access is the DACL's, which AccessCheck would have to be asked
 * with the token; what is checked here is the attributes: there, not
 * read-only for WRITE, and for EXEC a folder or a program's extension
 * (Windows runs by extension, not by a bit). The real and effective ids
 * are one token on Windows. */
int
cv_os_access_at(int dir, const char *name, int what)
{
	wchar_t *p = full_path(dir, name);
	HANDLE h;
	BY_HANDLE_FILE_INFORMATION fi;
	struct cv_stat st;
	int r = 0;

	if (p == NULL)
		return -1;
	h = open_meta(p, (what & CV_ACCESS_NOFOLLOW) != 0, 0);
	if (h == INVALID_HANDLE_VALUE) {
		free(p);
		return fail_win();
	}
	if (!GetFileInformationByHandle(h, &fi))
		r = fail_win();
	else if ((what & CV_ACCESS_WRITE) &&
		 (fi.dwFileAttributes & FILE_ATTRIBUTE_READONLY) &&
		 !(fi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY))
		r = fail(EACCES);
	else if ((what & CV_ACCESS_EXEC) &&
		 (stat_handle(h, p, &st) != 0 || !(st.perm & 0100)))
		r = fail(EACCES);
	CloseHandle(h);
	free(p);
	return r;
}

int
cv_os_access(const char *path, int what)
{
	return cv_os_access_at(CV_AT_CWD, path, what);
}

/* the final path of the file, links resolved, as GetFinalPathNameByHandle
 * names it, without the \\?\ it puts before it */
char *
cv_os_realpath(const char *path, char *buf, size_t n)
{
	wchar_t *p = full_path(CV_AT_CWD, path), *w;
	wchar_t out[32768];
	HANDLE h;
	DWORD len;

	if (p == NULL)
		return NULL;
	h = open_meta(p, 0, 0);
	free(p);
	if (h == INVALID_HANDLE_VALUE) {
		fail_win();
		return NULL;
	}
	len = GetFinalPathNameByHandleW(h, out, 32768,
					FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
	CloseHandle(h);
	if (len == 0 || len >= 32768) {
		fail_win();
		return NULL;
	}
	w = out;
	if (wcsncmp(w, L"\\\\?\\UNC\\", 8) == 0) {
		w += 6;
		w[0] = L'\\';
	} else if (wcsncmp(w, L"\\\\?\\", 4) == 0 && wcslen(w) < MAX_PATH) {
		w += 4;
	}
	if (narrow_into(w, -1, buf, n) < 0)
		return NULL;
	return buf;
}

char *
cv_os_getcwd(void)
{
	DWORD n = GetCurrentDirectoryW(0, NULL);
	wchar_t *w;
	char *s;

	if (n == 0) {
		fail_win();
		return NULL;
	}
	w = xmalloc((size_t)n * sizeof *w);
	if (GetCurrentDirectoryW(n, w) == 0) {
		free(w);
		fail_win();
		return NULL;
	}
	s = narrow(w);
	free(w);
	return s;
}

int
cv_os_chdir(const char *path)
{
	wchar_t *w = full_path(CV_AT_CWD, path);
	BOOL ok;

	if (w == NULL)
		return -1;
	ok = SetCurrentDirectoryW(w);
	free(w);
	return ok ? 0 : fail_win();
}

/* a folder handle keeps the path it was opened by (see struct slot) */
int
cv_os_fchdir(int fd)
{
	struct slot *sl = slot_of(fd);

	if (sl == NULL)
		return -1;
	if (!sl->is_dir || sl->path == NULL) {
		errno = ENOTDIR;
		return -1;
	}
	return SetCurrentDirectoryW(sl->path) ? 0 : fail_win();
}

/* Windows has no mode bits for new files (their ACL comes from the
 * folder's inheritable entries): the mask is kept, so that what a caller
 * sets is what it reads back, and has no other effect */
static unsigned process_umask = 022;

unsigned
cv_os_umask(unsigned mask)
{
	unsigned old = process_umask;

	process_umask = mask & 0777;
	return old;
}

/* ---- glob ------------------------------------------------------------- */

/* the shell's pattern: *, ?, [set] with ranges and ! or ^; case-blind, as
 * Windows names are */
static int
match(const char *pat, const char *s)
{
	for (; *pat; pat++, s++) {
		if (*pat == '*') {
			for (; *s; s++)
				if (match(pat + 1, s))
					return 1;
			return match(pat + 1, s);
		}
		if (*s == '\0')
			return 0;
		if (*pat == '?')
			continue;
		if (*pat == '[') {
			const char *q = pat + 1;
			int neg = *q == '!' || *q == '^', hit = 0;
			q += neg;
			do {
				char lo = *q, hi = lo;
				if (q[1] == '-' && q[2] != ']' && q[2])
					hi = q[2], q += 2;
				hit |= *s >= lo && *s <= hi;
				q++;
			} while (*q && *q != ']');
			if (*q != ']')
				return 0;
			if (hit == neg)
				return 0;
			pat = q;
			continue;
		}
		if (tolower((unsigned char)*pat) != tolower((unsigned char)*s))
			return 0;
	}
	return *s == '\0';
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Only the last part may hold a pattern (the callers' own: a folder's
 * files of a kind); the folder is listed and each name matched. */
size_t
cv_os_glob(const char *pattern, struct cv_strv *out)
{
	const char *slash = strrchr(pattern, '/'), *bs = strrchr(pattern, '\\');
	struct cv_strv got = CV_STRV_INIT;
	struct cv_dir *d;
	const char *name;
	char *folder;
	size_t i, n;

	if (bs != NULL && (slash == NULL || bs > slash))
		slash = bs;
	folder = slash != NULL ? xstrdup(pattern) : xstrdup(".");
	if (slash != NULL)
		folder[slash - pattern + (slash == pattern)] = '\0';
	if ((d = cv_dir_open(folder)) == NULL) {
		free(folder);
		return 0;
	}
	while ((name = cv_dir_next(d, NULL)) != NULL) {
		if (name[0] == '.' && (slash ? slash[1] : pattern[0]) != '.')
			continue;
		if (!match(slash != NULL ? slash + 1 : pattern, name))
			continue;
		if (slash != NULL) {
			size_t len = (size_t)(slash - pattern) + 1 +
				     strlen(name) + 1;
			char *full = xmalloc(len);
			snprintf(full, len, "%.*s%s",
				 (int)(slash - pattern + 1), pattern, name);
			cv_strv_push(&got, full);
			free(full);
		} else {
			cv_strv_push(&got, name);
		}
	}
	cv_dir_close(d);
	free(folder);
	if (got.n > 1)
		qsort(got.v, got.n, sizeof *got.v, cmp_str);
	for (i = 0; i < got.n; i++)
		cv_strv_push(out, got.v[i]);
	n = got.n;
	cv_strv_release(&got);
	return n;
}

/* ---- folders ---------------------------------------------------------- */

struct cv_dir {
	int fd;
	HANDLE find;
	int pending; /* data holds a name not yet given */
	WIN32_FIND_DATAW data;
	char name[MAX_PATH * 4];
};

static int
dir_start(struct cv_dir *d)
{
	struct slot *s = slot_of(d->fd);
	size_t len;
	wchar_t *pat;

	if (s == NULL)
		return -1;
	if (!s->is_dir)
		return fail(ENOTDIR);
	len = wcslen(s->path) + 3;
	pat = xmalloc(len * sizeof *pat);
	swprintf(pat, len, L"%ls\\*", s->path);
	d->find = FindFirstFileExW(pat, FindExInfoBasic, &d->data,
				   FindExSearchNameMatch, NULL,
				   FIND_FIRST_EX_LARGE_FETCH);
	free(pat);
	if (d->find == INVALID_HANDLE_VALUE) {
		if (GetLastError() == ERROR_FILE_NOT_FOUND) {
			d->pending = 0;
			return 0;
		}
		return fail_win();
	}
	d->pending = 1;
	return 0;
}

struct cv_dir *
cv_dir_adopt(int fd)
{
	struct cv_dir *d = xcalloc(1, sizeof *d);

	d->fd = fd;
	d->find = INVALID_HANDLE_VALUE;
	if (dir_start(d) != 0) {
		free(d);
		return NULL;
	}
	return d;
}

const char *
cv_dir_next(struct cv_dir *d, int *kind)
{
	while (d->pending) {
		WIN32_FIND_DATAW *f = &d->data;
		int k = CV_KIND_FILE;
		long len =
			narrow_into(f->cFileName, -1, d->name, sizeof d->name);
		if (f->dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)
			k = CV_KIND_DIR;
		if ((f->dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) &&
		    is_link_tag(f->dwReserved0))
			k = CV_KIND_LINK;
		d->pending = FindNextFileW(d->find, &d->data) != 0;
		if (len < 0 || strcmp(d->name, ".") == 0 ||
		    strcmp(d->name, "..") == 0)
			continue;
		if (kind != NULL)
			*kind = k;
		return d->name;
	}
	return NULL;
}

int
cv_dir_fd(const struct cv_dir *d)
{
	return d->fd;
}

void
cv_dir_rewind(struct cv_dir *d)
{
	if (d->find != INVALID_HANDLE_VALUE)
		FindClose(d->find);
	d->find = INVALID_HANDLE_VALUE;
	if (dir_start(d) != 0)
		d->pending = 0;
}

void
cv_dir_close(struct cv_dir *d)
{
	if (d == NULL)
		return;
	if (d->find != INVALID_HANDLE_VALUE)
		FindClose(d->find);
	cv_os_close(d->fd);
	free(d);
}
/* ---- locks ------------------------------------------------------------ */

/* A folder holds no byte-range lock on Windows: its lock is a mutex named
 * by the folder's identity (volume and file index), so every process
 * opening the same folder by any path names the same one, in the global
 * namespace (all sessions) where this user may make one, else in the
 * session's. Exclusive only (a shared lock takes it whole), let go at the
 * close or when its process ends (an abandoned mutex is free); unlike
 * flock, a thread that holds it takes it again through another handle,
 * and a close on another thread lets it go only when the taker's thread
 * ends. */
static int
lock_folder(struct slot *s, unsigned how)
{
	BY_HANDLE_FILE_INFORMATION fi;
	wchar_t name[96];
	HANDLE m = NULL;
	DWORD w;

	if (s->mutex != NULL)
		return 0;
	if (!GetFileInformationByHandle(s->h, &fi))
		return fail_win();
	for (int global = 1; m == NULL && global >= 0; global--) {
		swprintf(name, sizeof name / sizeof *name,
			 L"%ls\\cudnnvm-folder-%08lx-%08lx%08lx",
			 global ? L"Global" : L"Local",
			 (unsigned long)fi.dwVolumeSerialNumber,
			 (unsigned long)fi.nFileIndexHigh,
			 (unsigned long)fi.nFileIndexLow);
		m = CreateMutexW(NULL, FALSE, name);
	}
	if (m == NULL)
		return fail_win();
	w = WaitForSingleObject(m, (how & CV_LOCK_NOWAIT) ? 0 : INFINITE);
	if (w != WAIT_OBJECT_0 && w != WAIT_ABANDONED) {
		CloseHandle(m);
		return fail(w == WAIT_TIMEOUT ? EWOULDBLOCK : EINVAL);
	}
	s->mutex = m;
	return 0;
}

/* LockFileEx of one byte at LOCK_AT: owned by the handle, so two handles
 * contend even in one process (as flock's two opens), and let go when the
 * handle closes or its process ends. A folder: lock_folder. */
int
cv_os_lock(int fd, unsigned how)
{
	struct slot *s = slot_of(fd);
	DWORD flags = 0;
	OVERLAPPED ov;

	if (s == NULL)
		return -1;
	if (s->is_dir)
		return lock_folder(s, how);
	if (!(how & CV_LOCK_SH))
		flags |= LOCKFILE_EXCLUSIVE_LOCK;
	if (how & CV_LOCK_NOWAIT)
		flags |= LOCKFILE_FAIL_IMMEDIATELY;
	memset(&ov, 0, sizeof ov);
	ov.OffsetHigh = LOCK_AT;
	if (!LockFileEx(s->h, flags, 0, 1, 0, &ov)) {
		DWORD e = GetLastError();
		if (e == ERROR_LOCK_VIOLATION || e == ERROR_IO_PENDING)
			return fail(EWOULDBLOCK);
		if (e == ERROR_INVALID_FUNCTION || e == ERROR_NOT_SUPPORTED)
			return fail(ENOLCK);
		errno = errno_of(e);
		return -1;
	}
	s->locked = 1;
	return 0;
}

/* Windows does not say who holds a byte-range lock */
long
cv_os_lock_holder(int fd)
{
	(void)fd;
	return 0;
}
#endif
