-- Mixed load: of every 4 requests, one send, one status event, two listings.
local common = dofile(os.getenv("BENCH_WRK_DIR") .. "/common.lua")
setup, done = common.setup, common.done
local turn = 0
request = function()
  turn = turn + 1
  if turn % 4 == 0 then return common.send() end
  if turn % 4 == 1 then return common.ingest() end
  return common.listing()
end
