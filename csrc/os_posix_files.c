/*
 * os_posix_files.c: the file half of the OS layer (os.h) on Linux, the BSDs
 * and macOS: state files' places (pinned directories), creating and mapping
 * state files, anonymous shared maps, file identities and whole-file reads.
 * os_posix.c has the rest; os_posix_guard.c keeps a truncated state file
 * from killing the process.
 */
#include "os.h"

#if !defined(_WIN32)

#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

/* What identifies a file's contents (os.h); read by the mapping and the
 * file functions below. */
static void file_id_of(const struct stat *st, monostamp__os_file_id *out)
{
    out->dev = (uint64_t)st->st_dev;
    out->ino = (uint64_t)st->st_ino;
    out->size = (int64_t)st->st_size;
    out->regular = S_ISREG(st->st_mode);
#if defined(__APPLE__)
    out->mtime_s = (int64_t)st->st_mtimespec.tv_sec;
    out->mtime_ns = (int64_t)st->st_mtimespec.tv_nsec;
#else
    out->mtime_s = (int64_t)st->st_mtim.tv_sec;
    out->mtime_ns = (int64_t)st->st_mtim.tv_nsec;
#endif
}

/* ------------------------------------------------------ shared memory */

/*
 * Everything a place does after its pin may run inside the preload's
 * clock_gettime, which a program may call from a signal handler: so no
 * malloc, no stdio, no mutex, only system calls that POSIX (or, for mmap
 * and flock, glibc's manual) lists as async-signal-safe, and errno is left
 * as it was found (each such entry point saves and restores it).  These
 * little formatters stand in for snprintf.  (The one wait is a repair's
 * flock, which only a core clock's move asks for, under its watch.)
 */
static char *put_text(char *at, const char *text)
{
    while (*text != '\0')
        *at++ = *text++;
    return at;
}

#if defined(O_TMPFILE) && defined(__linux__)
/* `value` in decimal; a descriptor's number, so never negative.  (Only
 * create_nameless names one, where O_TMPFILE is declared: _GNU_SOURCE.) */
static char *put_decimal(char *at, unsigned value)
{
    char digits[12];
    int n = 0;
    do
        digits[n++] = (char)('0' + value % 10);
    while ((value /= 10) != 0);
    while (n > 0)
        *at++ = digits[--n];
    return at;
}
#endif

static char *put_hex_byte(char *at, unsigned char byte)
{
    static const char hex[] = "0123456789abcdef";
    *at++ = hex[byte >> 4];
    *at++ = hex[byte & 15];
    return at;
}

/* Returns `rc` after closing `fd`: close() may change errno, and the code
 * already carries the cause. */
static int close_returning(int fd, int rc)
{
    close(fd);
    return rc;
}

/* Writes `initial` into the new file `fd` and gives it its mode (set
 * exactly: the umask must not strip the group's bits for trust_group). */
static int fill_new_file(int fd, const void *initial, size_t size, int trust_group)
{
    ssize_t wrote = pwrite(fd, initial, size, 0);
    if (wrote < 0)
        return monostamp__os_fail(errno);
    if ((size_t)wrote != size)
        return MONOSTAMP_EOS(EIO);
    if (fchmod(fd, trust_group ? 0660 : 0600) != 0)
        return monostamp__os_fail(errno);
    return MONOSTAMP_OK;
}

/* A directory opened only to be a base for *at() calls: O_PATH where
 * Linux has it (it needs no read permission on the directory; glibc
 * declares it only under _GNU_SOURCE, hence its internal name). */
#if !defined(O_PATH) && defined(__O_PATH)
#define O_PATH __O_PATH
#endif
#if defined(O_PATH)
#define DIR_FLAGS (O_PATH | O_DIRECTORY | O_CLOEXEC)
#else
#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_CLOEXEC)
#endif

struct monostamp__os_place {
    /* The directory, pinned, and its identity.  Atomic: the preload's
     * threads (and signal handlers) share one place and may each find
     * the descriptor lost and put a new one in (directory_of()). */
    _Atomic int dir_fd;
    _Atomic uint64_t dir_dev;
    _Atomic uint64_t dir_ino;
    /* Held by whoever is putting a new descriptor in; anyone who finds it
     * held uses a descriptor of its own for its one call, so that a
     * signal handler never waits for the code it interrupted. */
    atomic_flag repinning;
    /* The directory's path as it was resolved at the pin (absolute: the
     * working directory of that call prefixed to a relative one), and the
     * file's full path, for noticing that the path now leads elsewhere;
     * NULL if the working directory could not be named. */
    char *dir_path;
    char *full_path;
    char name[];       /* the file's name in it; the two paths follow */
};

/* The working directory's absolute name, malloc'd, or NULL. */
static char *working_directory(void)
{
    for (size_t size = 256; size <= 65536; size *= 2) {
        char *buf = malloc(size);
        if (buf == NULL)
            return NULL;
        if (getcwd(buf, size) != NULL)
            return buf;
        free(buf);
        if (errno != ERANGE)
            return NULL;
    }
    return NULL;
}

/* Opens `dir` as a pinned directory and reads its identity: 0 or an EOS
 * code. */
static int open_directory(const char *dir, int *fd, uint64_t *dev, uint64_t *ino)
{
    struct stat st;
    int opened = open(dir, DIR_FLAGS);
    if (opened < 0)
        return monostamp__os_fail(errno);
    if (fstat(opened, &st) != 0)
        return close_returning(opened, monostamp__os_fail(errno));
    if (!S_ISDIR(st.st_mode))
        return close_returning(opened, monostamp__os_fail(ENOTDIR));
    *fd = opened;
    *dev = (uint64_t)st.st_dev;
    *ino = (uint64_t)st.st_ino;
    return MONOSTAMP_OK;
}

/*
 * 1 if descriptor `fd` is still the one a place opened on the directory
 * (dev, ino), else 0.  A daemon may close every descriptor it did not open
 * itself (closerange, close_range, python-daemon), and the number is then
 * handed to the next open: another directory, in which the place would
 * otherwise create and map a state file of its own, splitting the
 * sequence.  So before any use the descriptor must name that directory;
 * and since only a descriptor proved ours may be closed, one that names
 * it but was not opened as ours are (O_PATH, where there is one: the same
 * directory opened anew by its new owner) counts as lost too.
 */
static int holds_directory(int fd, uint64_t dev, uint64_t ino)
{
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) ||
        (uint64_t)st.st_dev != dev || (uint64_t)st.st_ino != ino)
        return 0;
#if defined(O_PATH)
    int flags = fcntl(fd, F_GETFL);
    return flags >= 0 && (flags & O_PATH) == O_PATH;
#else
    return 1;
#endif
}

/* The place's fields as one reading: the descriptor first (acquire), so
 * that one put in by publish() comes with its identity. */
static int place_holds_directory(monostamp__os_place *place, int *fd)
{
    *fd = atomic_load_explicit(&place->dir_fd, memory_order_acquire);
    return holds_directory(*fd, atomic_load_explicit(&place->dir_dev, memory_order_relaxed),
                           atomic_load_explicit(&place->dir_ino, memory_order_relaxed));
}

/* Puts a descriptor and its identity in (with repinning held).  A reader
 * that meets the old descriptor beside the new identity finds that they
 * disagree, unless the old number names the new directory, which is then
 * as good to use. */
static void publish(monostamp__os_place *place, int fd, uint64_t dev, uint64_t ino)
{
    atomic_store_explicit(&place->dir_dev, dev, memory_order_relaxed);
    atomic_store_explicit(&place->dir_ino, ino, memory_order_relaxed);
    atomic_store_explicit(&place->dir_fd, fd, memory_order_release);
}

/*
 * The place's directory for one call, checked first (holds_directory):
 * the pinned descriptor while it is ours; else the directory found again
 * by its path, as for a directory replaced (monostamp__os_place_refresh):
 * opened, its identity taken, and put in the place's fields in place of
 * the lost number, which is not closed (it belongs to whoever has it now).
 * If the path leads nowhere, or was never known, an error: the place never
 * falls back on a directory it cannot vouch for.  *temporary says the
 * descriptor is this call's own (another thread, or the code this signal
 * handler interrupted, was putting one in): close it with directory_done.
 * The const of the callers' place is cast away for the fields only: every
 * place is made by monostamp__os_place_pin's malloc, never a const object.
 */
static int directory_of(const monostamp__os_place *place, int *out_fd, int *temporary)
{
    monostamp__os_place *mine = (monostamp__os_place *)place;
    int fd, found, rc;
    uint64_t dev, ino;

    *temporary = 0;
    if (MONOSTAMP__LIKELY(place_holds_directory(mine, out_fd)))
        return MONOSTAMP_OK;
    if (place->dir_path == NULL)
        return MONOSTAMP_EOS(EBADF);
    if ((rc = open_directory(place->dir_path, &found, &dev, &ino)) != MONOSTAMP_OK)
        return rc;
    if (atomic_flag_test_and_set_explicit(&mine->repinning, memory_order_acquire)) {
        *out_fd = found;
        *temporary = 1;
        return MONOSTAMP_OK;
    }
    if (place_holds_directory(mine, &fd)) {
        close(found); /* another thread put one in first */
        found = fd;
    } else {
        publish(mine, found, dev, ino);
    }
    atomic_flag_clear_explicit(&mine->repinning, memory_order_release);
    *out_fd = found;
    return MONOSTAMP_OK;
}

static void directory_done(int fd, int temporary)
{
    if (temporary)
        close(fd);
}

int monostamp__os_place_pin(const char *path, monostamp__os_place **out)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash == NULL ? path : slash + 1;
    size_t name_len = strlen(name);
    int fd, rc;
    uint64_t dev, ino;

    if (name_len == 0)
        return MONOSTAMP_EFOREIGN; /* "dir/": a directory, no state file */
    size_t dir_len = slash == NULL ? 1 : slash == path ? 1 : (size_t)(slash - path);
    char *dir = malloc(dir_len + 1);
    if (dir == NULL)
        return MONOSTAMP_ENOMEM;
    memcpy(dir, slash == NULL ? "." : path, dir_len);
    dir[dir_len] = '\0';
    if ((rc = open_directory(dir, &fd, &dev, &ino)) != MONOSTAMP_OK) {
        free(dir);
        return rc;
    }
    /* The directory's path made absolute against the working directory
     * of this call, so that a later chdir() changes nothing. */
    char *cwd = dir[0] == '/' ? NULL : working_directory();
    size_t cwd_len = cwd == NULL ? 0 : strlen(cwd);
    int known = dir[0] == '/' || cwd != NULL;
    size_t abs_len = cwd_len + 1 + dir_len;
    monostamp__os_place *place =
        malloc(sizeof *place + name_len + 1 + (known ? 2 * (abs_len + 1) + name_len + 1 : 0));
    if (place == NULL) {
        free(dir);
        free(cwd);
        return close_returning(fd, MONOSTAMP_ENOMEM);
    }
    atomic_init(&place->dir_fd, fd);
    atomic_init(&place->dir_dev, dev);
    atomic_init(&place->dir_ino, ino);
    atomic_flag_clear(&place->repinning);
    memcpy(place->name, name, name_len + 1);
    place->dir_path = place->full_path = NULL;
    if (known) {
        /* name, then the directory's path, then the file's full path. */
        char *at = place->dir_path = place->name + name_len + 1;
        if (cwd != NULL) {
            memcpy(at, cwd, cwd_len);
            at += cwd_len;
            *at++ = '/';
        }
        memcpy(at, dir, dir_len);
        at += dir_len;
        *at++ = '\0';
        size_t full_dir_len = (size_t)(at - 1 - place->dir_path);
        place->full_path = at;
        memcpy(at, place->dir_path, full_dir_len);
        at += full_dir_len;
        *at++ = '/'; /* "/" + "/name" is "//name": the same file */
        memcpy(at, name, name_len + 1);
    }
    free(dir);
    free(cwd);
    *out = place;
    return MONOSTAMP_OK;
}

void monostamp__os_place_free(monostamp__os_place *place)
{
    int fd;
    if (place == NULL)
        return;
    /* A number lost to a daemon's closerange and reused is not ours. */
    if (place_holds_directory(place, &fd))
        close(fd);
    free(place);
}

static int place_id(const monostamp__os_place *place, monostamp__os_file_id *out)
{
    struct stat st;
    int dir, temporary, rc;
    if (place->full_path != NULL) {
        /* The path alone: the one look every check makes pays nothing
         * for the descriptor. */
        if (fstatat(AT_FDCWD, place->full_path, &st, AT_SYMLINK_NOFOLLOW) != 0)
            return monostamp__os_fail(errno);
        file_id_of(&st, out);
        return MONOSTAMP_OK;
    }
    if ((rc = directory_of(place, &dir, &temporary)) != MONOSTAMP_OK)
        return rc;
    rc = fstatat(dir, place->name, &st, AT_SYMLINK_NOFOLLOW) != 0 ? monostamp__os_fail(errno)
                                                                   : MONOSTAMP_OK;
    directory_done(dir, temporary);
    if (rc == MONOSTAMP_OK)
        file_id_of(&st, out);
    return rc;
}

int monostamp__os_place_id(const monostamp__os_place *place, monostamp__os_file_id *out)
{
    int saved = errno;
    int rc = place_id(place, out);
    errno = saved;
    return rc;
}

int monostamp__os_place_pinned_id(const monostamp__os_place *place, monostamp__os_file_id *out)
{
    struct stat st;
    int saved = errno, dir, temporary;
    int rc = directory_of(place, &dir, &temporary);
    if (rc == MONOSTAMP_OK) {
        rc = fstatat(dir, place->name, &st, AT_SYMLINK_NOFOLLOW) != 0
                 ? monostamp__os_fail(errno)
                 : MONOSTAMP_OK;
        directory_done(dir, temporary);
    }
    if (rc == MONOSTAMP_OK)
        file_id_of(&st, out);
    errno = saved;
    return rc;
}

static int place_moved(const monostamp__os_place *place)
{
    struct stat st;
    if (place->dir_path == NULL || stat(place->dir_path, &st) != 0 || !S_ISDIR(st.st_mode))
        return 0;
    return (uint64_t)st.st_dev !=
               atomic_load_explicit(&place->dir_dev, memory_order_relaxed) ||
           (uint64_t)st.st_ino != atomic_load_explicit(&place->dir_ino, memory_order_relaxed);
}

int monostamp__os_place_moved(const monostamp__os_place *place)
{
    int saved = errno;
    int moved = place_moved(place);
    errno = saved;
    return moved;
}

static int place_refresh(monostamp__os_place *place)
{
    int fd, old;
    uint64_t dev, ino;
    if (!place_moved(place) || open_directory(place->dir_path, &fd, &dev, &ino) != MONOSTAMP_OK)
        return 0;
    if (atomic_flag_test_and_set_explicit(&place->repinning, memory_order_acquire))
        return close_returning(fd, 0); /* a signal handler is at it: next time */
    int ours = place_holds_directory(place, &old);
    int same = dev == atomic_load_explicit(&place->dir_dev, memory_order_relaxed) &&
               ino == atomic_load_explicit(&place->dir_ino, memory_order_relaxed);
    if (!same)
        publish(place, fd, dev, ino);
    atomic_flag_clear_explicit(&place->repinning, memory_order_release);
    if (same)
        return close_returning(fd, 0); /* moved back meanwhile */
    /* The old descriptor is closed only if it was still ours: a number a
     * daemon closed and handed to someone else stays theirs. */
    if (ours)
        close(old);
    return 1;
}

int monostamp__os_place_refresh(monostamp__os_place *place)
{
    int saved = errno;
    int refreshed = place_refresh(place);
    errno = saved;
    return refreshed;
}

#if defined(O_TMPFILE) && defined(__linux__)
/* Linux: the file is made nameless (O_TMPFILE) and linked into place once
 * complete, so a process killed half-way leaves nothing behind.  1 if done
 * (*rc says how), 0 if this file system cannot, for the fallback.  `dir`
 * is the place's directory, checked (directory_of). */
static int create_nameless(int dir, const char *name, const void *initial, size_t size,
                           int trust_group, int *rc)
{
    char proc[32]; /* "/proc/self/fd/" and at most 10 digits */
    int fd = openat(dir, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0)
        return 0;
    if ((*rc = fill_new_file(fd, initial, size, trust_group)) == MONOSTAMP_OK) {
        /* linkat with AT_EMPTY_PATH needs a capability; through /proc it
         * does not.  No /proc: fall back. */
        *put_decimal(put_text(proc, "/proc/self/fd/"), (unsigned)fd) = '\0';
        if (linkat(AT_FDCWD, proc, dir, name, AT_SYMLINK_FOLLOW) != 0 && errno != EEXIST) {
            int err = errno;
            close(fd);
            if (err == ENOENT && access("/proc/self/fd", F_OK) != 0)
                return 0;
            *rc = monostamp__os_fail(err);
            return 1;
        }
    }
    close(fd);
    return 1;
}
#endif

/* Makes the file complete, then links it to the place: no process ever
 * maps a half-written file, and of two creators exactly one wins.  Success
 * also when another process linked its own first (EEXIST): the caller then
 * checks whose file that is. */
static int create_complete(int dir, const char *name, const void *initial, size_t size,
                           int trust_group)
{
    int rc = MONOSTAMP_OK;
#if defined(O_TMPFILE) && defined(__linux__)
    if (create_nameless(dir, name, initial, size, trust_group, &rc))
        return rc;
#endif
    /* Elsewhere a short temporary name in the same directory (so that a
     * 250-byte file name still fits NAME_MAX), removed at once; mkstemp
     * has no *at() form, so the name is made here. */
    char tmp[32]; /* ".monostamp-" and 12 hex digits */
    int fd = -1;
    for (int attempt = 0; fd < 0 && attempt < 100; attempt++) {
        unsigned char random[6];
        if ((rc = monostamp__os_random(random, sizeof random)) != MONOSTAMP_OK)
            return rc;
        char *at = put_text(tmp, ".monostamp-");
        for (size_t i = 0; i < sizeof random; i++)
            at = put_hex_byte(at, random[i]);
        *at = '\0';
        fd = openat(dir, tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0 && errno != EEXIST)
            return monostamp__os_fail(errno);
    }
    if (fd < 0)
        return MONOSTAMP_EOS(EEXIST);
    rc = fill_new_file(fd, initial, size, trust_group);
    if (rc == MONOSTAMP_OK && linkat(dir, tmp, dir, name, 0) != 0 && errno != EEXIST)
        rc = monostamp__os_fail(errno);
    unlinkat(dir, tmp, 0);
    close(fd);
    return rc;
}

/* 1 if `gid` is the effective group or one of the supplementary ones.  The
 * list goes on the stack, or for a long one in pages of its own (mmap,
 * where malloc would not be async-signal-safe); a list that grows between
 * the two calls answers 0, the safe side. */
static int in_my_groups(gid_t gid)
{
    gid_t few[64];
    gid_t *groups = few;
    size_t mapped = 0;
    if (gid == getegid())
        return 1;
    int n = getgroups(0, NULL);
    if (n <= 0)
        return 0;
    if ((size_t)n > sizeof few / sizeof few[0]) {
        mapped = (size_t)n * sizeof *groups;
        void *pages =
            mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (pages == MAP_FAILED)
            return 0;
        groups = pages;
    }
    n = getgroups(n, groups);
    int found = 0;
    for (int i = 0; i < n && !found; i++)
        found = groups[i] == gid;
    if (mapped != 0)
        munmap(groups, mapped);
    return found;
}

/*
 * Whether a state file is safe to share a sequence through.  Anyone who
 * can write it can push every joiner's stamps years ahead or make them
 * fail for good, so by default it must be the caller's own and writable by
 * nobody else; trust_group widens that to a file of one of the caller's
 * groups (owner in the group, group-writable), never to other users.
 * Root is held to the same rule: it must not trust a user's file either.
 */
static int owner_is_safe(const struct stat *st, int trust_group)
{
    if (st->st_mode & S_IWOTH)
        return 0;
    if (st->st_uid == geteuid())
        return trust_group || !(st->st_mode & S_IWGRP);
    return trust_group && in_my_groups(st->st_gid);
}

/*
 * A state file this process had mapped (`repair`, by device and inode) was
 * truncated under it: its bytes are written anew from `initial`, the
 * repair of a replacement whose contents are lost.  Under an exclusive
 * flock() of the file (per open file, so threads and processes alike are
 * serialised), and only if it is still short, so that of many repairers
 * one writes.  0, or an EOS code.
 */
static int repair_truncated(int fd, const struct stat *st, const void *initial, size_t size,
                            const struct monostamp__os_file_id *repair)
{
    struct stat now;
    int rc = MONOSTAMP_OK;
    if (repair == NULL || (uint64_t)st->st_dev != repair->dev ||
        (uint64_t)st->st_ino != repair->ino || st->st_size >= (off_t)size)
        return MONOSTAMP_OK;
    while (flock(fd, LOCK_EX) != 0)
        if (errno != EINTR)
            return monostamp__os_fail(errno);
    if (fstat(fd, &now) != 0) {
        rc = monostamp__os_fail(errno);
    } else if (now.st_size < (off_t)size) {
        ssize_t wrote = pwrite(fd, initial, size, 0);
        if (wrote < 0)
            rc = monostamp__os_fail(errno);
        else if ((size_t)wrote != size)
            rc = MONOSTAMP_EOS(EIO);
    }
    flock(fd, LOCK_UN);
    return rc;
}

/* Opens the state file at the place's checked directory `dir`, creating
 * it if absent: the descriptor, or a code (negative). */
static int open_state_file(int dir, const char *name, const void *initial, size_t size,
                           int trust_group)
{
    /* O_NOFOLLOW: a symbolic link planted at the path is refused, not
     * followed to a file of someone else's choosing. */
    const int flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK;
    int rc, fd = openat(dir, name, flags);
    if (fd < 0 && errno == ENOENT) {
        if ((rc = create_complete(dir, name, initial, size, trust_group)) != MONOSTAMP_OK)
            return rc;
        fd = openat(dir, name, flags);
    }
    if (fd < 0)
        return errno == ELOOP ? MONOSTAMP_EUNSAFE : monostamp__os_fail(errno);
    return fd;
}

static int map_place(const monostamp__os_place *place, const void *initial, size_t size,
                     int trust_group, const struct monostamp__os_file_id *repair,
                     void **out_addr, struct monostamp__os_file_id *out_id)
{
    struct stat st;
    int dir, temporary, fd, rc;

    /* Checked first: a lost descriptor's number may name a directory of
     * someone else's by now, where no file must be made or mapped. */
    if ((rc = directory_of(place, &dir, &temporary)) != MONOSTAMP_OK)
        return rc;
    fd = open_state_file(dir, place->name, initial, size, trust_group);
    directory_done(dir, temporary);
    if (fd < 0)
        return fd;
    if (fstat(fd, &st) != 0)
        return close_returning(fd, monostamp__os_fail(errno));
    if (!S_ISREG(st.st_mode))
        return close_returning(fd, MONOSTAMP_EFOREIGN);
    if (!owner_is_safe(&st, trust_group))
        return close_returning(fd, MONOSTAMP_EUNSAFE);
    if ((rc = repair_truncated(fd, &st, initial, size, repair)) != MONOSTAMP_OK)
        return close_returning(fd, rc);
    if (fstat(fd, &st) != 0)
        return close_returning(fd, monostamp__os_fail(errno));
    if (st.st_size < (off_t)size)
        return close_returning(fd, MONOSTAMP_EFOREIGN);
    void *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED)
        return close_returning(fd, monostamp__os_fail(errno));
    close(fd); /* the mapping keeps the file */
    *out_addr = map;
    file_id_of(&st, out_id);
    return MONOSTAMP_OK;
}

int monostamp__os_map_place(const monostamp__os_place *place, const void *initial, size_t size,
                            int trust_group, const struct monostamp__os_file_id *repair,
                            void **out_addr, struct monostamp__os_file_id *out_id)
{
    int saved = errno;
    int rc = map_place(place, initial, size, trust_group, repair, out_addr, out_id);
    errno = saved;
    return rc;
}

int monostamp__os_map_anonymous(size_t size, void **out_addr)
{
    void *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED)
        return monostamp__os_fail(errno);
    *out_addr = map; /* zero-filled by the kernel */
    return MONOSTAMP_OK;
}

void monostamp__os_unmap(void *addr, size_t size)
{
    munmap(addr, size);
}

/* -------------------------------------------------------------- files */

int monostamp__os_file_id_get(const char *path, monostamp__os_file_id *out)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return monostamp__os_fail(errno);
    file_id_of(&st, out);
    return MONOSTAMP_OK;
}

int monostamp__os_read_file(const char *path, size_t max_size,
                            unsigned char **out_buf, size_t *out_len,
                            monostamp__os_file_id *out_id)
{
    struct stat st;
    unsigned char *buf;
    size_t got = 0, want;
    /* O_NONBLOCK: opening a FIFO (or a device) must not hang; anything
     * but a regular file is refused below, before a read. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);

    if (fd < 0)
        return monostamp__os_fail(errno);
    if (fstat(fd, &st) != 0)
        return close_returning(fd, monostamp__os_fail(errno));
    if (!S_ISREG(st.st_mode) || st.st_size <= 0 || (uint64_t)st.st_size > max_size)
        return close_returning(fd, MONOSTAMP_EFOREIGN);
    want = (size_t)st.st_size;
    if ((buf = malloc(want)) == NULL)
        return close_returning(fd, MONOSTAMP_ENOMEM);
    /* The size came from fstat; a file that shrinks meanwhile reads short
     * (and its parse fails), one that grows is noticed at the next
     * re-check, by its id. */
    while (got < want) {
        ssize_t r = read(fd, buf + got, want - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    *out_buf = buf;
    *out_len = got;
    if (out_id != NULL)
        file_id_of(&st, out_id);
    return MONOSTAMP_OK;
}

/* ------------------------------------------------ a directory's history */

#if defined(__linux__) && !defined(SYS_statx) && defined(__NR_statx)
#define SYS_statx __NR_statx
#endif

#if defined(__linux__) && defined(SYS_statx)
/*
 * The kernel's statx, called by its number rather than through glibc's
 * statx(): that wrapper is a glibc 2.28 symbol, while the wheels are built
 * for glibc 2.17 (manylinux_2_17, by zig cc against 2.17's symbols), and
 * where the kernel lacks statx the wrapper falls back on fstatat, which
 * knows no birth time anyway, so it would answer nothing more.  glibc
 * declares struct statx only under _GNU_SOURCE, and <linux/stat.h> clashes
 * with <sys/stat.h> in some of its versions, so the kernel's layout (a
 * stable ABI, 256 bytes, all of which the kernel writes) is spelt here.
 */
struct place_statx_time {
    int64_t tv_sec;
    uint32_t tv_nsec;
    int32_t reserved;
};
struct place_statx {
    uint32_t mask, blksize;
    uint64_t attributes;
    uint32_t nlink, uid, gid;
    uint16_t mode, spare0;
    uint64_t ino, size, blocks, attributes_mask;
    struct place_statx_time atime, btime, ctime, mtime;
    uint32_t rdev_major, rdev_minor, dev_major, dev_minor;
    uint64_t spare[14];
};
_Static_assert(sizeof(struct place_statx) == 256, "the kernel's struct statx");
_Static_assert(offsetof(struct place_statx, btime) == 80, "the kernel's struct statx");
_Static_assert(offsetof(struct place_statx, mtime) == 112, "the kernel's struct statx");
#define PLACE_STATX_TYPE 0x0001u
#define PLACE_STATX_MODE 0x0002u
#define PLACE_STATX_UID 0x0008u
#define PLACE_STATX_MTIME 0x0040u
#define PLACE_STATX_BTIME 0x0800u
#if !defined(AT_EMPTY_PATH)
#define AT_EMPTY_PATH 0x1000 /* Linux's; <fcntl.h> names it under _GNU_SOURCE only */
#endif

/*
 * A directory made by its user for one purpose (mkdtemp, mode 0700) holds
 * nothing a departed process could have stamped on, as long as no entry
 * was ever added to or removed from it: each such change moves its
 * modification time, and at its birth the two times are one instant (the
 * kernel sets both from one reading).  Changes within the file system's
 * timestamp tick of the directory's birth (a jiffy, 4 ms on this kernel,
 * unless it hands out fine-grained stamps) leave the times equal: only
 * the directory's own user can make them, since no one else may enter it.
 */
static int place_pristine(const monostamp__os_place *place)
{
    const unsigned want = PLACE_STATX_TYPE | PLACE_STATX_MODE | PLACE_STATX_UID |
                          PLACE_STATX_MTIME | PLACE_STATX_BTIME;
    struct place_statx st;
    int dir, temporary;
    if (directory_of(place, &dir, &temporary) != MONOSTAMP_OK)
        return 0;
    memset(&st, 0, sizeof st);
    /* The directory itself: "" with AT_EMPTY_PATH, which O_PATH allows.
     * ENOSYS (before Linux 4.11) or EPERM (an old seccomp filter): 0. */
    long rc = syscall(SYS_statx, dir, "", AT_EMPTY_PATH, want, &st);
    directory_done(dir, temporary);
    if (rc != 0 || (st.mask & want) != want)
        return 0; /* a file system that keeps no birth time says so here */
    if (!S_ISDIR(st.mode) || st.uid != (uint32_t)geteuid() || (st.mode & 077) != 0)
        return 0;
    return st.btime.tv_sec == st.mtime.tv_sec && st.btime.tv_nsec == st.mtime.tv_nsec;
}
#else
/* XXX: no birth time read here (macOS and FreeBSD keep one in struct stat,
 * under names _POSIX_C_SOURCE hides): every directory may have held a
 * state file, and a new one starts its creator's bound ahead, which costs
 * a wait and never a repeat. */
static int place_pristine(const monostamp__os_place *place)
{
    (void)place;
    return 0;
}
#endif

int monostamp__os_place_pristine(const monostamp__os_place *place)
{
    int saved = errno;
    int pristine = place_pristine(place);
    errno = saved;
    return pristine;
}

#endif /* !_WIN32 */
