-- iso8601.lua: a stamp as ISO 8601 text with its UTC offset, and back.
-- Every stamp comes with the offset in force at that instant, so the text
-- is the local time *and* names the instant exactly.
local monostamp = require "monostamp"

-- Now, in the machine's local zone (TZ or /etc/localtime).
local ns, offset = monostamp.now()
print("local now        " .. monostamp.isoformat(ns, offset))        -- 9 digits
print("  milliseconds   " .. monostamp.isoformat(ns, offset, 3))
print("  offset         " .. offset .. " s east of UTC")

-- The same instant in other zones: a clock per zone.
for _, zone in ipairs{ "UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata" } do
  local clock = assert(monostamp.clock{ zone = zone })
  local z_ns, z_offset = clock:now()
  print(string.format("%-16s %s", zone, monostamp.isoformat(z_ns, z_offset, 0, true)))
end

-- parse() is exact: the text gives back the same integer ns and offset.
local text = monostamp.isoformat(ns, offset)
local back_ns, back_offset = assert(monostamp.parse(text))
assert(back_ns == ns and back_offset == offset)
print("parse(" .. text .. ") = " .. back_ns .. ", " .. back_offset .. " (the same stamp)")

-- Bad text is not an error that raises: parse returns nil, a message, a code.
print("parse('2026-13-01T00:00:00Z') -> " .. select(2, monostamp.parse("2026-13-01T00:00:00Z")))
