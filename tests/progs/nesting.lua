-- nesting.lua: Lua code whose C calls nest in every way the interpreter
-- has (tests/tree.sh): recursion, errors caught by pcall (longjmp),
-- coroutines, callbacks from C (table.sort's comparator, string.gsub's
-- function, __index and __lt metamethods), tail calls.
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end

local function fails(depth)
  if depth == 0 then error({ code = 7 }) end
  return 1 + fails(depth - 1)
end

local caught = 0
for i = 1, 40 do
  local ok, e = pcall(fails, i % 6)
  if not ok and e.code == 7 then caught = caught + 1 end
end

local gen = coroutine.wrap(function()
  for i = 1, 60 do coroutine.yield(fib(i % 9)) end
end)
local sum = 0
for _ = 1, 60 do sum = sum + gen() end

local t = {}
for i = 1, 300 do t[i] = (i * 7919) % 1009 end
table.sort(t, function(a, b) return a > b end)

local V = setmetatable({}, {
  __index = function(_, k) return k * 2 end,
  __lt = function(a, b) return rawlen(a) < rawlen(b) end,
})
local idx = 0
for i = 1, 200 do idx = idx + V[i] end

local words = string.gsub(string.rep("litifut traces calls ", 50), "%a+",
                          function(w) return w:upper() end)

local function count_down(n, acc) if n == 0 then return acc end return count_down(n - 1, acc + n) end

print(fib(16), caught, sum, t[1], t[300], idx, #words, count_down(2000, 0))
