# tools/make-help.awk: `make help`, read from the Makefile itself.
#
#   awk -v native="$(TEST_NATIVE)" -v more="$(TEST_ALL_MORE)" -f tools/make-help.awk Makefile
#
# A target is listed when its rule's line ends in "## one line of text".
# Four groups: the targets of the Makefile's top section (before its first
# "# ----" rule); those make test runs (native, in its order); those make
# test-all runs after make test (more, in its order); then the rest, in the
# Makefile's order.  A target of native or more without a ## line is an
# error, so the list cannot leave out one that the test targets run.
BEGIN {
    n_native = split(native, native_list, " ")
    for (i = 1; i <= n_native; i++) group[native_list[i]] = "native"
    n_more = split(more, more_list, " ")
    for (i = 1; i <= n_more; i++) group[more_list[i]] = "more"
    in_top = 1
}
/^# -----/ { in_top = 0 }
/^[a-z][a-z0-9.-]*:.* ## / {
    name = substr($0, 1, index($0, ":") - 1)
    line = sprintf("  make %-24s %s", name == "all" ? "" : name, substr($0, index($0, " ## ") + 4))
    if (name in group) text[name] = line
    else if (in_top) top[++n_top] = line
    else rest[++n_rest] = line
}
function section(title, names, count,    i) {
    print ""
    print title
    for (i = 1; i <= count; i++) {
        if (!(names[i] in text)) {
            print "make help: " names[i] " has no ## line in the Makefile" > "/dev/stderr"
            failed = 1
        } else print text[names[i]]
    }
}
END {
    print "make help: every target, one line each (from the Makefile's ## comments)"
    print ""
    for (i = 1; i <= n_top; i++) print top[i]
    section("run by make test:", native_list, n_native)
    section("run by make test-all, after make test:", more_list, n_more)
    print ""
    print "others:"
    for (i = 1; i <= n_rest; i++) print rest[i]
    exit failed
}
