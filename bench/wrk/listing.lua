-- Message listing: 50 rows with a filter, in turn over the paths run.ts wrote.
local common = dofile(os.getenv("BENCH_WRK_DIR") .. "/common.lua")
setup, done, request = common.setup, common.done, common.listing
