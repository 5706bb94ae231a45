-- bench.lua: the Lua interpreter's workload in `make bench` (tests/bench.sh).
-- Deterministic: no time, no randomness, no iteration over hashed keys
-- (the build fixes the string hash seed: tests/bench/lua-seed.h).
-- Lua functions, closures, a sort with a Lua comparator, string
-- formatting, pattern matching, coroutines, and garbage to collect.

local function fib(n)
    if n < 2 then return n end
    return fib(n - 1) + fib(n - 2)
end

local lines = {}
for i = 1, 3000 do
    lines[i] = string.format("%05d:%s", (i * 7919) % 10007, string.rep("ab", i % 7))
end
table.sort(lines, function(a, b) return a > b end)

local acc = 0
for i, w in ipairs(lines) do
    local n = tonumber(w:match("^(%d+)"))
    acc = (acc + n * i) % 1000003
end

local text = table.concat(lines, " ")
local subst, n = text:gsub("ab", "Ba")
acc = (acc + n + #subst:upper()) % 1000003

local gen = coroutine.wrap(function()
    for i = 1, 5000 do coroutine.yield(i * i % 97) end
end)
for _ = 1, 5000 do acc = acc + gen() end

local objs = {}
for i = 1, 20000 do objs[i % 500 + 1] = { i, tostring(i), { i } } end

print(fib(20), acc, #objs)
