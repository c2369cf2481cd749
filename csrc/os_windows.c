/*
 * os_windows.c: the OS layer (os.h) on Windows (Windows 8 and later, for
 * GetSystemTimePreciseAsFileTime): the clocks, sleep, memory and locks,
 * the process, the C library's zone, random bytes and error text.  The
 * file system (paths, state files, anonymous shared maps, file ids and
 * whole-file reads) is os_windows_files.c.
 *
 * Built by mingw-w64 and run under Wine by `make test-windows`
 * (tools/windows/test.sh; docs/windows.md says what runs and what is
 * skipped).  XXX: never run on a real Windows yet: Wine implements the
 * calls of both files, but its security descriptors and file sharing are
 * an emulation.  Windows error numbers (GetLastError) travel in
 * MONOSTAMP_EOS codes as errno values do on POSIX.
 */
#include "os.h"

#if defined(_WIN32)

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <windows.h>
#include <bcrypt.h>

_Static_assert(sizeof(monostamp__os_mutex) == sizeof(SRWLOCK), "SRWLOCK is one pointer");
_Static_assert(sizeof(monostamp__os_once_flag) == sizeof(INIT_ONCE), "INIT_ONCE is one pointer");

/* ------------------------------------------------------- wall clocks */

/* FILETIME counts 100 ns ticks since 1601-01-01; this many lie before 1970. */
#define EPOCH_DIFFERENCE_TICKS INT64_C(116444736000000000)

int monostamp__os_clock_read(int source, int64_t *out_ns)
{
    FILETIME ft;
    if (source == MONOSTAMP_SOURCE_REALTIME)
        GetSystemTimePreciseAsFileTime(&ft);
    else
        GetSystemTimeAsFileTime(&ft);
    int64_t ticks = (int64_t)(((uint64_t)ft.dwHighDateTime << 32) | ft.dwLowDateTime);
    /* FILETIME reaches year 30828: refuse what int64 ns cannot hold. */
    if (ticks - EPOCH_DIFFERENCE_TICKS > INT64_MAX / 100)
        return MONOSTAMP_ERANGE;
    *out_ns = (ticks - EPOCH_DIFFERENCE_TICKS) * 100;
    return MONOSTAMP_OK;
}

int monostamp__os_clock_info(int source, monostamp_clock_info *out)
{
    if (source == MONOSTAMP_SOURCE_REALTIME) {
        out->implementation = "GetSystemTimePreciseAsFileTime()";
        out->resolution_ns = 100;
    } else if (source == MONOSTAMP_SOURCE_REALTIME_COARSE) {
        out->implementation = "GetSystemTimeAsFileTime()";
        out->resolution_ns = 15625000; /* the default 64 Hz tick */
    } else {
        return MONOSTAMP_EINVAL;
    }
    out->name = monostamp_source_name(source);
    out->adjustable = 1;
    out->monotonic = 0;
    return MONOSTAMP_OK;
}

/* ---------------------------------------------------- monotonic, sleep */

int64_t monostamp__os_monotonic_ns(void)
{
    LARGE_INTEGER count, freq;
    if (!QueryPerformanceFrequency(&freq) || !QueryPerformanceCounter(&count) ||
        freq.QuadPart <= 0)
        return 0;
    /* Split so that count * 1e9 cannot overflow. */
    int64_t whole = count.QuadPart / freq.QuadPart;
    int64_t part = count.QuadPart % freq.QuadPart;
    return whole * MONOSTAMP__NS_PER_S + part * MONOSTAMP__NS_PER_S / freq.QuadPart;
}

/* GetSystemTimeAsFileTime's coarse reading has no tick-grained monotonic
 * twin that every supported Windows offers: the precise one stands in, and
 * there the coarse source's bound counts from real time, a tick ahead of it. */
int64_t monostamp__os_monotonic_of(int source)
{
    (void)source;
    return monostamp__os_monotonic_ns();
}

void monostamp__os_nap_ns(int64_t ns)
{
    Sleep((DWORD)(ns / 1000000 + 1));
}

#ifndef CREATE_WAITABLE_TIMER_HIGH_RESOLUTION
#define CREATE_WAITABLE_TIMER_HIGH_RESOLUTION 0x00000002
#endif

int monostamp__os_sleep_until(int64_t deadline_ns)
{
    /* A high-resolution waitable timer (Windows 10 1803+), else a plain one. */
    HANDLE timer = CreateWaitableTimerExW(NULL, NULL, CREATE_WAITABLE_TIMER_HIGH_RESOLUTION,
                                          TIMER_ALL_ACCESS);
    if (timer == NULL)
        timer = CreateWaitableTimerExW(NULL, NULL, 0, TIMER_ALL_ACCESS);
    if (timer == NULL)
        return monostamp__os_fail((int)GetLastError());
    int rc = MONOSTAMP_OK;
    /* Waitable timers take absolute times on the wall clock only, so the
     * deadline is re-armed relative to QPC until it has really passed. */
    for (;;) {
        int64_t left = deadline_ns - monostamp__os_monotonic_ns();
        if (left <= 0)
            break;
        LARGE_INTEGER due;
        due.QuadPart = -((left + 99) / 100); /* negative: relative, 100 ns units */
        if (!SetWaitableTimer(timer, &due, 0, NULL, NULL, FALSE) ||
            WaitForSingleObject(timer, INFINITE) != WAIT_OBJECT_0) {
            rc = monostamp__os_fail((int)GetLastError());
            break;
        }
    }
    CloseHandle(timer);
    return rc;
}

/* Windows has no per-thread timer slack. */
int64_t monostamp__os_timer_slack_get(void)
{
    return -1;
}

int monostamp__os_timer_slack_set(int64_t slack_ns)
{
    (void)slack_ns;
    return MONOSTAMP_EOS(ERROR_NOT_SUPPORTED);
}

void monostamp__os_yield(void)
{
    (void)SwitchToThread(); /* FALSE only says nothing else was ready */
}

/* ----------------------------------------------------- memory, locks */

void *monostamp__os_aligned_alloc(size_t alignment, size_t size)
{
    return _aligned_malloc(size, alignment);
}

void monostamp__os_aligned_free(void *p)
{
    _aligned_free(p);
}

void monostamp__os_mutex_lock(monostamp__os_mutex *mutex)
{
    AcquireSRWLockExclusive((PSRWLOCK)mutex);
}

int monostamp__os_mutex_trylock(monostamp__os_mutex *mutex)
{
    return TryAcquireSRWLockExclusive((PSRWLOCK)mutex) != 0;
}

void monostamp__os_mutex_unlock(monostamp__os_mutex *mutex)
{
    ReleaseSRWLockExclusive((PSRWLOCK)mutex);
}

static BOOL CALLBACK run_once(PINIT_ONCE once, PVOID init, PVOID *context)
{
    (void)once, (void)context;
    void (*fn)(void);
    /* The function pointer travels as a data pointer through Windows' API;
     * memcpy keeps the conversion well defined. */
    memcpy(&fn, &init, sizeof fn);
    fn();
    return TRUE;
}

void monostamp__os_once(monostamp__os_once_flag *once, void (*init)(void))
{
    PVOID param;
    _Static_assert(sizeof param == sizeof init, "function and data pointers alike");
    memcpy(&param, &init, sizeof param);
    InitOnceExecuteOnce((PINIT_ONCE)once, run_once, param, NULL);
}

int64_t monostamp__os_process_id(void)
{
    return (int64_t)GetCurrentProcessId();
}

void monostamp__os_atfork(void (*prepare)(void), void (*parent)(void),
                          void (*child)(void))
{
    (void)prepare, (void)parent, (void)child;
}

/* -------------------------------------------------- the C library's zone */

void monostamp__os_local_zone_reset(void)
{
    _tzset();
}

int monostamp__os_local_offset(int64_t t_s, int32_t *out_offset_s)
{
    /* Windows' struct tm has no tm_gmtoff: the local broken-down time read
     * back as if it were UTC differs from t by the offset. */
    __time64_t t = (__time64_t)t_s;
    struct tm tm;
    if (_localtime64_s(&tm, &t) != 0)
        return -1;
    __time64_t as_utc = _mkgmtime64(&tm);
    if (as_utc == -1)
        return -1;
    *out_offset_s = (int32_t)(as_utc - t);
    return 0;
}

/* ------------------------------------------------------------- others */

/* Windows has no signal handlers that interrupt a thread: nothing to hold. */
void monostamp__os_signals_hold(monostamp__os_signals *saved)
{
    (void)saved;
}

void monostamp__os_signals_release(const monostamp__os_signals *saved)
{
    (void)saved;
}

int monostamp__os_random(void *buf, size_t size)
{
    unsigned char *p = buf;
    while (size > 0) {
        ULONG chunk = size > 0x40000000u ? 0x40000000u : (ULONG)size;
        NTSTATUS status = BCryptGenRandom(NULL, p, chunk, BCRYPT_USE_SYSTEM_PREFERRED_RNG);
        if (!BCRYPT_SUCCESS(status))
            return MONOSTAMP_EOS((int)ERROR_GEN_FAILURE);
        p += chunk;
        size -= chunk;
    }
    return MONOSTAMP_OK;
}

void monostamp__os_strerror(int err, char *buf, size_t size)
{
    if (size == 0)
        return;
    DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL,
                             (DWORD)err, 0, buf, (DWORD)size, NULL);
    /* FormatMessage ends its sentences with "\r\n". */
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == '.'))
        buf[--n] = '\0';
    if (n == 0) {
        buf[0] = '\0';
        strncat(buf, "unknown system error", size - 1);
    }
}

int monostamp__os_posix_errno(int err)
{
    switch (err) {
    case ERROR_FILE_NOT_FOUND: case ERROR_PATH_NOT_FOUND: case ERROR_INVALID_DRIVE:
    case ERROR_NO_MORE_FILES: case ERROR_BAD_NETPATH: case ERROR_INVALID_NAME:
    case ERROR_BAD_PATHNAME: case ERROR_FILENAME_EXCED_RANGE:
        return ENOENT;
    case ERROR_TOO_MANY_OPEN_FILES: return EMFILE;
    case ERROR_ACCESS_DENIED: case ERROR_WRITE_PROTECT: case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION: case ERROR_CANNOT_MAKE: case ERROR_USER_MAPPED_FILE:
        return EACCES;
    case ERROR_INVALID_HANDLE: return EBADF;
    case ERROR_NOT_ENOUGH_MEMORY: case ERROR_OUTOFMEMORY: return ENOMEM;
    case ERROR_NOT_SAME_DEVICE: return EXDEV;
    case ERROR_WRITE_FAULT: case ERROR_GEN_FAILURE: return EIO;
    case ERROR_HANDLE_DISK_FULL: case ERROR_DISK_FULL: return ENOSPC;
    case ERROR_FILE_EXISTS: case ERROR_ALREADY_EXISTS: return EEXIST;
    case ERROR_INVALID_PARAMETER: return EINVAL;
    case ERROR_BROKEN_PIPE: return EPIPE;
    case ERROR_DIR_NOT_EMPTY: return ENOTEMPTY;
    case ERROR_DIRECTORY: return ENOTDIR;
    case ERROR_PRIVILEGE_NOT_HELD: return EPERM;
    default: return 0;
    }
}

#endif /* _WIN32 */
