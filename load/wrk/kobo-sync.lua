-- wrk script: a Kobo e-reader's library sync, the first page (GET /kobo/{secret}/v1/library/sync
-- with no x-kobo-synctoken): the same page every time for a user whose library does not change.
-- LINKS names a file of Kobo link paths, one "/kobo/<secret>" a line (the path of the
-- apiEndpoint that POST /v1/users/N/kobo-links answers; lib.sh's bench_kobo_links makes one a
-- user). The link's secret in the path is the e-reader's credential: no Authorization header.
-- Threads walk the list from different offsets; every request is formatted once, in init().

local requests = {}
local counter = 0
local thread_no = 0

function setup(thread)
  thread_no = thread_no + 1
  thread:set("offset", thread_no * 7919)
end

function init(args)
  local path = os.getenv("LINKS") or error("set LINKS to a file of /kobo/<secret> paths")
  for line in io.lines(path) do
    local link = line:match("^(/kobo/%S+)$")
    if link then
      requests[#requests + 1] = wrk.format("GET", link .. "/v1/library/sync")
    end
  end
  assert(#requests > 0, "no Kobo link paths in " .. path)
  counter = offset or 0
end

function request()
  counter = counter + 1
  return requests[(counter % #requests) + 1]
end
