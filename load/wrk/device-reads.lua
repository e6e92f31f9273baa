-- wrk script: every request is a different user, each with its own device token.
-- Tokens come from `dotnet run --project src/SyncApi -- token --users FROM-TO`, one
-- "userNo<TAB>token" line each, in the file named by the TOKENS environment variable.
-- READ selects the endpoint: "user" (GET /v1/users/N) or "highlights" (first page of
-- GET /v1/users/N/highlights). Threads walk the list from different offsets.

local read = os.getenv("READ") or "user"
local users, tokens = {}, {}

local function load_tokens()
  local path = os.getenv("TOKENS") or error("set TOKENS to a token file")
  for line in io.lines(path) do
    local user, token = line:match("^(%d+)\t(%S+)$")
    if user then
      users[#users + 1] = user
      tokens[#tokens + 1] = "Bearer " .. token
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

function init(args)
  load_tokens()
  counter = offset or 0
end

function request()
  counter = counter + 1
  local i = (counter % #users) + 1
  local path
  if read == "highlights" then
    path = "/v1/users/" .. users[i] .. "/highlights"
  else
    path = "/v1/users/" .. users[i]
  end
  return wrk.format("GET", path, { ["Authorization"] = tokens[i] })
end

local non2xx = 0
function response(status, headers, body)
  if status ~= 200 then
    non2xx = non2xx + 1
    if non2xx <= 3 then io.stderr:write("unexpected status " .. status .. ": " .. body .. "\n") end
  end
end
