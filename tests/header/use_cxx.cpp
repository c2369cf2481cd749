// use_cxx.cpp: monostamp.h from real C++, as `make test-cxx` builds it
// with g++ and clang++ (C++11 and C++17, -Wall -Wextra -Werror -pedantic)
// and runs it.  A C++ user holds a clock one of two ways, and both are
// exercised here:
//   - embedded: the clock's storage inside a C++ object (here a class that
//     cannot be copied or moved, since an initialised clock must stay put);
//   - new/free: a std::unique_ptr whose deleter is monostamp_clock_free.
// Four std::threads stamp on each at once; every stamp must be distinct.
#include "monostamp.h"
#include "monostamp_host.h"  /* the kit for bindings: as includable */

#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

static_assert(sizeof(monostamp_clock) == MONOSTAMP_CLOCK_SIZE, "the header's stated size");
static_assert(alignof(monostamp_clock) >= alignof(std::int64_t), "aligned for int64_t");
static_assert(alignof(monostamp_clock) >= alignof(void *), "aligned for pointers");

namespace {

int failures = 0;
int passed = 0;

void expect(bool cond, const char *what, int line)
{
    if (cond) {
        passed++;
    } else {
        std::printf("use_cxx: line %d: %s\n", line, what);
        failures++;
    }
}
#define EXPECT(cond) expect((cond), #cond, __LINE__)

// The core's error as a C++ exception, message from monostamp_strerror.
struct error : std::runtime_error {
    int code;
    error(int rc, const std::string &what)
        : std::runtime_error(what + ": " + monostamp_strerror(rc)), code(rc) {}
};

// An embedded clock: the storage is a member; init in the constructor,
// destroy in the destructor; never copied or moved.
class embedded_clock {
public:
    explicit embedded_clock(const monostamp_options &options)
    {
        int rc = monostamp_clock_init(&clock_, &options);
        if (rc != MONOSTAMP_OK)
            throw error(rc, "monostamp_clock_init");
    }
    ~embedded_clock() { monostamp_clock_destroy(&clock_); }
    embedded_clock(const embedded_clock &) = delete;
    embedded_clock &operator=(const embedded_clock &) = delete;
    monostamp_clock *get() { return &clock_; }

private:
    monostamp_clock clock_;
};

// A clock the library allocates, released by the unique_ptr.
using clock_ptr = std::unique_ptr<monostamp_clock, void (*)(monostamp_clock *)>;

clock_ptr new_clock(const monostamp_options &options)
{
    monostamp_clock *raw = nullptr;
    int rc = monostamp_clock_new(&options, &raw);
    if (rc != MONOSTAMP_OK)
        throw error(rc, "monostamp_clock_new");
    return clock_ptr(raw, monostamp_clock_free);
}

// Four threads, `each` stamps apiece: all distinct, each thread's increasing.
void four_threads_distinct(monostamp_clock *clock, int each)
{
    std::mutex lock;
    std::set<std::int64_t> all;
    bool increasing = true;
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; t++) {
        threads.emplace_back([&] {
            std::vector<std::int64_t> mine;
            mine.reserve(static_cast<std::size_t>(each));
            for (int i = 0; i < each; i++) {
                std::int64_t ns = 0;
                if (monostamp_time_ns(clock, &ns) != MONOSTAMP_OK)
                    return;
                mine.push_back(ns);
            }
            std::lock_guard<std::mutex> guard(lock);
            for (std::size_t i = 1; i < mine.size(); i++)
                increasing = increasing && mine[i] > mine[i - 1];
            all.insert(mine.begin(), mine.end());
        });
    }
    for (auto &th : threads)
        th.join();
    EXPECT(increasing);
    EXPECT(all.size() == static_cast<std::size_t>(4 * each));
}

}  // namespace

int main()
{
    monostamp_options options;
    monostamp_options_init(&options);
    options.zone = "Europe/Berlin";

    {
        embedded_clock clock(options);
        four_threads_distinct(clock.get(), 20000);
        monostamp_stamp stamp{};
        EXPECT(monostamp_now(clock.get(), &stamp) == MONOSTAMP_OK);
        EXPECT(stamp.offset_s == 3600 || stamp.offset_s == 7200);
        EXPECT(std::strcmp(monostamp_zone_name(monostamp_clock_zone(clock.get())),
                           "Europe/Berlin") == 0);
    }
    {
        clock_ptr clock = new_clock(options);
        four_threads_distinct(clock.get(), 20000);
        char text[MONOSTAMP_ISO8601_MAX + 1];
        int n = monostamp_format_iso8601(text, sizeof text, INT64_C(1796224280123456789),
                                         3600, 9, 0);
        EXPECT(n == 35 && std::string(text) == "2026-12-02T16:11:20.123456789+01:00");
    }
    {
        // A manual clock made with new/free: the policies' arithmetic.
        monostamp_options manual = options;
        manual.source = MONOSTAMP_SOURCE_MANUAL;
        manual.has_start_ns = 1;
        manual.start_ns = 5000;
        clock_ptr clock = new_clock(manual);
        std::int64_t a = 0, b = 0;
        EXPECT(monostamp_time_ns(clock.get(), &a) == MONOSTAMP_OK && a == 5000);
        EXPECT(monostamp_time_ns(clock.get(), &b) == MONOSTAMP_OK && b == 5001);
    }
    // Errors become exceptions that carry the code and the core's sentence.
    try {
        monostamp_options bad = options;
        bad.zone = "Mars/Olympus_Mons";
        new_clock(bad);
        EXPECT(!"an unknown zone was accepted");
    } catch (const error &e) {
        EXPECT(e.code == MONOSTAMP_ENOZONE);
        EXPECT(std::string(e.what()).find("monostamp_clock_new: ") == 0);
    }
    try {
        monostamp_options bad = options;
        bad.max_lead_ns = -1;
        embedded_clock clock(bad);
        EXPECT(!"max_lead_ns -1 was accepted");
    } catch (const error &e) {
        EXPECT(e.code == MONOSTAMP_EINVAL);
    }

    std::printf("%d passed, %d failed\n", passed, failures);
    return failures == 0 ? 0 : 1;
}
