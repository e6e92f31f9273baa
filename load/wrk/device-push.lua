-- wrk script: device pushes of 10 highlight changes each (POST /v1/users/N/changes), every one of
-- which the service applies. Tokens as for device-reads.lua (TOKENS: "userNo<TAB>token" lines).
--
-- Each user has 10 highlights of its own in book BOOK (default 999999, a number the demo data does
-- not use, so their ids sort after the user's real highlights and the first page of a user's
-- highlights keeps the same items once they exist). Every request rewrites all 10 with a new text
-- and a newer device time, so each change is applied (a new version), none is "unchanged" or a
-- "conflict", and the data set does not grow: the cost stays the same from run to run. The first
-- pass over the users creates the 10 highlights; later passes update them.
--
-- Why that holds: the text carries the run's start second and the pass number, and modifiedAt is
-- the run's start second plus the pass number in microseconds, so a request is newer than every
-- earlier request for its user, of this run and of every run started before it (runs start at
-- least a second apart). Each thread pushes for its own users (user index modulo THREADS, which
-- must be wrk's -t) in passes over them, so a user's next request is a whole pass of requests
-- behind the previous one, never overtaking it on another connection. PASSES (default 10) bounds
-- the requests a run can send: users x PASSES; past that, requests repeat and are answered
-- "unchanged". cost.sh and watch.sh set PASSES from the run's length and check the applied
-- changes in the service's /metrics.
--
-- Every request is formatted once, in init(), as in device-reads.lua, so wrk's own CPU stays out
-- of the way of the service it measures.

local passes = tonumber(os.getenv("PASSES") or "10")
local threads = tonumber(os.getenv("THREADS") or "2")
local book = os.getenv("BOOK") or "999999"
local changes_per_request = 10

local thread_no = 0

function setup(thread)
  thread:set("thread_index", thread_no)
  thread_no = thread_no + 1
end

local requests = {}
local counter = 0

local function change(key, text, at)
  return '{"op":"upsert","bookNo":"' .. book .. '","key":"' .. key .. '","text":"' .. text ..
    '","start":1,"length":24,"color":"yellow","modifiedAt":"' .. at .. '"}'
end

function init(args)
  local path = os.getenv("TOKENS") or error("set TOKENS to a token file")
  local mine = {}
  local index = 0
  for line in io.lines(path) do
    local user, token = line:match("^(%d+)\t(%S+)$")
    if user then
      if index % threads == (thread_index or 0) then
        mine[#mine + 1] = { user = user, authorization = "Bearer " .. token }
      end
      index = index + 1
    end
  end
  assert(#mine > 0, "no tokens for this thread in " .. path)

  local started = os.time()
  local second = os.date("!%Y-%m-%dT%H:%M:%S", started)
  for pass = 0, passes - 1 do
    local at = second .. string.format(".%06dZ", pass)
    local text = string.format("watch push %d %06d", started, pass)
    for _, u in ipairs(mine) do
      local body = {}
      for k = 0, changes_per_request - 1 do
        body[#body + 1] = change("watch" .. k, text, at)
      end
      requests[#requests + 1] = wrk.format("POST", "/v1/users/" .. u.user .. "/changes",
        { ["Authorization"] = u.authorization, ["Content-Type"] = "application/json" },
        '{"changes":[' .. table.concat(body, ",") .. ']}')
    end
  end
end

function request()
  counter = counter + 1
  return requests[((counter - 1) % #requests) + 1]
end
