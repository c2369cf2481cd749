/*
 * os_windows_files.c: the file-system half of the OS layer (os.h) on
 * Windows: paths, file ids and whole-file reads (zone files), state files
 * (pinned places, created complete, mapped) and anonymous shared maps.
 * os_windows.c holds the rest (clocks, sleep, locks, the process, the C
 * library's zone, random bytes, error text) and says how both are built
 * and tested.  Only this file includes os_windows_acl.h.
 *
 * XXX: as os_windows.c says, never run on a real Windows yet; Wine's
 * security descriptors and file sharing, which this file leans on, are an
 * emulation.
 */
#include "os.h"

#if defined(_WIN32)

#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <windows.h>
#include <aclapi.h>

#include "os_windows_acl.h"

/* ------------------------------------------------------------- paths */

/*
 * Paths reach the core as narrow strings.  Python hands over UTF-8 (its
 * file system encoding on Windows); getenv (TZ, TZDIR, MONOSTAMP_SHARED)
 * hands over the ANSI code page.  A path that is valid UTF-8 is taken as
 * UTF-8, anything else in the ANSI code page: text in a legacy code page
 * with letters outside ASCII is almost never valid UTF-8, so both callers
 * open the file they meant.  The wide string is malloc'd.
 */
static int wide_path(const char *path, wchar_t **out)
{
    UINT cp = CP_UTF8;
    DWORD flags = MB_ERR_INVALID_CHARS;
    int n = MultiByteToWideChar(cp, flags, path, -1, NULL, 0);
    if (n <= 0) {
        cp = CP_ACP;
        flags = 0;
        n = MultiByteToWideChar(cp, flags, path, -1, NULL, 0);
    }
    if (n <= 0)
        return monostamp__os_fail((int)GetLastError());
    wchar_t *w = malloc((size_t)n * sizeof *w);
    if (w == NULL)
        return MONOSTAMP_ENOMEM;
    if (MultiByteToWideChar(cp, flags, path, -1, w, n) != n) {
        int rc = monostamp__os_fail((int)GetLastError());
        free(w);
        return rc;
    }
    *out = w;
    return MONOSTAMP_OK;
}

/* Why a file would not open: a directory is no state file nor zone file
 * (Windows says "access denied" for it), anything else is the OS's error. */
static int open_failure(const wchar_t *wpath, DWORD err)
{
    DWORD attrs;
    if (err == ERROR_ACCESS_DENIED && (attrs = GetFileAttributesW(wpath)) != INVALID_FILE_ATTRIBUTES &&
        (attrs & FILE_ATTRIBUTE_DIRECTORY))
        return MONOSTAMP_EFOREIGN;
    return monostamp__os_fail((int)err);
}

/* -------------------------------------------------------------- files */

/* Windows file times count 100 ns ticks since 1601. */
static void file_id_of(const BY_HANDLE_FILE_INFORMATION *info, monostamp__os_file_id *out)
{
    uint64_t ticks = ((uint64_t)info->ftLastWriteTime.dwHighDateTime << 32) |
                     info->ftLastWriteTime.dwLowDateTime;
    out->dev = info->dwVolumeSerialNumber;
    out->ino = ((uint64_t)info->nFileIndexHigh << 32) | info->nFileIndexLow;
    out->size = (int64_t)(((uint64_t)info->nFileSizeHigh << 32) | info->nFileSizeLow);
    out->regular = !(info->dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY);
    out->mtime_s = (int64_t)(ticks / 10000000u);
    out->mtime_ns = (int64_t)(ticks % 10000000u) * 100;
}

/* INVALID_HANDLE_VALUE with the cause in *rc on failure (EFOREIGN for a
 * directory, as os_posix.c's fstat says).  Paths are read
 * as wide_path says, so a state file is rechecked under the name it was
 * opened by. */
static HANDLE open_for_reading(const char *path, int *rc)
{
    wchar_t *wpath;
    if ((*rc = wide_path(path, &wpath)) != MONOSTAMP_OK)
        return INVALID_HANDLE_VALUE;
    HANDLE h = CreateFileW(wpath, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                           NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    if (h == INVALID_HANDLE_VALUE)
        *rc = open_failure(wpath, GetLastError());
    free(wpath);
    return h;
}

int monostamp__os_file_id_get(const char *path, monostamp__os_file_id *out)
{
    BY_HANDLE_FILE_INFORMATION info;
    int rc;
    HANDLE h = open_for_reading(path, &rc);
    if (h == INVALID_HANDLE_VALUE)
        return rc;
    if (GetFileInformationByHandle(h, &info))
        file_id_of(&info, out);
    else
        rc = monostamp__os_fail((int)GetLastError());
    CloseHandle(h);
    return rc;
}

int monostamp__os_read_file(const char *path, size_t max_size,
                            unsigned char **out_buf, size_t *out_len,
                            monostamp__os_file_id *out_id)
{
    BY_HANDLE_FILE_INFORMATION info;
    monostamp__os_file_id id;
    unsigned char *buf;
    size_t got = 0;
    int rc;
    HANDLE h = open_for_reading(path, &rc);

    if (h == INVALID_HANDLE_VALUE)
        return rc;
    if (!GetFileInformationByHandle(h, &info)) {
        rc = monostamp__os_fail((int)GetLastError());
        CloseHandle(h);
        return rc;
    }
    file_id_of(&info, &id);
    if ((info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) || id.size <= 0 ||
        (uint64_t)id.size > max_size) {
        CloseHandle(h);
        return MONOSTAMP_EFOREIGN;
    }
    if ((buf = malloc((size_t)id.size)) == NULL) {
        CloseHandle(h);
        return MONOSTAMP_ENOMEM;
    }
    while (got < (size_t)id.size) {
        DWORD r = 0;
        if (!ReadFile(h, buf + got, (DWORD)((size_t)id.size - got), &r, NULL) || r == 0)
            break;
        got += r;
    }
    CloseHandle(h);
    *out_buf = buf;
    *out_len = got;
    if (out_id != NULL)
        *out_id = id;
    return MONOSTAMP_OK;
}

/* ------------------------------------------------------ shared memory */

/* State files (os.h, monostamp__os_map_place) as Windows allows them: who
 * may write one is read off its security descriptor (os_windows_acl.h);
 * what else differs from os_posix.c is said where it happens and in
 * docs/windows.md. */

/* Writes the whole of `initial` to the new file `h`. */
static int fill_new_file(HANDLE h, const void *initial, size_t size)
{
    DWORD wrote = 0;
    if (size > MAXDWORD)
        return MONOSTAMP_EINVAL;
    if (!WriteFile(h, initial, (DWORD)size, &wrote, NULL))
        return monostamp__os_fail((int)GetLastError());
    if (wrote != size)
        return MONOSTAMP_EOS(ERROR_WRITE_FAULT);
    if (!FlushFileBuffers(h))
        return monostamp__os_fail((int)GetLastError());
    return MONOSTAMP_OK;
}

/* `wpath`'s directory part plus "\.monostamp-<16 hex>", malloc'd: short,
 * so that a long file name still has room beside it. */
static int temporary_name(const wchar_t *wpath, wchar_t **out)
{
    size_t dir = wcslen(wpath);
    while (dir > 0 && wpath[dir - 1] != L'\\' && wpath[dir - 1] != L'/' && wpath[dir - 1] != L':')
        dir--;
    unsigned char random[8];
    int rc = monostamp__os_random(random, sizeof random);
    if (rc != MONOSTAMP_OK)
        return rc;
    static const wchar_t stem[] = L".monostamp-";
    size_t stem_len = sizeof stem / sizeof stem[0] - 1;
    wchar_t *tmp = malloc((dir + stem_len + 2 * sizeof random + 1) * sizeof *tmp);
    if (tmp == NULL)
        return MONOSTAMP_ENOMEM;
    memcpy(tmp, wpath, dir * sizeof *tmp);
    memcpy(tmp + dir, stem, stem_len * sizeof *tmp);
    wchar_t *p = tmp + dir + stem_len;
    for (size_t i = 0; i < sizeof random; i++) {
        *p++ = L"0123456789abcdef"[random[i] >> 4];
        *p++ = L"0123456789abcdef"[random[i] & 15];
    }
    *p = L'\0';
    *out = tmp;
    return MONOSTAMP_OK;
}

/* Makes the file complete under a temporary name, then moves it to
 * `wpath` unless something is there already: no process ever maps a
 * half-written file, and of two creators exactly one wins (the other's
 * move fails with ERROR_ALREADY_EXISTS, which is success here: the caller
 * then checks whose file is there).  XXX: a process killed between the
 * create and the move leaves its ".monostamp-*" file behind; Linux's
 * O_TMPFILE has no Windows equivalent that keeps the move atomic. */
static int create_complete(const wchar_t *wpath, const void *initial, size_t size,
                           int trust_group)
{
    struct private_sd psd;
    SECURITY_ATTRIBUTES sa = {sizeof sa, NULL, FALSE};
    wchar_t *tmp;
    int rc = temporary_name(wpath, &tmp);
    if (rc != MONOSTAMP_OK)
        return rc;
    if (!trust_group) {
        if ((rc = private_sd_make(&psd)) != MONOSTAMP_OK) {
            free(tmp);
            return rc;
        }
        sa.lpSecurityDescriptor = &psd.sd;
    }
    HANDLE h = CreateFileW(tmp, GENERIC_READ | GENERIC_WRITE, 0, &sa, CREATE_NEW,
                           FILE_ATTRIBUTE_NORMAL, NULL);
    if (h == INVALID_HANDLE_VALUE) {
        rc = monostamp__os_fail((int)GetLastError());
    } else {
        rc = fill_new_file(h, initial, size);
        CloseHandle(h);
        if (rc == MONOSTAMP_OK && !MoveFileExW(tmp, wpath, MOVEFILE_WRITE_THROUGH)) {
            DWORD err = GetLastError();
            if (err != ERROR_ALREADY_EXISTS && err != ERROR_FILE_EXISTS)
                rc = monostamp__os_fail((int)err);
        }
        DeleteFileW(tmp); /* fails, as it should, once moved */
    }
    if (!trust_group)
        private_sd_free(&psd);
    free(tmp);
    return rc;
}

/* Opens the state file for mapping.  FILE_FLAG_OPEN_REPARSE_POINT opens a
 * symbolic link (or junction) itself instead of following it, as
 * O_NOFOLLOW does; the caller then refuses it.  Sharing every way: other
 * processes map the same file, and it may be deleted under us, which the
 * clocks notice (clock_share.c). */
static HANDLE open_state(const wchar_t *wpath)
{
    return CreateFileW(wpath, GENERIC_READ | GENERIC_WRITE | READ_CONTROL,
                       FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
                       FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
}

static int close_returning(HANDLE h, int rc)
{
    CloseHandle(h);
    return rc;
}

/*
 * A place is pinned by name, not by handle: the full path, resolved once
 * against the working directory of the open, so a later chdir (or
 * _wchdir) cannot change which file a clock rechecks and rejoins.  Win32
 * has no openat(); a rename of a directory above the file is therefore
 * followed by name (docs/windows.md).
 */
struct monostamp__os_place {
    wchar_t full[1]; /* as long as it needs */
};

int monostamp__os_place_pin(const char *path, monostamp__os_place **out)
{
    wchar_t *wpath;
    size_t len = strlen(path);
    if (len == 0 || path[len - 1] == '/' || path[len - 1] == '\\')
        return MONOSTAMP_EFOREIGN; /* a directory, no state file */
    int rc = wide_path(path, &wpath);
    if (rc != MONOSTAMP_OK)
        return rc;
    DWORD n = GetFullPathNameW(wpath, 0, NULL, NULL);
    monostamp__os_place *place = n == 0 ? NULL : malloc(sizeof *place + (size_t)n * sizeof(wchar_t));
    if (n == 0) {
        rc = monostamp__os_fail((int)GetLastError());
    } else if (place == NULL) {
        rc = MONOSTAMP_ENOMEM;
    } else if (GetFullPathNameW(wpath, n, place->full, NULL) >= n) {
        rc = monostamp__os_fail((int)GetLastError());
        free(place);
    } else {
        *out = place;
    }
    free(wpath);
    return rc;
}

void monostamp__os_place_free(monostamp__os_place *place)
{
    free(place);
}

int monostamp__os_place_id(const monostamp__os_place *place, struct monostamp__os_file_id *out)
{
    BY_HANDLE_FILE_INFORMATION info;
    int rc = MONOSTAMP_OK;
    HANDLE h = CreateFileW(place->full, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                           NULL, OPEN_EXISTING,
                           FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS, NULL);
    if (h == INVALID_HANDLE_VALUE)
        return monostamp__os_fail((int)GetLastError());
    if (GetFileInformationByHandle(h, &info))
        file_id_of(&info, out);
    else
        rc = monostamp__os_fail((int)GetLastError());
    CloseHandle(h);
    return rc;
}

/* The place is its full path: what the path names now is all there is to
 * look at, and a directory replaced under it is simply followed. */
int monostamp__os_place_pinned_id(const monostamp__os_place *place,
                                  struct monostamp__os_file_id *out)
{
    return monostamp__os_place_id(place, out);
}

int monostamp__os_place_moved(const monostamp__os_place *place)
{
    (void)place;
    return 0;
}

/* XXX: no birth time is compared here yet (NTFS keeps a directory's
 * creation and last-write times, but which changes move the latter has not
 * been checked under Wine or Windows): every directory may have held a
 * state file, and a new one starts its creator's bound ahead, which costs
 * a wait and never a repeat. */
int monostamp__os_place_pristine(const monostamp__os_place *place)
{
    (void)place;
    return 0;
}

int monostamp__os_place_refresh(monostamp__os_place *place)
{
    (void)place;
    return 0;
}

/* Windows refuses to truncate a file while a view of it exists
 * (ERROR_USER_MAPPED_FILE), so a mapping needs no guard and no file is
 * found truncated under one: `repair` is never needed. */
int monostamp__os_guard(void *addr, size_t size, const void *tombstone)
{
    (void)addr, (void)size, (void)tombstone;
    return MONOSTAMP_OK;
}

void monostamp__os_unguard(void *addr)
{
    (void)addr;
}

int monostamp__os_guard_tripped(const void *addr)
{
    (void)addr;
    return 0;
}

int monostamp__os_map_place(const monostamp__os_place *place, const void *initial, size_t size,
                            int trust_group, const struct monostamp__os_file_id *repair,
                            void **out_addr, struct monostamp__os_file_id *out_id)
{
    BY_HANDLE_FILE_INFORMATION info;
    (void)repair;
    const wchar_t *wpath = place->full;
    int rc;
    HANDLE h = open_state(wpath);
    if (h == INVALID_HANDLE_VALUE && GetLastError() == ERROR_FILE_NOT_FOUND) {
        if ((rc = create_complete(wpath, initial, size, trust_group)) != MONOSTAMP_OK)
            return rc;
        h = open_state(wpath);
    }
    if (h == INVALID_HANDLE_VALUE)
        return open_failure(wpath, GetLastError());
    if (!GetFileInformationByHandle(h, &info))
        return close_returning(h, monostamp__os_fail((int)GetLastError()));
    if (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)
        return close_returning(h, MONOSTAMP_EUNSAFE);
    if ((info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) || GetFileType(h) != FILE_TYPE_DISK)
        return close_returning(h, MONOSTAMP_EFOREIGN);
    if ((rc = owner_is_safe(h, trust_group)) != MONOSTAMP_OK)
        return close_returning(h, rc);
    uint64_t file_size = ((uint64_t)info.nFileSizeHigh << 32) | info.nFileSizeLow;
    if (file_size < size)
        return close_returning(h, MONOSTAMP_EFOREIGN);
    /* The mapping covers `size` bytes; while any view of it exists Windows
     * refuses to truncate the file (ERROR_USER_MAPPED_FILE), so the SIGBUS
     * that POSIX documents cannot happen here. */
    HANDLE m = CreateFileMappingW(h, NULL, PAGE_READWRITE, (DWORD)((uint64_t)size >> 32),
                                  (DWORD)size, NULL);
    if (m == NULL)
        return close_returning(h, monostamp__os_fail((int)GetLastError()));
    void *view = MapViewOfFile(m, FILE_MAP_READ | FILE_MAP_WRITE, 0, 0, size);
    rc = view == NULL ? monostamp__os_fail((int)GetLastError()) : MONOSTAMP_OK;
    CloseHandle(m); /* the view keeps the mapping, and the mapping the file */
    CloseHandle(h);
    if (rc != MONOSTAMP_OK)
        return rc;
    *out_addr = view;
    file_id_of(&info, out_id);
    return MONOSTAMP_OK;
}

/* No fork(): process-private memory serves.  A view of a paging-file
 * mapping rather than VirtualAlloc, so that monostamp__os_unmap releases
 * both kinds the same way. */
int monostamp__os_map_anonymous(size_t size, void **out_addr)
{
    HANDLE m = CreateFileMappingW(INVALID_HANDLE_VALUE, NULL, PAGE_READWRITE,
                                  (DWORD)((uint64_t)size >> 32), (DWORD)size, NULL);
    if (m == NULL)
        return monostamp__os_fail((int)GetLastError());
    void *p = MapViewOfFile(m, FILE_MAP_READ | FILE_MAP_WRITE, 0, 0, size);
    int rc = p == NULL ? monostamp__os_fail((int)GetLastError()) : MONOSTAMP_OK;
    CloseHandle(m);
    if (rc == MONOSTAMP_OK)
        *out_addr = p; /* zero-filled */
    return rc;
}

void monostamp__os_unmap(void *addr, size_t size)
{
    (void)size;
    UnmapViewOfFile(addr);
}

#endif /* _WIN32 */
