-- wrk script: every request is a different user, each with its own device token.
-- Tokens come from `dotnet run --project src/SyncApi -- token --users FROM-TO`, one
-- "userNo<TAB>token" line each, in the file named by the TOKENS environment variable.
-- READ selects the endpoint: "user" (GET /v1/users/N), "highlights" (first page of
-- GET /v1/users/N/highlights) or "book" (first page of GET /v1/users/N/books/B/highlights, one
-- request per "userNo<TAB>bookNo" line of the file named by BOOKS: the books users have highlights
-- on). Threads walk the list from different offsets.
-- READ "sync" is a scheduled sync that finds nothing new: GET /v1/users/N/changes?since=TOKEN, with the
-- caught-up sync token of "userNo<TAB>token<TAB>syncToken" lines (lib.sh's bench_sync_tokens).
-- READ "kobo" is a Kobo e-reader's library sync instead: the first page of
-- GET /kobo/{secret}/v1/library/sync (no x-kobo-synctoken, so the same page every time for a library
-- that does not change), one request per "/kobo/<secret>" line of the file named by LINKS (the paths
-- POST /v1/users/N/kobo-links answers; lib.sh's bench_kobo_links makes one a user). The link's
-- secret in the path is the e-reader's credential: no Authorization header, and no TOKENS.

local read = os.getenv("READ") or "user"
local users, tokens = {}, {}

local since = {}

local function load_tokens()
  local path = os.getenv("TOKENS") or error("set TOKENS to a token file")
  for line in io.lines(path) do
    local user, token, sync = line:match("^(%d+)\t(%S+)\t?(%S*)$")
    if user then
      users[#users + 1] = user
      tokens[#tokens + 1] = "Bearer " .. token
      since[#since + 1] = sync
    end
  end
  assert(#users > 0, "no tokens in " .. path)
end

local counter = 0
local thread_no = 0

function setup(thread)
  thread_no = thread_no + 1
  thread:set("offset", thread_no * 7919)
end

-- Every request is formatted once, in init(), and request() only hands the next one out: wrk's
-- own CPU comes out of the same 2 cores as the service's, so per-request Lua work (formatting,
-- and a response() callback, which makes wrk parse every response for Lua) would be measured as
-- if it were the service's. Non-2xx answers are counted by wrk itself ("Non-2xx or 3xx
-- responses" in its summary, which compare.sh checks).
local requests = {}

local function book_requests()
  local path = os.getenv("BOOKS") or error("set BOOKS to a file of userNo<TAB>bookNo lines")
  local token_of = {}
  for i = 1, #users do
    token_of[users[i]] = tokens[i]
  end
  for line in io.lines(path) do
    local user, book = line:match("^(%d+)\t(%d+)$")
    if user and token_of[user] then
      requests[#requests + 1] = wrk.format("GET", "/v1/users/" .. user .. "/books/" .. book .. "/highlights",
        { ["Authorization"] = token_of[user] })
    end
  end
  assert(#requests > 0, "no user and book of " .. path .. " has a token")
end

local function kobo_requests()
  local path = os.getenv("LINKS") or error("set LINKS to a file of /kobo/<secret> paths")
  for line in io.lines(path) do
    local link = line:match("^(/kobo/%S+)$")
    if link then
      requests[#requests + 1] = wrk.format("GET", link .. "/v1/library/sync")
    end
  end
  assert(#requests > 0, "no Kobo link paths in " .. path)
end

function init(args)
  if read == "kobo" then
    kobo_requests()
    counter = offset or 0
    return
  end

  load_tokens()
  if read == "book" then
    book_requests()
  else
    for i = 1, #users do
      local path
      if read == "highlights" then
        path = "/v1/users/" .. users[i] .. "/highlights"
      elseif read == "sync" then
        assert(since[i] ~= "", "READ=sync needs userNo<TAB>token<TAB>syncToken lines (lib.sh's bench_sync_tokens)")
        path = "/v1/users/" .. users[i] .. "/changes?since=" .. since[i]:gsub("[^%w%-_%.~]", function(c)
          return string.format("%%%02X", string.byte(c))
        end)
      else
        path = "/v1/users/" .. users[i]
      end
      requests[i] = wrk.format("GET", path, { ["Authorization"] = tokens[i] })
    end
  end
  counter = offset or 0
end

function request()
  counter = counter + 1
  return requests[(counter % #requests) + 1]
end
