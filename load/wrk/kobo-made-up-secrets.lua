-- Made-up Kobo link secrets (43 base64url characters, never issued) against /kobo/{secret}/v1/initialization,
-- each request from another forwarded client address (X-Forwarded-For over ADDRESSES addresses, as a
-- flood spread over many source addresses reaches the service through a trusted balancer). Counts the
-- answers by status and prints them at the end.
local alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
local addresses = tonumber(os.getenv("ADDRESSES") or "20000")
local counter = 0
-- Global: the main state reads each thread's counts with thread:get.
statuses = {}
local threads = {}

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

function init(args)
  math.randomseed(os.time() + id * 7919)
  statuses = {}
end

local function secret()
  local chars = {}
  for i = 1, 42 do
    local n = math.random(1, 64)
    chars[i] = alphabet:sub(n, n)
  end
  -- The last character of 32 bytes in base64url carries 4 bits: one of A, Q, g, w.
  local last = ({ "A", "Q", "g", "w" })[math.random(1, 4)]
  return table.concat(chars) .. last
end

function request()
  counter = counter + 1
  local a = (id * 1000003 + counter) % addresses
  local address = string.format("10.%d.%d.%d", 100 + a % 100, math.floor(a / 100) % 256, math.floor(a / 25600) % 256 + 1)
  return wrk.format("GET", "/kobo/" .. secret() .. "/v1/initialization", { ["X-Forwarded-For"] = address })
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
  local totals = {}
  for _, thread in ipairs(threads) do
    local counts = thread:get("statuses")
    for status, count in pairs(counts) do
      totals[status] = (totals[status] or 0) + count
    end
  end
  for status, count in pairs(totals) do
    io.write(string.format("status %d %d\n", status, count))
  end
end
