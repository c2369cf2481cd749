/*
 * shared_windows.h: test_shared.c's tests as Windows runs them, where the
 * POSIX versions fork (docs/windows.md): the other process is this program
 * started again.  Part of test_shared.c, which alone includes it, after
 * its helpers (open_shared, path_in_dir, stamp_each_at, ...): a header so
 * that each file stays short.  shared_files_windows.h has the same for
 * test_shared_files.c.
 */
#ifndef MONOSTAMP_SHARED_WINDOWS_H
#define MONOSTAMP_SHARED_WINDOWS_H

#include <io.h> /* _setmode */

static char self_path[MAX_PATH + 1];

/* Starts this program again with `args` (and MONOSTAMP_SHARED=`shared` if
 * not NULL), its stdout into the file `out`.  The process, or NULL. */
static HANDLE spawn_self(const char *args, const char *shared, const char *out)
{
    SECURITY_ATTRIBUTES sa = {sizeof sa, NULL, TRUE};
    STARTUPINFOA si;
    PROCESS_INFORMATION pi;
    char cmd[1200];
    HANDLE file = CreateFileA(out, GENERIC_WRITE, FILE_SHARE_READ, &sa, CREATE_ALWAYS,
                              FILE_ATTRIBUTE_NORMAL, NULL);
    if (file == INVALID_HANDLE_VALUE)
        return NULL;
    snprintf(cmd, sizeof cmd, "\"%s\" %s", self_path, args);
    memset(&si, 0, sizeof si);
    si.cb = sizeof si;
    si.dwFlags = STARTF_USESTDHANDLES;
    si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
    si.hStdOutput = file;
    si.hStdError = GetStdHandle(STD_ERROR_HANDLE);
    /* The child inherits the environment as it is at CreateProcess. */
    if (shared != NULL)
        _putenv_s("MONOSTAMP_SHARED", shared);
    BOOL ok = CreateProcessA(self_path, cmd, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi);
    if (shared != NULL)
        _putenv_s("MONOSTAMP_SHARED", "");
    CloseHandle(file);
    if (!ok)
        return NULL;
    CloseHandle(pi.hThread);
    return pi.hProcess;
}

/* Waits for `process`: its exit code, or -1. */
static int wait_exit(HANDLE process)
{
    DWORD code = 0;
    if (WaitForSingleObject(process, INFINITE) != WAIT_OBJECT_0 ||
        !GetExitCodeProcess(process, &code))
        code = (DWORD)-1;
    CloseHandle(process);
    return (int)code;
}

/* The child of test_two_processes_on_one_file: its stamps, raw, on
 * stdout (a file); exit status 0 if they were all good. */
static int procs_child(const char *path)
{
    int64_t *mine = malloc(EACH * sizeof *mine);
    if (mine == NULL || stamp_each_at(path, mine) != 0)
        return 1;
    _setmode(_fileno(stdout), _O_BINARY);
    return fwrite(mine, sizeof *mine, EACH, stdout) == EACH && fflush(stdout) == 0 ? 0 : 2;
}

/* A second process started with CreateProcess (no fork here) stamps on
 * the file while this one does. */
static void test_two_processes_on_one_file(void)
{
    char path[300], out[300], args[600]; /* not path_in_dir's one buffer */
    int64_t *all = malloc(2 * EACH * sizeof *all);
    CHECK(all != NULL);
    snprintf(path, sizeof path, "%s/procs.state", dir);
    snprintf(out, sizeof out, "%s/procs.out", dir);
    snprintf(args, sizeof args, "procs \"%s\"", path);
    HANDLE child = spawn_self(args, NULL, out);
    CHECK(child != NULL);
    int bad = stamp_each_at(path, all);
    CHECK_EQ(wait_exit(child), 0);
    CHECK_EQ(bad, 0);
    FILE *f = fopen(out, "rb");
    CHECK(f != NULL);
    size_t got = fread(all + EACH, sizeof *all, EACH, f);
    fclose(f);
    CHECK_EQ(got, EACH);
    size_t duplicates = sorted_duplicates(all, 2 * EACH);
    free(all);
    CHECK_EQ(duplicates, 0);
}

static int run_child(const char *self, const char *path, int64_t *out)
{
    char out_path[300], buf[64] = {0};
    (void)self;
    /* Not path_in_dir, whose one buffer may hold `path`. */
    snprintf(out_path, sizeof out_path, "%s/child.out", dir);
    HANDLE child = spawn_self("child", path, out_path);
    if (child == NULL || wait_exit(child) != 0)
        return -1;
    FILE *f = fopen(out_path, "r");
    if (f == NULL)
        return -1;
    size_t got = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    if (got == 0)
        return -1;
    *out = strtoll(buf, NULL, 10);
    return 0;
}

#endif
