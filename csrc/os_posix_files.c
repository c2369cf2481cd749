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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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
    int dir_fd;        /* the directory, pinned */
    uint64_t dir_dev;  /* and its identity */
    uint64_t dir_ino;
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
    *fd = opened;
    *dev = (uint64_t)st.st_dev;
    *ino = (uint64_t)st.st_ino;
    return MONOSTAMP_OK;
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
    place->dir_fd = fd;
    place->dir_dev = dev;
    place->dir_ino = ino;
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
    if (place == NULL)
        return;
    close(place->dir_fd);
    free(place);
}

int monostamp__os_place_id(const monostamp__os_place *place, monostamp__os_file_id *out)
{
    struct stat st;
    int rc = place->full_path != NULL
                 ? fstatat(AT_FDCWD, place->full_path, &st, AT_SYMLINK_NOFOLLOW)
                 : fstatat(place->dir_fd, place->name, &st, AT_SYMLINK_NOFOLLOW);
    if (rc != 0)
        return monostamp__os_fail(errno);
    file_id_of(&st, out);
    return MONOSTAMP_OK;
}

int monostamp__os_place_pinned_id(const monostamp__os_place *place, monostamp__os_file_id *out)
{
    struct stat st;
    if (fstatat(place->dir_fd, place->name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return monostamp__os_fail(errno);
    file_id_of(&st, out);
    return MONOSTAMP_OK;
}

int monostamp__os_place_moved(const monostamp__os_place *place)
{
    struct stat st;
    if (place->dir_path == NULL || stat(place->dir_path, &st) != 0 || !S_ISDIR(st.st_mode))
        return 0;
    return (uint64_t)st.st_dev != place->dir_dev || (uint64_t)st.st_ino != place->dir_ino;
}

int monostamp__os_place_refresh(monostamp__os_place *place)
{
    int fd;
    uint64_t dev, ino;
    if (!monostamp__os_place_moved(place) ||
        open_directory(place->dir_path, &fd, &dev, &ino) != MONOSTAMP_OK)
        return 0;
    if (dev == place->dir_dev && ino == place->dir_ino) {
        close(fd); /* moved back meanwhile */
        return 0;
    }
    close(place->dir_fd);
    place->dir_fd = fd;
    place->dir_dev = dev;
    place->dir_ino = ino;
    return 1;
}

#if defined(O_TMPFILE) && defined(__linux__)
/* Linux: the file is made nameless (O_TMPFILE) and linked into place once
 * complete, so a process killed half-way leaves nothing behind.  1 if done
 * (*rc says how), 0 if this file system cannot, for the fallback. */
static int create_nameless(const monostamp__os_place *place, const void *initial, size_t size,
                           int trust_group, int *rc)
{
    char proc[64];
    int fd = openat(place->dir_fd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0)
        return 0;
    if ((*rc = fill_new_file(fd, initial, size, trust_group)) == MONOSTAMP_OK) {
        /* linkat with AT_EMPTY_PATH needs a capability; through /proc it
         * does not.  No /proc: fall back. */
        snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
        if (linkat(AT_FDCWD, proc, place->dir_fd, place->name, AT_SYMLINK_FOLLOW) != 0 &&
            errno != EEXIST) {
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
static int create_complete(const monostamp__os_place *place, const void *initial, size_t size,
                           int trust_group)
{
    int rc = MONOSTAMP_OK;
#if defined(O_TMPFILE) && defined(__linux__)
    if (create_nameless(place, initial, size, trust_group, &rc))
        return rc;
#endif
    /* Elsewhere a short temporary name in the same directory (so that a
     * 250-byte file name still fits NAME_MAX), removed at once; mkstemp
     * has no *at() form, so the name is made here. */
    char tmp[32];
    int fd = -1;
    for (int attempt = 0; fd < 0 && attempt < 100; attempt++) {
        unsigned char random[6];
        if ((rc = monostamp__os_random(random, sizeof random)) != MONOSTAMP_OK)
            return rc;
        snprintf(tmp, sizeof tmp, ".monostamp-%02x%02x%02x%02x%02x%02x", random[0], random[1],
                 random[2], random[3], random[4], random[5]);
        fd = openat(place->dir_fd, tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0 && errno != EEXIST)
            return monostamp__os_fail(errno);
    }
    if (fd < 0)
        return MONOSTAMP_EOS(EEXIST);
    rc = fill_new_file(fd, initial, size, trust_group);
    if (rc == MONOSTAMP_OK && linkat(place->dir_fd, tmp, place->dir_fd, place->name, 0) != 0 &&
        errno != EEXIST)
        rc = monostamp__os_fail(errno);
    unlinkat(place->dir_fd, tmp, 0);
    close(fd);
    return rc;
}

/* 1 if `gid` is the effective group or one of the supplementary ones. */
static int in_my_groups(gid_t gid)
{
    if (gid == getegid())
        return 1;
    int n = getgroups(0, NULL);
    if (n <= 0)
        return 0;
    gid_t *groups = malloc((size_t)n * sizeof *groups);
    if (groups == NULL)
        return 0;
    n = getgroups(n, groups);
    int found = 0;
    for (int i = 0; i < n && !found; i++)
        found = groups[i] == gid;
    free(groups);
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

int monostamp__os_map_place(const monostamp__os_place *place, const void *initial, size_t size,
                            int trust_group, const struct monostamp__os_file_id *repair,
                            void **out_addr, struct monostamp__os_file_id *out_id)
{
    struct stat st;
    int fd, rc;
    /* O_NOFOLLOW: a symbolic link planted at the path is refused, not
     * followed to a file of someone else's choosing. */
    const int flags = O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK;

    fd = openat(place->dir_fd, place->name, flags);
    if (fd < 0 && errno == ENOENT) {
        if ((rc = create_complete(place, initial, size, trust_group)) != MONOSTAMP_OK)
            return rc;
        fd = openat(place->dir_fd, place->name, flags);
    }
    if (fd < 0)
        return errno == ELOOP ? MONOSTAMP_EUNSAFE : monostamp__os_fail(errno);
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

#endif /* !_WIN32 */
