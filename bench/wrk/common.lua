-- Shared by every scenario script: request builders fed by environment variables (set by
-- bench/run.ts), thread numbering, and a JSON summary on stdout that run.ts parses.
local common = {}

local thread_count = 0
function common.setup(thread)
  thread:set("tid", thread_count)
  thread_count = thread_count + 1
end

local function env(name)
  local value = os.getenv(name)
  if value == nil then error("bench/wrk: " .. name .. " is not set") end
  return value
end

local api_headers
local function account_headers()
  if api_headers == nil then
    api_headers = {
      ["content-type"] = "application/json",
      ["svc-api-key-id"] = env("BENCH_API_KEY_ID"),
      ["svc-api-secret-key"] = env("BENCH_API_SECRET"),
    }
  end
  return api_headers
end

-- Each thread owns a disjoint range of BENCH_STRIDE counters per kind of request, so every
-- request is unique across threads and a kind's counter is not advanced by the others.
local counters = {}
local function next_index(kind)
  counters[kind] = (counters[kind] or 0) + 1
  return tid * tonumber(env("BENCH_STRIDE")) + counters[kind]
end

-- One applied status change per request: SENT for a message seeded QUEUED and handed over as
-- ingest-<n>, under its own webhook-id.
local ingest_headers
function common.ingest()
  if ingest_headers == nil then
    ingest_headers = { ["content-type"] = "application/json", ["svc-signing-secret"] = env("BENCH_INGEST_SECRET") }
  end
  local n = tonumber(env("BENCH_INGEST_FIRST")) + next_index("ingest") - 1
  ingest_headers["webhook-id"] = env("BENCH_RUN") .. "-" .. n
  local body = '{"message_handle":"ingest-' .. n .. '","status":"SENT","error_code":null,"error_message":null,"was_downgraded":false}'
  return wrk.format("POST", "/webhooks/status", ingest_headers, body)
end

-- A new end user each time (a new contact, a new pin): the send path's full cost. Each run starts
-- at its own BENCH_SEND_FIRST, so no run sends to an end user an earlier run (or warm-up) made.
function common.send()
  local n = tonumber(env("BENCH_SEND_FIRST")) + next_index("send")
  local number = "+1" .. env("BENCH_SEND_AREA") .. string.format("%07d", 2000000 + n)
  local body = '{"number":"' .. number .. '","content":"bench ' .. env("BENCH_RUN") .. " " .. n .. '"}'
  return wrk.format("POST", "/api/send-message", account_headers(), body)
end

-- Listing paths (50 rows, each with a filter) from a file, one per line, in turn.
local paths
function common.listing()
  if paths == nil then
    paths = {}
    for line in io.lines(env("BENCH_PATHS_FILE")) do paths[#paths + 1] = line end
  end
  return wrk.format("GET", paths[next_index("listing") % #paths + 1], account_headers())
end

function common.done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests":%d,"durationUs":%d,"bytes":%d,"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},"latencyUs":{"p50":%d,"p90":%d,"p99":%d,"max":%d,"mean":%.1f}}\n',
    summary.requests, summary.duration, summary.bytes,
    errors.connect, errors.read, errors.write, errors.status, errors.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end

return common
