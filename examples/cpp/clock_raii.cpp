// clock_raii.cpp: monostamp from C++: a clock the library allocates, held
// by a std::unique_ptr (monostamp_clock_new / monostamp_clock_free), and
// one embedded in a C++ object.  Five stamps from each, with their offsets.
//
//   c++ -std=c++17 clock_raii.cpp $(pkg-config --cflags --libs monostamp)
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

#include <monostamp.h>

// Embedded: the clock's storage is a member.  An initialised clock must not
// move, so the holder can be neither copied nor moved.
class Clock {
public:
    explicit Clock(const char *zone)
    {
        monostamp_options options;
        monostamp_options_init(&options);
        options.zone = zone;
        int rc = monostamp_clock_init(&clock_, &options);
        if (rc != MONOSTAMP_OK)
            throw std::runtime_error(std::string(zone) + ": " + monostamp_strerror(rc));
    }
    ~Clock() { monostamp_clock_destroy(&clock_); }
    Clock(const Clock &) = delete;
    Clock &operator=(const Clock &) = delete;
    monostamp_clock *get() { return &clock_; }

private:
    monostamp_clock clock_;
};

static void print_stamps(const char *label, monostamp_clock *clock)
{
    for (int i = 0; i < 5; i++) {
        monostamp_stamp stamp;
        char text[MONOSTAMP_ISO8601_MAX + 1];
        int rc = monostamp_now(clock, &stamp);
        if (rc == MONOSTAMP_OK)
            rc = monostamp_format_iso8601(text, sizeof text, stamp.utc_ns, stamp.offset_s, 9, 0);
        if (rc < 0)
            throw std::runtime_error(monostamp_strerror(rc));
        std::printf("%-9s %s\n", label, text);
    }
}

int main()
{
    try {
        // Allocated by the library: what an FFI host does, and what C++
        // code that cannot see MONOSTAMP_CLOCK_SIZE at compile time may do.
        monostamp_clock *raw = nullptr;
        int rc = monostamp_clock_new(nullptr, &raw);  // the defaults: local zone
        if (rc != MONOSTAMP_OK)
            throw std::runtime_error(monostamp_strerror(rc));
        std::unique_ptr<monostamp_clock, void (*)(monostamp_clock *)> allocated(raw, monostamp_clock_free);
        print_stamps("new/free", allocated.get());

        Clock embedded("Asia/Kolkata");
        print_stamps("embedded", embedded.get());
    } catch (const std::exception &e) {
        std::fprintf(stderr, "clock_raii: %s\n", e.what());
        return 1;
    }
    return 0;
}
