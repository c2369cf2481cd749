/*
 * check.h: the smallest test framework that prints both values on failure.
 *
 *   static void test_something(void) { CHECK_EQ(1 + 1, 2); }
 *   int main(void) { RUN(test_something); return check_summary(); }
 *
 * A failed CHECK reports file, line, both expressions and both values,
 * marks the current test failed and returns from it.  check_summary()
 * prints "N passed, N failed" and returns the exit status.
 */
#ifndef MONOSTAMP_CHECK_H
#define MONOSTAMP_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_failed_now;
static int check_passed_count;
static int check_failed_count;

#define CHECK_FAIL_(fmt, ...)                                                 \
    do {                                                                      \
        fprintf(stderr, "  %s:%d: " fmt "\n", __FILE__, __LINE__, __VA_ARGS__); \
        check_failed_now = 1;                                                 \
        return;                                                               \
    } while (0)

#define CHECK(cond)                                                           \
    do {                                                                      \
        if (!(cond)) CHECK_FAIL_("CHECK(%s) failed", #cond);                  \
    } while (0)

/* Compares as intmax_t; prints both sides. */
#define CHECK_OP_(a, op, b)                                                   \
    do {                                                                      \
        intmax_t check_a_ = (intmax_t)(a), check_b_ = (intmax_t)(b);          \
        if (!(check_a_ op check_b_))                                          \
            CHECK_FAIL_("CHECK(%s %s %s) failed: %jd vs %jd", #a, #op, #b,    \
                        check_a_, check_b_);                                  \
    } while (0)
#define CHECK_EQ(a, b) CHECK_OP_(a, ==, b)
#define CHECK_NE(a, b) CHECK_OP_(a, !=, b)
#define CHECK_LT(a, b) CHECK_OP_(a, <, b)
#define CHECK_LE(a, b) CHECK_OP_(a, <=, b)
#define CHECK_GT(a, b) CHECK_OP_(a, >, b)
#define CHECK_GE(a, b) CHECK_OP_(a, >=, b)

#define CHECK_STR_EQ(a, b)                                                    \
    do {                                                                      \
        const char *check_sa_ = (a), *check_sb_ = (b);                        \
        if (check_sa_ == NULL || check_sb_ == NULL ||                         \
            strcmp(check_sa_, check_sb_) != 0)                                \
            CHECK_FAIL_("CHECK_STR_EQ(%s, %s) failed: \"%s\" vs \"%s\"", #a,  \
                        #b, check_sa_ ? check_sa_ : "(null)",                 \
                        check_sb_ ? check_sb_ : "(null)");                    \
    } while (0)

/* A call returning a monostamp code must return `code`; prints the names. */
#define CHECK_RC(call, code)                                                  \
    do {                                                                      \
        int check_rc_ = (call), check_want_ = (code);                         \
        if (check_rc_ != check_want_)                                         \
            CHECK_FAIL_("%s returned %d (%s), expected %d (%s)", #call,       \
                        check_rc_, monostamp_strerror(check_rc_),             \
                        check_want_, monostamp_strerror(check_want_));        \
    } while (0)
#define CHECK_OK(call) CHECK_RC(call, 0)

#define RUN(fn)                                                               \
    do {                                                                      \
        check_failed_now = 0;                                                 \
        fn();                                                                 \
        if (check_failed_now) {                                               \
            check_failed_count++;                                             \
            fprintf(stderr, "FAIL %s\n", #fn);                                \
        } else {                                                              \
            check_passed_count++;                                             \
        }                                                                     \
    } while (0)

static inline int check_summary(void)
{
    printf("%d passed, %d failed\n", check_passed_count, check_failed_count);
    return check_failed_count == 0 ? 0 : 1;
}

#endif
