-- Status ingest: every request a unique event that applies one status change.
local common = dofile(os.getenv("BENCH_WRK_DIR") .. "/common.lua")
setup, done, request = common.setup, common.done, common.ingest
